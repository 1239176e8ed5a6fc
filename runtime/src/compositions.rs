//! Choosing the agent composition a session runs with (`--agent-composition`, or the one a
//! continued session was started with) and what it narrows at launch: the tools offered and
//! the persona after the system prompt. The configuration's narrowing (rules, sandbox, MCP
//! servers, packages, skills) is `reasonix_config::Config::narrow_by`, applied before anything
//! starts.

use crate::Error;
use crate::resume::Resume;
use crate::term::errln;
use reasonix_agent::session::SessionStore;
use reasonix_config::Config;
use reasonix_config::composition::Defined;
use reasonix_core::catalog::Catalog;
use reasonix_core::terminal::shown;
use std::path::Path;

/// The composition for this start: the flag's, or the continued session's. A continued
/// session keeps its own: another one on the command line is refused, and a definition changed
/// since is used with a warning.
pub fn choose(
    config: &Config,
    dir: Option<&Path>,
    asked: Option<&str>,
    resume: Option<&Resume>,
) -> Result<Option<Defined>, Error> {
    let bound = resume.and_then(|resume| {
        let workspace =
            crate::context::resolve_workspace(dir, config.sandbox.workspace_root.as_deref())
                .ok()?;
        let store = SessionStore::new(&reasonix_config::Paths::from_env().state, &workspace);
        let summary = match resume {
            Resume::Latest => store.latest().ok()?,
            Resume::Query(query) => store.find(query).ok()?,
        };
        summary.composition.map(|b| (summary.id, b))
    });
    let usage = |e: reasonix_config::composition::CompositionError| Error::usage(e.to_string());
    match (asked, bound) {
        (Some(asked), Some((id, bound))) if asked != bound.name => Err(Error::usage(format!(
            "session {id} was started with the composition `{}` and keeps it; leave out --agent-composition to continue it, or start a new session for `{}`",
            shown(&bound.name),
            shown(asked)
        ))),
        (_, Some((id, bound))) => {
            let defined = config.composition(&bound.name).map_err(|_| {
                Error::usage(format!(
                    "session {id} was started with the composition `{}`, which is no longer defined; define it again to continue the session",
                    shown(&bound.name)
                ))
            })?;
            if defined.sha256() != bound.sha256 {
                errln!(
                    "warning: the composition `{}` changed since session {id} started; continuing with its current definition",
                    shown(&bound.name)
                );
            }
            Ok(Some(defined.clone()))
        }
        (Some(asked), None) => config.composition(asked).cloned().map(Some).map_err(usage),
        (None, None) => Ok(None),
    }
}

/// The tools offered under `composition`: its `tools` among `enabled` (`None`: every tool). A
/// name no tool has is refused, naming the key.
pub fn tools(
    composition: Option<&Defined>,
    enabled: Option<Vec<String>>,
    catalog: &dyn Catalog,
) -> Result<Option<Vec<String>>, Error> {
    let Some((c, only)) = composition.and_then(|c| c.file.tools.as_ref().map(|t| (c, t))) else {
        return Ok(enabled);
    };
    let known: Vec<String> = catalog
        .tools()
        .iter()
        .map(|t| t.spec().name.clone())
        .collect();
    for (i, name) in only.iter().enumerate() {
        if !known.contains(name) {
            return Err(Error::usage(format!(
                "{}: `compositions.{}.tools[{i}]` = \"{}\" is not a tool of this configuration (`reasonix tools list`)",
                c.source.display(),
                c.name,
                shown(name)
            )));
        }
    }
    Ok(Some(match enabled {
        Some(enabled) => only
            .iter()
            .filter(|n| enabled.contains(n))
            .cloned()
            .collect(),
        None => only.clone(),
    }))
}

/// The text after the system prompt: `--append-system-prompt`'s, then the persona.
pub fn with_persona(append: Option<String>, composition: Option<&Defined>) -> Option<String> {
    let persona = composition
        .and_then(|c| c.file.persona.as_deref())
        .map(str::trim)
        .filter(|p| !p.is_empty());
    match (append, persona) {
        (Some(a), Some(p)) => Some(format!("{a}\n\n{p}")),
        (Some(a), None) => Some(a),
        (None, Some(p)) => Some(p.to_string()),
        (None, None) => None,
    }
}
