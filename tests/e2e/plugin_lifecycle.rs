//! `reasonix plugin install|update|list|info|remove|enable|disable` through the binary: the
//! grant (asked, `--yes`, `--grant`), refusals that leave the plugins directory byte-identical,
//! clashes and `prefer`, and a tampered file refused at load while the others load.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;
use support::{Env, fixture, stderr, stdout};

fn fx(name: &str) -> String {
    fixture(name).display().to_string()
}

fn install(env: &Env, source: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["plugin", "install", source];
    args.extend_from_slice(extra);
    env.reasonix(&args)
}

fn ok(out: &std::process::Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        stdout(out),
        stderr(out)
    );
    stdout(out)
}

/// Every entry under the plugins directory with its bytes (directories as `<dir>`).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let bytes = if e.path().is_dir() {
            b"<dir>".to_vec()
        } else {
            std::fs::read(e.path()).unwrap()
        };
        out.insert(name, bytes);
    }
    out
}

fn list_json(env: &Env) -> serde_json::Value {
    let out = env.reasonix(&["plugin", "list", "--json"]);
    serde_json::from_str(&ok(&out)).unwrap()
}

fn plugin<'a>(list: &'a serde_json::Value, name: &str) -> Option<&'a serde_json::Value> {
    list["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
}

#[test]
fn install_with_yes_grants_what_is_requested_and_the_tool_works() {
    let env = Env::new();
    let out = install(&env, &fx("netprobe"), &["--yes"]);
    let text = ok(&out);
    assert!(text.contains("netprobe 0.1.0 installed"), "{text}");
    assert!(
        stderr(&out).contains("connect to *"),
        "the request is shown in words: {}",
        stderr(&out)
    );
    let installed = env.plugins_dir().join("netprobe.wasm");
    assert_eq!(
        std::fs::read(&installed).unwrap(),
        std::fs::read(fixture("netprobe")).unwrap()
    );
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.home().join("packages.json")).unwrap()).unwrap();
    let entry = &index["components"][0];
    assert_eq!(entry["name"], "netprobe");
    assert_eq!(entry["file"], "netprobe.wasm");
    assert_eq!(entry["enabled"], true);
    assert_eq!(entry["granted"]["network"][0], "*");
    assert_eq!(entry["source"], fx("netprobe"));

    // The tool runs with the grant: its request reaches the host's network policy, which
    // keeps `*` off this machine (ADR 0007), rather than "granted no network access".
    let authority = support::one_shot_server();
    let args = format!(r#"{{"authority":"{authority}","path":"/"}}"#);
    let out = env.call("http_get", &args);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("never through `*`"),
        "{}",
        stderr(&out)
    );

    let list = list_json(&env);
    let p = plugin(&list, "netprobe").unwrap();
    assert_eq!(p["capabilities"]["granted"]["network"][0], "*");
    assert_eq!(p["installed_from"], fx("netprobe"));
    assert_eq!(p["enabled"], true);
}

#[test]
fn grant_subset_withholds_the_rest_and_calls_fail_clearly() {
    let env = Env::new();
    // netprobe asks for the network; granting only workspace=read leaves it none.
    let out = install(&env, &fx("netprobe"), &["--grant", "workspace=read"]);
    ok(&out);
    assert!(
        stderr(&out).contains("not granted: connect to *"),
        "{}",
        stderr(&out)
    );
    let out = env.call("http_get", r#"{"authority":"127.0.0.1:9","path":"/"}"#);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("HttpRequestDenied") && err.contains("granted no network access"),
        "{err}"
    );

    // scribe asks for read-write; a read grant makes its write fail and nothing is written.
    let out = install(&env, &fx("scribe"), &["--grant", "workspace=read"]);
    assert!(
        ok(&out).contains("granted: workspace:read"),
        "{}",
        stdout(&out)
    );
    let out = env.call("scribe_write", r#"{"text":"x"}"#);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("cannot write") && err.contains("note.txt"),
        "{err}"
    );
    assert!(!env.workspace().join("note.txt").exists());

    // The same call succeeds once read-write is granted: the refusal was the grant's doing.
    let out = env.reasonix(&[
        "plugin",
        "update",
        "scribe",
        "--grant",
        "workspace=read-write",
    ]);
    assert!(ok(&out).contains("granted: workspace:read-write"));
    let out = env.call("scribe_write", r#"{"text":"hi"}"#);
    ok(&out);
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("note.txt")).unwrap(),
        "hi"
    );

    // A malformed --grant is a usage error that names the value.
    let out = install(&env, &fx("netprobe"), &["--grant", "disk=all"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("disk=all"), "{}", stderr(&out));
}

