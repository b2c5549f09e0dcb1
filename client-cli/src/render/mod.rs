//! Showing a match to a person, and reading their moves.
//!
//! Each game has a [`Renderer`], registered by one line in [`renderer`]
//! (the match is exhaustive, so a new game cannot be hosted without one).
//! Every game also takes a move by number from the legal-move list or as
//! raw JSON.

pub mod cribbage;
pub mod mitsudomoe;
mod nimrod;
pub mod rummikub;

use parlor_games::{GameKind, Outcome, Seat};
use parlor_protocol::{Occupant, RoomStatus, Update};
use serde_json::Value;

/// How one game is shown to a person and how their moves are read. A
/// renderer lives as long as one match on screen, so it may remember
/// what it showed before (where Nimrod's piles stand, which Cribbage
/// scores were already told).
pub trait Renderer: Send {
    /// Takes in the next update, before it is drawn.
    fn observe(&mut self, _u: &Update) {}
    /// The game's part of the board for the recipient of `u`.
    fn board(&self, u: &Update) -> String;
    /// What to type, when the recipient must act.
    fn prompt(&self, u: &Update) -> String;
    /// Reads a move typed in the game's own words.
    fn parse(&self, u: &Update, line: &str) -> Result<Value, String>;
    /// The step that led to `u` in words ("seat 1 took 4 from pile B"),
    /// as observed last; `None` when nothing was played (yet).
    fn last_move(&self, u: &Update) -> Option<String>;
    /// Whether `seat` plays on the recipient's side (Cribbage's
    /// partnerships), to name it as a partner.
    fn partner(&self, _u: &Update, _seat: Seat) -> bool {
        false
    }
    /// A step that changed too little to draw the board again (another
    /// seat's throw to the crib), told in one line instead.
    fn brief(&self, _u: &Update) -> Option<String> {
        None
    }
    /// A refusal by the rules told in the game's words, from the error's
    /// `detail`; `None` keeps the server's message.
    fn refusal(&self, _u: &Update, _detail: &Value) -> Option<String> {
        None
    }
}

/// A fresh renderer for a match of `game`: one line per hosted game.
pub fn renderer(game: GameKind) -> Box<dyn Renderer> {
    match game {
        GameKind::Nimrod => Box::<nimrod::Nimrod>::default(),
        GameKind::Rummikub => Box::new(rummikub::Rummikub),
        GameKind::Cribbage => Box::<cribbage::Cribbage>::default(),
        GameKind::Mitsudomoe => Box::new(mitsudomoe::Mitsudomoe),
    }
}

/// The header and the game's board, as lines of text, for the recipient
/// of `u`. While the room waits there is no board to show: the deal is
/// made from every seat's client seed when the last seat is taken (fair
/// dealing), so piles or cards drawn now would not be the game's.
pub fn board(r: &dyn Renderer, u: &Update) -> String {
    if u.status == RoomStatus::Waiting {
        return format!("{}\n{}", header(r, u), waiting(u));
    }
    format!("{}\n{}", header(r, u), r.board(u))
}

/// What a waiting room waits for, in place of its board.
pub fn waiting(u: &Update) -> String {
    let free: Vec<String> = u
        .seats
        .iter()
        .filter(|s| matches!(s.occupant, Occupant::Empty))
        .map(|s| format!("seat {}", s.seat.0))
        .collect();
    // Mitsudomoe starts from a fixed position: nothing is dealt there.
    let what = match u.game {
        GameKind::Mitsudomoe => "The board: set out when every seat is taken.",
        GameKind::Nimrod => "The piles: dealt when every seat is taken.",
        GameKind::Rummikub => "The blocks: dealt when every seat is taken.",
        GameKind::Cribbage => "The cards: dealt when every seat is taken.",
    };
    let seats = match free.len() {
        0 => "every seat is taken".to_owned(),
        1 => format!("{} is free", free.join("")),
        _ => format!("{} are free", free.join(", ")),
    };
    format!("Waiting for players: {seats}.\n{what}")
}

