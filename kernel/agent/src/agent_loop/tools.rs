//! The tool pipeline: every call of one answer goes
//! resolve → parse arguments → classify → `tool.before` interceptors → permission decision
//! (with the `preview` of a writer handed to the approver) → run → `tool.after` interceptors →
//! bounding → loop guard.
//!
//! Consecutive read-only calls run in parallel; any other call runs alone, in order. Results
//! are appended in call order. Everything that goes wrong with one call is a [`CallFailure`]
//! the model reads as that call's result; only the loop guard stops the run ([`RunStop`]).

use super::delegation::host::{ChildHost, Parent};
use super::intercept::{Outcome as Intercepted, Subject, Verdict, points};
use super::payloads::{HostDecision, PermissionDecision, ToolAfter, ToolBefore};
use super::{Agent, AgentEvent, REPEAT_LIMIT, REPEAT_WARNING};
use crate::cancel::CancelToken;
use crate::error::CallError;
use crate::permissions::{
    Approval, ApprovalRequest, Call, Decision, Posture, Preview, Rule, Source, ToolClass, ToolKind,
    local_target,
};
use crate::tool::Tool;
use crate::types::{Image, Message, ToolCall, ToolContext, ToolEvent, ToolEvents, canonical_json};
use reasonix_core::delegation::Delegation;
use reasonix_core::evidence::{Evidence, Receipt};
use reasonix_core::origin::Origin;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

/// The most read-only calls run at once.
const MAX_PARALLEL: usize = 8;
/// How often a running tool call checks for Ctrl-C.
const CANCEL_POLL: std::time::Duration = std::time::Duration::from_millis(50);
/// The host's hard cap on one result the model reads, whatever the interceptors did: the
/// built-in `bound` component keeps results far below this (32 KiB by default); this only
/// catches a tool or interceptor that does not, or a user who disabled bounding.
pub const MAX_RESULT_BYTES: usize = 512 * 1024;
/// The most of a replaced result's original the transcript keeps (`raw_content`): the full
/// text of anything a person would page through, without letting one runaway command write
/// hundreds of megabytes into the session file.
pub const MAX_RAW_BYTES: usize = 8 * 1024 * 1024;

/// Why a call produced no normal result. The text is what the model reads.
#[derive(Debug)]
pub enum CallFailure {
    UnknownTool {
        name: String,
        available: Vec<String>,
    },
    NotAnObject {
        tool: String,
    },
    InvalidJson {
        tool: String,
        error: String,
    },
    /// An interceptor stopped the call (or failed while looking at it).
    Intercepted {
        tool: String,
        stop: super::intercept::Stop,
    },
    /// The permission policy refused it; the message names the rule or what would allow it.
    Refused(String),
    /// The user answered no.
    Denied {
        tool: String,
        note: Option<String>,
    },
    Cancelled,
    /// The tool ran and failed.
    Tool(CallError),
    /// The tool ran and said it failed, in its own words (`ToolOutput::is_error`); its images
    /// stay with the result.
    Reported(String),
    /// The thread running the call panicked.
    Crashed,
}

impl fmt::Display for CallFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallFailure::UnknownTool { name, available } => write!(
                f,
                "Error: there is no tool `{name}`. Available tools: {}.",
                available.join(", ")
            ),
            CallFailure::NotAnObject { tool } => write!(
                f,
                "Error: the arguments of `{tool}` must be a JSON object. Send the call again with an object matching its schema."
            ),
            CallFailure::InvalidJson { tool, error } => write!(
                f,
                "Error: the arguments of `{tool}` are not valid JSON ({error}); your output was probably cut off. Send the call again with complete JSON arguments, or split the work into smaller calls."
            ),
            CallFailure::Intercepted { tool, stop } => write!(
                f,
                "Blocked: `{tool}` was not run: {}. Do not retry it unchanged; take another approach or ask the user.",
                stop.describe()
            ),
            CallFailure::Refused(message) => f.write_str(message),
            CallFailure::Denied { tool, note } => {
                write!(f, "The user denied `{tool}`.")?;
                if let Some(note) = note.as_deref().filter(|n| !n.trim().is_empty()) {
                    write!(f, " Their note: {}", note.trim())?;
                }
                write!(
                    f,
                    " Do not retry it; ask the user how to proceed or take another approach."
                )
            }
            CallFailure::Cancelled => {
                f.write_str("Cancelled: the user stopped the run before this call ran.")
            }
            CallFailure::Tool(e) => write!(f, "Error: {e}"),
            CallFailure::Reported(text) => write!(f, "Error: {text}"),
            CallFailure::Crashed => f.write_str("Error: the tool call failed unexpectedly"),
        }
    }
}

