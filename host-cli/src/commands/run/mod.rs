//! `reasonix run`: one task, headless, to the end. Flags and their precedence, the session
//! (new, `--continue`, `--resume`), the permission posture, and the output formats
//! (docs/RUN.md).

mod input;
mod ops;
pub mod output;
mod piped;
mod session_flags;
mod settings_flags;
mod signals;
mod structured;
mod tool_names;

use crate::exit::{Code, Failure, Outcome};
use crate::flags::{mode_name, parse_rule_values, rule_values};
use crate::launch::{self, Options, Resume};
use crate::term::errln;
use anyhow::anyhow;
use output::{Format, Init, Printer};
use reasonix_agent::agent_loop::{RunDeadline, RunOutcome, RunStatus};
use reasonix_agent::permissions::Posture;
use reasonix_core::cancel::CancelToken;
use reasonix_runtime::goal::{self, Goal};
use reasonix_session::input::Turn;
use reasonix_session::{Session, SessionEvent};
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// `--input-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// The task from the arguments, or stdin as text.
    Text,
    /// User messages as JSON lines on stdin, one turn each.
    StreamJson,
    /// Session operations as JSON lines on stdin (docs/schemas/protocol/op.json): prompts,
    /// answers to approval questions by id, cancel, compact, new/resume/rewind/fork, quit
    /// (needs `--output-format events`).
    Ops,
}

