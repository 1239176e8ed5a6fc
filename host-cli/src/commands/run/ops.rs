//! `reasonix run --input-format ops --output-format events`: the session protocol over stdio.
//! Each stdin line is an operation ([`reasonix_protocol::Op`]); stdout carries the session's
//! events, including the approval questions an `approve` or `deny` line answers by id. The
//! session is the same service the interactive session drives (`reasonix_session`). End of
//! input ends the session once the work submitted is done.

use super::output::Printer;
use crate::exit::Code;
use reasonix_agent::agent_loop::{Agent, RunStatus};
use reasonix_agent::session::SessionStore;
use reasonix_config::providers::ResolvedProvider;
use reasonix_core::cancel::CancelToken;
use reasonix_protocol::{EventKind, Op};
use reasonix_runtime::launch::Runtime;
use reasonix_session::{Session, SessionEvent};
use std::io::{BufRead, Read};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

/// A line longer than this is refused (and the rest of it skipped).
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

enum Inbound {
    Session(SessionEvent),
    /// A stdin line that is not an operation: said as an `op_failed` event.
    BadLine(String),
}

/// What the session is opened on besides its agent.
pub struct Opened {
    pub prepared: Arc<Runtime>,
    pub store: SessionStore,
    pub resolved: Vec<ResolvedProvider>,
    pub effort: Option<String>,
}

/// Serve the session until it ends; the exit code follows the last turn.
pub fn serve(
    agent: Agent,
    opened: Opened,
    interrupt: CancelToken,
    printer: &mut Printer,
) -> Result<Code, anyhow::Error> {
    let (tx, inbox) = channel::<Inbound>();
    let to_printer = tx.clone();
    // A client shows a file writer's change before it runs, as the interactive session does.
    let agent = agent.with_write_previews();
    let session = Arc::new(opened.prepared.session(
        agent,
        opened.store,
        opened.resolved,
        opened.effort,
        move |e| {
            let _ = to_printer.send(Inbound::Session(e));
        },
    )?);
    read_ops(session.clone(), tx.clone());
    watch_interrupt(session.clone(), interrupt);
    let code = print(&inbox, printer);
    Ok(code)
}

/// Stdin lines to operations, on their own thread; end of input (or a read error) quits.
fn read_ops(session: Arc<Session>, tx: Sender<Inbound>) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut number = 0u64;
        loop {
            number += 1;
            let mut line = Vec::new();
            let read = (&mut stdin)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut line);
            match read {
                Ok(0) | Err(_) => break,
                Ok(_) if line.len() > MAX_LINE_BYTES && !line.ends_with(b"\n") => {
                    let _ = tx.send(Inbound::BadLine(format!(
                        "stdin line {number}: longer than {MAX_LINE_BYTES} bytes; skipped"
                    )));
                    if skip_line(&mut stdin).is_err() {
                        break;
                    }
                    continue;
                }
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            if text.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Op>(text.trim()) {
                Ok(op) => session.submit(op),
                Err(e) => {
                    let _ = tx.send(Inbound::BadLine(format!(
                        "stdin line {number}: not an operation ({e}); see docs/schemas/protocol/op.json"
                    )));
                }
            }
        }
        session.submit(Op::Quit {});
    });
}

fn skip_line(reader: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        if let Some(end) = buf.iter().position(|b| *b == b'\n') {
            reader.consume(end + 1);
            return Ok(());
        }
        let len = buf.len();
        reader.consume(len);
    }
}

/// Ctrl-C or the run's deadline: stop what runs and end the session.
fn watch_interrupt(session: Arc<Session>, interrupt: CancelToken) {
    // Blocks until Ctrl-C; holds the session weakly, so it does not keep it alive.
    let session = Arc::downgrade(&session);
    std::thread::spawn(move || {
        interrupt.wait();
        if let Some(session) = session.upgrade() {
            session.cancel();
            session.submit(Op::Quit {});
        }
    });
}

fn print(inbox: &Receiver<Inbound>, printer: &mut Printer) -> Code {
    let mut code = Code::Success;
    let mut turn_started = Instant::now();
    let mut in_turn = false;
    while let Ok(inbound) = inbox.recv() {
        let event = match inbound {
            // Said, and the session goes on: the exit code is the last turn's.
            Inbound::BadLine(error) => {
                printer.protocol_event(EventKind::OpFailed { error });
                continue;
            }
            Inbound::Session(event) => event,
        };
        match &event {
            SessionEvent::Agent(e) => {
                if !in_turn {
                    in_turn = true;
                    turn_started = Instant::now();
                }
                printer.event(e);
            }
            SessionEvent::TurnDone(outcome) => {
                in_turn = false;
                let ms = u64::try_from(turn_started.elapsed().as_millis()).unwrap_or(u64::MAX);
                printer.finish(outcome, ms);
                code = match outcome.status {
                    RunStatus::Success => Code::Success,
                    RunStatus::TimedOut => Code::TimedOut,
                    _ => Code::Failure,
                };
            }
            SessionEvent::Stopped => break,
            other => {
                if let Some(kind) = reasonix_session::project(other) {
                    printer.protocol_event(kind);
                }
            }
        }
    }
    code
}
