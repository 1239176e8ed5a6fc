//! `reasonix plugin`: list, info, install, update, remove, enable, disable. The kernel
//! (`reasonix_kernel::install`) does the work; this file asks and prints.

use crate::builtins::BUILTINS;
use crate::context;
use crate::exit::{Code, Failure, Outcome};
use reasonix_kernel::capability::Capabilities;
use reasonix_kernel::component::{LoadedPlugin, Origin};
use reasonix_kernel::index::{IndexEntry, PluginIndex};
use reasonix_kernel::install::{self, InstallError};
use serde_json::json;
use std::io::{BufRead, IsTerminal, Write};

/// `reasonix plugin install`.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// A component (.wasm), a directory holding one, or a cargo crate to build for
    /// wasm32-wasip2.
    pub source: String,
    #[command(flatten)]
    pub grant: GrantArgs,
    /// Refuse the component unless it calls itself NAME.
    #[arg(long)]
    pub name: Option<String>,
}

/// `reasonix plugin update`.
#[derive(Debug, clap::Args)]
pub struct UpdateArgs {
    /// The installed plugin.
    pub name: String,
    /// Where to take the new version from (default: the source it was installed from).
    pub source: Option<String>,
    #[command(flatten)]
    pub grant: GrantArgs,
}

/// How the grant is decided without asking.
#[derive(Debug, clap::Args)]
pub struct GrantArgs {
    /// Expected sha256 of the component (hex); refused on a mismatch.
    #[arg(long)]
    pub sha256: Option<String>,
    /// Grant everything the plugin requests, without asking.
    #[arg(long, short)]
    pub yes: bool,
    /// Grant one capability (repeatable): workspace=read|read-write, network=PATTERN, env=NAME,
    /// process. Only what the plugin also requests is granted.
    #[arg(long = "grant", value_name = "CAP")]
    pub grants: Vec<String>,
}

fn install_failure(e: InstallError) -> Failure {
    match e {
        InstallError::BadGrant { .. }
        | InstallError::Builtin(_)
        | InstallError::BuiltinSwitch { .. }
        | InstallError::NotInstalled(_)
        | InstallError::Clash { .. } => Failure::usage(e),
        _ => Failure::runtime(e),
    }
}

fn is_builtin(cx: &context::Context, name: &str) -> bool {
    BUILTINS.iter().any(|b| b.name == name)
        || cx
            .registry
            .plugins()
            .iter()
            .any(|p| p.name() == name && p.described.origin.is_builtin())
}

pub fn install(args: InstallArgs) -> Outcome {
    install_from(&args.source, args.name.as_deref(), &args.grant, false)
}

pub fn update(args: UpdateArgs) -> Outcome {
    let cx = context::load()?;
    let entry = match install::installed(&cx.paths, &args.name).map_err(install_failure)? {
        Some(entry) => entry,
        None if is_builtin(&cx, &args.name) => {
            return Err(Failure::usage(anyhow::anyhow!(
                "`{}` is a built-in plugin; it is updated with Reasonix itself",
                args.name
            )));
        }
        None => return Err(install_failure(InstallError::NotInstalled(args.name))),
    };
    drop(cx);
    let source = args.source.unwrap_or(entry.source);
    install_from(&source, Some(&args.name), &args.grant, true)
}

fn install_from(
    source: &str,
    expect_name: Option<&str>,
    grant: &GrantArgs,
    update: bool,
) -> Outcome {
    let cx = context::load()?;
    let fetched = install::fetch(source).map_err(install_failure)?;
    if let Some(note) = &fetched.note {
        eprintln!("note: {note}");
    }
    let checked =
        install::check(&cx.paths, fetched, grant.sha256.as_deref()).map_err(install_failure)?;
    let info = &checked.described.info;
    if let Some(expected) = expect_name
        && expected != info.name
    {
        return Err(Failure::usage(anyhow::anyhow!(
            "{source} is plugin `{}`, not `{expected}`; nothing was {}",
            info.name,
            if update { "updated" } else { "installed" }
        )));
    }
    let prefer = cx.config.plugin(&info.name).prefer == Some(true);
    install::check_clash(&checked, &cx.registry, prefer).map_err(install_failure)?;
    let current = install::installed(&cx.paths, &info.name).map_err(install_failure)?;
    let granted = decide_grant(
        &info.name,
        &info.requested,
        current.as_ref().map(|e| &e.granted),
        grant,
    )?;
    let entry = install::commit(&cx.paths, &checked, granted).map_err(install_failure)?;
    let verb = match &current {
        Some(old) => format!("updated (was {})", old.version),
        None => "installed".to_string(),
    };
    println!(
        "{} {} {verb}: {}",
        entry.name,
        entry.version,
        cx.paths.plugins_dir().join(&entry.file).display()
    );
    println!("  granted: {}", entry.granted.summary());
    if !entry.enabled {
        println!(
            "  disabled: it is not loaded until `reasonix plugin enable {}`",
            entry.name
        );
    }
    Ok(Code::Success)
}

