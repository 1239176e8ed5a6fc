//! The agent loop and its tool pipeline against in-memory fakes: a scripted provider, tools
//! that record their calls, interceptors that block or replace, an approver that answers from
//! a script. No WebAssembly engine is involved.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::catalog::Catalog;
use crate::config::Config;
use crate::error::CallError;
use crate::interceptor::Interceptor;
use crate::permissions::{Approval, Preview, Rule, ScriptedApprover};
use crate::provider::{CompletionStream, Endpoint, Provider};
use crate::providers::resolve_providers;
use crate::tool::Effects;
use crate::types::{
    ChangeKind, CompletionRequest, Decision, FileChange, Image, ModelProfile, ProfileRequest,
    ProviderKind, StreamEvent, Subscription, ToolContext, ToolOutput,
};
use std::sync::Mutex;

// ---------------------------------------------------------------- fakes

/// A tool that records what it was called with and answers with a fixed text.
struct FakeTool {
    spec: ToolSpec,
    effects: Effects,
    answer: Result<String, String>,
    /// What `invoke_output` returns instead of `answer`, images and `is_error` included.
    output: Option<ToolOutput>,
    calls: Mutex<Vec<(String, bool)>>,
    previews: Mutex<u32>,
}

impl FakeTool {
    fn new(name: &str, parameters: &str, read_only: bool, effects: Effects) -> Arc<FakeTool> {
        Arc::new(FakeTool {
            spec: ToolSpec {
                name: name.into(),
                description: format!("the {name} tool"),
                parameters: parameters.into(),
                read_only,
                guidance: None,
            },
            effects,
            answer: Ok(format!("{name} done")),
            output: None,
            calls: Mutex::new(Vec::new()),
            previews: Mutex::new(0),
        })
    }

    fn answering(mut self: Arc<Self>, answer: Result<String, String>) -> Arc<FakeTool> {
        Arc::get_mut(&mut self).unwrap().answer = answer;
        self
    }

    fn returning(mut self: Arc<Self>, output: ToolOutput) -> Arc<FakeTool> {
        Arc::get_mut(&mut self).unwrap().output = Some(output);
        self
    }

    /// The arguments of every call, with whether it could write protected files.
    fn calls(&self) -> Vec<(String, bool)> {
        self.calls.lock().unwrap().clone()
    }
}

impl Tool for FakeTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn source(&self) -> &str {
        "fake"
    }
    fn effects(&self) -> Effects {
        self.effects
    }
    fn invoke(&self, arguments: &str, context: &ToolContext) -> Result<String, CallError> {
        self.calls
            .lock()
            .unwrap()
            .push((arguments.to_string(), context.may_write_protected));
        self.answer
            .clone()
            .map_err(|e| CallError::Plugin(crate::error::PluginError::InvalidInput(e)))
    }
    fn invoke_output(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<ToolOutput, CallError> {
        match &self.output {
            Some(output) => {
                self.invoke(arguments, context)?;
                Ok(output.clone())
            }
            None => self.invoke(arguments, context).map(ToolOutput::from),
        }
    }
    /// A call with `"wide": true` reaches past the read-only claim (like `history` in global
    /// scope).
    fn wider_reach(&self, arguments: &serde_json::Value) -> Option<String> {
        (arguments.get("wide") == Some(&serde_json::Value::Bool(true)))
            .then(|| "a wide peek looks further".to_string())
    }
    fn preview(
        &self,
        arguments: &str,
        context: &ToolContext,
    ) -> Result<Vec<FileChange>, CallError> {
        *self.previews.lock().unwrap() += 1;
        let args: serde_json::Value = serde_json::from_str(arguments).unwrap();
        Ok(vec![FileChange {
            path: context
                .workspace
                .join(args["path"].as_str().unwrap_or(""))
                .display()
                .to_string(),
            kind: ChangeKind::Create,
            old_text: None,
            new_text: Some("new".into()),
        }])
    }
}

/// Answers every request with the next scripted batch of events; records the requests.
struct FakeProvider {
    kind: ProviderKind,
    answers: Mutex<Vec<Vec<StreamEvent>>>,
    requests: Mutex<Vec<CompletionRequest>>,
}

struct FakeStream(Vec<StreamEvent>);

impl CompletionStream for FakeStream {
    fn next(&mut self) -> Result<Vec<StreamEvent>, CallError> {
        Ok(std::mem::take(&mut self.0))
    }
}

impl Provider for FakeProvider {
    fn kind(&self) -> &ProviderKind {
        &self.kind
    }
    fn source(&self) -> &str {
        "fake"
    }
    fn profile(&self, _request: &ProfileRequest) -> Result<ModelProfile, CallError> {
        Ok(ModelProfile {
            reasoning_protocol: "none".into(),
            effort_levels: vec!["auto".into()],
            stall_timeout_ms: 5_000,
            images: false,
        })
    }
    fn open(
        &self,
        request: &CompletionRequest,
        _endpoint: Endpoint,
    ) -> Result<Box<dyn CompletionStream>, CallError> {
        self.requests.lock().unwrap().push(request.clone());
        let mut answers = self.answers.lock().unwrap();
        let events = if answers.is_empty() {
            vec![
                StreamEvent::Text("done".into()),
                StreamEvent::Done(FinishReason::Stop),
            ]
        } else {
            answers.remove(0)
        };
        Ok(Box::new(FakeStream(events)))
    }
}

/// Blocks, replaces or fails at its points, per a closure.
struct FakeInterceptor {
    name: String,
    subs: Vec<Subscription>,
    slots: Vec<String>,
    #[allow(clippy::type_complexity)]
    decide: Box<dyn Fn(&str, &serde_json::Value) -> Result<Decision, CallError> + Send + Sync>,
    seen: Mutex<Vec<(String, serde_json::Value)>>,
}

impl FakeInterceptor {
    fn new(
        name: &str,
        points: &[(&str, i32)],
        decide: impl Fn(&str, &serde_json::Value) -> Result<Decision, CallError> + Send + Sync + 'static,
    ) -> Arc<FakeInterceptor> {
        Arc::new(FakeInterceptor {
            name: name.into(),
            subs: points
                .iter()
                .map(|(p, priority)| Subscription {
                    point: p.to_string(),
                    priority: *priority,
                })
                .collect(),
            slots: Vec::new(),
            decide: Box::new(decide),
            seen: Mutex::new(Vec::new()),
        })
    }

    /// One that owns `slots` (and subscribes to nothing unless `points` says so).
    fn owner(
        name: &str,
        points: &[(&str, i32)],
        slots: &[&str],
        decide: impl Fn(&str, &serde_json::Value) -> Result<Decision, CallError> + Send + Sync + 'static,
    ) -> Arc<FakeInterceptor> {
        let mut fake = FakeInterceptor::new(name, points, decide);
        if let Some(f) = Arc::get_mut(&mut fake) {
            f.slots = slots.iter().map(|s| s.to_string()).collect();
        }
        fake
    }

    fn points_seen(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }
}

impl Interceptor for FakeInterceptor {
    fn source(&self) -> &str {
        &self.name
    }
    fn points(&self) -> &[Subscription] {
        &self.subs
    }
    fn slots(&self) -> &[String] {
        &self.slots
    }
    fn intercept(&self, point: &str, payload: &str) -> Result<Decision, CallError> {
        let value: serde_json::Value = serde_json::from_str(payload).unwrap();
        self.seen
            .lock()
            .unwrap()
            .push((point.to_string(), value.clone()));
        (self.decide)(point, &value)
    }
}

#[derive(Default)]
struct FakeCatalog {
    tools: Vec<Arc<dyn Tool>>,
    interceptors: Vec<Arc<dyn Interceptor>>,
}

impl Catalog for FakeCatalog {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.clone()
    }
    fn provider(&self, _kind: &str) -> Option<Arc<dyn Provider>> {
        None
    }
    fn provider_kinds(&self) -> Vec<String> {
        vec!["fake".into()]
    }
    fn interceptors(&self) -> Vec<Arc<dyn Interceptor>> {
        self.interceptors.clone()
    }
    fn stop_processes(&self, _reason: &str) {}
}

// ---------------------------------------------------------------- harness

const NO_EFFECTS: Effects = Effects {
    runs_commands: false,
    writes_workspace: false,
    fetches: false,
    external: false,
};
const PROCESS: Effects = Effects {
    runs_commands: true,
    writes_workspace: true,
    fetches: false,
    external: false,
};
const WRITES: Effects = Effects {
    runs_commands: false,
    writes_workspace: true,
    fetches: false,
    external: false,
};
const PATH_SCHEMA: &str = r#"{"properties":{"path":{"type":"string"}},"type":"object"}"#;
const TEXT_SCHEMA: &str = r#"{"properties":{"text":{"type":"string"}},"type":"object"}"#;
const COMMAND_SCHEMA: &str = r#"{"properties":{"command":{"type":"string"}},"type":"object"}"#;

fn call(id: &str, name: &str, arguments: serde_json::Value) -> StreamEvent {
    StreamEvent::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.to_string(),
    })
}

fn answer(events: Vec<StreamEvent>) -> Vec<StreamEvent> {
    let mut events = events;
    events.push(StreamEvent::Done(FinishReason::ToolCalls));
    events
}

struct Harness {
    catalog: &'static FakeCatalog,
    provider: Arc<FakeProvider>,
    workspace: tempfile::TempDir,
}

impl Harness {
    fn new(
        tools: Vec<Arc<dyn Tool>>,
        interceptors: Vec<Arc<dyn Interceptor>>,
        script: Vec<Vec<StreamEvent>>,
    ) -> Harness {
        // Leaked: the agent borrows the catalog for its whole life, and each test makes one.
        let catalog: &'static FakeCatalog = Box::leak(Box::new(FakeCatalog {
            tools,
            interceptors,
        }));
        Harness {
            catalog,
            provider: Arc::new(FakeProvider {
                kind: ProviderKind {
                    name: "fake".into(),
                    description: String::new(),
                    credential_header: "authorization".into(),
                    credential_prefix: "Bearer ".into(),
                },
                answers: Mutex::new(script),
                requests: Mutex::new(Vec::new()),
            }),
            workspace: tempfile::tempdir().unwrap(),
        }
    }

    fn client(&self) -> ProviderClient {
        let config = Config::parse(
            std::path::Path::new("reasonix.toml"),
            "default_model = \"fake\"\n[[providers]]\nname = \"fake\"\nkind = \"fake\"\nbase_url = \"http://127.0.0.1:9\"\nmodels = [\"m\"]\n",
        )
        .unwrap();
        let providers = resolve_providers(&config).unwrap();
        ProviderClient::with_secret(
            providers[0].clone(),
            "m".into(),
            self.provider.clone(),
            None,
            None,
        )
        .unwrap()
    }

    fn agent_config(&self, posture: Posture, policy: Policy) -> AgentConfig {
        AgentConfig {
            workspace: self.workspace.path().to_path_buf(),
            system_prompt: "system".into(),
            append_system_prompt: None,
            max_steps: 10,
            posture,
            policy,
            effort: None,
            max_output_tokens: None,
            enabled_tools: None,
            compaction: Default::default(),
            mcp_schema_budget: crate::agent_loop::deferred::DEFAULT_BUDGET,
        }
    }

    fn agent(&self, posture: Posture, policy: Policy) -> Agent {
        Agent::new(
            Arc::new(self.catalog),
            self.client(),
            self.agent_config(posture, policy),
        )
        .unwrap()
    }

    fn run(&self, agent: &mut Agent) -> (RunOutcome, Vec<AgentEvent>) {
        let mut events = Vec::new();
        let outcome = agent.run("do it", &CancelToken::new(), &mut |e| events.push(e));
        (outcome, events)
    }

    /// What the model was told about call `id` (the tool message in the last request).
    fn result_of(&self, id: &str) -> String {
        let requests = self.provider.requests.lock().unwrap();
        let last = requests.last().expect("a request was made");
        last.messages
            .iter()
            .find(|m| m.tool_call_id.as_deref() == Some(id))
            .map(|m| m.content.clone())
            .unwrap_or_else(|| panic!("no result for {id}"))
    }
}

