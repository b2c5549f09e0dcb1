//! Reading a request's query string: a parameter's value, a game's pool
//! by name, and why a query is refused.

use parlor_games::GameKind;

use super::ratings::LEADERBOARD_MAX;

/// Why a query string is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// `after` is not a line number.
    #[error("after is a line number")]
    After,
    /// `kind` is not an account kind.
    #[error("kind is \"human\" or \"bot\"")]
    Kind,
    /// `limit` is not a number in range.
    #[error("limit is a number from 1 to {LEADERBOARD_MAX}")]
    Limit,
    /// `pool` is missing.
    #[error("pool is a game's name: nimrod, rummikub, cribbage or mitsudomoe")]
    NoPool,
    /// No game has the name asked for.
    #[error("no game has this name")]
    UnknownPool,
    /// `rooms` is missing or empty.
    #[error("rooms is a comma-separated list of room ids")]
    NoRooms,
    /// `rooms` names more rooms than one request takes.
    #[error("rooms names at most {} rooms", super::logs::MAX_LOGS_PER_REQUEST)]
    TooManyRooms,
    /// Something in `rooms` is not a room id.
    #[error("rooms holds something that is not a room id")]
    BadRoom,
}

/// The value of `name` in a query string, if present.
pub fn param<'a>(query: &'a str, name: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// The pool called `name`.
pub fn game(name: &str) -> Result<GameKind, QueryError> {
    name.parse().map_err(|_| QueryError::UnknownPool)
}
