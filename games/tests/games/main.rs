//! The games' integration tests: the rules, bots and analysis tools of
//! every hosted game, through the crate's public interface (the long
//! measurements are `#[ignore]`d, run on purpose as the README says).
//!
//! The layout (the same in every crate of the workspace): a crate's
//! integration tests are ONE test binary, `<crate>/tests/<name>/main.rs`,
//! `<name>` the package's name without `parlor-` (`e2e` for
//! `parlor-tests`), each test file a module of it, beside this file.
//! One binary links the crate's dependencies once rather than once a file,
//! and its tests run side by side. Run one file's tests with its module
//! as the filter: `cargo test -p parlor-games --test games nimrod::`.
//! A test that must have its process to itself (process-wide state it
//! measures or asserts on) is a file of its own in `<crate>/tests/`,
//! saying why at its top.

mod contract;
mod cribbage;
mod cribbage_bots;
mod cribbage_distribution;
mod golden_deals;
mod legacy_deals;
mod log_analysis;
mod mitsudomoe_bots;
mod mitsudomoe_house_rules;
mod mitsudomoe_perft;
mod mitsudomoe_props;
mod mitsudomoe_rules;
mod nimrod;
mod rummikub_ceiling;
mod rummikub_props;
mod rummikub_sampler;
mod rummikub_scale;
mod rummikub_seed;
