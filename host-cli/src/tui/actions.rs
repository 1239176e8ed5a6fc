//! Slash commands: what each built-in does in the session. The names, descriptions and
//! completion come from the one registry ([`super::slash`]); this is the dispatch. A command
//! reads the app and returns what it asks for ([`Effects`]); the app applies it.

use super::app::{App, Overlay};
use super::effect::{Effect, Effects};
use super::msg::Msg;
use super::slash::CommandKind;
use super::status::{Status, mode_name, money, posture_name, tokens};
use super::text::safe_line;
use ratatui::text::{Line, Span};
use reasonix_agent::session::SessionStore;
use reasonix_config::providers::ResolvedProvider;
use reasonix_core::catalog::Catalog;
use reasonix_core::types::ToolSpec;
use reasonix_i18n::t;
use reasonix_protocol::Op;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Sender;

/// What the commands need besides the app state.
pub struct Context {
    pub catalog: Arc<dyn Catalog>,
    pub prepared: Arc<crate::launch::Runtime>,
    pub resolved: Vec<ResolvedProvider>,
    pub store: SessionStore,
    pub workspace: PathBuf,
    pub user_config: PathBuf,
    pub to_ui: Sender<Msg>,
    pub tools: Vec<ToolSpec>,
    pub policy_text: Vec<String>,
    pub effort: Option<String>,
    /// The run mode (`/mode`).
    pub mode: reasonix_config::run_mode::RunMode,
    pub slash: Arc<super::slash::SlashRegistry>,
}

/// The prompt `/init` sends: the model looks at the project and writes REASONIX.md.
const INIT_PROMPT: &str = "Look at this project (its layout, build files, README, tests) and write a concise REASONIX.md at the workspace root for future sessions: what the project is, how to build, test and run it, the code layout, and conventions worth following. If REASONIX.md exists, improve it instead of replacing what is still true. Keep it under 80 lines.";

