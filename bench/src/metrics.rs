//! Counters shared by the bots, latency percentiles, medians of reports.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};
use tokio::time::Instant;

/// Event counts, only within the measured window.
#[derive(Debug)]
pub struct Counters {
    /// Start of the measured window.
    pub start: Instant,
    /// End of the measured window.
    pub end: Instant,
    /// Moves acknowledged (the mover got the next update).
    pub moves: AtomicU64,
    /// Update frames received by any connection.
    pub deliveries: AtomicU64,
    /// Games that reached an outcome.
    pub games: AtomicU64,
    /// Connection failures and unexpected errors (whole run).
    pub errors: AtomicU64,
    /// Moves the server refused (whole run).
    pub refused: AtomicU64,
    /// Games given up after a server error, a new one started (whole run).
    pub abandoned: AtomicU64,
}

impl Counters {
    /// Counters for a window from `start` to `end`.
    pub fn new(start: Instant, end: Instant) -> Self {
        Counters {
            start,
            end,
            moves: AtomicU64::new(0),
            deliveries: AtomicU64::new(0),
            games: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            abandoned: AtomicU64::new(0),
        }
    }

    /// Whether `t` lies in the measured window.
    pub fn in_window(&self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }

    /// Adds one to `c` if `t` is in the window.
    pub fn count(&self, c: &AtomicU64, t: Instant) {
        if self.in_window(t) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Adds one to `c` whenever it happened.
    pub fn always(c: &AtomicU64) {
        c.fetch_add(1, Ordering::Relaxed);
    }

    /// Reads `c`.
    pub fn get(c: &AtomicU64) -> u64 {
        c.load(Ordering::Relaxed)
    }
}

/// The `q`-quantile (0..=1) of sorted samples, nearest rank; 0 if empty.
pub fn quantile(sorted: &[u32], q: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// p50, p90, p99, p99.9 and max of latency samples (microseconds).
pub fn latency_summary(mut samples: Vec<u32>) -> Value {
    samples.sort_unstable();
    serde_json::json!({
        "samples": samples.len(),
        "p50": quantile(&samples, 0.50),
        "p90": quantile(&samples, 0.90),
        "p99": quantile(&samples, 0.99),
        "p999": quantile(&samples, 0.999),
        "max": samples.last().copied().unwrap_or(0),
    })
}

/// The median of several reports of the same shape, field by field:
/// numbers become their median, objects are merged recursively (a key
/// missing from some reports, such as a thread group, is the median of
/// those that have it), anything else is taken from the first report.
pub fn median_report(reports: &[Value]) -> Value {
    let Some(first) = reports.first() else {
        return Value::Null;
    };
    match first {
        Value::Number(_) => {
            let mut xs: Vec<f64> = reports.iter().filter_map(Value::as_f64).collect();
            xs.sort_by(f64::total_cmp);
            if xs.is_empty() {
                return Value::Null;
            }
            let m = if xs.len() % 2 == 1 {
                xs[xs.len() / 2]
            } else {
                (xs[xs.len() / 2 - 1] + xs[xs.len() / 2]) / 2.0
            };
            round(m)
        }
        Value::Object(_) => {
            let mut keys: Vec<&String> = Vec::new();
            for obj in reports.iter().filter_map(Value::as_object) {
                for key in obj.keys() {
                    if !keys.contains(&key) {
                        keys.push(key);
                    }
                }
            }
            let mut out = Map::new();
            for key in keys {
                let vals: Vec<Value> = reports.iter().filter_map(|r| r.get(key)).cloned().collect();
                out.insert(key.clone(), median_report(&vals));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// A number with at most three decimals, as JSON.
pub fn round(x: f64) -> Value {
    let r = (x * 1000.0).round() / 1000.0;
    if r.fract() == 0.0 && r.abs() < 9.0e15 {
        Value::from(r as i64)
    } else {
        serde_json::Number::from_f64(r).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quantiles_use_the_nearest_rank() {
        let xs: Vec<u32> = (1..=100).collect();
        assert_eq!(quantile(&xs, 0.5), 50);
        assert_eq!(quantile(&xs, 0.99), 99);
        assert_eq!(quantile(&xs, 0.999), 100);
        assert_eq!(quantile(&[], 0.5), 0);
    }

    #[test]
    fn medians_are_taken_per_field() {
        let m = median_report(&[
            json!({"a": 1, "b": {"c": 10}, "s": "x"}),
            json!({"a": 3, "b": {"c": 30}, "s": "y"}),
            json!({"a": 2, "b": {"c": 20}, "s": "z"}),
        ]);
        assert_eq!(m, json!({"a": 2, "b": {"c": 20}, "s": "x"}));
    }

    #[test]
    fn keys_missing_from_a_report_are_absent_there() {
        let m = median_report(&[
            json!({"g": {"shard": {"n": 1}}}),
            json!({"g": {"shard": {"n": 3}, "store": {"n": 8}}}),
            json!({"g": {"shard": {"n": 2}, "store": {"n": 4}}}),
        ]);
        assert_eq!(m, json!({"g": {"shard": {"n": 2}, "store": {"n": 6}}}));
    }
}
