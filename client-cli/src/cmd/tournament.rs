//! `parlor tournaments` (the list) and `parlor tournament create | join |
//! leave | show`: events on a server. Creating, entering and leaving act
//! as an account (`--token`, or the one `parlor login` kept).

use parlor_cli::localtime::Zone;
use parlor_cli::tournament::api::{self, Entry};
use parlor_cli::tournament::text;
use parlor_competition::tournament::Format;
use parlor_games::GameKind;
use parlor_protocol::{EntrantKind, NewTournament};

use super::account_server;
use super::clock::ClockArgs;

/// When an event starts if neither `--starts-in` nor `--starts-at` says:
/// five minutes leaves time to announce it and for players to enter.
const DEFAULT_START_MS: u64 = 5 * 60 * 1000;

/// `parlor tournaments`' arguments.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Print the server's answer as JSON, for scripts.
    #[arg(long)]
    json: bool,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
}

/// `parlor tournament`'s subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum TournamentCmd {
    /// Make an event (prints its id); you do not enter it by making it.
    Create(CreateArgs),
    /// Enter an event before it starts.
    Join(IdArgs),
    /// Leave an event: before it starts, or forfeiting the games left.
    Leave(IdArgs),
    /// An event's standings and crosstable (--json: the whole page).
    Show(ShowArgs),
}

/// `parlor tournament create`'s arguments.
#[derive(Debug, clap::Args)]
pub struct CreateArgs {
    /// The game.
    #[arg(long)]
    game: GameKind,
    /// How players are paired: round-robin, swiss or arena.
    #[arg(long, value_parser = format_arg)]
    format: Format,
    /// Round robin: cycles (every pair meets once in each); Swiss: rounds.
    #[arg(long)]
    rounds: Option<u32>,
    /// Arena: its length in minutes.
    #[arg(long)]
    minutes: Option<u32>,
    /// The clock of its games (default: the game's rated clock).
    #[command(flatten)]
    clock: ClockArgs,
    /// Rate its games.
    #[arg(long)]
    rated: bool,
    /// Each pairing plays the same deal from both seats.
    #[arg(long)]
    duplicate: bool,
    /// Start after this long: 90s, 5m, 2h, 1d (a bare number is seconds;
    /// default 5m).
    #[arg(long, value_parser = duration_ms, conflicts_with = "starts_at")]
    starts_in: Option<u64>,
    /// Start at this time, in milliseconds since the Unix epoch.
    #[arg(long)]
    starts_at: Option<u64>,
    /// The most players it takes (the server's default is 16).
    #[arg(long)]
    max_players: Option<u32>,
    /// Who may enter: human, bot or any.
    #[arg(long, value_parser = kind_arg, default_value = "any")]
    kind: EntrantKind,
    /// A name for people (default: the game and format).
    #[arg(long)]
    name: Option<String>,
    /// The game's options, as JSON.
    #[arg(long)]
    options: Option<String>,
    /// Print `{"id": ...}` only, for scripts.
    #[arg(long)]
    json: bool,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
}

/// An event's id and the server.
#[derive(Debug, clap::Args)]
pub struct IdArgs {
    /// The event's id.
    id: String,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
}

/// `parlor tournament show`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The event's id.
    id: String,
    /// Print the server's page as JSON, every field kept.
    #[arg(long)]
    json: bool,
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
}

fn format_arg(s: &str) -> Result<Format, String> {
    Format::from_name(s)
        .ok_or_else(|| format!("{s:?} is not a format: round-robin, swiss or arena"))
}

fn kind_arg(s: &str) -> Result<EntrantKind, String> {
    match s {
        "human" => Ok(EntrantKind::Human),
        "bot" => Ok(EntrantKind::Bot),
        "any" => Ok(EntrantKind::Any),
        _ => Err(format!("{s:?} is not one of human, bot, any")),
    }
}

