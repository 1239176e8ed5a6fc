//! `reasonix plugin install|update|remove|enable|disable|show|doctor` for plugin packages
//! (Claude Code and Codex plugin folders, native `reasonix-plugin.json` — with a sidecar
//! `runtime` or not — from a folder, a git repository pinned to a commit, or
//! `entry@marketplace`), and `reasonix plugin marketplace add|list|remove|update`. Single
//! components go through `plugins.rs`; sidecar packages installed by earlier builds (under
//! `<home>/plugins/`) through `sidecar_packages.rs`.

use crate::exit::{Code, Failure, Outcome};
use crate::term::{self, err, errln, outln};
use reasonix_core::terminal::shown;
use reasonix_package::index::{Entry, Index};
use reasonix_package::install::{self, Plan};
use reasonix_package::marketplace;
use reasonix_package::source::Source;
use reasonix_package::{Kind, Level};
use serde_json::json;
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};

fn home() -> PathBuf {
    reasonix_config::Paths::from_env().home
}

fn index() -> Result<Index, Failure> {
    Index::load(&home()).map_err(Failure::runtime)
}

/// The installed package named `name`, if any.
pub fn installed(name: &str) -> Result<Option<Entry>, Failure> {
    Ok(index()?.get(name).cloned())
}

/// Whether `source` is for this installer: a git repository (`ssh://`, `git@`, `file://`,
/// `git+https://`, an `https://` URL ending in `.git`, or any URL with `--ref`/`--subdir`), a
/// marketplace entry, or a folder holding a Claude, Codex or native manifest.
pub fn handles(source: &str, git_flags: bool) -> bool {
    match Source::parse(source) {
        // An `https://` URL is a component download unless it names a repository.
        Source::Git(url) => {
            git_flags
                || url.ends_with(".git")
                || url.ends_with(".git/")
                || !(url.starts_with("https://") || url.starts_with("http://"))
                || source.starts_with("git+")
        }
        Source::Marketplace { .. } => !Path::new(source).exists(),
        Source::Dir(dir) => reasonix_package::read::kind_of(&dir).is_some(),
    }
}

