//! A connection's `say`: what is checked where it arrives (the text, the
//! connection's rate, the account's mute) before it goes to the room,
//! which checks the rest (see `room::chat`).

use parlor_protocol::{check_chat_text, Channel, ErrorCode, Phrase, RoomId, ServerMsg};
use serde_json::json;
use tokio::time::Instant;

use super::Session;
use crate::room::RoomRequest;

impl Session {
    pub(super) async fn say(
        &mut self,
        room: RoomId,
        text: Option<String>,
        phrase: Option<Phrase>,
        to: Option<Channel>,
    ) {
        let said = match (text.as_deref(), phrase) {
            (Some(text), None) => match check_chat_text(text) {
                Ok(text) => text.to_owned(),
                Err(e) => {
                    return self.chat_refused(&room, ErrorCode::ChatBadText, e.to_string(), None)
                }
            },
            (None, Some(phrase)) => phrase.text().to_owned(),
            _ => {
                return self.chat_refused(
                    &room,
                    ErrorCode::ChatBadText,
                    "say either a text or a phrase".into(),
                    None,
                )
            }
        };
        // The rate first: it also bounds the account reads of the mute's check.
        if let Err(wait) = self.chat_rate.take(Instant::now()) {
            let retry_after_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
            return self.chat_refused(
                &room,
                ErrorCode::ChatRateLimited,
                format!(
                    "at most {} messages in {} s: wait {retry_after_ms} ms",
                    crate::chat::MAX_CHAT_PER_WINDOW,
                    crate::chat::CHAT_WINDOW.as_secs()
                ),
                Some(json!({ "retry_after_ms": retry_after_ms })),
            );
        }
        if let Some(until_ms) = self.muted_until().await {
            return self.chat_refused(
                &room,
                ErrorCode::ChatMuted,
                format!("a moderator muted your account until {until_ms} (ms since the epoch)"),
                Some(json!({ "until_ms": until_ms })),
            );
        }
        self.forward(
            room,
            RoomRequest::Say {
                text: said,
                phrase,
                to,
            },
            false,
        );
    }

    /// Until when the connection's account is muted, if it is now: read
    /// afresh (a mute given after sign-in counts at once), or as signed
    /// in when the accounts cannot be read.
    async fn muted_until(&self) -> Option<i64> {
        let account = self.account.as_ref()?;
        let now = crate::clock::now_ms_signed();
        match self.shared.accounts.player(&account.name).await {
            Ok(fresh) => fresh.standing.muted_at(now),
            Err(_) => account.standing.muted_at(now),
        }
    }

    fn chat_refused(
        &self,
        room: &RoomId,
        code: ErrorCode,
        message: String,
        detail: Option<serde_json::Value>,
    ) {
        self.out.send(&ServerMsg::Error {
            code,
            message,
            room: Some(room.clone()),
            detail,
        });
    }
}
