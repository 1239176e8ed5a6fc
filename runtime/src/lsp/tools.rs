//! The five `lsp_*` tools. Positions are 1-based lines and columns counted in characters;
//! results name files relative to the workspace (outside it: `~/…` or absolute, without their
//! text), are sorted, and are bounded.

use super::Lsp;
use super::client::{Server, file_uri, uri_path};
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::tool::{Effects, Tool};
use reasonix_core::types::{FileChange, ToolContext, ToolEvent, ToolSpec};
use serde_json::{Map, Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Locations listed at most, and the bytes of an answer.
const MAX_LOCATIONS: usize = 100;
const MAX_OUTPUT_BYTES: usize = 16 * 1024;
const MAX_LINE_CHARS: usize = 160;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Definition,
    References,
    Hover,
    Diagnostics,
    Symbols,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Definition => "lsp_definition",
            Kind::References => "lsp_references",
            Kind::Hover => "lsp_hover",
            Kind::Diagnostics => "lsp_diagnostics",
            Kind::Symbols => "lsp_symbols",
        }
    }
}

pub struct LspTool {
    lsp: Arc<Lsp>,
    kind: Kind,
    spec: ToolSpec,
}

/// The tools, sharing one pool of servers.
pub fn all(lsp: &Arc<Lsp>) -> Vec<Arc<dyn Tool>> {
    [
        Kind::Definition,
        Kind::References,
        Kind::Hover,
        Kind::Diagnostics,
        Kind::Symbols,
    ]
    .into_iter()
    .map(|kind| {
        Arc::new(LspTool {
            lsp: lsp.clone(),
            kind,
            spec: spec(kind),
        }) as Arc<dyn Tool>
    })
    .collect()
}

fn position_schema() -> Map<String, Value> {
    let mut props = Map::new();
    props.insert(
        "path".into(),
        json!({"type": "string", "description": "File, relative to the workspace."}),
    );
    props.insert(
        "line".into(),
        json!({"type": "integer", "minimum": 1, "description": "1-based line."}),
    );
    props.insert(
        "column".into(),
        json!({"type": "integer", "minimum": 1, "description": "1-based column (characters) of the identifier."}),
    );
    props.insert(
        "symbol".into(),
        json!({"type": "string", "description": "The identifier on that line; stands in for `column`."}),
    );
    props
}

fn spec(kind: Kind) -> ToolSpec {
    let (description, parameters) = match kind {
        Kind::Definition => (
            "Go to the definition of the identifier at a position (language server): where it is defined, as path:line:column with the line.",
            json!({"type": "object", "properties": position_schema(), "required": ["path", "line"], "additionalProperties": false}),
        ),
        Kind::References => (
            "Find every reference to the identifier at a position (language server), across the workspace, as path:line:column with the line.",
            json!({"type": "object", "properties": position_schema(), "required": ["path", "line"], "additionalProperties": false}),
        ),
        Kind::Hover => (
            "The type and documentation of the identifier at a position (language server).",
            json!({"type": "object", "properties": position_schema(), "required": ["path", "line"], "additionalProperties": false}),
        ),
        Kind::Diagnostics => (
            "Errors and warnings the language server reports (type errors included). With `path`: that file. Without: every file changed during this session. Use after an edit to check it.",
            json!({"type": "object", "properties": {
                "path": {"type": "string", "description": "File, relative to the workspace."}
            }, "additionalProperties": false}),
        ),
        Kind::Symbols => (
            "Symbols (functions, types, …) with their lines: the outline of `path`, or the workspace's symbols matching `query`.",
            json!({"type": "object", "properties": {
                "path": {"type": "string", "description": "File whose outline to list, relative to the workspace."},
                "query": {"type": "string", "description": "Name (or part) to look for across the workspace."}
            }, "additionalProperties": false}),
        ),
    };
    ToolSpec {
        name: kind.name().into(),
        description: description.into(),
        parameters: parameters.to_string(),
        read_only: true,
        guidance: None,
    }
}

fn invalid(message: String) -> CallError {
    CallError::Plugin(PluginError::InvalidInput(message))
}

fn failed(message: String) -> CallError {
    CallError::Plugin(PluginError::Other {
        code: "lsp".into(),
        message,
        retryable: true,
        detail: None,
    })
}

struct Args {
    path: Option<PathBuf>,
    line: Option<u32>,
    column: Option<u32>,
    symbol: Option<String>,
    query: Option<String>,
}

