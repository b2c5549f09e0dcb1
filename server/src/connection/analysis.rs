//! Running analysis tools for clients, fairly: each connection has at most
//! one analysis running, and every request first runs in a quick lane
//! with a small budget, so small requests never wait behind big ones.
//! Only a request that needs more takes one of the few heavy places.
//! Every run is bounded in memory as well as in positions
//! (`MAX_ANALYSIS_MEMORY_BYTES`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parlor_games::{AnalysisError, Budget, GameKind};
use parlor_protocol::{ErrorCode, ServerMsg};
use serde_json::Value;
use tokio::sync::Semaphore;

use super::Session;
use crate::limits::{
    MAX_ANALYSIS_MEMORY_BYTES, MAX_ANALYSIS_POSITIONS, MAX_ANALYSIS_REPLY_BYTES,
    MAX_ANALYSIS_RESULTS, MAX_CONCURRENT_ANALYSES, QUICK_ANALYSES, QUICK_ANALYSIS_POSITIONS,
};

/// Whether a connection has an analysis running: one at a time each.
#[derive(Debug, Default)]
pub(super) struct OneAnalysis {
    running: Arc<AtomicBool>,
}

/// A connection's analysis, running: it ends when this is dropped.
#[derive(Debug)]
pub(super) struct Running(Arc<AtomicBool>);

impl OneAnalysis {
    /// Starts an analysis; `None` while another one runs.
    pub(super) fn begin(&self) -> Option<Running> {
        if self.running.swap(true, Ordering::AcqRel) {
            return None;
        }
        Some(Running(Arc::clone(&self.running)))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl Session {
    /// Runs an analysis: one at a time per connection (a second one is
    /// refused for this client only).
    pub(super) fn analyze(&mut self, game: GameKind, tool: String, input: Value) {
        let Some(running) = self.analysis.begin() else {
            self.out.send(&ServerMsg::error(
                ErrorCode::ServerBusy,
                "this connection already has an analysis running; wait for its answer",
            ));
            return;
        };
        let analyses = Arc::clone(&self.shared.analyses);
        let out = self.out.clone();
        tokio::spawn(async move {
            let answer = analyses.answer(game, tool, input).await;
            drop(running);
            out.send(&answer);
        });
    }
}

/// The server's analysis places.
#[derive(Debug)]
pub struct Analyses {
    quick: Arc<Semaphore>,
    heavy: Arc<Semaphore>,
    /// Most positions a heavy run searches.
    positions: usize,
}

impl Default for Analyses {
    fn default() -> Self {
        Analyses::new(MAX_ANALYSIS_POSITIONS)
    }
}

impl Analyses {
    /// The places, a heavy run searching at most `positions` positions.
    pub fn new(positions: usize) -> Self {
        Analyses {
            quick: Arc::new(Semaphore::new(QUICK_ANALYSES)),
            heavy: Arc::new(Semaphore::new(MAX_CONCURRENT_ANALYSES)),
            positions,
        }
    }
}

/// What one run of a tool gave.
struct Run {
    res: Result<(), AnalysisError>,
    results: Vec<Value>,
    truncated: bool,
}

/// Runs `tool` within `budget` on a blocking thread.
async fn run(game: GameKind, tool: String, input: Arc<Value>, budget: Budget) -> Option<Run> {
    tokio::task::spawn_blocking(move || {
        let mut results = Vec::new();
        let mut bytes = 0;
        let mut truncated = false;
        let res = game.analyze(&tool, &input, budget, &mut |doc| {
            bytes += doc.len();
            if results.len() >= MAX_ANALYSIS_RESULTS || bytes > MAX_ANALYSIS_REPLY_BYTES {
                truncated = true;
                return false;
            }
            results.push(serde_json::from_str(&doc).unwrap_or(Value::Null));
            true
        });
        Run {
            res,
            results,
            truncated,
        }
    })
    .await
    .ok()
}

impl Analyses {
    /// Answers an `analyze` request.
    pub async fn answer(&self, game: GameKind, tool: String, input: Value) -> ServerMsg {
        let input = Arc::new(input);
        let quick = Arc::clone(&self.quick).acquire_owned().await;
        let first = run(
            game,
            tool.clone(),
            Arc::clone(&input),
            Budget::within(QUICK_ANALYSIS_POSITIONS, MAX_ANALYSIS_MEMORY_BYTES),
        )
        .await;
        drop(quick);
        let done = match first {
            Some(Run {
                res: Err(AnalysisError::TooLarge(_)),
                ..
            }) => {
                let Ok(heavy) = Arc::clone(&self.heavy).try_acquire_owned() else {
                    return ServerMsg::error(
                        ErrorCode::ServerBusy,
                        "this request needs a long search and every place for one is taken; try again",
                    );
                };
                let full = run(
                    game,
                    tool.clone(),
                    input,
                    Budget::within(self.positions, MAX_ANALYSIS_MEMORY_BYTES),
                )
                .await;
                drop(heavy);
                full
            }
            other => other,
        };
        reply(game, tool, done)
    }
}

fn reply(game: GameKind, tool: String, done: Option<Run>) -> ServerMsg {
    let Some(run) = done else {
        return ServerMsg::error(ErrorCode::ServerInternal, "the analysis failed");
    };
    match run.res {
        Ok(()) | Err(AnalysisError::Stopped(_)) if run.truncated && run.results.is_empty() => {
            ServerMsg::error(
                ErrorCode::AnalysisTooLarge,
                format!(
                    "the first result alone is over {MAX_ANALYSIS_REPLY_BYTES} bytes; ask for less"
                ),
            )
        }
        Ok(()) | Err(AnalysisError::Stopped(_)) => ServerMsg::Analysis {
            game,
            tool,
            results: run.results,
            truncated: run.truncated,
        },
        Err(e @ AnalysisError::TooLarge(_)) => {
            ServerMsg::error(ErrorCode::AnalysisTooLarge, e.to_string())
        }
        Err(e @ AnalysisError::UnknownTool { .. }) => {
            ServerMsg::error(ErrorCode::AnalysisUnknownTool, e.to_string())
        }
        Err(e) => ServerMsg::error(ErrorCode::AnalysisBadInput, e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_runs_one_analysis_at_a_time() {
        let one = OneAnalysis::default();
        let first = one.begin();
        assert!(first.is_some());
        assert!(one.begin().is_none(), "a second one while the first runs");
        drop(first);
        assert!(one.begin().is_some(), "a new one once the first ended");
    }
}
