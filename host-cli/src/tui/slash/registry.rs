//! The one list of slash commands: completion, `/help` and dispatch all read it.

use crate::tui::text;
use crate::tui::theme::Theme;
use ratatui::text::{Line, Span};
use reasonix_i18n::t;
use reasonix_session::input::commands::{CustomCommand, CustomCommands, template};
use std::path::PathBuf;

pub use reasonix_session::input::commands::Scope;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandKind {
    Builtin,
    Custom {
        source: PathBuf,
        /// The template (frontmatter removed).
        body: String,
        scope: Scope,
    },
    /// A prompt of an MCP server, `/mcp__<server>__<prompt>` (see `tui::mcp`).
    McpPrompt {
        server: String,
    },
    /// A skill the user may invoke (docs/SKILLS.md).
    Skill(Box<reasonix_skills::Skill>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    /// Without the `/`; namespaced customs contain `:`.
    pub name: String,
    pub description: String,
    pub argument_hint: Option<String>,
    pub kind: CommandKind,
}

impl From<CustomCommand> for CommandSpec {
    fn from(c: CustomCommand) -> CommandSpec {
        CommandSpec {
            name: c.name,
            description: c.description,
            argument_hint: c.argument_hint,
            kind: CommandKind::Custom {
                source: c.source,
                body: c.body,
                scope: c.scope,
            },
        }
    }
}

impl CommandSpec {
    /// The prompt a custom command sends for `args`; `None` for a built-in.
    pub fn expand(&self, args: &str) -> Option<String> {
        match &self.kind {
            CommandKind::Custom { body, .. } => Some(template::expand(body, args)),
            CommandKind::Builtin | CommandKind::McpPrompt { .. } | CommandKind::Skill(_) => None,
        }
    }

    pub fn is_builtin(&self) -> bool {
        self.kind == CommandKind::Builtin
    }
}

/// A built-in as the dispatcher knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    pub name: &'static str,
    pub description: &'static str,
    pub argument_hint: Option<&'static str>,
}

const fn b(
    name: &'static str,
    description: &'static str,
    argument_hint: Option<&'static str>,
) -> Builtin {
    Builtin {
        name,
        description,
        argument_hint,
    }
}

/// The built-in commands, in `/help` order. The app's dispatcher matches on these names.
pub const BUILTINS: &[Builtin] = &[
    b("help", "List commands and keys", None),
    b("new", "Start a new session (this one is saved)", None),
    b(
        "clear",
        "Discard this conversation's context without saving it",
        None,
    ),
    b(
        "resume",
        "Pick an earlier session to continue",
        Some("[query]"),
    ),
    b("model", "Show or switch the model", Some("[name]")),
    b(
        "effort",
        "Show or set the reasoning effort",
        Some("[level]"),
    ),
    b(
        "mode",
        "Show or set the run mode (economy, balanced, delivery)",
        Some("[mode]"),
    ),
    b(
        "goal",
        "Work on an objective until its checks pass",
        Some("<objective> [--check CMD] | status | pause | resume | clear"),
    ),
    b("status", "Model, posture, workspace and session", None),
    b("cost", "Tokens, cache hits and cost of this session", None),
    b("permissions", "Show the permission rules in force", None),
    b("plugins", "Installed plugins", None),
    b(
        "mcp",
        "MCP servers: state, reconnect one, approve the project's",
        Some("[reconnect <name> | approve]"),
    ),
    b("tools", "Tools the model can call", None),
    b(
        "agents",
        "Sub-agent profiles `task` can run (built-in, yours, the project's)",
        None,
    ),
    b(
        "skills",
        "Skills: where each comes from, whether the model is offered it",
        None,
    ),
    b(
        "agent",
        "Agent compositions; with a name, a new session as that one",
        Some("[NAME]"),
    ),
    b("sessions", "Sessions of this workspace", None),
    b(
        "memory",
        "Saved facts: this project's and yours (recalled into matching turns)",
        None,
    ),
    b(
        "remember",
        "Save a fact for later sessions (also a one-line `# fact`)",
        Some("[--user | --file] <fact>"),
    ),
    b("forget", "Archive a saved fact", Some("<id>")),
    b(
        "rewind",
        "Go back to a turn: files, conversation or both",
        Some("[N [scope] | undo]"),
    ),
    b(
        "fork",
        "Go on in a copy of this session (before turn N)",
        Some("[N]"),
    ),
    b("tree", "Sessions of this workspace with their forks", None),
    b(
        "compact",
        "Fold older work into a summary now (focus text guides it)",
        Some("[focus]"),
    ),
    b(
        "init",
        "Write a starter REASONIX.md for this project with the model",
        None,
    ),
    b("quit", "Exit Reasonix", None),
];

