//! The host filesystem guard and the artifact cache's integrity, attacked by an installed
//! plugin (`tests/fixtures/hostile-fs`, granted read-write) with raw `std::fs`/WASI calls:
//! Reasonix's own directories inside the workspace, `forbid_read` under a racing symlink,
//! protected configuration files, symlinks out of the workspace, planted compiled artifacts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use support::{fixture, shared_artifact_cache, stderr, stdout};

/// A workspace (also the current directory) and a Reasonix home, by default inside it.
struct Layout {
    root: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    cache: PathBuf,
}

impl Layout {
    /// Home at `<ws>/nest/rxhome` (an ancestor inside the workspace, to try moving it too).
    fn home_inside() -> Layout {
        let root = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(root.path()).unwrap().join("ws");
        let home = ws.join("nest/rxhome");
        std::fs::create_dir_all(home.join("plugins")).unwrap();
        Layout {
            root,
            ws,
            home,
            cache: shared_artifact_cache(),
        }
    }

    /// Home beside the workspace, not in it.
    fn home_outside() -> Layout {
        let root = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(root.path()).unwrap();
        let ws = base.join("ws");
        let home = base.join("home");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(home.join("plugins")).unwrap();
        Layout {
            root,
            ws,
            home,
            cache: shared_artifact_cache(),
        }
    }

    fn reasonix(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_reasonix"))
            .args(args)
            .current_dir(&self.ws)
            .env("REASONIX_HOME", &self.home)
            .env("REASONIX_CACHE_HOME", &self.cache)
            .env_remove("REASONIX_STATE_HOME")
            .env_remove("REASONIX_LOG")
            .output()
            .unwrap()
    }

    fn install(&self, fixture_name: &str) {
        let path = fixture(fixture_name);
        let out = self.reasonix(&["plugin", "install", path.to_str().unwrap(), "--yes"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}{}",
            stdout(&out),
            stderr(&out)
        );
    }

    fn call(&self, tool: &str, args: Value) -> Output {
        let ws = self.ws.to_str().unwrap();
        self.reasonix(&["tools", "call", tool, &args.to_string(), "--dir", ws])
    }

    /// A call that must fail; returns its stderr.
    fn refused(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert_ne!(
            out.status.code(),
            Some(0),
            "{tool} {args} succeeded: {}",
            stdout(&out)
        );
        stderr(&out)
    }

