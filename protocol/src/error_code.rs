//! Stable error codes, `area/reason`: one catalogue for both transports.
//!
//! A WebSocket refusal carries one in its `error` message, an HTTP API
//! refusal in its JSON body (`{"code", "message"}`, beside the status the
//! server maps it to). `docs/protocol/errors.md` lists every code with
//! its meaning (a test checks it). [`ErrorCode::ALL`] is written by the same
//! macro as the enum, from the same list, so it cannot miss a variant.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! error_codes {
    ($($variant:ident = $code:literal: $doc:literal,)+) => {
        /// Why a request was refused. The code is for programs and never
        /// changes meaning; the message next to it is for people.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $(#[doc = $doc] $variant,)+
        }

        impl ErrorCode {
            /// Every code.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The code as it travels, `area/reason`.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code,)+ }
            }

            /// What the code means, for the protocol document.
            pub fn meaning(self) -> &'static str {
                match self { $(ErrorCode::$variant => $doc,)+ }
            }
        }
    };
}

error_codes! {
    RequestMalformed = "request/malformed": "The frame is not valid JSON, or a field is missing or of the wrong type.",
    RequestUnknownType = "request/unknown_type": "The `type` is not a message this server knows.",
    RequestTooLarge = "request/too_large": "The frame is larger than the server accepts; the connection is closed (code 1009).",
    RequestBinary = "request/binary": "Binary frames are not part of the protocol; send JSON text.",
    RequestRateLimited = "request/rate_limited": "Too many messages per second; the message was dropped. Persisting closes the connection (code 1008).",
    RequestHelloFirst = "request/hello_first": "The first message must be `hello`.",
    RequestHelloTwice = "request/hello_twice": "`hello` was already accepted on this connection.",
    ProtocolVersion = "protocol/version": "The server does not speak the protocol version in `hello`.",
    SessionUnknownToken = "session/unknown_token": "No seat is held under that resume token.",
    SessionTakenOver = "session/taken_over": "Another connection resumed this session's token; this connection is closed (code 4001).",
    SessionResumeConflict = "session/resume_conflict": "This connection already holds seats under its own token; resume on a new connection.",
    RoomNotFound = "room/not_found": "No room has that id.",
    RoomFull = "room/full": "Every seat of the room is taken.",
    RoomSeatTaken = "room/seat_taken": "That seat is taken.",
    RoomNoSuchSeat = "room/no_such_seat": "The room has no seat with that number.",
    RoomAlreadySeated = "room/already_seated": "This session already holds a seat in the room.",
    RoomTooMany = "room/too_many": "The server, or this player, has as many unfinished rooms as allowed; finish one or try later.",
    RoomBadOptions = "room/bad_options": "The game, seat count, options or clock are not valid.",
    RoomUnknownStrategy = "room/unknown_strategy": "The game has no built-in bot of that name.",
    RoomNotMember = "room/not_member": "This session neither sits nor watches in that room.",
    RoomNotAllowed = "room/not_allowed": "Only the room's creator or a player seated in it may do that.",
    RoomNotFinished = "room/not_finished": "The match log is public only once the match is over.",
    RoomMoved = "room/moved": "Another server of the cluster hosts the room now; nothing was lost. Send `resume` (a player) or `spectate` (a spectator) again to carry on there.",
    ActionNotStarted = "action/not_started": "The match has not started: seats are still free.",
    ActionGameOver = "action/game_over": "The match is over.",
    ActionNotYourSeat = "action/not_your_seat": "This session does not hold that seat.",
    ActionNotYourTurn = "action/not_your_turn": "That seat is not to act now.",
    ActionStaleSeq = "action/stale_seq": "The move answers an old position: `seq` is not the room's current one.",
    ActionBadMove = "action/bad_move": "The move is not a move of this game at all (wrong shape).",
    ActionIllegalMove = "action/illegal_move": "The game's rules refuse the move; `detail` says why.",
    AnalysisUnknownTool = "analysis/unknown_tool": "The game has no analysis tool of that name.",
    AnalysisBadInput = "analysis/bad_input": "The analysis input is not what the tool takes.",
    AnalysisTooLarge = "analysis/too_large": "The answer needs more search, memory or bytes than one request may use here; run the tool locally with `parlor`.",
    AuthInvalidToken = "auth/invalid_token": "The token in `hello` or on the upgrade (bearer or session cookie) is not valid (wrong, revoked or expired); the connection is closed (code 1008).",
    AuthRequired = "auth/required": "Only a player with an account may do that (rated play, challenges, correspondence rooms, `my_games`); log in or send a token in `hello`.",
    AuthBadCredentials = "auth/bad_credentials": "No account has this name and password.",
    AuthRateLimited = "auth/rate_limited": "Too many failed logins (from this address or for this name), or accounts made from this address; try again after `retry_after_ms`.",
    AuthInsecure = "auth/insecure": "Passwords are accepted only over TLS (https) or from the server's own machine.",
    AuthBadOrigin = "auth/bad_origin": "A request that changes something carried the session cookie from a page of another site.",
    AccountBadName = "account/bad_name": "The name is not an account name: too short, too long, or a character other than a letter, a digit, `_` or `-`; the message says which.",
    AccountNameReserved = "account/name_reserved": "The name is reserved for the server's own use.",
    AccountNameTaken = "account/name_taken": "Another account has this name (names are unique whatever their case).",
    AccountBadPassword = "account/bad_password": "The password is too short or too long; the message gives the bound.",
    AccountBadKind = "account/bad_kind": "An account's `kind` is `human` or `bot`.",
    AccountNotFound = "account/not_found": "No player has this name.",
    TokenBadLabel = "token/bad_label": "A token's label is too long or holds control characters.",
    TokenTooMany = "token/too_many": "The account holds as many API tokens as allowed; revoke one before making another.",
    TokenNotFound = "token/not_found": "The account holds no token with that id.",
    RatingsBadQuery = "ratings/bad_query": "A query parameter of a ratings endpoint (`after`, `kind`, `limit`, `pool`) is missing or malformed; the message says which.",
    RatingsUnknownPool = "ratings/unknown_pool": "No game has that name, so there is no such rating pool.",
    SeekNotFound = "seek/not_found": "This connection has no waiting seek with that id (it may just have been matched).",
    SeekTooMany = "seek/too_many": "This connection, account or address has as many waiting seeks as allowed; cancel one first.",
    SeekTooFast = "seek/too_fast": "This connection made seeks faster than allowed (seeks that ended in a match do not count); the message says when the next one may be made.",
    SeekInvalid = "seek/invalid": "The seek cannot be made as asked (e.g. bots in a rated seek); the message says why.",
    ChallengeNotFound = "challenge/not_found": "No open challenge with that id is addressed to (or made by) this player.",
    ChallengeUnknownPlayer = "challenge/unknown_player": "No account has that name.",
    ChallengeOffline = "challenge/offline": "The named player has no connection to the server now.",
    ChallengeSelf = "challenge/self": "A player cannot challenge themself.",
    ChallengeTooMany = "challenge/too_many": "Too many open challenges: from this player, or to the named one; wait for answers.",
    ChallengeInvalid = "challenge/invalid": "The challenge cannot be made as asked (e.g. a game for more than two seats); the message says why.",
    TournamentBadRequest = "tournament/bad_request": "The tournament to create is not valid (format, rounds, minutes, seats, players, start, name or clock); the message says why.",
    TournamentBadOptions = "tournament/bad_options": "The game's options for the tournament are not valid.",
    TournamentNotFound = "tournament/not_found": "No tournament has that id.",
    TournamentStarted = "tournament/started": "The tournament has started and takes no more players.",
    TournamentAlreadyEntered = "tournament/already_entered": "This account is entered in the tournament already.",
    TournamentNotEntered = "tournament/not_entered": "This account is not entered in the tournament.",
    TournamentFull = "tournament/full": "The tournament has as many players as it takes.",
    TournamentOver = "tournament/over": "The tournament is over.",
    TournamentWrongKind = "tournament/wrong_kind": "The tournament is for human accounts only, or for bot accounts only.",
    TournamentBusy = "tournament/busy": "The tournament changed too often while this request tried to change it; try again.",
    LadderBotsOnly = "ladder/bots_only": "Only bot accounts may enter a ladder.",
    LadderUnknownGame = "ladder/unknown_game": "No game of that name has a ladder here.",
    LadderOff = "ladder/off": "This server runs no ladder (it was started with `--no-ladder`).",
    LogsBadQuery = "logs/bad_query": "`rooms` of `GET /api/logs` is missing, names more rooms than one request takes, or holds something that is not a room id; the message says which.",
    RematchUnavailable = "rematch/unavailable": "A rematch of this room cannot be offered: it is not over, this session holds no seat in it, a rematch already started, or it is a tournament's or the ladder's game (paired by its event).",
    ServerFull = "server/full": "The server has as many connections as it allows (new connections get HTTP 503 before the handshake).",
    ServerReplyTooLarge = "server/reply_too_large": "The answer would be larger than the server sends in one frame; ask for less.",
    ServerBusy = "server/busy": "The room or the server is overloaded; try again.",
    ServerUnreachable = "server/unreachable": "The cluster's node hosting the room cannot be reached now (its bus is down, or the room is between nodes); nothing was done. Try again shortly; a connection closed with code 1012 and this reason should reconnect and `resume`.",
    ServerShuttingDown = "server/shutting_down": "The server is shutting down; reconnect and resume later.",
    ServerStorage = "server/storage": "The move could not be stored, so it was not accepted.",
    ServerInternal = "server/internal": "Something went wrong on the server.",
    ServerUnavailable = "server/unavailable": "The accounts cannot be reached now; try again.",
    HttpBadRequest = "http/bad_request": "The request's `Content-Length` is not a number, or its body did not arrive whole; the connection is closed.",
    HttpBadJson = "http/bad_json": "The body is not the JSON object this endpoint takes.",
    HttpLengthRequired = "http/length_required": "A request body must come with a `Content-Length` (a chunked body is refused); the connection is closed.",
    HttpTooLarge = "http/too_large": "The request body is larger than the API accepts; the connection is closed.",
    HttpNotFound = "http/not_found": "No endpoint of the API has this path.",
    HttpMethodNotAllowed = "http/method_not_allowed": "The path does not take this method; the `Allow` header lists those it takes.",
    ConnectionIdle = "connection/idle": "Nothing was received for too long; the connection is closed.",
    ConnectionSlow = "connection/slow": "The client does not read fast enough; the connection is closed.",
    AuthRevoked = "auth/revoked": "The token or session this connection signed in with has ended (the token was revoked, the session logged out, the password changed or the account closed); the connection is closed (code 4002).",
    RoomSeedNotWanted = "room/seed_not_wanted": "Your seat waits for no seed: the deal is made, or the seat was taken with its seed or without one.",
    TournamentBadStart = "tournament/bad_start": "The tournament's start is in the past; give a start from now on.",
    TournamentTooMany = "tournament/too_many": "This account has as many upcoming tournaments as allowed, or its address has created as many today; wait for one to start.",
    ChallengeRatedLimit = "challenge/rated_limit": "These two accounts have played as many rated games together in the last 24 hours as count; play casual, or later.",
    RoomBadName = "room/bad_name": "The guest name holds a character other than a letter, a digit, `_` or `-`, or is an account's name (whatever its case); choose another, or log in.",
    RatedCooldown = "rated/cooldown": "This account let too many rated matches be aborted (by not moving, or with `abort`); it may not seek, challenge or accept rated games until `retry_after_ms`.",
    ModForbidden = "mod/forbidden": "Only a moderator (or, where said, an admin) may do that.",
    ModProtected = "mod/protected": "A moderator cannot act on an admin, nor on another moderator unless an admin.",
    ModBadRequest = "mod/bad_request": "The moderation request is not valid (a reason outside the closed set, minutes out of range, a text too long, an unknown mark); the message says why.",
    ModUnknownAccount = "mod/unknown_account": "No account has that name.",
    ModReportNotFound = "mod/report_not_found": "No open report has that id.",
    AuthClosed = "auth/closed": "The account was closed by a moderator; it cannot sign in. Its player page says why.",
    PlayBanned = "play/banned": "This account may not start or join games until `retry_after_ms`; the message says why.",
    ChallengeBlocked = "challenge/blocked": "The named player does not take challenges from this account.",
    ReportTooMany = "report/too_many": "This account has made as many reports in the last hour as count; try later.",
    ReportDuplicate = "report/duplicate": "This account has an open report about that player already.",
    ReportBadRequest = "report/bad_request": "The report is not valid (an unknown player, oneself, a reason outside the closed set, a text too long); the message says why.",
    BlockBadRequest = "block/bad_request": "The block is not valid (an unknown player, oneself, or more blocks than one account keeps); the message says why.",
    ChatRateLimited = "chat/rate_limited": "This connection said as many chat messages as allowed in the window; `detail.retry_after_ms` says when it may speak again.",
    ChatMuted = "chat/muted": "A moderator muted this account; `detail.until_ms` says when the mute ends.",
    ChatBadText = "chat/bad_text": "The chat message is empty, longer than 300 characters or holds a control character, or gives both or neither of `text` and `phrase`; the message says why.",
    ChatNotAllowed = "chat/not_allowed": "This connection may not speak on that channel of the room (not in the room, or a player to the spectators during the game).",
    ChatGuestsCasualOnly = "chat/guests_casual_only": "A guest may read a room's chat but speak only in casual (unrated) rooms.",
    AbortTooLate = "abort/too_late": "Your seat has made its first move in this match: it can no longer be aborted (`leave` resigns it).",
    AbortEventGame = "abort/event_game": "A tournament's or the ladder's game is never aborted: it ends by its rules or on time.",
    FollowBadRequest = "follow/bad_request": "The follow is not valid (an unknown player, oneself, or more follows than one account keeps); the message says why.",
    ChatClosed = "chat/closed": "The event is over: its chat can still be read but takes no more messages.",
    ChatBadQuery = "chat/bad_query": "The event chat's query is malformed: `after` is a message id (a whole number).",
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error code this build does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown error code {0:?}")]
pub struct UnknownCode(pub String);

impl FromStr for ErrorCode {
    type Err = UnknownCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorCode::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownCode(s.to_owned()))
    }
}

impl JsonSchema for ErrorCode {
    fn schema_name() -> Cow<'static, str> {
        "ErrorCode".into()
    }

    fn schema_id() -> Cow<'static, str> {
        concat!(module_path!(), "::ErrorCode").into()
    }

    // The closed set, so that a misspelt or stale code fails validation.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        json_schema!({
            "description": "Why a request was refused, `area/reason`: stable, for programs.",
            "type": "string",
            "enum": codes,
        })
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_area_slash_reason_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &c in ErrorCode::ALL {
            let s = c.as_str();
            let (area, reason) = s.split_once('/').unwrap_or_default();
            assert!(!area.is_empty() && !reason.is_empty(), "{s}");
            assert!(
                s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'/' || b == b'_'),
                "{s}"
            );
            assert!(seen.insert(s), "{s} twice");
            assert_eq!(s.parse::<ErrorCode>(), Ok(c));
        }
    }
}