#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// The task. Without it, the task is read from stdin (when stdin is not a terminal).
    #[arg(value_name = "TASK")]
    pub task: Vec<String>,
    /// Model reference: a provider name, `provider/model`, or a bare model name
    /// (default: the session's model when resuming, else `default_model`).
    #[arg(long, short)]
    pub model: Option<String>,
    /// A model to switch to, once, when a request to the main one fails for good before its
    /// answer starts (same forms as `--model`).
    #[arg(long, value_name = "REF")]
    pub fallback_model: Option<String>,
    /// Model requests at most (default: `[agent] max_steps`, else 100).
    #[arg(long, alias = "max-turns", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: Option<u32>,
    /// Workspace root (default: `[sandbox] workspace_root`, else the current directory).
    #[arg(long, value_name = "PATH")]
    pub dir: Option<PathBuf>,
    /// Reasoning effort (e.g. low, high, max; default: the provider's).
    #[arg(long, value_name = "LEVEL")]
    pub effort: Option<String>,
    /// ask (default), acceptEdits, auto, dontAsk or bypassPermissions. `plan` needs an
    /// interactive session.
    #[arg(long, value_name = "MODE", conflicts_with_all = ["auto", "yolo"])]
    pub permission_mode: Option<String>,
    /// Let file writers and shell commands run unless an `ask` rule matches
    /// (= `--permission-mode auto`).
    #[arg(long, short = 'y', conflicts_with = "yolo")]
    pub auto: bool,
    /// Run everything except what `[permissions] deny` blocks
    /// (= `--permission-mode bypassPermissions`).
    #[arg(long, alias = "dangerously-skip-permissions")]
    pub yolo: bool,
    /// Allow rules for this run, comma- or space-separated (e.g. `Edit,Bash(cargo test:*)`).
    /// Takes the following arguments while they are rules naming a known tool; the rest is
    /// the task (`--` ends the list). Repeatable.
    #[arg(long, value_name = "RULES", alias = "allowedTools", num_args = 1..)]
    pub allowed_tools: Vec<String>,
    /// Deny rules for this run, added to `[permissions] deny`; same forms as
    /// `--allowed-tools`.
    #[arg(long, value_name = "RULES", alias = "disallowedTools", num_args = 1..)]
    pub disallowed_tools: Vec<String>,
    /// Replace the Reasonix guidance part of the system prompt (like `[agent] system_prompt`).
    #[arg(long, value_name = "TEXT")]
    pub system_prompt: Option<String>,
    /// `--system-prompt` read from a file.
    #[arg(long, value_name = "FILE", conflicts_with = "system_prompt")]
    pub system_prompt_file: Option<std::path::PathBuf>,
    /// Text added at the end of the system prompt.
    #[arg(long, value_name = "TEXT")]
    pub append_system_prompt: Option<String>,
    /// `--append-system-prompt` read from a file.
    #[arg(long, value_name = "FILE", conflicts_with = "append_system_prompt")]
    pub append_system_prompt_file: Option<std::path::PathBuf>,
    /// An extra writable directory for this run, like `[sandbox] allow_write`. Repeatable.
    #[arg(long, value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,
    /// Text output: show the model's reasoning on stderr (= `--show-thinking`). Accepted in
    /// every format, as Claude Code's `-p --output-format stream-json --verbose`.
    #[arg(long)]
    pub verbose: bool,
    /// text (default), json (one result object) or stream-json (one JSON event per line).
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "text")]
    pub output_format: Format,
    /// Text output: print only the final answer.
    #[arg(long, short)]
    pub print: bool,
    /// Text output: show the model's reasoning on stderr.
    #[arg(long)]
    pub show_thinking: bool,
    /// End the whole run after this long (`90s`, `5m`, `1h` or plain seconds; default:
    /// `[agent] run_timeout`, else none): exit 4, saying what it was waiting for.
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout)]
    pub timeout: Option<Duration>,
    /// Structured output: the final answer must be one JSON value that validates against this
    /// JSON Schema (given inline, or the path of a file holding it); the value is the result's
    /// `structured_output`.
    #[arg(long, value_name = "SCHEMA|FILE")]
    pub json_schema: Option<String>,
    /// Run mode: `economy` (low effort, fewer sub-agents), `balanced` (the configuration as
    /// written) or `delivery` (high effort, every task-list step verified); over `[agent] mode`.
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    pub mode: Option<reasonix_config::run_mode::RunMode>,
    /// Make no further model request once the session has spent this many US dollars
    /// (`error_max_budget_usd`, exit 1). The model must be priced in dollars.
    #[arg(long, value_name = "USD", value_parser = parse_budget)]
    pub max_budget_usd: Option<f64>,
    /// Goal mode: the task is an objective worked on across turns until every
    /// `--goal-check` command exits 0 (with none: every task-list item is completed with
    /// evidence), or a budget is spent (exit 1, saying which).
    #[arg(long)]
    pub goal: bool,
    /// An acceptance check of `--goal`: a shell command the host runs in the sandbox after
    /// every turn; the goal is met when each exits 0. Repeatable.
    #[arg(long = "goal-check", value_name = "COMMAND", requires = "goal")]
    pub goal_check: Vec<String>,
    /// `--goal`: turns at most (default 10).
    #[arg(long, value_name = "N", requires = "goal", value_parser = clap::value_parser!(u32).range(1..))]
    pub goal_max_turns: Option<u32>,
    /// `--goal`: input plus output tokens at most, over every turn.
    #[arg(long, value_name = "N", requires = "goal", value_parser = clap::value_parser!(u64).range(1..))]
    pub goal_max_tokens: Option<u64>,
    /// `text` (the task from the arguments or stdin) or `stream-json`: user messages as JSON
    /// lines on stdin, one turn each, until end of input (needs `--output-format stream-json`).
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "text")]
    pub input_format: InputFormat,
    /// stream-json output: `stream_event` lines with the answer's text and thinking as they
    /// stream.
    #[arg(long)]
    pub include_partial_messages: bool,
    /// The id (a UUID) of the new session; with `--fork-session`, of the fork.
    #[arg(long, value_name = "UUID")]
    pub session_id: Option<String>,
    /// With `--resume`/`--continue`: go on in a new session (a copy of the old one, which is
    /// left untouched).
    #[arg(long)]
    pub fork_session: bool,
    /// Write nothing to the session store (a resumed session is only read).
    #[arg(long)]
    pub no_session_persistence: bool,
    /// The session's title (`sessions list`, `--resume TEXT`).
    #[arg(long, short = 'n', value_name = "NAME")]
    pub name: Option<String>,
    /// The built-in tools offered to the model, comma- or space-separated, in Claude Code's
    /// names (`Bash,Read,Edit`) or ours; `""` for none, `default` for all. MCP tools are
    /// still offered. Takes the following arguments while they are tool names.
    #[arg(long, value_name = "TOOLS", num_args = 1..)]
    pub tools: Option<Vec<String>>,
    /// MCP servers for this run, in Claude Code's `{"mcpServers": {…}}` shape: a file or the
    /// JSON itself. Takes the following arguments while they are such; repeatable. They win
    /// over configured servers of the same name.
    #[arg(long, value_name = "FILE|JSON", num_args = 1..)]
    pub mcp_config: Vec<String>,
    /// Only the `--mcp-config` servers: none from the configuration files.
    #[arg(long)]
    pub strict_mcp_config: bool,
    /// The `settings.json` files read, comma-separated: `user` (`~/.claude/settings.json`,
    /// `<home>/settings.json`), `project` (`.claude/settings.json`, `.reasonix/settings.json`),
    /// `local` (`.claude/settings.local.json`). Default: all.
    #[arg(long, value_name = "SOURCES")]
    pub setting_sources: Option<String>,
    /// One more settings document (a file, or the JSON itself), read after the files; the
    /// user's own, like `<home>/settings.json`.
    #[arg(long, value_name = "FILE|JSON")]
    pub settings: Option<String>,
    /// Continue the latest session of this workspace.
    #[arg(long = "continue", short = 'c', conflicts_with = "resume")]
    pub continue_latest: bool,
    /// Continue a session: its id, an id prefix, or text from its title.
    #[arg(long, short = 'r', value_name = "ID|TEXT")]
    pub resume: Option<String>,
    /// Run as the agent composition NAME (`[compositions.NAME]`: persona, tools, skills, MCP
    /// servers, packages, tighter rules). A continued session keeps the one it started with.
    #[arg(long, value_name = "NAME")]
    pub agent_composition: Option<String>,
}

