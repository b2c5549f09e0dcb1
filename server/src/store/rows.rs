//! Rows as every backend files them: a match's header, seats and steps as
//! plain columns (JSON as text, numbers as signed integers), encoded and
//! decoded here once, so that SQLite and Postgres store and restore the
//! very same values.

use parlor_games::{GameKind, Outcome, Seat};
use parlor_protocol::{Clock, Closed, Deal, LogEntry, LoggedAction, MatchHeader, MatchLog, RoomId};
use serde::{Deserialize, Serialize};

use super::{
    AccountGame, MatchKey, MatchRecord, Origin, StoreError, StoredMatch, StoredSeat, Turn,
};

/// The `deal` column: the server's half of a fair deal (each seat's client
/// seed is kept with its seat), and for a tournament's game, the event and
/// place in it the deal was derived for (kept here, with the deal it
/// explains, so that no layout change was needed).
#[derive(Serialize, Deserialize)]
struct DealColumn {
    commitment: String,
    server_seed: String,
    salt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    event: Option<Box<parlor_protocol::EventGame>>,
    /// A ladder game's players, kept the same way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ladder: Option<Box<parlor_protocol::LadderGame>>,
    /// The accounts a challenge or seek seated, kept the same way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    matched: Option<Box<parlor_protocol::MatchedGame>>,
}

pub(super) fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> Result<String, StoreError> {
    serde_json::to_string(v).map_err(|e| StoreError::Corrupt(e.to_string()))
}

pub(super) fn from_json<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, StoreError> {
    serde_json::from_str(s).map_err(|e| StoreError::Corrupt(format!("{e} in {s:?}")))
}

/// A new `matches` row's columns.
pub(super) struct NewHeader<'a> {
    pub room: &'a str,
    pub game: &'static str,
    pub options: String,
    pub seats: u8,
    /// The seed's bits as a signed integer (SQL integers are signed);
    /// fairly dealt matches have none (0, never read).
    pub seed: i64,
    pub clock: Option<String>,
    pub private: bool,
    pub deal: Option<String>,
    pub creator: Option<String>,
    pub creator_addr: Option<String>,
    pub created_ms: Option<i64>,
    pub rated: bool,
}

impl NewHeader<'_> {
    pub(super) fn encode(rec: &MatchRecord) -> Result<NewHeader<'_>, StoreError> {
        let h = &rec.header;
        let deal = h
            .deal
            .as_ref()
            .map(|d| {
                to_json(&DealColumn {
                    commitment: d.commitment.clone(),
                    server_seed: d.server_seed.clone(),
                    salt: d.salt.clone(),
                    event: h.event.clone(),
                    ladder: h.ladder.clone(),
                    matched: h.matched.clone(),
                })
            })
            .transpose()?;
        let o = &rec.origin;
        Ok(NewHeader {
            room: rec.room.as_str(),
            game: h.game.name(),
            options: to_json(&h.options)?,
            seats: h.seats,
            seed: h.seed.unwrap_or(0) as i64,
            clock: h.clock.as_ref().map(to_json).transpose()?,
            private: rec.private,
            deal,
            creator: o.creator.map(|t| t.to_string()),
            creator_addr: o.addr.map(|a| a.to_string()),
            created_ms: o.created_ms.map(|ms| ms as i64),
            rated: h.rated,
        })
    }
}

/// The `account_key` column of a seat: the account name's key for a seat
/// an account holds (what `my_games` looks seats up by), else none.
pub(super) fn account_key(who: &StoredSeat) -> Option<String> {
    match who {
        StoredSeat::Player {
            name,
            account: true,
            ..
        } => Some(parlor_protocol::account_key(name)),
        StoredSeat::Bot {
            account: Some(name),
            ..
        } => Some(parlor_protocol::account_key(name)),
        _ => None,
    }
}