/// The grant for a plugin requesting `requested`: the current one when it still covers the
/// request, else `--yes`, `--grant`, or a question on a terminal.
fn decide_grant(
    name: &str,
    requested: &Capabilities,
    current: Option<&Capabilities>,
    args: &GrantArgs,
) -> Result<Capabilities, Failure> {
    if let Some(current) = current
        && !args.yes
        && args.grants.is_empty()
        && !install::exceeds(requested, current)
    {
        eprintln!("note: keeping the current grant ({})", current.summary());
        return Ok(current.clone());
    }
    if *requested == Capabilities::default() {
        return Ok(Capabilities::default());
    }
    let why = if current.is_some() {
        "now asks for more than it was granted; it asks to"
    } else {
        "asks to"
    };
    eprintln!("plugin `{name}` {why}:");
    for line in requested.describe() {
        eprintln!("  - {line}");
    }
    if args.yes {
        return Ok(requested.clone());
    }
    if !args.grants.is_empty() {
        let given = install::parse_grants(&args.grants).map_err(install_failure)?;
        let granted = requested.intersect(&given);
        let withheld = requested_minus(requested, &granted);
        if !withheld.is_empty() {
            eprintln!("note: not granted: {}", withheld.join("; "));
        }
        return Ok(granted);
    }
    if std::io::stdin().is_terminal() {
        eprint!("Grant these? [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut answer)
            .map_err(Failure::runtime)?;
        if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            return Ok(requested.clone());
        }
        return Err(Failure::usage(anyhow::anyhow!(
            "not granted, so `{name}` was not installed; grant a part with --grant CAP"
        )));
    }
    Err(Failure::usage(anyhow::anyhow!(
        "cannot ask for the grant: stdin is not a terminal; pass --yes to grant everything `{name}` requests, or --grant CAP for each capability to grant (workspace=read|read-write, network=PATTERN, env=NAME, process)"
    )))
}

/// The requested capabilities, in words, that `granted` leaves out.
fn requested_minus(requested: &Capabilities, granted: &Capabilities) -> Vec<String> {
    let given = granted.describe();
    requested
        .describe()
        .into_iter()
        .filter(|line| !given.contains(line))
        .collect()
}

pub fn remove(name: &str) -> Outcome {
    let cx = context::load()?;
    let builtin = is_builtin(&cx, name);
    let entry = install::remove(&cx.paths, name, builtin).map_err(install_failure)?;
    println!("removed {} {}", entry.name, entry.version);
    Ok(Code::Success)
}

pub fn set_enabled(name: &str, enabled: bool) -> Outcome {
    let paths = reasonix_kernel::config::Paths::from_env();
    let builtin = BUILTINS.iter().any(|b| b.name == name);
    let entry = install::set_enabled(&paths, name, enabled, builtin).map_err(install_failure)?;
    println!(
        "{} {}",
        entry.name,
        if enabled { "enabled" } else { "disabled" }
    );
    Ok(Code::Success)
}

pub fn info(name: &str, as_json: bool) -> Outcome {
    let cx = context::load()?;
    let loaded = cx.registry.plugins().iter().find(|p| p.name() == name);
    let entry = install::installed(&cx.paths, name).map_err(install_failure)?;
    if loaded.is_none() && entry.is_none() {
        if is_builtin(&cx, name) {
            return Err(Failure::usage(anyhow::anyhow!(
                "built-in plugin `{name}` is not loaded: it is disabled in the config (`[plugin.{name}] enabled = false`)"
            )));
        }
        return Err(install_failure(InstallError::NotInstalled(
            name.to_string(),
        )));
    }
    if as_json {
        let value = json!({
            "name": name,
            "loaded": loaded.is_some(),
            "plugin": loaded.map(|p| plugin_json(p, entry.as_ref())),
            "index": entry,
        });
        let text = serde_json::to_string_pretty(&value).map_err(Failure::runtime)?;
        println!("{text}");
        return Ok(Code::Success);
    }
    match loaded {
        Some(p) => print_plugin(p, entry.as_ref(), true),
        None => println!("{name} (not loaded: disabled)"),
    }
    if let Some(e) = &entry {
        println!("  index entry:");
        println!(
            "    file:    {}",
            cx.paths.plugins_dir().join(&e.file).display()
        );
        println!("    version: {}", e.version);
        println!("    source:  {}", e.source);
        println!("    sha256:  {}", e.sha256);
        println!("    granted: {}", e.granted.summary());
        println!("    enabled: {}", e.enabled);
    }
    Ok(Code::Success)
}