pub fn run(args: RunArgs) -> Outcome {
    let started = Instant::now();
    let posture = posture(&args)?;
    let streaming_input = args.input_format == InputFormat::StreamJson;
    if streaming_input && !matches!(args.output_format, Format::StreamJson | Format::Events) {
        return Err(Failure::usage(anyhow!(
            "--input-format stream-json needs --output-format stream-json (as in Claude Code) or events"
        )));
    }
    let ops_input = args.input_format == InputFormat::Ops;
    if args.goal && (ops_input || streaming_input || args.json_schema.is_some()) {
        return Err(Failure::usage(anyhow!(
            "--goal works on the task given as an argument, turn after turn: not with --input-format {} or --json-schema",
            if ops_input { "ops" } else { "stream-json" }
        )));
    }
    if ops_input && args.output_format != Format::Events {
        return Err(Failure::usage(anyhow!(
            "--input-format ops needs --output-format events: the questions it answers are events"
        )));
    }
    if ops_input && args.json_schema.is_some() {
        return Err(Failure::usage(anyhow!(
            "--json-schema needs a task or stream-json turns, not --input-format ops"
        )));
    }
    if args.include_partial_messages && args.output_format != Format::StreamJson {
        errln!(
            "warning: --include-partial-messages has no effect without --output-format stream-json"
        );
    }
    let sessions = session_flags::choose(
        args.session_id.as_deref(),
        args.fork_session,
        args.no_session_persistence,
        args.resume.is_some() || args.continue_latest,
    )?;
    for warning in &sessions.warnings {
        errln!("warning: {warning}");
    }
    let title = match &args.name {
        Some(_) if sessions.no_persistence => {
            errln!(
                "warning: --name has no effect with --no-session-persistence: no session is saved"
            );
            None
        }
        Some(name) => Some(
            crate::commands::session_admin::checked_title(name)
                .map_err(|e| Failure::usage(anyhow!("--name: {e}")))?,
        ),
        None => None,
    };
    let schema = match &args.json_schema {
        Some(value) => Some(structured::load(value).map_err(Failure::usage)?),
        None => None,
    };
    let add_dirs = launch::add_dirs(&args.add_dir)?;
    let mut words = args.task.clone();
    let overrides = launch::Overrides {
        mcp_servers: crate::mcp::flags::load(&list_values(
            &args.mcp_config,
            crate::mcp::flags::looks_like_config,
            &mut words,
        ))?,
        strict_mcp: args.strict_mcp_config,
        settings: settings_flags::choose(
            args.setting_sources.as_deref(),
            args.settings.as_deref(),
        )?,
        composition: args.agent_composition.clone(),
        project_dir: None,
        resume: match (&args.resume, args.continue_latest) {
            (Some(query), _) => Some(Resume::Query(query.clone())),
            (None, true) => Some(Resume::Latest),
            (None, false) => None,
        },
    };
    let prepared = launch::Runtime::open_with(args.dir.as_deref(), add_dirs, &overrides)?;
    // A task is one request away from needing the servers' tools: wait for those still
    // starting, each bounded by its own startup timeout (they started in parallel).
    prepared
        .mcp
        .wait_ready(prepared.mcp.longest_startup() + std::time::Duration::from_secs(1));
    crate::mcp::report_failures(&prepared.mcp);
    let mcp_servers: Vec<output::McpServerLine> = prepared
        .mcp
        .statuses()
        .iter()
        .map(output::McpServerLine::of)
        .collect();
    // Sidecar tools count as known tools for the rule flags too.
    let known: Vec<String> = prepared
        .catalog
        .tools()
        .iter()
        .map(|t| t.spec().name.clone())
        .collect();
    let tool_values = args.tools.as_ref().map(|values| {
        let cut = values
            .iter()
            .enumerate()
            .position(|(i, v)| i > 0 && !tool_names::is_tool_list(v, &known))
            .unwrap_or(values.len());
        words.extend(values[cut..].iter().cloned());
        values[..cut].to_vec()
    });
    let allow_values = rule_values(&args.allowed_tools, &known, &mut words);
    let deny_values = rule_values(&args.disallowed_tools, &known, &mut words);
    // The task is expanded exactly as the interactive session expands a line: a custom
    // command's template, an MCP prompt, `@server:uri` references of the user's words. The
    // command files are read only for a task that starts with `/`.
    let expander = prepared.expander();
    let task = if streaming_input || ops_input {
        if !words.is_empty() {
            return Err(Failure::usage(anyhow!(
                "--input-format {} reads the turns from stdin: give no task argument",
                if ops_input { "ops" } else { "stream-json" }
            )));
        }
        None
    } else {
        let task = task(&words)?;
        Some(
            expander
                .expand(&task)
                .map_err(|e| Failure::usage(anyhow!("{e}")))?,
        )
    };
    let enabled_tools = match &tool_values {
        Some(values) => {
            let chosen = tool_names::choose(values, &known).map_err(Failure::usage)?;
            for warning in &chosen.warnings {
                errln!("warning: {warning}");
            }
            chosen.enabled
        }
        None => None,
    };
    let extra_allow = parse_rule_values("--allowed-tools", &allow_values)?;
    let extra_deny = parse_rule_values("--disallowed-tools", &deny_values)?;

    for warning in prepared.cx.config.warnings_once(&prepared.cx.paths.state) {
        errln!("warning: {warning}");
    }
    let resume = match (&args.resume, args.continue_latest) {
        (Some(query), _) => Some(Resume::Query(query.clone())),
        (None, true) => Some(Resume::Latest),
        (None, false) => None,
    };
    let launched = prepared.launch(&Options {
        model: args.model.clone(),
        fallback_model: args.fallback_model.clone(),
        effort: args.effort.clone(),
        posture,
        extra_allow,
        extra_deny,
        system_prompt: prompt_text(
            args.system_prompt.as_ref(),
            args.system_prompt_file.as_deref(),
            "--system-prompt-file",
        )?,
        append_system_prompt: with_schema(
            prompt_text(
                args.append_system_prompt.as_ref(),
                args.append_system_prompt_file.as_deref(),
                "--append-system-prompt-file",
            )?,
            schema.as_ref(),
        ),
        max_steps: args.max_steps,
        budget_usd: args.max_budget_usd,
        resume,
        session_id: sessions.id.clone(),
        fork_session: sessions.fork,
        no_persistence: sessions.no_persistence,
        title,
        enabled_tools,
        wait_for_model_list: true,
        mode: args.mode,
        goal: args.goal,
    })?;
    let resumed_messages = launched.resumed_messages;
    let mut agent = launched.agent;
    // The goal's judge reads the agent's receipts (and adds its checks' runs to them).
    let evidence = agent.evidence().clone();
    let provider_name = agent.client().provider().name.clone();
    let model = agent.client().model().to_string();
    let workspace = prepared.workspace.clone();

    let cancel = CancelToken::new();
    if let Err(e) = signals::install(cancel.clone()) {
        errln!("warning: Ctrl-C will not stop the run cleanly: {e}");
    }
    let accept_cut_off = prepared.cx.config.agent.accept_cut_off_answer;
    // The deadline counts from the start of the command; the token is cancelled when it
    // comes, which ends whatever the run waits for (the agent says what that was).
    let limit = args.timeout.or(prepared.cx.config.agent.run_timeout);
    let (_run_done, deadline_watch) = mpsc::channel::<()>();
    // A limit too far away to be an instant is no limit.
    if let Some((limit, at)) = limit.and_then(|l| started.checked_add(l).map(|at| (l, at))) {
        agent = agent.with_deadline(RunDeadline { at, limit });
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            let left = at.saturating_duration_since(Instant::now());
            // A message or a hang-up (the run finished, the sender dropped) ends the watch.
            if let Err(mpsc::RecvTimeoutError::Timeout) = deadline_watch.recv_timeout(left) {
                cancel.cancel();
            }
        });
    }
    let mut printer = Printer::new(
        args.output_format,
        args.print,
        args.show_thinking || args.verbose,
    )
    .accept_cut_off(accept_cut_off)
    .include_partial(args.include_partial_messages);
    let session_id = match agent.session_id() {
        Some(id) => id.to_string(),
        None => sessions
            .id
            .clone()
            .unwrap_or_else(session_flags::ephemeral_id),
    };
    printer.init(Init {
        session_id,
        model,
        provider: provider_name,
        cwd: workspace.display().to_string(),
        tools: agent.tool_specs().iter().map(|t| t.name.clone()).collect(),
        permission_mode: mode_name(posture).to_string(),
        resumed_messages,
        mcp_servers,
    });
    if ops_input {
        let opened = ops::Opened {
            prepared: std::sync::Arc::new(prepared),
            store: launched.store.clone(),
            resolved: launched.resolved.clone(),
            effort: args.effort.clone(),
        };
        let code = ops::serve(agent, opened, cancel, &mut printer).map_err(Failure::runtime)?;
        return Ok(code);
    }
    // The run is a front end of the session service, like the interactive session: the
    // agent runs on the session's thread, this one prints what it reports. Nobody can answer
    // a question here: the agent resolves "ask" itself (refused, fail closed).
    // The agent's events are printed on the session's thread as they come (no hop per
    // streamed piece); the rest comes here. Ctrl-C and the deadline cancel `cancel`, the
    // parent of every turn's token.
    let printer = std::sync::Arc::new(std::sync::Mutex::new(printer));
    let (to_driver, reports) = mpsc::channel::<SessionEvent>();
    let printing = printer.clone();
    let session = Session::spawn(
        agent,
        launched.store.clone(),
        prepared.expander(),
        reasonix_session::SessionOptions {
            parent: Some(cancel.clone()),
            composition: prepared.binding(),
            recall: Some(prepared.recall()),
            ..Default::default()
        },
        move |event| match event {
            SessionEvent::Agent(event) => locked(&printing).event(&event),
            other => {
                let _ = to_driver.send(other);
            }
        },
    )
    .map_err(|e| Failure::runtime(anyhow!("cannot start the session: {e}")))?;
    // `--goal` takes the task as its objective; its turns are its own.
    let objective = task.as_ref().filter(|_| args.goal).map(|t| t.text.clone());
    let turns: Box<dyn Iterator<Item = Result<Turn, input::InputError>>> = match task {
        Some(task) => Box::new(std::iter::once(Ok(task))),
        None => Box::new(input::Turns::new(std::io::stdin().lock())),
    };
    let mut code = None;
    let mut bad_input = None;
    let driver = Driver {
        session,
        reports: &reports,
        printer: &printer,
    };
    if args.goal {
        let Some(objective) = objective else {
            return Err(Failure::usage(anyhow!(
                "--goal needs the objective as the task"
            )));
        };
        let goal = Goal {
            objective,
            checks: args.goal_check.clone(),
            max_turns: args.goal_max_turns.unwrap_or(goal::DEFAULT_MAX_TURNS),
            max_tokens: args.goal_max_tokens,
        };
        let shell = prepared
            .catalog
            .tools()
            .into_iter()
            .find(|t| t.spec().name == goal::SHELL_TOOL);
        if shell.is_none() && !goal.checks.is_empty() {
            driver.end();
            return Err(Failure::usage(anyhow!(
                "--goal-check needs the `{}` tool to run the checks, and it is not loaded",
                goal::SHELL_TOOL
            )));
        }
        let judge = Judge {
            shell: shell.as_ref(),
            workspace: &workspace,
            ledger: &evidence.0,
        };
        let code = pursue(&goal, &driver, &judge, &cancel, started);
        driver.end();
        return Ok(code);
    }
    for turn in turns {
        // A stream-json turn is expanded like a typed line; the argument task already was.
        let expanded = match turn {
            Ok(task) if streaming_input => expander.expand_turn(task),
            Ok(task) => Ok(task),
            Err(e) => {
                bad_input = Some(e);
                break;
            }
        };
        let turn_started = Instant::now();
        let (outcome, structured_failed) = match expanded {
            Ok(task) => driver.one_turn(task, schema.as_ref()),
            // One turn that cannot be expanded (a reference that cannot be read) is an error
            // result; the stream goes on.
            Err(why) => (reasonix_session::not_sent(why), None),
        };
        // One command: the first turn's time counts from the start of the command.
        let since = if code.is_none() {
            started
        } else {
            turn_started
        };
        let duration_ms = u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX);
        locked(&printer).finish(&outcome, duration_ms);
        if args.output_format != Format::Text {
            // The result object says it too, but a script's log should show why it stopped.
            if outcome.status == RunStatus::BudgetExceeded {
                errln!("error: {}", outcome.result);
            }
            if let Some(why) = &structured_failed {
                errln!("error: {why}");
            }
        }
        let turn_code = match outcome.status {
            _ if structured_failed.is_some() => Code::Failure,
            RunStatus::Success if outcome.cut_off() && !accept_cut_off => Code::CutOff,
            RunStatus::Success => Code::Success,
            RunStatus::TimedOut => Code::TimedOut,
            RunStatus::MaxSteps
            | RunStatus::Cancelled
            | RunStatus::Error
            | RunStatus::BudgetExceeded => Code::Failure,
        };
        code = Some(turn_code);
        // A cancel, the time limit or the budget ends the whole command, not only this turn.
        if matches!(
            outcome.status,
            RunStatus::Cancelled | RunStatus::TimedOut | RunStatus::BudgetExceeded
        ) {
            break;
        }
    }
    // End the session (its `session.end` point may still report, printed as it comes).
    driver.end();
    if let Some(e) = bad_input {
        return Err(Failure::usage(e));
    }
    code.ok_or_else(|| {
        Failure::usage(anyhow!(
            "--input-format stream-json: stdin held no user message"
        ))
    })
}

