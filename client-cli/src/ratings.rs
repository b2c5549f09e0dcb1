//! How ratings show to people in the terminal: `1612?` for a provisional
//! rating, `+12.3` for a change, and the tables of `parlor leaderboard`
//! and `parlor player`.

use std::collections::BTreeMap;

use parlor_protocol::{provisional, Leaderboard, PoolRating, RatedGame, SeatRating, Update};
use serde::{Deserialize, Serialize};

use crate::localtime::Zone;

/// A rating rounded to a whole number, with `?` when provisional.
pub fn shown(rating: f64, rd: f64) -> String {
    format!("{:.0}{}", rating, if provisional(rd) { "?" } else { "" })
}

/// A seat's rating as the room's seat list carries it.
pub fn seat(r: &SeatRating) -> String {
    format!("{}{}", r.rating, if r.provisional { "?" } else { "" })
}

/// A change of rating, signed, to one decimal (`+12.3`, `-0.4`), by the
/// rule the web client's banner and ledger use too: the exact change's
/// tenths rounded, halves away from zero (+41.15 shows as `+41.2`); a
/// change under 0.05 either way shows as `0.0`.
pub fn change(before: f64, after: f64) -> String {
    let d = after - before;
    let tenths = (d.abs() * 10.0).round();
    if tenths == 0.0 {
        return "0.0".into();
    }
    format!("{}{:.1}", if d > 0.0 { '+' } else { '-' }, tenths / 10.0)
}

/// The rating changes at the end of a rated match, one line:
/// `Ratings: you (alice) 1500 -> 1662? (+162.3); bob 1500 -> 1338? (-162.3)`.
pub fn changes(u: &Update) -> Option<String> {
    let changes = u.rating_changes.as_ref().filter(|c| !c.is_empty())?;
    let parts: Vec<String> = changes
        .iter()
        .map(|c| {
            let who = if u.you == Some(c.seat) {
                format!("you ({})", c.name)
            } else {
                c.name.clone()
            };
            format!(
                "{who} {:.0} -> {} ({})",
                c.before,
                shown(c.after, c.rd),
                change(c.before, c.after)
            )
        })
        .collect();
    Some(format!("Ratings: {}", parts.join("; ")))
}

/// Aligned columns, the first row the heading.
pub fn table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for r in rows {
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

/// A leaderboard as a table (or a sentence when it is empty).
pub fn leaderboard(board: &Leaderboard) -> String {
    if board.players.is_empty() {
        return format!(
            "No established ratings in {} yet: a rating shows here once its deviation is {} or less.\n",
            board.game,
            parlor_protocol::PROVISIONAL_RD
        );
    }
    let mut rows = vec![vec![
        "RANK".to_owned(),
        "NAME".into(),
        "KIND".into(),
        "RATING".into(),
        "RD".into(),
        "GAMES".into(),
    ]];
    for p in &board.players {
        rows.push(vec![
            p.rank.to_string(),
            p.name.clone(),
            p.kind.clone(),
            shown(p.rating, p.rd),
            format!("{:.0}", p.rd),
            p.games.to_string(),
        ]);
    }
    table(&rows)
}

/// One game's record on a player's page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Matches finished with a result.
    #[serde(default)]
    pub played: u64,
    /// Won.
    #[serde(default)]
    pub won: u64,
    /// Drawn.
    #[serde(default)]
    pub drawn: u64,
    /// Lost.
    #[serde(default)]
    pub lost: u64,
}

/// A player's page (`GET /api/players/NAME`), as much of it as the
/// terminal shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerPage {
    /// The account's name.
    pub name: String,
    /// `human` or `bot`.
    pub kind: String,
    /// The record per game.
    #[serde(default)]
    pub games: BTreeMap<String, Record>,
    /// The rating per pool.
    #[serde(default)]
    pub ratings: BTreeMap<String, PoolRating>,
    /// The last rated matches, newest first.
    #[serde(default)]
    pub rated_games: Vec<RatedGame>,
}

