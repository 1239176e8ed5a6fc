//! Attacks on the host `process` service by a plugin granted `process` (the `hostile-proc`
//! fixture, installed through `reasonix plugin install`), each of which must fail: a planted
//! launcher on the job's `PATH`, the job's environment reaching the launcher, a `cwd` outside
//! the workspace, writes through jobs by a read-only plugin, and jobs reading Reasonix's own
//! home or rewriting the workspace's configuration files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use support::{Env, stderr, stdout};

/// One test's setup: a temp root with a workspace, a project dir and a Reasonix home (by
/// default beside the workspace; [`Setup::with_home_in_workspace`] puts it inside).
struct Setup {
    env: Env,
    home: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let env = Env::new();
        let home = env.home();
        Setup { env, home }
    }

    fn with_home_in_workspace() -> Setup {
        let env = Env::new();
        let home = env.workspace().join(".rhome");
        std::fs::create_dir_all(home.join("plugins")).unwrap();
        Setup { env, home }
    }

    fn ws(&self) -> PathBuf {
        self.env.workspace()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_reasonix"));
        command
            .args(args)
            .current_dir(self.env.project())
            .env("REASONIX_HOME", &self.home)
            .env("REASONIX_CACHE_HOME", support::shared_artifact_cache())
            .env_remove("REASONIX_STATE_HOME")
            .env_remove("REASONIX_LOG");
        command
    }

    fn reasonix(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Install `hostile-proc` with these `--grant`s (`--yes` when none).
    fn install(&self, grants: &[&str]) {
        let fixture = support::fixture("hostile_proc");
        let mut args = vec!["plugin", "install", fixture.to_str().unwrap()];
        if grants.is_empty() {
            args.push("--yes");
        }
        for grant in grants {
            args.extend(["--grant", grant]);
        }
        let out = self.reasonix(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }

    fn tool_args(&self, tool: &str, arguments: &Value) -> Vec<String> {
        let ws = self.ws();
        vec![
            "tools".into(),
            "call".into(),
            tool.into(),
            arguments.to_string(),
            "--dir".into(),
            ws.to_str().unwrap().into(),
        ]
    }

    /// `hp_run`: `Ok` with the job's `{"exit", "output"}`, `Err` with the refusal.
    fn run(&self, arguments: Value) -> Result<Value, String> {
        let args = self.tool_args("hp_run", &arguments);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.reasonix(&args);
        match out.status.code() {
            Some(0) => Ok(serde_json::from_str(stdout(&out).trim()).unwrap()),
            _ => Err(stderr(&out)),
        }
    }

    /// `sh -c script` through `hp_run`, which must start.
    fn sh(&self, script: &str) -> Value {
        self.run(json!({"program": "sh", "args": ["-c", script]}))
            .unwrap_or_else(|e| panic!("`{script}` was refused: {e}"))
    }
}

fn output(result: &Value) -> &str {
    result["output"].as_str().unwrap()
}

/// A path outside the workspace that only the host can write (the test's temp root).
fn outside(setup: &Setup, name: &str) -> PathBuf {
    setup.env.root.path().join(name)
}

#[test]
fn a_launcher_planted_on_the_job_path_never_runs_on_the_host() {
    let setup = Setup::new();
    setup.install(&[]);
    let ws = setup.ws();
    let marker = outside(&setup, "planted-bwrap-ran");
    let escape = outside(&setup, "escaped");
    // The plugin plants an executable `bwrap` in the workspace (through a job: WASI cannot set
    // the executable bit) that writes a marker only the host can write.
    let planted = setup.sh(&format!(
        "mkdir -p bin && printf '#!/bin/sh\\necho planted > {}\\n' > bin/bwrap && chmod +x bin/bwrap && echo ok",
        marker.display()
    ));
    assert!(output(&planted).contains("ok"), "{planted}");
    assert!(ws.join("bin/bwrap").is_file());

    // Then asks for a job whose PATH starts there: the host must still start the real
    // launcher, and the program is looked up inside the sandbox.
    let path = format!("{}/bin:/usr/bin:/bin", ws.display());
    let result = setup
        .run(json!({
            "program": "sh",
            "args": ["-c", format!("echo confined; touch {} || echo refused", escape.display())],
            "env": {"PATH": path},
        }))
        .unwrap();
    assert!(
        !marker.exists(),
        "the host ran the planted launcher: {result}"
    );
    assert!(output(&result).contains("confined"), "{result}");
    assert!(output(&result).contains("refused"), "{result}");
    assert!(!escape.exists(), "the job was not confined: {result}");

    // Asked for by name, the planted file runs, but inside the sandbox: its write fails.
    let result = setup
        .run(json!({"program": "bwrap", "args": [], "env": {"PATH": path}}))
        .unwrap();
    assert!(
        !marker.exists(),
        "the planted file ran unconfined: {result}"
    );
    assert!(
        output(&result).contains("Read-only file system"),
        "{result}"
    );
}

/// Processes on the host whose command line contains `marker`, with their argv[0] and
/// environment.
fn processes_with(marker: &str) -> Vec<(String, String, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(marker) {
            let argv0 =
                String::from_utf8_lossy(cmdline.split(|b| *b == 0).next().unwrap()).into_owned();
            let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
            found.push((argv0, text, environ));
        }
    }
    found
}

