//! Where the ladder is kept, beside the match log (SQLite's file or the
//! cluster's PostgreSQL schema): each game's entrants with their ladder
//! record and when a node last saw them connected (`ladder_entries`), its
//! games (`ladder_games`), and the lease of the node pairing it
//! (`ladders`).

use std::collections::HashSet;

use parlor_games::GameKind;
use parlor_protocol::{GameEnd, LadderGameInfo, LadderResult, RoomId};

use crate::schedule::LeasedTable;
use crate::store::{Arg, Beside, Col, Kind, StoreError};

/// The ladders' leases: one row per game (keyed by its name), taken by
/// the ladder's tick.
pub(super) const LADDERS: LeasedTable = LeasedTable {
    table: "ladders",
    key: "game",
};

/// An entrant as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryRow {
    /// The game.
    pub game: String,
    /// The account's key.
    pub key: String,
    /// The account's name.
    pub name: String,
    /// A built-in bot (an anchor).
    pub builtin: bool,
    /// When a node last saw it connected (ms since the epoch).
    pub seen_ms: u64,
    /// Ladder games finished with a result, won, lost and drawn.
    pub record: [u64; 4],
}

/// A ladder game as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// Its room.
    pub room: RoomId,
    /// The accounts by seat.
    pub seats: [String; 2],
    /// Per seat: the strategy playing it server-side (an anchor's).
    pub strategies: Vec<Option<String>>,
    /// When it was made.
    pub started_ms: u64,
    /// When it ended.
    pub ended_ms: Option<u64>,
    /// How.
    pub result: Option<LadderResult>,
    /// How it came to that result (`None` for a game recorded before it
    /// was kept).
    pub end: Option<GameEnd>,
}

impl GameRow {
    /// As the page shows it.
    pub fn info(&self) -> LadderGameInfo {
        LadderGameInfo {
            room: self.room.clone(),
            seats: self.seats.to_vec(),
            started_ms: self.started_ms,
            result: self.result,
            end: self.end,
            ended_ms: self.ended_ms,
        }
    }
}

fn ms(n: u64) -> Arg {
    Arg::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

fn text(s: &str) -> Arg {
    Arg::Text(s.to_owned())
}

fn unsigned(c: &Col) -> u64 {
    u64::try_from(c.int()).unwrap_or(0)
}

fn result_text(r: LadderResult) -> &'static str {
    match r {
        LadderResult::Seat0 => "seat0",
        LadderResult::Seat1 => "seat1",
        LadderResult::Draw => "draw",
        LadderResult::Void => "void",
    }
}

fn end_text(e: GameEnd) -> &'static str {
    match e {
        GameEnd::Rules => "rules",
        GameEnd::Resigned => "resigned",
        GameEnd::Time => "time",
        GameEnd::Forfeit => "forfeit",
    }
}

/// A finished game's `result` column: the result, then how it ended
/// after a `/` (`seat1/time`). Kept in the one column rather than a new
/// one: rows written before the ending was kept hold the result alone,
/// and read with no ending.
fn stored_result(r: LadderResult, end: Option<GameEnd>) -> String {
    match end {
        Some(e) => format!("{}/{}", result_text(r), end_text(e)),
        None => result_text(r).to_owned(),
    }
}

fn parse_result(s: &str) -> Option<LadderResult> {
    let result = s.split_once('/').map_or(s, |(r, _)| r);
    Some(match result {
        "seat0" => LadderResult::Seat0,
        "seat1" => LadderResult::Seat1,
        "draw" => LadderResult::Draw,
        "void" => LadderResult::Void,
        _ => return None,
    })
}

fn parse_end(s: &str) -> Option<GameEnd> {
    Some(match s.split_once('/')?.1 {
        "rules" => GameEnd::Rules,
        "resigned" => GameEnd::Resigned,
        "time" => GameEnd::Time,
        "forfeit" => GameEnd::Forfeit,
        _ => return None,
    })
}

const ENTRY_KINDS: &[Kind] = &[
    Kind::Text,
    Kind::Text,
    Kind::Text,
    Kind::Bool,
    Kind::Int,
    Kind::Int,
    Kind::Int,
    Kind::Int,
    Kind::Int,
];

fn entry(c: &[Col]) -> EntryRow {
    EntryRow {
        game: c[0].text(),
        key: c[1].text(),
        name: c[2].text(),
        builtin: c[3].bool(),
        seen_ms: unsigned(&c[4]),
        record: [
            unsigned(&c[5]),
            unsigned(&c[6]),
            unsigned(&c[7]),
            unsigned(&c[8]),
        ],
    }
}

const GAME_KINDS: &[Kind] = &[
    Kind::Text,
    Kind::Text,
    Kind::Text,
    Kind::Text,
    Kind::Int,
    Kind::Int,
    Kind::Text,
];

