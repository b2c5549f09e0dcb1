//! Creating an event: the request checked against the game and the
//! limits, its seed drawn and committed to.

use parlor_competition::tournament::{ArenaPairing, EventSeed, Format};
use parlor_games::GameRng;
use parlor_protocol::{NewTournament, TournamentStatus};

use super::doc::EventDoc;
use super::EventError;
use crate::directory::check_clock;
use crate::matchmaking::rated_clock::rated_default;
use crate::schedule::EventRefusal;

/// The most players a Swiss or arena event takes: a Swiss round's pairing
/// search and an arena's waves stay within milliseconds, and a round's
/// rooms are a small share of a node's room cap.
pub const MAX_EVENT_PLAYERS: u32 = 500;
/// The most players a round robin takes: 64 is already 63 rounds.
pub const MAX_ROUND_ROBIN_PLAYERS: u32 = 64;
/// Players when the request names no limit.
pub const DEFAULT_EVENT_PLAYERS: u32 = 16;
/// The most round-robin cycles: a double round robin is the usual most.
pub const MAX_CYCLES: u32 = 4;
/// The most Swiss rounds: more than any field up to the player limit needs.
pub const MAX_SWISS_ROUNDS: u32 = 20;
/// The longest arena: half a day, as long as any site runs one.
pub const MAX_ARENA_MINUTES: u32 = 720;
/// How far ahead an event may be scheduled: a month.
pub const MAX_START_AHEAD_MS: u64 = 30 * 86_400_000;
/// The longest name, in characters.
pub const MAX_EVENT_NAME_CHARS: usize = 80;
/// How far in the past a start may be and still pass (as "now"): the
/// client's clock and the server's differ by a few seconds, and a form
/// takes a moment to send. Earlier starts are refused.
pub const START_GRACE_MS: u64 = 60_000;

/// Checks `req` from account `by` at `now_ms` and makes the new event's
/// document, with its id `id` and seed `seed`.
pub fn new_event(
    req: NewTournament,
    by: &str,
    now_ms: u64,
    id: String,
    seed: &EventSeed,
) -> Result<EventDoc, EventError> {
    let bad = |m: String| EventError::new(EventRefusal::BadRequest, m);
    if req.seats.is_some_and(|s| s != 2) {
        return Err(bad(
            "events pair players head to head: seats must be 2".into()
        ));
    }
    let bad_options = |m: String| EventError::new(EventRefusal::BadOptions, m);
    let options = req
        .game
        .parse_config(&req.options)
        .map_err(|e| bad_options(e.to_string()))?;
    // The same check a room makes when it is created: options the game
    // cannot set up for two seats (a rack larger than the pool, empty
    // piles, a target it cannot reach) would leave every round's room
    // unmade. The deal's stream does not matter to the check.
    req.game
        .setup(&options, 2, &mut GameRng::from_key([0; 32]))
        .map_err(|e| bad_options(format!("the game cannot be set up so: {e}")))?;
    let clock = req.clock.unwrap_or_else(|| rated_default(req.game));
    check_clock(clock).map_err(bad)?;
    if clock.is_correspondence() {
        return Err(bad(
            "an event's rounds are played at one sitting: choose a clock in minutes, not days"
                .into(),
        ));
    }
    let (rounds_asked, minutes) = match req.format {
        Format::RoundRobin => {
            let cycles = req.rounds.unwrap_or(1);
            if !(1..=MAX_CYCLES).contains(&cycles) {
                return Err(bad(format!(
                    "a round robin has 1 to {MAX_CYCLES} cycles (\"rounds\"), not {cycles}"
                )));
            }
            (Some(cycles), None)
        }
        Format::Swiss => {
            let rounds = req
                .rounds
                .ok_or_else(|| bad("a Swiss event needs \"rounds\"".into()))?;
            if !(1..=MAX_SWISS_ROUNDS).contains(&rounds) {
                return Err(bad(format!(
                    "a Swiss event has 1 to {MAX_SWISS_ROUNDS} rounds, not {rounds}"
                )));
            }
            (Some(rounds), None)
        }
        Format::Arena => {
            let minutes = req
                .minutes
                .ok_or_else(|| bad("an arena needs \"minutes\"".into()))?;
            if !(1..=MAX_ARENA_MINUTES).contains(&minutes) {
                return Err(bad(format!(
                    "an arena lasts 1 to {MAX_ARENA_MINUTES} minutes, not {minutes}"
                )));
            }
            (None, Some(minutes))
        }
    };
    let max_players = req.max_players.unwrap_or(DEFAULT_EVENT_PLAYERS);
    let most = if req.format == Format::RoundRobin {
        MAX_ROUND_ROBIN_PLAYERS
    } else {
        MAX_EVENT_PLAYERS
    };
    if !(2..=most).contains(&max_players) {
        return Err(bad(format!(
            "max_players is 2 to {most} for a {}, not {max_players}",
            req.format.name()
        )));
    }
    if req.starts_at_ms.saturating_add(START_GRACE_MS) < now_ms {
        return Err(EventError::new(
            EventRefusal::BadStart,
            "the start is in the past; give a start from now on",
        ));
    }
    if req.starts_at_ms > now_ms.saturating_add(MAX_START_AHEAD_MS) {
        return Err(bad("an event starts within 30 days".into()));
    }
    let name = match req.name {
        Some(n) if n.trim().is_empty() => return Err(bad("the name is empty".into())),
        Some(n) if n.chars().count() > MAX_EVENT_NAME_CHARS => {
            return Err(bad(format!(
                "a name has at most {MAX_EVENT_NAME_CHARS} characters"
            )))
        }
        Some(n) if n.chars().any(char::is_control) => {
            return Err(bad("a name has no control characters".into()))
        }
        Some(n) => n.trim().to_owned(),
        None => format!("{} {}", req.game.name(), req.format.name()),
    };
    Ok(EventDoc {
        id,
        name,
        created_by: by.to_owned(),
        created_ms: now_ms,
        game: req.game,
        format: req.format,
        rounds_asked,
        minutes,
        options,
        clock,
        rated: req.rated,
        duplicate: req.duplicate,
        kind: req.kind,
        starts_at_ms: req.starts_at_ms.max(now_ms),
        max_players,
        seed: seed.hex(),
        commitment: seed.commitment(),
        status: TournamentStatus::Upcoming,
        players: Vec::new(),
        rounds: Vec::new(),
        arena_pairing: ArenaPairing::CURRENT,
        cancelled: None,
    })
}