/// `--goal`: turns until every check passes, or a budget is spent. Each check's receipt (the
/// command and its exit status) is a `notice`; the last one says how the goal ended.
fn pursue(
    goal: &Goal,
    driver: &Driver<'_>,
    judge: &Judge<'_>,
    cancel: &CancelToken,
    started: Instant,
) -> Code {
    let notice = |text: String| {
        locked(driver.printer).protocol_event(reasonix_protocol::EventKind::Notice { text });
    };
    let mut prompt = goal.first_turn();
    let mut tokens = 0u64;
    let mut last: Vec<goal::Receipt> = Vec::new();
    for turn in 1..=goal.max_turns {
        let turn_started = Instant::now();
        let (outcome, _) = driver.one_turn(Turn::text(prompt.clone()), None);
        let since = if turn == 1 { started } else { turn_started };
        let duration_ms = u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX);
        locked(driver.printer).finish(&outcome, duration_ms);
        tokens += outcome.usage.input_tokens + outcome.usage.output_tokens;
        match outcome.status {
            RunStatus::TimedOut => return Code::TimedOut,
            RunStatus::Cancelled | RunStatus::BudgetExceeded => {
                notice(format!(
                    "goal not met: the run stopped ({}) in turn {turn}",
                    outcome.result
                ));
                return Code::Failure;
            }
            _ => {}
        }
        last = goal.check(judge.shell, judge.workspace, cancel, judge.ledger);
        for receipt in &last {
            notice(format!("goal check {}", receipt.describe()));
        }
        if last.iter().all(goal::Receipt::passed) {
            notice(format!(
                "goal met after {turn} turn{}: {}",
                if turn == 1 { "" } else { "s" },
                if goal.checks.is_empty() {
                    "every task-list item is completed with evidence"
                } else {
                    "every check exits 0"
                }
            ));
            return Code::Success;
        }
        if let Some(max) = goal.max_tokens.filter(|max| tokens >= *max) {
            notice(format!(
                "goal not met: the token budget ({max}, --goal-max-tokens) is spent after {turn} turn{} ({tokens} tokens); still failing: {}",
                if turn == 1 { "" } else { "s" },
                failing(&last)
            ));
            return Code::Failure;
        }
        prompt = Goal::next_turn(&last);
    }
    notice(format!(
        "goal not met: the turn budget ({}, --goal-max-turns) is spent; still failing: {}",
        goal.max_turns,
        failing(&last)
    ));
    Code::Failure
}

