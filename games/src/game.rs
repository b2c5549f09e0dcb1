//! The contract every hosted game fulfils, and the small types it speaks in.

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use crate::outcome::Outcome;
use crate::rng::GameRng;
pub use crate::seat::{Seat, SeatSet, Viewer, MAX_SEATS};
use crate::secrets::Secrets;

/// Why a game could not be set up with the options given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The game is not played with that many seats.
    #[error("{game} is played by {min} to {max} players, not {got}")]
    Seats {
        /// The game's name.
        game: &'static str,
        /// Fewest seats.
        min: u8,
        /// Most seats.
        max: u8,
        /// Seats asked for.
        got: u8,
    },
    /// The options are not valid for this game.
    #[error("invalid options: {0}")]
    Config(String),
}

/// A turn-based game the server can host.
///
/// Implementations are pure: all chance comes from the [`GameRng`] passed
/// in, a refused move leaves the state exactly as it was, and [`Game::view`]
/// is the only way state leaves the server.
pub trait Game: Sized + Clone + Send + Sync + Debug + 'static {
    /// Validated room options (starting piles, players, target score...).
    type Config: Clone + Debug + Default + Serialize + DeserializeOwned + Send + Sync;
    /// One player action, as it travels over the wire.
    type Move: Clone + Eq + Debug + Serialize + DeserializeOwned + Send + Sync;
    /// What one viewer may know of the state.
    type View: Clone + Debug + Serialize + DeserializeOwned + Send + Sync;
    /// Why a move is refused: one variant per reason, with a message for people.
    type Illegal: std::error::Error + Clone + Serialize + Send + Sync;

    /// The game's name on the wire (`"nimrod"`).
    const NAME: &'static str;
    /// Fewest and most seats.
    const SEATS: (u8, u8);

    /// The most steps (log entries: moves, timeout moves and a
    /// forfeit) a match set up with `cfg` and `seats` can take, whatever
    /// its players do: the game's proof that every match ends. Each game
    /// says in its implementation why the bound holds; the contract test
    /// plays every game against it. Options a setup would refuse may get
    /// any answer.
    fn max_steps(cfg: &Self::Config, seats: u8) -> u64;

    /// The options a new room stores, from those its creator gave (already
    /// checked): a game names here every value it would otherwise default,
    /// so that a stored match keeps the rules it was created under when a
    /// later version adds a rule or changes a default (replays then read no
    /// default). Most games store what was given.
    fn for_new_room(cfg: Self::Config) -> Self::Config {
        cfg
    }

    /// Sets up a new match; all chance comes from `rng`, drawn only with
    /// its documented draws ([`GameRng::shuffle`], [`GameRng::below`],
    /// [`GameRng::range_inclusive`]) so that no dependency upgrade can
    /// change a deal. The same holds for chance in [`Game::play`].
    fn setup(cfg: &Self::Config, seats: u8, rng: &mut GameRng) -> Result<Self, SetupError>;

    /// How many seats this match has.
    fn seats(&self) -> u8;

    /// The seats that must act now: one in ordinary turns, several in a
    /// simultaneous phase, none once the game is over.
    fn to_act(&self) -> SeatSet;

    /// Every legal move for `seat`, in a deterministic order; empty when
    /// `seat` may not act.
    fn legal_moves(&self, seat: Seat) -> Vec<Self::Move>;

    /// The legal moves for `seat` if there are at most `limit` of them.
    /// Games whose move lists can be huge override this to avoid building them.
    fn legal_moves_upto(&self, seat: Seat, limit: usize) -> Option<Vec<Self::Move>> {
        let moves = self.legal_moves(seat);
        (moves.len() <= limit).then_some(moves)
    }

    /// `mv` in the one form the table shows and the log should keep, for
    /// games where one action has several encodings (a crow's blocks or a
    /// discard's cards in any order). A move the rules accept has a
    /// canonical form they accept too, with exactly the same effect;
    /// canonicalising twice changes nothing more. A refused move comes
    /// back as it is. By default every move is already canonical.
    fn canonical(&self, _seat: Seat, mv: &Self::Move) -> Self::Move {
        mv.clone()
    }

    /// Plays `mv` for `seat`. On `Err` the state is unchanged.
    fn play(&mut self, seat: Seat, mv: &Self::Move, rng: &mut GameRng)
        -> Result<(), Self::Illegal>;

    /// `Some` once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// Each seat's place once the game is over (1 is best; see
    /// [`crate::places`]): by default the winners first and everyone else
    /// second. Games with a measure of how the others did override it.
    fn places(&self) -> Option<Vec<u8>> {
        self.outcome()
            .map(|o| crate::places::places_by(o, self.seats(), |_| ()))
    }

    /// The partnership `seat` plays in, for games played in teams
    /// (partners are not each other's opponents when rated); `None` by
    /// default: everyone plays for themselves.
    fn team(&self, _seat: Seat) -> Option<u8> {
        None
    }

    /// What `viewer` may see. The only way state leaves the server.
    fn view(&self, viewer: Viewer) -> Self::View;

    /// What this state hides, item by item (see [`Secrets`]), so that
    /// leak audits and contract tests need no knowledge of the game. By
    /// default nothing: a game of open information.
    fn secrets(&self) -> Secrets {
        Secrets::new(self.seats())
    }

    /// The move played for `seat` when its clock runs out, where the game
    /// defines one. `None` means the seat forfeits instead.
    fn timeout_move(&self, _seat: Seat) -> Option<Self::Move> {
        None
    }

    /// `seat` loses at once (its time ran out with no default move, or it
    /// resigned): every other seat, or the other partnership, wins.
    fn forfeit(&mut self, seat: Seat);
}
