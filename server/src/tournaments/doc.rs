//! An event's whole state, as stored: what it was created with, its
//! secret seed (revealed once it is over), its players and every round's
//! games with their rooms and results. The public page is made from it.

use parlor_competition::tournament::{
    standings, ArenaPairing, Entrant, EventRules, Format, GameRecord, Play, RoundRecord,
};
use parlor_games::{GameKind, Seat};
use parlor_protocol::{
    Clock, EntrantKind, GameEnd, RoomId, TournamentGame, TournamentInfo, TournamentPlayer,
    TournamentResult, TournamentStatus, TournamentSummary,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use parlor_competition::tournament::{DUPLICATE_DEALS, UNRATED_SEEDING};

/// An event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventDoc {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Who made it.
    pub created_by: String,
    /// When (ms since the Unix epoch).
    pub created_ms: u64,
    /// The game.
    pub game: GameKind,
    /// The format.
    pub format: Format,
    /// Cycles (round robin) or rounds (Swiss).
    pub rounds_asked: Option<u32>,
    /// An arena's minutes.
    pub minutes: Option<u32>,
    /// The game's options, normalised.
    pub options: Value,
    /// Its games' clock.
    pub clock: Clock,
    /// Whether its games are rated.
    pub rated: bool,
    /// Whether boards play duplicate deals.
    pub duplicate: bool,
    /// Who may enter.
    pub kind: EntrantKind,
    /// When it starts.
    pub starts_at_ms: u64,
    /// The most players.
    pub max_players: u32,
    /// The seed, hex: secret until the event is over.
    pub seed: String,
    /// SHA-256 of the seed, published.
    pub commitment: String,
    /// Where it stands.
    pub status: TournamentStatus,
    /// Players in the order they entered.
    pub players: Vec<TournamentPlayer>,
    /// Rounds begun.
    pub rounds: Vec<DocRound>,
    /// An arena's pairing rule: the one it was made under (an event
    /// stored before the field existed was made under the first rule,
    /// the default), so its waves re-check after the rule changed.
    #[serde(default)]
    pub arena_pairing: ArenaPairing,
    /// Why it was cancelled, once it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled: Option<String>,
}

/// A round as stored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DocRound {
    /// Its games, in the pairing rule's order.
    pub games: Vec<DocGame>,
    /// Its bye.
    pub bye: Option<String>,
    /// An arena wave's players left waiting.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unpaired: Vec<String>,
}

/// A game as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DocGame {
    /// Its room (`None`: forfeited unplayed, a player having left).
    pub room: Option<RoomId>,
    /// Rooms made for it before (a room a crash left unseated, which
    /// closed unstarted, is made again under the next attempt's id).
    #[serde(default)]
    pub attempt: u32,
    /// Its board in the round.
    pub board: u32,
    /// Its deal on the board.
    pub deal: u32,
    /// The players by seat.
    pub seats: [String; 2],
    /// The winning seats once over (empty: a draw).
    pub winners: Option<Vec<u8>>,
    /// How it ended, once over (absent from an event stored before it
    /// was kept: its page shows the result alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<GameEnd>,
}

impl EventDoc {
    /// The pairing rules.
    pub fn rules(&self) -> EventRules {
        EventRules {
            format: self.format,
            rounds: self.rounds_asked.unwrap_or(0),
            play: if self.duplicate {
                Play::Duplicate {
                    deals: DUPLICATE_DEALS,
                }
            } else {
                Play::Single
            },
            arena_pairing: self.arena_pairing,
        }
    }

    /// The players as the pairing functions see them.
    pub fn entrants(&self) -> Vec<Entrant> {
        self.players
            .iter()
            .map(|p| Entrant {
                name: p.name.clone(),
                rating: p.rating.unwrap_or(UNRATED_SEEDING),
            })
            .collect()
    }

    /// Players still in it.
    pub fn active(&self) -> Vec<String> {
        self.players
            .iter()
            .filter(|p| !p.withdrawn)
            .map(|p| p.name.clone())
            .collect()
    }

    /// The rounds as the pairing functions see them.
    pub fn records(&self) -> Vec<RoundRecord> {
        self.rounds
            .iter()
            .map(|r| RoundRecord {
                games: r
                    .games
                    .iter()
                    .map(|g| GameRecord {
                        seats: g.seats.clone(),
                        winners: g.winners.clone(),
                    })
                    .collect(),
                bye: r.bye.clone(),
                unpaired: r.unpaired.clone(),
            })
            .collect()
    }

    /// When an arena's window closes (ms since the Unix epoch): no wave
    /// is paired after it; games being played then still count.
    pub fn ends_at_ms(&self) -> u64 {
        let minutes = u64::from(self.minutes.unwrap_or(0));
        self.starts_at_ms
            .saturating_add(minutes.saturating_mul(60_000))
    }

