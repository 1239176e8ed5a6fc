//! The `lsp_*` tools (docs/LSP.md) through the real binary, the mock LLM and real language
//! servers: rust-analyzer from this machine's toolchain on a small crate (definition,
//! references, a type error introduced by `edit_file` reported by `lsp_diagnostics`, a killed
//! server started again on the next call), and pyright installed from npm on a small Python
//! project.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::{Env, repo_root, result_of, stderr, target_dir};
use reasonix_mock_llm::{MockLlm, Reply, Step};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn body(mock: &MockLlm, n: usize) -> Value {
    serde_json::from_str(&mock.requests()[n].body).unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The rustup directories of this machine: the test's `HOME` is empty, a user's is not.
fn with_toolchain(command: &mut Command) {
    let home = std::env::var("HOME").unwrap_or_default();
    let rustup = std::env::var("RUSTUP_HOME").unwrap_or_else(|_| format!("{home}/.rustup"));
    let cargo = std::env::var("CARGO_HOME").unwrap_or_else(|_| format!("{home}/.cargo"));
    command.env("RUSTUP_HOME", rustup).env("CARGO_HOME", cargo);
}

/// The pids below `root` whose command name is `name`.
fn descendants_named(root: u32, name: &str) -> Vec<u32> {
    let mut parent = std::collections::HashMap::new();
    let mut comm = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let ppid = stat[close + 2..]
            .split(' ')
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0);
        parent.insert(pid, ppid);
        comm.insert(pid, stat[open + 1..close].to_string());
    }
    let below = |mut pid: u32| {
        while pid > 1 {
            pid = parent.get(&pid).copied().unwrap_or(0);
            if pid == root {
                return true;
            }
        }
        false
    };
    comm.iter()
        .filter(|(pid, c)| c.starts_with(name) && below(**pid))
        .map(|(pid, _)| *pid)
        .collect()
}

fn args(value: Value) -> String {
    value.to_string()
}

#[test]
fn rust_analyzer_answers_definitions_references_and_diagnostics_and_comes_back_after_a_kill() {
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    copy_dir(&repo_root().join("tests/lsp/rust-crate"), &env.project());
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));

    let definition = args(json!({"path": "src/lib.rs", "line": 4, "symbol": "area"}));
    let references = args(json!({"path": "src/shapes.rs", "line": 2, "symbol": "Square"}));
    let hover = args(json!({"path": "src/lib.rs", "line": 7, "column": 28}));
    let broken = args(json!({
        "path": "src/lib.rs",
        "old_string": "    2 * s.area()",
        "new_string": "    let label: u32 = \"two\";\n    label * s.area()"
    }));
    let symbols = args(json!({"query": "area"}));
    let outline = args(json!({"path": "src/shapes.rs"}));
    mock.enqueue(Reply::tool_calls(
        &[
            ("d1", "lsp_definition", &definition),
            ("r1", "lsp_references", &references),
            ("s1", "lsp_symbols", &symbols),
            ("o1", "lsp_symbols", &outline),
        ],
        1,
    ));
    // Held until the test has killed the server.
    let mut after_kill = Reply::tool_calls(&[("h1", "lsp_hover", &hover)], 1);
    after_kill.steps.insert(0, Step::Gate("killed".into()));
    mock.enqueue(after_kill);
    mock.enqueue(Reply::tool_calls(&[("e1", "edit_file", &broken)], 1));
    mock.enqueue(Reply::tool_calls(&[("g1", "lsp_diagnostics", "{}")], 1));
    mock.enqueue(Reply::text(&["Done."]));

    let mut command = env.command(&["run", "--allowed-tools", "edit_file", "look around"]);
    with_toolchain(&mut command);
    let child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let root = child.id();
    // The first answers are in: kill the server under the running session.
    let seen = mock.wait_for_requests(2, Duration::from_secs(240));
    assert!(seen.len() >= 2, "the first tool results never came back");
    // The server itself, inside its sandbox.
    let killed = descendants_named(root, "rust-analyzer");
    assert!(
        !killed.is_empty(),
        "no rust-analyzer below reasonix ({root}): {:?}; the first results:\n{}\n{}",
        descendants_named(root, ""),
        result_of(&body(&mock, 1), "d1"),
        result_of(&body(&mock, 1), "r1")
    );
    for pid in &killed {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline
        && killed
            .iter()
            .any(|pid| Path::new(&format!("/proc/{pid}")).exists())
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    // Let the session notice the exit before the next call.
    std::thread::sleep(Duration::from_millis(500));
    mock.release("killed");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    let first = body(&mock, 1);
    let definition = result_of(&first, "d1");
    assert!(
        definition.contains("src/shapes.rs:7:12  pub fn area(&self) -> u32 {"),
        "{definition}"
    );
    let references = result_of(&first, "r1");
    for want in [
        "src/lib.rs:3:29",
        "src/lib.rs:3:49",
        "src/lib.rs:7:28",
        "src/shapes.rs:2:12",
        "src/shapes.rs:6:6",
    ] {
        assert!(references.contains(want), "{want} in:\n{references}");
    }
    let symbols = result_of(&first, "s1");
    assert!(symbols.contains("src/shapes.rs:7:"), "{symbols}");
    assert!(symbols.contains("area_sum"), "{symbols}");
    let outline = result_of(&first, "o1");
    assert!(outline.contains("struct Square  :2"), "{outline}");
    assert!(
        outline.contains("method area  :7") || outline.contains("function area  :7"),
        "{outline}"
    );
    // A new server answered after the kill.
    let hover = result_of(&body(&mock, 2), "h1");
    assert!(hover.contains("Square"), "{hover}");
    assert!(
        killed
            .iter()
            .all(|pid| !Path::new(&format!("/proc/{pid}")).exists()),
        "the killed server lives on"
    );
    let diagnostics = result_of(&body(&mock, 4), "g1");
    assert!(diagnostics.contains("src/lib.rs:8:"), "{diagnostics}");
    assert!(diagnostics.contains("E0308"), "{diagnostics}");
    assert!(diagnostics.contains("error"), "{diagnostics}");
}

