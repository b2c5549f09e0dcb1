//! A bot playing over the protocol: updates in, moves out.

use parlor_games::{AnyBot, GameRng, Outcome, Seat};
use parlor_protocol::{ClientMsg, ErrorCode, RoomId, ServerMsg, Update};

use crate::client::{Client, ClientError};

/// Plays `seat` in `room` with the built-in strategy `strategy` (default:
/// the game's first) until the match ends; returns how it ended. A room
/// closed without a result (e.g. an aborted rated match) is an error
/// here; [`play_to_end`] tells it apart.
pub async fn play(
    client: &mut Client,
    room: &RoomId,
    seat: Seat,
    strategy: Option<&str>,
    rng: &mut GameRng,
) -> Result<Outcome, ClientError> {
    play_to_end(client, room, seat, strategy, rng)
        .await?
        .ok_or_else(|| ClientError::Protocol(format!("room {room} closed without a result")))
}

/// [`play`], with `None` when the room closed without a result. The bot
/// sees only the views the server sends this seat.
pub async fn play_to_end(
    client: &mut Client,
    room: &RoomId,
    seat: Seat,
    strategy: Option<&str>,
    rng: &mut GameRng,
) -> Result<Option<Outcome>, ClientError> {
    let mut answered: Option<u64> = None;
    let mut bot: Option<AnyBot> = None;
    loop {
        match client.recv().await? {
            ServerMsg::Update(u) if &u.room == room => {
                if let Some(outcome) = u.outcome {
                    return Ok(Some(outcome));
                }
                if u.closed.is_some() {
                    return Ok(None);
                }
                let bot = match &mut bot {
                    Some(bot) => bot,
                    None => bot.insert(make_bot(u.game, strategy)?),
                };
                if let Some(mv) = decide(&u, seat, bot, rng, &mut answered)? {
                    client
                        .send(&ClientMsg::Play {
                            room: room.clone(),
                            seat,
                            seq: u.seq,
                            mv,
                        })
                        .await?;
                }
            }
            ServerMsg::Error { code, message, .. } => match code {
                // A move crossed another update: the next update re-asks.
                ErrorCode::ActionStaleSeq | ErrorCode::ActionNotYourTurn => {}
                ErrorCode::RequestRateLimited | ErrorCode::ServerBusy => {}
                _ => return Err(ClientError::Refused { code, message }),
            },
            _ => {}
        }
    }
}

fn make_bot(game: parlor_games::GameKind, strategy: Option<&str>) -> Result<AnyBot, ClientError> {
    let name = strategy
        .or(game.strategies().first().copied())
        .unwrap_or_default();
    game.bot(name).ok_or_else(|| {
        ClientError::Protocol(format!(
            "{game} has no bot {name:?}; bots: {}",
            game.strategies().join(", ")
        ))
    })
}

/// The bot's move for update `u`, if `seat` must act and has not already
/// answered this position.
fn decide(
    u: &Update,
    seat: Seat,
    bot: &mut AnyBot,
    rng: &mut GameRng,
    answered: &mut Option<u64>,
) -> Result<Option<serde_json::Value>, ClientError> {
    if !u.to_act.contains(seat) || *answered == Some(u.seq) {
        return Ok(None);
    }
    let view = u
        .game
        .parse_view(&u.view)
        .map_err(|e| ClientError::Protocol(e.to_string()))?;
    let Some(mv) = bot.choose(seat, &view, rng) else {
        return Err(ClientError::Protocol(format!(
            "the bot found no move for {seat} at seq {}",
            u.seq
        )));
    };
    *answered = Some(u.seq);
    serde_json::to_value(&mv)
        .map(Some)
        .map_err(|e| ClientError::Protocol(e.to_string()))
}
