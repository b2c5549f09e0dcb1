//! What moderation holds against the connection's account when it asks
//! to play: read afresh at each such request (a moderator may have acted
//! since `hello`), a play ban refused with `play/banned` (its end in
//! `detail.retry_after_ms`), a mark kept for rated pairing.

use parlor_protocol::{ErrorCode, RoomId, ServerMsg};
use serde_json::json;

use super::Session;
use crate::accounts::Standing;
use crate::moderation::playban::banned_account;
use crate::moderation::ModLog;

/// Whether the session may start or join a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MayPlay {
    /// A guest: moderation holds nothing against it.
    Guest,
    /// An account that may play, with its standing now.
    Account(Standing),
    /// Refused (play-banned, or its standing could not be read): the
    /// client was told.
    Refused,
}

impl Session {
    /// Whether this session may start or join a game now; refusals name
    /// `room` if the request did.
    pub(super) async fn may_play(&self, room: Option<&RoomId>) -> MayPlay {
        let Some(account) = &self.account else {
            return MayPlay::Guest;
        };
        let unreadable = |e: &dyn std::fmt::Display| {
            self.out.send(&ServerMsg::Error {
                code: ErrorCode::ServerStorage,
                message: format!("your account could not be read: {e}"),
                room: room.cloned(),
                detail: None,
            });
            MayPlay::Refused
        };
        let fresh = match self.shared.accounts.store().by_name(&account.name).await {
            Ok(Some(a)) => a,
            // Not found (accounts are never deleted): nothing to hold.
            Ok(None) => return MayPlay::Account(account.standing),
            Err(e) => return unreadable(&e),
        };
        let log = ModLog::new(self.shared.directory.store().beside());
        match banned_account(&log, &fresh, crate::clock::now_ms_signed()).await {
            Ok(None) => MayPlay::Account(fresh.standing),
            Ok(Some(ban)) => {
                self.out.send(&ServerMsg::Error {
                    code: ErrorCode::PlayBanned,
                    message: ban.message,
                    room: room.cloned(),
                    detail: Some(json!({
                        "retry_after_ms": ban.retry_after_ms,
                        "until_ms": ban.until_ms,
                    })),
                });
                MayPlay::Refused
            }
            Err(e) => unreadable(&e),
        }
    }
}
