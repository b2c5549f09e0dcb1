//! Pairing seeks: a pure function of the waiting seeks and the time, so it
//! is tested without a server and gives the same groups on every node.
//!
//! Seeks pair only with seeks of the same key (game, seat count, options,
//! clock and whether rated), never with another seek of the same player,
//! rated seeks never with a player either keeps apart (two accounts past
//! the rated pair cap, `fair_play`), no seek with a player a block keeps
//! it from (`blocks`), and the longest-waiting seek is
//! served first. Casual seeks take the
//! longest-waiting partners. Rated seeks take the partners nearest in
//! rating among those inside every member's window: each seek accepts
//! ratings within [`rating_window`] of its own, a window that starts at
//! [`WINDOW_START`] and widens by [`WINDOW_STEP`] for every
//! [`WINDOW_STEP_MS`] waited, up to [`WINDOW_MAX`].

use std::collections::BTreeMap;

/// A rated seek's window when it is new: opponents within 100 points are
/// close to even (a 64% expected score at the edge).
pub const WINDOW_START: f64 = 100.0;

/// How much the window widens at each step of waiting.
pub const WINDOW_STEP: f64 = 50.0;

/// How long a seek waits for each widening: a quiet pool still pairs
/// within a minute or two.
pub const WINDOW_STEP_MS: u64 = 5_000;

/// The widest window: beyond 700 points a game says little about either
/// player, and the weaker one would rather wait.
pub const WINDOW_MAX: f64 = 700.0;

/// Who a seek belongs to: a player is never paired with themself.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seeker {
    /// An account, by its name's key.
    Account(String),
    /// A guest, by its connection.
    Guest(u64),
}

/// A waiting seek.
#[derive(Clone, Debug, PartialEq)]
pub struct Seek<K> {
    /// The seek's id, unique among the waiting seeks.
    pub id: u64,
    /// What must match exactly for two seeks to pair.
    pub key: K,
    /// Whether the seek is rated (rated seeks pair by rating).
    pub rated: bool,
    /// How many players the match seats.
    pub seats: u8,
    /// Who seeks.
    pub seeker: Seeker,
    /// The seeker's rating in the game's pool.
    pub rating: f64,
    /// When the seek started, in milliseconds.
    pub since_ms: u64,
    /// Players a rated seek of this one is not paired with (the accounts
    /// it has had as many rated results with lately as count).
    pub apart: Vec<Seeker>,
    /// Players this seek is never paired with, rated or casual (a block
    /// between them, either way).
    pub blocked: Vec<Seeker>,
}

/// The rating window of a seek that has waited `waited_ms`.
pub fn rating_window(waited_ms: u64) -> f64 {
    let steps = waited_ms / WINDOW_STEP_MS;
    // Steps past the widest window add nothing; the cap also keeps the
    // float exact for any wait.
    let capped = steps.min(((WINDOW_MAX - WINDOW_START) / WINDOW_STEP) as u64);
    (WINDOW_START + capped as f64 * WINDOW_STEP).min(WINDOW_MAX)
}

/// Groups of seek ids, each group one match (in the order the seeks were
/// made), from the `seeks` waiting at `now_ms`. Seeks not in a group go on
/// waiting. Deterministic: the same seeks give the same groups.
pub fn pair<K: Ord + Clone>(seeks: &[Seek<K>], now_ms: u64) -> Vec<Vec<u64>> {
    let mut by_key: BTreeMap<&K, Vec<&Seek<K>>> = BTreeMap::new();
    for s in seeks {
        by_key.entry(&s.key).or_default().push(s);
    }
    let mut groups = Vec::new();
    for (_, mut pool) in by_key {
        pool.sort_by_key(|s| (s.since_ms, s.id));
        let mut taken = vec![false; pool.len()];
        for anchor in 0..pool.len() {
            if taken[anchor] {
                continue;
            }
            if let Some(mut group) = group_for(&pool, &taken, anchor, now_ms) {
                // The pool is in seek order, so its indices are too.
                group.sort_unstable();
                for &i in &group {
                    taken[i] = true;
                }
                groups.push(group.iter().map(|&i| pool[i].id).collect());
            }
        }
    }
    groups
}

