//! Everything a session needs before its first turn, shared by `reasonix run` and the
//! interactive session: configuration, the sidecars and the catalog, the provider client, the
//! session file (new, `--continue`, `--resume`), and the agent.

pub mod planner;

use crate::Error;
use crate::context::{self, Context};
use crate::sidecars;
use reasonix_agent::agent_loop::Spend;
use reasonix_agent::agent_loop::{Agent, AgentConfig, budget, prompt};
use reasonix_agent::completion::ProviderClient;
use reasonix_agent::fork;
use reasonix_agent::permissions::{Posture, Rule};
use reasonix_agent::session::{self, SessionError, SessionStore, SessionWriter, Summary};
use reasonix_config::providers::{self, ResolvedProvider};
use reasonix_config::run_mode::RunMode;
use reasonix_core::catalog::Catalog;
use reasonix_core::evidence::Entry;
use reasonix_core::types::Message;
use reasonix_core::types::ToolSpec;
use reasonix_sidecar::Sidecars;
use std::path::PathBuf;
use std::sync::Arc;

/// Model requests per run when neither `--max-steps` nor `[agent] max_steps` says.
pub const DEFAULT_MAX_STEPS: u32 = 100;

pub use crate::resume::Resume;

/// The runtime of one workspace, what every front end opens first: its configuration, the
/// plugin registry with the built-ins, the installed sidecars, the MCP servers and the catalog
/// they compose. [`Runtime::launch`] builds an agent on it, [`Runtime::session`] a session
/// service around that agent.
pub struct Runtime {
    pub cx: Context,
    pub workspace: PathBuf,
    /// Held, never read: dropping it stops the sidecar processes.
    pub sidecars: Sidecars,
    /// The MCP servers (starting in the background).
    pub mcp: reasonix_mcp::Servers,
    pub catalog: Arc<dyn Catalog>,
    /// The skills (read once, at open: the index in the prompt stays what it was).
    pub skills: Arc<reasonix_skills::Catalog>,
    /// The agent composition in force (its narrowing is applied to `cx.config` already).
    pub composition: Option<reasonix_config::composition::Defined>,
    /// The saved facts (`remember`, `memory`, recall into each turn).
    pub memory: Arc<crate::memory::Memory>,
}

/// What `reasonix run`'s flags change in the configuration before the runtime starts.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--mcp-config` servers.
    pub mcp_servers: Vec<reasonix_config::mcp::ServerSpec>,
    /// `--strict-mcp-config`: only those servers, none of the configured ones.
    pub strict_mcp: bool,
    /// `--setting-sources`, `--settings`.
    pub settings: reasonix_config::SettingsChoice,
    /// `--agent-composition`.
    pub composition: Option<String>,
    /// `-c` / `-r`: the session to continue keeps the composition it was started with.
    pub resume: Option<Resume>,
    /// Where the project's configuration is read (default: the current directory).
    pub project_dir: Option<std::path::PathBuf>,
}

impl Runtime {
    /// Load the configuration (with `--add-dir` directories writable) and start the runtime.
    pub fn open(dir: Option<&std::path::Path>, add_dirs: Vec<String>) -> Result<Runtime, Error> {
        Runtime::open_with(dir, add_dirs, &Overrides::default())
    }

    /// [`Runtime::open`], with the command line's MCP servers and settings sources.
    pub fn open_with(
        dir: Option<&std::path::Path>,
        add_dirs: Vec<String>,
        overrides: &Overrides,
    ) -> Result<Runtime, Error> {
        open_runtime(dir, add_dirs, overrides)
    }

    /// Build the agent as `options` say.
    pub fn launch(&self, options: &Options) -> Result<Launched, Error> {
        launch(self, options)
    }
}

