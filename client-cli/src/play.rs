//! A person playing from the terminal.
//!
//! The terminal is read all the time, not only on the player's turn: a
//! line typed out of turn is answered "not your turn" and dropped, never
//! kept to be played blind later. Words that are not moves (`help`,
//! `last`, `resign`, `quit`, and `/say TEXT` or `/gg` to talk at the
//! table) work at any time, and Ctrl-C asks whether to resign or to
//! leave the seat for later.

use std::io::Write;

use parlor_games::{GameKind, Outcome, Seat};
use parlor_protocol::{ClientMsg, Clock, ErrorCode, RoomId, RoomStatus, ServerMsg, Update};
use serde_json::Value;
use tokio::sync::mpsc;
use uuid::Uuid;

use crate::chat::{self, ChatCommand};
use crate::client::{Client, ClientError};
use crate::command::{self, Command, LAST_SHOWN};
use crate::countdown::Countdown;
use crate::input::Input;
use crate::render::{self, Renderer};

/// What `parlor play` was asked to do.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// The game.
    pub game: GameKind,
    /// Display name.
    pub name: String,
    /// Join this room instead of creating one.
    pub room: Option<RoomId>,
    /// The seat wanted (default: the first free one; 0 in a new room).
    pub seat: Option<Seat>,
    /// Bot strategy for the other seats of a new room; `None` waits for people.
    pub vs: Option<String>,
    /// Seats of a new room.
    pub seats: Option<u8>,
    /// Game options of a new room.
    pub options: Value,
    /// Clock of a new room.
    pub clock: Option<Clock>,
    /// Take back seats held under this token instead.
    pub resume: Option<Uuid>,
    /// The server's URL, for the commands printed to join and resume.
    pub server: String,
    /// Whether the server lives inside this command (and dies with it).
    pub private: bool,
    /// Show the server's error codes beside refusals.
    pub verbose: bool,
}

impl PlayOptions {
    /// How to come back to `room` after leaving: the command to type, or,
    /// on a private server, that it cannot be done.
    pub fn comeback(&self, token: Uuid) -> String {
        if self.private {
            "This game runs on a private server inside this command, so it ends when you \
             leave and cannot be resumed. For games you can come back to, run `parlor-server` \
             and play with `--server`."
                .into()
        } else {
            format!(
                "To come back to your seat: parlor play {} --resume {token} --server {}",
                self.game, self.server
            )
        }
    }
}

/// How a game on the terminal ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The match ended with this outcome.
    Finished(Outcome),
    /// The room closed without a result.
    Closed,
    /// The player left; the seat is kept for `resume`.
    Left,
}

/// Why the game could not be played to its end.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// Talking to the server failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// Writing to the terminal failed.
    #[error("cannot write to the terminal: {0}")]
    Io(#[from] std::io::Error),
    /// The player's input ended mid-game.
    #[error("input ended before the game did. {0}")]
    InputClosed(String),
    /// The connection was lost mid-game.
    #[error("{0}")]
    Disconnected(String),
}

/// The state of the game on screen.
struct Table {
    room: RoomId,
    seat: Seat,
    renderer: Box<dyn Renderer>,
    /// The update shown last.
    current: Option<Update>,
    /// The move sent and the `seq` it answered, until the server takes or
    /// refuses it.
    sent: Option<(u64, Value)>,
    /// Every move so far in words, for `last`.
    history: Vec<String>,
    /// The question Ctrl-C asked is waiting for its answer.
    asking: bool,
    /// The player resigned: the final update is theirs.
    resigning: bool,
    countdown: Countdown,
}

impl Table {
    fn my_turn(&self) -> bool {
        self.current
            .as_ref()
            .is_some_and(|u| u.to_act.contains(self.seat))
    }