/// A player's page as text: ratings per pool, the record, and the last
/// rated matches with their change.
pub fn player(page: &PlayerPage, zone: &Zone) -> String {
    let mut text = format!("{} ({})\n", page.name, page.kind);
    if page.ratings.is_empty() {
        text.push_str("\nNo rated games yet.\n");
    } else {
        text.push_str("\nRatings (? = provisional):\n");
        let mut rows = vec![vec![
            "GAME".to_owned(),
            "RATING".into(),
            "RD".into(),
            "GAMES".into(),
        ]];
        for (pool, r) in &page.ratings {
            rows.push(vec![
                pool.clone(),
                shown(r.rating, r.rd),
                format!("{:.0}", r.rd),
                r.games.to_string(),
            ]);
        }
        text.push_str(&indent(&table(&rows)));
    }
    if !page.games.is_empty() {
        text.push_str("\nRecord:\n");
        for (game, r) in &page.games {
            text.push_str(&format!(
                "  {game}: {} played, {} won, {} drawn, {} lost\n",
                r.played, r.won, r.drawn, r.lost
            ));
        }
    }
    if !page.rated_games.is_empty() {
        text.push_str("\nLast rated games:\n");
        let mut rows = vec![vec![
            "ENDED".to_owned(),
            "GAME".into(),
            "PLACE".into(),
            "OPPONENTS".into(),
            "RATING".into(),
            "CHANGE".into(),
            "ROOM".into(),
        ]];
        for g in &page.rated_games {
            let secs = i64::try_from(g.at_ms / 1000).unwrap_or(i64::MAX);
            rows.push(vec![
                zone.format(secs),
                g.pool.clone(),
                format!("{}/{}", g.place, g.players),
                g.opponents.join(", "),
                shown(g.after, g.rd),
                change(g.before, g.after),
                g.room.clone(),
            ]);
        }
        text.push_str(&indent(&table(&rows)));
    }
    text
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("  {l}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_protocol::LeaderboardRow;

    #[test]
    fn provisional_ratings_carry_a_question_mark() {
        assert_eq!(shown(1611.6, 62.0), "1612");
        assert_eq!(shown(1500.0, 350.0), "1500?");
        assert_eq!(shown(1500.0, 110.0), "1500");
        assert_eq!(
            seat(&SeatRating {
                rating: 1612,
                provisional: true
            }),
            "1612?"
        );
    }

    #[test]
    fn the_end_of_a_rated_match_tells_each_change() {
        let mut u: Update = serde_json::from_value(serde_json::json!({
            "room": "000000000001", "game": "nimrod", "seq": 9, "status": "finished",
            "seats": [], "you": 1, "to_act": [], "view": {"piles": [0, 0]},
            "outcome": {"result": "win", "winners": [0]},
            "rating_changes": [
                {"seat": 0, "name": "alice", "before": 1500.0, "after": 1662.31, "rd": 290.3},
                {"seat": 1, "name": "bob", "before": 1580.2, "after": 1571.0, "rd": 80.0}
            ]
        }))
        .unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(
            changes(&u).as_deref(),
            Some("Ratings: alice 1500 -> 1662? (+162.3); you (bob) 1580 -> 1571 (-9.2)")
        );
        u.rating_changes = None;
        assert_eq!(changes(&u), None);
    }

    #[test]
    fn changes_are_signed() {
        assert_eq!(change(1500.0, 1662.31), "+162.3");
        // The web's rule: halves away from zero, on the exact change.
        // (+41.15 is stored a hair under; its tenths, 411.5, round up, as
        // JavaScript's Math.round(41.15 * 10) does.)
        assert_eq!(change(0.0, 41.15), "+41.2");
        assert_eq!(change(41.15, 0.0), "-41.2");
        assert_eq!(change(1500.0, 1500.25), "+0.3");
        assert_eq!(change(1500.0, 1500.04), "0.0");
        assert_eq!(change(1500.0, 1337.69), "-162.3");
        assert_eq!(change(1500.0, 1499.97), "0.0");
    }

    #[test]
    fn the_leaderboard_is_aligned_best_first() {
        let row = |rank, name: &str, rating| LeaderboardRow {
            rank,
            name: name.into(),
            kind: "bot".into(),
            rating,
            rd: 60.0,
            games: 31,
        };
        let board = Leaderboard {
            game: "nimrod".into(),
            players: vec![row(1, "optimal", 1890.4), row(2, "random-bot", 1302.2)],
        };
        let t = leaderboard(&board);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3, "{t}");
        assert!(lines[0].starts_with("RANK  NAME"), "{t}");
        assert!(lines[1].starts_with("1     optimal     bot   1890"), "{t}");
        assert!(lines[2].contains("random-bot  bot   1302    60"), "{t}");
        let empty = Leaderboard {
            game: "nimrod".into(),
            players: vec![],
        };
        assert!(leaderboard(&empty).starts_with("No established ratings in nimrod"));
    }

    #[test]
    fn a_player_page_shows_ratings_record_and_changes() {
        let json = serde_json::json!({
            "name": "alice", "kind": "human", "created": 1,
            "games": {"nimrod": {"played": 3, "won": 2, "drawn": 0, "lost": 1}},
            "ratings": {
                "nimrod": {"rating": 1623.4, "rd": 100.0, "vol": 0.06, "games": 3, "provisional": false},
                "cribbage": {"rating": 1500.0, "rd": 350.0, "vol": 0.06, "games": 0, "provisional": true}
            },
            "rated_games": [{"n": 3, "at_ms": 0, "pool": "nimrod", "room": "r3", "place": 2,
                "players": 2, "opponents": ["bob"], "before": 1650.0, "after": 1623.4, "rd": 100.0}]
        });
        let page: PlayerPage = serde_json::from_value(json).unwrap_or_else(|e| unreachable!("{e}"));
        let t = player(&page, &Zone::utc());
        assert!(t.starts_with("alice (human)\n"), "{t}");
        assert!(t.contains("cribbage  1500?   350"), "{t}");
        assert!(t.contains("nimrod    1623    100"), "{t}");
        assert!(
            t.contains("nimrod: 3 played, 2 won, 0 drawn, 1 lost"),
            "{t}"
        );
        assert!(t.contains("2/2    bob        1623    -26.6   r3"), "{t}");
        // A page from a server without ratings still reads.
        let bare: PlayerPage =
            serde_json::from_value(serde_json::json!({"name": "b", "kind": "bot"}))
                .unwrap_or_else(|e| unreachable!("{e}"));
        assert!(player(&bare, &Zone::utc()).contains("No rated games yet."));
    }
}
