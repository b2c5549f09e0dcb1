//! Parlor's house rules for Mitsudomoe: the third occurrence of a
//! position draws, and so does the room's turn limit; replays reach the
//! same ends, and the bots know both rules.

// Tests fail by panicking, helpers included.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use parlor_games::mitsudomoe::ai::search::{search, HouseRules, Limits, DRAW, WIN};
use parlor_games::mitsudomoe::{
    legal_turns, play, Config, End, EndReason, MaxTurns, Mitsudomoe, Move, Position,
};
use parlor_games::{Game, GameKind, GameRng, Outcome, Seat, Viewer};
use serde_json::json;

/// Black to move; each side has one ball that can walk round a triangle
/// of squares, each turn moving the exposed ring ahead of it (Black: C3,
/// C4, D3; White: B2, B1, A2), so three turns each bring the position
/// back. No ball is near a goal and no home fills.
const SHUFFLE: &str = ".,.,bB,.,./w,wW,.,.,./.,.,bB,b,bB/.,.,.,.,./.,.,.,wW,wW b";

/// The six turns of one lap of [`SHUFFLE`], Black first.
fn lap() -> Vec<Move> {
    [
        json!({"ring": {"from": "C4", "to": "D3"}, "ball": {"from": "C3", "to": "D3"}}),
        json!({"ring": {"from": "B1", "to": "A2"}, "ball": {"from": "B2", "to": "A2"}}),
        json!({"ring": {"from": "C3", "to": "C4"}, "ball": {"from": "D3", "to": "C4"}}),
        json!({"ring": {"from": "B2", "to": "B1"}, "ball": {"from": "A2", "to": "B1"}}),
        json!({"ring": {"from": "D3", "to": "C3"}, "ball": {"from": "C4", "to": "C3"}}),
        json!({"ring": {"from": "A2", "to": "B2"}, "ball": {"from": "B1", "to": "B2"}}),
    ]
    .into_iter()
    .map(|v| serde_json::from_value(v).unwrap())
    .collect()
}

fn setup(position: &str, max_turns: Option<u64>) -> Mitsudomoe {
    let cfg = Config {
        position: Some(position.to_owned()),
        max_turns: Some(max_turns.map_or_else(MaxTurns::default, |n| MaxTurns::new(n).unwrap())),
    };
    Mitsudomoe::setup(&cfg, 2, &mut GameRng::from_seed(0)).unwrap_or_else(|e| panic!("{e}"))
}

fn mover(g: &Mitsudomoe) -> Seat {
    g.to_act().iter().next().expect("someone to act")
}

#[test]
fn the_third_occurrence_of_a_position_draws() {
    let mut g = setup(SHUFFLE, None);
    let start: Position = SHUFFLE.parse().unwrap();
    let turns: Vec<Move> = lap().into_iter().chain(lap()).collect();
    for (i, mv) in turns.iter().enumerate() {
        assert_eq!(g.outcome(), None, "over before turn {i}");
        // The start comes back after each lap; the second time, the
        // view names it as one occurrence short of a draw.
        let view = g.view(Viewer::Spectator);
        if i == 6 {
            assert_eq!(g.occurrences(&start), 2);
            assert_eq!(view.repeated, vec![SHUFFLE.to_owned()]);
        }
        if i < 6 {
            assert!(view.repeated.is_empty(), "{:?} at {i}", view.repeated);
        }
        g.play(mover(&g), mv, &mut GameRng::from_seed(0))
            .unwrap_or_else(|e| panic!("turn {i}: {e}"));
    }
    assert_eq!(g.occurrences(&start), 3);
    assert_eq!(g.outcome(), Some(Outcome::Draw));
    assert_eq!(g.end(), Some(End::draw(EndReason::Repetition)));
    let view = g.view(Viewer::Seat(Seat(0)));
    assert_eq!(view.next, None);
    assert_eq!(view.turns, 12);
    assert_eq!(
        serde_json::to_value(view.end).unwrap(),
        json!({"winner": null, "reason": "repetition"})
    );
    assert!(g.legal_moves(Seat(0)).is_empty());
}

#[test]
fn a_ring_from_supply_starts_the_count_afresh() {
    let mut g = setup(SHUFFLE, None);
    let start: Position = SHUFFLE.parse().unwrap();
    for mv in lap() {
        g.play(mover(&g), &mv, &mut GameRng::from_seed(0)).unwrap();
    }
    assert_eq!(g.occurrences(&start), 2);
    // Black places a ring and walks onto it: no earlier position can
    // come back (the supply never grows), so none is counted any more.
    let placed: Move = serde_json::from_value(
        json!({"ring": {"from": null, "to": "D3"}, "ball": {"from": "C3", "to": "D3"}}),
    )
    .unwrap();
    g.play(Seat(0), &placed, &mut GameRng::from_seed(0))
        .unwrap();
    assert_eq!(g.occurrences(&start), 0);
    assert!(g.view(Viewer::Spectator).repeated.is_empty());
    assert_eq!(g.outcome(), None);
}