/// A `matches` row as read.
pub(super) struct HeaderRow {
    pub id: i64,
    /// The epoch the match is held at (SQLite's: 1).
    pub epoch: i64,
    pub room: String,
    pub game: String,
    pub options: String,
    pub seats: u8,
    pub seed: i64,
    pub clock: Option<String>,
    pub private: bool,
    pub outcome: Option<String>,
    pub closed: Option<String>,
    pub deal: Option<String>,
    pub creator: Option<String>,
    pub creator_addr: Option<String>,
    pub created_ms: Option<i64>,
    /// Stored since SQLite's layout 5 and PostgreSQL's 4 (older: false).
    pub rated: bool,
    /// The `turn` column: a [`Turn`] as JSON, for rooms that record it.
    pub turn: Option<String>,
}

/// A header as decoded: what the log and a restore need of a `matches` row.
pub(super) struct Header {
    pub key: MatchKey,
    pub record: MatchRecord,
    pub outcome: Option<Outcome>,
    pub closed: Option<Closed>,
    pub turn: Option<Turn>,
}

impl HeaderRow {
    pub(super) fn decode(self) -> Result<Header, StoreError> {
        let row = self;
        let room = RoomId::new(row.room.clone())
            .ok_or_else(|| StoreError::Corrupt(format!("room id {:?}", row.room)))?;
        let game: GameKind = row
            .game
            .parse()
            .map_err(|e| StoreError::Corrupt(format!("{e}")))?;
        let column = row
            .deal
            .as_deref()
            .map(from_json::<DealColumn>)
            .transpose()?;
        let event = column.as_ref().and_then(|d| d.event.clone());
        let ladder = column.as_ref().and_then(|d| d.ladder.clone());
        let matched = column.as_ref().and_then(|d| d.matched.clone());
        let deal = column.map(|d| Deal {
            commitment: d.commitment,
            server_seed: d.server_seed,
            salt: d.salt,
            // Filled in from the seats.
            client_seeds: vec![None; usize::from(row.seats)],
            bot_seats: Vec::new(),
        });
        let header = MatchHeader {
            game,
            options: from_json(&row.options)?,
            seats: row.seats,
            seed: deal.is_none().then_some(row.seed as u64),
            deal,
            clock: row.clock.as_deref().map(from_json::<Clock>).transpose()?,
            rated: row.rated,
            event,
            ladder,
            matched,
        };
        let origin = Origin {
            creator: row.creator.as_deref().and_then(|t| t.parse().ok()),
            addr: row.creator_addr.as_deref().and_then(|a| a.parse().ok()),
            created_ms: row.created_ms.map(|ms| ms as u64),
        };
        Ok(Header {
            key: MatchKey::at(row.id, row.epoch),
            record: MatchRecord {
                room,
                header,
                private: row.private,
                origin,
            },
            outcome: row
                .outcome
                .as_deref()
                .map(from_json::<Outcome>)
                .transpose()?,
            closed: row.closed.as_deref().map(from_json::<Closed>).transpose()?,
            turn: row.turn.as_deref().map(from_json::<Turn>).transpose()?,
        })
    }
}

/// A `seats` row as read.
pub(super) struct SeatRow {
    pub seat: u8,
    pub kind: String,
    pub token: Option<String>,
    pub name: Option<String>,
    pub strategy: Option<String>,
    pub client_seed: Option<String>,
    /// Set for a seat an account holds (see [`account_key`]).
    pub account_key: Option<String>,
}

impl SeatRow {
    pub(super) fn decode(self) -> Result<(Seat, StoredSeat), StoreError> {
        let who = match (self.kind.as_str(), self.token, self.strategy) {
            ("player", Some(token), _) => StoredSeat::Player {
                token: token
                    .parse()
                    .map_err(|e| StoreError::Corrupt(format!("token: {e}")))?,
                name: self.name.unwrap_or_default(),
                client_seed: self.client_seed,
                account: self.account_key.is_some(),
            },
            ("bot", _, Some(strategy)) => StoredSeat::Bot {
                strategy,
                // An anchor's seat keeps its account's name beside the key.
                account: self.account_key.and(self.name),
            },
            (kind, _, _) => return Err(StoreError::Corrupt(format!("seat kind {kind:?}"))),
        };
        Ok((Seat(self.seat), who))
    }
}

