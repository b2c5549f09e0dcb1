//! An event's chat: the tournament page's conversation among its
//! entrants and watchers, kept in the `event_chat` table and read by
//! polling (`GET /api/tournaments/ID/chat?after=N`), so that it works the
//! same on one node and across a cluster (every node reads one table).
//!
//! The rules are room chat's: a text of 1 to `MAX_CHAT_CHARS` characters
//! without control characters, or a canned phrase; at most
//! [`MAX_CHAT_PER_WINDOW`] messages in any [`CHAT_WINDOW`], here per
//! account over all events (counted from the table by the statement that
//! keeps the message, so the bound holds on every node); a muted account
//! is refused; a guest reads but does not speak (the API asks for an
//! account); and a block, either way, keeps a speaker's lines from the
//! other's reads. Speaking closes when the event ends (finished or
//! cancelled): what was said stays readable with its page.
//!
//! Each event numbers its messages from 1 (`id`); a message's id is one
//! more than the event's highest committed one, so a reader polling with
//! `after` never misses a line committed later under a lower id.

use parlor_protocol::{check_chat_text, Phrase};
use serde::Serialize;

use super::{CHAT_WINDOW, MAX_CHAT_PER_WINDOW};
use crate::accounts::name_key;
use crate::store::{Beside, Row, StoreError};

/// The `SELECT` of an event's lines (event `$1`) a reader keyed `$2` may
/// read, up to its `WHERE`'s last clause.
macro_rules! select_lines {
    () => {
        "SELECT c.id, c.at_ms, c.name, c.text, c.phrase FROM event_chat c \
         WHERE c.event = $1 AND NOT EXISTS (SELECT 1 FROM blocks b WHERE \
         (b.account_key = $2 AND b.blocked_key = c.speaker_key) OR \
         (b.account_key = c.speaker_key AND b.blocked_key = $2)) "
    };
}

/// The most messages one read returns: a few screens of conversation
/// (as many as a room sends a player joining mid-game), one small
/// answer however long the event talked; the rest are read from the
/// last id given (`after`).
pub const EVENT_CHAT_PAGE: usize = 50;

/// How often keeping a message is tried when another speaker's took the
/// id it chose at the same moment (on PostgreSQL, two nodes at once):
/// each try sees the other's line, so a second nearly always succeeds.
const KEEP_ATTEMPTS: usize = 4;

/// One message of an event's chat, as readers are given it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventLine {
    /// Its number in the event: rising, from 1.
    pub id: u64,
    /// When it was said (ms since the epoch).
    pub at_ms: i64,
    /// The speaker's account name.
    pub name: String,
    /// What was said (a phrase's English text for a phrase).
    pub text: String,
    /// The canned phrase it is, if it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phrase: Option<Phrase>,
}

/// What a speaker says: a text (checked) or a canned phrase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Said {
    /// A text as typed.
    Text(String),
    /// A canned phrase.
    Phrase(Phrase),
}

/// Who speaks: an account, as signed in.
#[derive(Clone, Copy, Debug)]
pub struct Speaker<'a> {
    /// Its name as its owner spells it.
    pub name: &'a str,
    /// Until when it is muted, if it is now.
    pub muted_until_ms: Option<i64>,
}

/// Why a message was not kept.
#[derive(Debug, thiserror::Error)]
pub enum EventChatError {
    /// The text is empty, too long or holds a control character (or the
    /// body gives both or neither of a text and a phrase): why.
    #[error("{0}")]
    BadText(String),
    /// The account said [`MAX_CHAT_PER_WINDOW`] messages in the last
    /// [`CHAT_WINDOW`].
    #[error(
        "at most {MAX_CHAT_PER_WINDOW} messages in {} s: wait {retry_after_ms} ms",
        CHAT_WINDOW.as_secs()
    )]
    RateLimited {
        /// When the oldest of them leaves the window.
        retry_after_ms: u64,
    },
    /// A moderator muted the account.
    #[error("a moderator muted your account until {until_ms} (ms since the epoch)")]
    Muted {
        /// When the mute ends.
        until_ms: i64,
    },
    /// The event is over: its chat is read, no longer spoken in.
    #[error("the event is over: its chat can be read but takes no more messages")]
    Closed,
    /// The `after` of a read is not a message id.
    #[error("after is a message id (a whole number)")]
    BadQuery,
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The events' chat; cheap to clone.
#[derive(Clone, Debug)]
pub struct EventChat(Beside);