/// What judges a goal after each turn.
struct Judge<'a> {
    shell: Option<&'a std::sync::Arc<dyn reasonix_core::tool::Tool>>,
    workspace: &'a std::path::Path,
    ledger: &'a reasonix_core::evidence::Ledger,
}

fn failing(receipts: &[goal::Receipt]) -> String {
    receipts
        .iter()
        .filter(|r| !r.passed())
        .map(goal::Receipt::describe)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Drives the session turn by turn: submits a turn and waits until it ends (the session's
/// thread prints the agent's events meanwhile).
struct Driver<'a> {
    session: Session,
    reports: &'a mpsc::Receiver<SessionEvent>,
    printer: &'a std::sync::Mutex<Printer>,
}

impl Driver<'_> {
    /// One user turn, and with `--json-schema` the corrections its answer needs. The outcome
    /// covers every request made; the second value is why the structured answer failed.
    fn one_turn(
        &self,
        task: Turn,
        schema: Option<&structured::Schema>,
    ) -> (RunOutcome, Option<String>) {
        self.session.prompt_turn(task);
        let outcome = self.finished();
        let Some(schema) = schema else {
            return (outcome, None);
        };
        let (outcome, came_out) = self.answer_structured(schema, outcome);
        let failed = match &came_out {
            Some(output::Structured::Invalid(why)) => Some(why.clone()),
            _ => None,
        };
        if let Some(came_out) = came_out {
            locked(self.printer).structured(came_out);
        }
        (outcome, failed)
    }

    /// `--json-schema`: validate the final answer, asking the model again (at most
    /// [`structured::RETRIES`] times) while it does not validate. The outcome covers every
    /// request made; `None` when the run did not end with an answer to check.
    fn answer_structured(
        &self,
        schema: &structured::Schema,
        mut outcome: RunOutcome,
    ) -> (RunOutcome, Option<output::Structured>) {
        let mut corrections = 0;
        loop {
            if outcome.status != RunStatus::Success {
                return (outcome, None);
            }
            let problems = match structured::check(schema, &outcome.result) {
                Ok(value) => return (outcome, Some(output::Structured::Valid(value))),
                Err(problems) => problems,
            };
            if corrections == structured::RETRIES {
                let why = structured::failure(&problems);
                return (outcome, Some(output::Structured::Invalid(why)));
            }
            corrections += 1;
            self.session
                .prompt_turn(Turn::text(structured::correction(&problems)));
            let next = self.finished();
            outcome = joined(outcome, next);
        }
    }

    /// Wait until the turn submitted last ends; its outcome.
    fn finished(&self) -> RunOutcome {
        while let Ok(report) = self.reports.recv() {
            if let SessionEvent::TurnDone(outcome) = report {
                return *outcome;
            }
        }
        reasonix_session::not_sent("the session ended before the turn did".into())
    }

    /// End the session; what it reports on the way out is printed by its thread.
    fn end(self) {
        self.session.quit();
    }
}

