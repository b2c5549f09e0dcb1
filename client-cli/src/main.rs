//! `parlor`: play Parlor games in the terminal, run bots, and analyse
//! positions.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use parlor_cli::analysis::{self, ToolArgs};
use parlor_cli::play::{play, PlayOptions};
use parlor_cli::{bot, help, Client, ClientError};
use parlor_games::{GameKind, GameRng, Seat};
use parlor_protocol::{ClientMsg, Clock, MatchLog, RoomId, RoomStatus, ServerMsg};
use parlor_server::{Config, Server};
use serde_json::Value;
use uuid::Uuid;

/// Where `parlor-server` listens by default.
const DEFAULT_SERVER: &str = "ws://127.0.0.1:7878";

/// Play Parlor games in the terminal, run bots against a server, and use
/// each game's analysis tools (JSON in, JSON out).
#[derive(Debug, Parser)]
#[command(name = "parlor", version, after_help = help::game_commands())]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Play a game in the terminal against bots or people.
    #[command(after_help = parlor_cli::command::help())]
    Play(PlayArgs),
    /// Run a bot that plays one match over the protocol, then exits.
    Bot(BotArgs),
    /// List the rooms on a server.
    Rooms(RoomsArgs),
    /// Watch a room's match as a spectator, drawn as `play` draws it.
    Watch(WatchArgs),
    /// Show a finished match move by move.
    Replay(ReplayArgs),
    /// Check a finished match: its deal against the commitment, and every
    /// step against the rules (prints one JSON object; exit status 1 when
    /// a check fails).
    Verify(VerifyArgs),
    /// Analysis for any hosted game by name: `parlor analyze GAME TOOL`.
    Analyze {
        /// The game.
        game: GameKind,
        #[command(flatten)]
        tool: ToolArgs,
    },
    /// `parlor GAME TOOL [ARGS]`: the same as `parlor analyze GAME TOOL
    /// [ARGS]` (e.g. `parlor nimrod best-move 5 9`). The games are found
    /// at run time, so a new game needs no line here.
    #[command(external_subcommand)]
    Game(Vec<String>),
}

/// Runs one of the game's analysis tools (JSON in, JSON out).
#[derive(Debug, Parser)]
struct GameTool {
    #[command(flatten)]
    tool: ToolArgs,
}

/// Runs `parlor GAME TOOL [ARGS]`, where `words` starts with the game.
fn cmd_game(words: &[String]) -> Result<(), String> {
    let (name, rest) = words
        .split_first()
        .ok_or_else(|| "name a game or a command".to_owned())?;
    let game: GameKind = name.parse().map_err(|e| {
        format!("{e}; the commands are play, bot, rooms, watch, replay, verify and analyze")
    })?;
    let argv = std::iter::once(format!("parlor {game}")).chain(rest.iter().cloned());
    match GameTool::try_parse_from(argv) {
        Ok(t) => cmd_tool(game, &t.tool),
        // Help and usage go to the terminal as clap would print them.
        Err(e) => e.exit(),
    }
}

#[derive(Debug, clap::Args)]
struct ServerArg {
    /// Server URL. Without it, `play` uses a server on 127.0.0.1:7878 if
    /// one is running and otherwise starts a private one in-process (whose
    /// games end with the command and cannot be resumed).
    #[arg(long)]
    server: Option<String>,
    /// Play on a private server inside this command even if one runs on
    /// 127.0.0.1:7878.
    #[arg(long, conflicts_with = "server")]
    private: bool,
}

#[derive(Debug, clap::Args)]
struct PlayArgs {
    // The game; its help lists the hosted games.
    #[arg(help = help::play_game())]
    game: GameKind,
    #[command(flatten)]
    server: ServerArg,
    // Bot strategy for the other seats of a new room; the help lists every
    // game's bots, from the games.
    #[arg(long, help = help::play_vs())]
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
    /// Game options of a new room, as JSON (e.g. '{"piles": [5, 9]}';
    /// Mitsudomoe's '{"max_turns": 100}' sets Parlor's turn limit, after
    /// which the match is drawn).
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
    /// Show the server's error codes beside its refusals.
    #[arg(long)]
    verbose: bool,
}

