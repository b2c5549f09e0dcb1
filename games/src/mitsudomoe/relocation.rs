//! Where the opponent balls a vault jumps go.
//!
//! Each jumped opponent ball moves, one after another in the order the
//! mover lists them, to a square that at that moment holds no ball and
//! is topped by a ring of the ball's colour. Moving a ball never changes
//! which ring tops a square, but it frees the square it leaves and fills
//! the one it reaches, so the order matters: with two balls jumped on B4
//! and C4, "B4 to E5, then C4 to B4" works, while "C4 to B4" first does
//! not (B4 still holds its ball). No ball can stay where it is, and the
//! first to move has only squares that were free to begin with, so a
//! vault with no free ring of the jumped colour is impossible.
//!
//! Balls of one colour are alike, so two lists that leave the opponent's
//! balls on the same squares are the same turn. Every reachable outcome
//! is a set `Z` of as many squares as balls jumped, drawn from the free
//! rings `F` and the jumped squares `Y`, other than `Y` itself (some ball
//! must take a free ring first; the rest can then follow into the
//! squares freed). The legal-move list shows each outcome once, with one
//! list of relocations that reaches it: its canonical form
//! ([`canonical_order`]); `play` accepts any list that works.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::board::Board;
use super::color::Color;
use super::illegal::Illegal;
use super::set::SquareSet;
use super::square::Square;

/// The most balls one vault can jump: a line of the 5x5 board has 5
/// squares, one for the vaulting ball and one for its landing.
pub const MAX_JUMPED: usize = 3;

/// One jumped opponent ball's move: `{"from": "B4", "to": "E5"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relocation {
    /// The jumped ball's square.
    pub from: Square,
    /// Where the mover puts it.
    pub to: Square,
}

/// The relocations of one turn, in order: at most [`MAX_JUMPED`], kept
/// inline so that a move is `Copy` and generating one allocates nothing.
/// On the wire: a JSON array of [`Relocation`]s.
#[derive(Clone, Copy)]
pub struct Relocations {
    items: [Relocation; MAX_JUMPED],
    len: u8,
}

/// Filler for unused slots, never read.
const UNUSED: Relocation = Relocation {
    from: Square::A1,
    to: Square::A1,
};

impl Relocations {
    /// None.
    pub const NONE: Relocations = Relocations {
        items: [UNUSED; MAX_JUMPED],
        len: 0,
    };

    /// These relocations, if there are at most [`MAX_JUMPED`].
    pub fn new(list: &[Relocation]) -> Option<Relocations> {
        let mut r = Relocations::NONE;
        for &x in list {
            if !r.push(x) {
                return None;
            }
        }
        Some(r)
    }

