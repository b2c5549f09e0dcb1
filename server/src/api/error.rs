//! The API's one error type, and the one place it meets HTTP.
//!
//! Every refusal an endpoint can give is an [`ApiError`], built `From`
//! the domain's own error (accounts, events, a query, a body) or named
//! here for the refusals of the API itself (no such path, no credentials,
//! a foreign origin). [`ApiError::status_and_code`] maps each to its HTTP
//! status and its [`ErrorCode`] (the catalogue the WebSocket uses too);
//! the domains know neither. The message is the error's `Display`, for
//! people.

use parlor_protocol::ErrorCode;
use serde_json::{json, Value};

use super::query::QueryError;
use crate::accounts::{AccountError, NameError};
use crate::chat::EventChatError;
use crate::follows::FollowError;
use crate::http::BodyError;
use crate::moderation::ModError;
use crate::schedule::{EventError, EventRefusal};
use crate::store::StoreError;

/// What the store failed to read for an endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unread {
    /// A player's record of matches.
    Record,
    /// Ratings: the ledger, a leaderboard, a player's ratings.
    Ratings,
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unread::Record => "record",
            Unread::Ratings => "ratings",
        })
    }
}

/// Which endpoint wanted an account and got none (each words it its way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignIn {
    /// An account endpoint (tokens): any credential will do.
    Credentials,
    /// Entering or making tournaments.
    Tournaments,
    /// Entering or leaving a ladder.
    Ladder,
    /// Speaking in a tournament's chat (a guest only reads it).
    EventChat,
}

