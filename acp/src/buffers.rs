//! The editor's buffers, for an editor that offers `fs/read_text_file` and
//! `fs/write_text_file`: what the user sees in the editor can differ from the file on disk
//! (unsaved changes), and an edit the agent makes should land in the editor's buffer, where the
//! user can review and undo it.
//!
//! The file tools stay what they are — WebAssembly components working on the files through
//! WASI, with the workspace policy, protected paths and previews. This wraps them for one ACP
//! session:
//!
//! - **After a read** (`read_file`) that succeeded — so the path passed every rule — the editor
//!   is asked for its text of the file; when it differs from the disk, the result says so and
//!   adds the difference (disk → editor), so the model sees what the user sees.
//! - **Before a file writer runs**, the editor is asked for its text of every file the call
//!   would change (from the call's preview); a file with unsaved changes is not written over:
//!   the call fails, telling the model to have the user save or discard them first, so the
//!   user's typing is never lost.
//! - **After a writer succeeded**, the new text of each file it created or changed goes to the
//!   editor with `fs/write_text_file`, so the buffer shows it (and the editor's undo can take
//!   it back).
//!
//! Every request to the editor is bounded in time; an editor that does not answer leaves the
//! call as the disk has it.

use agent_client_protocol::v1::schema::{ReadTextFileRequest, SessionId, WriteTextFileRequest};
use agent_client_protocol::{Client, v1};
use reasonix_core::catalog::Catalog;
use reasonix_core::error::{CallError, PluginError};
use reasonix_core::interceptor::Interceptor;
use reasonix_core::provider::Provider;
use reasonix_core::tool::{Effects, Tool};
use reasonix_core::types::{ChangeKind, FileChange, ToolContext, ToolOutput, ToolSpec};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// How long the editor has to answer one request.
const EDITOR_TIMEOUT: Duration = Duration::from_secs(5);
/// The most of a difference between disk and buffer added to a read's result.
const MAX_DIFFERENCE: usize = 64 * 1024;
/// The reader whose result the editor's text completes.
const READER: &str = "read_file";

/// What the editor said it can do in `initialize`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EditorFs {
    pub read: bool,
    pub write: bool,
}

impl EditorFs {
    pub fn any(self) -> bool {
        self.read || self.write
    }
}

/// The connection to the editor, for one session.
pub struct Editor {
    cx: v1::ConnectionTo<Client>,
    tasks: tokio::runtime::Handle,
    can: EditorFs,
    /// Known once the session is launched (before any tool can run).
    session: OnceLock<SessionId>,
    workspace: PathBuf,
}

impl Editor {
    pub fn new(
        cx: v1::ConnectionTo<Client>,
        tasks: tokio::runtime::Handle,
        can: EditorFs,
        workspace: PathBuf,
    ) -> Arc<Editor> {
        Arc::new(Editor {
            cx,
            tasks,
            can,
            session: OnceLock::new(),
            // Compared with canonical paths: it must be one too.
            workspace: workspace.canonicalize().unwrap_or(workspace),
        })
    }

    pub fn set_session(&self, id: &str) {
        let _ = self.session.set(SessionId::new(id.to_string()));
    }

    /// The editor's text of `path`, or `None` (it cannot say, did not answer in time, or
    /// failed).
    fn read(&self, path: &Path) -> Option<String> {
        let session = self.session.get()?.clone();
        // Waiting on the connection from inside an async task would stall it.
        if !self.can.read || tokio::runtime::Handle::try_current().is_ok() {
            return None;
        }
        let request = self
            .cx
            .send_request(ReadTextFileRequest::new(session, path.to_path_buf()));
        let answer = self
            .tasks
            .block_on(async { tokio::time::timeout(EDITOR_TIMEOUT, request.block_task()).await });
        match answer {
            Ok(Ok(reply)) => Some(reply.content),
            _ => None,
        }
    }

    /// Give the editor `text` as the content of `path`.
    fn write(&self, path: &Path, text: &str) {
        let Some(session) = self.session.get().cloned() else {
            return;
        };
        if !self.can.write || tokio::runtime::Handle::try_current().is_ok() {
            return;
        }
        let request = self.cx.send_request(WriteTextFileRequest::new(
            session,
            path.to_path_buf(),
            text.to_string(),
        ));
        // The file on disk is written already: an editor that fails here only misses the update.
        let _ = self
            .tasks
            .block_on(async { tokio::time::timeout(EDITOR_TIMEOUT, request.block_task()).await });
    }

