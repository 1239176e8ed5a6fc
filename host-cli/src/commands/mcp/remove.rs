//! `reasonix mcp remove`: a server out of the mcp.json file that defines it.

use super::{Scope, load_scope, lookup, save_edit, scope_place, workspace};
use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use anyhow::anyhow;
use reasonix_config::Paths;
use reasonix_config::mcp::SourceKind;
use reasonix_config::mcp_files;
use reasonix_core::terminal::shown;

#[derive(Debug, clap::Args)]
pub struct RemoveArgs {
    name: String,
    /// The scope to remove it from (needed only when several define it).
    #[arg(long, short = 's', value_enum)]
    scope: Option<Scope>,
}

pub fn run(args: RemoveArgs) -> Outcome {
    let paths = Paths::from_env();
    let workspace = workspace()?;
    let scopes = match args.scope {
        Some(scope) => vec![scope],
        None => vec![Scope::Local, Scope::User, Scope::Project],
    };
    let mut defining = Vec::new();
    for scope in scopes {
        let file = load_scope(&paths, &workspace, scope)?;
        if file.get(&args.name).is_some() {
            defining.push((scope, file));
        }
    }
    let name = shown(&args.name);
    match defining.len() {
        0 => Err(not_defined(&paths, &workspace, &args)),
        1 => {
            let (scope, mut file) = defining.remove(0);
            file.remove(&args.name);
            save_edit(&paths, &workspace, scope, &file)?;
            outln!(
                "removed MCP server `{name}` from {}",
                scope_place(&file, scope, &workspace)
            );
            let inventory = mcp_files::inventory(&paths.home, &workspace, &lookup(&workspace));
            for other in inventory.named(&args.name) {
                outln!(
                    "note: `{name}` is still configured in {}",
                    shown(&other.origin.file.display().to_string())
                );
            }
            Ok(Code::Success)
        }
        _ => Err(Failure::usage(anyhow!(
            "`{name}` is defined in {}; say which with --scope {}",
            defining
                .iter()
                .map(|(scope, file)| scope_place(file, *scope, &workspace))
                .collect::<Vec<_>>()
                .join(" and in "),
            defining
                .iter()
                .map(|(scope, _)| scope_word(*scope))
                .collect::<Vec<_>>()
                .join(" or --scope ")
        ))),
    }
}

/// Not in the mcp.json file(s) looked at: say where it is, if anywhere.
fn not_defined(paths: &Paths, workspace: &std::path::Path, args: &RemoveArgs) -> Failure {
    let name = shown(&args.name);
    let inventory = mcp_files::inventory(&paths.home, workspace, &lookup(workspace));
    let elsewhere: Vec<_> = inventory.named(&args.name).collect();
    if let Some(toml) = elsewhere.iter().find(|s| {
        matches!(
            s.origin.kind,
            SourceKind::UserToml | SourceKind::ProjectToml
        )
    }) && args.scope.is_none()
    {
        return Failure::usage(anyhow!(
            "`{name}` is a [[plugins]] entry of {}; `reasonix mcp` does not edit TOML files: remove the entry there",
            shown(&toml.origin.file.display().to_string())
        ));
    }
    if let Some(other) = elsewhere.first() {
        return Failure::usage(anyhow!(
            "`{name}` is not in the {} scope; it is defined in {}",
            args.scope.map_or("user", scope_word),
            shown(&other.origin.file.display().to_string())
        ));
    }
    Failure::usage(anyhow!(
        "no MCP server named `{name}` is configured (see `reasonix mcp list`)"
    ))
}

fn scope_word(scope: Scope) -> &'static str {
    match scope {
        Scope::Local => "local",
        Scope::User => "user",
        Scope::Project => "project",
    }
}
