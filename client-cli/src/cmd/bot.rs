//! `parlor bot`: an automated player over the protocol, for one match in
//! a room, for a series found by seeking or by accepting challenges, for
//! every game of a tournament, or on a game's bot ladder.

use parlor_cli::lobby::{self, Seated};
use parlor_cli::series::Summary;
use parlor_cli::tournament::{player, text};
use parlor_cli::{bot, help, Client, ClientError};
use parlor_games::{GameKind, GameRng, Seat};
use parlor_protocol::{ClientMsg, DeclineReason, ServerMsg};

use super::clock::ClockArgs;
use super::{json_arg, room_id, DEFAULT_SERVER};

/// `parlor bot`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
    // The bot's strategy; the help lists every game's bots, from the games.
    #[arg(long, help = help::bot_strategy())]
    strategy: Option<String>,
    /// Join this room.
    #[arg(long, conflicts_with_all = ["create", "seek", "accept_challenges", "tournament", "ladder"])]
    room: Option<String>,
    /// Play every game of this tournament (entering it first if it has
    /// not started), then print the final standings; needs the bot's
    /// account (--token).
    #[arg(long, conflicts_with_all = ["create", "seek", "accept_challenges", "ladder"])]
    tournament: Option<String>,
    /// Enter this game's bot ladder and play every game it gives (several
    /// at once) until --games are taken and played (then it leaves the
    /// ladder) or Ctrl-C (it stays entered, listed as not connected, and
    /// is paired again when it is back; see --leave); prints a JSON
    /// summary. Needs the bot's account (--token).
    #[arg(long, conflicts_with_all = ["create", "seek", "accept_challenges"])]
    ladder: Option<GameKind>,
    /// With --ladder: leave the ladder on Ctrl-C too (off its table until
    /// it enters again).
    #[arg(long, requires = "ladder")]
    leave: bool,
    /// With --tournament: print the standings as JSON, for scripts.
    #[arg(long, requires = "tournament")]
    json: bool,
    /// Find opponents by seeking this game, again after each match, until
    /// --games are played; prints a JSON summary.
    #[arg(long, conflicts_with_all = ["create", "accept_challenges"])]
    seek: Option<GameKind>,
    /// Wait for challenges to the bot's account (--token) and accept the
    /// ones its strategy can play, until --games are played; prints a JSON
    /// summary.
    #[arg(long, conflicts_with = "create")]
    accept_challenges: bool,
    /// Matches to play with --seek or --accept-challenges (default 1), or
    /// with --ladder (default: until Ctrl-C).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    games: Option<u32>,
    /// Rated seeks (the bot's account needs a token).
    #[arg(long, requires = "seek")]
    rated: bool,
    /// The clock of a created room or a seek.
    #[command(flatten)]
    clock: ClockArgs,
    /// Create a room of this game (its id is printed as JSON first).
    #[arg(long)]
    create: Option<GameKind>,
    /// The seat to take (default: the first free one).
    #[arg(long)]
    seat: Option<u8>,
    /// Seats of a created room or a seek.
    #[arg(long)]
    seats: Option<u8>,
    /// Options of a created room or a seek, as JSON.
    #[arg(long)]
    options: Option<String>,
    /// Seed for the bot's own random choices (default: random).
    #[arg(long)]
    seed: Option<u64>,
    /// The bot's name as others see it.
    #[arg(long, default_value = "bot")]
    name: String,
}

/// Runs `parlor bot`.
pub async fn run(a: Args) -> Result<(), String> {
    // The modes that play as an account do so as the one `parlor login`
    // kept (for this server) unless `--token` gives another.
    if a.tournament.is_some() || a.ladder.is_some() || a.seek.is_some() || a.accept_challenges {
        super::use_kept_token(&a.server);
    }
    let mut client = Client::connect(&a.server, &a.name)
        .await
        .map_err(|e| format!("{}: {e}", a.server))?;
    let mut rng = GameRng::from_seed(a.seed.unwrap_or_else(rand::random));
    if let Some(id) = &a.tournament {
        return tournament(&mut client, &a, id, &mut rng).await;
    }
    if let Some(game) = a.ladder {
        let stop = async {
            // No Ctrl-C handler (an unusual host): play until --games.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        let summary = parlor_cli::ladder::player::play_ladder(
            &mut client,
            &a.server,
            game,
            a.strategy.as_deref(),
            parlor_cli::ladder::player::Until {
                games: a.games,
                leave_on_stop: a.leave,
            },
            &mut rng,
            stop,
        )
        .await?;
        let text = serde_json::to_string(&summary).map_err(|e| e.to_string())?;
        println!("{text}");
        return Ok(());
    }
    if a.seek.is_some() || a.accept_challenges {
        let summary = series(&mut client, &a, &mut rng).await?;
        let text = serde_json::to_string(&summary).map_err(|e| e.to_string())?;
        println!("{text}");
        return Ok(());
    }
    let err = |e: ClientError| e.to_string();
    let room = match (&a.room, a.create) {
        (Some(room), _) => room_id(room)?,
        (None, Some(game)) => {
            let room = client
                .request(
                    &ClientMsg::CreateRoom {
                        game,
                        seats: a.seats,
                        options: json_arg(a.options.as_deref())?,
                        clock: a.clock.clock(),
                        private: false,
                    },
                    |m| match m {
                        ServerMsg::RoomCreated { room, .. } => Some(room),
                        _ => None,
                    },
                )
                .await
                .map_err(err)?;
            println!("{}", serde_json::json!({ "room": room }));
            room
        }
        (None, None) => {
            return Err("give --room ID to join a room or --create GAME to open one".into())
        }
    };
    let joined = room.clone();
    // `joined` comes before the room's update, which the bot loop then reads.
    let seat = client
        .request(
            &ClientMsg::Join {
                room: room.clone(),
                seat: a.seat.map(Seat),
                client_seed: Some(parlor_cli::client::client_seed()),
            },
            |m| match m {
                ServerMsg::Joined { room: r, seat, .. } if r == joined => Some(seat),
                _ => None,
            },
        )
        .await
        .map_err(err)?;
    let outcome = bot::play_to_end(&mut client, &room, seat, a.strategy.as_deref(), &mut rng)
        .await
        .map_err(err)?;
    println!(
        "{}",
        serde_json::json!({ "room": room, "seat": seat, "outcome": outcome })
    );
    Ok(())
}

