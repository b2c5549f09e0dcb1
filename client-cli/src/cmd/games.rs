//! `parlor games`: the account's unfinished games, as a table or JSON.

use std::time::{SystemTime, UNIX_EPOCH};

use parlor_cli::localtime::Zone;
use parlor_cli::Client;
use parlor_protocol::{ClientMsg, GameEntry, RoomStatus, ServerMsg};

use super::account_server;

/// `parlor games`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Server URL (default: the one you logged in to).
    #[arg(long)]
    server: Option<String>,
    /// Print the server's list as JSON (one array), for scripts.
    #[arg(long)]
    json: bool,
}

/// Runs `parlor games`.
pub async fn run(a: Args) -> Result<(), String> {
    let url = account_server(a.server);
    let mut client = Client::connect(&url, "player")
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if client.account().is_none() {
        return Err(
            "your games are an account's: log in first (parlor login NAME) or give --token".into(),
        );
    }
    let games = client
        .request(&ClientMsg::MyGames, |m| match m {
            ServerMsg::Games { games } => Some(games),
            _ => None,
        })
        .await
        .map_err(|e| e.to_string())?;
    if a.json {
        let text = serde_json::to_string_pretty(&games).map_err(|e| e.to_string())?;
        println!("{text}");
        return Ok(());
    }
    if games.is_empty() {
        println!("No unfinished games.");
        return Ok(());
    }
    print!("{}", table(&games, now_ms(), &Zone::system()));
    println!("Play one: parlor play GAME --room ROOM --seat SEAT --server {url}");
    Ok(())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The games as aligned columns, your turn first.
fn table(games: &[GameEntry], now_ms: u64, zone: &Zone) -> String {
    let mut rows = vec![[
        "ROOM".to_owned(),
        "GAME".into(),
        "SEAT".into(),
        "OPPONENTS".into(),
        "TURN".into(),
        "DEADLINE".into(),
    ]];
    let mut sorted: Vec<&GameEntry> = games.iter().collect();
    sorted.sort_by_key(|g| (!g.your_turn, g.deadline_ms.unwrap_or(u64::MAX)));
    for g in sorted {
        let opponents: Vec<String> = g
            .players
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != g.seat.index())
            .map(|(_, p)| p.clone().unwrap_or_else(|| "(empty seat)".into()))
            .collect();
        let turn = match (g.status, g.your_turn) {
            (RoomStatus::Playing, true) => "yours",
            (RoomStatus::Playing, false) => "theirs",
            _ => "waiting",
        };
        let rated = if g.rated { " (rated)" } else { "" };
        rows.push([
            g.room.to_string(),
            format!("{}{rated}", g.game),
            g.seat.0.to_string(),
            opponents.join(", "),
            turn.into(),
            g.deadline_ms
                .map(|d| deadline(d, now_ms, zone))
                .unwrap_or_else(|| "-".into()),
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for r in &rows {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text
}

/// A deadline as the time left and the moment in local time (`in 2d 3h,
/// 2026-11-27 15:05 CET`).
fn deadline(at_ms: u64, now_ms: u64, zone: &Zone) -> String {
    let left = match at_ms.checked_sub(now_ms) {
        Some(ms) => format!("in {}", span(ms / 1000)),
        None => "overdue".into(),
    };
    let secs = i64::try_from(at_ms / 1000).unwrap_or(i64::MAX);
    format!("{left}, {}", zone.format(secs))
}

/// Seconds as days, hours and minutes (the two largest that apply).
fn span(secs: u64) -> String {
    let (d, h, m) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60);
    match (d, h) {
        (0, 0) => format!("{m}m"),
        (0, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_games::{GameKind, Seat};
    use parlor_protocol::RoomId;

    #[test]
    fn the_table_shows_opponents_turn_and_time_left_with_your_turn_first() {
        let entry = |room: &str, your_turn: bool, deadline_ms: Option<u64>| GameEntry {
            room: RoomId::new(room).unwrap_or_else(|| unreachable!()),
            game: GameKind::Nimrod,
            seat: Seat(1),
            status: RoomStatus::Playing,
            your_turn,
            players: vec![Some("alice".into()), Some("me".into())],
            clock: None,
            deadline_ms,
            rated: true,
        };
        let now = 1_764_000_000_000;
        let t = table(
            &[
                entry("aaaaaaaaaaaa", false, None),
                entry("bbbbbbbbbbbb", true, Some(now + 90_000_000)),
            ],
            now,
            &Zone::utc(),
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3, "{t}");
        assert!(lines[0].starts_with("ROOM"), "{t}");
        assert!(lines[1].starts_with("bbbbbbbbbbbb"), "{t}");
        assert!(
            lines[1].contains("yours") && lines[1].contains("in 1d 1h"),
            "{t}"
        );
        assert!(
            lines[2].contains("theirs") && lines[2].contains("alice"),
            "{t}"
        );
        assert!(!lines[2].contains("me,"), "{t}");
    }
}
