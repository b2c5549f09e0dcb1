//! Cribbage: the show's scoring against its own itemised path, whole games
//! played out by every bot, hidden information, refused moves.

// Tests fail by panicking, helpers included.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::cribbage::{
    breakdown, crib_value, hand_value, Card, CardSet, Config, Cribbage, HandKind, Move, Phase,
    Stage, View,
};
use parlor_games::{Bots, Game, GameKind, GameRng, Outcome, Seat, SeatSet, Strategy, Viewer};
use proptest::prelude::*;
use proptest::strategy::Strategy as _;
use serde_json::{json, Value};

/// Scores no hand can make.
const IMPOSSIBLE: [u8; 4] = [19, 25, 26, 27];

fn five_cards() -> impl proptest::strategy::Strategy<Value = ([Card; 4], Card)> {
    proptest::sample::subsequence((0..52usize).collect::<Vec<_>>(), 5)
        .prop_shuffle()
        .prop_map(|ix| {
            let c: Vec<Card> = ix.into_iter().filter_map(Card::from_index).collect();
            ([c[0], c[1], c[2], c[3]], c[4])
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_fast_and_itemised_paths_agree((hand, start) in five_cards()) {
        let v = hand_value(hand, start);
        let b = breakdown(&hand, start, HandKind::Hand);
        prop_assert_eq!(b.total(), v);
        let items: u8 = b.items.iter().map(|i| i.points).sum();
        prop_assert_eq!(items, v);
        prop_assert_eq!(breakdown(&hand, start, HandKind::Crib).total(), crib_value(hand, start));
        prop_assert!(v <= 29);
        prop_assert!(!IMPOSSIBLE.contains(&v), "{:?} {} scores {}", hand, start, v);
        prop_assert!(crib_value(hand, start) <= v);
        // The order of the hand's cards does not matter.
        let mut rev = hand;
        rev.reverse();
        prop_assert_eq!(hand_value(rev, start), v);
    }
}

/// The hand value with a ten-card start for every ranks pattern that has
/// only fives plus one card: the known extremes.
#[test]
fn the_extremes() {
    let c = |s: &str| s.parse::<Card>().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        hand_value([c("5H"), c("5S"), c("5C"), c("5D")], c("KH")),
        28
    );
    assert_eq!(
        hand_value([c("5H"), c("5S"), c("5C"), c("JD")], c("5D")),
        29
    );
    assert_eq!(
        hand_value([c("4H"), c("4S"), c("6C"), c("6D")], c("5D")),
        24
    );
}

fn bot(name: &str) -> Box<dyn Strategy<Cribbage>> {
    Cribbage::strategy(name).unwrap_or_else(|| panic!("no bot {name}"))
}

/// Every card a seat may not know: the others' unlaid cards, the crib
/// (bar its own throw) until shown, and the undealt deck.
fn hidden_from(view_of_all: &[View], seat: Seat, laid: CardSet, start: Option<Card>) -> CardSet {
    let mut known: CardSet = view_of_all[seat.index()]
        .hand
        .iter()
        .chain(&view_of_all[seat.index()].discarded)
        .copied()
        .collect();
    for c in laid.iter() {
        known.insert(c);
    }
    if let Some(s) = start {
        known.insert(s);
    }
    for shown in &view_of_all[seat.index()].shown {
        for &c in &shown.cards {
            known.insert(c);
        }
    }
    known.complement()
}

/// Every card object or compact card anywhere in a JSON value.
fn cards_in(v: &Value, out: &mut Vec<Card>) {
    match v {
        Value::Object(m) => {
            if m.contains_key("rank") && m.contains_key("suit") {
                if let Ok(c) = serde_json::from_value::<Card>(v.clone()) {
                    out.push(c);
                }
            }
            for x in m.values() {
                cards_in(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| cards_in(x, out)),
        _ => {}
    }
}

/// Plays a whole game with these bots, checking at every step that the
/// bots' moves are legal, views leak nothing, and the score is exactly the
/// sum of the events. Returns the final game.
fn play_out(seed: u64, names: &[&str], target: u16) -> Cribbage {
    let seats = names.len() as u8;
    let mut rng = GameRng::from_seed(seed);
    let mut g =
        Cribbage::setup(&Config { target }, seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
    let mut bots: Vec<_> = names.iter().map(|n| bot(n)).collect();
    let sides = if seats == 4 { 2 } else { usize::from(seats) };
    let mut tallied = vec![0u16; sides];
    let mut hand_number = 1;
    for step in 0..10_000 {
        if g.outcome().is_some() {
            break;
        }
        let to_act = g.to_act();
        assert!(!to_act.is_empty(), "step {step}: nobody to act");
        let views: Vec<View> = (0..seats).map(|s| g.view(Viewer::Seat(Seat(s)))).collect();
        let spectator = g.view(Viewer::Spectator);
        assert!(
            spectator.hand.is_empty() && spectator.discarded.is_empty() && spectator.you.is_none()
        );
        // Hidden information: outside the record of the previous hand
        // (whose cards were all shown and may be dealt again), a view holds
        // no card its viewer may not know.
        let laid: CardSet = views[0].laid.iter().map(|l| l.card).collect();
        for s in 0..seats {
            let seat = Seat(s);
            let hidden = hidden_from(&views, seat, laid, views[0].start);
            let mut json = serde_json::to_value(&views[s as usize]).unwrap_or_default();
            if let Some(m) = json.as_object_mut() {
                m.remove("previous");
            }
            let mut seen = Vec::new();
            cards_in(&json, &mut seen);
            for c in seen {
                assert!(!hidden.contains(c), "seat {s} sees hidden {c}");
            }
        }
        check_secrets(&g, &spectator);
        let seat = to_act.iter().next().unwrap_or_else(|| panic!("empty"));
        let view = &views[seat.index()];
        let legal = g.legal_moves(seat);
        assert!(!legal.is_empty());
        let mv = bots[seat.index()]
            .choose(seat, view, &mut rng)
            .unwrap_or_else(|| panic!("{} had no move", names[seat.index()]));
        assert!(legal.contains(&mv), "{mv:?} not in {legal:?}");
        let timeout = g
            .timeout_move(seat)
            .unwrap_or_else(|| panic!("no timeout move"));
        assert!(legal.contains(&timeout), "timeout {timeout:?} not legal");
        g.play(seat, &mv, &mut rng)
            .unwrap_or_else(|e| panic!("{e}"));
        let v = g.view(Viewer::Spectator);
        if v.hand_number != hand_number {
            let prev = v.previous.as_ref().unwrap_or_else(|| panic!("no record"));
            for e in &prev.events {
                tallied[e.seat.index() % sides] += u16::from(e.points);
            }
            hand_number = v.hand_number;
        }
    }
    let v = g.view(Viewer::Spectator);
    for e in &v.events {
        tallied[e.seat.index() % sides] += u16::from(e.points);
    }
    assert_eq!(tallied, g.scores(), "scores are the sum of the events");
    g
}

/// The game's own list of its secrets accounts for every card: each is
/// either named in the public view or listed as hidden, exactly once, and
/// each seat's list is what its view holds beyond the public cards.
fn check_secrets(g: &Cribbage, spectator: &View) {
    let secrets = g.secrets();
    let card =
        |v: &Value| serde_json::from_value::<Card>(v.clone()).unwrap_or_else(|e| panic!("{e}"));
    let mut public = Vec::new();
    cards_in(
        &serde_json::to_value(spectator).unwrap_or_default(),
        &mut public,
    );
    let public: CardSet = public.into_iter().collect();
    let listed: Vec<Card> = secrets
        .per_seat
        .iter()
        .flatten()
        .chain(&secrets.undisclosed)
        .map(card)
        .collect();
    let hidden: CardSet = listed.iter().copied().collect();
    assert_eq!(
        hidden.len(),
        listed.len(),
        "a card is listed twice: {listed:?}"
    );
    assert!(
        listed.iter().all(|c| !public.contains(*c)),
        "a public card is listed"
    );
    assert_eq!(hidden.len() + public.len(), 52);
    for s in 0..g.seats() {
        let view = g.view(Viewer::Seat(Seat(s)));
        let mine: CardSet = view
            .hand
            .iter()
            .chain(&view.discarded)
            .copied()
            .filter(|c| !public.contains(*c))
            .collect();
        let theirs: CardSet = secrets.of(Seat(s)).iter().map(card).collect();
        assert_eq!(mine, theirs, "seat {s}");
    }
}

fn check_finished(g: &Cribbage, target: u16) {
    let Some(Outcome::Win { winners }) = g.outcome() else {
        panic!("no winner: {:?}", g.outcome());
    };
    let sides = g.scores().len();
    let winning_side = winners
        .iter()
        .next()
        .map(|s| s.index() % sides)
        .unwrap_or(99);
    let expected: SeatSet = (0..g.seats())
        .map(Seat)
        .filter(|s| s.index() % sides == winning_side)
        .collect();
    assert_eq!(winners, expected);
    for (side, &score) in g.scores().iter().enumerate() {
        if side == winning_side {
            assert!(score >= target);
        } else {
            assert!(score < target);
        }
    }
    assert_eq!(g.phase(), Phase::Over);
    assert!(g.to_act().is_empty());
}

#[test]
fn random_games_for_two_three_and_four_players_end_with_a_winner() {
    for seed in 0..6 {
        for names in [
            &["random", "random"][..],
            &["random", "random", "random"][..],
            &["random", "random", "random", "random"][..],
        ] {
            let g = play_out(seed, names, 121);
            check_finished(&g, 121);
        }
    }
}

#[test]
fn every_bot_plays_legal_moves_in_every_table_size() {
    for (seed, names) in [
        (1, &["expert", "seed"][..]),
        (2, &["seed", "expert", "random"][..]),
        (3, &["expert", "seed", "expert", "random"][..]),
    ] {
        let g = play_out(seed, names, 61);
        check_finished(&g, 61);
    }
}

#[test]
fn forfeit_gives_the_game_to_the_other_side() {
    let mut rng = GameRng::from_seed(4);
    let mut g = Cribbage::setup(&Config::default(), 4, &mut rng).unwrap_or_else(|e| panic!("{e}"));
    g.forfeit(Seat(1));
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winners: [Seat(0), Seat(2)].into_iter().collect()
        })
    );
    let mut g = Cribbage::setup(&Config::default(), 3, &mut rng).unwrap_or_else(|e| panic!("{e}"));
    g.forfeit(Seat(0));
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            winners: [Seat(1), Seat(2)].into_iter().collect()
        })
    );
}

