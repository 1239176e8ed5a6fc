//! The permission policy: static `allow` / `ask` / `deny` rules, a fallback, and the posture
//! the session runs in. Pure: no I/O, no prompting — front ends resolve `Ask` through an
//! [`Approver`]; headless runs through [`Policy::resolve_headless`], which fails closed.

use super::rule::{Rule, RuleError, ToolKind, Use};
use super::shell;
use reasonix_core::origin::Origin;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub use reasonix_rules::Decision;

/// Where a decision came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A rule from the named list (`allow`, `ask`, `deny`, or `session` for grants made while
    /// running).
    Rule { list: &'static str, rule: String },
    /// No rule matched: readers are allowed, writers get the `mode`.
    Fallback,
    /// A writer names a configuration file of the workspace (as the model wrote it): asks
    /// whatever the rules, session grants and posture say, except `bypassPermissions`.
    Protected { path: String },
    /// No rule matched a fetch of a local address (loopback, a private network, `localhost`):
    /// it asks like a writer instead of running as a reader, and only an approved call may
    /// reach the address (ADR 0007).
    LocalNetwork { origin: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub decision: Decision,
    pub source: Source,
    /// The matching allow rule was an identical command literal (covers dynamic commands).
    pub exact_literal: bool,
}

impl Verdict {
    /// An `Ask` that only an explicit answer (or `bypassPermissions`) resolves: an `ask` rule,
    /// or a write to a protected configuration file. `auto` and `acceptEdits` do not cover it.
    pub fn needs_explicit_approval(&self) -> bool {
        matches!(
            self.source,
            Source::Rule { list: "ask", .. } | Source::Protected { .. }
        )
    }
}

/// How a session treats calls the rules leave at `Ask` (`--permission-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Posture {
    /// Prompt (interactive) or refuse (headless). `manual` and `ask`.
    #[default]
    Ask,
    /// File writers run without asking; shell still asks. `acceptEdits`.
    AcceptEdits,
    /// Writers and shell run unless an explicit `ask` rule matches. `auto`, `--auto`, `-y`.
    Auto,
    /// Never prompt: anything not allowed is refused. `dontAsk`.
    DontAsk,
    /// Everything runs except what `deny` rules block. `bypassPermissions`, `--yolo`.
    Yolo,
    /// Research only: read-only calls run as in `ask`, writers and commands are refused
    /// without asking, whatever the rules allow; the model presents a plan with
    /// `exit_plan_mode` and the user decides when it runs. `plan`.
    Plan,
}

impl Posture {
    /// Parse a `--permission-mode` value.
    pub fn parse(text: &str) -> Result<Posture, String> {
        match text {
            "ask" | "manual" | "default" => Ok(Posture::Ask),
            "acceptEdits" | "accept-edits" => Ok(Posture::AcceptEdits),
            "auto" => Ok(Posture::Auto),
            "dontAsk" | "dont-ask" => Ok(Posture::DontAsk),
            "bypassPermissions" | "bypass-permissions" | "yolo" => Ok(Posture::Yolo),
            "plan" => Ok(Posture::Plan),
            other => Err(format!(
                "unknown permission mode `{other}`; use ask, acceptEdits, auto, dontAsk, plan or bypassPermissions"
            )),
        }
    }
}

/// What the model reads when plan mode refuses a call that would change something.
pub fn plan_refusal(tool: &str) -> String {
    format!(
        "Plan mode: `{tool}` was not run. In plan mode nothing is changed and no command runs; research with read-only tools, then present your plan with `exit_plan_mode` (the user decides when it runs). A question or a small request just gets an answer."
    )
}

/// One tool call as the policy sees it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub tool: &'a str,
    /// [`ToolKind::described`] by the tool's spec; computed once per tool, not per call.
    pub kind: ToolKind,
    pub read_only: bool,
    pub args: &'a Value,
    pub workspace: &'a Path,
    /// Why this call reaches beyond its tool's read-only claim ([`Tool::wider_reach`]), said
    /// when it asks.
    ///
    /// [`Tool::wider_reach`]: crate::tool::Tool::wider_reach
    pub reach: Option<&'a str>,
    /// Only rules naming the tool apply ([`ToolClass::own_rules`]).
    ///
    /// [`ToolClass::own_rules`]: crate::permissions::ToolClass::own_rules
    pub own_rules: bool,
}

