//! The end-to-end tests, in one test binary (`cargo test -p reasonix --test e2e [FILTER]`):
//! linking wasmtime into one executable instead of one per file keeps the build short. Each
//! file here is a module; run one with its module path as the filter, e.g.
//! `cargo test -p reasonix --test e2e shell::` or `--test e2e cli::tools_list`.
//!
//! Every test runs on a thread of this one process, next to tests from the other modules, so no
//! test may change process-wide state: no `std::env::set_var`/`remove_var` (give a child
//! process its variables with `Command::env`), no `set_current_dir` (`Command::current_dir`),
//! no fixed paths or ports shared between tests (a temporary directory per test, port 0).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

// The built-in components, embedded once for every module (`crate::BUILTINS`).
use reasonix_runtime::builtins::BUILTINS;

mod acp;
mod agent;
mod builtin_interceptors;
mod claude_compat;
mod claude_flags;
mod cli;
mod compaction;
mod compositions;
mod delegation;
mod edit_tools;
mod events;
mod first_run;
mod fleets;
mod go_config;
mod goal_mode;
mod history;
mod hooks;
mod i18n;
mod local_fetch;
mod lsp;
mod mcp;
mod mcp_cli;
mod mcp_images;
mod mcp_pipeline;
mod memory;
mod packages;
mod pinned_scripts;
mod pipeline;
mod plan_mode;
mod planner;
mod plugin_lifecycle;
mod plugin_sdk;
mod points;
mod polyglot;
mod polyglot_js;
mod provider_config;
mod providers;
mod proxy;
mod registry;
mod rewind;
mod run;
mod run_faults;
mod run_formats;
mod run_modes;
mod run_scenarios;
mod sandbox;
mod search_tools;
mod security_config;
mod security_fs;
mod security_host;
mod security_process;
mod security_terminal;
mod serve;
mod session_commands;
mod setup;
mod shell;
mod sidecar;
mod skills;
mod tui;
mod tui_mcp;
mod tui_questions;
mod tui_render;
mod tui_rewind;
mod untrusted_interceptors;
mod web_fetch;
mod webui;
