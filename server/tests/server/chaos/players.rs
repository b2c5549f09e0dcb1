//! A seated player's session: joins, plays to the end, and through every
//! fault reconnects to a random live node and resumes, recording what it
//! was shown and which moves were acknowledged.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::rooms::log_says_over;
use super::shared::{connect, lock, Shared};
use super::{SILENCE, THINK_MS};
use crate::common::live::{recv_within, send, Ws};
use parlor_games::rng::GameRng;
use parlor_games::{GameKind, Seat, Viewer};
use parlor_protocol::{ErrorCode, RoomStatus, ServerMsg, Update};
use rand::Rng;
use serde_json::{json, Value};
use uuid::Uuid;

/// Why a client's connection ended, from its receive error: 1012 (the
/// bus was lost, or a stalled node's frames came late) or any other close.
pub(crate) fn closed_why(e: &str) -> String {
    if e.contains("1012") {
        "closed 1012".into()
    } else {
        "closed".into()
    }
}

/// What a client does about an error about its room: carry on, retry the
/// move, or reconnect.
pub(crate) enum Next {
    Ignore,
    Retry,
    Reconnect(String),
}

pub(crate) fn on_error(code: ErrorCode) -> Next {
    match code {
        ErrorCode::ActionStaleSeq | ErrorCode::ActionNotYourTurn => Next::Ignore,
        ErrorCode::ServerStorage | ErrorCode::ServerBusy => Next::Retry,
        ErrorCode::RoomMoved
        | ErrorCode::ServerUnreachable
        | ErrorCode::SessionTakenOver
        | ErrorCode::ActionNotYourSeat
        | ErrorCode::ServerShuttingDown => Next::Reconnect(code.to_string()),
        other => Next::Reconnect(format!("unexpected {other}")),
    }
}

/// The move `seat` plays in `u`.
pub(crate) fn choose(game: GameKind, seat: Seat, u: &Update, rng: &mut GameRng) -> Value {
    if game == GameKind::Nimrod {
        // One rod at a time: long games.
        let piles: Vec<u64> = serde_json::from_value(u.view["piles"].clone()).unwrap();
        return if piles[1] > 0 {
            json!({"take": [0, 1]})
        } else {
            json!({"take": [1, 0]})
        };
    }
    let strategy = match game {
        GameKind::Cribbage => "random",
        _ => "greedy",
    };
    let mut bot = game.bot(strategy).unwrap();
    let view = game.parse_view(&u.view).unwrap();
    let mv = bot.choose(seat, &view, rng).unwrap();
    serde_json::to_value(&mv).unwrap()
}

