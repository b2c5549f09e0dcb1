//! The pairs of players kept apart by a block (either way), read once per
//! pairing round for the players waiting in it.

use std::collections::HashSet;

/// Unordered pairs of account name keys kept apart.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockedPairs(HashSet<(String, String)>);

impl BlockedPairs {
    /// Keeps `a` and `b` apart (in either order).
    pub fn insert(&mut self, a: &str, b: &str) {
        self.0.insert(ordered(a, b));
    }

    /// Whether `a` and `b` are kept apart.
    pub fn apart(&self, a: &str, b: &str) -> bool {
        !self.0.is_empty() && self.0.contains(&ordered(a, b))
    }

    /// The players `a` is kept apart from.
    pub fn of(&self, a: &str) -> Vec<String> {
        self.0
            .iter()
            .filter_map(|(x, y)| {
                if x == a {
                    Some(y.clone())
                } else if y == a {
                    Some(x.clone())
                } else {
                    None
                }
            })
            .collect()
    }

    /// Whether no pair is kept apart.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn ordered(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_is_kept_apart_in_either_order_and_no_other() {
        let mut p = BlockedPairs::default();
        assert!(!p.apart("a", "b"));
        p.insert("b", "a");
        assert!(p.apart("a", "b") && p.apart("b", "a"));
        assert!(!p.apart("a", "c"));
        assert_eq!(p.of("a"), vec!["b".to_owned()]);
        assert!(p.of("c").is_empty());
    }
}