fn open_runtime(
    dir: Option<&std::path::Path>,
    add_dirs: Vec<String>,
    overrides: &Overrides,
) -> Result<Runtime, Error> {
    let mut chosen: Result<Option<reasonix_config::composition::Defined>, Error> = Ok(None);
    let cx = context::load_adjusted_in(
        overrides.project_dir.as_deref(),
        &overrides.settings,
        |config| {
            crate::mcp::flags::apply(
                &mut config.mcp_servers,
                &overrides.mcp_servers,
                overrides.strict_mcp,
            );
            if !add_dirs.is_empty() {
                config
                    .sandbox
                    .allow_write
                    .get_or_insert_with(Vec::new)
                    .extend(add_dirs);
            }
            // Last: a composition narrows what everything above allows.
            chosen = crate::compositions::choose(
                config,
                dir,
                overrides.composition.as_deref(),
                overrides.resume.as_ref(),
            )
            .and_then(|c| {
                if let Some(c) = &c {
                    config
                        .narrow_by(c)
                        .map_err(|e| Error::usage(e.to_string()))?;
                }
                Ok(c)
            });
        },
    )?;
    let composition = chosen?;
    let workspace = context::resolve_workspace(dir, cx.config.sandbox.workspace_root.as_deref())?;
    // Installed sidecar packages only (never anything a project file names); none installed,
    // nothing spawned.
    let sidecars = sidecars::start(
        &cx.paths.plugins_dir(),
        crate::packages::sidecars(&cx.packages),
        &workspace,
        reasonix_core::sandbox::SandboxConfig {
            settings: cx.config.sandbox.clone(),
            tools: cx.config.tools.clone(),
            always_forbidden: vec![cx.paths.credentials_file()],
            hidden: cx.paths.kernel_dirs(),
            executed_files: cx.config.executed_files.clone(),
        },
    )?;
    let mcp = crate::mcp::start(&cx, &workspace);
    let history: Arc<dyn reasonix_core::tool::Tool> =
        Arc::new(crate::history::HistoryTool::new(&cx.paths.state));
    let memory = crate::memory::Memory::new(&cx.paths.state);
    let mut host_tools = vec![
        history,
        Arc::new(crate::memory::RememberTool::new(memory.clone())),
        Arc::new(crate::memory::MemoryTool::new(memory.clone())),
    ];
    if cx.config.lsp.enabled != Some(false) {
        let lsp = crate::lsp::Lsp::new(
            &cx.config.lsp,
            reasonix_core::sandbox::SandboxConfig {
                settings: cx.config.sandbox.clone(),
                tools: cx.config.tools.clone(),
                always_forbidden: vec![cx.paths.credentials_file()],
                hidden: cx.paths.kernel_dirs(),
                executed_files: cx.config.executed_files.clone(),
            },
        );
        // Offered where a language with a server has its project file at the root: elsewhere
        // the five specs would only cost prompt bytes.
        if lsp.useful_in(&workspace) {
            host_tools.extend(crate::lsp::tools(&lsp));
        }
    }
    let profiles = Arc::new(crate::delegate::profile_sources(&cx));
    host_tools.extend(crate::delegate::tools::Delegating::all_from(
        profiles.clone(),
    ));
    host_tools.push(Arc::new(
        reasonix_agent::agent_loop::plan::ExitPlanMode::new(),
    ));
    host_tools.push(Arc::new(crate::evidence::CompleteStep::new()));
    let skills = Arc::new(crate::skills::catalog(
        &cx.paths,
        &cx.config,
        &workspace,
        &cx.packages,
    ));
    if !cx.config.skills.suppress_warnings {
        for warning in &skills.warnings {
            crate::term::errln!(
                "warning: skills: {}",
                reasonix_core::terminal::shown(warning)
            );
        }
    }
    if let Some(tool) = crate::skills::SkillTool::new(skills.clone(), profiles) {
        host_tools.push(Arc::new(tool));
    }
    let catalog: Arc<dyn Catalog> = Arc::new(
        sidecars::Composed::new(cx.registry.clone(), &sidecars, mcp.clone())
            .with_host_tools(host_tools)
            .wrapping(crate::evidence::checklist::TOOL, |tool| {
                Arc::new(crate::evidence::Checklist::new(tool))
            }),
    );
    Ok(Runtime {
        cx,
        workspace,
        sidecars,
        mcp,
        catalog,
        skills,
        composition,
        memory,
    })
}