fn policy(allow: &[&str], ask: &[&str], deny: &[&str]) -> Policy {
    let rules = |list: &[&str]| list.iter().map(|r| Rule::parse(r).unwrap()).collect();
    Policy {
        allow: rules(allow),
        ask: rules(ask),
        deny: rules(deny),
        ..Policy::default()
    }
}

// ---------------------------------------------------------------- permissions matrix

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdicts {
    /// An `allow` rule matches.
    Allowed,
    /// No rule: a writer falls back to asking.
    Fallback,
    /// An `ask` rule matches: only an explicit answer resolves it.
    AskRule,
    /// The writer targets a configuration file of the workspace.
    Protected,
    /// A `deny` rule matches.
    Denied,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Headless,
    Once,
    Session,
    No,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Runs without asking (`true`: with permission to write protected files).
    Runs(bool),
    /// The approver is asked and its answer decides.
    Asks,
    /// Refused without asking.
    Refused,
}

/// The contract, written out case by case (ARCHITECTURE §4, docs/RUN.md): what each posture
/// does with each verdict when a front end can ask.
fn expected(verdict: Verdicts, posture: Posture) -> Expect {
    use Expect::*;
    use Posture::*;
    use Verdicts::*;
    match (verdict, posture) {
        (Denied, _) => Refused,
        // Plan mode changes nothing, whatever allows it.
        (_, Plan) => Refused,
        (Allowed, _) => Runs(false),
        (Fallback, Yolo | Auto | AcceptEdits) => Runs(false),
        (Fallback, Ask) => Asks,
        (Fallback, DontAsk) => Refused,
        (AskRule, Yolo) => Runs(false),
        (AskRule, Auto | AcceptEdits | Ask) => Asks,
        (AskRule, DontAsk) => Refused,
        (Protected, Yolo) => Runs(true),
        (Protected, Auto | AcceptEdits | Ask) => Asks,
        (Protected, DontAsk) => Refused,
    }
}

#[test]
fn every_posture_verdict_and_answer() {
    let postures = [
        Posture::Ask,
        Posture::AcceptEdits,
        Posture::Auto,
        Posture::DontAsk,
        Posture::Yolo,
        Posture::Plan,
    ];
    let verdicts = [
        Verdicts::Allowed,
        Verdicts::Fallback,
        Verdicts::AskRule,
        Verdicts::Protected,
        Verdicts::Denied,
    ];
    let answers = [Answer::Headless, Answer::Once, Answer::Session, Answer::No];
    let mut checked = 0;
    for verdict in verdicts {
        for posture in postures {
            for answer in answers {
                let tool = FakeTool::new("writer", PATH_SCHEMA, false, WRITES);
                let path = if verdict == Verdicts::Protected {
                    "reasonix.toml"
                } else {
                    "notes.txt"
                };
                let rules = match verdict {
                    Verdicts::Allowed => policy(&["Edit(notes.txt)"], &[], &[]),
                    Verdicts::AskRule => policy(&[], &["Edit(notes.txt)"], &[]),
                    Verdicts::Denied => policy(&[], &[], &["Edit(notes.txt)"]),
                    Verdicts::Fallback | Verdicts::Protected => policy(&[], &[], &[]),
                };
                let script = vec![
                    answer_events(&[("c1", "writer", path)]),
                    answer_events(&[("c2", "writer", path)]),
                ];
                let h = Harness::new(vec![tool.clone()], vec![], script);
                let approver = Arc::new(match answer {
                    Answer::Headless | Answer::Once => ScriptedApprover::always(Approval::Once),
                    Answer::Session => ScriptedApprover::new(
                        [Approval::Session(format!("Edit({path})"))],
                        Approval::Deny(None),
                    ),
                    Answer::No => {
                        ScriptedApprover::always(Approval::Deny(Some("use the other file".into())))
                    }
                });
                let mut agent = h.agent(posture, rules);
                if answer != Answer::Headless {
                    agent = agent.with_approver(approver.clone());
                }
                let (outcome, _) = h.run(&mut agent);
                let case = format!("{verdict:?} × {posture:?} × {answer:?}");
                assert_eq!(outcome.status, RunStatus::Success, "{case}");
                let calls = tool.calls();
                let asked = approver.asked();
                let first = h.result_of("c1");
                match (expected(verdict, posture), answer) {
                    (Expect::Runs(protected), _) => {
                        assert_eq!(calls.len(), 2, "{case}: both calls run");
                        assert!(calls.iter().all(|(_, p)| *p == protected), "{case}");
                        assert!(asked.is_empty(), "{case}: nobody is asked");
                    }
                    (Expect::Refused, _) => {
                        assert!(calls.is_empty(), "{case}: refused");
                        assert!(asked.is_empty(), "{case}: refused without asking");
                        assert!(
                            first.starts_with("Blocked")
                                || first.starts_with("Permission needed")
                                || (posture == Posture::Plan && first.starts_with("Plan mode:")),
                            "{case}: {first}"
                        );
                    }
                    (Expect::Asks, Answer::Headless) => {
                        assert!(calls.is_empty(), "{case}: a headless run cannot ask");
                        assert!(first.starts_with("Permission needed"), "{case}: {first}");
                    }
                    (Expect::Asks, Answer::Once) => {
                        assert_eq!(calls.len(), 2, "{case}");
                        assert_eq!(asked.len(), 2, "{case}: asked for each call");
                        let protected = verdict == Verdicts::Protected;
                        assert!(calls.iter().all(|(_, p)| *p == protected), "{case}");
                    }
                    (Expect::Asks, Answer::Session) => {
                        // A session grant covers the second call, except where only an
                        // explicit answer will do (an `ask` rule, a protected file): there
                        // the second question gets the fallback answer, no.
                        let explicit = matches!(verdict, Verdicts::AskRule | Verdicts::Protected);
                        if explicit {
                            assert_eq!(asked.len(), 2, "{case}");
                            assert_eq!(calls.len(), 1, "{case}");
                        } else {
                            assert_eq!(asked.len(), 1, "{case}: the grant covers the rest");
                            assert_eq!(calls.len(), 2, "{case}");
                        }
                    }
                    (Expect::Asks, Answer::No) => {
                        assert!(calls.is_empty(), "{case}");
                        assert_eq!(asked.len(), 2, "{case}");
                        assert!(first.starts_with("The user denied `writer`"), "{case}");
                        assert!(first.contains("use the other file"), "{case}: the note");
                    }
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 5 * 6 * 4);
}

fn answer_events(calls: &[(&str, &str, &str)]) -> Vec<StreamEvent> {
    answer(
        calls
            .iter()
            .map(|(id, tool, path)| call(id, tool, serde_json::json!({ "path": path })))
            .collect(),
    )
}

#[test]
fn the_approver_sees_the_writers_preview_and_never_grants_wider_than_shown() {
    let writer = FakeTool::new("writer", PATH_SCHEMA, false, WRITES);
    let script = vec![
        answer_events(&[("c1", "writer", "a.txt")]),
        answer_events(&[("c2", "writer", "b.txt")]),
    ];
    let h = Harness::new(vec![writer.clone()], vec![], script);
    // "Edit" is wider than anything the question showed: it is not granted.
    let approver = Arc::new(ScriptedApprover::new(
        [Approval::Session("Edit".into())],
        Approval::Once,
    ));
    let mut agent = h
        .agent(Posture::Ask, Policy::default())
        .with_approver(approver.clone());
    h.run(&mut agent);
    let asked = approver.asked();
    assert_eq!(asked.len(), 2, "the too-wide grant did not cover b.txt");
    assert_eq!(asked[0].scopes, vec!["Edit(a.txt)".to_string()]);
    match &asked[0].preview {
        Preview::Changes(changes) => {
            assert_eq!(changes.len(), 1);
            assert!(changes[0].path.ends_with("a.txt"));
        }
        other => panic!("expected a preview, got {other:?}"),
    }
    assert_eq!(*writer.previews.lock().unwrap(), 2);
}

#[test]
fn an_asked_write_computes_its_preview_once() {
    let writer = FakeTool::new("writer", PATH_SCHEMA, false, WRITES);
    let script = vec![answer_events(&[("c1", "writer", "a.txt")])];
    let h = Harness::new(vec![writer.clone()], vec![], script);
    let approver = Arc::new(ScriptedApprover::always(Approval::Once));
    let mut agent = h
        .agent(Posture::Ask, Policy::default())
        .with_write_previews()
        .with_approver(approver.clone());
    let (_, events) = h.run(&mut agent);
    assert_eq!(approver.asked().len(), 1);
    // The question, the diff card and the call: the edit logic ran once before the call.
    assert_eq!(*writer.previews.lock().unwrap(), 1);
    let card = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolPreview { changes, .. } => Some(changes.clone()),
            _ => None,
        })
        .expect("a diff card");
    assert_eq!(Preview::Changes(card), approver.asked()[0].preview);
    assert_eq!(writer.calls().len(), 1);
}

#[test]
fn a_read_only_claim_needs_a_grant_that_backs_it() {
    for (effects, runs) in [(NO_EFFECTS, true), (PROCESS, false)] {
        let tool = FakeTool::new("peek", TEXT_SCHEMA, true, effects);
        let script = vec![answer(vec![call(
            "c1",
            "peek",
            serde_json::json!({"text": "x"}),
        )])];
        let h = Harness::new(vec![tool.clone()], vec![], script);
        let mut agent = h.agent(Posture::Ask, Policy::default());
        h.run(&mut agent);
        assert_eq!(tool.calls().len(), usize::from(runs), "{effects:?}");
        if !runs {
            let result = h.result_of("c1");
            assert!(result.starts_with("Permission needed"), "{result}");
            // The suggested rule names the tool, not every shell tool.
            assert!(result.contains("--allowed-tools 'peek'"), "{result}");
        }
    }
}

#[test]
fn a_call_reaching_past_the_read_only_claim_is_decided_like_a_writer() {
    for (posture, allow, wide_runs) in [
        (Posture::Ask, &[][..], false),
        (Posture::AcceptEdits, &[][..], false),
        (Posture::Auto, &[][..], true),
        (Posture::Ask, &["peek"][..], true),
    ] {
        let tool = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS);
        let script = vec![answer(vec![
            call("narrow", "peek", serde_json::json!({"text": "x"})),
            call(
                "wide",
                "peek",
                serde_json::json!({"text": "x", "wide": true}),
            ),
        ])];
        let h = Harness::new(vec![tool.clone()], vec![], script);
        let mut agent = h.agent(posture, policy(allow, &[], &[]));
        h.run(&mut agent);
        // The narrow call is a reader whatever the posture.
        assert_eq!(
            tool.calls().len(),
            1 + usize::from(wide_runs),
            "{posture:?} {allow:?}"
        );
        if !wide_runs {
            let result = h.result_of("wide");
            assert!(result.starts_with("Permission needed"), "{result}");
        }
    }
}

