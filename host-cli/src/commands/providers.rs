//! `reasonix providers …`: the configured providers, the presets, and a one-shot completion
//! to try a provider end to end.

use crate::context::{self, Context};
use crate::exit::{Code, Failure, Outcome};
use crate::term::{self, err, errln, outln};
use reasonix_agent::completion::{ChatRequest, ProviderClient, ask_profile};
use reasonix_config::providers::{self, ResolvedProvider, chosen_effort, dotenv};
use reasonix_core::cancel::CancelToken;
use reasonix_core::catalog::Catalog;
use reasonix_core::types::{Message, ModelProfile, Role, StreamEvent, Usage};
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// What the component serving `provider`'s kind says about its default model with the
/// configured effort: `None` when no loaded plugin serves the kind; the error names the
/// provider, the model and what is wrong.
pub fn default_profile(
    cx: &Context,
    provider: &ResolvedProvider,
) -> Option<Result<ModelProfile, String>> {
    profile_of(cx, provider, &provider.default_model)
}

/// [`default_profile`] for any of the provider's models.
pub fn profile_of(
    cx: &Context,
    provider: &ResolvedProvider,
    model: &str,
) -> Option<Result<ModelProfile, String>> {
    let kind = cx.registry.provider(&provider.kind)?;
    let effort = chosen_effort(provider, model, None);
    Some(ask_profile(kind.as_ref(), provider, model, effort.as_deref()).map_err(|e| e.to_string()))
}

/// `stall_timeout_seconds`, else the profile's default, in seconds.
fn stall_seconds(provider: &ResolvedProvider, profile: Option<&ModelProfile>) -> Option<u64> {
    provider
        .stall_timeout
        .map(|d| d.as_secs())
        .or_else(|| profile.map(|p| Duration::from_millis(u64::from(p.stall_timeout_ms)).as_secs()))
}

/// Where a provider's API key was found. Never the key itself.
pub fn key_source(provider: &ResolvedProvider, home: &Path) -> &'static str {
    match &provider.api_key_env {
        None => "none needed",
        Some(name) if std::env::var_os(name).is_some_and(|v| !v.is_empty()) => "environment",
        Some(name) if dotenv::secret(name, home).is_some() => "<home>/.env",
        Some(_) => "missing",
    }
}

pub fn list(as_json: bool) -> Outcome {
    let cx = context::load()?;
    let resolved = providers::resolve_providers(&cx.config).map_err(Failure::usage)?;
    for warning in cx.config.warnings() {
        errln!("warning: {warning}");
    }
    let served = cx.registry.provider_kinds();
    let default = default_model(&cx, &resolved);
    let unserved: Vec<&ResolvedProvider> = resolved
        .iter()
        .filter(|p| cx.registry.provider(&p.kind).is_none())
        .collect();
    let profiles: Vec<Option<Result<ModelProfile, String>>> =
        resolved.iter().map(|p| default_profile(&cx, p)).collect();
    if as_json {
        let value = json!({
            "providers": resolved
                .iter()
                .zip(&profiles)
                .map(|(p, profile)| provider_json(&cx, p, profile.as_ref()))
                .collect::<Vec<_>>(),
            "default_model": match &default {
                Ok((provider, model)) => json!({"provider": provider, "model": model}),
                Err(e) => json!({"error": e}),
            },
            "kinds_served": served,
        });
        term::print_json(&value).map_err(Failure::runtime)?;
    } else {
        if resolved.is_empty() && default.is_ok() {
            outln!(
                "no providers configured; the default model uses a built-in preset as it is (`reasonix providers presets`)"
            );
        } else if resolved.is_empty() {
            outln!(
                "no providers configured; add a [[providers]] entry to {} (see `reasonix providers presets`)",
                cx.paths.user_config().display()
            );
        }
        for (p, profile) in resolved.iter().zip(&profiles) {
            print_provider(&cx, p, profile.as_ref());
        }
        match &default {
            Ok((provider, model)) => outln!("default model: {provider}/{model}"),
            Err(e) if !resolved.is_empty() => outln!("default model: none ({e})"),
            Err(_) => {}
        }
        outln!("kinds served: {}", served.join(", "));
    }
    for p in &unserved {
        errln!(
            "error: provider `{}` has kind `{}`, which no loaded plugin serves; kinds served: {}",
            p.name,
            p.kind,
            served.join(", ")
        );
    }
    let mut refused = false;
    for profile in profiles.iter().flatten() {
        if let Err(e) = profile {
            errln!("error: {e}");
            refused = true;
        }
    }
    Ok(if unserved.is_empty() && !refused {
        Code::Success
    } else {
        Code::Failure
    })
}