/// How the agent is to be set up.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub model: Option<String>,
    pub fallback_model: Option<String>,
    pub effort: Option<String>,
    pub posture: Posture,
    pub extra_allow: Vec<Rule>,
    pub extra_deny: Vec<Rule>,
    pub system_prompt: Option<String>,
    pub append_system_prompt: Option<String>,
    pub max_steps: Option<u32>,
    /// `--max-budget-usd`: refused unless every model the run may use is priced in dollars.
    pub budget_usd: Option<f64>,
    pub resume: Option<Resume>,
    /// `--session-id`: the id of the new session (a new one, or the fork with
    /// `fork_session`); checked by the caller.
    pub session_id: Option<String>,
    /// `--fork-session`: a resumed session goes on in a new session; its own file is untouched.
    pub fork_session: bool,
    /// `--tools`: the tools offered (MCP tools come in addition), over `[tools] enabled`.
    pub enabled_tools: Option<Vec<String>>,
    /// `--name`: the session's title (checked by the caller).
    pub title: Option<String>,
    /// `--no-session-persistence`: nothing is written to the session store (a resumed session
    /// is only read).
    pub no_persistence: bool,
    /// Ask an endpoint's model list for an unknown window before starting (headless), rather
    /// than in the background for the next start (the interactive session: no blank wait).
    pub wait_for_model_list: bool,
    /// `--mode` (over `[agent] mode`).
    pub mode: Option<RunMode>,
    /// The session pursues a goal from its start (`run --goal`): steps need receipts.
    pub goal: bool,
}

/// A ready agent and what a front end shows about it.
pub struct Launched {
    pub agent: Agent,
    pub store: SessionStore,
    pub resolved: Vec<ResolvedProvider>,
    /// Messages loaded from the resumed session (0 for a new one).
    pub resumed_messages: usize,
    /// The agent's configuration, for rebuilding it (`/model`, `/reload`).
    pub config: AgentConfig,
    /// The run mode in force.
    pub mode: RunMode,
}

