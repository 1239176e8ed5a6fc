//! The file-editing tools (`edit_file`, `multi_edit`, `move_file`, `delete_range`,
//! `notebook_edit`) through the real `fs-write` component: via the `reasonix` binary, and
//! in-process through the registry to check that `preview` describes exactly what `invoke`
//! then writes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use crate::BUILTINS;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use reasonix_config::{Config, Paths};
use reasonix_core::types::{ChangeKind, ToolContext};
use reasonix_host::Registry;
use serde_json::{Value, json};
use support::{Env, stderr, stdout};

const EDITORS: [&str; 5] = [
    "edit_file",
    "multi_edit",
    "move_file",
    "delete_range",
    "notebook_edit",
];

/// A fresh [`Env`] whose compiled-artifact cache is pre-filled, so each test does not compile
/// every built-in again (the cold start is what `cli.rs` measures, not this file).
fn new_env() -> Env {
    static WARM: OnceLock<PathBuf> = OnceLock::new();
    let warm = WARM.get_or_init(|| {
        let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("edit_tools-home");
        let _ = fs::remove_dir_all(&home);
        fs::create_dir_all(home.join("plugins")).unwrap();
        // Run beside the home, not in it: a cache inside the current workspace is not used.
        let cwd = Path::new(env!("CARGO_TARGET_TMPDIR")).join("edit_tools-cwd");
        fs::create_dir_all(&cwd).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_reasonix"))
            .args(["tools", "list"])
            .current_dir(&cwd)
            .env("REASONIX_HOME", &home)
            .env_remove("REASONIX_CACHE_HOME")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        home.join("cache")
    });
    let env = Env::new();
    let cache = env.home().join("cache");
    fs::create_dir_all(&cache).unwrap();
    for entry in fs::read_dir(warm).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), cache.join(entry.file_name())).unwrap();
    }
    env
}