/// Other names of built-ins: `(alias, command)`.
pub const ALIASES: &[(&str, &str)] = &[("exit", "quit")];

/// A parsed `/name args` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// Without the `/`, aliases resolved (`/exit` → `quit`); may name no command.
    pub name: String,
    /// Everything after the name, trimmed.
    pub args: String,
}

#[derive(Debug, Clone, Default)]
pub struct SlashRegistry {
    commands: Vec<CommandSpec>,
    warnings: Vec<String>,
}

impl SlashRegistry {
    /// The built-ins (see [`builtin_specs`]) and the loaded custom commands; a custom command
    /// named like a built-in is dropped with a warning.
    pub fn new(builtins: Vec<CommandSpec>, customs: CustomCommands) -> SlashRegistry {
        let mut warnings = customs.warnings;
        let mut commands = builtins;
        for c in customs.commands {
            let clash = commands.iter().any(|b| b.is_builtin() && b.name == c.name)
                || ALIASES.iter().any(|(alias, _)| *alias == c.name);
            if clash {
                warnings.push(format!(
                    "{}: /{} is a built-in command; the custom command is ignored",
                    c.source.display(),
                    c.name
                ));
            } else if !commands.iter().any(|x| x.name == c.name) {
                commands.push(CommandSpec::from(c));
            }
        }
        SlashRegistry { commands, warnings }
    }

    /// This registry with the skills the user may invoke: a skill wins over a custom command
    /// of its name (as in Claude Code), never over a built-in.
    pub fn with_skills(mut self, catalog: &reasonix_skills::Catalog) -> SlashRegistry {
        for skill in catalog.skills.iter().filter(|s| s.user_invocable) {
            let clash = self
                .commands
                .iter()
                .any(|b| b.is_builtin() && b.name == skill.name)
                || ALIASES.iter().any(|(alias, _)| *alias == skill.name);
            if clash {
                self.warnings.push(format!(
                    "{}: /{} is a built-in command; the skill is invoked only by the model",
                    skill.dir.display(),
                    skill.name
                ));
                continue;
            }
            self.commands.retain(|c| c.name != skill.name);
            self.commands.push(CommandSpec {
                name: skill.name.clone(),
                description: skill.description.clone(),
                argument_hint: skill.argument_hint.clone(),
                kind: CommandKind::Skill(Box::new(skill.clone())),
            });
        }
        self
    }

    /// This registry with `prompts` (MCP prompt commands) in place of the ones it had; a
    /// prompt named like another command is left out.
    pub fn with_mcp_prompts(&self, prompts: Vec<CommandSpec>) -> SlashRegistry {
        let mut commands: Vec<CommandSpec> = self
            .commands
            .iter()
            .filter(|c| !matches!(c.kind, CommandKind::McpPrompt { .. }))
            .cloned()
            .collect();
        for p in prompts {
            if !commands.iter().any(|c| c.name == p.name) {
                commands.push(p);
            }
        }
        SlashRegistry {
            commands,
            warnings: self.warnings.clone(),
        }
    }

    /// What loading skipped or shadowed, one line each (file and reason).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// A command by name or alias.
    pub fn get(&self, name: &str) -> Option<&CommandSpec> {
        let name = resolve_alias(name);
        self.commands.iter().find(|c| c.name == name)
    }

