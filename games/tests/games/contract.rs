//! The contract every hosted game keeps, checked for every game in
//! `GameKind::ALL` and every seat count it supports, through the generic
//! `AnyGame` interface alone: a new game gets these checks by being
//! registered.
//!
//! Random playouts from random keys check, at every position:
//! - a seat asked to act has legal moves, listed in canonical form, and
//!   every one of them is accepted; a seat not asked has none;
//! - a refused move changes nothing: no view, `to_act`, `outcome` or legal
//!   list moves, and nothing is drawn from the RNG. Refused moves come
//!   from legal moves played by the wrong seat, moves of earlier positions,
//!   and legal moves' JSON mutated and decoded with `GameKind::parse_move`;
//! - a mutated move that is accepted is a legal move in another encoding:
//!   its canonical form is listed, plays to the same state, and is its own
//!   canonical form;
//! - no seat's view shows another seat's secrets or an undisclosed item, a
//!   spectator's view shows no secret at all, and each seat's view shows
//!   its own secrets;
//! - every playout ends within the game's own bound on steps
//!   ([`Game::max_steps`] for its options and seats), checked by
//!   [`ends_within`], which a game that never ends fails;
//! - replaying the same moves from the same key reproduces every view.
//!
//! And for each game, its strongest built-in bots against each other end
//! within the same bound.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_games::secrets::occurs_in;
use parlor_games::{
    AnyBot, AnyGame, AnyMove, Game, GameKind, GameRng, Outcome, Seat, SeatSet, SetupError, Viewer,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

/// A match in progress, as [`ends_within`] plays it: a hosted game or a
/// test game of the test's own.
trait Table {
    /// One move.
    type Move;
    /// Whether the match is over.
    fn over(&self) -> bool;
    /// Who must act.
    fn to_act(&self) -> SeatSet;
    /// Plays `mv` for `seat`.
    fn step(&mut self, seat: Seat, mv: &Self::Move) -> Result<(), String>;
}

/// A hosted match and its generator.
struct Hosted {
    game: AnyGame,
    rng: GameRng,
}

impl Table for Hosted {
    type Move = AnyMove;
    fn over(&self) -> bool {
        self.game.outcome().is_some()
    }
    fn to_act(&self) -> SeatSet {
        self.game.to_act()
    }
    fn step(&mut self, seat: Seat, mv: &AnyMove) -> Result<(), String> {
        self.game
            .play(seat, mv, &mut self.rng)
            .map_err(|e| e.message)
    }
}

/// A match of any [`Game`], for games the server does not host.
struct Typed<G: Game> {
    game: G,
    rng: GameRng,
}

impl<G: Game> Table for Typed<G> {
    type Move = G::Move;
    fn over(&self) -> bool {
        self.game.outcome().is_some()
    }
    fn to_act(&self) -> SeatSet {
        self.game.to_act()
    }
    fn step(&mut self, seat: Seat, mv: &G::Move) -> Result<(), String> {
        self.game
            .play(seat, mv, &mut self.rng)
            .map_err(|e| e.to_string())
    }
}

/// Plays `table` until it is over, `choose` picking each move (for the
/// first seat to act), and returns the steps it took; `Err` once it has
/// taken `bound` steps and is still on, or when nobody can move.
fn ends_within<T: Table>(
    table: &mut T,
    bound: u64,
    mut choose: impl FnMut(&T, Seat) -> Option<T::Move>,
) -> Result<u64, String> {
    let mut steps = 0;
    while !table.over() {
        if steps >= bound {
            return Err(format!("still on after {steps} steps, its bound"));
        }
        let seat = table
            .to_act()
            .iter()
            .next()
            .ok_or("nobody to act in an unfinished match")?;
        let mv = choose(table, seat).ok_or_else(|| format!("no move for {seat}"))?;
        table.step(seat, &mv)?;
        steps += 1;
    }
    Ok(steps)
}

/// Refused-move probes tried at each position: enough to meet every kind
/// of refusal over a playout, few enough to keep the debug build quick.
const PROBES_PER_POSITION: usize = 3;

/// Options besides the defaults that change how a game is played, by
/// game name: each is played at every seat count too. (Options that only
/// change sizes, such as Rummikub's rack or Nimrod's piles, change no
/// rule, and the defaults stand for them.)
const RULE_OPTIONS: &[(&str, &str)] = &[
    ("rummikub", r#"{"empty_bag": "pass"}"#),
    // The shortest turn limit: random play often reaches it.
    ("mitsudomoe", r#"{"max_turns": 20}"#),
];

/// Every hosted game with every seat count it supports, with its default
/// options (`null`) and each of its [`RULE_OPTIONS`].
fn tables() -> Vec<(GameKind, u8, Value)> {
    GameKind::ALL
        .iter()
        .flat_map(|&k| {
            let (min, max) = k.seat_range();
            let options = std::iter::once(Value::Null).chain(
                RULE_OPTIONS
                    .iter()
                    .filter(move |(name, _)| *name == k.name())
                    .map(|(_, text)| serde_json::from_str(text).unwrap()),
            );
            options.flat_map(move |o| (min..=max).map(move |s| (k, s, o.clone())))
        })
        .collect()
}

fn viewers(seats: u8) -> impl Iterator<Item = Viewer> {
    (0..seats)
        .map(|s| Viewer::Seat(Seat(s)))
        .chain([Viewer::Spectator])
}

fn json<T: serde::Serialize>(x: &T) -> Value {
    serde_json::to_value(x).unwrap()
}

/// Everything a refused move must leave as it was.
#[derive(Debug, PartialEq)]
struct Snapshot {
    views: Vec<Value>,
    to_act: Value,
    outcome: Value,
    legal: Vec<Value>,
}

fn snapshot(g: &AnyGame) -> Snapshot {
    Snapshot {
        views: viewers(g.seats()).map(|v| json(&g.view(v))).collect(),
        to_act: json(&g.to_act()),
        outcome: json(&g.outcome()),
        legal: (0..g.seats())
            .map(|s| json(&g.legal_moves(Seat(s))))
            .collect(),
    }
}

/// Whether the two generators have the same future.
fn same_stream(a: &GameRng, b: &GameRng) -> bool {
    use rand::RngCore;
    let (mut a, mut b) = (a.clone(), b.clone());
    (0..4).all(|_| a.next_u64() == b.next_u64())
}

/// `v` changed in one place chosen by `r`: a number nudged or zeroed, a
/// string swapped for another string met in `pool`, an array reversed,
/// shortened or with an element doubled, an object key dropped.
fn mutate(v: &Value, r: &mut ChaCha8Rng, pool: &[String]) -> Value {
    let mut out = v.clone();
    let mut k = r.gen_range(0..nodes(&out));
    change(&mut out, &mut k, r, pool);
    out
}

/// How many values `v` holds, itself included.
fn nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(nodes).sum(),
        Value::Object(m) => m.values().map(nodes).sum(),
        _ => 0,
    }
}

/// Applies one change to the `k`-th value of `v` in pre-order; `true`
/// once done.
fn change(v: &mut Value, k: &mut usize, r: &mut ChaCha8Rng, pool: &[String]) -> bool {
    if *k == 0 {
        match v {
            Value::Number(n) => {
                let x = n.as_i64().unwrap_or(0);
                *v = Value::from(match r.gen_range(0..4) {
                    0 => x + 1,
                    1 => x - 1,
                    2 => 0,
                    _ => x.saturating_mul(1_000),
                });
            }
            Value::String(_) if !pool.is_empty() => {
                *v = Value::String(pool[r.gen_range(0..pool.len())].clone());
            }
            Value::Array(a) if !a.is_empty() => match r.gen_range(0..3) {
                0 => a.reverse(),
                1 => {
                    a.pop();
                }
                _ => {
                    let first = a[0].clone();
                    a.push(first);
                }
            },
            Value::Object(m) if !m.is_empty() => {
                let keys: Vec<String> = m.keys().cloned().collect();
                m.remove(&keys[r.gen_range(0..keys.len())]);
            }
            _ => *v = Value::Null,
        }
        return true;
    }
    *k -= 1;
    match v {
        Value::Array(a) => a.iter_mut().any(|x| change(x, k, r, pool)),
        Value::Object(m) => m.values_mut().any(|x| change(x, k, r, pool)),
        _ => false,
    }
}

fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Secrets stay with their owners at this position.
fn check_secrets(g: &AnyGame, views: &[Value]) -> Result<(), TestCaseError> {
    let secrets = g.secrets();
    for (viewer, view) in viewers(g.seats()).zip(views) {
        for hidden in secrets.hidden_from(viewer) {
            prop_assert!(!occurs_in(hidden, view), "{:?} sees {}", viewer, hidden);
        }
        if let Viewer::Seat(seat) = viewer {
            for own in secrets.of(seat) {
                prop_assert!(
                    occurs_in(own, view),
                    "{:?} does not see its own {}",
                    seat,
                    own
                );
            }
        }
    }
    Ok(())
}

/// Probes `moves` at `g` (whose snapshot is `before`): each refused one
/// must leave the game and the RNG as they were; each accepted one must be
/// a legal move in another encoding. The refused ones are tried one after
/// another on one copy, checked once at the end: any change shows there.
fn probe(
    g: &AnyGame,
    rng: &GameRng,
    before: &Snapshot,
    moves: &[(Seat, AnyMove)],
) -> Result<(), TestCaseError> {
    let mut tried = g.clone();
    let mut tried_rng = rng.clone();
    let mut refused = Vec::new();
    for (seat, mv) in moves {
        let seat = *seat;
        match tried.play(seat, mv, &mut tried_rng) {
            Err(e) => {
                prop_assert!(!e.message.is_empty());
                refused.push((seat, mv));
            }
            Ok(()) => {
                let canon = g.canonical(seat, mv);
                prop_assert_eq!(&g.canonical(seat, &canon), &canon);
                prop_assert!(
                    g.legal_moves(seat).contains(&canon),
                    "{:?} accepted for {:?}, but its canonical form {:?} is not listed",
                    mv,
                    seat,
                    canon
                );
                // `tried` saw the refused probes before this one, so this
                // comparison checks that they changed nothing too.
                let mut other = g.clone();
                let mut other_rng = rng.clone();
                other.play(seat, &canon, &mut other_rng).unwrap();
                prop_assert_eq!(
                    snapshot(&other),
                    snapshot(&tried),
                    "{:?} then {:?}",
                    refused,
                    mv
                );
                prop_assert!(same_stream(&other_rng, &tried_rng));
                refused.clear();
                // Back to the position for the next probe.
                tried = g.clone();
                tried_rng = rng.clone();
            }
        }
    }
    if !refused.is_empty() {
        prop_assert_eq!(
            &snapshot(&tried),
            before,
            "one of the refused {:?} changed the game",
            refused
        );
        prop_assert!(
            same_stream(&tried_rng, rng),
            "one of the refused {:?} drew from the RNG",
            refused
        );
    }
    Ok(())
}

/// One random playout of `kind` with `seats` from `key`, choices from
/// `choice_seed`, checking the contract at every position, then its
/// replay. It stops after `moves` moves, or when the game ends.
fn playout(
    kind: GameKind,
    seats: u8,
    options: &Value,
    key: [u8; 32],
    choice_seed: u64,
    moves: usize,
) -> Result<(), TestCaseError> {
    let mut r = ChaCha8Rng::seed_from_u64(choice_seed);
    let mut rng = GameRng::from_key(key);
    let mut g = kind.setup(options, seats, &mut rng).unwrap();
    let bound = kind.max_steps(options, seats).unwrap();
    let mut history: Vec<(Seat, AnyMove)> = Vec::new();
    let mut seen = Vec::new();
    loop {
        let before = snapshot(&g);
        check_secrets(&g, &before.views)?;
        seen.push(before.views.clone());
        let to_act = g.to_act();
        prop_assert_eq!(g.places().is_some(), g.outcome().is_some());
        if let (Some(outcome), Some(places)) = (g.outcome(), g.places()) {
            // Places: one per seat, the winners (everyone in a draw) first,
            // nobody else first, and no place skipped.
            prop_assert_eq!(places.len(), usize::from(seats));
            for (i, &p) in places.iter().enumerate() {
                let won = match outcome {
                    parlor_games::Outcome::Draw => true,
                    parlor_games::Outcome::Win { winners } => winners.contains(Seat(i as u8)),
                };
                prop_assert_eq!(p == 1, won, "seat {} placed {} in {:?}", i, p, outcome);
            }
            // Partners share their place.
            for i in 0..seats {
                for j in 0..seats {
                    let (ti, tj) = (g.team(Seat(i)), g.team(Seat(j)));
                    if ti.is_some() && ti == tj {
                        prop_assert_eq!(places[usize::from(i)], places[usize::from(j)]);
                    }
                }
            }
            let mut distinct = places.clone();
            distinct.sort_unstable();
            distinct.dedup();
            prop_assert!(distinct
                .iter()
                .enumerate()
                .all(|(i, &p)| usize::from(p) == i + 1));
        }
        if g.outcome().is_some() {
            prop_assert!(to_act.is_empty());
            prop_assert!(before
                .legal
                .iter()
                .all(|l| l.as_array().is_some_and(Vec::is_empty)));
            break;
        }
        prop_assert!(!to_act.is_empty(), "nobody to act in an unfinished game");
        prop_assert!(
            (history.len() as u64) < bound,
            "{} did not end within its bound of {} steps",
            kind,
            bound
        );
        if history.len() == moves {
            break;
        }
        for seat in (0..seats).map(Seat) {
            let legal = g.legal_moves(seat);
            if !to_act.contains(seat) {
                prop_assert!(legal.is_empty(), "{:?} may not act but has moves", seat);
                continue;
            }
            prop_assert!(!legal.is_empty(), "{:?} must act but has no move", seat);
            for mv in &legal {
                prop_assert_eq!(&g.canonical(seat, mv), mv, "listed moves are canonical");
                let mut tried = g.clone();
                let played = tried.play(seat, mv, &mut rng.clone());
                prop_assert!(played.is_ok(), "listed {:?} refused: {:?}", mv, played);
            }
        }
        let acting: Vec<Seat> = to_act.iter().collect();
        let seat = acting[r.gen_range(0..acting.len())];
        let legal = g.legal_moves(seat);
        let mut pool = Vec::new();
        strings(&json(&legal), &mut pool);
        let mut probes = Vec::new();
        for _ in 0..PROBES_PER_POSITION {
            probes.push(match r.gen_range(0..3) {
                // A legal move, played by a seat chosen at random (often
                // one that may not act).
                0 => (
                    Seat(r.gen_range(0..seats)),
                    legal[r.gen_range(0..legal.len())].clone(),
                ),
                // A move of an earlier position, by the seat that played it.
                1 if !history.is_empty() => history[r.gen_range(0..history.len())].clone(),
                // A legal move's JSON, mutated.
                _ => {
                    let base = json(&legal[r.gen_range(0..legal.len())]);
                    match kind.parse_move(&mutate(&base, &mut r, &pool)) {
                        Ok(mv) => (seat, mv),
                        Err(e) => {
                            prop_assert!(!e.message.is_empty());
                            continue;
                        }
                    }
                }
            });
        }
        probe(&g, &rng, &before, &probes)?;
        let mv = legal[r.gen_range(0..legal.len())].clone();
        g.play(seat, &mv, &mut rng).unwrap();
        history.push((seat, mv));
    }
    // The same key and moves give the same match, view for view.
    let mut rng = GameRng::from_key(key);
    let mut again = kind.setup(options, seats, &mut rng).unwrap();
    prop_assert_eq!(&snapshot(&again).views, &seen[0]);
    for (i, (seat, mv)) in history.iter().enumerate() {
        again.play(*seat, mv, &mut rng).unwrap();
        prop_assert_eq!(
            &snapshot(&again).views,
            &seen[i + 1],
            "replay differs after move {}",
            i + 1
        );
    }
    Ok(())
}

/// Moves played in an opening: a few of every kind of turn (Cribbage's
/// discards and first cards, Rummikub's first rows and draws), cheap
/// enough to try many deals.
const OPENING_MOVES: usize = 24;

/// Plays every table at once, one thread each (the games are independent;
/// the cores are what keep this file quick).
fn every_table(key: [u8; 32], choice_seed: u64, moves: usize) -> Result<(), TestCaseError> {
    let results: Vec<Result<(), TestCaseError>> = std::thread::scope(|s| {
        let runs: Vec<_> = tables()
            .into_iter()
            .map(|(kind, seats, options)| {
                s.spawn(move || playout(kind, seats, &options, key, choice_seed, moves))
            })
            .collect();
        runs.into_iter()
            .map(|r| {
                r.join()
                    .unwrap_or_else(|_| Err(TestCaseError::fail("a playout panicked")))
            })
            .collect()
    });
    results.into_iter().collect()
}

proptest! {
    // Whole games are long in a debug build: one per table per run (each
    // run draws new keys; a failing one is kept by proptest to replay).
    #![proptest_config(ProptestConfig::with_cases(1))]

    #[test]
    fn every_game_keeps_the_contract_to_the_end(key: [u8; 32], choice_seed: u64) {
        every_table(key, choice_seed, usize::MAX)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4))]

    #[test]
    fn every_game_keeps_the_contract_in_its_opening(key: [u8; 32], choice_seed: u64) {
        every_table(key, choice_seed, OPENING_MOVES)?;
    }
}