#[test]
fn a_shell_class_tool_is_covered_by_bash_rules() {
    let tool = FakeTool::new("peek", TEXT_SCHEMA, true, PROCESS);
    let script = vec![answer(vec![call(
        "c1",
        "peek",
        serde_json::json!({"text": "x"}),
    )])];
    let h = Harness::new(vec![tool.clone()], vec![], script);
    let mut agent = h.agent(Posture::Ask, policy(&[], &[], &["Bash"]));
    h.run(&mut agent);
    assert!(tool.calls().is_empty());
    assert!(h.result_of("c1").contains("denied by the rule `Bash`"));
}

// ---------------------------------------------------------------- interceptors

fn shell_tool() -> Arc<FakeTool> {
    FakeTool::new("sh", COMMAND_SCHEMA, false, PROCESS)
}

#[test]
fn tool_before_blocks_in_priority_order_and_the_tool_never_runs() {
    let tool = shell_tool();
    let late = FakeInterceptor::new("late", &[("tool.before", 10)], |_, _| {
        Ok(Decision::Block("late says no".into()))
    });
    let early = FakeInterceptor::new("early", &[("tool.before", -5)], |_, payload| {
        let args = payload["arguments"].as_str().unwrap();
        Ok(if args.contains("secret") {
            Decision::Block("secret is off limits".into())
        } else {
            Decision::Proceed
        })
    });
    let script = vec![answer(vec![call(
        "c1",
        "sh",
        serde_json::json!({"command": "cat secret"}),
    )])];
    let h = Harness::new(
        vec![tool.clone()],
        vec![late.clone(), early.clone()],
        script,
    );
    let mut agent = h.agent(Posture::Yolo, Policy::default());
    h.run(&mut agent);
    assert!(tool.calls().is_empty());
    let result = h.result_of("c1");
    assert!(
        result.contains("blocked by interceptor `early`: secret is off limits"),
        "{result}"
    );
    assert!(
        late.seen.lock().unwrap().is_empty(),
        "the chain stopped at the block"
    );
    let seen = early.seen.lock().unwrap();
    assert_eq!(seen[0].1["name"], "sh");
    assert_eq!(seen[0].1["callId"], "c1");
}

#[test]
fn tool_before_replaces_arguments_and_the_decision_sees_the_new_ones() {
    let tool = shell_tool();
    let rewrite = FakeInterceptor::new("rewrite", &[("tool.before", 0)], |_, payload| {
        let mut p = payload.clone();
        p["arguments"] = serde_json::Value::String(r#"{"command":"ls"}"#.into());
        Ok(Decision::Replace(p.to_string()))
    });
    let script = vec![answer(vec![call(
        "c1",
        "sh",
        serde_json::json!({"command": "rm -rf /"}),
    )])];
    let h = Harness::new(vec![tool.clone()], vec![rewrite], script);
    // Only `ls` is allowed: the replaced arguments are what the policy judges.
    let mut agent = h.agent(Posture::Ask, policy(&["Bash(ls)"], &[], &[]));
    h.run(&mut agent);
    assert_eq!(
        tool.calls(),
        vec![(r#"{"command":"ls"}"#.to_string(), false)]
    );
}

#[test]
fn interceptors_fail_closed() {
    // An erroring interceptor, and one whose replacement does not decode (an unknown field;
    // a different tool name), each stop the call.
    let cases: Vec<Arc<FakeInterceptor>> = vec![
        FakeInterceptor::new("broken", &[("tool.before", 0)], |_, _| {
            Err(CallError::Crashed {
                plugin: "broken".into(),
                message: "boom".into(),
            })
        }),
        FakeInterceptor::new("sloppy", &[("tool.before", 0)], |_, payload| {
            let mut p = payload.clone();
            p["extra"] = serde_json::json!(1);
            Ok(Decision::Replace(p.to_string()))
        }),
        FakeInterceptor::new("redirect", &[("tool.before", 0)], |_, payload| {
            let mut p = payload.clone();
            p["name"] = serde_json::json!("other");
            Ok(Decision::Replace(p.to_string()))
        }),
    ];
    for interceptor in cases {
        let tool = shell_tool();
        let name = interceptor.name.clone();
        let script = vec![answer(vec![call(
            "c1",
            "sh",
            serde_json::json!({"command": "ls"}),
        )])];
        let h = Harness::new(vec![tool.clone()], vec![interceptor], script);
        let mut agent = h.agent(Posture::Yolo, Policy::default());
        h.run(&mut agent);
        assert!(tool.calls().is_empty(), "{name}");
        let result = h.result_of("c1");
        assert!(
            result.contains(&format!("interceptor `{name}` failed")),
            "{name}: {result}"
        );
    }
}

#[test]
fn tool_after_replacement_is_what_the_next_request_carries() {
    let tool = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS)
        .answering(Ok("the real result".into()));
    let redact = FakeInterceptor::new("redact", &[("tool.after", 0)], |_, payload| {
        let mut p = payload.clone();
        p["result"] = serde_json::json!("[redacted]");
        Ok(Decision::Replace(p.to_string()))
    });
    let script = vec![answer(vec![call(
        "c1",
        "peek",
        serde_json::json!({"text": "x"}),
    )])];
    let h = Harness::new(vec![tool.clone()], vec![redact.clone()], script);
    let mut agent = h.agent(Posture::Ask, Policy::default());
    h.run(&mut agent);
    assert_eq!(h.result_of("c1"), "[redacted]");
    let seen = redact.seen.lock().unwrap();
    assert_eq!(seen[0].1["result"], "the real result");
    assert_eq!(seen[0].1["isError"], false);
}

#[test]
fn receipts_record_what_ran_and_how_it_ended_before_any_interceptor() {
    use reasonix_core::evidence::Receipt;
    let tool = shell_tool().answering(Ok("built\n[exit code: 0]".into()));
    let rewrite = FakeInterceptor::new(
        "rewrite",
        &[("tool.before", 0), ("tool.after", 0)],
        |point, payload| {
            let mut p = payload.clone();
            if point == "tool.before" {
                p["arguments"] = serde_json::Value::String(r#"{"command":"make"}"#.into());
            } else {
                p["result"] = serde_json::json!("[exit code: 9]");
            }
            Ok(Decision::Replace(p.to_string()))
        },
    );
    let script = vec![answer(vec![call(
        "c1",
        "sh",
        serde_json::json!({"command": "make -n"}),
    )])];
    let h = Harness::new(vec![tool.clone()], vec![rewrite], script);
    let mut agent = h.agent(Posture::Yolo, Policy::default());
    h.run(&mut agent);
    // The command that ran (the rewritten one) and the status the tool reported.
    assert_eq!(
        agent.evidence().0.receipts(),
        vec![Receipt::Command {
            command: "make".into(),
            exit: Some(0),
        }]
    );
}

#[test]
fn calls_that_never_ran_are_not_shown_to_tool_after() {
    let after = FakeInterceptor::new("after", &[("tool.after", 0)], |_, _| Ok(Decision::Proceed));
    let script = vec![answer(vec![call("c1", "nope", serde_json::json!({}))])];
    let h = Harness::new(vec![], vec![after.clone()], script);
    let mut agent = h.agent(Posture::Yolo, Policy::default());
    h.run(&mut agent);
    assert!(
        h.result_of("c1")
            .starts_with("Error: there is no tool `nope`")
    );
    assert!(after.seen.lock().unwrap().is_empty());
}

#[test]
fn input_and_response_points() {
    // input.receive replaces the task; provider.response replaces the answer text.
    let input = FakeInterceptor::new(
        "input",
        &[("input.receive", 0), ("provider.response", 0)],
        |point, payload| {
            let mut p = payload.clone();
            match point {
                "input.receive" => p["text"] = serde_json::json!("rewritten task"),
                _ => p["text"] = serde_json::json!("rewritten answer"),
            }
            Ok(Decision::Replace(p.to_string()))
        },
    );
    let h = Harness::new(vec![], vec![input], vec![]);
    let mut agent = h.agent(Posture::Ask, Policy::default());
    let (outcome, _) = h.run(&mut agent);
    assert_eq!(outcome.result, "rewritten answer");
    let requests = h.provider.requests.lock().unwrap();
    assert_eq!(requests[0].messages[1].content, "rewritten task");

    // A block at provider.request stops the run before anything is sent.
    let gate = FakeInterceptor::new("gate", &[("provider.request", 0)], |_, payload| {
        assert_eq!(payload["model"], "m");
        Ok(Decision::Block("offline hours".into()))
    });
    let h = Harness::new(vec![], vec![gate], vec![]);
    let mut agent = h.agent(Posture::Ask, Policy::default());
    let (outcome, _) = h.run(&mut agent);
    assert_eq!(outcome.status, RunStatus::Error);
    assert!(
        outcome.result.contains("offline hours"),
        "{}",
        outcome.result
    );
    assert!(h.provider.requests.lock().unwrap().is_empty());
}

#[test]
fn with_no_interceptor_no_payload_is_built() {
    let interceptors = Interceptors::new(Vec::new()).unwrap();
    let outcome = interceptors.dispatch(
        points::TOOL_BEFORE,
        || -> payloads::InputReceive { panic!("the payload was built") },
        |_| Ok(()),
    );
    assert_eq!(outcome, Intercepted::Unchanged);
}

// ---------------------------------------------------------------- failures, bounding, guard

#[test]
fn malformed_calls_go_back_to_the_model() {
    let tool = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS);
    let script = vec![answer(vec![
        StreamEvent::ToolCall(ToolCall {
            id: "c1".into(),
            name: "peek".into(),
            arguments: "{\"text\":".into(),
        }),
        StreamEvent::ToolCall(ToolCall {
            id: "c2".into(),
            name: "peek".into(),
            arguments: "[1]".into(),
        }),
    ])];
    let h = Harness::new(vec![tool.clone()], vec![], script);
    let mut agent = h.agent(Posture::Ask, Policy::default());
    let (outcome, _) = h.run(&mut agent);
    assert_eq!(outcome.status, RunStatus::Success);
    assert!(h.result_of("c1").contains("are not valid JSON"));
    assert!(h.result_of("c2").contains("must be a JSON object"));
    assert!(tool.calls().is_empty());
}

#[test]
fn a_giant_result_is_cut_for_the_model() {
    let tool = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS)
        .answering(Ok("é".repeat(MAX_RESULT_BYTES)));
    let script = vec![answer(vec![call(
        "c1",
        "peek",
        serde_json::json!({"text": "x"}),
    )])];
    let h = Harness::new(vec![tool], vec![], script);
    let mut agent = h.agent(Posture::Ask, Policy::default());
    h.run(&mut agent);
    let result = h.result_of("c1");
    assert!(result.len() < MAX_RESULT_BYTES + 200);
    assert!(result.contains(&format!("of {} bytes", 2 * MAX_RESULT_BYTES)));
}

#[test]
fn the_loop_guard_stops_a_repeating_failure() {
    let tool = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS).answering(Err("no".into()));
    let script = (0..6)
        .map(|i| {
            answer(vec![call(
                &format!("c{i}"),
                "peek",
                serde_json::json!({"text": "same"}),
            )])
        })
        .collect();
    let h = Harness::new(vec![tool.clone()], vec![], script);
    let mut agent = h.agent(Posture::Ask, Policy::default());
    let (outcome, _) = h.run(&mut agent);
    assert_eq!(outcome.status, RunStatus::Error);
    assert_eq!(
        outcome.result,
        RunStop::Repeating {
            tool: "peek".into(),
            count: REPEAT_LIMIT
        }
        .to_string()
    );
    assert_eq!(tool.calls().len(), REPEAT_LIMIT as usize);
    assert!(h.result_of("c3").contains("has now failed 4 times"));
}

