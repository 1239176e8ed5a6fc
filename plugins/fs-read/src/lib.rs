//! The built-in `fs-read` component: the read-only file tools `read_file`, `ls`, `grep` and
//! `glob`.
//! All logic lives in `reasonix-fs-core`; this crate only declares the plugin.

use reasonix_sdk::{CallContext, Error, PluginInfo, ToolPlugin, ToolSpec, WorkspaceAccess};

/// The read-only file tools plugin.
pub struct FsRead;

/// Deadline per call: grep's longest budget plus time to format its answer.
pub const CALL_TIMEOUT_MS: u32 = (reasonix_fs_core::grep::MAX_TIMEOUT_SECS as u32 + 10) * 1000;

impl ToolPlugin for FsRead {
    fn info() -> PluginInfo {
        let mut info = reasonix_sdk::plugin_info(
            "fs-read",
            "0.1.0",
            "Built-in read-only file tools: read_file, ls, grep and glob",
        );
        info.capabilities.workspace = WorkspaceAccess::Read;
        // grep may be given up to 300 s (`timeout_seconds`) and answers with partial results
        // when that runs out; the call deadline leaves it room to do so.
        info.limits.call_timeout_ms = Some(CALL_TIMEOUT_MS);
        info
    }

    fn tools() -> Vec<ToolSpec> {
        reasonix_fs_core::read_tools()
    }

    fn invoke(name: &str, arguments: &str, context: &CallContext) -> Result<String, Error> {
        if !reasonix_fs_core::is_read_tool(name) {
            return Err(refused(name));
        }
        reasonix_fs_core::invoke_read(name, arguments, context)
    }
}

/// This component serves only the read-only tools; anything else (notably `write_file`) is
/// refused even if a caller asks for it.
fn refused(name: &str) -> Error {
    if reasonix_fs_core::is_write_tool(name) {
        Error::NotFound(format!(
            "tool {name} is not served by fs-read, which is read-only"
        ))
    } else {
        reasonix_fs_core::unknown_tool(name)
    }
}

reasonix_sdk::export_tool_plugin!(FsRead);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn describes_itself_as_read_only() {
        let info = FsRead::info();
        assert_eq!(info.name, "fs-read");
        assert_eq!(info.version, "0.1.0");
        assert!(matches!(info.capabilities.workspace, WorkspaceAccess::Read));
        assert_eq!(info.limits.call_timeout_ms, Some(310_000));
        assert!(FsRead::tools().iter().all(|t| t.read_only));
    }

    #[test]
    fn refuses_write_tools() {
        let dir = std::env::temp_dir();
        let cx = CallContext {
            call_id: "c".to_string(),
            workspace: dir.to_string_lossy().into_owned(),
        };
        let args = r#"{"path":"reasonix-fs-read-must-not-exist.txt","content":"x"}"#;
        assert!(matches!(
            FsRead::invoke("write_file", args, &cx),
            Err(Error::NotFound(_))
        ));
        assert!(!dir.join("reasonix-fs-read-must-not-exist.txt").exists());
        assert!(FsRead::preview("write_file", args, &cx).unwrap().is_empty());
    }
}
