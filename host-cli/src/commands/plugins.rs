use crate::context;
use crate::exit::{Code, Failure, Outcome};
use reasonix_kernel::component::{LoadedPlugin, Origin};
use serde_json::json;

pub fn list(as_json: bool) -> Outcome {
    let cx = context::load()?;
    let plugins = cx.registry.plugins();
    if as_json {
        let value = json!({
            "plugins": plugins.iter().map(|p| plugin_json(p)).collect::<Vec<_>>(),
            "problems": cx.registry.problems().iter().map(|e| e.to_string()).collect::<Vec<_>>(),
        });
        let text = serde_json::to_string_pretty(&value).map_err(Failure::runtime)?;
        println!("{text}");
        return Ok(Code::Success);
    }
    for p in plugins {
        let d = &p.described;
        println!("{} {} ({})", d.info.name, d.info.version, source(&d.origin));
        println!("  {}", d.info.description);
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
    }
    Ok(Code::Success)
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

fn plugin_json(p: &LoadedPlugin) -> serde_json::Value {
    let d = &p.described;
    json!({
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
