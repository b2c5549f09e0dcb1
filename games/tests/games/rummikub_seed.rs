//! Rummikub Lite: every example of the seed (000), checked exactly.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use parlor_games::rummikub::{
    all_outcomes, count_wins, is_valid_table, predict, valid_table, Action, Block, Color, Position,
    Row, Rule, Solution,
};

use Color::{Black as K, Blue as B, Red as R, Yellow as Y};

fn b(n: i64, c: Color) -> Block {
    Block::new(n, c)
}

/// The nrow of colour `c` from `lo` to `hi`.
fn run(c: Color, lo: i64, hi: i64) -> Row {
    Row::Nrow((lo..=hi).map(|n| b(n, c)).collect())
}

fn crow(blocks: &[Block]) -> Row {
    Row::Crow(blocks.to_vec())
}

fn row(r: Row) -> Action {
    Action::PlayRow(r)
}

fn add(block: Block, r: Row) -> Action {
    Action::PlayBlock { block, row: r }
}

fn draw(block: Block) -> Action {
    Action::Draw(block)
}

use Action::{DrawGame as DRAW, Lose as LOSE, Win as WIN};

fn solution(p1: Vec<Action>, p2: Vec<Action>) -> Solution {
    Solution { p1, p2 }
}

#[test]
fn valid_table_examples() {
    let table1 = [
        crow(&[b(5, R), b(5, Y), b(5, K)]),
        Row::Nrow(vec![b(5, B), b(6, B), b(7, B), b(8, B)]),
    ];
    assert!(is_valid_table(&table1), "{:?}", valid_table(&table1));
    let rules = |t: &[Row]| -> Vec<(usize, Rule)> {
        valid_table(t).iter().map(|p| (p.row, p.rule)).collect()
    };
    // Table2: too short.
    assert_eq!(
        rules(&[crow(&[b(5, R), b(5, Y)])]),
        vec![(0, Rule::TooShort)]
    );
    // Table3: mixed numbers in a crow.
    assert_eq!(
        rules(&[crow(&[b(5, R), b(5, Y), b(4, B)])]),
        vec![(0, Rule::MixedNumbers)]
    );
    // Table4: mixed colours in an nrow.
    assert_eq!(
        rules(&[Row::Nrow(vec![b(2, B), b(3, B), b(4, B), b(5, R)])]),
        vec![(0, Rule::MixedColors)]
    );
    // Table5: a gap.
    assert_eq!(
        rules(&[Row::Nrow(vec![b(5, B), b(6, B), b(8, B)])]),
        vec![(0, Rule::Gap)]
    );
    // Table6: not sorted (7 then 6), which also leaves a gap from 5 to 7.
    let six = rules(&[Row::Nrow(vec![b(5, B), b(7, B), b(6, B)])]);
    assert!(six.contains(&(0, Rule::WrongOrder)), "{six:?}");
    assert!(!is_valid_table(&[Row::Nrow(vec![
        b(5, B),
        b(7, B),
        b(6, B)
    ])]));
}

