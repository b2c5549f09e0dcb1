//! A lower bound on the positions an exact count must expand, found in a
//! moment: a deal far too large for a budget is refused before the search
//! instead of after it has filled its time and memory.
//!
//! Alone, a player who only lays rows of their own blocks and extends
//! their own rows and the rows the position started with has `A(k)`
//! distinct positions after `k` turns, `B(k)` of them with a further such
//! turn. In the real game any of the mover's `k`-turn positions with any
//! of the other player's `k`-turn positions (or `k + 1` and `k` turns,
//! the other to move) is reached by playing the two lines in turn: neither
//! spoils the other's, for every block is unique (an nrow end has one
//! successor, owned by one player) and a crow takes each colour once.
//! Those positions are all distinct (the supplies tell whose rows are
//! whose), and each one whose mover can still play is expanded. So the
//! search expands at least `Σ B_m(k)·A_o(k) + A_m(k+1)·B_o(k)`
//! positions; counting only part of each `A` and `B` still gives a bound.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use super::predict::StateHasher;
use crate::rummikub::engine::{Engine, State, Step};
use crate::rummikub::position::Position;

/// Most positions of one player's line kept at one depth while bounding:
/// two depths of two players are at most 4 x 20,000 positions of 48
/// bytes (about 5 MiB with the tables' slack), and a few milliseconds of
/// work. A deal whose lines have more is counted in part (still a bound).
pub const PROBE_POSITIONS: usize = 20_000;

type Level = HashSet<State, BuildHasherDefault<StateHasher>>;

/// One player's positions at one depth, seen with that player to move.
struct Line {
    level: Level,
    /// Every position of `level` was found (none was left out for room).
    whole: bool,
}

impl Line {
    fn start(s: State) -> Line {
        let mut level = Level::default();
        level.insert(s);
        Line { level, whole: true }
    }

    /// The positions one turn further, and how many of this depth's have
    /// such a turn (`B`).
    fn step(&self, engine: &Engine, steps: &mut Vec<Step>) -> (Line, u128) {
        let mut next = Level::default();
        let mut whole = self.whole;
        let mut movers = 0u128;
        for s in &self.level {
            if engine.steps(s, steps).is_some() {
                continue;
            }
            let mut moved = false;
            for &step in steps.iter().filter(|&&st| st != Step::Draw) {
                moved = true;
                // `apply` hands the turn over; turn it back.
                let t = engine.apply(s, step);
                let own = State {
                    mover: t.other,
                    other: t.mover,
                    ..t
                };
                if own.mover == 0 {
                    continue;
                }
                if next.len() < PROBE_POSITIONS {
                    next.insert(own);
                } else if !next.contains(&own) {
                    whole = false;
                }
            }
            movers += u128::from(moved);
        }
        (Line { level: next, whole }, movers)
    }

    fn len(&self) -> u128 {
        self.level.len() as u128
    }
}

/// A number of distinct positions, each with a move, that an exact count
/// from `pos` ([`super::predict`]) must expand; it stops counting once
/// past `enough`. Costs at most a few milliseconds (see
/// [`PROBE_POSITIONS`]).
pub fn positions_at_least(pos: &Position, enough: u128) -> u128 {
    let (engine, root) = Engine::new(pos);
    engine_positions_at_least(&engine, &root, enough)
}

/// [`positions_at_least`] for a position in bit form.
pub(crate) fn engine_positions_at_least(engine: &Engine, root: &State, enough: u128) -> u128 {
    if root.mover == 0 || root.other == 0 {
        return 0;
    }
    let mut mover = Line::start(*root);
    let mut other = Line::start(State {
        mover: root.other,
        other: root.mover,
        ..*root
    });
    let mut steps = Vec::new();
    let mut total = 0u128;
    while total <= enough && (mover.len() > 0 || other.len() > 0) {
        let (mover_next, b_m) = mover.step(engine, &mut steps);
        let (other_next, b_o) = other.step(engine, &mut steps);
        total += b_m * other.len() + mover_next.len() * b_o;
        if !mover_next.whole || !other_next.whole {
            // A depth counted in part: deeper ones would be guesses.
            break;
        }
        mover = mover_next;
        other = other_next;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rummikub::ai::predict::predict_sequential;
    use crate::rummikub::block::Block;
    use crate::rummikub::position::Position;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;

    #[test]
    fn the_bound_never_exceeds_the_positions_a_count_expands() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        let mut bounded = 0;
        for round in 0..200 {
            let mut all = Block::hosted_set();
            all.shuffle(&mut rng);
            // Racks of 3 to 14 blocks and a bag of 0 to 5: searches of a
            // few to some thousands of positions.
            let (a, b, bag) = (3 + round % 12, 3 + (round / 3) % 12, round % 6);
            let pos = Position::deal(
                all[..a].to_vec(),
                all[a..a + b].to_vec(),
                all[a + b..a + b + bag].to_vec(),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            let (engine, root) = Engine::new(&pos);
            let (_, expanded) = predict_sequential(&pos);
            assert_eq!(
                positions_at_least(&pos, u128::MAX),
                engine_positions_at_least(&engine, &root, u128::MAX)
            );
            let bound = engine_positions_at_least(&engine, &root, u128::MAX);
            assert!(
                bound <= expanded as u128,
                "round {round}: bound {bound} > {expanded} expanded"
            );
            if bound > 0 {
                bounded += 1;
            }
        }
        // Not always zero: in about a quarter of these small deals the
        // player to move has a row at once (54 of 200 with this seed).
        assert!(bounded >= 40, "{bounded} of 200");
    }

    #[test]
    fn racks_of_many_lines_are_bounded_far_past_a_server_budget_at_once() {
        use crate::rummikub::block::Color;
        let run = |c: Color, lo: i64| (lo..=13).map(move |n| Block::new(n, c));
        // Racks of 25: two colours each, runs of 12 and 13.
        let p1 = run(Color::Red, 1).chain(run(Color::Blue, 2)).collect();
        let p2 = run(Color::Yellow, 1).chain(run(Color::Black, 2)).collect();
        let pos = Position::deal(p1, p2, Vec::new()).unwrap_or_else(|e| panic!("{e}"));
        let enough = 3_000_000;
        let bound = positions_at_least(&pos, enough);
        assert!(bound > enough, "{bound}");
        // It stopped soon after `enough`: one more depth at most, whose
        // terms are products of two depths of at most PROBE_POSITIONS.
        let most = 2 * (PROBE_POSITIONS as u128).pow(2);
        assert!(bound <= enough + most, "{bound}");
    }
}
