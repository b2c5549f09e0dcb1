//! A bot playing over the protocol: updates in, moves out. [`SeatBot`]
//! is one seat's player, fed the updates of its room; [`play_to_end`]
//! drives one on a connection that plays a single room, and
//! `crate::seats` several at once (an event's or a ladder's games).

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
    let mut bot = SeatBot::new(room.clone(), seat, strategy);
    loop {
        match client.recv().await? {
            ServerMsg::Update(u) if &u.room == room => match bot.on_update(&u, rng)? {
                Step::Wait => {}
                Step::Play(msg) => client.send(&msg).await?,
                Step::Over(outcome) => return Ok(outcome),
            },
            ServerMsg::Error { code, message, .. } if !passing(code) => {
                return Err(ClientError::Refused { code, message })
            }
            _ => {}
        }
    }
}

/// Refusals a playing bot rides over: a move that crossed another update
/// (the next update asks again), and being told to slow down.
pub fn passing(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::ActionStaleSeq
            | ErrorCode::ActionNotYourTurn
            | ErrorCode::RequestRateLimited
            | ErrorCode::ServerBusy
    )
}

/// What a seat's bot makes of an update.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Nothing to do: another seat is to act, or this position was
    /// answered already.
    Wait,
    /// Send this move.
    Play(ClientMsg),
    /// The match is over: how it ended (`None`: closed without a result).
    Over(Option<Outcome>),
}

/// One seat's bot in one room: its strategy (made at the first update,
/// when the game is known) and the last position it answered.
#[derive(Debug)]
pub struct SeatBot {
    room: RoomId,
    seat: Seat,
    strategy: Option<String>,
    bot: Option<AnyBot>,
    answered: Option<u64>,
}

impl SeatBot {
    /// A bot for `seat` in `room` playing `strategy` (default: the game's
    /// first).
    pub fn new(room: RoomId, seat: Seat, strategy: Option<&str>) -> Self {
        SeatBot {
            room,
            seat,
            strategy: strategy.map(str::to_owned),
            bot: None,
            answered: None,
        }
    }

    /// The seat it plays.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// Forgets the position it answered last: after a reconnection the
    /// move may never have reached the server, so the same position is
    /// answered again (a move that did arrive makes the repeat stale,
    /// which is ridden over).
    pub fn forget_answered(&mut self) {
        self.answered = None;
    }

    /// What to do after update `u` of this bot's room.
    pub fn on_update(&mut self, u: &Update, rng: &mut GameRng) -> Result<Step, ClientError> {
        if let Some(outcome) = u.outcome {
            return Ok(Step::Over(Some(outcome)));
        }
        if u.closed.is_some() {
            return Ok(Step::Over(None));
        }
        let bot = match &mut self.bot {
            Some(bot) => bot,
            None => self.bot.insert(make_bot(u.game, self.strategy.as_deref())?),
        };
        Ok(match decide(u, self.seat, bot, rng, &mut self.answered)? {
            Some(mv) => Step::Play(ClientMsg::Play {
                room: self.room.clone(),
                seat: self.seat,
                seq: u.seq,
                mv,
            }),
            None => Step::Wait,
        })
    }
}

/// The bot `strategy` of `game` (default: its first), or why there is
/// none.
pub fn make_bot(
    game: parlor_games::GameKind,
    strategy: Option<&str>,
) -> Result<AnyBot, ClientError> {
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
