//! Rummikub Lite (seed 000, settled by the rules sheet).
//!
//! A block is a number and a colour; the table holds rows of at least
//! three blocks, either one number in different colours (a `crow`) or one
//! colour in consecutive ascending numbers (an `nrow`). On each turn a
//! player takes exactly one action: lay a new row of three blocks from
//! their supply, add one block to a row (either end of an nrow, anywhere
//! in a crow, which is then re-sorted), or, only when neither is possible,
//! draw the bag's first block. Before each turn: a player whose supply is
//! empty has won (both empty: a draw); a player who must draw from an empty
//! bag ends the game in a draw, even if the other could still play. That is
//! the specification's rule and the default; the room option
//! `empty_bag: "pass"` ([`EmptyBag`]) plays on as the real game does: a
//! stuck player before an empty bag passes, and when every player has
//! passed in a row the lowest rack total wins.
//!
//! The pieces, one concept per file:
//! - [`Block`], [`Row`], [`valid_table`] (every broken rule, for people);
//! - [`Action`] (the seed's actions) and [`Move`] (a hosted player's);
//! - [`plays`] / [`check`]: the rule book on racks and tables;
//! - [`Position`], [`outcomes`] (the seed's `play_game`, streamed) and
//!   [`predict`] (the seed's `count_wins`, exact counts without listing the
//!   games, by memoising on a canonical bitset form of each position);
//! - [`Rummikub`]: the hosted game; the bots [`Greedy`], [`RandomMove`],
//!   [`Predictor`], [`Sampler`]; the [`analysis`](ai::analysis) tools; and [`review`](ai::review), the `replay`
//!   tool's input from a finished match.
//!
//! # Hosting
//!
//! A hosted match shuffles the 52 blocks (1 to 13 in four colours) with
//! the match's RNG, deals `rack_size` blocks (default 7) to each seat in
//! seat order, and keeps the rest as the bag, whose order no view shows.
//! A draw move is just `"draw"`: the player cannot know the block. The
//! racks must leave at least one block in the bag ([`max_rack_size`]):
//! otherwise some deals would end in a draw before anyone moved.
//!
//! The chance, exactly (see [`crate::rng`] for the draws): the match makes
//! one [`GameRng::shuffle`](crate::GameRng::shuffle) of the 52 blocks
//! sorted by number, then colour name (black, blue, red, yellow), and
//! nothing else. Seat 0's rack is the first `rack_size` blocks of the
//! result, seat 1's the next `rack_size`, and so on; the bag is the rest,
//! drawn from the front.
//!
//! The seed is for two players; 3 or 4 seats generalise it directly:
//! seats move in order 0, 1, 2, ..., the first seat to empty its rack wins
//! and every other seat loses, and when the seat to move has no play and
//! the bag is empty the game is drawn for everyone. Prediction and the
//! predictor bot's look-ahead are for two players (with more seats the
//! predictor plays greedily).

mod action;
pub mod ai;
mod block;
mod empty_bag;
mod engine;
mod game;
mod position;
mod row;
mod rules;
mod table;

pub use action::{Action, Move};
pub use ai::outcomes::{all_outcomes, outcomes, Solution};
pub use ai::predict::{
    count_wins, predict, predict_actions, predict_sequential, predict_with_workers, predict_within,
    predict_within_memory, Prediction, MEMO_CAP, PARALLEL_THRESHOLD, WORKERS,
};
pub use ai::sampler::{
    Sampler, SAMPLER_MAX_PLAYOUTS, SAMPLER_MIN_DEALS, SAMPLER_PLAYOUTS, SAMPLER_POLICY,
};
pub use ai::strategy::{Greedy, Predictor, RandomMove, PREDICTOR_BUDGET, PREDICTOR_SAMPLES};
pub use block::{Block, Color, HOSTED_NUMBERS, HOSTED_SET_SIZE};
pub use empty_bag::EmptyBag;
pub use game::{max_rack_size, Config, LastMove, Rummikub, View, DEFAULT_RACK_SIZE};
pub use position::{Player, Position, PositionError, MAX_BLOCKS};
pub use row::{Row, RowKind, MIN_ROW};
pub use rules::{check, hosted_moves, legal_moves, plays, Change, Illegal, NEW_ROW};
pub use table::{is_valid_table, valid_table, Problem, Rule};