/// Plays every game of tournament `id` and prints the final standings.
async fn tournament(
    client: &mut Client,
    a: &Args,
    id: &str,
    rng: &mut GameRng,
) -> Result<(), String> {
    let me = client
        .account()
        .map(|acc| acc.name.clone())
        .ok_or("--tournament needs the bot's account: give --token or log in with parlor login")?;
    let token = parlor_cli::client::token()
        .ok_or("--tournament needs the bot's account: give --token or log in with parlor login")?;
    player::enter(&a.server, token, id, &me).await?;
    let (page, played) =
        player::play_event(client, &a.server, id, a.strategy.as_deref(), rng).await?;
    if a.json {
        let v = serde_json::json!({
            "tournament": page.id,
            "standings": page.standings,
            "played": played,
        });
        println!("{v}");
    } else {
        print!("{}", text::standings(&page));
        println!(
            "{me} played {} games: {} won, {} drawn, {} lost.",
            played.games, played.wins, played.draws, played.losses
        );
    }
    Ok(())
}

/// Plays `--games` matches found by seeking or by accepting challenges.
/// A dropped connection is made again and resumed: a match being played
/// goes on, a seek is sent again (the server forgets it with its
/// connection).
async fn series(client: &mut Client, a: &Args, rng: &mut GameRng) -> Result<Summary, String> {
    let err = |e: ClientError| e.to_string();
    if a.accept_challenges && client.account().is_none() {
        return Err("--accept-challenges needs the bot's account: give --token".into());
    }
    let mut summary = Summary::default();
    while summary.games < a.games.unwrap_or(1) {
        let seated = match a.seek {
            Some(game) => {
                let msg = ClientMsg::Seek {
                    game,
                    seats: a.seats,
                    options: json_arg(a.options.as_deref())?,
                    clock: a.clock.clock(),
                    rated: a.rated,
                    bots: false,
                    bots_after_ms: None,
                    client_seed: Some(parlor_cli::client::client_seed()),
                };
                let found = match lobby::start_seek(client, &msg).await {
                    Ok(seek) => lobby::wait_matched(client, seek).await,
                    Err(e) => Err(e),
                };
                match found {
                    Ok(Some(seated)) => seated,
                    // Lost by the server: seek again.
                    Ok(None) => continue,
                    Err(e) if e.is_dropped() => {
                        reconnect(client, a, e).await?;
                        continue;
                    }
                    Err(e) => return Err(err(e)),
                }
            }
            None => match next_accepted(client, a.strategy.as_deref()).await {
                Ok(seated) => seated,
                Err(e) if e.is_dropped() => {
                    reconnect(client, a, e).await?;
                    continue;
                }
                Err(e) => return Err(err(e)),
            },
        };
        let Seated { room, seat } = seated;
        let outcome = loop {
            match bot::play_to_end(client, &room, seat, a.strategy.as_deref(), rng).await {
                Ok(outcome) => break outcome,
                // The seat comes back with the resume token; play on.
                Err(e) if e.is_dropped() => reconnect(client, a, e).await?,
                Err(e) => return Err(err(e)),
            }
        };
        summary.record(room, seat, outcome);
    }
    Ok(summary)
}

/// Connects `client` again after `dropped` and resumes its seats (see
/// [`parlor_cli::reconnect`]).
async fn reconnect(client: &mut Client, a: &Args, dropped: ClientError) -> Result<(), String> {
    eprintln!("parlor bot: {dropped}; reconnecting");
    client
        .reconnect(&a.server, &a.name)
        .await
        .map(drop)
        .map_err(|e| format!("{}: {e}", a.server))
}

/// Waits for a challenge to the bot's account that `strategy` can play,
/// accepts it and returns the seat; declines the others (`game`: the
/// strategy is not one of that game's bots).
async fn next_accepted(client: &mut Client, strategy: Option<&str>) -> Result<Seated, ClientError> {
    loop {
        match client.recv().await? {
            ServerMsg::ChallengeMade(info) if lobby::is_incoming(client, &info) => {
                let playable = strategy.is_none_or(|s| info.game.bot(s).is_some());
                if !playable {
                    client
                        .send(&ClientMsg::Decline {
                            challenge: info.challenge,
                            reason: DeclineReason::Game,
                        })
                        .await?;
                    continue;
                }
                if let Some(seated) = lobby::accept(client, info.challenge).await? {
                    return Ok(seated);
                }
            }
            ServerMsg::Error { code, message, .. } if !lobby::ignorable(code) => {
                return Err(ClientError::Refused { code, message })
            }
            _ => {}
        }
    }
}
