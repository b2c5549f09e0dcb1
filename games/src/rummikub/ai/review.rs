//! The analysis of a finished hosted match: the input of the `replay`
//! tool (P1's predicted win fraction before and after every move), built
//! from the match's options, seats, RNG and steps. The rules never read
//! it: the game's [`Analysis`](crate::analysis::Analysis) offers it.

use serde_json::{json, Value};

use crate::game::{Game, Seat};
use crate::rng::GameRng;
use crate::rummikub::action::{Action, Move};
use crate::rummikub::game::{Config, Rummikub};

/// The tool a finished match is analysed with.
pub const REVIEW_TOOL: &str = "replay";

/// The `replay` tool's input for a finished two-seat match: the racks as
/// dealt, the bag in drawing order, and every action in the seed's form (a
/// draw names the block it took: public once the match is over; rows as
/// the table shows them). The seed's game has no forfeit, so the actions
/// stop at one. `rng` is the match's generator as it was before the deal.
///
/// Errors, for people: a match of other than two seats (predictions are
/// for two players), options that do not set up, a step that does not
/// replay.
pub fn replay_input(
    cfg: &Config,
    seats: u8,
    mut rng: GameRng,
    steps: &[(Seat, Option<Move>)],
) -> Result<Value, String> {
    if seats != 2 {
        return Err("predictions are for two-player Rummikub matches".into());
    }
    if !cfg.empty_bag.is_end() {
        return Err(format!(
            "predictions count by the specification's ending (the game is drawn when a player \
             must draw from an empty bag), but this match was played with empty_bag \"{}\"",
            cfg.empty_bag
        ));
    }
    let mut game = Rummikub::setup(cfg, seats, &mut rng)
        .map_err(|e| format!("the match cannot be set up: {e}"))?;
    let (p1, p2, bag) = (
        game.rack(Seat(0)).to_vec(),
        game.rack(Seat(1)).to_vec(),
        game.bag(),
    );
    let mut actions: Vec<Action> = Vec::new();
    for (i, (seat, mv)) in steps.iter().enumerate() {
        let fail = |why: String| format!("step {i} does not replay: {why}");
        let Some(mv) = mv else { break };
        let drawn = game.bag().first().copied();
        let shown = game.canonical(*seat, mv);
        game.play(*seat, mv, &mut rng)
            .map_err(|e| fail(e.to_string()))?;
        // Accepted, so a draw found a block in the bag.
        let action = shown
            .to_action(drawn)
            .ok_or_else(|| fail("a draw from an empty bag".into()))?;
        actions.push(action);
    }
    Ok(json!({ "p1": p1, "p2": p2, "bag": bag, "actions": actions }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rummikub::empty_bag::EmptyBag;

    #[test]
    fn a_match_that_passes_is_not_predicted_by_the_specifications_ending() {
        let pass = Config {
            empty_bag: EmptyBag::Pass,
            ..Config::default()
        };
        let refused = replay_input(&pass, 2, GameRng::from_seed(4), &[]);
        assert!(
            refused
                .as_ref()
                .is_err_and(|e| e.contains("empty_bag \"pass\"")),
            "{refused:?}"
        );
        assert!(replay_input(&Config::default(), 2, GameRng::from_seed(4), &[]).is_ok());
    }
}
