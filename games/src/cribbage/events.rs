//! Score events: every point scored, with its reason, so that a client can
//! narrate the hand ("fifteen for 2", "his heels", "run of 3 for 3"...).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::card::{show_cards, Card};
use super::pegging::{PegReason, PegScore};
use super::score::{HandKind, ItemKind};
use crate::game::Seat;

/// When in the hand it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The start card was cut.
    Cut,
    /// During the play.
    Play,
    /// A player's hand was shown.
    Hand,
    /// The crib was shown.
    Crib,
}

impl From<HandKind> for Stage {
    fn from(kind: HandKind) -> Stage {
        match kind {
            HandKind::Hand => Stage::Hand,
            HandKind::Crib => Stage::Crib,
        }
    }
}

/// Why the points were scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// A jack was cut as the start card: 2 for the dealer.
    HisHeels,
    /// Fifteen: the count in the play, or cards in a shown hand.
    Fifteen,
    /// The count reached 31.
    ThirtyOne,
    /// A pair (in the play also three or four of a kind).
    Pair,
    /// A run.
    Run,
    /// The go: nobody else could play.
    Go,
    /// The last card of the play.
    LastCard,
    /// A player could not play (no points).
    SaysGo,
    /// A flush in a shown hand or crib.
    Flush,
    /// His nob: the jack of the start's suit in a shown hand or crib.
    Nobs,
}

impl From<PegReason> for Reason {
    fn from(r: PegReason) -> Reason {
        match r {
            PegReason::Fifteen => Reason::Fifteen,
            PegReason::ThirtyOne => Reason::ThirtyOne,
            PegReason::Pair => Reason::Pair,
            PegReason::Run => Reason::Run,
            PegReason::Go => Reason::Go,
            PegReason::LastCard => Reason::LastCard,
            PegReason::SaysGo => Reason::SaysGo,
        }
    }
}

impl From<ItemKind> for Reason {
    fn from(k: ItemKind) -> Reason {
        match k {
            ItemKind::Fifteen => Reason::Fifteen,
            ItemKind::Pair => Reason::Pair,
            ItemKind::Run => Reason::Run,
            ItemKind::Flush => Reason::Flush,
            ItemKind::Nobs => Reason::Nobs,
        }
    }
}

/// Points scored (or a go said), with who, when, why and which cards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Who scored; their side's score went up by `points`.
    pub seat: Seat,
    /// When.
    pub stage: Stage,
    /// Why.
    pub reason: Reason,
    /// How many points (0 only for [`Reason::SaysGo`]).
    pub points: u8,
    /// The cards that made it (empty for a go).
    pub cards: Vec<Card>,
    /// The reason in words, as players say it: "fifteen for 2".
    pub text: String,
}

impl Event {
    /// An event, its `text` written from the rest.
    pub fn new(seat: Seat, stage: Stage, reason: Reason, points: u8, cards: Vec<Card>) -> Event {
        let text = describe(reason, points, cards.len());
        Event {
            seat,
            stage,
            reason,
            points,
            cards,
            text,
        }
    }

    /// An event of the play.
    pub fn from_peg(score: PegScore) -> Event {
        Event::new(
            score.seat,
            Stage::Play,
            score.reason.into(),
            score.points,
            score.cards,
        )
    }
}

/// How players announce a score.
fn describe(reason: Reason, points: u8, cards: usize) -> String {
    match reason {
        Reason::HisHeels => format!("his heels for {points}"),
        Reason::Fifteen => format!("fifteen for {points}"),
        Reason::ThirtyOne => format!("31 for {points}"),
        Reason::Pair => match points {
            6 => "pair royal for 6".to_owned(),
            12 => "double pair royal for 12".to_owned(),
            _ => format!("pair for {points}"),
        },
        Reason::Run => format!("run of {cards} for {points}"),
        Reason::Go => format!("go for {points}"),
        Reason::LastCard => format!("last card for {points}"),
        Reason::SaysGo => "go".to_owned(),
        Reason::Flush => format!("flush for {points}"),
        Reason::Nobs => format!("his nobs for {points}"),
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.seat, self.text)?;
        if !self.cards.is_empty() && self.stage != Stage::Play {
            write!(f, " ({})", show_cards(&self.cards))?;
        }
        Ok(())
    }
}