#[test]
fn non_interactive_install_without_a_grant_exits_2_and_says_how() {
    let env = Env::new();
    let before = snapshot(&env.plugins_dir());
    let out = install(&env, &fx("netprobe"), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("--yes") && err.contains("--grant") && err.contains("not a terminal"),
        "{err}"
    );
    assert_eq!(snapshot(&env.plugins_dir()), before);
}

#[test]
fn bad_components_are_refused_with_their_reason_and_nothing_changes() {
    let env = Env::new();
    ok(&install(&env, &fx("netprobe"), &["--yes"]));
    let scratch = env.root.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = scratch.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let text = write("notes.wasm", b"hello, not wasm at all");
    let core = write("core.wasm", b"\0asm\x01\0\0\0");
    let truncated = write("short.wasm", b"\0as");
    // A failure at the last step: the target file name is taken by a directory.
    std::fs::create_dir_all(env.plugins_dir().join("scribe.wasm")).unwrap();

    let before = snapshot(&env.plugins_dir());
    let wrong_sha = "0".repeat(64);
    let netprobe = fx("netprobe");
    let future = fx("future");
    let shadow = fx("shadow");
    let scribe = fx("scribe");
    let cases: Vec<(&str, Vec<&str>, &[&str])> = vec![
        (
            "non-wasm",
            vec![text.as_str(), "--yes"],
            &["notes.wasm", "not a WebAssembly file"],
        ),
        (
            "core module",
            vec![core.as_str(), "--yes"],
            &["core.wasm", "core WebAssembly module"],
        ),
        (
            "truncated",
            vec![truncated.as_str(), "--yes"],
            &["short.wasm", "truncated"],
        ),
        (
            "wrong sha256",
            vec![netprobe.as_str(), "--yes", "--sha256", wrong_sha.as_str()],
            &["sha256 mismatch", "expected 0000", "got "],
        ),
        (
            "unsupported WIT",
            vec![future.as_str(), "--yes"],
            &["9.0.0", "supports reasonix:plugin@0.2.0"],
        ),
        (
            "clash with a built-in tool",
            vec![shadow.as_str(), "--yes"],
            &[
                "tool `todo_write`",
                "built-in component `todo`",
                "prefer = true",
            ],
        ),
        (
            "target taken",
            vec![scribe.as_str(), "--yes"],
            &["scribe.wasm"],
        ),
    ];
    for (what, args, needles) in cases {
        let mut full = vec!["plugin", "install"];
        full.extend(args);
        let out = env.reasonix(&full);
        assert_ne!(out.status.code(), Some(0), "{what}: {}", stdout(&out));
        let err = stderr(&out);
        for n in needles {
            assert!(err.contains(n), "{what}: `{n}` missing from: {err}");
        }
        assert_eq!(
            snapshot(&env.plugins_dir()),
            before,
            "{what}: the plugins directory changed"
        );
    }
    // The plugin installed before still works.
    assert!(plugin(&list_json(&env), "netprobe").is_some());
}

/// Like `Env::reasonix`, with this test's own artifact cache (`<home>/cache`), so checks on
/// the cache are not disturbed by other tests.
fn own(env: &Env, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_reasonix"))
        .args(args)
        .current_dir(env.project())
        .env("REASONIX_HOME", env.home())
        .env("REASONIX_CACHE_HOME", env.home().join("cache"))
        .env_remove("REASONIX_LOG")
        .output()
        .unwrap()
}

fn own_list(env: &Env) -> serde_json::Value {
    serde_json::from_str(&ok(&own(env, &["plugin", "list", "--json"]))).unwrap()
}

