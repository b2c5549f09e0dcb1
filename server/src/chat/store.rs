//! The `chat` table: every message of every room, by room and id, kept
//! with the match. The players' channel is shown with a finished match's
//! log; the spectators' is kept for moderators.

use parlor_protocol::{Channel, ChatLine, Phrase, RoomId};

use crate::store::{Beside, Row, StoreError};

/// The chat table; cheap to clone.
#[derive(Clone, Debug)]
pub struct ChatStore(Beside);

/// A message as kept: its line, and the speaker's account key (`None`
/// for a guest).
#[derive(Clone, Debug)]
pub struct Kept {
    /// The room.
    pub room: RoomId,
    /// The message.
    pub line: ChatLine,
    /// The speaker's account key, if the speaker has an account.
    pub account_key: Option<String>,
}

impl ChatStore {
    /// The chat in the database beside the match log.
    pub fn new(beside: Beside) -> Self {
        ChatStore(beside)
    }

    /// Keeps a message. A phrase is kept as its text (a phrase's text
    /// never changes meaning).
    pub async fn add(&self, kept: Kept) -> Result<(), StoreError> {
        let l = kept.line;
        self.0
            .exec(
                "INSERT INTO chat (room, id, at_ms, name, account_key, channel, text) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
                vec![
                    kept.room.as_str().into(),
                    i64::try_from(l.id).unwrap_or(i64::MAX).into(),
                    i64::try_from(l.at_ms).unwrap_or(i64::MAX).into(),
                    l.name.into(),
                    kept.account_key.into(),
                    l.to.as_str().into(),
                    l.text.into(),
                ],
            )
            .await?;
        Ok(())
    }

    /// The room's last `n` messages on `channel`, oldest first, each
    /// with its speaker's account key.
    pub async fn recent(
        &self,
        room: &RoomId,
        channel: Channel,
        n: usize,
    ) -> Result<Vec<(ChatLine, Option<String>)>, StoreError> {
        let rows = self
            .0
            .fetch(
                "SELECT id, at_ms, name, channel, text, account_key FROM chat \
                 WHERE room = $1 AND channel = $2 ORDER BY id DESC LIMIT $3",
                vec![
                    room.as_str().into(),
                    channel.as_str().into(),
                    i64::try_from(n).unwrap_or(i64::MAX).into(),
                ],
            )
            .await?;
        let mut lines = rows
            .iter()
            .map(|r| Ok((line(r)?, r.opt_text(5)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        lines.reverse();
        Ok(lines)
    }

    /// Every message of the room on `channel`, in order.
    pub async fn all(&self, room: &RoomId, channel: Channel) -> Result<Vec<ChatLine>, StoreError> {
        let rows = self
            .0
            .fetch(
                "SELECT id, at_ms, name, channel, text FROM chat \
                 WHERE room = $1 AND channel = $2 ORDER BY id",
                vec![room.as_str().into(), channel.as_str().into()],
            )
            .await?;
        rows.iter().map(line).collect()
    }

    /// The highest message id of the room (0: none yet).
    pub async fn last_id(&self, room: &RoomId) -> Result<u64, StoreError> {
        let row = self
            .0
            .fetch_opt(
                "SELECT max(id) FROM chat WHERE room = $1",
                vec![room.as_str().into()],
            )
            .await?;
        let last = match row {
            Some(r) => r.opt_int(0)?.unwrap_or(0),
            None => 0,
        };
        Ok(u64::try_from(last).unwrap_or(0))
    }
}

/// A stored row as a line (a phrase's text read back as the phrase).
fn line(r: &Row) -> Result<ChatLine, StoreError> {
    let text = r.text(4)?;
    let phrase = Phrase::ALL.iter().copied().find(|p| p.text() == text);
    let channel = r.text(3)?;
    Ok(ChatLine {
        id: u64::try_from(r.int(0)?).unwrap_or(0),
        at_ms: u64::try_from(r.int(1)?).unwrap_or(0),
        name: r.text(2)?,
        to: Channel::parse(&channel)
            .ok_or_else(|| StoreError::Corrupt(format!("chat channel {channel:?}")))?,
        text,
        phrase,
    })
}

/// A match's log as readers are shown it: a finished match's log with its
/// players' chat (the spectators' is kept for moderators). The chat is no
/// part of the match: a failure to read it leaves the log without it,
/// never unread. (Here, not in the store: the store keeps the log and
/// knows nothing of what is kept beside it.)
pub async fn log_with_chat(
    store: &crate::store::Store,
    room: parlor_protocol::RoomId,
) -> Result<Option<parlor_protocol::MatchLog>, StoreError> {
    let mut log = store.log(room).await?;
    if let Some(log) = log
        .as_mut()
        .filter(|l| l.outcome.is_some() || l.closed.is_some())
    {
        let chat = ChatStore::new(store.beside());
        match chat.all(&log.room, parlor_protocol::Channel::Players).await {
            Ok(lines) => log.chat = lines,
            Err(e) => {
                tracing::warn!(room = %log.room, error = %e, "a match's chat could not be read")
            }
        }
    }
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn line(id: u64, to: Channel, text: &str) -> ChatLine {
        ChatLine {
            id,
            at_ms: 1000 + id,
            name: "ann".into(),
            to,
            text: text.into(),
            phrase: None,
        }
    }

    #[tokio::test]
    async fn messages_read_back_by_channel_in_order() {
        let (store, _task) = Store::throwaway().unwrap_or_else(|e| panic!("{e}"));
        let chat = ChatStore::new(store.beside());
        let room = RoomId::new("chatroom01").unwrap_or_else(|| panic!());
        assert_eq!(chat.last_id(&room).await.ok(), Some(0));
        for (id, to, text) in [
            (1, Channel::Players, "hi"),
            (2, Channel::Spectators, "psst"),
            (3, Channel::Players, "Good game"),
        ] {
            let kept = Kept {
                room: room.clone(),
                line: line(id, to, text),
                account_key: None,
            };
            assert!(chat.add(kept).await.is_ok());
        }
        let players = chat.all(&room, Channel::Players).await.unwrap_or_default();
        assert_eq!(players.iter().map(|l| l.id).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(players[1].phrase, Some(Phrase::GoodGame));
        let recent = chat
            .recent(&room, Channel::Players, 1)
            .await
            .unwrap_or_default();
        assert_eq!(recent.iter().map(|l| l.0.id).collect::<Vec<_>>(), vec![3]);
        assert_eq!(chat.last_id(&room).await.ok(), Some(3));
    }
}