/// The rules of one session.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// Fallback for writers (`[permissions] mode`); `Ask` unless configured.
    pub mode: Option<Decision>,
    pub allow: Vec<Rule>,
    pub ask: Vec<Rule>,
    pub deny: Vec<Rule>,
    /// Grants made during the session (approvals "for this session").
    pub session: Vec<Rule>,
    /// Let grants cover commands that build code at run time (`[permissions]
    /// allow_dynamic_bash`).
    pub allow_dynamic_bash: bool,
    /// Workspace files the project configuration executes (MCP server and hook scripts,
    /// absolute): protected like the configuration files themselves (ADR 0026).
    pub protected: Vec<PathBuf>,
}

impl From<reasonix_config::PermissionRules> for Policy {
    /// The policy a session starts with, from `[permissions]` (no session grants yet).
    fn from(rules: reasonix_config::PermissionRules) -> Policy {
        Policy {
            mode: rules.mode,
            allow: rules.allow,
            ask: rules.ask,
            deny: rules.deny,
            session: Vec::new(),
            allow_dynamic_bash: rules.allow_dynamic_bash,
            protected: rules.protected,
        }
    }
}

/// Parse rule texts, naming the list and position of a bad one.
pub fn parse_rules(list: &str, texts: &[String]) -> Result<Vec<Rule>, RuleError> {
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            Rule::parse(text).map_err(|e| RuleError {
                rule: e.rule,
                reason: format!("{} (permissions.{list}[{i}])", e.reason),
            })
        })
        .collect()
}

impl Policy {
    /// deny > ask > allow (and session grants) > fallback.
    pub fn decide(&self, call: &Call<'_>) -> Verdict {
        fn find<'r>(rules: &'r [Rule], call: &Call<'_>, purpose: Use) -> Option<&'r Rule> {
            rules
                .iter()
                .find(|r| r.matches(call.tool, call.kind, call.args, call.workspace, purpose))
        }
        let verdict = |decision, list, rule: &Rule| Verdict {
            decision,
            source: Source::Rule {
                list,
                rule: rule.text().to_string(),
            },
            exact_literal: rule.is_exact_command(),
        };
        if let Some(rule) = find(&self.deny, call, Use::Deny) {
            return verdict(Decision::Deny, "deny", rule);
        }
        if call.kind == ToolKind::FileWriter
            && let Some(path) =
                super::protected::protected_target(call.args, call.workspace, &self.protected)
        {
            return Verdict {
                decision: Decision::Ask,
                source: Source::Protected { path },
                exact_literal: false,
            };
        }
        if let Some(rule) = find(&self.ask, call, Use::Grant) {
            return verdict(Decision::Ask, "ask", rule);
        }
        if let Some(rule) = find(&self.allow, call, Use::Grant) {
            return verdict(Decision::Allow, "allow", rule);
        }
        if let Some(rule) = find(&self.session, call, Use::Grant) {
            return verdict(Decision::Allow, "session", rule);
        }
        if let Some(origin) = local_target(call) {
            return Verdict {
                decision: self.mode.unwrap_or(Decision::Ask),
                source: Source::LocalNetwork {
                    origin: origin.to_string(),
                },
                exact_literal: false,
            };
        }
        Verdict {
            decision: if call.read_only {
                Decision::Allow
            } else {
                self.mode.unwrap_or(Decision::Ask)
            },
            source: Source::Fallback,
            exact_literal: false,
        }
    }

    /// What a run that cannot prompt does with a call: `Ok` to run it, `Err` with the message
    /// for the model (and the user) otherwise.
    pub fn resolve_headless(&self, call: &Call<'_>, posture: Posture) -> Result<(), String> {
        self.resolve_verdict(call, &self.decide(call), posture)
    }

