//! `reasonix doctor`: check the installation and configuration, one line per finding, and exit
//! 1 when anything would stop Reasonix from working.

use crate::commands::providers::{key_source, profile_of};
use crate::context;
use crate::exit::{Code, Failure, Outcome};
use crate::term::{self, outln};
use reasonix_config::ShellSandbox;
use reasonix_config::providers;
use reasonix_core::catalog::Catalog;
use serde_json::json;
use std::path::Path;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    Warn,
    Fail,
}

struct Finding {
    status: Status,
    area: &'static str,
    message: String,
}

#[derive(Default)]
struct Report(Vec<Finding>);

/// What each `settings.json` file contributed: hooks (and whether they run) and permission
/// rules as applied.
fn report_settings(report: &mut Report, config: &reasonix_config::Config) {
    for file in &config.settings {
        let path = reasonix_core::terminal::shown(&file.path.display().to_string()).to_string();
        let trust = if file.trusted {
            ""
        } else {
            " (untrusted: its hooks do not run, its widening rules do not apply)"
        };
        report.add(
            Status::Ok,
            "settings",
            format!(
                "read {path} ({}){trust}: {} hook(s)",
                file.scope, file.hooks
            ),
        );
        for rule in &file.rules {
            report.add(
                Status::Ok,
                "settings",
                format!("{path}: {}", reasonix_core::terminal::shown(rule)),
            );
        }
    }
    let running = config
        .hooks
        .iter()
        .filter(|h| h.trusted && crate::hooks::never_fires(&h.event).is_none())
        .count();
    if running > 0 {
        report.add(
            Status::Ok,
            "hooks",
            format!("{running} hook(s) run (`reasonix hooks list` shows them)"),
        );
    }
}

/// A provider whose kind no loaded plugin serves.
fn report_unserved(report: &mut Report, p: &providers::ResolvedProvider, served: &[String]) {
    report.add(
        Status::Fail,
        "providers",
        format!(
            "`{}`: kind `{}` is served by no loaded plugin; kinds served: {}",
            p.name,
            p.kind,
            served.join(", ")
        ),
    );
}

/// Where a provider's API key comes from, or that it is missing.
fn report_key(report: &mut Report, p: &providers::ResolvedProvider, home: &std::path::Path) {
    match key_source(p, home) {
        "missing" => report.add(
            Status::Fail,
            "providers",
            format!(
                "`{}`: API key {} is not set (environment or {})",
                p.name,
                p.api_key_env.as_deref().unwrap_or(""),
                home.join(".env").display()
            ),
        ),
        source => report.add(
            Status::Ok,
            "providers",
            format!("`{}`: API key: {source}", p.name),
        ),
    }
}

impl Report {
    fn add(&mut self, status: Status, area: &'static str, message: impl Into<String>) {
        self.0.push(Finding {
            status,
            area,
            message: message.into(),
        });
    }
}

