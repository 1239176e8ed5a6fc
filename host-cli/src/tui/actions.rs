//! Slash commands: what each built-in does in the session. The names, descriptions and
//! completion come from the one registry ([`super::slash`]); this is the dispatch. A command
//! reads the app and returns what it asks for ([`Effects`]); the app applies it.

use super::app::{App, Overlay};
use super::effect::{Effect, Effects};
use super::msg::Msg;
use super::slash::CommandKind;
use super::status::{money, posture_name, tokens};
use super::text::safe_line;
use ratatui::text::{Line, Span};
use reasonix_agent::session::SessionStore;
use reasonix_config::providers::ResolvedProvider;
use reasonix_core::catalog::Catalog;
use reasonix_core::types::ToolSpec;
use reasonix_protocol::Op;
use std::path::PathBuf;
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
            out.commit([Line::from(Span::styled(
                "keys: Enter send · Shift+Enter/Ctrl+J newline · ↑/↓ history · @ files · !cmd shell · Esc cancel · Esc Esc rewind · Shift+Tab ask→acceptEdits→auto→plan · ↓ select a sub-agent (Esc stops it) · Ctrl+Y yolo · Ctrl+O reasoning · Ctrl+E last tool call · Ctrl+T tool calls · Ctrl+C twice / Ctrl+D quit",
                theme.dim(),
            ))]);
        }
        "new" | "clear" => out.submit(Op::NewSession {}),
        "memory" => out.extend(memory_list(app)),
        "remember" => out.extend(remember(app, args)),
        "forget" if args.is_empty() => out.error("/forget needs a fact's id (see /memory)"),
        "forget" => {
            let prepared = &app.actions.prepared;
            match prepared.memory.forget(&prepared.workspace, args) {
                Ok(Some(fact)) => out.notice(format!(
                    "forgot {} ({}); its file is kept in the archive",
                    fact.id,
                    super::text::truncate(&safe_line(&fact.text), 60)
                )),
                Ok(None) => out.error(format!("no saved fact `{}` (see /memory)", safe_line(args))),
                Err(e) => out.error(format!("/forget: {}", safe_line(&e.to_string()))),
            }
        }
        "resume" | "sessions" => match app.actions.store.list() {
            Ok(sessions) if sessions.is_empty() => {
                out.notice("no saved sessions in this workspace")
            }
            Ok(sessions) if name == "sessions" => {
                let lines: Vec<Line<'static>> = sessions
                    .iter()
                    .take(20)
                    .map(|s| {
                        Line::from(format!(
                            "  {}  {:>4} msgs  {}  {}",
                            // Whole: ids start with the date, so a cut one names a day.
                            safe_line(&s.id),
                            s.messages,
                            safe_line(&format!("{}/{}", s.provider, s.model)),
                            safe_line(&s.title)
                        ))
                    })
                    .collect();
                out.commit(lines);
                out.notice("/resume <id> opens one");
            }
            Ok(sessions) => out.push(Effect::Open(Overlay::Picker(super::picker::Picker::new(
                sessions, args,
            )))),
            Err(e) => out.error(format!("cannot list sessions: {e}")),
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
                    .unwrap_or_else(|| "the provider's default".into());
                out.notice(format!(
                    "effort: {effort} (set with /effort <level>, `auto` for the default)"
                ));
            } else {
                let effort = (args != "auto").then(|| args.to_string());
                out.push(Effect::SetEffort(effort));
                out.notice(format!("effort: {args} from the next request"));
            }
        }
        "status" => {
            let s = &app.status;
            let lines = vec![
                format!("session   {}", s.session_id),
                format!("model     {}", safe_line(&s.model)),
                format!("posture   {}", posture_name(s.posture)),
                format!("mode      {}", app.actions.mode),
                format!("workspace {}", app.actions.workspace.display()),
                format!(
                    "context   {} of {}",
                    tokens(s.context_used),
                    s.context_window.map(tokens).unwrap_or_else(|| format!(
                        "{} (assumed: the model's window is not known; set `context_window`)",
                        tokens(reasonix_agent::ASSUMED_CONTEXT_WINDOW)
                    ))
                ),
                format!(
                    "tokens    {} in, {} out",
                    tokens(s.input_tokens),
                    tokens(s.output_tokens)
                ),
                format!(
                    "cache     {}",
                    s.cache_hit_rate()
                        .map(|r| format!(
                            "{:.0}% of prompt tokens from the provider's cache",
                            r * 100.0
                        ))
                        .unwrap_or_else(|| "not reported".into())
                ),
                format!("cost      {}", cost_text(app)),
            ];
            out.commit(
                lines
                    .into_iter()
                    .chain(model_lines(app))
                    .map(|l| Line::from(Span::styled(l, theme.plain()))),
            );
        }
        "cost" => {
            out.notice(format!("this session: {}", cost_text(app)));
            out.commit(model_lines(app).map(|l| Line::from(Span::styled(l, theme.plain()))));
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
                    out.notice(format!(
                        "revoked for this session: {} (such calls ask again)",
                        safe_line(&rule)
                    ));
                    out.push(Effect::RevokeGrant(rule));
                }
                None if app.session_grants.is_empty() => out
                    .notice("no session grant to revoke (rules in config files are edited there)"),
                None => out.error(format!(
                    "/permissions revoke <N|rule>: one of {}",
                    app.session_grants
                        .iter()
                        .enumerate()
                        .map(|(i, r)| format!("{} {}", i + 1, safe_line(r)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
        "permissions" => {
            let mut lines = vec![Line::from(Span::styled(
                format!("posture: {}", posture_name(app.status.posture)),
                theme.heading(),
            ))];
            lines.extend(
                app.actions
                    .policy_text
                    .iter()
                    .map(|l| Line::from(format!("  {}", safe_line(l)))),
            );
            // Grants answered in this session, after the rules of the config files.
            lines.extend(
                app.session_grants.iter().enumerate().map(|(i, rule)| {
                    Line::from(format!("  session {} {}", i + 1, safe_line(rule)))
                }),
            );
            if !app.session_grants.is_empty() {
                lines.push(Line::from(Span::styled(
                    "  /permissions revoke <N> takes a session grant back",
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
                    what.push(format!("tools: {}", tools.join(", ")));
                }
                if intercepts {
                    what.push("interceptor".to_string());
                }
                what.join(" · ")
            };
            let lines: Vec<Line<'static>> = names
                .iter()
                .map(|n| {
                    Line::from(vec![
                        Span::styled(format!("  {:<16}", safe_line(n)), theme.accent()),
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
                        Span::styled(format!("  {:<16}", safe_line(&t.name)), theme.accent()),
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
                        reasonix_runtime::delegate::profiles::Origin::BuiltIn => "built-in".into(),
                        reasonix_runtime::delegate::profiles::Origin::File(path) => {
                            safe_line(&path.display().to_string()).into_owned()
                        }
                    };
                    Line::from(vec![
                        Span::styled(format!("  {:<16}", safe_line(&p.name)), theme.accent()),
                        Span::styled(
                            super::text::truncate(&safe_line(&p.description), 60).into_owned(),
                            theme.dim(),
                        ),
                        Span::styled(format!("  ({from})"), theme.dim()),
                    ])
                })
                .collect();
            for problem in problems {
                lines.push(Line::from(Span::styled(
                    format!("  skipped: {}", safe_line(&problem)),
                    theme.warning(),
                )));
            }
            out.commit(lines);
            out.notice("the model picks one with `task` (profile); ↓ selects a running sub-agent, Esc stops it");
        }
        "skills" => {
            let theme = app.theme;
            let catalog = &app.actions.prepared.skills;
            let mut lines = vec![Line::from(Span::styled(
                format!("Skills ({})", catalog.skills.len()),
                theme.heading(),
            ))];
            for skill in &catalog.skills {
                let mut how = Vec::new();
                if skill.model_invocable && !catalog.no_index {
                    how.push("model".to_string());
                }
                if skill.user_invocable {
                    how.push(format!("/{}", skill.name));
                }
                if !skill.trusted {
                    how.push("untrusted workspace".into());
                }
                lines.push(Line::from(vec![
                    Span::styled(format!("  {:<18}", safe_line(&skill.name)), theme.accent()),
                    Span::styled(
                        super::text::truncate(&safe_line(&skill.description), 60).into_owned(),
                        theme.dim(),
                    ),
                    Span::styled(
                        format!("  ({}; {})", skill.scope.label(), how.join(", ")),
                        theme.dim(),
                    ),
                ]));
            }
            for warning in &catalog.warnings {
                lines.push(Line::from(Span::styled(
                    format!("  skipped: {}", safe_line(warning)),
                    theme.warning(),
                )));
            }
            out.commit(lines);
            if catalog.skills.is_empty() {
                out.notice("no skills: a folder with a SKILL.md in .claude/skills, .reasonix/skills or ~/.claude/skills (docs/SKILLS.md)");
            }
        }
        "agent" if !args.trim().is_empty() => {
            let name = args.trim();
            let prepared = &app.actions.prepared;
            let current = prepared.composition.as_ref().map(|c| c.name.as_str());
            if current == Some(name) {
                out.notice(format!(
                    "this session runs as the composition {} already",
                    safe_line(name)
                ));
            } else if let Err(e) = prepared.cx.config.composition(name) {
                out.error(safe_line(&e.to_string()).into_owned());
            } else if app.turn.is_some() {
                out.error("a turn is running: wait for it or stop it (Esc) before switching");
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
                    Some(name) => format!("Agent composition: {}", safe_line(name)),
                    None => "Agent composition: none (the configuration as it is)".to_string(),
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
                    Span::styled(format!(" {mark}{:<16}", safe_line(&c.name)), theme.accent()),
                    Span::styled(
                        safe_line(c.file.description.as_deref().unwrap_or("")).into_owned(),
                        theme.dim(),
                    ),
                ]));
            }
            out.commit(lines);
            out.notice("a session keeps its composition; `/agent NAME` leaves this one (saved) and starts a new session as NAME");
        }
        "compact" => {
            out.notice("compacting the history…");
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
            None => out.error(format!("unknown command /{} (try /help)", safe_line(name))),
        },
    }
    out
}

fn cost_text(app: &App) -> String {
    app.status
        .cost_text()
        .unwrap_or_else(|| "no prices configured for this model ([[providers]] price)".into())
}

/// One line per model the session used: requests, tokens (cache hits apart) and cost.
fn model_lines(app: &App) -> impl Iterator<Item = String> + '_ {
    app.status.spend.models.iter().map(|m| {
        let u = &m.usage;
        let cost = match &m.cost {
            Some(c) if m.unpriced_requests == 0 => money(c.total, &c.currency),
            Some(c) => format!(
                "{} ({} requests unpriced)",
                money(c.total, &c.currency),
                m.unpriced_requests
            ),
            None => "unpriced".into(),
        };
        format!(
            "  {}/{}: {} requests, {} in ({} from cache), {} out, {cost}",
            safe_line(&m.provider),
            safe_line(&m.model),
            u.requests,
            tokens(u.input_tokens),
            tokens(u.cache_read_tokens),
            tokens(u.output_tokens),
        )
    })
}

fn model(app: &App, args: &str) -> Effects {
    let mut out = Effects::default();
    if args.is_empty() {
        let mut lines = vec![Line::from(Span::styled(
            format!(
                "model: {} (switch with /model <provider/model>)",
                safe_line(&app.status.model)
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
        out.error("/remember needs the fact to save");
        return out;
    }
    use reasonix_runtime::memory::{Saved, Scope};
    match prepared
        .memory
        .remember(&prepared.workspace, Scope::Project, fact)
    {
        Ok(Saved::Created(f)) => out.notice(format!(
            "saved as {}; recalled when a message matches it (/memory lists, /forget {} archives)",
            f.id, f.id
        )),
        Ok(Saved::Known(f)) => out.notice(format!("already saved as {}", f.id)),
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
        format!("Memory ({} facts)", facts.len()),
        theme.heading(),
    ))];
    for fact in facts.iter().take(30) {
        lines.push(Line::from(vec![
            Span::styled(format!("  {}  ", fact.id), theme.accent()),
            Span::styled(format!("{:<8}", fact.scope.name()), theme.dim()),
            Span::raw(super::text::truncate(&safe_line(&fact.text), 80).into_owned()),
        ]));
    }
    out.commit(lines);
    if facts.is_empty() {
        out.notice(
            "nothing saved yet: /remember <fact>, or `# fact`; the model saves with `remember`",
        );
    } else {
        out.notice("/forget <id> archives one; the model searches them with `memory`");
    }
    out
}
