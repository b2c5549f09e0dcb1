//! End-to-end tests: a real server on 127.0.0.1:0 and real WebSocket
//! clients. `ops.rs` beside this folder is a binary of its own (its
//! metrics are the process's).
//!
//! The layout (the same in every crate of the workspace): a crate's
//! integration tests are ONE test binary, `<crate>/tests/<name>/main.rs`,
//! `<name>` the package's name without `parlor-` (`e2e` for
//! `parlor-tests`), each test file a module of it, beside this file.
//! One binary links the crate's dependencies once rather than once a file,
//! and its tests run side by side. Run one file's tests with its module
//! as the filter: `cargo test -p parlor-tests --test e2e hardening::`.
//! A test that must have its process to itself (process-wide state it
//! measures or asserts on) is a file of its own in `<crate>/tests/`,
//! saying why at its top.

mod abort;
mod abort_cooldown;
mod accounts;
mod analysis;
mod audit;
mod backup;
mod blocks;
mod bus;
mod chat;
mod cluster;
mod config_file;
mod credentials;
mod cribbage;
mod docs;
mod docs_blocks;
mod event_chat;
mod event_limits;
mod event_page;
mod fair_deals;
mod fairness;
mod fairplay;
mod farming;
mod follows;
mod game_ends;
mod guest_names;
mod hardening;
mod hello_long_version;
mod hostile;
mod http;
mod ladder;
mod lockout;
mod matchmaking;
mod matchmaking_cluster;
mod matchmaking_hostile;
mod mitsudomoe;
mod moderation;
mod moderation_void;
mod nimrod;
mod openapi;
mod players_games;
mod proxy;
mod ratings;
mod rematch_spam;
mod reports;
mod rummikub;
mod tls;
mod tournaments;
mod transfer;
mod verify_arena_at_scale;
mod verify_at_scale;
mod verify_ratings;