/// The seeks (indices into `pool`) that make a match with `anchor`, if
/// enough acceptable ones wait.
fn group_for<K>(
    pool: &[&Seek<K>],
    taken: &[bool],
    anchor: usize,
    now_ms: u64,
) -> Option<Vec<usize>> {
    let a = pool[anchor];
    let need = usize::from(a.seats.max(2));
    let mut group = vec![anchor];
    // Candidates in the order they are preferred: for rated seeks nearest
    // in rating first (the longer waiter among equals), else oldest first.
    let mut candidates: Vec<usize> = (anchor + 1..pool.len()).filter(|&i| !taken[i]).collect();
    if a.rated {
        candidates.sort_by(|&i, &j| {
            let di = (pool[i].rating - a.rating).abs();
            let dj = (pool[j].rating - a.rating).abs();
            di.total_cmp(&dj).then(i.cmp(&j))
        });
    }
    for c in candidates {
        if group.len() == need {
            break;
        }
        let s = pool[c];
        let fits = group.iter().all(|&g| {
            let m = pool[g];
            m.seeker != s.seeker
                && !m.blocked.contains(&s.seeker)
                && !s.blocked.contains(&m.seeker)
                && (!a.rated
                    || (within_windows(m, s, now_ms)
                        && !m.apart.contains(&s.seeker)
                        && !s.apart.contains(&m.seeker)))
        });
        if fits {
            group.push(c);
        }
    }
    (group.len() == need).then_some(group)
}

