//! `grep` and `glob` through the real `fs-read` component, and `forbid_read` hiding paths from
//! every built-in reader (`read_file`, `ls`, `grep`, `glob`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;

use support::{Env, stderr, stdout};

fn put(root: &Path, name: &str, bytes: &[u8]) {
    let p = root.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

/// Run a tool that must succeed; its stdout without the trailing newline the CLI adds.
fn ok(env: &Env, tool: &str, args: &str) -> String {
    let out = env.call(tool, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{tool} {args}: {}",
        stderr(&out)
    );
    stdout(&out).trim_end_matches('\n').to_string()
}

/// Run a tool that must fail; its stderr.
fn fails(env: &Env, tool: &str, args: &str) -> String {
    let out = env.call(tool, args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{tool} {args} should fail; stdout: {}",
        stdout(&out)
    );
    stderr(&out)
}

#[test]
fn both_tools_are_served_read_only_by_fs_read() {
    let env = Env::new();
    let out = env.reasonix(&["tools", "list", "--json"]);
    let tools: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for name in ["grep", "glob"] {
        let tool = tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} missing from {tools}"));
        assert_eq!(tool["read_only"], true, "{tool}");
        assert_eq!(tool["plugin"], "fs-read", "{tool}");
        assert_eq!(tool["parameters"]["required"][0], "pattern", "{tool}");
    }
}

