//! Who sits in a seat.

use parlor_games::Seat;
use parlor_protocol::{Occupant, SeatInfo, SeatRating};
use serde::{Serialize, Serializer};
use tokio::time::Instant;
use uuid::Uuid;

use super::attached::Attached;
use super::Member;
use crate::outbox::ConnId;
use crate::store::StoredSeat;

/// The seed a seat waiting for its seed is stored with: empty, which no
/// checked seed is (so it cannot be a player's), and which adds to the
/// deal's key exactly what no seed does (a zero length byte), so that
/// even a reader unaware of it computes the same deal.
pub const AWAITED_SEED: &str = "";

/// A seat's occupant, with what the room needs to reach them.
#[derive(Debug)]
pub enum Slot {
    /// Free.
    Empty,
    /// A player over the protocol; `outs` is empty while disconnected.
    Player {
        /// Their resume token.
        token: Uuid,
        /// Display name.
        name: String,
        /// The connections the seat is shown on (an account's may be
        /// several: tabs, devices, programs).
        outs: Attached,
        /// Whether the name is a registered account's (stored with the
        /// seat, so it outlives a restart).
        account: bool,
        /// What they added to the deal.
        client_seed: Option<String>,
        /// Until when the room waits for their seed before dealing (a
        /// seat taken for the player, whose seed comes after it saw the
        /// commitment); `None` once the seat is settled, seed or not.
        seed_due: Option<Instant>,
    },
    /// A built-in bot (the strategy itself lives beside the seats, so that
    /// it can be lent to a blocking thread while it thinks).
    Bot {
        /// Strategy name.
        strategy: String,
        /// The account it plays as: a ladder's anchor, whose matches are
        /// rated like any account's. `None` for a bot added to a room
        /// (`add_bot`), which stays unrated.
        account: Option<String>,
    },
}

impl Slot {
    /// As the protocol shows it, borrowing the names.
    pub fn occupant_ref(&self) -> Occupant<&str> {
        match self {
            Slot::Empty => Occupant::Empty,
            Slot::Player {
                name,
                outs,
                account,
                ..
            } => Occupant::Player {
                name,
                connected: outs.connected(),
                account: *account,
            },
            Slot::Bot { strategy, account } => Occupant::Bot {
                strategy,
                account: account.as_deref(),
            },
        }
    }

    /// As the protocol shows it.
    pub fn occupant(&self) -> Occupant {
        self.occupant_ref().to_owned()
    }

