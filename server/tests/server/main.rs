//! The server's integration tests: the directory, the stores and the real
//! `parlor-server` binary driven from outside (crash and chaos runs are
//! `#[ignore]`d, run on purpose as the README and `.ci/run` say).
//!
//! The layout (the same in every crate of the workspace): a crate's
//! integration tests are ONE test binary, `<crate>/tests/<name>/main.rs`,
//! `<name>` the package's name without `parlor-` (`e2e` for
//! `parlor-tests`), each test file a module of it, beside this file.
//! One binary links the crate's dependencies once rather than once a file,
//! and its tests run side by side. Run one file's tests with its module
//! as the filter: `cargo test -p parlor-server --test server lifetimes::`.
//! A test that must have its process to itself (process-wide state it
//! measures or asserts on) is a file of its own in `<crate>/tests/`,
//! saying why at its top.

// Helpers the test modules share (not tests themselves).
mod common;

mod accounts_store;
mod analysis_memory;
mod caps;
mod chaos;
mod clock;
mod correspondence;
mod crash;
mod fairplay_store;
mod lifetimes;
mod matched_seats;
mod store;
mod store_faults;
mod store_pg;
mod takeover;
mod transfer_cli;
mod web_assets;
