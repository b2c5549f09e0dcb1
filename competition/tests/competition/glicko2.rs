//! Glicko-2 against Glickman's worked example, and the properties a
//! rating fold must have.

use parlor_competition::{GameResult, Glicko2, Rating};
use proptest::prelude::*;

const SYSTEM: Glicko2 = Glicko2::PARLOR;

fn rating(rating: f64, rd: f64) -> Rating {
    Rating {
        rating,
        rd,
        vol: 0.06,
    }
}

fn game(opponent: Rating, score: f64) -> GameResult {
    GameResult { opponent, score }
}

/// The paper's example: a 1500 / 200 / 0.06 player beats a 1400 / 30 and
/// loses to a 1550 / 100 and a 1700 / 300 in one period. In exact
/// arithmetic the result is 1464.05 / 151.52 / 0.05999 (the paper rounds
/// its intermediate steps and prints 1464.06).
#[test]
fn glickmans_worked_example() {
    let player = rating(1500.0, 200.0);
    let after = SYSTEM.rate(
        player,
        &[
            game(rating(1400.0, 30.0), 1.0),
            game(rating(1550.0, 100.0), 0.0),
            game(rating(1700.0, 300.0), 0.0),
        ],
    );
    assert!((after.rating - 1464.05).abs() < 0.005, "{after:?}");
    assert!((after.rd - 151.52).abs() < 0.005, "{after:?}");
    // The paper prints the volatility cut to five places (0.059996...).
    assert!((after.vol - 0.05999).abs() < 0.000_01, "{after:?}");
    assert!(after.vol < 0.06, "{after:?}");
}

/// A newcomer's deviation after a long absence is back at the start, and
/// a day's growth is step 6's.
#[test]
fn idle_days_widen_the_deviation_up_to_the_initial_one() {
    let p = rating(1700.0, 60.0);
    let one = SYSTEM.idle(p, 1);
    let phi: f64 = 60.0 / 173.7178;
    let want = (phi * phi + 0.06 * 0.06).sqrt() * 173.7178;
    assert!((one.rd - want).abs() < 1e-9, "{one:?}");
    assert_eq!(one.rating, p.rating);
    let two_by_one = SYSTEM.idle(one, 1);
    let two = SYSTEM.idle(p, 2);
    assert!((two.rd - two_by_one.rd).abs() < 1e-9);
    assert_eq!(SYSTEM.idle(p, 1_000_000).rd, 350.0);
    assert_eq!(SYSTEM.idle(p, 0), p);
}

fn any_rating() -> impl Strategy<Value = Rating> {
    (800.0..2400.0f64, 45.0..=350.0f64, 0.03..0.09f64).prop_map(|(rating, rd, vol)| Rating {
        rating,
        rd,
        vol,
    })
}

proptest! {
    /// In a two-player match the winner's rating never falls and the
    /// loser's never rises; a draw moves the ratings towards each other.
    #[test]
    fn winners_never_fall_and_losers_never_rise(a in any_rating(), b in any_rating()) {
        let a_won = SYSTEM.rate(a, &[game(b, 1.0)]);
        let b_lost = SYSTEM.rate(b, &[game(a, 0.0)]);
        prop_assert!(a_won.rating >= a.rating, "{a:?} beat {b:?}: {a_won:?}");
        prop_assert!(b_lost.rating <= b.rating, "{b:?} lost to {a:?}: {b_lost:?}");
    }

    /// The deviation never leaves [45, 350], whatever the period holds.
    #[test]
    fn the_deviation_stays_within_its_bounds(
        p in any_rating(),
        games in proptest::collection::vec((any_rating(), 0u8..3), 0..8),
        days in 0u64..5_000,
    ) {
        let results: Vec<_> = games.iter().map(|(o, s)| game(*o, f64::from(*s) / 2.0)).collect();
        let after = SYSTEM.rate(SYSTEM.idle(p, days), &results);
        prop_assert!((45.0..=350.0).contains(&after.rd), "{after:?}");
        prop_assert!(after.rating.is_finite() && after.vol.is_finite() && after.vol > 0.0);
    }

    /// The same period folds to bit-identical ratings every time.
    #[test]
    fn a_fold_is_deterministic(
        p in any_rating(),
        games in proptest::collection::vec((any_rating(), 0u8..3), 1..6),
    ) {
        let results: Vec<_> = games.iter().map(|(o, s)| game(*o, f64::from(*s) / 2.0)).collect();
        let x = SYSTEM.rate(p, &results);
        let y = SYSTEM.rate(p, &results);
        prop_assert_eq!(x.rating.to_bits(), y.rating.to_bits());
        prop_assert_eq!(x.rd.to_bits(), y.rd.to_bits());
        prop_assert_eq!(x.vol.to_bits(), y.vol.to_bits());
    }
}

/// Two newcomers, one game: the example ledger line (1662.3 /
/// 290.3 / 0.059999 for the winner); the loser mirrors the winner.
#[test]
fn two_newcomers_one_game() {
    let newcomer = SYSTEM.initial;
    let won = SYSTEM.rate(newcomer, &[game(newcomer, 1.0)]);
    let lost = SYSTEM.rate(newcomer, &[game(newcomer, 0.0)]);
    assert!((won.rating - 1662.31).abs() < 0.005, "{won:?}");
    assert!((won.rd - 290.32).abs() < 0.005, "{won:?}");
    assert!((won.vol - 0.059_999_7).abs() < 1e-7, "{won:?}");
    assert!((won.rating - 1500.0 + (lost.rating - 1500.0)).abs() < 1e-9);
    assert_eq!(won.rd, lost.rd);
}
