//! Mitsudomoe: lay rings as stepping stones and walk and vault your
//! three balls into the opposite corner.
//!
//! # Rules
//!
//! As `rules.md` settles them (the seed, a student project, describes the
//! game; the official nestorgames rulebook wins where they differ):
//!
//! - A 5x5 board, rows A-E top to bottom, columns 1-5 left to right;
//!   adjacent means any of the 8 neighbours. Each player has 3 balls and 8
//!   rings. Black starts on A4, A5, B5 and White on D1, E1, E2, each of
//!   these home squares holding a ring with a ball on it; 5 rings each
//!   stay in supply. A player's goals are the other's home squares.
//! - A turn has two compulsory steps. The **ring step** places a ring from
//!   supply, or moves one of the mover's exposed rings (nothing on it) to
//!   any other square; the destination holds no ball, and rings stack on
//!   rings of either colour. The **ball step** moves one of the mover's
//!   balls not on a goal, either to an adjacent square topped by the
//!   mover's ring and holding no ball, or in a **vault** along a line over
//!   one or more consecutive balls of any colour to the first square after
//!   them, which must hold no ball and be topped by the mover's ring.
//! - An opponent's ball on one of its own goals cannot be jumped; the
//!   mover's own balls can, on a goal or not. Every jumped opponent ball
//!   is relocated by the mover to a square topped by a ring of its colour
//!   and holding no ball ([`relocation`] settles the order); if one has
//!   nowhere to go, the vault is illegal. A ball on a goal never moves.
//! - At the end of a turn, a mover with all three balls on goals wins;
//!   otherwise a mover whose three home squares all hold balls (of any
//!   colour) is out (the official anti-stalling rule). A player with no
//!   legal whole turn is out. With two players, the other one wins.
//! - **Parlor's house rules** (not the published game's, which has
//!   nothing to stop two players shuffling rings for ever): the third
//!   occurrence of a position (board, supplies, player to move) ends the
//!   match drawn ([`repetition`]), and so does the room's turn limit
//!   ([`turn_limit`], option `max_turns`). The rules' own endings come
//!   first. The state both need is kept in the game, so a replay of the
//!   log ends the same way; a given start position starts a fresh count.
//!
//! # Decisions and sources
//!
//! - **Two players only.** The official game allows 3 and 4, but its
//!   rulebook for them (homes, goals and supplies with more players) could
//!   not be found with the project's search tools (nestorgames' own pages
//!   are not among the stored sources), and rules are not invented here.
//! - **Black (seat 0) moves first.** Neither the seed's text nor
//!   `rules.md` says who starts. The seed's project code gives the first
//!   turn to its player 1, whose balls start on A4, A5, B5
//!   (`joaoalc/PROG-PROJ-publico`, `player.pl`: `initPlayersPvP` gives
//!   player 1, white, the turn; the seed's `initial` board puts white's
//!   balls there). It calls that side white; `rules.md` gives
//!   A4, A5, B5 to Black, and its colours win. So the side starting on
//!   A4, A5, B5 moves first, and that is Black.
//! - **A turn is identified by what it changes.** Balls of one colour are
//!   alike, so relocations that leave the opponent's balls on the same
//!   squares are one turn, listed once; `play` accepts any order of
//!   relocations that works ([`relocation`]).
//! - The rules sheet's count, 9 legal turns for the first player at the
//!   start, is checked by the tests, with perft figures from two
//!   independent generators (`games/tests/games/mitsudomoe_perft.rs`).
//!
//! # Notation and wire
//!
//! Positions and turns have a text form ([`notation`]); on the wire a turn
//! is JSON ([`Move`]), and the view ([`View`]) carries the position in both
//! forms.

pub mod ai;
mod board;
mod color;
mod direction;
mod game;
mod illegal;
mod movegen;
pub mod notation;
mod outcome;
mod position;
pub mod relocation;
pub mod repetition;
mod rules;
mod set;
mod square;
mod turn;
pub mod turn_limit;
mod view;

pub use board::{Board, BALLS_PER_PLAYER, MAX_STACK, RINGS_PER_PLAYER};
pub use color::Color;
pub use direction::Direction;
pub use game::{Config, Mitsudomoe};
pub use illegal::Illegal;
pub use movegen::{count_turns, each_turn, has_turn, legal_turns, nth_turn};
pub use notation::NotationError;
pub use outcome::{End, EndReason};
pub use position::Position;
pub use relocation::{Relocation, Relocations, MAX_JUMPED};
pub use repetition::{Repetitions, REPETITION_DRAW};
pub use rules::{canonical, play, Played};
pub use set::SquareSet;
pub use square::{BadSquare, Square, SIDE, SQUARES};
pub use turn::{BallStep, Move, RingStep};
pub use turn_limit::{MaxTurns, DEFAULT_MAX_TURNS, FEWEST_MAX_TURNS, MOST_MAX_TURNS};
pub use view::{Cell, LastTurn, Player, View};