fn parse_args(kind: Kind, text: &str, workspace: &Path, lsp: &Lsp) -> Result<Args, CallError> {
    let tool = kind.name();
    let map = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            return Err(invalid(format!(
                "{tool}: the arguments must be a JSON object"
            )));
        }
        Err(e) => return Err(invalid(format!("{tool}: the arguments are not JSON: {e}"))),
    };
    let allowed: &[&str] = match kind {
        Kind::Diagnostics => &["path"],
        Kind::Symbols => &["path", "query"],
        _ => &["path", "line", "column", "symbol"],
    };
    if let Some(key) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid(format!(
            "{tool}: unknown argument `{key}` (the arguments are {})",
            allowed
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let string = |key: &str| -> Result<Option<String>, CallError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(invalid(format!("{tool}: `{key}` must be a string"))),
        }
    };
    let number = |key: &str| -> Result<Option<u32>, CallError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|n| *n >= 1)
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| invalid(format!("{tool}: `{key}` must be a whole number from 1"))),
        }
    };
    let path = match string("path")? {
        Some(p) => Some(checked_path(tool, &p, workspace, lsp)?),
        None => None,
    };
    let args = Args {
        path,
        line: number("line")?,
        column: number("column")?,
        symbol: string("symbol")?,
        query: string("query")?,
    };
    match kind {
        Kind::Definition | Kind::References | Kind::Hover => {
            if args.path.is_none() || args.line.is_none() {
                return Err(invalid(format!("{tool}: `path` and `line` are required")));
            }
            if args.column.is_none() && args.symbol.is_none() {
                return Err(invalid(format!(
                    "{tool}: give `column` or `symbol` (the identifier on that line)"
                )));
            }
        }
        Kind::Symbols if args.path.is_none() && args.query.is_none() => {
            return Err(invalid(format!(
                "{tool}: give `path` (an outline) or `query`"
            )));
        }
        _ => {}
    }
    Ok(args)
}

/// `text` as a file inside the workspace that the sandbox lets tools read.
fn checked_path(tool: &str, text: &str, workspace: &Path, lsp: &Lsp) -> Result<PathBuf, CallError> {
    let joined = workspace.join(text);
    let real = std::fs::canonicalize(&joined)
        .map_err(|e| invalid(format!("{tool}: cannot open `{text}`: {e}")))?;
    if !real.starts_with(workspace) {
        return Err(invalid(format!(
            "{tool}: `{text}` is outside the workspace; language servers answer about the workspace's files only"
        )));
    }
    let policy = lsp.sandbox.clone().resolve(workspace);
    if policy
        .forbid_read
        .iter()
        .chain(&policy.hidden)
        .any(|f| real.starts_with(f))
    {
        return Err(invalid(format!(
            "{tool}: `{text}` is not readable (`[sandbox] forbid_read`)"
        )));
    }
    if !real.is_file() {
        return Err(invalid(format!("{tool}: `{text}` is not a file")));
    }
    Ok(real)
}