    /// A call that must succeed; returns its stdout.
    fn allowed(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert_eq!(
            out.status.code(),
            Some(0),
            "{tool} {args}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        stdout(&out)
    }
}

fn p(path: &Path) -> String {
    path.display().to_string()
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// With the home inside the workspace, a read-write plugin sees none of it: not the keys, not
/// the plugin index (so it cannot grant itself more), not a cache file, not through a symlink
/// or a hard link, and it cannot move the home (or a directory holding it) out of the way.
#[test]
fn home_inside_the_workspace_is_out_of_a_plugins_reach() {
    let l = Layout::home_inside();
    std::fs::write(l.home.join(".env"), "DEEPSEEK_API_KEY=sk-home-secret\n").unwrap();
    std::fs::create_dir_all(l.home.join("cache")).unwrap();
    std::fs::write(l.home.join("cache/planted.cwasm"), "cache-bytes").unwrap();
    l.install("hostile_fs");
    let index = l.home.join("packages.json");
    let original_index = std::fs::read_to_string(&index).unwrap();
    let info_before = stdout(&l.reasonix(&["plugin", "info", "hostile-fs"]));
    assert!(
        info_before.contains("workspace:read-write"),
        "{info_before}"
    );

    for secret in [
        l.home.join(".env"),
        index.clone(),
        l.home.join("cache/planted.cwasm"),
    ] {
        let err = l.refused("fs_read", json!({"path": p(&secret)}));
        assert!(err.contains("NotFound"), "{}: {err}", secret.display());
        assert!(!err.contains("sk-home-secret") && !err.contains("cache-bytes"));
        let err = l.refused("fs_stat", json!({"path": p(&secret)}));
        assert!(err.contains("NotFound"), "{err}");
    }

    // Rewrite the index to grant itself everything: refused, and the grants stay.
    let forged = original_index.replace("\"process\":false", "\"process\":true");
    let err = l.refused("fs_write", json!({"path": p(&index), "content": forged}));
    assert!(err.contains("NotFound"), "{err}");
    l.refused("fs_append", json!({"path": p(&index), "content": " "}));
    l.refused("fs_remove", json!({"path": p(&index)}));
    assert_eq!(std::fs::read_to_string(&index).unwrap(), original_index);
    let info_after = stdout(&l.reasonix(&["plugin", "info", "hostile-fs"]));
    assert_eq!(info_after, info_before);

    // Move the home, or the directory holding it, out of the way and read it there.
    let moved = l.ws.join("moved");
    let err = l.refused("fs_rename", json!({"from": p(&l.home), "to": p(&moved)}));
    assert!(err.contains("NotFound"), "{err}");
    let err = l.refused(
        "fs_rename",
        json!({"from": p(&l.ws.join("nest")), "to": p(&moved)}),
    );
    assert!(err.contains("PermissionDenied"), "{err}");
    l.refused("fs_rmdir", json!({"path": p(&l.ws.join("nest"))}));
    assert!(l.home.join(".env").is_file());
    l.refused("fs_read", json!({"path": p(&moved.join(".env"))}));
    l.refused("fs_read", json!({"path": p(&moved.join("rxhome/.env"))}));

    // List it: the directory cannot be opened, nor is its name listed in its parent.
    let err = l.refused("fs_list", json!({"path": p(&l.home)}));
    assert!(err.contains("NotFound"), "{err}");
    l.refused("fs_list", json!({"path": p(&l.home.join("plugins"))}));

    // Through links: a symlink the test planted, a hard link the plugin makes.
    // (Relative: cap-std already refuses to follow absolute symlinks.)
    std::os::unix::fs::symlink("nest/rxhome/.env", l.ws.join("env-link")).unwrap();
    let err = l.refused("fs_read", json!({"path": p(&l.ws.join("env-link"))}));
    assert!(
        err.contains("NotFound") && !err.contains("sk-home"),
        "{err}"
    );
    let copy = l.ws.join("env-copy");
    l.refused(
        "fs_hardlink",
        json!({"from": p(&l.home.join(".env")), "to": p(&copy)}),
    );
    assert!(!exists(&copy));
    // Plant files in it.
    l.refused(
        "fs_write",
        json!({"path": p(&l.home.join("plugins/evil.wasm")), "content": "x"}),
    );
    l.refused("fs_mkdir", json!({"path": p(&l.home.join("cache/x"))}));
    assert!(!l.home.join("plugins/evil.wasm").exists());
    assert!(!l.home.join("cache/x").exists());

    // A workspace that is the home itself shows nothing either.
    let out = l.reasonix(&[
        "tools",
        "call",
        "fs_list",
        &json!({"path": p(&l.home)}).to_string(),
        "--dir",
        l.home.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(!stdout(&out).contains("plugins"), "{}", stdout(&out));

    // The rest of the workspace is as usable as ever.
    l.allowed(
        "fs_write",
        json!({"path": p(&l.ws.join("nest/ok.txt")), "content": "fine"}),
    );
    assert_eq!(
        l.allowed("fs_read", json!({"path": p(&l.ws.join("nest/ok.txt"))}))
            .trim(),
        "fine"
    );
    let listed = l.allowed("fs_list", json!({"path": p(&l.ws.join("nest"))}));
    assert!(listed.contains("ok.txt"), "{listed}");
    assert!(!listed.contains("rxhome"), "{listed}");
}

/// A host thread flips a symlink between a harmless file and a `forbid_read` file while the
/// plugin reads through it 2000 times in one call: the forbidden contents never come back.
#[test]
fn forbid_read_holds_against_a_symlink_swapped_during_reads() {
    let l = Layout::home_outside();
    std::fs::write(
        l.home.join("config.toml"),
        "[sandbox]\nforbid_read = [\"secret.txt\", \"vault\"]\n",
    )
    .unwrap();
    std::fs::write(l.ws.join("benign.txt"), "benign").unwrap();
    std::fs::write(l.ws.join("secret.txt"), "TOPSECRET").unwrap();
    std::fs::create_dir(l.ws.join("vault")).unwrap();
    std::fs::write(l.ws.join("vault/key"), "TOPSECRET-KEY").unwrap();
    l.install("hostile_fs");

    // Directly and through a symlink whose target is forbidden: not found.
    for path in ["secret.txt", "vault/key"] {
        let err = l.refused("fs_read", json!({"path": p(&l.ws.join(path))}));
        assert!(
            err.contains("NotFound") && !err.contains("TOPSECRET"),
            "{err}"
        );
    }
    std::os::unix::fs::symlink("secret.txt", l.ws.join("direct")).unwrap();
    std::os::unix::fs::symlink("vault", l.ws.join("vault-link")).unwrap();
    for path in ["direct", "vault-link/key"] {
        let err = l.refused("fs_read", json!({"path": p(&l.ws.join(path))}));
        assert!(
            err.contains("NotFound") && !err.contains("TOPSECRET"),
            "{err}"
        );
    }
    let err = l.refused(
        "fs_rename",
        json!({"from": p(&l.ws.join("secret.txt")), "to": p(&l.ws.join("public.txt"))}),
    );
    assert!(err.contains("NotFound"), "{err}");

    // The race. On a loaded machine the flipping thread may hardly run during one call, so
    // the calls repeat (each checked for a leak) until the link was seen both ways.
    let link = l.ws.join("flip");
    std::os::unix::fs::symlink("benign.txt", &link).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flips = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let flipper = {
        let (stop, flips, ws, link) = (stop.clone(), flips.clone(), l.ws.clone(), link.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let n = flips.load(Ordering::Relaxed);
                let target = if n.is_multiple_of(2) {
                    "secret.txt"
                } else {
                    "benign.txt"
                };
                let tmp = ws.join("flip.tmp");
                let _ = std::fs::remove_file(&tmp);
                std::os::unix::fs::symlink(target, &tmp).unwrap();
                std::fs::rename(&tmp, &link).unwrap();
                flips.store(n + 1, Ordering::Relaxed);
            }
        })
    };
    let mut seen: std::collections::BTreeSet<String> = Default::default();
    for _round in 0..20 {
        let out = l.call("fs_read_loop", json!({"path": p(&link), "times": 2000}));
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
        let outcomes: Value = serde_json::from_str(text.trim()).unwrap();
        let outcomes = outcomes.as_object().unwrap();
        assert!(
            !outcomes.keys().any(|k| k.contains("TOPSECRET")),
            "forbidden contents leaked: {outcomes:?}"
        );
        seen.extend(outcomes.keys().cloned());
        if seen.contains("ok:benign") && flips.load(Ordering::Relaxed) > 10 {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    let flips = flips.load(Ordering::Relaxed);
    assert!(seen.contains("ok:benign"), "{seen:?}");
    assert!(flips > 10, "the symlink hardly moved ({flips} flips)");
}

/// An installed plugin with read-write cannot write, create, truncate, rename, link or
/// symlink over the files the kernel reads as configuration, by name or through links; it
/// can still read them and write everything else.
#[test]
fn protected_config_files_are_read_only_to_an_installed_plugin() {
    let l = Layout::home_outside();
    let ws = &l.ws;
    std::fs::write(ws.join("reasonix.toml"), "# original\n").unwrap();
    std::fs::create_dir(ws.join(".reasonix")).unwrap();
    l.install("hostile_fs");
    let evil = "[sandbox]\nallow_write = [\"/\"]\nnetwork = true\n";

    for name in [
        "reasonix.toml",
        ".mcp.json",
        ".reasonix/x",
        ".reasonix/commands.toml",
    ] {
        let err = l.refused(
            "fs_write",
            json!({"path": p(&ws.join(name)), "content": evil}),
        );
        assert!(err.contains("PermissionDenied"), "{name}: {err}");
    }
    l.refused(
        "fs_append",
        json!({"path": p(&ws.join("reasonix.toml")), "content": evil}),
    );
    l.allowed("fs_mkdir", json!({"path": p(&ws.join(".claude"))}));
    for name in [".claude/settings.json", ".claude/settings.local.json"] {
        l.refused(
            "fs_write",
            json!({"path": p(&ws.join(name)), "content": "{}"}),
        );
    }
    l.refused("fs_remove", json!({"path": p(&ws.join("reasonix.toml"))}));
    l.refused("fs_rmdir", json!({"path": p(&ws.join(".reasonix"))}));

    // Rename over them, away from them, or a prepared directory into place.
    l.allowed(
        "fs_write",
        json!({"path": p(&ws.join("evil.toml")), "content": evil}),
    );
    l.refused(
        "fs_rename",
        json!({"from": p(&ws.join("evil.toml")), "to": p(&ws.join("reasonix.toml"))}),
    );
    l.refused(
        "fs_rename",
        json!({"from": p(&ws.join("reasonix.toml")), "to": p(&ws.join("old.toml"))}),
    );
    l.allowed("fs_rmdir", json!({"path": p(&ws.join(".claude"))}));
    l.allowed("fs_mkdir", json!({"path": p(&ws.join("prepared"))}));
    l.allowed(
        "fs_write",
        json!({"path": p(&ws.join("prepared/settings.json")), "content": "{}"}),
    );
    l.refused(
        "fs_rename",
        json!({"from": p(&ws.join("prepared")), "to": p(&ws.join(".claude"))}),
    );

    // Through links it makes itself: a symlink to the file, one to the directory, a hard link.
    l.allowed(
        "fs_symlink",
        json!({"target": "reasonix.toml", "link": p(&ws.join("alias"))}),
    );
    l.refused(
        "fs_write",
        json!({"path": p(&ws.join("alias")), "content": evil}),
    );
    l.allowed(
        "fs_symlink",
        json!({"target": ".", "link": p(&ws.join("here"))}),
    );
    l.refused(
        "fs_write",
        json!({"path": p(&ws.join("here/reasonix.toml")), "content": evil}),
    );
    l.refused(
        "fs_write",
        json!({"path": p(&ws.join("here/.mcp.json")), "content": evil}),
    );
    l.refused(
        "fs_hardlink",
        json!({"from": p(&ws.join("reasonix.toml")), "to": p(&ws.join("hard"))}),
    );
    l.refused(
        "fs_symlink",
        json!({"target": "evil.toml", "link": p(&ws.join(".mcp.json"))}),
    );

    assert_eq!(
        std::fs::read_to_string(ws.join("reasonix.toml")).unwrap(),
        "# original\n"
    );
    for name in [".mcp.json", ".reasonix/x", ".claude", "hard", "old.toml"] {
        assert!(!exists(&ws.join(name)), "{name} was created");
    }
    assert_eq!(
        l.allowed("fs_read", json!({"path": p(&ws.join("reasonix.toml"))})),
        "# original\n\n"
    );
    l.allowed(
        "fs_write",
        json!({"path": p(&ws.join("notes.txt")), "content": "mine"}),
    );
    l.allowed(
        "fs_write",
        json!({"path": p(&ws.join("notes.txt")), "content": "again"}),
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("notes.txt")).unwrap(),
        "again"
    );
    l.allowed(
        "fs_rename",
        json!({"from": p(&ws.join("notes.txt")), "to": p(&ws.join("renamed.txt"))}),
    );
}

/// Symlinks a plugin makes stay inside the workspace and out of Reasonix's home.
#[test]
fn plugin_symlinks_cannot_leave_the_workspace_or_point_into_the_home() {
    let l = Layout::home_inside();
    std::fs::write(l.ws.join("file.txt"), "inside").unwrap();
    std::fs::create_dir(l.ws.join("sub")).unwrap();
    l.install("hostile_fs");

    let cases = [
        ("/etc/passwd", "a"),
        ("../../outside", "sub/b"),
        ("../outside", "c"),
        (l.home.to_str().unwrap(), "d"),
        ("nest/rxhome/.env", "e"),
        ("sub/../../outside", "f"),
    ];
    for (target, link) in cases {
        let err = l.refused(
            "fs_symlink",
            json!({"target": target, "link": p(&l.ws.join(link))}),
        );
        assert!(err.contains("not-permitted"), "{target}: {err}");
        assert!(!exists(&l.ws.join(link)), "{link} -> {target} was created");
    }
    l.allowed(
        "fs_symlink",
        json!({"target": "file.txt", "link": p(&l.ws.join("ok"))}),
    );
    l.allowed(
        "fs_symlink",
        json!({"target": "../file.txt", "link": p(&l.ws.join("sub/ok"))}),
    );
    assert_eq!(
        std::fs::read_to_string(l.ws.join("sub/ok")).unwrap(),
        "inside"
    );
    assert_eq!(
        l.allowed("fs_read", json!({"path": p(&l.ws.join("ok"))})),
        "inside\n"
    );
}

/// The installed component's artifact file in `cache` (named after its sha256).
fn artifact_of(cache: &Path, fixture_name: &str) -> PathBuf {
    let sha = reasonix_host::cache::sha256_hex(&std::fs::read(fixture(fixture_name)).unwrap());
    std::fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with(&sha) && name.ends_with(".cwasm")
        })
        .unwrap_or_else(|| panic!("no artifact of {fixture_name} in {}", cache.display()))
}

/// Plant `scribe`'s compiled artifact under `hostile-fs`'s name and drop the saved
/// descriptions: a run that loads the planted file describes `hostile-fs` as `scribe`.
fn plant_swapped_artifact(cache: &Path) {
    let victim = artifact_of(cache, "hostile_fs");
    std::fs::copy(artifact_of(cache, "scribe"), &victim).unwrap();
    remove_descriptions(cache);
}

fn remove_descriptions(cache: &Path) {
    for entry in std::fs::read_dir(cache).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".describe.json") {
            std::fs::remove_file(path).unwrap();
        }
    }
}

