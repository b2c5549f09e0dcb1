//! Competition's integration tests: ratings, the ledger, pairings and
//! standings, through the crate's public interface.
//!
//! The layout (the same in every crate of the workspace): a crate's
//! integration tests are ONE test binary, `<crate>/tests/<name>/main.rs`,
//! `<name>` the package's name without `parlor-` (`e2e` for
//! `parlor-tests`), each test file a module of it, beside this file.
//! One binary links the crate's dependencies once rather than once a file,
//! and its tests run side by side. Run one file's tests with its module
//! as the filter: `cargo test -p parlor-competition --test competition glicko2::`.
//! A test that must have its process to itself (process-wide state it
//! measures or asserts on) is a file of its own in `<crate>/tests/`,
//! saying why at its top.

mod arena_fairness;
mod glicko2;
mod ladder_properties;
mod ledger;
mod ledger_properties;
mod python_fold;
mod tournament_properties;
