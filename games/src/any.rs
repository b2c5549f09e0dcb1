//! The closed set of hosted games, dispatched by enum.
//!
//! The server and the clients handle every game through [`GameKind`],
//! [`AnyGame`], [`AnyMove`], [`AnyView`] and [`AnyBot`]; adding a game is
//! one line in the `hosted_games!` invocation below, and one in the
//! analysis registry (`analysis_registry`), whose exhaustive match on
//! [`GameKind`] refuses to compile until the new game's tools are there.
//! Nothing here names an analysis tool.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::game::{Game, Outcome, Seat, SeatSet, SetupError, Viewer};
use crate::rng::GameRng;
use crate::secrets::Secrets;
use crate::strategy::{Bots, Strategy};

/// Why a JSON value could not be read as a game's move, view or options.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a valid {game} {what}: {message}")]
pub struct DecodeError {
    /// The game's name.
    pub game: &'static str,
    /// What was being read ("move", "view", "options").
    pub what: &'static str,
    /// What was wrong, from the decoder.
    pub message: String,
}

/// Why a move was refused, with the game's own reason.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct IllegalMove {
    /// The reason, for people.
    pub message: String,
    /// The reason, for programs: the game's `Illegal` value as JSON.
    pub detail: Value,
}

impl IllegalMove {
    fn from_game<E: std::error::Error + Serialize>(e: &E) -> Self {
        IllegalMove {
            message: e.to_string(),
            detail: serde_json::to_value(e).unwrap_or(Value::Null),
        }
    }
}

pub(crate) fn decode<T: serde::de::DeserializeOwned>(
    game: &'static str,
    what: &'static str,
    v: &Value,
) -> Result<T, DecodeError> {
    T::deserialize(v).map_err(|e| DecodeError {
        game,
        what,
        message: e.to_string(),
    })
}