    /// The file a call named, without symlinks, when it lies inside the workspace. The host
    /// reads it itself (to compare with the editor's text), after the tool's own checks: a
    /// link swapped in between must not lead it out of the workspace.
    fn inside(&self, path: &str) -> Option<PathBuf> {
        inside(&self.workspace, path)
    }

    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.workspace)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// `path` (relative to `workspace`, or absolute) without symlinks, when it lies inside the
/// (canonical) workspace.
fn inside(workspace: &Path, path: &str) -> Option<PathBuf> {
    let path = Path::new(path);
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        workspace.join(path)
    };
    let real = joined.canonicalize().ok()?;
    real.starts_with(workspace).then_some(real)
}

/// Line endings as a reader shows them, so an editor that keeps `\r\n` does not look changed.
fn lf(text: &str) -> String {
    text.replace("\r\n", "\n")
}

/// What a read's result gets when the editor's text of `shown` differs from the disk's.
pub fn unsaved_note(shown: &str, disk: &str, editor: &str) -> Option<String> {
    let (disk, editor) = (lf(disk), lf(editor));
    if disk == editor {
        return None;
    }
    let diff = similar::TextDiff::from_lines(&disk, &editor)
        .unified_diff()
        .context_radius(2)
        .header(&format!("{shown} (disk)"), &format!("{shown} (editor)"))
        .to_string();
    let mut diff = diff;
    if diff.len() > MAX_DIFFERENCE {
        let mut cut = MAX_DIFFERENCE;
        while !diff.is_char_boundary(cut) {
            cut -= 1;
        }
        diff.truncate(cut);
        diff.push_str("\n[… the rest of the difference is left out]\n");
    }
    Some(format!(
        "\n\n[The user's editor has unsaved changes to {shown}: the lines above are the file on \
         disk; the editor shows it with this difference (disk → editor):]\n{diff}"
    ))
}

/// The catalog of an ACP session whose editor offers its buffers: the same tools, the file
/// tools wrapped.
pub struct EditorFiles {
    inner: Arc<dyn Catalog>,
    editor: Arc<Editor>,
}

impl EditorFiles {
    pub fn new(inner: Arc<dyn Catalog>, editor: Arc<Editor>) -> EditorFiles {
        EditorFiles { inner, editor }
    }
}

impl Catalog for EditorFiles {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.inner
            .tools()
            .into_iter()
            .map(|tool| {
                let effects = tool.effects();
                let reader = tool.spec().name == READER;
                // A file writer: it changes the workspace, runs no commands, is one of ours.
                let writer = effects.writes_workspace
                    && !effects.runs_commands
                    && !effects.external
                    && !tool.delegates();
                if reader || writer {
                    Arc::new(Buffered {
                        inner: tool,
                        editor: self.editor.clone(),
                        reader,
                    }) as Arc<dyn Tool>
                } else {
                    tool
                }
            })
            .collect()
    }
    fn provider(&self, kind: &str) -> Option<Arc<dyn Provider>> {
        self.inner.provider(kind)
    }
    fn provider_kinds(&self) -> Vec<String> {
        self.inner.provider_kinds()
    }
    fn interceptors(&self) -> Vec<Arc<dyn Interceptor>> {
        self.inner.interceptors()
    }
    fn interceptors_for(&self, workspace: &Path) -> Vec<Arc<dyn Interceptor>> {
        self.inner.interceptors_for(workspace)
    }
    fn stop_processes(&self, reason: &str) {
        self.inner.stop_processes(reason)
    }
    fn stop_cancelled(&self, reason: &str) {
        self.inner.stop_cancelled(reason)
    }
    fn tools_revision(&self) -> u64 {
        self.inner.tools_revision()
    }
}

struct Buffered {
    inner: Arc<dyn Tool>,
    editor: Arc<Editor>,
    reader: bool,
}

