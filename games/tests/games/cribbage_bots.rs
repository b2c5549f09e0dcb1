//! How much better the expert plays than the seed's player: many two-player
//! games, the first deal alternating between them, with the win rate and
//! its 95% confidence interval printed. Slow in a debug build, so ignored
//! by default; run it with
//!
//! ```text
//! cargo test --release -p parlor-games --test games cribbage_bots:: -- --ignored --nocapture
//! ```
//!
//! `CRIBBAGE_GAMES` sets the number of games (default 2000).

// Tests fail by panicking, helpers included.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::cribbage::{Config, Cribbage};
use parlor_games::{Bots, Game, GameRng, Outcome, Seat, Strategy, Viewer};

/// Games played when `CRIBBAGE_GAMES` is not set: enough for a 95%
/// interval of about +-2.2 points around a rate near one half.
const DEFAULT_GAMES: u64 = 2000;

/// Moves after which a game is declared stuck (a real game takes a few
/// hundred).
const MAX_MOVES: usize = 5000;

/// Plays one game, `expert` in seat `expert_seat`, seat 0 dealing first;
/// whether the expert won.
fn expert_wins(seed: u64, expert_seat: u8) -> bool {
    let mut rng = GameRng::from_seed(seed);
    let mut g = Cribbage::with_dealer(&Config::default(), 2, Seat(0), &mut rng)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut bots: Vec<Box<dyn Strategy<Cribbage>>> = (0..2)
        .map(|s| {
            let name = if s == expert_seat { "expert" } else { "seed" };
            Cribbage::strategy(name).unwrap_or_else(|| panic!("{name}"))
        })
        .collect();
    for _ in 0..MAX_MOVES {
        if let Some(Outcome::Win { winners }) = g.outcome() {
            return winners.contains(Seat(expert_seat));
        }
        let seat = g.to_act().iter().next().unwrap_or_else(|| panic!("stuck"));
        let view = g.view(Viewer::Seat(seat));
        let mv = bots[seat.index()]
            .choose(seat, &view, &mut rng)
            .unwrap_or_else(|| panic!("no move"));
        g.play(seat, &mv, &mut rng)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    panic!("game {seed} did not finish");
}

#[test]
#[ignore = "thousands of games: run in release with --ignored --nocapture"]
fn expert_beats_seed() {
    let games: u64 = std::env::var("CRIBBAGE_GAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_GAMES);
    let start = std::time::Instant::now();
    // Alternate who deals first: the expert deals first in even games.
    let wins = (0..games)
        .filter(|&i| expert_wins(i, if i % 2 == 0 { 0 } else { 1 }))
        .count() as f64;
    let n = games as f64;
    let p = wins / n;
    // Wilson score interval, z = 1.96.
    let z = 1.96f64;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    println!(
        "expert vs seed: {wins} wins in {games} games = {:.1}% (95% CI {:.1}%..{:.1}%), {:.1}s",
        100.0 * p,
        100.0 * (centre - half),
        100.0 * (centre + half),
        start.elapsed().as_secs_f64()
    );
    assert!(
        centre - half > 0.5,
        "the expert should beat the seed player"
    );
}
