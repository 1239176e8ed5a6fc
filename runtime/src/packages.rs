//! Installed packages at start: each checked against the hashes recorded when the user agreed
//! to it (a changed one is refused, named in a warning), then its hooks and MCP servers joined
//! to the user's own — same sandbox, same confinement, same approvals — and its skills,
//! commands and agents handed to their catalogues, namespaced `package:name`.

use crate::term::errln;
use reasonix_config::{Config, HookEntry, Paths};
use reasonix_core::terminal::shown;
use reasonix_package::Package;
use std::path::PathBuf;
use std::sync::Arc;

/// The scope of a package's hooks (`hooks list`): they run as the user's own.
pub const HOOK_SCOPE: &str = "plugin";

/// [`installed`], their compositions and [`join`]: for a command that chooses no composition.
pub fn load(paths: &Paths, config: &mut Config) -> Arc<Vec<Package>> {
    let packages = installed(paths);
    add_compositions(&packages, config);
    join(packages, config)
}

/// The enabled, intact packages (a changed or unreadable one is named in a warning).
pub fn installed(paths: &Paths) -> Vec<Package> {
    let loaded =
        match reasonix_package::installed::load(&paths.home, &|name| std::env::var(name).ok()) {
            Ok(loaded) => loaded,
            Err(e) => {
                errln!(
                    "warning: packages are not loaded: {}",
                    shown(&e.to_string())
                );
                return Vec::new();
            }
        };
    for warning in &loaded.warnings {
        errln!("warning: {}", shown(warning));
    }
    loaded.packages
}

/// The compositions the packages bring, added to `config` as `<package>:<name>` (a name the
/// user's configuration defines already keeps the user's). They can only narrow, as any.
pub fn add_compositions(packages: &[Package], config: &mut Config) {
    for package in packages {
        for dir in &package.compositions {
            for name in reasonix_package::review::composition_names(dir) {
                let path = dir.join(format!("{name}.toml"));
                match reasonix_config::composition::read_package_file(
                    &package.name,
                    &package.root,
                    &path,
                ) {
                    Ok(defined) => {
                        if !config.compositions.iter().any(|c| c.name == defined.name) {
                            config.compositions.push(defined);
                        }
                    }
                    Err(e) => errln!(
                        "warning: package `{}`: composition not loaded: {}",
                        shown(&package.name),
                        shown(&e)
                    ),
                }
            }
        }
    }
}

/// The packages this session uses (a composition may have chosen some); their hooks and MCP
/// servers added to `config`.
pub fn join(mut packages: Vec<Package>, config: &mut Config) -> Arc<Vec<Package>> {
    if let Some(only) = &config.package_filter {
        // A composition chose these; the rest stay installed but out of this session.
        packages.retain(|p| only.contains(&p.name));
    }
    for package in &packages {
        for hook in &package.hooks {
            config.hooks.push(HookEntry {
                event: hook.event.clone(),
                matcher: hook.matcher.clone(),
                matcher_style: hook.style,
                command: hook.command.clone(),
                timeout_ms: hook.timeout_ms,
                cwd: hook.cwd.clone(),
                env: hook.env.clone(),
                description: hook.description.clone(),
                condition: hook.condition.clone(),
                source: format!("package {}", package.name),
                scope: HOOK_SCOPE,
                trusted: true,
            });
        }
        for server in &package.mcp_servers {
            if config
                .mcp_only
                .as_ref()
                .is_some_and(|only| !only.contains(&server.name))
            {
                // A composition left it out.
                continue;
            }
            if config.mcp_servers.iter().any(|s| s.name == server.name) {
                errln!(
                    "warning: package `{}`: an MCP server named `{}` is configured already; the package's is not started",
                    shown(&package.name),
                    shown(&server.name)
                );
                continue;
            }
            config.mcp_servers.push(server.clone());
        }
    }
    Arc::new(packages)
}

/// The sidecar processes the packages bring (their manifests were checked with every other
/// file of the package at load).
pub fn sidecars(packages: &[Package]) -> Vec<reasonix_sidecar::runtime::Package> {
    packages
        .iter()
        .filter(|p| p.sidecar.is_some())
        .filter_map(|p| match reasonix_sidecar::manifest::load(&p.root) {
            Ok(manifest) => Some(reasonix_sidecar::runtime::Package {
                root: p.root.clone(),
                manifest,
            }),
            Err(e) => {
                errln!(
                    "warning: package `{}`: sidecar not started: {}",
                    shown(&p.name),
                    shown(&e.to_string())
                );
                None
            }
        })
        .collect()
}

/// The WebAssembly components the packages bring, for the registry.
pub fn components(packages: &[Package]) -> Vec<reasonix_core::settings::PackageComponent> {
    packages
        .iter()
        .flat_map(|p| {
            p.components
                .iter()
                .map(|path| reasonix_core::settings::PackageComponent {
                    package: p.name.clone(),
                    path: path.clone(),
                })
        })
        .collect()
}

/// The packages' folders of one kind, each with the package's name (its namespace).
pub fn folders(
    packages: &[Package],
    pick: impl Fn(&Package) -> &Vec<PathBuf>,
) -> Vec<(PathBuf, String)> {
    packages
        .iter()
        .flat_map(|p| pick(p).iter().map(|dir| (dir.clone(), p.name.clone())))
        .collect()
}
