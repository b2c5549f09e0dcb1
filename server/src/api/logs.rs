//! `GET /api/logs?rooms=ID,ID,...`: many finished matches' logs in one
//! answer, for the verifiers. Re-checking a ledger of thousands of rated
//! matches or an arena of a thousand games one `get_log` at a time runs
//! into the per-connection message rate; here a hundred logs cost one
//! request, and an answer is bounded in bytes rather than in messages.
//!
//! The answer is NDJSON, one line per room in the order asked: the log
//! as `get_log` gives it (without `type`), or, for a room whose log is not
//! public, `{"room", "code", "message"}` with the refusal `get_log` would
//! give. Lines stop before the one that would take the answer past
//! [`LOGS_ANSWER_BYTES`] (the first line is always sent): the client asks
//! again for the rooms not answered.

use parlor_protocol::{ErrorCode, MatchLog, RoomId};
use serde_json::json;

use super::query::{param, QueryError};
use crate::store::Store;

/// Where the logs are: `/api/logs?rooms=ID,ID,...`.
pub const LOGS_PATH: &str = "/api/logs";

/// Most rooms one request may name: 100 room ids keep the request line
/// near 1.3 KB, well under what any proxy accepts, and a verifier's
/// 2,000 matches take 20 requests.
pub const MAX_LOGS_PER_REQUEST: usize = 100;

/// The answer's byte budget: lines stop before one that would take it
/// past this. A long match's log is a few hundred KB; 4 MiB holds dozens
/// of them while bounding what one request makes the server read, encode
/// and hold.
pub const LOGS_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// The rooms a request asks for, in its order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogsQuery {
    /// The rooms, at most [`MAX_LOGS_PER_REQUEST`].
    pub rooms: Vec<RoomId>,
}

/// The rooms `query` names in `rooms=ID,ID,...`.
pub fn query(query: &str) -> Result<LogsQuery, QueryError> {
    let list = param(query, "rooms")
        .filter(|l| !l.is_empty())
        .ok_or(QueryError::NoRooms)?;
    let ids: Vec<&str> = list.split(',').collect();
    if ids.len() > MAX_LOGS_PER_REQUEST {
        return Err(QueryError::TooManyRooms);
    }
    let rooms = ids
        .into_iter()
        .map(RoomId::new)
        .collect::<Option<Vec<_>>>()
        .ok_or(QueryError::BadRoom)?;
    Ok(LogsQuery { rooms })
}

/// A room's line: its public log, or why it has none.
enum Line {
    Log(Box<MatchLog>),
    Refused(RoomId, ErrorCode, &'static str),
}

/// The NDJSON answer for `q`.
pub async fn answer(q: LogsQuery, store: &Store) -> Vec<u8> {
    let mut lines = Vec::with_capacity(q.rooms.len());
    for room in q.rooms {
        lines.push(line(store, room).await);
    }
    // A long log is hundreds of KB of JSON: encoded off the runtime's
    // threads, as `get_log` does.
    tokio::task::spawn_blocking(move || encode(lines))
        .await
        .unwrap_or_default()
}

async fn line(store: &Store, room: RoomId) -> Line {
    let log = match crate::chat::log_with_chat(store, room.clone()).await {
        Ok(Some(log)) => log,
        Ok(None) => return Line::Refused(room, ErrorCode::RoomNotFound, "no such room"),
        Err(_) => {
            return Line::Refused(room, ErrorCode::ServerStorage, "the log could not be read")
        }
    };
    if log.outcome.is_none() && log.closed.is_none() {
        return Line::Refused(
            room,
            ErrorCode::RoomNotFinished,
            "the log is public once the match is over",
        );
    }
    // As for `get_log`: a game of a duplicate set stays private while
    // another room plays its deal.
    if store.embargoed(&log).await.unwrap_or(true) {
        return Line::Refused(
            room,
            ErrorCode::RoomNotFinished,
            "this game shares its deal with games still being played; its log is public once they are over",
        );
    }
    Line::Log(Box::new(log))
}

/// The lines as NDJSON, within [`LOGS_ANSWER_BYTES`] (the first always).
fn encode(lines: Vec<Line>) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        let mut text = match l {
            Line::Log(log) => serde_json::to_vec(&log).unwrap_or_default(),
            Line::Refused(room, code, message) => {
                serde_json::to_vec(&json!({"room": room, "code": code, "message": message}))
                    .unwrap_or_default()
            }
        };
        if !out.is_empty() && out.len() + text.len() + 1 > LOGS_ANSWER_BYTES {
            break;
        }
        text.push(b'\n');
        out.extend_from_slice(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rooms_are_read_in_order_and_bounded() {
        let q = query("rooms=abcdefabcdef,123456123456").map(|q| q.rooms.len());
        assert_eq!(q, Ok(2));
        assert_eq!(query(""), Err(QueryError::NoRooms));
        assert_eq!(query("rooms="), Err(QueryError::NoRooms));
        assert_eq!(query("rooms=a%20b"), Err(QueryError::BadRoom));
        assert_eq!(query("rooms=abc,,def"), Err(QueryError::BadRoom));
        let many = vec!["abcdefabcdef"; MAX_LOGS_PER_REQUEST + 1].join(",");
        assert_eq!(
            query(&format!("rooms={many}")),
            Err(QueryError::TooManyRooms)
        );
        let most = vec!["abcdefabcdef"; MAX_LOGS_PER_REQUEST].join(",");
        assert!(query(&format!("rooms={most}")).is_ok());
    }

    #[test]
    fn an_answer_stops_before_its_budget_but_always_has_a_line() {
        let room = |s: &str| RoomId::new(s).unwrap_or_else(|| unreachable!());
        let big = "x".repeat(LOGS_ANSWER_BYTES / 2);
        let refused = |_| Line::Refused(room("abcdefabcdef"), ErrorCode::RoomNotFound, "");
        let lines: Vec<Line> = (0..3).map(refused).collect();
        assert_eq!(encode(lines).iter().filter(|b| **b == b'\n').count(), 3);
        // One line larger than the budget is still sent, alone.
        let huge = Line::Refused(room("abcdefabcdef"), ErrorCode::RoomNotFound, "");
        let mut log: MatchLog = serde_json::from_value(json!({
            "room": "abcdefabcdef",
            "header": {"game": "nimrod", "options": {"note": big.repeat(3)}, "seats": 2},
            "moves": [], "outcome": null
        }))
        .unwrap_or_else(|e| unreachable!("{e}"));
        log.closed = Some(parlor_protocol::Closed::Abandoned);
        let out = encode(vec![Line::Log(Box::new(log)), huge]);
        assert_eq!(out.iter().filter(|b| **b == b'\n').count(), 1);
        assert!(out.len() > LOGS_ANSWER_BYTES);
    }
}
