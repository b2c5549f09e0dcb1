//! `verify-tournament`'s check of the published seeding ratings against
//! the public ratings ledger: a server that raised a player's seeding
//! rating (even without changing the order) would otherwise go unseen,
//! since the pairings are re-derived from the page's own ratings.
//!
//! A player is seeded by their rating in the event's pool when they are
//! seeded: at the start, or (in an arena) when they join later. So the
//! published rating must be the one the ledger gave them at some moment
//! from the start on: the rating in force at `starts_at_ms` (1500 with no
//! rated match before it), or the `after` of one of their later lines.

use parlor_competition::tournament::UNRATED_SEEDING;
use parlor_competition::LedgerLine;
use parlor_protocol::TournamentInfo;

/// How far a published seeding rating may be from the ledger's: both
/// are the same `f64` in shortest round-trip JSON, so anything but
/// rounding noise is a change.
pub const TOLERANCE: f64 = 1e-9;

/// The first player whose published seeding rating is none the ledger
/// (of the event's pool, oldest first) gave them from the start on:
/// why, for people.
pub fn check(p: &TournamentInfo, pool_lines: &[LedgerLine]) -> Result<(), String> {
    let pool = p.game.name();
    for player in &p.players {
        let published = player.rating.unwrap_or(UNRATED_SEEDING);
        let key = player.name.to_lowercase();
        // The player's ratings in the pool, as (time, rating after).
        let theirs = pool_lines
            .iter()
            .filter(|l| l.pool == pool)
            .filter_map(|l| {
                let me = l.players.iter().find(|x| x.name.to_lowercase() == key)?;
                Some((l.at_ms, me.after.rating))
            });
        let mut at_start = UNRATED_SEEDING;
        let mut later = Vec::new();
        for (at_ms, rating) in theirs {
            if at_ms <= p.starts_at_ms {
                at_start = rating;
            } else {
                later.push(rating);
            }
        }
        let near = |r: &f64| (r - published).abs() <= TOLERANCE;
        if !near(&at_start) && !later.iter().any(near) {
            return Err(format!(
                "{} is seeded with rating {published}; the ledger gave them {at_start} at the start{}",
                player.name,
                if later.is_empty() {
                    String::new()
                } else {
                    format!(" and {} other ratings since, none of them this one", later.len())
                }
            ));
        }
    }
    Ok(())
}
