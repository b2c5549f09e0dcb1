//! A rated room's ratings: each account's rating beside its seat, what
//! the match's final step carries to the store (each seat's place and
//! partnership), and the change each player sees at the end.

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
        self.ratings = shown;
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
