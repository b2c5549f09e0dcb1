//! Lose positions (Wythoff pairs) and the moves that reach them.
//!
//! The k-th lose position is `(floor(k*phi), floor(k*phi) + k)`. Both are
//! computed exactly in integers: for `k > 0`, `k*sqrt(5)` is irrational, so
//! `floor(k*phi) = floor((k + isqrt(5*k^2)) / 2)`.

use crate::nimrod::piles::Piles;
use crate::nimrod::play::Move;

/// `floor(k * phi)`, the lesser pile of the k-th lose position.
pub fn lower_wythoff(k: u64) -> u64 {
    let k = u128::from(k);
    // k <= MAX_PILE, so 5*k^2 < 2^127 and the result fits back in a u64.
    let v = (k + (5 * k * k).isqrt()) / 2;
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// The k-th lose position, counting `(0, 0)` as the 0th.
pub fn lose_position(k: u64) -> Piles {
    let a = lower_wythoff(k);
    Piles::normalised(a, a.saturating_add(k))
}

/// The first `n` lose positions.
pub fn lose_positions(n: u64) -> Vec<Piles> {
    (0..n).map(lose_position).collect()
}

/// Whether the player to move from `p` loses against perfect play.
/// Constant time.
pub fn is_lose(p: Piles) -> bool {
    lower_wythoff(p.b() - p.a()) == p.a()
}

/// Which lose position holds `n`, and whether as its lesser pile:
/// `(k, true)` when `n = floor(k*phi)`, `(k, false)` when `n` is the greater
/// pile of the k-th. Every natural number is in exactly one lose position
/// (0 is in `(0, 0)`, reported as its lesser pile).
fn wythoff_index(n: u64) -> (u64, bool) {
    let n128 = u128::from(n);
    let root5n = (5 * n128 * n128).isqrt();
    // k ~ n / phi for a lesser pile, k ~ n / phi^2 for a greater one; the
    // estimates are within one of the truth, so a small window settles it.
    let lesser_guess = u64::try_from((root5n.saturating_sub(n128)) / 2).unwrap_or(0);
    for k in lesser_guess.saturating_sub(2)..=lesser_guess.saturating_add(2) {
        if lower_wythoff(k) == n {
            return (k, true);
        }
    }
    let greater_guess = u64::try_from((3 * n128).saturating_sub(root5n) / 2).unwrap_or(0);
    for k in greater_guess.saturating_sub(2)..=greater_guess.saturating_add(2) {
        if lower_wythoff(k).saturating_add(k) == n {
            return (k, false);
        }
    }
    // Unreachable for n <= MAX_PILE: Beatty sequences partition the naturals.
    (0, true)
}

/// Every move from `from` to `to`, with the target taken in either
/// orientation (with equal piles, taking from A or from B are two moves).
fn moves_to(from: Piles, to: Piles) -> impl Iterator<Item = Move> {
    let (a, b) = (from.a(), from.b());
    let (c, d) = (to.a(), to.b());
    let straight = a.checked_sub(c).zip(b.checked_sub(d));
    let crossed = a.checked_sub(d).zip(b.checked_sub(c));
    [straight, crossed]
        .into_iter()
        .flatten()
        .map(|(x, y)| Move::new(x, y))
        .filter(|m| m.is_valid())
}

/// The move from `from` to `to` if one legal move does it, with the target
/// taken in either orientation (the seed's `move-to`).
pub fn move_to(from: Piles, to: Piles) -> Option<Move> {
    moves_to(from, to).next()
}

/// Every move from `p` to a lose position, ascending; empty when `p` is
/// itself a lose position. At most three exist.
pub fn winning_moves(p: Piles) -> Vec<Move> {
    if is_lose(p) {
        return Vec::new();
    }
    let (a, b) = (p.a(), p.b());
    let mut targets = Vec::with_capacity(3);
    // Same number from both piles keeps the difference d.
    let d = b - a;
    let lower = lower_wythoff(d);
    if lower < a {
        targets.push(Piles::normalised(lower, lower + d));
    }
    // Keep pile A, shrink pile B to A's partner.
    let (k, a_is_lesser) = wythoff_index(a);
    let partner = if a_is_lesser {
        a.saturating_add(k)
    } else {
        a - k
    };
    if partner < b {
        targets.push(Piles::normalised(a, partner));
    }
    // Keep pile B, shrink pile A to B's partner (only a lesser one fits).
    let (k, b_is_lesser) = wythoff_index(b);
    if !b_is_lesser && b - k < a {
        targets.push(Piles::normalised(b - k, b));
    }
    let mut moves: Vec<Move> = targets.into_iter().flat_map(|t| moves_to(p, t)).collect();
    moves.sort();
    moves.dedup();
    moves
}

/// A move to a lose position, if there is one: the one taking the most
/// rods, so that a finishing move is preferred.
pub fn best_move(p: Piles) -> Option<Move> {
    winning_moves(p)
        .into_iter()
        .max_by_key(|m| (u128::from(m.take[0]) + u128::from(m.take[1]), m.take))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piles(x: u64, y: u64) -> Piles {
        Piles::new(x, y).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn first_lose_positions_match_the_seed() {
        let got: Vec<(u64, u64)> = lose_positions(7).iter().map(|p| (p.a(), p.b())).collect();
        assert_eq!(
            got,
            vec![(0, 0), (1, 2), (3, 5), (4, 7), (6, 10), (8, 13), (9, 15)]
        );
    }

    #[test]
    fn move_to_examples_from_the_seed() {
        assert_eq!(move_to(piles(4, 6), piles(3, 5)), Some(Move::new(1, 1)));
        assert_eq!(move_to(piles(1, 2), piles(3, 5)), None);
        assert_eq!(move_to(piles(5, 12), piles(3, 5)), Some(Move::new(0, 9)));
    }

    #[test]
    fn huge_piles_are_classified_exactly() {
        // floor(k*phi) for k = 10^15, checked against phi to 40 digits:
        // 1.618033988749894848204586834365638117720...
        let k = 1_000_000_000_000_000u64;
        assert_eq!(lower_wythoff(k), 1_618_033_988_749_894);
        let p = lose_position(k);
        assert!(is_lose(p));
        assert!(!is_lose(piles(p.a() + 1, p.b())));
        assert!(!is_lose(piles(p.a(), p.b() + 1)));
        let off = piles(p.a() + 5, p.b() + 7);
        let mv = best_move(off).unwrap_or_else(|| panic!("no move from {off:?}"));
        assert!(is_lose(
            off.after(mv).unwrap_or_else(|| panic!("illegal {mv:?}"))
        ));
    }
}
