//! `parlor`: play Parlor games in the terminal, run bots, and analyse
//! positions.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use parlor_cli::analysis::{self, ToolArgs};
use parlor_cli::play::{play, PlayOptions};
use parlor_cli::{bot, Client, ClientError};
use parlor_games::{GameKind, GameRng, Seat};
use parlor_protocol::{ClientMsg, Clock, RoomId, ServerMsg};
use parlor_server::{Config, Server};
use serde_json::Value;
use uuid::Uuid;

/// Where `parlor-server` listens by default.
const DEFAULT_SERVER: &str = "ws://127.0.0.1:7878";

/// Play Parlor games in the terminal, run bots against a server, and use
/// each game's analysis tools (JSON in, JSON out).
#[derive(Debug, Parser)]
#[command(name = "parlor", version)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Play a game in the terminal against bots or people.
    Play(PlayArgs),
    /// Run a bot that plays one match over the protocol, then exits.
    Bot(BotArgs),
    /// List the rooms on a server.
    Rooms(RoomsArgs),
    /// Show a finished match move by move.
    Replay(ReplayArgs),
    /// Nimrod analysis: `lose-positions N`, `best-move A B`.
    Nimrod(ToolArgs),
    /// Rummikub Lite analysis, JSON on stdin: `check-table`, `outcomes`,
    /// `predict`, `replay`.
    Rummikub(ToolArgs),
    /// Cribbage analysis: `score 5H 5S 5C JD --start 5D`, `discard 5H ...
    /// [--dealer|--pone]`, or JSON on stdin.
    Cribbage(ToolArgs),
    /// Mitsudomoe analysis, JSON on stdin: `perft` (`{"depth": 3}`),
    /// `best-move` (`{"position": "...", "time_ms": 1000}`).
    Mitsudomoe(ToolArgs),
    /// Analysis for any hosted game by name: `parlor analyze GAME TOOL`.
    Analyze {
        /// The game.
        game: GameKind,
        #[command(flatten)]
        tool: ToolArgs,
    },
}

#[derive(Debug, clap::Args)]
struct ServerArg {
    /// Server URL. Without it, `play` uses a server on 127.0.0.1:7878 if
    /// one is running and otherwise starts a private one in-process.
    #[arg(long)]
    server: Option<String>,
}

#[derive(Debug, clap::Args)]
struct PlayArgs {
    /// The game: nimrod, rummikub, cribbage or mitsudomoe.
    game: GameKind,
    #[command(flatten)]
    server: ServerArg,
    /// Bot strategy for the other seats of a new room; `none` waits for
    /// people to join. Default: the game's default bot (optimal for Nimrod,
    /// greedy for Rummikub, expert for Cribbage, search for Mitsudomoe).
    #[arg(long)]
    vs: Option<String>,
    /// Join this room instead of creating one.
    #[arg(long)]
    room: Option<String>,
    /// The seat to take (0 moves first).
    #[arg(long)]
    seat: Option<u8>,
    /// Number of seats of a new room.
    #[arg(long)]
    seats: Option<u8>,
    /// Game options of a new room, as JSON (e.g. '{"piles": [5, 9]}').
    #[arg(long)]
    options: Option<String>,
    /// Seconds per move (a new room's clock).
    #[arg(long, conflicts_with = "main_time")]
    move_time: Option<u64>,
    /// Seconds per player for the whole game (a new room's clock).
    #[arg(long)]
    main_time: Option<u64>,
    /// Seconds added after each move, with --main-time.
    #[arg(long, requires = "main_time", default_value_t = 0)]
    increment: u64,
    /// Take back a seat after a dropped connection.
    #[arg(long)]
    resume: Option<Uuid>,
    /// Your name as others see it.
    #[arg(long, default_value = "player")]
    name: String,
}

