//! The static evaluation the `greedy` and `search` bots share.
//!
//! A side's score adds, for each of its balls:
//! - [`ON_GOAL`] if it rests on a goal space (it is home for good);
//! - otherwise minus [`PER_STEP`] for each king's step to the nearest goal
//!   space its own balls have not taken yet;
//! - plus [`PER_OPTION`] for each square it could reach next turn:
//!   adjacent squares without a ball (a ring can be put there first) and
//!   the landing of each vault over adjacent balls;
//!
//! and [`PER_BLOCKED`] for each opponent ball (off its goals) that could
//! not move next turn whatever ring it placed: every neighbour holds a
//! ball and no vault lands. The evaluation of a position for a colour is
//! its score minus the other's. Distance dominates (a step nearer the
//! goal outweighs any mobility), balls home outweigh everything but a
//! win.

use crate::mitsudomoe::board::Board;
use crate::mitsudomoe::color::Color;
use crate::mitsudomoe::direction::{neighbours_of, ray_from};
use crate::mitsudomoe::position::Position;
use crate::mitsudomoe::square::Square;

/// Worth of a ball resting on a goal space: more than the largest
/// distance penalty (4 steps) plus all the mobility a ball can have, so
/// that getting a ball home is always worth it.
pub const ON_GOAL: i32 = 100;

/// Cost of each step between a ball and its nearest open goal space.
pub const PER_STEP: i32 = 12;

/// Worth of each square a ball could reach next turn.
pub const PER_OPTION: i32 = 1;

/// Worth of each opponent ball that cannot move next turn.
pub const PER_BLOCKED: i32 = 6;

/// Where a ball on `from` could land next turn, given a ring placed
/// anywhere free: free neighbours and vault landings.
fn options(board: &Board, from: Square) -> (u32, bool) {
    let occupied = board.occupied();
    let mut n = (neighbours_of(from) & !occupied).len() as u32;
    for d in 0..8 {
        let ray = ray_from(from, d);
        let mut over = 0;
        for &sq in ray {
            if occupied.contains(sq) {
                over += 1;
            } else {
                if over > 0 {
                    n += 1;
                }
                break;
            }
        }
    }
    (n, n == 0)
}

/// One side's score (see the module documentation).
pub fn score(board: &Board, c: Color) -> i32 {
    let goals = c.goals();
    let mine = board.balls(c);
    let open_goals = goals & !mine;
    let mut s = 0;
    for ball in mine {
        if goals.contains(ball) {
            s += ON_GOAL;
            continue;
        }
        let dist = open_goals
            .into_iter()
            .map(|g| i32::from(ball.distance(g)))
            .min()
            .unwrap_or(0);
        s -= PER_STEP * dist;
        let (n, _) = options(board, ball);
        s += PER_OPTION * n as i32;
    }
    let opp = c.other();
    for ball in board.balls(opp) & !opp.goals() {
        if options(board, ball).1 {
            s += PER_BLOCKED;
        }
    }
    s
}

/// The position's worth for `c`: its score minus the opponent's.
pub fn evaluate(pos: &Position, c: Color) -> i32 {
    score(pos.board(), c) - score(pos.board(), c.other())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_is_even_and_a_ball_nearer_home_is_better() {
        let start = Position::initial();
        assert_eq!(evaluate(&start, Color::Black), 0);
        let after: Position = ".,.,.,bB,b/.,.,.,bB,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. w"
            .parse()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(evaluate(&after, Color::Black) > 0);
        assert_eq!(
            evaluate(&after, Color::White),
            -evaluate(&after, Color::Black)
        );
    }
}
