//! The engine configuration every component runs under.
//!
//! Each call gets a fresh instance (ADR 0002), so instantiation and teardown are on every call's
//! path. With the default on-demand allocator each instance maps a new linear memory, takes a
//! page fault for every page the guest touches and unmaps it all on drop: for a tool that
//! handles a 1 MiB file that is over a thousand faults per call. The pooling allocator keeps
//! memory slots mapped between instances; the first [`KEEP_RESIDENT`] bytes of a slot are reset
//! with `memset` instead of being handed back to the kernel, so the next call into the same
//! component finds its pages already present.

use wasmtime::{Config, Enabled, InstanceAllocationStrategy, PoolingAllocationConfig};

/// Linear memory kept resident per slot: covers a tool working on a few MiB of text. Where the
/// kernel can report which pages a call dirtied (`PAGEMAP_SCAN`, Linux 6.7+), only those are
/// reset, so a small call pays for its own pages, not for this.
const KEEP_RESIDENT: usize = 16 << 20;

/// Without `PAGEMAP_SCAN` every kept byte is reset with `memset` on every call, dirty or not,
/// so keep little: the built-ins start with 8 MiB of linear memory.
const KEEP_RESIDENT_WITHOUT_PAGEMAP: usize = 1 << 20;

/// Instances that can be alive at once: parallel tool calls (up to 8), a provider stream,
/// interceptors and the nested instances components are made of, with room to spare.
const MAX_LIVE_INSTANCES: u32 = 128;

/// Elements per table. Interpreters compiled to wasm (componentize-py's CPython) have tables
/// far beyond the pool's default of 20 000.
const TABLE_ELEMENTS: usize = 200_000;

/// Largest linear memory, matching the largest memory limit a plugin can be given
/// ([`crate::capability::Limits::MAX_MEMORY_MIB`]).
const MAX_MEMORY_BYTES: usize = (crate::capability::Limits::MAX_MEMORY_MIB as usize) << 20;

pub fn config() -> Config {
    let mut config = Config::new();
    config.epoch_interruption(true);
    let keep_resident = if PoolingAllocationConfig::is_pagemap_scan_available() {
        KEEP_RESIDENT
    } else {
        KEEP_RESIDENT_WITHOUT_PAGEMAP
    };
    let mut pool = PoolingAllocationConfig::new();
    pool.total_component_instances(MAX_LIVE_INSTANCES)
        .total_core_instances(MAX_LIVE_INSTANCES * 4)
        .total_memories(MAX_LIVE_INSTANCES * 2)
        .total_tables(MAX_LIVE_INSTANCES * 4)
        // Calls run on the host's threads (the sync API), never on wasmtime fibers: no pool of
        // async stacks. Its default of 1 000 stacks cost 1 000 `mprotect` calls at every start.
        .total_stacks(0)
        .max_memories_per_module(2)
        .max_tables_per_module(4)
        .table_elements(TABLE_ELEMENTS)
        .max_memory_size(MAX_MEMORY_BYTES)
        .pagemap_scan(Enabled::Auto)
        .linear_memory_keep_resident(keep_resident)
        .table_keep_resident(64 << 10);
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    // Developers profiling plugins with `perf` get names for the compiled wasm functions.
    if std::env::var_os("REASONIX_PERFMAP").is_some() {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    config
}
