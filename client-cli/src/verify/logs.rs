//! Where the verifiers that read many matches get their logs: one
//! connection kept for the whole run (opened at the first log, so a run
//! with no match to replay opens none), each answer within
//! [`REQUEST_TIMEOUT`], and, for a verifier that asks, the HTTP endpoint
//! `GET /api/replay/ROOM` first (a server whose replay endpoint serves
//! positions for the web client rather than logs gets the protocol's
//! `get_log` from then on).
//!
//! A refusal (no such room, not finished, not readable) is the server's
//! answer about that match, which fails the verifier's `log` check; a lost
//! connection or a silent server is not, and ends the run.

use parlor_protocol::{ClientMsg, MatchLog, RoomId, ServerMsg};

use crate::api::{self, REQUEST_TIMEOUT};
use crate::{Client, ClientError};

/// Largest match log read over HTTP: the longest matches (four-player
/// Cribbage to 121) log a few hundred steps of under 200 bytes each.
const MAX_LOG_BYTES: usize = 16 * 1024 * 1024;

/// Which way logs are asked for first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// `get_log` over the protocol only.
    Protocol,
    /// `GET /api/replay/ROOM`, and the protocol if the server does not
    /// serve logs there.
    HttpFirst,
}

/// What is known of the server's ways of giving logs.
#[derive(Debug)]
enum Source {
    /// Not known yet: the first log tells.
    Unknown,
    /// `GET /api/replay/ROOM` gives the log.
    Http,
    /// `get_log` over the protocol, on one connection once opened.
    Protocol(Option<Box<Client>>),
}

/// The logs of one server's matches, for one verifier's run.
#[derive(Debug)]
pub struct Logs {
    url: String,
    /// The client name sent in `hello`.
    name: &'static str,
    source: Source,
}

impl Logs {
    /// Logs of the server at `url`, asked for by `route`, as client `name`.
    pub fn new(url: &str, name: &'static str, route: Route) -> Logs {
        let source = match route {
            Route::Protocol => Source::Protocol(None),
            Route::HttpFirst => Source::Unknown,
        };
        Logs {
            url: url.to_owned(),
            name,
            source,
        }
    }

    /// The log of `room`: `Ok(Err(reason))` when the server has no
    /// readable log of it; `Err` when the server could not be asked.
    pub async fn fetch(&mut self, room: &RoomId) -> Result<Result<MatchLog, String>, String> {
        if matches!(self.source, Source::Unknown | Source::Http) {
            let path = format!("/api/replay/{}", api::escape(room.as_str()));
            let a = api::get(&self.url, &path, MAX_LOG_BYTES).await?;
            if a.status == 404 {
                return Ok(Err(format!(
                    "the server has no log of room {room}: {}",
                    a.refusal()
                )));
            }
            match serde_json::from_slice::<MatchLog>(&a.body) {
                Ok(log) if a.status == 200 => {
                    self.source = Source::Http;
                    return Ok(Ok(log));
                }
                _ if matches!(self.source, Source::Http) => {
                    return Ok(Err(format!(
                        "the log of room {room} is not readable: {}",
                        a.refusal()
                    )));
                }
                _ => self.source = Source::Protocol(None),
            }
        }
        self.over_protocol(room).await
    }

    /// `get_log` on the kept connection, opened if it is not yet.
    async fn over_protocol(&mut self, room: &RoomId) -> Result<Result<MatchLog, String>, String> {
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
        let ask = client.request(&get_log, |m| match m {
            ServerMsg::Log(log) => Some(log),
            _ => None,
        });
        let log = tokio::time::timeout(REQUEST_TIMEOUT, ask)
            .await
            .map_err(|_| format!("{url}: no log within {} s", REQUEST_TIMEOUT.as_secs()))?;
        match log {
            Ok(log) => Ok(Ok(log)),
            Err(ClientError::Refused { code, message }) => Ok(Err(format!(
                "the log of room {room} is not available: {code}: {message}"
            ))),
            Err(e) => Err(format!("{url}: {e}")),
        }
    }
}
