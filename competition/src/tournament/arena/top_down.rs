//! The first arena rule ([`super::ArenaPairing::TopDown`]), kept so that
//! events made under it still re-check: the highest-ranked unpaired
//! player meets the next free player down the ranking who was not the
//! last opponent of either; a player with no such partner waits.

use super::Field;

/// Pairs of ranking positions, and the positions left waiting.
pub(super) fn pair(field: &Field<'_>) -> (Vec<(usize, usize)>, Vec<usize>) {
    let n = field.ranked.len();
    let mut taken = vec![false; n];
    let mut pairs = Vec::new();
    let mut waiting = Vec::new();
    for i in 0..n {
        if taken[i] {
            continue;
        }
        match (i + 1..n).find(|&j| !taken[j] && field.allowed(i, j)) {
            Some(j) => {
                taken[i] = true;
                taken[j] = true;
                pairs.push((i, j));
            }
            None => waiting.push(i),
        }
    }
    (pairs, waiting)
}