#[test]
fn the_mutator_reaches_every_value_and_changes_the_move() {
    let mut r = ChaCha8Rng::seed_from_u64(5);
    let base = serde_json::json!({"take": [3, 4]});
    assert_eq!(nodes(&base), 4);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        let m = mutate(&base, &mut r, &["x".into()]);
        // Every change alters this move: no number stays, [3, 4] reversed
        // or shortened differs, and the object loses its only key.
        assert_ne!(m, base);
        seen.insert(m.to_string());
    }
    for reached in [
        r#"{}"#,
        r#"{"take":[4,3]}"#,
        r#"{"take":[0,4]}"#,
        r#"{"take":[3,5]}"#,
    ] {
        assert!(seen.contains(reached), "{reached} never made: {seen:?}");
    }
}

#[test]
fn rule_options_name_hosted_games_and_set_up() {
    for (name, text) in RULE_OPTIONS {
        let kind = GameKind::ALL
            .iter()
            .find(|k| k.name() == *name)
            .unwrap_or_else(|| panic!("{name} is not a hosted game"));
        let options: Value = serde_json::from_str(text).unwrap();
        assert_ne!(
            kind.parse_config(&options).unwrap(),
            kind.parse_config(&Value::Null).unwrap()
        );
        let (min, max) = kind.seat_range();
        for seats in min..=max {
            kind.setup(&options, seats, &mut GameRng::from_seed(1))
                .unwrap();
        }
    }
}