pub fn run(as_json: bool) -> Outcome {
    let cx = context::load()?;
    let mut report = Report::default();

    if cx.config.sources.is_empty() {
        report.add(
            Status::Warn,
            "config",
            format!(
                "no config file found ({} or ./reasonix.toml)",
                cx.paths.user_config().display()
            ),
        );
    }
    for source in &cx.config.sources {
        report.add(Status::Ok, "config", format!("read {}", source.display()));
    }
    match cx.config.project_trust {
        Some(reasonix_config::ProjectTrust::Trusted) => report.add(
            Status::Ok,
            "trust",
            "this workspace is trusted: its reasonix.toml applies in full".to_string(),
        ),
        Some(reasonix_config::ProjectTrust::Untrusted) => report.add(
            Status::Ok,
            "trust",
            "this workspace is not trusted: its reasonix.toml can only narrow your settings (`reasonix trust` to change that)".to_string(),
        ),
        None => {}
    }
    for warning in cx.config.warnings() {
        report.add(Status::Warn, "config", warning);
    }
    report_settings(&mut report, &cx.config);

    let plugins = cx.registry.plugins();
    report.add(
        Status::Ok,
        "plugins",
        format!(
            "{} loaded ({} built in)",
            plugins.len(),
            plugins
                .iter()
                .filter(|p| p.described.origin.is_builtin())
                .count()
        ),
    );
    for problem in cx.registry.problems() {
        report.add(Status::Fail, "plugins", problem.to_string());
    }

    let served = cx.registry.provider_kinds();
    match providers::resolve_providers(&cx.config) {
        Err(e) => report.add(
            Status::Fail,
            "providers",
            crate::commands::setup::with_real_home(&e.to_string(), &cx.paths.home),
        ),
        Ok(resolved) => {
            let default =
                providers::resolve_model(None, cx.config.default_model.as_deref(), &resolved);
            if resolved.is_empty() && default.is_err() {
                report.add(
                    Status::Fail,
                    "providers",
                    "no [[providers]] configured and `default_model` names no built-in preset or model alias; see `reasonix providers presets`",
                );
            }
            for p in &resolved {
                match cx.registry.provider(&p.kind) {
                    Some(kind) => {
                        report.add(
                            Status::Ok,
                            "providers",
                            format!("`{}`: kind {} served by {}", p.name, p.kind, kind.source()),
                        );
                        // The kind's plugin checks each model's effort and reasoning settings.
                        for model in &p.models {
                            if let Some(Err(e)) = profile_of(&cx, p, model) {
                                report.add(Status::Fail, "providers", e);
                            }
                        }
                    }
                    None => report_unserved(&mut report, p, &served),
                }
                report_key(&mut report, p, &cx.paths.home);
            }
            match default {
                // A built-in preset used as it is (no [[providers]] entry): its kind and key are
                // checked here, as the loop above does for configured providers.
                Ok((p, model)) if providers::is_implicit(p) => {
                    report.add(
                        Status::Ok,
                        "providers",
                        format!(
                            "default model: {}/{model} (the built-in preset `{}` as it is: no [[providers]] entry)",
                            p.name, p.name
                        ),
                    );
                    if cx.registry.provider(&p.kind).is_none() {
                        report_unserved(&mut report, p, &served);
                    }
                    report_key(&mut report, p, &cx.paths.home);
                }
                Ok((p, model)) => report.add(
                    Status::Ok,
                    "providers",
                    format!("default model: {}/{model}", p.name),
                ),
                Err(e) if !resolved.is_empty() => {
                    report.add(Status::Fail, "providers", e.to_string());
                }
                Err(_) => {}
            }
        }
    }

    let shell = cx.config.sandbox.bash.unwrap_or_default();
    let (sandbox, how) = reasonix_host::host::process::OS_SANDBOX;
    match (
        shell,
        reasonix_host::host::process::os_sandbox_check(),
    ) {
        (_, Ok(())) => report.add(Status::Ok, "sandbox", format!("{sandbox} works")),
        (ShellSandbox::Enforce, Err(why)) => report.add(
            Status::Fail,
            "sandbox",
            format!(
                "{why}; shell commands will be refused. To fix: {how}, or set `[sandbox] bash = \"off\"`"
            ),
        ),
        (ShellSandbox::Off, Err(why)) => report.add(
            Status::Warn,
            "sandbox",
            format!("{why}; shell commands run unconfined (`[sandbox] bash = \"off\"`)"),
        ),
    }

    let language =
        reasonix_i18n::choose(crate::cli_text::configured_language().as_deref(), &|name| {
            std::env::var(name).ok()
        });
    report.add(
        Status::Ok,
        "language",
        format!(
            "interface in {} (from {})",
            reasonix_i18n::lookup(language.language, "language-name", &[]),
            language.source
        ),
    );
    for (source, value) in &language.ignored {
        report.add(
            Status::Warn,
            "language",
            format!(
                "{source} = {:?} names no language with a catalogue (en, zh-CN); skipped",
                value
            ),
        );
    }
    if cx.config.lsp.enabled == Some(false) {
        report.add(
            Status::Ok,
            "lsp",
            "off (`[lsp] enabled = false`)".to_string(),
        );
    } else {
        let workspace = std::env::current_dir().unwrap_or_default();
        for (language, found) in reasonix_runtime::lsp::servers_found(&cx.config.lsp, &workspace) {
            match found {
                Ok(program) => report.add(
                    Status::Ok,
                    "lsp",
                    format!("{language}: {}", program.display()),
                ),
                Err(why) => report.add(Status::Ok, "lsp", format!("{language}: {why}")),
            }
        }
    }

    for (what, dir) in [("home", &cx.paths.home), ("cache", &cx.paths.cache)] {
        match writable(dir) {
            Ok(()) => report.add(Status::Ok, "paths", format!("{what} {}", dir.display())),
            Err(e) => report.add(
                Status::Fail,
                "paths",
                format!("{what} {} is not writable: {e}", dir.display()),
            ),
        }
    }

    let failed = report.0.iter().any(|f| f.status == Status::Fail);
    if as_json {
        let findings: Vec<serde_json::Value> = report
            .0
            .iter()
            .map(|f| json!({"status": label(f.status), "area": f.area, "message": f.message}))
            .collect();
        term::print_json(&json!({"ok": !failed, "findings": findings}))
            .map_err(Failure::runtime)?;
    } else {
        for f in &report.0 {
            outln!("{:<4} {:<9} {}", label(f.status), f.area, f.message);
        }
    }
    Ok(if failed { Code::Failure } else { Code::Success })
}

fn label(status: Status) -> &'static str {
    match status {
        Status::Ok => "ok",
        Status::Warn => "warn",
        Status::Fail => "FAIL",
    }
}

/// Create the directory if needed and prove a file can be written in it.
fn writable(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".doctor-probe-{}", std::process::id()));
    std::fs::write(&probe, b"ok")?;
    std::fs::remove_file(&probe)
}