    /// [`Policy::resolve_headless`] for a verdict already reached by [`Policy::decide`].
    pub fn resolve_verdict(
        &self,
        call: &Call<'_>,
        verdict: &Verdict,
        posture: Posture,
    ) -> Result<(), String> {
        if let (Decision::Deny, Source::Rule { rule, .. }) = (verdict.decision, &verdict.source) {
            return Err(format!(
                "Blocked: `{}` is denied by the rule `{rule}` in [permissions] deny. Do not retry it; find another way or ask the user.",
                call.tool
            ));
        }
        if posture == Posture::Plan && !call.read_only {
            return Err(plan_refusal(call.tool));
        }
        let explicit_ask = verdict.needs_explicit_approval();
        let runs = match (verdict.decision, posture) {
            (Decision::Deny, Posture::Yolo) => true,
            (Decision::Deny, _) => false,
            (Decision::Allow, _) => true,
            (Decision::Ask, Posture::Yolo) => true,
            (Decision::Ask, Posture::Auto) => !explicit_ask,
            (Decision::Ask, Posture::AcceptEdits) => {
                !explicit_ask && call.kind == ToolKind::FileWriter
            }
            (Decision::Ask, Posture::Ask | Posture::DontAsk | Posture::Plan) => false,
        };
        if !runs {
            return Err(approval_needed(call, verdict));
        }
        // Commands that build code at run time need a literal grant, YOLO, or opt-in.
        if let Some(command) = call.args.get("command").and_then(|c| c.as_str())
            && call.kind == ToolKind::Shell
            && posture != Posture::Yolo
            && !self.allow_dynamic_bash
            && !verdict.exact_literal
            && shell::is_dynamic(command)
        {
            return Err(format!(
                "Blocked: `{}` builds and runs code at run time (command substitution, eval, `sh -c` or inline interpreter code), which no prefix grant covers in a headless run. Run the commands directly instead, or the user can allow this exact command with `--allowed-tools 'Bash({})'`, set `[permissions] allow_dynamic_bash = true`, or use `--yolo`.",
                shell::normalize(command),
                shell::normalize(command)
            ));
        }
        Ok(())
    }

    /// Record an approval "for this session".
    pub fn grant_for_session(&mut self, rule: Rule) {
        self.session.push(rule);
    }

    /// Take back what [`Policy::grant_for_session`] granted as `rule` (its text); whether
    /// anything was.
    pub fn revoke_for_session(&mut self, rule: &str) -> bool {
        let before = self.session.len();
        self.session.retain(|r| r.to_string() != rule);
        self.session.len() < before
    }
}

/// The local origin a fetcher's call names in its `url` (see [`Source::LocalNetwork`]).
pub fn local_target(call: &Call<'_>) -> Option<Origin> {
    if call.kind != ToolKind::Fetcher {
        return None;
    }
    Origin::local_of_url(call.args.get("url")?.as_str()?)
}

fn approval_needed(call: &Call<'_>, verdict: &Verdict) -> String {
    let why = match &verdict.source {
        Source::Rule { list, rule } => {
            format!("the rule `{rule}` in [permissions] {list} requires approval")
        }
        Source::Fallback if call.own_rules => {
            "tools of MCP servers need approval (unless the user trusts the server's read-only hints)"
                .to_string()
        }
        Source::Fallback if let Some(reach) = call.reach => {
            format!("{reach}, which needs approval")
        }
        Source::Fallback => "writers and shell commands need approval".to_string(),
        Source::LocalNetwork { origin } => format!(
            "`{origin}` is on this machine or a private network, and fetching a local address needs approval"
        ),
        Source::Protected { path } => {
            return format!(
                "Permission needed: `{}` was not run because `{path}` is a configuration file of this workspace or a script its configuration runs (either can change what Reasonix and other tools run), and every write to one needs the user's explicit approval, which this headless run cannot ask for. Do not try to change it another way; tell the user what you wanted to change. They can make the change themselves, or rerun with `--permission-mode bypassPermissions`.",
                call.tool
            );
        }
    };
    let suggestion = suggested_scopes(call)
        .into_iter()
        .last()
        .unwrap_or_else(|| call.tool.to_string());
    // `acceptEdits` lets file writers through, nothing else: name it only where it helps.
    let modes = if call.kind == ToolKind::FileWriter {
        "acceptEdits|auto|bypassPermissions"
    } else {
        "auto|bypassPermissions"
    };
    format!(
        "Permission needed: `{}` was not run because {why}, and this headless run cannot ask. \
         Tell the user what you wanted to do. To allow it they can rerun with `--auto` (or `-y`), \
         `--permission-mode {modes}`, `--yolo`, or \
         `--allowed-tools '{suggestion}'`, or add it to `allow` under [permissions] in reasonix.toml.",
        call.tool
    )
}