fn launch(prepared: &Runtime, options: &Options) -> Result<Launched, Error> {
    let cx = &prepared.cx;
    let mut resolved = providers::resolve_providers(&cx.config).map_err(|e| Error::usage_of(&e))?;
    let store = SessionStore::new(&cx.paths.state, &prepared.workspace);

    // The session to continue decides the default model.
    let resume = match &options.resume {
        None => None,
        Some(Resume::Latest) => Some(store.latest().map_err(|e| {
            let hint = matches!(e, SessionError::NoneToContinue)
                .then(|| reasonix_agent::session::go::hint(&cx.paths.state))
                .flatten();
            match hint {
                Some(hint) => Error::usage(format!("{e}; {hint}")),
                None => session_failure(e),
            }
        })?),
        Some(Resume::Query(query)) => Some(store.find(query).map_err(session_failure)?),
    };
    // Nothing configured, but a preset's key is in the environment or `<home>/.env`
    // (`DEEPSEEK_API_KEY` …): that preset, without asking.
    let implicit = (options.model.is_none()
        && matches!(
            providers::resolve_model(None, cx.config.default_model.as_deref(), &resolved),
            Err(providers::ModelRefError::NoProviders)
        ))
    .then(|| fallback_model(&cx.paths))
    .flatten();
    // A session keeps the composition it was started with (the front end opened the runtime
    // with it for `-c` and `-r`); never another one.
    if let Some(bound) = resume.as_ref().and_then(|r| r.composition.as_ref())
        && prepared.composition.as_ref().map(|c| &c.name) != Some(&bound.name)
    {
        return Err(Error::usage(format!(
            "this session was started with the agent composition `{}`; continue it with `-c` or `-r` (which restore it) or `--agent-composition {}`",
            reasonix_core::terminal::shown(&bound.name),
            reasonix_core::terminal::shown(&bound.name)
        )));
    }
    let model = options.model.as_deref().or(implicit.as_deref());
    let build = |resolved: &[ResolvedProvider]| {
        client_for(
            prepared,
            resolved,
            model,
            resume.as_ref(),
            options.effort.as_deref(),
        )
    };
    let mode = options.mode.or(cx.config.agent.mode).unwrap_or_default();
    let mut client = build(&resolved)?;
    // No window configured: the endpoint's model list may say it (asked once a week).
    if crate::model_window::fill_in(
        &client,
        &mut resolved,
        &cx.paths.state,
        options.wait_for_model_list,
    ) {
        client = build(&resolved)?;
    }
    let client = in_mode(prepared, &resolved, model, resume.as_ref(), client, mode)?;
    let fallback = match options.fallback_model.as_deref() {
        Some(reference) => Some(fallback_client(
            prepared,
            &resolved,
            reference,
            &client,
            options.effort.as_deref(),
        )?),
        None => None,
    };

    if let Some(usd) = options.budget_usd {
        for c in std::iter::once(&client).chain(fallback.as_ref()) {
            if let Some(why) = budget::not_in_dollars(c.provider(), c.model()) {
                return Err(Error::usage(format!(
                    "--max-budget-usd {usd}: {why}, so the budget could never be reached; \
                     give the model a price in dollars (`price = {{ input = …, output = …, \
                     currency = \"USD\" }}` in its [[providers]] entry) or leave the flag out"
                )));
            }
        }
    }
    let mut policy = reasonix_agent::permissions::Policy::from(
        cx.config
            .permission_rules()
            .map_err(|e| Error::usage_of(&e))?,
    );
    policy.allow.extend(options.extra_allow.iter().cloned());
    policy.deny.extend(options.extra_deny.iter().cloned());
    let enabled_tools = crate::compositions::tools(
        prepared.composition.as_ref(),
        options
            .enabled_tools
            .clone()
            .or_else(|| cx.config.tools.enabled_tools()),
        prepared.catalog.as_ref(),
    )?;
    let specs = offered_tools(prepared.catalog.as_ref(), enabled_tools.as_deref());
    let config_prompt = match &options.system_prompt {
        Some(text) => Some(text.clone()),
        None => cx.config.system_prompt().map_err(|e| Error::usage_of(&e))?,
    };
    // Part 1; the built-in interceptors append the environment and the instructions when the
    // agent is created (`system_prompt.build`).
    let system_prompt = prompt::build(config_prompt.as_deref(), &specs);
    let max_steps = options
        .max_steps
        .or(cx.config.agent.max_steps)
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_MAX_STEPS);
    let max_output_tokens = cx.config.agent.max_output_tokens.filter(|n| *n > 0);
    let compaction = cx.config.agent.compaction_ratios().map_err(Error::usage)?;

    let (mut writer, history, spent, evidence) =
        session_for(&store, resume.as_ref(), &client, options)?;
    if let (Some(writer), Some(title)) = (&mut writer, &options.title) {
        writer
            .append(&session::Record::Title {
                title: title.clone(),
                at_ms: crate::clock::now_ms(),
            })
            .map_err(session_failure)?;
    }
    if let (Some(writer), Some(c)) = (&mut writer, &prepared.composition) {
        let bound = resume.as_ref().and_then(|r| r.composition.as_ref());
        if bound.is_none() || options.fork_session {
            writer
                .append(&session::Record::Composition {
                    name: c.name.clone(),
                    sha256: c.sha256(),
                    at_ms: crate::clock::now_ms(),
                })
                .map_err(session_failure)?;
        }
    }
    let resumed_messages = history.len();
    let config = AgentConfig {
        workspace: prepared.workspace.clone(),
        system_prompt,
        append_system_prompt: crate::reasoning_language::appended(
            crate::compositions::with_persona(
                options.append_system_prompt.clone(),
                prepared.composition.as_ref(),
            ),
            cx.config.agent.reasoning_language.as_deref(),
        ),
        max_steps,
        posture: options.posture,
        policy,
        effort: options.effort.clone(),
        max_output_tokens,
        enabled_tools,
        compaction,
        mcp_schema_budget: cx
            .config
            .tools
            .mcp_schema_budget
            .map_or(reasonix_agent::agent_loop::deferred::DEFAULT_BUDGET, |b| {
                usize::try_from(b).unwrap_or(usize::MAX)
            }),
    };
    let planner = planner::build(
        prepared,
        &resolved,
        &client,
        &config,
        (!options.no_persistence).then_some(&store),
        writer.as_ref().map(|w| w.id()),
    )?;
    let agent = Agent::new(prepared.catalog.clone(), client, config.clone())
        .map_err(|e| Error::usage(format!("{e}")))?;
    let mut agent = match writer {
        Some(writer) => agent.with_session(writer, history),
        None => agent.with_history(history),
    }
    .with_spend(spent);
    if let Some(fallback) = fallback {
        agent = agent.with_fallback(fallback);
    }
    if let Some(usd) = options.budget_usd {
        agent = agent.with_budget(budget::Budget { usd });
    }
    let factory = crate::delegate::factory::Factory {
        resolved: resolved.clone(),
        home: cx.paths.home.clone(),
        settings: cx.config.agent.clone(),
        store: (!options.no_persistence).then(|| store.clone()),
    };
    agent = agent.with_lineage(reasonix_agent::delegation::Delegator::root(
        Arc::new(factory),
        crate::delegate::limits_in(&cx.config.agent, mode),
    ));
    agent
        .evidence()
        .0
        .set_strictness(mode.strictness(options.goal));
    // A resumed session has its receipts, steps and task list back.
    agent.evidence().0.replay(&evidence);
    if let Some(planner) = planner {
        agent = agent.with_planner(planner);
    }
    Ok(Launched {
        agent,
        store,
        resolved,
        resumed_messages,
        config,
        mode,
    })
}