// ---------------------------------------------------------------- untrusted replacements

mod replacements {
    use super::*;
    use proptest::prelude::*;

    fn replacing_with(text: String) -> Interceptors {
        let interceptor: Arc<dyn Interceptor> =
            FakeInterceptor::new("fuzz", &[("tool.before", 0)], move |_, _| {
                Ok(Decision::Replace(text.clone()))
            });
        Interceptors::new(vec![interceptor]).unwrap()
    }

    fn original() -> payloads::ToolBefore {
        payloads::ToolBefore {
            name: "sh".into(),
            arguments: r#"{"command":"ls"}"#.into(),
            call_id: "c1".into(),
            session_id: None,
        }
    }

    fn dispatch(text: String) -> Intercepted<payloads::ToolBefore> {
        let before = original();
        replacing_with(text).dispatch(
            points::TOOL_BEFORE,
            || before.clone(),
            |r| r.validate(&before),
        )
    }

    proptest! {
        /// Whatever a plugin answers, the agent never panics, and what it accepts is a
        /// replacement the point allows (same tool, same call, arguments an object).
        #[test]
        fn any_text_is_refused_or_a_valid_replacement(text in ".{0,200}") {
            match dispatch(text) {
                Intercepted::Replaced(r) => {
                    prop_assert_eq!(&r.name, "sh");
                    prop_assert_eq!(&r.call_id, "c1");
                    let args: serde_json::Value = serde_json::from_str(&r.arguments).unwrap();
                    prop_assert!(args.is_object());
                }
                Intercepted::Blocked(stop) => prop_assert!(stop.failed),
                Intercepted::Unchanged => prop_assert!(false, "a replacement was ignored"),
            }
        }

        /// Near misses of the real shape: extra fields, other ids, arguments that are not
        /// objects. Only the exact shape with object arguments gets through.
        #[test]
        fn near_misses_are_refused(
            extra in proptest::option::of("[a-z]{1,8}"),
            call_id in prop_oneof![Just("c1".to_string()), "[a-z0-9]{1,4}"],
            arguments in prop_oneof![
                Just(r#"{"command":"pwd"}"#.to_string()),
                Just("[]".to_string()),
                Just("1".to_string()),
                Just("{".to_string()),
            ],
        ) {
            let mut value = serde_json::json!({"name": "sh", "arguments": arguments, "callId": call_id});
            if let Some(key) = &extra {
                value[key.as_str()] = serde_json::json!(true);
            }
            let valid = extra.is_none() && call_id == "c1" && arguments.starts_with("{\"");
            match dispatch(value.to_string()) {
                Intercepted::Replaced(r) => {
                    prop_assert!(valid, "accepted {value}");
                    prop_assert_eq!(r.arguments, arguments);
                }
                Intercepted::Blocked(stop) => prop_assert!(!valid && stop.failed, "refused {value}"),
                Intercepted::Unchanged => prop_assert!(false),
            }
        }
    }
}

// ---------------------------------------------------------------- system_prompt.build

fn agent_with_append(h: &Harness, append: Option<&str>) -> Result<Agent, StartError> {
    let mut config = h.agent_config(Posture::Yolo, Policy::default());
    config.system_prompt = "part one".into();
    config.append_system_prompt = append.map(str::to_string);
    Agent::new(Arc::new(h.catalog), h.client(), config)
}

fn appending(name: &str, priority: i32, text: &'static str) -> Arc<FakeInterceptor> {
    FakeInterceptor::new(
        name,
        &[("system_prompt.build", priority)],
        move |_, payload| {
            let mut p = payload.clone();
            p["prompt"] = serde_json::json!(format!("{}{text}", p["prompt"].as_str().unwrap()));
            Ok(Decision::Replace(p.to_string()))
        },
    )
}

#[test]
fn system_prompt_build_runs_once_in_priority_order_before_the_cli_append() {
    let late = appending("late", 100, " +instructions");
    let early = appending("early", 0, " +environment");
    let h = Harness::new(vec![], vec![late.clone(), early.clone()], vec![]);
    let mut agent = agent_with_append(&h, Some("  extra  ")).unwrap();
    h.run(&mut agent);
    h.run(&mut agent);
    let requests = h.provider.requests.lock().unwrap();
    assert_eq!(requests.len(), 2);
    for r in requests.iter() {
        assert_eq!(
            r.messages[0].content,
            "part one +environment +instructions\n\nextra"
        );
    }
    assert_eq!(early.seen.lock().unwrap().len(), 1, "built once per agent");
    let (_, payload) = &early.seen.lock().unwrap()[0];
    assert_eq!(payload["prompt"], "part one");
    assert_eq!(
        payload["workspaceRoot"],
        h.workspace.path().display().to_string()
    );
    assert_eq!(payload["os"], std::env::consts::OS);
}

#[test]
fn a_blocked_or_failed_system_prompt_build_stops_the_agent() {
    let block = FakeInterceptor::new("policy", &[("system_prompt.build", 0)], |_, _| {
        Ok(Decision::Block("no prompt today".into()))
    });
    let fail = FakeInterceptor::new("broken", &[("system_prompt.build", 0)], |_, _| {
        Err(CallError::Unknown("boom".into()))
    });
    let rename = FakeInterceptor::new("sneaky", &[("system_prompt.build", 0)], |_, payload| {
        let mut p = payload.clone();
        p["os"] = serde_json::json!("plan9");
        Ok(Decision::Replace(p.to_string()))
    });
    for (interceptor, want) in [
        (block, "blocked by interceptor `policy`: no prompt today"),
        (fail, "interceptor `broken` failed"),
        (rename, "only `prompt` may be replaced"),
    ] {
        let h = Harness::new(vec![], vec![interceptor], vec![]);
        match agent_with_append(&h, None) {
            Err(e @ StartError::SystemPrompt(_)) => {
                let text = e.to_string();
                assert!(text.contains(want), "{text}");
                assert!(
                    text.starts_with("the system prompt was not built"),
                    "{text}"
                );
            }
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("the agent started: {want}"),
        }
    }
}

#[test]
fn a_replaced_result_keeps_its_original_in_the_history_only() {
    let tool = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS)
        .answering(Ok("the whole original".into()));
    let shorten = FakeInterceptor::new("bound", &[("tool.after", 0)], |_, payload| {
        let mut p = payload.clone();
        p["result"] = serde_json::json!("the whole…");
        Ok(Decision::Replace(p.to_string()))
    });
    let script = vec![answer(vec![call(
        "c1",
        "peek",
        serde_json::json!({"text": "x"}),
    )])];
    let h = Harness::new(vec![tool], vec![shorten], script);
    let state = tempfile::tempdir().unwrap();
    let store = crate::session::SessionStore::new(state.path(), h.workspace.path());
    let writer = store.create("fake", "m").unwrap();
    let id = writer.id().to_string();
    let mut agent = h
        .agent(Posture::Yolo, Policy::default())
        .with_session(writer, vec![]);
    let (_, events) = h.run(&mut agent);
    assert_eq!(h.result_of("c1"), "the whole…");
    let history_has_raw = agent.history().iter().any(|m| m.raw_content.is_some());
    drop(agent); // releases the session's lock
    // The transcript keeps the original …
    let (writer, loaded) = store.open(&id).unwrap();
    let kept = loaded
        .messages
        .iter()
        .find(|m| m.tool_call_id.as_deref() == Some("c1"))
        .unwrap();
    assert_eq!(kept.content, "the whole…");
    assert_eq!(kept.raw_content.as_deref(), Some("the whole original"));
    // … which is not kept in memory, not shown, and never sent.
    assert!(!history_has_raw);
    assert!(events.iter().all(|e| match e {
        AgentEvent::Message(m) => m.raw_content.is_none(),
        _ => true,
    }));
    // Resumed, the history holds it again (it came from the transcript): still never sent.
    let mut resumed = h
        .agent(Posture::Yolo, Policy::default())
        .with_session(writer, loaded.messages);
    assert!(resumed.history().iter().any(|m| m.raw_content.is_some()));
    h.run(&mut resumed);
    let requests = h.provider.requests.lock().unwrap();
    let last = requests.last().unwrap();
    assert!(last.messages.iter().any(|m| m.content == "the whole…"));
    assert!(
        requests
            .iter()
            .flat_map(|r| &r.messages)
            .all(|m| m.raw_content.is_none())
    );
}

// ---------------------------------------------------------------- the 17 points and the slots

mod points_and_slots {
    use super::*;
    use crate::permissions::Rule;

    fn rules(allow: &[&str], deny: &[&str]) -> Policy {
        let parse = |list: &[&str]| list.iter().map(|r| Rule::parse(r).unwrap()).collect();
        Policy {
            allow: parse(allow),
            deny: parse(deny),
            ..Policy::default()
        }
    }

    fn replace_field(
        field: &'static str,
        value: serde_json::Value,
    ) -> impl Fn(&str, &serde_json::Value) -> Result<Decision, CallError> + Send + Sync + 'static
    {
        move |_, payload| {
            let mut p = payload.clone();
            p[field] = value.clone();
            Ok(Decision::Replace(p.to_string()))
        }
    }