    /// Whether `u` came because the player's clock ran out: the player
    /// was to act, sent nothing, and `u` is the next step without them.
    fn timed_out(&self, u: &Update) -> bool {
        let Some(before) = &self.current else {
            return false;
        };
        // Whether the step was the player's: when only they could act, any
        // step; when others could too, one that took them out of `to_act`.
        let alone = before.to_act.len() == 1;
        let lost = match &u.outcome {
            Some(Outcome::Win { winners }) => !winners.contains(self.seat),
            Some(Outcome::Draw) => false,
            None => alone || !u.to_act.contains(self.seat),
        };
        before.to_act.contains(self.seat)
            && u.seq > before.seq
            && self.sent.as_ref().is_none_or(|(seq, _)| *seq != before.seq)
            && !self.resigning
            && lost
    }
}

/// Sets up the seat as asked, then plays it until the match ends, reading
/// what the player does from `input` and writing the board to `out`.
pub async fn play(
    client: &mut Client,
    opts: &PlayOptions,
    input: &mut mpsc::Receiver<Input>,
    out: &mut impl Write,
) -> Result<Ending, PlayError> {
    let (room, seat) = take_seat(client, opts, out).await?;
    play_seated(client, opts, room, seat, input, out).await
}

/// Plays `seat` of `room`, where the client already sits (a seek matched
/// or a challenge accepted seated it), until the match ends.
pub async fn play_seated(
    client: &mut Client,
    opts: &PlayOptions,
    room: RoomId,
    seat: Seat,
    input: &mut mpsc::Receiver<Input>,
    out: &mut impl Write,
) -> Result<Ending, PlayError> {
    writeln!(out, "You are seat {} in room {room}.", seat.0)?;
    writeln!(out, "{}", opts.comeback(client.token()))?;
    writeln!(out, "Type `help` for the commands.")?;
    let mut t = Table {
        room,
        seat,
        renderer: render::renderer(opts.game),
        current: None,
        sent: None,
        history: Vec::new(),
        asking: false,
        resigning: false,
        countdown: Countdown::default(),
    };
    loop {
        let reminder = t.countdown.next();
        tokio::select! {
            msg = client.recv() => {
                let msg = match msg {
                    Ok(msg) => msg,
                    Err(e) => {
                        return Err(PlayError::Disconnected(format!(
                            "{e}. {}",
                            opts.comeback(client.token())
                        )))
                    }
                };
                if let Some(end) = server_msg(client, opts, &mut t, msg, out).await? {
                    return Ok(end);
                }
            }
            event = input.recv() => {
                let event = event.unwrap_or(Input::Closed);
                if let Some(end) = player_input(client, opts, &mut t, event, out).await? {
                    return Ok(end);
                }
            }
            () = sleep_until(reminder), if reminder.is_some() => {
                if let Some(text) = t.countdown.fire() {
                    writeln!(out, "{text}")?;
                }
            }
        }
        out.flush()?;
    }
}

/// The client's account name (empty for a guest, whom nobody challenges).
fn client_account(client: &Client) -> &str {
    client.account().map_or("", |a| a.name.as_str())
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    if let Some(at) = at {
        tokio::time::sleep_until(at).await;
    }
}

