//! A refusal: why a request was turned down, as the client will read it
//! (a stable code for programs, a message for people). Made where the
//! request is judged (the directory, the matchmaker) and sent by the
//! connection that asked, as one `error` message.

use std::fmt;

use parlor_protocol::{ErrorCode, ServerMsg};

/// A request turned down: its code and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The stable code.
    pub code: ErrorCode,
    /// Why, for people.
    pub message: String,
}

impl Refused {
    /// A refusal with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Refused {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Refused {}

impl From<Refused> for ServerMsg {
    /// The `error` message the client is sent.
    fn from(refused: Refused) -> Self {
        ServerMsg::error(refused.code, refused.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_becomes_the_error_message_with_its_code_and_words() {
        let refused = Refused::new(ErrorCode::RoomFull, "every seat is taken");
        assert_eq!(refused.to_string(), "room/full: every seat is taken");
        match ServerMsg::from(refused) {
            ServerMsg::Error {
                code,
                message,
                room,
                detail,
            } => {
                assert_eq!(code, ErrorCode::RoomFull);
                assert_eq!(message, "every seat is taken");
                assert!(room.is_none() && detail.is_none());
            }
            other => panic!("not an error message: {other:?}"),
        }
    }
}