/// The printer, also after a panic of a holder (what it printed so far stays printed).
fn locked(printer: &std::sync::Mutex<Printer>) -> std::sync::MutexGuard<'_, Printer> {
    printer
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `--timeout`: `90s`, `5m`, `1h` or plain seconds.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    reasonix_config::duration::parse(text)
}

/// The appended system prompt with `--json-schema`'s instruction after it.
fn with_schema(append: Option<String>, schema: Option<&structured::Schema>) -> Option<String> {
    let Some(schema) = schema else {
        return append;
    };
    let instruction = structured::instruction(schema);
    Some(match append {
        Some(text) => format!("{text}\n\n{instruction}"),
        None => instruction,
    })
}

/// Two runs of one command as one: the later's status and answer, both's requests and spend.
fn joined(first: RunOutcome, mut later: RunOutcome) -> RunOutcome {
    later.steps += first.steps;
    later.usage.merge(&first.usage);
    let mut spend = first.spend;
    spend.extend(&later.spend);
    later.cost = spend.single_total();
    later.spend = spend;
    later
}

/// `--mode`: a run mode's name.
pub fn parse_mode(text: &str) -> Result<reasonix_config::run_mode::RunMode, String> {
    text.parse()
        .map_err(|e: reasonix_config::run_mode::UnknownMode| e.to_string())
}

