//! Legal move generation: every distinct whole turn of the player to
//! move, in a fixed order, with the position it leads to.
//!
//! Order: ring steps from supply (by destination), then ring moves (by
//! source, then destination); for each, the ball steps by ball square,
//! then destination; for each vault that jumps opponent balls, the
//! outcomes of relocation in [`each_outcome`] order. Two turns are the
//! same when they do the same ring step and ball step and leave the
//! jumped balls on the same squares (see [`relocation`](super::relocation)).
//!
//! Nothing here allocates: boards are copied (about 100 bytes) and
//! everything else is bit sets and fixed arrays.

use std::ops::ControlFlow::{self, Break, Continue};

use super::board::Board;
use super::color::Color;
use super::direction::{neighbours_of, ray_from};
use super::position::Position;
use super::relocation::{canonical_order, each_outcome, Relocations};
use super::set::SquareSet;
use super::square::Square;
use super::turn::{BallStep, Move, RingStep};

/// Where one ball can go on a board (after the ring step): its step and
/// vault landings, and for each direction's vault the opponent balls it
/// jumps.
struct BallTargets {
    targets: SquareSet,
    vaults: [(Option<Square>, SquareSet); 8],
}

impl BallTargets {
    fn of(board: &Board, me: Color, from: Square, landings: SquareSet) -> BallTargets {
        let opp = me.other();
        let occupied = board.occupied();
        let opp_balls = board.balls(opp);
        let mut targets = neighbours_of(from) & landings;
        let mut vaults = [(None, SquareSet::EMPTY); 8];
        for (d, vault) in vaults.iter_mut().enumerate() {
            let mut jumped = 0;
            let mut jumped_opp = SquareSet::EMPTY;
            let mut landing = None;
            for &sq in ray_from(from, d) {
                if !occupied.contains(sq) {
                    landing = Some(sq);
                    break;
                }
                if opp_balls.contains(sq) {
                    if opp.goals().contains(sq) {
                        // An opponent ball home on its goal stops the vault.
                        break;
                    }
                    jumped_opp.insert(sq);
                }
                jumped += 1;
            }
            if let Some(to) = landing.filter(|l| jumped > 0 && landings.contains(*l)) {
                *vault = (Some(to), jumped_opp);
                targets.insert(to);
            }
        }
        BallTargets { targets, vaults }
    }

    /// The opponent balls jumped landing on `to` (empty for a step).
    fn jumped(&self, to: Square) -> SquareSet {
        self.vaults
            .iter()
            .find(|(l, _)| *l == Some(to))
            .map_or(SquareSet::EMPTY, |(_, j)| *j)
    }
}

/// Every ring step of `me` on `board`, with the board after it.
fn each_ring_step<B>(
    board: &Board,
    me: Color,
    mut f: impl FnMut(RingStep, &Board) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let open = !board.occupied();
    if board.supply(me) > 0 {
        for to in open {
            let mut b = *board;
            b.place_ring(to, me);
            f(RingStep { from: None, to }, &b)?;
        }
    }
    for from in board.tops(me) & open {
        for to in open.without(from) {
            let mut b = *board;
            b.move_ring(from, to);
            f(
                RingStep {
                    from: Some(from),
                    to,
                },
                &b,
            )?;
        }
    }
    Continue(())
}

/// Every ball step of `me` on `board` (after `ring`), as whole turns.
fn each_ball_step<B>(
    board: &Board,
    me: Color,
    ring: RingStep,
    f: &mut impl FnMut(&Move, &Position) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let opp = me.other();
    let landings = board.tops(me) & !board.occupied();
    if landings.is_empty() {
        return Continue(());
    }
    // The ball step moves the mover's balls between the mover's rings,
    // so it never changes which opponent rings are free.
    let free = board.tops(opp) & !board.occupied();
    for from in board.balls(me) & !me.goals() {
        let t = BallTargets::of(board, me, from, landings);
        for to in t.targets {
            let mut after = *board;
            after.move_ball(from, to, me);
            let ball = BallStep { from, to };
            let jumped = t.jumped(to);
            if jumped.is_empty() {
                let mv = Move {
                    ring,
                    ball,
                    relocate: Relocations::NONE,
                };
                f(&mv, &Position::new(after, opp))?;
                continue;
            }
            each_outcome(jumped, free, |ends| {
                let mut b = after;
                for y in jumped {
                    b.take_ball(y, opp);
                }
                for z in ends {
                    b.put_ball(z, opp);
                }
                let mv = Move {
                    ring,
                    ball,
                    relocate: canonical_order(jumped, ends),
                };
                f(&mv, &Position::new(b, opp))
            })?;
        }
    }
    Continue(())
}

