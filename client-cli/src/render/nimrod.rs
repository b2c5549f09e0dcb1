//! Nimrod in the terminal.
//!
//! The server always lists the lesser pile first (its pile A), so after a
//! move the piles may trade names. On screen they stay where they are:
//! the pile shown as A is the one that was A when the match was first
//! drawn, whatever it holds now, and moves are typed and told with the
//! screen's names.

use parlor_games::nimrod::View;
use parlor_protocol::Update;
use serde_json::{json, Value};

use super::who;

/// Piles up to this size are also drawn as rods.
const DRAWN_PILE_MAX: u64 = 60;

fn rods(n: u64) -> String {
    if n <= DRAWN_PILE_MAX {
        "|".repeat(n as usize)
    } else {
        String::new()
    }
}

/// "1 rod", "4 rods".
fn count(n: u64) -> String {
    if n == 1 {
        "1 rod".into()
    } else {
        format!("{n} rods")
    }
}

fn view(u: &Update) -> Option<View> {
    serde_json::from_value(u.view.clone()).ok()
}

/// Nimrod's renderer, with where the piles stand on screen.
#[derive(Debug, Default)]
pub struct Nimrod {
    /// Whether the screen's pile A is the server's pile B (the greater).
    swapped: bool,
    /// The server's piles and `seq` of the update observed last.
    seen: Option<([u64; 2], u64)>,
    /// The last move in the screen's words.
    last: Option<String>,
}

impl Nimrod {
    /// The server's `[a, b]` in the screen's order.
    fn on_screen(&self, [a, b]: [u64; 2]) -> [u64; 2] {
        if self.swapped {
            [b, a]
        } else {
            [a, b]
        }
    }

    /// What a move took, in the screen's words.
    fn took(screen: [u64; 2]) -> String {
        match screen {
            [0, y] => format!("took {} from pile B", count(y)),
            [x, 0] => format!("took {} from pile A", count(x)),
            [x, _] => format!("took {} from each pile", count(x)),
        }
    }

    /// Reads `a N`, `b N`, `both N` or `X Y`, named as on screen.
    fn read(&self, line: &str) -> Result<Value, String> {
        let [x, y] = parse(line)?;
        // Back to the server's order: the screen's A may be its B.
        Ok(json!({ "take": self.on_screen([x, y]) }))
    }
}

/// Reads `a N`, `b N`, `both N` or `X Y` as `[from A, from B]`.
fn parse(line: &str) -> Result<[u64; 2], String> {
    let words: Vec<String> = line.split_whitespace().map(str::to_lowercase).collect();
    let num = |s: &str| {
        s.parse::<u64>()
            .map_err(|_| format!("{s:?} is not a number of rods"))
    };
    let take = match words
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["a", n] => [num(n)?, 0],
        ["b", n] => [0, num(n)?],
        ["both", n] => {
            let n = num(n)?;
            [n, n]
        }
        [x, y] => [num(x)?, num(y)?],
        _ => return Err("type e.g. \"a 3\", \"b 2\", \"both 1\" or \"0 2\"".into()),
    };
    Ok(take)
}

impl super::Renderer for Nimrod {
    fn observe(&mut self, u: &Update) {
        let Some(v) = view(u) else { return };
        let now = [v.piles.a(), v.piles.b()];
        let step = match (self.seen, &v.last) {
            (Some((before, seq)), Some(last)) if u.seq == seq + 1 => Some((before, last)),
            (Some((_, seq)), _) if u.seq == seq => return,
            _ => None,
        };
        match step {
            Some((before, last)) => {
                // The move as the screen saw it, and the piles after it.
                let shown = self.on_screen(before);
                let took = self.on_screen(last.take);
                let after = [
                    shown[0].saturating_sub(took[0]),
                    shown[1].saturating_sub(took[1]),
                ];
                // Keep the screen's piles where they were; start over from
                // the server's order if the two ever disagree.
                self.swapped = after == [now[1], now[0]] && after != now;
                self.last = Some(format!("{} {}", who(u, last.seat), Self::took(took)));
            }
            None => {
                self.swapped = false;
                self.last = v
                    .last
                    .as_ref()
                    .map(|l| format!("{} {}", who(u, l.seat), Self::took(l.take)));
            }
        }
        self.seen = Some((now, u.seq));
    }