/// The LSP position (0-based line, UTF-16 column) of 1-based `line` and character `column`, or
/// of `symbol` on that line (the occurrence nearest `column`).
fn lsp_position(
    tool: &str,
    text: &str,
    args: &Args,
    shown: &str,
) -> Result<(Value, String), CallError> {
    let line_no = args.line.unwrap_or(1);
    let Some(line) = text.lines().nth(line_no as usize - 1) else {
        return Err(invalid(format!(
            "{tool}: {shown} has {} lines; there is no line {line_no}",
            text.lines().count()
        )));
    };
    let chars: Vec<char> = line.chars().collect();
    let column = match &args.symbol {
        Some(symbol) => {
            let starts: Vec<usize> = line
                .match_indices(symbol.as_str())
                .map(|(byte, _)| line[..byte].chars().count())
                .filter(|&c| {
                    let before = c.checked_sub(1).and_then(|i| chars.get(i));
                    let after = chars.get(c + symbol.chars().count());
                    !before.is_some_and(|ch| is_ident(*ch))
                        && !after.is_some_and(|ch| is_ident(*ch))
                })
                .collect();
            let want = args.column.map(|c| c as usize - 1).unwrap_or(0);
            starts
                .into_iter()
                .min_by_key(|s| s.abs_diff(want))
                .ok_or_else(|| {
                    invalid(format!(
                        "{tool}: `{symbol}` is not on line {line_no} of {shown}: {}",
                        clip(line.trim())
                    ))
                })?
        }
        None => {
            let c = args.column.unwrap_or(1) as usize - 1;
            if c > chars.len() {
                return Err(invalid(format!(
                    "{tool}: line {line_no} of {shown} has {} characters; there is no column {}",
                    chars.len(),
                    c + 1
                )));
            }
            c
        }
    };
    let utf16: usize = chars[..column].iter().map(|c| c.len_utf16()).sum();
    let word: String = {
        let mut start = column;
        while start > 0 && chars.get(start - 1).is_some_and(|c| is_ident(*c)) {
            start -= 1;
        }
        chars[start..]
            .iter()
            .take_while(|c| is_ident(**c))
            .collect()
    };
    Ok((json!({"line": line_no - 1, "character": utf16}), word))
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn clip(line: &str) -> String {
    let clipped: String = line.chars().take(MAX_LINE_CHARS).collect();
    if clipped.len() < line.len() {
        format!("{clipped}…")
    } else {
        clipped
    }
}

/// How a path is shown: relative inside the workspace, `~/…` in the home, else absolute.
fn shown_path(path: &Path, workspace: &Path) -> String {
    if let Ok(rel) = path.strip_prefix(workspace) {
        return rel.display().to_string();
    }
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from)
        && let Ok(rel) = path.strip_prefix(&home)
    {
        return format!("~/{}", rel.display());
    }
    path.display().to_string()
}

/// Renders locations, reading each workspace file once.
struct Locations<'a> {
    workspace: &'a Path,
    readable: &'a dyn Fn(&Path) -> bool,
    files: std::collections::HashMap<PathBuf, Option<Vec<String>>>,
}

impl Locations<'_> {
    fn line_of(&mut self, path: &Path, line: u32) -> Option<String> {
        if !path.starts_with(self.workspace) || !(self.readable)(path) {
            return None;
        }
        let lines = self.files.entry(path.to_path_buf()).or_insert_with(|| {
            let size = std::fs::metadata(path).ok()?.len();
            (size <= super::client::MAX_DOCUMENT_BYTES)
                .then(|| std::fs::read_to_string(path).ok())
                .flatten()
                .map(|t| t.lines().map(str::to_string).collect())
        });
        lines.as_ref()?.get(line as usize).cloned()
    }

    /// `path:line:column  text`, the column converted from UTF-16 to characters.
    fn render(&mut self, uri: &str, position: lsp_types::Position) -> (String, String) {
        let Some(path) = uri_path(uri) else {
            let text = reasonix_core::terminal::line(uri).into_owned();
            return (text.clone(), format!("{text}:{}", position.line + 1));
        };
        let text = self.line_of(&path, position.line);
        let column = match &text {
            Some(t) => {
                let mut units = 0usize;
                let mut chars = 0usize;
                for c in t.chars() {
                    if units >= position.character as usize {
                        break;
                    }
                    units += c.len_utf16();
                    chars += 1;
                }
                chars + 1
            }
            None => position.character as usize + 1,
        };
        let shown = shown_path(&path, self.workspace);
        let head = format!("{shown}:{}:{column}", position.line + 1);
        let line = match text {
            Some(t) => format!("{head}  {}", clip(t.trim())),
            None => head,
        };
        (shown, line)
    }
}

/// Locations of a definition or references answer.
fn locations_of(value: &Value) -> Vec<(String, lsp_types::Range)> {
    if value.is_null() {
        return Vec::new();
    }
    if let Ok(response) = serde_json::from_value::<lsp_types::GotoDefinitionResponse>(value.clone())
    {
        return match response {
            lsp_types::GotoDefinitionResponse::Scalar(l) => vec![(l.uri.to_string(), l.range)],
            lsp_types::GotoDefinitionResponse::Array(ls) => ls
                .into_iter()
                .map(|l| (l.uri.to_string(), l.range))
                .collect(),
            lsp_types::GotoDefinitionResponse::Link(links) => links
                .into_iter()
                .map(|l| (l.target_uri.to_string(), l.target_selection_range))
                .collect(),
        };
    }
    Vec::new()
}

