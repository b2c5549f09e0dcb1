//! What travels on the bus between nodes, as JSON.
//!
//! A gateway (the node a client is connected to) sends commands to the
//! room's channel, which only the room's owner listens on; the owner sends
//! the frames for that gateway's connections back on the gateway's
//! channel, batched; everyone hears the few messages about sessions on the
//! cluster's shared channel. Connection numbers are the gateway's own.
//! Frames are already JSON and travel as raw JSON, not as strings: they
//! are not escaped, only checked as JSON (a scan, no values built).

use parlor_games::Seat;
use parlor_protocol::{ErrorCode, RoomId};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use uuid::Uuid;

use crate::outbox::ConnId;
use crate::room::{Member, RoomCmd};

/// One message on the bus.
// Externally tagged, as is `WireFrame`: a tag inside would make serde
// buffer the message, which raw JSON cannot be read back from.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Envelope {
    /// A command for a room, from gateway `gw` (to the room's channel).
    Cmd {
        /// The gateway holding the connection the command came on.
        gw: String,
        /// The room.
        room: RoomId,
        /// The command.
        cmd: WireCmd,
    },
    /// Frames for connections of the gateway whose channel this is.
    Frames {
        /// In the order they were queued.
        frames: Vec<WireFrame>,
        /// Until when (Unix ms) the sender surely held its lease, and so
        /// its rooms, when it sent them. Frames heard later may come from
        /// a node that was paused and whose rooms another node now hosts:
        /// they are not delivered (see `cluster::inbound`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until_ms: Option<u64>,
    },
    /// `token` speaks on gateway `gw`'s connection `conn` now: any other
    /// connection that spoke for it is closed as taken over.
    TakenOver {
        /// The gateway.
        gw: String,
        /// Its connection.
        conn: u64,
        /// The session's token.
        token: Uuid,
    },
    /// Gateway `gw`'s connection `conn` closed: its stand-ins on owners
    /// are dropped.
    Gone {
        /// The gateway.
        gw: String,
        /// Its connection.
        conn: u64,
    },
    /// `room` was claimed and rebuilt from its log by a node (its owner
    /// died or gave it up): every connection that reached it through a
    /// gateway is no longer in it, and is told `room/moved`.
    Rehosted {
        /// The room.
        room: RoomId,
    },
}

/// A session acting in a room, as a gateway names it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WireMember {
    /// The session's token.
    pub token: Uuid,
    /// Display name.
    pub name: String,
    /// The gateway's connection.
    pub conn: u64,
}

/// A [`RoomCmd`] as it travels (every command a connection can send).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "c", rename_all = "snake_case")]
pub enum WireCmd {
    /// [`RoomCmd::Join`].
    Join {
        /// Who.
        who: WireMember,
        /// Which seat.
        seat: Option<Seat>,
        /// The player's contribution to the deal.
        client_seed: Option<String>,
    },
    /// [`RoomCmd::Spectate`].
    Spectate {
        /// Who.
        who: WireMember,
    },
    /// [`RoomCmd::AddBot`].
    AddBot {
        /// Who asked.
        who: WireMember,
        /// Which seat.
        seat: Option<Seat>,
        /// Which strategy.
        strategy: Option<String>,
    },
    /// [`RoomCmd::Play`].
    Play {
        /// Who.
        who: WireMember,
        /// For which seat.
        seat: Seat,
        /// The position it answers.
        seq: u64,
        /// The move as sent.
        mv: Value,
    },
    /// [`RoomCmd::Leave`].
    Leave {
        /// Who.
        who: WireMember,
    },
    /// [`RoomCmd::Resume`].
    Resume {
        /// Who.
        who: WireMember,
    },
    /// [`RoomCmd::Detach`].
    Detach {
        /// The session's token.
        token: Uuid,
        /// The gateway's connection that closed.
        conn: u64,
    },
}

/// A frame for one of the gateway's connections.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireFrame {
    /// A text frame, as encoded by the owner.
    Text {
        /// The connection.
        conn: u64,
        /// The message.
        text: Box<RawValue>,
    },
    /// The owner ended its stand-in for the connection: end it too.
    End {
        /// The connection.
        conn: u64,
        /// The close code.
        code: u16,
        /// Why.
        why: ErrorCode,
    },
}

fn member(m: &Member) -> WireMember {
    WireMember {
        token: m.token,
        name: m.name.to_string(),
        conn: m.conn.0,
    }
}