macro_rules! hosted_games {
    ($($variant:ident => $ty:ty),+ $(,)?) => {

        /// Which game a room plays.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum GameKind {
            $(
                #[doc = concat!("`", stringify!($ty), "`")]
                $variant
            ),+
        }

        impl GameKind {
            /// Every hosted game.
            pub const ALL: &'static [GameKind] = &[$(GameKind::$variant),+];

            /// The game's name on the wire.
            pub fn name(self) -> &'static str {
                match self { $(GameKind::$variant => <$ty as Game>::NAME),+ }
            }

            /// Fewest and most seats.
            pub fn seat_range(self) -> (u8, u8) {
                match self { $(GameKind::$variant => <$ty as Game>::SEATS),+ }
            }

            /// The built-in strategies, default first.
            pub fn strategies(self) -> &'static [&'static str] {
                match self { $(GameKind::$variant => <$ty as Bots>::STRATEGIES),+ }
            }

            /// Reads room options; `null` means the game's defaults. Returns
            /// them normalised, as they will be stored.
            pub fn parse_config(self, v: &Value) -> Result<Value, DecodeError> {
                match self {
                    $(GameKind::$variant => {
                        let cfg: <$ty as Game>::Config = if v.is_null() {
                            Default::default()
                        } else {
                            decode(self.name(), "options", v)?
                        };
                        let cfg = <$ty as Game>::for_new_room(cfg);
                        Ok(serde_json::to_value(cfg).unwrap_or(Value::Null))
                    }),+
                }
            }

            /// The most steps a match with options `config` (`null` for
            /// defaults) and `seats` can take (see [`Game::max_steps`]).
            pub fn max_steps(self, config: &Value, seats: u8) -> Result<u64, DecodeError> {
                match self {
                    $(GameKind::$variant => {
                        let cfg: <$ty as Game>::Config = if config.is_null() {
                            Default::default()
                        } else {
                            decode(self.name(), "options", config)?
                        };
                        Ok(<$ty as Game>::max_steps(&cfg, seats))
                    }),+
                }
            }

            /// Sets up a match with options `config` (`null` for defaults).
            pub fn setup(self, config: &Value, seats: u8, rng: &mut GameRng) -> Result<AnyGame, SetupError> {
                match self {
                    $(GameKind::$variant => {
                        let cfg: <$ty as Game>::Config = if config.is_null() {
                            Default::default()
                        } else {
                            decode(self.name(), "options", config)
                                .map_err(|e| SetupError::Config(e.message))?
                        };
                        <$ty as Game>::setup(&cfg, seats, rng).map(AnyGame::$variant)
                    }),+
                }
            }

            /// Reads a move of this game.
            pub fn parse_move(self, v: &Value) -> Result<AnyMove, DecodeError> {
                match self { $(GameKind::$variant => decode(self.name(), "move", v).map(AnyMove::$variant)),+ }
            }

            /// Reads a view of this game.
            pub fn parse_view(self, v: &Value) -> Result<AnyView, DecodeError> {
                match self { $(GameKind::$variant => decode(self.name(), "view", v).map(AnyView::$variant)),+ }
            }

            /// The built-in strategy called `name`.
            pub fn bot(self, name: &str) -> Option<AnyBot> {
                match self { $(GameKind::$variant => <$ty as Bots>::strategy(name).map(AnyBot::$variant)),+ }
            }
        }

        /// A match of any hosted game.
        // One value per room, cloned once per move: the variants' size
        // difference costs a little memory, boxing would cost an allocation
        // per clone and an indirection per call.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug)]
        pub enum AnyGame {
            $(
                #[doc = concat!("A match of `", stringify!($ty), "`.")]
                $variant($ty)
            ),+
        }

        /// A move of any hosted game; serialised as the game's own move.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum AnyMove {
            $(
                #[doc = concat!("A move of `", stringify!($ty), "`.")]
                $variant(<$ty as Game>::Move)
            ),+
        }

        /// The legal moves of one seat in any hosted game, kept as the
        /// game's own list: it serialises as a JSON array of the game's
        /// moves without first copying each into an [`AnyMove`] (an update
        /// may carry hundreds, so the copy was a second list per update).
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum LegalMoves {
            $(
                #[doc = concat!("Moves of `", stringify!($ty), "`.")]
                $variant(Vec<<$ty as Game>::Move>)
            ),+
        }

        /// A view of any hosted game; serialised as the game's own view.
        #[derive(Clone, Debug)]
        pub enum AnyView {
            $(
                #[doc = concat!("A view of `", stringify!($ty), "`.")]
                $variant(<$ty as Game>::View)
            ),+
        }

        /// A built-in strategy of any hosted game.
        #[derive(Debug)]
        pub enum AnyBot {
            $(
                #[doc = concat!("A strategy for `", stringify!($ty), "`.")]
                $variant(Box<dyn Strategy<$ty>>)
            ),+
        }

        impl AnyGame {
            /// Which game this is.
            pub fn kind(&self) -> GameKind {
                match self { $(AnyGame::$variant(_) => GameKind::$variant),+ }
            }

            /// How many seats the match has.
            pub fn seats(&self) -> u8 {
                match self { $(AnyGame::$variant(g) => g.seats()),+ }
            }

            /// The seats that must act now.
            pub fn to_act(&self) -> SeatSet {
                match self { $(AnyGame::$variant(g) => g.to_act()),+ }
            }

            /// Every legal move for `seat`.
            pub fn legal_moves(&self, seat: Seat) -> Vec<AnyMove> {
                match self {
                    $(AnyGame::$variant(g) => g.legal_moves(seat).into_iter().map(AnyMove::$variant).collect()),+
                }
            }

            /// The legal moves for `seat` if there are at most `limit`, as
            /// the game's own list (what an update sends).
            pub fn legal_list(&self, seat: Seat, limit: usize) -> Option<LegalMoves> {
                match self {
                    $(AnyGame::$variant(g) => g.legal_moves_upto(seat, limit).map(LegalMoves::$variant)),+
                }
            }

            /// Plays `mv` for `seat`; on `Err` nothing changed.
            pub fn play(&mut self, seat: Seat, mv: &AnyMove, rng: &mut GameRng) -> Result<(), IllegalMove> {
                #[allow(unreachable_patterns)]
                match (self, mv) {
                    $((AnyGame::$variant(g), AnyMove::$variant(m)) => {
                        g.play(seat, m, rng).map_err(|e| IllegalMove::from_game(&e))
                    })+
                    (g, m) => Err(IllegalMove {
                        message: format!("that is a {} move, but this room plays {}", m.kind().name(), g.kind().name()),
                        detail: Value::Null,
                    }),
                }
            }

            /// `mv` in the one form the table shows (see
            /// [`Game::canonical`]); a move of another game comes back as it is.
            pub fn canonical(&self, seat: Seat, mv: &AnyMove) -> AnyMove {
                #[allow(unreachable_patterns)]
                match (self, mv) {
                    $((AnyGame::$variant(g), AnyMove::$variant(m)) => AnyMove::$variant(g.canonical(seat, m)),)+
                    (_, m) => m.clone(),
                }
            }

            /// `Some` once the game is over.
            pub fn outcome(&self) -> Option<Outcome> {
                match self { $(AnyGame::$variant(g) => g.outcome()),+ }
            }

            /// Each seat's place once the game is over (see [`Game::places`]).
            pub fn places(&self) -> Option<Vec<u8>> {
                match self { $(AnyGame::$variant(g) => g.places()),+ }
            }

            /// The partnership `seat` plays in (see [`Game::team`]).
            pub fn team(&self, seat: Seat) -> Option<u8> {
                match self { $(AnyGame::$variant(g) => g.team(seat)),+ }
            }

            /// What `viewer` may see.
            pub fn view(&self, viewer: Viewer) -> AnyView {
                match self { $(AnyGame::$variant(g) => AnyView::$variant(g.view(viewer))),+ }
            }

            /// What the state hides (see [`Game::secrets`]).
            pub fn secrets(&self) -> Secrets {
                match self { $(AnyGame::$variant(g) => g.secrets()),+ }
            }

            /// The default move for `seat` when its clock runs out, if any.
            pub fn timeout_move(&self, seat: Seat) -> Option<AnyMove> {
                match self { $(AnyGame::$variant(g) => g.timeout_move(seat).map(AnyMove::$variant)),+ }
            }

            /// `seat` loses at once.
            pub fn forfeit(&mut self, seat: Seat) {
                match self { $(AnyGame::$variant(g) => g.forfeit(seat)),+ }
            }
        }

        impl AnyMove {
            /// Which game the move belongs to.
            pub fn kind(&self) -> GameKind {
                match self { $(AnyMove::$variant(_) => GameKind::$variant),+ }
            }
        }

        impl Serialize for AnyMove {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self { $(AnyMove::$variant(m) => m.serialize(s)),+ }
            }
        }

        impl Serialize for LegalMoves {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self { $(LegalMoves::$variant(ms) => ms.serialize(s)),+ }
            }
        }

        impl AnyView {
            /// Which game the view belongs to.
            pub fn kind(&self) -> GameKind {
                match self { $(AnyView::$variant(_) => GameKind::$variant),+ }
            }
        }

        impl Serialize for AnyView {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self { $(AnyView::$variant(v) => v.serialize(s)),+ }
            }
        }

        impl AnyBot {
            /// The bot's move for `seat` from its view; `None` when it has
            /// nothing to do or the view is of another game.
            pub fn choose(&mut self, seat: Seat, view: &AnyView, rng: &mut GameRng) -> Option<AnyMove> {
                #[allow(unreachable_patterns)]
                match (self, view) {
                    $((AnyBot::$variant(b), AnyView::$variant(v)) => b.choose(seat, v, rng).map(AnyMove::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

with_hosted_games!(hosted_games);

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A game name that Parlor does not host.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game {0:?} (hosted: {list})", list = GameKind::ALL.iter().map(|g| g.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownGame(pub String);

impl FromStr for GameKind {
    type Err = UnknownGame;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameKind::ALL
            .iter()
            .copied()
            .find(|g| g.name() == s)
            .ok_or_else(|| UnknownGame(s.to_owned()))
    }
}

impl Serialize for GameKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for GameKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_round_trip_and_unknown_games_are_named() {
        for &g in GameKind::ALL {
            assert_eq!(g.name().parse::<GameKind>(), Ok(g));
        }
        let err = "chess".parse::<GameKind>().err().map(|e| e.to_string());
        assert!(err.is_some_and(|m| m.contains("chess") && m.contains("nimrod")));
    }

    #[test]
    fn moves_decode_by_game_and_bad_moves_say_why() {
        let mv = GameKind::Nimrod.parse_move(&json!({"take": [1, 1]}));
        assert!(mv.is_ok_and(|m| serde_json::to_value(&m).ok() == Some(json!({"take": [1, 1]}))));
        let bad = GameKind::Nimrod.parse_move(&json!({"take": "lots"}));
        assert!(bad.is_err_and(|e| e.what == "move" && e.game == "nimrod"));
    }

    #[test]
    fn every_listed_strategy_exists() {
        for &g in GameKind::ALL {
            assert!(!g.strategies().is_empty());
            for s in g.strategies() {
                assert!(g.bot(s).is_some(), "{g} lacks {s}");
            }
            assert!(g.bot("no-such-bot").is_none());
        }
    }
}
