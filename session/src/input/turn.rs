//! What the user sends in one turn: text, and images (an `@server:uri` resource that is an
//! image, an image block of `--input-format stream-json`).

use reasonix_core::types::Image;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turn {
    pub text: String,
    pub images: Vec<Image>,
}

impl Turn {
    pub fn text(text: impl Into<String>) -> Turn {
        Turn {
            text: text.into(),
            images: Vec::new(),
        }
    }
}