    #[test]
    fn two_owners_of_one_slot_fail_the_agent_naming_both() {
        let a = FakeInterceptor::owner("alpha", &[], &["context"], |_, _| Ok(Decision::Proceed));
        let b = FakeInterceptor::owner("beta", &[], &["context"], |_, _| Ok(Decision::Proceed));
        let h = Harness::new(vec![], vec![a, b], vec![]);
        let config = h.agent_config(Posture::Ask, Policy::default());
        let err = Agent::new(Arc::new(h.catalog), h.client(), config)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("slot `context`") && err.contains("`alpha`") && err.contains("`beta`"),
            "{err}"
        );
    }

    #[test]
    fn the_slot_owner_runs_after_every_subscriber_whatever_its_priority() {
        let order = Arc::new(Mutex::new(Vec::new()));
        let log = |name: &'static str, order: &Arc<Mutex<Vec<&'static str>>>| {
            let order = order.clone();
            move |_: &str, _: &serde_json::Value| {
                order.lock().unwrap().push(name);
                Ok(Decision::Proceed)
            }
        };
        // The owner also subscribes at the lowest priority: it still runs last, and once.
        let owner = FakeInterceptor::owner(
            "aaa-owner",
            &[("input.receive", -1000)],
            &["tool:peek"],
            log("owner", &order),
        );
        let late = FakeInterceptor::new("zzz", &[("tool.before", 1000)], log("late", &order));
        let early = FakeInterceptor::new("bbb", &[("tool.before", -5)], log("early", &order));
        let tool = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS).answering(Ok("r".into()));
        let other = FakeTool::new("poke", TEXT_SCHEMA, true, NO_EFFECTS).answering(Ok("r".into()));
        let script = vec![answer(vec![
            call("c1", "peek", serde_json::json!({"text": "x"})),
            call("c2", "poke", serde_json::json!({"text": "x"})),
        ])];
        let h = Harness::new(vec![tool, other], vec![owner.clone(), late, early], script);
        let mut agent = h.agent(Posture::Yolo, Policy::default());
        h.run(&mut agent);
        let order = order.lock().unwrap().clone();
        // input.receive (owner subscribed); tool.before of peek: early, late, owner; of poke:
        // early, late (the owner's slot is `tool:peek` only); tool.after of peek: owner.
        assert_eq!(
            order,
            ["owner", "early", "late", "owner", "early", "late", "owner"]
        );
        assert_eq!(
            owner.points_seen(),
            ["input.receive", "tool.before", "tool.after"]
        );
    }

    #[test]
    fn the_owner_has_the_final_say_over_a_replacement() {
        let rewrite = |text: &'static str| {
            move |_: &str, payload: &serde_json::Value| {
                let mut p = payload.clone();
                p["messages"][0]["content"] = serde_json::json!(text);
                Ok(Decision::Replace(p.to_string()))
            }
        };
        // The owner subscribes at the lowest priority and still runs after the subscriber,
        // seeing its replacement.
        let subscriber = FakeInterceptor::new(
            "aaa",
            &[("context.prepare", 1000)],
            rewrite("by the subscriber"),
        );
        let owner = FakeInterceptor::owner(
            "zzz",
            &[("context.prepare", -1000)],
            &["context"],
            rewrite("by the owner"),
        );
        let h = Harness::new(vec![], vec![owner.clone(), subscriber], vec![]);
        let mut agent = h.agent(Posture::Ask, Policy::default());
        h.run(&mut agent);
        let requests = h.provider.requests.lock().unwrap();
        assert_eq!(requests[0].messages[1].content, "by the owner");
        assert_eq!(
            owner.seen.lock().unwrap()[0].1["messages"][0]["content"],
            "by the subscriber"
        );
        // Only for that request: the history keeps what the user said.
        assert_eq!(agent.history()[0].content, "do it");
        assert_eq!(owner.points_seen(), ["context.prepare"]);
    }

    #[test]
    fn allow_and_deny_anywhere_but_permission_decision_fail_closed() {
        for decision in [Decision::Allow, Decision::Deny("no".into())] {
            let odd = FakeInterceptor::new("odd", &[("input.receive", 0)], move |_, _| {
                Ok(decision.clone())
            });
            let h = Harness::new(vec![], vec![odd], vec![]);
            let mut agent = h.agent(Posture::Ask, Policy::default());
            let (outcome, _) = h.run(&mut agent);
            assert_eq!(outcome.status, RunStatus::Error);
            assert!(
                outcome
                    .result
                    .contains("legal only at `permission.decision`"),
                "{}",
                outcome.result
            );
            assert!(h.provider.requests.lock().unwrap().is_empty());
        }
    }

    fn writer_run(
        decide: impl Fn(&str, &serde_json::Value) -> Result<Decision, CallError> + Send + Sync + 'static,
        policy: Policy,
    ) -> (Harness, Arc<FakeInterceptor>, Vec<AgentEvent>) {
        let tool = FakeTool::new("sh", COMMAND_SCHEMA, false, PROCESS).answering(Ok("ran".into()));
        let judge = FakeInterceptor::new("judge", &[("permission.decision", 0)], decide);
        let script = vec![answer(vec![call(
            "c1",
            "sh",
            serde_json::json!({"command": "make"}),
        )])];
        let h = Harness::new(vec![tool], vec![judge.clone()], script);
        // Headless, `ask` posture: the host denies the writer.
        let mut agent = h.agent(Posture::Ask, policy);
        let (_, events) = h.run(&mut agent);
        (h, judge, events)
    }

    #[test]
    fn permission_decision_sees_the_host_decision_and_may_allow_a_fallback_deny() {
        let (h, judge, events) = writer_run(|_, _| Ok(Decision::Allow), Policy::default());
        assert_eq!(h.result_of("c1"), "ran");
        let seen = judge.seen.lock().unwrap();
        assert_eq!(seen[0].1["hostDecision"], "deny");
        assert_eq!(seen[0].1["name"], "sh");
        assert_eq!(seen[0].1["readOnly"], false);
        // The override is audited.
        assert!(events.iter().any(
            |e| matches!(e, AgentEvent::Notice(n) if n.contains("plugin `judge` allowed `sh`"))
        ));
    }

    #[test]
    fn permission_decision_allow_never_overrides_a_user_deny_rule() {
        let policy = rules(&[], &["sh"]);
        let (h, _, _) = writer_run(|_, _| Ok(Decision::Allow), policy);
        assert_ne!(h.result_of("c1"), "ran");
    }

    #[test]
    fn permission_decision_deny_block_and_replacement_all_deny() {
        for decision in [
            Decision::Deny("not on fridays".into()),
            Decision::Block("not on fridays".into()),
            Decision::Replace("{}".into()),
        ] {
            let policy = rules(&["sh"], &[]);
            let (h, judge, _) = writer_run(move |_, _| Ok(decision.clone()), policy);
            let result = h.result_of("c1");
            assert!(result.starts_with("Blocked: `sh` was not run"), "{result}");
            assert_eq!(judge.seen.lock().unwrap()[0].1["hostDecision"], "allow");
        }
    }

    #[test]
    fn provider_request_replacement_changes_this_request_only_and_is_validated() {
        let trim = FakeInterceptor::new("trim", &[("provider.request", 0)], |_, payload| {
            let mut p = payload.clone();
            p["request"]["tools"] = serde_json::json!([]);
            p["request"]["maxTokens"] = serde_json::json!(64);
            Ok(Decision::Replace(p.to_string()))
        });
        let tool = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS);
        let h = Harness::new(vec![tool], vec![trim], vec![]);
        let mut agent = h.agent(Posture::Ask, Policy::default());
        h.run(&mut agent);
        let requests = h.provider.requests.lock().unwrap();
        assert!(requests[0].tools.is_empty());
        assert_eq!(requests[0].max_output_tokens, Some(64));
        assert_eq!(agent.tool_specs().len(), 1);

        // Inventing a tool, dropping the system prompt, an orphan tool result: all refused.
        for bad in [
            serde_json::json!({"tools": [{"name": "ghost", "description": "", "parameters": {}}]}),
            serde_json::json!({"messages": [{"role": "user", "content": "hi"}]}),
            serde_json::json!({"messages": [{"role": "system", "content": "s"}, {"role": "tool", "content": "r", "tool_call_id": "x"}]}),
            serde_json::json!({"surprise": 1}),
        ] {
            let evil =
                FakeInterceptor::new("evil", &[("provider.request", 0)], move |_, payload| {
                    let mut p = payload.clone();
                    for (k, v) in bad.as_object().unwrap() {
                        p["request"][k] = v.clone();
                    }
                    Ok(Decision::Replace(p.to_string()))
                });
            let h = Harness::new(vec![], vec![evil], vec![]);
            let mut agent = h.agent(Posture::Ask, Policy::default());
            let (outcome, _) = h.run(&mut agent);
            assert_eq!(outcome.status, RunStatus::Error, "{outcome:?}");
            assert!(
                outcome.result.contains("not a valid payload"),
                "{}",
                outcome.result
            );
            assert!(h.provider.requests.lock().unwrap().is_empty());
        }
    }

    #[test]
    fn agent_before_start_blocks_and_cannot_change_anything() {
        let gate = FakeInterceptor::new("gate", &[("agent.before_start", 0)], |_, payload| {
            assert_eq!(payload["model"], "m");
            assert_eq!(payload["toolCount"], 0);
            Ok(Decision::Block("quota reached".into()))
        });
        let h = Harness::new(vec![], vec![gate], vec![]);
        let mut agent = h.agent(Posture::Ask, Policy::default());
        let (outcome, _) = h.run(&mut agent);
        assert!(outcome.result.contains("quota reached"));
        assert!(h.provider.requests.lock().unwrap().is_empty());

        let sneaky = FakeInterceptor::new(
            "sneaky",
            &[("agent.before_start", 0)],
            replace_field("model", "other".into()),
        );
        let h = Harness::new(vec![], vec![sneaky], vec![]);
        let mut agent = h.agent(Posture::Ask, Policy::default());
        let (outcome, _) = h.run(&mut agent);
        assert!(
            outcome.result.contains("cannot be changed"),
            "{}",
            outcome.result
        );
    }

    #[test]
    fn session_points_follow_the_session_life() {
        let watch = FakeInterceptor::new(
            "watch",
            &[
                ("session.start", 0),
                ("session.load", 0),
                ("session.save", 0),
                ("session.end", 0),
                ("session.rotate", 0),
            ],
            |_, _| Ok(Decision::Proceed),
        );
        let h = Harness::new(vec![], vec![watch.clone()], vec![]);
        let mut agent = h.agent(Posture::Ask, Policy::default());
        h.run(&mut agent);
        h.run(&mut agent);
        agent.end_session(&mut |_| {});
        assert_eq!(
            watch.points_seen(),
            [
                "session.start",
                "session.save",
                "session.save",
                "session.end"
            ]
        );
        for (point, payload) in watch.seen.lock().unwrap().iter() {
            assert_eq!(payload["phase"], point.trim_start_matches("session."));
        }

        // A block at session.start stops the run.
        let refuse = FakeInterceptor::new("refuse", &[("session.start", 0)], |_, _| {
            Ok(Decision::Block("read-only day".into()))
        });
        let h = Harness::new(vec![], vec![refuse], vec![]);
        let mut agent = h.agent(Posture::Ask, Policy::default());
        let (outcome, _) = h.run(&mut agent);
        assert!(outcome.result.contains("read-only day"));
        assert!(h.provider.requests.lock().unwrap().is_empty());
    }

    #[test]
    fn rotating_the_session_reports_the_old_file_and_starts_afresh() {
        let watch = FakeInterceptor::new(
            "watch",
            &[("session.start", 0), ("session.rotate", 0)],
            |_, _| Ok(Decision::Proceed),
        );
        let h = Harness::new(vec![], vec![watch.clone()], vec![]);
        let store = crate::session::SessionStore::new(h.workspace.path(), h.workspace.path());
        let first = store.create("fake", "m").unwrap();
        let first_path = first.path().display().to_string();
        let mut agent = h
            .agent(Posture::Ask, Policy::default())
            .with_session(first, vec![]);
        h.run(&mut agent);
        agent.rotate_session(store.create("fake", "m").unwrap(), &mut |_| {});
        assert!(agent.history().is_empty());
        h.run(&mut agent);
        assert_eq!(
            watch.points_seen(),
            ["session.start", "session.rotate", "session.start"]
        );
        let seen = watch.seen.lock().unwrap();
        assert_eq!(seen[1].1["sessionPath"], first_path.as_str());
        assert_eq!(seen[1].1["phase"], "rotate");
        assert_ne!(seen[2].1["sessionPath"], first_path.as_str());
    }

    #[test]
    fn frontend_event_redacts_or_hides_what_the_user_sees_but_not_what_the_model_reads() {
        let tool = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS)
            .answering(Ok("token=sk-abc".into()));
        let redact = FakeInterceptor::new("redact", &[("frontend.event", 0)], |_, payload| {
            let mut p = payload.clone();
            let text = p["text"].as_str().unwrap().replace("sk-abc", "sk-***");
            p["text"] = serde_json::json!(text);
            Ok(Decision::Replace(p.to_string()))
        });
        let script = vec![answer(vec![call(
            "c1",
            "peek",
            serde_json::json!({"text": "x"}),
        )])];
        let h = Harness::new(vec![tool], vec![redact.clone()], script);
        let mut agent = h.agent(Posture::Yolo, Policy::default());
        let (_, events) = h.run(&mut agent);
        let shown: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::ToolFinished { output, .. } => Some(output.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(shown, ["token=sk-***"]);
        // The model read the real result (redacting it is tool.after's job).
        assert_eq!(h.result_of("c1"), "token=sk-abc");
        let kinds: Vec<String> = redact
            .seen
            .lock()
            .unwrap()
            .iter()
            .map(|(_, p)| p["kind"].as_str().unwrap().to_string())
            .collect();
        // One result, one dispatch: the tool message with the same text is shown as the
        // output was, without asking again.
        assert_eq!(
            kinds.iter().filter(|k| k.starts_with("tool_")).count(),
            1,
            "{kinds:?}"
        );
        assert!(kinds.contains(&"tool_output".to_string()), "{kinds:?}");
        let message_shown = events.iter().find_map(|e| match e {
            AgentEvent::Message(m) if m.role == crate::types::Role::Tool => Some(m.content.clone()),
            _ => None,
        });
        assert_eq!(message_shown.as_deref(), Some("token=sk-***"));

        // A block hides the event; a crash hides it too, with a notice.
        let crash = FakeInterceptor::new("crash", &[("frontend.event", 0)], |_, payload| {
            if payload["kind"] == "notice" {
                return Ok(Decision::Proceed);
            }
            Err(CallError::Unknown("boom".into()))
        });
        let tool =
            FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS).answering(Ok("secret".into()));
        let script = vec![answer(vec![call(
            "c1",
            "peek",
            serde_json::json!({"text": "x"}),
        )])];
        let h = Harness::new(vec![tool], vec![crash], script);
        let mut agent = h.agent(Posture::Yolo, Policy::default());
        let (_, events) = h.run(&mut agent);
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, AgentEvent::ToolFinished { .. }))
        );
        assert!(
            events
                .iter()
                .any(|e| matches!(e, AgentEvent::Notice(n) if n.contains("an event was hidden")))
        );
    }

    #[test]
    fn a_tool_slot_owner_that_crashes_stops_only_its_tool() {
        let owner = FakeInterceptor::owner("guard", &[], &["tool:sh"], |_, _| {
            Err(CallError::Unknown("down".into()))
        });
        let sh = FakeTool::new("sh", COMMAND_SCHEMA, false, PROCESS).answering(Ok("ran".into()));
        let peek =
            FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS).answering(Ok("read".into()));
        let script = vec![answer(vec![
            call("c1", "peek", serde_json::json!({"text": "x"})),
            call("c2", "sh", serde_json::json!({"command": "make"})),
        ])];
        let h = Harness::new(vec![sh, peek], vec![owner], script);
        let mut agent = h.agent(Posture::Yolo, Policy::default());
        h.run(&mut agent);
        assert_eq!(h.result_of("c1"), "read");
        assert!(
            h.result_of("c2").contains("interceptor `guard` failed"),
            "{}",
            h.result_of("c2")
        );
    }
}