/// Reads a typed move. Every game also accepts a number from the legal-move
/// list (when the server sent one) and a raw JSON move.
pub fn parse_move(r: &dyn Renderer, u: &Update, line: &str) -> Result<Value, String> {
    let line = line.trim();
    if line.starts_with('{') || line.starts_with('"') {
        return serde_json::from_str(line).map_err(|e| format!("not valid JSON: {e}"));
    }
    if let (Ok(n), Some(legal)) = (line.parse::<usize>(), u.legal.as_ref()) {
        return legal
            .get(n.wrapping_sub(1))
            .cloned()
            .ok_or_else(|| format!("pick a move from 1 to {}", legal.len()));
    }
    r.parse(u, line)
}

/// Who holds `seat`, as the recipient of `u` would say it: "you", or the
/// holder's name ("alice", "bob (guest)", "random bot"), with the seat
/// number only where two seats would read alike or nobody sits there.
pub fn who(u: &Update, seat: Seat) -> String {
    if u.you == Some(seat) {
        return "you".into();
    }
    let Some(name) = holder(u, seat) else {
        return format!("seat {}", seat.0);
    };
    let twin = u
        .seats
        .iter()
        .any(|o| o.seat != seat && holder(u, o.seat).as_deref() == Some(name.as_str()));
    if twin {
        format!("{name}, seat {}", seat.0)
    } else {
        name
    }
}

/// The name on a taken seat: a guest is always marked (a guest's name may
/// look like an account's).
fn holder(u: &Update, seat: Seat) -> Option<String> {
    match &u.seats.get(seat.index())?.occupant {
        Occupant::Empty => None,
        Occupant::Player { name, account, .. } => Some(if *account {
            name.clone()
        } else {
            format!("{name} (guest)")
        }),
        Occupant::Bot { strategy, account } => Some(bot_label(strategy, account.as_deref())),
    }
}

/// [`who`] at the start of a sentence.
pub fn who_cap(u: &Update, seat: Seat) -> String {
    if u.you == Some(seat) {
        "You".into()
    } else {
        who(u, seat)
    }
}

/// A seat for the header and the result: "you", or "seat 1 (alice)",
/// "seat 1 (bob, guest)" (a guest is always marked: a guest's name may
/// look like an account's), "seat 1 (optimal bot)".
fn seat_name(u: &Update, seat: Seat) -> String {
    if u.you == Some(seat) {
        return "you".into();
    }
    let Some(info) = u.seats.get(seat.index()) else {
        return who(u, seat);
    };
    let held_by = match &info.occupant {
        Occupant::Empty => "empty".to_owned(),
        Occupant::Player {
            name,
            connected,
            account,
        } => {
            let name = if *account {
                name.clone()
            } else {
                format!("{name}, guest")
            };
            if *connected {
                name
            } else {
                format!("{name}, disconnected")
            }
        }
        Occupant::Bot { strategy, account } => bot_label(strategy, account.as_deref()),
    };
    format!("seat {} ({held_by})", seat.0)
}

/// A built-in bot's seat as shown: its strategy, and the account it plays
/// as (a ladder's anchor), if any.
pub fn bot_label(strategy: &str, account: Option<&str>) -> String {
    match account {
        None => format!("{strategy} bot"),
        Some(name) => format!("{name} ({strategy} bot)"),
    }
}

/// Columns of the narrowest terminal the client writes for: the header
/// breaks its seats onto lines of their own rather than run past it.
pub const SCREEN_WIDTH: usize = 80;

/// A clock's time: `m:ss` within the hour; `23 h 59 min` within a day
/// and `2 d 4 h` beyond (a correspondence clock holds days: `1439:59`
/// would say nothing).
pub fn clock(ms: u64) -> String {
    const HOUR_MS: u64 = 3_600_000;
    const DAY_MS: u64 = 24 * HOUR_MS;
    if ms >= DAY_MS {
        format!("{} d {} h", ms / DAY_MS, ms % DAY_MS / HOUR_MS)
    } else if ms >= HOUR_MS {
        format!("{} h {} min", ms / HOUR_MS, ms % HOUR_MS / 60_000)
    } else {
        format!("{}:{:02}", ms / 60_000, ms / 1000 % 60)
    }
}

