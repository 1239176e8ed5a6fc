//! What installed extensions cost at start (docs/PERFORMANCE.md, "Skills and packages"): a
//! headless `reasonix run` answering one line against the mock LLM server, timed from spawning
//! the process to the mock receiving its first request, with
//! - nothing installed;
//! - 50 skills in `<home>/skills` and 5 packages (Claude Code layout: 4 commands, 2 skills
//!   with a script, 1 agent each) installed with `reasonix plugin install`;
//! - the same, each package also bringing a `PreToolUse` hook (which loads the hooks
//!   component).
//!
//! Every package's files are hashed against the index at each start. The variants alternate run
//! by run (one home each, one artifact cache), so a drift of the machine's load affects all
//! alike. Also printed: the bytes of the `skill` tool's description per indexed skill.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Prints its own measurements, nothing from plugins (see host-cli/src/term.rs).
#![allow(clippy::disallowed_macros)]

mod common;

use common::{median, ms};
use reasonix_mock_llm::{MockLlm, Reply};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 20;
const SKILLS: usize = 50;
const PACKAGES: usize = 5;

struct Variant {
    label: &'static str,
    home: PathBuf,
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill(dir: &Path, name: &str) {
    write(
        &dir.join(name).join("SKILL.md"),
        &format!(
            "---\nname: {name}\ndescription: Work on {name} tasks: the checklist, the commands to run and the files to read first. Use when the user mentions {name}.\n---\n\n# {name}\n\n1. Read the notes.\n2. Run the checks.\n3. Report.\n"
        ),
    );
    write(&dir.join(name).join("scripts/run.sh"), "echo run\n");
}

fn package(dir: &Path, name: &str, hook: bool) {
    write(
        &dir.join(".claude-plugin/plugin.json"),
        &format!(r#"{{"name": "{name}", "version": "1.0.0", "description": "Bench package"}}"#),
    );
    for c in ["build", "test", "lint", "release"] {
        write(
            &dir.join(format!("commands/{c}.md")),
            &format!("---\ndescription: {c} it\n---\n{c} $ARGUMENTS\n"),
        );
    }
    for s in ["plan", "review"] {
        skill(&dir.join("skills"), s);
    }
    write(
        &dir.join("agents/helper.md"),
        "---\nname: helper\ndescription: Helps\n---\nYou help.\n",
    );
    if hook {
        write(
            &dir.join("hooks/hooks.json"),
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
        );
    }
}

fn main() {
    let bin = env!("CARGO_BIN_EXE_reasonix");
    let root = tempfile::tempdir().unwrap();
    let mock = MockLlm::start().unwrap();
    let ws = root.path().join("workspace");
    let cache = root.path().join("cache");
    std::fs::create_dir_all(&ws).unwrap();
    let config = format!(
        "default_model = \"mock\"\n[[providers]]\nname = \"mock\"\nkind = \"openai\"\n\
         base_url = \"{}\"\nmodel = \"mock-model\"\napi_key_env = \"MOCK_LLM_KEY\"\n",
        mock.base_url()
    );
    let variants: Vec<Variant> = [
        "nothing installed",
        "50 skills + 5 packages",
        "50 skills + 5 packages with a hook each",
    ]
    .into_iter()
    .enumerate()
    .map(|(i, label)| {
        let home = root.path().join(format!("home-{i}"));
        write(&home.join("config.toml"), &config);
        write(&home.join(".env"), "MOCK_LLM_KEY=sk-bench\n");
        if i > 0 {
            for n in 0..SKILLS {
                skill(&home.join("skills"), &format!("skill-{n:02}"));
            }
            for p in 0..PACKAGES {
                let src = root.path().join(format!("src-{i}-{p}"));
                package(&src, &format!("kit-{p}"), i == 2);
                let out = command(bin, &home, &cache, &ws)
                    .args(["plugin", "install", src.to_str().unwrap(), "--yes"])
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
        Variant { label, home }
    })
    .collect();

    // Warm-up: the built-ins' artifacts into the cache.
    for v in &variants {
        once(bin, v, &cache, &ws, &mock);
    }
    let mut samples: Vec<Vec<Duration>> = variants.iter().map(|_| Vec::new()).collect();
    let mut index_bytes = Vec::new();
    for _ in 0..RUNS {
        for (v, out) in variants.iter().zip(samples.iter_mut()) {
            let (first, description) = once(bin, v, &cache, &ws, &mock);
            out.push(first);
            if v.label == "50 skills + 5 packages" {
                index_bytes.push(description);
            }
        }
    }
    println!("| variant | start → first request, median | max | vs nothing installed |");
    println!("|---|---|---|---|");
    let base = {
        let mut v = samples[0].clone();
        v.sort();
        median(&v)
    };
    for (v, s) in variants.iter().zip(&samples) {
        let mut s = s.clone();
        s.sort();
        let m = median(&s);
        println!(
            "| {} | {} | {} | {:+.1} % |",
            v.label,
            ms(m),
            ms(s[s.len() - 1]),
            (m.as_secs_f64() / base.as_secs_f64() - 1.0) * 100.0
        );
    }
    let indexed = SKILLS + PACKAGES * 2;
    let bytes = index_bytes.first().copied().unwrap_or(0);
    println!(
        "\nskill tool description: {bytes} bytes for {indexed} skills ({:.0} bytes per skill, the fixed text included)",
        bytes as f64 / indexed as f64
    );
}

fn command(bin: &str, home: &Path, cache: &Path, ws: &Path) -> Command {
    let mut c = Command::new(bin);
    c.env("REASONIX_HOME", home)
        .env("HOME", home)
        .env("REASONIX_CACHE_HOME", cache)
        .env("REASONIX_STATE_HOME", home.join("state"))
        .env_remove("REASONIX_LOG")
        .current_dir(ws)
        .stdin(Stdio::null());
    c
}

/// One run: spawn → the mock's first request, and the bytes of the `skill` tool's description.
fn once(bin: &str, v: &Variant, cache: &Path, ws: &Path, mock: &MockLlm) -> (Duration, usize) {
    mock.enqueue(Reply::text(&["hi"]));
    let seen = mock.requests().len();
    let start = Instant::now();
    let out = command(bin, &v.home, cache, ws)
        .args(["run", "--dir", ws.to_str().unwrap(), "hello"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = mock.requests();
    let first = &requests[seen];
    let body = first.json();
    let description = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "skill")
        .map(|t| t["function"]["description"].as_str().unwrap_or("").len())
        .unwrap_or(0);
    (first.at.duration_since(start), description)
}