#[derive(Debug, clap::Args)]
struct BotArgs {
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
struct WatchArgs {
    /// The room to watch.
    room: String,
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
}

#[derive(Debug, clap::Args)]
struct ReplayArgs {
    /// The room of a finished match.
    room: String,
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
    /// JSON lines (the header, each step with the public view after it,
    /// the outcome) instead of boards.
    #[arg(long, conflicts_with = "predict")]
    json: bool,
    /// Rummikub (two players): player 1's predicted win fraction after
    /// each move, counted exactly over every way the game could go on.
    #[arg(long)]
    predict: bool,
}

#[derive(Debug, clap::Args)]
struct VerifyArgs {
    /// The room of a finished match.
    room: String,
    /// Server URL.
    #[arg(long, default_value = DEFAULT_SERVER)]
    server: String,
}

/// Exit status of `verify` when a check fails; 2 is left for usage and
/// connection errors, as for every command, so a script can tell a
/// dishonest match from an unreachable server.
const EXIT_CHECK_FAILED: u8 = 1;

/// Exit status of usage and connection errors (clap's own, too).
const EXIT_ERROR: u8 = 2;

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("parlor: {msg}");
    ExitCode::from(EXIT_ERROR)
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
        // The one command with an exit status of its own: 1 for a failed check.
        Cmd::Verify(a) => return cmd_verify(a).await.unwrap_or_else(fail),
        Cmd::Play(a) => cmd_play(a).await,
        Cmd::Bot(a) => cmd_bot(a).await,
        Cmd::Rooms(a) => cmd_rooms(a).await,
        Cmd::Watch(a) => cmd_watch(a).await,
        Cmd::Replay(a) => cmd_replay(a).await,
        Cmd::Analyze { game, tool } => cmd_tool(game, &tool),
        Cmd::Game(words) => cmd_game(&words),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// The server to use: the one given, the local default if it answers, or
/// a private in-process one (so a newcomer's first game is one command).
async fn resolve_server(arg: ServerArg) -> Result<(String, Option<Server>), String> {
    if let Some(url) = arg.server {
        return Ok((url, None));
    }
    let default: SocketAddr = ([127, 0, 0, 1], 7878).into();
    if !arg.private && tokio::net::TcpStream::connect(default).await.is_ok() {
        return Ok((DEFAULT_SERVER.into(), None));
    }
    let server = Server::start(([127, 0, 0, 1], 0).into(), Config::default())
        .await
        .map_err(|e| format!("cannot start a local server: {e}"))?;
    if !arg.private {
        eprintln!("(No server on 127.0.0.1:7878, so this game runs on a private server inside this command.)");
    }
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
    let (url, local) = resolve_server(a.server).await?;
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
        server: url.clone(),
        private: local.is_some(),
        verbose: a.verbose,
    };
    let mut client = Client::connect(&url, &opts.name)
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    let mut input = parlor_cli::input::terminal();
    let mut stdout = std::io::stdout();
    let res = play(&mut client, &opts, &mut input, &mut stdout).await;
    let _ = stdout.flush();
    drop(client);
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
    let mut listed = false;
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
        let status = match r.status {
            RoomStatus::Waiting => "waiting",
            RoomStatus::Playing => "playing",
            RoomStatus::Finished => "finished",
        };
        let _ = writeln!(
            out,
            "{}  {:<10} {:<8}  {}",
            r.room,
            r.game.name(),
            status,
            seats.join(", ")
        );
        listed = true;
    }
    if listed {
        // Finished rooms are listed only until they close, 30 seconds
        // after the end; their logs stay available to `replay`.
        let _ = writeln!(
            out,
            "Join: parlor play GAME --room ROOM --server {s} · watch: parlor watch ROOM --server {s} \
             · a finished match: parlor replay ROOM --server {s}",
            s = a.server
        );
    }
    Ok(())
}

async fn cmd_watch(a: WatchArgs) -> Result<(), String> {
    let room = room_id(&a.room)?;
    let mut client = Client::connect(&a.server, "parlor-watch")
        .await
        .map_err(|e| format!("{}: {e}", a.server))?;
    let mut out = std::io::stdout();
    parlor_cli::watch::watch(&mut client, &room, &mut out).await
}

/// The log of the finished match in `room`, over the protocol as `name`.
async fn fetch_log(server: &str, room: &str, name: &str) -> Result<MatchLog, String> {
    let room = room_id(room)?;
    let mut client = Client::connect(server, name)
        .await
        .map_err(|e| format!("{server}: {e}"))?;
    client
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
        .map_err(|e| e.to_string())
}

async fn cmd_replay(a: ReplayArgs) -> Result<(), String> {
    let log = fetch_log(&a.server, &a.room, "parlor-replay").await?;
    let mut out = std::io::stdout().lock();
    if a.json {
        return parlor_cli::replay::print(&log, &mut out);
    }
    if !a.predict {
        return parlor_cli::replay::show(&log, &mut out);
    }
    let game = log.header.game;
    let (tool, input) = parlor_protocol::log_analysis(&log)
        .ok_or_else(|| format!("{game} offers no analysis of a finished match"))?
        .map_err(|e| e.to_string())?;
    analysis::run(game, tool, &input, &mut out)
}

async fn cmd_verify(a: VerifyArgs) -> Result<ExitCode, String> {
    let log = fetch_log(&a.server, &a.room, "parlor-verify").await?;
    let report = parlor_cli::verify::verify(&log);
    let text = serde_json::to_string_pretty(&report)
        .map_err(|e| format!("cannot write the report: {e}"))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").map_err(|e| format!("cannot write the report: {e}"))?;
    if !report.fair_deal {
        eprintln!(
            "parlor verify: note: this match was dealt before fair dealing, from a bare seed; \
             there is no commitment to check, only the replay"
        );
    }
    for f in &report.failures {
        eprintln!("parlor verify: the {} check failed: {f}", f.check().name());
    }
    Ok(if report.verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_CHECK_FAILED)
    })
}

fn cmd_tool(game: GameKind, a: &ToolArgs) -> Result<(), String> {
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdin());
    let input = analysis::input(game, a, std::io::stdin().lock(), terminal)?;
    let mut out = std::io::stdout().lock();
    analysis::run(game, &a.tool, &input, &mut out)
}
