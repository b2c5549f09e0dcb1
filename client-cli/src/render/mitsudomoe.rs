//! Mitsudomoe in the terminal.
//!
//! The board shows each square's top piece and stack height: `B1` is a
//! black ball on a stack of one ring, `w3` a white ring on top of three,
//! `.` an empty square; Black's goals are in `[ ]`, White's in `< >`.
//! Turns are typed in the game's notation (`+C3 A4-C3`, `B3-C3 A5-A3
//! xA4-E5`) or picked by number; `?` lists the legal turns (`? B5`: those
//! of the ball on B5). A turn the rules refuse is refused here, with
//! their reason, before it is sent. Under the board, the turn count and
//! the room's limit, and the positions seen twice: Parlor's house rules
//! (not the published game's) end a match drawn at the limit or on a
//! position's third occurrence, and the end says which.

use parlor_games::mitsudomoe::{
    legal_turns, play, Color, EndReason, Move, Position, Square, View, SIDE,
};
use parlor_protocol::Update;
use serde_json::Value;

/// Legal turns listed under the prompt; `?` lists them all.
const SHOWN_IN_PROMPT: usize = 24;

/// Turns per line in a listing.
const PER_LINE: usize = 3;

fn view(u: &Update) -> Option<View> {
    serde_json::from_value(u.view.clone()).ok()
}

fn seat_of(c: Color) -> u8 {
    c.seat().0
}