impl EventChat {
    /// The chat in the database beside the match log.
    pub fn new(beside: Beside) -> Self {
        EventChat(beside)
    }

    /// Keeps what `speaker` says in event `event` at `now_ms`, if the
    /// text, the mute and the rate allow it; the line as readers get it.
    /// (Whether the event exists and still takes messages is the
    /// caller's to check: it reads the event.)
    pub async fn say(
        &self,
        event: &str,
        speaker: Speaker<'_>,
        said: Said,
        now_ms: i64,
    ) -> Result<EventLine, EventChatError> {
        let (text, phrase) = match said {
            Said::Text(t) => (
                check_chat_text(&t)
                    .map_err(|e| EventChatError::BadText(e.to_string()))?
                    .to_owned(),
                None,
            ),
            Said::Phrase(p) => (p.text().to_owned(), Some(p)),
        };
        if let Some(until_ms) = speaker.muted_until_ms.filter(|&u| u > now_ms) {
            return Err(EventChatError::Muted { until_ms });
        }
        let key = name_key(speaker.name);
        let since = now_ms.saturating_sub(window_ms());
        let cap = i64::try_from(MAX_CHAT_PER_WINDOW).unwrap_or(i64::MAX);
        for _ in 0..KEEP_ATTEMPTS {
            // Under a lock on the speaker (PostgreSQL): its count cannot
            // pass twice at once. The id is the event's highest committed
            // one plus one; two speakers choosing the same, one keeps it
            // and the other tries again.
            let kept = self
                .0
                .fetch_alone(
                    &format!("event_chat:{key}"),
                    "INSERT INTO event_chat (event, id, at_ms, speaker_key, name, text, phrase) \
                     SELECT $1, COALESCE((SELECT max(id) FROM event_chat WHERE event = $1), 0) + 1, \
                     $2, $3, $4, $5, $6 \
                     WHERE (SELECT count(*) FROM event_chat WHERE speaker_key = $3 AND at_ms > $7) < $8 \
                     ON CONFLICT DO NOTHING RETURNING id",
                    vec![
                        event.into(),
                        now_ms.into(),
                        key.clone().into(),
                        speaker.name.into(),
                        text.clone().into(),
                        phrase.map(phrase_name).into(),
                        since.into(),
                        cap.into(),
                    ],
                )
                .await?;
            if let Some(row) = kept.first() {
                return Ok(EventLine {
                    id: u64::try_from(row.int(0)?).unwrap_or(0),
                    at_ms: now_ms,
                    name: speaker.name.to_owned(),
                    text,
                    phrase,
                });
            }
            if let Some(retry_after_ms) = self.rate_wait(&key, since, now_ms).await? {
                return Err(EventChatError::RateLimited { retry_after_ms });
            }
        }
        Err(StoreError::Unavailable("the event's chat is too busy to keep a message".into()).into())
    }