/// A `moves` row as read.
pub(super) struct MoveRow {
    pub seq: i64,
    pub seat: u8,
    pub action: String,
    pub clocks: Option<String>,
}

/// A match's steps, in order, and the clocks after the last one.
#[derive(Default)]
pub(super) struct Steps {
    pub entries: Vec<LogEntry>,
    pub clocks: Option<Vec<u64>>,
}

impl Steps {
    /// Adds the next row (rows come in `seq` order).
    pub(super) fn push(&mut self, row: MoveRow) -> Result<(), StoreError> {
        self.entries.push(LogEntry {
            seq: row.seq as u64,
            seat: Seat(row.seat),
            action: from_json::<LoggedAction>(&row.action)?,
        });
        self.clocks = row
            .clocks
            .as_deref()
            .map(from_json::<Vec<u64>>)
            .transpose()?;
        Ok(())
    }
}

/// Puts each seat's client seed into the header's deal.
pub(super) fn fill_client_seeds(header: &mut MatchHeader, seats: &[(Seat, StoredSeat)]) {
    let Some(deal) = header.deal.as_mut() else {
        return;
    };
    deal.bot_seats = seats
        .iter()
        .filter(|(_, who)| matches!(who, StoredSeat::Bot { .. }))
        .map(|(seat, _)| *seat)
        .collect();
    for (seat, who) in seats {
        if let (StoredSeat::Player { client_seed, .. }, Some(slot)) =
            (who, deal.client_seeds.get_mut(seat.index()))
        {
            // An empty seed is a seat still waiting for its seed (the
            // room's mark, no checked seed is empty): it has given none.
            *slot = client_seed.clone().filter(|s| !s.is_empty());
        }
    }
}

/// The accounts of a rated match by seat, as its ledger line names them:
/// empty unless every one of its `count` seats is an account's (only
/// then was it rated).
fn rated_players(seats: &[(Seat, StoredSeat)], count: u8) -> Vec<String> {
    let mut by_seat: Vec<Option<&str>> = vec![None; usize::from(count)];
    for (seat, who) in seats {
        let name = match who {
            StoredSeat::Player {
                name,
                account: true,
                ..
            } => Some(name.as_str()),
            StoredSeat::Bot {
                account: Some(name),
                ..
            } => Some(name.as_str()),
            _ => None,
        };
        if let Some(slot) = by_seat.get_mut(seat.index()) {
            *slot = name;
        }
    }
    by_seat
        .into_iter()
        .map(|n| n.map(str::to_owned))
        .collect::<Option<Vec<_>>>()
        .unwrap_or_default()
}

impl Header {
    /// An unfinished match, to restore.
    pub(super) fn into_match(self, seats: Vec<(Seat, StoredSeat)>, steps: Steps) -> StoredMatch {
        let mut record = self.record;
        fill_client_seeds(&mut record.header, &seats);
        StoredMatch {
            key: self.key,
            record,
            seats,
            moves: steps.entries,
            clocks: steps.clocks,
            turn: self.turn,
        }
    }

    /// An account's game: `seat` is the account's.
    pub(super) fn into_game(self, seat: Seat, seats: Vec<(Seat, StoredSeat)>) -> AccountGame {
        AccountGame {
            record: self.record,
            seat,
            seats,
            turn: self.turn,
        }
    }

    /// The match's log.
    pub(super) fn into_log(self, seats: &[(Seat, StoredSeat)], steps: Steps) -> MatchLog {
        let mut record = self.record;
        fill_client_seeds(&mut record.header, seats);
        let players = if record.header.rated {
            rated_players(seats, record.header.seats)
        } else {
            Vec::new()
        };
        MatchLog {
            chat: Vec::new(),
            room: record.room,
            header: record.header,
            moves: steps.entries,
            outcome: self.outcome,
            closed: self.closed,
            players,
        }
    }
}
