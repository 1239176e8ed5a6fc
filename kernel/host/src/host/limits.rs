//! Host-side resources of one call, counted against the plugin's [`HostLimits`].
//!
//! The memory limiter caps the plugin's linear memory, but a call also makes the host hold
//! things in its own memory: resource-table entries, `wasi:http` header fields, outgoing body
//! buffers, open descriptors, log lines. Each is capped here:
//!
//! - table entries by the table's own capacity (set in `PluginState::new`);
//! - header bytes and outgoing bodies by shadowing the `wasi:http/types` functions that add
//!   them, which count before handing over to the original implementation;
//! - open files by counting the descriptors in the table when one more is opened
//!   ([`PluginState::note_open`]);
//! - log and progress bytes in `services.rs` (those drop lines instead of failing the call).
//!
//! A refused operation traps with [`LimitExceeded`], which `classify_trap` reports as the
//! plugin exceeding that limit.

use super::state::PluginState;
use crate::capability::HostLimits;
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource, ResourceTableError};
use wasmtime_wasi::WasiView;
use wasmtime_wasi_http::FieldMap;
use wasmtime_wasi_http::WasiHttpView;
use wasmtime_wasi_http::p2::bindings::http::types as http;
use wasmtime_wasi_http::p2::body::HostOutgoingBody;
use wasmtime_wasi_http::p2::types::{HostOutgoingRequest, HostOutgoingResponse};

const HTTP_TYPES: &str = "wasi:http/types@0.2.12";

pub use reasonix_core::error::LimitExceeded;

/// The limit a failed table insertion ran into, when it was the table's capacity.
pub fn table_limit_exceeded(error: &wasmtime::Error, limits: &HostLimits) -> Option<LimitExceeded> {
    let full = error.chain().any(|e| {
        matches!(
            e.downcast_ref::<ResourceTableError>(),
            Some(ResourceTableError::Full)
        )
    });
    full.then_some(LimitExceeded {
        what: "live handles (resource-table entries) at once",
        limit: u64::from(limits.table_entries),
    })
}

/// What one call has used so far.
#[derive(Debug, Default)]
pub struct Usage {
    pub limits: HostLimits,
    header_bytes: u64,
    http_bodies: u32,
    log_bytes: u64,
    /// Log lines and progress reports dropped after `log_bytes` ran out.
    pub dropped_lines: u64,
}

impl Usage {
    pub fn new(limits: HostLimits) -> Usage {
        Usage {
            limits,
            ..Usage::default()
        }
    }

    /// Start counting afresh for the next call on a long-lived store.
    pub fn reset(&mut self) {
        *self = Usage::new(self.limits);
    }

    fn add_header_bytes(&mut self, bytes: u64) -> Result<(), LimitExceeded> {
        self.header_bytes = self.header_bytes.saturating_add(bytes);
        if self.header_bytes > self.limits.header_bytes {
            return Err(LimitExceeded {
                what: "HTTP header bytes per call",
                limit: self.limits.header_bytes,
            });
        }
        Ok(())
    }

    fn add_http_body(&mut self) -> Result<(), LimitExceeded> {
        if self.http_bodies >= self.limits.http_bodies {
            return Err(LimitExceeded {
                what: "outgoing HTTP bodies per call",
                limit: u64::from(self.limits.http_bodies),
            });
        }
        self.http_bodies += 1;
        Ok(())
    }

    /// Whether a log line or progress report of `bytes` may still go out.
    pub fn admit_log(&mut self, bytes: usize) -> bool {
        let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
        if self.log_bytes.saturating_add(bytes) > self.limits.log_bytes {
            self.dropped_lines += 1;
            return false;
        }
        self.log_bytes += bytes;
        true
    }
}

impl PluginState {
    /// Check, before one more file or directory is opened, that the call holds fewer than its
    /// limit. The descriptors are counted in the table itself, so closing needs no bookkeeping
    /// and nothing can drift; the walk only costs when a call holds many handles.
    pub fn note_open(&mut self) -> Result<(), LimitExceeded> {
        let limit = self.usage.limits.open_files;
        let open = self
            .ctx()
            .table
            .iter_mut()
            .filter(|entry| entry.is::<wasmtime_wasi::filesystem::Descriptor>())
            .count();
        if open >= usize::try_from(limit).unwrap_or(usize::MAX) {
            return Err(LimitExceeded {
                what: "open files at once",
                limit: u64::from(limit),
            });
        }
        Ok(())
    }
}

fn header_bytes<'a>(entries: impl IntoIterator<Item = (&'a [u8], &'a [u8])>) -> u64 {
    entries
        .into_iter()
        .map(|(name, value)| (name.len() + value.len()) as u64)
        .sum()
}

