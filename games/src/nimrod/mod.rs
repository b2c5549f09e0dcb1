//! Nimrod: Wythoff's game with two piles of rods.
//!
//! A move takes any positive number of rods from one pile, or the same
//! positive number from both; whoever takes the last rod wins. The piles are
//! kept as (lesser, greater), as the seed's `make-piles` does.

pub mod ai;
mod game;
mod piles;
mod play;

pub use ai::lose::{
    best_move, is_lose, lose_position, lose_positions, lower_wythoff, move_to, winning_moves,
};
pub use ai::strategy::{Optimal, RandomMove, Simple};
pub use game::{Config, Illegal, LastMove, Nimrod, View};
pub use piles::{Pile, Piles, PilesError, MAX_PILE};
pub use play::Move;