#[test]
fn a_given_position_starts_a_fresh_history() {
    // Two laps from the start: the third occurrence of SHUFFLE. Given
    // again as a room's position, the same position starts at one.
    let mut g = setup(SHUFFLE, None);
    for mv in lap() {
        g.play(mover(&g), &mv, &mut GameRng::from_seed(0)).unwrap();
    }
    let again = setup(&g.position().to_string(), None);
    assert_eq!(again.occurrences(g.position()), 1);
    assert_eq!(g.occurrences(g.position()), 2);
    assert_eq!(again.view(Viewer::Spectator).turns, 0);
}

/// Plays turns that reach new positions (and end nothing) until the
/// game ends; returns the turns played.
fn play_fresh_turns(g: &mut Mitsudomoe) -> u16 {
    while g.outcome().is_none() {
        let pos = *g.position();
        let mv = legal_turns(&pos)
            .into_iter()
            .find(|m| {
                let next = play(&pos, m).unwrap().position;
                g.occurrences(&next) == 0 && next.end_after_turn().is_none()
            })
            .unwrap_or_else(|| panic!("no fresh turn at {pos}"));
        g.play(mover(g), &mv, &mut GameRng::from_seed(0)).unwrap();
    }
    g.turns()
}

/// A match stored before the house rules (its options name no limit)
/// replays and plays on as it was played: a third occurrence does not end
/// it, and it has no turn limit.
#[test]
fn a_match_stored_before_the_house_rules_plays_on_without_them() {
    let stored = json!({"position": SHUFFLE});
    let cfg: Config = serde_json::from_value(stored).unwrap();
    assert_eq!(cfg.max_turns, None);
    let mut g = Mitsudomoe::setup(&cfg, 2, &mut GameRng::from_seed(0)).unwrap();
    for (i, mv) in lap().into_iter().chain(lap()).chain(lap()).enumerate() {
        g.play(mover(&g), &mv, &mut GameRng::from_seed(0))
            .unwrap_or_else(|e| panic!("turn {i}: {e}"));
    }
    assert_eq!(g.outcome(), None);
    let view = g.view(Viewer::Spectator);
    assert_eq!(view.max_turns, None);
    assert!(view.repeated.is_empty());
    assert_eq!(view.turns, 18);
    assert_eq!(
        GameKind::Mitsudomoe.max_steps(&json!({}), 2).ok(),
        Some(u64::MAX)
    );
}

#[test]
fn the_turn_limit_draws_at_exactly_max_turns() {
    let mut g = Mitsudomoe::setup(
        &Config {
            position: None,
            max_turns: Some(MaxTurns::new(20).unwrap()),
        },
        2,
        &mut GameRng::from_seed(0),
    )
    .unwrap();
    assert_eq!(g.view(Viewer::Spectator).max_turns, Some(20));
    assert_eq!(play_fresh_turns(&mut g), 20);
    assert_eq!(g.end(), Some(End::draw(EndReason::TurnLimit)));
    assert_eq!(g.outcome(), Some(Outcome::Draw));
    assert_eq!(g.view(Viewer::Spectator).turns_left(), 0);
}

#[test]
fn max_turns_is_checked_and_kept_in_the_options() {
    let kind = GameKind::Mitsudomoe;
    // A new room stores its limit, the default one when none is given, so
    // that stored options without one mean a match from before the rules.
    assert_eq!(
        kind.parse_config(&json!({})).unwrap(),
        json!({"max_turns": 300})
    );
    assert_eq!(
        kind.parse_config(&serde_json::Value::Null).unwrap(),
        json!({"max_turns": 300})
    );
    assert_eq!(
        kind.parse_config(&json!({"max_turns": 300})).unwrap(),
        json!({"max_turns": 300})
    );
    assert_eq!(
        kind.parse_config(&json!({"max_turns": 40})).unwrap(),
        json!({"max_turns": 40})
    );
    for bad in [
        json!(19),
        json!(2_001),
        json!(-1),
        json!("300"),
        json!(30.5),
        json!(null),
    ] {
        let err = kind.parse_config(&json!({"max_turns": bad})).unwrap_err();
        assert!(err.message.contains("max_turns must be"), "{bad}: {err}");
    }
    assert_eq!(kind.max_steps(&json!({"max_turns": 40}), 2), Ok(40));
    let stored = kind.parse_config(&json!({})).unwrap();
    assert_eq!(kind.max_steps(&stored, 2), Ok(300));
    assert_eq!(kind.max_steps(&serde_json::Value::Null, 2), Ok(300));
}

