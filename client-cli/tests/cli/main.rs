//! The `parlor` command's integration tests: the binary as a user runs it,
//! against real servers and test doubles.
//!
//! The layout (the same in every crate of the workspace): a crate's
//! integration tests are ONE test binary, `<crate>/tests/<name>/main.rs`,
//! `<name>` the package's name without `parlor-` (`e2e` for
//! `parlor-tests`), each test file a module of it, beside this file.
//! One binary links the crate's dependencies once rather than once a file,
//! and its tests run side by side. Run one file's tests with its module
//! as the filter: `cargo test -p parlor-cli --test cli watch::`.
//! A test that must have its process to itself (process-wide state it
//! measures or asserts on) is a file of its own in `<crate>/tests/`,
//! saying why at its top.

// Helpers the test modules share (not tests themselves).
mod account;
mod bot_reconnect;
mod chat;
mod cli;
mod device;
mod fairplay;
mod ladder_bot;
mod matchmaking;
mod moderation;
mod play;
mod protocol;
mod rated_bots;
mod session;
mod tournament_bots;
mod verify_ratings;
mod verify_seat_seeds;
mod verify_tournament;
mod watch;
