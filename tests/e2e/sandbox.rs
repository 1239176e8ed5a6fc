//! Capabilities hold: a plugin reaches only what it was granted, whatever its arguments say.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

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

/// Reasonix's own directory stays out of reach even when it lies inside the workspace and the
/// config forbids nothing: the provider keys in `<home>/.env`, the plugin index with its
/// grants, the cache. Readers, search and the shell all miss them.
#[test]
fn the_home_is_invisible_even_inside_the_workspace() {
    let env = Env::new();
    let home = env.home();
    let workspace = home.parent().unwrap().to_path_buf();
    std::fs::write(home.join(".env"), "DEEPSEEK_API_KEY=sk-very-secret\n").unwrap();
    std::fs::write(
        home.join("plugins/index.json"),
        "{\"version\": 1, \"plugins\": [], \"sk-very-secret\": 1}",
    )
    .unwrap();
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

    for path in ["home/.env", "home/plugins/index.json"] {
        let out = call("read_file", &format!(r#"{{"path":"{path}"}}"#));
        assert_eq!(out.status.code(), Some(1), "{path}: {}", stdout(&out));
        assert!(!stdout(&out).contains("sk-very"), "{path}");
    }

    let out = call("grep", r#"{"pattern":"sk-very-secret"}"#);
    let found = stdout(&out);
    assert!(found.contains("notes.txt"), "{found}{}", stderr(&out));
    assert!(!found.contains("home/"), "{found}");
    let out = call("grep", r#"{"pattern":"sk-very-secret","path":"home"}"#);
    assert!(!stdout(&out).contains("DEEPSEEK"), "{}", stdout(&out));

    let out = call(
        "bash",
        r#"{"command":"cat home/.env home/plugins/index.json; echo done"}"#,
    );
    let text = stdout(&out);
    assert!(text.contains("done"), "{text}{}", stderr(&out));
    assert!(!text.contains("sk-very"), "{text}");
}

/// A workspace inside Reasonix's own directory would be invisible to every tool: refused with
/// a message that says why.
#[test]
fn a_workspace_inside_the_home_is_refused() {
    let env = Env::new();
    let inside = env.home().join("project");
    std::fs::create_dir_all(&inside).unwrap();
    let out = env.reasonix(&[
        "tools",
        "call",
        "ls",
        "{}",
        "--dir",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("inside Reasonix's own directory"),
        "{}",
        stderr(&out)
    );
}