    /// Whether `name` (by account key) entered.
    pub fn has(&self, key: &str) -> bool {
        self.players
            .iter()
            .any(|p| crate::accounts::name_key(&p.name) == key)
    }

    /// The public page.
    pub fn info(&self) -> TournamentInfo {
        let entrants = self.entrants();
        let started = self.status != TournamentStatus::Upcoming;
        TournamentInfo {
            id: self.id.clone(),
            name: self.name.clone(),
            created_by: self.created_by.clone(),
            game: self.game,
            format: self.format,
            status: self.status,
            rounds_total: if started {
                self.rules().total_rounds(self.players.len())
            } else if self.format == Format::Swiss {
                self.rounds_asked
            } else {
                None
            },
            rounds_asked: self.rounds_asked,
            minutes: self.minutes,
            options: self.options.clone(),
            clock: self.clock,
            rated: self.rated,
            duplicate: self.duplicate,
            kind: self.kind,
            starts_at_ms: self.starts_at_ms,
            max_players: self.max_players,
            commitment: self.commitment.clone(),
            seed: (self.status == TournamentStatus::Finished).then(|| self.seed.clone()),
            cancelled: self.cancelled.clone(),
            players: self
                .players
                .iter()
                .map(|p| TournamentPlayer {
                    rating: if started { p.rating } else { None },
                    ..p.clone()
                })
                .collect(),
            rounds: self
                .rounds
                .iter()
                .map(|r| {
                    r.games
                        .iter()
                        .map(|g| TournamentGame {
                            room: g.room.clone(),
                            seats: g.seats.to_vec(),
                            result: g.winners.as_ref().map(|w| TournamentResult {
                                winners: w.iter().map(|&s| Seat(s)).collect(),
                                end: g.end,
                            }),
                        })
                        .collect()
                })
                .collect(),
            byes: self.rounds.iter().map(|r| r.bye.clone()).collect(),
            waiting: self.rounds.iter().map(|r| r.unpaired.clone()).collect(),
            standings: standings(self.format, &entrants, &self.records()),
            tiebreak: self.format.tiebreak_name().to_owned(),
            arena_pairing: (self.format == Format::Arena).then_some(self.arena_pairing),
        }
    }

    /// Its line in the list, for the account `viewer` (by key) if signed in.
    pub fn summary(&self, viewer: Option<&str>) -> TournamentSummary {
        TournamentSummary {
            id: self.id.clone(),
            name: self.name.clone(),
            game: self.game,
            format: self.format,
            status: self.status,
            starts_at_ms: self.starts_at_ms,
            players: u32::try_from(self.players.len()).unwrap_or(u32::MAX),
            max_players: self.max_players,
            round: u32::try_from(self.rounds.len()).unwrap_or(u32::MAX),
            rated: self.rated,
            kind: self.kind,
            entered: viewer.map(|key| {
                self.players
                    .iter()
                    .any(|p| !p.withdrawn && crate::accounts::name_key(&p.name) == key)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game stored before games kept how they ended reads without it.
    #[test]
    fn a_game_stored_without_its_end_reads_without_one() {
        let stored = serde_json::json!({
            "room": null, "board": 0, "deal": 0, "seats": ["ann", "bob"], "winners": [0]
        });
        let game: Result<DocGame, _> = serde_json::from_value(stored);
        let Ok(game) = game else {
            return assert!(game.is_ok(), "{game:?}");
        };
        assert_eq!(game.end, None);
        assert_eq!(game.winners, Some(vec![0]));
    }

    /// An arena stored before events named their pairing rule keeps the
    /// first rule, and its page says so, so its waves still re-check.
    #[test]
    fn an_arena_stored_without_a_rule_keeps_the_first_one() {
        let stored = serde_json::json!({
            "id": "4f1c2a9e8b7d", "name": "old", "created_by": "ann", "created_ms": 1,
            "game": "nimrod", "format": "arena", "rounds_asked": null, "minutes": 5,
            "options": {"piles": [3, 4]}, "clock": {"per_move": {"ms": 3000}},
            "rated": false, "duplicate": false, "kind": "any", "starts_at_ms": 2,
            "max_players": 16, "seed": "00", "commitment": "00", "status": "running",
            "players": [{"name": "ann"}], "rounds": []
        });
        let doc: Result<EventDoc, _> = serde_json::from_value(stored);
        let Ok(doc) = doc else {
            return assert!(doc.is_ok(), "{doc:?}");
        };
        assert_eq!(doc.arena_pairing, ArenaPairing::TopDown);
        assert_eq!(doc.rules().arena_pairing, ArenaPairing::TopDown);
        assert_eq!(doc.info().arena_pairing, Some(ArenaPairing::TopDown));
    }
}
