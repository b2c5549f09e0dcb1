//! The arena rule of events made now ([`super::ArenaPairing::WaitsFirst`]):
//! nobody waits while a pairing for them exists, and those who waited
//! choose first.
//!
//! A player's *waits* are the earlier waves that left them waiting. The
//! free players take their turn in the order most waits first, then
//! ranking; each unpaired player in turn meets the free player nearest
//! them in the ranking (the better-ranked on a tie) who was not the last
//! opponent of either, and when the rest then cannot all be paired the
//! next candidate is tried (backtracking). As few players as possible
//! wait: first those whom no free player may meet, then as many more as
//! the count requires, taken from the end of the turn order (the set
//! whose members come latest, comparing its latest first). Past
//! [`SEARCH_STEPS`] steps each player in turn simply meets the nearest
//! free player still allowed, or waits.
//!
//! Why it does not starve: whoever waited goes first next time, so the
//! one left over moves round the field instead of staying with the two
//! players whose last game was against each other.

use super::Field;

/// The most partner trials (and choices of who waits) the search makes in one wave before it falls
/// back on the greedy pass: free players are at most an event's entrants
/// (500), and a pairing of everyone but the forced waiters is nearly
/// always found in a few hundred steps; the bound keeps a pathological
/// field from stalling the event's ticker.
pub const SEARCH_STEPS: u32 = 200_000;

/// Pairs of ranking positions, and the positions left waiting.
pub(super) fn pair(field: &Field<'_>) -> (Vec<(usize, usize)>, Vec<usize>) {
    let n = field.ranked.len();
    let waits = |i: usize| field.waits.get(field.ranked[i]).copied().unwrap_or(0);
    let mut turn: Vec<usize> = (0..n).collect();
    turn.sort_by(|&a, &b| waits(b).cmp(&waits(a)).then(a.cmp(&b)));
    // Each player's possible partners, nearest in the ranking first.
    let partners: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            let mut near: Vec<usize> = (0..n).filter(|&j| field.allowed(i, j)).collect();
            near.sort_by_key(|&j| (i.abs_diff(j), j));
            near
        })
        .collect();
    let forced: Vec<usize> = (0..n).filter(|&i| partners[i].is_empty()).collect();
    // The players who may be chosen to wait, latest turn first.
    let spare: Vec<usize> = turn
        .iter()
        .rev()
        .copied()
        .filter(|i| !partners[*i].is_empty())
        .collect();
    let mut search = Search {
        turn: &turn,
        partners: &partners,
        taken: vec![false; n],
        pairs: Vec::new(),
        steps: 0,
    };
    let mut extra = (n - forced.len()) % 2;
    while extra <= spare.len() {
        let mut chosen: Vec<usize> = (0..extra).collect();
        loop {
            search.steps += 1;
            if search.steps > SEARCH_STEPS {
                return greedy(&turn, &partners);
            }
            search.taken.fill(false);
            for &i in forced.iter().chain(chosen.iter().map(|&c| &spare[c])) {
                search.taken[i] = true;
            }
            search.pairs.clear();
            match search.pair_rest() {
                Some(true) => {
                    let mut waiting = forced.clone();
                    waiting.extend(chosen.iter().map(|&c| spare[c]));
                    return (search.pairs, waiting);
                }
                Some(false) => {}
                None => return greedy(&turn, &partners),
            }
            if !next_combination(&mut chosen, spare.len()) {
                break;
            }
        }
        extra += 2;
    }
    greedy(&turn, &partners)
}

/// The backtracking search for a pairing of every player not yet taken.
struct Search<'s> {
    turn: &'s [usize],
    partners: &'s [Vec<usize>],
    taken: Vec<bool>,
    pairs: Vec<(usize, usize)>,
    steps: u32,
}

impl Search<'_> {
    /// Pairs everyone left: `Some(true)` when done, `Some(false)` when no
    /// pairing exists, `None` when the step budget ran out.
    fn pair_rest(&mut self) -> Option<bool> {
        let Some(&me) = self.turn.iter().find(|&&i| !self.taken[i]) else {
            return Some(true);
        };
        self.taken[me] = true;
        for &other in &self.partners[me] {
            if self.taken[other] {
                continue;
            }
            self.steps += 1;
            if self.steps > SEARCH_STEPS {
                return None;
            }
            self.taken[other] = true;
            self.pairs.push((me, other));
            match self.pair_rest() {
                Some(true) => return Some(true),
                Some(false) => {
                    self.pairs.pop();
                    self.taken[other] = false;
                }
                None => return None,
            }
        }
        self.taken[me] = false;
        Some(false)
    }
}

/// The next `k`-combination of `0..n` in lexicographic order, in place;
/// false after the last.
fn next_combination(chosen: &mut [usize], n: usize) -> bool {
    let k = chosen.len();
    for i in (0..k).rev() {
        if chosen[i] < n - k + i {
            chosen[i] += 1;
            for j in i + 1..k {
                chosen[j] = chosen[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// The fallback: each player in turn meets the nearest free player still
/// allowed, or waits.
fn greedy(turn: &[usize], partners: &[Vec<usize>]) -> (Vec<(usize, usize)>, Vec<usize>) {
    let mut taken = vec![false; partners.len()];
    let mut pairs = Vec::new();
    let mut waiting = Vec::new();
    for &me in turn {
        if taken[me] {
            continue;
        }
        taken[me] = true;
        match partners[me].iter().find(|&&j| !taken[j]) {
            Some(&other) => {
                taken[other] = true;
                pairs.push((me, other));
            }
            None => waiting.push(me),
        }
    }
    (pairs, waiting)
}
