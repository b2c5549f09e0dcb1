//! One connection's chat rate: at most [`MAX_CHAT_PER_WINDOW`] messages
//! in any [`CHAT_WINDOW`].

use std::collections::VecDeque;

use tokio::time::Instant;

use super::{CHAT_WINDOW, MAX_CHAT_PER_WINDOW};

/// When a connection's recent messages were said.
#[derive(Debug, Default)]
pub struct ChatRate {
    said: VecDeque<Instant>,
}

impl ChatRate {
    /// Counts a message said at `now`, if the window allows one; else how
    /// long until it does.
    pub fn take(&mut self, now: Instant) -> Result<(), std::time::Duration> {
        while self
            .said
            .front()
            .is_some_and(|&t| now.saturating_duration_since(t) >= CHAT_WINDOW)
        {
            self.said.pop_front();
        }
        if self.said.len() >= MAX_CHAT_PER_WINDOW {
            let oldest = self.said.front().copied().unwrap_or(now);
            return Err(CHAT_WINDOW.saturating_sub(now.saturating_duration_since(oldest)));
        }
        self.said.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_window_allows_its_count_then_frees_as_it_slides() {
        let t0 = Instant::now();
        let mut rate = ChatRate::default();
        for i in 0..MAX_CHAT_PER_WINDOW {
            assert!(rate.take(t0 + Duration::from_millis(i as u64)).is_ok());
        }
        let wait = rate.take(t0 + Duration::from_secs(1));
        assert_eq!(wait, Err(CHAT_WINDOW - Duration::from_secs(1)));
        assert!(rate.take(t0 + CHAT_WINDOW).is_ok());
    }
}
