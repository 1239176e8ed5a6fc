//! `reasonix run`: one task, headless, to the end. Flags and their precedence, the session
//! (new, `--continue`, `--resume`), the permission posture, and the output formats
//! (docs/RUN.md).

pub mod output;
mod piped;
mod signals;

use crate::exit::{Code, Failure, Outcome};
use crate::launch::{self, Options, Resume};
use crate::term::errln;
use anyhow::anyhow;
use output::{Format, Init, Printer};
use reasonix_agent::agent_loop::{RunDeadline, RunStatus};
use reasonix_agent::permissions::{Posture, Rule};
use reasonix_core::cancel::CancelToken;
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

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
    /// Continue the latest session of this workspace.
    #[arg(long = "continue", short = 'c', conflicts_with = "resume")]
    pub continue_latest: bool,
    /// Continue a session: its id, an id prefix, or text from its title.
    #[arg(long, short = 'r', value_name = "ID|TEXT")]
    pub resume: Option<String>,
}

pub fn run(args: RunArgs) -> Outcome {
    let started = Instant::now();
    let posture = posture(&args)?;
    let add_dirs = launch::add_dirs(&args.add_dir)?;
    let prepared = launch::prepare(args.dir.as_deref(), add_dirs)?;
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
    let mut words = args.task.clone();
    let allow_values = rule_values(&args.allowed_tools, &known, &mut words);
    let deny_values = rule_values(&args.disallowed_tools, &known, &mut words);
    let task = task(&words)?;
    let task = crate::mcp::expand_task(&task, &prepared.mcp)
        .map_err(|e| Failure::usage(anyhow!("{e}")))?;
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
    let launched = launch::launch(
        &prepared,
        &Options {
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
            append_system_prompt: prompt_text(
                args.append_system_prompt.as_ref(),
                args.append_system_prompt_file.as_deref(),
                "--append-system-prompt-file",
            )?,
            max_steps: args.max_steps,
            resume,
            wait_for_model_list: true,
        },
    )?;
    let resumed_messages = launched.resumed_messages;
    let mut agent = launched.agent;
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
    .accept_cut_off(accept_cut_off);
    printer.init(Init {
        session_id: agent.session_id().unwrap_or_default().to_string(),
        model,
        provider: provider_name,
        cwd: workspace.display().to_string(),
        tools: agent.tool_specs().iter().map(|t| t.name.clone()).collect(),
        permission_mode: mode_name(posture).to_string(),
        resumed_messages,
        mcp_servers,
    });
    let outcome = agent.run(&task, &cancel, &mut |event| printer.event(&event));
    agent.end_session(&mut |event| printer.event(&event));
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    printer.finish(&outcome, duration_ms);
    Ok(match outcome.status {
        RunStatus::Success if outcome.cut_off() && !accept_cut_off => Code::CutOff,
        RunStatus::Success => Code::Success,
        RunStatus::TimedOut => Code::TimedOut,
        RunStatus::MaxSteps | RunStatus::Cancelled | RunStatus::Error => Code::Failure,
    })
}

/// `--timeout`: `90s`, `5m`, `1h` or plain seconds.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    reasonix_agent::config::duration::parse(text)
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

