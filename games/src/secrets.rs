//! What a game state hides, item by item, so that generic code (leak
//! audits, contract tests) can check views without knowing the game.

use serde::Serialize;
use serde_json::Value;

use crate::seat::{Seat, Viewer};

/// The hidden items of one state, each as its wire JSON (a card
/// `{"rank": 5, "suit": "hearts"}`, a block `{"number": 5, "color":
/// "red"}`), exactly as views write them.
///
/// An item is listed only while its showing up in a view would reveal
/// something: never while the public (spectator) view shows it, whether it
/// was laid or shown this hand or appears in the record of an earlier
/// hand (a card of the last hand's show may well be in this hand's deck;
/// seeing it named there says nothing about where it is now). So a seat's
/// view may show its own items and public ones, and nothing listed for
/// anyone else; the spectator's view shows nothing listed at all.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Secrets {
    /// By seat: the items only that seat may see (its hand, its rack, its
    /// throw to the crib).
    pub per_seat: Vec<Vec<Value>>,
    /// Items nobody may see (the deck, the bag, a card dealt to the crib).
    /// A bag that is drawn from in order is listed in that order, next
    /// item first.
    pub undisclosed: Vec<Value>,
}

impl Secrets {
    /// Nothing hidden yet, for a table of `seats`.
    pub fn new(seats: u8) -> Self {
        Secrets {
            per_seat: vec![Vec::new(); usize::from(seats)],
            undisclosed: Vec::new(),
        }
    }

    /// Adds the items of `seat` (a seat beyond the table is ignored).
    pub fn seat_items<'a, T: Serialize + 'a>(
        &mut self,
        seat: Seat,
        items: impl IntoIterator<Item = &'a T>,
    ) {
        if let Some(list) = self.per_seat.get_mut(seat.index()) {
            list.extend(items.into_iter().filter_map(wire));
        }
    }

    /// Adds items nobody may see.
    pub fn undisclosed_items<'a, T: Serialize + 'a>(
        &mut self,
        items: impl IntoIterator<Item = &'a T>,
    ) {
        self.undisclosed.extend(items.into_iter().filter_map(wire));
    }

    /// The items only `seat` may see (none for a seat beyond the table).
    pub fn of(&self, seat: Seat) -> &[Value] {
        self.per_seat.get(seat.index()).map_or(&[], Vec::as_slice)
    }

    /// Every item `viewer` must not see: the other seats' items and the
    /// undisclosed ones (all of them for a spectator).
    pub fn hidden_from(&self, viewer: Viewer) -> impl Iterator<Item = &Value> {
        let own = match viewer {
            Viewer::Seat(s) => Some(s.index()),
            Viewer::Spectator => None,
        };
        self.per_seat
            .iter()
            .enumerate()
            .filter(move |(i, _)| Some(*i) != own)
            .flat_map(|(_, items)| items)
            .chain(&self.undisclosed)
    }

    /// Whether nothing is hidden.
    pub fn is_empty(&self) -> bool {
        self.undisclosed.is_empty() && self.per_seat.iter().all(Vec::is_empty)
    }
}

/// An item's wire JSON; our items always serialise, so `None` never
/// happens in practice.
fn wire<T: Serialize>(item: &T) -> Option<Value> {
    serde_json::to_value(item).ok()
}

/// Whether `item` occurs anywhere in `doc`: as `doc` itself or as any
/// value nested in its arrays and objects (object keys in any order).
pub fn occurs_in(item: &Value, doc: &Value) -> bool {
    if item == doc {
        return true;
    }
    match doc {
        Value::Array(a) => a.iter().any(|x| occurs_in(item, x)),
        Value::Object(m) => m.values().any(|x| occurs_in(item, x)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_are_kept_by_seat_and_hidden_from_everyone_else() {
        let mut s = Secrets::new(3);
        assert!(s.is_empty());
        s.seat_items(Seat(0), &[1u8, 2]);
        s.seat_items(Seat(2), &[3u8]);
        s.seat_items(Seat(7), &[9u8]);
        s.undisclosed_items(&[4u8]);
        assert!(!s.is_empty());
        assert_eq!(s.of(Seat(0)), &[json!(1), json!(2)]);
        assert!(s.of(Seat(1)).is_empty() && s.of(Seat(7)).is_empty());
        let hidden = |v: Viewer| s.hidden_from(v).cloned().collect::<Vec<_>>();
        assert_eq!(hidden(Viewer::Seat(Seat(0))), [json!(3), json!(4)]);
        assert_eq!(
            hidden(Viewer::Seat(Seat(2))),
            [json!(1), json!(2), json!(4)]
        );
        assert_eq!(
            hidden(Viewer::Spectator),
            [json!(1), json!(2), json!(3), json!(4)]
        );
    }

    #[test]
    fn occurrence_is_structural_at_any_depth() {
        let card = json!({"rank": 5, "suit": "hearts"});
        let view = json!({"hand": [{"suit": "hearts", "rank": 5}], "count": 12});
        assert!(occurs_in(&card, &view));
        assert!(!occurs_in(&json!({"rank": 5, "suit": "clubs"}), &view));
        // Only whole values count: a card does not hide in a longer object.
        let bigger = json!({"x": {"rank": 5, "suit": "hearts", "face": "up"}});
        assert!(!occurs_in(&card, &bigger));
        assert!(occurs_in(&json!(12), &view));
    }
}
