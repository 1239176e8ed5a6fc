//! Conversions between the generated WIT types and the kernel's own types.

use crate::error::PluginError;
use crate::host::bindings::provider as wit_provider;
use crate::host::bindings::types as wit;
use crate::types::{
    ChangeKind, FileChange, FinishReason, Message, ModelProfile, ProfileRequest, Role, StreamEvent,
    ToolCall, ToolContext, ToolSpec, Usage,
};

/// Most effort levels a profile may offer.
const MAX_EFFORT_LEVELS: usize = 32;
/// Longest protocol name or effort level in a profile, in bytes.
const MAX_PROFILE_WORD: usize = 64;

impl From<wit::Error> for PluginError {
    fn from(e: wit::Error) -> PluginError {
        match e {
            wit::Error::InvalidInput(m) => PluginError::InvalidInput(m),
            wit::Error::Denied(m) => PluginError::Denied(m),
            wit::Error::NotFound(m) => PluginError::NotFound(m),
            wit::Error::Timeout(m) => PluginError::Timeout(m),
            wit::Error::Cancelled => PluginError::Cancelled,
            wit::Error::RateLimited(r) => PluginError::RateLimited {
                retry_after_ms: r.retry_after_ms,
                message: r.message,
            },
            wit::Error::Auth(m) => PluginError::Auth(m),
            wit::Error::Http(h) => PluginError::Http {
                status: h.status,
                body: h.body,
            },
            wit::Error::Unsupported(m) => PluginError::Unsupported(m),
            wit::Error::Other(d) => PluginError::Other {
                code: d.code,
                message: d.message,
                retryable: d.retryable,
                detail: d.detail,
            },
        }
    }
}

pub fn call_context(ctx: &ToolContext) -> wit::CallContext {
    wit::CallContext {
        call_id: ctx.call_id.clone(),
        workspace: ctx.workspace.to_string_lossy().into_owned(),
    }
}

pub fn file_change(c: wit::FileChange) -> FileChange {
    FileChange {
        path: c.path,
        kind: match c.kind {
            wit::ChangeKind::Create => ChangeKind::Create,
            wit::ChangeKind::Modify => ChangeKind::Modify,
            wit::ChangeKind::Delete => ChangeKind::Delete,
        },
        old_text: c.old_text,
        new_text: c.new_text,
    }
}

pub fn tool_spec(t: &ToolSpec) -> wit::ToolSpec {
    wit::ToolSpec {
        name: t.name.clone(),
        description: t.description.clone(),
        parameters: t.parameters.clone(),
        read_only: t.read_only,
        guidance: t.guidance.clone(),
    }
}

pub fn message(m: &Message) -> wit::Message {
    wit::Message {
        role: match m.role {
            Role::System => wit::Role::System,
            Role::User => wit::Role::User,
            Role::Assistant => wit::Role::Assistant,
            Role::Tool => wit::Role::Tool,
        },
        content: m.content.clone(),
        reasoning: m.reasoning.clone(),
        reasoning_state: m.reasoning_state.clone(),
        tool_calls: m
            .tool_calls
            .iter()
            .map(|c| wit::ToolCall {
                id: c.id.clone(),
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            })
            .collect(),
        tool_call_id: m.tool_call_id.clone(),
        images: m
            .images
            .iter()
            .map(|i| wit::Image {
                media_type: i.media_type.clone(),
                data: i.data.clone(),
            })
            .collect(),
    }
}