    fn board(&self, u: &Update) -> String {
        let Some(v) = view(u) else {
            return format!("{}", u.view);
        };
        let [a, b] = self.on_screen([v.piles.a(), v.piles.b()]);
        let mut s = format!(
            "  Pile A {a:>4}  {}\n  Pile B {b:>4}  {}\n",
            rods(a),
            rods(b)
        );
        if let Some(last) = &self.last {
            s.push_str(&format!("  Last move: {last}\n"));
        }
        s
    }

    fn prompt(&self, _u: &Update) -> String {
        "Your move: \"a 3\" takes 3 from pile A, \"b 2\" 2 from pile B, \"both 1\" 1 from each (or \"x y\"):".into()
    }

    fn parse(&self, _u: &Update, line: &str) -> Result<Value, String> {
        self.read(line)
    }

    fn last_move(&self, _u: &Update) -> Option<String> {
        self.last.clone()
    }

    fn refusal(&self, _u: &Update, detail: &Value) -> Option<String> {
        match detail.get("reason")?.as_str()? {
            "shape" => Some(
                "take rods from one pile, or the same number from both, and at least one".into(),
            ),
            "too_many" => {
                let server_a = detail.get("pile")?.as_str()? == "a";
                let pile = if server_a != self.swapped { "A" } else { "B" };
                let has = detail.get("has")?.as_u64()?;
                let take = detail.get("take")?.as_u64()?;
                Some(format!(
                    "pile {pile} has only {}, so you cannot take {take}",
                    count(has)
                ))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Renderer;
    use super::*;

    #[test]
    fn typed_moves() {
        assert_eq!(parse("a 3"), Ok([3, 0]));
        assert_eq!(parse("B 2"), Ok([0, 2]));
        assert_eq!(parse("both 4"), Ok([4, 4]));
        assert_eq!(parse("0 5"), Ok([0, 5]));
        assert!(parse("take lots").is_err());
        assert!(parse("a -1").is_err());
    }

    fn update(seq: u64, piles: [u64; 2], last: Option<(u8, [u64; 2])>) -> Update {
        let last = last.map(|(seat, take)| json!({"seat": seat, "take": take}));
        serde_json::from_value(json!({
            "room": "000000000001", "game": "nimrod", "seq": seq, "status": "playing",
            "seats": [], "you": 0, "to_act": [0],
            "view": {"piles": piles, "next": 0, "last": last},
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn piles_keep_their_places_when_the_server_reorders_them() {
        let mut r = Nimrod::default();
        r.observe(&update(0, [5, 9], None));
        assert!(r.board(&update(0, [5, 9], None)).contains("Pile A    5"));
        // Seat 1 takes 6 from B: 5 and 3, which the server lists as [3, 5].
        let u = update(1, [3, 5], Some((1, [0, 6])));
        r.observe(&u);
        let board = r.board(&u);
        assert!(board.contains("Pile A    5"), "{board}");
        assert!(board.contains("Pile B    3"), "{board}");
        assert!(board.contains("seat 1 took 6 rods from pile B"), "{board}");
        // "a 1" means the screen's A, the server's B.
        assert_eq!(r.parse(&u, "a 1"), Ok(json!({"take": [0, 1]})));
        // Taking 1 from the screen's A (server [0, 1]) leaves 4 and 3:
        // still A 4, B 3 on screen.
        let u = update(2, [3, 4], Some((0, [0, 1])));
        r.observe(&u);
        let board = r.board(&u);
        assert!(board.contains("Pile A    4"), "{board}");
        assert!(board.contains("you took 1 rod from pile A"), "{board}");
        let too_many = json!({"reason": "too_many", "pile": "a", "take": 7, "has": 3});
        assert_eq!(
            r.refusal(&u, &too_many).as_deref(),
            Some("pile B has only 3 rods, so you cannot take 7")
        );
    }
}
