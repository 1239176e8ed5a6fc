//! Running the tool calls of one answer: permission gate, parallel groups of read-only calls,
//! writers one at a time in order, results in call order, and the loop guard.

use super::{Agent, AgentEvent, REPEAT_LIMIT, REPEAT_WARNING};
use crate::cancel::CancelToken;
use crate::permissions::{Approval, Call, Decision, Posture, Rule, Source, ToolKind};
use crate::tool::Tool;
use crate::types::{CallContext, Message, Role, ToolCall, canonical_json};
use std::sync::Arc;
use std::time::Instant;

/// The most read-only calls run at once.
const MAX_PARALLEL: usize = 8;
/// How often a running tool call checks for Ctrl-C.
const CANCEL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

fn invoke(
    call: &ToolCall,
    tool: &Arc<dyn Tool>,
    workspace: &std::path::Path,
    may_write_protected: bool,
) -> Outcome {
    let started = Instant::now();
    let context = CallContext {
        call_id: call.id.clone(),
        workspace: workspace.to_path_buf(),
        may_write_protected,
    };
    let (output, is_error) = match tool.invoke(&call.arguments, &context, None) {
        Ok(output) => (output, false),
        Err(e) => (format!("Error: {e}"), true),
    };
    Outcome {
        output,
        is_error,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    }
}

/// A call ready to run (with whether the user explicitly allowed its write to a configuration
/// file), or already answered (refused, malformed, unknown).
enum Prepared {
    Run(Arc<dyn Tool>, bool),
    Answered(String),
}

/// What one call produced.
struct Outcome {
    output: String,
    is_error: bool,
    duration_ms: u64,
}

