//! How a game ends: the checks at the end of each turn, a player left
//! without a legal turn, and Parlor's house rules that draw a match
//! (see [`repetition`](super::repetition) and
//! [`turn_limit`](super::turn_limit)).

use serde::{Deserialize, Serialize};

use super::color::Color;
use super::movegen::has_turn;
use super::position::Position;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The winner ended its turn with all three balls on its goal spaces.
    AllOnGoal,
    /// The loser ended its turn with a ball on each of its own home
    /// spaces (the official anti-stalling rule) and is out.
    HomeFilled,
    /// The loser had no legal whole turn and is out.
    NoTurn,
    /// The loser resigned or ran out of time.
    Forfeit,
    /// Drawn: a position occurred for the third time (Parlor's house
    /// rule).
    Repetition,
    /// Drawn: the match reached the room's `max_turns` (Parlor's house
    /// rule).
    TurnLimit,
}

/// The end of a game: who won and why. `{"winner": "black", "reason":
/// "all_on_goal"}`; a draw has no winner: `{"winner": null, "reason":
/// "repetition"}`. With two players, a player out of the game leaves the
/// other the winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct End {
    /// The winning colour; `None` for a draw.
    pub winner: Option<Color>,
    /// Why.
    pub reason: EndReason,
}

impl End {
    /// `winner` won for `reason`.
    pub fn win(winner: Color, reason: EndReason) -> End {
        End {
            winner: Some(winner),
            reason,
        }
    }

    /// A draw for `reason`.
    pub fn draw(reason: EndReason) -> End {
        End {
            winner: None,
            reason,
        }
    }
}

impl Position {
    /// The end-of-turn checks on the player who just moved (the one not
    /// to move), for a position reached by a turn: all three of its balls
    /// on goal wins; otherwise a ball of any colour on each of its home
    /// squares puts it out. Cheap: two bit-set comparisons. (At the start
    /// both homes are full, but nobody has moved: the checks belong to
    /// turns, not positions.)
    pub fn end_of_turn(&self) -> Option<End> {
        let mover = self.to_move().other();
        let board = self.board();
        if board.balls(mover) == mover.goals() {
            return Some(End::win(mover, EndReason::AllOnGoal));
        }
        if board.occupied().is_superset(mover.home()) {
            return Some(End::win(self.to_move(), EndReason::HomeFilled));
        }
        None
    }

    /// Whether (and how) a turn that led to this position ended the
    /// game: the end-of-turn checks on the player who just moved, then
    /// whether the player to move has any legal turn.
    pub fn end_after_turn(&self) -> Option<End> {
        self.end_of_turn().or_else(|| self.end_without_turn())
    }

    /// The player to move is out if it has no legal turn.
    pub fn end_without_turn(&self) -> Option<End> {
        (!has_turn(self)).then(|| End::win(self.to_move().other(), EndReason::NoTurn))
    }

    /// A colour with all three balls on its goals, if one has: a position
    /// where the game was decided.
    pub fn decided(&self) -> Option<Color> {
        Color::ALL
            .into_iter()
            .find(|c| self.board().balls(*c) == c.goals())
    }
}