// ---------------------------------------------------------------- reload

mod reload {
    use super::*;

    fn catalog(
        tools: Vec<Arc<dyn Tool>>,
        interceptors: Vec<Arc<dyn Interceptor>>,
    ) -> Arc<dyn Catalog> {
        Arc::new(FakeCatalog {
            tools,
            interceptors,
        })
    }

    #[test]
    fn a_no_op_reload_keeps_the_session_and_the_prefix_byte_identical() {
        let peek = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS).answering(Ok("r".into()));
        let h = Harness::new(vec![peek.clone()], vec![], vec![]);
        let mut agent = h.agent(Posture::Ask, Policy::default());
        agent
            .config
            .policy
            .grant_for_session(crate::permissions::Rule::parse("Bash(make)").unwrap());
        h.run(&mut agent);
        let before = serde_json::to_string(&agent.request().messages).unwrap();
        let before_tools = agent.request().tools;

        let report = agent
            .reload(
                catalog(vec![peek], vec![]),
                h.client(),
                h.agent_config(Posture::Ask, Policy::default()),
            )
            .unwrap();
        assert_eq!(report.generation, 1);
        assert!(!report.prefix_changed);
        assert!(report.tools_added.is_empty() && report.tools_removed.is_empty());
        assert_eq!(agent.generation(), 1);
        assert_eq!(
            serde_json::to_string(&agent.request().messages).unwrap(),
            before
        );
        assert_eq!(agent.request().tools, before_tools);
        assert_eq!(agent.config.policy.session.len(), 1, "session grants kept");
        // The next turn goes on from the same history.
        h.run(&mut agent);
        let requests = h.provider.requests.lock().unwrap();
        let last = requests.last().unwrap();
        assert_eq!(last.messages[1].content, "do it");
        assert_eq!(last.messages.len(), 4);
    }

    #[test]
    fn a_reload_that_adds_a_tool_and_an_interceptor_takes_effect_on_the_next_turn() {
        let h = Harness::new(vec![], vec![], vec![]);
        let mut agent = h.agent(Posture::Ask, Policy::default());
        h.run(&mut agent);
        let peek = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS);
        let watch = FakeInterceptor::new("watch", &[("input.receive", 0)], |_, _| {
            Ok(Decision::Proceed)
        });
        let report = agent
            .reload(
                catalog(vec![peek], vec![watch.clone()]),
                h.client(),
                h.agent_config(Posture::Ask, Policy::default()),
            )
            .unwrap();
        assert_eq!(report.tools_added, ["peek"]);
        assert!(report.prefix_changed);
        h.run(&mut agent);
        assert_eq!(watch.points_seen(), ["input.receive"]);
        assert_eq!(
            h.provider
                .requests
                .lock()
                .unwrap()
                .last()
                .unwrap()
                .tools
                .len(),
            1
        );
    }

    #[test]
    fn a_failed_reload_leaves_the_running_agent_untouched() {
        let peek = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS);
        let h = Harness::new(vec![peek], vec![], vec![]);
        let mut agent = h.agent(Posture::Ask, Policy::default());
        h.run(&mut agent);
        let history = agent.history().to_vec();
        let a = FakeInterceptor::owner("a", &[], &["permission"], |_, _| Ok(Decision::Proceed));
        let b = FakeInterceptor::owner("b", &[], &["permission"], |_, _| Ok(Decision::Proceed));
        let err = agent
            .reload(
                catalog(vec![], vec![a, b]),
                h.client(),
                h.agent_config(Posture::Ask, Policy::default()),
            )
            .unwrap_err();
        assert!(err.to_string().contains("slot `permission`"), "{err}");
        assert_eq!(agent.generation(), 0);
        assert_eq!(agent.history(), history.as_slice());
        assert_eq!(agent.tool_specs().len(), 1);
        h.run(&mut agent);
        assert_eq!(
            h.provider
                .requests
                .lock()
                .unwrap()
                .last()
                .unwrap()
                .tools
                .len(),
            1
        );
    }
}

mod replacement_properties {
    use super::*;
    use payloads::{ContextPrepare, PayloadMessage, ProviderRequest, SessionPhase};
    use proptest::prelude::*;

    fn replacing(point: &'static str, text: String) -> Interceptors {
        let interceptor: Arc<dyn Interceptor> =
            FakeInterceptor::new("fuzz", &[(point, 0)], move |_, _| {
                Ok(Decision::Replace(text.clone()))
            });
        Interceptors::new(vec![interceptor]).unwrap()
    }

    fn message() -> impl Strategy<Value = serde_json::Value> {
        (
            prop_oneof![
                Just("user"),
                Just("assistant"),
                Just("tool"),
                Just("system"),
                Just("robot")
            ],
            proptest::option::of(prop_oneof![Just("c1"), Just("c2")]),
            proptest::collection::vec(prop_oneof![Just("c1"), Just("c2")], 0..2),
        )
            .prop_map(|(role, id, calls)| {
                let mut m = serde_json::json!({"role": role, "content": "x"});
                if let Some(id) = id {
                    m["tool_call_id"] = serde_json::json!(id);
                }
                if !calls.is_empty() {
                    m["tool_calls"] = calls
                        .iter()
                        .map(|c| serde_json::json!({"id": c, "name": "t", "arguments": "{}"}))
                        .collect();
                }
                m
            })
    }

