//! Tournaments as text: the list, and an event's page (a heading, the
//! standings, and a crosstable of the rounds).

use std::collections::HashMap;

use parlor_protocol::{Clock, TournamentInfo, TournamentStatus, TournamentSummary};

use super::api::Listing;
use crate::localtime::Zone;
use crate::ratings::table;

/// Milliseconds in a second, for times given to the zone in seconds.
const MS_PER_SECOND: u64 = 1000;

fn when(ms: u64, zone: &Zone) -> String {
    zone.format(i64::try_from(ms / MS_PER_SECOND).unwrap_or(i64::MAX))
}

/// Points as people write them: `2`, `1.5`.
fn points(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p}")
    }
}

/// The clock in words.
fn clock(c: &Clock) -> String {
    match c {
        Clock::PerMove { ms } => format!("{} s a move", ms / MS_PER_SECOND),
        Clock::Increment {
            main_ms,
            increment_ms,
        } => format!(
            "{} s + {} s a move",
            main_ms / MS_PER_SECOND,
            increment_ms / MS_PER_SECOND
        ),
        Clock::DaysPerMove(d) => format!("{d} days a move"),
    }
}

/// The events of the list, by status (a sentence when there are none).
pub fn listing(l: &Listing, zone: &Zone) -> String {
    if l.upcoming.is_empty() && l.running.is_empty() && l.finished.is_empty() {
        return "No tournaments on this server yet: make one with `parlor tournament create`.\n"
            .into();
    }
    let mut rows = vec![[
        "ID", "STATUS", "GAME", "FORMAT", "PLAYERS", "ROUND", "STARTS", "NAME",
    ]
    .map(str::to_owned)
    .to_vec()];
    for s in l.upcoming.iter().chain(&l.running).chain(&l.finished) {
        rows.push(summary_row(s, zone));
    }
    table(&rows)
}

fn summary_row(s: &TournamentSummary, zone: &Zone) -> Vec<String> {
    let mut format = s.format.name().to_owned();
    if s.rated {
        format.push_str(" rated");
    }
    vec![
        s.id.clone(),
        s.status.as_str().into(),
        s.game.name().into(),
        format,
        format!("{}/{}", s.players, s.max_players),
        s.round.to_string(),
        when(s.starts_at_ms, zone),
        s.name.clone(),
    ]
}

/// An event's page: what it is, its standings, and the crosstable.
pub fn page(p: &TournamentInfo, zone: &Zone) -> String {
    let mut text = format!("{} ({})\n", p.name, p.id);
    let rounds = p
        .rounds_total
        .map_or_else(String::new, |n| format!(", {n} rounds"));
    text.push_str(&format!(
        "{} {}{}{}{}, {}; {}, {} players (at most {})\n",
        p.game.name(),
        p.format.name(),
        rounds,
        if p.rated { ", rated" } else { "" },
        if p.duplicate { ", duplicate deals" } else { "" },
        clock(&p.clock),
        p.status.as_str(),
        p.players.len(),
        p.max_players,
    ));
    match p.status {
        TournamentStatus::Upcoming => {
            text.push_str(&format!("Starts {}.\n", when(p.starts_at_ms, zone)));
        }
        _ => text.push_str(&format!("Started {}.\n", when(p.starts_at_ms, zone))),
    }
    if let Some(why) = &p.cancelled {
        text.push_str(&format!("Cancelled: {why}\n"));
    }
    text.push_str(&format!("Commitment: {}\n", p.commitment));
    if let Some(seed) = &p.seed {
        text.push_str(&format!("Seed: {seed}\n"));
    }
    if p.players.is_empty() {
        text.push_str("\nNobody has entered yet.\n");
        return text;
    }
    text.push_str(&format!("\nStandings (tie-break: {}):\n", p.tiebreak));
    text.push_str(&standings(p));
    if !p.rounds.is_empty() {
        text.push_str(
            "\nRounds (+ won, = drawn, - lost, * being played, against the rank shown):\n",
        );
        text.push_str(&crosstable(p));
    }
    text
}

/// The standings table, best first.
pub fn standings(p: &TournamentInfo) -> String {
    let withdrawn: Vec<&str> = p
        .players
        .iter()
        .filter(|pl| pl.withdrawn)
        .map(|pl| pl.name.as_str())
        .collect();
    let mut rows = vec![["RANK", "NAME", "POINTS", "TIE-BREAK", "GAMES"]
        .map(str::to_owned)
        .to_vec()];
    for (i, s) in p.standings.iter().enumerate() {
        let mut name = s.name.clone();
        if withdrawn.contains(&name.as_str()) {
            name.push_str(" (left)");
        }
        rows.push(vec![
            (i + 1).to_string(),
            name,
            points(s.points),
            points(s.tiebreak),
            s.games.to_string(),
        ]);
    }
    table(&rows)
}

