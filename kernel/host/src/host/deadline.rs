//! Blocking host calls end at the call's deadline.
//!
//! The epoch deadline stops wasm code, but not a host call that waits: while the guest sits in
//! `pollable.block` (a `sleep`, an HTTP response, a read on a stream) no wasm runs and the
//! epoch check never comes. Every blocking primitive of `wasi:io` — `poll`, `pollable.block`
//! and the `blocking-*` stream methods, which is what sleeps, HTTP futures and body reads are
//! built on — is shadowed here by the same implementation raced against
//! [`PluginState::call_deadline`]; when the deadline wins the call traps with
//! [`DeadlinePassed`], reported as the plugin's deadline. (The `process` service bounds its own
//! waits.)

use super::state::PluginState;
use std::future::Future;
use std::task::Poll;
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource, ResourceTable};
use wasmtime_wasi::WasiView;
use wasmtime_wasi::p2::bindings::io::{poll, streams};
use wasmtime_wasi::p2::{DynInputStream, DynOutputStream, DynPollable, StreamError};

const POLL: &str = "wasi:io/poll@0.2.12";
const STREAMS: &str = "wasi:io/streams@0.2.12";

/// The trap of a host call that was still waiting when the call's deadline passed.
#[derive(Debug, thiserror::Error)]
#[error("a blocking host call was still waiting when the call's deadline passed")]
pub struct DeadlinePassed;

/// Replace the blocking `wasi:io` functions already in `linker` with deadline-bound ones.
pub fn shadow_blocking_io(linker: &mut Linker<PluginState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut poll_instance = linker.instance(POLL)?;
    poll_instance.func_wrap(
        "poll",
        |mut store: StoreContextMut<'_, PluginState>, (list,): (Vec<Resource<DynPollable>>,)| {
            let (table, deadline) = parts(&mut store);
            let ready = bounded(deadline, poll::Host::poll(table, list))??;
            Ok((ready,))
        },
    )?;
    poll_instance.func_wrap(
        "[method]pollable.block",
        |mut store: StoreContextMut<'_, PluginState>, (pollable,): (Resource<DynPollable>,)| {
            let (table, deadline) = parts(&mut store);
            bounded(deadline, poll::HostPollable::block(table, pollable))??;
            Ok(())
        },
    )?;

    let mut streams_instance = linker.instance(STREAMS)?;
    streams_instance.func_wrap(
        "[method]input-stream.blocking-read",
        |mut store: StoreContextMut<'_, PluginState>,
         (stream, len): (Resource<DynInputStream>, u64)| {
            let (table, deadline) = parts(&mut store);
            let result = bounded_stream(
                deadline,
                streams::HostInputStream::blocking_read(table, stream, len),
            );
            Ok((to_wit(table_of(&mut store), result)?,))
        },
    )?;
    streams_instance.func_wrap(
        "[method]input-stream.blocking-skip",
        |mut store: StoreContextMut<'_, PluginState>,
         (stream, len): (Resource<DynInputStream>, u64)| {
            let (table, deadline) = parts(&mut store);
            let result = bounded_stream(
                deadline,
                streams::HostInputStream::blocking_skip(table, stream, len),
            );
            Ok((to_wit(table_of(&mut store), result)?,))
        },
    )?;
    streams_instance.func_wrap(
        "[method]output-stream.blocking-write-and-flush",
        |mut store: StoreContextMut<'_, PluginState>,
         (stream, bytes): (Resource<DynOutputStream>, Vec<u8>)| {
            let (table, deadline) = parts(&mut store);
            let result = bounded_stream(
                deadline,
                streams::HostOutputStream::blocking_write_and_flush(table, stream, bytes),
            );
            Ok((to_wit(table_of(&mut store), result)?,))
        },
    )?;
    streams_instance.func_wrap(
        "[method]output-stream.blocking-write-zeroes-and-flush",
        |mut store: StoreContextMut<'_, PluginState>,
         (stream, len): (Resource<DynOutputStream>, u64)| {
            let (table, deadline) = parts(&mut store);
            let result = bounded_stream(
                deadline,
                streams::HostOutputStream::blocking_write_zeroes_and_flush(table, stream, len),
            );
            Ok((to_wit(table_of(&mut store), result)?,))
        },
    )?;
    streams_instance.func_wrap(
        "[method]output-stream.blocking-flush",
        |mut store: StoreContextMut<'_, PluginState>, (stream,): (Resource<DynOutputStream>,)| {
            let (table, deadline) = parts(&mut store);
            let result = bounded_stream(
                deadline,
                streams::HostOutputStream::blocking_flush(table, stream),
            );
            Ok((to_wit(table_of(&mut store), result)?,))
        },
    )?;
    streams_instance.func_wrap(
        "[method]output-stream.blocking-splice",
        |mut store: StoreContextMut<'_, PluginState>,
         (dest, src, len): (Resource<DynOutputStream>, Resource<DynInputStream>, u64)| {
            let (table, deadline) = parts(&mut store);
            let result = bounded_stream(
                deadline,
                streams::HostOutputStream::blocking_splice(table, dest, src, len),
            );
            Ok((to_wit(table_of(&mut store), result)?,))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

fn parts<'a>(
    store: &'a mut StoreContextMut<'_, PluginState>,
) -> (&'a mut ResourceTable, Option<std::time::Instant>) {
    let state = store.data_mut();
    let deadline = state.call_deadline;
    (state.ctx().table, deadline)
}

fn table_of<'a>(store: &'a mut StoreContextMut<'_, PluginState>) -> &'a mut ResourceTable {
    store.data_mut().ctx().table
}

/// Run `work` to completion, or until `deadline`.
fn bounded<F: Future>(
    deadline: Option<std::time::Instant>,
    work: F,
) -> Result<F::Output, DeadlinePassed> {
    let Some(deadline) = deadline else {
        return Ok(wasmtime_wasi::runtime::in_tokio(work));
    };
    let deadline = tokio::time::Instant::from_std(deadline);
    wasmtime_wasi::runtime::in_tokio(async move {
        let mut work = std::pin::pin!(work);
        // Most "blocking" calls (a write to a pipe, a read of a file) are ready at once: poll
        // once before arming a timer, which costs a timer-wheel entry and its wake-ups.
        let first = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await;
        if let Poll::Ready(output) = first {
            return Ok(output);
        }
        tokio::time::timeout_at(deadline, work).await
    })
    .map_err(|_| DeadlinePassed)
}

/// [`bounded`] for stream operations: a passed deadline is a trap.
fn bounded_stream<T, F: Future<Output = Result<T, StreamError>>>(
    deadline: Option<std::time::Instant>,
    work: F,
) -> Result<T, StreamError> {
    bounded(deadline, work)
        .map_err(|e| StreamError::Trap(wasmtime::Error::new(e)))
        .and_then(|r| r)
}

/// A stream result as the guest sees it; traps stay traps.
fn to_wit<T>(
    table: &mut ResourceTable,
    result: Result<T, StreamError>,
) -> wasmtime::Result<Result<T, streams::StreamError>> {
    match result {
        Ok(value) => Ok(Ok(value)),
        Err(e) => Ok(Err(streams::Host::convert_stream_error(table, e)?)),
    }
}
