//! Cribbage in the terminal: cards with suit symbols, the running count,
//! the scoring narrated, and a board of scores to the target.

use parlor_games::cribbage::{Card, Move, Phase, Suit, View};
use parlor_protocol::Update;
use serde_json::{json, Value};

/// Events of the hand shown with each board (the latest ones).
const EVENTS_SHOWN: usize = 8;

/// Width of the score board's track.
const TRACK_WIDTH: usize = 40;

fn symbol(s: Suit) -> char {
    match s {
        Suit::Clubs => '♣',
        Suit::Diamonds => '♦',
        Suit::Hearts => '♥',
        Suit::Spades => '♠',
    }
}

/// A card as `5♥`, `10♠`, `K♦`.
pub fn card(c: Card) -> String {
    let compact = c.to_string();
    let rank = compact
        .get(..compact.len().saturating_sub(1))
        .unwrap_or_default();
    let rank = if rank == "T" { "10" } else { rank };
    format!("{rank}{}", symbol(c.suit))
}

fn cards(cs: &[Card]) -> String {
    cs.iter().map(|c| card(*c)).collect::<Vec<_>>().join(" ")
}

fn side_name(v: &View, side: usize) -> String {
    if v.partnerships {
        format!("seats {} & {}", side, side + 2)
    } else {
        format!("seat {side}")
    }
}

/// Scores, cards, count and the latest scoring.
pub fn board(u: &Update) -> String {
    let Ok(v) = serde_json::from_value::<View>(u.view.clone()) else {
        return format!("{}", u.view);
    };
    let mut s = String::new();
    for (side, score) in v.scores.iter().enumerate() {
        let filled = usize::from(*score) * TRACK_WIDTH / usize::from(v.target.max(1));
        s.push_str(&format!(
            "  {:<14} {:>3}/{} [{}{}]\n",
            side_name(&v, side),
            score,
            v.target,
            "#".repeat(filled.min(TRACK_WIDTH)),
            ".".repeat(TRACK_WIDTH - filled.min(TRACK_WIDTH)),
        ));
    }
    s.push_str(&format!(
        "  Hand {} · dealer: seat {} (the crib is theirs)\n",
        v.hand_number, v.dealer.0
    ));
    if let Some(start) = v.start {
        s.push_str(&format!("  Start card: {}\n", card(start)));
    }
    if v.phase == Phase::Play {
        s.push_str(&format!(
            "  Count: {}   On the table: {}\n",
            v.count,
            cards(&v.series.iter().map(|l| l.card).collect::<Vec<_>>())
        ));
    }
    if v.you.is_some() {
        s.push_str(&format!("  Your hand: {}\n", cards(&v.hand)));
        if !v.discarded.is_empty() {
            s.push_str(&format!(
                "  You threw to the crib: {}\n",
                cards(&v.discarded)
            ));
        }
    }
    for shown in &v.shown {
        s.push_str(&format!(
            "  Shown by seat {}: {} = {}\n",
            shown.seat.0,
            cards(&shown.cards),
            shown.total
        ));
    }
    let skip = v.events.len().saturating_sub(EVENTS_SHOWN);
    for e in &v.events[skip..] {
        s.push_str(&format!("  · seat {}: {}\n", e.seat.0, e.text));
    }
    s
}

/// What to type.
pub fn prompt(u: &Update) -> String {
    let discarding =
        serde_json::from_value::<View>(u.view.clone()).is_ok_and(|v| v.phase == Phase::Discard);
    let how = if discarding {
        "Throw to the crib: type the cards, e.g. `5h kd`, or a number from the list:"
    } else {
        "Lay a card: type it, e.g. `5h`, or a number from the list:"
    };
    let mut s = format!("{how}\n");
    for (i, m) in u.legal.iter().flatten().enumerate() {
        let text = match serde_json::from_value::<Move>(m.clone()) {
            Ok(Move::Discard(cs)) => format!("throw {}", cards(&cs)),
            Ok(Move::Play(c)) => format!("lay {}", card(c)),
            Err(_) => m.to_string(),
        };
        s.push_str(&format!("  {:>3}. {text}\n", i + 1));
    }
    s
}

/// Reads cards: one to lay, or the cards to throw while discarding.
pub fn parse(u: &Update, line: &str) -> Result<Value, String> {
    let picked: Vec<Card> = line
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| w.parse::<Card>().map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let discarding =
        serde_json::from_value::<View>(u.view.clone()).is_ok_and(|v| v.phase == Phase::Discard);
    match (discarding, picked.as_slice()) {
        (true, _) if !picked.is_empty() => Ok(json!(Move::Discard(picked))),
        (false, [one]) => Ok(json!(Move::Play(*one))),
        _ => Err("type the card(s), e.g. `5h` or `5h kd`".into()),
    }
}

/// Cribbage's renderer.
#[derive(Debug)]
pub struct Cribbage;

impl super::Renderer for Cribbage {
    fn board(&self, u: &Update) -> String {
        board(u)
    }

    fn prompt(&self, u: &Update) -> String {
        prompt(u)
    }

    fn parse(&self, u: &Update, line: &str) -> Result<Value, String> {
        parse(u, line)
    }
}