/// Calls `f` with every legal turn in `pos` and the position after it,
/// in the module's order, until `f` breaks. Does not look at whether
/// the game is already over: see [`Position::end_after_turn`].
pub fn each_turn<B>(
    pos: &Position,
    mut f: impl FnMut(&Move, &Position) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let me = pos.to_move();
    each_ring_step(pos.board(), me, |ring, b| {
        each_ball_step(b, me, ring, &mut f)
    })
}

/// How many ways the jumped balls can end, given `free` rings.
fn outcomes(jumped: usize, free: usize) -> usize {
    if free == 0 {
        return 0;
    }
    // C(free + jumped, jumped) - 1, jumped <= 3.
    let n = free + jumped;
    let c = match jumped {
        1 => n,
        2 => n * (n - 1) / 2,
        _ => n * (n - 1) * (n - 2) / 6,
    };
    c - 1
}

/// How many legal turns `pos` has: the length of the legal list, counted
/// without building it.
pub fn count_turns(pos: &Position) -> usize {
    let me = pos.to_move();
    let mut total = 0;
    let _ = each_ring_step::<()>(pos.board(), me, |_, board| {
        let landings = board.tops(me) & !board.occupied();
        if landings.is_empty() {
            return Continue(());
        }
        let free = (board.tops(me.other()) & !board.occupied()).len();
        for from in board.balls(me) & !me.goals() {
            let t = BallTargets::of(board, me, from, landings);
            for to in t.targets {
                let jumped = t.jumped(to).len();
                total += if jumped == 0 {
                    1
                } else {
                    outcomes(jumped, free)
                };
            }
        }
        Continue(())
    });
    total
}

/// Whether the player to move has any legal turn.
pub fn has_turn(pos: &Position) -> bool {
    each_turn(pos, |_, _| Break(())).is_break()
}

/// Every legal turn, in order.
pub fn legal_turns(pos: &Position) -> Vec<Move> {
    let mut out = Vec::new();
    let _ = each_turn::<()>(pos, |m, _| {
        out.push(*m);
        Continue(())
    });
    out
}

/// The `n`-th legal turn (from 0), if there are more than `n`.
pub fn nth_turn(pos: &Position, n: usize) -> Option<Move> {
    let mut i = 0;
    match each_turn(pos, |m, _| {
        if i == n {
            return Break(*m);
        }
        i += 1;
        Continue(())
    }) {
        Break(m) => Some(m),
        Continue(()) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_player_has_nine_turns_at_the_start() {
        let start = Position::initial();
        let turns = legal_turns(&start);
        let text: Vec<String> = turns.iter().map(|m| m.to_string()).collect();
        // rules.md: "from the initial position the first player has exactly
        // 9 legal full turns". A ring must go where a ball can then land.
        assert_eq!(
            text,
            [
                "+A3 A4-A3",
                "+A3 A5-A3",
                "+B3 A4-B3",
                "+B4 A4-B4",
                "+B4 A5-B4",
                "+B4 B5-B4",
                "+C4 B5-C4",
                "+C5 A5-C5",
                "+C5 B5-C5",
            ]
        );
        assert_eq!(count_turns(&start), 9);
        assert!(has_turn(&start));
        assert_eq!(nth_turn(&start, 8), turns.get(8).copied());
        assert_eq!(nth_turn(&start, 9), None);
    }

    #[test]
    fn counting_agrees_with_listing() {
        let p: Position = "bw,wW,bB,.,w/.,wW,.,wW,b/b,bB,.,bB,w/.,.,w,.,./.,.,b,.,w b"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(count_turns(&p), legal_turns(&p).len());
        assert!(count_turns(&p) > 100);
    }

    #[test]
    fn outcome_counts() {
        assert_eq!(outcomes(1, 0), 0);
        assert_eq!(outcomes(1, 4), 4);
        assert_eq!(outcomes(2, 1), 2);
        assert_eq!(outcomes(3, 2), 9);
    }
}
