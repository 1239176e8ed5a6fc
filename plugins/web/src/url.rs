//! Just enough URL handling for `web_fetch`: split an absolute http(s) URL into what
//! `wasi:http` needs, and resolve a redirect's `Location` against it.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Http,
    Https,
}

/// An absolute http or https URL without fragment or credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub scheme: Scheme,
    /// `host[:port]`, lowercase host.
    pub authority: String,
    /// Starts with `/`; percent-encoded where needed.
    pub path_with_query: String,
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = match self.scheme {
            Scheme::Http => "http",
            Scheme::Https => "https",
        };
        write!(f, "{scheme}://{}{}", self.authority, self.path_with_query)
    }
}

impl Url {
    /// Parse the `url` argument. Errors name the field and say what to send instead.
    pub fn parse(text: &str) -> Result<Url, String> {
        let text = text.trim();
        let Some((scheme, rest)) = split_scheme(text) else {
            return Err(format!(
                "url: `{text}` is not an absolute URL; send one that starts with http:// or https://"
            ));
        };
        let scheme = match scheme.to_ascii_lowercase().as_str() {
            "http" => Scheme::Http,
            "https" => Scheme::Https,
            other => {
                return Err(format!(
                    "url: only http and https URLs can be fetched, not `{other}:`"
                ));
            }
        };
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        check_authority(authority).map_err(|why| format!("url: `{text}`: {why}"))?;
        let tail = tail.split('#').next().unwrap_or("");
        let path_with_query = match tail {
            "" => "/".to_string(),
            t if t.starts_with('?') => format!("/{}", encode(t)),
            t => encode(t),
        };
        Ok(Url {
            scheme,
            authority: lowercase_host(authority),
            path_with_query,
        })
    }

    /// Resolve a redirect target (absolute, scheme-relative, absolute-path or relative).
    pub fn join(&self, location: &str) -> Result<Url, String> {
        let location = location.trim();
        if split_scheme(location).is_some() {
            return Url::parse(location);
        }
        let base = match self.scheme {
            Scheme::Http => "http:",
            Scheme::Https => "https:",
        };
        if location.starts_with("//") {
            return Url::parse(&format!("{base}{location}"));
        }
        let origin = format!("{base}//{}", self.authority);
        let path = self.path_with_query.split('?').next().unwrap_or("/");
        let joined = if location.starts_with('/') {
            format!("{origin}{location}")
        } else if location.starts_with('?') {
            format!("{origin}{path}{location}")
        } else {
            let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
            format!("{origin}{dir}{location}")
        };
        Url::parse(&joined)
    }
}

/// `scheme` and the rest after `://`, when `text` starts with a scheme.
fn split_scheme(text: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = text.split_once("://")?;
    let valid = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some((scheme, rest))
}

fn check_authority(authority: &str) -> Result<(), String> {
    if authority.is_empty() {
        return Err("the URL has no host".to_string());
    }
    if authority.contains('@') {
        return Err("credentials in the URL are not supported".to_string());
    }
    if !authority.is_ascii() {
        return Err(
            "internationalized host names are not supported; use the xn-- (punycode) form"
                .to_string(),
        );
    }
    if authority
        .chars()
        .any(|c| c.is_ascii_whitespace() || c.is_ascii_control())
    {
        return Err("the host contains spaces or control characters".to_string());
    }
    let (host, port) = match authority.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((host, "")) => (host, None),
            Some((host, after)) => (host, Some(after.strip_prefix(':').unwrap_or("x"))),
            None => return Err("unclosed `[` in the host".to_string()),
        },
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    if host.is_empty() {
        return Err("the URL has no host".to_string());
    }
    if let Some(port) = port
        && !port.is_empty()
        && port.parse::<u16>().is_err()
    {
        return Err(format!("`{port}` is not a port number"));
    }
    Ok(())
}

fn lowercase_host(authority: &str) -> String {
    authority.to_ascii_lowercase()
}

/// Percent-encode what may not appear raw in a request target.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        let raw = byte.is_ascii_graphic()
            && !matches!(
                byte,
                b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}'
            );
        if raw {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_http_urls() {
        let cases = [
            ("https://Example.com", "https://example.com/"),
            (
                "http://127.0.0.1:8080/a/b?c=d#frag",
                "http://127.0.0.1:8080/a/b?c=d",
            ),
            ("https://example.com?q=1", "https://example.com/?q=1"),
            ("HTTP://[::1]:9/x", "http://[::1]:9/x"),
            (
                "https://example.com/a b/é",
                "https://example.com/a%20b/%C3%A9",
            ),
            ("  https://example.com/x  ", "https://example.com/x"),
        ];
        for (input, expected) in cases {
            assert_eq!(Url::parse(input).unwrap().to_string(), expected, "{input}");
        }
    }

    #[test]
    fn refuses_what_is_not_http() {
        for bad in [
            "ftp://example.com/",
            "file:///etc/passwd",
            "example.com/path",
            "/relative",
            "http://",
            "https://user:pw@example.com/",
            "http://exa mple.com/",
            "http://example.com:port/",
            "http://[::1/",
            "https://bücher.de/",
        ] {
            let err = Url::parse(bad).unwrap_err();
            assert!(err.starts_with("url:"), "{bad}: {err}");
        }
    }

    #[test]
    fn joins_redirect_targets() {
        let base = Url::parse("https://example.com/docs/page?x=1").unwrap();
        let cases = [
            ("https://other.org/y", "https://other.org/y"),
            (
                "http://169.254.169.254/latest",
                "http://169.254.169.254/latest",
            ),
            ("//cdn.example.com/a", "https://cdn.example.com/a"),
            ("/root", "https://example.com/root"),
            ("next", "https://example.com/docs/next"),
            ("?y=2", "https://example.com/docs/page?y=2"),
        ];
        for (location, expected) in cases {
            assert_eq!(
                base.join(location).unwrap().to_string(),
                expected,
                "{location}"
            );
        }
        assert!(base.join("ftp://example.com/").is_err());
    }
}