/// What a package's WebAssembly component is and asks for, as its review line says it. The
/// check compiles it into the artifact cache, so the first session does not wait for that.
fn describe_component(path: &Path) -> Result<String, String> {
    use reasonix_host::install::{self as components, Fetched, Grant};
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    if reasonix_runtime::term::stderr_is_terminal() {
        errln!("· compiling {} (once)…", path.display());
    }
    let fetched = Fetched {
        bytes,
        source: path.display().to_string(),
        note: None,
    };
    let checked = components::check(&reasonix_config::Paths::from_env(), fetched, None)
        .map_err(|e| e.to_string())?;
    let d = &checked.described;
    let names = |what: &str, list: Vec<&str>| {
        (!list.is_empty()).then(|| format!("{what} {}", list.join(", ")))
    };
    let serves: Vec<String> = [
        names("tools", d.tools.iter().map(|t| t.name.as_str()).collect()),
        names(
            "provider kinds",
            d.provider_kinds.iter().map(|k| k.name.as_str()).collect(),
        ),
        names(
            "intercepts",
            d.interception_points
                .iter()
                .map(|s| s.point.as_str())
                .collect(),
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    Ok(format!(
        "`{}` {} ({}); asks: {}",
        d.info.name,
        d.info.version,
        if serves.is_empty() {
            "serves nothing".to_string()
        } else {
            serves.join("; ")
        },
        Grant::requested_by(&d.info).summary()
    ))
}

/// What the install question and `show` print about a package.
fn describe(plan_or_entry: (&str, &str, Kind, &reasonix_package::review::Review)) {
    let (name, version, kind, review) = plan_or_entry;
    errln!(
        "package `{}` {} ({} layout)",
        shown(name),
        shown(version),
        kind.label()
    );
    if review.brings.is_empty() {
        errln!("  brings: nothing this build uses");
    } else {
        errln!("  brings:");
        for line in &review.brings {
            errln!("    {}", shown(line));
        }
    }
    if review.runs.is_empty() {
        errln!("  runs: nothing (no hooks, MCP servers, sidecars or scripts)");
    } else {
        errln!(
            "  runs or reaches, under the same sandbox and rules as your own hooks and servers:"
        );
        for line in &review.runs {
            errln!("    {}", shown(line));
        }
    }
}

/// For a package with a sidecar `runtime`: the exact command and everything the process can
/// reach, as the sidecar tier states it (installing is trusting it).
fn sidecar_lines(home: &Path, plan: &Plan) {
    if plan.package.sidecar.is_none() {
        return;
    }
    match reasonix_sidecar::manifest::load(&plan.staged_root()) {
        Ok(manifest) => {
            for line in reasonix_sidecar::package::trust_summary(&manifest, &plan.target(home)) {
                errln!("  {line}");
            }
        }
        Err(e) => errln!("  sidecar: {}", shown(&e.to_string())),
    }
}

fn compatibility_lines(plan: &Plan) {
    let c = &plan.package.compatibility;
    let level = match c.level {
        Level::Full => "full",
        Level::Partial => "partial",
        Level::None => "none",
    };
    errln!("  compatibility: {level}");
    for note in &c.notes {
        errln!("    - {}", shown(note));
    }
    let o = &plan.origin;
    let mut from = format!("  from: {} {}", o.kind, shown(&o.location));
    if let Some(entry) = &o.entry {
        from = format!(
            "  from: marketplace {} entry {}",
            shown(&o.location),
            shown(entry)
        );
    }
    if let Some(sub) = &o.subdir {
        from.push_str(&format!(" (folder {})", shown(sub)));
    }
    if let Some(commit) = &o.commit {
        from.push_str(&format!(" at commit {commit}"));
    }
    errln!("{from}");
}

/// `name` (what `source` holds) is the one asked for (`--name`) and not taken by another
/// plugin.
pub fn name_admitted(
    source: &str,
    name: &str,
    expect_name: Option<&str>,
    name_taken: impl Fn(&str) -> bool,
) -> Result<(), Failure> {
    if let Some(expected) = expect_name
        && expected != name
    {
        return Err(Failure::usage(anyhow::anyhow!(
            "{source} is package `{}`, not `{expected}`; nothing was installed",
            shown(name)
        )));
    }
    if name_taken(name) {
        return Err(Failure::usage(anyhow::anyhow!(
            "a plugin is already named `{}`; remove it first; nothing was installed",
            shown(name)
        )));
    }
    Ok(())
}

/// `yes`, or the user's answer on a terminal; `false` means nothing may be written.
pub fn agreed(yes: bool, question: &str, name: &str) -> Result<bool, Failure> {
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        return Err(Failure::usage(anyhow::anyhow!(
            "cannot ask: stdin is not a terminal; nothing was written. Pass --yes to agree to what `{}` brings and runs (listed above)",
            shown(name)
        )));
    }
    err!("{question} [y/N] ");
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(Failure::runtime)?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// `reasonix plugin install <source>` for a package.
pub fn install(
    source: &str,
    reference: Option<&str>,
    subdir: Option<&str>,
    expect_name: Option<&str>,
    yes: bool,
    name_taken: impl Fn(&str) -> bool,
) -> Outcome {
    let home = home();
    let plan = install::plan(
        &home,
        &Source::parse(source),
        reference,
        subdir,
        &describe_component,
    )
    .map_err(Failure::usage)?;
    let name = plan.package.name.clone();
    name_admitted(source, &name, expect_name, name_taken)?;
    if let Some(old) = installed(&name)? {
        return Err(Failure::usage(anyhow::anyhow!(
            "package `{}` {} is installed already; `reasonix plugin update {}` installs another version (and asks again when it would run more)",
            shown(&name),
            shown(&old.version),
            shown(&name)
        )));
    }
    describe((
        &name,
        &plan.package.version,
        plan.package.kind,
        &plan.review,
    ));
    sidecar_lines(&home, &plan);
    compatibility_lines(&plan);
    if plan.package.compatibility.level == Level::None {
        return Err(Failure::usage(anyhow::anyhow!(
            "package `{}` brings nothing this build can use; nothing was installed",
            shown(&name)
        )));
    }
    if !agreed(yes, "Install it?", &name)? {
        return Err(Failure::usage(anyhow::anyhow!(
            "not agreed, so `{}` was not installed",
            shown(&name)
        )));
    }
    let target = plan.target(&home);
    let entry = install::commit(&home, plan).map_err(Failure::runtime)?;
    outln!(
        "{} {} installed ({} files): {}",
        shown(&entry.name),
        shown(&entry.version),
        entry.files.len(),
        target.display()
    );
    Ok(Code::Success)
}

/// `reasonix plugin update <name> [source]`: the recorded source again (a git source at its
/// newest commit unless `--ref`), or `source`. Asks again only when it would run more.
pub fn update(name: &str, source: Option<&str>, reference: Option<&str>, yes: bool) -> Outcome {
    let home = home();
    let Some(entry) = installed(name)? else {
        return Err(Failure::usage(anyhow::anyhow!(
            "no package is named `{}`",
            shown(name)
        )));
    };
    let o = &entry.origin;
    let (source, subdir) = match (source, o.kind.as_str()) {
        (Some(s), _) => (Source::parse(s), None),
        (None, "marketplace") => (
            Source::Marketplace {
                entry: o.entry.clone().unwrap_or_else(|| entry.name.clone()),
                market: o.location.clone(),
            },
            None,
        ),
        (None, "git") => (Source::Git(o.location.clone()), o.subdir.clone()),
        (None, _) => (Source::Dir(PathBuf::from(&o.location)), o.subdir.clone()),
    };
    let plan = install::plan(
        &home,
        &source,
        reference,
        subdir.as_deref(),
        &describe_component,
    )
    .map_err(Failure::usage)?;
    if plan.package.name != entry.name {
        return Err(Failure::usage(anyhow::anyhow!(
            "the source now holds package `{}`, not `{}`; nothing was changed",
            shown(&plan.package.name),
            shown(name)
        )));
    }
    describe((name, &plan.package.version, plan.package.kind, &plan.review));
    sidecar_lines(&home, &plan);
    compatibility_lines(&plan);
    let grown = plan.review.grown_from(&entry.review.runs);
    for gone in entry
        .review
        .runs
        .iter()
        .filter(|l| !plan.review.runs.contains(l))
    {
        errln!("  no longer runs: {}", shown(gone));
    }
    if grown.is_empty() {
        errln!("  nothing new runs: updating without asking");
    } else {
        errln!("  NEW — this version would also run:");
        for line in &grown {
            errln!("    + {}", shown(line));
        }
        if !agreed(yes, "Update it?", name)? {
            return Err(Failure::usage(anyhow::anyhow!(
                "not agreed, so `{}` stays at {}",
                shown(name),
                shown(&entry.version)
            )));
        }
    }
    let enabled = entry.enabled;
    let updated = install::commit(&home, plan).map_err(Failure::runtime)?;
    if !enabled {
        install::set_enabled(&home, name, false).map_err(Failure::runtime)?;
    }
    outln!(
        "{} updated: {} → {}",
        shown(name),
        shown(&entry.version),
        shown(&updated.version)
    );
    Ok(Code::Success)
}

pub fn remove(name: &str) -> Outcome {
    let removed = install::remove(&home(), name).map_err(Failure::runtime)?;
    match removed {
        Some(entry) => {
            outln!("removed {} {}", shown(&entry.name), shown(&entry.version));
            Ok(Code::Success)
        }
        None => Err(Failure::usage(anyhow::anyhow!(
            "no package is named `{}`",
            shown(name)
        ))),
    }
}

pub fn set_enabled(name: &str, enabled: bool) -> Outcome {
    if !install::set_enabled(&home(), name, enabled).map_err(Failure::runtime)? {
        return Err(Failure::usage(anyhow::anyhow!(
            "no package is named `{}`",
            shown(name)
        )));
    }
    outln!(
        "{} {}",
        shown(name),
        if enabled { "enabled" } else { "disabled" }
    );
    Ok(Code::Success)
}

fn entry_json(e: &Entry) -> serde_json::Value {
    json!({
        "name": e.name,
        "kind": "package",
        "sidecar": super::sidecar_packages::runtime_json(&e.root(&home())),
        "version": e.version,
        "description": e.description,
        "manifestKind": e.manifest_kind,
        "enabled": e.enabled,
        "origin": e.origin,
        "brings": e.review.brings,
        "runs": e.review.runs,
        "files": e.files.len(),
    })
}

/// JSON of every package, for `plugin list --json`.
pub fn list_json() -> Result<serde_json::Value, Failure> {
    Ok(json!(
        index()?.packages.iter().map(entry_json).collect::<Vec<_>>()
    ))
}

/// The packages' lines of `plugin list`.
pub fn print_list() -> Result<(), Failure> {
    for e in &index()?.packages {
        outln!(
            "{} {} (package, {} layout{})",
            shown(&e.name),
            shown(&e.version),
            e.manifest_kind.label(),
            if e.enabled { "" } else { ", disabled" }
        );
        outln!("  brings: {}", shown(&e.review.brings.join(", ")));
        if let Some(sidecar) = super::sidecar_packages::runtime_json(&e.root(&home())) {
            outln!(
                "  sidecar: {}",
                shown(sidecar["command"].as_str().unwrap_or_default())
            );
        }
        outln!(
            "  runs:   {}",
            if e.review.runs.is_empty() {
                "nothing".to_string()
            } else {
                format!(
                    "{} (see `plugin show {}`)",
                    e.review.runs.len(),
                    shown(&e.name)
                )
            }
        );
    }
    Ok(())
}

/// `reasonix plugin show <name>`.
pub fn show(name: &str, as_json: bool) -> Outcome {
    let Some(e) = installed(name)? else {
        return Err(Failure::usage(anyhow::anyhow!(
            "no package is named `{}`",
            shown(name)
        )));
    };
    if as_json {
        term::print_json(&entry_json(&e)).map_err(Failure::runtime)?;
        return Ok(Code::Success);
    }
    outln!(
        "{} {} ({} layout){}",
        shown(&e.name),
        shown(&e.version),
        e.manifest_kind.label(),
        if e.enabled { "" } else { ", disabled" }
    );
    if !e.description.is_empty() {
        outln!("  {}", shown(&e.description));
    }
    outln!("  folder: {}", e.root(&home()).display());
    outln!(
        "  from:   {} {}{}",
        e.origin.kind,
        shown(&e.origin.location),
        e.origin
            .commit
            .as_ref()
            .map(|c| format!(" at commit {c}"))
            .unwrap_or_default()
    );
    for line in &e.review.brings {
        outln!("  brings: {}", shown(line));
    }
    for line in &e.review.runs {
        outln!("  runs:   {}", shown(line));
    }
    outln!(
        "  files:  {} (each checked against its sha256 at every start)",
        e.files.len()
    );
    Ok(Code::Success)
}

/// `reasonix plugin doctor <name>`: its files against their hashes, and whether it reads; exit
/// 1 on a problem.
pub fn doctor(name: &str) -> Outcome {
    let home = home();
    let Some(e) = installed(name)? else {
        return Err(Failure::usage(anyhow::anyhow!(
            "no package is named `{}`",
            shown(name)
        )));
    };
    let root = e.root(&home);
    let mut problems = Vec::new();
    if let Err(why) = reasonix_package::files::verify(&root, &e.files) {
        problems.push(why);
    } else {
        // Read as the review was computed: variables by name, not value.
        match reasonix_package::read::read(&root, &install::by_name) {
            Ok(p) => {
                match reasonix_package::review::review(&p, &describe_component) {
                    Ok(now) => {
                        for line in now.grown_from(&e.review.runs) {
                            problems.push(format!("runs more than granted: {line}"));
                        }
                    }
                    Err(err) => problems.push(err.to_string()),
                }
                for note in p.compatibility.notes {
                    outln!("note: {}", shown(&note));
                }
            }
            Err(err) => problems.push(err.to_string()),
        }
    }
    if !e.enabled {
        outln!(
            "note: `{}` is disabled (`reasonix plugin enable {}`)",
            shown(name),
            shown(name)
        );
    }
    if problems.is_empty() {
        outln!("{}: ok ({} files as installed)", shown(name), e.files.len());
        return Ok(Code::Success);
    }
    for p in &problems {
        outln!("problem: {}", shown(p));
    }
    Ok(Code::Failure)
}

#[derive(Debug, clap::Subcommand)]
pub enum MarketplaceCommand {
    /// Add a marketplace: a git repository (https, ssh, file://) or a folder holding
    /// `.claude-plugin/marketplace.json`. A copy at its current commit is kept.
    Add { source: String },
    /// The known marketplaces and their entries.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Forget a marketplace (installed packages stay).
    Remove { name: String },
    /// Fetch a marketplace again (its newest commit).
    Update { name: String },
}

pub fn marketplace(command: MarketplaceCommand) -> Outcome {
    let home = home();
    match command {
        MarketplaceCommand::Add { source } => {
            let (known, _) = marketplace::add(&home, &source).map_err(Failure::usage)?;
            let (_, entries) = marketplace::entries(&marketplace::copy_of(&home, &known.name))
                .map_err(Failure::runtime)?;
            outln!(
                "marketplace `{}` added{} with {} entries; install one with `reasonix plugin install <entry>@{}`",
                shown(&known.name),
                known
                    .commit
                    .as_ref()
                    .map(|c| format!(" at commit {c}"))
                    .unwrap_or_default(),
                entries.len(),
                shown(&known.name)
            );
            Ok(Code::Success)
        }
        MarketplaceCommand::List { json: as_json } => {
            let registry = marketplace::Registry::load(&home).map_err(Failure::runtime)?;
            let mut all = Vec::new();
            for known in &registry.marketplaces {
                let entries = marketplace::entries(&marketplace::copy_of(&home, &known.name))
                    .map(|(_, e)| e)
                    .unwrap_or_default();
                all.push((known.clone(), entries));
            }
            if as_json {
                let value: Vec<_> = all
                    .iter()
                    .map(|(k, entries)| {
                        json!({
                            "name": k.name, "location": k.location, "commit": k.commit,
                            "entries": entries.iter().map(|e| json!({"name": e.name, "description": e.description, "version": e.version})).collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                term::print_json(&json!({"marketplaces": value})).map_err(Failure::runtime)?;
                return Ok(Code::Success);
            }
            if all.is_empty() {
                outln!(
                    "no marketplaces; add one with `reasonix plugin marketplace add <git-url|folder>`"
                );
            }
            for (k, entries) in all {
                outln!(
                    "{}  {}{}",
                    shown(&k.name),
                    shown(&k.location),
                    k.commit.map(|c| format!(" @ {c}")).unwrap_or_default()
                );
                for e in entries {
                    outln!(
                        "  {}@{}  {}",
                        shown(&e.name),
                        shown(&k.name),
                        shown(&e.description)
                    );
                }
            }
            Ok(Code::Success)
        }
        MarketplaceCommand::Remove { name } => {
            if !marketplace::remove(&home, &name).map_err(Failure::runtime)? {
                return Err(Failure::usage(anyhow::anyhow!(
                    "no marketplace is named `{}`",
                    shown(&name)
                )));
            }
            outln!("marketplace `{}` removed", shown(&name));
            Ok(Code::Success)
        }
        MarketplaceCommand::Update { name } => {
            let registry = marketplace::Registry::load(&home).map_err(Failure::runtime)?;
            let Some(known) = registry.get(&name).cloned() else {
                return Err(Failure::usage(anyhow::anyhow!(
                    "no marketplace is named `{}`",
                    shown(&name)
                )));
            };
            let (now, before) = marketplace::add(&home, &known.location).map_err(Failure::usage)?;
            match (before, now.commit) {
                (Some(b), Some(n)) if b == n => {
                    outln!("marketplace `{}` is at {n} already", shown(&name))
                }
                (b, n) => outln!(
                    "marketplace `{}` updated: {} → {}",
                    shown(&name),
                    b.unwrap_or_else(|| "-".into()),
                    n.unwrap_or_else(|| "folder copy".into())
                ),
            }
            Ok(Code::Success)
        }
    }
}
