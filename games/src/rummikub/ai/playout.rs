//! Playouts: a game on the bit board played to its end by a fast policy,
//! with its own small generator so that a playout costs a few hundred
//! nanoseconds of arithmetic.

use super::board::{Board, Ending, Step};

/// Steps after which a playout stops and counts as a draw. A hosted game
/// ends well within this (blocks only move forward, see
/// [`Rummikub::max_steps`](crate::game::Game::max_steps)); the bound only
/// guards the loop.
pub const PLAYOUT_STEPS: usize = 1_000;

/// SplitMix64: a tiny, fast generator for the playouts' own choices
/// (seeded from the bot's [`GameRng`](crate::GameRng), so a decision is
/// still a function of the generator handed in).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mix(u64);

impl Mix {
    pub(crate) fn new(seed: u64) -> Mix {
        Mix(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform enough on `0..n` for a playout (n well below 2^32).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((self.next() >> 32).wrapping_mul(n as u64) >> 32) as usize
    }
}

/// How the playouts choose among plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Uniformly at random.
    Random,
    /// A new row before an extension, higher numbers first, like the
    /// `greedy` bot; one time in `explore` a random play instead.
    Greedy {
        /// One random play in this many (0: never).
        explore: u32,
    },
}

/// The greedy preference of `step`, larger first: rows before extensions,
/// then the higher numbers.
fn greedy_rank(step: Step) -> u64 {
    let top = 63 - u64::from(step.blocks().leading_zeros());
    u64::from(step.laid()) * 64 + top
}

impl Policy {
    /// The policy's pick among `plays` (not empty).
    fn pick(self, plays: &[Step], rng: &mut Mix) -> Step {
        let random = |rng: &mut Mix| {
            plays
                .get(rng.below(plays.len()))
                .copied()
                .unwrap_or(Step::Pass)
        };
        match self {
            Policy::Random => random(rng),
            Policy::Greedy { explore } => {
                if explore > 0 && rng.below(explore as usize) == 0 {
                    return random(rng);
                }
                plays
                    .iter()
                    .copied()
                    .max_by_key(|&s| greedy_rank(s))
                    .unwrap_or(Step::Pass)
            }
        }
    }
}

/// Plays `board` to its end, every seat by `policy`; `buf` is scratch.
pub(crate) fn play_out(
    board: &mut Board,
    policy: Policy,
    rng: &mut Mix,
    buf: &mut Vec<Step>,
) -> Ending {
    for _ in 0..PLAYOUT_STEPS {
        if let Some(ending) = board.ending() {
            return ending;
        }
        board.steps(buf);
        let step = match buf.as_slice() {
            [only] => *only,
            plays => policy.pick(plays, rng),
        };
        board.apply(step);
    }
    Ending { winners: 0 }
}
