//! Cheat detection: `valid_table` names every rule a table breaks.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::block::Block;
use super::row::{Row, MIN_ROW};

/// A rule of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// A row holds fewer than [`MIN_ROW`] blocks.
    TooShort,
    /// A crow holds more than one number.
    MixedNumbers,
    /// A crow holds a colour twice.
    RepeatedColor,
    /// An nrow holds more than one colour.
    MixedColors,
    /// An nrow's numbers do not ascend (a block follows a higher or equal one).
    WrongOrder,
    /// An nrow's numbers ascend but skip a number.
    Gap,
    /// A block appears a second time on the table.
    DuplicateBlock,
}

impl Rule {
    /// The rule's name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Rule::TooShort => "too_short",
            Rule::MixedNumbers => "mixed_numbers",
            Rule::RepeatedColor => "repeated_color",
            Rule::MixedColors => "mixed_colors",
            Rule::WrongOrder => "wrong_order",
            Rule::Gap => "gap",
            Rule::DuplicateBlock => "duplicate_block",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One broken rule: which row, which rule, and a message for people.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Problem {
    /// Index of the row in the table, from 0.
    pub row: usize,
    /// The rule broken.
    pub rule: Rule,
    /// What is wrong, for people.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "row {}: {}", self.row, self.message)
    }
}

/// Every rule `table` breaks, row by row in table order (empty when the
/// table is valid). Each rule is reported once per row, naming the first
/// place it breaks; a block seen again is reported at each repetition.
///
/// A crow's order does not matter; an nrow must ascend one by one.
pub fn valid_table(table: &[Row]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut seen: BTreeMap<Block, usize> = BTreeMap::new();
    for (i, row) in table.iter().enumerate() {
        let mut add = |rule, message: String| {
            problems.push(Problem {
                row: i,
                rule,
                message,
            })
        };
        let blocks = row.blocks();
        if blocks.len() < MIN_ROW {
            add(
                Rule::TooShort,
                format!(
                    "the {} has {} block{}; a row needs at least {MIN_ROW}",
                    row.kind(),
                    blocks.len(),
                    if blocks.len() == 1 { "" } else { "s" }
                ),
            );
        }
        match row {
            Row::Crow(_) => check_crow(blocks, &mut add),
            Row::Nrow(_) => check_nrow(blocks, &mut add),
        }
        for &b in blocks {
            match seen.get(&b) {
                Some(&first) => add(
                    Rule::DuplicateBlock,
                    if first == i {
                        format!("{b} appears twice in this row; every block is unique")
                    } else {
                        format!("{b} is already in row {first}; every block is unique")
                    },
                ),
                None => {
                    seen.insert(b, i);
                }
            }
        }
    }
    problems
}

/// Whether `table` breaks no rule.
pub fn is_valid_table(table: &[Row]) -> bool {
    valid_table(table).is_empty()
}

fn check_crow(blocks: &[Block], add: &mut impl FnMut(Rule, String)) {
    let Some(first) = blocks.first() else {
        return;
    };
    if let Some(odd) = blocks.iter().find(|b| b.number != first.number) {
        add(
            Rule::MixedNumbers,
            format!(
                "a crow holds one number, but has {} and {}",
                first.number, odd.number
            ),
        );
    }
    let mut colors = [false; 4];
    for b in blocks {
        let c = &mut colors[b.color.index()];
        if *c {
            add(
                Rule::RepeatedColor,
                format!("a crow holds each colour once, but has {} twice", b.color),
            );
            return;
        }
        *c = true;
    }
}

fn check_nrow(blocks: &[Block], add: &mut impl FnMut(Rule, String)) {
    let Some(first) = blocks.first() else {
        return;
    };
    if let Some(odd) = blocks.iter().find(|b| b.color != first.color) {
        add(
            Rule::MixedColors,
            format!(
                "an nrow holds one colour, but has {} and {}",
                first.color, odd.color
            ),
        );
    }
    // i128 so that neighbours at the ends of the i64 range cannot overflow.
    let mut order_reported = false;
    let mut gap_reported = false;
    for pair in blocks.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let step = i128::from(b.number) - i128::from(a.number);
        if step <= 0 && !order_reported {
            order_reported = true;
            add(
                Rule::WrongOrder,
                format!("an nrow ascends, but {b} follows {a}"),
            );
        } else if step > 1 && !gap_reported {
            gap_reported = true;
            add(
                Rule::Gap,
                format!(
                    "an nrow has consecutive numbers, but {} to {} skips {}",
                    a.number,
                    b.number,
                    if step == 2 {
                        format!("{}", i128::from(a.number) + 1)
                    } else {
                        format!("{}..{}", i128::from(a.number) + 1, i128::from(b.number) - 1)
                    }
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::block::Color::*;
    use super::*;

    fn b(n: i64, c: super::super::Color) -> Block {
        Block::new(n, c)
    }

    fn rules(table: &[Row]) -> Vec<(usize, Rule)> {
        valid_table(table).iter().map(|p| (p.row, p.rule)).collect()
    }

    #[test]
    fn every_broken_rule_is_named_with_its_row() {
        let table = [
            Row::Crow(vec![b(5, Red), b(5, Red), b(4, Blue)]),
            Row::Nrow(vec![b(1, Red), b(3, Blue)]),
            Row::Nrow(vec![b(2, Black), b(9, Black), b(8, Black)]),
            Row::Crow(vec![b(1, Red), b(1, Blue), b(1, Black)]),
        ];
        assert_eq!(
            rules(&table),
            vec![
                (0, Rule::MixedNumbers),
                (0, Rule::RepeatedColor),
                (0, Rule::DuplicateBlock),
                (1, Rule::TooShort),
                (1, Rule::MixedColors),
                (1, Rule::Gap),
                (2, Rule::Gap),
                (2, Rule::WrongOrder),
                (3, Rule::DuplicateBlock),
            ]
        );
        let msg = &valid_table(&table)[8].message;
        assert!(msg.contains("red 1") && msg.contains("row 1"), "{msg}");
    }

    #[test]
    fn crow_order_does_not_matter_and_numbers_may_be_any_integer() {
        assert!(is_valid_table(&[Row::Crow(vec![
            b(-3, Yellow),
            b(-3, Black),
            b(-3, Red),
            b(-3, Blue)
        ])]));
        assert!(is_valid_table(&[Row::Nrow(vec![
            b(i64::MAX - 2, Red),
            b(i64::MAX - 1, Red),
            b(i64::MAX, Red)
        ])]));
        assert!(!is_valid_table(&[Row::Nrow(vec![
            b(i64::MAX, Red),
            b(i64::MIN, Red),
            b(i64::MIN + 1, Red)
        ])]));
        assert!(is_valid_table(&[]));
        assert_eq!(rules(&[Row::Crow(vec![])]), vec![(0, Rule::TooShort)]);
    }
}