/// `client` (built for `reference` by [`client_for`]) with the effort level `mode` asks for,
/// when it has none of its own (no `--effort`, none configured) and the model offers it.
/// The level is the client's, not each request's: a request naming another level than its
/// client's costs a profile check every time.
pub fn in_mode(
    prepared: &Runtime,
    resolved: &[ResolvedProvider],
    reference: Option<&str>,
    resume: Option<&Summary>,
    client: ProviderClient,
    mode: RunMode,
) -> Result<ProviderClient, Error> {
    match mode_effort(&client, mode) {
        Some(level) => client_for(prepared, resolved, reference, resume, Some(level)),
        None => Ok(client),
    }
}

/// The effort level `mode` asks of `client`: only when the client has none of its own (no
/// `--effort`, none configured) and the model offers that level.
fn mode_effort(client: &ProviderClient, mode: RunMode) -> Option<&'static str> {
    let level = mode.effort()?;
    (client.effort().is_none()
        && client
            .profile()
            .effort_levels
            .iter()
            .any(|l| l.eq_ignore_ascii_case(level)))
    .then_some(level)
}

/// The transcript to write (none with `--no-session-persistence`), the history to go on from,
/// what it already spent and its evidence ledger's entries.
type SessionFor = (Option<SessionWriter>, Vec<Message>, Spend, Vec<Entry>);

/// The transcript to write (none with `--no-session-persistence`), the history to go on from
/// and what it already spent.
fn session_for(
    store: &SessionStore,
    resume: Option<&Summary>,
    client: &ProviderClient,
    options: &Options,
) -> Result<SessionFor, Error> {
    let Some(summary) = resume else {
        if options.no_persistence {
            return Ok((None, Vec::new(), Spend::default(), Vec::new()));
        }
        let provider = &client.provider().name;
        let writer = match &options.session_id {
            Some(id) => store.create_as(id, provider, client.model(), None),
            None => store.create(provider, client.model()),
        }
        .map_err(session_failure)?;
        return Ok((Some(writer), Vec::new(), Spend::default(), Vec::new()));
    };
    if options.no_persistence {
        let loaded = session::load(&store.transcript(&summary.id)).map_err(session_failure)?;
        return Ok((None, loaded.messages, loaded.spend, loaded.evidence));
    }
    let id = if options.fork_session {
        fork::fork_as(store, &summary.id, None, options.session_id.as_deref()).map_err(
            |e| match e {
                fork::ForkError::Session(e) => session_failure(e),
                other => Error::runtime(format!("--fork-session: {other}")),
            },
        )?
    } else {
        summary.id.clone()
    };
    let (writer, loaded) = store.open(&id).map_err(session_failure)?;
    Ok((Some(writer), loaded.messages, loaded.spend, loaded.evidence))
}