#[test]
fn job_variables_reach_the_program_but_never_the_launcher() {
    let setup = Setup::new();
    setup.install(&[]);
    let marker = format!("marker-{}", std::process::id());
    let arguments = json!({
        "program": "sh",
        "args": ["-c", format!("while [ ! -e go ]; do sleep 0.05; done; cat && echo stdin-open; env # {marker}")],
        "env": {
            "PLAIN_SETTING": "plain-value",
            "LD_PRELOAD": "/nonexistent/evil.so",
            "MY_SERVICE_API_KEY": "sk-never-passed",
        },
    });
    let args = setup.tool_args("hp_run", &arguments);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let child = setup
        .command(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();

    // While the job waits, look at the launcher the host started for it.
    let deadline = Instant::now() + Duration::from_secs(30);
    let launcher = loop {
        let launchers: Vec<_> = processes_with(&marker)
            .into_iter()
            .filter(|(argv0, _, _)| argv0.ends_with("bwrap"))
            .collect();
        if let Some(found) = launchers.into_iter().next() {
            break found;
        }
        assert!(Instant::now() < deadline, "no launcher process appeared");
        std::thread::sleep(Duration::from_millis(20));
    };
    std::fs::write(setup.ws().join("go"), "").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let (argv0, cmdline, environ) = launcher;
    assert!(
        Path::new(&argv0).is_absolute(),
        "the launcher was started by name: {cmdline}"
    );
    // Not on its command line either (readable by every user of the machine).
    assert!(!cmdline.contains("plain-value"), "{cmdline}");
    let environ = String::from_utf8_lossy(&environ).replace('\0', "\n");
    assert_eq!(
        environ, "",
        "the launcher got an environment ({cmdline}):\n{environ}"
    );

    let result: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let text = output(&result);
    assert!(text.contains("PLAIN_SETTING=plain-value"), "{text}");
    assert!(text.contains("TMPDIR="), "{text}");
    // stdin is still /dev/null: handing the environment over closed no descriptor of the job.
    assert!(text.contains("stdin-open"), "{text}");
    for leaked in [
        "LD_PRELOAD",
        "evil.so",
        "MY_SERVICE_API_KEY",
        "sk-never-passed",
    ] {
        assert!(!text.contains(leaked), "{leaked} reached the job:\n{text}");
    }
}

#[test]
fn a_job_cannot_start_outside_the_workspace() {
    let setup = Setup::new();
    setup.install(&[]);
    let ws = setup.ws();
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::os::unix::fs::symlink("/etc", ws.join("etc-link")).unwrap();
    std::os::unix::fs::symlink("../..", ws.join("sub/up")).unwrap();
    for (cwd, says) in [
        ("/etc", "outside the workspace"),
        ("..", "outside the workspace"),
        ("sub/../../..", "outside the workspace"),
        ("etc-link", "leads to /etc"),
        ("sub/up", "outside the workspace"),
    ] {
        let refused = setup
            .run(json!({"program": "pwd", "cwd": cwd}))
            .expect_err(&format!("a job started in `{cwd}`"));
        assert!(refused.contains("`cwd`"), "{cwd}: {refused}");
        assert!(refused.contains(says), "{cwd}: {refused}");
    }
    let inside = setup.run(json!({"program": "pwd", "cwd": "sub"})).unwrap();
    assert_eq!(output(&inside).trim(), ws.join("sub").display().to_string());
}

#[test]
fn jobs_get_no_more_of_the_workspace_than_their_plugin() {
    for grants in [
        &["workspace=read", "process"][..],
        // `workspace = none`: the workspace stays readable (like the rest of the filesystem)
        // but is not writable.
        &["process"][..],
    ] {
        let setup = Setup::new();
        setup.install(grants);
        let ws = setup.ws();
        std::fs::write(ws.join("existing.txt"), "original").unwrap();
        let result =
            setup.sh("echo new > written.txt; echo changed > existing.txt; cat existing.txt");
        let text = output(&result);
        assert!(!ws.join("written.txt").exists(), "{grants:?}: {text}");
        assert_eq!(
            std::fs::read_to_string(ws.join("existing.txt")).unwrap(),
            "original"
        );
        assert!(text.contains("Read-only file system"), "{grants:?}: {text}");
        assert!(text.contains("original"), "{grants:?}: {text}");
    }

    // The built-in shell asks for read-write, and its commands still write.
    let setup = Setup::new();
    let out = setup.reasonix(
        &setup
            .tool_args("bash", &json!({"command": "echo made > shell.txt"}))
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(setup.ws().join("shell.txt")).unwrap(),
        "made\n"
    );
}

#[test]
fn unconfined_jobs_need_a_read_write_plugin_and_resolve_relative_programs_in_cwd() {
    let setup = Setup::new();
    // The user's own config turns the OS sandbox off.
    std::fs::write(
        setup.home.join("config.toml"),
        "[sandbox]\nbash = \"off\"\n",
    )
    .unwrap();
    setup.install(&["workspace=read", "process"]);
    let refused = setup
        .run(json!({"program": "sh", "args": ["-c", "echo new > written.txt"]}))
        .expect_err("a read-only plugin started an unconfined job");
    assert!(refused.contains("unconfined"), "{refused}");
    assert!(!setup.ws().join("written.txt").exists());

    let setup = Setup::new();
    std::fs::write(
        setup.home.join("config.toml"),
        "[sandbox]\nbash = \"off\"\n",
    )
    .unwrap();
    setup.install(&[]);
    let ws = setup.ws();
    std::fs::create_dir_all(ws.join("sub/bin")).unwrap();
    let tool = ws.join("sub/bin/tool");
    std::fs::write(&tool, "#!/bin/sh\necho from-sub \"$PWD\"\n").unwrap();
    std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let result = setup
        .run(json!({"program": "bin/tool", "cwd": "sub"}))
        .unwrap();
    assert_eq!(
        output(&result).trim(),
        format!("from-sub {}", ws.join("sub").display())
    );
}

#[test]
fn jobs_cannot_see_the_home_or_rewrite_the_configuration() {
    let setup = Setup::with_home_in_workspace();
    setup.install(&[]);
    let ws = setup.ws();
    std::fs::write(setup.home.join(".env"), "SOME_API_KEY=sk-in-the-home\n").unwrap();
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::create_dir_all(ws.join(".reasonix/commands")).unwrap();
    let originals = [
        ("reasonix.toml", "# the user's\n"),
        (".mcp.json", "{}\n"),
        (".claude/settings.json", "{\"a\": 1}\n"),
        (".reasonix/commands/x.md", "original\n"),
    ];
    for (path, text) in originals {
        std::fs::write(ws.join(path), text).unwrap();
    }
    let index = setup.home.join("packages.json");
    let index_before = std::fs::read(&index).unwrap();

    let result = setup.sh("cat .rhome/.env .rhome/packages.json; ls -a .rhome; \
         echo 'network = true' >> reasonix.toml; echo '{\"evil\": 1}' > .mcp.json; \
         echo '{\"evil\": 1}' > .claude/settings.json; echo evil > .reasonix/commands/x.md; \
         echo evil > .reasonix/new.md; rm -f reasonix.toml; \
         mv .claude claude-old && mkdir .claude && echo '{\"evil\": 1}' > .claude/settings.json; \
         mv .reasonix reasonix-old; \
         echo '{}' > .rhome/packages.json; \
         mv .rhome rhome-old && mkdir -p .rhome && echo '{}' > .rhome/packages.json; \
         echo done");
    let text = output(&result);
    assert!(text.contains("done"), "{text}");
    for secret in ["sk-in-the-home", "hostile-proc", "granted"] {
        assert!(
            !text.contains(secret),
            "the job read the home ({secret}):\n{text}"
        );
    }
    for (path, original) in originals {
        assert_eq!(
            std::fs::read_to_string(ws.join(path)).unwrap(),
            original,
            "{path} was changed:\n{text}"
        );
    }
    assert!(!ws.join(".reasonix/new.md").exists(), "{text}");
    assert_eq!(std::fs::read(&index).unwrap(), index_before, "{text}");
    for moved in ["claude-old", "reasonix-old", "rhome-old"] {
        assert!(!ws.join(moved).exists(), "{moved}: {text}");
    }
}
