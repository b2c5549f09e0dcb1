//! One file per `parlor` command: its arguments and its body. `main.rs`
//! only parses the command line and dispatches here; what several commands
//! share (the server to reach, room ids, exit statuses) is in this file.

pub mod account;
pub mod bot;
pub mod challenge;
pub mod clock;
pub mod found;
pub mod game_tool;
pub mod games;
pub mod ladder;
pub mod leaderboard;
pub mod moderation;
pub mod play;
pub mod player;
pub mod replay;
pub mod rooms;
pub mod seek;
pub mod tournament;
pub mod verify;
pub mod verify_ratings;
pub mod verify_tournament;
pub mod watch;

use std::net::SocketAddr;
use std::process::ExitCode;

use parlor_cli::Client;
use parlor_protocol::{ClientMsg, MatchLog, RoomId, ServerMsg};
use parlor_server::{Config, Server};
use serde_json::Value;

/// Where `parlor-server` listens by default.
pub const DEFAULT_SERVER: &str = "ws://127.0.0.1:7878";

/// Exit status of usage and connection errors (clap's own, too).
const EXIT_ERROR: u8 = 2;

/// Prints `msg` as the command's error and gives the usage/connection exit
/// status.
pub fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("parlor: {msg}");
    ExitCode::from(EXIT_ERROR)
}

/// The server of a command that acts as an account: `--server`, else the
/// one `parlor login` kept a token for, else the local default. The kept
/// token is sent in `hello` when it belongs to that server (and `--token`
/// did not give another).
pub fn account_server(server: Option<String>) -> String {
    let kept = parlor_cli::account::load_token();
    let url = server
        .or_else(|| kept.as_ref().map(|(s, _, _)| s.clone()))
        .unwrap_or_else(|| DEFAULT_SERVER.into());
    use_kept_token(&url);
    url
}

/// Plays as the account `parlor login` kept a token for, if it belongs to
/// the server at `url` (and `--token` did not give another).
pub fn use_kept_token(url: &str) {
    if let Some((s, _, token)) = parlor_cli::account::load_token() {
        if s == url {
            parlor_cli::client::use_token(token);
        }
    }
}

/// A room id typed by a person, or why it is not one.
pub fn room_id(s: &str) -> Result<RoomId, String> {
    RoomId::new(s).ok_or_else(|| format!("{s:?} is not a room id"))
}

/// A room's `--options` JSON (null when not given).
pub fn json_arg(s: Option<&str>) -> Result<Value, String> {
    s.map_or(Ok(Value::Null), |s| {
        serde_json::from_str(s).map_err(|e| format!("--options is not valid JSON: {e}"))
    })
}

/// Which server a command that may start its own should use.
#[derive(Debug, clap::Args)]
pub struct ServerArg {
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

/// The server to use: the one given, the local default if it answers, or
/// a private in-process one (so a newcomer's first game is one command).
pub async fn resolve_server(arg: ServerArg) -> Result<(String, Option<Server>), String> {
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

/// The log of the finished match in `room`, over the protocol as `name`.
pub async fn fetch_log(server: &str, room: &str, name: &str) -> Result<MatchLog, String> {
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
