//! A Cribbage move as it travels over the wire, and as people read it.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::card::{show_cards, Card};

/// A move. `{"discard": [cards]}` throws cards to the crib;
/// `{"play": card}` lays a card in the play. There is no "go" move: a go is
/// applied automatically when a player cannot lay a card.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Move {
    /// Throw these cards to the crib (2 with two players, 1 otherwise).
    Discard(Vec<Card>),
    /// Lay this card in the play.
    Play(Card),
}

impl fmt::Display for Move {
    /// `discard 5H KS` or `play 7C`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Discard(cards) => write!(f, "discard {}", show_cards(cards)),
            Move::Play(card) => write!(f, "play {card}"),
        }
    }
}