#[test]
fn options_and_seats_are_validated() {
    let mut rng = GameRng::from_seed(5);
    assert!(Cribbage::setup(&Config { target: 100 }, 2, &mut rng).is_err());
    assert!(Cribbage::setup(&Config { target: 61 }, 2, &mut rng).is_ok());
    assert!(Cribbage::setup(&Config::default(), 1, &mut rng).is_err());
    assert!(Cribbage::setup(&Config::default(), 5, &mut rng).is_err());
    let kind = GameKind::Cribbage;
    assert_eq!(kind.parse_config(&Value::Null), Ok(json!({"target": 121})));
    assert_eq!(kind.parse_config(&json!({})), Ok(json!({"target": 121})));
    assert!(kind
        .parse_config(&json!({"target": 61, "players": 3}))
        .is_err());
}

#[test]
fn moves_and_views_on_the_wire() {
    let kind = GameKind::Cribbage;
    let mv = kind
        .parse_move(&json!({"discard": ["5H", {"rank": 10, "suit": "diamonds"}]}))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        serde_json::to_value(&mv).unwrap_or_default(),
        json!({"discard": [{"rank": 5, "suit": "hearts"}, {"rank": 10, "suit": "diamonds"}]})
    );
    let mv = kind
        .parse_move(&json!({"play": "js"}))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        serde_json::to_value(&mv).unwrap_or_default(),
        json!({"play": {"rank": "jack", "suit": "spades"}})
    );
    assert!(
        kind.parse_move(&json!("go")).is_err(),
        "the go is automatic"
    );
    assert!(kind.parse_move(&json!({"play": "1X"})).is_err());

    let mut rng = GameRng::from_seed(6);
    let g = Cribbage::setup(&Config::default(), 3, &mut rng).unwrap_or_else(|e| panic!("{e}"));
    let v = g.view(Viewer::Seat(Seat(2)));
    assert_eq!(v.hand.len(), 5);
    assert_eq!(v.held, vec![5, 5, 5]);
    assert_eq!(v.crib_size, 1, "three players: one card dealt to the crib");
    assert_eq!(v.to_act.len(), 3, "discarding is simultaneous");
    let text = serde_json::to_string(&v).unwrap_or_default();
    let back: View = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, v);
    assert!(kind
        .parse_view(&serde_json::from_str(&text).unwrap_or_default())
        .is_ok());
    let legal = g.legal_moves(Seat(2));
    assert_eq!(legal.len(), 5);
    assert!(legal
        .iter()
        .all(|m| matches!(m, Move::Discard(c) if c.len() == 1)));
}

