//! `reasonix plugin update|list|info|remove|enable|disable` for the sidecar packages earlier
//! builds installed under `<home>/plugins/` (the `sidecars` section of the index). A package
//! with a `runtime` is installed as a plugin package now (`packages.rs`); these keep working.

use crate::exit::{Code, Failure, Outcome};
use crate::term::{self, errln, outln};
use reasonix_core::terminal::shown;
use reasonix_sidecar::package::{self, PackageEntry, PackageIndex};
use serde_json::json;
use std::path::Path;

fn plugins_dir() -> std::path::PathBuf {
    reasonix_config::Paths::from_env().plugins_dir()
}

fn index() -> Result<PackageIndex, Failure> {
    PackageIndex::load(&plugins_dir()).map_err(Failure::runtime)
}

/// The installed package named `name`, if any.
pub fn installed(name: &str) -> Result<Option<PackageEntry>, Failure> {
    Ok(index()?.get(name).cloned())
}

/// Install the package at `source`: show the exact command and what it can reach, then get
/// the user's agreement (`--yes`, or a question on a terminal).
pub fn install(
    source: &str,
    expect_name: Option<&str>,
    yes: bool,
    name_taken: impl Fn(&str) -> bool,
) -> Outcome {
    let dir = plugins_dir();
    let checked = package::check(Path::new(source)).map_err(Failure::usage)?;
    let name = checked.manifest.name.clone();
    super::packages::name_admitted(source, &name, expect_name, name_taken)?;
    errln!(
        "sidecar package `{}` {} from {}",
        shown(&name),
        shown(&checked.manifest.version),
        checked.source.display()
    );
    for line in package::trust_summary(&checked.manifest, &dir.join(&name)) {
        errln!("{line}");
    }
    if checked.manifest.contributes.is_some() {
        errln!(
            "note: `contributes` (skills, hooks, MCP servers, …) is not used for a sidecar package installed by an earlier build; `reasonix plugin remove {}` and install it again to use it as a plugin package",
            shown(&name)
        );
    }
    if !super::packages::agreed(yes, "Trust and install?", &name)? {
        return Err(Failure::usage(anyhow::anyhow!(
            "not trusted, so `{}` was not installed",
            shown(&name)
        )));
    }
    let entry = package::install(&dir, &checked).map_err(Failure::runtime)?;
    outln!(
        "{} {} installed (sidecar): {}",
        shown(&entry.name),
        shown(&entry.version),
        dir.join(&entry.root).display()
    );
    Ok(Code::Success)
}

pub fn remove(name: &str) -> Outcome {
    let Some(entry) = installed(name)? else {
        return Err(Failure::usage(anyhow::anyhow!(
            "no installed plugin is named `{name}`"
        )));
    };
    package::remove(&plugins_dir(), name).map_err(Failure::runtime)?;
    outln!("removed {} {}", shown(&entry.name), shown(&entry.version));
    Ok(Code::Success)
}

pub fn set_enabled(name: &str, enabled: bool) -> Outcome {
    package::set_enabled(&plugins_dir(), name, enabled).map_err(Failure::runtime)?;
    outln!(
        "{} {}",
        shown(name),
        if enabled { "enabled" } else { "disabled" }
    );
    Ok(Code::Success)
}

/// JSON of every sidecar package, for `plugin list --json`.
pub fn list_json() -> Result<serde_json::Value, Failure> {
    let dir = plugins_dir();
    Ok(serde_json::Value::Array(
        index()?
            .packages
            .iter()
            .map(|e| entry_json(&dir, e))
            .collect(),
    ))
}

fn entry_json(dir: &Path, e: &PackageEntry) -> serde_json::Value {
    let loaded = package::load_entry(dir, e);
    let runtime = loaded
        .as_ref()
        .ok()
        .and_then(|p| p.manifest.runtime.clone());
    json!({
        "name": e.name,
        "version": e.version,
        "kind": "sidecar",
        "enabled": e.enabled,
        "source": e.source,
        "root": dir.join(&e.root).display().to_string(),
        "command": loaded.as_ref().ok().map(command_line),
        "intercepts": runtime.as_ref().map(|r| r.intercepts.clone()).unwrap_or_default(),
        "tools": runtime.as_ref().map(|r| r.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>()).unwrap_or_default(),
        "required": runtime.as_ref().is_some_and(|r| r.required),
        "problem": loaded.as_ref().err().map(|e| e.to_string()),
    })
}

/// What the sidecar `runtime` of the package at `root` runs and serves (`None` without one).
pub fn runtime_json(root: &Path) -> Option<serde_json::Value> {
    let manifest = reasonix_sidecar::manifest::load(root).ok()?;
    let runtime = manifest.runtime.clone()?;
    let package = reasonix_sidecar::runtime::Package {
        root: root.to_path_buf(),
        manifest,
    };
    Some(json!({
        "command": command_line(&package),
        "intercepts": runtime.intercepts,
        "tools": runtime.tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
        "required": runtime.required,
    }))
}

fn command_line(p: &reasonix_sidecar::runtime::Package) -> String {
    match &p.manifest.runtime {
        Some(r) => reasonix_sidecar::spawn::Launch::new(
            &p.manifest.name,
            &p.manifest.version,
            &p.root,
            r,
            Path::new("<workspace>"),
        )
        .command_line(),
        None => String::new(),
    }
}

/// Print every sidecar package (after the components).
pub fn print_list() -> Result<(), Failure> {
    let dir = plugins_dir();
    for e in &index()?.packages {
        print_entry(&dir, e);
    }
    Ok(())
}

fn print_entry(dir: &Path, e: &PackageEntry) {
    let v = entry_json(dir, e);
    let text = |k: &str| {
        v[k].as_str()
            .map(|s| shown(s).to_string())
            .unwrap_or_default()
    };
    let list = |k: &str| {
        v[k].as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str())
                    .map(|s| shown(s).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    outln!(
        "{} {} (sidecar{})",
        shown(&e.name),
        shown(&e.version),
        if e.enabled { "" } else { "; disabled" }
    );
    outln!("  from:       {}", shown(&e.source));
    outln!("  runs:       {}", text("command"));
    if !list("intercepts").is_empty() {
        outln!("  intercepts: {}", list("intercepts"));
    }
    if !list("tools").is_empty() {
        outln!("  tools:      {}", list("tools"));
    }
    if let Some(problem) = v["problem"].as_str() {
        outln!("  problem:    {}", shown(problem));
    }
}

/// `plugin info` of a sidecar package.
pub fn info(e: &PackageEntry, as_json: bool) -> Outcome {
    let dir = plugins_dir();
    if as_json {
        term::print_json(&entry_json(&dir, e)).map_err(Failure::runtime)?;
        return Ok(Code::Success);
    }
    print_entry(&dir, e);
    if let Ok(p) = package::load_entry(&dir, e) {
        for line in package::trust_summary(&p.manifest, &p.root) {
            outln!("  {line}");
        }
    }
    Ok(Code::Success)
}
