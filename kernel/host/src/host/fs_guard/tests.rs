#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::sandbox::SandboxConfig;

fn plan(ws: &Path, hidden: Vec<PathBuf>, protected_read_only: bool) -> Plan {
    let config = SandboxConfig {
        hidden,
        ..SandboxConfig::default()
    };
    let policy = config.resolve_with(ws, |_| None);
    Plan::new(&policy, &[ws.to_path_buf()], protected_read_only)
}

#[test]
fn splits_paths_at_the_final_name() {
    let s = split_parent("a/b/c").unwrap();
    assert_eq!((s.dir, s.name, s.tail), ("a/b", "c", "c"));
    let s = split_parent("x").unwrap();
    assert_eq!((s.dir, s.name, s.tail), ("", "x", "x"));
    let s = split_parent("a/b/").unwrap();
    assert_eq!((s.dir, s.name, s.tail), ("a", "b", "b/"));
    for whole in ["", ".", "..", "a/..", "a/.", "/etc/passwd"] {
        assert_eq!(split_parent(whole), None, "{whole}");
    }
}

#[test]
fn home_outside_the_workspace_costs_no_read_checks() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let p = plan(&ws, vec![dir.path().join("home")], false);
    assert!(!p.active());
    assert!(!p.guards_protected());
    let p = plan(&ws, vec![ws.join(".reasonix")], true);
    assert!(p.active());
    assert!(p.guards_protected());
}

#[test]
fn a_home_reached_through_a_symlink_is_still_within_reach() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("real-home")).unwrap();
    let link = dir.path().join("home-link");
    std::os::unix::fs::symlink(ws.join("real-home"), &link).unwrap();
    let p = plan(&ws, vec![link], false);
    assert!(p.active());
    let real_ws = std::fs::canonicalize(&ws).unwrap();
    assert!(p.forbidden(&real_ws.join("real-home/.env")));
    assert!(p.holds_forbidden(&real_ws));
    assert!(!p.forbidden(&real_ws.join("real-homes")));
}

#[test]
fn protected_paths_and_their_ancestors() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    let p = plan(&ws, Vec::new(), true);
    assert!(p.protected(&ws.join("reasonix.toml")));
    assert!(p.protected(&ws.join(".reasonix/x")));
    assert!(!p.protected(&ws.join(".claude")));
    assert!(p.holds_protected(&ws.join(".claude")));
    assert!(!p.holds_protected(&ws.join("src")));
    let builtin = plan(&ws, Vec::new(), false);
    assert!(!builtin.protected(&ws.join("reasonix.toml")));
}

#[test]
fn symlinks_stay_inside_and_out_of_hidden_dirs() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    let home = ws.join(".reasonix");
    let p = plan(&ws, vec![home.clone()], false);
    let sub = ws.join("sub");
    assert_eq!(p.symlink_refusal(&sub, "../file"), None);
    assert_eq!(p.symlink_refusal(&sub, "x/y"), None);
    assert!(p.symlink_refusal(&sub, "/etc/passwd").is_some());
    assert!(p.symlink_refusal(&sub, "../../outside").is_some());
    assert!(p.symlink_refusal(&sub, "../.reasonix/.env").is_some());
    assert!(p.symlink_refusal(&sub, home.to_str().unwrap()).is_some());
    assert!(p.symlink_refusal(&sub, "a/../../x").is_some());
    assert_eq!(
        p.symlink_refusal(&sub, ws.join("f").to_str().unwrap()),
        None
    );
}