    /// A tool result whose call id no earlier assistant message made.
    fn has_orphan(messages: &[PayloadMessage]) -> bool {
        let mut open: Vec<String> = Vec::new();
        for m in messages {
            match m.role {
                Role::Assistant => open = m.tool_calls.iter().map(|c| c.id.clone()).collect(),
                Role::Tool if !open.contains(&m.tool_call_id.clone().unwrap_or_default()) => {
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    proptest! {
        /// Whatever conversation an interceptor hands back at `context.prepare`, what gets
        /// through has no system message and no orphan tool result.
        #[test]
        fn context_replacements_never_let_an_orphan_through(
            messages in proptest::collection::vec(message(), 0..6),
        ) {
            let text = serde_json::json!({"messages": messages}).to_string();
            let outcome = replacing(points::CONTEXT_PREPARE, text).dispatch(
                points::CONTEXT_PREPARE,
                || ContextPrepare { messages: vec![] },
                ContextPrepare::validate,
            );
            match outcome {
                Intercepted::Replaced(r) => {
                    prop_assert!(!r.messages.iter().any(|m| m.role == Role::System));
                    prop_assert!(!has_orphan(&r.messages));
                }
                Intercepted::Blocked(stop) => prop_assert!(stop.failed),
                Intercepted::Unchanged => prop_assert!(false, "a replacement was ignored"),
            }
        }

        /// An unknown field anywhere at the top of a payload refuses the replacement, at every
        /// strict point.
        #[test]
        fn an_unknown_field_is_always_refused(key in "[a-zA-Z]{1,10}") {
            let session = SessionPhase { session_path: "/s.jsonl".into(), phase: "save".into(), subagent: None };
            let mut value = serde_json::to_value(&session).unwrap();
            prop_assume!(value.get(&key).is_none());
            value[&key] = serde_json::json!(1);
            let outcome = replacing(points::SESSION_SAVE, value.to_string()).dispatch(
                points::SESSION_SAVE,
                || session.clone(),
                payloads::unchanged(&session),
            );
            prop_assert!(matches!(outcome, Intercepted::Blocked(ref s) if s.failed));

            let request = ProviderRequest {
                provider: "p".into(),
                model: "m".into(),
                request: payloads::RequestBody { messages: vec![], tools: vec![], max_tokens: None },
            };
            let mut value = serde_json::to_value(&request).unwrap();
            value["request"][&key] = serde_json::json!(1);
            prop_assume!(!["messages", "tools", "maxTokens"].contains(&key.as_str()));
            let outcome = replacing(points::PROVIDER_REQUEST, value.to_string()).dispatch(
                points::PROVIDER_REQUEST,
                || request.clone(),
                |r| r.validate(&request),
            );
            prop_assert!(matches!(outcome, Intercepted::Blocked(ref s) if s.failed));
        }
    }
}

#[test]
fn a_turn_is_numbered_and_a_writer_checkpoints_its_paths_before_it_runs() {
    let writer_tool = FakeTool::new("write_file", PATH_SCHEMA, false, WRITES);
    let shell = FakeTool::new("bash", COMMAND_SCHEMA, false, PROCESS);
    let script = vec![
        answer(vec![call(
            "c1",
            "write_file",
            serde_json::json!({"path": "a.txt"}),
        )]),
        answer(vec![call(
            "c2",
            "bash",
            serde_json::json!({"command": "true"}),
        )]),
    ];
    let h = Harness::new(vec![writer_tool, shell], vec![], script);
    std::fs::write(h.workspace.path().join("a.txt"), "before").unwrap();
    let state = tempfile::tempdir().unwrap();
    let store = crate::session::SessionStore::new(state.path(), h.workspace.path());
    let writer = store.create("fake", "m").unwrap();
    let path = writer.path().to_path_buf();
    let mut agent = h
        .agent(Posture::Yolo, Policy::default())
        .with_session(writer, vec![]);
    h.run(&mut agent);
    drop(agent);
    // The `turn` record comes right before the turn's user message.
    let text = std::fs::read_to_string(&path).unwrap();
    let kinds: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["type"].to_string())
        .collect();
    assert_eq!(kinds[1], "\"turn\"");
    assert!(text.lines().nth(2).unwrap().contains("\"role\":\"user\""));
    let checkpoints = crate::checkpoint::CheckpointStore::for_transcript(&path);
    let turn = &checkpoints.turns().unwrap()[0];
    assert_eq!(turn.turn, 1);
    assert!(turn.shell, "the bash call marks the turn");
    let sha = turn.files["a.txt"].clone().unwrap();
    assert_eq!(checkpoints.get(&sha).unwrap(), b"before");
}

/// `/compact focus`: the summary request has no tools and carries the focus and the
/// `compaction.prepare` guidance; `compaction.complete` replaces the summary; the user's message
/// stays verbatim and the tool work is folded into one digest.
#[test]
fn manual_compaction_folds_tool_work_through_both_points() {
    let reader = FakeTool::new("reader", PATH_SCHEMA, true, Effects::default())
        .answering(Ok("file contents ".repeat(50)));
    let points = FakeInterceptor::new(
        "points",
        &[("compaction.prepare", 0), ("compaction.complete", 0)],
        |point, p| {
            let mut p = p.clone();
            if point == "compaction.prepare" {
                p["guidance"] =
                    serde_json::json!(format!("{} + keep paths", p["guidance"].as_str().unwrap()));
            } else {
                p["summary"] =
                    serde_json::json!(format!("checked: {}", p["summary"].as_str().unwrap()));
            }
            Ok(Decision::Replace(p.to_string()))
        },
    );
    let script = vec![
        answer(vec![call("c1", "reader", serde_json::json!({"path": "a"}))]),
        vec![
            StreamEvent::Text("read it".into()),
            StreamEvent::Done(FinishReason::Stop),
        ],
        vec![
            StreamEvent::Text("the summary".into()),
            StreamEvent::Done(FinishReason::Stop),
        ],
    ];
    let h = Harness::new(vec![reader], vec![points.clone()], script);
    let mut agent = h.agent(Posture::Yolo, Policy::default());
    let (outcome, _) = h.run(&mut agent);
    assert_eq!(outcome.status, RunStatus::Success);
    // Something after the folded work, so the tail does not hold all of it.
    agent.history.push(Message::text(Role::User, "and then?"));

    let mut events = Vec::new();
    assert!(agent.compact("the reader", &CancelToken::new(), &mut |e| events.push(e)));
    let requests = h.provider.requests.lock().unwrap();
    let summary = requests.last().unwrap();
    assert!(summary.tools.is_empty());
    let asked = &summary.messages[1].content;
    assert!(
        asked.contains("file contents") && asked.contains("→ reader("),
        "{asked}"
    );
    assert!(asked.contains("the reader + keep paths"), "{asked}");
    assert_eq!(
        points.points_seen(),
        ["compaction.prepare", "compaction.complete"]
    );
    let history = agent.history();
    assert_eq!(history[0].content, "do it");
    assert!(crate::compaction::is_digest(&history[1]), "{history:?}");
    assert!(history[1].content.ends_with("checked: the summary"));
    assert!(history.iter().all(|m| m.role != Role::Tool));
    assert!(matches!(
        events.last(),
        Some(AgentEvent::Compacted {
            tier: crate::compaction::Tier::Summary,
            manual: true,
            number: 1,
            ..
        })
    ));
}

/// The final answer's finish reason reaches the outcome; a cut-off one is a notice and
/// `cut_off()`, and is not re-sent.
#[test]
fn a_cut_off_final_answer_is_reported() {
    for (finish, cut) in [
        (FinishReason::Length, true),
        (FinishReason::ContentFilter, true),
        (FinishReason::Stop, false),
    ] {
        let script = vec![vec![
            StreamEvent::Text("half".into()),
            StreamEvent::Done(finish),
        ]];
        let h = Harness::new(Vec::new(), Vec::new(), script);
        let mut agent = h.agent(Posture::Yolo, Policy::default());
        let (outcome, events) = h.run(&mut agent);
        assert_eq!(outcome.status, RunStatus::Success);
        assert_eq!(outcome.stop_reason, Some(finish));
        assert_eq!(outcome.cut_off(), cut);
        assert_eq!(outcome.result, "half");
        let noticed = events
            .iter()
            .any(|e| matches!(e, AgentEvent::Notice(n) if n.starts_with("the answer was cut off")));
        assert_eq!(noticed, cut, "{finish:?}");
        assert_eq!(h.provider.requests.lock().unwrap().len(), 1);
    }
}

/// Counts the instances it keeps and which instance saw each point (0: a plain call).
struct Keeping {
    subs: Vec<Subscription>,
    made: Arc<std::sync::atomic::AtomicUsize>,
    calls: Arc<Mutex<Vec<(usize, String, String)>>>,
}

struct Kept {
    number: usize,
    calls: Arc<Mutex<Vec<(usize, String, String)>>>,
}

fn detail(payload: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(payload).unwrap();
    value["callId"]
        .as_str()
        .or(value["kind"].as_str())
        .unwrap_or_default()
        .to_string()
}

impl Interceptor for Keeping {
    fn source(&self) -> &str {
        "keeping"
    }
    fn points(&self) -> &[Subscription] {
        &self.subs
    }
    fn intercept(&self, point: &str, payload: &str) -> Result<Decision, CallError> {
        self.calls
            .lock()
            .unwrap()
            .push((0, point.to_string(), detail(payload)));
        Ok(Decision::Proceed)
    }
    fn held(&self) -> Option<Box<dyn reasonix_core::interceptor::HeldInterceptor>> {
        let number = self.made.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        Some(Box::new(Kept {
            number,
            calls: self.calls.clone(),
        }))
    }
}

impl reasonix_core::interceptor::HeldInterceptor for Kept {
    fn intercept(&mut self, point: &str, payload: &str) -> Result<Decision, CallError> {
        self.calls
            .lock()
            .unwrap()
            .push((self.number, point.to_string(), detail(payload)));
        Ok(Decision::Proceed)
    }
}

#[test]
fn one_instance_serves_a_calls_tool_after_and_the_display_of_its_result() {
    let tool = FakeTool::new("peek", TEXT_SCHEMA, true, NO_EFFECTS).answering(Ok("seen".into()));
    let keeping = Arc::new(Keeping {
        subs: ["tool.after", "frontend.event"]
            .iter()
            .map(|p| Subscription {
                point: p.to_string(),
                priority: 0,
            })
            .collect(),
        made: Arc::default(),
        calls: Arc::default(),
    });
    let script = vec![answer(vec![
        call("c1", "peek", serde_json::json!({"text": "a"})),
        call("c2", "peek", serde_json::json!({"text": "b"})),
    ])];
    let h = Harness::new(vec![tool], vec![keeping.clone()], script);
    let mut agent = h.agent(Posture::Ask, Policy::default());
    h.run(&mut agent);
    let calls = keeping.calls.lock().unwrap().clone();
    // One instance per tool call, serving its `tool.after` and the display of its output, and
    // never another call's.
    assert_eq!(keeping.made.load(std::sync::atomic::Ordering::SeqCst), 2);
    for (number, id) in [(1, "c1"), (2, "c2")] {
        let mine: Vec<&str> = calls
            .iter()
            .filter(|(n, _, _)| *n == number)
            .map(|(_, point, _)| point.as_str())
            .collect();
        assert_eq!(
            mine,
            vec!["tool.after", "frontend.event"],
            "{id}: {calls:?}"
        );
        assert!(
            calls
                .iter()
                .any(|(n, p, d)| *n == number && p == "tool.after" && d == id),
            "{calls:?}"
        );
    }
    // Everything else is shown through plain calls.
    assert!(
        calls
            .iter()
            .any(|(n, p, _)| *n == 0 && p == "frontend.event"),
        "{calls:?}"
    );
}

/// What makes a tool external (offered beside `[tools] enabled`, deferrable behind the proxy)
/// is what the host says of it, never its name: a plugin's tool named like an MCP tool is
/// an ordinary tool.
#[test]
fn only_tools_the_host_calls_external_pass_tools_enabled_and_wait_behind_the_proxy() {
    let external = Effects {
        external: true,
        ..NO_EFFECTS
    };
    let catalog = FakeCatalog {
        tools: vec![
            FakeTool::new("mcp__s__echo", TEXT_SCHEMA, false, external),
            FakeTool::new("mcp__posing__x", TEXT_SCHEMA, true, NO_EFFECTS),
            FakeTool::new("read_file", PATH_SCHEMA, true, NO_EFFECTS),
        ],
        ..FakeCatalog::default()
    };
    let names = |offered: &Offered| -> Vec<String> {
        offered.specs.iter().map(|s| s.name.clone()).collect()
    };
    let enabled = vec!["read_file".to_string()];
    let got = offered(&catalog, Some(&enabled), deferred::DEFAULT_BUDGET);
    assert_eq!(names(&got), ["mcp__s__echo", "read_file"]);
    assert!(got.proxy.is_none());

    let enabled = vec!["read_file".to_string(), "mcp__posing__x".to_string()];
    let got = offered(&catalog, Some(&enabled), 0);
    assert_eq!(
        names(&got),
        ["mcp__posing__x", deferred::PROXY, "read_file"]
    );
    let proxy = got.proxy.as_ref().unwrap();
    assert!(proxy.is_deferred("mcp__s__echo"));
    assert!(!proxy.is_deferred("mcp__posing__x"));
    // The deferred tool stays callable.
    assert!(got.tools.iter().any(|t| t.spec().name == "mcp__s__echo"));
}

/// A tool that ran and reports its own failure (`ToolOutput::is_error`, an MCP result with
/// `isError`) reaches the model as an error result that keeps its images; a tool that fails
/// to run (`Err`) has none to keep.
#[test]
fn a_failure_the_tool_reports_is_an_error_result_with_its_images() {
    let shot = Image {
        media_type: "image/png".into(),
        data: "AAAA".into(),
    };
    let browse = FakeTool::new("browse", TEXT_SCHEMA, true, NO_EFFECTS).returning(ToolOutput {
        text: "the page did not load".into(),
        images: vec![shot.clone()],
        is_error: true,
    });
    let h = Harness::new(
        vec![browse],
        vec![],
        vec![
            answer(vec![call("c1", "browse", serde_json::json!({"text": "x"}))]),
            vec![
                StreamEvent::Text("it failed".into()),
                StreamEvent::Done(FinishReason::Stop),
            ],
        ],
    );
    let mut agent = h.agent(Posture::Ask, Policy::default());
    let (outcome, events) = h.run(&mut agent);
    assert_eq!(outcome.status, RunStatus::Success);
    assert_eq!(h.result_of("c1"), "Error: the page did not load");
    // The history keeps them for the request (the client passes them to a model that reads
    // images; this fake one does not).
    let result = agent
        .history()
        .iter()
        .find(|m| m.tool_call_id.as_deref() == Some("c1"))
        .unwrap();
    assert_eq!(result.images, vec![shot]);
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ToolFinished { is_error: true, id, .. } if id == "c1"
    )));
}

