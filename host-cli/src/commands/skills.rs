//! `reasonix skills list|show`: the skills this workspace sees, where each comes from, and
//! whether the model is offered it.

use crate::context;
use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use reasonix_core::terminal::shown;
use reasonix_skills::{Catalog, RunAs, Skill};
use serde_json::json;

#[derive(Debug, clap::Subcommand)]
pub enum SkillsCommand {
    /// Every skill: name, where it comes from, how it is invoked, its description; then the
    /// files that were skipped and why.
    List {
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
    /// One skill: its folder, frontmatter settings, files and instructions.
    Show {
        name: String,
        /// Machine-readable output.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(command: SkillsCommand) -> Outcome {
    let catalog = load()?;
    match command {
        SkillsCommand::List { json } => list(&catalog, json),
        SkillsCommand::Show { name, json } => show(&catalog, &name, json),
    }
}

fn load() -> Result<Catalog, Failure> {
    let paths = reasonix_config::Paths::from_env();
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::usage(anyhow::anyhow!("cannot read the current directory: {e}")))?;
    let mut config = context::load_config(&paths, &cwd)?;
    let workspace = context::resolve_workspace(None, config.sandbox.workspace_root.as_deref())?;
    let packages = reasonix_runtime::packages::load(&paths, &mut config);
    Ok(reasonix_runtime::skills::catalog(
        &paths, &config, &workspace, &packages,
    ))
}

fn invocation(skill: &Skill, catalog: &Catalog) -> String {
    let mut ways = Vec::new();
    if skill.model_invocable && !catalog.no_index {
        ways.push("model".to_string());
    }
    if skill.user_invocable {
        ways.push(format!("/{}", skill.name));
    }
    if ways.is_empty() {
        ways.push("nobody".into());
    }
    let mut text = ways.join(" + ");
    if skill.run_as == RunAs::Subagent {
        text.push_str(", runs as a sub-agent");
    }
    if !skill.trusted {
        text.push_str(", untrusted workspace");
    }
    text
}

fn as_json(skill: &Skill, catalog: &Catalog) -> serde_json::Value {
    json!({
        "name": skill.name,
        "description": skill.description,
        "dir": skill.dir,
        "scope": skill.scope.label(),
        "trusted": skill.trusted,
        "inIndex": skill.model_invocable && !catalog.no_index,
        "userInvocable": skill.user_invocable,
        "runAs": match skill.run_as { RunAs::Inline => "inline", RunAs::Subagent => "subagent" },
        "agent": skill.agent,
        "allowedTools": skill.allowed_tools,
        "argumentHint": skill.argument_hint,
        "model": skill.model,
        "effort": skill.effort,
        "hasScripts": skill.has_scripts,
    })
}

fn list(catalog: &Catalog, json_out: bool) -> Outcome {
    if json_out {
        let skills: Vec<_> = catalog.skills.iter().map(|s| as_json(s, catalog)).collect();
        crate::term::print_json(&json!({"skills": skills, "warnings": catalog.warnings}))
            .map_err(|e| Failure::runtime(anyhow::anyhow!("cannot write JSON: {e}")))?;
        return Ok(Code::Success);
    }
    if catalog.skills.is_empty() {
        outln!(
            "no skills: put a folder with a SKILL.md in .reasonix/skills, .claude/skills or .agents/skills (this workspace), or in <home>/skills or ~/.claude/skills (yours)"
        );
    }
    for skill in &catalog.skills {
        outln!(
            "{}  [{}] {}\n    {}",
            shown(&skill.name),
            skill.scope.label(),
            invocation(skill, catalog),
            shown(&skill.description)
        );
    }
    for warning in &catalog.warnings {
        outln!("skipped: {}", shown(warning));
    }
    Ok(Code::Success)
}

fn show(catalog: &Catalog, name: &str, json_out: bool) -> Outcome {
    let name = name.trim_start_matches('/');
    let Some(skill) = catalog.get(name) else {
        return Err(Failure::usage(anyhow::anyhow!(
            "no skill `{}`; `reasonix skills list` shows them",
            shown(name)
        )));
    };
    let body = skill
        .body()
        .map_err(|e| Failure::runtime(anyhow::anyhow!("{}", shown(&e))))?;
    let (files, more) = reasonix_skills::files(&skill.dir);
    if json_out {
        let mut value = as_json(skill, catalog);
        value["files"] = json!(files);
        value["filesTruncated"] = json!(more);
        value["body"] = json!(body);
        crate::term::print_json(&value)
            .map_err(|e| Failure::runtime(anyhow::anyhow!("cannot write JSON: {e}")))?;
        return Ok(Code::Success);
    }
    outln!("{}  [{}]", shown(&skill.name), skill.scope.label());
    outln!("  {}", shown(&skill.description));
    outln!("  folder: {}", shown(&skill.dir.display().to_string()));
    outln!("  invoked by: {}", invocation(skill, catalog));
    if let Some(hint) = &skill.argument_hint {
        outln!("  arguments: {}", shown(hint));
    }
    if !skill.allowed_tools.is_empty() {
        outln!(
            "  allowed-tools (narrows a sub-agent skill; never a permission): {}",
            shown(&skill.allowed_tools.join(" "))
        );
    }
    if let Some(model) = &skill.model {
        outln!("  model: {}", shown(model));
    }
    outln!(
        "  files: {}{}",
        shown(&files.join(", ")),
        if more { ", …" } else { "" }
    );
    outln!("");
    for line in body.lines() {
        outln!("{}", shown(line));
    }
    Ok(Code::Success)
}
