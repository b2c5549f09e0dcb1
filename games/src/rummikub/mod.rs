//! Rummikub Lite (seed 000).
//!
//! A block is a number and a colour; the table holds rows of at least
//! three blocks, either one number in different colours (a `crow`) or one
//! colour in consecutive ascending numbers (an `nrow`). On each turn a
//! player takes exactly one action: lay a new row of three blocks, add one
//! block to a row (either end of an nrow, anywhere in a crow), or, only
//! when neither is possible, draw the bag's first block. Whoever empties
//! their supply first wins; a player who must draw from an empty bag ends
//! the game in a draw.

mod action;
pub mod analysis;
mod block;
mod engine;
mod game;
mod outcomes;
mod position;
mod predict;
mod row;
mod rules;
mod strategy;
mod table;

pub use action::{Action, Move};
pub use block::{Block, Color, HOSTED_NUMBERS, HOSTED_SET_SIZE};
pub use game::{Config, LastMove, Rummikub, View, DEFAULT_RACK_SIZE};
pub use outcomes::{all_outcomes, outcomes, Solution};
pub use position::{Player, Position, PositionError, MAX_BLOCKS};
pub use predict::{
    count_wins, predict, predict_actions, predict_sequential, predict_with_workers, predict_within,
    Prediction, MEMO_CAP, PARALLEL_THRESHOLD, WORKERS,
};
pub use row::{Row, RowKind, MIN_ROW};
pub use rules::{check, legal_moves, plays, Change, Illegal, NEW_ROW};
pub use strategy::{Greedy, Predictor, RandomMove, PREDICTOR_BUDGET, PREDICTOR_SAMPLES};
pub use table::{is_valid_table, valid_table, Problem, Rule};