/// What the command on `line` asks for.
pub fn dispatch(app: &App, line: &str) -> Effects {
    // `# fact` on one line saves it, as Claude Code's `#` does; a longer message that starts
    // with a heading goes to the model.
    if let Some(fact) = line.strip_prefix("# ")
        && !line.contains('\n')
    {
        return remember(app, fact);
    }
    let Some(invocation) = super::slash::SlashRegistry::parse(line) else {
        let text = super::slash::message_text(line).to_string();
        return Effect::Prompt(text).into();
    };
    let (name, args) = (invocation.name.as_str(), invocation.args.trim());
    let theme = app.theme;
    let mut out = Effects::default();
    match name {
        "help" => {
            out.commit(app.actions.slash.help_lines(&theme));
            out.commit([Line::from(Span::styled(t!("cmd-help-keys"), theme.dim()))]);
        }
        "new" | "clear" => out.submit(Op::NewSession {}),
        "memory" => out.extend(memory_list(app)),
        "remember" => out.extend(remember(app, args)),
        "forget" if args.is_empty() => out.error(t!("cmd-forget-needs-id")),
        "forget" => {
            let prepared = &app.actions.prepared;
            match prepared.memory.forget(&prepared.workspace, args) {
                Ok(Some(fact)) => out.notice(t!(
                    "cmd-forget-done",
                    id = fact.id.as_str(),
                    text = super::text::truncate(&safe_line(&fact.text), 60).into_owned()
                )),
                Ok(None) => out.error(t!("cmd-forget-unknown", id = safe_line(args).into_owned())),
                Err(e) => out.error(format!("/forget: {}", safe_line(&e.to_string()))),
            }
        }
        "resume" | "sessions" => match app.actions.store.list() {
            Ok(sessions) if sessions.is_empty() => out.notice(t!("cmd-sessions-none")),
            Ok(sessions) if name == "sessions" => {
                let lines: Vec<Line<'static>> = sessions
                    .iter()
                    .take(20)
                    .map(|s| {
                        Line::from(t!(
                            "cmd-sessions-row",
                            // Whole: ids start with the date, so a cut one names a day.
                            id = safe_line(&s.id).into_owned(),
                            count = format!("{:>4}", s.messages),
                            model = safe_line(&format!("{}/{}", s.provider, s.model)).into_owned(),
                            title = safe_line(&s.title).into_owned()
                        ))
                    })
                    .collect();
                out.commit(lines);
                out.notice(t!("cmd-sessions-hint"));
            }
            Ok(sessions) => out.push(Effect::Open(Overlay::Picker(super::picker::Picker::new(
                sessions, args,
            )))),
            Err(e) => out.error(t!("cmd-sessions-failed", error = e.to_string())),
        },
        "model" => out.extend(model(app, args)),
        "goal" => out.extend(super::goal::command(app, args)),
        "mode" => out.extend(super::mode::command(app, args)),
        "effort" => {
            if args.is_empty() {
                let effort = app
                    .actions
                    .effort
                    .clone()
                    .unwrap_or_else(|| t!("cmd-effort-default"));
                out.notice(t!("cmd-effort-current", effort = effort));
            } else {
                let effort = (args != "auto").then(|| args.to_string());
                out.push(Effect::SetEffort(effort));
                out.notice(t!("cmd-effort-set", effort = args));
            }
        }
        "status" => {
            let s = &app.status;
            let lines = status_lines(s, app.actions.mode, &app.actions.workspace);
            out.commit(
                lines
                    .into_iter()
                    .chain(model_lines(&app.status))
                    .map(|l| Line::from(Span::styled(l, theme.plain()))),
            );
        }
        "cost" => {
            out.notice(t!("cmd-cost-session", cost = cost_text(&app.status)));
            out.commit(
                model_lines(&app.status).map(|l| Line::from(Span::styled(l, theme.plain()))),
            );
        }
        "permissions" if args.starts_with("revoke") => {
            let wanted = args.trim_start_matches("revoke").trim();
            // By number in the listing (1-based) or by the rule's text.
            let found = wanted
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .filter(|&i| i < app.session_grants.len())
                .or_else(|| app.session_grants.iter().position(|r| r == wanted));
            match found {
                Some(i) => {
                    let rule = app.session_grants[i].clone();
                    out.notice(t!(
                        "cmd-permissions-revoked",
                        rule = safe_line(&rule).into_owned()
                    ));
                    out.push(Effect::RevokeGrant(rule));
                }
                None if app.session_grants.is_empty() => {
                    out.notice(t!("cmd-permissions-nothing-to-revoke"))
                }
                None => out.error(t!(
                    "cmd-permissions-revoke-usage",
                    grants = app
                        .session_grants
                        .iter()
                        .enumerate()
                        .map(|(i, r)| format!("{} {}", i + 1, safe_line(r)))
                        .collect::<Vec<_>>()
                        .join(&t!("cmd-list-separator"))
                )),
            }
        }
        "permissions" => {
            let mut lines = vec![Line::from(Span::styled(
                t!(
                    "cmd-permissions-posture",
                    posture = posture_name(app.status.posture)
                ),
                theme.heading(),
            ))];
            lines.extend(
                app.actions
                    .policy_text
                    .iter()
                    .map(|l| Line::from(format!("  {}", safe_line(l)))),
            );
            // Grants answered in this session, after the rules of the config files.
            lines.extend(app.session_grants.iter().enumerate().map(|(i, rule)| {
                Line::from(t!(
                    "cmd-permissions-session-grant",
                    number = (i + 1).to_string(),
                    rule = safe_line(rule).into_owned()
                ))
            }));
            if !app.session_grants.is_empty() {
                lines.push(Line::from(Span::styled(
                    t!("cmd-permissions-revoke-hint"),
                    theme.dim(),
                )));
            }
            out.commit(lines);
        }
        "plugins" => {
            let catalog = app.actions.catalog.clone();
            let mut names: Vec<String> = catalog
                .tools()
                .iter()
                .map(|t| t.source().to_string())
                .chain(
                    catalog
                        .interceptors()
                        .iter()
                        .map(|i| i.source().to_string()),
                )
                .collect();
            names.sort();
            names.dedup();
            // What each serves, so the list says more than names.
            let serves = |name: &str| -> String {
                let tools: Vec<String> = catalog
                    .tools()
                    .iter()
                    .filter(|t| t.source() == name)
                    .map(|t| t.spec().name.clone())
                    .collect();
                let intercepts = catalog.interceptors().iter().any(|i| i.source() == name);
                let mut what = Vec::new();
                if !tools.is_empty() {
                    what.push(t!("cmd-plugins-tools", tools = tools.join(", ")));
                }
                if intercepts {
                    what.push(t!("cmd-plugins-interceptor"));
                }
                what.join(" · ")
            };
            let lines: Vec<Line<'static>> = names
                .iter()
                .map(|n| {
                    Line::from(vec![
                        Span::styled(format!("  {}", pad(&safe_line(n), 16)), theme.accent()),
                        Span::styled(
                            super::text::truncate(&safe_line(&serves(n)), 60).into_owned(),
                            theme.dim(),
                        ),
                    ])
                })
                .collect();
            out.commit(lines);
        }
        "tools" => {
            let lines: Vec<Line<'static>> = app
                .actions
                .tools
                .iter()
                .map(|t| {
                    // The description is written for the model; the start of it is enough
                    // to recognise the tool, on one row of an 80-column terminal.
                    let first = t.description.lines().next().unwrap_or_default();
                    Line::from(vec![
                        Span::styled(
                            format!("  {}", pad(&safe_line(&t.name), 16)),
                            theme.accent(),
                        ),
                        Span::styled(
                            super::text::truncate(&safe_line(first), 60).into_owned(),
                            theme.dim(),
                        ),
                    ])
                })
                .collect();
            out.commit(lines);
        }
        "agents" => {
            let (profiles, problems) =
                reasonix_runtime::delegate::profile_sources(&app.actions.prepared.cx)
                    .load(&app.actions.workspace);
            let mut lines: Vec<Line<'static>> = profiles
                .iter()
                .map(|p| {
                    let from = match &p.origin {
                        reasonix_runtime::delegate::profiles::Origin::BuiltIn => {
                            t!("cmd-agents-built-in")
                        }
                        reasonix_runtime::delegate::profiles::Origin::File(path) => {
                            safe_line(&path.display().to_string()).into_owned()
                        }
                    };
                    Line::from(vec![
                        Span::styled(
                            format!("  {}", pad(&safe_line(&p.name), 16)),
                            theme.accent(),
                        ),
                        Span::styled(
                            super::text::truncate(&safe_line(&p.description), 60).into_owned(),
                            theme.dim(),
                        ),
                        Span::styled(t!("cmd-agents-from", from = from), theme.dim()),
                    ])
                })
                .collect();
            for problem in problems {
                lines.push(Line::from(Span::styled(
                    t!(
                        "cmd-agents-skipped",
                        problem = safe_line(&problem).into_owned()
                    ),
                    theme.warning(),
                )));
            }
            out.commit(lines);
            out.notice(t!("cmd-agents-hint"));
        }
        "skills" => {
            let theme = app.theme;
            let catalog = &app.actions.prepared.skills;
            let mut lines = vec![Line::from(Span::styled(
                t!("cmd-skills-title", count = catalog.skills.len().to_string()),
                theme.heading(),
            ))];
            for skill in &catalog.skills {
                let mut how = Vec::new();
                if skill.model_invocable && !catalog.no_index {
                    how.push(t!("cmd-skills-by-model"));
                }
                if skill.user_invocable {
                    how.push(format!("/{}", skill.name));
                }
                if !skill.trusted {
                    how.push(t!("cmd-skills-untrusted"));
                }
                lines.push(Line::from(vec![
                    Span::styled(
                        format!("  {}", pad(&safe_line(&skill.name), 18)),
                        theme.accent(),
                    ),
                    Span::styled(
                        super::text::truncate(&safe_line(&skill.description), 60).into_owned(),
                        theme.dim(),
                    ),
                    Span::styled(
                        t!(
                            "cmd-skills-how",
                            scope = skill_scope(skill.scope),
                            how = how.join(&t!("cmd-list-separator"))
                        ),
                        theme.dim(),
                    ),
                ]));
            }
            for warning in &catalog.warnings {
                lines.push(Line::from(Span::styled(
                    t!(
                        "cmd-skills-skipped",
                        warning = safe_line(warning).into_owned()
                    ),
                    theme.warning(),
                )));
            }
            out.commit(lines);
            if catalog.skills.is_empty() {
                out.notice(t!("cmd-skills-none"));
            }
        }
        "agent" if !args.trim().is_empty() => {
            let name = args.trim();
            let prepared = &app.actions.prepared;
            let current = prepared.composition.as_ref().map(|c| c.name.as_str());
            if current == Some(name) {
                out.notice(t!("cmd-agent-already", name = safe_line(name).into_owned()));
            } else if let Err(e) = prepared.cx.config.composition(name) {
                out.error(safe_line(&e.to_string()).into_owned());
            } else if app.turn.is_some() {
                out.error(t!("cmd-agent-turn-running"));
            } else {
                out.push(Effect::SwitchComposition(name.to_string()));
            }
        }
        "agent" => {
            let theme = app.theme;
            let prepared = &app.actions.prepared;
            let current = prepared.composition.as_ref().map(|c| c.name.as_str());
            let mut lines = vec![Line::from(Span::styled(
                match current {
                    Some(name) => t!("cmd-agent-title", name = safe_line(name).into_owned()),
                    None => t!("cmd-agent-title-none"),
                },
                theme.heading(),
            ))];
            for c in &prepared.cx.config.compositions {
                let mark = if Some(c.name.as_str()) == current {
                    "*"
                } else {
                    " "
                };
                lines.push(Line::from(vec![
                    Span::styled(
                        format!(" {mark}{}", pad(&safe_line(&c.name), 16)),
                        theme.accent(),
                    ),
                    Span::styled(
                        safe_line(c.file.description.as_deref().unwrap_or("")).into_owned(),
                        theme.dim(),
                    ),
                ]));
            }
            out.commit(lines);
            out.notice(t!("cmd-agent-hint"));
        }
        "compact" => {
            out.notice(t!("cmd-compact-started"));
            out.push(Effect::Compact(args.trim().to_string()));
        }
        "init" => out.push(Effect::Prompt(INIT_PROMPT.to_string())),
        "rewind" => out.extend(super::rewind::command(app, args)),
        "fork" => out.extend(super::rewind::fork(app, args)),
        "tree" => out.extend(super::rewind::tree(app)),
        "mcp" => out.extend(super::mcp::command(app, args)),
        _ if name.starts_with("mcp__") => out.extend(super::mcp::run_prompt(app, name, args)),
        "quit" | "exit" => out.push(Effect::Quit),
        _ if let Some(CommandKind::Skill(skill)) = app.actions.slash.get(name).map(|c| &c.kind) => {
            match reasonix_session::input::skill::invoked_text(skill, args) {
                Ok(prompt) => out.push(Effect::CommandPrompt {
                    prompt,
                    args: args.to_string(),
                }),
                Err(why) => out.error(format!("/{}: {}", safe_line(name), safe_line(&why))),
            }
        }
        _ => match app.actions.slash.get(name).and_then(|c| c.expand(args)) {
            Some(prompt) => out.push(Effect::CommandPrompt {
                prompt: prompt.trim().to_string(),
                args: args.to_string(),
            }),
            None => out.error(t!("cmd-unknown", name = safe_line(name).into_owned())),
        },
    }
    out
}