    /// As the store keeps it: a seat waiting for its seed is stored with
    /// [`AWAITED_SEED`] as its seed, so that a room restored before its
    /// deal waits for it again.
    pub fn stored(&self) -> Option<StoredSeat> {
        match self {
            Slot::Empty => None,
            Slot::Player {
                token,
                name,
                client_seed,
                account,
                seed_due,
                ..
            } => Some(StoredSeat::Player {
                token: *token,
                name: name.clone(),
                client_seed: match seed_due {
                    Some(_) => Some(AWAITED_SEED.to_owned()),
                    None => client_seed.clone(),
                },
                account: *account,
            }),
            Slot::Bot { strategy, account } => Some(StoredSeat::Bot {
                strategy: strategy.clone(),
                account: account.clone(),
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

    /// What the seat added to the deal.
    pub fn client_seed(&self) -> Option<&str> {
        match self {
            Slot::Player { client_seed, .. } => client_seed.as_deref(),
            _ => None,
        }
    }

    /// Until when the room waits for this seat's seed, if it does.
    pub fn seed_due(&self) -> Option<Instant> {
        match self {
            Slot::Player { seed_due, .. } => *seed_due,
            _ => None,
        }
    }

    /// Whether the seat is taken for good: a seat still waiting for its
    /// seed holds the deal back as a free one does.
    pub fn settled(&self) -> bool {
        !matches!(self, Slot::Empty) && self.seed_due().is_none()
    }

    /// Whether a player sits here on connection `conn` (one of theirs).
    pub fn attached_to(&self, conn: ConnId) -> bool {
        matches!(self, Slot::Player { outs, .. } if outs.contains(conn))
    }

    /// The connections the seat is shown on (none for a bot or a free
    /// seat).
    pub fn outs(&self) -> Option<&Attached> {
        match self {
            Slot::Player { outs, .. } => Some(outs),
            _ => None,
        }
    }

    /// Whether the seat is `who`'s: held under its token, or an
    /// account's seat and `who` that account (on any of its
    /// connections: tabs, devices, programs).
    pub fn owned_by(&self, who: &Member) -> bool {
        self.held_by(who.token)
            || (who.account
                && self
                    .player_account_key()
                    .is_some_and(|k| k == crate::accounts::name_key(&who.name)))
    }

    /// Whether `who` speaks for the seat: it is theirs and their request
    /// came on a connection the seat is shown on (a guest's seat resumed
    /// elsewhere no longer answers to the old connection; an account
    /// opens the room on a connection, with `join`, before moving there).
    pub fn speaks_for(&self, who: &Member) -> bool {
        self.owned_by(who) && self.attached_to(who.conn)
    }

    /// Whether an account holds the seat (a player signed in, or an
    /// anchor playing as its account).
    pub fn is_account(&self) -> bool {
        self.account_name().is_some()
    }

    /// The name of the account holding the seat, if an account does.
    pub fn account_name(&self) -> Option<&str> {
        match self {
            Slot::Player {
                name,
                account: true,
                ..
            } => Some(name),
            Slot::Bot {
                account: Some(name),
                ..
            } => Some(name),
            _ => None,
        }
    }

    /// The key of the account holding the seat, if an account does.
    pub fn account_key(&self) -> Option<String> {
        self.account_name().map(crate::accounts::name_key)
    }

    /// The key of the account of a player (over the protocol) holding the
    /// seat: whom a turn notice reaches and who may take the seat back.
    pub fn player_account_key(&self) -> Option<String> {
        match self {
            Slot::Player { .. } => self.account_key(),
            _ => None,
        }
    }

    /// Whether a player sits here on an open connection.
    pub fn connected(&self) -> bool {
        matches!(self, Slot::Player { outs, .. } if outs.connected())
    }
}

/// A room's seats as updates show them: the protocol's `SeatInfo` list,
/// borrowing the names from the slots (building an owned list cloned
/// every name for every broadcast), with each seat's rating in a rated
/// room (by seat index; shorter or empty elsewhere).
#[derive(Clone, Copy, Debug)]
pub struct SeatList<'a>(pub &'a [Slot], pub &'a [Option<SeatRating>]);

impl Serialize for SeatList<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().enumerate().map(|(i, slot)| SeatInfo {
            seat: Seat(u8::try_from(i).unwrap_or(u8::MAX)),
            occupant: slot.occupant_ref(),
            rating: self.1.get(i).copied().flatten(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::Outbox;

    /// The list written from the slots is the JSON of the protocol's own
    /// `SeatInfo` list, for every kind of occupant.
    #[test]
    fn seat_list_matches_seat_info() {
        let (open, _inbox) = Outbox::new(ConnId(1));
        let (gone, gone_inbox) = Outbox::new(ConnId(2));
        drop(gone_inbox);
        let slots = vec![
            Slot::Player {
                token: Uuid::nil(),
                name: "al \"ice\"".into(),
                outs: Attached::only(Some(open)),
                client_seed: None,
                account: true,
                seed_due: None,
            },
            Slot::Empty,
            Slot::Bot {
                strategy: "optimal".into(),
                account: None,
            },
            Slot::Bot {
                strategy: "optimal".into(),
                account: Some("nimrod-optimal".into()),
            },
            Slot::Player {
                token: Uuid::nil(),
                name: "bob".into(),
                outs: Attached::none(),
                client_seed: None,
                account: false,
                seed_due: None,
            },
            Slot::Player {
                token: Uuid::nil(),
                name: "carol".into(),
                outs: Attached::only(Some(gone)),
                client_seed: Some("xyz".into()),
                account: false,
                seed_due: None,
            },
        ];
        let infos: Vec<SeatInfo> = slots
            .iter()
            .enumerate()
            .map(|(i, slot)| SeatInfo {
                seat: Seat(i as u8),
                occupant: slot.occupant(),
                rating: None,
            })
            .collect();
        let ours = serde_json::to_string(&SeatList(&slots, &[])).unwrap();
        assert_eq!(ours, serde_json::to_string(&infos).unwrap());
        assert!(ours.contains(r#""connected":false"#) && ours.contains(r#""connected":true"#));
    }
}
