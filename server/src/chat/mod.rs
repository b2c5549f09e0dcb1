//! Room chat: who may say what, how often, and where it is kept.
//!
//! A connection's `say` is checked where it arrives (its text, its rate,
//! its account's mute: [`rate`]), then goes to the room like a move (so
//! it reaches the room's node in a cluster); the room's actor decides who
//! may speak on which channel and who reads it (`room::chat`), and keeps
//! each message beside the log ([`store`]).
//!
//! A tournament's page has a chat of its own ([`event`]): the same rules,
//! kept in its own table and read by polling over HTTP.

pub mod event;
pub mod rate;
pub mod store;

use std::time::Duration;

pub use event::{EventChat, EventChatError, EventLine};
pub use rate::ChatRate;
pub use store::{log_with_chat, ChatStore};

/// Most messages one connection may say in [`CHAT_WINDOW`]: enough for a
/// quick exchange, too few to flood a table.
pub const MAX_CHAT_PER_WINDOW: usize = 5;

/// The window [`MAX_CHAT_PER_WINDOW`] counts over.
pub const CHAT_WINDOW: Duration = Duration::from_secs(10);

/// How many recent messages of a channel a player (or spectator) joining
/// or resuming mid-game is sent: a few screens of conversation, one
/// frame far below the largest the server sends.
pub const CHAT_HISTORY_LINES: usize = 50;

/// How long a room trusts the blocks it read among its readers before
/// reading them again: a block made during a game takes effect within
/// it, while a busy table costs one read per this long, not per message.
pub const CHAT_BLOCKS_TTL: Duration = Duration::from_secs(30);