/// `text` padded with spaces to `columns` terminal columns: by display width, as a CJK
/// character takes two.
fn pad(text: &str, columns: usize) -> String {
    let gap = columns.saturating_sub(super::text::width(text));
    format!("{text}{}", " ".repeat(gap))
}

/// `/status`: one `label value` row per fact, the values in one column (labels padded by
/// display width, so a translated label lines up too).
fn status_lines(
    s: &Status,
    mode: reasonix_config::run_mode::RunMode,
    workspace: &Path,
) -> Vec<String> {
    let context = match s.context_window {
        Some(window) => t!(
            "cmd-status-context-value",
            used = tokens(s.context_used),
            window = tokens(window)
        ),
        None => t!(
            "cmd-status-context-value",
            used = tokens(s.context_used),
            window = t!(
                "cmd-status-context-assumed",
                window = tokens(reasonix_agent::ASSUMED_CONTEXT_WINDOW)
            )
        ),
    };
    let cache = s
        .cache_hit_rate()
        .map(|r| {
            t!(
                "cmd-status-cache-value",
                percent = format!("{:.0}", r * 100.0)
            )
        })
        .unwrap_or_else(|| t!("cmd-status-cache-none"));
    let rows = [
        (t!("cmd-status-session"), s.session_id.clone()),
        (t!("cmd-status-model"), safe_line(&s.model).into_owned()),
        (t!("cmd-status-posture"), posture_name(s.posture)),
        (t!("cmd-status-mode"), mode_name(mode)),
        (t!("cmd-status-workspace"), workspace.display().to_string()),
        (t!("cmd-status-context"), context),
        (
            t!("cmd-status-tokens"),
            t!(
                "cmd-status-tokens-value",
                input = tokens(s.input_tokens),
                output = tokens(s.output_tokens)
            ),
        ),
        (t!("cmd-status-cache"), cache),
        (t!("cmd-status-cost"), cost_text(s)),
    ];
    let column = rows
        .iter()
        .map(|(label, _)| super::text::width(label))
        .max()
        .unwrap_or(0)
        + 1;
    rows.into_iter()
        .map(|(label, value)| format!("{}{value}", pad(&label, column)))
        .collect()
}

