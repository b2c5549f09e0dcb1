//! `parlor bot --ladder GAME`: a bot account on a game's ladder. It
//! enters the ladder (`ladder_join`), takes every seat the ladder gives
//! it (the `ladder_game` message, and the page read now and then for a
//! game announced while it was away), plays each with a [`SeatBot`](crate::bot::SeatBot)
//! (several at once), and once it has taken as many games as it was asked
//! for leaves the ladder (`ladder_leave`: paired no more) and plays out
//! the games it holds. Interrupted, it stops at once and stays entered
//! (unless asked to leave): the ladder lists it as not connected and
//! pairs it again when it comes back, as the server keeps an entrant
//! until it leaves. A dropped connection is
//! made again and resumed ([`crate::reconnect`]): the ladder entry is
//! the server's, the seats come back with the resume token.

use std::time::Duration;

use parlor_games::{GameKind, GameRng, Seat};
use parlor_protocol::{ClientMsg, ErrorCode, ServerMsg};
use tokio::time::Instant;

use super::api;
use crate::bot::make_bot;
use crate::reconnect::GIVE_UP_AFTER;
use crate::seats::Seats;
use crate::series::Summary;
use crate::{Client, ClientError};

/// How often the page is read for a seat whose announcement was missed.
pub const POLL: Duration = Duration::from_secs(2);

/// How long a bot out of the ladder waits for its games' next message
/// before looking again (the games' clocks end them long before).
const IDLE_WAIT: Duration = Duration::from_secs(60);

/// Enters `game`'s ladder on `client`'s connection (before any game:
/// what arrives meanwhile is not looked at).
async fn enter(client: &mut Client, game: GameKind) -> Result<(), ClientError> {
    client
        .request(&ClientMsg::LadderJoin { game }, |m| match m {
            ServerMsg::LadderJoined { game: g } if g == game => Some(()),
            _ => None,
        })
        .await
}

/// Leaves `game`'s ladder: its answer, `ladder_left`, comes among the
/// games' updates, which the loop goes on reading.
async fn leave(client: &mut Client, game: GameKind) -> Result<(), ClientError> {
    client.send(&ClientMsg::LadderLeave { game }).await
}

/// How `play_ladder` ends.
#[derive(Clone, Copy, Debug, Default)]
pub struct Until {
    /// Games to take, after which it leaves the ladder and plays them
    /// out (`None`: until stopped).
    pub games: Option<u32>,
    /// Leave the ladder when stopped too (else the entry stays).
    pub leave_on_stop: bool,
}

/// Plays `game`'s ladder as `client`'s account with `strategy` until
/// `until.games` games are taken and played (then it leaves the ladder)
/// or `stop` resolves (then it leaves only if `until.leave_on_stop`);
/// the games played.
pub async fn play_ladder(
    client: &mut Client,
    url: &str,
    game: GameKind,
    strategy: Option<&str>,
    until: Until,
    rng: &mut GameRng,
    stop: impl std::future::Future<Output = ()>,
) -> Result<Summary, String> {
    let games = until.games;
    let me = client
        .account()
        .map(|a| a.name.clone())
        .ok_or("--ladder needs the bot's account: give --token")?;
    // Fail at once for a strategy the game does not have.
    make_bot(game, strategy).map_err(|e| e.to_string())?;
    let err = |e: ClientError| e.to_string();
    enter(client, game).await.map_err(err)?;
    let want = games.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let mut seats = Seats::default();
    let mut entered = true;
    // At once: games of an earlier run, or announced before `ladder_joined`.
    let mut next_poll = Instant::now();
    let mut stop = std::pin::pin!(stop);
    let mut page_read = Instant::now();
    loop {
        if entered && want.is_some_and(|n| seats.taken() >= n) {
            // Enough games taken: paired no more, the ones held play on.
            leave(client, game).await.map_err(err)?;
            entered = false;
        }
        if !entered && seats.idle() {
            return Ok(seats.into_summary());
        }
        if entered && Instant::now() >= next_poll {
            let page = match api::page(url, game).await {
                Ok(page) => page,
                // The server may be restarting: read it again later, up to
                // as long as a reconnection would try.
                Err(e) if page_read.elapsed() < GIVE_UP_AFTER => {
                    eprintln!("parlor bot: reading the ladder: {e}");
                    next_poll = Instant::now() + POLL;
                    continue;
                }
                Err(e) => return Err(e),
            };
            page_read = Instant::now();
            for g in &page.playing {
                if let Some(i) = g.seats.iter().position(|s| s.eq_ignore_ascii_case(&me)) {
                    let seat = Seat(u8::try_from(i).unwrap_or(u8::MAX));
                    seats
                        .take(
                            client,
                            &g.room,
                            seat,
                            strategy,
                            Some(crate::client::client_seed()),
                        )
                        .await?;
                }
            }
            next_poll = Instant::now() + POLL;
        }
        // Out of the ladder, only the games held are waited for.
        let deadline = if entered {
            next_poll
        } else {
            Instant::now() + IDLE_WAIT
        };
        let msg = tokio::select! {
            _ = &mut stop => {
                // Stopping is not leaving: an entrant that goes away stays
                // listed (not connected) and is paired when it is back.
                if entered && until.leave_on_stop {
                    client
                        .request(&ClientMsg::LadderLeave { game }, |m| {
                            matches!(m, ServerMsg::LadderLeft { .. }).then_some(())
                        })
                        .await
                        .map_err(err)?;
                }
                return Ok(seats.into_summary());
            }
            got = tokio::time::timeout_at(deadline, client.recv()) => match got {
                Err(_) => continue,
                Ok(Err(e)) if e.is_dropped() => {
                    eprintln!("parlor bot: {e}; reconnecting");
                    let resumed = client.reconnect(url, &me).await.map_err(err)?;
                    seats.resumed(client, &resumed).await?;
                    next_poll = Instant::now();
                    continue;
                }
                Ok(msg) => msg.map_err(err)?,
            },
        };
        match msg {
            ServerMsg::LadderGame(s) if s.game == game => {
                seats
                    .take(
                        client,
                        &s.room,
                        s.seat,
                        strategy,
                        Some(crate::client::client_seed()),
                    )
                    .await?;
            }
            ServerMsg::Error {
                code: code @ (ErrorCode::LadderBotsOnly | ErrorCode::LadderOff),
                message,
                ..
            } => return Err(format!("{message} ({code})")),
            other => seats.on_msg(client, other, rng).await?,
        }
    }
}