/// A length typed by a person (`90s`, `5m`, `2h`, `1d`, or seconds) in
/// milliseconds.
fn duration_ms(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (number, unit_ms) = match s.char_indices().last() {
        Some((i, 's')) => (&s[..i], 1000),
        Some((i, 'm')) => (&s[..i], 60 * 1000),
        Some((i, 'h')) => (&s[..i], 3600 * 1000),
        Some((i, 'd')) => (&s[..i], 86_400 * 1000),
        _ => (s, 1000),
    };
    number
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(unit_ms))
        .ok_or_else(|| format!("{s:?} is not a length such as 90s, 5m, 2h or 1d"))
}

/// The account token for a call that acts as one.
fn token() -> Result<&'static str, String> {
    parlor_cli::client::token().ok_or_else(|| {
        "this acts as your account: give --token, or log in with `parlor login`".into()
    })
}

/// Runs `parlor tournaments`.
pub async fn list(a: ListArgs) -> Result<(), String> {
    let url = account_server(a.server);
    let v = api::list_json(&url).await?;
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
    } else {
        let listing: api::Listing = serde_json::from_value(v)
            .map_err(|e| format!("the list of events is not readable: {e}"))?;
        print!("{}", text::listing(&listing, &Zone::system()));
    }
    Ok(())
}

/// Runs `parlor tournament ...`.
pub async fn run(cmd: TournamentCmd) -> Result<(), String> {
    match cmd {
        TournamentCmd::Create(a) => create(a).await,
        TournamentCmd::Join(a) => entry(a, Entry::Join).await,
        TournamentCmd::Leave(a) => entry(a, Entry::Leave).await,
        TournamentCmd::Show(a) => show(a).await,
    }
}

async fn create(a: CreateArgs) -> Result<(), String> {
    let url = account_server(a.server);
    let token = token()?;
    let starts_at_ms = match (a.starts_at, a.starts_in) {
        (Some(at), _) => at,
        (None, after) => now_ms().saturating_add(after.unwrap_or(DEFAULT_START_MS)),
    };
    let event = NewTournament {
        game: a.game,
        format: a.format,
        name: a.name,
        rounds: a.rounds,
        minutes: a.minutes,
        seats: None,
        options: super::json_arg(a.options.as_deref())?,
        clock: a.clock.clock(),
        rated: a.rated,
        starts_at_ms,
        max_players: a.max_players,
        duplicate: a.duplicate,
        kind: a.kind,
    };
    let id = api::create(&url, token, &event).await?;
    if a.json {
        println!("{}", serde_json::json!({ "id": id }));
    } else {
        let secs = i64::try_from(starts_at_ms / 1000).unwrap_or(i64::MAX);
        println!(
            "Made event {id}, starting {}. Enter it with: parlor tournament join {id}",
            Zone::system().format(secs)
        );
    }
    Ok(())
}

async fn entry(a: IdArgs, what: Entry) -> Result<(), String> {
    let url = account_server(a.server);
    api::entry(&url, token()?, &a.id, what).await?;
    match what {
        Entry::Join => println!("Entered event {}.", a.id),
        Entry::Leave => println!("Left event {}.", a.id),
    }
    Ok(())
}

async fn show(a: ShowArgs) -> Result<(), String> {
    let url = account_server(a.server);
    if a.json {
        let v = api::page_json(&url, &a.id).await?;
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    let page = api::page(&url, &a.id).await?;
    print!("{}", text::page(&page, &Zone::system()));
    Ok(())
}

/// Milliseconds since the Unix epoch (0 on a clock set before it).
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_read_with_their_unit() {
        assert_eq!(duration_ms("90s"), Ok(90_000));
        assert_eq!(duration_ms("5m"), Ok(300_000));
        assert_eq!(duration_ms("2h"), Ok(7_200_000));
        assert_eq!(duration_ms("1d"), Ok(86_400_000));
        assert_eq!(duration_ms("45"), Ok(45_000));
        assert!(duration_ms("m").is_err());
        assert!(duration_ms("5w").is_err());
        assert!(duration_ms("-5m").is_err());
    }

    #[test]
    fn formats_and_kinds_are_named_as_the_api_names_them() {
        assert_eq!(format_arg("round-robin"), Ok(Format::RoundRobin));
        assert!(format_arg("knockout").is_err());
        assert_eq!(kind_arg("bot"), Ok(EntrantKind::Bot));
        assert!(kind_arg("robot").is_err());
    }
}
