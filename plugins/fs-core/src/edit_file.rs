//! `edit_file`: replace one exact, unique occurrence of a string in a text file.
//!
//! Also home of what every text editor tool shares: [`TextFile`] (load a text file for
//! editing, write it back in its own encoding) and the search helpers `multi_edit` reuses
//! (line-ending adaptation, overlapping occurrence counting, the "not found" diagnostic).

use std::fs;

use reasonix_sdk::{
    CallContext, ChangeKind, Error, FileChange, Tool, other_error, parse_args, schema_for,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::encoding::{self, TextEncoding};
use crate::paths::{self, Resolved};
use crate::policy::Policy;
use crate::write_file::{self, Current};

/// Tool name.
pub const NAME: &str = "edit_file";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// File to edit, relative to the workspace root (or absolute inside the workspace).
    path: String,
    /// The exact text to replace; must occur exactly once in the file. Not empty.
    old_string: String,
    /// The replacement text (empty string deletes old_string).
    new_string: String,
    /// Optional: the file's whole current content as you believe it is. The edit is refused
    /// with "stale content" if the file differs.
    expected: Option<String>,
}

/// The `edit_file` tool.
pub struct EditFile;

impl Tool for EditFile {
    const NAME: &'static str = NAME;
    const READ_ONLY: bool = false;
    type Args = Args;
    const SCHEMA: Option<&'static str> = Some(include_str!("../schemas/edit_file.json"));

    fn description() -> String {
        "Replace one exact piece of text in an existing file. `old_string` must occur exactly \
         once in the file: copy it verbatim from read_file output (without the line-number \
         prefixes), including enough surrounding lines to make it unique. If it occurs more \
         than once the edit is refused — add context and retry (or use multi_edit with \
         replace_all). If it does not occur verbatim, a whitespace-tolerant match (indentation, \
         tabs versus spaces, trailing blanks) is tried; when that finds exactly one place the \
         result says \"(fuzzy match)\", otherwise the error shows the closest line. Line endings \
         in old_string/new_string are adapted to the file (CRLF files stay CRLF) and the file \
         keeps its encoding. `new_string` may be empty to delete the text. Pass `expected` (the \
         whole file as you last read it) to refuse the edit if the file changed since. Use \
         write_file to create files, multi_edit for several edits to one file."
            .into()
    }

    fn guidance() -> Option<String> {
        Some("Change existing files with `edit_file` rather than rewriting them whole.".into())
    }

    fn parse(arguments: &str) -> Result<Args, Error> {
        parse_checked::<Self>(arguments)
    }

    fn run(args: Args, cx: &CallContext) -> Result<String, Error> {
        let plan = plan(args, cx)?;
        if encoding::same_bytes(plan.new_text.as_bytes(), plan.file.text().as_bytes()) {
            return Ok(format!(
                "unchanged {} (with the file's line endings the replacement equals the text it \
                 replaces)",
                plan.file.target.display
            ));
        }
        plan.file.write(&plan.new_text, &cx.call_id)?;
        let fuzzy = if plan.fuzzy { " (fuzzy match)" } else { "" };
        Ok(format!("edited {}{fuzzy}", plan.file.target.display))
    }

    fn preview(args: Args, cx: &CallContext) -> Result<Vec<FileChange>, Error> {
        let plan = plan(args, cx)?;
        Ok(plan.file.changes(&plan.new_text))
    }
}

/// What an `edit_file` call would do.
struct Plan {
    file: TextFile,
    new_text: String,
    fuzzy: bool,
}

fn plan(args: Args, cx: &CallContext) -> Result<Plan, Error> {
    if args.old_string.is_empty() {
        return Err(Error::InvalidInput(format!(
            "{NAME}: `old_string` must not be empty — to create a file or replace all of it use \
             write_file"
        )));
    }
    if args.old_string == args.new_string {
        return Err(Error::InvalidInput(format!(
            "{NAME}: `old_string` and `new_string` are identical, so there is nothing to change"
        )));
    }
    let file = TextFile::load(NAME, cx, &args.path)?;
    file.check_expected(args.expected.as_deref())?;
    let text = file.text();
    let display = &file.target.display;
    let (start, end, fuzzy) = match find_exact(text, &args.old_string) {
        Search::Unique { start, end } => (start, end, false),
        Search::Many(positions) => {
            return Err(not_unique(display, text, &positions, false, ""));
        }
        Search::None => match find_fuzzy(text, &args.old_string) {
            Search::Unique { start, end } => (start, end, true),
            Search::Many(positions) => {
                return Err(not_unique(display, text, &positions, true, ""));
            }
            Search::None => return Err(not_found(display, text, &args.old_string, "")),
        },
    };
    let replacement = adapt_new(&args.new_string, &text[start..end], text);
    let mut new_text = String::with_capacity(text.len() + replacement.len());
    new_text.push_str(&text[..start]);
    new_text.push_str(&replacement);
    new_text.push_str(&text[end..]);
    Ok(Plan {
        file,
        new_text,
        fuzzy,
    })
}

