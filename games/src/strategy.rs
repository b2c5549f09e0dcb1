//! Bots: a strategy chooses a move from a seat's view alone.

use std::fmt::Debug;

use crate::game::{Game, Seat};
use crate::rng::GameRng;

/// An automated player.
///
/// A strategy is handed only what its seat may see (`G::View`), never the
/// game state, so it cannot read hidden cards, racks or the deck order: the
/// type system keeps bots honest. The same strategies run server-side as
/// built-in seat occupants and client-side in `parlor bot`.
pub trait Strategy<G: Game>: Send + Sync + Debug {
    /// The move to play for `seat`, or `None` when the view shows that
    /// `seat` has nothing to do.
    fn choose(&mut self, seat: Seat, view: &G::View, rng: &mut GameRng) -> Option<G::Move>;
}

/// A game's built-in bots, by name: a registry beside the rules, which know
/// nothing of it (the rules contract is [`Game`] alone).
pub trait Bots: Game {
    /// Names of the built-in strategies, the first being the default bot.
    const STRATEGIES: &'static [&'static str];

    /// The built-in strategy called `name`.
    fn strategy(name: &str) -> Option<Box<dyn Strategy<Self>>>;
}
