//! `read_file`: a window of numbered lines from a text file.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;

use reasonix_sdk::{CallContext, Error, Tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::encoding::{self, DETECT_SAMPLE, Sniff};
use crate::paths::{self, io_error};
use crate::policy::Policy;

/// Tool name.
pub const NAME: &str = "read_file";
/// Lines returned when `limit` is not given.
pub const DEFAULT_LIMIT: u64 = 2000;
/// Most bytes reserved up front for the lines kept from a file.
const KEEP_RESERVE_MAX: usize = 8 * 1024 * 1024;
/// Line length assumed when sizing that reservation from `limit`.
const LIKELY_LINE_BYTES: u64 = 1024;
/// Longest line shown in full, in UTF-8 bytes; longer lines are cut with a marker.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

// `offset` and `limit` are signed so that a negative value gets a message of its own.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// File to read, relative to the workspace root (or absolute inside the workspace).
    path: String,
    /// Number of lines to skip before the first line returned (0-based line offset). Default 0.
    #[schemars(range(min = 0))]
    offset: Option<i64>,
    /// Maximum number of lines to return. Default 2000.
    #[schemars(range(min = 1))]
    limit: Option<i64>,
}

/// The `read_file` tool.
pub struct ReadFile;

impl Tool for ReadFile {
    const NAME: &'static str = NAME;
    const READ_ONLY: bool = true;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/read_file.json"));

    fn description() -> String {
        "Read a text file from the workspace. Each output line is prefixed with its 1-based line \
         number and `→` (e.g. `  42→fn main() {`); the prefix is not part of the file. Returns at \
         most `limit` lines (default 2000) starting after `offset` lines (default 0); when more \
         lines follow, the output ends with `[more lines below; pass offset=N to continue]`. \
         UTF-8, UTF-16 and GB18030 files are decoded, CRLF line endings are shown as LF, and \
         lines longer than 1 MiB are cut with a marker. Binary files are refused; for a \
         directory use `ls`. Relative paths are resolved against the workspace root; absolute \
         paths must lie inside the workspace."
            .into()
    }

    fn guidance() -> Option<String> {
        Some(
            "Read a file with `read_file` before editing it, so your edit matches what is really \
             there."
                .into(),
        )
    }

    fn run(args: Args, cx: &CallContext) -> Result<String, Error> {
        let offset = match args.offset {
            None => 0,
            Some(n) => u64::try_from(n).map_err(|_| {
                Error::InvalidInput(format!("{NAME}: `offset` must be 0 or more (got {n})"))
            })?,
        };
        let limit = match args.limit {
            None => DEFAULT_LIMIT,
            Some(n) if n >= 1 => n.unsigned_abs(),
            Some(n) => {
                return Err(Error::InvalidInput(format!(
                    "{NAME}: `limit` must be 1 or more (got {n})"
                )));
            }
        };
        let resolved = paths::resolve(&cx.workspace, &args.path)?;
        Policy::current(&cx.workspace).check(&resolved.abs, &resolved.display)?;
        read_window(&resolved.abs, &resolved.display, offset, limit)
    }
}

/// Read lines `offset .. offset + limit` of the file at `path`, formatted for the model.
/// `display` names the file in messages.
pub fn read_window(path: &Path, display: &str, offset: u64, limit: u64) -> Result<String, Error> {
    let meta = std::fs::metadata(path).map_err(|e| io_error("read", display, &e))?;
    if meta.is_dir() {
        return Err(Error::InvalidInput(format!(
            "{display} is a directory, not a file — use the ls tool to list it, or read a \
             specific file inside it"
        )));
    }
    let mut file = File::open(path).map_err(|e| io_error("read", display, &e))?;
    let sample_cap = usize::try_from(meta.len()).map_or(DETECT_SAMPLE, |n| n.min(DETECT_SAMPLE));
    let mut head = Vec::with_capacity(sample_cap);
    (&mut file)
        .take(DETECT_SAMPLE as u64)
        .read_to_end(&mut head)
        .map_err(|e| io_error("read", display, &e))?;
    let complete = head.len() < DETECT_SAMPLE;
    let enc = match encoding::sniff(&head, complete) {
        Sniff::Binary => {
            return Err(Error::InvalidInput(format!(
                "binary file {display} (NUL byte in its first 8 KiB); read_file only shows text \
                 files"
            )));
        }
        Sniff::Text(enc) => enc,
    };
    let mut start = Cursor::new(head);
    start.set_position(enc.bom_len() as u64);
    let source = encoding::utf8_reader(start.chain(file), enc);
    // Room up front for what a window from the start will likely keep (bounded): the kept
    // bytes rarely reallocate, so a component's memory grows once instead of doubling its way
    // up. A window further in cannot be sized from the file's length.
    let expected = if offset == 0 {
        let window = limit.saturating_mul(LIKELY_LINE_BYTES).min(meta.len());
        usize::try_from(window).map_or(KEEP_RESERVE_MAX, |n| n.min(KEEP_RESERVE_MAX))
    } else {
        0
    };
    scan(
        LineScanner::new(BufReader::with_capacity(64 * 1024, source)),
        offset,
        limit,
        expected,
    )
    .map_err(|e| io_error("read", display, &e))
}

