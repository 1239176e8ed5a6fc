//! Fleets (docs/FLEETS.md): a session run on one machine continues on another — exported as its
//! transcript, imported into a different home, state directory and workspace, and resumed
//! there with its history — and the deployment examples are what they claim to be.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, stderr, stdout};
use reasonix_mock_llm::{MockLlm, Reply};
use serde_json::Value;

fn env_with_mock() -> (Env, MockLlm) {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    (env, mock)
}

#[test]
fn a_session_exported_on_one_machine_continues_on_another() {
    let (worker, worker_mock) = env_with_mock();
    let ws = worker.workspace();
    worker_mock.enqueue(Reply::text(&["Noted: PINEAPPLE-42."]));
    let out = worker.reasonix(&[
        "run",
        "--dir",
        ws.to_str().unwrap(),
        "remember PINEAPPLE-42",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = worker.reasonix(&["sessions", "list", "--json", "--dir", ws.to_str().unwrap()]);
    let listed: Value = serde_json::from_str(&stdout(&listed)).unwrap();
    let id = listed["sessions"][0]["id"].as_str().unwrap().to_string();
    let file = worker.root.path().join("export.jsonl");
    let out = worker.reasonix(&[
        "sessions",
        "export",
        &id,
        "--format",
        "transcript",
        "-o",
        file.to_str().unwrap(),
        "--dir",
        ws.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // Another machine: its own home, state and workspace path.
    let (laptop, laptop_mock) = env_with_mock();
    let there = laptop.workspace();
    assert_ne!(there, ws);
    let imported = laptop.reasonix(&[
        "sessions",
        "import",
        "--from",
        file.to_str().unwrap(),
        "--dir",
        there.to_str().unwrap(),
    ]);
    assert_eq!(imported.status.code(), Some(0), "{}", stderr(&imported));
    assert!(
        stdout(&imported).contains(&format!("as {id} (2 messages)")),
        "{}",
        stdout(&imported)
    );
    laptop_mock.enqueue(Reply::text(&["It was PINEAPPLE-42."]));
    let out = laptop.reasonix(&[
        "run",
        "--dir",
        there.to_str().unwrap(),
        "-r",
        &id,
        "what was it?",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let request = laptop_mock.requests()[0].json();
    let messages = request["messages"].as_array().unwrap();
    assert!(
        messages
            .iter()
            .any(|m| m["role"] == "user" && m["content"] == "remember PINEAPPLE-42"),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m["role"] == "assistant" && m["content"] == "Noted: PINEAPPLE-42."),
        "{messages:?}"
    );
    // The session works in the workspace it now belongs to.
    assert!(
        messages[0]["content"].as_str().unwrap().contains(&format!(
            "Workspace (working directory): {}",
            there.display()
        )),
        "{}",
        messages[0]
    );

    // Importing again leaves it; a transcript naming a path as its id is refused.
    let again = laptop.reasonix(&[
        "sessions",
        "import",
        "--from",
        file.to_str().unwrap(),
        "--dir",
        there.to_str().unwrap(),
    ]);
    assert!(
        stdout(&again).contains("already imported"),
        "{}",
        stdout(&again)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    let mut header: Value = serde_json::from_str(first).unwrap();
    header["id"] = "../../../outside".into();
    let hostile = laptop.root.path().join("hostile.jsonl");
    std::fs::write(&hostile, format!("{header}\n{rest}")).unwrap();
    let refused = laptop.reasonix(&[
        "sessions",
        "import",
        "--from",
        hostile.to_str().unwrap(),
        "--dir",
        there.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("is not a file name"),
        "{}",
        stderr(&refused)
    );
}

fn repo_file(path: &str) -> String {
    std::fs::read_to_string(crate::support::repo_root().join(path)).unwrap()
}

/// The Python of the fleet tools (`kubernetes-validate`, PyYAML), installed by `.ci/run` into
/// `target/fleet-tools`; `None` skips, unless `REASONIX_REQUIRE_FLEET_TOOLS` is set.
fn fleet_python() -> Option<std::path::PathBuf> {
    let found = std::env::var_os("REASONIX_FLEET_PYTHON")
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("REASONIX_REQUIRE_FLEET_TOOLS").is_none(),
            "REASONIX_FLEET_PYTHON does not name the fleet tools' Python (see .ci/run)"
        );
        #[allow(clippy::disallowed_macros)] // a fixed note for a person running the tests locally
        {
            eprintln!("skipped: no fleet tools (set REASONIX_FLEET_PYTHON, see .ci/run)");
        }
    }
    found
}

#[test]
fn the_dockerfile_builds_in_two_stages_and_runs_unprivileged_with_the_sandbox() {
    let text = repo_file("Dockerfile");
    let instructions: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let stages: Vec<usize> = instructions
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("FROM "))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(stages.len(), 2, "a build stage and a runtime stage");
    // The build stage uses the toolchain the repository pins.
    let toolchain = repo_file("rust-toolchain.toml");
    let channel = toolchain
        .lines()
        .find_map(|l| l.trim().strip_prefix("channel = "))
        .unwrap()
        .trim_matches('"');
    assert!(
        instructions[stages[0]].starts_with(&format!("FROM rust:{channel}-")),
        "{} does not use the pinned toolchain {channel}",
        instructions[stages[0]]
    );
    assert!(text.contains("rustup target add wasm32-wasip2"));
    let runtime = &instructions[stages[1]..];
    let user = runtime
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("USER "))
        .expect("the runtime stage names its user");
    assert!(
        !user.starts_with("root") && !user.starts_with("0"),
        "runs as {user}"
    );
    assert!(
        runtime.iter().any(|l| l.contains("bubblewrap")),
        "the sandbox is inside"
    );
    assert!(
        runtime.iter().any(|l| l.starts_with("COPY --from=build ")),
        "only the binary comes from the build"
    );
    assert!(
        runtime
            .iter()
            .any(|l| l.contains("--no-install-recommends"))
    );
    assert!(
        runtime
            .iter()
            .any(|l| l.contains("rm -rf /var/lib/apt/lists"))
    );
    assert!(
        !instructions.iter().any(|l| l.starts_with("ADD ")),
        "ADD fetches URLs and unpacks archives: COPY only"
    );
    assert_eq!(
        runtime.iter().rev().find(|l| l.starts_with("ENTRYPOINT")),
        Some(&r#"ENTRYPOINT ["reasonix"]"#)
    );
    assert!(
        repo_file(".dockerignore")
            .lines()
            .any(|l| l.trim() == "target")
    );
}

#[test]
fn the_kubernetes_job_is_a_valid_indexed_job_whose_script_runs_and_exports_the_session() {
    let Some(python) = fleet_python() else { return };
    let yaml = crate::support::repo_root().join("examples/fleets/k8s-indexed-job.yaml");
    let bin_dir = python.parent().unwrap();
    let validated = std::process::Command::new(bin_dir.join("kubernetes-validate"))
        .args(["--strict", "--kubernetes-version", "1.33.0"])
        .arg(&yaml)
        .output()
        .unwrap();
    assert!(
        validated.status.success(),
        "{}{}",
        stdout(&validated),
        stderr(&validated)
    );
    // The container's script, run as the pod would (its paths moved under a temporary root).
    let script = std::process::Command::new(&python)
        .args([
            "-c",
            "import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); \
             c = d['spec']['template']['spec']['containers'][0]; \
             assert d['spec']['completionMode'] == 'Indexed'; \
             assert c['command'] == ['/bin/sh', '-c']; print(c['args'][0])",
        ])
        .arg(&yaml)
        .output()
        .unwrap();
    assert!(script.status.success(), "{}", stderr(&script));
    let (env, mock) = env_with_mock();
    let root = env.root.path();
    let (tasks, out) = (root.join("tasks"), root.join("out"));
    std::fs::create_dir_all(&tasks).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(tasks.join("tasks.txt"), "first task\nsecond task\n").unwrap();
    let script = stdout(&script)
        .replace("/tasks/", &format!("{}/", tasks.display()))
        .replace("/out/", &format!("{}/", out.display()));
    mock.enqueue(Reply::text(&["did the second task"]));
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_reasonix"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // The test's own home, state and cache: what `reasonix` gets in every e2e test.
    let command = env.command(&[]);
    let ran = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(&script)
        .envs(
            command
                .get_envs()
                .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned()))),
        )
        .env("PATH", path)
        .env("JOB_COMPLETION_INDEX", "1")
        .current_dir(env.project())
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}{}", stdout(&ran), stderr(&ran));
    let request = mock.requests()[0].json();
    let sent = request["messages"].as_array().unwrap().last().unwrap()["content"].clone();
    assert_eq!(sent, "second task", "index 1 runs the second line");
    let events = std::fs::read_to_string(out.join("events-1.jsonl")).unwrap();
    let last: Value = serde_json::from_str(events.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "result", "{last}");
    let session = std::fs::read_to_string(out.join("session-1.jsonl")).unwrap();
    assert!(session.starts_with("{\"type\":\"session\""), "{session}");
}

#[test]
fn the_github_actions_example_is_a_workflow_running_the_fleet_command() {
    let Some(python) = fleet_python() else { return };
    let checked = std::process::Command::new(&python)
        .args([
            "-c",
            "import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); \
             job = d['jobs']['task']; \
             assert job['strategy']['matrix']['task'], 'a matrix of tasks'; \
             runs = [s.get('run', '') for s in job['steps']]; \
             assert any('reasonix run --output-format stream-json-v1' in r for r in runs), runs; \
             assert any('--format transcript' in r for r in runs), runs; \
             assert any(s.get('uses', '').startswith('actions/upload-artifact@') for s in job['steps'])",
        ])
        .arg(crate::support::repo_root().join("examples/fleets/github-actions.yml"))
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", stderr(&checked));
}
