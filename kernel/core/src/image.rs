//! Images given to a model (from an MCP server, or attached by the user): only the types every
//! wire protocol takes, well-formed base64, and bounded, since each one is re-sent with every
//! request of the conversation.

use crate::types::Image;

/// The image types passed to a model (the ones every wire protocol of the built-in kinds takes).
pub const MEDIA_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The largest image passed to a model, in base64 characters (about 3.6 MiB of image): within
/// every wire protocol's per-image limit.
pub const MAX_BASE64: usize = 5_000_000;

/// `data` (base64) of type `media_type` as an image for the model, or why it cannot be one.
pub fn checked(media_type: &str, data: &str) -> Result<Image, String> {
    let media_type = media_type.trim().to_ascii_lowercase();
    if !MEDIA_TYPES.contains(&media_type.as_str()) {
        return Err(format!(
            "the image type `{}` is not one a model takes ({})",
            crate::terminal::shown(&media_type),
            MEDIA_TYPES.join(", ")
        ));
    }
    if data.is_empty() {
        return Err("the image has no data".into());
    }
    if data.len() > MAX_BASE64 {
        return Err(format!(
            "the image is {} base64 characters, over the limit of {MAX_BASE64}",
            data.len()
        ));
    }
    if !is_base64(data) {
        return Err("the image data is not standard padded base64".into());
    }
    Ok(Image {
        media_type,
        data: data.to_string(),
    })
}

/// Standard, padded base64: what the wire protocols embed in a `data:` URL or a `source`.
fn is_base64(data: &str) -> bool {
    if !data.len().is_multiple_of(4) {
        return false;
    }
    let body = data.trim_end_matches('=');
    data.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn only_well_formed_images_of_common_types_pass() {
        assert!(checked("image/png", "iVBORw0KGgo=").is_ok());
        assert_eq!(
            checked(" IMAGE/JPEG", "/9j/4A==").unwrap().media_type,
            "image/jpeg"
        );
        for (mime, data, why) in [
            ("image/svg+xml", "PHN2Zz4=", "not one a model takes"),
            ("image/png", "not base64!", "not standard padded base64"),
            ("image/png", "AAA", "not standard padded base64"),
            ("image/png", "A===", "not standard padded base64"),
            ("image/png", "AA\"}", "not standard padded base64"),
            ("image/png", "", "no data"),
        ] {
            let error = checked(mime, data).unwrap_err();
            assert!(error.contains(why), "{mime} {data}: {error}");
        }
        let huge = "A".repeat(MAX_BASE64 + 4);
        assert!(
            checked("image/png", &huge)
                .unwrap_err()
                .contains("over the limit")
        );
    }

    proptest! {
        #[test]
        fn whatever_is_encoded_passes(bytes in proptest::collection::vec(any::<u8>(), 1..300)) {
            let encoded = crate::base64::encode(&bytes);
            prop_assert!(checked("image/gif", &encoded).is_ok());
        }

        #[test]
        fn what_passes_is_only_base64_characters(data in "\\PC{0,40}") {
            if let Ok(image) = checked("image/png", &data) {
                prop_assert!(image.data.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b)));
            }
        }
    }
}