// ---------------------------------------------------------------------------------------------
// Arguments.

/// Parse `arguments` for the tool `T`, first checking them against its JSON schema so a
/// mismatch names the offending field (`edits[2].old_string must be a string, got a number`),
/// which serde's own type errors do not.
pub(crate) fn parse_checked<T: Tool>(arguments: &str) -> Result<T::Args, Error> {
    // The pinned schema when there is one: deriving it would link `schemars` into the component.
    let schema = match T::SCHEMA {
        Some(pinned) => serde_json::from_str(pinned).unwrap_or(serde_json::Value::Null),
        None => schema_for::<T::Args>(),
    };
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(arguments)
        && let Err(problem) = check_value(&schema, &value, "")
    {
        return Err(Error::InvalidInput(format!(
            "{}: invalid arguments: {problem}",
            T::NAME
        )));
    }
    parse_args(T::NAME, arguments)
}

fn json_type(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Check `value` against the subset of JSON Schema the tool schemas use: `type`, `enum`,
/// `properties`, `required`, `additionalProperties: false`, `items`, `minItems`.
fn check_value(
    schema: &serde_json::Value,
    value: &serde_json::Value,
    at: &str,
) -> Result<(), String> {
    use serde_json::Value;
    let name = if at.is_empty() { "the arguments" } else { at };
    let shown = |field: &str| format!("`{field}`");
    if let Some(want) = schema.get("type").and_then(Value::as_str) {
        let ok = match want {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "boolean" => value.is_boolean(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            _ => true,
        };
        if !ok {
            let what = if at.is_empty() {
                name.to_string()
            } else {
                shown(at)
            };
            return Err(format!(
                "{what} must be {}, got {}",
                match want {
                    "object" => "an object",
                    "array" => "an array",
                    "string" => "a string",
                    "boolean" => "a boolean",
                    "integer" => "an integer",
                    _ => "a number",
                },
                json_type(value)
            ));
        }
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array)
        && !choices.contains(value)
    {
        let list: Vec<String> = choices.iter().map(Value::to_string).collect();
        return Err(format!(
            "{} must be one of {}, got {value}",
            shown(at),
            list.join(", ")
        ));
    }
    if let Some(object) = value.as_object() {
        let props = schema.get("properties").and_then(Value::as_object);
        for req in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !object.contains_key(req) {
                return Err(format!("missing field {}", shown(&join(at, req))));
            }
        }
        for (key, item) in object {
            match props.and_then(|p| p.get(key)) {
                Some(sub) => check_value(sub, item, &join(at, key))?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    let known: Vec<String> = props
                        .map(|p| p.keys().map(|k| format!("`{k}`")).collect())
                        .unwrap_or_default();
                    return Err(format!(
                        "unknown field {}, expected one of {}",
                        shown(&join(at, key)),
                        known.join(", ")
                    ));
                }
                None => {}
            }
        }
    }
    if let Some(items) = value.as_array() {
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < min
        {
            return Err(format!("{} must have at least {min} item(s)", shown(at)));
        }
        if let Some(sub) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                check_value(sub, item, &format!("{at}[{i}]"))?;
            }
        }
    }
    Ok(())
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

// ---------------------------------------------------------------------------------------------
// Loading and writing text files for editing.

/// An existing text file loaded for editing.
pub(crate) struct TextFile {
    pub(crate) target: Resolved,
    symlink: bool,
    encoding: TextEncoding,
    current: Current,
}

impl TextFile {
    /// Load `user_path` (which must be an existing text file inside the workspace) for `tool`.
    pub(crate) fn load(tool: &str, cx: &CallContext, user_path: &str) -> Result<TextFile, Error> {
        let target = paths::resolve(&cx.workspace, user_path)?;
        let display = &target.display;
        // A `forbid_read` path is as absent for an editor as for a reader: editing shows its
        // content (diagnostics, previews).
        Policy::current(&cx.workspace).check(&target.abs, display)?;
        if fs::metadata(&target.abs).is_ok_and(|m| m.is_dir()) {
            return Err(Error::InvalidInput(format!(
                "{display} is a directory; {tool} edits files — give a file path"
            )));
        }
        let (symlink, current) = write_file::load_current(&target)?;
        let Some(current) = current else {
            return Err(Error::NotFound(format!(
                "no such file: {display} — {tool} edits existing files; create it with write_file"
            )));
        };
        let Some(encoding) = current.encoding else {
            return Err(Error::InvalidInput(format!(
                "{display} is a binary file; {tool} edits text files only"
            )));
        };
        let file = TextFile {
            target,
            symlink,
            encoding,
            current,
        };
        // Editing must not alter the bytes it does not touch: refuse files whose decoded text
        // does not encode back to the same bytes (invalid UTF-8, stray bytes in GB18030).
        if !file.round_trips() {
            return Err(Error::InvalidInput(format!(
                "{} is not valid {} text (it has bytes that cannot be decoded), so an edit \
                 would alter other parts of it; rewrite the whole file with write_file if that \
                 is intended",
                file.target.display,
                encoding.label()
            )));
        }
        Ok(file)
    }