/// A game that never ends, claiming a bound all the same: the check must
/// catch it.
#[derive(Clone, Debug)]
struct Endless {
    turns: u64,
}

/// Endless refuses nothing; its refusal type is never made.
#[derive(Clone, Debug, serde::Serialize)]
struct NeverRefused;

impl std::fmt::Display for NeverRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never refused")
    }
}

impl std::error::Error for NeverRefused {}

impl Game for Endless {
    type Config = ();
    type Move = u8;
    type View = u64;
    type Illegal = NeverRefused;

    const NAME: &'static str = "endless";
    const SEATS: (u8, u8) = (2, 2);

    /// A false claim: nothing here ends a match.
    fn max_steps(_cfg: &(), _seats: u8) -> u64 {
        1_000
    }

    fn setup(_cfg: &(), _seats: u8, _rng: &mut GameRng) -> Result<Self, SetupError> {
        Ok(Endless { turns: 0 })
    }

    fn seats(&self) -> u8 {
        2
    }

    fn to_act(&self) -> SeatSet {
        SeatSet::single(Seat((self.turns % 2) as u8))
    }

    fn legal_moves(&self, seat: Seat) -> Vec<u8> {
        if self.to_act().contains(seat) {
            vec![0]
        } else {
            Vec::new()
        }
    }

