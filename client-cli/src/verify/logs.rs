//! Where the verifiers that read many matches get their logs.
//!
//! A verifier first says which rooms it will ask for, in order
//! ([`Logs::plan`]); then each [`Logs::fetch`] is answered from a batch:
//! `GET /api/logs?rooms=...` fetches up to [`BATCH`] logs in one request
//! (the server may answer fewer, to keep within its byte budget; the rest
//! are asked for again). A server without that endpoint (`404`) gets the
//! protocol's `get_log` instead, on one connection kept for the run.
//!
//! Being told to slow down is never a failed check: an HTTP `429`/`503`
//! is retried after its `Retry-After` (in `api::get`), and a
//! `request/rate_limited` refusal of `get_log` after [`RATE_LIMIT_WAIT`].
//! A refusal about the match itself (no such room, not finished) is the
//! server's answer, which fails the verifier's `log` check; a lost
//! connection or a silent server is not, and ends the run.
//!
//! On a long run the count of logs fetched goes to standard error every
//! [`PROGRESS_EVERY`] logs (never to standard output, which holds the
//! verdict's JSON).

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use parlor_protocol::{ClientMsg, ErrorCode, MatchLog, RoomId, ServerMsg};
use serde::Deserialize;

use crate::api::{self, REQUEST_TIMEOUT};
use crate::{Client, ClientError};

/// Rooms asked for in one `GET /api/logs`: the server's
/// `MAX_LOGS_PER_REQUEST`.
pub const BATCH: usize = 100;

/// Largest answer of `GET /api/logs` read: the server's byte budget is
/// 4 MiB, but it always sends one log even when that log alone is over
/// it; the longest matches log well under 16 MiB.
const MAX_BATCH_BYTES: usize = 24 * 1024 * 1024;

/// How long to wait after `request/rate_limited` before asking again:
/// the server sends that notice at most once a second, and its budget
/// refills within that time.
pub const RATE_LIMIT_WAIT: Duration = Duration::from_secs(1);

/// Rate-limit refusals of one log in a row before the run gives up: a
/// server that refuses a minute long is not slowing us down but stuck.
const MAX_RATE_LIMITED: u32 = 60;

/// Logs between two progress lines on standard error.
pub const PROGRESS_EVERY: usize = 250;

/// What is known of the server's ways of giving logs.
#[derive(Debug)]
enum Source {
    /// A directory of logs kept earlier, `ROOM.json` each (as `get_log`
    /// or `GET /api/logs` gave them): the server is not asked.
    Dir(std::path::PathBuf),
    /// `GET /api/logs`, until it answers that it does not exist.
    Bulk,
    /// `get_log` over the protocol, on one connection once opened.
    Protocol(Option<Box<Client>>),
}

/// What the server said of one room: its log, or why it gave none.
type Fetched = Result<MatchLog, String>;

/// A refusal line of `GET /api/logs`.
#[derive(Deserialize)]
struct Refusal {
    room: RoomId,
    code: String,
    message: String,
}

/// The logs of one server's matches, for one verifier's run.
#[derive(Debug)]
pub struct Logs {
    url: String,
    /// The client name sent in `hello`, and the start of progress lines.
    name: &'static str,
    source: Source,
    /// The rooms still to be asked for, in the verifier's order.
    planned: VecDeque<RoomId>,
    /// Fetched and not yet handed out.
    ready: HashMap<RoomId, Fetched>,
    /// Logs handed out, and how many were planned, for progress.
    done: usize,
    total: usize,
}

impl Logs {
    /// Logs of the server at `url`, asked for as client `name`.
    pub fn new(url: &str, name: &'static str) -> Logs {
        Logs {
            url: url.to_owned(),
            name,
            source: Source::Bulk,
            planned: VecDeque::new(),
            ready: HashMap::new(),
            done: 0,
            total: 0,
        }
    }

    /// Logs read from `dir` (`ROOM.json` each) instead of the server.
    pub fn from_dir(dir: &std::path::Path, name: &'static str) -> Logs {
        Logs {
            source: Source::Dir(dir.to_owned()),
            ..Logs::new("", name)
        }
    }

    /// The rooms the verifier will ask for, in order: fetched in batches.
    pub fn plan(&mut self, rooms: impl IntoIterator<Item = RoomId>) {
        self.planned.extend(rooms);
        self.total = self.done + self.planned.len();
    }

    /// The log of `room`: `Ok(Err(reason))` when the server has no
    /// readable log of it; `Err` when the server could not be asked.
    pub async fn fetch(&mut self, room: &RoomId) -> Result<Fetched, String> {
        let got = match self.ready.remove(room) {
            Some(got) => got,
            None => self.ask(room).await?,
        };
        self.done += 1;
        if self.done.is_multiple_of(PROGRESS_EVERY) {
            eprintln!(
                "{}: {} of {} logs fetched",
                self.name,
                self.done,
                self.total.max(self.done)
            );
        }
        Ok(got)
    }