impl Agent<'_> {
    /// Run `calls` and append their results. `Err` when the loop guard stops the run.
    pub(super) fn run_tools(
        &mut self,
        calls: &[ToolCall],
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<(), String> {
        let mut stuck = None;
        for group in self.groups(calls) {
            let prepared: Vec<Prepared> = group
                .iter()
                .map(|call| {
                    if cancel.is_cancelled() {
                        return Prepared::Answered(
                            "Cancelled: the user stopped the run before this call ran.".into(),
                        );
                    }
                    self.prepare(call, on_event)
                })
                .collect();
            for (call, prep) in group.iter().zip(&prepared) {
                if let Prepared::Run(..) = prep {
                    on_event(AgentEvent::ToolStarted {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                    });
                }
            }
            let outcomes = self.execute(&group, prepared, cancel);
            for (call, mut outcome) in group.iter().zip(outcomes) {
                if let Some(message) = self.guard(call, &mut outcome) {
                    stuck.get_or_insert(message);
                }
                on_event(AgentEvent::ToolFinished {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    is_error: outcome.is_error,
                    output: outcome.output.clone(),
                    duration_ms: outcome.duration_ms,
                });
                let message = Message {
                    role: Role::Tool,
                    content: outcome.output,
                    reasoning: None,
                    reasoning_state: None,
                    tool_calls: vec![],
                    tool_call_id: Some(call.id.clone()),
                };
                self.append(message, on_event);
            }
        }
        match stuck {
            Some(message) => Err(message),
            None => Ok(()),
        }
    }

    /// Consecutive read-only calls form one group (run together); every other call is a group
    /// of its own.
    fn groups<'c>(&self, calls: &'c [ToolCall]) -> Vec<Vec<&'c ToolCall>> {
        let mut groups: Vec<Vec<&ToolCall>> = Vec::new();
        let mut reading = false;
        for call in calls {
            let read_only = self.tool(&call.name).is_some_and(|t| t.spec().read_only);
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

    /// Check the call: the tool exists, the arguments are a JSON object, permissions allow it.
    fn prepare(&mut self, call: &ToolCall, on_event: &mut dyn FnMut(AgentEvent)) -> Prepared {
        let Some(tool) = self.tool(&call.name).cloned() else {
            let names: Vec<&str> = self.specs.iter().map(|s| s.name.as_str()).collect();
            return Prepared::Answered(format!(
                "Error: there is no tool `{}`. Available tools: {}.",
                call.name,
                names.join(", ")
            ));
        };
        let args: serde_json::Value = match serde_json::from_str(&call.arguments) {
            Ok(value @ serde_json::Value::Object(_)) => value,
            Ok(_) => {
                return Prepared::Answered(format!(
                    "Error: the arguments of `{}` must be a JSON object. Send the call again with an object matching its schema.",
                    call.name
                ));
            }
            Err(e) => {
                return Prepared::Answered(format!(
                    "Error: the arguments of `{}` are not valid JSON ({e}); your output was probably cut off. Send the call again with complete JSON arguments, or split the work into smaller calls.",
                    call.name
                ));
            }
        };
        match self.gate(tool.as_ref(), &args) {
            Ok(may_write_protected) => Prepared::Run(tool, may_write_protected),
            Err(refusal) => {
                on_event(AgentEvent::Notice(format!(
                    "`{}` not run: {refusal}",
                    call.name
                )));
                Prepared::Answered(refusal)
            }
        }
    }

    /// The permission decision; `Err` holds the message for the model. `Ok(true)` when the
    /// call writes a configuration file of the workspace and the user explicitly allowed it
    /// (an answer, or `bypassPermissions`): only then does the host let the call write it.
    fn gate(&mut self, tool: &dyn Tool, args: &serde_json::Value) -> Result<bool, String> {
        let spec = tool.spec();
        let kind = self
            .kinds
            .get(&spec.name)
            .copied()
            .unwrap_or_else(|| ToolKind::of(spec));
        let call = Call {
            tool: &spec.name,
            kind,
            read_only: spec.read_only,
            args,
            workspace: &self.config.workspace,
        };
        let verdict = self.config.policy.decide(&call);
        let protected = matches!(verdict.source, Source::Protected { .. });
        let Some(approver) = self.approver.clone() else {
            return self
                .config
                .policy
                .resolve_verdict(&call, &verdict, self.config.posture)
                .map(|()| protected);
        };
        let explicit_ask = verdict.needs_explicit_approval();
        match verdict.decision {
            // The headless path words a deny the same way and lets nothing else through.
            Decision::Deny => self
                .config
                .policy
                .resolve_verdict(&call, &verdict, Posture::Yolo)
                .map(|()| false),
            Decision::Allow => Ok(false),
            Decision::Ask => {
                let posture_allows = match self.config.posture {
                    Posture::Yolo => true,
                    Posture::Auto => !explicit_ask,
                    Posture::AcceptEdits => !explicit_ask && call.kind == ToolKind::FileWriter,
                    Posture::Ask | Posture::DontAsk => false,
                };
                if posture_allows {
                    return Ok(protected);
                }
                if self.config.posture == Posture::DontAsk {
                    return self
                        .config
                        .policy
                        .resolve_verdict(&call, &verdict, Posture::DontAsk)
                        .map(|()| false);
                }
                let scopes = crate::permissions::suggested_scopes(&call);
                match approver.approve(&call, &verdict, &scopes) {
                    Approval::Once => Ok(protected),
                    Approval::Session(rule) | Approval::Persist(rule) => {
                        if let Ok(rule) = Rule::parse(&rule) {
                            self.config.policy.grant_for_session(rule);
                        }
                        Ok(protected)
                    }
                    Approval::Deny => Err(format!(
                        "The user denied `{}`. Do not retry it; ask the user how to proceed or take another approach.",
                        spec.name
                    )),
                }
            }
        }
    }

    /// Run the group's runnable calls, each on its own thread, while this thread watches for
    /// cancellation: on Ctrl-C every process the plugins started is killed, so a foreground
    /// command the tool is waiting on returns at once.
    fn execute(
        &self,
        group: &[&ToolCall],
        prepared: Vec<Prepared>,
        cancel: &CancelToken,
    ) -> Vec<Outcome> {
        let workspace = &self.config.workspace;
        let registry = self.registry;
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
            let mut running = 0usize;
            let handles: Vec<_> = group
                .iter()
                .zip(prepared)
                .map(|(call, p)| match p {
                    Prepared::Run(tool, may_write_protected) => {
                        running += 1;
                        let done = done_tx.clone();
                        Ok(scope.spawn(move || {
                            let outcome = invoke(call, &tool, workspace, may_write_protected);
                            let _ = done.send(());
                            outcome
                        }))
                    }
                    Prepared::Answered(text) => Err(Outcome {
                        output: text,
                        is_error: true,
                        duration_ms: 0,
                    }),
                })
                .collect();
            // Only the workers hold senders now: a worker that panics disconnects instead of
            // leaving this loop waiting.
            drop(done_tx);
            let mut stopped = false;
            while running > 0 {
                match done_rx.recv_timeout(CANCEL_POLL) {
                    Ok(()) => running -= 1,
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                        if cancel.is_cancelled() && !stopped {
                            stopped = true;
                            registry.stop_processes("cancelled by the user");
                        }
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            handles
                .into_iter()
                .map(|h| match h {
                    Ok(handle) => handle.join().unwrap_or_else(|_| Outcome {
                        output: "Error: the tool call failed unexpectedly".into(),
                        is_error: true,
                        duration_ms: 0,
                    }),
                    Err(outcome) => outcome,
                })
                .collect()
        })
    }

    /// Count identical failures; warn the model at [`REPEAT_WARNING`], stop at
    /// [`REPEAT_LIMIT`] (returns the reason to stop).
    fn guard(&mut self, call: &ToolCall, outcome: &mut Outcome) -> Option<String> {
        let arguments = canonical_json(&call.arguments).unwrap_or_else(|_| call.arguments.clone());
        let key = (call.name.clone(), arguments);
        if !outcome.is_error {
            self.failures.remove(&key);
            return None;
        }
        let count = self.failures.entry(key).or_insert(0);
        *count += 1;
        if *count >= REPEAT_WARNING {
            outcome.output.push_str(&format!(
                "\n\nThis exact call has now failed {count} times. Do not repeat it unchanged: change the arguments, use another tool, or explain the problem to the user."
            ));
        }
        (*count >= REPEAT_LIMIT).then(|| {
            format!(
                "stopped: the model repeated the same failing `{}` call {count} times",
                call.name
            )
        })
    }
}