fn hover_text(value: &Value) -> Option<String> {
    let hover: lsp_types::Hover = serde_json::from_value(value.clone()).ok()?;
    let marked = |m: lsp_types::MarkedString| match m {
        lsp_types::MarkedString::String(s) => s,
        lsp_types::MarkedString::LanguageString(l) => {
            format!("```{}\n{}\n```", l.language, l.value)
        }
    };
    let text = match hover.contents {
        lsp_types::HoverContents::Scalar(m) => marked(m),
        lsp_types::HoverContents::Array(ms) => {
            ms.into_iter().map(marked).collect::<Vec<_>>().join("\n\n")
        }
        lsp_types::HoverContents::Markup(m) => m.value,
    };
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn severity(d: &lsp_types::Diagnostic) -> &'static str {
    match d.severity {
        Some(lsp_types::DiagnosticSeverity::ERROR) => "error",
        Some(lsp_types::DiagnosticSeverity::WARNING) => "warning",
        Some(lsp_types::DiagnosticSeverity::INFORMATION) => "info",
        Some(lsp_types::DiagnosticSeverity::HINT) => "hint",
        _ => "error",
    }
}

fn symbol_kind(kind: lsp_types::SymbolKind) -> String {
    let text = format!("{kind:?}");
    text.to_ascii_lowercase()
}

/// Cut `out` to the output limit at a line boundary, saying how much was left out.
fn bounded(mut out: String) -> String {
    if out.len() <= MAX_OUTPUT_BYTES {
        return out;
    }
    let mut cut = MAX_OUTPUT_BYTES;
    while !out.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = out[..cut].rfind('\n').unwrap_or(cut);
    let left = out[cut..].lines().filter(|l| !l.is_empty()).count();
    out.truncate(cut);
    let _ = write!(out, "\n… {left} more lines left out");
    out
}

impl LspTool {
    fn run(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        let tool = self.kind.name();
        let workspace = &context.workspace;
        let args = parse_args(self.kind, arguments, workspace, &self.lsp)?;
        let progress = |message: &str| {
            if let Some(events) = &context.events {
                events.emit(ToolEvent::Progress {
                    fraction: None,
                    message: message.to_string(),
                });
            }
        };
        let cancelled = || context.cancel.is_cancelled();
        let policy = self.lsp.sandbox.clone().resolve(workspace);
        let readable = |p: &Path| {
            !policy
                .forbid_read
                .iter()
                .chain(&policy.hidden)
                .any(|f| p.starts_with(f))
        };
        let mut locations = Locations {
            workspace,
            readable: &readable,
            files: Default::default(),
        };
        match (self.kind, &args.path) {
            (Kind::Diagnostics, None) => {
                return self.diagnostics_of_changed(
                    workspace,
                    &progress,
                    &cancelled,
                    &mut locations,
                );
            }
            (Kind::Symbols, None) => {
                return self.workspace_symbols(
                    workspace,
                    args.query.as_deref().unwrap_or(""),
                    &progress,
                    &cancelled,
                    &mut locations,
                );
            }
            _ => {}
        }
        let Some(path) = args.path.clone() else {
            return Err(invalid(format!("{tool}: `path` is required")));
        };
        let shown = shown_path(&path, workspace);
        let spec = self.lsp.spec_for(&path).ok_or_else(|| {
            invalid(format!(
                "{tool}: no language server is set up for `{shown}` (by its extension); see docs/LSP.md for [lsp.servers]"
            ))
        })?;
        let server = self
            .lsp
            .server(workspace, spec, &progress, &cancelled)
            .map_err(|e| failed(format!("{tool}: {e}")))?;
        let since = server.diagnostics_seq();
        server
            .sync(&path)
            .map_err(|e| failed(format!("{tool}: {e}")))?;
        let text = server.text_of(&path).unwrap_or_default();
        let uri = file_uri(&path).unwrap_or_default();
        let timeout = self.lsp.request_timeout();
        let call = |method: &str, params: Value| {
            server
                .call(method, params, timeout, &cancelled)
                .map_err(|e| failed(format!("{tool}: {e}")))
        };
        match self.kind {
            Kind::Definition | Kind::References | Kind::Hover => {
                let (position, word) = lsp_position(tool, &text, &args, &shown)?;
                let at = format!(
                    "`{}` at {shown}:{}",
                    if word.is_empty() { "?" } else { &word },
                    args.line.unwrap_or(1)
                );
                let text_document = json!({"uri": uri});
                match self.kind {
                    Kind::Hover => {
                        let value = call(
                            "textDocument/hover",
                            json!({"textDocument": text_document, "position": position}),
                        )?;
                        Ok(match hover_text(&value) {
                            Some(text) => bounded(format!("{at}:\n{text}")),
                            None => format!("{at}: the language server has nothing to show there."),
                        })
                    }
                    Kind::Definition => {
                        let value = call(
                            "textDocument/definition",
                            json!({"textDocument": text_document, "position": position}),
                        )?;
                        let found = locations_of(&value);
                        Ok(self.list(&at, "definition", found, &mut locations))
                    }
                    _ => {
                        let value = call(
                            "textDocument/references",
                            json!({"textDocument": text_document, "position": position,
                                   "context": {"includeDeclaration": true}}),
                        )?;
                        let found: Vec<(String, lsp_types::Range)> =
                            serde_json::from_value::<Vec<lsp_types::Location>>(value)
                                .unwrap_or_default()
                                .into_iter()
                                .map(|l| (l.uri.to_string(), l.range))
                                .collect();
                        Ok(self.list(&at, "reference", found, &mut locations))
                    }
                }
            }
            Kind::Diagnostics => {
                let deadline = Instant::now() + timeout;
                let (found, incomplete) = server.diagnostics_after(
                    std::slice::from_ref(&uri),
                    since,
                    deadline,
                    &cancelled,
                );
                Ok(render_diagnostics(&found, incomplete, 1, &mut locations))
            }
            Kind::Symbols => {
                let value = call(
                    "textDocument/documentSymbol",
                    json!({"textDocument": {"uri": uri}}),
                )?;
                Ok(outline(&shown, &value))
            }
        }
    }

