//! The server's threads over the measured window: how often they block
//! (`server_thread_blocks_per_move`) and the CPU split by thread group
//! (`server_threads`), from samples of `/proc/PID/task/*` at the window's
//! start and end.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};

use crate::metrics::round;
use crate::procfs::{self, ThreadSample};

/// The threads of every process of `pids` now (`None` if any process is
/// gone or there are none, as for the summed CPU).
pub fn sample(pids: &[u32]) -> Option<Vec<ThreadSample>> {
    if pids.is_empty() {
        return None;
    }
    let mut all = Vec::new();
    for &pid in pids {
        all.extend(procfs::thread_samples(pid)?);
    }
    Some(all)
}

/// What the threads of one group did in the window.
#[derive(Debug, Default, Clone, PartialEq)]
struct Group {
    /// CPU seconds used.
    cpu_s: f64,
    /// Times blocked (voluntary context switches).
    blocks: u64,
    /// Threads alive at the window's end.
    threads: usize,
}

/// Per group, what the threads alive at the window's end did since its
/// start: a thread already there at the start counts its increase, one
/// started during the window all it has. Thread ids are unique across
/// processes, so the nodes of a cluster are keyed together. A thread that
/// ended during the window is missing from `after`, so its CPU and blocks
/// are lost (the server's threads are long-lived; tokio's blocking pool
/// may retire a few).
fn groups(before: &[ThreadSample], after: &[ThreadSample]) -> BTreeMap<String, Group> {
    let start: HashMap<u32, &ThreadSample> = before.iter().map(|t| (t.tid, t)).collect();
    let mut out: BTreeMap<String, Group> = BTreeMap::new();
    for t in after {
        let (cpu0, switches0) = start
            .get(&t.tid)
            .map_or((0.0, 0), |s| (s.cpu_s, s.voluntary_switches));
        let g = out.entry(t.group.clone()).or_default();
        // A thread id reused within the window could count backwards.
        g.cpu_s += (t.cpu_s - cpu0).max(0.0);
        g.blocks += t.voluntary_switches.saturating_sub(switches0);
        g.threads += 1;
    }
    out
}

/// `x / moves`, rounded, as JSON (null when there were no moves).
pub fn per_move(x: f64, moves: u64) -> Value {
    if moves > 0 {
        round(x / moves as f64)
    } else {
        Value::Null
    }
}

/// `server_thread_blocks_per_move` and `server_threads` for a window
/// sampled `before` and `after` in which `moves` moves were made (both
/// null without both samples).
pub fn figures(
    before: Option<&[ThreadSample]>,
    after: Option<&[ThreadSample]>,
    moves: u64,
) -> (Value, Value) {
    let (Some(before), Some(after)) = (before, after) else {
        return (Value::Null, Value::Null);
    };
    let groups = groups(before, after);
    let blocks: u64 = groups.values().map(|g| g.blocks).sum();
    let split: serde_json::Map<String, Value> = groups
        .into_iter()
        .map(|(name, g)| {
            let figures = json!({
                "cpu_us_per_move": per_move(g.cpu_s * 1e6, moves),
                "blocks_per_move": per_move(g.blocks as f64, moves),
                "threads": g.threads,
            });
            (name, figures)
        })
        .collect();
    (per_move(blocks as f64, moves), Value::Object(split))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sample of thread `tid` in group `group`.
    fn t(tid: u32, group: &str, cpu_s: f64, voluntary_switches: u64) -> ThreadSample {
        ThreadSample {
            tid,
            group: group.to_owned(),
            cpu_s,
            voluntary_switches,
        }
    }

    #[test]
    fn per_move_divides_and_is_null_without_moves() {
        assert_eq!(per_move(50.0, 200), json!(0.25));
        assert_eq!(per_move(1.0, 3), json!(0.333));
        assert_eq!(per_move(600.0, 200), json!(3));
        assert_eq!(per_move(5.0, 0), Value::Null);
    }

    #[test]
    fn threads_are_summed_per_group_over_the_window() {
        let before = [
            t(10, "parlor-shard", 1.0, 100),
            t(11, "parlor-shard", 2.0, 200),
            t(12, "parlor-store", 0.5, 1000),
            // Ends during the window: lost.
            t(13, "tokio-runtime-w", 9.0, 9),
        ];
        let after = [
            t(10, "parlor-shard", 1.5, 150),
            t(11, "parlor-shard", 2.25, 230),
            t(12, "parlor-store", 0.75, 1400),
            // Started during the window: all of it counts.
            t(14, "tokio-runtime-w", 0.25, 20),
        ];
        let (blocks, split) = figures(Some(&before), Some(&after), 1000);
        assert_eq!(blocks, json!(0.5));
        assert_eq!(
            split,
            json!({
                "parlor-shard": {"cpu_us_per_move": 750, "blocks_per_move": 0.08, "threads": 2},
                "parlor-store": {"cpu_us_per_move": 250, "blocks_per_move": 0.4, "threads": 1},
                "tokio-runtime-w": {"cpu_us_per_move": 250, "blocks_per_move": 0.02, "threads": 1},
            })
        );
        assert_eq!(
            figures(None, Some(&after), 1000),
            (Value::Null, Value::Null)
        );
        let (blocks, split) = figures(Some(&before), Some(&after), 0);
        assert_eq!(blocks, Value::Null);
        assert_eq!(split["parlor-store"]["threads"], json!(1));
    }
}