    /// If the account keyed `key` has said as many messages since
    /// `since` as the window allows: how long until the oldest leaves it.
    async fn rate_wait(
        &self,
        key: &str,
        since: i64,
        now_ms: i64,
    ) -> Result<Option<u64>, StoreError> {
        let row = self
            .0
            .fetch_opt(
                "SELECT count(*), min(at_ms) FROM event_chat WHERE speaker_key = $1 AND at_ms > $2",
                vec![key.into(), since.into()],
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let count = usize::try_from(row.int(0)?).unwrap_or(0);
        if count < MAX_CHAT_PER_WINDOW {
            return Ok(None);
        }
        let oldest = row.opt_int(1)?.unwrap_or(now_ms);
        let wait = oldest.saturating_add(window_ms()).saturating_sub(now_ms);
        Ok(Some(u64::try_from(wait).unwrap_or(0).max(1)))
    }

    /// The event's messages the account keyed `reader` may read (`None`:
    /// a guest, who reads all): after the id `after`, oldest first, at
    /// most [`EVENT_CHAT_PAGE`]; without `after`, the latest
    /// [`EVENT_CHAT_PAGE`]. A line is left out when its speaker and the
    /// reader are kept apart by a block, either way.
    pub async fn read(
        &self,
        event: &str,
        reader: Option<&str>,
        after: Option<u64>,
    ) -> Result<Vec<EventLine>, StoreError> {
        // No account's key is empty: a guest's reader key matches no block.
        let reader = reader.map(name_key).unwrap_or_default();
        let page = i64::try_from(EVENT_CHAT_PAGE).unwrap_or(i64::MAX);
        let rows = match after {
            Some(after) => {
                self.0
                    .fetch(
                        concat!(select_lines!(), "AND c.id > $3 ORDER BY c.id LIMIT $4"),
                        vec![
                            event.into(),
                            reader.into(),
                            i64::try_from(after).unwrap_or(i64::MAX).into(),
                            page.into(),
                        ],
                    )
                    .await?
            }
            None => {
                let mut rows = self
                    .0
                    .fetch(
                        concat!(select_lines!(), "ORDER BY c.id DESC LIMIT $3"),
                        vec![event.into(), reader.into(), page.into()],
                    )
                    .await?;
                rows.reverse();
                rows
            }
        };
        rows.iter().map(line).collect()
    }

    /// The message `id` of event `event` and its speaker's account key,
    /// whoever reads (for a report naming it).
    pub async fn line(
        &self,
        event: &str,
        id: u64,
    ) -> Result<Option<(EventLine, String)>, StoreError> {
        let row = self
            .0
            .fetch_opt(
                "SELECT id, at_ms, name, text, phrase, speaker_key FROM event_chat \
                 WHERE event = $1 AND id = $2",
                vec![event.into(), i64::try_from(id).unwrap_or(i64::MAX).into()],
            )
            .await?;
        row.map(|r| Ok::<_, StoreError>((line(&r)?, r.text(5)?)))
            .transpose()
    }
}

/// [`CHAT_WINDOW`] in milliseconds.
fn window_ms() -> i64 {
    i64::try_from(CHAT_WINDOW.as_millis()).unwrap_or(i64::MAX)
}

/// A phrase as it travels and is kept (`good_game`).
fn phrase_name(p: Phrase) -> String {
    serde_json::to_value(p)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A row (id, at_ms, name, text, phrase) as a line.
fn line(r: &Row) -> Result<EventLine, StoreError> {
    let phrase = r
        .opt_text(4)?
        .and_then(|p| serde_json::from_value(serde_json::Value::String(p)).ok());
    Ok(EventLine {
        id: u64::try_from(r.int(0)?).unwrap_or(0),
        at_ms: r.int(1)?,
        name: r.text(2)?,
        text: r.text(3)?,
        phrase,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::Blocks;
    use crate::store::{Store, StoreTask};

    fn chat() -> (EventChat, Store, StoreTask) {
        let (store, task) = Store::throwaway().unwrap_or_else(|e| panic!("{e}"));
        (EventChat::new(store.beside()), store, task)
    }

    fn ann() -> Speaker<'static> {
        Speaker {
            name: "Ann",
            muted_until_ms: None,
        }
    }

    #[tokio::test]
    async fn lines_are_numbered_per_event_and_read_after_an_id() {
        let (c, _store, _task) = chat();
        let said = |t: &str| Said::Text(t.into());
        let first = c.say("ev1", ann(), said("  hello  "), 1000).await;
        assert_eq!(
            first.map(|l| (l.id, l.text)).ok(),
            Some((1, "hello".into()))
        );
        let gg = c
            .say("ev1", ann(), Said::Phrase(Phrase::GoodGame), 1001)
            .await;
        assert_eq!(gg.map(|l| l.id).ok(), Some(2));
        let other = c.say("ev2", ann(), said("elsewhere"), 1002).await;
        assert_eq!(other.map(|l| l.id).ok(), Some(1));
        let all = c.read("ev1", None, None).await.unwrap_or_default();
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].phrase, Some(Phrase::GoodGame));
        assert_eq!(all[1].text, "Good game");
        let after = c
            .read("ev1", Some("bob"), Some(1))
            .await
            .unwrap_or_default();
        assert_eq!(after.iter().map(|l| l.id).collect::<Vec<_>>(), vec![2]);
        let named = c.line("ev1", 2).await.ok().flatten();
        assert_eq!(named.map(|(l, key)| (l.id, key)), Some((2, "ann".into())));
    }

    #[tokio::test]
    async fn bad_texts_mutes_and_the_rate_are_refused() {
        let (c, _store, _task) = chat();
        let long = "x".repeat(parlor_protocol::MAX_CHAT_CHARS + 1);
        for bad in ["", "a\nb", long.as_str()] {
            let r = c.say("ev", ann(), Said::Text(bad.into()), 1).await;
            assert!(matches!(r, Err(EventChatError::BadText(_))), "{bad:?}");
        }
        let muted = Speaker {
            muted_until_ms: Some(5000),
            ..ann()
        };
        let r = c.say("ev", muted, Said::Text("hi".into()), 1000).await;
        assert!(matches!(r, Err(EventChatError::Muted { until_ms: 5000 })));
        // A mute that ended lets the account speak.
        assert!(c
            .say("ev", muted, Said::Text("hi".into()), 6000)
            .await
            .is_ok());
        for i in 1..MAX_CHAT_PER_WINDOW {
            let at = 6000 + i64::try_from(i).unwrap_or(0);
            assert!(c
                .say("other", ann(), Said::Text("x".into()), at)
                .await
                .is_ok());
        }
        let r = c
            .say("ev", ann(), Said::Text("one more".into()), 7000)
            .await;
        match r {
            Err(EventChatError::RateLimited { retry_after_ms }) => {
                assert_eq!(retry_after_ms, 9000, "the first left at 6000 + 10 s")
            }
            other => panic!("{other:?}"),
        }
        assert!(c
            .say("ev", ann(), Said::Text("later".into()), 16_001)
            .await
            .is_ok());
    }

    #[tokio::test]
    async fn a_block_either_way_hides_the_lines() {
        let (c, store, _task) = chat();
        let blocks = Blocks::new(store.beside());
        assert!(blocks.block("Bob", "Ann", 1).await.is_ok());
        let bob = Speaker {
            name: "Bob",
            muted_until_ms: None,
        };
        assert!(c
            .say("ev", ann(), Said::Text("from ann".into()), 1)
            .await
            .is_ok());
        assert!(c
            .say("ev", bob, Said::Text("from bob".into()), 2)
            .await
            .is_ok());
        let names = |lines: Vec<EventLine>| lines.into_iter().map(|l| l.name).collect::<Vec<_>>();
        let read = |who: Option<&'static str>| c.read("ev", who, None);
        assert_eq!(names(read(Some("bob")).await.unwrap_or_default()), ["Bob"]);
        assert_eq!(names(read(Some("ANN")).await.unwrap_or_default()), ["Ann"]);
        assert_eq!(
            names(read(Some("cy")).await.unwrap_or_default()),
            ["Ann", "Bob"]
        );
        assert_eq!(names(read(None).await.unwrap_or_default()), ["Ann", "Bob"]);
    }
}