/// Handles one message from the server; `Some` when the game is over.
async fn server_msg(
    client: &mut Client,
    opts: &PlayOptions,
    t: &mut Table,
    msg: ServerMsg,
    out: &mut impl Write,
) -> Result<Option<Ending>, PlayError> {
    match msg {
        ServerMsg::Update(u) if u.room == t.room => return show_update(opts, t, u, out),
        ServerMsg::Said { room, line } if room == t.room => {
            writeln!(out, "{}", chat::shown(&line))?;
        }
        ServerMsg::ChatHistory { room, lines, .. } if room == t.room => {
            for line in &lines {
                writeln!(out, "{}", chat::shown(line))?;
            }
        }
        // A chat refusal concerns no move: the move on its way stays so.
        ServerMsg::Error { code, message, .. } if chat::is_chat_refusal(code) => {
            let code = if opts.verbose {
                format!(" [{code}]")
            } else {
                String::new()
            };
            writeln!(out, "Chat refused: {message}{code}")?;
        }
        ServerMsg::Presence {
            seat: s, connected, ..
        } => {
            let state = if connected {
                "is back"
            } else {
                "lost the connection"
            };
            writeln!(out, "Seat {} {state}.", s.0)?;
        }
        // News from elsewhere, shown without leaving this game.
        ServerMsg::YourTurn {
            room, game, seat, ..
        } if room != t.room => {
            writeln!(
                out,
                "(It is your turn in room {room}, {game}, seat {}; `parlor games` lists your games.)",
                seat.0
            )?;
        }
        ServerMsg::ChallengeMade(info) if info.to.eq_ignore_ascii_case(client_account(client)) => {
            writeln!(
                out,
                "({} challenges you to {}; answer from another terminal with `parlor accept`.)",
                info.from, info.game
            )?;
        }
        ServerMsg::Error {
            code,
            message,
            detail,
            ..
        } => {
            let retry = t.sent.take();
            match code {
                // Another step came first (a seat threw to the crib at the
                // same time): the same move, asked for again, still holds.
                ErrorCode::ActionStaleSeq => {
                    if let (Some((_, mv)), Some(u)) = (retry, &t.current) {
                        if u.to_act.contains(t.seat) {
                            send_move(client, t, mv).await?;
                        }
                    }
                    return Ok(None);
                }
                ErrorCode::ServerShuttingDown => {
                    writeln!(out, "The server is shutting down.")?;
                    return Ok(None);
                }
                _ => {}
            }
            let said = match (&detail, &t.current) {
                (Some(d), Some(u)) => t.renderer.refusal(u, d),
                _ => None,
            };
            let said = said.unwrap_or(message);
            let code = if opts.verbose {
                format!(" [{code}]")
            } else {
                String::new()
            };
            writeln!(out, "Refused: {said}{code}")?;
            if t.my_turn() {
                writeln!(out, "Try again:")?;
            }
        }
        _ => {}
    }
    Ok(None)
}

fn show_update(
    opts: &PlayOptions,
    t: &mut Table,
    u: Update,
    out: &mut impl Write,
) -> Result<Option<Ending>, PlayError> {
    let timed_out = t.timed_out(&u);
    let new_step = t.current.as_ref().is_none_or(|c| u.seq > c.seq);
    // A waiting room's view is a provisional set-up (the deal is made when
    // the last seat is taken): the renderer never remembers it.
    let provisional = u.status == RoomStatus::Waiting;
    if !provisional {
        t.renderer.observe(&u);
    }
    let brief = t.renderer.brief(&u).filter(|_| !timed_out && !provisional);
    match &brief {
        Some(line) => writeln!(out, "{line}")?,
        None => writeln!(out, "\n{}", render::board(t.renderer.as_ref(), &u))?,
    }
    let last = t.renderer.last_move(&u);
    if new_step && u.seq > 0 {
        if let Some(m) = &last {
            t.history.push(format!("move {}: {m}", u.seq));
        }
    }
    // An answered move is done with once a new step shows it; but when
    // several seats were acting at once and the player still is, another
    // seat's step came first and the move will be refused as stale (and
    // sent again then).
    let simultaneous = t.current.as_ref().is_some_and(|c| c.to_act.len() > 1);
    if t.sent.as_ref().is_some_and(|(seq, _)| u.seq > *seq)
        && !(simultaneous && u.to_act.contains(t.seat))
    {
        t.sent = None;
    }
    // A step told in brief leaves the player's prompt and clock as they were.
    if brief.is_some() && t.my_turn() {
        t.current = Some(u);
        return Ok(None);
    }
    t.countdown.stop();
    if timed_out {
        match (&u.outcome, &last) {
            (Some(_), _) => writeln!(
                out,
                "You ran out of time: {} has no move to play for you, so you lose.",
                opts.game
            )?,
            (None, Some(m)) => writeln!(
                out,
                "You ran out of time, so a move was played for you: {m}."
            )?,
            (None, None) => writeln!(out, "You ran out of time, so a move was played for you.")?,
        }
    }
    if let Some(outcome) = &u.outcome {
        writeln!(out, "{}", render::outcome(&u, outcome))?;
        if let Some(changes) = crate::ratings::changes(&u) {
            writeln!(out, "{changes}")?;
        }
        return Ok(Some(Ending::Finished(*outcome)));
    }
    if u.closed == Some(parlor_protocol::Closed::Aborted) {
        writeln!(
            out,
            "The match was aborted: it has no result and does not count."
        )?;
        return Ok(Some(Ending::Closed));
    }
    if let Some(closed) = u.closed {
        writeln!(out, "The room closed without a result ({closed:?}).")?;
        return Ok(Some(Ending::Closed));
    }
    if u.to_act.contains(t.seat) {
        if t.sent.is_none() {
            writeln!(out, "{}", t.renderer.prompt(&u))?;
            if let Some(ms) = u.clocks.as_ref().and_then(|c| c.get(t.seat.index())) {
                writeln!(out, "You have {} to move.", render::clock(*ms))?;
                t.countdown.start(*ms);
            }
        }
    } else if u.status == RoomStatus::Playing {
        let waiting: Vec<String> = u
            .to_act
            .iter()
            .map(|s| match u.clocks.as_ref().and_then(|c| c.get(s.index())) {
                Some(ms) => format!("{} ({} left)", render::who(&u, s), render::clock(*ms)),
                None => render::who(&u, s),
            })
            .collect();
        writeln!(out, "Waiting for {}...", waiting.join(" and "))?;
    }
    // (A waiting room's board already says what it waits for.)
    t.current = Some(u);
    Ok(None)
}

