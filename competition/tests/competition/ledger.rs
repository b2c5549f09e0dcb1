//! The ratings ledger: a chain that folds back to its own ratings, and
//! fails at the first line that was changed.

use parlor_competition::ledger::{self, DAY_MS, GENESIS};
use parlor_competition::{
    GameResult, Glicko2, LedgerError, LedgerLine, LedgerPlayer, MatchEntrant, Placing, RatingTable,
};

const SYSTEM: Glicko2 = Glicko2::PARLOR;

/// A match's player as the tests write it: (name, team, place).
type Row<'a> = (&'a str, Option<u8>, u8);

/// Builds a ledger the way a server would: each match's players as (name,
/// team, place), folded and sealed in order.
fn build(matches: &[(&str, u64, Vec<Row<'_>>)]) -> Vec<LedgerLine> {
    let mut table = RatingTable::default();
    let mut prev = GENESIS.to_owned();
    let mut lines = Vec::new();
    for (i, (pool, at_ms, players)) in matches.iter().enumerate() {
        let placings: Vec<Placing<'_>> = players
            .iter()
            .map(|&(name, team, place)| Placing { name, team, place })
            .collect();
        let rated = table.apply(&SYSTEM, pool, *at_ms, &placings);
        let line = LedgerLine {
            n: i as u64 + 1,
            at_ms: *at_ms,
            pool: (*pool).to_owned(),
            room: format!("room{i}"),
            commitment: "c".repeat(64),
            players: players
                .iter()
                .zip(rated)
                .enumerate()
                .map(
                    |(seat, ((name, team, place), (before, after)))| LedgerPlayer {
                        name: (*name).to_owned(),
                        seat: seat as u8,
                        team: *team,
                        place: *place,
                        before,
                        after,
                    },
                )
                .collect(),
            void: None,
            prev: prev.clone(),
            hash: String::new(),
        }
        .seal();
        prev.clone_from(&line.hash);
        lines.push(line);
    }
    lines
}

fn sample() -> Vec<LedgerLine> {
    build(&[
        ("nimrod", 1_000, vec![("alice", None, 1), ("bob", None, 2)]),
        ("nimrod", 2_000, vec![("bob", None, 1), ("carol", None, 2)]),
        (
            "cribbage",
            3_000,
            vec![
                ("alice", Some(0), 1),
                ("bob", Some(1), 2),
                ("carol", Some(0), 1),
                ("dave", Some(1), 2),
            ],
        ),
        (
            "nimrod",
            3_000 + 3 * DAY_MS + 5,
            vec![("alice", None, 1), ("carol", None, 1)],
        ),
    ])
}

#[test]
fn a_ledger_folds_back_to_its_own_ratings_bit_for_bit() {
    let lines = sample();
    let ratings = ledger::verify(&SYSTEM, &lines, 0.0).expect("the ledger checks out");
    let (alice, at) = ratings.get("nimrod", "alice").expect("alice is rated");
    assert_eq!(at, lines[3].at_ms);
    assert_eq!(alice, lines[3].players[0].after);
    // Pools are separate: bob's cribbage rating started afresh.
    assert_eq!(lines[2].players[1].before, SYSTEM.initial);
    // The same ledger folds to the same ratings again.
    assert_eq!(ledger::verify(&SYSTEM, &lines, 0.0).ok(), Some(ratings));
}

/// Partners are not each other's opponents: in the 4-player match each
/// player's period holds exactly the two games against the other team.
#[test]
fn partnerships_rate_against_the_other_team_only() {
    let lines = sample();
    let m = &lines[2];
    let others = |team: u8| -> Vec<GameResult> {
        m.players
            .iter()
            .filter(|p| p.team != Some(team))
            .map(|p| GameResult {
                opponent: p.before,
                score: 0.0,
            })
            .collect()
    };
    let alice = &m.players[0];
    let mut games = others(0);
    for g in &mut games {
        g.score = 1.0;
    }
    assert_eq!(games.len(), 2);
    assert_eq!(SYSTEM.rate(alice.before, &games), alice.after);
    let dave = &m.players[3];
    assert_eq!(SYSTEM.rate(dave.before, &others(1)), dave.after);
}

/// Three idle days widen alice's deviation before her next nimrod match.
#[test]
fn idle_days_count_from_the_ledgers_timestamps() {
    let lines = sample();
    let last = lines[0].players[0].after;
    let entering = lines[3].players[0].before;
    assert_eq!(entering, SYSTEM.idle(last, 3));
    assert!(entering.rd > last.rd);
}

#[test]
fn any_change_to_a_line_fails_the_check_at_that_line() {
    let good = sample();
    let mut after = good.clone();
    after[1].players[0].after.rating += 0.5;
    assert_eq!(
        ledger::verify(&SYSTEM, &after, 1e-6),
        Err(LedgerError::Hash(2))
    );
    // Re-sealed after the change, the fold finds it.
    after[1] = after[1].clone().seal();
    assert!(matches!(
        ledger::verify(&SYSTEM, &after, 1e-6),
        Err(LedgerError::After(2, _, _, _))
    ));
    // A line rewritten and re-sealed breaks the chain at the next line.
    let mut rewritten = good.clone();
    rewritten[1].room = "elsewhere".into();
    rewritten[1] = rewritten[1].clone().seal();
    assert_eq!(
        ledger::verify(&SYSTEM, &rewritten, 1e-6),
        Err(LedgerError::Chain(3))
    );
    let mut dropped = good.clone();
    dropped.remove(1);
    assert!(matches!(
        ledger::verify(&SYSTEM, &dropped, 1e-6),
        Err(LedgerError::Numbering { at: 2, n: 3 })
    ));
    let mut places = good;
    places[0].players[1].place = 1;
    places[0] = places[0].clone().seal();
    assert!(ledger::verify(&SYSTEM, &places, 1e-6).is_err());
}

/// The canonical form is compact JSON in field order without `hash`.
#[test]
fn the_canonical_form_is_documented_json() {
    let line = &sample()[0];
    let text = String::from_utf8(line.canonical()).expect("JSON is UTF-8");
    assert!(text.starts_with("{\"n\":1,\"at_ms\":1000,\"pool\":\"nimrod\",\"room\":\"room0\","));
    assert!(text.contains("\"before\":{\"rating\":1500.0,\"rd\":350.0,\"vol\":0.06}"));
    assert!(text.ends_with(&format!(",\"prev\":\"{GENESIS}\"}}")));
    assert!(!text.contains("hash"));
    assert!(!text.contains(' '));
}

/// A ledger written the way the server writes it (each line from the
/// ratings table's current values with `next_line`) folds back bit for
/// bit, and its ratings are the table's.
#[test]
fn lines_made_from_current_ratings_fold_back_exactly() {
    use std::collections::HashMap;
    let mut table: HashMap<(String, String), (parlor_competition::Rating, u64)> = HashMap::new();
    let mut lines: Vec<LedgerLine> = Vec::new();
    let matches: Vec<(&str, u64, Vec<Row<'_>>)> = vec![
        ("nimrod", 1_000, vec![("ann", None, 1), ("bob", None, 2)]),
        ("nimrod", 2_000, vec![("bob", None, 1), ("cy", None, 2)]),
        (
            "cribbage",
            3_000,
            vec![
                ("ann", Some(0), 1),
                ("bob", Some(1), 2),
                ("cy", Some(0), 1),
                ("dee", Some(1), 2),
            ],
        ),
        (
            "rummikub",
            4_000,
            vec![("ann", None, 2), ("cy", None, 1), ("dee", None, 3)],
        ),
        (
            "nimrod",
            4_000 + 3 * DAY_MS,
            vec![("ann", None, 1), ("cy", None, 1)],
        ),
    ];
    for (i, (pool, at_ms, players)) in matches.iter().enumerate() {
        let entrants: Vec<MatchEntrant> = players
            .iter()
            .enumerate()
            .map(|(seat, (name, team, place))| MatchEntrant {
                name: (*name).to_owned(),
                seat: seat as u8,
                team: *team,
                place: *place,
                current: table
                    .get(&((*pool).to_owned(), (*name).to_owned()))
                    .copied(),
            })
            .collect();
        let head = lines.last().map(|l| (l.n, l.hash.as_str()));
        let line = ledger::next_line(
            &SYSTEM,
            head,
            *at_ms,
            pool,
            &format!("r{i}"),
            "c",
            &entrants,
        );
        for p in &line.players {
            table.insert(((*pool).to_owned(), p.name.clone()), (p.after, *at_ms));
        }
        lines.push(line);
    }
    let ratings = ledger::verify(&SYSTEM, &lines, 0.0).unwrap_or_else(|e| panic!("{e}"));
    for ((pool, name), (rating, at)) in &table {
        assert_eq!(
            ratings.get(pool, name),
            Some((*rating, *at)),
            "{pool} {name}"
        );
    }
}

/// Four-player Cribbage by hand: each player's period holds exactly the
/// two opponents of the other side, won by the winning side.
#[test]
fn a_partnership_match_rates_each_player_against_the_two_opponents_only() {
    let fresh = SYSTEM.initial;
    let entrants: Vec<MatchEntrant> = ["ann", "bob", "cy", "dee"]
        .iter()
        .enumerate()
        .map(|(seat, name)| MatchEntrant {
            name: (*name).to_owned(),
            seat: seat as u8,
            team: Some(seat as u8 % 2),
            place: if seat % 2 == 0 { 1 } else { 2 },
            current: None,
        })
        .collect();
    let line = ledger::next_line(&SYSTEM, None, 5, "cribbage", "r", "c", &entrants);
    let won = SYSTEM.rate(
        fresh,
        &[
            GameResult {
                opponent: fresh,
                score: 1.0,
            },
            GameResult {
                opponent: fresh,
                score: 1.0,
            },
        ],
    );
    let lost = SYSTEM.rate(
        fresh,
        &[
            GameResult {
                opponent: fresh,
                score: 0.0,
            },
            GameResult {
                opponent: fresh,
                score: 0.0,
            },
        ],
    );
    let afters: Vec<_> = line.players.iter().map(|p| p.after).collect();
    assert_eq!(afters, vec![won, lost, won, lost]);
    assert_eq!(line.n, 1);
    assert_eq!(line.prev, GENESIS);
}

/// Three-player Rummikub by hand: second place beats third and loses to
/// first; everyone meets both others.
#[test]
fn a_three_player_match_scores_each_pair_by_place() {
    let fresh = SYSTEM.initial;
    let entrants: Vec<MatchEntrant> = [("ann", 2u8), ("bob", 1), ("cy", 3)]
        .iter()
        .enumerate()
        .map(|(seat, (name, place))| MatchEntrant {
            name: (*name).to_owned(),
            seat: seat as u8,
            team: None,
            place: *place,
            current: None,
        })
        .collect();
    let line = ledger::next_line(&SYSTEM, Some((7, "ab")), 5, "rummikub", "r", "c", &entrants);
    let g = |score| GameResult {
        opponent: fresh,
        score,
    };
    assert_eq!(line.players[0].after, SYSTEM.rate(fresh, &[g(0.0), g(1.0)]));
    assert_eq!(line.players[1].after, SYSTEM.rate(fresh, &[g(1.0), g(1.0)]));
    assert_eq!(line.players[2].after, SYSTEM.rate(fresh, &[g(0.0), g(0.0)]));
    assert_eq!((line.n, line.prev.as_str()), (8, "ab"));
    assert_eq!(line.hash, line.compute_hash());
}
