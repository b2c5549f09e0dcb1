//! Cribbage in the terminal: cards with suit symbols, who laid each card
//! and the running count, whose crib it is, every score told once as it
//! happens, and the show of each hand (every hand and the crib, labelled,
//! with all their scoring) before the next deal.

use parlor_games::cribbage::{
    Card, Event, HandKind, HandRecord, Laid, Move, Phase, Shown, Stage, Suit, View,
};
use parlor_games::Seat;
use parlor_protocol::Update;
use serde_json::{json, Value};

use super::SCREEN_WIDTH;

/// Width of the score board's track.
const TRACK_WIDTH: usize = 40;

/// Width of a side's name on the score board: the longest,
/// "you & partner (seat 2)", with room to spare; with the score and the
/// track the line stays within 80 columns.
const SIDE_NAME_WIDTH: usize = 24;

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

fn view(u: &Update) -> Option<View> {
    serde_json::from_value(u.view.clone()).ok()
}

/// `items` after `first`, joined with " · ", broken into lines that fit
/// the screen (continuations indented under the first item).
fn wrapped(first: &str, items: &[String]) -> String {
    let indent = " ".repeat(first.chars().count());
    let mut lines = vec![first.to_owned()];
    for (i, item) in items.iter().enumerate() {
        let sep = if i == 0 { "" } else { " · " };
        let last = lines.len() - 1;
        if i > 0 && lines[last].chars().count() + sep.len() + item.chars().count() > SCREEN_WIDTH {
            lines.push(format!("{indent}{item}"));
        } else {
            lines[last].push_str(sep);
            lines[last].push_str(item);
        }
    }
    lines.join("\n") + "\n"
}

/// A seat as the recipient says it: "you", "your partner (carol)",
/// "bob".
fn name(u: &Update, v: &View, seat: Seat) -> String {
    match u.you {
        Some(me) if me == seat => "you".into(),
        Some(me) if v.partnerships && v.side(me) == v.side(seat) => {
            format!("your partner ({})", super::who(u, seat))
        }
        _ => super::who(u, seat),
    }
}

