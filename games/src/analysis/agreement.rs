//! Engine agreement: how often a seat's decisions in a finished match
//! were the ones the game's own engine prefers, counted over the
//! positions that offered a real choice (at least two options the engine
//! tells apart). The server keeps these counts per account and pool for
//! its fair-play review; a game says what "a choice" and "agreeing" mean
//! for it in its `ai::agreement` module (see [`Analysis::agreement`]).
//!
//! Counts, never rates: a rate over three choices says nothing, and the
//! review's test needs both numbers.
//!
//! [`Analysis::agreement`]: super::Analysis::agreement

use serde::{Deserialize, Serialize};

use crate::game::{Game, Seat};
use crate::rng::GameRng;

/// One seat's decisions in a match: how many had a real choice, and in
/// how many of those the engine's preference was chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Decisions made in a position with a real choice.
    pub choices: u32,
    /// Of those, the ones that chose what the engine prefers.
    pub agreed: u32,
}

impl Tally {
    /// Counts one decision with a real choice.
    pub fn count(&mut self, agreed: bool) {
        self.choices = self.choices.saturating_add(1);
        if agreed {
            self.agreed = self.agreed.saturating_add(1);
        }
    }
}

/// One step of a finished match as the agreement reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played<M> {
    /// Who acted.
    pub seat: Seat,
    /// The move, `None` for a forfeit (which ends the match).
    pub mv: Option<M>,
    /// Whether the seat chose it: `false` for the default move the server
    /// played when the seat's clock ran out (played, never judged).
    pub chosen: bool,
}

/// What a game's judge says of one decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No real choice (a forced move, options all alike to the engine, or
    /// a position the engine does not judge within its bounds).
    NoChoice,
    /// A real choice; whether the engine's preference was chosen.
    Choice {
        /// The move chosen is among the engine's best.
        agreed: bool,
    },
}

/// Replays a match of `G` from its options, seats, generator before the
/// deal and steps, asking `judge` about every chosen move before it is
/// played (with the game as it stood), and sums the verdicts per seat.
/// `Err` (for people): the match does not set up or a step does not
/// replay.
pub fn tally_match<G: Game>(
    cfg: &G::Config,
    seats: u8,
    mut rng: GameRng,
    steps: &[Played<G::Move>],
    mut judge: impl FnMut(&G, Seat, &G::Move) -> Verdict,
) -> Result<Vec<Tally>, String> {
    let mut game =
        G::setup(cfg, seats, &mut rng).map_err(|e| format!("the match cannot be set up: {e}"))?;
    let mut tallies = vec![Tally::default(); usize::from(seats)];
    for (i, step) in steps.iter().enumerate() {
        let Some(mv) = &step.mv else {
            // A forfeit ends the match: nothing after it is a decision.
            break;
        };
        if step.chosen {
            if let Verdict::Choice { agreed } = judge(&game, step.seat, mv) {
                if let Some(t) = tallies.get_mut(step.seat.index()) {
                    t.count(agreed);
                }
            }
        }
        game.play(step.seat, mv, &mut rng)
            .map_err(|e| format!("step {i} does not replay: {e}"))?;
    }
    Ok(tallies)
}

/// Whether the value of the move chosen is among the best of `values`
/// (one per legal option), and whether the options differ at all: the
/// verdict for engines that rate every option.
pub fn verdict_of<V: PartialOrd + Copy>(values: &[V], chosen: V) -> Verdict {
    let Some(&first) = values.first() else {
        return Verdict::NoChoice;
    };
    let best = values
        .iter()
        .copied()
        .fold(first, |b, v| if v > b { v } else { b });
    if values.len() < 2 || values.iter().all(|v| *v >= best) {
        return Verdict::NoChoice;
    }
    Verdict::Choice {
        agreed: chosen >= best,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_all_alike_are_no_choice_and_any_best_agrees() {
        assert_eq!(verdict_of::<i32>(&[], 0), Verdict::NoChoice);
        assert_eq!(verdict_of(&[3], 3), Verdict::NoChoice);
        assert_eq!(verdict_of(&[2, 2, 2], 2), Verdict::NoChoice);
        assert_eq!(verdict_of(&[1, 5, 5], 5), Verdict::Choice { agreed: true });
        assert_eq!(verdict_of(&[1, 5, 5], 1), Verdict::Choice { agreed: false });
    }

    #[test]
    fn a_tally_counts_choices_and_agreements() {
        let mut t = Tally::default();
        t.count(true);
        t.count(false);
        t.count(true);
        assert_eq!(
            t,
            Tally {
                choices: 3,
                agreed: 2
            }
        );
    }
}