#[test]
fn analysis_is_reachable_through_game_kind() {
    let mut out = Vec::new();
    let r = GameKind::Cribbage.analyze(
        "score",
        &json!({"hand": ["7H", "9S", "8C", "7C"], "start": "8H"}),
        parlor_games::Budget::UNLIMITED,
        &mut |s| {
            out.push(s);
            true
        },
    );
    assert!(r.is_ok());
    let v: Value = serde_json::from_str(&out[0]).unwrap_or_default();
    assert_eq!(v["total"], json!(24));
    assert_eq!(GameKind::Cribbage.tools(), &["score", "discard"]);
}

/// The events of a hand tell its story: every show item is an event of the
/// hand or crib stage, and the text is how players say it.
#[test]
fn events_narrate_the_show() {
    let g = play_out(11, &["seed", "seed"], 121);
    let v = g.view(Viewer::Spectator);
    let prev = v.previous.unwrap_or_else(|| panic!("no previous hand"));
    for shown in &prev.shown {
        let kind = if shown.kind == HandKind::Crib {
            Stage::Crib
        } else {
            Stage::Hand
        };
        let sum: u32 = prev
            .events
            .iter()
            .filter(|e| e.seat == shown.seat && e.stage == kind)
            .map(|e| u32::from(e.points))
            .sum();
        assert_eq!(sum, u32::from(shown.total));
    }
    assert!(prev.events.iter().all(|e| !e.text.is_empty()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any move, legal or not, either plays or leaves the game exactly as
    /// it was.
    #[test]
    fn a_refused_move_changes_nothing(
        seed in 0u64..1000,
        seats in 2u8..=4,
        steps in 0usize..40,
        probes in proptest::collection::vec((0u8..5, 0usize..52, 0usize..52, any::<bool>()), 1..20),
    ) {
        let mut rng = GameRng::from_seed(seed);
        let mut g = Cribbage::setup(&Config::default(), seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..steps {
            let Some(seat) = g.to_act().iter().next() else { break };
            let Some(mv) = g.timeout_move(seat) else { break };
            prop_assert!(g.play(seat, &mv, &mut rng).is_ok());
        }
        for (seat, a, b, discard) in probes {
            let (Some(a), Some(b)) = (Card::from_index(a), Card::from_index(b)) else { continue };
            let mv = if discard {
                Move::Discard(if seats == 2 { vec![a, b] } else { vec![a] })
            } else {
                Move::Play(a)
            };
            let before = g.clone();
            // A throw's cards may come in any order: the list has the
            // canonical (sorted) one.
            let legal = g.legal_moves(Seat(seat)).contains(&g.canonical(Seat(seat), &mv));
            match g.play(Seat(seat), &mv, &mut rng) {
                Ok(()) => prop_assert!(legal, "{:?} accepted but not listed", mv),
                Err(e) => {
                    prop_assert!(!legal, "{:?} listed but refused: {}", mv, e);
                    prop_assert_eq!(&g, &before);
                    prop_assert!(!e.to_string().is_empty());
                }
            }
        }
    }

    /// A throw in any order is one throw: the canonical form is the sorted
    /// one the legal list offers, and either plays to the same state.
    #[test]
    fn a_discard_in_any_order_is_the_same_throw(key: [u8; 32], seats in 2u8..=4, pick: usize, rotate: usize) {
        let mut rng = GameRng::from_key(key);
        let g = Cribbage::setup(&Config::default(), seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
        for seat in (0..seats).map(Seat) {
            let legal = g.legal_moves(seat);
            let listed = legal[pick % legal.len()].clone();
            let Move::Discard(cards) = &listed else { panic!("{listed:?} while discarding") };
            let mut cards = cards.clone();
            let n = cards.len();
            cards.rotate_left(rotate % n);
            cards.reverse();
            let shuffled = Move::Discard(cards);
            let canon = g.canonical(seat, &shuffled);
            prop_assert_eq!(&canon, &listed);
            prop_assert_eq!(g.canonical(seat, &canon), canon.clone());
            let (mut a, mut b) = (g.clone(), g.clone());
            let (mut ra, mut rb) = (rng.clone(), rng.clone());
            prop_assert!(a.play(seat, &shuffled, &mut ra).is_ok());
            prop_assert!(b.play(seat, &canon, &mut rb).is_ok());
            prop_assert_eq!(&a, &b);
            // A refused throw (another seat's cards) comes back as it is,
            // unsorted.
            let other = Seat((seat.0 + 1) % seats);
            let mut theirs: Vec<Card> = g.view(Viewer::Seat(other)).hand;
            theirs.truncate(g.discard_count());
            theirs.reverse();
            let refused = Move::Discard(theirs);
            prop_assert!(g.clone().play(seat, &refused, &mut rng.clone()).is_err());
            prop_assert_eq!(g.canonical(seat, &refused), refused);
        }
    }
}