/// One row a player, one column a round: each game's result and the
/// opponent's rank (`+3` won against the third), `bye` for a bye.
pub fn crosstable(p: &TournamentInfo) -> String {
    let rank: HashMap<&str, usize> = p
        .standings
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i + 1))
        .collect();
    let mut head = vec!["#".to_owned(), "NAME".to_owned()];
    head.extend((1..=p.rounds.len()).map(|r| format!("R{r}")));
    let mut rows = vec![head];
    for (i, s) in p.standings.iter().enumerate() {
        let mut row = vec![(i + 1).to_string(), s.name.clone()];
        for (r, games) in p.rounds.iter().enumerate() {
            row.push(cell(
                &s.name,
                games,
                p.byes.get(r).cloned().flatten(),
                &rank,
            ));
        }
        rows.push(row);
    }
    table(&rows)
}

/// `name`'s games of one round: each result, then the opponent's rank
/// (a duplicate set against one opponent reads `+=3`).
fn cell(
    name: &str,
    games: &[parlor_protocol::TournamentGame],
    bye: Option<String>,
    rank: &HashMap<&str, usize>,
) -> String {
    if bye.as_deref() == Some(name) {
        return "bye".into();
    }
    let mut parts: Vec<(String, String)> = Vec::new();
    for g in games {
        let Some(seat) = g.seats.iter().position(|s| s == name) else {
            continue;
        };
        let opponent = g
            .seats
            .iter()
            .find(|s| *s != name)
            .map_or("?", |s| s.as_str());
        let mark = match &g.result {
            None => '*',
            Some(r) if r.winners.is_empty() => '=',
            Some(r) if r.winners.iter().any(|w| usize::from(w.0) == seat) => '+',
            Some(_) => '-',
        };
        let against = rank
            .get(opponent)
            .map_or_else(|| "?".into(), usize::to_string);
        match parts.last_mut() {
            Some((marks, last)) if *last == against => marks.push(mark),
            _ => parts.push((mark.to_string(), against)),
        }
    }
    if parts.is_empty() {
        return String::new();
    }
    parts
        .iter()
        .map(|(marks, against)| format!("{marks}{against}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_competition::tournament::{Format, Standing};
    use parlor_games::{GameKind, Seat};
    use parlor_protocol::{EntrantKind, TournamentGame, TournamentPlayer, TournamentResult};

    fn game(a: &str, b: &str, winners: Option<Vec<u8>>) -> TournamentGame {
        TournamentGame {
            room: None,
            seats: vec![a.into(), b.into()],
            result: winners.map(|w| TournamentResult {
                winners: w.into_iter().map(Seat).collect(),
                end: None,
            }),
        }
    }

    fn standing(name: &str, points: f64) -> Standing {
        Standing {
            name: name.into(),
            points,
            tiebreak: 0.5,
            games: 2,
        }
    }

    fn info() -> TournamentInfo {
        TournamentInfo {
            id: "ev1".into(),
            name: "Friday".into(),
            created_by: "ann".into(),
            game: GameKind::Nimrod,
            format: Format::Swiss,
            status: TournamentStatus::Running,
            rounds_total: Some(2),
            rounds_asked: Some(2),
            minutes: None,
            options: serde_json::Value::Null,
            clock: Clock::PerMove { ms: 30_000 },
            rated: false,
            duplicate: true,
            kind: EntrantKind::Any,
            starts_at_ms: 0,
            max_players: 16,
            commitment: "c0ffee".into(),
            seed: None,
            players: ["ann", "bob", "cy"]
                .map(|n| TournamentPlayer {
                    name: n.into(),
                    rating: Some(1500.0),
                    withdrawn: n == "cy",
                })
                .into(),
            rounds: vec![
                vec![
                    game("ann", "bob", Some(vec![0])),
                    game("bob", "ann", Some(vec![])),
                ],
                vec![game("cy", "ann", Some(vec![1])), game("ann", "cy", None)],
            ],
            byes: vec![Some("cy".into()), Some("bob".into())],
            waiting: Vec::new(),
            standings: vec![
                standing("ann", 2.5),
                standing("bob", 1.5),
                standing("cy", 1.0),
            ],
            tiebreak: "buchholz".into(),
            arena_pairing: None,
            cancelled: None,
        }
    }

    #[test]
    fn the_crosstable_shows_each_set_against_the_opponents_rank() {
        let text = crosstable(&info());
        let rows: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(rows[0], ["#", "NAME", "R1", "R2"]);
        assert_eq!(rows[1], ["1", "ann", "+=2", "+*3"]);
        assert_eq!(rows[2], ["2", "bob", "-=1", "bye"]);
        assert_eq!(rows[3], ["3", "cy", "bye", "-*1"]);
    }

    #[test]
    fn the_page_names_the_event_and_marks_who_left() {
        let text = page(&info(), &Zone::utc());
        assert!(text.starts_with("Friday (ev1)\n"), "{text}");
        assert!(text.contains("nimrod swiss, 2 rounds, duplicate deals, 30 s a move; running"));
        assert!(text.contains("cy (left)"), "{text}");
        assert!(text.contains("2.5"), "{text}");
        assert!(!text.contains("Seed:"), "{text}");
    }
}