/// Why an API request was refused.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The account service refused.
    #[error(transparent)]
    Account(#[from] AccountError),
    /// Tournaments or the ladder refused.
    #[error("{}", .0.message)]
    Event(#[from] EventError),
    /// Moderation, a report or a block was refused.
    #[error(transparent)]
    Mod(#[from] ModError),
    /// A message of an event's chat was refused, or the chat could not
    /// be read.
    #[error(transparent)]
    EventChat(#[from] EventChatError),
    /// A follow was refused, or the follows could not be read.
    #[error(transparent)]
    Follow(#[from] FollowError),
    /// The query string is malformed.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The body could not be read.
    #[error(transparent)]
    Body(#[from] BodyError),
    /// The store could not be read.
    #[error("the {what} could not be read: {source}")]
    Unreadable {
        /// What was being read.
        what: Unread,
        /// The store's failure.
        source: StoreError,
    },
    /// The body is not the JSON this endpoint takes.
    #[error("the body is not the JSON object this endpoint takes")]
    BadJson,
    /// The body is not a tournament to create (serde's reason).
    #[error("the body is not a tournament to create: {0}")]
    BadTournament(String),
    /// An account's kind that is neither human nor bot.
    #[error("kind is \"human\" or \"bot\"")]
    BadKind,
    /// The endpoint acts for an account and the request presents none.
    #[error("{}", match .0 {
        SignIn::Credentials => "authenticate with a token, a session or (for a new token) your name and password",
        SignIn::Tournaments => "sign in to enter or make tournaments",
        SignIn::Ladder => "sign in to enter a ladder",
        SignIn::EventChat => "sign in to speak in an event's chat (guests may read it)",
    })]
    SignIn(SignIn),
    /// A request that changes something carries the session cookie from
    /// a foreign page.
    #[error("a request carrying the session cookie must come from this server's pages")]
    BadOrigin,
    /// No endpoint has this path.
    #[error("no such path")]
    NotFound,
    /// The path takes only these methods.
    #[error("this path takes {0}")]
    MethodNotAllowed(&'static str),
}

impl ApiError {
    /// The HTTP status and the error code of the refusal: the only place
    /// either is chosen.
    pub fn status_and_code(&self) -> (u16, ErrorCode) {
        use ErrorCode as C;
        match self {
            ApiError::Account(e) => match e {
                AccountError::Insecure => (403, C::AuthInsecure),
                AccountError::BadName(NameError::Reserved(_)) => (400, C::AccountNameReserved),
                AccountError::BadName(_) => (400, C::AccountBadName),
                AccountError::BadPassword(_) => (400, C::AccountBadPassword),
                AccountError::Hashing(_) => (500, C::ServerInternal),
                AccountError::NameTaken(_) => (409, C::AccountNameTaken),
                AccountError::RateLimited { .. } => (429, C::AuthRateLimited),
                AccountError::BadCredentials => (401, C::AuthBadCredentials),
                AccountError::InvalidToken => (401, C::AuthInvalidToken),
                AccountError::BadLabel => (400, C::TokenBadLabel),
                AccountError::TooManyTokens => (409, C::TokenTooMany),
                AccountError::NoSuchToken => (404, C::TokenNotFound),
                AccountError::NoSuchPlayer => (404, C::AccountNotFound),
                AccountError::Closed => (403, C::AuthClosed),
                AccountError::Busy => (503, C::ServerBusy),
                AccountError::Store(_) => (503, C::ServerUnavailable),
            },
            ApiError::Event(e) => {
                let status = match e.why {
                    EventRefusal::BadRequest
                    | EventRefusal::BadOptions
                    | EventRefusal::BadStart => 400,
                    EventRefusal::TooMany => 429,
                    EventRefusal::BotsOnly | EventRefusal::WrongKind => 403,
                    EventRefusal::NotFound | EventRefusal::UnknownGame => 404,
                    EventRefusal::Started
                    | EventRefusal::AlreadyEntered
                    | EventRefusal::Full
                    | EventRefusal::NotEntered
                    | EventRefusal::Over => 409,
                    EventRefusal::Busy | EventRefusal::LadderOff | EventRefusal::Store => 503,
                };
                (status, e.code())
            }
            ApiError::Mod(e) => match e {
                ModError::Protected => (403, C::ModProtected),
                ModError::Forbidden => (403, C::ModForbidden),
                ModError::BadRequest(_) => (400, C::ModBadRequest),
                ModError::UnknownAccount(_) => (404, C::ModUnknownAccount),
                ModError::ReportNotFound(_) => (404, C::ModReportNotFound),
                ModError::TooManyReports { .. } => (429, C::ReportTooMany),
                ModError::DuplicateReport(_) => (409, C::ReportDuplicate),
                ModError::BadReport(_) => (400, C::ReportBadRequest),
                ModError::BadBlock(_) => (400, C::BlockBadRequest),
                ModError::PlayBanned { .. } => (403, C::PlayBanned),
                ModError::Store(_) => (503, C::ServerUnavailable),
            },
            ApiError::EventChat(e) => match e {
                EventChatError::BadText(_) => (400, C::ChatBadText),
                EventChatError::BadQuery => (400, C::ChatBadQuery),
                EventChatError::Muted { .. } => (403, C::ChatMuted),
                EventChatError::Closed => (409, C::ChatClosed),
                EventChatError::RateLimited { .. } => (429, C::ChatRateLimited),
                EventChatError::Store(_) => (503, C::ServerUnavailable),
            },
            ApiError::Follow(e) => match e {
                FollowError::Refused(_) => (400, C::FollowBadRequest),
                FollowError::Store(_) => (503, C::ServerUnavailable),
            },
            ApiError::Query(e) => match e {
                QueryError::UnknownPool => (404, C::RatingsUnknownPool),
                QueryError::After | QueryError::Kind | QueryError::Limit | QueryError::NoPool => {
                    (400, C::RatingsBadQuery)
                }
                QueryError::NoRooms | QueryError::TooManyRooms | QueryError::BadRoom => {
                    (400, C::LogsBadQuery)
                }
            },
            ApiError::Body(e) => match e {
                BodyError::Chunked => (411, C::HttpLengthRequired),
                BodyError::BadLength | BodyError::Incomplete => (400, C::HttpBadRequest),
                BodyError::TooLarge { .. } => (413, C::HttpTooLarge),
            },
            ApiError::Unreadable { .. } => (503, C::ServerStorage),
            ApiError::BadJson => (400, C::HttpBadJson),
            ApiError::BadTournament(_) => (400, C::TournamentBadRequest),
            ApiError::BadKind => (400, C::AccountBadKind),
            ApiError::SignIn(_) => (401, C::AuthRequired),
            ApiError::BadOrigin => (403, C::AuthBadOrigin),
            ApiError::NotFound => (404, C::HttpNotFound),
            ApiError::MethodNotAllowed(_) => (405, C::HttpMethodNotAllowed),
        }
    }

    /// For a rate limit or a play ban: in how many milliseconds to try
    /// again (at least one).
    pub fn retry_after_ms(&self) -> Option<u64> {
        match self {
            ApiError::Mod(ModError::PlayBanned { retry_after_ms, .. }) => Some(*retry_after_ms),
            ApiError::Account(AccountError::RateLimited { wait, .. }) => {
                Some(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1))
            }
            ApiError::Mod(ModError::TooManyReports { wait_ms, .. }) => Some((*wait_ms).max(1)),
            ApiError::EventChat(EventChatError::RateLimited { retry_after_ms }) => {
                Some((*retry_after_ms).max(1))
            }
            _ => None,
        }
    }

    /// The JSON body: `{"code", "message"}`, `retry_after_ms` for a
    /// rate limit, `until_ms` for a muted account's message.
    pub fn body(&self) -> Value {
        let (_, code) = self.status_and_code();
        let mut body = json!({"code": code.as_str(), "message": self.to_string()});
        if let Some(ms) = self.retry_after_ms() {
            body["retry_after_ms"] = json!(ms);
        }
        if let ApiError::EventChat(EventChatError::Muted { until_ms }) = self {
            body["until_ms"] = json!(until_ms);
        }
        body
    }

    /// The extra header lines, each ending in CRLF: `Retry-After` for a
    /// rate limit, `Allow` for a method the path does not take.
    pub fn headers(&self) -> String {
        match (self, self.retry_after_ms()) {
            (_, Some(ms)) => format!("Retry-After: {}\r\n", ms.div_ceil(1000)),
            (ApiError::MethodNotAllowed(allowed), None) => format!("Allow: {allowed}\r\n"),
            _ => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::accounts::Throttled;

    #[test]
    fn a_rate_limit_says_when_to_come_back_in_body_and_header() {
        let e = ApiError::from(AccountError::RateLimited {
            what: Throttled::FailedLogins,
            wait: Duration::from_millis(1500),
        });
        assert_eq!(e.status_and_code(), (429, ErrorCode::AuthRateLimited));
        assert_eq!(
            e.body(),
            json!({"code": "auth/rate_limited", "message": "too many failed logins; try again later", "retry_after_ms": 1500})
        );
        assert_eq!(e.headers(), "Retry-After: 2\r\n");
        let soon = ApiError::from(AccountError::RateLimited {
            what: Throttled::Creations,
            wait: Duration::ZERO,
        });
        assert_eq!(soon.retry_after_ms(), Some(1));
    }

    #[test]
    fn wire_codes_and_statuses_are_as_before() {
        let cases: Vec<(ApiError, u16, &str, &str)> = vec![
            (
                AccountError::NameTaken("Alice".into()).into(),
                409,
                "account/name_taken",
                "the name Alice is taken",
            ),
            (
                BodyError::Chunked.into(),
                411,
                "http/length_required",
                "send the body with a Content-Length",
            ),
            (
                BodyError::TooLarge { max: 4096 }.into(),
                413,
                "http/too_large",
                "a request body has at most 4096 bytes",
            ),
            (
                ApiError::MethodNotAllowed("GET, POST"),
                405,
                "http/method_not_allowed",
                "this path takes GET, POST",
            ),
            (
                ApiError::SignIn(SignIn::Ladder),
                401,
                "auth/required",
                "sign in to enter a ladder",
            ),
            (
                QueryError::UnknownPool.into(),
                404,
                "ratings/unknown_pool",
                "no game has this name",
            ),
            (
                EventError::new(EventRefusal::Full, "every place is taken").into(),
                409,
                "tournament/full",
                "every place is taken",
            ),
            (
                EventError::not_found("abc").into(),
                404,
                "tournament/not_found",
                "no tournament abc",
            ),
            (
                EventError::new(EventRefusal::BotsOnly, "bots only").into(),
                403,
                "ladder/bots_only",
                "bots only",
            ),
            (
                EventError::new(EventRefusal::LadderOff, "off").into(),
                503,
                "ladder/off",
                "off",
            ),
        ];
        for (e, status, code, message) in cases {
            assert_eq!(e.status_and_code().0, status, "{e:?}");
            assert_eq!(e.body(), json!({"code": code, "message": message}));
        }
        assert_eq!(
            ApiError::MethodNotAllowed("GET").headers(),
            "Allow: GET\r\n"
        );
    }
}
