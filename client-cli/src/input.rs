//! What the person at the terminal does: lines typed, the end of input,
//! and Ctrl-C, as one stream of events.
//!
//! Standard input is read on a plain thread rather than with tokio's
//! `stdin`: tokio reads it on a blocking-pool thread that the runtime
//! waits for on shutdown, so a game that ended while the player was
//! thinking would hang until one more line was typed, and swallow it.
//! A plain thread is not waited for: the command exits at once.

use std::io::BufRead;

use tokio::sync::mpsc;

/// Events queued between the reader and the game; the reader waits when
/// the queue is full (a person does not type faster than this is read).
const QUEUED_EVENTS: usize = 64;

/// One thing the person did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A line, without its line ending.
    Line(String),
    /// Ctrl-C.
    Interrupt,
    /// Standard input ended (Ctrl-D, or the end of a pipe).
    Closed,
}

/// Lines from standard input only (Ctrl-C keeps its default: it stops
/// the command), for commands that need no question on Ctrl-C.
pub fn lines() -> mpsc::Receiver<Input> {
    let (tx, rx) = mpsc::channel(QUEUED_EVENTS);
    std::thread::spawn(move || read_lines(&tx));
    rx
}

/// Sends each line of standard input to `tx`, then [`Input::Closed`].
fn read_lines(tx: &mpsc::Sender<Input>) {
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if tx.blocking_send(Input::Line(line)).is_err() {
            return;
        }
    }
    let _ = tx.blocking_send(Input::Closed);
}

/// Events from standard input and Ctrl-C. Ctrl-C no longer stops the
/// command: it arrives here, for the game to ask what to do.
pub fn terminal() -> mpsc::Receiver<Input> {
    let (tx, rx) = mpsc::channel(QUEUED_EVENTS);
    let lines = tx.clone();
    std::thread::spawn(move || read_lines(&lines));
    // Registered here, before returning, so that a Ctrl-C pressed as soon
    // as the command says it may be is never the default one that kills.
    #[cfg(unix)]
    let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
    tokio::spawn(async move {
        #[cfg(unix)]
        if let Some(mut signal) = signal {
            while signal.recv().await.is_some() {
                if tx.send(Input::Interrupt).await.is_err() {
                    return;
                }
            }
            return;
        }
        while tokio::signal::ctrl_c().await.is_ok() {
            if tx.send(Input::Interrupt).await.is_err() {
                return;
            }
        }
    });
    rx
}
