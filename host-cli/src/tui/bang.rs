//! `!cmd`: run a shell command through the shell tool (so in the sandbox, under the
//! `[sandbox]` policy) without the model. The user typed it, so it is not asked about; the
//! output is shown as a card and is not sent to the model.

use super::app::App;
use super::effect::{Effect, Effects};
use super::msg::Msg;
use super::transcript::{CardStatus, ToolCard};
use reasonix_core::types::ToolContext;
use reasonix_i18n::t;
use std::time::Instant;

/// The shell tool's name (a front end may name the tools it offers shortcuts for).
const SHELL_TOOL: &str = "bash";

#[derive(Debug)]
pub struct Finished {
    pub card: ToolCard,
}

/// Echo `!command` and start it; its card comes back as [`super::msg::Msg::Shell`].
pub fn run(app: &App, command: String) -> Effects {
    let Some(tool) = app
        .actions
        .catalog
        .tools()
        .into_iter()
        .find(|t| t.spec().name == SHELL_TOOL)
    else {
        return Effect::Error(t!("cmd-bang-no-shell")).into();
    };
    let mut out = Effects::default();
    out.commit(super::transcript::user_lines(
        &format!("!{command}"),
        app.theme,
    ));
    let to_ui = app.actions.to_ui.clone();
    let workspace = app.actions.workspace.clone();
    let spawned = std::thread::Builder::new()
        .name("reasonix-bang".into())
        .spawn(move || {
            let started = Instant::now();
            let arguments = serde_json::json!({ "command": command }).to_string();
            let context = ToolContext {
                call_id: "bang".into(),
                workspace,
                may_write_protected: false,
                approved_local: None,
                cancel: Default::default(),
                events: None,
                agents: None,
                evidence: None,
            };
            let result = tool.invoke(&arguments, &context);
            let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            let (status, output) = match result {
                Ok(text) => (CardStatus::Done, text),
                Err(e) => (CardStatus::Failed, e.to_string()),
            };
            let mut card = ToolCard::new("bang", format!("!{SHELL_TOOL}"), arguments);
            card.status = status;
            card.duration_ms = Some(duration_ms);
            card.output = Some(output);
            let _ = to_ui.send(Msg::Shell(Finished { card }));
        });
    if let Err(e) = spawned {
        out.error(t!("cmd-bang-failed", error = e.to_string()));
    }
    out
}