    /// Whether the decoded text encodes back to exactly the file's bytes. UTF-8 is compared in
    /// place (no re-encoded copy of the file).
    fn round_trips(&self) -> bool {
        let bytes = &self.current.bytes;
        match self.encoding {
            // The sniff validated the whole file as UTF-8, so decoding it lost nothing.
            TextEncoding::Utf8 => true,
            TextEncoding::Utf8Bom => bytes
                .get(self.encoding.bom_len()..)
                .is_some_and(|body| encoding::same_bytes(body, self.text().as_bytes())),
            _ => encoding::same_bytes(&self.encode(self.text()), bytes),
        }
    }

    /// The file's decoded text.
    pub(crate) fn text(&self) -> &str {
        self.current.text.as_deref().unwrap_or_default()
    }

    /// Optimistic concurrency, as `write_file` does it.
    pub(crate) fn check_expected(&self, expected: Option<&str>) -> Result<(), Error> {
        write_file::check_expected(&self.target.display, Some(&self.current), expected)
    }

    /// `text` encoded the way the file is: UTF-8 (with its BOM), UTF-16 (with its BOM) and
    /// GB18030 are all kept. (`write_file` rewrites GB18030 as UTF-8 because it replaces the
    /// whole file; an edit must not transcode the parts it leaves alone.)
    pub(crate) fn encode(&self, text: &str) -> Vec<u8> {
        match self.encoding {
            TextEncoding::Gb18030 => encoding_rs::GB18030.encode(text).0.into_owned(),
            enc => encoding::encode_for(text, Some(enc)),
        }
    }

    /// Write `new_text` back (nothing when it encodes to the current bytes).
    pub(crate) fn write(&self, new_text: &str, call_id: &str) -> Result<(), Error> {
        let bytes: std::borrow::Cow<'_, [u8]> = match self.encoding {
            TextEncoding::Utf8 => new_text.as_bytes().into(),
            _ => self.encode(new_text).into(),
        };
        if encoding::same_bytes(&bytes, &self.current.bytes) {
            return Ok(());
        }
        let how = write_file::strategy(true, self.symlink);
        write_file::write_bytes(&self.target, how, &bytes, call_id)
    }

    /// The change writing `new_text` makes: one modify, or none when nothing changes.
    pub(crate) fn changes(&self, new_text: &str) -> Vec<FileChange> {
        if encoding::same_bytes(new_text.as_bytes(), self.text().as_bytes()) {
            return Vec::new();
        }
        vec![FileChange {
            path: self.target.abs.to_string_lossy().into_owned(),
            kind: ChangeKind::Modify,
            old_text: Some(self.text().to_string()),
            new_text: Some(new_text.to_string()),
        }]
    }
}

// ---------------------------------------------------------------------------------------------
// Searching.

/// Where a search string occurs, as byte ranges into the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Search {
    /// Exactly one occurrence.
    Unique { start: usize, end: usize },
    /// Several occurrences: their start offsets (at most [`MAX_POSITIONS`]) — never one.
    Many(Vec<usize>),
    /// None.
    None,
}

/// Largest text the whitespace-tolerant search runs on.
const FUZZY_MAX_BYTES: usize = 4 << 20;

/// Most occurrence positions collected for a "not unique" message.
const MAX_POSITIONS: usize = 50;

/// Start offsets of `needle` in `haystack`, overlapping ones included, at most `limit`.
pub(crate) fn occurrences(haystack: &str, needle: &str, limit: usize) -> Vec<usize> {
    let mut out = Vec::new();
    if needle.is_empty() {
        return out;
    }
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut from = 0;
    while out.len() < limit {
        let Some(i) = haystack.as_bytes().get(from..).and_then(|h| finder.find(h)) else {
            break;
        };
        out.push(from + i);
        // Step one character, so overlapping occurrences count too.
        let step = haystack[from + i..]
            .chars()
            .next()
            .map_or(1, char::len_utf8);
        from += i + step;
    }
    out
}

/// `s` with every line break as CRLF.
pub(crate) fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// `s` with every CRLF as LF.
pub(crate) fn to_lf(s: &str) -> String {
    s.replace("\r\n", "\n")
}