/// Rules an approval of this call could be saved as, narrowest first: for a shell command the
/// command itself, then (when it has no operators) a prefix of its first word(s); for a file
/// writer the path; otherwise the tool.
pub fn suggested_scopes(call: &Call<'_>) -> Vec<String> {
    if call.kind == ToolKind::Shell {
        // A tool that counts as a shell tool only because its plugin may run commands has no
        // command to scope to: the approval covers that tool, not every shell tool.
        let Some(command) = call.args.get("command").and_then(|c| c.as_str()) else {
            return vec![call.tool.to_string()];
        };
        let command = shell::normalize(command);
        let mut scopes = vec![format!("Bash({command})")];
        if !shell::has_operators(&command) {
            let words: Vec<&str> = command.split(' ').collect();
            // `cargo test`, `npm run build`: program plus a subcommand when there is one.
            let take = if words.len() > 2 && !words[1].starts_with('-') {
                2
            } else {
                1
            };
            let prefix = words[..take.min(words.len())].join(" ");
            if prefix != command {
                scopes.push(format!("Bash({prefix}:*)"));
            }
        }
        return scopes;
    }
    if call.kind == ToolKind::FileWriter {
        if let Some(path) = ["path", "file_path", "source_path"]
            .iter()
            .find_map(|k| call.args.get(*k).and_then(|v| v.as_str()))
        {
            return vec![format!("Edit({path})")];
        }
        return vec!["Edit".to_string()];
    }
    if let Some(origin) = local_target(call) {
        return vec![format!("WebFetch(domain:{})", origin.host)];
    }
    vec![call.tool.to_string()]
}

/// An interactive front end's answer to an `Ask`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Once,
    /// Allow calls covered by this rule for the rest of the session. The rule must be one of
    /// the request's scopes: an answer is never wider than what the user was shown.
    Session(String),
    /// Allow, and the front end saves this rule to the config's `allow` list (same bound as
    /// `Session`); the agent applies it for the rest of the session like `Session`.
    Persist(String),
    /// Refuse, optionally with a note the model reads.
    Deny(Option<String>),
}