fn cost_text(status: &Status) -> String {
    status
        .cost_text()
        .unwrap_or_else(|| t!("cmd-cost-no-prices"))
}

/// One line per model the session used: requests, tokens (cache hits apart) and cost.
fn model_lines(status: &Status) -> impl Iterator<Item = String> + '_ {
    status.spend.models.iter().map(|m| {
        let u = &m.usage;
        let cost = match &m.cost {
            Some(c) if m.unpriced_requests == 0 => money(c.total, &c.currency),
            Some(c) => t!(
                "cmd-cost-partly-unpriced",
                cost = money(c.total, &c.currency),
                count = m.unpriced_requests.to_string()
            ),
            None => t!("cmd-cost-unpriced"),
        };
        t!(
            "cmd-cost-model",
            model = format!("{}/{}", safe_line(&m.provider), safe_line(&m.model)),
            requests = u.requests.to_string(),
            input = tokens(u.input_tokens),
            cached = tokens(u.cache_read_tokens),
            output = tokens(u.output_tokens),
            cost = cost
        )
    })
}

/// Where a skill comes from, as `/skills` names it.
fn skill_scope(scope: reasonix_skills::Scope) -> String {
    use reasonix_skills::Scope;
    match scope {
        Scope::User => t!("cmd-skills-scope-user"),
        Scope::UserClaude => t!("cmd-skills-scope-user-claude"),
        Scope::UserAgents => t!("cmd-skills-scope-user-agents"),
        Scope::Custom => t!("cmd-skills-scope-custom"),
        Scope::Project => t!("cmd-skills-scope-project"),
        Scope::ProjectClaude => t!("cmd-skills-scope-project-claude"),
        Scope::ProjectAgents => t!("cmd-skills-scope-project-agents"),
        Scope::Package => t!("cmd-skills-scope-package"),
    }
}

