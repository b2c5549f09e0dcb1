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
use parlor_protocol::{Occupant, Update};
use serde_json::Value;

/// How one game is shown to a person and how their moves are read.
pub trait Renderer: Sync {
    /// The game's part of the board for the recipient of `u`.
    fn board(&self, u: &Update) -> String;
    /// What to type, when the recipient must act.
    fn prompt(&self, u: &Update) -> String;
    /// Reads a move typed in the game's own words.
    fn parse(&self, u: &Update, line: &str) -> Result<Value, String>;
}

/// The renderer of `game`: one line per hosted game.
pub fn renderer(game: GameKind) -> &'static dyn Renderer {
    match game {
        GameKind::Nimrod => &nimrod::Nimrod,
        GameKind::Rummikub => &rummikub::Rummikub,
        GameKind::Cribbage => &cribbage::Cribbage,
        GameKind::Mitsudomoe => &mitsudomoe::Mitsudomoe,
    }
}

/// The board, as lines of text, for the recipient of `u`.
pub fn board(u: &Update) -> String {
    format!("{}\n{}", header(u), renderer(u.game).board(u))
}

/// What to type, when the recipient must act.
pub fn prompt(u: &Update) -> String {
    renderer(u.game).prompt(u)
}

/// Reads a typed move. Every game also accepts a number from the legal-move
/// list (when the server sent one) and a raw JSON move.
pub fn parse_move(u: &Update, line: &str) -> Result<Value, String> {
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
    renderer(u.game).parse(u, line)
}

fn seat_name(u: &Update, seat: Seat) -> String {
    let who = u.seats.get(seat.index()).map(|s| match &s.occupant {
        Occupant::Empty => "empty".to_owned(),
        Occupant::Player { name, connected } => {
            if *connected {
                name.clone()
            } else {
                format!("{name} (disconnected)")
            }
        }
        Occupant::Bot { strategy } => format!("{strategy} bot"),
    });
    let you = if u.you == Some(seat) { ", you" } else { "" };
    format!("seat {} ({}{you})", seat.0, who.unwrap_or_default())
}

fn header(u: &Update) -> String {
    let seats: Vec<String> = u.seats.iter().map(|s| seat_name(u, s.seat)).collect();
    let mut line = format!(
        "== {} · room {} · move {} · {}",
        u.game,
        u.room,
        u.seq,
        seats.join(" vs ")
    );
    if let Some(clocks) = &u.clocks {
        let shown: Vec<String> = clocks
            .iter()
            .map(|ms| format!("{}:{:02}", ms / 60_000, ms / 1000 % 60))
            .collect();
        line.push_str(&format!(" · clocks {}", shown.join(" / ")));
    }
    line
}

/// The result in words, from the recipient's side.
pub fn outcome(u: &Update, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Draw => "The game is a draw.".into(),
        Outcome::Win { winners } => {
            let names: Vec<String> = winners.iter().map(|s| seat_name(u, s)).collect();
            let verdict = match u.you {
                Some(me) if winners.contains(me) => "You win!",
                Some(_) => "You lose.",
                None => "",
            };
            format!("{} won. {verdict}", names.join(" and "))
                .trim()
                .to_owned()
        }
    }
}