/// Why the run must stop after this batch of calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStop {
    /// The model repeated the same failing call [`REPEAT_LIMIT`] times.
    Repeating { tool: String, count: u32 },
}

impl fmt::Display for RunStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunStop::Repeating { tool, count } => write!(
                f,
                "stopped: the model repeated the same failing `{tool}` call {count} times"
            ),
        }
    }
}

/// A call that passed every check.
pub(super) struct Approved {
    tool: Arc<dyn Tool>,
    /// The arguments to run with (an interceptor may have replaced the model's).
    arguments: String,
    /// The user explicitly allowed this call's write to a configuration file.
    may_write_protected: bool,
    /// The local origin this fetch was allowed to reach (by a rule, the posture or an answer;
    /// not by an interceptor overriding a refusal).
    approved_local: Option<Origin>,
    /// The preview the user was shown when asked: reused for `ToolPreview` and the
    /// checkpoint, so a writer's edit logic runs once before the call, not twice.
    shown: Option<Preview>,
}

pub(super) enum Prepared {
    Run(Approved),
    Answered(CallFailure),
    /// The agent answered the call itself (`exit_plan_mode`): this is its result.
    Done(String),
}

/// What one call produced, before `tool.after`.
struct Outcome {
    arguments: String,
    result: Result<String, CallFailure>,
    /// Images the tool returned beside its text (MCP image content).
    images: Vec<Image>,
    duration_ms: u64,
}

/// A result as the model will read it, after `tool.after`.
struct Finished {
    output: String,
    is_error: bool,
    /// The original text when an interceptor replaced it, for the transcript.
    raw: Option<String>,
    /// Kept only for a successful result no interceptor replaced: a replacement decides what
    /// the model reads, and a redactor cannot see into an image.
    images: Vec<Image>,
}