pub fn list(as_json: bool) -> Outcome {
    let cx = context::load()?;
    let plugins = cx.registry.plugins();
    let index = PluginIndex::load(&cx.paths.plugins_dir()).unwrap_or_default();
    let entry_of = |p: &LoadedPlugin| match &p.described.origin {
        Origin::Installed(path) => path
            .file_name()
            .and_then(|f| index.entry_for_file(&f.to_string_lossy()).cloned()),
        Origin::Builtin(_) => None,
    };
    let disabled: Vec<&IndexEntry> = index.plugins.iter().filter(|e| !e.enabled).collect();
    if as_json {
        let value = json!({
            "plugins": plugins.iter().map(|p| plugin_json(p, entry_of(p).as_ref())).collect::<Vec<_>>(),
            "disabled": disabled,
            "problems": cx.registry.problems().iter().map(|e| e.to_string()).collect::<Vec<_>>(),
        });
        let text = serde_json::to_string_pretty(&value).map_err(Failure::runtime)?;
        println!("{text}");
        return Ok(Code::Success);
    }
    for p in plugins {
        print_plugin(p, entry_of(p).as_ref(), false);
    }
    for e in disabled {
        println!(
            "{} {} (disabled; `reasonix plugin enable {}`)",
            e.name, e.version, e.name
        );
        println!("  from:      {}", e.source);
        println!("  granted:   {}", e.granted.summary());
    }
    Ok(Code::Success)
}

fn print_plugin(p: &LoadedPlugin, entry: Option<&IndexEntry>, full: bool) {
    {
        let d = &p.described;
        println!(
            "{} {} ({}) enabled",
            d.info.name,
            d.info.version,
            source(&d.origin)
        );
        println!("  {}", d.info.description);
        if let Some(e) = entry {
            println!("  from:      {}", e.source);
        }
        let sha = if full {
            &d.sha256[..]
        } else {
            &d.sha256[..d.sha256.len().min(12)]
        };
        println!("  sha256:    {sha}");
        println!("  roles: {}", roles(p).join(", "));
        if !d.tools.is_empty() {
            let names: Vec<&str> = d.tools.iter().map(|t| t.name.as_str()).collect();
            println!("  tools: {}", names.join(", "));
        }
        if !d.provider_kinds.is_empty() {
            let names: Vec<&str> = d.provider_kinds.iter().map(|k| k.name.as_str()).collect();
            println!("  provider kinds: {}", names.join(", "));
        }
        if !d.interception_points.is_empty() {
            println!(
                "  interception points: {}",
                d.interception_points.join(", ")
            );
        }
        println!("  requested: {}", d.info.requested.summary());
        println!("  granted:   {}", p.granted.summary());
        println!(
            "  limits:    {} MiB, {} ms per call",
            p.limits.memory_mib, p.limits.call_timeout_ms
        );
        if full {
            for t in &d.tools {
                let ro = if t.read_only { " (read-only)" } else { "" };
                println!("  tool {}{ro}: {}", t.name, t.description);
            }
            for k in &d.provider_kinds {
                println!("  provider kind {}: {}", k.name, k.description);
            }
        }
    }
}

fn source(origin: &Origin) -> String {
    match origin {
        Origin::Builtin(_) => "builtin".to_string(),
        Origin::Installed(path) => format!("installed: {}", path.display()),
    }
}

fn roles(p: &LoadedPlugin) -> Vec<&'static str> {
    let d = &p.described;
    let mut roles = Vec::new();
    if !d.tools.is_empty() {
        roles.push("tool");
    }
    if !d.provider_kinds.is_empty() {
        roles.push("provider");
    }
    if !d.interception_points.is_empty() {
        roles.push("interceptor");
    }
    roles
}

fn plugin_json(p: &LoadedPlugin, entry: Option<&IndexEntry>) -> serde_json::Value {
    let d = &p.described;
    json!({
        "enabled": true,
        "installed_from": entry.map(|e| &e.source),
        "name": d.info.name,
        "version": d.info.version,
        "description": d.info.description,
        "source": if d.origin.is_builtin() { "builtin" } else { "installed" },
        "path": match &d.origin { Origin::Installed(path) => Some(path.display().to_string()), Origin::Builtin(_) => None },
        "sha256": d.sha256,
        "kinds": roles(p),
        "tools": d.tools.iter().map(|t| &t.name).collect::<Vec<_>>(),
        "provider_kinds": d.provider_kinds.iter().map(|k| &k.name).collect::<Vec<_>>(),
        "interception_points": d.interception_points,
        "capabilities": { "requested": d.info.requested, "granted": p.granted },
        "limits": p.limits,
    })
}