fn default_model(cx: &Context, resolved: &[ResolvedProvider]) -> Result<(String, String), String> {
    providers::resolve_model(None, cx.config.default_model.as_deref(), resolved)
        .map(|(p, model)| (p.name.clone(), model))
        .map_err(|e| e.to_string())
}

fn print_provider(
    cx: &Context,
    p: &ResolvedProvider,
    profile: Option<&Result<ModelProfile, String>>,
) {
    let served_by = cx
        .registry
        .provider(&p.kind)
        .map(|k| format!("served by {}", k.source()))
        .unwrap_or_else(|| "NOT SERVED by any loaded plugin".to_string());
    outln!("{}  (kind {}, {served_by})", p.name, p.kind);
    outln!("  base_url:  {}", p.base_url);
    if let Some(url) = &p.request_url {
        outln!("  request:   {url}");
    }
    let models: Vec<String> = p
        .models
        .iter()
        .map(|m| {
            if *m == p.default_model {
                format!("{m} (default)")
            } else {
                m.clone()
            }
        })
        .collect();
    outln!("  models:    {}", models.join(", "));
    match &p.api_key_env {
        Some(env) => outln!("  api key:   {env} ({})", key_source(p, &cx.paths.home)),
        None => outln!("  api key:   none"),
    }
    let effort = chosen_effort(p, &p.default_model, None);
    let effort = effort.as_deref().unwrap_or("auto");
    let good = profile.and_then(|r| r.as_ref().ok());
    let stall = stall_seconds(p, good)
        .map(|s| format!("{s} s"))
        .unwrap_or_else(|| "unknown".to_string());
    match profile {
        Some(Ok(profile)) => outln!(
            "  reasoning: {}, effort {effort} (levels: {}); stall {stall}; retries {}",
            profile.reasoning_protocol,
            profile.effort_levels.join(", "),
            p.max_retries
        ),
        Some(Err(_)) => outln!(
            "  reasoning: refused by the kind's plugin (see the error below); effort {effort}; stall {stall}; retries {}",
            p.max_retries
        ),
        None => outln!(
            "  reasoning: unknown (kind not served); effort {effort}; stall {stall}; retries {}",
            p.max_retries
        ),
    }
    let images = match (p.vision_for(&p.default_model), good) {
        (Some(true), _) => "sent (vision = true)",
        (Some(false), _) => "not sent (vision = false)",
        (None, Some(g)) if g.images => "sent (the model reads images)",
        (None, Some(_)) => "not sent (not known to read images; `vision = true` sends them)",
        (None, None) => "unknown",
    };
    outln!("  images:    {images}");
}

/// Whether requests to the default model carry images: the user's `vision`, else the profile.
fn reads_images(p: &ResolvedProvider, profile: Option<&ModelProfile>) -> Option<bool> {
    p.vision_for(&p.default_model).or(profile.map(|g| g.images))
}

fn provider_json(
    cx: &Context,
    p: &ResolvedProvider,
    profile: Option<&Result<ModelProfile, String>>,
) -> serde_json::Value {
    let good = profile.and_then(|r| r.as_ref().ok());
    json!({
        "name": p.name,
        "kind": p.kind,
        "served_by": cx.registry.provider(&p.kind).map(|k| k.source().to_string()),
        "base_url": p.base_url,
        "request_url": p.request_url,
        "models": p.models,
        "default_model": p.default_model,
        "api_key_env": p.api_key_env,
        "api_key": key_source(p, &cx.paths.home),
        "reasoning_protocol": good.map(|g| g.reasoning_protocol.clone()),
        "effort": chosen_effort(p, &p.default_model, None).unwrap_or_else(|| "auto".to_string()),
        "effort_levels": good.map(|g| g.effort_levels.clone()),
        "profile_error": profile.and_then(|r| r.as_ref().err()),
        "context_window": p.context_window,
        "stall_timeout_seconds": stall_seconds(p, good),
        "images": reads_images(p, good),
        "max_retries": p.max_retries,
    })
}

