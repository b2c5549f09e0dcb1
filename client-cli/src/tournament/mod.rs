//! Tournaments from the terminal: the API calls, the page as text, the
//! check that a finished event follows from its revealed seed, and a bot
//! that plays every game an event seats it in.
//!
//! - [`api`]: list, show, create, join and leave over HTTP.
//! - [`page`]: a published page as the pairing functions see it.
//! - [`text`]: the list, the standings and the crosstable as tables.
//! - [`verify`]: `parlor verify-tournament`.
//! - [`player`]: `parlor bot --tournament`.

pub mod api;
pub mod page;
pub mod player;
pub mod text;
pub mod verify;