/// The `--permission-mode` spelling of a posture.
pub fn mode_name(posture: Posture) -> &'static str {
    match posture {
        Posture::Ask => "ask",
        Posture::AcceptEdits => "acceptEdits",
        Posture::Auto => "auto",
        Posture::DontAsk => "dontAsk",
        Posture::Yolo => "bypassPermissions",
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

/// The values a list flag (`--allowed-tools`, `--disallowed-tools`) really took. clap gives
/// the flag every argument up to the next flag; like Claude Code's list flags, it keeps them
/// while each is a rule list (comma- or space-separated) whose every rule names a known tool
/// or a tool family (`Bash`, `Edit`, `Read`, `WebFetch` …). The first value that is not, and
/// every value after it, goes back to the task, in order. The first value is always kept, so
/// a bad rule right after the flag is reported, not run as the task.
pub(crate) fn rule_values(
    values: &[String],
    known: &[String],
    task: &mut Vec<String>,
) -> Vec<String> {
    let cut = values
        .iter()
        .enumerate()
        .position(|(i, v)| i > 0 && !is_rule_list(v, known))
        .unwrap_or(values.len());
    task.extend(values[cut..].iter().cloned());
    values[..cut].to_vec()
}

fn is_rule_list(value: &str, known: &[String]) -> bool {
    let rules = split_rules(std::slice::from_ref(&value.to_string()));
    !rules.is_empty()
        && rules
            .iter()
            .all(|r| Rule::parse(r).is_ok_and(|rule| rule.names_known_tool(known)))
}

/// Rules separated by commas or whitespace outside parentheses, so `Bash(npm run build), Edit`
/// is two rules.
pub(crate) fn parse_rule_values(flag: &str, values: &[String]) -> Result<Vec<Rule>, Failure> {
    split_rules(values)
        .iter()
        .map(|text| {
            Rule::parse(text).map_err(|e| {
                Failure::usage(anyhow!(
                    "{flag}: `{}`: {}; rules look like `Edit`, `Edit(src/**)`, `Bash(cargo test:*)` or `web_fetch`",
                    e.rule,
                    e.reason
                ))
            })
        })
        .collect()
}

fn split_rules(values: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for value in values {
        let mut depth = 0usize;
        let mut current = String::new();
        for c in value.chars() {
            match c {
                '(' => {
                    depth += 1;
                    current.push(c);
                }
                ')' => {
                    depth = depth.saturating_sub(1);
                    current.push(c);
                }
                c if depth == 0 && (c == ',' || c.is_whitespace()) => {
                    if !current.is_empty() {
                        out.push(std::mem::take(&mut current));
                    }
                }
                c => current.push(c),
            }
        }
        if !current.is_empty() {
            out.push(current);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_split_outside_parentheses() {
        let values = vec![
            "Edit, Bash(npm run build)".to_string(),
            "Bash(go test:*) web_fetch".to_string(),
        ];
        assert_eq!(
            split_rules(&values),
            [
                "Edit",
                "Bash(npm run build)",
                "Bash(go test:*)",
                "web_fetch"
            ]
        );
        assert!(split_rules(&[" , ".to_string()]).is_empty());
    }

    #[test]
    fn bad_rules_are_usage_errors() {
        let err = parse_rule_values("--allowed-tools", &["Bash(".to_string()]).unwrap_err();
        assert_eq!(err.exit_code(), Code::Usage);
        assert!(err.to_string().contains("--allowed-tools"), "{err}");
    }

    #[test]
    fn list_flags_give_back_what_is_not_a_rule() {
        let known = vec!["read_file".to_string(), "bash".to_string()];
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut task = Vec::new();
        let kept = rule_values(
            &strings(&[
                "Bash(git status:*)",
                "Edit",
                "read_file, WebFetch",
                "fix the bug",
                "Edit",
            ]),
            &known,
            &mut task,
        );
        assert_eq!(
            kept,
            strings(&["Bash(git status:*)", "Edit", "read_file, WebFetch"])
        );
        // Everything from the first non-rule on is the task, in order.
        assert_eq!(task, strings(&["fix the bug", "Edit"]));

        // A one-word task that is not a tool name; an unknown lowercase name is not a rule.
        let mut task = strings(&["before"]);
        let kept = rule_values(
            &strings(&["Edit", "refactor", "grep_all"]),
            &known,
            &mut task,
        );
        assert_eq!(kept, strings(&["Edit"]));
        assert_eq!(task, strings(&["before", "refactor", "grep_all"]));

        // The first value stays with the flag even when it is not a rule (reported as bad).
        let mut task = Vec::new();
        let kept = rule_values(&strings(&["Bash("]), &known, &mut task);
        assert_eq!(kept, strings(&["Bash("]));
        assert!(task.is_empty());
        assert!(!is_rule_list("", &known));
        assert!(!is_rule_list("Bash(", &known));
        assert!(is_rule_list("mcp__git", &known));
    }

    #[test]
    fn mode_names_parse_back() {
        for posture in [
            Posture::Ask,
            Posture::AcceptEdits,
            Posture::Auto,
            Posture::DontAsk,
            Posture::Yolo,
        ] {
            assert_eq!(Posture::parse(mode_name(posture)), Ok(posture));
        }
    }
}