    /// Asks the server for `room` (and the planned rooms after it).
    async fn ask(&mut self, room: &RoomId) -> Result<Fetched, String> {
        if let Source::Dir(dir) = &self.source {
            return Ok(from_file(dir, room));
        }
        if matches!(self.source, Source::Bulk) {
            // The batch: this room, then the next planned ones.
            if let Some(at) = self.planned.iter().position(|r| r == room) {
                self.planned.drain(..at);
            }
            let mut batch: Vec<RoomId> = vec![room.clone()];
            batch.extend(
                self.planned
                    .iter()
                    .filter(|r| *r != room && !self.ready.contains_key(*r))
                    .take(BATCH - 1)
                    .cloned(),
            );
            if self.bulk(&batch).await? {
                if let Some(got) = self.ready.remove(room) {
                    return Ok(got);
                }
                return Ok(Err(format!("the server's answer leaves out room {room}")));
            }
            self.source = Source::Protocol(None);
        }
        self.over_protocol(room).await
    }

    /// `GET /api/logs` for `batch`: `false` when the server has no such
    /// endpoint. The logs and refusals it gives are kept in `ready`.
    async fn bulk(&mut self, batch: &[RoomId]) -> Result<bool, String> {
        let ids: Vec<String> = batch.iter().map(|r| api::escape(r.as_str())).collect();
        let path = format!("/api/logs?rooms={}", ids.join(","));
        let a = api::get(&self.url, &path, MAX_BATCH_BYTES).await?;
        if a.status == 404 {
            return Ok(false);
        }
        if a.status != 200 {
            return Err(format!("the match logs: {}", a.refusal()));
        }
        let text = String::from_utf8_lossy(&a.body);
        for raw in text.lines().filter(|l| !l.trim().is_empty()) {
            if let Ok(log) = serde_json::from_str::<MatchLog>(raw) {
                if batch.contains(&log.room) {
                    self.planned.retain(|r| r != &log.room);
                    self.ready.insert(log.room.clone(), Ok(log));
                }
                continue;
            }
            let Ok(r) = serde_json::from_str::<Refusal>(raw) else {
                return Err(
                    "the match logs' answer holds a line that is neither a log nor a refusal"
                        .into(),
                );
            };
            if batch.contains(&r.room) {
                self.planned.retain(|x| x != &r.room);
                let why = format!(
                    "the log of room {} is not available: {}: {}",
                    r.room, r.code, r.message
                );
                self.ready.insert(r.room, Err(why));
            }
        }
        Ok(true)
    }

    /// `get_log` on the kept connection, opened if it is not yet; asked
    /// again after [`RATE_LIMIT_WAIT`] when the server says to slow down.
    async fn over_protocol(&mut self, room: &RoomId) -> Result<Fetched, String> {
        let url = self.url.as_str();
        let Source::Protocol(kept) = &mut self.source else {
            return Err("no way to read match logs".into());
        };
        let client = match kept {
            Some(c) => c,
            None => {
                let c = Client::connect(url, self.name)
                    .await
                    .map_err(|e| format!("{url}: {e}"))?;
                kept.insert(Box::new(c))
            }
        };
        let get_log = ClientMsg::GetLog {
            room: room.clone(),
            predict: false,
        };
        let mut limited = 0;
        loop {
            let ask = client.request(&get_log, |m| match m {
                ServerMsg::Log(log) => Some(log),
                _ => None,
            });
            let log = tokio::time::timeout(REQUEST_TIMEOUT, ask)
                .await
                .map_err(|_| format!("{url}: no log within {} s", REQUEST_TIMEOUT.as_secs()))?;
            return match log {
                Ok(log) => Ok(Ok(log)),
                Err(ClientError::Refused {
                    code: ErrorCode::RequestRateLimited,
                    ..
                }) if limited < MAX_RATE_LIMITED => {
                    limited += 1;
                    tokio::time::sleep(RATE_LIMIT_WAIT).await;
                    continue;
                }
                Err(ClientError::Refused {
                    code: ErrorCode::RequestRateLimited,
                    message,
                }) => Err(format!(
                    "{url}: still rate limited after {limited} waits: {message}"
                )),
                Err(ClientError::Refused { code, message }) => Ok(Err(format!(
                    "the log of room {room} is not available: {code}: {message}"
                ))),
                Err(e) => Err(format!("{url}: {e}")),
            };
        }
    }
}

/// `room`'s log from `dir/ROOM.json`; a missing or unreadable file fails
/// that line's `log` check (a room id is ASCII letters, digits, `-` and
/// `_` only, so never a path out of `dir`).
fn from_file(dir: &std::path::Path, room: &RoomId) -> Fetched {
    let path = dir.join(format!("{}.json", room.as_str()));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("no log of room {room} at {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not a match log: {e}", path.display()))
}