/// [`name`] at the start of a sentence: our words capitalised, a
/// player's name left as its owner wrote it.
fn cap(s: String) -> String {
    if !(s.starts_with("you") || s.starts_with("seat")) {
        return s;
    }
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A side of the score board: "you", "you & partner (carol)", "bob & dan", "bob".
fn side_name(u: &Update, v: &View, side: usize) -> String {
    let seat = |i: usize| super::who(u, Seat(u8::try_from(i).unwrap_or(u8::MAX)));
    let mine = u.you.is_some_and(|me| v.side(me) == side);
    match (v.partnerships, mine) {
        (true, true) => {
            let partner = (u.you.map_or(0, |s| usize::from(s.0)) + 2) % 4;
            format!("you & partner ({})", seat(partner))
        }
        (true, false) => format!("{} & {}", seat(side), seat(side + 2)),
        (false, _) => seat(side),
    }
}

/// Whose crib: "your crib", "your partner's crib (carol)", "bob's crib".
fn crib_of(u: &Update, v: &View, dealer: Seat) -> String {
    format!("{} crib", whose(u, v, dealer))
}

/// One score, as a line: "· seat 1: pair for 2 (5♣ 5♠)".
fn event_line(u: &Update, v: &View, e: &Event) -> String {
    let made_of = if e.cards.is_empty() {
        String::new()
    } else {
        format!(" ({})", cards(&e.cards))
    };
    format!("  · {}: {}{made_of}\n", name(u, v, e.seat), e.text)
}

/// A hand or crib shown, with its label and total.
fn shown_line(u: &Update, v: &View, s: &Shown, start: Option<Card>) -> String {
    let whose = match s.kind {
        HandKind::Hand => format!("{} hand", whose(u, v, s.seat)),
        HandKind::Crib => crib_of(u, v, s.seat),
    };
    let with = start.map(|c| format!(" + {}", card(c))).unwrap_or_default();
    format!(
        "  {}: {}{with} = {}\n",
        cap(whose),
        cards(&s.cards),
        s.total
    )
}

/// "your", "your partner's (carol)", "bob's".
fn whose(u: &Update, v: &View, seat: Seat) -> String {
    match u.you {
        Some(me) if me == seat => "your".into(),
        Some(me) if v.partnerships && v.side(me) == v.side(seat) => {
            format!("your partner's ({})", super::who(u, seat))
        }
        _ => format!("{}'s", super::who(u, seat)),
    }
}

/// Every hand shown and the crib, each followed by its scoring; scores
/// of the hand made before the show (from `from` on) come first.
fn show(
    u: &Update,
    v: &View,
    shown: &[Shown],
    events: &[Event],
    from: usize,
    start: Option<Card>,
) -> String {
    let mut s = String::new();
    let rest = events.get(from..).unwrap_or_default();
    for e in rest
        .iter()
        .filter(|e| matches!(e.stage, Stage::Cut | Stage::Play))
    {
        s.push_str(&event_line(u, v, e));
    }
    for hand in shown {
        s.push_str(&shown_line(u, v, hand, start));
        let stage = match hand.kind {
            HandKind::Hand => Stage::Hand,
            HandKind::Crib => Stage::Crib,
        };
        for e in events
            .iter()
            .filter(|e| e.stage == stage && (stage == Stage::Crib || e.seat == hand.seat))
        {
            s.push_str(&event_line(u, v, e));
        }
    }
    s
}

/// Cribbage's renderer: what was already told, so each score is told once.
#[derive(Debug, Default)]
pub struct Cribbage {
    /// The view observed last and its `seq`.
    seen: Option<(View, u64)>,
    /// Events of the current hand told before the update observed last.
    from: usize,
    /// The previous hand, to be shown with the update observed last (it
    /// just ended), and how many of its events were told already.
    show_previous: Option<usize>,
    /// The last step in words.
    last: Option<String>,
    /// Whether the last step was another seat's throw to the crib while
    /// the throws go on: nothing to draw again.
    minor: bool,
}

impl Cribbage {
    /// The step from `before` to `v` in words.
    fn step(u: &Update, before: &View, v: &View) -> Option<String> {
        if v.hand_number != before.hand_number {
            let laid = v.previous.as_ref()?.laid.last()?;
            return Some(format!(
                "{} laid {}",
                name(u, v, laid.seat),
                card(laid.card)
            ));
        }
        if v.laid.len() > before.laid.len() {
            let Laid { seat, card: c } = v.laid.last()?;
            return Some(format!("{} laid {}", name(u, v, *seat), card(*c)));
        }
        if before.phase == Phase::Discard {
            // The seat whose hand shrank: a resignation at the throw (the
            // match over, nobody's hand changed) threw nothing.
            let held = |view: &View, s: Seat| view.held.get(s.index()).copied().unwrap_or(0);
            let threw = before
                .to_act
                .iter()
                .find(|s| held(v, *s) < held(before, *s))?;
            let what = if Some(threw) == u.you && !v.discarded.is_empty() {
                cards(&v.discarded)
            } else if v.discard_count == 1 {
                "a card".into()
            } else {
                format!("{} cards", v.discard_count)
            };
            return Some(format!("{} threw {what} to the crib", name(u, v, threw)));
        }
        None
    }

    fn board_of(&self, u: &Update, v: &View) -> String {
        let mut s = String::new();
        for (side, score) in v.scores.iter().enumerate() {
            let filled =
                (usize::from(*score) * TRACK_WIDTH / usize::from(v.target.max(1))).min(TRACK_WIDTH);
            // A side whose names run past the column gets a line of its
            // own, so that the score line stays within the screen.
            let mut who = side_name(u, v, side);
            if who.chars().count() > SIDE_NAME_WIDTH {
                s.push_str(&format!("  {who}:\n"));
                who.clear();
            }
            s.push_str(&format!(
                "  {:<width$} {:>3}/{} [{}{}]\n",
                who,
                score,
                v.target,
                "#".repeat(filled),
                ".".repeat(TRACK_WIDTH - filled),
                width = SIDE_NAME_WIDTH,
            ));
        }
        if let (Some(told), Some(prev)) = (self.show_previous, &v.previous) {
            s.push_str(&self.previous_show(u, v, prev, told));
        }
        let dealer = if Some(v.dealer) == u.you {
            "you deal".to_owned()
        } else {
            format!("{} deals", name(u, v, v.dealer))
        };
        let hand = format!("  Hand {} · {dealer}", v.hand_number);
        let crib = crib_of(u, v, v.dealer);
        // Long names (a partner bot's, say) put the crib on a line of its
        // own rather than past the screen's edge.
        let one = format!("{hand} · {crib}");
        if one.chars().count() <= super::SCREEN_WIDTH {
            s.push_str(&format!("{one}\n"));
        } else {
            s.push_str(&format!("{hand}\n  {crib}\n"));
        }
        if let Some(start) = v.start {
            s.push_str(&format!("  Start card: {}\n", card(start)));
        }
        if v.phase == Phase::Play {
            let laid: Vec<String> = v
                .series
                .iter()
                .map(|l| format!("{} {}", card(l.card), name(u, v, l.seat)))
                .collect();
            if laid.is_empty() {
                s.push_str(&format!("  Count: {}\n", v.count));
            } else {
                s.push_str(&wrapped(&format!("  Count: {} · laid: ", v.count), &laid));
            }
        }
        if let Some(last) = &self.last {
            s.push_str(&format!("  Last move: {last}\n"));
        }
        if v.you.is_some() {
            if !v.hand.is_empty() {
                s.push_str(&format!("  Your hand: {}\n", cards(&v.hand)));
            }
            if !v.discarded.is_empty() {
                s.push_str(&format!(
                    "  You threw to {}: {}\n",
                    crib_of(u, v, v.dealer),
                    cards(&v.discarded)
                ));
            }
        }
        if v.phase == Phase::Over && !v.shown.is_empty() {
            s.push_str("  The show, as far as it went:\n");
            s.push_str(&show(u, v, &v.shown, &v.events, self.from, v.start));
        } else {
            for e in v.events.get(self.from..).unwrap_or_default() {
                s.push_str(&event_line(u, v, e));
            }
        }
        s
    }

    fn previous_show(&self, u: &Update, v: &View, prev: &HandRecord, told: usize) -> String {
        let dealer = name(u, v, prev.dealer);
        let start = prev.start.map(card).unwrap_or_else(|| "none".into());
        let one = format!(
            "  -- The show of hand {} ({dealer} dealt; start card {start}) --",
            prev.number
        );
        // Long names put who dealt on a line of its own, within the screen.
        let mut s = if one.chars().count() <= super::SCREEN_WIDTH {
            format!("{one}\n")
        } else {
            format!(
                "  -- The show of hand {} --\n  {dealer} dealt; start card {start}.\n",
                prev.number
            )
        };
        s.push_str(&show(u, v, &prev.shown, &prev.events, told, prev.start));
        s.push_str("  --\n");
        s
    }
}

impl super::Renderer for Cribbage {
    fn observe(&mut self, u: &Update) {
        let Some(v) = view(u) else { return };
        let (from, show_previous, last) = match &self.seen {
            Some((_, seq)) if *seq == u.seq => return,
            Some((before, seq)) => {
                let same_hand = before.hand_number == v.hand_number;
                let told = before.events.len();
                let last = if u.seq == seq + 1 {
                    Self::step(u, before, &v)
                } else {
                    None
                };
                match (same_hand, &v.previous) {
                    (true, _) => (told, None, last),
                    (false, Some(p)) if p.number == before.hand_number => (0, Some(told), last),
                    (false, _) => (0, v.previous.as_ref().map(|_| 0), last),
                }
            }
            None => (0, None, None),
        };
        self.minor = match &self.seen {
            Some((before, seq)) => {
                u.seq == seq + 1
                    && before.hand_number == v.hand_number
                    && before.phase == Phase::Discard
                    && v.phase == Phase::Discard
                    && before.to_act.len() > v.to_act.len()
                    && u.you
                        .is_some_and(|me| !before.to_act.contains(me) || v.to_act.contains(me))
            }
            None => false,
        };
        self.from = from;
        self.show_previous = show_previous;
        self.last = last;
        self.seen = Some((v, u.seq));
    }

    fn board(&self, u: &Update) -> String {
        match view(u) {
            Some(v) => self.board_of(u, &v),
            None => format!("{}", u.view),
        }
    }

    fn prompt(&self, u: &Update) -> String {
        prompt(u)
    }

    fn parse(&self, u: &Update, line: &str) -> Result<Value, String> {
        parse(u, line)
    }

    fn last_move(&self, _u: &Update) -> Option<String> {
        self.last.clone()
    }

    fn partner(&self, u: &Update, seat: Seat) -> bool {
        view(u).is_some_and(|v| {
            v.partnerships
                && u.you
                    .is_some_and(|me| me != seat && v.side(me) == v.side(seat))
        })
    }

    fn brief(&self, _u: &Update) -> Option<String> {
        let last = self.last.as_ref().filter(|_| self.minor)?;
        Some(format!("  {}.", cap(last.clone())))
    }

    fn refusal(&self, _u: &Update, detail: &Value) -> Option<String> {
        let card_in = |k: &str| {
            serde_json::from_value::<Card>(detail.get(k)?.clone())
                .ok()
                .map(card)
        };
        Some(match detail.get("reason")?.as_str()? {
            "discard_count" => format!(
                "throw exactly {} to the crib, not {}",
                detail.get("expected")?,
                detail.get("got")?
            ),
            "duplicate_card" => format!("{} is named twice", card_in("card")?),
            "not_held" => format!("you do not hold {}", card_in("card")?),
            "over_thirty_one" => format!(
                "{} would take the count from {} past 31",
                card_in("card")?,
                detail.get("count")?
            ),
            "not_discarding" => "the cards have been thrown to the crib already".into(),
            "not_playing" => "cards are laid only once everyone has thrown to the crib".into(),
            _ => return None,
        })
    }
}

/// What to type.
pub fn prompt(u: &Update) -> String {
    let discarding = view(u).is_some_and(|v| v.phase == Phase::Discard);
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
    let discarding = view(u).is_some_and(|v| v.phase == Phase::Discard);
    match (discarding, picked.as_slice()) {
        (true, _) if !picked.is_empty() => Ok(json!(Move::Discard(picked))),
        (false, [one]) => Ok(json!(Move::Play(*one))),
        _ => Err("type the card(s), e.g. `5h` or `5h kd`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Renderer;
    use super::*;

    fn c(rank: Value, suit: &str) -> Value {
        json!({"rank": rank, "suit": suit})
    }

    /// The last update of a game won in the show: the crib is shown as
    /// the crib, and every scoring line is told, however many.
    #[test]
    fn a_game_ended_in_the_show_labels_the_crib_and_tells_every_score() {
        let hand = vec![
            c(json!(5), "clubs"),
            c(json!(8), "hearts"),
            c(json!("king"), "diamonds"),
            c(json!("king"), "spades"),
        ];
        let crib = vec![
            c(json!(3), "diamonds"),
            c(json!(3), "spades"),
            c(json!(5), "diamonds"),
            c(json!(5), "spades"),
        ];
        let events: Vec<Value> = (0..10)
            .map(|i| {
                json!({"seat": 1, "stage": "crib", "reason": "fifteen", "points": 2,
                       "cards": [c(json!(5), "spades"), c(json!(10 - i % 2), "clubs")],
                       "text": format!("fifteen for 2 (#{i})")})
            })
            .collect();
        let view = json!({
            "seats": 2, "target": 61, "partnerships": false, "scores": [40, 61],
            "hand_number": 5, "dealer": 1, "phase": "over", "to_act": [], "next": null,
            "you": 0, "hand": [], "discarded": [], "discard_count": 2, "held": [0, 0],
            "crib_size": 4, "start": c(json!(3), "clubs"), "count": 0, "series": [],
            "laid": [],
            "shown": [
                {"seat": 0, "kind": "hand", "cards": hand, "total": 6},
                {"seat": 1, "kind": "crib", "cards": crib, "total": 20}
            ],
            "events": events, "previous": null,
            "outcome": {"result": "win", "winners": [1]}
        });
        let u: Update = serde_json::from_value(json!({
            "room": "000000000001", "game": "cribbage", "seq": 50, "status": "finished",
            "seats": [], "you": 0, "to_act": [], "view": view,
            "outcome": {"result": "win", "winners": [1]},
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let mut r = Cribbage::default();
        r.observe(&u);
        let board = r.board(&u);
        assert!(
            board.contains("  Your hand: 5♣ 8♥ K♦ K♠ + 3♣ = 6"),
            "{board}"
        );
        assert!(
            board.contains("  Seat 1's crib: 3♦ 3♠ 5♦ 5♠ + 3♣ = 20"),
            "{board}"
        );
        for i in 0..10 {
            assert!(board.contains(&format!("(#{i})")), "{board}");
        }
    }

    /// A two-seat update at the throw: `held` cards in each hand, `to_act`
    /// the seats still to throw, alice (you) against bob.
    fn at_throw(
        seq: u64,
        status: &str,
        held: [u8; 2],
        to_act: &[u8],
        discarded: &[Value],
    ) -> Update {
        let view = json!({
            "seats": 2, "target": 121, "partnerships": false, "scores": [0, 0],
            "hand_number": 1, "dealer": 1, "phase": "discard", "to_act": to_act, "next": null,
            "you": 0, "hand": [], "discarded": discarded, "discard_count": 2, "held": held,
            "crib_size": 2 * (6 - held[0].min(6)), "start": null, "count": 0, "series": [],
            "laid": [], "shown": [], "events": [], "previous": null
        });
        serde_json::from_value(json!({
            "room": "000000000001", "game": "cribbage", "seq": seq, "status": status,
            "seats": [
                {"seat": 0, "kind": "player", "name": "alice", "connected": true, "account": true},
                {"seat": 1, "kind": "player", "name": "bob", "connected": true, "account": true}
            ],
            "you": 0, "to_act": to_act, "view": view,
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_resignation_at_the_throw_is_not_told_as_a_throw() {
        let mut r = Cribbage::default();
        r.observe(&at_throw(0, "playing", [6, 6], &[0, 1], &[]));
        // We throw two: told as ours, with the cards.
        let thrown = [c(json!(5), "clubs"), c(json!(8), "hearts")];
        let u = at_throw(1, "playing", [4, 6], &[1], &thrown);
        r.observe(&u);
        assert_eq!(
            r.last_move(&u).as_deref(),
            Some("you threw 5♣ 8♥ to the crib")
        );
        // Bob resigns before throwing: nobody's hand changed, no throw told.
        let mut r = Cribbage::default();
        r.observe(&at_throw(0, "playing", [6, 6], &[0, 1], &[]));
        let u = at_throw(1, "finished", [6, 6], &[], &[]);
        r.observe(&u);
        assert_eq!(r.last_move(&u), None);
        // Named, not numbered: bob deals, so the crib is his.
        assert!(r.board(&u).contains("bob's crib"), "{}", r.board(&u));
    }
}
