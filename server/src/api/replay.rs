//! A finished match as the positions it went through, for the web
//! client's replay: the protocol's `get_log` gives the steps, but only
//! the server can deal the cards again (the browser would need the deal's
//! hashing and stream cipher), so it rebuilds a spectator's view of every
//! position here.

use std::borrow::Cow;

use parlor_games::{AnyView, GameKind, Viewer};
use parlor_protocol::{replay, step, RoomId};
use serde::Serialize;

use crate::directory::Directory;
use crate::http::{ContentType, Reply};

/// Most steps a replay shows. The longest real matches (four-player
/// Cribbage to 121) take a few hundred steps; this bounds the answer
/// (a view is a few KiB) and the work of one request.
pub const MAX_REPLAY_STEPS: usize = 2_000;

/// The answer's body.
#[derive(Debug, Serialize)]
struct Positions {
    room: RoomId,
    game: GameKind,
    seats: u8,
    /// What a spectator saw before the first step and after each.
    views: Vec<AnyView>,
    /// Whether steps beyond [`MAX_REPLAY_STEPS`] were left out.
    truncated: bool,
    /// The players' chat, in order (absent: none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    chat: Vec<parlor_protocol::ChatLine>,
}

/// Why there is no replay.
#[derive(Debug)]
pub enum NoReplay {
    /// No room has that id.
    NotFound,
    /// The match is still on: its deal is secret until it ends.
    NotFinished,
    /// The store failed, or the log does not replay.
    Failed(String),
}

/// The positions of `room`'s finished match, as JSON.
pub async fn positions(directory: &Directory, room: RoomId) -> Result<Vec<u8>, NoReplay> {
    let log = match crate::chat::log_with_chat(directory.store(), room.clone()).await {
        Ok(Some(log)) => log,
        Ok(None) => return Err(NoReplay::NotFound),
        Err(e) => return Err(NoReplay::Failed(e.to_string())),
    };
    let over = log.outcome.is_some() || log.closed.is_some();
    if !over
        || directory
            .store()
            .embargoed(&log)
            .await
            .map_err(|e| NoReplay::Failed(e.to_string()))?
    {
        return Err(NoReplay::NotFinished);
    }
    let (mut game, mut rng) =
        replay(&log.header, &[]).map_err(|e| NoReplay::Failed(e.to_string()))?;
    let shown = log.moves.len().min(MAX_REPLAY_STEPS);
    let mut views = Vec::with_capacity(shown + 1);
    views.push(game.view(Viewer::Spectator));
    for entry in &log.moves[..shown] {
        step(&mut game, &mut rng, entry).map_err(|e| NoReplay::Failed(e.to_string()))?;
        views.push(game.view(Viewer::Spectator));
    }
    let body = Positions {
        room,
        game: log.header.game,
        seats: log.header.seats,
        views,
        truncated: shown < log.moves.len(),
        chat: log.chat,
    };
    serde_json::to_vec(&body).map_err(|e| NoReplay::Failed(e.to_string()))
}

/// The answer to a replay request for `room`: its positions as JSON, or
/// in plain text why there are none.
pub async fn reply(directory: &Directory, room: RoomId) -> Reply {
    match positions(directory, room).await {
        Ok(json) => Reply {
            status: "200 OK",
            content_type: ContentType::Json.mime(),
            // A finished match never changes.
            cache: "max-age=3600",
            extra: "",
            body: Cow::Owned(json),
        },
        Err(NoReplay::NotFound) => Reply::text("404 Not Found", "no such room\n"),
        Err(NoReplay::NotFinished) => Reply::text(
            "409 Conflict",
            "the match is still on: its replay is public once it is over\n",
        ),
        Err(NoReplay::Failed(why)) => {
            tracing::warn!(%why, "replay failed");
            Reply::text(
                "500 Internal Server Error",
                "the match could not be replayed\n",
            )
        }
    }
}
