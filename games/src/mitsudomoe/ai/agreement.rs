//! Mitsudomoe's engine agreement (see [`crate::analysis::agreement`]):
//! every legal turn is valued by the alpha-beta search
//! ([`root_values`]) at [`AGREEMENT_DEPTH`] turns, under the house rules
//! as the seat's view shows them. A turn is a choice when there is more
//! than one and the search does not value them all alike; it agrees when
//! its value is the best (on a tie, any of the best). A position whose
//! search would visit more than [`AGREEMENT_NODES`] positions is not
//! judged, so a match costs at most that per turn.

use super::search::{root_values, HouseRules};
use crate::analysis::{tally_match, verdict_of, Played, Tally, Verdict};
use crate::game::{Game, Seat, Viewer};
use crate::mitsudomoe::color::Color;
use crate::mitsudomoe::rules::canonical;
use crate::mitsudomoe::turn::Move;
use crate::mitsudomoe::view::View;
use crate::mitsudomoe::{Config, Mitsudomoe};
use crate::rng::GameRng;

/// Turns searched below each candidate: the opponent's best reply is
/// seen (a ball left to be jumped, a goal given away), which a static
/// look misses, while a position with a hundred turns and a hundred
/// replies each stays near ten thousand evaluations. Kept small because
/// it runs on every turn of every rated match.
pub const AGREEMENT_DEPTH: u32 = 2;

/// Most positions one turn's judgement may visit: a few times what
/// [`AGREEMENT_DEPTH`] needs in a crowded middle game (some 10^4), so that
/// only freak positions go unjudged and a match of a few hundred turns
/// stays within seconds.
pub const AGREEMENT_NODES: u64 = 100_000;

/// The verdict on `seat` playing `mv` in `view` (the seat's own).
pub fn judge(view: &View, seat: Seat, mv: &Move) -> Verdict {
    if view.next != Some(seat) || view.end.is_some() {
        return Verdict::NoChoice;
    }
    let Some(pos) = view
        .read_position()
        .filter(|p| Color::of_seat(seat) == Some(p.to_move()))
    else {
        return Verdict::NoChoice;
    };
    let Some(values) = root_values(
        &pos,
        AGREEMENT_DEPTH,
        HouseRules::of_view(view),
        AGREEMENT_NODES,
    ) else {
        return Verdict::NoChoice;
    };
    // The legal list holds each turn in canonical form.
    let mv = canonical(&pos, mv);
    let Some(&(_, chosen)) = values.iter().find(|(m, _)| *m == mv) else {
        return Verdict::NoChoice;
    };
    let only: Vec<i32> = values.iter().map(|(_, v)| *v).collect();
    verdict_of(&only, chosen)
}

/// Each seat's agreement in a finished Mitsudomoe match.
pub fn agreement(
    cfg: &Config,
    seats: u8,
    rng: GameRng,
    steps: &[Played<Move>],
) -> Result<Vec<Tally>, String> {
    tally_match::<Mitsudomoe>(cfg, seats, rng, steps, |game, seat, mv| {
        judge(&game.view(Viewer::Seat(seat)), seat, mv)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The turn `pick` chooses among the valued turns of `seat`'s view.
    fn valued(view: &View, seat: Seat) -> Vec<(Move, i32)> {
        let pos = view
            .read_position()
            .unwrap_or_else(|| panic!("no position"));
        assert_eq!(Color::of_seat(seat), Some(pos.to_move()));
        root_values(
            &pos,
            AGREEMENT_DEPTH,
            HouseRules::of_view(view),
            AGREEMENT_NODES,
        )
        .unwrap_or_else(|| panic!("over the node budget"))
    }

    /// Plays `turns` turns from the start, seat 0 taking the best-valued
    /// turn and seat 1 the worst; the steps.
    fn play(turns: usize) -> (Config, Vec<Played<Move>>) {
        let cfg = Config::default();
        let mut rng = GameRng::from_seed(5);
        let mut game = Mitsudomoe::setup(&cfg, 2, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        let mut steps = Vec::new();
        while steps.len() < turns && game.outcome().is_none() {
            let Some(seat) = game.to_act().iter().next() else {
                break;
            };
            let values = valued(&game.view(Viewer::Seat(seat)), seat);
            let pick = if seat == Seat(0) {
                values.iter().max_by_key(|(_, v)| *v)
            } else {
                values.iter().min_by_key(|(_, v)| *v)
            };
            let (mv, _) = *pick.unwrap_or_else(|| panic!("no turn"));
            game.play(seat, &mv, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
            steps.push(Played {
                seat,
                mv: Some(mv),
                chosen: true,
            });
        }
        (cfg, steps)
    }

    #[test]
    fn the_searchs_best_agrees_and_its_worst_does_not() {
        let (cfg, steps) = play(6);
        let t = agreement(&cfg, 2, GameRng::from_seed(5), &steps).unwrap_or_else(|e| panic!("{e}"));
        assert!(t[0].choices > 0, "{t:?}");
        assert_eq!(t[0].agreed, t[0].choices, "{t:?}");
        assert!(t[1].choices > 0, "{t:?}");
        assert_eq!(t[1].agreed, 0, "{t:?}");
    }

    #[test]
    fn another_seats_turn_is_no_choice() {
        let cfg = Config::default();
        let mut rng = GameRng::from_seed(5);
        let game = Mitsudomoe::setup(&cfg, 2, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        let view = game.view(Viewer::Seat(Seat(1)));
        let any = valued(&game.view(Viewer::Seat(Seat(0))), Seat(0))[0].0;
        assert_eq!(judge(&view, Seat(1), &any), Verdict::NoChoice);
    }
}
