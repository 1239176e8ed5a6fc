use crate::context;
use crate::exit::{Code, Failure, Outcome};
use crate::term::{self, out, outln};
use anyhow::anyhow;
use reasonix_agent::permissions::ToolClass;
use reasonix_core::CallError;
use reasonix_core::terminal::shown;
use reasonix_core::types::ToolContext;
use serde_json::json;
use std::path::Path;

pub fn list(as_json: bool) -> Outcome {
    let cx = context::load()?;
    if as_json {
        let tools: Vec<_> = cx
            .registry
            .tools()
            .map(|t| {
                let spec = t.spec();
                let parameters: serde_json::Value =
                    serde_json::from_str(&spec.parameters).unwrap_or(serde_json::Value::Null);
                json!({
                    "name": spec.name,
                    "plugin": t.source(),
                    "read_only": spec.read_only,
                    "class": ToolClass::of(spec, t.effects()).to_string(),
                    "description": spec.description,
                    "guidance": spec.guidance,
                    "parameters": parameters,
                })
            })
            .collect();
        term::print_json(&tools).map_err(Failure::runtime)?;
        return Ok(Code::Success);
    }
    for tool in cx.registry.tools() {
        let spec = tool.spec();
        let mode = ToolClass::of(spec, tool.effects());
        outln!(
            "{}\t{mode}\t[{}]\t{}",
            shown(&spec.name),
            shown(tool.source()),
            shown(&spec.parameters)
        );
    }
    Ok(Code::Success)
}

/// Print the tool contract (Markdown) for every tool the registry serves.
pub fn doc() -> Outcome {
    let cx = context::load()?;
    out!("{}", super::tool_doc::render(cx.registry.tools()));
    Ok(Code::Success)
}

pub fn call(name: &str, arguments: &str, dir: Option<&Path>) -> Outcome {
    let parsed: serde_json::Value = serde_json::from_str(arguments)
        .map_err(|e| Failure::usage(anyhow!("arguments are not valid JSON: {e}")))?;
    if !parsed.is_object() {
        return Err(Failure::usage(anyhow!(
            "arguments must be a JSON object, like '{{\"path\": \"README.md\"}}'"
        )));
    }
    let cx = context::load()?;
    let Some(tool) = cx.registry.tool(name) else {
        let known: Vec<&str> = cx
            .registry
            .tools()
            .map(|t| t.spec().name.as_str())
            .collect();
        return Err(Failure::usage(anyhow!(
            "no tool named `{name}`; available: {}",
            known.join(", ")
        )));
    };
    let workspace = context::resolve_workspace(dir, cx.config.sandbox.workspace_root.as_deref())?;
    let context = ToolContext {
        call_id: "cli-1".to_string(),
        workspace,
        may_write_protected: true,
        // The user ran the call themselves, so it may fetch the local address it names.
        approved_local: parsed
            .get("url")
            .and_then(|u| u.as_str())
            .and_then(reasonix_core::origin::Origin::local_of_url),
        cancel: Default::default(),
        events: None,
        agents: None,
        evidence: None,
    };
    match tool.invoke(&parsed.to_string(), &context) {
        Ok(text) => {
            outln!("{text}");
            Ok(Code::Success)
        }
        Err(CallError::Unknown(message)) => Err(Failure::usage(anyhow!(message))),
        Err(e) => Err(Failure::runtime(anyhow!("{name}: {e}"))),
    }
}
