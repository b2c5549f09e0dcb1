//! Mitsudomoe's move generator against a second, deliberately simple one.
//!
//! The simple generator below shares nothing with the rules module but
//! the position notation (which it reads and writes with its own code).
//! It works on a plain board of `Vec`s and tries, by brute force, every
//! ring step (from the supply or any square, to any square), every ball
//! step (from any square to any square) and, for vaults that jump
//! opponent balls, every order of those balls with every destination
//! square, each checked against the rules as `rules.md` words them. Two
//! tries are the same turn when they do the same ring step and ball step
//! and reach the same position (balls of one colour are alike). Every
//! turn it finds is then played through `play`, which must accept it and
//! reach the same position; random candidate turns must be accepted by
//! `play` exactly when the simple generator finds them legal.
//!
//! Both generators must give the counts frozen in
//! `data/mitsudomoe_perft.json` (how they were obtained is written there):
//! sequences of 1 to 3 turns from the start and from a set of mid-game
//! positions, and the distinct positions they reach.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeSet, HashSet};

use parlor_games::mitsudomoe::ai::perft::perft;
use parlor_games::mitsudomoe::{count_turns, legal_turns, nth_turn, play, Move, Position};
use parlor_games::GameRng;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;

// ---------------------------------------------------------------------
// The simple generator.

