//! Who sits in a seat.

use parlor_protocol::Occupant;
use uuid::Uuid;

use crate::outbox::Outbox;
use crate::store::StoredSeat;

/// A seat's occupant, with what the room needs to reach them.
#[derive(Debug)]
pub enum Slot {
    /// Free.
    Empty,
    /// A player over the protocol; `out` is `None` while disconnected.
    Player {
        /// Their resume token.
        token: Uuid,
        /// Display name.
        name: String,
        /// Their current connection.
        out: Option<Outbox>,
    },
    /// A built-in bot (the strategy itself lives beside the seats, so that
    /// it can be lent to a blocking thread while it thinks).
    Bot {
        /// Strategy name.
        strategy: String,
    },
}

impl Slot {
    /// As the protocol shows it.
    pub fn occupant(&self) -> Occupant {
        match self {
            Slot::Empty => Occupant::Empty,
            Slot::Player { name, out, .. } => Occupant::Player {
                name: name.clone(),
                connected: out.as_ref().is_some_and(Outbox::is_open),
            },
            Slot::Bot { strategy, .. } => Occupant::Bot {
                strategy: strategy.clone(),
            },
        }
    }

    /// As the store keeps it.
    pub fn stored(&self) -> Option<StoredSeat> {
        match self {
            Slot::Empty => None,
            Slot::Player { token, name, .. } => Some(StoredSeat::Player {
                token: *token,
                name: name.clone(),
            }),
            Slot::Bot { strategy, .. } => Some(StoredSeat::Bot {
                strategy: strategy.clone(),
            }),
        }
    }

    /// The player's resume token, for a player's seat.
    pub fn player_token(&self) -> Option<Uuid> {
        match self {
            Slot::Player { token, .. } => Some(*token),
            _ => None,
        }
    }

    /// Whether `token` holds this seat.
    pub fn held_by(&self, token: Uuid) -> bool {
        self.player_token() == Some(token)
    }
}
