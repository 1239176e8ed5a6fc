//! What `web_fetch` returns for a fetched page: a header line, then the content.

use crate::MAX_BODY_BYTES;

/// A fetched response, its body cut at [`MAX_BODY_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    /// The body went on past what was read.
    pub truncated: bool,
    /// Set when redirects led somewhere other than the requested URL.
    pub final_url: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Text,
    Binary,
}

/// `status 200 OK · text/html · 5120 bytes`, then the content.
pub fn render(page: &Page) -> String {
    let media = page
        .content_type
        .as_deref()
        .map(|t| {
            t.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|t| !t.is_empty());
    let kind = kind(media.as_deref(), &page.body);
    let mut out = format!(
        "status {}{} · {} · {} bytes",
        page.status,
        reason(page.status)
            .map(|r| format!(" {r}"))
            .unwrap_or_default(),
        media.as_deref().unwrap_or("unknown type"),
        page.body.len()
    );
    if page.truncated {
        out.push_str(" (truncated)");
    }
    if let Some(url) = &page.final_url {
        out.push_str(&format!("\nredirected to {url}"));
    }
    out.push_str("\n\n");
    match kind {
        Kind::Html => out.push_str(&crate::readable::html_to_text(&page.body)),
        Kind::Text => out.push_str(&String::from_utf8_lossy(&page.body)),
        Kind::Binary => out.push_str(&format!(
            "(binary content, {} bytes, not shown)",
            page.body.len()
        )),
    }
    if page.truncated {
        out.push_str(&format!(
            "\n\n[truncated: only the first {MAX_BODY_BYTES} bytes (1 MiB) of the response were read]"
        ));
    }
    out
}

fn kind(media: Option<&str>, body: &[u8]) -> Kind {
    match media {
        Some("text/html" | "application/xhtml+xml") => Kind::Html,
        Some(m)
            if m.starts_with("text/")
                || m.ends_with("+json")
                || m.ends_with("+xml")
                || matches!(
                    m,
                    "application/json"
                        | "application/xml"
                        | "application/javascript"
                        | "application/x-javascript"
                        | "application/ecmascript"
                        | "application/x-ndjson"
                        | "application/toml"
                        | "application/yaml"
                        | "application/x-yaml"
                        | "application/x-sh"
                        | "application/sql"
                        | "application/graphql"
                ) =>
        {
            Kind::Text
        }
        _ => sniff(body),
    }
}

/// No usable content type: HTML if it looks like it, text if it is UTF-8 without NULs.
fn sniff(body: &[u8]) -> Kind {
    let head = &body[..body.len().min(1024)];
    let head_text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let start = head_text.trim_start();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        return Kind::Html;
    }
    let valid = match std::str::from_utf8(body) {
        Ok(_) => true,
        // A cut in the middle of a character is still text.
        Err(e) => e.error_len().is_none(),
    };
    if valid && !body.contains(&0) {
        Kind::Text
    } else {
        Kind::Binary
    }
}

fn reason(status: u16) -> Option<&'static str> {
    Some(match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        206 => "Partial Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn page(content_type: Option<&str>, body: &[u8]) -> Page {
        Page {
            status: 200,
            content_type: content_type.map(str::to_string),
            body: body.to_vec(),
            truncated: false,
            final_url: None,
        }
    }

    #[test]
    fn header_line_names_status_type_and_size() {
        let out = render(&page(
            Some("application/json; charset=utf-8"),
            b"{\"a\": 1}",
        ));
        assert_eq!(
            out,
            "status 200 OK · application/json · 8 bytes\n\n{\"a\": 1}"
        );
    }

    #[test]
    fn content_is_chosen_by_type_then_sniffed() {
        let cases: [(Option<&str>, &[u8], &str); 6] = [
            (Some("text/html"), b"<p>Hi <b>there</b></p>", "Hi there"),
            (Some("text/plain"), b"<p>kept</p>", "<p>kept</p>"),
            (None, b"<!DOCTYPE html><title>T</title><p>x</p>", "x"),
            (None, b"plain words", "plain words"),
            (
                Some("application/octet-stream"),
                b"\x89PNG\0\0",
                "binary content, 6 bytes",
            ),
            (Some("application/vnd.api+json"), b"{}", "{}"),
        ];
        for (ty, body, expected) in cases {
            let out = render(&page(ty, body));
            assert!(out.contains(expected), "{ty:?}: {out}");
        }
    }

    #[test]
    fn truncation_and_redirects_are_said() {
        let mut p = page(Some("text/plain"), b"abc");
        p.truncated = true;
        p.status = 404;
        p.final_url = Some("https://example.com/b".into());
        let out = render(&p);
        assert!(out.starts_with("status 404 Not Found · text/plain · 3 bytes (truncated)\nredirected to https://example.com/b\n\nabc"), "{out}");
        assert!(out.ends_with("of the response were read]"), "{out}");
    }
}
