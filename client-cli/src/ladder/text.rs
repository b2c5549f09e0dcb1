//! A ladder's page as text: the entrants best first, the games being
//! played and the latest results.

use parlor_protocol::{LadderInfo, LadderResult};

use crate::ratings::table;

/// How a finished game reads: who won, by name.
fn result(seats: &[String], r: Option<LadderResult>) -> String {
    let name = |i: usize| seats.get(i).cloned().unwrap_or_default();
    match r {
        Some(LadderResult::Seat0) => format!("{} won", name(0)),
        Some(LadderResult::Seat1) => format!("{} won", name(1)),
        Some(LadderResult::Draw) => "draw".into(),
        Some(LadderResult::Void) => "void".into(),
        None => "playing".into(),
    }
}

/// The page as tables.
pub fn page(info: &LadderInfo) -> String {
    let mut out = format!(
        "The {} ladder{}: at most {} games at once per bot, {} a day per pair.\n",
        info.game,
        if info.running { "" } else { " (paused)" },
        info.max_games,
        info.daily_cap
    );
    let mut rows = vec![vec![
        "RANK".to_owned(),
        "NAME".into(),
        "RATING".into(),
        "RD".into(),
        "GAMES".into(),
        "W-L-D".into(),
        "NOW".into(),
        "".into(),
    ]];
    for (i, e) in info.entrants.iter().enumerate() {
        let mark = if e.provisional { "?" } else { "" };
        let status = match (e.builtin, e.connected) {
            (true, _) => "anchor",
            (false, true) => "connected",
            (false, false) => "away",
        };
        rows.push(vec![
            (i + 1).to_string(),
            e.name.clone(),
            format!("{:.0}{mark}", e.rating),
            format!("{:.0}", e.rd),
            e.games.to_string(),
            format!("{}-{}-{}", e.wins, e.losses, e.draws),
            e.playing.to_string(),
            status.into(),
        ]);
    }
    out.push_str(&table(&rows));
    if !info.playing.is_empty() {
        out.push_str("\nBeing played:\n");
        let mut rows = vec![vec!["ROOM".to_owned(), "SEAT 0".into(), "SEAT 1".into()]];
        for g in &info.playing {
            let mut row = vec![g.room.to_string()];
            row.extend(g.seats.iter().cloned());
            rows.push(row);
        }
        out.push_str(&table(&rows));
    }
    if !info.recent.is_empty() {
        out.push_str("\nLatest results:\n");
        let mut rows = vec![vec![
            "ROOM".to_owned(),
            "SEAT 0".into(),
            "SEAT 1".into(),
            "RESULT".into(),
        ]];
        for g in &info.recent {
            let mut row = vec![g.room.to_string()];
            row.extend(g.seats.iter().cloned());
            row.push(result(&g.seats, g.result));
            rows.push(row);
        }
        out.push_str(&table(&rows));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_name_the_winner() {
        let seats = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(result(&seats, Some(LadderResult::Seat1)), "b won");
        assert_eq!(result(&seats, Some(LadderResult::Void)), "void");
        assert_eq!(result(&seats, None), "playing");
    }
}