    /// Commands for the menu: names starting with `prefix` (a leading `/` is ignored), then
    /// names containing it, then names containing its letters in order; built-ins first in
    /// each group. An alias matching the prefix brings its command.
    pub fn complete(&self, prefix: &str) -> Vec<&CommandSpec> {
        let p = prefix.strip_prefix('/').unwrap_or(prefix).to_lowercase();
        // The command typed in full comes first, so Enter runs it, not a longer one it
        // prefixes (`/agent` is not `/agents`).
        let mut out: Vec<&CommandSpec> = self.commands.iter().filter(|c| c.name == p).collect();
        let tiers: [&dyn Fn(&str) -> bool; 3] = [
            &|n: &str| n.starts_with(&p),
            &|n: &str| n.contains(&p),
            &|n: &str| subsequence(&p, n),
        ];
        for tier in tiers {
            for builtin_pass in [true, false] {
                for c in &self.commands {
                    if c.is_builtin() != builtin_pass || out.iter().any(|o| o.name == c.name) {
                        continue;
                    }
                    let alias_hit = builtin_pass
                        && ALIASES
                            .iter()
                            .any(|(alias, target)| *target == c.name && tier(alias));
                    if tier(&c.name) || alias_hit {
                        out.push(c);
                    }
                }
            }
        }
        out
    }

    /// `/name args` → the invocation. Not a command (`None`): a line not starting with `/`,
    /// `//…` (sent as a message without the first `/`, see [`message_text`]), a bare `/`, or a
    /// first word that looks like a path (`/usr/bin/x`).
    pub fn parse(line: &str) -> Option<Invocation> {
        let rest = line.strip_prefix('/')?;
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let name = &rest[..end];
        // Also `//x`: its name starts with `/`.
        if name.is_empty() || name.contains('/') {
            return None;
        }
        Some(Invocation {
            name: resolve_alias(name).to_string(),
            args: rest[end..].trim().to_string(),
        })
    }

    /// The `/help` listing: built-ins, then custom commands with their scope, then warnings.
    pub fn help_lines(&self, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines = vec![Line::from(Span::styled(
            t!("slash-help-commands"),
            theme.heading(),
        ))];
        let width = self
            .commands
            .iter()
            .map(|c| text::width(&usage(c)))
            .max()
            .unwrap_or(0)
            .min(32);
        let row = |c: &CommandSpec, extra: Option<&str>| {
            let usage = usage(c);
            let pad = width.saturating_sub(text::width(&usage));
            let mut spans = vec![
                Span::raw("  "),
                Span::styled(format!("/{}", text::safe_line(&c.name)), theme.accent()),
            ];
            if let Some(h) = &c.argument_hint {
                spans.push(Span::styled(
                    format!(" {}", text::safe_line(h)),
                    theme.dim(),
                ));
            }
            spans.push(Span::raw(format!("{}  ", " ".repeat(pad))));
            spans.push(Span::raw(text::safe_line(&c.description).into_owned()));
            if let Some(extra) = extra {
                spans.push(Span::styled(format!(" ({extra})"), theme.dim()));
            }
            Line::from(spans)
        };
        for c in self.commands.iter().filter(|c| c.is_builtin()) {
            let alias: Vec<String> = ALIASES
                .iter()
                .filter(|(_, t)| *t == c.name)
                .map(|(a, _)| format!("/{a}"))
                .collect();
            let alias =
                (!alias.is_empty()).then(|| t!("slash-help-also", aliases = alias.join(", ")));
            lines.push(row(c, alias.as_deref()));
        }
        let customs: Vec<&CommandSpec> = self
            .commands
            .iter()
            .filter(|c| matches!(c.kind, CommandKind::Custom { .. }))
            .collect();
        if !customs.is_empty() {
            lines.push(Line::default());
            lines.push(Line::from(Span::styled(
                t!("slash-help-custom"),
                theme.heading(),
            )));
            for c in customs {
                let scope = match &c.kind {
                    CommandKind::Custom { scope, .. } => scope.label(),
                    _ => "",
                };
                lines.push(row(c, Some(scope)));
            }
        }
        let skills: Vec<&CommandSpec> = self
            .commands
            .iter()
            .filter(|c| matches!(c.kind, CommandKind::Skill(_)))
            .collect();
        if !skills.is_empty() {
            lines.push(Line::default());
            lines.push(Line::from(Span::styled(
                t!("slash-help-skills"),
                theme.heading(),
            )));
            for c in skills {
                let from = match &c.kind {
                    CommandKind::Skill(skill) if !skill.trusted => t!("slash-help-untrusted"),
                    CommandKind::Skill(skill) => skill.scope.label().to_string(),
                    _ => String::new(),
                };
                lines.push(row(c, Some(&from)));
            }
        }
        let prompts: Vec<&CommandSpec> = self
            .commands
            .iter()
            .filter(|c| matches!(c.kind, CommandKind::McpPrompt { .. }))
            .collect();
        if !prompts.is_empty() {
            lines.push(Line::default());
            lines.push(Line::from(Span::styled(
                t!("slash-help-mcp-prompts"),
                theme.heading(),
            )));
            for c in prompts {
                lines.push(row(c, None));
            }
        }
        if !self.warnings.is_empty() {
            lines.push(Line::default());
            for w in &self.warnings {
                lines.push(Line::from(Span::styled(
                    format!("  ! {}", text::safe_line(w)),
                    theme.warning(),
                )));
            }
        }
        lines
    }
}