pub fn stream_event(e: wit::StreamEvent) -> StreamEvent {
    match e {
        wit::StreamEvent::Text(t) => StreamEvent::Text(t),
        wit::StreamEvent::Reasoning(t) => StreamEvent::Reasoning(t),
        wit::StreamEvent::ReasoningState(s) => StreamEvent::ReasoningState(s),
        wit::StreamEvent::ToolCall(c) => StreamEvent::ToolCall(ToolCall {
            id: c.id,
            name: c.name,
            arguments: c.arguments,
        }),
        wit::StreamEvent::Usage(u) => StreamEvent::Usage(Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            cache_hit_tokens: u.cache_hit_tokens,
            cache_miss_tokens: u.cache_miss_tokens,
            reasoning_tokens: u.reasoning_tokens,
        }),
        wit::StreamEvent::Done(r) => StreamEvent::Done(match r {
            wit::FinishReason::Stop => FinishReason::Stop,
            wit::FinishReason::ToolCalls => FinishReason::ToolCalls,
            wit::FinishReason::Length => FinishReason::Length,
            wit::FinishReason::ContentFilter => FinishReason::ContentFilter,
            wit::FinishReason::Other => FinishReason::Other,
        }),
    }
}

pub fn profile_request(r: &ProfileRequest) -> wit_provider::ProfileRequest {
    wit_provider::ProfileRequest {
        kind: r.kind.clone(),
        provider: r.provider.clone(),
        base_url: r.base_url.clone(),
        model: r.model.clone(),
        effort: r.effort.clone(),
        options: r.options.clone(),
    }
}

/// A component's profile, checked: a stall timeout of at least 1 ms, at most
/// [`MAX_EFFORT_LEVELS`] levels, every word non-empty, short and free of control characters.
/// The error says what is wrong.
pub fn model_profile(p: wit_provider::ModelProfile) -> Result<ModelProfile, String> {
    if p.stall_timeout_ms == 0 {
        return Err("stall-timeout-ms is 0 (it must be at least 1)".into());
    }
    if p.effort_levels.len() > MAX_EFFORT_LEVELS {
        return Err(format!(
            "{} effort levels (at most {MAX_EFFORT_LEVELS})",
            p.effort_levels.len()
        ));
    }
    let word = |what: &str, text: &str| -> Result<(), String> {
        if text.is_empty() || text.len() > MAX_PROFILE_WORD || text.chars().any(char::is_control) {
            return Err(format!(
                "{what} {text:?} must be 1 to {MAX_PROFILE_WORD} bytes without control characters"
            ));
        }
        Ok(())
    };
    word("reasoning-protocol", &p.reasoning_protocol)?;
    for level in &p.effort_levels {
        word("effort level", level)?;
    }
    Ok(ModelProfile {
        reasoning_protocol: p.reasoning_protocol,
        effort_levels: p.effort_levels,
        stall_timeout_ms: p.stall_timeout_ms,
        images: p.images,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(stall: u32, protocol: &str, levels: &[&str]) -> wit_provider::ModelProfile {
        wit_provider::ModelProfile {
            reasoning_protocol: protocol.to_string(),
            effort_levels: levels.iter().map(|l| l.to_string()).collect(),
            stall_timeout_ms: stall,
            images: false,
        }
    }

    #[test]
    fn a_profile_is_checked_before_the_kernel_uses_it() {
        let good = model_profile(profile(300_000, "x", &["auto", "high"])).unwrap();
        assert_eq!(good.effort_levels, ["auto", "high"]);
        assert_eq!(good.stall_timeout_ms, 300_000);
        assert!(model_profile(profile(1, "x", &[])).is_ok());
        let many: Vec<String> = (0..=MAX_EFFORT_LEVELS).map(|i| i.to_string()).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let long = "x".repeat(MAX_PROFILE_WORD + 1);
        for (bad, wanted) in [
            (profile(0, "x", &["auto"]), "stall-timeout-ms is 0"),
            (profile(1, "", &["auto"]), "reasoning-protocol"),
            (profile(1, &long, &["auto"]), "reasoning-protocol"),
            (profile(1, "x", &["auto", "hi\u{1b}[2J"]), "effort level"),
            (profile(1, "x", &["auto", ""]), "effort level"),
            (profile(1, "x", &many), "effort levels (at most 32)"),
        ] {
            let err = model_profile(bad).unwrap_err();
            assert!(err.contains(wanted), "{err}");
        }
    }
}