/// Collect the window from a line source and format it.
///
/// The kept lines go back to back into one buffer and the output is built in one string sized
/// up front: a 1 MiB window costs a few large copies, not an allocation and a formatting call
/// per line (which matters most inside a wasm instance, where every allocation is fresh memory).
fn scan<R: BufRead>(
    mut lines: LineScanner<R>,
    offset: u64,
    limit: u64,
    expected: usize,
) -> io::Result<String> {
    let mut kept = Vec::with_capacity(expected);
    let mut shown: Vec<ShownLine> = Vec::new();
    let mut line_no: u64 = 0;
    let mut has_more = false;
    loop {
        let wanted = line_no >= offset && (shown.len() as u64) < limit;
        let from = kept.len();
        let Some(line) = lines.next_line(wanted.then_some(&mut kept))? else {
            break;
        };
        line_no += 1;
        if line_no <= offset {
            continue;
        }
        if (shown.len() as u64) < limit {
            shown.push(ShownLine {
                bytes: from..kept.len(),
                line,
            });
            continue;
        }
        // A line past the window exists: no need to read further.
        has_more = true;
        break;
    }
    if line_no == 0 {
        return Ok("(empty file)".to_string());
    }
    if shown.is_empty() {
        return Ok(format!(
            "(offset {offset} is past EOF — file has {line_no} lines)"
        ));
    }
    let max_shown = offset + shown.len() as u64;
    let width = decimal_digits(max_shown);
    let mut out = String::with_capacity(kept.len() + shown.len() * (width + 4) + 64);
    for (i, line) in shown.iter().enumerate() {
        push_padded(&mut out, offset + i as u64 + 1, width);
        out.push('→');
        line.line.render_into(&kept[line.bytes.clone()], &mut out);
        out.push('\n');
    }
    if has_more {
        let _ = writeln!(
            out,
            "\n[more lines below; pass offset={max_shown} to continue]"
        );
    }
    Ok(out)
}

/// A line of the window: where its kept bytes are in the shared buffer, and what it was.
struct ShownLine {
    bytes: std::ops::Range<usize>,
    line: RawLine,
}

/// One line as read: its length, and its last byte. Its first bytes (at most
/// [`MAX_LINE_BYTES`] + 1 of them) were appended to the caller's buffer.
struct RawLine {
    /// Length of the whole line in bytes, without the `\n`.
    len: u64,
    /// The line's last byte, to recognise a CRLF ending even when the line was cut.
    last: Option<u8>,
}

impl RawLine {
    /// Append the line as text: `\r` of a CRLF ending removed, invalid UTF-8 replaced, cut
    /// with a marker past [`MAX_LINE_BYTES`].
    fn render_into(&self, mut bytes: &[u8], out: &mut String) {
        let mut len = self.len;
        if self.last == Some(b'\r') {
            len -= 1;
            if bytes.len() as u64 > len {
                bytes = &bytes[..bytes.len() - 1];
            }
        }
        if len <= MAX_LINE_BYTES as u64 {
            push_lossy(out, bytes);
            return;
        }
        // Cut on a character boundary: back off over UTF-8 continuation bytes.
        let mut cut = MAX_LINE_BYTES.min(bytes.len());
        while cut > 0 && bytes.get(cut).is_some_and(|b| b & 0xC0 == 0x80) {
            cut -= 1;
        }
        push_lossy(out, &bytes[..cut]);
        let _ = write!(
            out,
            " [… line truncated: {len} bytes long, first {cut} shown]"
        );
    }
}

/// Append `bytes` as text, invalid UTF-8 replaced. Valid text (nearly every line) takes the
/// vectorised validator instead of the byte-at-a-time lossy decoder.
fn push_lossy(out: &mut String, bytes: &[u8]) {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => out.push_str(text),
        Err(_) => out.push_str(&String::from_utf8_lossy(bytes)),
    }
}

fn decimal_digits(mut n: u64) -> usize {
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}