fn fs_tools_listed(l: &Layout) -> bool {
    let out = l.reasonix(&["tools", "list"]);
    stdout(&out).contains("fs_read_loop")
}

/// A compiled artifact is native code: one planted in the cache (by a checkout, an archive,
/// a tool) is never loaded, wherever the cache lies, because it carries no seal made with
/// Reasonix's key; a cache others can write is not used at all. (The control: the same plant
/// sealed with the user's key is loaded, which proves the plant works and the seal is what
/// stops it.)
#[test]
fn planted_artifacts_are_never_loaded() {
    use std::os::unix::fs::PermissionsExt;
    let mut l = Layout::home_outside();
    let private = l.root.path().join("private-cache");
    l.cache = private.clone();
    l.install("hostile_fs");
    l.install("scribe");
    assert!(fs_tools_listed(&l));
    let key = std::fs::read(l.home.join("cache.key")).unwrap();
    assert_eq!(key.len(), 32);

    // The plant, unsealed: not loaded; the component is compiled again from its bytes.
    plant_swapped_artifact(&l.cache);
    let planted = snapshot(&private);
    assert!(fs_tools_listed(&l), "an unsealed plant was loaded");
    let victim = artifact_of(&private, "hostile_fs");
    assert_ne!(
        std::fs::read(&victim).unwrap(),
        planted[&file_name(&victim)],
        "the plant was replaced by what the kernel compiled"
    );

    // With a seal copied from another file: still not loaded (a seal names its file).
    plant_swapped_artifact(&l.cache);
    let scribe = artifact_of(&private, "scribe");
    std::fs::copy(seal_of(&scribe), seal_of(&victim)).unwrap();
    assert!(
        fs_tools_listed(&l),
        "a plant with a borrowed seal was loaded"
    );

    // Control: sealed with the user's key, the same plant is loaded.
    plant_swapped_artifact(&l.cache);
    reseal(&key, &victim);
    assert!(
        !fs_tools_listed(&l),
        "the plant was not loaded even when sealed with the key"
    );

    // A cache inside the workspace (the current directory), private, with the plant and
    // seals made under another key (what a checkout could bring): the cache is used, the
    // plant is not.
    // (The control's plant, being sealed, also left its description: clear both.)
    std::fs::remove_file(&victim).unwrap();
    remove_descriptions(&l.cache);
    assert!(fs_tools_listed(&l));
    plant_swapped_artifact(&l.cache);
    let planted = snapshot(&private);
    let inside = l.ws.join(".cache/reasonix");
    std::fs::create_dir_all(l.ws.join(".cache")).unwrap();
    copy_dir(&private, &inside, &planted);
    for (name, _) in planted.iter().filter(|(n, _)| !n.ends_with(".seal")) {
        reseal(&[7u8; 32], &inside.join(name));
    }
    l.cache = inside.clone();
    let out = l.reasonix(&["tools", "list"]);
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(
        text.contains("fs_read_loop"),
        "planted artifact loaded: {text}{err}"
    );
    assert!(!err.contains("cache is not used"), "{err}");
    // What the kernel compiled replaced the plant, and the next start maps it.
    assert_ne!(snapshot(&inside), planted);
    assert!(fs_tools_listed(&l));

    // The same plant in a group-writable cache: not used at all, nothing read or written.
    let shared = l.root.path().join("shared-cache");
    copy_dir(&private, &shared, &planted);
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o775)).unwrap();
    l.cache = shared.clone();
    let out = l.reasonix(&["tools", "list"]);
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(
        text.contains("fs_read_loop"),
        "planted artifact loaded: {text}{err}"
    );
    assert!(err.contains("compiled-artifact cache is not used"), "{err}");
    assert!(err.contains("writable by its group"), "{err}");
    assert_eq!(snapshot(&shared), planted);
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn seal_of(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}.seal", path.display()))
}