/// The provider client for a model reference (else the resumed session's model, else
/// `default_model`).
pub fn client_for(
    prepared: &Runtime,
    resolved: &[ResolvedProvider],
    reference: Option<&str>,
    resume: Option<&Summary>,
    effort: Option<&str>,
) -> Result<ProviderClient, Error> {
    let session_model = resume
        .map(|s| format!("{}/{}", s.provider, s.model))
        .filter(|r| providers::resolve_model(Some(r), None, resolved).is_ok());
    let reference = reference.or(session_model.as_deref());
    ProviderClient::new(
        prepared.catalog.as_ref(),
        resolved,
        reference,
        prepared.cx.config.default_model.as_deref(),
        effort,
        &prepared.cx.paths.home,
    )
    .map_err(|e| Error::usage_of(&e))
}

fn fallback_client(
    prepared: &Runtime,
    resolved: &[ResolvedProvider],
    reference: &str,
    main: &ProviderClient,
    effort: Option<&str>,
) -> Result<ProviderClient, Error> {
    let fallback = ProviderClient::new(
        prepared.catalog.as_ref(),
        resolved,
        Some(reference),
        None,
        effort,
        &prepared.cx.paths.home,
    )
    .map_err(|e| Error::usage(format!("--fallback-model {reference}: {e}")))?;
    if fallback.provider().name == main.provider().name && fallback.model() == main.model() {
        return Err(Error::usage(format!(
            "--fallback-model {reference}: that is the main model ({}/{}); name another one",
            main.provider().name,
            main.model()
        )));
    }
    Ok(fallback)
}

/// The tools the agent will offer, in its order (sorted by name), for the system prompt.
pub fn offered_tools(catalog: &dyn Catalog, enabled: Option<&[String]>) -> Vec<ToolSpec> {
    let mut specs: Vec<ToolSpec> = catalog
        .tools()
        .iter()
        .map(|t| t.spec().clone())
        .filter(|s| enabled.is_none_or(|names| names.contains(&s.name)))
        .collect();
    specs.sort_by(|a, b| a.name.cmp(&b.name));
    specs
}

/// Finding the session is a usage problem (wrong id, nothing to continue); reading or
/// locking it is a runtime one.
pub fn session_failure(e: SessionError) -> Error {
    match e {
        SessionError::NotFound(_)
        | SessionError::Ambiguous { .. }
        | SessionError::NoneToContinue
        | SessionError::Exists(_) => Error::usage_of(&e),
        _ => Error::runtime_of(&e),
    }
}

/// `--add-dir` values: existing directories, canonicalized.
pub fn add_dirs(values: &[PathBuf]) -> Result<Vec<String>, Error> {
    values
        .iter()
        .map(|dir| {
            let canonical = dir
                .canonicalize()
                .map_err(|e| Error::usage(format!("--add-dir {}: {e}", dir.display())))?;
            if !canonical.is_dir() {
                return Err(Error::usage(format!(
                    "--add-dir {}: not a directory",
                    dir.display()
                )));
            }
            canonical.to_str().map(str::to_string).ok_or_else(|| {
                Error::usage(format!(
                    "--add-dir {}: the path is not valid UTF-8",
                    dir.display()
                ))
            })
        })
        .collect()
}

/// The first preset (DeepSeek first, then the file's order) whose key is in the environment
/// or `<home>/.env`: a model reference that works with no config at all. Today's
/// `resolve_model` does not fall back on it by itself (docs/tui/setup.md).
pub fn fallback_model(paths: &reasonix_config::Paths) -> Option<String> {
    let mut presets: Vec<&reasonix_config::providers::Preset> =
        reasonix_config::providers::presets().iter().collect();
    presets.sort_by_key(|p| p.id != "deepseek");
    presets
        .into_iter()
        .find(|p| {
            p.api_key_env.as_deref().is_some_and(|env| {
                reasonix_config::providers::dotenv::secret_with_source(env, &paths.home).is_some()
            })
        })
        .map(|p| p.id.clone())
}
