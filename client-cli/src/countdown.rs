//! The clock of the player on move, counted down on screen: reminders
//! of the time left at a few moments, so that a loss on time never comes
//! unannounced.

use std::time::Duration;

use tokio::time::Instant;

/// Seconds left at which the player on move is told how long remains,
/// largest first; those not below the time given for the move are
/// skipped. The last few count down each second.
const REMINDERS_S: [u64; 8] = [120, 60, 30, 10, 5, 3, 2, 1];

/// The reminders still due for the move now asked of the player.
#[derive(Debug, Default)]
pub struct Countdown {
    /// When the player's time runs out.
    deadline: Option<Instant>,
    /// Reminders still to give, in seconds left, largest first.
    due: Vec<u64>,
}

impl Countdown {
    /// Starts counting down `ms_left`, the time on the player's clock as
    /// the update that asks for a move says it.
    pub fn start(&mut self, ms_left: u64) {
        self.deadline = Some(Instant::now() + Duration::from_millis(ms_left));
        self.due = REMINDERS_S
            .iter()
            .copied()
            .filter(|s| s.saturating_mul(1000) < ms_left)
            .collect();
    }

    /// Stops counting: the player moved, or it is no longer their turn.
    pub fn stop(&mut self) {
        self.deadline = None;
        self.due.clear();
    }

    /// When the next reminder is due.
    pub fn next(&self) -> Option<Instant> {
        let deadline = self.deadline?;
        let s = *self.due.first()?;
        Some(
            deadline
                .checked_sub(Duration::from_secs(s))
                .unwrap_or(deadline),
        )
    }

    /// The reminder now due, in words; it is not given again.
    pub fn fire(&mut self) -> Option<String> {
        if self.due.is_empty() {
            return None;
        }
        let s = self.due.remove(0);
        Some(if s == 1 {
            "1 second left to move!".into()
        } else {
            format!("{s} seconds left to move.")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reminders_below_the_time_given_are_due_largest_first() {
        let mut c = Countdown::default();
        assert!(c.next().is_none());
        c.start(12_000);
        assert_eq!(c.fire().as_deref(), Some("10 seconds left to move."));
        assert_eq!(c.fire().as_deref(), Some("5 seconds left to move."));
        c.stop();
        assert!(c.next().is_none() && c.fire().is_none());
    }
}