/// Shadow the functions that add host-held HTTP data or descriptors with counting versions.
pub fn shadow_counted(linker: &mut Linker<PluginState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(HTTP_TYPES)?;
    types.func_wrap(
        "[static]fields.from-list",
        |mut store: StoreContextMut<'_, PluginState>, (entries,): (Vec<(String, Vec<u8>)>,)| {
            let bytes = header_bytes(entries.iter().map(|(n, v)| (n.as_bytes(), v.as_slice())));
            let state = store.data_mut();
            state.usage.add_header_bytes(bytes)?;
            let mut view = state.http();
            let result = http::HostFields::from_list(&mut view, entries);
            Ok((header_result(&mut view, result)?,))
        },
    )?;
    types.func_wrap(
        "[method]fields.append",
        |mut store: StoreContextMut<'_, PluginState>,
         (fields, name, value): (Resource<FieldMap>, String, Vec<u8>)| {
            let state = store.data_mut();
            state
                .usage
                .add_header_bytes(header_bytes([(name.as_bytes(), value.as_slice())]))?;
            let mut view = state.http();
            let result = http::HostFields::append(&mut view, fields, name, value);
            Ok((header_result(&mut view, result)?,))
        },
    )?;
    types.func_wrap(
        "[method]fields.set",
        |mut store: StoreContextMut<'_, PluginState>,
         (fields, name, values): (Resource<FieldMap>, String, Vec<Vec<u8>>)| {
            let bytes = header_bytes(values.iter().map(|v| (name.as_bytes(), v.as_slice())));
            let state = store.data_mut();
            state.usage.add_header_bytes(bytes)?;
            let mut view = state.http();
            let result = http::HostFields::set(&mut view, fields, name, values);
            Ok((header_result(&mut view, result)?,))
        },
    )?;
    types.func_wrap(
        "[method]fields.clone",
        |mut store: StoreContextMut<'_, PluginState>, (fields,): (Resource<FieldMap>,)| {
            let state = store.data_mut();
            // A clone shares its map until the first change, which then copies all of it.
            let bytes = {
                let view = state.http();
                let map = view.table.get(&fields)?;
                header_bytes(
                    map.iter()
                        .map(|(n, v)| (n.as_str().as_bytes(), v.as_bytes())),
                )
            };
            state.usage.add_header_bytes(bytes)?;
            let mut view = state.http();
            Ok((http::HostFields::clone(&mut view, fields)?,))
        },
    )?;
    types.func_wrap(
        "[method]outgoing-request.body",
        |mut store: StoreContextMut<'_, PluginState>,
         (request,): (Resource<HostOutgoingRequest>,)| {
            let state = store.data_mut();
            state.usage.add_http_body()?;
            let result: Result<Resource<HostOutgoingBody>, ()> =
                http::HostOutgoingRequest::body(&mut state.http(), request)?;
            Ok((result,))
        },
    )?;
    types.func_wrap(
        "[method]outgoing-response.body",
        |mut store: StoreContextMut<'_, PluginState>,
         (response,): (Resource<HostOutgoingResponse>,)| {
            let state = store.data_mut();
            state.usage.add_http_body()?;
            let result: Result<Resource<HostOutgoingBody>, ()> =
                http::HostOutgoingResponse::body(&mut state.http(), response)?;
            Ok((result,))
        },
    )?;

    // `open-at` is counted by the filesystem guard's wrapper (`fs_guard::linker`), which
    // calls `PluginState::note_open` first: two shadows of one function would leave only the
    // last.
    linker.allow_shadowing(false);
    Ok(())
}

/// A header operation's result as the guest sees it; traps stay traps.
fn header_result<T>(
    view: &mut wasmtime_wasi_http::WasiHttpCtxView<'_>,
    result: wasmtime_wasi_http::p2::HeaderResult<T>,
) -> wasmtime::Result<Result<T, http::HeaderError>> {
    match result {
        Ok(value) => Ok(Ok(value)),
        Err(e) => Ok(Err(http::Host::convert_header_error(view, e)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_bytes_are_counted_until_the_limit() {
        let mut usage = Usage::new(HostLimits {
            header_bytes: 100,
            ..HostLimits::DEFAULT
        });
        assert!(usage.add_header_bytes(60).is_ok());
        let err = usage.add_header_bytes(41).unwrap_err();
        assert_eq!(err.what, "HTTP header bytes per call");
        assert!(
            err.to_string().contains("limit of 100 HTTP header bytes"),
            "{err}"
        );
        usage.reset();
        assert!(usage.add_header_bytes(100).is_ok());
    }

    #[test]
    fn log_lines_past_the_budget_are_dropped_and_counted() {
        let mut usage = Usage::new(HostLimits {
            log_bytes: 10,
            ..HostLimits::DEFAULT
        });
        assert!(usage.admit_log(6));
        assert!(!usage.admit_log(6));
        assert!(usage.admit_log(4));
        assert!(!usage.admit_log(1));
        assert_eq!(usage.dropped_lines, 2);
    }

    #[test]
    fn bodies_are_counted() {
        let mut usage = Usage::new(HostLimits {
            http_bodies: 2,
            ..HostLimits::DEFAULT
        });
        assert!(usage.add_http_body().is_ok());
        assert!(usage.add_http_body().is_ok());
        assert!(usage.add_http_body().is_err());
    }
}