/// Implemented by front ends that can ask the user.
pub trait Approver: Send + Sync {
    fn approve(&self, request: &super::ApprovalRequest<'_>) -> Approval;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::test_kind as kind;
    use serde_json::json;
    use std::path::PathBuf;

    fn policy(allow: &[&str], ask: &[&str], deny: &[&str]) -> Policy {
        let rules = |list: &[&str]| list.iter().map(|r| Rule::parse(r).unwrap()).collect();
        Policy {
            allow: rules(allow),
            ask: rules(ask),
            deny: rules(deny),
            ..Policy::default()
        }
    }

    fn decide(p: &Policy, tool: &str, read_only: bool, args: Value) -> Decision {
        let ws = PathBuf::from("/w");
        p.decide(&Call {
            tool,
            kind: kind(tool),
            read_only,
            args: &args,
            workspace: &ws,
            reach: None,
            own_rules: false,
        })
        .decision
    }

    fn headless(p: &Policy, tool: &str, args: Value, posture: Posture) -> Result<(), String> {
        let ws = PathBuf::from("/w");
        let read_only = !matches!(kind(tool), ToolKind::Shell | ToolKind::FileWriter);
        p.resolve_headless(
            &Call {
                tool,
                kind: kind(tool),
                read_only,
                args: &args,
                workspace: &ws,
                reach: None,
                own_rules: false,
            },
            posture,
        )
    }

    #[test]
    fn writes_to_configuration_files_always_ask() {
        let mut p = policy(&["Edit", "Write(reasonix.toml)"], &[], &[]);
        p.mode = Some(Decision::Allow);
        p.grant_for_session(Rule::parse("Edit(.mcp.json)").unwrap());
        for path in [
            "reasonix.toml",
            ".mcp.json",
            ".reasonix/commands/a.md",
            ".claude/settings.json",
        ] {
            let args = json!({"path": path, "content": "x"});
            assert_eq!(
                decide(&p, "write_file", false, args.clone()),
                Decision::Ask,
                "{path}"
            );
            for posture in [
                Posture::Ask,
                Posture::AcceptEdits,
                Posture::Auto,
                Posture::DontAsk,
            ] {
                let err = headless(&p, "write_file", args.clone(), posture).unwrap_err();
                assert!(err.contains("configuration file"), "{posture:?}: {err}");
            }
            assert!(headless(&p, "write_file", args, Posture::Yolo).is_ok());
        }
        // A deny rule still wins; other files follow the rules as before.
        let deny = policy(&[], &[], &["Write(reasonix.toml)"]);
        assert_eq!(
            decide(&deny, "write_file", false, json!({"path": "reasonix.toml"})),
            Decision::Deny
        );
        assert_eq!(
            decide(&p, "write_file", false, json!({"path": "src/a.rs"})),
            Decision::Allow
        );
        // Readers are not writes.
        assert_eq!(
            decide(&p, "read_file", true, json!({"path": "reasonix.toml"})),
            Decision::Allow
        );
    }

    #[test]
    fn precedence_table() {
        let cmd = json!({"command": "git push"});
        // (allow, ask, deny) → decision for `bash git push`
        type Row<'a> = (&'a [&'a str], &'a [&'a str], &'a [&'a str], Decision);
        let table: &[Row] = &[
            (&[], &[], &[], Decision::Ask),
            (&["Bash"], &[], &[], Decision::Allow),
            (&["Bash"], &["Bash(git push)"], &[], Decision::Ask),
            (&["Bash"], &[], &["Bash(git push)"], Decision::Deny),
            (&["Bash"], &["Bash"], &["Bash(git:*)"], Decision::Deny),
            (&[], &["Bash(git:*)"], &[], Decision::Ask),
            (&["Bash(git push)"], &[], &[], Decision::Allow),
            (&["Bash(git:*)"], &[], &["Bash(git push)"], Decision::Deny),
        ];
        for (allow, ask, deny, expected) in table {
            let p = policy(allow, ask, deny);
            assert_eq!(
                decide(&p, "bash", false, cmd.clone()),
                *expected,
                "allow {allow:?} ask {ask:?} deny {deny:?}"
            );
        }
    }

    #[test]
    fn fallback_allows_readers_and_gives_writers_the_mode() {
        let mut p = Policy::default();
        assert_eq!(
            decide(&p, "read_file", true, json!({"path": "a"})),
            Decision::Allow
        );
        assert_eq!(
            decide(&p, "write_file", false, json!({"path": "a"})),
            Decision::Ask
        );
        p.mode = Some(Decision::Allow);
        assert_eq!(
            decide(&p, "write_file", false, json!({"path": "a"})),
            Decision::Allow
        );
        p.mode = Some(Decision::Deny);
        assert_eq!(
            decide(&p, "write_file", false, json!({"path": "a"})),
            Decision::Deny
        );
        // A deny rule reaches readers too.
        let p = policy(&[], &[], &["Read(secrets/**)"]);
        assert_eq!(
            decide(&p, "read_file", true, json!({"path": "secrets/k"})),
            Decision::Deny
        );
    }

    #[test]
    fn plan_mode_refuses_every_writer_and_command_whatever_allows_them() {
        let p = policy(&["Edit", "Bash(touch:*)"], &[], &["Read(secrets/**)"]);
        for (tool, args) in [
            ("write_file", json!({"path": "a.txt"})),
            ("bash", json!({"command": "touch a"})),
        ] {
            let err = headless(&p, tool, args, Posture::Plan).unwrap_err();
            assert!(err.starts_with("Plan mode: `"), "{err}");
            assert!(err.contains("exit_plan_mode"), "{err}");
        }
        assert!(headless(&p, "read_file", json!({"path": "a"}), Posture::Plan).is_ok());
        // A deny rule still words the refusal as a deny.
        let err =
            headless(&p, "read_file", json!({"path": "secrets/k"}), Posture::Plan).unwrap_err();
        assert!(err.contains("denied by the rule"), "{err}");
    }

    #[test]
    fn headless_fails_closed_for_writers_and_shell_and_says_how_to_allow() {
        let p = Policy::default();
        let err = headless(&p, "write_file", json!({"path": "a.txt"}), Posture::Ask).unwrap_err();
        assert!(err.contains("--auto") && err.contains("--yolo"), "{err}");
        assert!(err.contains("--allowed-tools 'Edit(a.txt)'"), "{err}");
        let err = headless(
            &p,
            "bash",
            json!({"command": "cargo test --all"}),
            Posture::Ask,
        )
        .unwrap_err();
        assert!(err.contains("Bash(cargo test:*)"), "{err}");
        assert!(headless(&p, "read_file", json!({"path": "a"}), Posture::Ask).is_ok());
        assert!(headless(&p, "bash", json!({"command": "ls"}), Posture::DontAsk).is_err());
    }

    #[test]
    fn postures() {
        let p = policy(&[], &["Bash(git push:*)"], &["Bash(rm:*)"]);
        let bash = |c: &str| json!({ "command": c });
        // auto: fallback runs, explicit ask does not.
        assert!(headless(&p, "bash", bash("cargo build"), Posture::Auto).is_ok());
        assert!(headless(&p, "bash", bash("git push origin"), Posture::Auto).is_err());
        // acceptEdits: writers run, shell does not.
        assert!(headless(&p, "edit_file", json!({"path": "a"}), Posture::AcceptEdits).is_ok());
        assert!(headless(&p, "bash", bash("cargo build"), Posture::AcceptEdits).is_err());
        // yolo: ask rules run, deny still blocks.
        assert!(headless(&p, "bash", bash("git push origin"), Posture::Yolo).is_ok());
        let err = headless(&p, "bash", bash("ls && rm -rf /"), Posture::Yolo).unwrap_err();
        assert!(err.contains("Bash(rm:*)") && err.contains("deny"), "{err}");
    }

    #[test]
    fn allowed_tools_prefix_grant_does_not_stretch_over_operators() {
        let p = policy(&["Bash(go test:*)"], &[], &[]);
        let bash = |c: &str| json!({ "command": c });
        assert!(headless(&p, "bash", bash("go test ./..."), Posture::Ask).is_ok());
        assert!(headless(&p, "bash", bash("go test ./... && rm -rf x"), Posture::Ask).is_err());
    }

    #[test]
    fn dynamic_commands_need_a_literal_grant_yolo_or_opt_in() {
        let bash = |c: &str| json!({ "command": c });
        let p = policy(&["Bash"], &[], &[]);
        assert!(headless(&p, "bash", bash("sh -c 'make'"), Posture::Auto).is_err());
        assert!(headless(&p, "bash", bash("sh -c 'make'"), Posture::Yolo).is_ok());
        let literal = policy(&["Bash(sh -c 'make')"], &[], &[]);
        assert!(headless(&literal, "bash", bash("sh -c 'make'"), Posture::Ask).is_ok());
        let mut opted = policy(&["Bash"], &[], &[]);
        opted.allow_dynamic_bash = true;
        assert!(headless(&opted, "bash", bash("echo $(date)"), Posture::Ask).is_ok());
    }

    #[test]
    fn session_grants_allow_but_never_beat_deny_or_ask() {
        let mut p = policy(&[], &["Bash(git push:*)"], &["Bash(rm:*)"]);
        p.grant_for_session(Rule::parse("Bash").unwrap());
        assert_eq!(
            decide(&p, "bash", false, json!({"command": "make"})),
            Decision::Allow
        );
        assert_eq!(
            decide(&p, "bash", false, json!({"command": "git push"})),
            Decision::Ask
        );
        assert_eq!(
            decide(&p, "bash", false, json!({"command": "rm x"})),
            Decision::Deny
        );
    }

    #[test]
    fn parse_rules_names_the_list_and_index() {
        let err = parse_rules("allow", &["Bash".into(), "Bash(".into()]).unwrap_err();
        assert!(err.to_string().contains("permissions.allow[1]"), "{err}");
    }

    #[test]
    fn posture_names() {
        assert_eq!(Posture::parse("bypassPermissions"), Ok(Posture::Yolo));
        assert_eq!(Posture::parse("manual"), Ok(Posture::Ask));
        assert_eq!(Posture::parse("plan"), Ok(Posture::Plan));
        assert!(Posture::parse("nope").unwrap_err().contains("acceptEdits"));
    }
}