/// "Black" or "White", to start a sentence.
fn name(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// One square: top piece and height, goal marks around it.
fn cell(pos: &Position, sq: Square) -> String {
    let b = pos.board();
    let h = b.height(sq);
    let inner = match (b.ball(sq), b.top(sq)) {
        (Some(ball), _) => format!("{}{h}", ball.letter().to_ascii_uppercase()),
        (None, Some(top)) => format!("{}{h}", top.letter()),
        (None, None) => " .".into(),
    };
    let inner = format!("{inner:>2}");
    if Color::Black.goals().contains(sq) {
        format!("[{inner}]")
    } else if Color::White.goals().contains(sq) {
        format!("<{inner}>")
    } else {
        format!(" {inner} ")
    }
}

/// The board drawn as text.
pub fn draw(pos: &Position) -> String {
    let mut s = String::from("     ");
    for c in 1..=SIDE {
        s.push_str(&format!("  {c}  "));
    }
    let mut s = s.trim_end().to_owned();
    s.push('\n');
    for r in 0..SIDE {
        let mut line = format!("  {}  ", char::from(b'A' + r));
        for c in 0..SIDE {
            if let Some(sq) = Square::at(r as i8, c as i8) {
                line.push_str(&cell(pos, sq));
                line.push(' ');
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

fn reason(r: EndReason) -> &'static str {
    match r {
        EndReason::AllOnGoal => "all three balls on goal",
        EndReason::HomeFilled => "the loser ended a turn with all its home squares full",
        EndReason::NoTurn => "the loser had no legal turn",
        EndReason::Forfeit => "the loser resigned or ran out of time",
        EndReason::Repetition => {
            "the same position came up for the third time (Parlor's house rule)"
        }
        EndReason::TurnLimit => "the room's turn limit was reached (Parlor's house rule)",
    }
}

/// Board, supplies, the last turn and the end.
pub fn board(u: &Update) -> String {
    let Some(v) = view(u) else {
        return format!("{}", u.view);
    };
    let Some(pos) = v.read_position() else {
        return format!("{}", u.view);
    };
    let mut s = draw(&pos);
    s.push_str("  B/W ball (on its ring), b/w top ring, digit = rings stacked; [ ] Black's goals, < > White's\n");
    let supplies: Vec<String> = v
        .players
        .iter()
        .map(|p| {
            format!(
                "{} ({}) {} rings",
                name(p.color),
                super::who(u, p.seat),
                p.supply
            )
        })
        .collect();
    s.push_str(&format!("  In supply: {}\n", supplies.join(" · ")));
    if let Some(last) = &v.last {
        s.push_str(&format!(
            "  Last turn: {} played {}\n",
            super::who(u, last.seat),
            last.notation
        ));
    }
    match v.max_turns {
        Some(limit) => s.push_str(&format!(
            "  Turn {} of {limit} (Parlor's limit: then drawn, as on a third repetition of a position)\n",
            v.turns
        )),
        // A match from before Parlor's house rules.
        None => s.push_str(&format!("  Turn {}\n", v.turns)),
    }
    if !v.repeated.is_empty() && v.end.is_none() {
        s.push_str(&format!(
            "  Seen twice (reaching one again draws): {}\n",
            v.repeated.join(" · ")
        ));
    }
    if let Some(end) = v.end {
        match end.winner {
            Some(w) => s.push_str(&format!(
                "  {} ({}) wins: {}.\n",
                name(w),
                super::who(u, parlor_games::Seat(seat_of(w))),
                reason(end.reason)
            )),
            None => s.push_str(&format!("  Drawn: {}.\n", reason(end.reason))),
        }
    } else {
        s.push_str(&format!(
            "  {} ({}) to move.\n",
            name(pos.to_move()),
            super::who(u, parlor_games::Seat(seat_of(pos.to_move())))
        ));
    }
    s
}

/// Whether `mv` leaves the mover's three home squares filled without
/// winning: the anti-stalling rule puts the mover out at once.
fn fills_home(pos: &Position, mv: &Move) -> bool {
    play(pos, mv).is_ok_and(|p| {
        p.position
            .end_of_turn()
            .is_some_and(|e| e.reason == EndReason::HomeFilled)
    })
}

/// The mark after a turn in a listing that would lose at once.
const LOSES_MARK: &str = "!loses";

/// The legal turns numbered as the server numbers them, those matching
/// `keep`, laid out in columns; a turn that fills the mover's home squares
/// is marked [`LOSES_MARK`].
fn listing(pos: &Position, turns: &[Move], keep: impl Fn(&Move) -> bool, most: usize) -> String {
    let shown: Vec<String> = turns
        .iter()
        .enumerate()
        .filter(|(_, m)| keep(m))
        .take(most)
        .map(|(i, m)| {
            let mark = if fills_home(pos, m) { LOSES_MARK } else { "" };
            format!("{:>4}. {:<24}", i + 1, format!("{m} {mark}").trim_end())
        })
        .collect();
    shown
        .chunks(PER_LINE)
        .map(|row| row.concat().trim_end().to_owned() + "\n")
        .collect()
}

fn position(u: &Update) -> Option<Position> {
    view(u)?.read_position()
}

/// What to type, with the first legal turns.
pub fn prompt(u: &Update) -> String {
    let Some(pos) = position(u) else {
        return "Your turn: type a turn in notation.\n".into();
    };
    let turns = legal_turns(&pos);
    let mut s = String::from(
        "Your turn: ring step then ball step, e.g. `+C3 A4-C3` (place a ring from supply on C3, \
         then step A4 to C3) or `B3-C3 A5-A3 xA4-E5` (move a ring, vault, relocate a jumped ball); \
         or a number.\n",
    );
    s.push_str(&listing(&pos, &turns, |_| true, SHOWN_IN_PROMPT));
    let losing = turns.iter().filter(|m| fills_home(&pos, m)).count();
    if losing > 0 {
        s.push_str(&format!(
            "  {losing} of these turns ({LOSES_MARK}) would fill your three home squares: that loses at once (the anti-stalling rule).\n"
        ));
    }
    if turns.len() > SHOWN_IN_PROMPT {
        s.push_str(&format!(
            "  ... {} legal turns in all: `?` lists them, `? B5` those of the ball on B5.\n",
            turns.len()
        ));
    }
    s
}

/// Reads a turn (notation or number) or a `?` request; checks the turn
/// against the rules.
pub fn parse(u: &Update, line: &str) -> Result<Value, String> {
    let pos = position(u).ok_or("this update holds no Mitsudomoe position")?;
    let turns = legal_turns(&pos);
    let line = line.trim();
    if let Some(rest) = line.strip_prefix('?') {
        let rest = rest.trim();
        let listed = if rest.is_empty() {
            listing(&pos, &turns, |_| true, usize::MAX)
        } else {
            let ball: Square = rest.parse().map_err(|e| format!("{e}"))?;
            listing(&pos, &turns, |m| m.ball.from == ball, usize::MAX)
        };
        // Not a move: the list is shown as the "reason", then the prompt waits.
        return Err(if listed.is_empty() {
            "no legal turn moves that ball".into()
        } else {
            listed
        });
    }
    let mv = match line.parse::<usize>() {
        Ok(n) => *turns
            .get(n.wrapping_sub(1))
            .ok_or_else(|| format!("pick a turn from 1 to {}", turns.len()))?,
        Err(_) => line.parse::<Move>().map_err(|e| e.to_string())?,
    };
    let played = play(&pos, &mv).map_err(|e| format!("illegal: {e}"))?;
    serde_json::to_value(played.turn).map_err(|e| e.to_string())
}

/// Mitsudomoe's renderer.
#[derive(Debug)]
pub struct Mitsudomoe;

impl super::Renderer for Mitsudomoe {
    fn board(&self, u: &Update) -> String {
        board(u)
    }

    fn prompt(&self, u: &Update) -> String {
        prompt(u)
    }

    fn parse(&self, u: &Update, line: &str) -> Result<Value, String> {
        parse(u, line)
    }

    fn last_move(&self, u: &Update) -> Option<String> {
        let last = view(u)?.last?;
        Some(format!(
            "{} played {}",
            super::who(u, last.seat),
            last.notation
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_games::{Game, GameKind, GameRng, Seat, Viewer};
    use serde_json::json;

    fn update(g: &parlor_games::mitsudomoe::Mitsudomoe) -> Update {
        serde_json::from_value(json!({
            "room": "000000000001",
            "game": "mitsudomoe",
            "seq": 0,
            "status": "playing",
            "seats": [],
            "you": 0,
            "to_act": [0],
            "view": serde_json::to_value(g.view(Viewer::Seat(Seat(0)))).unwrap_or_default(),
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn start() -> parlor_games::mitsudomoe::Mitsudomoe {
        parlor_games::mitsudomoe::Mitsudomoe::setup(
            &Default::default(),
            2,
            &mut GameRng::from_seed(0),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_board_marks_pieces_heights_and_goals() {
        let text = board(&update(&start()));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "       1    2    3    4    5");
        assert_eq!(lines[1], "  A    .    .    .  <B1> <B1>");
        assert_eq!(lines[4], "  D  [W1]   .    .    .    .");
        assert!(
            text.contains("Black (you) 5 rings · White (seat 1) 5 rings"),
            "{text}"
        );
        assert!(text.contains("Black (you) to move"), "{text}");
        assert_eq!(GameKind::Mitsudomoe.name(), "mitsudomoe");
    }

    #[test]
    fn turns_that_fill_your_home_squares_are_marked_before_they_are_played() {
        // Black's home is A4, A5, B5: two of its balls are on it, the
        // third can step from B4 onto its ring on B5 (and lose at once).
        let near = ".,.,.,bB,bB/.,.,.,bB,b/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. b";
        let g = parlor_games::mitsudomoe::Mitsudomoe::setup(
            &parlor_games::mitsudomoe::Config {
                position: Some(near.into()),
                ..Default::default()
            },
            2,
            &mut GameRng::from_seed(0),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let u = update(&g);
        let pos = position(&u).unwrap_or_else(|| panic!("no position"));
        let turns = legal_turns(&pos);
        // The full listing, read back entry by entry ("12." starts one).
        let listed = listing(&pos, &turns, |_| true, usize::MAX);
        let mut entries: Vec<Vec<&str>> = Vec::new();
        for word in listed.split_whitespace() {
            if word.ends_with('.') && word.trim_end_matches('.').parse::<usize>().is_ok() {
                entries.push(Vec::new());
            } else if let Some(e) = entries.last_mut() {
                e.push(word);
            }
        }
        assert_eq!(entries.len(), turns.len(), "{listed}");
        let marked = entries.iter().filter(|e| e.contains(&LOSES_MARK)).count();
        assert!(marked > 0, "{listed}");
        // A turn is marked exactly when the ball on B4 steps to B5, the
        // last free home square (A4's or A5's going there frees its own).
        for e in &entries {
            let lands_home = e.get(1) == Some(&"B4-B5");
            assert_eq!(e.contains(&LOSES_MARK), lands_home, "{e:?} in {listed}");
        }
        let text = prompt(&u);
        assert!(
            text.contains(&format!(
                "{marked} of these turns ({LOSES_MARK}) would fill your three home squares"
            )),
            "{text}"
        );
        // The rules agree: playing a marked turn ends the game, Black out.
        let losing = legal_turns(&pos)
            .into_iter()
            .find(|m| fills_home(&pos, m))
            .unwrap_or_else(|| panic!("no losing turn"));
        let after = play(&pos, &losing).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            after.position.end_of_turn().map(|e| (e.winner, e.reason)),
            Some((Some(Color::White), EndReason::HomeFilled))
        );
    }

    #[test]
    fn a_drawn_end_says_which_house_rule_ended_it() {
        let shuffle = ".,.,bB,.,./w,wW,.,.,./.,.,bB,b,bB/.,.,.,.,./.,.,.,wW,wW b";
        let mut g = parlor_games::mitsudomoe::Mitsudomoe::setup(
            &parlor_games::mitsudomoe::Config {
                position: Some(shuffle.into()),
                ..Default::default()
            },
            2,
            &mut GameRng::from_seed(0),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let lap = [
            "C4-D3 C3-D3",
            "B1-A2 B2-A2",
            "C3-C4 D3-C4",
            "B2-B1 A2-B1",
            "D3-C3 C4-C3",
            "A2-B2 B1-B2",
        ];
        for (i, turn) in lap.iter().chain(lap.iter()).enumerate() {
            if i == 6 {
                let text = board(&update(&g));
                assert!(text.contains("Turn 6 of 300"), "{text}");
                assert!(
                    text.contains(&format!("Seen twice (reaching one again draws): {shuffle}")),
                    "{text}"
                );
            }
            let mv: Move = turn.parse().unwrap_or_else(|e| panic!("{turn}: {e}"));
            g.play(Seat((i % 2) as u8), &mv, &mut GameRng::from_seed(0))
                .unwrap_or_else(|e| panic!("{turn}: {e}"));
        }
        let text = board(&update(&g));
        assert!(
            text.contains(
                "Drawn: the same position came up for the third time (Parlor's house rule)."
            ),
            "{text}"
        );
    }

    #[test]
    fn turns_are_read_by_notation_or_number_and_checked() {
        let u = update(&start());
        let first = parse(&u, "1").unwrap_or_default();
        assert_eq!(first["ball"], json!({"from": "A4", "to": "A3"}));
        assert_eq!(
            parse(&u, "+b4 a5-b4").unwrap_or_default()["ring"],
            json!({"from": null, "to": "B4"})
        );
        let why = parse(&u, "+C3 A4-B3").err().unwrap_or_default();
        assert!(
            why.starts_with("illegal: the ball cannot land on B3"),
            "{why}"
        );
        assert!(parse(&u, "10").is_err());
        assert!(parse(&u, "+Z9 A4-A3").is_err_and(|e| e.contains("Z9")));
        let list = parse(&u, "? B5").err().unwrap_or_default();
        assert_eq!(list.matches('.').count(), 3, "{list}");
        assert!(prompt(&u).contains("+A3 A4-A3"));
    }
}
