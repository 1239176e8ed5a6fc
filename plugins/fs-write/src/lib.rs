//! The built-in `fs-write` component: the file writer tools `write_file`, `edit_file`,
//! `multi_edit`, `move_file`, `delete_range` and `notebook_edit`.
//! All logic lives in `reasonix-fs-core`; this crate only declares the plugin.

use reasonix_sdk::{Plugin, PluginInfo, ToolSet, WorkspaceAccess};

/// The file writer plugin.
pub struct FsWrite;

impl Plugin for FsWrite {
    fn info() -> PluginInfo {
        let mut info = reasonix_sdk::plugin_info(
            "fs-write",
            "0.1.0",
            "Built-in file writer tools: write_file, edit_file, multi_edit, move_file, \
             delete_range, notebook_edit",
        );
        info.capabilities.workspace = WorkspaceAccess::ReadWrite;
        info
    }

    fn tools() -> ToolSet {
        reasonix_fs_core::write_tools()
    }
}

reasonix_sdk::export!(FsWrite);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use reasonix_sdk::{CallContext, Error};

    #[test]
    fn describes_itself_as_writer() {
        let info = FsWrite::info();
        assert_eq!(info.name, "fs-write");
        assert_eq!(info.version, "0.1.0");
        assert!(matches!(
            info.capabilities.workspace,
            WorkspaceAccess::ReadWrite
        ));
        let tools = FsWrite::tools();
        let names: Vec<&str> = tools.names().collect();
        assert_eq!(
            names,
            [
                "write_file",
                "edit_file",
                "multi_edit",
                "move_file",
                "delete_range",
                "notebook_edit"
            ]
        );
        assert!(info.description.contains("notebook_edit"));
    }

    #[test]
    fn serves_only_writer_tools() {
        let cx = CallContext {
            call_id: "c".to_string(),
            workspace: std::env::temp_dir().to_string_lossy().into_owned(),
        };
        assert!(matches!(
            FsWrite::tools().invoke("read_file", r#"{"path":"x"}"#, &cx),
            Err(Error::NotFound(_))
        ));
        assert!(matches!(
            FsWrite::tools().preview("ls", "{}", &cx),
            Err(Error::NotFound(_))
        ));
    }
}
