//! Counting attempts in fixed windows (failed logins, accounts made) per
//! key: past the window's allowance a key is refused until its window
//! ends, never for longer, so the real owner of a name is kept out for
//! one window at most.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::limits::MAX_TRACKED_KEYS;

/// Attempts per key in windows of `window`, `max` each.
#[derive(Debug)]
pub struct Attempts<K> {
    window: Duration,
    max: u32,
    seen: Mutex<HashMap<K, (Instant, u32)>>,
}

impl<K: Eq + Hash + Clone> Attempts<K> {
    /// At most `max` attempts per `window` for each key (`max` 0: no limit).
    pub fn new(window: Duration, max: u32) -> Self {
        Attempts {
            window,
            max,
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// `Err(wait)` if `key` has used its window's allowance: how long until
    /// it may try again.
    pub fn check(&self, key: &K, now: Instant) -> Result<(), Duration> {
        if self.max == 0 {
            return Ok(());
        }
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        match seen.get(key) {
            Some((start, n)) if now < *start + self.window && *n >= self.max => {
                Err(*start + self.window - now)
            }
            _ => Ok(()),
        }
    }

    /// Counts an attempt by `key`.
    pub fn record(&self, key: K, now: Instant) {
        if self.max == 0 {
            return;
        }
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() >= MAX_TRACKED_KEYS && !seen.contains_key(&key) {
            let window = self.window;
            seen.retain(|_, (start, _)| now < *start + window);
            if seen.len() >= MAX_TRACKED_KEYS {
                // Every window is live: forget the oldest to make room.
                if let Some(oldest) = seen
                    .iter()
                    .min_by_key(|(_, (s, _))| *s)
                    .map(|(k, _)| k.clone())
                {
                    seen.remove(&oldest);
                }
            }
        }
        let entry = seen.entry(key).or_insert((now, 0));
        if now >= entry.0 + self.window {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
    }

    /// Checks `key`'s allowance and, if it has some, counts the attempt.
    pub fn take(&self, key: K, now: Instant) -> Result<(), Duration> {
        self.check(&key, now)?;
        self.record(key, now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_refused_past_its_allowance_until_its_window_ends() {
        let a: Attempts<u8> = Attempts::new(Duration::from_secs(60), 3);
        let t = Instant::now();
        for _ in 0..3 {
            assert!(a.take(1, t).is_ok());
        }
        assert_eq!(
            a.take(1, t + Duration::from_secs(10)),
            Err(Duration::from_secs(50))
        );
        assert!(a.take(2, t).is_ok(), "another key is not affected");
        assert!(
            a.take(1, t + Duration::from_secs(60)).is_ok(),
            "a new window"
        );
        let none: Attempts<u8> = Attempts::new(Duration::from_secs(60), 0);
        for _ in 0..100 {
            assert!(none.take(1, t).is_ok());
        }
    }
}
