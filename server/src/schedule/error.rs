//! The refusal of a tournament or ladder request: the HTTP routes answer
//! it with its status, the WebSocket requests with its code.

use parlor_protocol::ErrorCode;

use crate::store::StoreError;

/// Why an event request was refused: an HTTP status, a stable code and a
/// message for people.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct EventError {
    /// The HTTP status.
    pub status: u16,
    /// The stable code.
    pub code: ErrorCode,
    /// For people.
    pub message: String,
}

impl EventError {
    /// A refusal of what was asked (400).
    pub fn bad(code: ErrorCode, message: String) -> Self {
        EventError {
            status: 400,
            code,
            message,
        }
    }

    /// A refusal with `status`.
    pub(crate) fn new(status: u16, code: ErrorCode, message: impl Into<String>) -> Self {
        EventError {
            status,
            code,
            message: message.into(),
        }
    }

    /// The store failed (503).
    pub(crate) fn store(e: &StoreError) -> Self {
        Self::new(
            503,
            ErrorCode::ServerStorage,
            format!("the events could not be read or stored: {e}"),
        )
    }

    /// No tournament `id` (404).
    pub(crate) fn not_found(id: &str) -> Self {
        Self::new(
            404,
            ErrorCode::TournamentNotFound,
            format!("no tournament {id}"),
        )
    }
}