/// One language served by `bin` from `target/lsp-servers` (npm, installed by `.ci/run`): the
/// fixture `project` with `broken` written into it, a `definition` call and a diagnostics call
/// of `broken.0`; the two answers. `None` when the server is not installed (a failure where
/// `.ci/run` requires it).
struct NpmCase<'a> {
    bin: &'a str,
    language: &'a str,
    project: &'a str,
    broken: (&'a str, &'a str),
    definition: Value,
}

fn npm_server_answers(case: NpmCase<'_>) -> Option<(String, String)> {
    let server = target_dir()
        .join("lsp-servers/node_modules/.bin")
        .join(case.bin);
    if !server.exists() {
        assert!(
            std::env::var_os("REASONIX_REQUIRE_LSP_SERVERS").is_none(),
            "{} is missing; .ci/run installs it (npm ci in target/lsp-servers)",
            server.display()
        );
        #[allow(clippy::disallowed_macros)]
        {
            eprintln!("skipped: {} is not installed", server.display());
        }
        return None;
    }
    let env = Env::new();
    let mock = MockLlm::start().unwrap();
    copy_dir(&repo_root().join(case.project), &env.project());
    env.project_config(&env.mock_provider("openai", &mock.base_url(), "sk-test", ""));
    std::fs::write(
        env.home().join("config.toml"),
        format!(
            "[lsp.servers.{}]\ncommand = \"{}\"\nargs = [\"--stdio\"]\n",
            case.language,
            server.display()
        ),
    )
    .unwrap();
    std::fs::write(env.project().join(case.broken.0), case.broken.1).unwrap();
    let definition = args(case.definition);
    let diagnostics = args(json!({"path": case.broken.0}));
    mock.enqueue(Reply::tool_calls(
        &[
            ("d1", "lsp_definition", &definition),
            ("g1", "lsp_diagnostics", &diagnostics),
        ],
        1,
    ));
    mock.enqueue(Reply::text(&["Done."]));
    let out = env.reasonix(&["run", "look"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first = body(&mock, 1);
    Some((result_of(&first, "d1"), result_of(&first, "g1")))
}

#[test]
fn pyright_from_npm_answers_definitions_and_a_type_error() {
    let Some((definition, diagnostics)) = npm_server_answers(NpmCase {
        bin: "pyright-langserver",
        language: "python",
        project: "tests/lsp/python-project",
        broken: (
            "broken.py",
            "from pricing import net_price\n\ncount: int = net_price(1.0, 0.2)\nname: str = 42\n",
        ),
        definition: json!({"path": "app.py", "line": 5, "symbol": "net_price"}),
    }) else {
        return;
    };
    assert!(
        definition.contains("pricing.py:1:5  def net_price(gross: float, rate: float) -> float:"),
        "{definition}"
    );
    assert!(diagnostics.contains("broken.py:4:"), "{diagnostics}");
    assert!(diagnostics.contains("error"), "{diagnostics}");
}

#[test]
fn typescript_language_server_from_npm_answers_definitions_and_a_type_error() {
    let Some((definition, diagnostics)) = npm_server_answers(NpmCase {
        bin: "typescript-language-server",
        language: "typescript",
        project: "tests/lsp/ts-project",
        broken: (
            "src/broken.ts",
            "import { area } from \"./area\";\n\nexport const label: string = area(1);\n",
        ),
        definition: json!({"path": "src/main.ts", "line": 3, "symbol": "area"}),
    }) else {
        return;
    };
    // A cold answer: the declaration, not the import line (no syntax-only server).
    assert!(
        definition.contains("src/area.ts:1:17  export function area(side: number): number {"),
        "{definition}"
    );
    assert!(
        diagnostics.contains("src/broken.ts:3:14: error [2322]"),
        "{diagnostics}"
    );
}
