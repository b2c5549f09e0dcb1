//! Cards: ranks, suits, the 52-card deck, and the two notations.
//!
//! On the wire a card is `{"rank": 2..10 | "ace" | "jack" | "queen" |
//! "king", "suit": "clubs" | "diamonds" | "hearts" | "spades"}`. People may
//! type the compact form instead (`5H`, `TD` or `10D`, `AS`, `JC`, `QS`,
//! `KD`, any case), and that is what [`fmt::Display`] prints. Deserialising
//! accepts either form; serialising always writes the object.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::rng::GameRng;

/// A rank, ace (1) to king (13): the order used for runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    /// The ace: ranks lowest and counts 1.
    pub const ACE: Rank = Rank(1);
    /// The jack, whose suit matters for his nob and his heels.
    pub const JACK: Rank = Rank(11);
    /// The queen.
    pub const QUEEN: Rank = Rank(12);
    /// The king: ranks highest and counts 10.
    pub const KING: Rank = Rank(13);

    /// The rank numbered `n` (ace 1 ... king 13), if there is one.
    pub fn new(n: u8) -> Option<Rank> {
        (1..=13).contains(&n).then_some(Rank(n))
    }

    /// Every rank, ace first.
    pub fn all() -> impl Iterator<Item = Rank> {
        (1..=13).map(Rank)
    }

    /// The position in the run order: ace 1, 2..10, jack 11, queen 12, king 13.
    pub fn number(self) -> u8 {
        self.0
    }

    /// What the card counts towards fifteen and thirty-one: ace 1, court
    /// cards 10, others their face value.
    pub fn value(self) -> u8 {
        self.0.min(10)
    }

    fn letter(self) -> char {
        match self.0 {
            1 => 'A',
            10 => 'T',
            11 => 'J',
            12 => 'Q',
            13 => 'K',
            n => char::from(b'0' + n),
        }
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl Serialize for Rank {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            1 => s.serialize_str("ace"),
            11 => s.serialize_str("jack"),
            12 => s.serialize_str("queen"),
            13 => s.serialize_str("king"),
            n => s.serialize_u8(n),
        }
    }
}

struct RankVisitor;

const RANK_EXPECTED: &str = "a rank: an integer 2..10 or \"ace\", \"jack\", \"queen\", \"king\"";

impl Visitor<'_> for RankVisitor {
    type Value = Rank;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(RANK_EXPECTED)
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Rank, E> {
        match n {
            2..=10 => Ok(Rank(n as u8)),
            _ => Err(E::custom(format!(
                "unknown rank {n}: number ranks are 2..10; use \"ace\", \"jack\", \"queen\" or \"king\" for the others"
            ))),
        }
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Rank, E> {
        match u64::try_from(n) {
            Ok(n) => self.visit_u64(n),
            Err(_) => Err(E::custom(format!("unknown rank {n}: {RANK_EXPECTED}"))),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Rank, E> {
        match v.to_ascii_lowercase().as_str() {
            "ace" => Ok(Rank::ACE),
            "jack" => Ok(Rank::JACK),
            "queen" => Ok(Rank::QUEEN),
            "king" => Ok(Rank::KING),
            _ => Err(E::custom(format!("unknown rank {v:?}: {RANK_EXPECTED}"))),
        }
    }
}

impl<'de> Deserialize<'de> for Rank {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RankVisitor)
    }
}

/// A suit. Suits matter only for flushes, his nob and his heels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Suit {
    /// ♣
    Clubs,
    /// ♦
    Diamonds,
    /// ♥
    Hearts,
    /// ♠
    Spades,
}

impl Suit {
    /// The four suits, in the order used for card indices.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// 0 (clubs) to 3 (spades).
    pub fn index(self) -> usize {
        self as usize
    }

    fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    fn from_letter(c: char) -> Option<Suit> {
        match c.to_ascii_uppercase() {
            'C' | '♣' | '♧' => Some(Suit::Clubs),
            'D' | '♦' | '♢' => Some(Suit::Diamonds),
            'H' | '♥' | '♡' => Some(Suit::Hearts),
            'S' | '♠' | '♤' => Some(Suit::Spades),
            _ => None,
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A playing card. Cards order by rank, then suit (clubs, diamonds, hearts,
/// spades), which is also the order of [`Card::index`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    /// Ace to king.
    pub rank: Rank,
    /// Clubs to spades.
    pub suit: Suit,
}

/// How many cards the deck holds.
pub const DECK_SIZE: usize = 52;

impl Card {
    /// The card of `rank` and `suit`.
    pub fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }

    /// A number 0..52, rank-major: `(rank - 1) * 4 + suit`.
    pub fn index(self) -> usize {
        usize::from(self.rank.0 - 1) * 4 + self.suit.index()
    }

    /// The card with index `i` (see [`Card::index`]), if `i < 52`.
    pub fn from_index(i: usize) -> Option<Card> {
        if i >= DECK_SIZE {
            return None;
        }
        Some(Card {
            rank: Rank((i / 4) as u8 + 1),
            suit: Suit::ALL[i % 4],
        })
    }

    /// The 52 cards in index order.
    pub fn deck() -> impl Iterator<Item = Card> {
        (0..DECK_SIZE).filter_map(Card::from_index)
    }

    /// The 52 cards in an order drawn from `rng`.
    pub fn shuffled_deck(rng: &mut GameRng) -> Vec<Card> {
        let mut deck: Vec<Card> = Card::deck().collect();
        rng.shuffle(&mut deck);
        deck
    }

    /// The card's count towards fifteen and thirty-one.
    pub fn value(self) -> u8 {
        self.rank.value()
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank, self.suit)
    }
}

/// Why a compact card such as `5H` could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a card: write a rank (A, 2-9, T or 10, J, Q, K) then a suit (C, D, H, S), e.g. 5H, TD, AS")]
pub struct ParseCardError {
    /// What was typed.
    pub text: String,
}

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        let bad = || ParseCardError { text: s.to_owned() };
        let t = s.trim();
        let mut chars = t.chars();
        let suit = chars
            .next_back()
            .and_then(Suit::from_letter)
            .ok_or_else(bad)?;
        let rank = match chars.as_str().to_ascii_uppercase().as_str() {
            "A" | "1" => Rank::ACE,
            "T" | "10" => Rank(10),
            "J" => Rank::JACK,
            "Q" => Rank::QUEEN,
            "K" => Rank::KING,
            d if d.len() == 1 => match d.as_bytes()[0] {
                b @ b'2'..=b'9' => Rank(b - b'0'),
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        };
        Ok(Card { rank, suit })
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Card", 2)?;
        st.serialize_field("rank", &self.rank)?;
        st.serialize_field("suit", &self.suit)?;
        st.end()
    }
}

struct CardVisitor;

impl<'de> Visitor<'de> for CardVisitor {
    type Value = Card;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a card: {\"rank\": 5, \"suit\": \"hearts\"} or a compact card such as \"5H\"")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Card, E> {
        v.parse().map_err(E::custom)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Card, A::Error> {
        let mut rank = None;
        let mut suit = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "rank" if rank.is_none() => rank = Some(map.next_value::<Rank>()?),
                "suit" if suit.is_none() => suit = Some(map.next_value::<Suit>()?),
                "rank" | "suit" => return Err(de::Error::duplicate_field("rank or suit")),
                other => return Err(de::Error::unknown_field(other, &["rank", "suit"])),
            }
        }
        match (rank, suit) {
            (Some(rank), Some(suit)) => Ok(Card { rank, suit }),
            (None, _) => Err(de::Error::missing_field("rank")),
            (_, None) => Err(de::Error::missing_field("suit")),
        }
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CardVisitor)
    }
}