/// The built-ins as registry entries.
pub fn builtin_specs() -> Vec<CommandSpec> {
    BUILTINS
        .iter()
        .map(|b| CommandSpec {
            name: b.name.to_string(),
            description: builtin_description(b),
            argument_hint: b.argument_hint.map(str::to_string),
            kind: CommandKind::Builtin,
        })
        .collect()
}

/// A built-in's description in the user's language (`slash-<name>` of the catalogue; the
/// English there is [`BUILTINS`]'s, which a test keeps equal).
fn builtin_description(b: &Builtin) -> String {
    let key = format!("slash-{}", b.name);
    if reasonix_i18n::has(reasonix_i18n::language(), &key) {
        reasonix_i18n::tr(&key)
    } else {
        b.description.to_string()
    }
}

/// What to send for a line that is not a command: `//x` sends `/x`.
pub fn message_text(line: &str) -> &str {
    if line.starts_with("//") {
        &line[1..]
    } else {
        line
    }
}

fn resolve_alias(name: &str) -> &str {
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, target)| target)
}

fn usage(c: &CommandSpec) -> String {
    match &c.argument_hint {
        Some(h) => format!("/{} {}", c.name, h),
        None => format!("/{}", c.name),
    }
}

fn subsequence(needle: &str, hay: &str) -> bool {
    let mut hay = hay.chars();
    needle.chars().all(|n| hay.any(|h| h == n))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn the_catalogue_says_what_the_builtins_say_in_english() {
        for b in BUILTINS {
            let key = format!("slash-{}", b.name);
            assert!(
                reasonix_i18n::has(reasonix_i18n::Language::En, &key),
                "{key}"
            );
            assert!(
                reasonix_i18n::has(reasonix_i18n::Language::ZhCn, &key),
                "{key}"
            );
            assert_eq!(
                reasonix_i18n::lookup(reasonix_i18n::Language::En, &key, &[]),
                b.description,
                "{key}: en/ui.ftl differs from BUILTINS"
            );
        }
    }
    use crate::tui::theme::ColorLevel;

    pub(crate) fn custom(name: &str, scope: Scope, body: &str) -> CustomCommand {
        CustomCommand {
            name: name.to_string(),
            description: format!("custom {name}"),
            argument_hint: Some("<arg>".into()),
            source: PathBuf::from(format!("/p/{name}.md")),
            body: body.to_string(),
            scope,
        }
    }

    pub(crate) fn registry() -> SlashRegistry {
        SlashRegistry::new(
            builtin_specs(),
            CustomCommands {
                commands: vec![
                    custom("review", Scope::Project, "Review $1"),
                    custom("frontend:component", Scope::Project, "Make $ARGUMENTS"),
                    custom("help", Scope::User, "shadow"),
                    custom("exit", Scope::User, "shadow"),
                ],
                warnings: vec!["/p/x.md: not UTF-8, skipped".into()],
            },
        )
    }

    fn names(v: &[&CommandSpec]) -> Vec<String> {
        v.iter().map(|c| c.name.clone()).collect()
    }

    #[test]
    fn completes_prefix_then_substring_builtins_first() {
        let r = registry();
        assert_eq!(
            names(&r.complete("/re")),
            [
                "resume",
                "remember",
                "rewind",
                "review",
                "tree",
                "forget",
                "frontend:component"
            ]
        );
        assert_eq!(names(&r.complete("ex")), ["quit"]);
        assert_eq!(
            names(&r.complete("comp")),
            ["compact", "frontend:component"]
        );
        assert_eq!(r.complete("").len(), BUILTINS.len() + 2);
        assert_eq!(names(&r.complete("zzz")), Vec::<String>::new());
        // Typed in full, a command comes before the longer ones it prefixes.
        assert_eq!(names(&r.complete("/agent"))[..2], ["agent", "agents"]);
        assert_eq!(names(&r.complete("review"))[0], "review");
    }

    #[test]
    fn customs_never_shadow_builtins() {
        let r = registry();
        assert!(r.get("help").unwrap().is_builtin());
        assert!(r.get("exit").unwrap().is_builtin());
        assert_eq!(r.warnings().len(), 3, "{:?}", r.warnings());
        assert!(r.warnings()[1].contains("/help is a built-in"));
        assert_eq!(
            r.get("review").unwrap().expand("a.rs").unwrap(),
            "Review a.rs"
        );
        assert_eq!(r.get("quit").unwrap().expand("x"), None);
    }

    #[test]
    fn parses_invocations() {
        let inv = |name: &str, args: &str| {
            Some(Invocation {
                name: name.into(),
                args: args.into(),
            })
        };
        assert_eq!(
            SlashRegistry::parse("/model  deepseek-chat "),
            inv("model", "deepseek-chat")
        );
        assert_eq!(SlashRegistry::parse("/exit"), inv("quit", ""));
        assert_eq!(
            SlashRegistry::parse("/frontend:component a b"),
            inv("frontend:component", "a b")
        );
        assert_eq!(
            SlashRegistry::parse("/unknown x\ny"),
            inv("unknown", "x\ny")
        );
        assert_eq!(SlashRegistry::parse("//model"), None);
        assert_eq!(message_text("//model"), "/model");
        assert_eq!(message_text("/model"), "/model");
        assert_eq!(SlashRegistry::parse("/"), None);
        assert_eq!(SlashRegistry::parse("/ x"), None);
        assert_eq!(SlashRegistry::parse("/usr/bin/env is odd"), None);
        assert_eq!(SlashRegistry::parse("hello /model"), None);
    }

    #[test]
    fn help_lists_builtins_customs_and_warnings() {
        let r = registry();
        let text: Vec<String> = r
            .help_lines(&Theme::new(ColorLevel::None))
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        let all = text.join("\n");
        for b in BUILTINS {
            assert!(all.contains(&format!("/{}", b.name)), "{all}");
        }
        assert!(all.contains("/quit") && all.contains("also /exit"), "{all}");
        assert!(
            all.contains("/review <arg>") && all.contains("(project)"),
            "{all}"
        );
        assert!(all.contains("! /p/x.md: not UTF-8"), "{all}");
    }

    /// `/help` in Simplified Chinese at 80x24: the descriptions start in one column, wrapped
    /// rows stay within the width.
    #[test]
    fn help_in_chinese_at_80x24() {
        use ratatui::Terminal;
        use ratatui::backend::TestBackend;
        use ratatui::widgets::Paragraph;
        use reasonix_i18n::{Language, with_language};
        let screen = with_language(Language::ZhCn, || {
            let r = SlashRegistry::new(builtin_specs(), CustomCommands::default());
            let lines = r.help_lines(&Theme::new(ColorLevel::None));
            let wrapped = crate::tui::wrap::wrap_lines(lines, 80);
            let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
            terminal
                .draw(|f| f.render_widget(Paragraph::new(wrapped), f.area()))
                .unwrap();
            format!("{}", terminal.backend())
        });
        assert!(screen.contains("命令"), "{screen}");
        assert!(screen.contains("列出命令与按键"), "{screen}");
        assert!(
            screen.contains("也可用 /exit") || !screen.contains("/quit"),
            "{screen}"
        );
        let column = |name: &str, description: &str| {
            let row = screen.lines().find(|l| l.contains(name)).unwrap();
            let row = row.trim_start_matches('"');
            text::width(&row[..row.find(description).unwrap()])
        };
        assert_eq!(
            column("/help", "列出"),
            column("/model", "查看或切换"),
            "{screen}"
        );
        insta::assert_snapshot!(screen);
    }
}