/// How a won match's losers lost when its last position shows no end by
/// the game's rules (the update carries no reason): on time when a
/// loser's clock is spent, else by forfeit (resigning, leaving).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossBy {
    /// A loser's clock ran out.
    Time,
    /// A loser resigned or left.
    Forfeit,
}

/// [`LossBy`] for a finished match, `None` when its rules decided it.
pub fn loss_by(u: &Update, winners: &parlor_games::SeatSet) -> Option<LossBy> {
    let v = &u.view;
    let num = |x: &Value| x.as_u64().unwrap_or(0);
    let by_rules = match u.game {
        GameKind::Nimrod => v["piles"]
            .as_array()
            .is_none_or(|p| p.iter().all(|x| num(x) == 0)),
        GameKind::Rummikub => {
            num(&v["bag"]) == 0
                || v["rack_sizes"]
                    .as_array()
                    .is_none_or(|r| r.iter().any(|x| num(x) == 0))
        }
        GameKind::Cribbage => v["scores"]
            .as_array()
            .is_none_or(|s| s.iter().any(|x| num(x) >= num(&v["target"]))),
        GameKind::Mitsudomoe => v["end"]["reason"].as_str() != Some("forfeit"),
    };
    if by_rules {
        return None;
    }
    let spent = u.seats.iter().any(|s| {
        !winners.contains(s.seat)
            && u.clocks
                .as_ref()
                .and_then(|c| c.get(s.seat.index()))
                .is_some_and(|ms| *ms == 0)
    });
    Some(if spent { LossBy::Time } else { LossBy::Forfeit })
}

fn header(r: &dyn Renderer, u: &Update) -> String {
    let title = format!("== {} · room {} · move {}", u.game, u.room, u.seq);
    let seats: Vec<String> = u
        .seats
        .iter()
        .map(|s| {
            let mut text = seat_name(u, s.seat);
            // Your own seat under the name the others see on it.
            if let (true, Occupant::Player { name, .. }) = (u.you == Some(s.seat), &s.occupant) {
                text = format!("you ({name})");
            }
            if let Some(rating) = &s.rating {
                text = format!("{text} [{}]", crate::ratings::seat(rating));
            }
            if r.partner(u, s.seat) {
                text = format!("{text}, your partner");
            }
            if let Some(ms) = u.clocks.as_ref().and_then(|c| c.get(s.seat.index())) {
                text.push_str(&format!(" {}", clock(*ms)));
            }
            if u.to_act.contains(s.seat) {
                text.push_str(" *");
            }
            text
        })
        .collect();
    let one = format!("{title} · {}", seats.join(" vs "));
    if one.chars().count() <= SCREEN_WIDTH {
        return one;
    }
    let mut lines = vec![title];
    lines.extend(seats.iter().map(|s| format!("   {s}")));
    lines.join("\n")
}