    /// Appends one; `false` (and nothing changes) when full.
    fn push(&mut self, x: Relocation) -> bool {
        match self.items.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = x;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// The relocations, in order.
    pub fn as_slice(&self) -> &[Relocation] {
        &self.items[..usize::from(self.len)]
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Default for Relocations {
    fn default() -> Self {
        Relocations::NONE
    }
}

impl PartialEq for Relocations {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Relocations {}

impl std::hash::Hash for Relocations {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl fmt::Debug for Relocations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl Serialize for Relocations {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl<'de> Deserialize<'de> for Relocations {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Relocations;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a list of at most {MAX_JUMPED} relocations")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Relocations, A::Error> {
                let mut r = Relocations::NONE;
                while let Some(x) = seq.next_element::<Relocation>()? {
                    if !r.push(x) {
                        return Err(serde::de::Error::custom(format!(
                            "at most {MAX_JUMPED} balls can be jumped, so at most {MAX_JUMPED} relocations"
                        )));
                    }
                }
                Ok(r)
            }
        }
        d.deserialize_seq(Visit)
    }
}

/// The canonical list that moves the balls on `jumped` so that they end
/// on `targets` (a set of the same size, other than `jumped`, whose
/// squares outside `jumped` are free rings of their colour): square by
/// square in order, the jumped balls whose squares stay filled hand on
/// in a chain (the first takes the first free ring, the next takes the
/// square it left, ...), the chain's last gap is filled by the first
/// ball that leaves for good, and the other leavers take the remaining
/// free rings in order.
pub fn canonical_order(jumped: SquareSet, targets: SquareSet) -> Relocations {
    let kept = jumped & targets; // filled before and after
    let leaving = jumped & !targets;
    let mut free = (targets & !jumped).into_iter();
    let mut out = Relocations::NONE;
    let mut leaving = leaving.into_iter();
    let mut gap = None;
    for sq in kept {
        let to = match gap {
            None => free.next(),
            Some(g) => Some(g),
        };
        if let Some(to) = to {
            out.push(Relocation { from: sq, to });
        }
        gap = Some(sq);
    }
    if let Some(g) = gap {
        if let Some(from) = leaving.next() {
            out.push(Relocation { from, to: g });
        }
    }
    for from in leaving {
        if let Some(to) = free.next() {
            out.push(Relocation { from, to });
        }
    }
    out
}

/// Carries out `list` on `board` (after the ball step) for the balls of
/// `color` jumped on `jumped`: each in turn moves to a square that then
/// holds no ball and is topped by a ring of `color`. On success returns
/// the squares the jumped balls end on; on `Err` the board may be half
/// changed, so callers work on a copy.
pub fn carry_out(
    board: &mut Board,
    color: Color,
    jumped: SquareSet,
    list: &Relocations,
) -> Result<SquareSet, Illegal> {
    let free = board.tops(color) & !board.occupied();
    if free.is_empty() {
        if let Some(square) = jumped.first() {
            return Err(Illegal::NowhereToRelocate { square, color });
        }
    }
    let mut pending = jumped;
    let mut ends = SquareSet::EMPTY;
    for &Relocation { from, to } in list.as_slice() {
        if !jumped.contains(from) {
            return Err(Illegal::NotJumped { square: from });
        }
        if !pending.contains(from) {
            return Err(Illegal::RelocatedTwice { square: from });
        }
        if board.occupied().contains(to) {
            return Err(Illegal::RelocationOccupied { from, to });
        }
        if board.top(to) != Some(color) {
            return Err(Illegal::RelocationNotOnRing { from, to, color });
        }
        board.move_ball(from, to, color);
        pending.remove(from);
        ends.insert(to);
    }
    match pending.first() {
        Some(square) => Err(Illegal::MissingRelocation { square }),
        None => Ok(ends),
    }
}

/// Calls `f` with every set of squares the balls on `jumped` can end on,
/// given the `free` rings of their colour, in order: each a set of
/// `jumped.len()` squares from `free | jumped` with at least one from
/// `free`, listed as ascending square lists in lexicographic order.
/// Stops when `f` breaks.
pub fn each_outcome<B>(
    jumped: SquareSet,
    free: SquareSet,
    mut f: impl FnMut(SquareSet) -> std::ops::ControlFlow<B>,
) -> std::ops::ControlFlow<B> {
    use std::ops::ControlFlow::Continue;
    if free.is_empty() || jumped.is_empty() {
        return Continue(());
    }
    let pool = jumped | free;
    let mut squares = [Square::A1; super::square::SQUARES];
    let mut n = 0;
    for sq in pool {
        squares[n] = sq;
        n += 1;
    }
    let squares = &squares[..n];
    let mut pick = |set: SquareSet| {
        if set == jumped {
            Continue(())
        } else {
            f(set)
        }
    };
    match jumped.len() {
        1 => {
            for &a in squares {
                pick(SquareSet::single(a))?;
            }
        }
        2 => {
            for (i, &a) in squares.iter().enumerate() {
                for &b in &squares[i + 1..] {
                    pick(SquareSet::single(a).with(b))?;
                }
            }
        }
        _ => {
            for (i, &a) in squares.iter().enumerate() {
                for (j, &b) in squares.iter().enumerate().skip(i + 1) {
                    for &c in &squares[j + 1..] {
                        pick(SquareSet::single(a).with(b).with(c))?;
                    }
                }
            }
        }
    }
    Continue(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::ControlFlow;

    fn sq(s: &str) -> Square {
        s.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    fn set(names: &[&str]) -> SquareSet {
        names.iter().map(|n| sq(n)).collect()
    }

    fn text(r: &Relocations) -> Vec<String> {
        r.as_slice()
            .iter()
            .map(|x| format!("{}-{}", x.from, x.to))
            .collect()
    }

    #[test]
    fn canonical_lists_chain_through_squares_left_behind() {
        // Both leave for free rings: in order.
        assert_eq!(
            text(&canonical_order(set(&["B4", "C4"]), set(&["A1", "E5"]))),
            ["B4-A1", "C4-E5"]
        );
        // B4 stays filled: its ball takes the free ring, C4's follows it.
        assert_eq!(
            text(&canonical_order(set(&["B4", "C4"]), set(&["B4", "E5"]))),
            ["B4-E5", "C4-B4"]
        );
        // C4 stays filled: C4's ball leaves first, B4's takes its place.
        assert_eq!(
            text(&canonical_order(set(&["B4", "C4"]), set(&["C4", "E5"]))),
            ["C4-E5", "B4-C4"]
        );
        // Three jumped, two kept, one free ring.
        assert_eq!(
            text(&canonical_order(
                set(&["B2", "B3", "B4"]),
                set(&["B2", "B4", "E5"])
            )),
            ["B2-E5", "B4-B2", "B3-B4"]
        );
    }

    #[test]
    fn outcomes_are_the_subsets_other_than_the_jumped_squares() {
        let count = |jumped: SquareSet, free: SquareSet| {
            let mut n = 0;
            let _ = each_outcome::<()>(jumped, free, |z| {
                assert_eq!(z.len(), jumped.len());
                assert!((jumped | free).is_superset(z));
                assert_ne!(z, jumped);
                n += 1;
                ControlFlow::Continue(())
            });
            n
        };
        // C(f + k, k) - 1.
        assert_eq!(count(set(&["B4"]), set(&["A1", "E5"])), 2);
        assert_eq!(count(set(&["B4", "C4"]), set(&["A1"])), 2);
        assert_eq!(count(set(&["B4", "C4"]), set(&["A1", "E5"])), 5);
        assert_eq!(count(set(&["B2", "B3", "B4"]), set(&["A1", "E5"])), 9);
        assert_eq!(count(set(&["B4"]), SquareSet::EMPTY), 0);
    }

    #[test]
    fn at_most_three_relocations_decode() {
        let three = r#"[{"from":"A1","to":"A2"},{"from":"A3","to":"A4"},{"from":"A5","to":"B1"}]"#;
        assert!(serde_json::from_str::<Relocations>(three).is_ok_and(|r| r.as_slice().len() == 3));
        let four = r#"[{"from":"A1","to":"A2"},{"from":"A3","to":"A4"},{"from":"A5","to":"B1"},{"from":"B2","to":"B3"}]"#;
        assert!(serde_json::from_str::<Relocations>(four).is_err());
    }
}
