//! Checking and carrying out one turn, step by step, with the reason
//! for any refusal.

use super::board::Board;
use super::color::Color;
use super::direction::{ray_from, Direction};
use super::illegal::Illegal;
use super::position::Position;
use super::relocation::{canonical_order, carry_out};
use super::set::SquareSet;
use super::turn::{BallStep, Move, RingStep};

/// A turn carried out.
#[derive(Clone, Copy, Debug)]
pub struct Played {
    /// The turn as the legal list shows it: relocations in canonical order.
    pub turn: Move,
    /// The position after it.
    pub position: Position,
    /// The opponent balls the vault jumped.
    pub jumped: SquareSet,
    /// The squares they ended on.
    pub relocated: SquareSet,
}

fn ring_step(board: &mut Board, me: Color, ring: RingStep) -> Result<(), Illegal> {
    match ring.from {
        None => {
            if board.supply(me) == 0 {
                return Err(Illegal::NoRingInSupply);
            }
        }
        Some(square) => {
            if board.top(square) != Some(me) {
                return Err(Illegal::NotYourRing { square });
            }
            if board.occupied().contains(square) {
                return Err(Illegal::RingUnderBall { square });
            }
            if square == ring.to {
                return Err(Illegal::RingNotMoved { square });
            }
        }
    }
    if board.occupied().contains(ring.to) {
        return Err(Illegal::RingOntoBall { square: ring.to });
    }
    match ring.from {
        None => board.place_ring(ring.to, me),
        Some(from) => board.move_ring(from, ring.to),
    }
    Ok(())
}

/// Checks and makes the ball step; returns the opponent balls jumped.
fn ball_step(board: &mut Board, me: Color, ball: BallStep) -> Result<SquareSet, Illegal> {
    let BallStep { from, to } = ball;
    let opp = me.other();
    if board.ball(from) != Some(me) {
        return Err(Illegal::NotYourBall { square: from });
    }
    if me.goals().contains(from) {
        return Err(Illegal::BallOnGoal { square: from });
    }
    let (dir, distance) =
        Direction::between(from, to).ok_or(Illegal::NotAStepOrVault { from, to })?;
    let between = ray_from(from, dir.index())
        .get(..usize::from(distance) - 1)
        .unwrap_or_default();
    let mut jumped = SquareSet::EMPTY;
    for &sq in between {
        match board.ball(sq) {
            None => return Err(Illegal::VaultGap { square: sq }),
            Some(c) if c == opp => {
                if opp.goals().contains(sq) {
                    return Err(Illegal::GoalBallJumped { square: sq });
                }
                jumped.insert(sq);
            }
            Some(_) => {}
        }
    }
    if board.occupied().contains(to) {
        return Err(Illegal::LandingHasBall { square: to });
    }
    if board.top(to) != Some(me) {
        return Err(Illegal::NotOnYourRing { square: to });
    }
    board.move_ball(from, to, me);
    Ok(jumped)
}

/// Checks `mv` for the player to move in `pos` and carries it out.
/// Does not look at whether the game is already over.
pub fn play(pos: &Position, mv: &Move) -> Result<Played, Illegal> {
    let me = pos.to_move();
    let opp = me.other();
    let mut board = *pos.board();
    ring_step(&mut board, me, mv.ring)?;
    let jumped = ball_step(&mut board, me, mv.ball)?;
    let relocated = if jumped.is_empty() {
        if let Some(r) = mv.relocate.as_slice().first() {
            return Err(Illegal::NotJumped { square: r.from });
        }
        SquareSet::EMPTY
    } else {
        carry_out(&mut board, opp, jumped, &mv.relocate)?
    };
    let turn = if jumped.is_empty() {
        *mv
    } else {
        Move {
            relocate: canonical_order(jumped, relocated),
            ..*mv
        }
    };
    Ok(Played {
        turn,
        position: Position::new(board, opp),
        jumped,
        relocated,
    })
}

/// `mv` in the form the legal list shows: the same turn with its
/// relocations in canonical order. A refused move comes back as it is.
pub fn canonical(pos: &Position, mv: &Move) -> Move {
    play(pos, mv).map_or(*mv, |p| p.turn)
}
