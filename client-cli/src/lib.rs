//! The `parlor` command's library: a protocol client, the bot loop, the
//! per-game renderers for people, and the analysis front end.

pub mod account;
pub mod analysis;
pub mod api;
pub mod bot;
pub mod chat;
pub mod client;
pub mod command;
pub mod countdown;
pub mod help;
pub mod input;
pub mod ladder;
pub mod lobby;
pub mod localtime;
pub mod play;
pub mod progress;
pub mod ratings;
pub mod reconnect;
pub mod rematch;
pub mod render;
pub mod replay;
pub mod seats;
pub mod series;
pub mod tls;
pub mod tournament;
pub mod verify;
pub mod watch;

pub use client::{Client, ClientError};
