//! The per-call cost of an interceptor served by a sidecar: `tests/sidecars/probe.py` (Python,
//! standard library) answering `extension/intercept` with `continue`, through the real
//! transport, unconfined and in bubblewrap. Ignored by default (it prints figures, asserts
//! nothing about time):
//!
//! `cargo test -p reasonix-sidecar --release --test intercept_cost -- --ignored --nocapture`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use reasonix_core::sandbox::SandboxPolicy;
use reasonix_sidecar::manifest;
use reasonix_sidecar::runtime::{Package, Sidecars};
use reasonix_sidecar::sandbox::Confinement;
use std::path::Path;
use std::time::Instant;

fn package(dir: &Path) -> Package {
    let probe = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sidecars/probe.py");
    std::fs::copy(probe, dir.join("probe.py")).unwrap();
    std::fs::write(
        dir.join("config.json"),
        r#"{"points": {"tool.before": {"action": "continue"}}}"#,
    )
    .unwrap();
    let text = serde_json::json!({
        "apiVersion": manifest::API_VERSION, "name": "probe", "version": "0.1.0",
        "runtime": {"command": "python3",
                    "args": ["${REASONIX_PLUGIN_ROOT}/probe.py", "${REASONIX_PLUGIN_ROOT}/config.json"],
                    "capabilities": ["interceptors"], "intercepts": ["tool.before"]}
    })
    .to_string();
    std::fs::write(dir.join(manifest::MANIFEST_FILE), &text).unwrap();
    Package {
        root: dir.to_path_buf(),
        manifest: manifest::parse(&text, dir).unwrap(),
    }
}

fn measure(label: &str, confine: impl Fn(&Path) -> Confinement) {
    let dir = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let confinement = confine(ws.path());
    if let Confinement::Unavailable(reason) = &confinement {
        println!("{label}: not measured ({reason})");
        return;
    }
    let started = Instant::now();
    let sidecars = Sidecars::start(vec![package(dir.path())], ws.path(), &confinement).unwrap();
    let startup = started.elapsed();
    for skipped in &sidecars.skipped {
        println!("{label}: skipped: {skipped}");
    }
    let interceptor = sidecars.interceptors().pop().unwrap();
    let payload = r#"{"name":"read_file","arguments":"{\"path\":\"notes.txt\"}","callId":"c1"}"#;
    for _ in 0..50 {
        interceptor.intercept("tool.before", payload).unwrap();
    }
    let n = 2000;
    let t = Instant::now();
    for _ in 0..n {
        interceptor.intercept("tool.before", payload).unwrap();
    }
    let per_call = t.elapsed() / n;
    println!("{label}: start-up + handshake {startup:?}; {n} intercepts, {per_call:?} per call");
}

#[test]
#[ignore = "prints figures"]
fn intercept_round_trip_cost() {
    measure("unconfined", |_| Confinement::Unconfined);
    measure("bubblewrap", |ws| {
        Confinement::for_policy(SandboxPolicy::for_test(ws, vec![], vec![]))
    });
}