#[derive(Debug, clap::Args)]
struct BotArgs {
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
    /// The bot's strategy (default: the game's strongest).
    #[arg(long)]
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

#[derive(Debug, clap::Args)]
struct RoomsArgs {
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct ReplayArgs {
    /// The room of a finished match.
    room: String,
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
    /// Rummikub (two players): player 1's predicted win fraction after
    /// each move, counted exactly over every way the game could go on.
    #[arg(long)]
    predict: bool,
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("parlor: {msg}");
    ExitCode::from(2)
}

fn room_id(s: &str) -> Result<RoomId, String> {
    RoomId::new(s).ok_or_else(|| format!("{s:?} is not a room id"))
}

fn json_arg(s: Option<&str>) -> Result<Value, String> {
    s.map_or(Ok(Value::Null), |s| {
        serde_json::from_str(s).map_err(|e| format!("--options is not valid JSON: {e}"))
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let res = match cli.cmd {
        Cmd::Play(a) => cmd_play(a).await,
        Cmd::Bot(a) => cmd_bot(a).await,
        Cmd::Rooms(a) => cmd_rooms(a).await,
        Cmd::Replay(a) => cmd_replay(a).await,
        Cmd::Nimrod(a) => cmd_tool(GameKind::Nimrod, &a),
        Cmd::Rummikub(a) => cmd_tool(GameKind::Rummikub, &a),
        Cmd::Cribbage(a) => cmd_tool(GameKind::Cribbage, &a),
        Cmd::Mitsudomoe(a) => cmd_tool(GameKind::Mitsudomoe, &a),
        Cmd::Analyze { game, tool } => cmd_tool(game, &tool),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// The server to use: the one given, the local default if it answers, or
/// a private in-process one (so a newcomer's first game is one command).
async fn resolve_server(arg: Option<String>) -> Result<(String, Option<Server>), String> {
    if let Some(url) = arg {
        return Ok((url, None));
    }
    let default: SocketAddr = ([127, 0, 0, 1], 7878).into();
    if tokio::net::TcpStream::connect(default).await.is_ok() {
        return Ok((DEFAULT_SERVER.into(), None));
    }
    let server = Server::start(([127, 0, 0, 1], 0).into(), Config::default())
        .await
        .map_err(|e| format!("cannot start a local server: {e}"))?;
    eprintln!(
        "(No server on 127.0.0.1:7878, so this game runs on a private server inside this command.)"
    );
    Ok((server.url(), Some(server)))
}

async fn cmd_play(a: PlayArgs) -> Result<(), String> {
    let clock = match (a.move_time, a.main_time) {
        (Some(s), _) => Some(Clock::PerMove {
            ms: s.saturating_mul(1000),
        }),
        (None, Some(m)) => Some(Clock::Increment {
            main_ms: m.saturating_mul(1000),
            increment_ms: a.increment.saturating_mul(1000),
        }),
        (None, None) => None,
    };
    let vs = match a.vs.as_deref() {
        Some("none") => None,
        Some(s) => Some(s.to_owned()),
        None => a.game.strategies().first().map(|s| (*s).to_owned()),
    };
    let opts = PlayOptions {
        game: a.game,
        name: a.name,
        room: a.room.as_deref().map(room_id).transpose()?,
        seat: a.seat.map(Seat),
        vs,
        seats: a.seats,
        options: json_arg(a.options.as_deref())?,
        clock,
        resume: a.resume,
    };
    let (url, local) = resolve_server(a.server.server).await?;
    let mut client = Client::connect(&url, &opts.name)
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    let stdin = tokio::io::BufReader::new(tokio::io::stdin());
    let mut stdout = std::io::stdout();
    let res = play(&mut client, &opts, stdin, &mut stdout).await;
    let _ = stdout.flush();
    if let Some(server) = local {
        let _ = server.stop().await;
    }
    res.map(|_| ()).map_err(|e| e.to_string())
}

async fn cmd_bot(a: BotArgs) -> Result<(), String> {
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

async fn cmd_rooms(a: RoomsArgs) -> Result<(), String> {
    let mut client = Client::connect(&a.server, "parlor-rooms")
        .await
        .map_err(|e| format!("{}: {e}", a.server))?;
    // Every page, in order: the server sends at most 200 rooms a page.
    let mut rooms = Vec::new();
    let mut cursor = None;
    loop {
        let ask = ClientMsg::ListRooms {
            game: None,
            status: None,
            cursor: cursor.take(),
            limit: None,
        };
        let (page, next) = client
            .request(&ask, |m| match m {
                ServerMsg::Rooms { rooms, next } => Some((rooms, next)),
                _ => None,
            })
            .await
            .map_err(|e| e.to_string())?;
        rooms.extend(page);
        match next {
            Some(n) => cursor = Some(n),
            None => break,
        }
    }
    let mut out = std::io::stdout();
    if a.json {
        let _ = writeln!(out, "{}", serde_json::json!(rooms));
        return Ok(());
    }
    if rooms.is_empty() {
        let _ = writeln!(
            out,
            "No public rooms. Start one: parlor play nimrod --server {}",
            a.server
        );
    }
    for r in rooms {
        let seats: Vec<String> = r
            .seats
            .iter()
            .map(|s| match &s.occupant {
                parlor_protocol::Occupant::Empty => "(free)".to_owned(),
                parlor_protocol::Occupant::Player { name, .. } => name.clone(),
                parlor_protocol::Occupant::Bot { strategy } => format!("{strategy} bot"),
            })
            .collect();
        let _ = writeln!(
            out,
            "{}  {:<9} {:?}  {}",
            r.room,
            r.game.name(),
            r.status,
            seats.join(", ")
        );
    }
    Ok(())
}

async fn cmd_replay(a: ReplayArgs) -> Result<(), String> {
    let room = room_id(&a.room)?;
    let mut client = Client::connect(&a.server, "parlor-replay")
        .await
        .map_err(|e| format!("{}: {e}", a.server))?;
    let log = client
        .request(
            &ClientMsg::GetLog {
                room,
                predict: false,
            },
            |m| match m {
                ServerMsg::Log(log) => Some(log),
                _ => None,
            },
        )
        .await
        .map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    if !a.predict {
        return parlor_cli::replay::print(&log, &mut out);
    }
    let game = log.header.game;
    let (tool, input) = parlor_protocol::log_analysis(&log)
        .ok_or_else(|| format!("{game} offers no analysis of a finished match"))?
        .map_err(|e| e.to_string())?;
    analysis::run(game, tool, &input, &mut out)
}

fn cmd_tool(game: GameKind, a: &ToolArgs) -> Result<(), String> {
    let input = match analysis::input_from_args(game, a)? {
        Some(v) => v,
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            let v: Value = serde_json::from_str(&text)
                .map_err(|e| format!("{game} {}: the input is not valid JSON: {e}", a.tool))?;
            analysis::apply_flags(game, a, v)
        }
    };
    let mut out = std::io::stdout().lock();
    analysis::run(game, &a.tool, &input, &mut out)
}