fn first_example() -> Position {
    Position::deal(
        vec![b(1, R), b(2, R), b(3, R), b(2, B)],
        vec![b(5, R), b(5, Y), b(5, K), b(4, R)],
        vec![b(5, B)],
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn second_example() -> Position {
    Position::deal(
        vec![b(2, R), b(3, R), b(4, R), b(2, B), b(2, K)],
        vec![b(5, R), b(6, R), b(8, B), b(8, K)],
        vec![b(7, R), b(8, R), b(9, R)],
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn play_game_first_example_has_exactly_the_seeds_three_solutions() {
    let p1_first = row(run(R, 1, 3));
    let expected: BTreeSet<Solution> = [
        solution(
            vec![p1_first.clone(), draw(b(5, B)), DRAW],
            vec![add(b(4, R), run(R, 1, 4)), add(b(5, R), run(R, 1, 5)), DRAW],
        ),
        solution(
            vec![p1_first.clone(), draw(b(5, B)), LOSE],
            vec![
                add(b(4, R), run(R, 1, 4)),
                row(crow(&[b(5, K), b(5, R), b(5, Y)])),
                WIN,
            ],
        ),
        solution(
            vec![p1_first, draw(b(5, B)), LOSE],
            vec![
                row(crow(&[b(5, K), b(5, R), b(5, Y)])),
                add(b(4, R), run(R, 1, 4)),
                WIN,
            ],
        ),
    ]
    .into_iter()
    .collect();
    let got = all_outcomes(&first_example());
    assert_eq!(got.len(), 3, "{got:#?}");
    assert_eq!(got.into_iter().collect::<BTreeSet<_>>(), expected);
}

#[test]
fn play_game_second_example_has_exactly_the_seeds_five_solutions() {
    let twos = row(crow(&[b(2, K), b(2, B), b(2, R)]));
    let low = row(run(R, 2, 4));
    let p2_after_twos = vec![
        draw(b(7, R)),
        row(run(R, 5, 7)),
        draw(b(9, R)),
        add(b(9, R), run(R, 4, 9)),
        LOSE,
    ];
    let expected: BTreeSet<Solution> = [
        solution(
            vec![
                twos.clone(),
                draw(b(8, R)),
                add(b(8, R), run(R, 5, 8)),
                add(b(4, R), run(R, 4, 8)),
                add(b(3, R), run(R, 3, 9)),
                WIN,
            ],
            p2_after_twos.clone(),
        ),
        solution(
            vec![
                twos.clone(),
                draw(b(8, R)),
                add(b(4, R), run(R, 4, 7)),
                add(b(8, R), run(R, 4, 8)),
                add(b(3, R), run(R, 3, 9)),
                WIN,
            ],
            p2_after_twos,
        ),
        solution(
            vec![
                twos,
                draw(b(8, R)),
                add(b(4, R), run(R, 4, 7)),
                add(b(3, R), run(R, 3, 7)),
                DRAW,
            ],
            vec![draw(b(7, R)), row(run(R, 5, 7)), draw(b(9, R)), DRAW],
        ),
        solution(
            vec![
                low.clone(),
                draw(b(7, R)),
                add(b(7, R), run(R, 2, 7)),
                draw(b(9, R)),
                add(b(9, R), run(R, 2, 9)),
                DRAW,
            ],
            vec![
                add(b(5, R), run(R, 2, 5)),
                add(b(6, R), run(R, 2, 6)),
                draw(b(8, R)),
                add(b(8, R), run(R, 2, 8)),
                DRAW,
            ],
        ),
        solution(
            vec![
                low,
                draw(b(7, R)),
                add(b(7, R), run(R, 2, 7)),
                draw(b(9, R)),
                LOSE,
            ],
            vec![
                add(b(5, R), run(R, 2, 5)),
                add(b(6, R), run(R, 2, 6)),
                draw(b(8, R)),
                row(crow(&[b(8, K), b(8, B), b(8, R)])),
                WIN,
            ],
        ),
    ]
    .into_iter()
    .collect();
    let got = all_outcomes(&second_example());
    assert_eq!(got.len(), 5, "{got:#?}");
    assert_eq!(got.into_iter().collect::<BTreeSet<_>>(), expected);
}

#[test]
fn count_wins_examples() {
    let w = |p1: Vec<Block>, p2: Vec<Block>, bag: Vec<Block>| {
        count_wins(p1, p2, bag).unwrap_or_else(|e| panic!("{e}"))
    };
    let a = vec![b(1, R), b(2, R), b(3, R), b(2, B)];
    let c = vec![b(5, R), b(5, Y), b(5, K), b(4, R)];
    assert_eq!(w(a.clone(), c.clone(), vec![b(5, B)]), 0.0);
    assert_eq!(w(c, a, vec![b(5, B)]), 1.0);
    assert_eq!(
        w(
            vec![b(2, R), b(3, R), b(4, R), b(2, B), b(2, K)],
            vec![b(5, R), b(6, R), b(8, B), b(8, K)],
            vec![b(7, R), b(8, R), b(9, R)],
        ),
        0.4
    );
    let p = predict(&second_example());
    assert_eq!(
        (
            p.p1_wins.to_string(),
            p.p2_wins.to_string(),
            p.draws.to_string()
        ),
        ("2".into(), "1".into(), "2".into())
    );
}
