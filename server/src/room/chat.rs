//! The room's chat: who may speak on which channel, who reads each
//! message, the recent lines a joining player is sent, and keeping each
//! message beside the log.
//!
//! The session has checked the text, its rate and its account's mute
//! before the request came here; the room checks what only it knows
//! (who sits or watches, whether the game is on, whether it is rated)
//! and the blocks among its readers.

use std::collections::{HashMap, VecDeque};

use parlor_protocol::{encode, Channel, ChatLine, ErrorCode, Phrase, RoomStatus, ServerMsg};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::actor::Room;
use super::Member;
use crate::blocks::{BlockedPairs, Blocks};
use crate::chat::store::Kept;
use crate::chat::{ChatStore, CHAT_BLOCKS_TTL, CHAT_HISTORY_LINES};
use crate::outbox::{ConnId, Outbox};

/// What a room keeps of its chat.
#[derive(Debug, Default)]
pub(super) struct RoomChat {
    /// Whether the lines kept before (a room restored, or moved from
    /// another node) have been read: until then ids and history are not
    /// known.
    loaded: bool,
    /// The last message's id.
    last_id: u64,
    /// Each channel's latest lines, oldest first, with each speaker's
    /// account key (for blocks).
    players: VecDeque<(ChatLine, Option<String>)>,
    spectators: VecDeque<(ChatLine, Option<String>)>,
    /// The account keys of spectators with an account, by connection
    /// (for blocks: the spectator list holds only their queues).
    spectator_keys: HashMap<ConnId, String>,
    /// The blocks last read among the room's readers, and when.
    blocks: Option<(Instant, BlockedPairs)>,
}

impl RoomChat {
    /// A new room's chat: nothing was said in it before.
    pub(super) fn fresh() -> Self {
        RoomChat {
            loaded: true,
            ..RoomChat::default()
        }
    }

    fn recent_mut(&mut self, channel: Channel) -> &mut VecDeque<(ChatLine, Option<String>)> {
        match channel {
            Channel::Players => &mut self.players,
            Channel::Spectators => &mut self.spectators,
        }
    }

    fn keep(&mut self, line: ChatLine, key: Option<String>) {
        let recent = self.recent_mut(line.to);
        recent.push_back((line, key));
        while recent.len() > CHAT_HISTORY_LINES {
            recent.pop_front();
        }
    }

    /// Notes the account of a spectator watching on `conn`.
    pub(super) fn watcher(&mut self, conn: ConnId, account_key: Option<String>) {
        match account_key {
            Some(key) => {
                self.spectator_keys.insert(conn, key);
            }
            None => {
                self.spectator_keys.remove(&conn);
            }
        }
    }

    /// Forgets the spectators no longer watching.
    fn prune(&mut self, watching: &[Outbox]) {
        self.spectator_keys
            .retain(|conn, _| watching.iter().any(|o| o.id() == *conn));
    }
}

/// Who speaks: a seated player or a spectator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Speaker {
    Player,
    Spectator,
}

impl Room {
    fn chat_store(&self) -> ChatStore {
        ChatStore::new(self.store().beside())
    }

