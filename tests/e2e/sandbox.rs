//! Capabilities hold: a plugin reaches only what it was granted, whatever its arguments say.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::{Env, stderr, stdout};

#[test]
fn absolute_path_outside_the_workspace_is_refused() {
    let env = Env::new();
    let out = env.call("read_file", r#"{"path":"/etc/passwd"}"#);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("outside the workspace"),
        "{}",
        stderr(&out)
    );
    assert!(!stdout(&out).contains("root:"));
}

#[test]
fn dot_dot_traversal_is_refused() {
    let env = Env::new();
    let out = env.call("read_file", r#"{"path":"../../../../../../etc/passwd"}"#);
    assert_eq!(out.status.code(), Some(1));
    assert!(!stdout(&out).contains("root:"));
}

#[test]
fn symlink_leaving_the_workspace_is_refused() {
    let env = Env::new();
    let secret_dir = env.root.path().join("outside");
    std::fs::create_dir_all(&secret_dir).unwrap();
    std::fs::write(secret_dir.join("secret.txt"), "TOP SECRET").unwrap();
    std::os::unix::fs::symlink(
        secret_dir.join("secret.txt"),
        env.workspace().join("link.txt"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret_dir, env.workspace().join("linkdir")).unwrap();

    let out = env.call("read_file", r#"{"path":"link.txt"}"#);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("denied"), "{}", stderr(&out));
    assert!(!stdout(&out).contains("TOP SECRET"));

    let out = env.call("read_file", r#"{"path":"linkdir/secret.txt"}"#);
    assert_eq!(out.status.code(), Some(1));
    assert!(!stdout(&out).contains("TOP SECRET"));

    let out = env.call(
        "write_file",
        r#"{"path":"linkdir/planted.txt","content":"x"}"#,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(!secret_dir.join("planted.txt").exists());
}

#[test]
fn write_into_a_read_only_grant_fails_and_changes_nothing() {
    let env = Env::new();
    std::fs::write(env.workspace().join("keep.txt"), "original").unwrap();
    env.project_config("[plugin.fs-write]\nworkspace = \"read\"\n");

    let listed = stdout(&env.reasonix(&["plugin", "list"]));
    assert!(listed.contains("granted:   workspace:read\n"), "{listed}");

    let out = env.call("write_file", r#"{"path":"keep.txt","content":"changed"}"#);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("denied"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("keep.txt")).unwrap(),
        "original"
    );

    let out = env.call("write_file", r#"{"path":"new.txt","content":"x"}"#);
    assert_eq!(out.status.code(), Some(1));
    assert!(!env.workspace().join("new.txt").exists());
}

#[test]
fn an_unindexed_plugin_gets_no_filesystem() {
    let env = Env::new();
    std::fs::write(env.workspace().join("data.txt"), "workspace data").unwrap();
    env.install_fixture("hostile");
    let target = env.workspace().join("data.txt");
    let args = format!(r#"{{"path":"{}"}}"#, target.display());
    let out = env.call("peek", &args);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(!stdout(&out).contains("workspace data"));
    assert!(
        stderr(&out).contains("not in the plugin index"),
        "{}",
        stderr(&out)
    );
}

/// The provider keys in `<home>/.env` stay out of reach even when the home is inside the
/// workspace and the config forbids nothing: readers, search and the shell all miss them.
/// (The whole home is hidden from plugins; a workspace that *is* the home shows nothing.)
#[test]
fn the_credentials_file_is_forbidden_even_inside_the_workspace() {
    let env = Env::new();
    let home = env.home();
    let workspace = std::fs::canonicalize(env.root.path()).unwrap();
    std::fs::write(home.join(".env"), "DEEPSEEK_API_KEY=sk-very-secret\n").unwrap();
    std::fs::write(workspace.join("notes.txt"), "sk-very-secret is not here\n").unwrap();
    let call = |tool: &str, args: &str| {
        env.reasonix(&[
            "tools",
            "call",
            tool,
            args,
            "--dir",
            workspace.to_str().unwrap(),
        ])
    };

    let out = call("read_file", r#"{"path":"home/.env"}"#);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(!stdout(&out).contains("sk-very"));

    let out = call("grep", r#"{"pattern":"sk-very-secret"}"#);
    let found = stdout(&out);
    assert!(found.contains("notes.txt"), "{found}{}", stderr(&out));
    assert!(!found.contains("DEEPSEEK"), "{found}");
    let out = call("grep", r#"{"pattern":"sk-very-secret","path":"home/.env"}"#);
    assert!(!stdout(&out).contains("DEEPSEEK"), "{}", stdout(&out));

    let out = call("bash", r#"{"command":"cat home/.env; echo done"}"#);
    let text = stdout(&out);
    assert!(text.contains("done"), "{text}{}", stderr(&out));
    assert!(!text.contains("sk-very"), "{text}");
}