/// The spellings of `old` to try against `text`, in order: as given, then with the file's line
/// endings (read_file shows CRLF files with LF endings, so models send LF).
pub(crate) fn spellings(text: &str, old: &str) -> Vec<String> {
    let mut out = vec![old.to_string()];
    if old.contains('\n') {
        let mut candidates = Vec::with_capacity(2);
        if text.contains("\r\n") {
            candidates.push(to_crlf(old));
        }
        candidates.push(to_lf(old));
        for candidate in candidates {
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    }
    out
}

/// Exact search, trying each line-ending spelling of `old` until one occurs.
pub(crate) fn find_exact(text: &str, old: &str) -> Search {
    for spelling in spellings(text, old) {
        let found = occurrences(text, &spelling, MAX_POSITIONS);
        match found.as_slice() {
            [] => continue,
            [start] => {
                return Search::Unique {
                    start: *start,
                    end: start + spelling.len(),
                };
            }
            _ => return Search::Many(found),
        }
    }
    Search::None
}

/// Whether the text's line breaks are mostly CRLF.
fn crlf_dominant(text: &str) -> bool {
    let crlf = memchr::memmem::find_iter(text.as_bytes(), b"\r\n").count();
    // A plain counting loop: the compiler vectorises it, where a match iterator stops at
    // every line.
    let lf = text.bytes().filter(|&b| b == b'\n').count();
    crlf > 0 && crlf * 2 >= lf
}

/// `new` with line endings adapted: those of the replaced region when it has any, else the
/// file's dominant ones.
pub(crate) fn adapt_new(new: &str, region: &str, text: &str) -> String {
    if !new.contains('\n') {
        // No line break to adapt: skip looking at the whole file's endings.
        return new.to_string();
    }
    let crlf = if region.contains("\r\n") {
        true
    } else if region.contains('\n') {
        false
    } else {
        crlf_dominant(text)
    };
    if crlf { to_crlf(new) } else { to_lf(new) }
}

/// A whitespace-tolerant view of a text: each run of horizontal whitespace becomes one space,
/// whitespace at the end of a line disappears, and line breaks stay. `spans[i]` is the byte
/// range of the original text that normalised character `i` stands for.
struct Normalized {
    chars: Vec<char>,
    spans: Vec<(usize, usize)>,
}

fn is_blank(c: char) -> bool {
    c != '\n' && c.is_whitespace()
}

fn normalize(text: &str) -> Normalized {
    let mut chars = Vec::with_capacity(text.len());
    let mut spans = Vec::with_capacity(text.len());
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if is_blank(c) {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = iter.peek() {
                if !is_blank(d) {
                    break;
                }
                end = j + d.len_utf8();
                iter.next();
            }
            let at_line_end = iter.peek().is_none_or(|&(_, d)| d == '\n');
            if !at_line_end {
                chars.push(' ');
                spans.push((i, end));
            }
        } else {
            chars.push(c);
            spans.push((i, i + c.len_utf8()));
        }
    }
    Normalized { chars, spans }
}

/// Whitespace-tolerant search for `old` in `text`; the range returned covers the original
/// text from the first to the last matched character.
pub(crate) fn find_fuzzy(text: &str, old: &str) -> Search {
    // The normalised view costs about 20 bytes per character; stay well inside the plugin's
    // memory limit.
    if text.len() > FUZZY_MAX_BYTES {
        return Search::None;
    }
    let needle = normalize(old).chars;
    // A needle of only whitespace would match anywhere.
    if !needle.iter().any(|c| !c.is_whitespace()) {
        return Search::None;
    }
    let hay = normalize(text);
    let mut starts = Vec::new();
    let mut end = 0;
    if needle.len() <= hay.chars.len() {
        for i in 0..=hay.chars.len() - needle.len() {
            if hay.chars[i..i + needle.len()] == needle[..] {
                if starts.is_empty() {
                    end = hay.spans[i + needle.len() - 1].1;
                }
                starts.push(hay.spans[i].0);
                if starts.len() >= MAX_POSITIONS {
                    break;
                }
            }
        }
    }
    match starts.as_slice() {
        [] => Search::None,
        [start] => Search::Unique { start: *start, end },
        _ => Search::Many(starts),
    }
}

