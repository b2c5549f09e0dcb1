//! Tournaments from the terminal: the API calls, the page as text, and a
//! bot that plays every game an event seats it in (the check that a
//! finished event follows from its revealed seed is
//! [`crate::verify::tournament`].
//!
//! - [`api`]: list, show, create, join and leave over HTTP.
//! - [`page`]: a published page as the pairing functions see it.
//! - [`text`]: the list, the standings and the crosstable as tables.
//! - [`player`]: `parlor bot --tournament`.

pub mod api;
pub mod page;
pub mod player;
pub mod text;
