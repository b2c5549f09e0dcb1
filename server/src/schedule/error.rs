//! The refusal of a tournament or ladder request: a closed set of
//! reasons, each with its stable code, and a message for people. Neither
//! knows of HTTP: the API maps a reason to its status at the edge
//! (`api::error`), the WebSocket requests answer with the code.

use parlor_protocol::ErrorCode;

use crate::store::StoreError;

/// Why a tournament or ladder request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventRefusal {
    /// The new event's fields are not a valid event.
    BadRequest,
    /// The event's game options are not the game's.
    BadOptions,
    /// The event's start is in the past.
    BadStart,
    /// The account has as many upcoming events as allowed, or its address
    /// has made as many today.
    TooMany,
    /// No such tournament.
    NotFound,
    /// The event has started: no entering or leaving now.
    Started,
    /// The event is for the other kind of account (people or bots).
    WrongKind,
    /// The account is entered already.
    AlreadyEntered,
    /// Every place is taken.
    Full,
    /// The account is not entered.
    NotEntered,
    /// The event is over.
    Over,
    /// Others changed the event at the same moment, too often.
    Busy,
    /// No ladder for that game.
    UnknownGame,
    /// The ladder is switched off on this server.
    LadderOff,
    /// Only bot accounts play on the ladder.
    BotsOnly,
    /// The events could not be read or stored.
    Store,
}

impl EventRefusal {
    /// The stable code this reason is told with.
    pub fn code(self) -> ErrorCode {
        match self {
            EventRefusal::BadRequest => ErrorCode::TournamentBadRequest,
            EventRefusal::BadOptions => ErrorCode::TournamentBadOptions,
            EventRefusal::BadStart => ErrorCode::TournamentBadStart,
            EventRefusal::TooMany => ErrorCode::TournamentTooMany,
            EventRefusal::NotFound => ErrorCode::TournamentNotFound,
            EventRefusal::Started => ErrorCode::TournamentStarted,
            EventRefusal::WrongKind => ErrorCode::TournamentWrongKind,
            EventRefusal::AlreadyEntered => ErrorCode::TournamentAlreadyEntered,
            EventRefusal::Full => ErrorCode::TournamentFull,
            EventRefusal::NotEntered => ErrorCode::TournamentNotEntered,
            EventRefusal::Over => ErrorCode::TournamentOver,
            EventRefusal::Busy => ErrorCode::TournamentBusy,
            EventRefusal::UnknownGame => ErrorCode::LadderUnknownGame,
            EventRefusal::LadderOff => ErrorCode::LadderOff,
            EventRefusal::BotsOnly => ErrorCode::LadderBotsOnly,
            EventRefusal::Store => ErrorCode::ServerStorage,
        }
    }
}

/// A refused tournament or ladder request: why, and what to tell people.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", .why.code())]
pub struct EventError {
    /// Why.
    pub why: EventRefusal,
    /// For people.
    pub message: String,
}

impl EventError {
    /// A refusal for `why`, told as `message`.
    pub fn new(why: EventRefusal, message: impl Into<String>) -> Self {
        EventError {
            why,
            message: message.into(),
        }
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.why.code()
    }

    /// The store failed.
    pub(crate) fn store(e: &StoreError) -> Self {
        Self::new(
            EventRefusal::Store,
            format!("the events could not be read or stored: {e}"),
        )
    }

    /// No tournament `id`.
    pub(crate) fn not_found(id: &str) -> Self {
        Self::new(EventRefusal::NotFound, format!("no tournament {id}"))
    }
}