/// A saved fact's scope, as `/memory` names it.
fn memory_scope(scope: reasonix_runtime::memory::Scope) -> String {
    use reasonix_runtime::memory::Scope;
    match scope {
        Scope::Project => t!("cmd-memory-scope-project"),
        Scope::User => t!("cmd-memory-scope-user"),
    }
}

fn model(app: &App, args: &str) -> Effects {
    let mut out = Effects::default();
    if args.is_empty() {
        let mut lines = vec![Line::from(Span::styled(
            t!(
                "cmd-model-title",
                model = safe_line(&app.status.model).into_owned()
            ),
            app.theme.heading(),
        ))];
        for provider in &app.actions.resolved {
            for model in &provider.models {
                lines.push(Line::from(format!(
                    "  {}/{}",
                    safe_line(&provider.name),
                    safe_line(model)
                )));
            }
        }
        out.commit(lines);
        return out;
    }
    match client_in_mode(app, args, app.actions.mode) {
        Ok(client) => out.push(Effect::SwitchClient(Box::new(client))),
        Err(e) => out.error(format!("/model {}: {e}", safe_line(args))),
    }
    out
}

/// A client for `reference` with the session's effort: `/effort`'s or `--effort`, else the
/// configured one, else the run mode's (when the model offers it).
pub fn client_in_mode(
    app: &App,
    reference: &str,
    mode: reasonix_config::run_mode::RunMode,
) -> Result<reasonix_agent::completion::ProviderClient, reasonix_runtime::Error> {
    let actions = &app.actions;
    let client = crate::launch::client_for(
        &actions.prepared,
        &actions.resolved,
        Some(reference),
        None,
        actions.effort.as_deref(),
    )?;
    crate::launch::in_mode(
        &actions.prepared,
        &actions.resolved,
        Some(reference),
        None,
        client,
        mode,
    )
}

