//! A progress indicator for analyses that take a while: a spinner on
//! standard error, shown only once an analysis has run for a second (a
//! quick answer stays clean) and only on a terminal (indicatif draws
//! nothing when standard error is a pipe or a file).

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long an analysis runs before the indicator appears.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// How often the spinner turns.
const TICK: Duration = Duration::from_millis(120);

/// The indicator of one running analysis; [`Progress::finish`] clears it.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    done: Option<mpsc::Sender<()>>,
    waiter: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts timing `what`; the spinner appears after `SHOW_AFTER`.
    pub fn start(what: String) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.set_message(what);
        let (done, wait) = mpsc::channel::<()>();
        let shown = bar.clone();
        let waiter = std::thread::spawn(move || {
            // Still running after the delay (no word, no hang-up): show it.
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(SHOW_AFTER) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(TICK);
            }
        });
        Progress {
            bar,
            done: Some(done),
            waiter: Some(waiter),
        }
    }

    /// Counts one more result.
    pub fn result(&self) {
        self.bar.inc(1);
    }

    /// Stops the indicator and wipes it from the screen.
    pub fn finish(mut self) {
        if let Some(done) = self.done.take() {
            let _ = done.send(());
        }
        if let Some(w) = self.waiter.take() {
            let _ = w.join();
        }
        self.bar.finish_and_clear();
    }
}