fn put(env: &Env, name: &str, bytes: &[u8]) {
    let path = env.workspace().join(name);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn get(env: &Env, name: &str) -> Vec<u8> {
    fs::read(env.workspace().join(name)).unwrap()
}

/// `reasonix tools call`, expecting success; returns stdout without the final newline.
fn ok(env: &Env, tool: &str, args: Value) -> String {
    let out = env.call(tool, &args.to_string());
    assert!(
        out.status.success(),
        "{tool} {args} failed: {}",
        stderr(&out)
    );
    stdout(&out).trim_end_matches('\n').to_string()
}

/// `reasonix tools call`, expecting a tool error (exit code 1); returns stderr.
fn fails(env: &Env, tool: &str, args: Value) -> String {
    let out = env.call(tool, &args.to_string());
    assert_eq!(
        out.status.code(),
        Some(1),
        "{tool} {args}: stdout {} stderr {}",
        stdout(&out),
        stderr(&out)
    );
    stderr(&out)
}

fn registry(env: &Env) -> Registry {
    let config = Config::parse(&env.project().join("reasonix.toml"), "").unwrap();
    let paths = Paths {
        home: env.home(),
        cache: env.home().join("cache"),
        state: env.home(),
    };
    Registry::load(BUILTINS, &paths, &config.registry_settings(), None).unwrap()
}

fn ctx(env: &Env) -> ToolContext {
    ToolContext {
        call_id: "e2e-1".into(),
        workspace: env.workspace(),
        may_write_protected: false,
        approved_local: None,
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    }
}

#[test]
fn the_editors_are_listed_as_writers_served_by_fs_write() {
    let env = new_env();
    let out = env.reasonix(&["tools", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tools: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    for name in EDITORS {
        let tool = tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} not listed"));
        assert_eq!(tool["read_only"], false, "{name}");
        assert_eq!(tool["parameters"]["additionalProperties"], false, "{name}");
    }
}

#[test]
fn edit_file_replaces_one_unique_occurrence() {
    let env = new_env();
    put(&env, "src/lib.rs", b"fn a() -> u32 {\n    1\n}\n");
    let out = ok(
        &env,
        "edit_file",
        json!({"path": "src/lib.rs", "old_string": "    1\n", "new_string": "    2\n"}),
    );
    assert_eq!(out, "edited src/lib.rs");
    assert_eq!(get(&env, "src/lib.rs"), b"fn a() -> u32 {\n    2\n}\n");
}

/// The component writes existing files in place (over the old bytes, then cut to length): a
/// file that shrinks keeps nothing of its old tail, one that grows keeps all of the new text,
/// and an executable file stays executable.
#[test]
fn in_place_edits_shrink_and_grow_files_exactly_and_keep_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let env = new_env();
    let big = "x".repeat(70 * 1024);
    put(
        &env,
        "run.sh",
        format!(
            "#!/bin/sh
BEGIN{big}END
echo done
"
        )
        .as_bytes(),
    );
    let path = env.workspace().join("run.sh");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();

    ok(
        &env,
        "edit_file",
        json!({"path": "run.sh", "old_string": format!("BEGIN{big}END"), "new_string": "short"}),
    );
    assert_eq!(get(&env, "run.sh"), b"#!/bin/sh\nshort\necho done\n");

    let grown = "y".repeat(100 * 1024);
    ok(
        &env,
        "edit_file",
        json!({"path": "run.sh", "old_string": "short", "new_string": grown}),
    );
    assert_eq!(
        get(&env, "run.sh"),
        format!("#!/bin/sh\n{grown}\necho done\n").as_bytes()
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
}

#[test]
fn edit_file_with_zero_matches_is_diagnosed_and_changes_nothing() {
    let env = new_env();
    let original = b"def load(path):\n    return open(path).read()\n";
    put(&env, "m.py", original);
    let err = fails(
        &env,
        "edit_file",
        json!({"path": "m.py", "old_string": "def load(p):\n    return None", "new_string": "x"}),
    );
    assert!(err.contains("old_string not found in m.py"), "{err}");
    assert!(err.contains("closest text is at line 1"), "{err}");
    assert!(err.contains("1→def load(path):"), "{err}");
    assert!(err.contains("[no-match]"), "{err}");
    assert_eq!(get(&env, "m.py"), original);
}

#[test]
fn edit_file_with_two_matches_asks_for_context() {
    let env = new_env();
    let original = b"x = 1\nprint(x)\nx = 1\n";
    put(&env, "t.py", original);
    let err = fails(
        &env,
        "edit_file",
        json!({"path": "t.py", "old_string": "x = 1", "new_string": "x = 2"}),
    );
    assert!(err.contains("not unique in t.py"), "{err}");
    assert!(err.contains("2 places (lines 1, 3)"), "{err}");
    assert!(err.contains("more surrounding lines"), "{err}");
    assert!(err.contains("[not-unique]"), "{err}");
    assert_eq!(get(&env, "t.py"), original);
}

#[test]
fn edit_file_falls_back_to_a_whitespace_tolerant_match() {
    let env = new_env();
    put(
        &env,
        "f.go",
        b"func f() {\n\tif ok {   \n\t\treturn\n\t}\n}\n",
    );
    let out = ok(
        &env,
        "edit_file",
        json!({
            "path": "f.go",
            "old_string": "    if ok {\n        return\n    }",
            "new_string": "\tif !ok {\n\t\treturn\n\t}"
        }),
    );
    assert_eq!(out, "edited f.go (fuzzy match)");
    assert_eq!(
        get(&env, "f.go"),
        b"func f() {\n\tif !ok {\n\t\treturn\n\t}\n}\n"
    );
}

#[test]
fn a_crlf_file_keeps_crlf() {
    let env = new_env();
    put(&env, "w.txt", b"one\r\ntwo\r\nthree\r\nfour\r\n");
    // read_file shows LF; the model sends LF.
    ok(
        &env,
        "edit_file",
        json!({"path": "w.txt", "old_string": "one\ntwo\n", "new_string": "1\n2\n"}),
    );
    assert_eq!(get(&env, "w.txt"), b"1\r\n2\r\nthree\r\nfour\r\n");
    ok(
        &env,
        "multi_edit",
        json!({"path": "w.txt", "edits": [{"old_string": "three\nfour", "new_string": "3\n4"}]}),
    );
    assert_eq!(get(&env, "w.txt"), b"1\r\n2\r\n3\r\n4\r\n");
    let out = ok(
        &env,
        "delete_range",
        json!({"path": "w.txt", "start_anchor": "2", "end_anchor": "3"}),
    );
    assert!(
        out.starts_with("deleted lines 2-3 (2 lines) from w.txt\n"),
        "{out}"
    );
    assert_eq!(get(&env, "w.txt"), b"1\r\n4\r\n");
}

#[test]
fn multi_edit_applies_all_edits_in_order() {
    let env = new_env();
    put(&env, "c.rs", b"let a = 1;\nlet b = a;\nlet c = a;\n");
    let out = ok(
        &env,
        "multi_edit",
        json!({"path": "c.rs", "edits": [
            {"old_string": "a", "new_string": "alpha", "replace_all": true},
            {"old_string": "let b", "new_string": "let beta"},
        ]}),
    );
    assert_eq!(out, "edited c.rs: 2 edits applied (4 replacements)");
    assert_eq!(
        get(&env, "c.rs"),
        b"let alpha = 1;\nlet beta = alpha;\nlet c = alpha;\n"
    );
}

#[test]
fn multi_edit_failing_on_step_three_leaves_the_file_byte_identical() {
    let env = new_env();
    // CRLF, a BOM and non-ASCII: any rewrite would show in the bytes.
    let original = b"\xEF\xBB\xBFfirst\r\nsecond \xC3\xA9\r\nthird\r\n".to_vec();
    put(&env, "atomic.txt", &original);
    let err = fails(
        &env,
        "multi_edit",
        json!({"path": "atomic.txt", "edits": [
            {"old_string": "first", "new_string": "1st"},
            {"old_string": "second é\n", "new_string": "2nd\n"},
            {"old_string": "fourth", "new_string": "4th"},
        ]}),
    );
    assert!(
        err.contains("edit 3 of 3 failed, nothing was written: old_string not found in atomic.txt"),
        "{err}"
    );
    assert_eq!(get(&env, "atomic.txt"), original);
    // A non-unique step fails the same way.
    let err = fails(
        &env,
        "multi_edit",
        json!({"path": "atomic.txt", "edits": [
            {"old_string": "first", "new_string": "1st"},
            {"old_string": "d", "new_string": "D"},
        ]}),
    );
    assert!(
        err.contains("edit 2 of 2 failed") && err.contains("not unique"),
        "{err}"
    );
    assert_eq!(get(&env, "atomic.txt"), original);
}

#[test]
fn move_file_moves_and_never_overwrites() {
    let env = new_env();
    put(&env, "a.txt", b"A\n");
    put(&env, "b.txt", b"B\n");
    let err = fails(
        &env,
        "move_file",
        json!({"source_path": "a.txt", "destination_path": "b.txt"}),
    );
    assert!(err.contains("destination b.txt already exists"), "{err}");
    assert!(err.contains("[exists]"), "{err}");
    assert_eq!(get(&env, "a.txt"), b"A\n");
    assert_eq!(get(&env, "b.txt"), b"B\n");

    let out = ok(
        &env,
        "move_file",
        json!({"source_path": "a.txt", "destination_path": "new/dir/a.txt"}),
    );
    assert_eq!(out, "moved a.txt to new/dir/a.txt");
    assert!(!env.workspace().join("a.txt").exists());
    assert_eq!(get(&env, "new/dir/a.txt"), b"A\n");

    fs::create_dir(env.workspace().join("folder")).unwrap();
    let err = fails(
        &env,
        "move_file",
        json!({"source_path": "folder", "destination_path": "folder2"}),
    );
    assert!(err.contains("is a directory"), "{err}");
}

#[test]
fn paths_outside_the_workspace_are_refused() {
    let env = new_env();
    put(&env, "in.txt", b"inside\n");
    let outside = env.root.path().join("outside.txt");
    fs::write(&outside, b"outside\n").unwrap();
    let outside_str = outside.to_str().unwrap();
    let cases = [
        (
            "edit_file",
            json!({"path": "../outside.txt", "old_string": "outside", "new_string": "pwned"}),
        ),
        (
            "edit_file",
            json!({"path": outside_str, "old_string": "outside", "new_string": "pwned"}),
        ),
        (
            "multi_edit",
            json!({"path": "../outside.txt", "edits": [{"old_string": "outside", "new_string": "x"}]}),
        ),
        (
            "move_file",
            json!({"source_path": "in.txt", "destination_path": "../moved.txt"}),
        ),
        (
            "move_file",
            json!({"source_path": outside_str, "destination_path": "stolen.txt"}),
        ),
        (
            "delete_range",
            json!({"path": outside_str, "start_anchor": "outside", "end_anchor": "outside"}),
        ),
        (
            "notebook_edit",
            json!({"path": "../../x.ipynb", "new_source": "x"}),
        ),
    ];
    for (tool, args) in cases {
        let err = fails(&env, tool, args.clone());
        assert!(
            err.contains("denied") && err.contains("outside the workspace"),
            "{tool} {args}: {err}"
        );
    }
    assert_eq!(fs::read(&outside).unwrap(), b"outside\n");
    assert_eq!(get(&env, "in.txt"), b"inside\n");
    assert!(!env.root.path().join("moved.txt").exists());
    assert!(!env.workspace().join("stolen.txt").exists());
}

#[cfg(unix)]
#[test]
fn a_symlink_leaving_the_workspace_is_refused_by_the_sandbox() {
    let env = new_env();
    let outside = env.root.path().join("secret.txt");
    fs::write(&outside, b"secret\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.workspace().join("link.txt")).unwrap();
    let err = fails(
        &env,
        "edit_file",
        json!({"path": "link.txt", "old_string": "secret", "new_string": "pwned"}),
    );
    assert!(err.contains("denied"), "{err}");
    assert_eq!(fs::read(&outside).unwrap(), b"secret\n");
}

#[test]
fn binary_and_non_utf8_files() {
    let env = new_env();
    let binary = b"\x7FELF\x02\x01\x01\0\0\0\0\0marker\0\0".to_vec();
    put(&env, "prog.bin", &binary);
    let err = fails(
        &env,
        "edit_file",
        json!({"path": "prog.bin", "old_string": "marker", "new_string": "MARKER"}),
    );
    assert!(err.contains("binary file"), "{err}");
    assert_eq!(get(&env, "prog.bin"), binary);
    // Moving a binary file keeps its bytes.
    ok(
        &env,
        "move_file",
        json!({"source_path": "prog.bin", "destination_path": "bin/prog.bin"}),
    );
    assert_eq!(get(&env, "bin/prog.bin"), binary);

    // GB18030 stays GB18030; UTF-16 with BOM stays UTF-16 with BOM.
    // "第一行\n第二行\n" and "第一行\n第三行\n" in GB18030.
    let gb = b"\xB5\xDA\xD2\xBB\xD0\xD0\x0A\xB5\xDA\xB6\xFE\xD0\xD0\x0A";
    let want = b"\xB5\xDA\xD2\xBB\xD0\xD0\x0A\xB5\xDA\xC8\xFD\xD0\xD0\x0A";
    put(&env, "gb.txt", gb);
    ok(
        &env,
        "edit_file",
        json!({"path": "gb.txt", "old_string": "第二行", "new_string": "第三行"}),
    );
    assert_eq!(get(&env, "gb.txt"), want);

    let utf16 = |s: &str| {
        let mut out = vec![0xFF, 0xFE];
        for unit in s.encode_utf16() {
            out.extend_from_slice(&unit.to_le_bytes());
        }
        out
    };
    put(&env, "u16.txt", &utf16("alpha\r\nbeta\r\ngamma\r\n"));
    ok(
        &env,
        "delete_range",
        json!({"path": "u16.txt", "start_anchor": "beta", "end_anchor": "beta"}),
    );
    assert_eq!(get(&env, "u16.txt"), utf16("alpha\r\ngamma\r\n"));

    // Bytes that decode in no supported encoding would be altered: refused.
    let broken = b"valid start \xFF\xFE\xFD end\n".to_vec();
    put(&env, "broken.txt", &broken);
    let err = fails(
        &env,
        "edit_file",
        json!({"path": "broken.txt", "old_string": "start", "new_string": "x"}),
    );
    assert!(err.contains("cannot be decoded"), "{err}");
    assert_eq!(get(&env, "broken.txt"), broken);
}

#[test]
fn delete_range_returns_a_unified_diff() {
    let env = new_env();
    put(&env, "d.txt", b"a\nb\nstart\nx\ny\nend\nc\n");
    let out = ok(
        &env,
        "delete_range",
        json!({"path": "d.txt", "start_anchor": "start", "end_anchor": "end", "inclusive": false}),
    );
    assert_eq!(
        out,
        "deleted lines 4-5 (2 lines) from d.txt\n--- a/d.txt\n+++ b/d.txt\n@@ -1,7 +1,5 @@\n \
         a\n b\n start\n-x\n-y\n end\n c"
    );
    assert_eq!(get(&env, "d.txt"), b"a\nb\nstart\nend\nc\n");
    let err = fails(
        &env,
        "delete_range",
        json!({"path": "d.txt", "start_anchor": "end", "end_anchor": "start"}),
    );
    assert!(err.contains("comes after"), "{err}");
}

#[test]
fn notebook_edit_keeps_the_notebook_valid_and_clears_outputs() {
    let env = new_env();
    let nb = json!({
        "cells": [
            {"cell_type": "code", "execution_count": 7, "id": "a1", "metadata": {},
             "outputs": [{"name": "stdout", "output_type": "stream", "text": ["42\n"]}],
             "source": ["print(42)"]},
            {"cell_type": "markdown", "id": "b2", "metadata": {}, "source": ["# Notes"]}
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5
    });
    put(&env, "n.ipynb", nb.to_string().as_bytes());
    let out = ok(
        &env,
        "notebook_edit",
        json!({"path": "n.ipynb", "cell_id": "a1", "new_source": "print(43)\nprint(44)"}),
    );
    assert_eq!(out, "replaced cell 0 of n.ipynb (code; outputs cleared)");
    let after: Value = serde_json::from_slice(&get(&env, "n.ipynb")).unwrap();
    assert_eq!(
        after["cells"][0]["source"],
        json!(["print(43)\n", "print(44)"])
    );
    assert_eq!(after["cells"][0]["outputs"], json!([]));
    assert_eq!(after["cells"][0]["execution_count"], Value::Null);
    assert_eq!(after["cells"][1], nb["cells"][1]);
    assert_eq!(after["metadata"], nb["metadata"]);

    let out = ok(
        &env,
        "notebook_edit",
        json!({"path": "n.ipynb", "edit_mode": "insert", "cell_number": 1, "cell_type": "code", "new_source": "x = 1"}),
    );
    assert_eq!(out, "inserted code cell 2 in n.ipynb (3 cells now)");
    let out = ok(
        &env,
        "notebook_edit",
        json!({"path": "n.ipynb", "edit_mode": "delete", "cell_number": 1}),
    );
    assert_eq!(out, "deleted cell 1 from n.ipynb (2 cells left)");
    let after: Value = serde_json::from_slice(&get(&env, "n.ipynb")).unwrap();
    let cells = after["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    assert_eq!(cells[1]["source"], json!(["x = 1"]));
    assert!(cells[1]["id"].as_str().is_some_and(|id| !id.is_empty()));
}

#[test]
fn schema_mismatched_arguments_name_the_field() {
    let env = new_env();
    put(&env, "f.txt", b"abc\n");
    put(
        &env,
        "n.ipynb",
        br#"{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}"#,
    );
    let cases = [
        (
            "edit_file",
            json!({"path": "f.txt", "old_string": 5, "new_string": "x"}),
            "`old_string` must be a string",
        ),
        (
            "edit_file",
            json!({"path": "f.txt", "old_string": "a"}),
            "missing field `new_string`",
        ),
        (
            "edit_file",
            json!({"path": "f.txt", "old_string": "a", "new_string": "b", "replace_all": true}),
            "unknown field `replace_all`",
        ),
        (
            "multi_edit",
            json!({"path": "f.txt", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "b"}]}),
            "missing field `edits[1].new_string`",
        ),
        (
            "multi_edit",
            json!({"path": "f.txt", "edits": []}),
            "`edits` must have at least 1 item",
        ),
        (
            "move_file",
            json!({"source_path": "f.txt", "destination_path": false}),
            "`destination_path` must be a string, got a boolean",
        ),
        (
            "delete_range",
            json!({"path": "f.txt", "start_anchor": "abc", "end_anchor": "abc", "inclusive": 1}),
            "`inclusive` must be a boolean",
        ),
        (
            "notebook_edit",
            json!({"path": "n.ipynb", "edit_mode": "append", "new_source": "x"}),
            "`edit_mode` must be one of",
        ),
        (
            "notebook_edit",
            json!({"path": "n.ipynb", "cell_number": 1.5, "new_source": "x"}),
            "`cell_number` must be an integer, got a number",
        ),
    ];
    for (tool, args, want) in cases {
        let err = fails(&env, tool, args.clone());
        assert!(
            err.contains("invalid input") && err.contains(want),
            "{tool} {args}: {err}"
        );
    }
    assert_eq!(get(&env, "f.txt"), b"abc\n");
}

/// For each tool: `preview` through the component changes nothing, and describes exactly what
/// `invoke` then writes.
#[test]
fn preview_agrees_with_invoke_through_the_component() {
    let env = new_env();
    let registry = registry(&env);
    let cx = ctx(&env);
    let ws = env.workspace();
    put(&env, "e.txt", b"one\r\ntwo\r\nthree\r\n");
    put(&env, "d.txt", b"a\nb\nc\nd\n");
    put(
        &env,
        "n.ipynb",
        json!({"cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": ["1"]}],
               "metadata": {}, "nbformat": 4, "nbformat_minor": 4})
        .to_string()
        .as_bytes(),
    );
    let modify_cases = [
        (
            "edit_file",
            "e.txt",
            json!({"path": "e.txt", "old_string": "two\n", "new_string": "2\n"}),
        ),
        (
            "edit_file",
            "e.txt",
            json!({"path": "e.txt", "old_string": "three  ", "new_string": "3"}),
        ),
        (
            "multi_edit",
            "e.txt",
            json!({"path": "e.txt", "edits": [{"old_string": "one", "new_string": "1"}, {"old_string": "1\n2", "new_string": "12"}]}),
        ),
        (
            "delete_range",
            "d.txt",
            json!({"path": "d.txt", "start_anchor": "b", "end_anchor": "c"}),
        ),
        (
            "notebook_edit",
            "n.ipynb",
            json!({"path": "n.ipynb", "new_source": "2\n3"}),
        ),
    ];
    for (tool, file, args) in modify_cases {
        let t = registry.tool(tool).unwrap();
        let before = get(&env, file);
        let changes = t.preview(&args.to_string(), &cx).unwrap();
        assert_eq!(get(&env, file), before, "{tool}: preview wrote");
        t.invoke(&args.to_string(), &cx).unwrap();
        assert_eq!(changes.len(), 1, "{tool}");
        let change = &changes[0];
        assert_eq!(change.kind, ChangeKind::Modify, "{tool}");
        assert_eq!(Path::new(&change.path), ws.join(file), "{tool}");
        assert_eq!(
            change.old_text.as_deref().map(str::as_bytes),
            Some(before.as_slice()),
            "{tool}"
        );
        assert_eq!(
            change.new_text.as_deref().map(str::as_bytes),
            Some(get(&env, file).as_slice()),
            "{tool}"
        );
    }

    // move_file: a delete of the source and a create of the destination with the same text.
    let mv = registry.tool("move_file").unwrap();
    let args = json!({"source_path": "d.txt", "destination_path": "sub/d2.txt"}).to_string();
    let text = String::from_utf8(get(&env, "d.txt")).unwrap();
    let changes = mv.preview(&args, &cx).unwrap();
    assert!(env.workspace().join("d.txt").exists());
    assert_eq!(changes.len(), 2);
    assert_eq!(changes[0].kind, ChangeKind::Delete);
    assert_eq!(Path::new(&changes[0].path), ws.join("d.txt"));
    assert_eq!(changes[0].old_text.as_deref(), Some(text.as_str()));
    assert_eq!(changes[1].kind, ChangeKind::Create);
    assert_eq!(Path::new(&changes[1].path), ws.join("sub/d2.txt"));
    assert_eq!(changes[1].new_text.as_deref(), Some(text.as_str()));
    mv.invoke(&args, &cx).unwrap();
    assert_eq!(get(&env, "sub/d2.txt"), text.as_bytes());

    // Errors agree too: a failing preview means a failing invoke, and nothing changes.
    let bad = json!({"path": "e.txt", "old_string": "absent", "new_string": "x"}).to_string();
    let before = get(&env, "e.txt");
    let edit = registry.tool("edit_file").unwrap();
    let p = edit.preview(&bad, &cx).unwrap_err().to_string();
    let i = edit.invoke(&bad, &cx).unwrap_err().to_string();
    assert_eq!(p, i);
    assert_eq!(get(&env, "e.txt"), before);
}

#[test]
fn forbid_read_paths_are_as_absent_for_the_editors_as_for_the_readers() {
    let env = new_env();
    env.project_config("[sandbox]\nforbid_read = [\"secret\"]\n");
    put(&env, "secret/key.txt", b"token = abc\n");
    for (tool, args) in [
        (
            "edit_file",
            json!({"path": "secret/key.txt", "old_string": "abc", "new_string": "x"}),
        ),
        (
            "multi_edit",
            json!({"path": "secret/key.txt", "edits": [{"old_string": "abc", "new_string": "x"}]}),
        ),
        (
            "delete_range",
            json!({"path": "secret/key.txt", "start_anchor": "token = abc", "end_anchor": "token = abc"}),
        ),
        (
            "move_file",
            json!({"source_path": "secret/key.txt", "destination_path": "leak.txt"}),
        ),
    ] {
        let err = fails(&env, tool, args.clone());
        assert!(
            err.contains("not found: no such file: secret/key.txt"),
            "{tool} {args}: {err}"
        );
    }
    assert_eq!(get(&env, "secret/key.txt"), b"token = abc\n");
    assert!(!env.workspace().join("leak.txt").exists());
}

/// The built-in editors write the workspace's configuration files only in a call the user
/// explicitly allowed (`may_write_protected`): the host's filesystem guard holds even if a
/// call reached the editor another way (a link swapped after the permission check, a path the
/// policy did not recognise).
#[test]
fn editors_write_configuration_files_only_in_an_approved_call() {
    let env = new_env();
    let registry = registry(&env);
    let ws = env.workspace();
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    let cases = [
        (
            "write_file",
            json!({"path": "reasonix.toml", "content": "[sandbox]\nbash = \"off\"\n"}),
        ),
        (
            "write_file",
            json!({"path": ".claude/settings.json", "content": "{}"}),
        ),
        (
            "write_file",
            json!({"path": ".reasonix/commands/x.md", "content": "x"}),
        ),
        (
            "move_file",
            json!({"source_path": "staged.txt", "destination_path": ".mcp.json"}),
        ),
    ];
    for (tool, args) in &cases {
        std::fs::write(ws.join("staged.txt"), "{}").unwrap();
        let result = registry
            .tool(tool)
            .unwrap()
            .invoke(&args.to_string(), &ctx(&env));
        assert!(
            result.is_err(),
            "{tool} {args} wrote without approval: {result:?}"
        );
        for path in [
            "reasonix.toml",
            ".claude/settings.json",
            ".reasonix",
            ".mcp.json",
        ] {
            assert!(!ws.join(path).exists(), "{path} after {tool} {args}");
        }
    }
    let approved = ToolContext {
        may_write_protected: true,
        approved_local: None,
        cancel: Default::default(),
        ..ctx(&env)
    };
    for (tool, args) in &cases {
        std::fs::write(ws.join("staged.txt"), "{}").unwrap();
        let result = registry
            .tool(tool)
            .unwrap()
            .invoke(&args.to_string(), &approved);
        assert!(result.is_ok(), "{tool} {args}: {result:?}");
    }
    assert!(
        std::fs::read_to_string(ws.join("reasonix.toml"))
            .unwrap()
            .contains("bash")
    );
    assert!(ws.join(".mcp.json").is_file());
}