async fn send_move(client: &mut Client, t: &mut Table, mv: Value) -> Result<(), PlayError> {
    let Some(u) = &t.current else { return Ok(()) };
    let seq = u.seq;
    client
        .send(&ClientMsg::Play {
            room: t.room.clone(),
            seat: t.seat,
            seq,
            mv: mv.clone(),
        })
        .await?;
    t.sent = Some((seq, mv));
    Ok(())
}

/// Handles what the player did; `Some` when they left the game.
async fn player_input(
    client: &mut Client,
    opts: &PlayOptions,
    t: &mut Table,
    event: Input,
    out: &mut impl Write,
) -> Result<Option<Ending>, PlayError> {
    let line = match event {
        Input::Closed => {
            return Err(PlayError::InputClosed(opts.comeback(client.token())));
        }
        Input::Interrupt if t.asking => return quit(client, opts, out),
        Input::Interrupt => {
            t.asking = true;
            writeln!(
                out,
                "\nLeave the game? Type `resign` to give it up (you lose), `quit` to leave and \
                 keep your seat for later, or just Enter to play on. (Ctrl-C again: quit.)"
            )?;
            return Ok(None);
        }
        Input::Line(line) => line,
    };
    let line = line.trim();
    if t.asking {
        t.asking = false;
        match line.to_lowercase().as_str() {
            "r" | "resign" => return resign(client, t, out).await,
            "q" | "quit" | "l" | "leave" => return quit(client, opts, out),
            _ => {
                writeln!(out, "Playing on.")?;
                return Ok(None);
            }
        }
    }
    if line.is_empty() {
        return Ok(None);
    }
    if let Some(said) = ChatCommand::read(line) {
        client.send(&said.message(&t.room)).await?;
        return Ok(None);
    }
    match Command::read(line) {
        Some(Command::Help) => {
            writeln!(out, "{}", command::help())?;
            writeln!(out, "{}", chat::HELP)?;
            if let Some(u) = t.current.as_ref().filter(|u| u.to_act.contains(t.seat)) {
                writeln!(out, "{}", t.renderer.prompt(u))?;
            }
            return Ok(None);
        }
        Some(Command::Last) => {
            if t.history.is_empty() {
                writeln!(out, "No move has been played yet.")?;
            }
            let skip = t.history.len().saturating_sub(LAST_SHOWN);
            for m in &t.history[skip..] {
                writeln!(out, "  {m}")?;
            }
            return Ok(None);
        }
        Some(Command::Resign) => return resign(client, t, out).await,
        Some(Command::Abort) => return abort(client, t, out).await,
        Some(Command::Quit) => return quit(client, opts, out),
        None => {}
    }
    let Some(u) = t.current.as_ref().filter(|u| u.to_act.contains(t.seat)) else {
        writeln!(
            out,
            "Not your turn: {line:?} was not played. Wait for the prompt."
        )?;
        return Ok(None);
    };
    if t.sent.is_some() {
        writeln!(
            out,
            "Not your turn: your move is on its way; {line:?} was not played."
        )?;
        return Ok(None);
    }
    match render::parse_move(t.renderer.as_ref(), u, line) {
        Ok(mv) => {
            t.countdown.stop();
            send_move(client, t, mv).await?;
        }
        Err(why) => writeln!(out, "{why}")?,
    }
    Ok(None)
}