impl Agent {
    /// Run `calls` and append their results.
    pub(super) fn run_tools(
        &mut self,
        calls: &[ToolCall],
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<(), RunStop> {
        let mut stop = None;
        // A call through the deferred-tools proxy is judged and run as the tool it names.
        let calls: Vec<ToolCall> = calls
            .iter()
            .map(|call| {
                self.proxy
                    .as_ref()
                    .and_then(|proxy| proxy.unwrap(call))
                    .unwrap_or_else(|| call.clone())
            })
            .collect();
        let calls = calls.as_slice();
        for group in self.groups(calls) {
            let prepared: Vec<Prepared> = group
                .iter()
                .map(|call| {
                    if cancel.is_cancelled() {
                        return Prepared::Answered(CallFailure::Cancelled);
                    }
                    if super::plan::is_exit(call, self.tool(&call.name)) {
                        return self.exit_plan_mode(call, on_event);
                    }
                    match self.prepare(call, on_event) {
                        Ok(approved) => Prepared::Run(approved),
                        Err(failure) => {
                            if matches!(
                                failure,
                                CallFailure::Refused(_)
                                    | CallFailure::Denied { .. }
                                    | CallFailure::Intercepted { .. }
                            ) {
                                on_event(AgentEvent::PermissionDenied {
                                    id: call.id.clone(),
                                    name: call.name.clone(),
                                    arguments: call.arguments.clone(),
                                    reason: failure.to_string(),
                                });
                            }
                            Prepared::Answered(failure)
                        }
                    }
                })
                .collect();
            for (call, prep) in group.iter().zip(&prepared) {
                if let Prepared::Done(_) = prep {
                    on_event(AgentEvent::ToolStarted {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                    });
                }
                if let Prepared::Run(approved) = prep {
                    let kind = self.class(&call.name).map(|c| c.kind);
                    let preview = (self.write_previews || self.checkpoint.is_some())
                        .then(|| self.writer_preview(call, approved))
                        .flatten();
                    if let Some(kind) = kind {
                        self.checkpoint_call(kind, preview.as_ref(), on_event);
                    }
                    if self.write_previews
                        && let Some(Preview::Changes(changes)) = preview
                    {
                        on_event(AgentEvent::ToolPreview {
                            id: call.id.clone(),
                            changes,
                        });
                    }
                    on_event(AgentEvent::ToolStarted {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: approved.arguments.clone(),
                    });
                }
            }
            let outcomes = self.execute(&group, prepared, cancel, on_event);
            for (call, outcome) in group.iter().zip(outcomes) {
                let duration_ms = outcome.duration_ms;
                // What ran and what it returned, before any interceptor rewrites the result.
                if let Ok(text) = &outcome.result {
                    self.record_receipts(&call.name, &outcome.arguments, text);
                }
                let Finished {
                    mut output,
                    is_error,
                    mut raw,
                    images,
                } = self.after(call, outcome, on_event);
                bound(&mut output);
                if let Some(s) = self.guard(call, is_error, &mut output) {
                    stop.get_or_insert(s);
                }
                if !is_error
                    && self.class(&call.name).map(|c| c.kind) == Some(ToolKind::FileReader)
                    && let Some(earlier) =
                        super::unchanged::earlier_identical_result(&self.history, call, &output)
                {
                    output = super::unchanged::note(&call.name, &earlier, output.len());
                    raw = None;
                }
                on_event(AgentEvent::ToolFinished {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    is_error,
                    output: output.clone(),
                    duration_ms,
                });
                self.interceptors.release_held();
                let message = Message {
                    raw_content: raw,
                    images,
                    ..Message::tool_result(&call.id, output)
                };
                self.append(message, on_event);
            }
        }
        self.flush_evidence(on_event);
        match stop {
            Some(s) => Err(s),
            None => Ok(()),
        }
    }

    /// The calls of a step the model did not finish (its output limit or a content filter
    /// stopped it): none runs; each is answered with why, so the model can issue it again.
    pub(super) fn refuse_cut_off_calls(
        &mut self,
        calls: &[ToolCall],
        finish: crate::types::FinishReason,
        on_event: &mut dyn FnMut(AgentEvent),
    ) {
        let why = match finish {
            crate::types::FinishReason::ContentFilter => {
                "the provider's content filter stopped the model's output (finish_reason: content_filter)"
            }
            _ => "the model hit its output limit (finish_reason: length)",
        };
        on_event(AgentEvent::Notice(format!(
            "the model's tool calls were cut off: {why}; none of its {} call(s) ran, and the model was told so",
            calls.len()
        )));
        for call in calls {
            let content = format!(
                "error: not run: {why} before this call was complete, so its arguments may be cut short. Issue it again; split a long content into smaller calls."
            );
            self.append(Message::tool_result(&call.id, content), on_event);
        }
    }

    /// Consecutive read-only calls form one group (run together); every other call is a group
    /// of its own.
    fn groups<'c>(&self, calls: &'c [ToolCall]) -> Vec<Vec<&'c ToolCall>> {
        let mut groups: Vec<Vec<&ToolCall>> = Vec::new();
        let mut reading = false;
        for call in calls {
            let read_only = self.class(&call.name).is_some_and(|c| c.read_only);
            match groups.last_mut() {
                Some(group) if read_only && reading && group.len() < MAX_PARALLEL => {
                    group.push(call)
                }
                _ => groups.push(vec![call]),
            }
            reading = read_only;
        }
        groups
    }

    fn tool(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|t| t.spec().name == name)
    }

    fn class(&self, name: &str) -> Option<ToolClass> {
        self.classes.get(name).copied()
    }

    /// Resolve, parse, classify, `tool.before`, permission decision.
    fn prepare(
        &mut self,
        call: &ToolCall,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<Approved, CallFailure> {
        let Some(tool) = self.tool(&call.name).cloned() else {
            return Err(CallFailure::UnknownTool {
                name: call.name.clone(),
                available: self.specs.iter().map(|s| s.name.clone()).collect(),
            });
        };
        let parsed = parse_object(&call.name, &call.arguments)?;
        let class = self
            .class(&call.name)
            .unwrap_or_else(|| ToolClass::of(tool.spec(), tool.effects()));
        let before = ToolBefore {
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            call_id: call.id.clone(),
            session_id: self.session_id().map(str::to_string),
        };
        let (arguments, args) = match self.interceptors.dispatch_about(
            points::TOOL_BEFORE,
            Subject::Tool(&call.name),
            || before.clone(),
            |replaced| replaced.validate(&before),
        ) {
            Intercepted::Unchanged => (call.arguments.clone(), parsed),
            Intercepted::Replaced(replaced) => {
                on_event(AgentEvent::Notice(format!(
                    "an interceptor changed the arguments of `{}`",
                    call.name
                )));
                let args = parse_object(&call.name, &replaced.arguments)?;
                (replaced.arguments, args)
            }
            Intercepted::Blocked(stop) => {
                return Err(CallFailure::Intercepted {
                    tool: call.name.clone(),
                    stop,
                });
            }
        };
        // A call can reach further than its tool's read-only claim (`history` in global scope):
        // the permission decision and the interceptors see it as it is.
        let class = ToolClass {
            read_only: class.read_only && tool.wider_reach(&args).is_none(),
            ..class
        };
        let mut shown = None;
        let host = self.decide(tool.as_ref(), class, &call.id, &args, &mut shown);
        let approved_local = match host {
            Ok(_) => local_target(&Call {
                tool: &call.name,
                kind: class.kind,
                read_only: class.read_only,
                args: &args,
                workspace: &self.config.workspace,
                reach: None,
                own_rules: class.own_rules,
            }),
            Err(_) => None,
        };
        let may_write_protected = self.permission_point(call, &arguments, class, host, on_event)?;
        // A claimed sub-agent's writes stay inside its claim, whatever allowed them.
        if class.kind == ToolKind::FileWriter
            && let Some(claim) = self.delegator.as_ref().and_then(|d| d.claim.as_ref())
            && let Some(path) = claim.outside(&args, &self.config.workspace)
        {
            return Err(CallFailure::Refused(format!(
                "Refused: `{path}` is outside this sub-agent's write claim ({}). Change only the files the task claimed, or finish and say in your answer what else needs changing.",
                claim.describe()
            )));
        }
        Ok(Approved {
            tool,
            arguments,
            may_write_protected,
            approved_local,
            shown,
        })
    }

    /// `permission.decision`: interceptors see the host's decision and may allow or deny. An
    /// allow overrides a host deny only when no user said no: not an explicit `deny` rule, not
    /// the user's own answer, not a protected configuration file (the write itself stays
    /// refused). Every override is reported.
    fn permission_point(
        &self,
        call: &ToolCall,
        arguments: &str,
        class: ToolClass,
        host: Result<bool, CallFailure>,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<bool, CallFailure> {
        if !self.interceptors.listens(points::PERMISSION_DECISION) {
            return host;
        }
        let payload = PermissionDecision {
            name: call.name.clone(),
            arguments: arguments.to_string(),
            read_only: class.read_only,
            host_decision: if host.is_ok() {
                HostDecision::Allow
            } else {
                HostDecision::Deny
            },
            call_id: call.id.clone(),
            session_id: self.session_id().map(str::to_string),
        };
        match self.interceptors.decide(payload) {
            Verdict::Unchanged => host,
            Verdict::Deny(stop) => Err(CallFailure::Intercepted {
                tool: call.name.clone(),
                stop,
            }),
            Verdict::Allow { by } => match host {
                Ok(protected) => Ok(protected),
                Err(CallFailure::Refused(reason)) if !self.user_denied(&call.name, arguments) => {
                    on_event(AgentEvent::Notice(format!(
                        "plugin `{by}` allowed `{}`, which the permission rules refused ({reason})",
                        call.name
                    )));
                    Ok(false)
                }
                Err(failure) => Err(failure),
            },
        }
    }

    /// Whether an explicit `deny` rule or a protected path stands behind a refusal of `call`.
    fn user_denied(&self, tool: &str, arguments: &str) -> bool {
        let Some(class) = self.class(tool) else {
            return true;
        };
        let Ok(args) = serde_json::from_str::<serde_json::Value>(arguments) else {
            return true;
        };
        let verdict = self.config.policy.decide(&Call {
            tool,
            kind: class.kind,
            read_only: class.read_only,
            args: &args,
            workspace: &self.config.workspace,
            reach: None,
            own_rules: class.own_rules,
        });
        matches!(
            verdict.source,
            Source::Rule { list: "deny", .. } | Source::Protected { .. }
        )
    }

    /// The permission decision. `Ok(true)` when the call writes a configuration file of the
    /// workspace and the user explicitly allowed it (an answer, or `bypassPermissions`): only
    /// then does the host let the call write it.
    fn decide(
        &mut self,
        tool: &dyn Tool,
        class: ToolClass,
        call_id: &str,
        args: &serde_json::Value,
        shown: &mut Option<Preview>,
    ) -> Result<bool, CallFailure> {
        let spec = tool.spec();
        let reach = tool.wider_reach(args);
        let call = Call {
            tool: &spec.name,
            kind: class.kind,
            read_only: class.read_only,
            args,
            workspace: &self.config.workspace,
            reach: reach.as_deref(),
            own_rules: class.own_rules,
        };
        let verdict = self.config.policy.decide(&call);
        let protected = matches!(verdict.source, Source::Protected { .. });
        let posture = self.posture.get();
        let Some(approver) = self.approver.clone() else {
            return self
                .config
                .policy
                .resolve_verdict(&call, &verdict, posture)
                .map(|()| protected)
                .map_err(CallFailure::Refused);
        };
        if posture == Posture::Plan
            && !class.read_only
            && !matches!(verdict.source, Source::Rule { list: "deny", .. })
        {
            return Err(CallFailure::Refused(crate::permissions::plan_refusal(
                &spec.name,
            )));
        }
        let explicit_ask = verdict.needs_explicit_approval();
        match verdict.decision {
            // The headless path words a deny the same way and lets nothing else through.
            Decision::Deny => self
                .config
                .policy
                .resolve_verdict(&call, &verdict, Posture::Yolo)
                .map(|()| false)
                .map_err(CallFailure::Refused),
            Decision::Allow => Ok(false),
            Decision::Ask => {
                let posture_allows = match posture {
                    Posture::Yolo => true,
                    Posture::Auto => !explicit_ask,
                    Posture::AcceptEdits => !explicit_ask && class.kind == ToolKind::FileWriter,
                    Posture::Ask | Posture::DontAsk | Posture::Plan => false,
                };
                if posture_allows {
                    return Ok(protected);
                }
                if posture == Posture::DontAsk {
                    return self
                        .config
                        .policy
                        .resolve_verdict(&call, &verdict, Posture::DontAsk)
                        .map(|()| false)
                        .map_err(CallFailure::Refused);
                }
                let scopes = crate::permissions::suggested_scopes(&call);
                let preview = shown.insert(self.preview(tool, class, call_id, args));
                let request = ApprovalRequest {
                    call_id,
                    call: &call,
                    verdict: &verdict,
                    scopes: &scopes,
                    preview,
                    agent: self.label.as_deref(),
                    plan: None,
                };
                match approver.approve(&request) {
                    Approval::Once => Ok(protected),
                    Approval::Session(rule) | Approval::Persist(rule) => {
                        // Never wider than what the user was shown.
                        if scopes.contains(&rule)
                            && let Ok(rule) = Rule::parse(&rule)
                        {
                            self.config.policy.grant_for_session(rule);
                        }
                        Ok(protected)
                    }
                    Approval::Deny(note) => Err(CallFailure::Denied {
                        tool: spec.name.clone(),
                        note,
                    }),
                }
            }
        }
    }

    /// What a file writer about to run will change (`None` for other tools, or when its
    /// arguments do not parse); the same preview feeds `ToolPreview` and the checkpoint, and it
    /// is the one the user was shown when there was a question.
    fn writer_preview(&self, call: &ToolCall, approved: &Approved) -> Option<Preview> {
        let class = self.class(&call.name)?;
        if class.kind != ToolKind::FileWriter {
            return None;
        }
        if let Some(shown) = &approved.shown {
            return Some(shown.clone());
        }
        let args = serde_json::from_str::<serde_json::Value>(&approved.arguments).ok()?;
        Some(self.preview(approved.tool.as_ref(), class, &call.id, &args))
    }

    /// What a writer would change, for the approver. Readers and shell tools have no preview.
    fn preview(
        &self,
        tool: &dyn Tool,
        class: ToolClass,
        call_id: &str,
        args: &serde_json::Value,
    ) -> Preview {
        if class.kind != ToolKind::FileWriter {
            return Preview::None;
        }
        let context = ToolContext {
            call_id: call_id.to_string(),
            workspace: self.config.workspace.clone(),
            may_write_protected: false,
            approved_local: None,
            cancel: Default::default(),
            events: None,
            agents: None,
            evidence: None,
        };
        match tool.preview(&args.to_string(), &context) {
            Ok(changes) => Preview::Changes(changes),
            Err(e) => Preview::Unavailable(e.to_string()),
        }
    }

    /// Run the group's approved calls, each on its own thread, while this thread watches for
    /// cancellation: on Ctrl-C every process the plugins started is killed, so a foreground
    /// command the tool is waiting on returns at once.
    fn execute(
        &self,
        group: &[&ToolCall],
        prepared: Vec<Prepared>,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Vec<Outcome> {
        let workspace = &self.config.workspace;
        let evidence = &self.evidence;
        let catalog = self.registry.as_ref();
        let parent = prepared
            .iter()
            .any(|p| matches!(p, Prepared::Run(a) if a.tool.delegates()))
            .then(|| self.delegation_parent())
            .flatten();
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = std::sync::mpsc::channel::<Ran>();
            let mut running = 0usize;
            let handles: Vec<_> = group
                .iter()
                .zip(prepared)
                .map(|(call, p)| match p {
                    Prepared::Run(approved) => {
                        running += 1;
                        let done = done_tx.clone();
                        let reports = done_tx.clone();
                        let id = call.id.clone();
                        // The call's events, tagged with its id on their way to the run.
                        let sink = ToolEvents::new(move |event| match event {
                            ToolEvent::Progress { message, fraction } => {
                                let _ = reports.send(Ran::Progress {
                                    id: id.clone(),
                                    message,
                                    fraction,
                                });
                            }
                        });
                        let call_cancel = cancel.child();
                        let agents = match &parent {
                            Some(parent) if approved.tool.delegates() => {
                                let children = done_tx.clone();
                                Some(Delegation(Arc::new(ChildHost {
                                    parent: parent.clone(),
                                    call_id: call.id.clone(),
                                    cancel: call_cancel.clone(),
                                    events: Box::new(move |event| {
                                        let _ = children.send(Ran::Child(event));
                                    }),
                                    spend: self.child_spend.clone(),
                                })))
                            }
                            _ => None,
                        };
                        Ok(scope.spawn(move || {
                            let outcome = invoke(
                                call,
                                approved,
                                workspace,
                                sink,
                                call_cancel,
                                agents,
                                evidence.clone(),
                            );
                            let _ = done.send(Ran::Done);
                            outcome
                        }))
                    }
                    Prepared::Answered(failure) => Err(Err(failure)),
                    Prepared::Done(text) => Err(Ok(text)),
                })
                .collect();
            // Only the workers hold senders now: a worker that panics disconnects instead of
            // leaving this loop waiting.
            drop(done_tx);
            let mut stopped = false;
            while running > 0 {
                match done_rx.recv_timeout(CANCEL_POLL) {
                    Ok(Ran::Done) => running -= 1,
                    Ok(Ran::Child(event)) => on_event(event),
                    Ok(Ran::Progress {
                        id,
                        message,
                        fraction,
                    }) => on_event(AgentEvent::ToolProgress {
                        id,
                        message,
                        fraction,
                    }),
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                        if cancel.is_cancelled() && !stopped {
                            stopped = true;
                            // Only what this turn's calls started: another agent on the
                            // same registry keeps its processes.
                            catalog.stop_cancelled("cancelled by the user");
                        }
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            group
                .iter()
                .zip(handles)
                .map(|(call, h)| {
                    let answered = |result| Outcome {
                        arguments: call.arguments.clone(),
                        result,
                        images: Vec::new(),
                        duration_ms: 0,
                    };
                    match h {
                        Ok(handle) => handle
                            .join()
                            .unwrap_or_else(|_| answered(Err(CallFailure::Crashed))),
                        Err(result) => answered(result),
                    }
                })
                .collect()
        })
    }

    /// What this agent hands down to the children of a delegating call; `None` when it cannot
    /// delegate (no composition root gave it a delegator).
    fn delegation_parent(&self) -> Option<Arc<Parent>> {
        let delegator = self.delegator.clone()?;
        Some(Arc::new(Parent {
            config: self.config.clone(),
            posture: self.posture.clone(),
            approver: self.approver.clone(),
            catalog: self.registry.clone(),
            tools: self
                .tools
                .iter()
                .map(|t| {
                    let read_only =
                        !t.delegates() && self.class(&t.spec().name).is_some_and(|c| c.read_only);
                    (t.spec().name.clone(), read_only)
                })
                .collect(),
            session_id: self.session_id().map(str::to_string),
            model: format!("{}/{}", self.client.provider().name, self.client.model()),
            delegator,
            label: self.label.clone(),
            deadline: self.deadline,
            budget_left: self
                .budget
                .map(|b| b.usd - super::Budget::spent_usd(&self.spend)),
            strictness: self.evidence.0.strictness(),
        }))
    }

    /// `tool.after` over a call's result; returns the text the model reads, whether it is an
    /// error, the original result when an interceptor replaced it (bounded, redacted: the
    /// transcript keeps it, the provider never sees it) and the images that go with it. Only
    /// calls that ran are shown to interceptors.
    fn after(
        &self,
        call: &ToolCall,
        outcome: Outcome,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Finished {
        let ran = matches!(
            outcome.result,
            Ok(_) | Err(CallFailure::Tool(_) | CallFailure::Reported(_) | CallFailure::Crashed)
        );
        // Images come with what the tool returned, an error it reported included; a call that
        // could not run has none.
        let images_kept = matches!(outcome.result, Ok(_) | Err(CallFailure::Reported(_)));
        let (result, is_error) = match outcome.result {
            Ok(text) => (text, false),
            Err(failure) => (failure.to_string(), true),
        };
        let finished = |output, is_error, raw, images| Finished {
            output,
            is_error,
            raw,
            images,
        };
        if !ran {
            return finished(result, is_error, None, Vec::new());
        }
        let original = ToolAfter {
            name: call.name.clone(),
            arguments: outcome.arguments,
            result,
            is_error,
            call_id: call.id.clone(),
            session_id: self.session_id().map(str::to_string),
        };
        let validate = |replaced: &ToolAfter| replaced.validate(&original);
        // When the result will be shown through `frontend.event`, the instances serving this
        // point serve that one too: one store per interceptor per call.
        let intercepted = if self.interceptors.listens(points::FRONTEND_EVENT) {
            self.interceptors.dispatch_keeping(
                points::TOOL_AFTER,
                Subject::Tool(&call.name),
                &call.id,
                || original.clone(),
                validate,
            )
        } else {
            self.interceptors.dispatch_about(
                points::TOOL_AFTER,
                Subject::Tool(&call.name),
                || original.clone(),
                validate,
            )
        };
        match intercepted {
            Intercepted::Unchanged => {
                let images = if images_kept {
                    outcome.images
                } else {
                    Vec::new()
                };
                finished(original.result, original.is_error, None, images)
            }
            Intercepted::Replaced(replaced) => {
                on_event(AgentEvent::Notice(format!(
                    "an interceptor replaced the result of `{}`",
                    call.name
                )));
                // The original is kept for the user to read, so it is what the user may be
                // shown of it: through `frontend.event` (the redactor), none when hidden.
                let raw = (replaced.result != original.result)
                    .then(|| {
                        let mut raw = original.result;
                        bound_to(&mut raw, MAX_RAW_BYTES);
                        super::frontend::for_user(&self.interceptors, "raw_result", &call.id, raw)
                    })
                    .flatten()
                    .filter(|raw| *raw != replaced.result);
                finished(replaced.result, replaced.is_error, raw, Vec::new())
            }
            Intercepted::Blocked(stop) => {
                let text = format!(
                    "The result of `{}` was withheld: {}.",
                    call.name,
                    stop.describe()
                );
                on_event(AgentEvent::Notice(text.clone()));
                finished(text, true, None, Vec::new())
            }
        }
    }

    /// What a call that succeeded did, for the ledger: a command and its status, the files a
    /// writer changed or a reader read. Judged by the tool's kind (its spec), never its name.
    fn record_receipts(&self, tool: &str, arguments: &str, output: &str) {
        let Some(class) = self.class(tool) else {
            return;
        };
        let Ok(args) = serde_json::from_str::<serde_json::Value>(arguments) else {
            return;
        };
        let workspace = &self.config.workspace;
        let ledger = &self.evidence.0;
        match class.kind {
            ToolKind::Shell => {
                if let Some(command) = args.get("command").and_then(|c| c.as_str()) {
                    ledger.record(Receipt::Command {
                        command: command.trim().to_string(),
                        exit: reasonix_core::evidence::exit_status(output),
                    });
                }
            }
            ToolKind::FileWriter | ToolKind::FileReader => {
                let wrote = class.kind == ToolKind::FileWriter;
                for path in reasonix_rules::path_arguments(&args) {
                    let path = reasonix_core::evidence::absolute(workspace, path);
                    ledger.record(if wrote {
                        Receipt::Wrote { path }
                    } else {
                        Receipt::Read { path }
                    });
                }
            }
            ToolKind::Fetcher | ToolKind::Other => {}
        }
    }

    /// Write the ledger's new entries to the session, so a resumed session has them back.
    pub(super) fn flush_evidence(&mut self, on_event: &mut dyn FnMut(AgentEvent)) {
        let entries = self.evidence.0.take_journal();
        if entries.is_empty() {
            return;
        }
        if let Some(session) = &mut self.session
            && let Err(e) = session.evidence(entries)
        {
            on_event(AgentEvent::Notice(format!("session not saved: {e}")));
        }
    }

    /// Count identical failures; warn the model at [`REPEAT_WARNING`], stop at
    /// [`REPEAT_LIMIT`].
    fn guard(&mut self, call: &ToolCall, is_error: bool, output: &mut String) -> Option<RunStop> {
        let arguments = canonical_json(&call.arguments).unwrap_or_else(|_| call.arguments.clone());
        let key = (call.name.clone(), arguments);
        if !is_error {
            self.failures.remove(&key);
            return None;
        }
        let count = self.failures.entry(key).or_insert(0);
        *count += 1;
        if *count >= REPEAT_WARNING {
            output.push_str(&format!(
                "\n\nThis exact call has now failed {count} times. Do not repeat it unchanged: change the arguments, use another tool, or explain the problem to the user."
            ));
        }
        (*count >= REPEAT_LIMIT).then(|| RunStop::Repeating {
            tool: call.name.clone(),
            count: *count,
        })
    }
}

fn parse_object(tool: &str, arguments: &str) -> Result<serde_json::Value, CallFailure> {
    match serde_json::from_str(arguments) {
        Ok(value @ serde_json::Value::Object(_)) => Ok(value),
        Ok(_) => Err(CallFailure::NotAnObject {
            tool: tool.to_string(),
        }),
        Err(e) => Err(CallFailure::InvalidJson {
            tool: tool.to_string(),
            error: e.to_string(),
        }),
    }
}

/// What a call's thread tells the thread watching the group.
enum Ran {
    Done,
    /// A sub-agent's event (a delegating call).
    Child(AgentEvent),
    Progress {
        id: String,
        message: String,
        fraction: Option<f32>,
    },
}

fn invoke(
    call: &ToolCall,
    approved: Approved,
    workspace: &std::path::Path,
    events: ToolEvents,
    cancel: CancelToken,
    agents: Option<Delegation>,
    evidence: Evidence,
) -> Outcome {
    let started = Instant::now();
    let context = ToolContext {
        call_id: call.id.clone(),
        workspace: workspace.to_path_buf(),
        may_write_protected: approved.may_write_protected,
        approved_local: approved.approved_local,
        cancel,
        events: Some(events),
        agents,
        evidence: Some(evidence),
    };
    let (result, images) = match approved.tool.invoke_output(&approved.arguments, &context) {
        Ok(output) if output.is_error => (Err(CallFailure::Reported(output.text)), output.images),
        Ok(output) => (Ok(output.text), output.images),
        Err(e) => (Err(CallFailure::Tool(e)), Vec::new()),
    };
    Outcome {
        arguments: approved.arguments,
        result,
        images,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    }
}

/// Cut a result longer than [`MAX_RESULT_BYTES`] at a character boundary, saying so.
fn bound(output: &mut String) {
    bound_to(output, MAX_RESULT_BYTES);
}

/// Cut `output` to `max` bytes at a character boundary, saying so.
fn bound_to(output: &mut String, max: usize) {
    if output.len() <= max {
        return;
    }
    let total = output.len();
    let mut end = max;
    while !output.is_char_boundary(end) {
        end -= 1;
    }
    output.truncate(end);
    output.push_str(&format!(
        "\n\n[Reasonix cut this result at {end} of {total} bytes. Ask for less at a time (a narrower range, pattern or path).]"
    ));
}