    /// Reads what was said before this actor (once).
    async fn load_chat(&mut self) {
        if self.chat.loaded {
            return;
        }
        let store = self.chat_store();
        let last = store.last_id(&self.id).await;
        let players = store
            .recent(&self.id, Channel::Players, CHAT_HISTORY_LINES)
            .await;
        let spectators = store
            .recent(&self.id, Channel::Spectators, CHAT_HISTORY_LINES)
            .await;
        match (last, players, spectators) {
            (Ok(last), Ok(players), Ok(spectators)) => {
                self.chat.last_id = self.chat.last_id.max(last);
                self.chat.players = players.into();
                self.chat.spectators = spectators.into();
            }
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                // Chat is never worth failing a game for: go on with what
                // this actor heard (ids may then repeat stored ones, which
                // are not stored again).
                tracing::warn!(room = %self.id, error = %e, "the room's chat could not be read");
            }
        }
        self.chat.loaded = true;
    }

    /// Whether the game is over (everyone then reads both channels).
    fn chat_open(&self) -> bool {
        self.status() == RoomStatus::Finished
    }

    /// `who` says `text` (or `phrase`, whose text it is) on `to`.
    pub(super) async fn say(
        &mut self,
        who: Member,
        text: String,
        phrase: Option<Phrase>,
        to: Option<Channel>,
    ) {
        let seated = self.seats.iter().any(|s| s.speaks_for(&who));
        let speaker = if seated {
            Speaker::Player
        } else if self.spectators.iter().any(|o| o.id() == who.conn) {
            Speaker::Spectator
        } else {
            return self.error(
                &who,
                ErrorCode::ChatNotAllowed,
                "you neither sit nor watch in this room: spectate to read and speak in its chat",
            );
        };
        let channel = to.unwrap_or(match speaker {
            Speaker::Player => Channel::Players,
            Speaker::Spectator => Channel::Spectators,
        });
        match (speaker, channel) {
            (Speaker::Spectator, Channel::Players) => {
                return self.error(
                    &who,
                    ErrorCode::ChatNotAllowed,
                    "spectators speak on the spectators' channel",
                );
            }
            (Speaker::Player, Channel::Spectators) if !self.chat_open() => {
                return self.error(
                    &who,
                    ErrorCode::ChatNotAllowed,
                    "players may not speak to the spectators while the game is on",
                );
            }
            _ => {}
        }
        if !who.account && self.header.rated {
            return self.error(
                &who,
                ErrorCode::ChatGuestsCasualOnly,
                "guests may read but speak only in casual rooms: log in to speak here",
            );
        }
        self.load_chat().await;
        self.chat.last_id += 1;
        let line = ChatLine {
            id: self.chat.last_id,
            at_ms: crate::clock::now_ms(),
            name: who.name.to_string(),
            to: channel,
            text,
            phrase,
        };
        let speaker_key = who.account.then(|| crate::accounts::name_key(&who.name));
        let readers = self.chat_readers(channel);
        let apart = match &speaker_key {
            Some(speaker) => {
                let mut keys: Vec<String> = readers.iter().filter_map(|(_, k)| k.clone()).collect();
                keys.push(speaker.clone());
                self.pairs_for(keys).await
            }
            None => BlockedPairs::default(),
        };
        let frame = Utf8Bytes::from(encode(&ServerMsg::Said {
            room: self.id.clone(),
            line: line.clone(),
        }));
        for (out, key) in &readers {
            let kept_apart = match (&speaker_key, key) {
                (Some(s), Some(r)) => s != r && apart.apart(s, r),
                _ => false,
            };
            if !kept_apart {
                out.send_text(frame.clone());
            }
        }
        self.chat.keep(line.clone(), speaker_key.clone());
        // Kept beside the log off the actor: a failed write is logged and
        // dropped, never a move's or the room's failure.
        let store = self.chat_store();
        let kept = Kept {
            room: self.id.clone(),
            line,
            account_key: speaker_key,
        };
        self.host.tracker().spawn(async move {
            let room = kept.room.clone();
            if let Err(e) = store.add(kept).await {
                tracing::warn!(%room, error = %e, "a chat message could not be kept");
            }
        });
    }

    /// Who reads `channel` now, with their account keys.
    fn chat_readers(&mut self, channel: Channel) -> Vec<(Outbox, Option<String>)> {
        let open = self.chat_open();
        let mut readers = Vec::new();
        if open || channel == Channel::Players {
            for slot in &self.seats {
                if let Some(outs) = slot.outs() {
                    let key = slot.player_account_key();
                    readers.extend(outs.iter().map(|o| (o.clone(), key.clone())));
                }
            }
        }
        if open || channel == Channel::Spectators {
            self.spectators.retain(Outbox::is_open);
            self.chat.prune(&self.spectators);
            for out in &self.spectators {
                let key = self.chat.spectator_keys.get(&out.id()).cloned();
                readers.push((out.clone(), key));
            }
        }
        readers
    }

    /// The pairs a block keeps apart among the accounts keyed `keys`:
    /// read again when older than [`CHAT_BLOCKS_TTL`] or missing one of
    /// them. Unsure (the read failed), every pair is kept apart: better
    /// a message missed than one reaching a blocker.
    async fn pairs_for(&mut self, mut keys: Vec<String>) -> BlockedPairs {
        keys.sort();
        keys.dedup();
        if keys.len() < 2 {
            return BlockedPairs::default();
        }
        if let Some((at, pairs)) = &self.chat.blocks {
            if at.elapsed() < CHAT_BLOCKS_TTL && keys.iter().all(|k| pairs.knows(k)) {
                return pairs.clone();
            }
        }
        match Blocks::new(self.store().beside()).pairs_among(&keys).await {
            Ok(pairs) => {
                self.chat.blocks = Some((Instant::now(), pairs.clone()));
                pairs
            }
            Err(e) => {
                tracing::warn!(room = %self.id, error = %e, "blocks could not be read for chat");
                let mut all = BlockedPairs::read_for(keys.iter().cloned());
                for a in &keys {
                    for b in &keys {
                        if a < b {
                            all.insert(a, b);
                        }
                    }
                }
                all
            }
        }
    }

    /// After `who` joined, resumed or began watching: its recent chat,
    /// if any was said (the players' channel to a player, the
    /// spectators' to a spectator; both after the end).
    pub(super) async fn chat_history(&mut self, who: &Member) {
        let seated = self.seats.iter().any(|s| s.speaks_for(who));
        let watching = self.spectators.iter().any(|o| o.id() == who.conn);
        if !seated && !watching {
            return;
        }
        self.load_chat().await;
        let channels: &[Channel] = if self.chat_open() {
            &[Channel::Players, Channel::Spectators]
        } else if seated {
            &[Channel::Players]
        } else {
            &[Channel::Spectators]
        };
        let reader = who.account.then(|| crate::accounts::name_key(&who.name));
        for &channel in channels {
            let recent: Vec<(ChatLine, Option<String>)> = match channel {
                Channel::Players => self.chat.players.iter().cloned().collect(),
                Channel::Spectators => self.chat.spectators.iter().cloned().collect(),
            };
            let apart = match &reader {
                Some(reader) => {
                    let mut keys: Vec<String> =
                        recent.iter().filter_map(|(_, k)| k.clone()).collect();
                    keys.push(reader.clone());
                    self.pairs_for(keys).await
                }
                None => BlockedPairs::default(),
            };
            let lines: Vec<ChatLine> = recent
                .into_iter()
                .filter(|(_, key)| match (&reader, key) {
                    (Some(r), Some(k)) => r == k || !apart.apart(r, k),
                    _ => true,
                })
                .map(|(line, _)| line)
                .collect();
            if !lines.is_empty() {
                self.reply(
                    who,
                    &ServerMsg::ChatHistory {
                        room: self.id.clone(),
                        to: channel,
                        lines,
                    },
                );
            }
        }
    }
}