impl WireCmd {
    /// `cmd` as it travels; `None` for what only a room's own node sends.
    pub fn of(cmd: &RoomCmd) -> Option<WireCmd> {
        Some(match cmd {
            RoomCmd::Join {
                who,
                seat,
                client_seed,
            } => WireCmd::Join {
                who: member(who),
                seat: *seat,
                client_seed: client_seed.clone(),
            },
            RoomCmd::Spectate { who } => WireCmd::Spectate { who: member(who) },
            RoomCmd::AddBot {
                who,
                seat,
                strategy,
            } => WireCmd::AddBot {
                who: member(who),
                seat: *seat,
                strategy: strategy.clone(),
            },
            RoomCmd::Play { who, seat, seq, mv } => WireCmd::Play {
                who: member(who),
                seat: *seat,
                seq: *seq,
                mv: mv.clone(),
            },
            RoomCmd::Leave { who } => WireCmd::Leave { who: member(who) },
            RoomCmd::Resume { who } => WireCmd::Resume { who: member(who) },
            RoomCmd::Detach { token, conn } => WireCmd::Detach {
                token: *token,
                conn: conn.0,
            },
            RoomCmd::Relinquish => return None,
        })
    }

    /// The gateway's connection the command came on.
    pub fn conn(&self) -> u64 {
        match self {
            WireCmd::Join { who, .. }
            | WireCmd::Spectate { who }
            | WireCmd::AddBot { who, .. }
            | WireCmd::Play { who, .. }
            | WireCmd::Leave { who }
            | WireCmd::Resume { who } => who.conn,
            WireCmd::Detach { conn, .. } => *conn,
        }
    }

    /// The command for a room on this node, its connection being `conn`
    /// here (a stand-in for the gateway's).
    pub fn into_cmd(self, conn: ConnId) -> RoomCmd {
        let here = |w: WireMember| Member {
            token: w.token,
            name: w.name.into(),
            conn,
        };
        match self {
            WireCmd::Join {
                who,
                seat,
                client_seed,
            } => RoomCmd::Join {
                who: here(who),
                seat,
                client_seed,
            },
            WireCmd::Spectate { who } => RoomCmd::Spectate { who: here(who) },
            WireCmd::AddBot {
                who,
                seat,
                strategy,
            } => RoomCmd::AddBot {
                who: here(who),
                seat,
                strategy,
            },
            WireCmd::Play { who, seat, seq, mv } => RoomCmd::Play {
                who: here(who),
                seat,
                seq,
                mv,
            },
            WireCmd::Leave { who } => RoomCmd::Leave { who: here(who) },
            WireCmd::Resume { who } => RoomCmd::Resume { who: here(who) },
            WireCmd::Detach { token, .. } => RoomCmd::Detach { token, conn },
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use std::sync::Arc;

    use serde_json::json;

    use super::*;

    #[test]
    fn a_command_crosses_the_bus_unchanged_but_for_its_connection() {
        let cmd = RoomCmd::Play {
            who: Member {
                token: Uuid::new_v4(),
                name: Arc::from("ann"),
                conn: ConnId(7),
            },
            seat: Seat(1),
            seq: 4,
            mv: json!({"take": [0, 2]}),
        };
        let Some(wire) = WireCmd::of(&cmd) else {
            panic!("a play travels");
        };
        let env = Envelope::Cmd {
            gw: "g1".into(),
            room: RoomId::new("abc").unwrap_or_else(|| panic!()),
            cmd: wire,
        };
        let text = serde_json::to_string(&env).unwrap_or_else(|e| panic!("{e}"));
        let Ok(Envelope::Cmd { cmd, gw, .. }) = serde_json::from_str::<Envelope>(&text) else {
            panic!("{text}");
        };
        assert_eq!(gw, "g1");
        assert_eq!(cmd.conn(), 7);
        let RoomCmd::Play { who, seat, seq, mv } = cmd.into_cmd(ConnId(99)) else {
            panic!("not a play");
        };
        assert_eq!((who.conn, seat, seq), (ConnId(99), Seat(1), 4));
        assert_eq!(mv, json!({"take": [0, 2]}));
        assert!(WireCmd::of(&RoomCmd::Relinquish).is_none());
    }

    #[test]
    fn frames_travel_as_raw_json() {
        let text = r#"{"type":"pong","id":3}"#;
        let raw = RawValue::from_string(text.to_owned()).unwrap_or_else(|e| panic!("{e}"));
        let env = Envelope::Frames {
            frames: vec![WireFrame::Text { conn: 5, text: raw }],
            until_ms: Some(1_700_000_000_123),
        };
        let wire = serde_json::to_string(&env).unwrap_or_else(|e| panic!("{e}"));
        assert!(wire.contains(text), "{wire}");
        let Ok(Envelope::Frames {
            frames,
            until_ms: Some(1_700_000_000_123),
        }) = serde_json::from_str::<Envelope>(&wire)
        else {
            panic!("{wire}");
        };
        let [WireFrame::Text {
            conn: 5,
            text: back,
        }] = frames.as_slice()
        else {
            panic!("{frames:?}");
        };
        assert_eq!(back.get(), text);
    }
}
