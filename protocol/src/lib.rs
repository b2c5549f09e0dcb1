//! Parlor's wire protocol.
//!
//! JSON text frames, one message per frame, each an object with a `"type"`.
//! Clients send [`ClientMsg`], the server sends [`ServerMsg`]. Every refusal
//! is a [`ServerMsg::Error`] carrying a stable [`ErrorCode`] (`area/reason`)
//! for programs and a message for people. The protocol reference,
//! `docs/protocol/README.md`, documents every message with examples; the
//! [`schema`] module makes its JSON Schema.

mod chat;
mod client;
mod codec;
mod error_code;
mod game_end;
mod ladder;
mod matchmaking;
mod ratings;
mod replay;
pub mod schema;
mod server;
mod tournaments;
mod types;
mod version;

pub use chat::{check_chat_text, BadText, Channel, ChatLine, Phrase, MAX_CHAT_CHARS};
pub use client::{ClientMsg, CLIENT_TYPES, MAX_ROOMS_PER_PAGE};
pub use codec::{decode_client, decode_server, encode, DecodeFailure};
pub use error_code::ErrorCode;
pub use game_end::GameEnd;
pub use ladder::{
    LadderEntrantInfo, LadderGame, LadderGameInfo, LadderInfo, LadderResult, LadderSeat,
    LadderSummary,
};
pub use matchmaking::{ChallengeEnd, ChallengeInfo, DeclineReason, GameEntry, SeekEnd};
pub use ratings::{
    provisional, Leaderboard, LeaderboardRow, LedgerHead, PoolRating, RatedGame, RatingChange,
    SeatRating, PROVISIONAL_RD,
};
pub use replay::{agreement, deal_rng, log_analysis, replay, step, DealCheck, ReplayError};
pub use server::{
    Closed, Deal, LogEntry, LoggedAction, MatchHeader, MatchLog, MatchedGame, ServerMsg, Update,
};
pub use tournaments::{
    EntrantKind, EventGame, NewTournament, TournamentGame, TournamentInfo, TournamentPlayer,
    TournamentResult, TournamentSeat, TournamentStatus, TournamentSummary,
};
pub use types::{
    account_key, AccountInfo, Clock, Occupant, RoomId, RoomStatus, RoomSummary, SeatInfo, SeatRef,
};

/// Largest frame the server sends. Every reply is bounded below it: room
/// lists come in pages, analysis replies are cut, and an oversized reply
/// is replaced by a `server/reply_too_large` error rather than dropped.
pub const MAX_SERVER_FRAME_BYTES: usize = 512 * 1024;

/// The protocol version this build speaks best. A client says which version
/// it speaks in `hello`; the server answers with the version both will use.
pub const PROTOCOL_VERSION: u32 = 1;

/// The oldest protocol version this build still speaks.
pub const MIN_PROTOCOL_VERSION: u32 = 1;

/// The version both sides will use when the client speaks `client`, or
/// `None` when the server cannot speak to it.
pub fn negotiate(client: u32) -> Option<u32> {
    (client >= MIN_PROTOCOL_VERSION).then_some(client.min(PROTOCOL_VERSION))
}