    fn play(&mut self, _seat: Seat, _mv: &u8, _rng: &mut GameRng) -> Result<(), NeverRefused> {
        self.turns += 1;
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome> {
        None
    }

    fn view(&self, _viewer: Viewer) -> u64 {
        self.turns
    }

    fn forfeit(&mut self, _seat: Seat) {}
}

#[test]
fn a_game_that_never_ends_fails_the_bound_check() {
    let mut rng = GameRng::from_seed(1);
    let game = Endless::setup(&(), 2, &mut rng).unwrap();
    let bound = Endless::max_steps(&(), 2);
    let mut table = Typed { game, rng };
    let result = ends_within(&mut table, bound, |t, seat| {
        t.game.legal_moves(seat).first().copied()
    });
    assert_eq!(
        result,
        Err("still on after 1000 steps, its bound".to_owned())
    );
    assert_eq!(table.game.turns, bound);
}

#[test]
fn random_play_ends_every_game_within_its_bound() {
    // The check the endless game fails, on every hosted table, with
    // moves drawn at random (a few deals each).
    for (kind, seats, options) in tables() {
        let bound = kind.max_steps(&options, seats).unwrap();
        for seed in 0..4 {
            let mut rng = GameRng::from_seed(seed);
            let game = kind.setup(&options, seats, &mut rng).unwrap();
            let mut choice = ChaCha8Rng::seed_from_u64(seed);
            let mut table = Hosted { game, rng };
            let steps = ends_within(&mut table, bound, |t, seat| {
                let legal = t.game.legal_moves(seat);
                (!legal.is_empty()).then(|| legal[choice.gen_range(0..legal.len())].clone())
            })
            .unwrap_or_else(|e| panic!("{kind} {seats} {options}: {e}"));
            assert!(steps <= bound);
        }
    }
}

/// Plays a match of `kind` with `seats` and `options` between the
/// built-in `strategies` (one per seat, in turn), from a fixed deal, and
/// checks it ends within the game's bound; returns the steps taken.
fn bots_end_within_the_bound(
    kind: GameKind,
    seats: u8,
    options: Value,
    strategies: &[&str],
) -> u64 {
    let bound = kind.max_steps(&options, seats).unwrap();
    let mut rng = GameRng::from_seed(7);
    let game = kind.setup(&options, seats, &mut rng).unwrap();
    let mut bots: Vec<AnyBot> = (0..usize::from(seats))
        .map(|i| {
            let name = strategies[i % strategies.len()];
            kind.bot(name)
                .unwrap_or_else(|| panic!("{kind} has no {name}"))
        })
        .collect();
    let mut bot_rng = GameRng::from_seed(8);
    let mut table = Hosted { game, rng };
    let steps = ends_within(&mut table, bound, |t, seat| {
        let view = t.game.view(Viewer::Seat(seat));
        bots[seat.index()].choose(seat, &view, &mut bot_rng)
    })
    .unwrap_or_else(|e| panic!("{kind} {options}: {e}"));
    assert!(steps > 0 && steps <= bound);
    steps
}

#[test]
fn nimrod_optimal_bots_end_within_the_bound() {
    // Removes a rod or more a step: the bound is the rods at the start.
    let steps = bots_end_within_the_bound(
        GameKind::Nimrod,
        2,
        json!({"piles": [40, 65]}),
        &["optimal"],
    );
    assert!(steps <= 105);
}

#[test]
fn rummikub_predictor_bots_end_within_the_bound() {
    bots_end_within_the_bound(GameKind::Rummikub, 2, Value::Null, &["predictor"]);
    // The rule that plays on past an empty bag, with more seats (the
    // predictor plays greedily there).
    bots_end_within_the_bound(
        GameKind::Rummikub,
        4,
        json!({"empty_bag": "pass"}),
        &["predictor", "greedy"],
    );
}

#[test]
fn cribbage_expert_bots_end_within_the_bound() {
    for seats in 2..=4 {
        bots_end_within_the_bound(
            GameKind::Cribbage,
            seats,
            json!({"target": 61}),
            &["expert"],
        );
    }
}

#[test]
fn mitsudomoe_search_bots_end_within_the_bound() {
    // Parlor's turn limit bounds the match, whatever the bots see: in a
    // debug build `search:20` sees little and may shuffle until the
    // limit, so the limit here is the shortest a room may set (a turn
    // takes up to about 0.1 s in a debug build; no assertion depends on
    // it). Matches under the default limit are `mitsudomoe_bots`'s
    // release test, `every_search_match_ends`.
    let steps = bots_end_within_the_bound(
        GameKind::Mitsudomoe,
        2,
        json!({"max_turns": 20}),
        &["search:20"],
    );
    assert!(steps <= 20);
}