/// Save `fact` as this project's (the user typed it: nothing to ask).
fn remember(app: &App, fact: &str) -> Effects {
    let mut out = Effects::default();
    let prepared = &app.actions.prepared;
    let fact = fact.trim();
    if fact.is_empty() {
        out.error(t!("cmd-remember-needs-fact"));
        return out;
    }
    use reasonix_runtime::memory::{Saved, Scope};
    // Where it goes is the user's choice: this project (default), every workspace, or the
    // project's instructions file (which the repository carries).
    let (scope, fact) = if let Some(rest) = fact.strip_prefix("--user ") {
        (Scope::User, rest.trim())
    } else if let Some(rest) = fact.strip_prefix("--file ") {
        match reasonix_runtime::memory::append_to_instructions(&prepared.workspace, rest.trim()) {
            Ok(path) => out.notice(t!(
                "cmd-remember-file",
                file = safe_line(&path.display().to_string()).into_owned()
            )),
            Err(e) => out.error(format!("/remember: {}", safe_line(&e.to_string()))),
        }
        return out;
    } else {
        (Scope::Project, fact)
    };
    match prepared.memory.remember(&prepared.workspace, scope, fact) {
        Ok(Saved::Created(f)) => out.notice(t!("cmd-remember-saved", id = f.id.as_str())),
        Ok(Saved::Known(f)) => out.notice(t!("cmd-remember-known", id = f.id.as_str())),
        Err(e) => out.error(format!("/remember: {}", safe_line(&e.to_string()))),
    }
    out
}

