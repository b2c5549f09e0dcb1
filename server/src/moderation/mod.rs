//! Keeping a public server healthy: what moderators may do and how each
//! action is kept.
//!
//! - [`error`]: why a moderation, report or block request was refused,
//!   one variant per reason (the API maps each to a status and a code).
//! - [`reason`]: the closed set of reasons an action or a report gives.
//! - [`log`]: the moderation log, every action appended, its public part
//!   shown on player pages.
//! - [`actions`]: what a moderator does to an account (close, reopen,
//!   mark, unmark, mute, play-ban, an admin's role changes).
//! - [`standing_store`]: writing an account's role and standing.
//! - [`playban`]: a play ban as the player meets it (until when, why).
//! - [`command`]: `parlor-server accounts role`, granting roles on the
//!   server machine.
//!
//! Who may moderate is an account's [`Role`]: set
//! on the server machine (`parlor-server accounts role`) or by an admin,
//! never by a moderator for themself.

pub mod actions;
pub mod command;
pub mod error;
pub mod log;
pub mod playban;
pub mod reason;
pub mod standing_store;

pub use error::ModError;
pub use log::{ModAction, ModLog, NewEntry};
pub use reason::{ModReason, MAX_MOD_TEXT_CHARS};

use crate::accounts::store::Account;
use crate::accounts::Role;

/// `account` if it may moderate, else [`ModError::Forbidden`].
pub fn moderator(account: Account) -> Result<Account, ModError> {
    if account.standing.role.moderates() && !account.standing.closed() {
        Ok(account)
    } else {
        Err(ModError::Forbidden)
    }
}

/// Whether `actor` may act on `target`: nobody acts on an admin, and only
/// an admin acts on a moderator (or on themself: a moderator does not
/// lift their own ban).
pub fn may_act_on(actor: Role, target: Role) -> Result<(), ModError> {
    match target {
        Role::Admin => Err(ModError::Protected),
        Role::Moderator if actor != Role::Admin => Err(ModError::Protected),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nobody_acts_on_an_admin_and_only_admins_on_moderators() {
        for actor in [Role::Moderator, Role::Admin] {
            assert!(may_act_on(actor, Role::Player).is_ok());
            assert!(matches!(
                may_act_on(actor, Role::Admin),
                Err(ModError::Protected)
            ));
        }
        assert!(matches!(
            may_act_on(Role::Moderator, Role::Moderator),
            Err(ModError::Protected)
        ));
        assert!(may_act_on(Role::Admin, Role::Moderator).is_ok());
    }
}