/// Seal the cache file at `path` as the kernel does (`kernel/host/src/cache/seal.rs`):
/// HMAC-SHA256 under `key` over a domain string, the file name and its identity.
fn reseal(key: &[u8], path: &Path) {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).unwrap();
    let mut message = b"reasonix artifact cache seal v1\0".to_vec();
    message.extend_from_slice(file_name(path).as_bytes());
    message.push(0);
    for value in [
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime() as u64,
        meta.mtime_nsec() as u64,
        meta.ctime() as u64,
        meta.ctime_nsec() as u64,
    ] {
        message.extend_from_slice(&value.to_le_bytes());
    }
    std::fs::write(seal_of(path), hmac_sha256(key, &message)).unwrap();
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut padded = [0u8; 64];
    padded[..key.len()].copy_from_slice(key);
    let inner = Sha256::new()
        .chain_update(padded.map(|b| b ^ 0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(padded.map(|b| b ^ 0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// File names and bytes of a cache directory.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect()
}

/// Recreate a cache directory (private, files private) from a snapshot.
fn copy_dir(from: &Path, to: &Path, files: &std::collections::BTreeMap<String, Vec<u8>>) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir(to).unwrap();
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o700)).unwrap();
    for (name, bytes) in files {
        let path = to.join(name);
        std::fs::write(&path, bytes).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    assert!(from.is_dir());
}
