//! Sub-agents on the runtime's side (ADR 0035): the delegating host tools, the profiles they
//! resolve when they run, and the factory that builds children for the agent.

pub mod factory;
pub mod profiles;
pub mod tools;

use reasonix_agent::delegation::Limits;
use reasonix_config::AgentSettings;
use reasonix_config::run_mode::RunMode;

/// The session's sub-agent limits under a run mode, from `[agent]`.
pub fn limits_in(settings: &AgentSettings, mode: RunMode) -> Limits {
    let configured = limits(settings);
    let as_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let (max_depth, concurrency, writers) = mode.subagent_limits((
        configured.max_depth,
        as_u32(configured.max_concurrency),
        as_u32(configured.max_writers),
    ));
    Limits {
        max_depth,
        max_concurrency: concurrency as usize,
        max_writers: writers as usize,
    }
}

/// The session's sub-agent limits from `[agent]` (writers never more than the concurrency).
pub fn limits(settings: &AgentSettings) -> Limits {
    let default = Limits::default();
    let max_concurrency = settings
        .max_subagent_concurrency
        .map_or(default.max_concurrency, |n| n as usize);
    Limits {
        max_depth: settings.max_subagent_depth.unwrap_or(default.max_depth),
        max_concurrency,
        max_writers: settings
            .max_parallel_writers
            .map_or(default.max_writers, |n| n as usize)
            .min(max_concurrency),
    }
}

/// Where the profiles of `cx` come from: its home and its installed packages' `agents/`.
pub fn profile_sources(cx: &crate::context::Context) -> profiles::Sources {
    profiles::Sources {
        home: cx.paths.home.clone(),
        packages: crate::packages::folders(&cx.packages, |p| &p.agents),
    }
}