/// The result in words, from the recipient's side.
pub fn outcome(u: &Update, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Draw => "The game is a draw.".into(),
        Outcome::Win { winners } => {
            let others: Vec<String> = winners
                .iter()
                .filter(|s| Some(*s) != u.you)
                .map(|s| who(u, s))
                .collect();
            // "You win!" and "You lose." stay whole: scripts look for them.
            let (how, why) = match loss_by(u, winners) {
                None => ("", ""),
                Some(LossBy::Time) => (" on time", " (the other side lost on time)"),
                Some(LossBy::Forfeit) => (" by forfeit", " (by forfeit)"),
            };
            match u.you {
                Some(me) if winners.contains(me) && others.is_empty() => format!("You win!{why}"),
                Some(me) if winners.contains(me) => {
                    format!("You and {} win!{why}", others.join(" and "))
                }
                Some(_) => format!("{} won{how}. You lose.", others.join(" and ")),
                None => format!("{} won{how}.", others.join(" and ")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rated_seats_show_their_rating_in_the_header() {
        let u: Update = serde_json::from_value(serde_json::json!({
            "room": "000000000001", "game": "nimrod", "seq": 3, "status": "playing",
            "seats": [
                {"seat": 0, "kind": "player", "name": "alice", "connected": true,
                 "account": true, "rating": {"rating": 1500, "provisional": true}},
                {"seat": 1, "kind": "player", "name": "bob", "connected": true,
                 "account": true, "rating": {"rating": 1612}},
            ],
            "you": 0, "to_act": [1], "view": {"piles": [3, 5]},
        }))
        .unwrap_or_else(|e| unreachable!("{e}"));
        let r = renderer(GameKind::Nimrod);
        let h = header(r.as_ref(), &u);
        assert!(h.contains("you (alice) [1500?]"), "{h}");
        assert!(h.contains("seat 1 (bob) [1612] *"), "{h}");
    }

    fn two(
        seats: serde_json::Value,
        view: serde_json::Value,
        status: &str,
        clocks: Option<[u64; 2]>,
    ) -> Update {
        serde_json::from_value(serde_json::json!({
            "room": "000000000001", "game": "nimrod", "seq": 3, "status": status,
            "seats": seats, "you": 0, "to_act": [], "view": view, "clocks": clocks,
        }))
        .unwrap_or_else(|e| unreachable!("{e}"))
    }

    #[test]
    fn seats_are_named_not_numbered() {
        let people = serde_json::json!([
            {"seat": 0, "kind": "player", "name": "alice", "connected": true, "account": true},
            {"seat": 1, "kind": "player", "name": "bob", "connected": true, "account": false},
        ]);
        let u = two(
            people,
            serde_json::json!({"piles": [3, 5]}),
            "playing",
            None,
        );
        assert_eq!(who(&u, Seat(0)), "you");
        assert_eq!(who(&u, Seat(1)), "bob (guest)");
        assert_eq!(who_cap(&u, Seat(1)), "bob (guest)");
        // Two bots alike keep their numbers apart.
        let bots = serde_json::json!([
            {"seat": 0, "kind": "bot", "strategy": "random"},
            {"seat": 1, "kind": "bot", "strategy": "random"},
        ]);
        let mut u = two(bots, serde_json::json!({"piles": [3, 5]}), "playing", None);
        u.you = None;
        assert_eq!(who(&u, Seat(1)), "random bot, seat 1");
    }

    #[test]
    fn day_clocks_read_in_days_and_hours() {
        assert_eq!(clock(4 * 60_000 + 7_000), "4:07");
        assert_eq!(clock(86_400_000 - 1_000), "23 h 59 min");
        assert_eq!(clock(2 * 86_400_000 + 4 * 3_600_000 + 59_000), "2 d 4 h");
    }

    #[test]
    fn a_loss_on_time_or_by_forfeit_is_said_in_the_result() {
        let seats = serde_json::json!([
            {"seat": 0, "kind": "player", "name": "alice", "connected": true, "account": true},
            {"seat": 1, "kind": "player", "name": "bob", "connected": true, "account": true},
        ]);
        let won = Outcome::Win {
            winners: parlor_games::SeatSet::single(Seat(1)),
        };
        // Rods left and our clock spent: on time.
        let u = two(
            seats.clone(),
            serde_json::json!({"piles": [2, 4]}),
            "finished",
            Some([0, 9_000]),
        );
        assert_eq!(outcome(&u, &won), "bob won on time. You lose.");
        // Rods left, time left: we resigned.
        let u = two(
            seats.clone(),
            serde_json::json!({"piles": [2, 4]}),
            "finished",
            Some([5_000, 9_000]),
        );
        assert_eq!(outcome(&u, &won), "bob won by forfeit. You lose.");
        // The last rod taken: the rules decided, nothing to add.
        let u = two(
            seats,
            serde_json::json!({"piles": [0, 0]}),
            "finished",
            Some([0, 9_000]),
        );
        assert_eq!(outcome(&u, &won), "bob won. You lose.");
    }
}