/// A player's session: joins `seat` of `room`, then plays to the end,
/// reconnecting and resuming through every fault.
pub(crate) async fn player(sh: Arc<Shared>, room: String, game: GameKind, seat: u8) {
    let mut held: Option<Uuid> = None;
    // A token whose join was sent but not answered.
    // Tokens whose join was sent but not answered (the connection broke):
    // one of them may hold the seat, which a resume with it tells.
    let mut tried: Vec<Uuid> = Vec::new();
    let mut next_try = 0;
    let mut seat_taken = 0;
    // The move sent and the seq it answered, until its update is seen.
    let mut answered: Option<(u64, Value)> = None;
    // The move chosen for a seq.
    let mut decided: Option<(u64, Value)> = None;
    // The highest seq shown: a lower one later is a stale update.
    let mut highest = 0;
    let mut rng = GameRng::from_seed(rand::random());
    let viewer = Viewer::Seat(Seat(seat));
    // What this player did and heard lately, told with a hang.
    let mut trail: Vec<String> = Vec::new();
    let note = |trail: &mut Vec<String>, what: String| {
        if trail.len() >= 16 {
            trail.remove(0);
        }
        trail.push(what);
        sh.trail(&room, seat, trail);
    };
    // When this player last saw the match move on: reconnecting over and
    // over without that is a hang too.
    let mut progress = Instant::now();
    loop {
        if progress.elapsed() > SILENCE {
            sh.problem(format!(
                "room {room} seat {seat}: no new position for {SILENCE:?} across reconnections (lately: {}; meanwhile {})",
                trail.join(", "),
                sh.other_trails(&room, seat)
            ));
            progress = Instant::now();
        }
        let (mut ws, token, node) = connect(&sh).await;
        note(&mut trail, format!("connected to {node}"));
        // Take the seat back, or find which token took it.
        let resume_with = held.or_else(|| tried.get(next_try % tried.len().max(1)).copied());
        let mut seated = false;
        if let Some(t) = resume_with {
            if send(&mut ws, json!({"type": "resume", "token": t}))
                .await
                .is_err()
            {
                continue;
            }
            let resumed = await_resumed(&mut ws, &room).await;
            note(&mut trail, format!("resumed {resumed:?}"));
            match resumed {
                Ok(Some(true)) => {
                    held = Some(t);
                    tried.clear();
                    seated = true;
                }
                Ok(Some(false)) => {
                    if held.is_some() {
                        // Our seat's room is not among the token's: the
                        // match is over and its room closed. A log that
                        // cannot be read now is asked for again (the
                        // silence check above bounds how long).
                        match log_says_over(&mut ws, &room).await {
                            Some(true) => return,
                            Some(false) => {
                                sh.problem(format!(
                                    "room {room} seat {seat}: resume lost the seat, the match is not over"
                                ));
                                return;
                            }
                            None => {
                                note(&mut trail, "the log could not be read".into());
                                continue;
                            }
                        }
                    }
                    next_try += 1;
                    if next_try < tried.len() {
                        continue;
                    }
                    // None holds it (yet): join with this connection's.
                }
                Ok(None) => continue,
                Err(e) => {
                    if e == "timeout" {
                        sh.problem(format!(
                            "room {room} seat {seat}: resume unanswered for {SILENCE:?} on {node}"
                        ));
                    }
                    continue;
                }
            }
        }
        if !seated {
            next_try = 0;
            tried.push(token);
            if send(&mut ws, json!({"type": "join", "room": room, "seat": seat}))
                .await
                .is_err()
            {
                continue;
            }
            let joined = await_joined(&mut ws, &room).await;
            note(
                &mut trail,
                match &joined {
                    Ok(Joined::Yes) => "joined".to_string(),
                    Ok(Joined::Taken) => "join: seat taken".to_string(),
                    Ok(Joined::Refused(why)) => format!("join refused: {why}"),
                    Err(e) => format!("join: {e}"),
                },
            );
            match joined {
                Ok(Joined::Yes) => {
                    held = Some(token);
                    tried.clear();
                }
                Ok(Joined::Taken) => {
                    // An earlier join went through after all: find it.
                    tried.pop();
                    seat_taken += 1;
                    if seat_taken > 100 || tried.is_empty() {
                        sh.problem(format!(
                            "room {room} seat {seat}: taken, by none of this player's tokens"
                        ));
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                }
                Ok(Joined::Refused(why)) => {
                    sh.problem(format!("room {room} seat {seat}: join refused: {why}"));
                    return;
                }
                Err(e) => {
                    if e == "timeout" {
                        sh.problem(format!(
                            "room {room} seat {seat}: join unanswered for {SILENCE:?} on {node}"
                        ));
                    }
                    continue;
                }
            }
        }
        // Play. The first update is the room's position now: if it is
        // the one a move was sent for, that move was lost with the
        // connection (it is not acknowledged) and is chosen again.
        let mut last: Option<Update> = None;
        let mut first_update = true;
        // Other messages (presence) do not count: only updates do.
        let mut quiet_since = Instant::now();
        let why = loop {
            let wait = SILENCE.saturating_sub(quiet_since.elapsed());
            let msg = match recv_within(&mut ws, wait.max(Duration::from_millis(1))).await {
                Ok(m) => m,
                Err(e) if e == "timeout" => {
                    sh.problem(format!(
                        "room {room} seat {seat}: nothing heard for {SILENCE:?} on {node} at seq {:?} (lately: {}; meanwhile {})",
                        last.as_ref().map(|u| u.seq),
                        trail.join(", "),
                        sh.other_trails(&room, seat)
                    ));
                    break "silence".to_string();
                }
                Err(e) => break closed_why(&e),
            };
            match msg {
                ServerMsg::Update(u) if u.room.as_str() == room => {
                    if u.status == RoomStatus::Waiting {
                        continue;
                    }
                    sh.record_update(&u, viewer, &node);
                    quiet_since = Instant::now();
                    note(
                        &mut trail,
                        format!("update {} to act {:?}", u.seq, u.to_act),
                    );
                    if u.seq < highest {
                        sh.problem(format!(
                            "room {room} seat {seat}: shown seq {} on {node} after seq {highest} (lately: {})",
                            u.seq,
                            trail.join(", ")
                        ));
                    }
                    if u.seq > highest {
                        progress = Instant::now();
                    }
                    highest = highest.max(u.seq);
                    if first_update && answered.as_ref().is_some_and(|(s, _)| *s == u.seq) {
                        answered = None;
                    }
                    first_update = false;
                    if let Some((s, mv)) = &answered {
                        if u.seq > *s {
                            let mut rooms = lock(&sh.rooms);
                            let r = rooms.entry(room.clone()).or_default();
                            r.acked.push((*s, seat, mv.clone()));
                            answered = None;
                        }
                    }
                    if u.outcome.is_some() || u.status == RoomStatus::Finished {
                        return;
                    }
                    if act(
                        &sh,
                        &mut ws,
                        &room,
                        game,
                        seat,
                        &u,
                        &mut answered,
                        &mut decided,
                        &mut rng,
                    )
                    .await
                    .is_err()
                    {
                        break "closed".into();
                    }
                    if let Some((s, _)) = &answered {
                        note(&mut trail, format!("played at {s}"));
                    }
                    last = Some(u);
                }
                ServerMsg::Error {
                    code,
                    room: Some(r),
                    ..
                } if r.as_str() == room => {
                    note(&mut trail, format!("error {code}"));
                    match on_error(code) {
                        Next::Ignore => {}
                        Next::Retry => {
                            answered = None;
                            tokio::time::sleep(Duration::from_millis(200)).await;
                            if let Some(u) = &last {
                                if act(
                                    &sh,
                                    &mut ws,
                                    &room,
                                    game,
                                    seat,
                                    u,
                                    &mut answered,
                                    &mut decided,
                                    &mut rng,
                                )
                                .await
                                .is_err()
                                {
                                    break "closed".into();
                                }
                            }
                        }
                        Next::Reconnect(why) => break why,
                    }
                }
                ServerMsg::Error { code, .. } => {
                    note(&mut trail, format!("error {code} (no room)"));
                    if let Next::Reconnect(why) = on_error(code) {
                        break why;
                    }
                }
                ServerMsg::Presence {
                    seat: who,
                    connected,
                    ..
                } => note(&mut trail, format!("presence {} {connected}", who.0)),
                _ => {}
            }
        };
        sh.reconnect(&why);
    }
}

/// Plays for `seat` if it is to act in `u` (and the lowest seat to act:
/// seats that act at once take turns, so that the update after a move
/// is that move's) and has not answered this seq yet.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn act(
    sh: &Shared,
    ws: &mut Ws,
    room: &str,
    game: GameKind,
    seat: u8,
    u: &Update,
    answered: &mut Option<(u64, Value)>,
    decided: &mut Option<(u64, Value)>,
    rng: &mut GameRng,
) -> Result<(), String> {
    if u.to_act.iter().next() != Some(Seat(seat)) || u.status != RoomStatus::Playing {
        return Ok(());
    }
    if answered.as_ref().is_some_and(|(s, _)| *s == u.seq) {
        return Ok(());
    }
    if !sh.calm() {
        let ms = rand::thread_rng().gen_range(THINK_MS);
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    // A move sent again (its answer was lost, or it was refused
    // `server/storage`) is the same move: whichever attempt the room took,
    // the update after it is this move's.
    let mv = match decided {
        Some((s, mv)) if *s == u.seq => mv.clone(),
        _ => {
            let mv = choose(game, Seat(seat), u, rng);
            *decided = Some((u.seq, mv.clone()));
            mv
        }
    };
    *answered = Some((u.seq, mv.clone()));
    send(
        ws,
        json!({"type": "play", "room": room, "seat": seat, "seq": u.seq, "move": mv}),
    )
    .await
}

/// After a `resume`: `Some(true)` if the token holds a seat in `room`,
/// `Some(false)` if not (or the token holds nothing), `None` on a refusal
/// worth retrying.
pub(crate) async fn await_resumed(ws: &mut Ws, room: &str) -> Result<Option<bool>, String> {
    loop {
        match recv_within(ws, SILENCE).await? {
            ServerMsg::Resumed { seats, .. } => {
                return Ok(Some(seats.iter().any(|s| s.room.as_str() == room)))
            }
            ServerMsg::Error {
                code: ErrorCode::SessionUnknownToken,
                ..
            } => return Ok(Some(false)),
            ServerMsg::Error { .. } => return Ok(None),
            _ => {}
        }
    }
}

/// What became of a `join`.
pub(crate) enum Joined {
    Yes,
    /// `room/seat_taken`.
    Taken,
    /// Refused for another reason.
    Refused(String),
}

/// After a `join`: what became of it; `Err` to try again.
pub(crate) async fn await_joined(ws: &mut Ws, room: &str) -> Result<Joined, String> {
    loop {
        match recv_within(ws, SILENCE).await? {
            ServerMsg::Joined { room: r, .. } if r.as_str() == room => return Ok(Joined::Yes),
            ServerMsg::Error {
                code: ErrorCode::RoomSeatTaken,
                ..
            } => return Ok(Joined::Taken),
            ServerMsg::Error { code, message, .. } => {
                return match on_error(code) {
                    Next::Reconnect(why) if why.starts_with("unexpected") => {
                        Ok(Joined::Refused(format!("{code}: {message}")))
                    }
                    _ => Err(code.to_string()),
                }
            }
            _ => {}
        }
    }
}