fn game_row(c: &[Col]) -> Result<GameRow, StoreError> {
    let room = RoomId::new(c[0].text())
        .ok_or_else(|| StoreError::Corrupt(format!("ladder room {:?}", c[0].text())))?;
    let strategies = serde_json::from_str(&c[3].text())
        .map_err(|e| StoreError::Corrupt(format!("a ladder game's strategies: {e}")))?;
    Ok(GameRow {
        room,
        seats: [c[1].text(), c[2].text()],
        strategies,
        started_ms: unsigned(&c[4]),
        ended_ms: c[5].opt_int().and_then(|n| u64::try_from(n).ok()),
        result: c[6].opt_text().as_deref().and_then(parse_result),
        end: c[6].opt_text().as_deref().and_then(parse_end),
    })
}

/// The ladder's tables; cheap to clone.
#[derive(Clone, Debug)]
pub struct LadderStore(Beside);

impl LadderStore {
    /// The tables beside the log.
    pub fn new(db: Beside) -> Self {
        LadderStore(db)
    }

    /// Makes `game`'s lease row unless it exists.
    pub async fn ensure_ladder(&self, game: GameKind) -> Result<(), StoreError> {
        self.0
            .exec(
                "INSERT INTO ladders (game) VALUES ($1) ON CONFLICT (game) DO NOTHING",
                vec![text(game.name())],
            )
            .await
            .map(|_| ())
    }

    /// Enters account `name` (key `key`) in `game`'s ladder, or again
    /// after it left (its record kept). An anchor already entered stays
    /// as it is.
    pub async fn enter(
        &self,
        game: GameKind,
        key: &str,
        name: &str,
        builtin: bool,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        self.0.exec(
            "INSERT INTO ladder_entries (game, account_key, name, builtin, active, entered_ms) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (game, account_key) \
             DO UPDATE SET active = excluded.active, name = excluded.name",
            vec![
                text(game.name()),
                text(key),
                text(name),
                Arg::Bool(builtin),
                Arg::Bool(true),
                ms(now_ms),
            ],
        )
        .await
        .map(|_| ())
    }

    /// Takes account `key` out of `game`'s ladder; whether it was in.
    pub async fn leave(&self, game: GameKind, key: &str) -> Result<bool, StoreError> {
        let n = self
            .0
            .exec(
                "UPDATE ladder_entries SET active = $3 WHERE game = $1 AND account_key = $2 \
             AND active = $4",
                vec![
                    text(game.name()),
                    text(key),
                    Arg::Bool(false),
                    Arg::Bool(true),
                ],
            )
            .await?;
        Ok(n == 1)
    }

    /// The entrants of every ladder, by game and name; an account marked
    /// by a moderator (`engine`, `booster`) is left out, so it is neither
    /// shown nor paired.
    pub async fn entries(&self) -> Result<Vec<EntryRow>, StoreError> {
        let rows = self
            .0
            .query(
                "SELECT e.game, e.account_key, e.name, e.builtin, e.seen_ms, e.games, e.wins, \
             e.losses, e.draws FROM ladder_entries e \
             LEFT JOIN accounts a ON a.name_key = e.account_key \
             WHERE e.active = $1 AND a.mark IS NULL ORDER BY e.game, e.account_key",
                vec![Arg::Bool(true)],
                ENTRY_KINDS,
            )
            .await?;
        Ok(rows.iter().map(|c| entry(c)).collect())
    }

    /// Notes that the entrants `keys` (of any game) are connected at
    /// `now_ms`.
    pub async fn touch(&self, keys: &[String], now_ms: u64) -> Result<(), StoreError> {
        // One statement per key: a node has few ladder bots, and the
        // statement stays one spelling for both databases.
        for key in keys {
            self.0
                .exec(
                    "UPDATE ladder_entries SET seen_ms = $1 WHERE account_key = $2",
                    vec![ms(now_ms), text(key)],
                )
                .await?;
        }
        Ok(())
    }

    /// `game`'s games being played, oldest first.
    pub async fn playing(&self, game: GameKind) -> Result<Vec<GameRow>, StoreError> {
        let rows = self
            .0
            .query(
                "SELECT room, seat0, seat1, strategies, started_ms, ended_ms, result \
             FROM ladder_games WHERE game = $1 AND ended_ms IS NULL ORDER BY started_ms, room",
                vec![text(game.name())],
                GAME_KINDS,
            )
            .await?;
        rows.iter().map(|c| game_row(c)).collect()
    }

    /// The games with ladder games being played.
    pub async fn busy_games(&self) -> Result<HashSet<String>, StoreError> {
        let rows = self
            .0
            .query(
                "SELECT DISTINCT game FROM ladder_games WHERE ended_ms IS NULL",
                vec![],
                &[Kind::Text],
            )
            .await?;
        Ok(rows.iter().map(|c| c[0].text()).collect())
    }

