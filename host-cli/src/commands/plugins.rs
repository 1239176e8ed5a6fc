//! `reasonix plugin`: list, info, install, update, remove, enable, disable. The kernel
//! (`reasonix_host::install`) does the work; this file asks and prints.

use crate::builtins::BUILTINS;
use crate::commands::{packages, sidecar_packages};
use crate::context;
use crate::exit::{Code, Failure, Outcome};
use crate::term::{self, err, errln, outln};
use reasonix_agent::permissions::ToolClass;
use reasonix_core::capability::Capabilities;
use reasonix_core::terminal::shown;
use reasonix_core::tool::Effects;
use reasonix_core::types::ToolSpec;
use reasonix_host::component::{LoadedPlugin, Origin};
use reasonix_host::index::{IndexEntry, PluginIndex};
use reasonix_host::install::{self, Grant, InstallError};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal};

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
    /// For a git source: the commit (or branch or tag, recorded as its commit) to install.
    #[arg(long = "ref", value_name = "COMMIT")]
    pub reference: Option<String>,
    /// A folder inside the source that holds the package.
    #[arg(long, value_name = "PATH")]
    pub subdir: Option<String>,
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
    /// For a package from git: the commit (or branch or tag) to update to (default: the newest).
    #[arg(long = "ref", value_name = "COMMIT")]
    pub reference: Option<String>,
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
    /// process, memory_mib=MiB, call_timeout_ms=MS (limits above the defaults of 256 MiB and
    /// 60000 ms need a grant). Only what the plugin also requests is granted.
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
    if packages::handles(
        &args.source,
        args.reference.is_some() || args.subdir.is_some(),
    ) {
        return packages::install(
            &args.source,
            args.reference.as_deref(),
            args.subdir.as_deref(),
            args.name.as_deref(),
            args.grant.yes,
            |name| {
                BUILTINS.iter().any(|b| b.name == name)
                    || sidecar_packages::installed(name).is_ok_and(|e| e.is_some())
                    || PluginIndex::load(&reasonix_config::Paths::from_env().plugins_dir())
                        .is_ok_and(|i| i.plugins.iter().any(|e| e.name == name))
            },
        );
    }
    install_from(&args.source, args.name.as_deref(), &args.grant, false)
}

/// A plugin index that does not parse stops an index-changing command before the registry
/// loads: its error is printed once, not first as a load note and then again as the error.
fn readable_index() -> Result<(), Failure> {
    let plugins_dir = reasonix_config::Paths::from_env().plugins_dir();
    PluginIndex::load(&plugins_dir)
        .map(drop)
        .map_err(|e| install_failure(InstallError::State(e)))
}

pub fn update(args: UpdateArgs) -> Outcome {
    if packages::installed(&args.name)?.is_some() {
        return packages::update(
            &args.name,
            args.source.as_deref(),
            args.reference.as_deref(),
            args.grant.yes,
        );
    }
    if let Some(entry) = sidecar_packages::installed(&args.name)? {
        let source = args.source.unwrap_or(entry.source);
        return sidecar_packages::install(&source, Some(&args.name), args.grant.yes, |_| false);
    }
    readable_index()?;
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
    readable_index()?;
    let cx = context::load()?;
    let fetched = install::fetch(source).map_err(install_failure)?;
    if let Some(note) = &fetched.note {
        errln!("note: {note}");
    }
    let checked =
        install::check(&cx.paths, fetched, grant.sha256.as_deref()).map_err(install_failure)?;
    let info = &checked.described.info;
    if let Some(expected) = expect_name
        && expected != info.name
    {
        return Err(Failure::usage(anyhow::anyhow!(
            "{source} is plugin `{}`, not `{expected}`; nothing was {}",
            shown(&info.name),
            if update { "updated" } else { "installed" }
        )));
    }
    if sidecar_packages::installed(&info.name)?.is_some() {
        return Err(Failure::usage(anyhow::anyhow!(
            "a sidecar package is already named `{}`; remove it first (`reasonix plugin remove {}`)",
            shown(&info.name),
            shown(&info.name)
        )));
    }
    let prefer = cx.config.plugin(&info.name).prefer == Some(true);
    install::check_clash(&checked, &cx.registry, prefer).map_err(install_failure)?;
    let current = install::installed(&cx.paths, &info.name).map_err(install_failure)?;
    let granted = decide_grant(
        &info.name,
        &Grant::requested_by(info),
        current.as_ref().map(entry_grant).as_ref(),
        grant,
        &provider_key_variables(&cx.config),
    )?;
    let entry = install::commit(&cx.paths, &checked, granted).map_err(install_failure)?;
    let verb = match &current {
        Some(old) => format!("updated (was {})", shown(&old.version)),
        None => "installed".to_string(),
    };
    outln!(
        "{} {} {verb}: {}",
        shown(&entry.name),
        shown(&entry.version),
        cx.paths.plugins_dir().join(&entry.file).display()
    );
    outln!("  granted: {}", entry_grant(&entry).summary());
    let effective = cx
        .config
        .plugin(&info.name)
        .narrow(&info.requested.intersect(&entry.granted));
    print_tool_classes(&checked.described.tools, &effective);
    if !entry.enabled {
        outln!(
            "  disabled: it is not loaded until `reasonix plugin enable {}`",
            entry.name
        );
    }
    Ok(Code::Success)
}