pub fn presets(as_json: bool) -> Outcome {
    let all = providers::presets();
    if as_json {
        let value: Vec<serde_json::Value> = all
            .iter()
            .map(|p| {
                json!({
                    "id": p.id, "kind": p.kind, "base_url": p.base_url, "models": p.models,
                    "default": p.default, "api_key_env": p.api_key_env,
                    "reasoning_protocol": p.reasoning_protocol, "description": p.description,
                })
            })
            .collect();
        term::print_json(&value).map_err(Failure::runtime)?;
        return Ok(Code::Success);
    }
    for p in all {
        outln!("{:<11} {:<9} {}", p.id, p.kind, p.base_url);
        outln!("            {}", p.description);
    }
    outln!();
    outln!("Model aliases (of the original Reasonix):");
    for a in providers::aliases() {
        outln!("  {:<16} {}", a.name, a.target());
    }
    outln!();
    outln!(
        "Without a [[providers]] entry, `default_model` (or --model) may name a preset, an alias or \
         `<preset>/<model>`: the preset is used as it is, with its key from the environment or {}.",
        reasonix_config::Paths::from_env()
            .credentials_file()
            .display()
    );
    outln!("To change one (its base URL, models …), add an entry:");
    outln!("  [[providers]]\n  preset = \"<id>\"\n  base_url = \"…\"");
    Ok(Code::Success)
}

/// Stream one answer to `prompt`: text to stdout as it arrives, everything else to stderr.
pub fn try_prompt(model: Option<&str>, effort: Option<&str>, prompt: &str) -> Outcome {
    let cx = context::load()?;
    let resolved = providers::resolve_providers(&cx.config).map_err(Failure::usage)?;
    let client = ProviderClient::new(
        cx.registry.as_ref(),
        &resolved,
        model,
        cx.config.default_model.as_deref(),
        effort,
        &cx.paths.home,
    )
    .map_err(Failure::usage)?;
    errln!(
        "{}/{} (kind {}, served by {}; reasoning {}, effort {})",
        client.provider().name,
        client.model(),
        client.provider().kind,
        client.served_by(),
        client.profile().reasoning_protocol,
        client.effort().unwrap_or("auto")
    );
    let request = ChatRequest {
        messages: vec![Message::text(Role::User, prompt)],
        tools: vec![],
        effort: effort.map(str::to_string),
        max_output_tokens: None,
    };
    let cancel = CancelToken::new();
    let mut completion = client
        .stream(&request, &cancel, &mut |notice| {
            errln!(
                "retrying ({}/{}) in {:.1} s: {}",
                notice.attempt,
                notice.max_retries,
                notice.delay.as_secs_f64(),
                notice.reason
            );
        })
        .map_err(Failure::runtime)?;
    loop {
        let batch = completion.next_events().map_err(Failure::runtime)?;
        if batch.is_empty() {
            break;
        }
        for event in batch {
            match event {
                StreamEvent::Text(text) => term::write_out(&text),
                StreamEvent::Reasoning(text) => err!("{text}"),
                StreamEvent::ToolCall(call) => {
                    errln!("\ntool call {} {}({})", call.id, call.name, call.arguments)
                }
                StreamEvent::Usage(usage) => errln!("\n{}", usage_line(&usage)),
                StreamEvent::Done(reason) => errln!("finish: {reason:?}"),
                StreamEvent::ReasoningState(_) => {}
            }
        }
    }
    outln!();
    Ok(Code::Success)
}

fn usage_line(usage: &Usage) -> String {
    format!(
        "usage: prompt {} (cache hit {}, miss {}), completion {} (reasoning {})",
        usage.prompt_tokens,
        usage.cache_hit_tokens,
        usage.cache_miss_tokens,
        usage.completion_tokens,
        usage.reasoning_tokens
    )
}