#[test]
fn a_replay_of_the_moves_alone_ends_in_the_same_draw() {
    let mut g = setup(SHUFFLE, None);
    let moves: Vec<Move> = lap().into_iter().chain(lap()).collect();
    for mv in &moves {
        g.play(mover(&g), mv, &mut GameRng::from_seed(0)).unwrap();
    }
    let mut again = setup(SHUFFLE, None);
    for mv in &moves {
        again
            .play(mover(&again), mv, &mut GameRng::from_seed(0))
            .unwrap();
    }
    assert_eq!(again, g);
    assert_eq!(again.end().map(|e| e.reason), Some(EndReason::Repetition));
}

/// Black has D1 and E1 on goal and D2 beside E2, its last goal: it wins
/// next turn whatever White does (White to move, far behind; its ring
/// on C5 is free to move, so some of its turns place no ring and could
/// repeat a position).
const LOST_FOR_WHITE: &str = "wW,wW,.,.,./wW,.,.,.,./.,.,.,.,w/bB,bB,.,.,./bB,.,.,.,. w";

/// A search to `depth` turns under `house`, no clock.
fn search_to(pos: &Position, depth: u32, house: HouseRules) -> (Option<Move>, i32) {
    let found = search(
        pos,
        Limits {
            stop: &|| false,
            max_nodes: None,
            max_depth: depth,
            house,
        },
    );
    (found.best, found.score)
}

fn repeated(positions: impl IntoIterator<Item = Position>) -> HouseRules {
    HouseRules {
        repeated: positions.into_iter().collect::<HashSet<_>>(),
        turns_left: None,
    }
}

#[test]
fn a_losing_side_walks_into_a_third_occurrence() {
    let pos: Position = LOST_FOR_WHITE.parse().unwrap();
    let (_, lost) = search_to(&pos, 2, HouseRules::default());
    assert!(lost <= -WIN + 10, "White should see its loss: {lost}");
    // A turn of White's that moves its ring (one that places a ring can
    // never repeat a position), declared the third occurrence of its
    // position, is the one White now picks: a draw beats a loss.
    let drawing = legal_turns(&pos)
        .into_iter()
        .find(|m| m.ring.from.is_some())
        .unwrap();
    let child = play(&pos, &drawing).unwrap().position;
    let (best, score) = search_to(&pos, 2, repeated([child]));
    assert_eq!(best, Some(drawing));
    assert_eq!(score, DRAW);
}

/// Black to move and well ahead (two balls on goal, the third two
/// steps from E2), but with no win within two turns. Its supply is
/// empty, so its turns move rings and may repeat positions.
const AHEAD_FOR_BLACK: &str = "b,b,b,b,b/wW,wW,.,.,./.,wW,.,bB,./bB,.,.,.,./bB,.,.,.,. b";

#[test]
fn a_winning_side_steers_clear_of_a_third_occurrence() {
    let pos: Position = AHEAD_FOR_BLACK.parse().unwrap();
    let (best, score) = search_to(&pos, 2, HouseRules::default());
    assert!(
        score > DRAW && score < WIN - 10,
        "ahead, not yet won: {score}"
    );
    let best = best.unwrap();
    let child = play(&pos, &best).unwrap().position;
    let (again, kept) = search_to(&pos, 2, repeated([child]));
    assert_ne!(again, Some(best), "walked into a draw while ahead");
    assert!(kept > DRAW, "{kept}");
}

#[test]
fn the_turn_limit_is_a_draw_at_the_horizon() {
    let pos: Position = LOST_FOR_WHITE.parse().unwrap();
    let limit = |n| HouseRules {
        repeated: HashSet::new(),
        turns_left: Some(n),
    };
    // One turn left: whatever White plays ends the match drawn.
    assert_eq!(search_to(&pos, 3, limit(1)).1, DRAW);
    // Two left: Black's winning reply comes first, and a win is a win.
    assert!(search_to(&pos, 3, limit(2)).1 <= -WIN + 10);
    assert!(search_to(&pos, 3, HouseRules::default()).1 <= -WIN + 10);
}

#[test]
fn bots_read_the_house_rules_from_the_view() {
    let mut g = setup(SHUFFLE, None);
    for mv in lap() {
        g.play(mover(&g), &mv, &mut GameRng::from_seed(0)).unwrap();
    }
    let view = g.view(Viewer::Seat(Seat(0)));
    let house = HouseRules::of_view(&view);
    assert_eq!(
        house.repeated,
        HashSet::from([SHUFFLE.parse::<Position>().unwrap()])
    );
    assert_eq!(
        house.turns_left,
        Some(u32::from(parlor_games::mitsudomoe::DEFAULT_MAX_TURNS) - 6)
    );
}
