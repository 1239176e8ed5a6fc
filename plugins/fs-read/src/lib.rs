//! The built-in `fs-read` component: the read-only file tools `read_file`, `ls`, `grep` and
//! `glob`.
//! All logic lives in `reasonix-fs-core`; this crate only declares the plugin.

use reasonix_sdk::{Plugin, PluginInfo, ToolSet, WorkspaceAccess};

/// The read-only file tools plugin.
pub struct FsRead;

/// Deadline per call: grep's longest budget plus time to format its answer.
pub const CALL_TIMEOUT_MS: u32 = (reasonix_fs_core::grep::MAX_TIMEOUT_SECS as u32 + 10) * 1000;

impl Plugin for FsRead {
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

    fn tools() -> ToolSet {
        reasonix_fs_core::read_tools()
    }
}

reasonix_sdk::export!(FsRead);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use reasonix_sdk::{CallContext, Error};

    #[test]
    fn describes_itself_as_read_only() {
        let info = FsRead::info();
        assert_eq!(info.name, "fs-read");
        assert_eq!(info.version, "0.1.0");
        assert!(matches!(info.capabilities.workspace, WorkspaceAccess::Read));
        assert_eq!(info.limits.call_timeout_ms, Some(310_000));
        assert!(FsRead::tools().specs().iter().all(|t| t.read_only));
        assert!(FsRead::provider_kinds().is_empty() && FsRead::subscriptions().is_empty());
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
            FsRead::tools().invoke("write_file", args, &cx),
            Err(Error::NotFound(_))
        ));
        assert!(!dir.join("reasonix-fs-read-must-not-exist.txt").exists());
        assert!(matches!(
            FsRead::tools().preview("write_file", args, &cx),
            Err(Error::NotFound(_))
        ));
    }
}
