//! `parlor bot`: an automated player for one match over the protocol.

use parlor_cli::{bot, help, Client, ClientError};
use parlor_games::{GameKind, GameRng, Seat};
use parlor_protocol::{ClientMsg, ServerMsg};

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
    #[arg(long, conflicts_with = "create")]
    room: Option<String>,
    /// Create a room of this game (its id is printed as JSON first).
    #[arg(long)]
    create: Option<GameKind>,
    /// The seat to take (default: the first free one).
    #[arg(long)]
    seat: Option<u8>,
    /// Seats of a created room.
    #[arg(long)]
    seats: Option<u8>,
    /// Options of a created room, as JSON.
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
    let mut client = Client::connect(&a.server, &a.name)
        .await
        .map_err(|e| format!("{}: {e}", a.server))?;
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
                        clock: None,
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
    let mut rng = GameRng::from_seed(a.seed.unwrap_or_else(rand::random));
    let outcome = bot::play(&mut client, &room, seat, a.strategy.as_deref(), &mut rng)
        .await
        .map_err(err)?;
    println!(
        "{}",
        serde_json::json!({ "room": room, "seat": seat, "outcome": outcome })
    );
    Ok(())
}
