//! The pairs of players kept apart by a block (either way), read once per
//! pairing round for the players waiting in it.

use std::collections::HashSet;

/// Unordered pairs of account name keys kept apart, and which accounts
/// they were read for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockedPairs {
    pairs: HashSet<(String, String)>,
    /// The accounts whose blocks were read (`None`: nobody's needed
    /// reading, no pair is kept apart; tests and guests-only rounds).
    among: Option<HashSet<String>>,
}

impl BlockedPairs {
    /// No pair kept apart, read for the accounts keyed `among`.
    pub fn read_for(among: impl IntoIterator<Item = String>) -> Self {
        BlockedPairs {
            pairs: HashSet::new(),
            among: Some(among.into_iter().collect()),
        }
    }

    /// Keeps `a` and `b` apart (in either order).
    pub fn insert(&mut self, a: &str, b: &str) {
        self.pairs.insert(ordered(a, b));
    }

    /// Whether `a` and `b` are kept apart.
    pub fn apart(&self, a: &str, b: &str) -> bool {
        !self.pairs.is_empty() && self.pairs.contains(&ordered(a, b))
    }

    /// Whether the blocks of the account keyed `a` were read (a seek made
    /// after the read waits for the next round, whose read includes it).
    pub fn knows(&self, a: &str) -> bool {
        self.among.as_ref().is_none_or(|among| among.contains(a))
    }

    /// Every pair kept apart.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs.iter().map(|(a, b)| (a.as_str(), b.as_str()))
    }

    /// The players `a` is kept apart from.
    pub fn of(&self, a: &str) -> Vec<String> {
        self.pairs
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
        let mut p = BlockedPairs::read_for(["a", "b", "c"].map(String::from));
        assert!(!p.apart("a", "b"));
        p.insert("b", "a");
        assert!(p.apart("a", "b") && p.apart("b", "a"));
        assert!(!p.apart("a", "c"));
        assert_eq!(p.of("a"), vec!["b".to_owned()]);
        assert!(p.of("c").is_empty());
        assert!(p.knows("c") && !p.knows("d"));
        assert!(BlockedPairs::default().knows("d"));
    }
}
