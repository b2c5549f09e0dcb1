//! Mitsudomoe: every case of the rules sheet (`rules.md`), one test
//! each, played through the `Game` interface from positions written in
//! notation.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::mitsudomoe::{
    legal_turns, Color, Config, End, EndReason, Illegal, Mitsudomoe, Move, Position, Square,
};
use parlor_games::{Bots, Game, GameRng, Outcome, Seat, SeatSet, SetupError, Viewer};

fn sq(s: &str) -> Square {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn mv(s: &str) -> Move {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn game(position: &str) -> Mitsudomoe {
    let cfg = Config {
        position: Some(position.to_owned()),
        ..Config::default()
    };
    Mitsudomoe::setup(&cfg, 2, &mut GameRng::from_seed(0)).unwrap_or_else(|e| panic!("{e}"))
}

fn seat_to_move(g: &Mitsudomoe) -> Seat {
    g.position().to_move().seat()
}

/// Plays `m` (notation) for the seat to move; panics if refused.
fn play(g: &mut Mitsudomoe, m: &str) {
    let seat = seat_to_move(g);
    g.play(seat, &mv(m), &mut GameRng::from_seed(0))
        .unwrap_or_else(|e| panic!("{m}: {e}"));
}

/// Tries `m` for the seat to move: it must be refused for `why`, leave
/// the game exactly as it was, and not be in the legal list.
fn refused(g: &Mitsudomoe, m: &str, why: Illegal) {
    let mut tried = g.clone();
    let seat = seat_to_move(g);
    assert!(!why.to_string().is_empty());
    assert_eq!(
        tried.play(seat, &mv(m), &mut GameRng::from_seed(0)),
        Err(why),
        "{m}"
    );
    assert_eq!(&tried, g, "{m} changed the game");
    assert!(!g.legal_moves(seat).contains(&mv(m)), "{m} is listed");
}

fn listed(g: &Mitsudomoe) -> Vec<String> {
    g.legal_moves(seat_to_move(g))
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn ball(g: &Mitsudomoe, s: &str) -> Option<Color> {
    g.position().board().ball(sq(s))
}

fn won(c: Color) -> Option<Outcome> {
    Some(Outcome::Win {
        winners: SeatSet::single(c.seat()),
    })
}

#[test]
fn the_start_has_black_to_move_with_nine_turns() {
    let g = Mitsudomoe::setup(&Config::default(), 2, &mut GameRng::from_seed(0))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(g.position(), &Position::initial());
    assert_eq!(g.to_act(), SeatSet::single(Seat(0)));
    assert_eq!(g.legal_moves(Seat(0)).len(), 9);
    assert!(g.legal_moves(Seat(1)).is_empty());
    for c in [Color::Black, Color::White] {
        assert_eq!(g.position().board().supply(c), 5);
        assert_eq!(g.position().board().balls(c), c.home());
    }
}

/// Black on C1 vaults right over white C2, black C3 and white C4 onto
/// its ring on C5; the two white balls go to free white rings (A1, A2)
/// or into the squares the jumped balls leave, in an order that works.
const MIXED_LINE: &str = "w,w,.,bB,./.,.,.,.,./bB,wW,bB,wW,b/.,.,.,.,./.,.,.,.,wW b";

#[test]
fn a_vault_jumps_a_mixed_line_and_relocates_only_opponent_balls() {
    let g = game(MIXED_LINE);
    let mut after = g.clone();
    play(&mut after, "+B1 C1-C5 xC2-A1 xC4-A2");
    assert_eq!(ball(&after, "C5"), Some(Color::Black));
    assert_eq!(ball(&after, "C3"), Some(Color::Black), "own balls stay");
    assert_eq!(ball(&after, "C1"), None);
    for (s, c) in [
        ("C2", None),
        ("C4", None),
        ("A1", Some(Color::White)),
        ("A2", Some(Color::White)),
    ] {
        assert_eq!(ball(&after, s), c, "{s}");
    }
    // Every way the two white balls can end, each listed once.
    let vaults: Vec<String> = listed(&g)
        .into_iter()
        .filter(|m| m.starts_with("+B1 C1-C5"))
        .collect();
    assert_eq!(
        vaults,
        [
            "+B1 C1-C5 xC2-A1 xC4-A2",
            "+B1 C1-C5 xC2-A1 xC4-C2",
            "+B1 C1-C5 xC4-A1 xC2-C4",
            "+B1 C1-C5 xC2-A2 xC4-C2",
            "+B1 C1-C5 xC4-A2 xC2-C4",
        ]
    );
    refused(
        &g,
        "+B1 C1-C5 xC2-A1 xC3-A2",
        Illegal::NotJumped { square: sq("C3") },
    );
    refused(
        &g,
        "+B1 C1-C5 xC2-A1",
        Illegal::MissingRelocation { square: sq("C4") },
    );
    refused(
        &g,
        "+B1 C1-C5",
        Illegal::MissingRelocation { square: sq("C2") },
    );
    refused(
        &g,
        "+B1 C1-C5 xC2-A1 xC2-A2",
        Illegal::RelocatedTwice { square: sq("C2") },
    );
    refused(
        &g,
        "+B1 C1-C5 xC2-E5 xC4-A2",
        Illegal::RelocationOccupied {
            from: sq("C2"),
            to: sq("E5"),
        },
    );
    refused(
        &g,
        "+B1 C1-C5 xC2-B2 xC4-A2",
        Illegal::RelocationNotOnRing {
            from: sq("C2"),
            to: sq("B2"),
            color: Color::White,
        },
    );
}

#[test]
fn relocations_are_carried_out_in_the_order_given() {
    let g = game(MIXED_LINE);
    let seat = seat_to_move(&g);
    // C4's ball may follow into C2 once C2's ball has left...
    let chain = mv("+B1 C1-C5 xC2-A1 xC4-C2");
    let mut a = g.clone();
    a.play(seat, &chain, &mut GameRng::from_seed(0))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ball(&a, "C2"), Some(Color::White));
    assert_eq!(ball(&a, "C4"), None);
    // ...but not before: C2 still holds its ball.
    refused(
        &g,
        "+B1 C1-C5 xC4-C2 xC2-A1",
        Illegal::RelocationOccupied {
            from: sq("C4"),
            to: sq("C2"),
        },
    );
    // Any working order or assignment is accepted and shown in the one
    // canonical form, with the same effect.
    let listed_form = mv("+B1 C1-C5 xC2-A1 xC4-A2");
    for other in [
        "+B1 C1-C5 xC4-A2 xC2-A1",
        "+B1 C1-C5 xC2-A2 xC4-A1",
        "+B1 C1-C5 xC4-A1 xC2-A2",
    ] {
        let other = mv(other);
        assert_eq!(g.canonical(seat, &other), listed_form);
        let mut b = g.clone();
        b.play(seat, &other, &mut GameRng::from_seed(0))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut c = g.clone();
        c.play(seat, &listed_form, &mut GameRng::from_seed(0))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(b.position(), c.position());
        assert_eq!(
            b.view(Viewer::Spectator).last,
            c.view(Viewer::Spectator).last
        );
    }
}

#[test]
fn a_vault_off_the_board_is_blocked() {
    // Black's balls fill A3, A4, A5: from A3 the line right runs over A4
    // and A5 and then off the board, so there is nowhere to land.
    let g = game(".,.,bB,bB,bB/.,.,.,.,b/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,. b");
    for m in g.legal_moves(Seat(0)) {
        assert!(
            !(m.ball.from == sq("A3") && m.ball.to.row() == 0 && m.ball.to.col() > 2),
            "{m}"
        );
        assert!(
            m.ball.from != sq("A5") || m.ball.to != sq("A3"),
            "A5 over A4 lands on a ball"
        );
    }
    refused(
        &g,
        "+B4 A3-A5",
        Illegal::LandingHasBall { square: sq("A5") },
    );
    // Over A4 only the vault would land on A5, which holds a ball: the
    // line goes on and meets the edge.
    refused(&g, "+A1 A5-A1", Illegal::VaultGap { square: sq("A2") });
}

#[test]
fn a_vault_onto_an_opponent_ring_is_refused_until_covered() {
    // Black C1 next to white C2; C3 is topped by a white ring.
    let g = game("bB,bB,.,.,./.,.,.,.,./bB,wW,w,.,./.,.,.,.,w/.,.,.,wW,wW b");
    refused(&g, "+A3 C1-C3", Illegal::NotOnYourRing { square: sq("C3") });
    // Covering it with a black ring first makes the vault legal: rings
    // stack on rings of either colour.
    let mut after = g.clone();
    play(&mut after, "+C3 C1-C3 xC2-D5");
    assert_eq!(after.position().board().height(sq("C3")), 2);
    assert_eq!(ball(&after, "C3"), Some(Color::Black));
    assert_eq!(ball(&after, "D5"), Some(Color::White));
}

#[test]
fn no_free_ring_for_a_jumped_ball_makes_the_vault_illegal() {
    // Every white ring holds a white ball, except A1's, which a black
    // ring covers.
    let text = "wb,.,.,.,./.,.,.,.,./bB,wW,b,.,./.,.,.,.,./bB,bB,.,wW,wW b";
    let g = game(text);
    let why = Illegal::NowhereToRelocate {
        square: sq("C2"),
        color: Color::White,
    };
    refused(&g, "+A3 C1-C3", why.clone());
    refused(&g, "+A3 C1-C3 xC2-A1", why);
    assert!(
        listed(&g)
            .iter()
            .all(|m| !m.contains("C1-C3") || m.starts_with("A1-")),
        "only uncovering A1 opens the vault"
    );
    // Moving the black ring off A1 uncovers a free white ring: now the
    // vault is legal, and the jumped ball must go there.
    let open: Vec<String> = listed(&g)
        .into_iter()
        .filter(|m| m.starts_with("A1-B1 C1-C3"))
        .collect();
    assert_eq!(open, ["A1-B1 C1-C3 xC2-A1"]);
}

#[test]
fn an_opponent_ball_on_its_own_goal_cannot_be_jumped() {
    // White's ball on A4 sits on one of White's goals (Black's home).
    let g = game(".,.,bB,bwW,b/.,.,.,.,./.,.,bB,bB,./.,.,.,.,./w,.,.,wW,wW b");
    refused(
        &g,
        "+B1 A3-A5",
        Illegal::GoalBallJumped { square: sq("A4") },
    );
    assert!(listed(&g).iter().all(|m| !m.contains("A3-A5")));
}

#[test]
fn an_own_ball_on_a_goal_can_be_jumped_and_never_moves() {
    // Black's ball on D1 has reached a goal; C1 can vault over it to E1.
    let g = game("bB,.,.,.,./.,.,wW,wW,./bB,.,.,.,wW/bB,.,.,.,./b,.,.,.,. b");
    let mut after = g.clone();
    play(&mut after, "+A2 C1-E1");
    assert_eq!(ball(&after, "E1"), Some(Color::Black));
    assert_eq!(ball(&after, "D1"), Some(Color::Black));
    refused(&g, "+D2 D1-D2", Illegal::BallOnGoal { square: sq("D1") });
    assert!(g
        .legal_moves(Seat(0))
        .iter()
        .all(|m| m.ball.from != sq("D1")));
}

#[test]
fn the_ring_step_follows_its_rules() {
    let g = Mitsudomoe::setup(&Config::default(), 2, &mut GameRng::from_seed(0))
        .unwrap_or_else(|e| panic!("{e}"));
    refused(
        &g,
        "A4-A3 A5-A3",
        Illegal::RingUnderBall { square: sq("A4") },
    );
    refused(&g, "D1-A3 A4-A3", Illegal::NotYourRing { square: sq("D1") });
    refused(&g, "C3-A3 A4-A3", Illegal::NotYourRing { square: sq("C3") });
    refused(&g, "+A5 A4-A3", Illegal::RingOntoBall { square: sq("A5") });
    refused(&g, "+A3 A4-A2", Illegal::VaultGap { square: sq("A3") });
    refused(
        &g,
        "+A3 A4-C5",
        Illegal::NotAStepOrVault {
            from: sq("A4"),
            to: sq("C5"),
        },
    );
    refused(&g, "+C3 D1-C2", Illegal::NotYourBall { square: sq("D1") });
    refused(&g, "+C3 A4-B3", Illegal::NotOnYourRing { square: sq("B3") });
    refused(
        &g,
        "+B3 A4-B3 xC2-A1",
        Illegal::NotJumped { square: sq("C2") },
    );
    // An exposed ring moves to any other square without a ball.
    let mut g = g;
    play(&mut g, "+B4 A4-B4");
    play(&mut g, "+C2 D1-C2");
    refused(
        &g,
        "A4-A4 B4-A4",
        Illegal::RingNotMoved { square: sq("A4") },
    );
    play(&mut g, "A4-A3 B4-A3");
    assert_eq!(g.position().board().height(sq("A4")), 0);
    assert_eq!(g.position().board().supply(Color::Black), 4);
    // With the supply empty, only moves of exposed rings remain.
    let g = game("b,b,b,bB,bB/b,.,.,.,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,b w");
    let white = game("b,b,b,bB,bB/b,.,.,.,bB/.,.,.,.,./wW,.,.,.,./wW,wW,.,.,b b");
    assert_eq!(white.position().board().supply(Color::Black), 0);
    refused(&white, "+B4 A4-B4", Illegal::NoRingInSupply);
    assert!(listed(&white).iter().all(|m| !m.starts_with('+')));
    assert!(!listed(&g).is_empty());
}

#[test]
fn a_player_without_a_legal_turn_is_out() {
    // White has no ring in supply and one exposed ring, on A1; when Black
    // covers it, White can make no ring step at all.
    let mut g = game("w,.,.,bB,bB/.,.,.,b,bB/.,.,wW,wW,wW/.,.,.,.,./.,.,.,wwb,wwb b");
    assert_eq!(g.position().board().supply(Color::White), 0);
    play(&mut g, "+A1 A4-B4");
    assert_eq!(
        g.end(),
        Some(End {
            winner: Some(Color::Black),
            reason: EndReason::NoTurn
        })
    );
    assert_eq!(g.outcome(), won(Color::Black));
    assert!(g.to_act().is_empty());
    assert!(g.legal_moves(Seat(1)).is_empty());
    // Such a position cannot start a match either.
    let stuck = "wb,.,.,bB,./.,.,.,bB,bB/.,.,wW,wW,wW/.,.,.,.,./.,.,.,wwb,wwb w";
    let cfg = Config {
        position: Some(stuck.into()),
        ..Config::default()
    };
    assert!(matches!(
        Mitsudomoe::setup(&cfg, 2, &mut GameRng::from_seed(0)),
        Err(SetupError::Config(_))
    ));
}

#[test]
fn ending_a_turn_with_every_home_square_full_puts_the_mover_out() {
    // White's balls rest on A4 and A5 (its goals, Black's home); Black's
    // own ball is on B5, Black's third home square.
    let text = ".,.,.,wW,wW/.,.,.,.,bB/bB,bB,b,.,./.,.,.,.,./.,.,.,.,wW b";
    let mut stays = game(text);
    play(&mut stays, "+D3 C2-C3");
    assert_eq!(
        stays.end(),
        Some(End {
            winner: Some(Color::White),
            reason: EndReason::HomeFilled
        })
    );
    assert_eq!(stays.outcome(), won(Color::White));
    let mut leaves = game(text);
    play(&mut leaves, "+B4 B5-B4");
    assert_eq!(leaves.end(), None);
    // The greedy bot sees it coming.
    let mut bot = Mitsudomoe::strategy("greedy").unwrap_or_else(|| panic!("no greedy"));
    let g = game(text);
    let choice = bot
        .choose(
            Seat(0),
            &g.view(Viewer::Seat(Seat(0))),
            &mut GameRng::from_seed(1),
        )
        .unwrap_or_else(|| panic!("no choice"));
    assert_eq!(choice.ball.from, sq("B5"), "{choice}");
}

#[test]
fn all_three_balls_on_goal_at_the_end_of_the_turn_wins() {
    // Black has D1 and E1; D2 steps onto the black ring on E2.
    let text = ".,.,.,b,b/.,.,.,.,b/.,.,wW,wW,wW/bB,bB,.,.,./bB,b,.,.,. b";
    let mut g = game(text);
    assert_eq!(g.end(), None);
    play(&mut g, "+A1 D2-E2");
    assert_eq!(
        g.end(),
        Some(End {
            winner: Some(Color::Black),
            reason: EndReason::AllOnGoal
        })
    );
    assert_eq!(g.outcome(), won(Color::Black));
    let v = g.view(Viewer::Spectator);
    assert_eq!(v.next, None);
    assert_eq!(v.last.map(|l| l.notation), Some("+A1 D2-E2".to_owned()));
    refused(&g, "+A2 C3-B2", Illegal::GameOver);
}

#[test]
fn relocating_the_opponents_last_ball_home_puts_the_mover_out() {
    // White has A4 and A5 home; Black jumps White's third ball (C4) and
    // the only free white ring is on B5, White's last goal: at the end of
    // Black's turn Black's home (A4, A5, B5) is full, so Black is out.
    let text = ".,.,.,wW,wW/.,.,.,.,w/.,bB,bB,wW,b/.,.,.,.,./bB,.,.,.,. b";
    let mut g = game(text);
    play(&mut g, "+A1 C3-C5 xC4-B5");
    assert_eq!(
        g.end(),
        Some(End {
            winner: Some(Color::White),
            reason: EndReason::HomeFilled
        })
    );
}

#[test]
fn refusals_leave_the_game_unchanged_and_name_the_seat() {
    let g = Mitsudomoe::setup(&Config::default(), 2, &mut GameRng::from_seed(0))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut tried = g.clone();
    let m = legal_turns(g.position())[0];
    assert_eq!(
        tried.play(Seat(1), &m, &mut GameRng::from_seed(0)),
        Err(Illegal::NotYourTurn { seat: Seat(1) })
    );
    assert_eq!(tried, g);
    tried.forfeit(Seat(0));
    assert_eq!(tried.outcome(), won(Color::White));
    assert_eq!(tried.end().map(|e| e.reason), Some(EndReason::Forfeit));
    assert_eq!(
        tried.play(Seat(0), &m, &mut GameRng::from_seed(0)),
        Err(Illegal::GameOver)
    );
}

#[test]
fn setup_takes_two_seats_and_a_valid_position() {
    let mut rng = GameRng::from_seed(0);
    assert!(matches!(
        Mitsudomoe::setup(&Config::default(), 3, &mut rng),
        Err(SetupError::Seats { got: 3, .. })
    ));
    let bad = Config {
        position: Some("nonsense".into()),
        ..Config::default()
    };
    assert!(matches!(
        Mitsudomoe::setup(&bad, 2, &mut rng),
        Err(SetupError::Config(_))
    ));
    // A decided position (Black's balls all home) cannot start a match.
    let done = Config {
        position: Some(".,.,.,b,b/.,.,.,.,b/.,.,wW,wW,wW/bB,b,.,.,./bB,bB,.,.,. w".into()),
        ..Config::default()
    };
    assert!(matches!(
        Mitsudomoe::setup(&done, 2, &mut rng),
        Err(SetupError::Config(_))
    ));
    // Options as JSON: the default names Parlor's turn limit (a stored
    // `{}` is a match from before the house rules), or a position.
    assert_eq!(
        serde_json::to_value(Config::default()).ok(),
        Some(serde_json::json!({"max_turns": 300}))
    );
    assert!(serde_json::from_value::<Config>(serde_json::json!({"piles": [1, 2]})).is_err());
}

#[test]
fn every_viewer_sees_the_same_view_and_nothing_is_secret() {
    let mut g = Mitsudomoe::setup(&Config::default(), 2, &mut GameRng::from_seed(0))
        .unwrap_or_else(|e| panic!("{e}"));
    play(&mut g, "+B4 A5-B4");
    let spectator = serde_json::to_value(g.view(Viewer::Spectator)).ok();
    for s in [Seat(0), Seat(1)] {
        assert_eq!(
            serde_json::to_value(g.view(Viewer::Seat(s))).ok(),
            spectator
        );
    }
    assert!(g.secrets().is_empty());
    let v = g.view(Viewer::Spectator);
    assert_eq!(
        v.position.parse::<Position>().ok().as_ref(),
        Some(g.position())
    );
    assert_eq!(v.next, Some(Seat(1)));
    assert_eq!(v.players[0].supply, 4);
    assert_eq!(v.board[1][3].ball, Some(Color::Black));
    assert_eq!(v.board[0][4].rings, [Color::Black]);
}
