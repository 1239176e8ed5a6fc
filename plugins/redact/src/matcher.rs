//! The secret matcher: a single left-to-right scan for known key shapes, plus exact matches of
//! the secrets the host knows. Every match becomes [`MARKER`], which is shorter than anything
//! matched, so redaction always terminates and a second pass changes nothing.

/// What a secret is replaced with.
pub const MARKER: &str = "[REDACTED]";
/// Known secrets shorter than this are ignored: too likely to occur by chance (and the marker
/// must be shorter than anything it replaces).
pub const MIN_KNOWN_SECRET: usize = 12;

/// A key shape: a literal prefix, then a body of allowed bytes of a bounded length.
struct Shape {
    prefix: &'static str,
    /// The prefix matches in any letter case (`Bearer`, `bearer`).
    any_case: bool,
    body: fn(u8) -> bool,
    min: usize,
    max: usize,
    /// Only the body is replaced (`Bearer [REDACTED]`), not the prefix.
    keep_prefix: bool,
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}
fn key_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}
fn upper_alnum(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}
fn token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=')
}

const fn shape(prefix: &'static str, body: fn(u8) -> bool, min: usize, max: usize) -> Shape {
    Shape {
        prefix,
        any_case: false,
        body,
        min,
        max,
        keep_prefix: false,
    }
}

/// The shapes, longest prefix first where one prefix starts another (`sk-ant-` before `sk-`).
const SHAPES: &[Shape] = &[
    shape("sk-ant-", key_char, 20, 400),
    shape("sk-", key_char, 20, 400),
    shape("AKIA", upper_alnum, 16, 16),
    shape("ghp_", alnum, 30, 255),
    shape("gho_", alnum, 30, 255),
    shape("ghu_", alnum, 30, 255),
    shape("ghs_", alnum, 30, 255),
    shape("ghr_", alnum, 30, 255),
    shape("github_pat_", key_char, 22, 255),
    shape("xoxb-", key_char, 10, 255),
    shape("xoxa-", key_char, 10, 255),
    shape("xoxp-", key_char, 10, 255),
    shape("AIza", key_char, 35, 35),
    Shape {
        prefix: "bearer ",
        any_case: true,
        body: token_char,
        min: 16,
        max: 4096,
        keep_prefix: true,
    },
];

const PEM_BEGIN: &str = "-----BEGIN ";
const PEM_KEY_END: &str = "PRIVATE KEY-----";
const PEM_END: &str = "-----END ";

/// The known secrets worth matching: long enough, one line each, longest first (so a secret
/// that contains another is replaced whole).
pub fn usable_secrets(secrets: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = secrets
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| s.len() >= MIN_KNOWN_SECRET && !s.contains('\n'))
        .collect();
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out.dedup();
    out
}

/// A quick test that `text` may hold a secret; `false` means [`redact`] would change nothing.
/// (It may hold one when a prefix or a known secret occurs, ignoring letter case for `bearer`.)
/// The bytes a shape or a PEM block can start with.
const FIRST_BYTES: [bool; 256] = first_bytes();

const fn first_bytes() -> [bool; 256] {
    let mut first = [false; 256];
    first[PEM_BEGIN.as_bytes()[0] as usize] = true;
    let mut i = 0;
    while i < SHAPES.len() {
        let f = SHAPES[i].prefix.as_bytes()[0];
        first[f as usize] = true;
        if SHAPES[i].any_case {
            first[f.to_ascii_uppercase() as usize] = true;
            first[f.to_ascii_lowercase() as usize] = true;
        }
        i += 1;
    }
    first
}

pub fn may_hold_secret(text: &str, known: &[String]) -> bool {
    // One pass over the bytes, stopping only where some prefix could start (a 256-entry table
    // of first bytes): scanning the text once per shape cost more than the rest of a call.
    let first = &FIRST_BYTES;
    let bytes = text.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if !first[usize::from(*b)] {
            continue;
        }
        let rest = &bytes[i..];
        if rest.starts_with(PEM_BEGIN.as_bytes()) {
            return true;
        }
        let prefix_here = SHAPES.iter().any(|s| {
            let p = s.prefix.as_bytes();
            rest.len() >= p.len()
                && if s.any_case {
                    rest[..p.len()].eq_ignore_ascii_case(p)
                } else {
                    &rest[..p.len()] == p
                }
        });
        if prefix_here {
            return true;
        }
    }
    known.iter().any(|s| text.contains(s.as_str()))
}

pub fn redact(text: &str, known: &[String]) -> String {
    let mut current = text.to_string();
    // Each pass that changes something makes the text shorter (the marker is shorter than
    // anything it replaces), so this ends; a pass can expose a new match only through the
    // marker's neighbours, which the next pass sees.
    loop {
        let next = shapes(&known_pass(&current, known));
        if next == current {
            return current;
        }
        current = next;
    }
}

fn known_pass(text: &str, known: &[String]) -> String {
    let mut out = text.to_string();
    for secret in known {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), MARKER);
        }
    }
    out
}