/// The saved facts, newest first.
fn memory_list(app: &App) -> Effects {
    let mut out = Effects::default();
    let theme = app.theme;
    let prepared = &app.actions.prepared;
    let mut facts = prepared
        .memory
        .with_index(&prepared.workspace, |index| index.facts().to_vec());
    facts.sort_by(|a, b| b.updated_ms.cmp(&a.updated_ms).then(a.id.cmp(&b.id)));
    let mut lines = vec![Line::from(Span::styled(
        t!("cmd-memory-title", count = facts.len().to_string()),
        theme.heading(),
    ))];
    for fact in facts.iter().take(30) {
        lines.push(Line::from(vec![
            Span::styled(format!("  {}  ", fact.id), theme.accent()),
            Span::styled(pad(&memory_scope(fact.scope), 8), theme.dim()),
            Span::raw(super::text::truncate(&safe_line(&fact.text), 80).into_owned()),
        ]));
    }
    out.commit(lines);
    if facts.is_empty() {
        out.notice(t!("cmd-memory-empty"));
    } else {
        out.notice(t!("cmd-memory-hint"));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use reasonix_agent::agent_loop::Cost;
    use reasonix_agent::permissions::Posture;
    use reasonix_config::run_mode::RunMode;
    use reasonix_core::types::Usage;
    use reasonix_i18n::{Language, with_language};

    /// A session on one model: a request priced in CNY and one without a price.
    fn status() -> Status {
        let usage = Usage {
            prompt_tokens: 48_200,
            completion_tokens: 1_350,
            cache_hit_tokens: 45_000,
            cache_miss_tokens: 3_200,
            reasoning_tokens: 0,
        };
        let mut status = Status {
            model: "deepseek/deepseek-v4-flash".into(),
            posture: Posture::AcceptEdits,
            session_id: "20250101-abcd".into(),
            context_window: Some(1_000_000),
            ..Status::default()
        };
        status.add_usage(&usage);
        let cost = Cost {
            total: 0.0123,
            currency: "CNY".into(),
        };
        status
            .spend
            .add("deepseek", "deepseek-v4-flash", &usage, Some(&cost));
        status
            .spend
            .add("deepseek", "deepseek-v4-flash", &usage, None);
        status
    }

    fn status_and_cost(language: Language) -> Vec<String> {
        with_language(language, || {
            let s = status();
            status_lines(&s, RunMode::Delivery, Path::new("/work/app"))
                .into_iter()
                .chain(model_lines(&s))
                .collect()
        })
    }

    /// The column where each `/status` value starts, in terminal columns.
    fn value_columns(lines: &[String], values: &[&str]) -> Vec<usize> {
        lines
            .iter()
            .zip(values)
            .map(|(line, value)| {
                let at = line
                    .find(value)
                    .unwrap_or_else(|| panic!("{value} in {line}"));
                super::super::text::width(&line[..at])
            })
            .collect()
    }

    #[test]
    fn status_and_cost_read_as_before_in_english() {
        let lines = status_and_cost(Language::En);
        assert_eq!(
            lines,
            [
                "session   20250101-abcd",
                "model     deepseek/deepseek-v4-flash",
                "posture   accept-edits",
                "mode      delivery",
                "workspace /work/app",
                "context   48.2k of 1.0M",
                "tokens    48.2k in, 1.4k out",
                "cache     93% of prompt tokens from the provider's cache",
                "cost      ¥0.0123",
                "  deepseek/deepseek-v4-flash: 2 requests, 96.4k in (90.0k from cache), 2.7k out, ¥0.0123 (1 requests unpriced)",
            ]
        );
        let unknown = with_language(Language::En, || {
            let s = Status {
                context_window: None,
                ..Status::default()
            };
            status_lines(&s, RunMode::Balanced, Path::new("/w"))
        });
        assert!(
            unknown[5].starts_with("context   0 of ") && unknown[5].contains("(assumed: "),
            "{}",
            unknown[5]
        );
        assert_eq!(unknown[7], "cache     not reported");
        assert_eq!(
            unknown[8],
            "cost      no prices configured for this model ([[providers]] price)"
        );
    }

    /// In Chinese the labels are twice as wide as their characters: the values still start in
    /// one column.
    #[test]
    fn status_and_cost_in_chinese_line_up_by_display_width() {
        let lines = status_and_cost(Language::ZhCn);
        let labels = [
            "会话",
            "模型",
            "权限姿态",
            "模式",
            "工作区",
            "上下文",
            "token",
            "缓存",
            "费用",
        ];
        for (line, label) in lines.iter().zip(labels) {
            assert!(line.starts_with(label), "{line} should start with {label}");
        }
        let values = [
            "20250101-abcd",
            "deepseek/",
            "接受编辑",
            "交付",
            "/work/app",
            "48.2k / 1.0M",
            "输入 48.2k，输出 1.4k",
            "提示词 token 中 93% 命中提供方缓存",
            "¥0.0123",
        ];
        let columns = value_columns(&lines[..9], &values);
        // The widest label, 权限姿态, is 8 columns; one space after it.
        assert_eq!(columns, vec![9; 9], "{lines:#?}");
        assert_eq!(
            lines[9],
            "  deepseek/deepseek-v4-flash：2 次请求，输入 96.4k（缓存命中 90.0k），输出 2.7k，¥0.0123（1 次请求未计价）"
        );
        for line in &lines {
            assert!(
                !line.contains("session") && !line.contains("requests"),
                "{line}"
            );
        }
    }

    #[test]
    fn padding_counts_columns_not_characters() {
        assert_eq!(pad("项目", 8), "项目    ");
        assert_eq!(pad("project", 8), "project ");
        assert_eq!(pad("a-very-long-name", 4), "a-very-long-name");
        let scope = with_language(Language::ZhCn, || {
            memory_scope(reasonix_runtime::memory::Scope::Project)
        });
        assert_eq!(super::super::text::width(&pad(&scope, 8)), 8);
    }
}
