//! `parlor bot --tournament ID`: a bot account in an event. It enters
//! the event if it has not (before the start), stays connected, takes
//! every seat a round gives it (the `tournament_game` message, and the
//! page read now and then for a seat announced while it was away), plays
//! each with a [`SeatBot`](crate::bot::SeatBot) (a duplicate set is two games at once), and
//! stops when the event is over. A dropped connection is made again and
//! resumed ([`crate::reconnect`]): the entry is the server's, the seats
//! come back with the resume token, and the page is read again meanwhile.

use std::time::Duration;

use parlor_games::{GameRng, Seat};
use parlor_protocol::{ServerMsg, TournamentInfo, TournamentStatus};
use tokio::time::Instant;

use super::api::{self, Entry};
use crate::bot::make_bot;
use crate::reconnect::GIVE_UP_AFTER;
use crate::seats::Seats;
use crate::series::Summary;
use crate::Client;

/// How often the page is read while playing: to see the event finish
/// (no message says so) and to find a seat whose announcement was missed.
/// A second keeps the end prompt at a request a second per bot.
pub const POLL: Duration = Duration::from_secs(1);

/// Whether `a` and `b` name the same account (names are compared without
/// case, as the server keys accounts).
fn same_name(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Enters event `id` as `me` (with `token`) unless already entered; the
/// page. An event that has started without `me` is an error: only
/// upcoming events take entries.
pub async fn enter(url: &str, token: &str, id: &str, me: &str) -> Result<TournamentInfo, String> {
    let page = api::page(url, id).await?;
    if page.players.iter().any(|p| same_name(&p.name, me)) {
        return Ok(page);
    }
    if page.status != TournamentStatus::Upcoming {
        return Err(format!(
            "{me} is not in event {id}, which is {}: entries close when it starts",
            page.status.as_str()
        ));
    }
    api::entry(url, token, id, Entry::Join).await?;
    api::page(url, id).await
}

/// Plays every game event `id` seats `client`'s account in, with
/// `strategy`, until the event is over; the final page and the games.
pub async fn play_event(
    client: &mut Client,
    url: &str,
    id: &str,
    strategy: Option<&str>,
    rng: &mut GameRng,
) -> Result<(TournamentInfo, Summary), String> {
    let me = client
        .account()
        .map(|a| a.name.clone())
        .ok_or("--tournament needs the bot's account: give --token")?;
    let mut seats = Seats::default();
    let mut next_poll = Instant::now();
    let mut checked = false;
    let mut page_read = Instant::now();
    loop {
        if Instant::now() >= next_poll {
            let page = match api::page(url, id).await {
                Ok(page) => page,
                // The server may be restarting: read it again later, up to
                // as long as a reconnection would try.
                Err(e) if page_read.elapsed() < GIVE_UP_AFTER => {
                    eprintln!("parlor bot: reading event {id}: {e}");
                    next_poll = Instant::now() + POLL;
                    continue;
                }
                Err(e) => return Err(e),
            };
            page_read = Instant::now();
            if !checked {
                // Fail at once for a strategy the game does not have.
                make_bot(page.game, strategy).map_err(|e| e.to_string())?;
                checked = true;
            }
            match page.status {
                TournamentStatus::Finished => {
                    seats.settle_ended(url).await;
                    return Ok((page, seats.into_summary()));
                }
                TournamentStatus::Cancelled => {
                    let why = page
                        .cancelled
                        .as_deref()
                        .unwrap_or("it had too few players");
                    return Err(format!("event {id} was cancelled: {why}"));
                }
                _ => {}
            }
            for g in page.rounds.iter().flatten() {
                let (Some(room), None) = (&g.room, &g.result) else {
                    continue;
                };
                if let Some(seat) = g.seats.iter().position(|s| same_name(s, &me)) {
                    let seat = Seat(u8::try_from(seat).unwrap_or(u8::MAX));
                    // A seed in the join: the room asks for a fresh one once
                    // `joined` shows the commitment (a lone game's deal takes
                    // it; a duplicate set's shared deal asks for none).
                    let promise = Some(crate::client::client_seed());
                    seats.take(client, room, seat, strategy, promise).await?;
                }
            }
            next_poll = Instant::now() + POLL;
        }
        let msg = match tokio::time::timeout_at(next_poll, client.recv()).await {
            Err(_) => continue,
            Ok(Err(e)) if e.is_dropped() => {
                eprintln!("parlor bot: {e}; reconnecting");
                let resumed = client
                    .reconnect(url, &me)
                    .await
                    .map_err(|e| e.to_string())?;
                seats.resumed(client, &resumed).await?;
                next_poll = Instant::now();
                continue;
            }
            Ok(msg) => msg.map_err(|e| e.to_string())?,
        };
        match msg {
            ServerMsg::TournamentGame(t) if t.tournament == id => {
                let promise = Some(crate::client::client_seed());
                seats
                    .take(client, &t.room, t.seat, strategy, promise)
                    .await?;
            }
            other => seats.on_msg(client, other, rng).await?,
        }
    }
}