#[test]
fn list_info_disable_enable_remove_round_trip() {
    let env = Env::new();
    let workspace = env.workspace();
    let ws = workspace.to_str().unwrap();
    ok(&own(&env, &["plugin", "install", &fx("scribe"), "--yes"]));
    let sha = {
        let list = own_list(&env);
        plugin(&list, "scribe").unwrap()["sha256"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let text = ok(&own(&env, &["plugin", "list"]));
    assert!(
        text.contains("scribe 0.1.0") && text.contains(&sha[..12]),
        "{text}"
    );

    let info: serde_json::Value =
        serde_json::from_str(&ok(&own(&env, &["plugin", "info", "scribe", "--json"]))).unwrap();
    assert_eq!(info["loaded"], true);
    assert_eq!(info["plugin"]["tools"][0], "scribe_write");
    assert_eq!(info["plugin"]["limits"]["memory_mib"], 256);
    assert_eq!(info["index"]["sha256"], sha.as_str());
    assert_eq!(info["index"]["granted"]["workspace"], "read-write");
    let text = ok(&own(&env, &["plugin", "info", "scribe"]));
    assert!(
        text.contains("tool scribe_write") && text.contains(&sha),
        "{text}"
    );

    ok(&own(&env, &["plugin", "disable", "scribe"]));
    let list = own_list(&env);
    assert!(
        plugin(&list, "scribe").is_none(),
        "a disabled plugin is not loaded"
    );
    assert_eq!(list["disabled"][0]["name"], "scribe");
    let out = own(&env, &["tools", "call", "scribe_write", "{}", "--dir", ws]);
    assert_ne!(out.status.code(), Some(0));
    let text = ok(&own(&env, &["plugin", "list"]));
    assert!(text.contains("scribe 0.1.0 (disabled"), "{text}");
    // Updating a disabled plugin keeps it disabled (and keeps its grant).
    let text = ok(&own(&env, &["plugin", "update", "scribe"]));
    assert!(
        text.contains("disabled: it is not loaded") && text.contains("workspace:read-write"),
        "{text}"
    );
    assert!(plugin(&own_list(&env), "scribe").is_none());

    ok(&own(&env, &["plugin", "enable", "scribe"]));
    assert!(plugin(&own_list(&env), "scribe").is_some());
    ok(&own(
        &env,
        &["tools", "call", "scribe_write", "{}", "--dir", ws],
    ));

    // Its compiled artifact is in the cache until it is removed.
    let cache = env.home().join("cache");
    let artifacts = |dir: &Path| -> usize {
        std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.file_name().to_string_lossy().starts_with(&sha))
                    .count()
            })
            .unwrap_or(0)
    };
    assert!(artifacts(&cache) >= 1, "installing precompiled it");

    let out = ok(&own(&env, &["plugin", "remove", "scribe"]));
    assert!(out.contains("removed scribe 0.1.0"), "{out}");
    assert!(!env.plugins_dir().join("scribe.wasm").exists());
    let index = std::fs::read_to_string(env.home().join("packages.json")).unwrap();
    assert!(!index.contains("scribe"), "{index}");
    assert_eq!(artifacts(&cache), 0, "its compiled artifacts are gone");
    assert!(plugin(&own_list(&env), "scribe").is_none());

    let out = own(&env, &["plugin", "remove", "scribe"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no installed plugin is named `scribe`"));

    let out = own(&env, &["plugin", "remove", "todo"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("built-in") && err.contains("[plugin.todo] enabled = false"),
        "{err}"
    );
    let out = own(&env, &["plugin", "disable", "todo"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("[plugin.todo] enabled = false"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn update_asks_again_only_when_the_request_grows_beyond_the_grant() {
    let env = Env::new();
    // Granted nothing of what it requests (network *).
    ok(&install(
        &env,
        &fx("netprobe"),
        &["--grant", "workspace=read"],
    ));
    let before = snapshot(&env.plugins_dir());
    let out = env.reasonix(&["plugin", "update", "netprobe"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("now asks for more than it was granted") && err.contains("--yes"),
        "{err}"
    );
    assert_eq!(snapshot(&env.plugins_dir()), before);

    let out = env.reasonix(&["plugin", "update", "netprobe", "--yes"]);
    assert!(ok(&out).contains("granted: network:*"), "{}", stdout(&out));

    // Nothing new requested: the grant is kept without asking.
    let out = env.reasonix(&["plugin", "update", "netprobe"]);
    assert!(ok(&out).contains("granted: network:*"));
    assert!(stderr(&out).contains("keeping the current grant"));

    // Updating something not installed, or from a component of another name, is refused.
    let out = env.reasonix(&["plugin", "update", "scribe"]);
    assert_eq!(out.status.code(), Some(2));
    let out = env.reasonix(&["plugin", "update", "netprobe", &fx("scribe"), "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is plugin `scribe`, not `netprobe`"));
}

#[test]
fn prefer_lets_a_plugin_replace_a_built_in_tool() {
    let env = Env::new();
    let out = install(&env, &fx("shadow"), &["--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("built-in component `todo`"));

    env.project_config("[plugin.shadow]\nprefer = true\n");
    ok(&install(&env, &fx("shadow"), &["--yes"]));
    let out = env.call("todo_write", "{}");
    assert_eq!(ok(&out).trim_end(), "shadowed");
    assert!(
        stderr(&out).contains("tool `todo_write` of plugin `todo`")
            && stderr(&out).contains("replaced by plugin `shadow`"),
        "{}",
        stderr(&out)
    );

    // Without `prefer` the installed plugin is refused at load, naming both; the built-in serves.
    env.project_config("");
    let list = list_json(&env);
    assert!(plugin(&list, "shadow").is_none());
    let problems = list["problems"].to_string();
    assert!(
        problems.contains("todo_write") && problems.contains("shadow"),
        "{problems}"
    );
}

#[test]
fn a_tampered_file_is_refused_at_load_and_the_others_load() {
    let env = Env::new();
    ok(&install(&env, &fx("netprobe"), &["--yes"]));
    ok(&install(&env, &fx("scribe"), &["--yes"]));
    let path = env.plugins_dir().join("netprobe.wasm");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.push(0);
    std::fs::write(&path, bytes).unwrap();

    let list = list_json(&env);
    assert!(plugin(&list, "netprobe").is_none());
    assert!(plugin(&list, "scribe").is_some());
    let problems = list["problems"].to_string();
    assert!(
        problems.contains("netprobe.wasm") && problems.contains("does not match the index"),
        "{problems}"
    );
}

#[test]
fn a_directory_with_one_component_is_installed_and_says_which() {
    let env = Env::new();
    let dir = env.root.path().join("dist");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixture("scribe"), dir.join("scribe.wasm")).unwrap();
    let out = install(&env, dir.to_str().unwrap(), &["--yes"]);
    ok(&out);
    assert!(stderr(&out).contains("using "), "{}", stderr(&out));
    assert!(env.plugins_dir().join("scribe.wasm").is_file());

    std::fs::copy(fixture("netprobe"), dir.join("netprobe.wasm")).unwrap();
    let out = install(&env, dir.to_str().unwrap(), &["--yes"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("2 .wasm files"), "{}", stderr(&out));
}

#[test]
fn a_crate_directory_is_built_and_its_cdylib_installed() {
    let env = Env::new();
    // A target directory of its own: the crate built alone is not byte-identical to the
    // fixture the workspace build made (another feature set of its dependencies), and
    // rebuilding it in the shared fixtures directory would change `scribe.wasm` under the
    // tests that install it at the same time.
    let fixtures_target = support::target_dir().join("fixtures-crate-install");
    let built = fixtures_target.join("wasm32-wasip2/release/scribe.wasm");
    let crate_dir = support::repo_root().join("tests/fixtures/scribe");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_reasonix"));
    command
        .args(["plugin", "install", crate_dir.to_str().unwrap(), "--yes"])
        .current_dir(env.project())
        .env("REASONIX_HOME", env.home())
        .env("REASONIX_CACHE_HOME", support::shared_artifact_cache())
        .env("CARGO_TARGET_DIR", &fixtures_target);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if (key.starts_with("CARGO_") && key != "CARGO_HOME" && key != "CARGO_TARGET_DIR")
            || key.starts_with("RUSTC")
            || key == "RUSTFLAGS"
        {
            command.env_remove(key);
        }
    }
    let out = command.output().unwrap();
    let text = ok(&out);
    assert!(text.contains("scribe 0.1.0 installed"), "{text}");
    let err = stderr(&out);
    assert!(
        err.contains("built the crate; using") && err.contains("scribe.wasm"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(env.plugins_dir().join("scribe.wasm")).unwrap(),
        std::fs::read(&built).unwrap()
    );
    let index = std::fs::read_to_string(env.home().join("packages.json")).unwrap();
    assert!(index.contains("tests/fixtures/scribe"), "{index}");
}

/// A loopback HTTP server: `/c.wasm` serves `bytes`, `/moved` redirects to it, anything else
/// is 404. Returns its base URL.
fn component_server(bytes: Vec<u8>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]).into_owned();
            let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
            let head = |status: &str, extra: &str, len: usize| {
                format!(
                    "HTTP/1.1 {status}\r\n{extra}Content-Length: {len}\r\nConnection: close\r\n\r\n"
                )
            };
            let _ = match path.as_str() {
                "/c.wasm" => stream
                    .write_all(head("200 OK", "", bytes.len()).as_bytes())
                    .and_then(|()| stream.write_all(&bytes)),
                "/moved" => {
                    stream.write_all(head("302 Found", "Location: /c.wasm\r\n", 0).as_bytes())
                }
                _ => stream.write_all(head("404 Not Found", "", 0).as_bytes()),
            };
        }
    });
    base
}

#[test]
fn a_url_is_downloaded_checked_against_sha256_and_installed() {
    let env = Env::new();
    let bytes = std::fs::read(fixture("netprobe")).unwrap();
    let sha = reasonix_host::cache::sha256_hex(&bytes);
    let base = component_server(bytes.clone());
    let before = snapshot(&env.plugins_dir());

    let missing = format!("{base}/nothing.wasm");
    let out = install(&env, &missing, &["--yes"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("HTTP 404"), "{}", stderr(&out));
    let url = format!("{base}/moved");
    let out = install(&env, &url, &["--yes", "--sha256", &"1".repeat(64)]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("sha256 mismatch"), "{}", stderr(&out));
    let out = install(&env, "http://example.com/c.wasm", &["--yes"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("plain http is refused"),
        "{}",
        stderr(&out)
    );
    assert_eq!(snapshot(&env.plugins_dir()), before);

    let out = install(&env, &url, &["--yes", "--sha256", &sha]);
    ok(&out);
    assert_eq!(
        std::fs::read(env.plugins_dir().join("netprobe.wasm")).unwrap(),
        bytes
    );
    let index = std::fs::read_to_string(env.home().join("packages.json")).unwrap();
    assert!(
        index.contains(&url),
        "the URL is the recorded source: {index}"
    );
}

/// Run `reasonix <args>` on a pseudo-terminal (util-linux `script`) with `answer` typed in.
#[cfg(target_os = "linux")]
fn on_tty(env: &Env, args: &str, answer: &str) -> std::process::Output {
    let command = format!("{} {args}", env!("CARGO_BIN_EXE_reasonix"));
    let mut child = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(env.project())
        .env("REASONIX_HOME", env.home())
        .env("REASONIX_CACHE_HOME", support::shared_artifact_cache())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("util-linux `script` runs the command on a terminal");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answer.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn on_a_terminal_the_grant_is_asked_for() {
    let env = Env::new();
    // `script` merges the command's stdout and stderr into its own stdout.
    let out = on_tty(&env, &format!("plugin install {}", fx("scribe")), "n\n");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("read and write files in the workspace")
            && text.contains("Grant these? [y/N]")
            && text.contains("not granted"),
        "{text}"
    );
    assert!(!env.plugins_dir().join("scribe.wasm").exists());

    let out = on_tty(&env, &format!("plugin install {}", fx("scribe")), "y\n");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("granted: workspace:read-write"), "{text}");
}

/// Installing other bytes under a plugin's name (an update, a rebuilt component) takes the
/// replaced component's compiled artifacts out of the cache: nothing loads them any more, and
/// each is megabytes.
#[test]
fn replacing_a_plugin_removes_the_artifacts_of_the_replaced_bytes() {
    let env = Env::new();
    let first = std::fs::read(fixture("scribe")).unwrap();
    // The same component with one custom section more: other bytes, the same plugin.
    let mut second = first.clone();
    second.extend_from_slice(&[0x00, 0x06, 0x04, b'n', b'o', b't', b'e', b'!']);
    let changed = env.home().join("scribe-changed.wasm");
    std::fs::write(&changed, &second).unwrap();

    ok(&own(&env, &["plugin", "install", &fx("scribe"), "--yes"]));
    let sha_of = |env: &Env| {
        plugin(&own_list(env), "scribe").unwrap()["sha256"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let old = sha_of(&env);
    let cache = env.home().join("cache");
    let artifacts = |sha: &str| -> usize {
        std::fs::read_dir(&cache)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.file_name().to_string_lossy().starts_with(sha))
                    .count()
            })
            .unwrap_or(0)
    };
    assert!(artifacts(&old) >= 1, "installing precompiled it");

    ok(&own(
        &env,
        &["plugin", "install", changed.to_str().unwrap(), "--yes"],
    ));
    let new = sha_of(&env);
    assert_ne!(new, old);
    assert!(artifacts(&new) >= 1, "the new bytes are precompiled");
    assert_eq!(artifacts(&old), 0, "the replaced bytes' artifacts are gone");
}