    fn list(
        &self,
        at: &str,
        noun: &str,
        mut found: Vec<(String, lsp_types::Range)>,
        locations: &mut Locations<'_>,
    ) -> String {
        if found.is_empty() {
            return format!("No {noun} found for {at}.");
        }
        found.sort_by(|a, b| {
            (&a.0, a.1.start.line, a.1.start.character).cmp(&(
                &b.0,
                b.1.start.line,
                b.1.start.character,
            ))
        });
        found.dedup();
        let total = found.len();
        let mut out = format!(
            "{total} {noun}{} of {at}:\n",
            if total == 1 { "" } else { "s" }
        );
        for (uri, range) in found.iter().take(MAX_LOCATIONS) {
            let (_, line) = locations.render(uri, range.start);
            let _ = writeln!(out, "{line}");
        }
        if total > MAX_LOCATIONS {
            let _ = writeln!(out, "… {} more left out", total - MAX_LOCATIONS);
        }
        bounded(out)
    }

    fn diagnostics_of_changed(
        &self,
        workspace: &Path,
        progress: &dyn Fn(&str),
        cancelled: &dyn Fn() -> bool,
        locations: &mut Locations<'_>,
    ) -> Result<String, CallError> {
        let tool = self.kind.name();
        let mut sections = Vec::new();
        let mut checked = 0usize;
        for spec in self.lsp.specs.iter() {
            let changed = super::touched::since(workspace, &spec.extensions, self.lsp.began);
            let running = self.lsp.pid_of(workspace, &spec.language).is_some();
            if changed.is_empty() && !running {
                continue;
            }
            let server: Arc<Server> = self
                .lsp
                .server(workspace, spec, progress, cancelled)
                .map_err(|e| failed(format!("{tool}: {e}")))?;
            let since = server.diagnostics_seq();
            let mut paths: Vec<PathBuf> = server.open_paths();
            paths.extend(changed);
            paths.sort();
            paths.dedup();
            for path in &paths {
                server
                    .sync(path)
                    .map_err(|e| failed(format!("{tool}: {e}")))?;
            }
            let uris: Vec<String> = paths.iter().filter_map(|p| file_uri(p)).collect();
            checked += uris.len();
            let deadline = Instant::now() + self.lsp.request_timeout();
            let (found, incomplete) = server.diagnostics_after(&uris, since, deadline, cancelled);
            sections.push(render_diagnostics(
                &found,
                incomplete,
                uris.len(),
                locations,
            ));
        }
        if checked == 0 {
            return Ok("No source file changed during this session and no file is open in a language server; give `path` to check one.".into());
        }
        Ok(bounded(sections.join("\n")))
    }