/// A set of cards as a 52-bit mask (bit [`Card::index`]): cheap to copy,
/// test and subtract, which the advisors do millions of times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CardSet(u64);

impl CardSet {
    /// No card.
    pub const EMPTY: CardSet = CardSet(0);
    /// All 52 cards.
    pub const FULL: CardSet = CardSet((1 << DECK_SIZE) - 1);

    /// Adds `card`; returns `false` if it was already there.
    pub fn insert(&mut self, card: Card) -> bool {
        let bit = 1u64 << card.index();
        let fresh = self.0 & bit == 0;
        self.0 |= bit;
        fresh
    }

    /// Removes `card`.
    pub fn remove(&mut self, card: Card) {
        self.0 &= !(1u64 << card.index());
    }

    /// Whether `card` is in the set.
    pub fn contains(self, card: Card) -> bool {
        self.0 & (1u64 << card.index()) != 0
    }

    /// How many cards the set holds.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The cards not in this set.
    pub fn complement(self) -> CardSet {
        CardSet(!self.0 & CardSet::FULL.0)
    }

    /// The cards in index order.
    pub fn iter(self) -> impl Iterator<Item = Card> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Card::from_index(i)
        })
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> Self {
        let mut s = CardSet::EMPTY;
        for c in iter {
            s.insert(c);
        }
        s
    }
}

/// The first card that occurs twice in `cards`, if any.
pub fn first_duplicate(cards: &[Card]) -> Option<Card> {
    let mut seen = CardSet::EMPTY;
    cards.iter().copied().find(|&c| !seen.insert(c))
}

/// Cards written compactly and separated by spaces, for messages.
pub fn show_cards(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card(s: &str) -> Card {
        s.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn compact_notation_round_trips_and_accepts_ten_and_any_case() {
        for c in Card::deck() {
            assert_eq!(card(&c.to_string()), c);
            assert_eq!(card(&c.to_string().to_lowercase()), c);
        }
        assert_eq!(card("10h"), card("TH"));
        assert_eq!(card("5♥"), card("5H"));
        for bad in ["", "H", "1", "11H", "ZH", "5X", "5HH", "0S"] {
            assert!(bad.parse::<Card>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn json_is_the_object_form_and_either_form_reads() {
        assert_eq!(
            serde_json::to_value(card("TD")).ok(),
            Some(json!({"rank": 10, "suit": "diamonds"}))
        );
        assert_eq!(
            serde_json::to_value(card("AS")).ok(),
            Some(json!({"rank": "ace", "suit": "spades"}))
        );
        for c in Card::deck() {
            let v = serde_json::to_value(c).unwrap_or_default();
            assert_eq!(serde_json::from_value::<Card>(v).ok(), Some(c));
            assert_eq!(
                serde_json::from_value::<Card>(json!(c.to_string())).ok(),
                Some(c)
            );
        }
        for bad in [
            json!({"rank": 1, "suit": "spades"}),
            json!({"rank": 11, "suit": "spades"}),
            json!({"rank": "joker", "suit": "spades"}),
            json!({"rank": 5, "suit": "stars"}),
            json!({"rank": 5}),
            json!({"rank": 5, "suit": "hearts", "colour": "red"}),
            json!("5X"),
            json!(5),
        ] {
            assert!(
                serde_json::from_value::<Card>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn indices_and_values() {
        let all: Vec<Card> = Card::deck().collect();
        assert_eq!(all.len(), DECK_SIZE);
        for (i, c) in all.iter().enumerate() {
            assert_eq!(c.index(), i);
        }
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(card("AS").value(), 1);
        assert_eq!(card("KD").value(), 10);
        assert_eq!(card("7C").value(), 7);
        let set: CardSet = all.iter().copied().collect();
        assert_eq!(set, CardSet::FULL);
        assert_eq!(set.iter().collect::<Vec<_>>(), all);
        assert_eq!(
            first_duplicate(&[card("5H"), card("6H"), card("5H")]),
            Some(card("5H"))
        );
    }
}
