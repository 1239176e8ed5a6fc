//! The component host: one shared wasmtime engine, a linker with every host service and the
//! full WASI p2 import set (deny-by-default contexts), per-call stores with a memory limiter
//! and an epoch deadline.

pub mod bindings;
mod deadline;
mod engine;
pub mod fs_guard;
pub mod http;
pub mod limits;
pub mod process;
mod services;
pub mod state;

use crate::cache::ArtifactCache;
use crate::error::CallError;
use state::{LogSink, PluginState};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;
use wasmtime::component::{HasSelf, Linker};
use wasmtime::{Engine, Store, Trap};

/// How often the epoch advances; deadlines are counted in these ticks.
const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Told the label of each component about to be compiled (that takes seconds, so a front end
/// says so instead of showing nothing).
pub type CompileNotice = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// The shared engine and linker. Cheap to share behind an `Arc`.
pub struct ComponentHost {
    compile_notice: Option<CompileNotice>,
    engine: Engine,
    linker: Linker<PluginState>,
    cache: ArtifactCache,
    ticker: OnceLock<()>,
    log: Option<LogSink>,
    /// Jobs of the `process` service; they outlive the calls that start them.
    processes: std::sync::Arc<process::ProcessHost>,
    /// Stores created so far: every component call costs one (a counter, for tests and
    /// benchmarks that check how many a step costs).
    stores: std::sync::atomic::AtomicU64,
}

impl ComponentHost {
    /// A host whose compiled artifacts live in `cache_dir`, sealed with the key in
    /// `cache_key` (see [`ArtifactCache`]); plugin log lines go to `log`.
    pub fn new(
        cache_dir: PathBuf,
        cache_key: PathBuf,
        log: Option<LogSink>,
    ) -> wasmtime::Result<ComponentHost> {
        let engine = Engine::new(&engine::config())?;
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
        // Path-taking filesystem calls go through the guard (hidden, forbidden and protected
        // paths; plugin-made symlinks).
        fs_guard::linker::shadow_filesystem(&mut linker)?;
        // Outbound HTTP; every request is checked against the grant (`http.rs`).
        wasmtime_wasi_http::p2::add_only_http_to_linker_sync(&mut linker)?;
        bindings::AllRoles::add_to_linker::<_, HasSelf<_>>(&mut linker, |state| state)?;
        // Blocking waits end at the call's deadline; host-held resources are counted.
        deadline::shadow_blocking_io(&mut linker)?;
        limits::shadow_counted(&mut linker)?;
        let cache = ArtifactCache::new(cache_dir, &engine, cache_key);
        Ok(ComponentHost {
            compile_notice: None,
            engine,
            linker,
            cache,
            ticker: OnceLock::new(),
            log,
            processes: std::sync::Arc::new(process::ProcessHost::new()),
            stores: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// Call `notice` before each compile.
    pub fn with_compile_notice(mut self, notice: Option<CompileNotice>) -> ComponentHost {
        self.compile_notice = notice;
        self
    }

    pub(crate) fn notify_compile(&self, label: &str) {
        if let Some(notice) = &self.compile_notice {
            notice(label);
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn linker(&self) -> &Linker<PluginState> {
        &self.linker
    }

    pub fn cache(&self) -> &ArtifactCache {
        &self.cache
    }

    /// The job table of the `process` service.
    pub fn processes(&self) -> &process::ProcessHost {
        &self.processes
    }

    pub fn log_sink(&self) -> Option<LogSink> {
        self.log.clone()
    }

    /// A fresh store for one call, trapping once `timeout_ms` of wall time has passed.
    pub fn new_store(&self, mut state: PluginState, timeout_ms: u64) -> Store<PluginState> {
        self.start_ticker();
        self.stores
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        state.processes = Some(self.processes.clone());
        state.call_deadline =
            std::time::Instant::now().checked_add(Duration::from_millis(timeout_ms));
        let mut store = Store::new(&self.engine, state);
        store.limiter(|state| &mut state.limiter);
        store.set_epoch_deadline(self.new_store_deadline_ticks(timeout_ms));
        store.epoch_deadline_trap();
        store
    }

    /// How many stores this host has created (one per component call).
    pub fn stores_created(&self) -> u64 {
        self.stores.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The epoch deadline, in ticks from now, for a call of `timeout_ms`.
    pub fn new_store_deadline_ticks(&self, timeout_ms: u64) -> u64 {
        let tick_ms = u64::try_from(EPOCH_TICK.as_millis()).unwrap_or(1).max(1);
        timeout_ms.div_ceil(tick_ms).max(1)
    }

    /// The epoch only needs to advance once something runs; starting the thread lazily keeps it
    /// off the start-up path of commands that never call a plugin.
    fn start_ticker(&self) {
        self.ticker.get_or_init(|| {
            let engine = self.engine.weak();
            std::thread::Builder::new()
                .name("reasonix-epoch".into())
                .spawn(move || {
                    while let Some(engine) = engine.upgrade() {
                        engine.increment_epoch();
                        drop(engine);
                        std::thread::sleep(EPOCH_TICK);
                    }
                })
                .map(|_| ())
                .unwrap_or(())
        });
    }
}

/// Turn a wasmtime error from a call into what happened, in words.
pub fn classify_trap(
    error: wasmtime::Error,
    store: &Store<PluginState>,
    timeout_ms: u64,
    memory_mib: u64,
) -> CallError {
    let plugin = store.data().plugin.to_string();
    if store.data().limiter.exceeded {
        return CallError::Memory {
            plugin,
            limit_mib: memory_mib,
        };
    }
    if error.downcast_ref::<Trap>() == Some(&Trap::Interrupt)
        || error.chain().any(|e| e.is::<deadline::DeadlinePassed>())
    {
        return CallError::Deadline { plugin, timeout_ms };
    }
    let exceeded = error
        .chain()
        .find_map(|e| e.downcast_ref::<limits::LimitExceeded>().cloned())
        .or_else(|| limits::table_limit_exceeded(&error, &store.data().usage.limits));
    if let Some(exceeded) = exceeded {
        return CallError::HostLimit { plugin, exceeded };
    }
    if let Some(exit) = error.downcast_ref::<wasmtime_wasi::I32Exit>() {
        return CallError::Exited {
            plugin,
            status: exit.0,
        };
    }
    // A trap's own text already starts with "wasm trap:".
    let mut message = match error.downcast_ref::<Trap>() {
        Some(Trap::StackOverflow) => "stack overflow (wasm trap: call stack exhausted)".to_string(),
        Some(Trap::MemoryOutOfBounds) if recursed(&error) => {
            "stack overflow: it recursed without end until its stack ran out (wasm trap: out of bounds memory access)".to_string()
        }
        Some(trap) => trap.to_string(),
        None => format!("{error:#}"),
    };
    let stderr = store.data().stderr_tail();
    if !stderr.is_empty() {
        message.push_str(&format!("; it printed: {stderr}"));
    }
    CallError::Crashed { plugin, message }
}

/// Whether a trap's backtrace is one function (or a short cycle) calling itself over and over.
/// Compilers for wasm keep large locals on a stack in linear memory; overflowing that stack is
/// an out-of-bounds access, not wasm's own stack-overflow trap, so the backtrace is the tell.
fn recursed(error: &wasmtime::Error) -> bool {
    let Some(trace) = error.downcast_ref::<wasmtime::WasmBacktrace>() else {
        return false;
    };
    let frames = trace.frames();
    // The engine keeps the innermost frames only (20 by default): all of them from at most
    // two functions means a cycle, not an ordinary call chain.
    if frames.len() < 16 {
        return false;
    }
    let mut functions: Vec<u32> = frames.iter().map(|f| f.func_index()).collect();
    functions.sort_unstable();
    functions.dedup();
    functions.len() <= 2
}