    fn workspace_symbols(
        &self,
        workspace: &Path,
        query: &str,
        progress: &dyn Fn(&str),
        cancelled: &dyn Fn() -> bool,
        locations: &mut Locations<'_>,
    ) -> Result<String, CallError> {
        let tool = self.kind.name();
        let specs = self.lsp.languages_of(workspace);
        if specs.is_empty() {
            return Err(invalid(format!(
                "{tool}: no language of this workspace has a server (no project file such as Cargo.toml or pyproject.toml at its root); give `path`"
            )));
        }
        let mut found: Vec<(String, String, String, lsp_types::Position)> = Vec::new();
        for spec in specs {
            let server = self
                .lsp
                .server(workspace, spec, progress, cancelled)
                .map_err(|e| failed(format!("{tool}: {e}")))?;
            let value = server
                .call(
                    "workspace/symbol",
                    json!({"query": query}),
                    self.lsp.request_timeout(),
                    cancelled,
                )
                .map_err(|e| failed(format!("{tool}: {e}")))?;
            let Ok(response) = serde_json::from_value::<lsp_types::WorkspaceSymbolResponse>(value)
            else {
                continue;
            };
            match response {
                lsp_types::WorkspaceSymbolResponse::Flat(items) => {
                    for s in items {
                        found.push((
                            s.name,
                            symbol_kind(s.kind),
                            s.location.uri.to_string(),
                            s.location.range.start,
                        ));
                    }
                }
                lsp_types::WorkspaceSymbolResponse::Nested(items) => {
                    for s in items {
                        if let lsp_types::OneOf::Left(l) = s.location {
                            found.push((
                                s.name,
                                symbol_kind(s.kind),
                                l.uri.to_string(),
                                l.range.start,
                            ));
                        }
                    }
                }
            }
        }
        if found.is_empty() {
            return Ok(format!("No symbol matches `{query}`."));
        }
        // The workspace's own first.
        let root = file_uri(workspace).unwrap_or_default();
        found.sort_by_key(|(name, _, uri, p)| {
            (!uri.starts_with(&root), uri.clone(), p.line, name.clone())
        });
        let total = found.len();
        let mut out = format!(
            "{total} symbol{} matching `{query}`:\n",
            if total == 1 { "" } else { "s" }
        );
        for (name, kind, uri, position) in found.iter().take(MAX_LOCATIONS) {
            let (_, line) = locations.render(uri, *position);
            let head = line.split("  ").next().unwrap_or(&line).to_string();
            let _ = writeln!(
                out,
                "{kind} {}  {head}",
                reasonix_core::terminal::line(name)
            );
        }
        if total > MAX_LOCATIONS {
            let _ = writeln!(out, "… {} more left out", total - MAX_LOCATIONS);
        }
        Ok(bounded(out))
    }
}

fn render_diagnostics(
    found: &[(String, Vec<lsp_types::Diagnostic>)],
    incomplete: Option<String>,
    files: usize,
    locations: &mut Locations<'_>,
) -> String {
    let mut out = String::new();
    let mut total = 0usize;
    for (uri, diagnostics) in found {
        let mut sorted: Vec<&lsp_types::Diagnostic> = diagnostics.iter().collect();
        sorted.sort_by_key(|d| (d.range.start.line, d.range.start.character));
        for d in sorted {
            total += 1;
            let (_, at) = locations.render(uri, d.range.start);
            let head = at.split("  ").next().unwrap_or(&at).to_string();
            let code = match &d.code {
                Some(lsp_types::NumberOrString::String(s)) => format!("[{s}] "),
                Some(lsp_types::NumberOrString::Number(n)) => format!("[{n}] "),
                None => String::new(),
            };
            let message = d.message.lines().next().unwrap_or("").to_string();
            let _ = writeln!(
                out,
                "{head}: {} {code}{}",
                severity(d),
                reasonix_core::terminal::line(&message)
            );
        }
    }
    let mut head = if total == 0 {
        format!(
            "No problems in {files} file{}.",
            if files == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "{total} problem{} in {files} file{}:",
            if total == 1 { "" } else { "s" },
            if files == 1 { "" } else { "s" }
        )
    };
    if let Some(why) = incomplete {
        let _ = write!(head, " ({why})");
    }
    bounded(format!("{head}\n{out}"))
}