/// Whether each of two rated seeks accepts the other's rating.
fn within_windows<K>(x: &Seek<K>, y: &Seek<K>, now_ms: u64) -> bool {
    let gap = (x.rating - y.rating).abs();
    gap <= rating_window(now_ms.saturating_sub(x.since_ms))
        && gap <= rating_window(now_ms.saturating_sub(y.since_ms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn seek(id: u64, key: u8, rated: bool, who: u64, rating: f64, since_ms: u64) -> Seek<u8> {
        Seek {
            id,
            key,
            rated,
            seats: 2,
            seeker: Seeker::Guest(who),
            rating,
            since_ms,
            apart: Vec::new(),
            blocked: Vec::new(),
        }
    }

    #[test]
    fn rated_seeks_kept_apart_do_not_pair_but_pair_with_others() {
        let apart = |s: Seek<u8>, other: u64| Seek {
            apart: vec![Seeker::Guest(other)],
            ..s
        };
        let seeks = vec![
            apart(seek(1, 0, true, 10, 1500.0, 0), 11),
            seek(2, 0, true, 11, 1500.0, 1),
        ];
        assert!(pair(&seeks, 10).is_empty());
        let mut more = seeks.clone();
        more.push(seek(3, 0, true, 12, 1500.0, 2));
        assert_eq!(pair(&more, 10), vec![vec![1, 3]]);
        // Casual seeks are not kept apart.
        let casual = vec![
            apart(seek(1, 0, false, 10, 1500.0, 0), 11),
            seek(2, 0, false, 11, 1500.0, 1),
        ];
        assert_eq!(pair(&casual, 10), vec![vec![1, 2]]);
    }

    #[test]
    fn blocked_seekers_never_pair_rated_or_casual_but_pair_with_others() {
        for rated in [false, true] {
            let blocked = |s: Seek<u8>, other: u64| Seek {
                blocked: vec![Seeker::Guest(other)],
                ..s
            };
            let seeks = vec![
                blocked(seek(1, 0, rated, 10, 1500.0, 0), 11),
                seek(2, 0, rated, 11, 1500.0, 1),
            ];
            assert!(pair(&seeks, 10).is_empty(), "rated {rated}");
            let mut more = seeks.clone();
            more.push(seek(3, 0, rated, 12, 1500.0, 2));
            more.push(seek(4, 0, rated, 13, 1500.0, 3));
            assert_eq!(pair(&more, 10), vec![vec![1, 3], vec![2, 4]]);
        }
    }

    #[test]
    fn the_window_widens_in_steps_up_to_its_cap() {
        assert_eq!(rating_window(0), WINDOW_START);
        assert_eq!(rating_window(WINDOW_STEP_MS - 1), WINDOW_START);
        assert_eq!(rating_window(WINDOW_STEP_MS), WINDOW_START + WINDOW_STEP);
        assert_eq!(rating_window(u64::MAX), WINDOW_MAX);
    }

    #[test]
    fn casual_seeks_pair_oldest_first_within_their_key_and_never_with_themselves() {
        let seeks = [
            seek(1, 0, false, 10, 1500.0, 0),
            seek(2, 0, false, 10, 1500.0, 1),
            seek(3, 1, false, 11, 1500.0, 2),
            seek(4, 0, false, 12, 1500.0, 3),
            seek(5, 0, false, 13, 1500.0, 4),
        ];
        assert_eq!(pair(&seeks, 10), vec![vec![1, 4], vec![2, 5]]);
    }

    #[test]
    fn rated_seeks_wait_for_the_window_then_take_the_nearest_rating() {
        let seeks = [
            seek(1, 0, true, 1, 1500.0, 0),
            seek(2, 0, true, 2, 1740.0, 0),
            seek(3, 0, true, 3, 1690.0, 0),
        ];
        // New: 1500 is 190 from 1690, outside 100; 1690 and 1740 pair.
        assert_eq!(pair(&seeks, 0), vec![vec![2, 3]]);
        let alone = [seeks[0].clone(), seeks[1].clone()];
        assert!(pair(&alone, 0).is_empty());
        // 240 apart: inside once both windows reach 250 (three steps).
        assert!(pair(&alone, 3 * WINDOW_STEP_MS - 1).is_empty());
        assert_eq!(pair(&alone, 3 * WINDOW_STEP_MS), vec![vec![1, 2]]);
    }

    #[test]
    fn a_match_of_three_seats_gathers_three_seekers() {
        let mut seeks: Vec<_> = (0..5)
            .map(|i| Seek {
                seats: 3,
                ..seek(i, 0, false, i, 1500.0, i)
            })
            .collect();
        seeks[1].seeker = Seeker::Guest(0);
        assert_eq!(pair(&seeks, 10), vec![vec![0, 2, 3]]);
    }

    proptest! {
        /// Groups are disjoint, of the right size and key, of distinct
        /// players, and rated groups sit within every member's window.
        #[test]
        fn groups_keep_every_rule(
            raw in proptest::collection::vec((0u8..3, any::<bool>(), 0u64..6, 1200.0..1900.0f64, 0u64..60_000, 2u8..5), 0..40),
            now in 60_000u64..200_000,
        ) {
            let seeks: Vec<_> = raw.iter().enumerate().map(|(i, &(key, rated, who, rating, since, seats))| Seek {
                id: i as u64, key: (key, rated, seats), rated, seats, seeker: Seeker::Guest(who), rating, since_ms: since, apart: Vec::new(), blocked: Vec::new(),
            }).collect();
            let groups = pair(&seeks, now);
            let mut seen = std::collections::HashSet::new();
            for g in &groups {
                let members: Vec<_> = g.iter().map(|id| &seeks[*id as usize]).collect();
                prop_assert_eq!(members.len(), usize::from(members[0].seats));
                for (i, x) in members.iter().enumerate() {
                    prop_assert!(seen.insert(x.id));
                    prop_assert_eq!(&x.key, &members[0].key);
                    for y in &members[i + 1..] {
                        prop_assert!(x.seeker != y.seeker);
                        if x.rated {
                            prop_assert!(within_windows(x, y, now));
                        }
                    }
                }
            }
            prop_assert_eq!(pair(&seeks, now), groups);
        }
    }
}