#[test]
fn grep_happy_path_gitignore_binary_and_credentials() {
    let env = Env::new();
    let ws = env.workspace();
    put(&ws, "src/main.rs", b"fn main() {\n    helper();\n}\n");
    put(&ws, "src/lib.rs", b"pub fn helper() {}\n");
    put(&ws, ".gitignore", b"target/\n");
    put(&ws, "target/debug/out.rs", b"helper\n");
    put(&ws, "blob.bin", b"helper\0\x01\x02");
    put(&ws, ".env", b"helper=secret\n");
    put(&ws, "deploy.pem", b"helper\n");
    put(&ws, ".ssh/config", b"helper\n");
    put(&ws, "node_modules/x/index.js", b"helper\n");
    put(&ws, ".hidden/h.rs", b"helper\n");

    assert_eq!(
        ok(&env, "grep", r#"{"pattern":"helper"}"#),
        "src/lib.rs:1:pub fn helper() {}\nsrc/main.rs:2:    helper();"
    );
    assert_eq!(
        ok(
            &env,
            "grep",
            r#"{"pattern":"^fn \\w+","path":"src/main.rs"}"#
        ),
        "src/main.rs:1:fn main() {"
    );
    // An absolute path inside the workspace works too; paths stay workspace-relative.
    let abs = format!(
        r#"{{"pattern":"fn","path":"{}","timeout_seconds":5}}"#,
        ws.join("src").display()
    );
    assert_eq!(
        ok(&env, "grep", &abs),
        "src/lib.rs:1:pub fn helper() {}\nsrc/main.rs:1:fn main() {"
    );
    assert_eq!(
        ok(&env, "grep", r#"{"pattern":"zebra"}"#),
        "(no matches for \"zebra\" in .)"
    );
}

#[test]
fn grep_caps_at_200_matches() {
    let env = Env::new();
    let body: String = (1..=250).map(|i| format!("match {i}\n")).collect();
    put(&env.workspace(), "many.txt", body.as_bytes());
    let out = ok(&env, "grep", r#"{"pattern":"match"}"#);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 201);
    assert_eq!(lines[0], "many.txt:1:match 1");
    assert_eq!(lines[199], "many.txt:200:match 200");
    assert_eq!(lines[200], "... (truncated at 200 matches)");
}

/// The component reads files in 64 KiB chunks straight through WASI and streams those over
/// 16 MiB; ignore files above the searched directory still apply.
#[test]
fn grep_reads_files_across_chunks_and_honours_ignore_files_above_the_path() {
    let env = Env::new();
    let ws = env.workspace();
    let chunk = 64 * 1024;
    // Exactly one chunk, the match on its last line.
    let mut exact = vec![b'.'; chunk - 7];
    exact.extend_from_slice(b"\nneedle");
    put(&ws, "sub/exact.txt", &exact);
    // A match straddling the first chunk boundary and one at the very end.
    let mut spans = vec![b'.'; chunk - 3];
    spans.extend_from_slice(b"\nneedle one\n");
    spans.extend(std::iter::repeat_n(b'-', 3 * chunk));
    spans.extend_from_slice(b"\nneedle two\n");
    put(&ws, "sub/spans.txt", &spans);
    // A NUL in the third chunk makes the whole file binary.
    let mut late = b"needle\n".repeat(chunk / 7 * 2);
    late.push(0);
    put(&ws, "sub/late.bin", &late);
    // Past the whole-file limit: streamed.
    let mut huge = vec![b'x'; 17 << 20];
    huge.extend_from_slice(b"\nneedle huge\n");
    put(&ws, "sub/huge.txt", &huge);
    put(&ws, ".gitignore", b"*.gen\n");
    put(&ws, "sub/x.gen", b"needle\n");
    put(&ws, "sub/.ignore", b"skip/\n");
    put(&ws, "sub/skip/s.txt", b"needle\n");
    assert_eq!(
        ok(&env, "grep", r#"{"pattern":"needle","path":"sub"}"#),
        "sub/exact.txt:2:needle\nsub/huge.txt:2:needle huge\nsub/spans.txt:2:needle one\n\
         sub/spans.txt:4:needle two"
    );
    // A link named as the path is followed (a link met during the walk is not).
    // Relative targets: the sandbox refuses absolute ones.
    std::os::unix::fs::symlink("sub/skip", ws.join("alias")).unwrap();
    std::os::unix::fs::symlink("sub/skip/s.txt", ws.join("alias.txt")).unwrap();
    assert_eq!(
        ok(&env, "grep", r#"{"pattern":"needle","path":"alias"}"#),
        "alias/s.txt:1:needle"
    );
    assert_eq!(
        ok(&env, "grep", r#"{"pattern":"needle","path":"alias.txt"}"#),
        "alias.txt:1:needle"
    );
}

#[test]
fn grep_rejects_bad_input_and_paths_outside_the_workspace() {
    let env = Env::new();
    let err = fails(&env, "grep", r#"{"pattern":"(unclosed"}"#);
    assert!(err.contains("invalid input"), "{err}");
    assert!(
        err.contains("invalid regular expression \"(unclosed\""),
        "{err}"
    );
    for path in ["/etc", "../..", "/"] {
        let err = fails(
            &env,
            "grep",
            &format!(r#"{{"pattern":"root","path":"{path}"}}"#),
        );
        assert!(err.contains("outside the workspace"), "{path}: {err}");
    }
    let err = fails(&env, "grep", r#"{"pattern":"x","path":"nope"}"#);
    assert!(err.contains("no such file: nope"), "{err}");
    let err = fails(&env, "grep", r#"{"pattern":"x","timeout_seconds":0}"#);
    assert!(err.contains("timeout_seconds"), "{err}");
}

#[test]
fn glob_happy_path_retry_and_errors() {
    let env = Env::new();
    let ws = env.workspace();
    for f in [
        "Cargo.toml",
        "src/main.rs",
        "src/net/http.rs",
        "crates/a/Cargo.toml",
        "tests/t_1.py",
        "tests/t_2.py",
        ".git/HEAD",
        "node_modules/m/main.rs",
    ] {
        put(&ws, f, b"x");
    }
    assert_eq!(
        ok(&env, "glob", r#"{"pattern":"src/**/*.rs"}"#),
        "src/main.rs\nsrc/net/http.rs"
    );
    assert_eq!(
        ok(&env, "glob", r#"{"pattern":"src/*"}"#),
        "src/main.rs\nsrc/net/"
    );
    assert_eq!(
        ok(&env, "glob", r#"{"pattern":"tests/t_[0-9].py"}"#),
        "tests/t_1.py\ntests/t_2.py"
    );
    assert_eq!(
        ok(&env, "glob", r#"{"pattern":"tests/t_?.py"}"#),
        "tests/t_1.py\ntests/t_2.py"
    );
    // A bare name with no match at the root is retried as **/<name>.
    assert_eq!(ok(&env, "glob", r#"{"pattern":"main.rs"}"#), "src/main.rs");
    assert_eq!(
        ok(&env, "glob", r#"{"pattern":"**/Cargo.toml"}"#),
        "Cargo.toml\ncrates/a/Cargo.toml"
    );
    assert_eq!(
        ok(&env, "glob", r#"{"pattern":"HEAD"}"#),
        "(no paths match \"HEAD\")"
    );

    let err = fails(&env, "glob", r#"{"pattern":"src/[z-"}"#);
    assert!(err.contains("invalid input"), "{err}");
    assert!(err.contains("invalid pattern \"src/[z-\""), "{err}");
    for pattern in ["/etc/*", "../*"] {
        let err = fails(&env, "glob", &format!(r#"{{"pattern":"{pattern}"}}"#));
        assert!(err.contains("workspace"), "{pattern}: {err}");
    }
}

#[test]
fn glob_caps_at_1000_results() {
    let env = Env::new();
    let dir = env.workspace().join("gen");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..1100 {
        std::fs::write(dir.join(format!("f{i:04}.txt")), b"").unwrap();
    }
    let out = ok(&env, "glob", r#"{"pattern":"gen/*.txt"}"#);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1001);
    assert_eq!(lines[0], "gen/f0000.txt");
    assert_eq!(lines[999], "gen/f0999.txt");
    assert_eq!(lines[1000], "... (truncated at 1000 results)");
}

#[test]
fn forbid_read_hides_paths_from_every_reader() {
    let env = Env::new();
    let ws = env.workspace();
    put(&ws, "secret/token.txt", b"TOKEN hunter2\n");
    put(&ws, "secret/deeper/more.txt", b"TOKEN again\n");
    put(&ws, "open/readme.txt", b"TOKEN is public here\n");
    // A relative link, which the sandbox would follow; an absolute one it refuses anyway.
    std::os::unix::fs::symlink("../secret/token.txt", ws.join("open/alias.txt")).unwrap();
    std::os::unix::fs::symlink(ws.join("secret"), ws.join("abs_link")).unwrap();
    env.project_config("[sandbox]\nforbid_read = [\"secret\"]\n");

    // read_file: as if the file did not exist, also through a symlink.
    let err = fails(&env, "read_file", r#"{"path":"secret/token.txt"}"#);
    assert!(err.contains("no such file: secret/token.txt"), "{err}");
    let err = fails(&env, "read_file", r#"{"path":"open/alias.txt"}"#);
    assert!(err.contains("no such file: open/alias.txt"), "{err}");
    let err = fails(&env, "read_file", r#"{"path":"abs_link/token.txt"}"#);
    assert!(!err.contains("hunter2"), "{err}");
    assert!(ok(&env, "read_file", r#"{"path":"open/readme.txt"}"#).contains("TOKEN is public"));

    // ls: the forbidden directory is neither listed nor listable.
    let listed = ok(&env, "ls", r#"{"recursive":true}"#);
    assert_eq!(
        listed,
        "abs_link\t(symlink leaving the workspace)\nopen/\nopen/readme.txt\t21"
    );
    let err = fails(&env, "ls", r#"{"path":"secret"}"#);
    assert!(err.contains("no such file: secret"), "{err}");

    // grep: skipped silently by the walk, not found when named.
    assert_eq!(
        ok(&env, "grep", r#"{"pattern":"TOKEN"}"#),
        "open/readme.txt:1:TOKEN is public here"
    );
    let err = fails(&env, "grep", r#"{"pattern":"TOKEN","path":"secret"}"#);
    assert!(err.contains("no such file: secret"), "{err}");

    // glob: never reported, nor are links into it.
    assert_eq!(
        ok(&env, "glob", r#"{"pattern":"**/*.txt"}"#),
        "open/readme.txt"
    );
    assert_eq!(
        ok(&env, "glob", r#"{"pattern":"secret/**"}"#),
        "(no paths match \"secret/**\")"
    );
    assert_eq!(
        ok(&env, "glob", r#"{"pattern":"token.txt"}"#),
        "(no paths match \"token.txt\")"
    );

    // write_file may neither overwrite nor create inside a forbidden root.
    let err = fails(
        &env,
        "write_file",
        r#"{"path":"secret/token.txt","content":"x"}"#,
    );
    assert!(err.contains("forbid_read"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
    let err = fails(
        &env,
        "write_file",
        r#"{"path":"secret/new.txt","content":"x"}"#,
    );
    assert!(err.contains("forbid_read"), "{err}");
    assert_eq!(
        std::fs::read(ws.join("secret/token.txt")).unwrap(),
        b"TOKEN hunter2\n"
    );
    assert!(!ws.join("secret/new.txt").exists());

    // Without the policy every reader sees the files again.
    env.project_config("");
    assert!(ok(&env, "read_file", r#"{"path":"secret/token.txt"}"#).contains("hunter2"));
    assert!(ok(&env, "grep", r#"{"pattern":"hunter2"}"#).contains("secret/token.txt:1:"));
    assert!(ok(&env, "glob", r#"{"pattern":"token.txt"}"#).contains("secret/token.txt"));
}