/// 1-based line number of byte offset `at`.
pub(crate) fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The "occurs more than once" error. `step` prefixes the message (e.g. `edit 2 of 3: `).
pub(crate) fn not_unique(
    display: &str,
    text: &str,
    positions: &[usize],
    fuzzy: bool,
    step: &str,
) -> Error {
    let mut lines: Vec<usize> = positions.iter().map(|&p| line_of(text, p)).collect();
    lines.dedup();
    let shown: Vec<String> = lines.iter().take(10).map(usize::to_string).collect();
    let more = if lines.len() > 10 { ", …" } else { "" };
    let count = if positions.len() >= MAX_POSITIONS {
        format!("at least {}", positions.len())
    } else {
        positions.len().to_string()
    };
    let how = if fuzzy {
        "does not occur verbatim, and ignoring whitespace it matches"
    } else {
        "matches"
    };
    other_error(
        "not-unique",
        format!(
            "{step}old_string is not unique in {display}: it {how} {count} places (lines {}{more}). \
             Include more surrounding lines in old_string so it matches exactly one place, or \
             use multi_edit with replace_all to change every occurrence.",
            shown.join(", ")
        ),
    )
}

/// The "does not occur" error, pointing at the line most like the start of `old`.
pub(crate) fn not_found(display: &str, text: &str, old: &str, step: &str) -> Error {
    let mut message = format!("{step}old_string not found in {display}");
    let first = old.lines().map(str::trim).find(|l| !l.is_empty());
    let best = first.and_then(|first| {
        text.lines()
            .enumerate()
            .map(|(i, line)| (i, common_prefix_chars(line.trim(), first)))
            .filter(|&(_, score)| score >= 3)
            .max_by_key(|&(i, score)| (score, std::cmp::Reverse(i)))
    });
    match best {
        Some((i, _)) => {
            let lines: Vec<&str> = text.lines().collect();
            let want = old.lines().count().clamp(1, 6);
            let end = (i + want).min(lines.len());
            let width = end.to_string().len();
            message.push_str(&format!(
                ". The closest text is at line {} (the first line of old_string starts like it):\n",
                i + 1
            ));
            for (n, line) in lines[i..end].iter().enumerate() {
                let line = line.trim_end_matches('\r');
                let line: String = if line.chars().count() > 200 {
                    line.chars().take(200).chain(['…']).collect()
                } else {
                    line.to_string()
                };
                message.push_str(&format!("{:>width$}→{line}\n", i + n + 1));
            }
            message.push_str(
                "Copy the text exactly as read_file shows it (whitespace included, without the \
                 line-number prefixes) and retry.",
            );
        }
        None => message.push_str(
            " (no similar line either). Read the file again with read_file and copy the exact \
             text to replace.",
        ),
    }
    other_error("no-match", message)
}