async fn resign(
    client: &mut Client,
    t: &mut Table,
    out: &mut impl Write,
) -> Result<Option<Ending>, PlayError> {
    writeln!(out, "You resign.")?;
    t.resigning = true;
    client
        .send(&ClientMsg::Leave {
            room: t.room.clone(),
        })
        .await?;
    // The final update, with the outcome, ends the game.
    Ok(None)
}

/// Asks to abort the match: the final update (closed, aborted) ends the
/// game, or the server's refusal is shown.
async fn abort(
    client: &mut Client,
    t: &mut Table,
    out: &mut impl Write,
) -> Result<Option<Ending>, PlayError> {
    if !t.current.as_ref().is_some_and(|u| u.may_abort) {
        writeln!(
            out,
            "The match cannot be aborted now (only before your first move, and never in a \
             tournament or the ladder): `resign` gives it up."
        )?;
        return Ok(None);
    }
    writeln!(out, "You abort the match.")?;
    client
        .send(&ClientMsg::Abort {
            room: t.room.clone(),
        })
        .await?;
    Ok(None)
}

fn quit(
    client: &Client,
    opts: &PlayOptions,
    out: &mut impl Write,
) -> Result<Option<Ending>, PlayError> {
    writeln!(out, "You leave the game; your seat stays yours.")?;
    writeln!(out, "{}", opts.comeback(client.token()))?;
    Ok(Some(Ending::Left))
}

async fn take_seat(
    client: &mut Client,
    opts: &PlayOptions,
    out: &mut impl Write,
) -> Result<(RoomId, Seat), PlayError> {
    if let Some(token) = opts.resume {
        let seats = client.resume(token).await?;
        let Some(first) = seats
            .into_iter()
            .find(|s| opts.room.as_ref().is_none_or(|r| *r == s.room))
        else {
            return Err(ClientError::Protocol("no seat to resume".into()).into());
        };
        return Ok((first.room, first.seat));
    }
    let room = match &opts.room {
        Some(room) => room.clone(),
        None => {
            let room = client
                .request(
                    &ClientMsg::CreateRoom {
                        game: opts.game,
                        seats: opts.seats,
                        options: opts.options.clone(),
                        clock: opts.clock,
                        private: false,
                    },
                    |m| match m {
                        ServerMsg::RoomCreated { room, .. } => Some(room),
                        _ => None,
                    },
                )
                .await?;
            writeln!(out, "Created room {room}.")?;
            room
        }
    };
    let seat = client
        .request(
            &ClientMsg::Join {
                room: room.clone(),
                seat: opts.seat.or(opts.room.is_none().then_some(Seat(0))),
                client_seed: Some(crate::client::client_seed()),
            },
            |m| match m {
                ServerMsg::Joined { room: r, seat, .. } if r == room => Some(seat),
                _ => None,
            },
        )
        .await?;
    if opts.room.is_none() {
        match &opts.vs {
            Some(strategy) => {
                let (_, max) = opts.game.seat_range();
                let seats = opts.seats.unwrap_or(opts.game.seat_range().0).min(max);
                for other in (0..seats).map(Seat).filter(|s| *s != seat) {
                    client
                        .request(
                            &ClientMsg::AddBot {
                                room: room.clone(),
                                seat: Some(other),
                                strategy: Some(strategy.clone()),
                            },
                            |m| matches!(m, ServerMsg::BotAdded { .. }).then_some(()),
                        )
                        .await?;
                }
                writeln!(out, "Playing against the {strategy} bot.")?;
            }
            None => writeln!(
                out,
                "Waiting for opponents: they join with `parlor play {} --room {room} --server {}`.",
                opts.game, opts.server
            )?,
        }
    }
    Ok((room, seat))
}
