//! `/mode`: the run mode of the session — the effort level (when the model offers it and
//! no `/effort` or `--effort` chose one), the sub-agent limits from the next child on, and
//! how strictly task-list steps are verified (`docs/RUN.md`, "Run modes").

use super::app::App;
use super::effect::{Effect, Effects};
use reasonix_config::run_mode::{NAMES, RunMode};
use reasonix_i18n::t;

pub fn command(app: &App, args: &str) -> Effects {
    let mut out = Effects::default();
    if args.is_empty() {
        out.notice(t!(
            "mode-current",
            mode = super::status::mode_name(app.actions.mode),
            names = NAMES.join(" | ")
        ));
        return out;
    }
    match args.parse::<RunMode>() {
        Ok(mode) => out.push(Effect::SetMode(mode)),
        Err(e) => out.error(e.to_string()),
    }
    out
}

impl App {
    pub(super) fn set_mode(&mut self, mode: RunMode) {
        self.actions.mode = mode;
        self.status.mode = mode;
        self.set_strictness();
        let settings = &self.actions.prepared.cx.config.agent;
        if let Some(agents) = self.session.sub_agents() {
            agents.set_limits(reasonix_runtime::delegate::limits_in(settings, mode));
        }
        let mut said = vec![t!("mode-set", mode = super::status::mode_name(mode))];
        if let Some(effort) = &self.actions.effort {
            said.push(t!("mode-effort-kept", effort = effort.as_str()));
        } else {
            // The effort is the client's: rebuilt for the same model under the new mode.
            let model = self.status.model.clone();
            match super::actions::client_in_mode(self, &model, mode) {
                Ok(client) => {
                    said.push(t!(
                        "mode-effort",
                        effort = client.effort().unwrap_or("auto")
                    ));
                    self.session.switch_client(client);
                }
                Err(e) => said.push(t!("mode-effort-unchanged", error = e.to_string())),
            }
        }
        let strictness = mode.strictness(false);
        said.push(if strictness.fresh_verification {
            t!("mode-steps-fresh")
        } else {
            t!("mode-steps-goal")
        });
        if let Some(agents) = self.session.sub_agents() {
            let limits = agents.limits();
            said.push(t!(
                "mode-subagents",
                depth = limits.max_depth,
                concurrency = limits.max_concurrency,
                writers = limits.max_writers
            ));
        }
        self.notice(&said.join(" · "));
    }
}