fn common_prefix_chars(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    /// A temporary workspace for the editor tools' tests.
    pub(crate) struct Ws {
        pub(crate) dir: tempfile::TempDir,
    }

    impl Ws {
        pub(crate) fn new() -> Self {
            Ws {
                dir: tempfile::tempdir().unwrap(),
            }
        }
        pub(crate) fn cx(&self) -> CallContext {
            CallContext {
                call_id: "call-1".to_string(),
                workspace: self.dir.path().to_string_lossy().into_owned(),
            }
        }
        pub(crate) fn path(&self, name: &str) -> PathBuf {
            self.dir.path().join(name)
        }
        pub(crate) fn put(&self, name: &str, bytes: &[u8]) {
            let p = self.path(name);
            if let Some(parent) = p.parent() {
                fs::create_dir_all(parent).unwrap();
            }
            fs::write(p, bytes).unwrap();
        }
        pub(crate) fn get(&self, name: &str) -> Vec<u8> {
            fs::read(self.path(name)).unwrap()
        }
        pub(crate) fn get_text(&self, name: &str) -> String {
            String::from_utf8(self.get(name)).unwrap()
        }
    }

    /// Run `preview` then `invoke` with the same arguments, and check that the preview
    /// described exactly what `invoke` wrote (for a single-file modify).
    pub(crate) fn preview_then_invoke(
        ws: &Ws,
        name: &str,
        args: &serde_json::Value,
        file: &str,
    ) -> Result<String, Error> {
        let before = fs::read(ws.path(file)).ok();
        let previewed = crate::write_tools().preview(name, &args.to_string(), &ws.cx());
        // Preview changes nothing.
        assert_eq!(fs::read(ws.path(file)).ok(), before, "preview wrote");
        let result = crate::write_tools().invoke(name, &args.to_string(), &ws.cx());
        match (&previewed, &result) {
            (Ok(changes), Ok(_)) => {
                let after = fs::read(ws.path(file)).ok();
                if changes.is_empty() {
                    assert_eq!(after, before, "empty preview but the file changed");
                } else {
                    assert_eq!(changes.len(), 1, "{changes:?}");
                    let change = &changes[0];
                    assert!(matches!(change.kind, ChangeKind::Modify));
                    assert_eq!(change.path, ws.path(file).to_string_lossy());
                    let bytes = after.unwrap();
                    let (enc, text) = match encoding::sniff(&bytes, true) {
                        encoding::Sniff::Text(enc) => (enc, encoding::decode_all(&bytes, enc)),
                        encoding::Sniff::Binary => panic!("binary after edit"),
                    };
                    let _ = enc;
                    assert_eq!(change.new_text.as_deref(), Some(text.as_str()));
                    let old = before.unwrap();
                    let old_enc = match encoding::sniff(&old, true) {
                        encoding::Sniff::Text(e) => e,
                        encoding::Sniff::Binary => panic!("binary before"),
                    };
                    assert_eq!(
                        change.old_text.as_deref(),
                        Some(encoding::decode_all(&old, old_enc).as_str())
                    );
                }
            }
            (Err(p), Err(i)) => assert_eq!(format!("{p:?}"), format!("{i:?}")),
            _ => panic!("preview {previewed:?} disagrees with invoke {result:?}"),
        }
        result
    }

    fn edit(ws: &Ws, args: serde_json::Value) -> Result<String, Error> {
        preview_then_invoke(ws, NAME, &args, args["path"].as_str().unwrap_or("x"))
    }

    fn other_code(r: &Result<String, Error>) -> (&str, &str) {
        match r {
            Err(Error::Other(d)) => (d.code.as_str(), d.message.as_str()),
            other => panic!("expected an `other` error, got {other:?}"),
        }
    }

    #[test]
    fn replaces_a_unique_occurrence() {
        let ws = Ws::new();
        ws.put("a.rs", b"fn main() {\n    println!(\"hi\");\n}\n");
        let out = edit(
            &ws,
            json!({"path": "a.rs", "old_string": "\"hi\"", "new_string": "\"hello\""}),
        )
        .unwrap();
        assert_eq!(out, "edited a.rs");
        assert_eq!(
            ws.get_text("a.rs"),
            "fn main() {\n    println!(\"hello\");\n}\n"
        );
    }

    #[test]
    fn empty_new_string_deletes() {
        let ws = Ws::new();
        ws.put("d.txt", b"keep\ndrop me\nkeep\n");
        edit(
            &ws,
            json!({"path": "d.txt", "old_string": "drop me\n", "new_string": ""}),
        )
        .unwrap();
        assert_eq!(ws.get_text("d.txt"), "keep\nkeep\n");
    }

    #[test]
    fn zero_matches_is_a_diagnosed_error() {
        let ws = Ws::new();
        ws.put(
            "z.py",
            b"def alpha():\n    return 1\n\ndef beta():\n    return 2\n",
        );
        let r = edit(
            &ws,
            json!({"path": "z.py", "old_string": "def beta(x):\n    return 2", "new_string": "y"}),
        );
        let (code, message) = other_code(&r);
        assert_eq!(code, "no-match");
        assert!(
            message.starts_with("old_string not found in z.py"),
            "{message}"
        );
        assert!(message.contains("line 4"), "{message}");
        assert!(message.contains("4→def beta():"), "{message}");
        assert_eq!(
            ws.get_text("z.py"),
            "def alpha():\n    return 1\n\ndef beta():\n    return 2\n"
        );
        let r = edit(
            &ws,
            json!({"path": "z.py", "old_string": "qqq", "new_string": "y"}),
        );
        assert!(other_code(&r).1.contains("no similar line"));
    }

    #[test]
    fn two_matches_ask_for_context() {
        let ws = Ws::new();
        ws.put("t.txt", b"x = 1\ny = 2\nx = 1\n");
        let r = edit(
            &ws,
            json!({"path": "t.txt", "old_string": "x = 1", "new_string": "x = 3"}),
        );
        let (code, message) = other_code(&r);
        assert_eq!(code, "not-unique");
        assert!(message.contains("2 places (lines 1, 3)"), "{message}");
        assert!(message.contains("more surrounding lines"), "{message}");
        assert_eq!(ws.get_text("t.txt"), "x = 1\ny = 2\nx = 1\n");
        // With context it is unique.
        edit(
            &ws,
            json!({"path": "t.txt", "old_string": "y = 2\nx = 1", "new_string": "y = 2\nx = 3"}),
        )
        .unwrap();
        assert_eq!(ws.get_text("t.txt"), "x = 1\ny = 2\nx = 3\n");
    }

    #[test]
    fn overlapping_occurrences_are_not_unique() {
        assert_eq!(occurrences("aaa", "aa", 10), vec![0, 1]);
        assert_eq!(occurrences("ééé", "éé", 10), vec![0, 2]);
        assert!(matches!(find_exact("aaa", "aa"), Search::Many(_)));
    }

    #[test]
    fn fuzzy_match_tolerates_indentation_and_trailing_blanks() {
        let ws = Ws::new();
        ws.put("f.go", b"func f() {\n\tif x {  \n\t\treturn 1\n\t}\n}\n");
        let out = edit(
            &ws,
            json!({
                "path": "f.go",
                "old_string": "    if x {\n        return 1\n    }",
                "new_string": "\tif y {\n\t\treturn 2\n\t}"
            }),
        )
        .unwrap();
        assert_eq!(out, "edited f.go (fuzzy match)");
        assert_eq!(
            ws.get_text("f.go"),
            "func f() {\n\tif y {\n\t\treturn 2\n\t}\n}\n"
        );
    }

    #[test]
    fn fuzzy_match_must_be_unique_too() {
        let ws = Ws::new();
        ws.put("g.txt", b"a  b\nc\na\tb\n");
        let r = edit(
            &ws,
            json!({"path": "g.txt", "old_string": "a b", "new_string": "z"}),
        );
        let (code, message) = other_code(&r);
        assert_eq!(code, "not-unique");
        assert!(message.contains("ignoring whitespace"), "{message}");
    }

    #[test]
    fn fuzzy_is_skipped_on_huge_texts() {
        let mut big = "x".repeat(FUZZY_MAX_BYTES);
        big.push_str("\n  let  y = 1;\n");
        assert_eq!(find_fuzzy(&big, "let y = 1;"), Search::None);
        assert!(matches!(
            find_fuzzy(&big[FUZZY_MAX_BYTES - 10..], "let y = 1;"),
            Search::Unique { .. }
        ));
    }

    #[test]
    fn fuzzy_does_not_invent_whitespace() {
        // Whitespace that is absent on one side is not tolerated.
        assert_eq!(find_fuzzy("foo(a,b)", "foo(a, b)"), Search::None);
        assert_eq!(find_fuzzy("x\n", "   \n"), Search::None);
        assert_eq!(
            find_fuzzy("  let  x = 1;   \nnext", "let x = 1;\n"),
            Search::Unique { start: 2, end: 17 }
        );
    }

    #[test]
    fn crlf_file_keeps_crlf() {
        let ws = Ws::new();
        ws.put("w.txt", b"one\r\ntwo\r\nthree\r\n");
        edit(
            &ws,
            json!({"path": "w.txt", "old_string": "one\ntwo\n", "new_string": "1\n2\n2.5\n"}),
        )
        .unwrap();
        assert_eq!(ws.get("w.txt"), b"1\r\n2\r\n2.5\r\nthree\r\n");
        // A single-line old_string with a multi-line new_string gets CRLF too.
        edit(
            &ws,
            json!({"path": "w.txt", "old_string": "three", "new_string": "3\n4"}),
        )
        .unwrap();
        assert_eq!(ws.get("w.txt"), b"1\r\n2\r\n2.5\r\n3\r\n4\r\n");
    }

    #[test]
    fn a_replacement_equal_after_line_ending_adaptation_changes_nothing() {
        let ws = Ws::new();
        ws.put("s.txt", b"a\r\nb\r\n");
        let out = edit(
            &ws,
            json!({"path": "s.txt", "old_string": "a\n", "new_string": "a\r\n"}),
        )
        .unwrap();
        assert!(out.starts_with("unchanged s.txt"), "{out}");
        assert_eq!(ws.get("s.txt"), b"a\r\nb\r\n");
    }

    #[test]
    fn lf_file_gets_lf_from_crlf_arguments() {
        let ws = Ws::new();
        ws.put("l.txt", b"a\nb\nc\n");
        edit(
            &ws,
            json!({"path": "l.txt", "old_string": "a\r\nb\r\n", "new_string": "x\r\ny\r\n"}),
        )
        .unwrap();
        assert_eq!(ws.get("l.txt"), b"x\ny\nc\n");
    }

    #[test]
    fn keeps_encodings() {
        let ws = Ws::new();
        for (name, enc) in [
            ("le.txt", TextEncoding::Utf16Le { bom: true }),
            ("be.txt", TextEncoding::Utf16Be { bom: false }),
            ("bom.txt", TextEncoding::Utf8Bom),
        ] {
            // Long enough for BOM-less UTF-16 detection to see past the emoji's NUL byte.
            let tail = "plain ascii filler line\r\n".repeat(4);
            ws.put(
                name,
                &encoding::encode_for(&format!("héllo\r\nwörld\r\n{tail}"), Some(enc)),
            );
            edit(
                &ws,
                json!({"path": name, "old_string": "wörld\n", "new_string": "wörld 😀\n"}),
            )
            .unwrap();
            assert_eq!(
                ws.get(name),
                encoding::encode_for(&format!("héllo\r\nwörld 😀\r\n{tail}"), Some(enc)),
                "{name}"
            );
        }
        let (gb, _, _) = encoding_rs::GB18030.encode("你好，世界\n中文内容\n");
        ws.put("gb.txt", &gb);
        edit(
            &ws,
            json!({"path": "gb.txt", "old_string": "世界", "new_string": "朋友"}),
        )
        .unwrap();
        let (want, _, _) = encoding_rs::GB18030.encode("你好，朋友\n中文内容\n");
        assert_eq!(ws.get("gb.txt"), want.into_owned());
    }

    #[test]
    fn binary_and_undecodable_files_are_refused() {
        let ws = Ws::new();
        ws.put("b.bin", b"\0\x01abc\0");
        match edit(
            &ws,
            json!({"path": "b.bin", "old_string": "abc", "new_string": "x"}),
        ) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("binary"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(ws.get("b.bin"), b"\0\x01abc\0");
        ws.put("bad.txt", b"abc \xFF\xFE\xFD def\n");
        match edit(
            &ws,
            json!({"path": "bad.txt", "old_string": "abc", "new_string": "x"}),
        ) {
            Err(Error::InvalidInput(m)) => assert!(m.contains("cannot be decoded"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(ws.get("bad.txt"), b"abc \xFF\xFE\xFD def\n");
    }

    #[test]
    fn expected_guards_against_stale_content() {
        let ws = Ws::new();
        ws.put("e.txt", b"v1\r\nrest\r\n");
        let r = edit(
            &ws,
            json!({"path": "e.txt", "old_string": "v1", "new_string": "v2", "expected": "v0\nrest\n"}),
        );
        assert!(other_code(&r).1.contains("stale content"));
        edit(
            &ws,
            json!({"path": "e.txt", "old_string": "v1", "new_string": "v2", "expected": "v1\nrest\n"}),
        )
        .unwrap();
        assert_eq!(ws.get("e.txt"), b"v2\r\nrest\r\n");
    }

    #[test]
    fn bad_arguments() {
        let ws = Ws::new();
        ws.put("a.txt", b"abc\n");
        for (args, field) in [
            (
                json!({"path": "a.txt", "old_string": "abc"}),
                "`new_string`",
            ),
            (
                json!({"path": "a.txt", "old_string": 3, "new_string": ""}),
                "`old_string` must be a string, got an integer",
            ),
            (
                json!({"path": ["a"], "old_string": "a", "new_string": ""}),
                "`path`",
            ),
            (
                json!({"path": "a.txt", "old_string": "a", "new_string": "", "replace_all": true}),
                "`replace_all`",
            ),
            (
                json!({"path": "a.txt", "old_string": "", "new_string": "x"}),
                "`old_string`",
            ),
            (
                json!({"path": "a.txt", "old_string": "a", "new_string": "a"}),
                "identical",
            ),
        ] {
            match edit(&ws, args) {
                Err(Error::InvalidInput(m)) => assert!(m.contains(field), "{m}"),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn missing_directory_and_outside_paths() {
        let ws = Ws::new();
        assert!(matches!(
            edit(&ws, json!({"path": "nope.txt", "old_string": "a", "new_string": "b"})),
            Err(Error::NotFound(m)) if m.contains("write_file")
        ));
        fs::create_dir(ws.path("dir")).unwrap();
        assert!(matches!(
            edit(&ws, json!({"path": "dir", "old_string": "a", "new_string": "b"})),
            Err(Error::InvalidInput(m)) if m.contains("directory")
        ));
        for p in ["../out.txt", "/etc/passwd"] {
            assert!(matches!(
                edit(&ws, json!({"path": p, "old_string": "a", "new_string": "b"})),
                Err(Error::Denied(m)) if m.contains("outside the workspace")
            ));
        }
    }

    #[cfg(unix)]
    #[test]
    fn edits_through_symlinks_and_keeps_mode() {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let ws = Ws::new();
        ws.put("run.sh", b"#!/bin/sh\necho a\n");
        fs::set_permissions(ws.path("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        symlink(ws.path("run.sh"), ws.path("link.sh")).unwrap();
        edit(
            &ws,
            json!({"path": "link.sh", "old_string": "echo a", "new_string": "echo b"}),
        )
        .unwrap();
        assert!(
            fs::symlink_metadata(ws.path("link.sh"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(ws.get_text("run.sh"), "#!/bin/sh\necho b\n");
        let mode = fs::metadata(ws.path("run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }

    #[test]
    fn line_numbers_and_adaptation() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 4), 3);
        assert_eq!(adapt_new("x\ny", "a\r\nb", "a\r\nb"), "x\r\ny");
        assert_eq!(adapt_new("x\r\ny", "a\nb", "a\r\nb\r\nc\r\n"), "x\ny");
        assert_eq!(adapt_new("x\ny", "a", "a\r\nb\r\n"), "x\r\ny");
        assert_eq!(adapt_new("x\ny", "a", "a\nb\n"), "x\ny");
    }
}