fn outline(shown: &str, value: &Value) -> String {
    let mut out = String::new();
    let mut count = 0usize;
    match serde_json::from_value::<lsp_types::DocumentSymbolResponse>(value.clone()) {
        Ok(lsp_types::DocumentSymbolResponse::Nested(symbols)) => {
            fn walk(
                symbols: &[lsp_types::DocumentSymbol],
                depth: usize,
                out: &mut String,
                count: &mut usize,
            ) {
                for s in symbols {
                    *count += 1;
                    if *count > MAX_LOCATIONS * 3 {
                        return;
                    }
                    let _ = writeln!(
                        out,
                        "{}{} {}  :{}",
                        "  ".repeat(depth),
                        symbol_kind(s.kind),
                        reasonix_core::terminal::line(&s.name),
                        s.selection_range.start.line + 1
                    );
                    if let Some(children) = &s.children {
                        walk(children, depth + 1, out, count);
                    }
                }
            }
            walk(&symbols, 0, &mut out, &mut count);
        }
        Ok(lsp_types::DocumentSymbolResponse::Flat(symbols)) => {
            for s in symbols {
                count += 1;
                let _ = writeln!(
                    out,
                    "{} {}  :{}",
                    symbol_kind(s.kind),
                    reasonix_core::terminal::line(&s.name),
                    s.location.range.start.line + 1
                );
            }
        }
        Err(_) => {}
    }
    if count == 0 {
        return format!("{shown}: no symbols.");
    }
    bounded(format!("{shown} ({count} symbols):\n{out}"))
}

impl Tool for LspTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> &str {
        "reasonix"
    }

    fn effects(&self) -> Effects {
        Effects::default()
    }

    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        self.run(arguments, context)
    }

    fn preview(&self, _: &str, _: &ToolContext) -> Result<Vec<FileChange>, CallError> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn args(line: u32, column: Option<u32>, symbol: Option<&str>) -> Args {
        Args {
            path: None,
            line: Some(line),
            column,
            symbol: symbol.map(str::to_string),
            query: None,
        }
    }

    #[test]
    fn columns_are_characters_and_become_utf16_units() {
        let text = "let 名前 = 1;\nlet x = 名前 + 1;\n";
        let (pos, word) = lsp_position("t", text, &args(2, Some(9), None), "f").unwrap();
        assert_eq!(pos, json!({"line": 1, "character": 8}));
        assert_eq!(word, "名前");
        let (pos, _) = lsp_position("t", "😀 ab\n", &args(1, Some(3), None), "f").unwrap();
        // The emoji is two UTF-16 units.
        assert_eq!(pos, json!({"line": 0, "character": 3}));
    }

    #[test]
    fn a_symbol_finds_its_whole_word_nearest_the_column() {
        let text = "area + areas + area\n";
        let (pos, word) = lsp_position("t", text, &args(1, Some(18), Some("area")), "f").unwrap();
        assert_eq!(pos, json!({"line": 0, "character": 15}));
        assert_eq!(word, "area");
        let err = lsp_position("t", text, &args(1, None, Some("rea")), "f").unwrap_err();
        assert!(err.to_string().contains("is not on line 1"), "{err}");
        let err = lsp_position("t", text, &args(3, Some(1), None), "f").unwrap_err();
        assert!(err.to_string().contains("there is no line 3"), "{err}");
    }

    #[test]
    fn paths_outside_the_workspace_are_refused_links_included() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.rs"), "fn x() {}\n").unwrap();
        std::fs::write(ws.join("ok.rs"), "fn y() {}\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.rs"), ws.join("link.rs")).unwrap();
        let lsp = Lsp::new(
            &reasonix_config::LspSettings::default(),
            reasonix_core::sandbox::SandboxConfig::default(),
        );
        assert!(checked_path("t", "ok.rs", &ws, &lsp).is_ok());
        for bad in [
            "link.rs".to_string(),
            "../secret.rs".to_string(),
            outside.path().join("secret.rs").display().to_string(),
        ] {
            let err = checked_path("t", &bad, &ws, &lsp).unwrap_err().to_string();
            assert!(
                err.contains("outside the workspace") || err.contains("cannot open"),
                "{bad}: {err}"
            );
        }
        let err = checked_path("t", ".", &ws, &lsp).unwrap_err().to_string();
        assert!(err.contains("is not a file"), "{err}");
    }

    #[test]
    fn long_answers_are_cut_at_a_line_and_say_so() {
        let long: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        let cut = bounded(long);
        assert!(cut.len() <= MAX_OUTPUT_BYTES + 64);
        assert!(
            cut.ends_with("more lines left out"),
            "{}",
            &cut[cut.len() - 80..]
        );
    }
}
