//! A player's record on their page: matches played, won, drawn and lost
//! per game, counted from the finished matches their account sat in.

use std::collections::BTreeMap;

use parlor_games::Outcome;
use serde::Serialize;

use crate::store::PlayedMatch;

/// One game's count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GameRecord {
    /// Matches that ended with an outcome.
    pub played: u64,
    /// Of those, won (a partnership's win counts for both partners).
    pub won: u64,
    /// Drawn.
    pub drawn: u64,
    /// Lost.
    pub lost: u64,
}

/// The record per game, from the matches an account sat in; a match
/// closed without an outcome (never started, abandoned, aborted) does
/// not count. An account that held two seats of one match counts it
/// once per seat (what each seat did).
pub fn tally(matches: &[PlayedMatch]) -> BTreeMap<String, GameRecord> {
    let mut out: BTreeMap<String, GameRecord> = BTreeMap::new();
    for m in matches {
        let Some(outcome) = &m.outcome else { continue };
        let r = out.entry(m.game.clone()).or_default();
        r.played += 1;
        match outcome {
            Outcome::Draw => r.drawn += 1,
            Outcome::Win { winners } if winners.contains(m.seat) => r.won += 1,
            Outcome::Win { .. } => r.lost += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use parlor_games::{Seat, SeatSet};
    use proptest::prelude::*;

    use super::*;

    fn set(seats: &[u8]) -> SeatSet {
        let mut s = SeatSet::EMPTY;
        for &i in seats {
            s.insert(Seat(i));
        }
        s
    }

    fn played(game: &str, seat: u8, outcome: Option<Outcome>) -> PlayedMatch {
        PlayedMatch {
            game: game.into(),
            seat: Seat(seat),
            outcome,
        }
    }

    #[test]
    fn wins_draws_losses_and_partnerships_count_per_game() {
        let win0 = Some(Outcome::Win {
            winners: SeatSet::single(Seat(0)),
        });
        let partners = Some(Outcome::Win {
            winners: set(&[1, 3]),
        });
        let rows = vec![
            played("nimrod", 0, win0),
            played("nimrod", 1, win0),
            played("nimrod", 1, Some(Outcome::Draw)),
            played("nimrod", 0, None),
            played("cribbage", 3, partners),
        ];
        let t = tally(&rows);
        assert_eq!(
            t["nimrod"],
            GameRecord {
                played: 3,
                won: 1,
                drawn: 1,
                lost: 1
            }
        );
        assert_eq!(t["cribbage"].won, 1);
        assert!(!t.contains_key("rummikub"));
    }

    proptest! {
        #[test]
        fn played_is_won_plus_drawn_plus_lost(rows in proptest::collection::vec((0u8..4, 0u8..3, 0u8..16), 0..60)) {
            let rows: Vec<PlayedMatch> = rows
                .into_iter()
                .map(|(seat, kind, winners)| {
                    let outcome = match kind {
                        0 => None,
                        1 => Some(Outcome::Draw),
                        _ => Some(Outcome::Win {
                            winners: set(
                                &(0..4u8).filter(|s| winners & (1 << s) != 0).collect::<Vec<_>>(),
                            ),
                        }),
                    };
                    played("nimrod", seat, outcome)
                })
                .collect();
            let counted = rows.iter().filter(|r| r.outcome.is_some()).count() as u64;
            let r = tally(&rows).get("nimrod").copied().unwrap_or_default();
            prop_assert_eq!(r.played, counted);
            prop_assert_eq!(r.won + r.drawn + r.lost, r.played);
        }
    }
}
