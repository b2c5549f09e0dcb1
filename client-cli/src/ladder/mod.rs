//! The bot ladder from the terminal: its page as a table, and a bot that
//! enters a game's ladder and plays every game it is given.
//!
//! - [`api`]: the ladder's page over HTTP.
//! - [`text`]: the page as tables.
//! - [`player`]: `parlor bot --ladder`.

pub mod api;
pub mod player;
pub mod text;