/// `--max-budget-usd`: a positive number of dollars.
fn parse_budget(text: &str) -> Result<f64, String> {
    match text.trim().trim_start_matches('$').parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd > 0.0 => Ok(usd),
        _ => Err(format!(
            "`{text}` is not an amount of dollars above 0 (e.g. 0.50)"
        )),
    }
}

/// The posture from `--permission-mode`, `--auto`, `--yolo` (clap rejects combinations).
fn posture(args: &RunArgs) -> Result<Posture, Failure> {
    if args.yolo {
        return Ok(Posture::Yolo);
    }
    if args.auto {
        return Ok(Posture::Auto);
    }
    match &args.permission_mode {
        Some(mode) => {
            Posture::parse(mode).map_err(|e| Failure::usage(anyhow!("--permission-mode: {e}")))
        }
        None => Ok(Posture::Ask),
    }
}

/// A prompt flag's text, given inline or (`flag`) as a file of at most 256 KiB.
fn prompt_text(
    text: Option<&String>,
    file: Option<&std::path::Path>,
    flag: &str,
) -> Result<Option<String>, Failure> {
    const AT_MOST: u64 = 256 * 1024;
    let Some(path) = file else {
        return Ok(text.cloned());
    };
    let shown = reasonix_core::terminal::shown(&path.display().to_string()).to_string();
    let size = std::fs::metadata(path)
        .map_err(|e| Failure::usage(anyhow!("{flag} {shown}: cannot read it: {e}")))?
        .len();
    if size > AT_MOST {
        return Err(Failure::usage(anyhow!(
            "{flag} {shown}: {size} bytes, more than the {} KiB a prompt file may have",
            AT_MOST / 1024
        )));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::usage(anyhow!("{flag} {shown}: cannot read it: {e}")))?;
    Ok(Some(text.trim_end().to_string()))
}

