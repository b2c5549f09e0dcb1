//! The clock flags shared by the commands that start matches (`play`,
//! `seek`, `challenge`): one spelling everywhere.

use parlor_protocol::Clock;

/// A match's clock, as flags; none of them: no clock (a rated seek or
/// challenge then gets the game's rated default on the server).
#[derive(Debug, clap::Args)]
pub struct ClockArgs {
    /// Seconds per move.
    #[arg(long, conflicts_with_all = ["main_time", "days"])]
    move_time: Option<u64>,
    /// Seconds per player for the whole game.
    #[arg(long, conflicts_with = "days")]
    main_time: Option<u64>,
    /// Seconds added after each move, with --main-time.
    #[arg(long, requires = "main_time", default_value_t = 0)]
    increment: u64,
    /// Correspondence: days per move (1 to 14; accounts only).
    #[arg(long)]
    days: Option<u8>,
}

impl ClockArgs {
    /// The clock the flags ask for, if any.
    pub fn clock(&self) -> Option<Clock> {
        match (self.move_time, self.main_time, self.days) {
            (Some(s), _, _) => Some(Clock::PerMove {
                ms: s.saturating_mul(1000),
            }),
            (None, Some(m), _) => Some(Clock::Increment {
                main_ms: m.saturating_mul(1000),
                increment_ms: self.increment.saturating_mul(1000),
            }),
            (None, None, Some(d)) => Some(Clock::DaysPerMove(d)),
            (None, None, None) => None,
        }
    }
}