/// Rows and columns.
const N: usize = 5;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Cell {
    rings: Vec<char>, // 'b' / 'w', bottom first
    ball: Option<char>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Simple {
    cells: Vec<Vec<Cell>>, // [row][col]
    to_move: char,
}

fn other(c: char) -> char {
    if c == 'b' {
        'w'
    } else {
        'b'
    }
}

/// Home squares as (row, col): Black A4 A5 B5, White D1 E1 E2.
fn home(c: char) -> Vec<(usize, usize)> {
    if c == 'b' {
        vec![(0, 3), (0, 4), (1, 4)]
    } else {
        vec![(3, 0), (4, 0), (4, 1)]
    }
}

fn goals(c: char) -> Vec<(usize, usize)> {
    home(other(c))
}

fn name(rc: (usize, usize)) -> String {
    format!("{}{}", (b'A' + rc.0 as u8) as char, rc.1 + 1)
}

fn squares() -> Vec<(usize, usize)> {
    (0..N).flat_map(|r| (0..N).map(move |c| (r, c))).collect()
}

impl Simple {
    fn read(text: &str) -> Simple {
        let (board, side) = text.split_once(' ').unwrap();
        let cells = board
            .split('/')
            .map(|row| {
                row.split(',')
                    .map(|cell| {
                        let mut rings = Vec::new();
                        let mut ball = None;
                        for ch in cell.chars() {
                            match ch {
                                'b' | 'w' => rings.push(ch),
                                'B' => ball = Some('b'),
                                'W' => ball = Some('w'),
                                _ => {}
                            }
                        }
                        Cell { rings, ball }
                    })
                    .collect()
            })
            .collect();
        Simple {
            cells,
            to_move: side.chars().next().unwrap(),
        }
    }

    fn write(&self) -> String {
        let rows: Vec<String> = self
            .cells
            .iter()
            .map(|row| {
                row.iter()
                    .map(|c| {
                        let mut s: String = c.rings.iter().collect();
                        if let Some(b) = c.ball {
                            s.push(b.to_ascii_uppercase());
                        }
                        if s.is_empty() {
                            s.push('.');
                        }
                        s
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        format!("{} {}", rows.join("/"), self.to_move)
    }

    fn at(&self, rc: (usize, usize)) -> &Cell {
        &self.cells[rc.0][rc.1]
    }

    fn at_mut(&mut self, rc: (usize, usize)) -> &mut Cell {
        &mut self.cells[rc.0][rc.1]
    }

    fn top(&self, rc: (usize, usize)) -> Option<char> {
        self.at(rc).rings.last().copied()
    }

    fn supply(&self, c: char) -> usize {
        let on_board: usize = squares()
            .into_iter()
            .map(|rc| self.at(rc).rings.iter().filter(|&&r| r == c).count())
            .sum();
        8 - on_board
    }

    /// The ring step's rules; `from` None = from supply.
    fn ring_ok(&self, from: Option<(usize, usize)>, to: (usize, usize)) -> bool {
        let me = self.to_move;
        match from {
            None => {
                if self.supply(me) == 0 {
                    return false;
                }
            }
            Some(f) => {
                // Exposed: the top ring is mine and nothing is on it.
                if self.top(f) != Some(me) || self.at(f).ball.is_some() || f == to {
                    return false;
                }
            }
        }
        self.at(to).ball.is_none()
    }

    fn ring_step(&self, from: Option<(usize, usize)>, to: (usize, usize)) -> Simple {
        let mut s = self.clone();
        let ring = match from {
            None => s.to_move,
            Some(f) => s.at_mut(f).rings.pop().unwrap(),
        };
        s.at_mut(to).rings.push(ring);
        s
    }

    /// The ball step's rules: `Some(jumped squares)` if legal.
    fn ball_ok(&self, from: (usize, usize), to: (usize, usize)) -> Option<Vec<(usize, usize)>> {
        let me = self.to_move;
        if self.at(from).ball != Some(me) || goals(me).contains(&from) {
            return None;
        }
        if self.at(to).ball.is_some() || self.top(to) != Some(me) {
            return None;
        }
        let dr = to.0 as i32 - from.0 as i32;
        let dc = to.1 as i32 - from.1 as i32;
        let dist = dr.abs().max(dc.abs());
        if dist == 0 {
            return None;
        }
        if dist == 1 {
            return Some(Vec::new());
        }
        if !(dr == 0 || dc == 0 || dr.abs() == dc.abs()) {
            return None;
        }
        let (ur, uc) = (dr.signum(), dc.signum());
        let mut jumped = Vec::new();
        for k in 1..dist {
            let rc = (
                (from.0 as i32 + ur * k) as usize,
                (from.1 as i32 + uc * k) as usize,
            );
            let b = self.at(rc).ball?;
            if b != me && goals(b).contains(&rc) {
                return None;
            }
            jumped.push(rc);
        }
        Some(jumped)
    }

    /// Every legal turn as (notation, position after), deduplicated.
    fn turns(&self) -> Vec<(String, Simple)> {
        let me = self.to_move;
        let opp = other(me);
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let froms: Vec<Option<(usize, usize)>> = std::iter::once(None)
            .chain(squares().into_iter().map(Some))
            .collect();
        for &rf in &froms {
            for rt in squares() {
                if !self.ring_ok(rf, rt) {
                    continue;
                }
                let s1 = self.ring_step(rf, rt);
                let ring = match rf {
                    None => format!("+{}", name(rt)),
                    Some(f) => format!("{}-{}", name(f), name(rt)),
                };
                for bf in squares() {
                    for bt in squares() {
                        let Some(jumped) = s1.ball_ok(bf, bt) else {
                            continue;
                        };
                        let mut s2 = s1.clone();
                        s2.at_mut(bf).ball = None;
                        s2.at_mut(bt).ball = Some(me);
                        let ball = format!("{}-{}", name(bf), name(bt));
                        let theirs: Vec<_> = jumped
                            .into_iter()
                            .filter(|&rc| s2.at(rc).ball == Some(opp))
                            .collect();
                        for (relocs, s3) in relocations(&s2, opp, &theirs) {
                            let mut s3 = s3;
                            s3.to_move = opp;
                            let key = (ring.clone(), ball.clone(), s3.write());
                            if seen.insert(key) {
                                let mut text = format!("{ring} {ball}");
                                for (f, t) in relocs {
                                    text.push_str(&format!(" x{}-{}", name(f), name(t)));
                                }
                                out.push((text, s3));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// Whether the player who just moved (not to move) ended the game.
    fn over(&self) -> bool {
        let mover = other(self.to_move);
        let all_home = squares()
            .into_iter()
            .filter(|&rc| self.at(rc).ball == Some(mover))
            .all(|rc| goals(mover).contains(&rc));
        let home_full = home(mover).iter().all(|&rc| self.at(rc).ball.is_some());
        all_home || home_full
    }
}

type Relocated = (Vec<((usize, usize), (usize, usize))>, Simple);

/// Every way to relocate the balls on `jumped`: every order, every
/// destination square, each move checked when it is made.
fn relocations(s: &Simple, color: char, jumped: &[(usize, usize)]) -> Vec<Relocated> {
    if jumped.is_empty() {
        return vec![(Vec::new(), s.clone())];
    }
    let mut out = Vec::new();
    for (i, &from) in jumped.iter().enumerate() {
        for to in squares() {
            if s.at(to).ball.is_some() || s.top(to) != Some(color) {
                continue;
            }
            let mut next = s.clone();
            next.at_mut(from).ball = None;
            next.at_mut(to).ball = Some(color);
            let rest: Vec<_> = jumped
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, &x)| x)
                .collect();
            for (mut list, end) in relocations(&next, color, &rest) {
                list.insert(0, (from, to));
                out.push((list, end));
            }
        }
    }
    out
}

/// Sequences of `depth` turns and the distinct positions they reach,
/// by the simple generator (the root is not checked for an ended game:
/// no turn led to it).
fn simple_perft(start: &Simple, depth: u32) -> (u128, usize) {
    fn go(s: &Simple, depth: u32, root: bool, ends: &mut HashSet<String>) -> u128 {
        if depth == 0 {
            ends.insert(s.write());
            return 1;
        }
        if !root && s.over() {
            return 0;
        }
        s.turns()
            .iter()
            .map(|(_, next)| go(next, depth - 1, false, ends))
            .sum()
    }
    let mut ends = HashSet::new();
    let n = go(start, depth, true, &mut ends);
    (n, ends.len())
}

// ---------------------------------------------------------------------
// The checks.

fn pos(text: &str) -> Position {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Both generators list the same turns, and `play` takes each of the
/// simple one's to the same position.
fn same_turns(text: &str) {
    let p = pos(text);
    let simple = Simple::read(text);
    let mut simple_set = BTreeSet::new();
    for (notation, after) in simple.turns() {
        let m: Move = notation
            .parse()
            .unwrap_or_else(|e| panic!("{notation}: {e}"));
        let played = play(&p, &m).unwrap_or_else(|e| panic!("{text}: {notation} refused: {e}"));
        assert_eq!(
            played.position.to_string(),
            after.write(),
            "{text}: {notation}"
        );
        simple_set.insert((m.ring, m.ball, after.write()));
    }
    let listed = legal_turns(&p);
    assert_eq!(count_turns(&p), listed.len());
    let mut main_set = BTreeSet::new();
    for m in &listed {
        let after = play(&p, m).unwrap_or_else(|e| panic!("listed {m} refused: {e}"));
        assert_eq!(after.turn, *m, "listed turns are canonical");
        assert!(
            main_set.insert((m.ring, m.ball, after.position.to_string())),
            "{m} twice"
        );
    }
    assert_eq!(main_set, simple_set, "{text}");
}

/// The ring and ball steps of a turn in notation: its first two tokens.
fn steps(notation: &str) -> String {
    notation.split(' ').take(2).collect::<Vec<_>>().join(" ")
}

/// `play` accepts candidate turns exactly when the simple rules do: random
/// ones (mostly illegal), and every order of the relocations of each
/// legal turn that relocates two or more balls (some orders work, some
/// do not). Returns how many reordered lists were accepted and refused.
fn same_verdicts(text: &str, rng: &mut ChaCha8Rng, tries: usize) -> (usize, usize) {
    let p = pos(text);
    let simple = Simple::read(text);
    let turns = simple.turns();
    let legal: HashSet<(String, String)> = turns
        .iter()
        .map(|(n, after)| (steps(n), after.write()))
        .collect();
    let all = squares();
    let sq = |rng: &mut ChaCha8Rng| name(all[rng.gen_range(0..all.len())]);
    let mut candidates = Vec::new();
    for _ in 0..tries {
        let ring = if rng.gen_bool(0.5) {
            format!("+{}", sq(rng))
        } else {
            format!("{}-{}", sq(rng), sq(rng))
        };
        let mut c = format!("{ring} {}-{}", sq(rng), sq(rng));
        for _ in 0..rng.gen_range(0..3) {
            c.push_str(&format!(" x{}-{}", sq(rng), sq(rng)));
        }
        candidates.push(c);
    }
    for (n, _) in &turns {
        let tokens: Vec<&str> = n.split(' ').collect();
        if tokens.len() < 4 {
            continue;
        }
        let mut relocs: Vec<&str> = tokens[2..].to_vec();
        relocs.reverse();
        candidates.push(format!("{} {}", steps(n), relocs.join(" ")));
        relocs.rotate_left(1);
        candidates.push(format!("{} {}", steps(n), relocs.join(" ")));
    }
    let mut reordered = (0, 0);
    for (i, c) in candidates.iter().enumerate() {
        let m: Move = c.parse().unwrap();
        let verdict = play(&p, &m);
        assert_eq!(
            verdict.is_ok(),
            simple_accepts(&simple, c),
            "{text}: {c}: {verdict:?}"
        );
        if let Ok(after) = &verdict {
            assert!(
                legal.contains(&(steps(c), after.position.to_string())),
                "{c}"
            );
        }
        if i >= tries {
            if verdict.is_ok() {
                reordered.0 += 1;
            } else {
                reordered.1 += 1;
            }
        }
    }
    reordered
}

/// Whether the simple rules accept `text` (notation) as played, in order.
fn simple_accepts(s: &Simple, text: &str) -> bool {
    let parse = |t: &str| -> (usize, usize) {
        let b = t.as_bytes();
        ((b[0] - b'A') as usize, (b[1] - b'1') as usize)
    };
    let tokens: Vec<&str> = text.split(' ').collect();
    let rf = tokens[0].strip_prefix('+').map_or_else(
        || Some(parse(tokens[0].split_once('-').unwrap().0)),
        |_| None,
    );
    let rt = parse(tokens[0].rsplit_once(['-', '+']).unwrap().1);
    if !s.ring_ok(rf, rt) {
        return false;
    }
    let s1 = s.ring_step(rf, rt);
    let (bf, bt) = tokens[1].split_once('-').unwrap();
    let (bf, bt) = (parse(bf), parse(bt));
    let Some(jumped) = s1.ball_ok(bf, bt) else {
        return false;
    };
    let me = s.to_move;
    let mut s2 = s1.clone();
    s2.at_mut(bf).ball = None;
    s2.at_mut(bt).ball = Some(me);
    let mut pending: Vec<_> = jumped
        .into_iter()
        .filter(|&rc| s2.at(rc).ball == Some(other(me)))
        .collect();
    for t in &tokens[2..] {
        let (f, to) = t[1..].split_once('-').unwrap();
        let (f, to) = (parse(f), parse(to));
        let Some(i) = pending.iter().position(|&x| x == f) else {
            return false;
        };
        if s2.at(to).ball.is_some() || s2.top(to) != Some(other(me)) {
            return false;
        }
        s2.at_mut(f).ball = None;
        s2.at_mut(to).ball = Some(other(me));
        pending.remove(i);
    }
    pending.is_empty()
}

#[derive(Deserialize)]
struct Count {
    depth: u32,
    moves: u128,
    positions: usize,
}

#[derive(Deserialize)]
struct Case {
    position: String,
    counts: Vec<Count>,
}

#[derive(Deserialize)]
struct Frozen {
    start: Vec<Count>,
    positions: Vec<Case>,
}

fn frozen() -> Frozen {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/mitsudomoe_perft.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Most distinct positions the fast perft may keep in these tests.
const LIMIT: usize = 10_000_000;

fn check_counts(text: &str, counts: &[Count]) {
    let p = pos(text);
    let simple = Simple::read(text);
    for c in counts {
        let fast = perft(&p, c.depth, LIMIT).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (fast.moves, fast.positions as usize),
            (c.moves, c.positions),
            "fast, {text} depth {}",
            c.depth
        );
        let (moves, positions) = simple_perft(&simple, c.depth);
        assert_eq!(
            (moves, positions),
            (c.moves, c.positions),
            "simple, {text} depth {}",
            c.depth
        );
    }
}

#[test]
fn the_start_agrees_to_depth_three_with_the_frozen_counts() {
    let data = frozen();
    assert_eq!(data.start[0].moves, 9, "rules.md: nine turns at the start");
    check_counts(&Position::initial().to_string(), &data.start);
}

#[test]
fn mid_game_positions_agree_with_the_frozen_counts() {
    let data = frozen();
    assert!(data.positions.len() >= 30);
    for case in &data.positions {
        check_counts(&case.position, &case.counts);
    }
}

#[test]
fn both_generators_list_the_same_turns_and_play_accepts_exactly_those() {
    let data = frozen();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    same_turns(&Position::initial().to_string());
    let (mut accepted, mut refused) = (0, 0);
    for case in &data.positions {
        same_turns(&case.position);
        let (a, r) = same_verdicts(&case.position, &mut rng, 300);
        accepted += a;
        refused += r;
    }
    // Reordering relocations both keeps and breaks working orders here.
    assert!(
        accepted > 50 && refused > 50,
        "{accepted} accepted, {refused} refused"
    );
}

// ---------------------------------------------------------------------
// Making the frozen data.

/// A random position: `crowded` ones are random stacks and balls (each
/// colour's three balls on its own rings, rings within each player's
/// eight), the others come from random playouts from the start.
fn random_position(rng: &mut ChaCha8Rng, crowded: bool) -> Option<Position> {
    if !crowded {
        let mut g = GameRng::from_seed(rng.gen());
        let mut p = Position::initial();
        for _ in 0..rng.gen_range(2..40) {
            let n = count_turns(&p);
            if n == 0 {
                return None;
            }
            p = play(&p, &nth_turn(&p, g.below(n as u64) as usize)?)
                .ok()?
                .position;
            if p.end_of_turn().is_some() {
                return None;
            }
        }
        return Some(p);
    }
    let mut cells = vec![
        vec![
            Cell {
                rings: Vec::new(),
                ball: None
            };
            N
        ];
        N
    ];
    let mut left = [8usize, 8];
    for c in [0usize, 1] {
        let letter = ['b', 'w'][c];
        let rings = rng.gen_range(3..=8);
        for _ in 0..rings {
            let (r, k) = (rng.gen_range(0..N), rng.gen_range(0..N));
            cells[r][k].rings.push(letter);
            left[c] -= 1;
        }
    }
    for letter in ['b', 'w'] {
        let mut placed = 0;
        for _ in 0..200 {
            let (r, k) = (rng.gen_range(0..N), rng.gen_range(0..N));
            let cell = &mut cells[r][k];
            if cell.ball.is_none() && cell.rings.last() == Some(&letter) {
                cell.ball = Some(letter);
                placed += 1;
                if placed == 3 {
                    break;
                }
            }
        }
        if placed < 3 {
            return None;
        }
    }
    let side = if rng.gen_bool(0.5) { 'b' } else { 'w' };
    let text = Simple {
        cells,
        to_move: side,
    }
    .write();
    text.parse().ok()
}

/// Writes `data/mitsudomoe_perft.json` (the counts from the fast
/// generator; the tests above check the simple one gives the same):
/// `cargo test --release -p parlor-games --test games -- --ignored --nocapture mitsudomoe_perft::print_frozen_counts`
#[test]
#[ignore]
fn print_frozen_counts() {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let start: Vec<serde_json::Value> = (1..=3)
        .map(|d| {
            let r = perft(&Position::initial(), d, LIMIT).unwrap();
            serde_json::json!({"depth": d, "moves": r.moves, "positions": r.positions})
        })
        .collect();
    let mut cases = Vec::new();
    let mut vaulting = 0;
    while cases.len() < 36 {
        let crowded = cases.len() % 2 == 1;
        let Some(p) = random_position(&mut rng, crowded) else {
            continue;
        };
        if count_turns(&p) == 0 {
            continue;
        }
        // Keep a share of positions where a vault relocates two or more balls.
        let multi = legal_turns(&p)
            .iter()
            .any(|m| m.relocate.as_slice().len() >= 2);
        if crowded && !multi && vaulting < cases.len() / 2 {
            continue;
        }
        vaulting += usize::from(multi);
        let depths = if cases.len() < 4 { 2 } else { 1 };
        let counts: Vec<serde_json::Value> = (1..=depths)
            .map(|d| {
                let r = perft(&p, d, LIMIT).unwrap();
                serde_json::json!({"depth": d, "moves": r.moves, "positions": r.positions})
            })
            .collect();
        cases.push(serde_json::json!({"position": p.to_string(), "counts": counts}));
    }
    let doc = serde_json::json!({
        "about": [
            "Perft counts for Mitsudomoe: `moves` = sequences of exactly `depth` legal turns, `positions` = distinct positions (board and player to move) they reach.",
            "Obtained with `cargo test --release -p parlor-games --test games -- --ignored --nocapture mitsudomoe_perft::print_frozen_counts` (the rules module's perft), and checked by the same file's tests against a deliberately simple brute-force generator written from rules.md, which gives the same numbers.",
            "`start` is the standard start (Black to move): its 9 turns at depth 1 are also rules.md's own count.",
            "`positions`: 36 positions from a ChaCha8 stream seeded 2024, alternately the end of a random playout from the start (2 to 39 turns) and a random crowded board (random stacks, three balls each on their own rings, random side to move), with a share where some vault relocates two or more balls; the first four also to depth 2."
        ],
        "start": start,
        "positions": cases,
    });
    println!("{}", serde_json::to_string_pretty(&doc).unwrap());
    println!("vaults relocating two or more balls in {vaulting} positions");
}

/// Deeper counts from the start, by the fast generator alone (the simple
/// one would take hours): `cargo test --release -p parlor-games --test
/// games -- --ignored --nocapture mitsudomoe_perft::deeper_counts`.
#[test]
#[ignore]
fn deeper_counts() {
    for depth in 1..=5 {
        let t = std::time::Instant::now();
        match perft(&Position::initial(), depth, LIMIT) {
            Ok(r) => println!(
                "depth {depth}: {} sequences, {} distinct positions ({:.2} s)",
                r.moves,
                r.positions,
                t.elapsed().as_secs_f64()
            ),
            Err(e) => println!("depth {depth}: {e}"),
        }
    }
}