/// One scan for the key shapes and private-key blocks.
fn shapes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let first = &FIRST_BYTES;
    let mut i = 0;
    while i < bytes.len() {
        if !first[usize::from(bytes[i])] {
            i += 1;
            continue;
        }
        if let Some((start, end)) = match_at(text, i) {
            // Shapes and prefixes are ASCII: `start` and `end` are character boundaries.
            out.push_str(&text[copied..start]);
            out.push_str(MARKER);
            copied = end;
            i = end;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// A secret found at byte `i`: the range to replace.
fn match_at(text: &str, i: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    // A key starts a word: `task-…` or `risk-…` do not hold `sk-` keys.
    if i > 0 && key_char(bytes[i - 1]) {
        return None;
    }
    if bytes[i..].starts_with(PEM_BEGIN.as_bytes()) {
        return pem_block(text, i).map(|end| (i, end));
    }
    for s in SHAPES {
        let p = s.prefix.as_bytes();
        let Some(head) = bytes.get(i..i + p.len()) else {
            continue;
        };
        let matches = if s.any_case {
            head.eq_ignore_ascii_case(p)
        } else {
            head == p
        };
        if !matches {
            continue;
        }
        let body_start = i + p.len();
        let len = bytes[body_start..]
            .iter()
            .take_while(|b| (s.body)(**b))
            .count();
        // Too long for the shape: some other token, not this key.
        if len < s.min || len > s.max {
            continue;
        }
        let body = &bytes[body_start..body_start + len];
        // Random keys mix letters and digits; words joined by hyphens do not.
        if !body.iter().any(u8::is_ascii_digit) || !body.iter().any(u8::is_ascii_alphabetic) {
            continue;
        }
        let start = if s.keep_prefix { body_start } else { i };
        return Some((start, body_start + len));
    }
    None
}

/// The end of a `-----BEGIN … PRIVATE KEY-----` block starting at `i` (through its END line,
/// or the end of the text when it has none); `None` when the header is not a private key's.
fn pem_block(text: &str, i: usize) -> Option<usize> {
    let rest = &text[i..];
    let header_end = rest.find('\n').unwrap_or(rest.len());
    let header = &rest[..header_end];
    if !header.trim_end().ends_with(PEM_KEY_END) {
        return None;
    }
    let Some(end) = rest.find(PEM_END) else {
        return Some(text.len());
    };
    let after = &rest[end..];
    let line_end = after
        .find(PEM_KEY_END)
        .map(|j| j + PEM_KEY_END.len())
        .unwrap_or_else(|| after.find('\n').unwrap_or(after.len()));
    Some(i + end + line_end)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn r(text: &str) -> String {
        redact(text, &[])
    }

    #[test]
    fn key_shapes() {
        for (text, want) in [
            ("k=sk-abcdefghij0123456789XYZ;", "k=[REDACTED];"),
            ("sk-ant-api03-abcdefghij0123456789-XYZ", "[REDACTED]"),
            ("id AKIAABCDEFGH12345678 ok", "id [REDACTED] ok"),
            ("ghp_abcdefghij0123456789abcdefghij012345", "[REDACTED]"),
            ("github_pat_11ABCDEFG0123456789_abcdefghij", "[REDACTED]"),
            ("xoxb-1234567890-abcdefghij", "[REDACTED]"),
            ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED]"),
            (
                "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc123",
                "Authorization: Bearer [REDACTED]",
            ),
            (
                "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----\nb",
                "a\n[REDACTED]\nb",
            ),
            (
                "x -----BEGIN OPENSSH PRIVATE KEY-----\nAAAA",
                "x [REDACTED]",
            ),
        ] {
            assert_eq!(r(text), want, "{text}");
        }
    }

    #[test]
    fn look_alikes_are_left_alone() {
        for text in [
            "task-abcdefghij0123456789XYZ",
            "sk-learn-compatible-estimators-list",
            "sk-short1",
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
            "the bearer of bad news",
            "AKIA lowercase",
        ] {
            assert_eq!(r(text), text);
        }
    }

    #[test]
    fn known_secrets() {
        let known = usable_secrets(["hunter2".to_string(), "my-provider-key-value".to_string()]);
        assert_eq!(known, ["my-provider-key-value"], "short ones are ignored");
        assert_eq!(
            redact("a my-provider-key-value b", &known),
            "a [REDACTED] b"
        );
        assert!(may_hold_secret("xmy-provider-key-valuex", &known));
        assert!(!may_hold_secret("nothing here", &known));
    }

    proptest! {
        #[test]
        fn never_panics_is_idempotent_and_leaves_no_known_secret(
            text in "(?s).{0,300}",
            pieces in proptest::collection::vec("(sk-|AKIA|ghp_|Bearer |-----BEGIN RSA PRIVATE KEY-----\n|[a-zA-Z0-9_-]{1,30}|é|\n| )", 0..20),
            secrets in proptest::collection::vec("[ -~]{0,30}", 0..4),
        ) {
            let known = usable_secrets(secrets);
            let mut input = text.clone();
            for p in &pieces {
                input.push_str(p);
            }
            for s in &known {
                input.push_str(s);
                input.insert_str(0, s);
            }
            let once = redact(&input, &known);
            prop_assert_eq!(&redact(&once, &known), &once);
            for s in &known {
                prop_assert!(!once.contains(s.as_str()), "{s} left in {once}");
            }
            if !may_hold_secret(&input, &known) {
                prop_assert_eq!(&once, &input);
            }
        }
    }
}