impl Buffered {
    fn after_read(&self, arguments: &str, output: &mut String) {
        let Some(path) = serde_json::from_str::<serde_json::Value>(arguments)
            .ok()
            .and_then(|v| v.get("path").and_then(|p| p.as_str()).map(str::to_string))
        else {
            return;
        };
        let Some(path) = self.editor.inside(&path) else {
            return;
        };
        let Ok(disk) = std::fs::read_to_string(&path) else {
            return;
        };
        let Some(editor) = self.editor.read(&path) else {
            return;
        };
        if let Some(note) = unsaved_note(&self.editor.shown(&path), &disk, &editor) {
            output.push_str(&note);
        }
    }

    /// The files the call would change, refused when the editor holds unsaved changes to one.
    fn before_write(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<Vec<FileChange>, CallError> {
        // A preview that fails is the call's own error to report: it runs and says so.
        let Ok(changes) = self.inner.preview(arguments, context) else {
            return Ok(Vec::new());
        };
        for change in &changes {
            let Some(path) = self.editor.inside(&change.path) else {
                continue;
            };
            let Ok(disk) = std::fs::read_to_string(&path) else {
                continue;
            };
            if let Some(editor) = self.editor.read(&path)
                && lf(&editor) != lf(&disk)
            {
                return Err(CallError::Plugin(PluginError::Denied(format!(
                    "{} has unsaved changes in the user's editor; nothing was written. Ask the \
                     user to save or discard them, then read the file again",
                    self.editor.shown(&path)
                ))));
            }
        }
        Ok(changes)
    }

    fn after_write(&self, changes: &[FileChange]) {
        for change in changes {
            if matches!(change.kind, ChangeKind::Delete) {
                continue;
            }
            let Some(path) = self.editor.inside(&change.path) else {
                continue;
            };
            if let Ok(text) = std::fs::read_to_string(&path) {
                self.editor.write(&path, &text);
            }
        }
    }
}

impl Tool for Buffered {
    fn spec(&self) -> &ToolSpec {
        self.inner.spec()
    }
    fn source(&self) -> &str {
        self.inner.source()
    }
    fn effects(&self) -> Effects {
        self.inner.effects()
    }
    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        self.invoke_output(arguments, context).map(|o| o.text)
    }
    fn invoke_output(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<ToolOutput, CallError> {
        if self.reader {
            let mut output = self.inner.invoke_output(arguments, context)?;
            self.after_read(arguments, &mut output.text);
            return Ok(output);
        }
        let changes = self.before_write(arguments, context)?;
        let output = self.inner.invoke_output(arguments, context)?;
        self.after_write(&changes);
        Ok(output)
    }
    fn preview(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<Vec<FileChange>, CallError> {
        self.inner.preview(arguments, context)
    }
    fn wider_reach(&self, arguments: &serde_json::Value) -> Option<String> {
        self.inner.wider_reach(arguments)
    }
    fn delegates(&self) -> bool {
        self.inner.delegates()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_host_reads_only_files_inside_the_workspace() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("ws")).unwrap();
        let ws = root.path().join("ws").canonicalize().unwrap();
        std::fs::write(ws.join("a.txt"), "a").unwrap();
        std::fs::write(root.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(root.path().join("secret.txt"), ws.join("link.txt")).unwrap();
        assert_eq!(inside(&ws, "a.txt"), Some(ws.join("a.txt")));
        assert_eq!(
            inside(&ws, &ws.join("a.txt").display().to_string()),
            Some(ws.join("a.txt"))
        );
        for out in ["link.txt", "../secret.txt", "/etc/passwd", "missing.txt"] {
            assert_eq!(inside(&ws, out), None, "{out}");
        }
    }

    #[test]
    fn a_buffer_that_differs_is_noted_with_the_difference_and_line_endings_do_not_count() {
        assert_eq!(unsaved_note("a.rs", "x\ny\n", "x\r\ny\r\n"), None);
        let note = unsaved_note("a.rs", "x\ny\n", "x\nY\n").unwrap();
        assert!(note.contains("unsaved changes to a.rs"), "{note}");
        assert!(note.contains("-y\n+Y\n"), "{note}");
        assert!(note.contains("a.rs (disk)") && note.contains("a.rs (editor)"));
        let big = "line\n".repeat(40_000);
        let long = unsaved_note("big.txt", "", &big).unwrap();
        assert!(long.len() < MAX_DIFFERENCE + 1024, "{}", long.len());
        assert!(long.ends_with("left out]\n"));
    }
}