/// The task from the arguments (with what was piped on stdin after it), else from stdin when
/// it is not a terminal.
fn task(words: &[String]) -> Result<String, Failure> {
    if !words.is_empty() {
        let task = words.join(" ");
        let task = task.trim();
        if task.is_empty() {
            return Err(Failure::usage(anyhow!(
                "the task is empty: give it as arguments or pipe it on stdin"
            )));
        }
        return Ok(match piped::read() {
            Some(piped) => piped.append_to(task),
            None => task.to_string(),
        });
    }
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Failure::usage(anyhow!(
            "no task: give it as arguments (`reasonix run \"fix the failing test\"`) or pipe it on stdin"
        )));
    }
    let mut text = String::new();
    stdin
        .read_to_string(&mut text)
        .map_err(|e| Failure::usage(anyhow!("cannot read the task from stdin: {e}")))?;
    let text = text.trim();
    if text.is_empty() {
        return Err(Failure::usage(anyhow!(
            "the task is empty: give it as arguments or pipe it on stdin"
        )));
    }
    Ok(text.to_string())
}

/// The values a list flag keeps: the first, then each while `belongs` says so; the rest goes
/// back to the task, in order.
fn list_values(
    values: &[String],
    belongs: fn(&str) -> bool,
    task: &mut Vec<String>,
) -> Vec<String> {
    let cut = values
        .iter()
        .enumerate()
        .position(|(i, v)| i > 0 && !belongs(v))
        .unwrap_or(values.len());
    task.extend(values[cut..].iter().cloned());
    values[..cut].to_vec()
}
