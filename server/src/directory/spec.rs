//! What a room to be made asks for, checked and normalised: the game,
//! seat count, options and clock. A seek or challenge is checked when it
//! is made (the player hears at once that it cannot be hosted), and two
//! seeks pair only when their normalised specs are equal.

use parlor_games::GameKind;
use parlor_protocol::{Clock, ErrorCode, MatchHeader};
use serde_json::Value;

use super::create::check_clock;
use super::Refused;

/// A room's game, seats, options and clock, as a room would be made with
/// them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RoomSpec {
    /// The game.
    pub game: GameKind,
    /// Seats.
    pub seats: u8,
    /// The options, normalised (every default filled in).
    pub options: Value,
    /// The clock.
    pub clock: Option<Clock>,
}

impl RoomSpec {
    /// Checks a spec: the options parse, the seat count is the game's,
    /// the clock is in range, and a match can be set up with them.
    pub fn check(
        game: GameKind,
        seats: Option<u8>,
        options: &Value,
        clock: Option<Clock>,
    ) -> Result<RoomSpec, Refused> {
        let bad = |m: String| Refused::new(ErrorCode::RoomBadOptions, m);
        let seats = seats.unwrap_or(game.seat_range().0);
        let options = game.parse_config(options).map_err(|e| bad(e.to_string()))?;
        if let Some(clock) = clock {
            check_clock(clock).map_err(bad)?;
        }
        // A trial setup catches what only the game can tell (seats out of
        // its range, options that contradict each other).
        let header = MatchHeader {
            game,
            options: options.clone(),
            seats,
            seed: Some(0),
            deal: None,
            clock,
            rated: false,
            event: None,
            ladder: None,
            matched: None,
        };
        parlor_protocol::replay(&header, &[]).map_err(|e| match e {
            parlor_protocol::ReplayError::Setup(m) => bad(m),
            other => bad(other.to_string()),
        })?;
        Ok(RoomSpec {
            game,
            seats,
            options,
            clock,
        })
    }

    /// The text two seeks must share to pair: the spec in one canonical
    /// JSON form (object keys sorted by serde_json's map).
    pub fn key(&self) -> String {
        serde_json::json!({
            "game": self.game,
            "seats": self.seats,
            "options": self.options,
            "clock": self.clock,
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_are_filled_in_so_equal_asks_share_a_key() {
        let a = RoomSpec::check(GameKind::Nimrod, None, &Value::Null, None).unwrap();
        let b = RoomSpec::check(GameKind::Nimrod, Some(2), &a.options, None).unwrap();
        assert_eq!(a.key(), b.key());
        let c = RoomSpec::check(GameKind::Nimrod, None, &json!({"piles": [1, 2]}), None).unwrap();
        assert_ne!(a.key(), c.key());
    }

    #[test]
    fn bad_seats_options_and_clocks_are_refused() {
        let seats = RoomSpec::check(GameKind::Nimrod, Some(9), &Value::Null, None);
        assert_eq!(seats.map_err(|e| e.code), Err(ErrorCode::RoomBadOptions));
        let options = RoomSpec::check(GameKind::Nimrod, None, &json!({"piles": "x"}), None);
        assert_eq!(options.map_err(|e| e.code), Err(ErrorCode::RoomBadOptions));
        let clock = RoomSpec::check(
            GameKind::Nimrod,
            None,
            &Value::Null,
            Some(Clock::PerMove { ms: 0 }),
        );
        assert_eq!(clock.map_err(|e| e.code), Err(ErrorCode::RoomBadOptions));
    }
}
