//! A rated room's ratings: each account's rating beside its seat, what
//! the match's final step carries to the store (each seat's place and
//! partnership), and the change each player sees at the end. The room's
//! ratings state is [`RoomRatings`]; what needs the seats or the store
//! stays on the room.

use parlor_competition::ledger::DAY_MS;
use parlor_competition::{Glicko2, LedgerLine};
use parlor_games::{AnyGame, Seat};
use parlor_protocol::{provisional, RatingChange, SeatRating};

use super::actor::Room;
use crate::clock::now_ms;
use crate::store::{RatedEnd, RatedSeat, StoredRating};

/// How a stored rating shows beside a seat at `now_ms`: provisional if its
/// deviation, widened for the days since it last changed, is above the
/// threshold. A player new to the pool shows the initial rating.
pub fn seat_rating(stored: Option<StoredRating>, now_ms: u64) -> SeatRating {
    let system = Glicko2::PARLOR;
    let rating = stored.map_or(system.initial, |s| {
        system.idle(s.rating, now_ms.saturating_sub(s.last_ms) / DAY_MS)
    });
    SeatRating {
        // Ratings stay far inside i32; the cast only rounds.
        rating: rating.rating.round() as i32,
        provisional: provisional(rating.rd),
    }
}

/// Each player's change, from the match's ledger line.
pub fn changes(line: &LedgerLine) -> Vec<RatingChange> {
    line.players
        .iter()
        .map(|p| RatingChange {
            seat: Seat(p.seat),
            name: p.name.clone(),
            before: p.before.rating,
            after: p.after.rating,
            rd: p.after.rd,
        })
        .collect()
}

/// What a room shows of ratings: the rating beside each seat (rated
/// rooms only; empty elsewhere) and, once a rated match's ratings are
/// applied, each player's change.
#[derive(Debug, Default)]
pub(super) struct RoomRatings {
    /// Per seat: the rating shown beside it.
    shown: Vec<Option<SeatRating>>,
    /// Each player's change, once the match's ledger line is written.
    changes: Option<Vec<RatingChange>>,
}

impl RoomRatings {
    /// The ratings shown, by seat index (shorter than the seats, or
    /// empty, where none are shown).
    pub(super) fn shown(&self) -> &[Option<SeatRating>] {
        &self.shown
    }

    /// The rating shown beside seat `index`, if any.
    pub(super) fn of(&self, index: usize) -> Option<SeatRating> {
        self.shown.get(index).copied().flatten()
    }

    /// Shows `shown` beside the seats from now on.
    pub(super) fn show(&mut self, shown: Vec<Option<SeatRating>>) {
        self.shown = shown;
    }

    /// Each player's change, once known.
    pub(super) fn changes(&self) -> Option<&[RatingChange]> {
        self.changes.as_deref()
    }

    /// Takes each player's change from the match's ledger `line` (`None`:
    /// the match has none, or it could not be read).
    pub(super) fn record(&mut self, line: Option<&LedgerLine>) {
        self.changes = line.map(changes);
    }
}

impl Room {
    /// Whether the match is rated and every seat an account's: only then
    /// does its end change ratings.
    pub(super) fn rates(&self) -> bool {
        self.header.rated && self.seats.iter().all(|s| s.is_account())
    }

    /// Reads the ratings of the accounts seated here (rated rooms only),
    /// to show beside their seats.
    pub(super) async fn load_ratings(&mut self) {
        if !self.header.rated {
            return;
        }
        let pool = self.header.game.name();
        let now = now_ms();
        let mut shown = vec![None; self.seats.len()];
        for (i, slot) in self.seats.iter().enumerate() {
            let Some(key) = slot.account_key() else {
                continue;
            };
            match self.store().rating(pool, &key).await {
                Ok(r) => shown[i] = Some(seat_rating(r, now)),
                // Only the display lacks it; the match goes on.
                Err(e) => tracing::debug!(room = %self.id, error = %e, "cannot read a rating"),
            }
        }
        self.ratings.show(shown);
    }

    /// What the final step of this rated match carries to the store, from
    /// the finished `game`: every seat's account, place and partnership.
    pub(super) fn rated_end(&self, game: &AnyGame) -> Option<RatedEnd> {
        if !self.rates() {
            return None;
        }
        let places = game.places()?;
        let seats = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let seat = Seat(u8::try_from(i).ok()?);
                Some(RatedSeat {
                    name: slot.account_name()?.to_owned(),
                    account_key: slot.account_key()?,
                    seat,
                    team: game.team(seat),
                    place: *places.get(i)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(RatedEnd {
            pool: self.header.game.name().to_owned(),
            room: self.id.to_string(),
            commitment: self.commitment().unwrap_or_default(),
            seats,
            ended_ms: now_ms(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_competition::Rating;

    fn rating(rating: i32, provisional: bool) -> SeatRating {
        SeatRating {
            rating,
            provisional,
        }
    }

    #[test]
    fn ratings_shown_are_by_seat_and_absent_beyond_them() {
        let mut r = RoomRatings::default();
        assert_eq!(r.of(0), None);
        r.show(vec![Some(rating(1500, true)), None]);
        assert_eq!(r.of(0), Some(rating(1500, true)));
        assert_eq!(r.of(1), None);
        assert_eq!(r.of(2), None);
        assert_eq!(r.shown().len(), 2);
    }

    #[test]
    fn changes_come_from_the_ledger_line_once_recorded() {
        let mut r = RoomRatings::default();
        assert!(r.changes().is_none());
        r.record(None);
        assert!(r.changes().is_none());
        let at = |rating: f64, rd: f64| Rating {
            rating,
            rd,
            vol: 0.06,
        };
        let line = LedgerLine {
            n: 1,
            at_ms: 0,
            pool: "nimrod".into(),
            room: "r1".into(),
            commitment: String::new(),
            players: vec![parlor_competition::ledger::LedgerPlayer {
                name: "alice".into(),
                seat: 1,
                team: None,
                place: 1,
                before: at(1500.0, 350.0),
                after: at(1662.3, 290.3),
            }],
            void: None,
            prev: String::new(),
            hash: String::new(),
        };
        r.record(Some(&line));
        let changes = r.changes().unwrap();
        assert_eq!(changes.len(), 1);
        assert_eq!(
            (changes[0].seat, changes[0].name.as_str()),
            (Seat(1), "alice")
        );
        assert_eq!((changes[0].before, changes[0].after), (1500.0, 1662.3));
    }

    #[test]
    fn a_new_player_shows_the_initial_rating_as_provisional() {
        let r = seat_rating(None, 0);
        assert_eq!((r.rating, r.provisional), (1500, true));
    }

    #[test]
    fn a_settled_rating_turns_provisional_after_long_idleness() {
        let stored = StoredRating {
            rating: Rating {
                rating: 1612.4,
                rd: 60.0,
                vol: 0.06,
            },
            games: 40,
            last_ms: 0,
        };
        let fresh = seat_rating(Some(stored), DAY_MS);
        assert_eq!((fresh.rating, fresh.provisional), (1612, false));
        let idle = seat_rating(Some(stored), 3000 * DAY_MS);
        assert_eq!((idle.rating, idle.provisional), (1612, true));
    }
}
