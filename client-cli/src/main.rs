//! `parlor`: play Parlor games in the terminal, run bots, and analyse
//! positions. This file parses the command line; each command's arguments
//! and body are in `cmd/`, one file a command.

mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use parlor_cli::analysis::ToolArgs;
use parlor_cli::help;
use parlor_games::GameKind;

/// Play Parlor games in the terminal, run bots against a server, and use
/// each game's analysis tools (JSON in, JSON out).
#[derive(Debug, Parser)]
#[command(name = "parlor", version, after_help = help::game_commands())]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    /// For wss:// servers: also trust the CA certificate(s) in this PEM
    /// file (e.g. a LAN's own CA, or a test's), beside the public roots.
    #[arg(long, global = true, value_name = "FILE", env = "PARLOR_CA_CERT")]
    ca_cert: Option<std::path::PathBuf>,
    /// An API token: every connection to a server then plays as its
    /// account (sent in `hello`), and `parlor token` uses it.
    #[arg(long, global = true, env = parlor_cli::account::TOKEN_ENV, hide_env_values = true)]
    token: Option<String>,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Play a game in the terminal against bots or people.
    #[command(after_help = parlor_cli::command::help())]
    Play(cmd::play::Args),
    /// Look for opponents (rated or casual), then play the match found.
    #[command(after_help = parlor_cli::command::help())]
    Seek(cmd::seek::Args),
    /// Challenge an account to a match and play it if they accept.
    #[command(after_help = parlor_cli::command::help())]
    Challenge(cmd::challenge::Args),
    /// Wait for a challenge to you, answer it, and play it if accepted.
    #[command(after_help = parlor_cli::command::help())]
    Accept(cmd::challenge::AcceptArgs),
    /// List your unfinished games (needs an account).
    Games(cmd::games::Args),
    /// Run a bot: one match in a room, or several found by seeking or
    /// by accepting challenges.
    Bot(cmd::bot::Args),
    /// List the rooms on a server.
    Rooms(cmd::rooms::Args),
    /// Watch a room's match as a spectator, drawn as `play` draws it.
    Watch(cmd::watch::Args),
    /// Show a finished match move by move.
    Replay(cmd::replay::Args),
    /// Check a finished match: its deal against the commitment, and every
    /// step against the rules (prints one JSON object; exit status 1 when
    /// a check fails).
    Verify(cmd::verify::Args),
    /// Re-derive a server's ratings from its public ledger and match
    /// logs: the hash chain, every rating folded again, every match
    /// replayed (prints one JSON object; exit status 1 when a check fails).
    VerifyRatings(cmd::verify_ratings::Args),
    /// Re-check a finished tournament from its page, its revealed seed
    /// and its games' logs: pairings, deals, results, standings (prints
    /// one JSON object; exit status 1 when a check fails).
    VerifyTournament(cmd::verify_tournament::Args),
    /// List the tournaments on a server: upcoming, running, finished.
    Tournaments(cmd::tournament::ListArgs),
    /// Make, enter, leave or show a tournament.
    #[command(subcommand)]
    Tournament(cmd::tournament::TournamentCmd),
    /// A game's leaderboard: the best established ratings.
    Leaderboard(cmd::leaderboard::Args),
    /// A game's bot ladder: its entrants best first, games being played,
    /// the latest results.
    Ladder(cmd::ladder::Args),
    /// A moderator's actions on accounts (close, mark, mute, play-ban,
    /// roles) and the moderation log; a refusal exits with status 1.
    #[command(name = "mod", subcommand)]
    Mod(cmd::moderation::ModCmd),
    /// An account's ratings per game, record and last rated games.
    Player(cmd::player::Args),
    /// Make an account on a server.
    Register(cmd::account::RegisterArgs),
    /// Log in: keep an API token for this account in your config directory.
    Login(cmd::account::LoginArgs),
    /// Log out: revoke the kept token and forget it.
    Logout,
    /// Make, list and revoke API tokens (for bots and scripts).
    #[command(subcommand)]
    Token(cmd::account::TokenCmd),
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
    if let Some(path) = &cli.ca_cert {
        if let Err(e) = parlor_cli::tls::trust_ca_file(path) {
            return cmd::fail(e);
        }
    }
    if let Some(token) = &cli.token {
        parlor_cli::client::use_token(token.clone());
    }
    let res = match cli.cmd {
        // The commands with an exit status of their own: 1 for a failed check.
        Cmd::Verify(a) => return cmd::verify::run(a).await.unwrap_or_else(cmd::fail),
        Cmd::VerifyRatings(a) => {
            return cmd::verify_ratings::run(a).await.unwrap_or_else(cmd::fail)
        }
        Cmd::VerifyTournament(a) => {
            return cmd::verify_tournament::run(a)
                .await
                .unwrap_or_else(cmd::fail)
        }
        Cmd::Mod(c) => return cmd::moderation::run(c).await.unwrap_or_else(cmd::fail),
        Cmd::Challenge(a) => return cmd::challenge::run(a).await.unwrap_or_else(cmd::fail),
        Cmd::Play(a) => cmd::play::run(a).await,
        Cmd::Seek(a) => cmd::seek::run(a).await,
        Cmd::Accept(a) => cmd::challenge::accept(a).await,
        Cmd::Games(a) => cmd::games::run(a).await,
        Cmd::Bot(a) => cmd::bot::run(a).await,
        Cmd::Rooms(a) => cmd::rooms::run(a).await,
        Cmd::Watch(a) => cmd::watch::run(a).await,
        Cmd::Replay(a) => cmd::replay::run(a).await,
        Cmd::Tournaments(a) => cmd::tournament::list(a).await,
        Cmd::Tournament(c) => cmd::tournament::run(c).await,
        Cmd::Leaderboard(a) => cmd::leaderboard::run(a).await,
        Cmd::Ladder(a) => cmd::ladder::run(a).await,
        Cmd::Player(a) => cmd::player::run(a).await,
        Cmd::Register(a) => cmd::account::register(a).await,
        Cmd::Login(a) => cmd::account::login(a).await,
        Cmd::Logout => cmd::account::logout().await,
        Cmd::Token(c) => cmd::account::token(c, cli.token).await,
        Cmd::Analyze { game, tool } => cmd::game_tool::run(game, &tool),
        Cmd::Game(words) => cmd::game_tool::run_words(&words),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => cmd::fail(e),
    }
}