/// Each tool with the class the permission rules apply to it, which follows from the grant, not
/// from what the tool claims.
fn print_tool_classes(tools: &[ToolSpec], granted: &Capabilities) {
    if tools.is_empty() {
        return;
    }
    outln!("  tools (as the permission rules treat them):");
    for t in tools {
        outln!("    {}: {}", shown(&t.name), tool_class(t, granted));
    }
}

fn tool_class(spec: &ToolSpec, granted: &Capabilities) -> ToolClass {
    ToolClass::of(spec, Effects::of_grant(granted))
}

/// What an index entry says was granted.
fn entry_grant(entry: &IndexEntry) -> Grant {
    Grant {
        capabilities: entry.granted.clone(),
        limits: entry.granted_limits,
    }
}

/// The grant for a plugin requesting `requested` (capabilities, and limits above the
/// defaults): the current one when it still covers the request, else `--yes`, `--grant`, or a
/// question on a terminal. Whatever decides, the request is shown first, one capability or
/// limit per line, each escaped for the terminal, so nothing in it can hide another line.
fn decide_grant(
    name: &str,
    requested: &Grant,
    current: Option<&Grant>,
    args: &GrantArgs,
    key_variables: &BTreeMap<String, Vec<String>>,
) -> Result<Grant, Failure> {
    if let Some(current) = current
        && !args.yes
        && args.grants.is_empty()
        && !install::exceeds(requested, current)
    {
        errln!("note: keeping the current grant ({})", current.summary());
        return Ok(current.clone());
    }
    if requested.is_empty() {
        return Ok(Grant::default());
    }
    let why = if current.is_some() {
        "now asks for more than it was granted; it asks to"
    } else {
        "asks to"
    };
    errln!("plugin `{}` {why}:", shown(name));
    for line in requested.describe() {
        errln!("  - {line}");
    }
    for variable in &requested.capabilities.env {
        if let Some(providers) = key_variables.get(variable) {
            errln!(
                "  ! {} holds the API key of provider {}: with it the plugin could send that key to any host it may connect to",
                shown(variable),
                providers
                    .iter()
                    .map(|p| format!("`{}`", shown(p)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    if args.yes {
        return Ok(requested.clone());
    }
    if !args.grants.is_empty() {
        let given = install::parse_grants(&args.grants).map_err(install_failure)?;
        let granted = requested.intersect(&given);
        let withheld = requested_minus(requested, &granted);
        if !withheld.is_empty() {
            errln!("note: not granted: {}", withheld.join("; "));
        }
        return Ok(granted);
    }
    if std::io::stdin().is_terminal() {
        err!("Grant these? [y/N] ");
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
        "cannot ask for the grant: stdin is not a terminal; pass --yes to grant everything `{name}` requests, or --grant CAP for each capability to grant (workspace=read|read-write, network=PATTERN, env=NAME, process, memory_mib=MiB, call_timeout_ms=MS)"
    )))
}

/// The variables that hold a provider's API key (the configured providers' and the presets'
/// `api_key_env`), each with the providers that read it: a grant of one is a grant of a key.
fn provider_key_variables(config: &reasonix_config::Config) -> BTreeMap<String, Vec<String>> {
    let mut variables: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut add = |variable: &str, provider: &str| {
        let providers = variables.entry(variable.to_string()).or_default();
        if !providers.iter().any(|p| p == provider) {
            providers.push(provider.to_string());
        }
    };
    // A config whose providers do not resolve still has the presets' variables.
    for provider in reasonix_config::providers::resolve_providers(config).unwrap_or_default() {
        if let Some(variable) = &provider.api_key_env {
            add(variable, &provider.name);
        }
    }
    for preset in reasonix_config::providers::presets() {
        if let Some(variable) = &preset.api_key_env {
            add(variable, &preset.id);
        }
    }
    variables
}

/// The requested capabilities and limits, in words, that `granted` leaves out.
fn requested_minus(requested: &Grant, granted: &Grant) -> Vec<String> {
    let given = granted.describe();
    requested
        .describe()
        .into_iter()
        .filter(|line| !given.contains(line))
        .collect()
}

pub fn remove(name: &str) -> Outcome {
    if packages::installed(name)?.is_some() {
        return packages::remove(name);
    }
    if sidecar_packages::installed(name)?.is_some() {
        return sidecar_packages::remove(name);
    }
    readable_index()?;
    let cx = context::load()?;
    let builtin = is_builtin(&cx, name);
    let entry = install::remove(&cx.paths, name, builtin).map_err(install_failure)?;
    outln!("removed {} {}", shown(&entry.name), shown(&entry.version));
    Ok(Code::Success)
}

pub fn set_enabled(name: &str, enabled: bool) -> Outcome {
    if packages::installed(name)?.is_some() {
        return packages::set_enabled(name, enabled);
    }
    if sidecar_packages::installed(name)?.is_some() {
        return sidecar_packages::set_enabled(name, enabled);
    }
    let paths = reasonix_config::Paths::from_env();
    let builtin = BUILTINS.iter().any(|b| b.name == name);
    let entry = install::set_enabled(&paths, name, enabled, builtin).map_err(install_failure)?;
    outln!(
        "{} {}",
        entry.name,
        if enabled { "enabled" } else { "disabled" }
    );
    Ok(Code::Success)
}

pub fn info(name: &str, as_json: bool) -> Outcome {
    if packages::installed(name)?.is_some() {
        return packages::show(name, as_json);
    }
    if let Some(entry) = sidecar_packages::installed(name)? {
        return sidecar_packages::info(&entry, as_json);
    }
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
        term::print_json(&value).map_err(Failure::runtime)?;
        return Ok(Code::Success);
    }
    match loaded {
        Some(p) => print_plugin(p, entry.as_ref(), true),
        None => outln!("{} (not loaded: disabled)", shown(name)),
    }
    if let Some(e) = &entry {
        outln!("  index entry:");
        outln!(
            "    file:    {}",
            cx.paths.plugins_dir().join(&e.file).display()
        );
        outln!("    version: {}", shown(&e.version));
        outln!("    source:  {}", shown(&e.source));
        outln!("    sha256:  {}", shown(&e.sha256));
        outln!("    granted: {}", entry_grant(e).summary());
        outln!("    enabled: {}", e.enabled);
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
        Origin::Builtin(_) | Origin::Package { .. } => None,
    };
    let disabled: Vec<&IndexEntry> = index.plugins.iter().filter(|e| !e.enabled).collect();
    if as_json {
        let value = json!({
            "plugins": plugins.iter().map(|p| plugin_json(p, entry_of(p).as_ref())).collect::<Vec<_>>(),
            "disabled": disabled,
            "sidecars": sidecar_packages::list_json()?,
            "packages": packages::list_json()?,
            "problems": cx.registry.problems().iter().map(|e| e.to_string()).collect::<Vec<_>>(),
        });
        term::print_json(&value).map_err(Failure::runtime)?;
        return Ok(Code::Success);
    }
    for p in plugins {
        print_plugin(p, entry_of(p).as_ref(), false);
    }
    sidecar_packages::print_list()?;
    packages::print_list()?;
    for e in disabled {
        outln!(
            "{} {} (disabled; `reasonix plugin enable {}`)",
            shown(&e.name),
            shown(&e.version),
            shown(&e.name)
        );
        outln!("  from:      {}", shown(&e.source));
        outln!("  granted:   {}", entry_grant(e).summary());
    }
    Ok(Code::Success)
}

fn print_plugin(p: &LoadedPlugin, entry: Option<&IndexEntry>, full: bool) {
    {
        let d = &p.described;
        outln!(
            "{} {} ({}) enabled",
            shown(&d.info.name),
            shown(&d.info.version),
            shown(&source(&d.origin))
        );
        outln!("  {}", shown(&d.info.description));
        if let Some(e) = entry {
            outln!("  from:      {}", shown(&e.source));
        }
        let sha = if full {
            &d.sha256[..]
        } else {
            &d.sha256[..d.sha256.len().min(12)]
        };
        outln!("  sha256:    {}", shown(sha));
        outln!("  roles: {}", roles(p).join(", "));
        if !d.tools.is_empty() {
            let names: Vec<String> = d.tools.iter().map(|t| shown(&t.name).to_string()).collect();
            outln!("  tools: {}", names.join(", "));
        }
        if !d.provider_kinds.is_empty() {
            let names: Vec<String> = d
                .provider_kinds
                .iter()
                .map(|k| shown(&k.name).to_string())
                .collect();
            outln!("  provider kinds: {}", names.join(", "));
        }
        if !d.interception_points.is_empty() {
            let points: Vec<String> = d
                .interception_points
                .iter()
                .map(|s| format!("{} (priority {})", shown(&s.point), s.priority))
                .collect();
            outln!("  interception points: {}", points.join(", "));
        }
        outln!("  requested: {}", Grant::requested_by(&d.info).summary());
        outln!("  granted:   {}", p.granted.summary());
        outln!(
            "  limits:    {} MiB, {} ms per call",
            p.limits.memory_mib,
            p.limits.call_timeout_ms
        );
        if full {
            for t in &d.tools {
                outln!(
                    "  tool {} ({}): {}",
                    shown(&t.name),
                    tool_class(t, &p.granted),
                    indented(&t.description)
                );
            }
            for k in &d.provider_kinds {
                outln!(
                    "  provider kind {}: {}",
                    shown(&k.name),
                    indented(&k.description)
                );
            }
        }
    }
}

/// A multi-line description with its later lines indented under the item it describes, so
/// none of them can pass for a line of the listing.
fn indented(text: &str) -> String {
    text.trim_end().replace('\n', "\n      ")
}

fn source(origin: &Origin) -> String {
    match origin {
        Origin::Builtin(_) => "builtin".to_string(),
        Origin::Installed(path) => format!("installed: {}", path.display()),
        Origin::Package { package, path } => {
            format!("package {}: {}", shown(package), path.display())
        }
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
        "source": match &d.origin { Origin::Builtin(_) => "builtin", Origin::Installed(_) => "installed", Origin::Package { .. } => "package" },
        "package": match &d.origin { Origin::Package { package, .. } => Some(package), _ => None },
        "path": d.origin.path().map(|p| p.display().to_string()),
        "sha256": d.sha256,
        "kinds": roles(p),
        "tools": d.tools.iter().map(|t| &t.name).collect::<Vec<_>>(),
        "tool_classes": d.tools.iter().map(|t| (t.name.clone(), serde_json::Value::String(tool_class(t, &p.granted).to_string()))).collect::<serde_json::Map<_, _>>(),
        "provider_kinds": d.provider_kinds.iter().map(|k| &k.name).collect::<Vec<_>>(),
        "interception_points": d.interception_points,
        "capabilities": { "requested": d.info.requested, "granted": p.granted },
        "limits": p.limits,
    })
}