    /// `game`'s games begun since `since_ms`: each one's players by seat.
    pub async fn begun_since(
        &self,
        game: GameKind,
        since_ms: u64,
    ) -> Result<Vec<[String; 2]>, StoreError> {
        let rows = self
            .0
            .query(
                "SELECT seat0, seat1 FROM ladder_games WHERE game = $1 AND started_ms >= $2",
                vec![text(game.name()), ms(since_ms)],
                &[Kind::Text, Kind::Text],
            )
            .await?;
        Ok(rows.iter().map(|c| [c[0].text(), c[1].text()]).collect())
    }

    /// `game`'s latest finished games, newest first, at most `limit`.
    pub async fn recent(&self, game: GameKind, limit: usize) -> Result<Vec<GameRow>, StoreError> {
        let rows = self
            .0
            .query(
                "SELECT room, seat0, seat1, strategies, started_ms, ended_ms, result \
             FROM ladder_games WHERE game = $1 AND ended_ms IS NOT NULL \
             ORDER BY ended_ms DESC, room LIMIT $2",
                vec![
                    text(game.name()),
                    Arg::Int(i64::try_from(limit).unwrap_or(0)),
                ],
                GAME_KINDS,
            )
            .await?;
        rows.iter().map(|c| game_row(c)).collect()
    }

    /// Records a new game of `game` (before its room is made: a crash
    /// between the two is repaired by the next tick, which makes it).
    pub async fn add_game(&self, game: GameKind, row: &GameRow) -> Result<(), StoreError> {
        let strategies = serde_json::to_string(&row.strategies)
            .map_err(|e| StoreError::Corrupt(format!("a ladder game's strategies: {e}")))?;
        self.0
            .exec(
                "INSERT INTO ladder_games (room, game, seat0, seat1, strategies, started_ms) \
             VALUES ($1, $2, $3, $4, $5, $6)",
                vec![
                    text(row.room.as_str()),
                    text(game.name()),
                    text(&row.seats[0]),
                    text(&row.seats[1]),
                    Arg::Text(strategies),
                    ms(row.started_ms),
                ],
            )
            .await
            .map(|_| ())
    }

    /// Records how `game`'s game `row` ended at `now_ms` (its result,
    /// and `end`, how it came to it), with each player's ladder record,
    /// in one transaction (once: a game already ended changes nothing).
    pub async fn finish(
        &self,
        game: GameKind,
        row: &GameRow,
        result: LadderResult,
        end: Option<GameEnd>,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        let mut statements = vec![(
            "UPDATE ladder_games SET ended_ms = $1, result = $2 WHERE room = $3 \
             AND ended_ms IS NULL",
            vec![
                ms(now_ms),
                Arg::Text(stored_result(result, end)),
                text(row.room.as_str()),
            ],
        )];
        let won = |seat: usize| match (result, seat) {
            (LadderResult::Seat0, 0) | (LadderResult::Seat1, 1) => [1, 0, 0],
            (LadderResult::Seat0 | LadderResult::Seat1, _) => [0, 1, 0],
            _ => [0, 0, 1],
        };
        if result != LadderResult::Void {
            for (seat, name) in row.seats.iter().enumerate() {
                let [w, l, d] = won(seat);
                statements.push((
                    "UPDATE ladder_entries SET games = games + 1, wins = wins + $3, \
                     losses = losses + $4, draws = draws + $5 \
                     WHERE game = $1 AND account_key = $2",
                    vec![
                        text(game.name()),
                        text(&crate::accounts::name_key(name)),
                        Arg::Int(w),
                        Arg::Int(l),
                        Arg::Int(d),
                    ],
                ));
            }
        }
        self.0.guarded(statements).await.map(|_| ())
    }

    /// Per game with a ladder: its entrants and its games being played.
    pub async fn counts(&self) -> Result<Vec<(String, u32, u32)>, StoreError> {
        let rows = self
            .0
            .query(
                "SELECT l.game, \
             (SELECT count(*) FROM ladder_entries e WHERE e.game = l.game AND e.active = $1), \
             (SELECT count(*) FROM ladder_games g WHERE g.game = l.game AND g.ended_ms IS NULL) \
             FROM ladders l ORDER BY l.game",
                vec![Arg::Bool(true)],
                &[Kind::Text, Kind::Int, Kind::Int],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|c| {
                let n = |c: &Col| u32::try_from(c.int()).unwrap_or(u32::MAX);
                (c[0].text(), n(&c[1]), n(&c[2]))
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_stored_with_its_end_and_an_old_one_reads_without() {
        let stored = stored_result(LadderResult::Seat1, Some(GameEnd::Time));
        assert_eq!(stored, "seat1/time");
        assert_eq!(parse_result(&stored), Some(LadderResult::Seat1));
        assert_eq!(parse_end(&stored), Some(GameEnd::Time));
        assert_eq!(parse_result("draw"), Some(LadderResult::Draw));
        assert_eq!(parse_end("draw"), None);
        assert_eq!(stored_result(LadderResult::Void, None), "void");
    }
}