/// Append `n` right-aligned in `width` columns.
fn push_padded(out: &mut String, mut n: u64, width: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let used = digits.len() - at;
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// Splits a UTF-8 byte stream into `\n`-terminated lines without holding more than
/// [`MAX_LINE_BYTES`] of any line in memory.
struct LineScanner<R> {
    inner: R,
}

impl<R: BufRead> LineScanner<R> {
    fn new(inner: R) -> Self {
        LineScanner { inner }
    }

    /// The next line, or `None` at the end. Its first bytes are appended to `keep` when given;
    /// otherwise they are skipped, not stored.
    fn next_line(&mut self, mut keep: Option<&mut Vec<u8>>) -> io::Result<Option<RawLine>> {
        let mut len: u64 = 0;
        let mut stored = 0usize;
        let mut last = None;
        let mut started = false;
        loop {
            let available = self.inner.fill_buf()?;
            if available.is_empty() {
                return Ok(started.then_some(RawLine { len, last }));
            }
            started = true;
            let (end, found) = match memchr::memchr(b'\n', available) {
                Some(i) => (i, true),
                None => (available.len(), false),
            };
            let chunk = &available[..end];
            if let Some(&b) = chunk.last() {
                last = Some(b);
            }
            len += chunk.len() as u64;
            if let Some(buffer) = keep.as_deref_mut()
                && stored <= MAX_LINE_BYTES
            {
                let take = chunk.len().min(MAX_LINE_BYTES + 1 - stored);
                buffer.extend_from_slice(&chunk[..take]);
                stored += take;
            }
            self.inner.consume(end + usize::from(found));
            if found {
                return Ok(Some(RawLine { len, last }));
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::encoding::{TextEncoding, encode_for};
    use serde_json::json;
    use std::fs;

    struct Ws {
        dir: tempfile::TempDir,
    }

    impl Ws {
        fn new() -> Self {
            Ws {
                dir: tempfile::tempdir().unwrap(),
            }
        }
        fn cx(&self) -> CallContext {
            CallContext {
                call_id: "t1".to_string(),
                workspace: self.dir.path().to_string_lossy().into_owned(),
            }
        }
        fn put(&self, name: &str, bytes: &[u8]) {
            let p = self.dir.path().join(name);
            if let Some(parent) = p.parent() {
                fs::create_dir_all(parent).unwrap();
            }
            fs::write(p, bytes).unwrap();
        }
        fn read(&self, args: serde_json::Value) -> Result<String, Error> {
            reasonix_sdk::tool::invoke::<ReadFile>(&args.to_string(), &self.cx())
        }
        fn ok(&self, args: serde_json::Value) -> String {
            match self.read(args) {
                Ok(s) => s,
                Err(e) => panic!("read failed: {e:?}"),
            }
        }
    }

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn reads_whole_small_file() {
        let ws = Ws::new();
        ws.put("a.txt", b"alpha\nbeta\ngamma\n");
        assert_eq!(
            ws.ok(json!({"path": "a.txt"})),
            "1→alpha\n2→beta\n3→gamma\n"
        );
    }

    #[test]
    fn last_line_without_newline_is_read() {
        let ws = Ws::new();
        ws.put("a.txt", b"x\ny");
        assert_eq!(ws.ok(json!({"path": "a.txt"})), "1→x\n2→y\n");
    }

    #[test]
    fn blank_lines_are_lines() {
        let ws = Ws::new();
        ws.put("a.txt", b"\n\nz\n");
        assert_eq!(ws.ok(json!({"path": "a.txt"})), "1→\n2→\n3→z\n");
    }

    #[test]
    fn numbers_are_right_aligned_to_widest_shown() {
        let ws = Ws::new();
        ws.put("a.txt", numbered(12).as_bytes());
        let out = ws.ok(json!({"path": "a.txt", "offset": 8, "limit": 2}));
        assert_eq!(
            out,
            " 9→line 9\n10→line 10\n\n[more lines below; pass offset=10 to continue]\n"
        );
    }

    #[test]
    fn offset_and_limit_page_through() {
        let ws = Ws::new();
        ws.put("a.txt", numbered(5).as_bytes());
        let first = ws.ok(json!({"path": "a.txt", "limit": 2}));
        assert_eq!(
            first,
            "1→line 1\n2→line 2\n\n[more lines below; pass offset=2 to continue]\n"
        );
        let last = ws.ok(json!({"path": "a.txt", "offset": 4, "limit": 2}));
        assert_eq!(last, "5→line 5\n");
        // Exactly reaching the end: no trailer.
        let exact = ws.ok(json!({"path": "a.txt", "offset": 3, "limit": 2}));
        assert_eq!(exact, "4→line 4\n5→line 5\n");
    }

    #[test]
    fn default_limit_is_2000_lines() {
        let ws = Ws::new();
        ws.put("big.txt", numbered(2500).as_bytes());
        let out = ws.ok(json!({"path": "big.txt"}));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "   1→line 1");
        assert_eq!(lines[1999], "2000→line 2000");
        assert_eq!(
            *lines.last().unwrap(),
            "[more lines below; pass offset=2000 to continue]"
        );
        assert_eq!(lines.len(), 2002);
        let rest = ws.ok(json!({"path": "big.txt", "offset": 2000}));
        assert!(rest.starts_with("2001→line 2001\n"), "{rest}");
        assert!(rest.ends_with("2500→line 2500\n"));
    }

    #[test]
    fn empty_file() {
        let ws = Ws::new();
        ws.put("e.txt", b"");
        assert_eq!(ws.ok(json!({"path": "e.txt"})), "(empty file)");
        ws.put("bom.txt", b"\xEF\xBB\xBF");
        assert_eq!(ws.ok(json!({"path": "bom.txt"})), "(empty file)");
    }

    #[test]
    fn offset_past_eof() {
        let ws = Ws::new();
        ws.put("a.txt", b"one\ntwo\nthree\n");
        assert_eq!(
            ws.ok(json!({"path": "a.txt", "offset": 3})),
            "(offset 3 is past EOF — file has 3 lines)"
        );
        assert_eq!(
            ws.ok(json!({"path": "a.txt", "offset": 100})),
            "(offset 100 is past EOF — file has 3 lines)"
        );
    }

    #[test]
    fn invalid_offset_and_limit_are_invalid_input() {
        let ws = Ws::new();
        ws.put("a.txt", b"x\n");
        for args in [
            json!({"path": "a.txt", "offset": -1}),
            json!({"path": "a.txt", "limit": 0}),
            json!({"path": "a.txt", "limit": -5}),
        ] {
            match ws.read(args.clone()) {
                Err(Error::InvalidInput(m)) => {
                    assert!(m.contains("`offset`") || m.contains("`limit`"), "{m}")
                }
                other => panic!("{args}: unexpected {other:?}"),
            }
        }
    }

    #[test]
    fn schema_mismatches_name_the_field() {
        let ws = Ws::new();
        match ws.read(json!({})) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("`path`"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
        match ws.read(json!({"path": "a", "ofset": 3})) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("`ofset`"), "{m}"),
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            ws.read(json!({"path": "a", "offset": "3"})),
            Err(Error::InvalidInput(_))
        ));
    }

    #[test]
    fn crlf_becomes_lf() {
        let ws = Ws::new();
        ws.put("w.txt", b"one\r\ntwo\r\nthree");
        assert_eq!(ws.ok(json!({"path": "w.txt"})), "1→one\n2→two\n3→three\n");
        // A lone CR inside a line is kept.
        ws.put("cr.txt", b"a\rb\r\n");
        assert_eq!(ws.ok(json!({"path": "cr.txt"})), "1→a\rb\n");
    }

    #[test]
    fn utf8_bom_is_stripped() {
        let ws = Ws::new();
        ws.put("b.txt", b"\xEF\xBB\xBFfirst\nsecond\n");
        assert_eq!(ws.ok(json!({"path": "b.txt"})), "1→first\n2→second\n");
    }

    #[test]
    fn utf16_files_are_decoded() {
        let ws = Ws::new();
        let text = "Grüße\r\nline two 😀\r\n";
        for (name, enc) in [
            ("le_bom.txt", TextEncoding::Utf16Le { bom: true }),
            ("be_bom.txt", TextEncoding::Utf16Be { bom: true }),
            ("le.txt", TextEncoding::Utf16Le { bom: false }),
            ("be.txt", TextEncoding::Utf16Be { bom: false }),
        ] {
            ws.put(name, &encode_for(text, Some(enc)));
            assert_eq!(
                ws.ok(json!({"path": name})),
                "1→Grüße\n2→line two 😀\n",
                "{name}"
            );
        }
    }

    #[test]
    fn gb18030_is_decoded() {
        let ws = Ws::new();
        let (bytes, _, _) = encoding_rs::GB18030.encode("第一行\n第二行：中文\n");
        ws.put("gb.txt", &bytes);
        assert_eq!(
            ws.ok(json!({"path": "gb.txt"})),
            "1→第一行\n2→第二行：中文\n"
        );
    }

    #[test]
    fn invalid_bytes_after_sample_are_replaced() {
        let ws = Ws::new();
        let mut bytes = numbered(1).into_bytes();
        bytes.extend(std::iter::repeat_n(b'a', DETECT_SAMPLE));
        bytes.extend_from_slice(b"\n\xFFbad\n");
        ws.put("late.txt", &bytes);
        let out = ws.ok(json!({"path": "late.txt", "offset": 2}));
        assert_eq!(out, "3→\u{FFFD}bad\n");
    }

    #[test]
    fn binary_is_refused() {
        let ws = Ws::new();
        ws.put(
            "x.bin",
            b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x3e",
        );
        match ws.read(json!({"path": "x.bin"})) {
            Err(Error::InvalidInput(m)) => {
                assert!(m.contains("binary file"), "{m}");
                assert!(m.contains("x.bin"), "{m}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn directory_points_to_ls() {
        let ws = Ws::new();
        fs::create_dir(ws.dir.path().join("sub")).unwrap();
        match ws.read(json!({"path": "sub"})) {
            Err(Error::InvalidInput(m)) => {
                assert!(m.contains("is a directory"), "{m}");
                assert!(m.contains("ls"), "{m}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn missing_file_is_not_found() {
        let ws = Ws::new();
        match ws.read(json!({"path": "nope/missing.txt"})) {
            Err(Error::NotFound(m)) => assert_eq!(m, "no such file: nope/missing.txt"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn paths_outside_workspace_are_denied() {
        let ws = Ws::new();
        for path in ["../outside.txt", "/etc/passwd", "a/../../x"] {
            match ws.read(json!({"path": path})) {
                Err(Error::Denied(m)) => assert!(m.contains("outside the workspace"), "{m}"),
                other => panic!("{path}: unexpected {other:?}"),
            }
        }
    }

    #[test]
    fn absolute_path_inside_workspace_works() {
        let ws = Ws::new();
        ws.put("d/f.txt", b"hi\n");
        let abs = ws.dir.path().join("d/f.txt");
        assert_eq!(ws.ok(json!({"path": abs.to_string_lossy()})), "1→hi\n");
    }

    #[test]
    fn huge_line_is_truncated_with_marker() {
        let ws = Ws::new();
        let long = "é".repeat(MAX_LINE_BYTES / 2 + 1000); // > 1 MiB of 2-byte chars
        let long_len = long.len();
        let content = format!("short\n{long}\r\nafter\n");
        ws.put("huge.txt", content.as_bytes());
        let out = ws.ok(json!({"path": "huge.txt"}));
        let lines: Vec<&str> = out.split('\n').collect();
        assert_eq!(lines[0], "1→short");
        let second = lines[1];
        assert!(second.starts_with("2→éé"));
        assert!(
            second.ends_with(&format!(
                " [… line truncated: {long_len} bytes long, first {MAX_LINE_BYTES} shown]"
            )),
            "{}",
            &second[second.len() - 100..]
        );
        assert!(second.len() < MAX_LINE_BYTES + 200);
        assert_eq!(lines[2], "3→after");
    }

    #[test]
    fn truncation_cuts_on_char_boundary() {
        let ws = Ws::new();
        // An odd prefix makes the 1 MiB boundary fall inside a 2-byte character.
        let long = format!("x{}", "é".repeat(MAX_LINE_BYTES / 2 + 10));
        ws.put("odd.txt", long.as_bytes());
        let out = ws.ok(json!({"path": "odd.txt"}));
        assert!(!out.contains('\u{FFFD}'));
        assert!(
            out.contains(&format!("first {} shown", MAX_LINE_BYTES - 1)),
            "marker"
        );
    }

    #[test]
    fn line_of_exactly_max_is_not_truncated() {
        let ws = Ws::new();
        let line = "a".repeat(MAX_LINE_BYTES);
        ws.put("max.txt", format!("{line}\r\n").as_bytes());
        let out = ws.ok(json!({"path": "max.txt"}));
        assert_eq!(out, format!("1→{line}\n"));
    }

    #[test]
    fn large_file_only_reads_what_it_needs() {
        let ws = Ws::new();
        // ~12 MiB; reading a window near the start must not need the whole file in memory.
        let content = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\n"
            .repeat(170_000);
        ws.put("large.txt", content.as_bytes());
        let out = ws.ok(json!({"path": "large.txt", "offset": 100, "limit": 3}));
        assert!(out.starts_with("101→0123"), "{out}");
        assert!(out.ends_with("[more lines below; pass offset=103 to continue]\n"));
        let past = ws.ok(json!({"path": "large.txt", "offset": 200_000}));
        assert_eq!(past, "(offset 200000 is past EOF — file has 170000 lines)");
    }
}