// ---------------------------------------------------------------- sub-agents (ADR 0035)

mod delegation_host {
    use super::*;
    use crate::agent_loop::delegation::{Built, ChildBuild, ChildFactory, Delegator, Limits};
    use reasonix_core::delegation::{ChildOutcome, ChildSpec, ChildStatus, ChildTools};

    /// A tool that records whether its call was lent a host and, when `delegates`, starts one
    /// read-only child through it.
    struct Probe {
        spec: ToolSpec,
        delegates: bool,
        lent: Mutex<Vec<bool>>,
        outcomes: Mutex<Vec<Result<Vec<ChildOutcome>, String>>>,
    }

    impl Probe {
        fn new(name: &str, delegates: bool) -> Arc<Probe> {
            Arc::new(Probe {
                spec: ToolSpec {
                    name: name.into(),
                    description: format!("the {name} tool"),
                    parameters: TEXT_SCHEMA.into(),
                    read_only: true,
                    guidance: None,
                },
                delegates,
                lent: Mutex::new(Vec::new()),
                outcomes: Mutex::new(Vec::new()),
            })
        }
    }

    impl Tool for Probe {
        fn spec(&self) -> &ToolSpec {
            &self.spec
        }
        fn source(&self) -> &str {
            "fake"
        }
        fn effects(&self) -> Effects {
            Effects::default()
        }
        fn delegates(&self) -> bool {
            self.delegates
        }
        fn invoke(&self, _arguments: &str, context: &ToolContext) -> Result<String, CallError> {
            self.lent.lock().unwrap().push(context.agents.is_some());
            if let Some(host) = &context.agents {
                let outcome = host.0.run(vec![ChildSpec {
                    profile: "explore".into(),
                    description: "look".into(),
                    prompt: "look around".into(),
                    system_prompt: "child system".into(),
                    tools: ChildTools::ReadOnly,
                    model: None,
                    effort: None,
                    write_paths: None,
                }]);
                self.outcomes.lock().unwrap().push(outcome);
            }
            Ok("probed".into())
        }
        fn preview(&self, _: &str, _: &ToolContext) -> Result<Vec<FileChange>, CallError> {
            Ok(Vec::new())
        }
    }

    /// Builds each child on the harness's provider (its scripted answers are shared, in order).
    struct Factory {
        /// One child's client (each test starts at most one).
        client: Mutex<Option<ProviderClient>>,
        built: Mutex<Vec<AgentConfig>>,
    }

    impl ChildFactory for Factory {
        fn build(&self, child: ChildBuild<'_>) -> Result<Built, String> {
            self.built.lock().unwrap().push(child.config.clone());
            let client = self.client.lock().unwrap().take().ok_or("one child only")?;
            let agent =
                Agent::new(child.catalog, client, child.config).map_err(|e| e.to_string())?;
            Ok(Built {
                agent,
                model: "fake/m".into(),
                notices: Vec::new(),
            })
        }
    }

    #[test]
    fn only_a_delegating_tool_is_lent_a_host_and_its_child_has_no_more_than_its_parent() {
        let delegating = Probe::new("delegate", true);
        let plain = Probe::new("plain", false);
        let reader = FakeTool::new("reader", PATH_SCHEMA, true, Effects::default());
        let writer = FakeTool::new("writer", PATH_SCHEMA, false, WRITES);
        let script = vec![
            answer(vec![
                call("c1", "plain", serde_json::json!({"text": "x"})),
                call("c2", "delegate", serde_json::json!({"text": "x"})),
            ]),
            vec![
                StreamEvent::Text("child says hi".into()),
                StreamEvent::Done(FinishReason::Stop),
            ],
        ];
        let tools: Vec<Arc<dyn Tool>> = vec![
            delegating.clone(),
            plain.clone(),
            reader.clone(),
            writer.clone(),
        ];
        let h = Harness::new(tools, vec![], script);
        let factory = Arc::new(Factory {
            client: Mutex::new(Some(h.client())),
            built: Mutex::new(Vec::new()),
        });
        let mut agent = h
            .agent(Posture::Auto, policy(&[], &[], &["writer"]))
            .with_lineage(Delegator::root(factory.clone(), Limits::default()));
        let (outcome, events) = h.run(&mut agent);
        assert_eq!(outcome.status, RunStatus::Success);
        // The plain tool ran without a host; the delegating one got one.
        assert_eq!(*plain.lent.lock().unwrap(), [false]);
        assert_eq!(*delegating.lent.lock().unwrap(), [true]);
        let outcomes = delegating.outcomes.lock().unwrap();
        let children = outcomes[0].as_ref().unwrap();
        assert_eq!(children[0].status, ChildStatus::Answered);
        assert_eq!(children[0].answer, "child says hi");
        // The child's request: its own system prompt, the parent's read-only tools only (no
        // writer, no delegating tool), and the parent's rules and posture.
        let requests = h.provider.requests.lock().unwrap();
        let child = &requests[1];
        assert!(child.messages[0].content.starts_with("child system"));
        let mut offered: Vec<&str> = child.tools.iter().map(|t| t.name.as_str()).collect();
        offered.sort();
        assert_eq!(offered, ["plain", "reader"]);
        let built = factory.built.lock().unwrap();
        assert_eq!(built[0].posture, Posture::Auto);
        assert_eq!(built[0].policy.deny.len(), 1, "the parent's deny rule");
        // Its events came through the parent's stream, wrapped, first to last.
        let child_events: Vec<&AgentEvent> = events
            .iter()
            .filter(|e| matches!(e, AgentEvent::Child { .. }))
            .collect();
        assert!(matches!(
            child_events.first().map(|e| e.lineage().1),
            Some(AgentEvent::SubagentStarted { .. })
        ));
        assert!(matches!(
            child_events.last().map(|e| e.lineage().1),
            Some(AgentEvent::SubagentFinished { .. })
        ));
        assert_eq!(
            child_events[0].agent_ids(),
            Some(("main/c2".to_string(), "main".to_string()))
        );
    }

    #[test]
    fn the_depth_limit_refuses_a_deeper_child_before_it_is_built() {
        let delegating = Probe::new("delegate", true);
        let script = vec![answer(vec![call(
            "c1",
            "delegate",
            serde_json::json!({"text": "x"}),
        )])];
        let h = Harness::new(vec![delegating.clone()], vec![], script);
        let factory = Arc::new(Factory {
            client: Mutex::new(Some(h.client())),
            built: Mutex::new(Vec::new()),
        });
        let limits = Limits {
            max_depth: 1,
            ..Limits::default()
        };
        let mut deep = Delegator::root(factory.clone(), limits);
        deep.depth = 1;
        let mut agent = h.agent(Posture::Auto, Policy::default()).with_lineage(deep);
        h.run(&mut agent);
        let outcomes = delegating.outcomes.lock().unwrap();
        let refused = outcomes[0].as_ref().unwrap_err();
        assert!(refused.contains("nest at most 1 deep"), "{refused}");
        assert!(factory.built.lock().unwrap().is_empty());
    }
}
