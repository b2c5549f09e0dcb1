//! What a cluster's nodes say to each other over the bus, as JSON (the
//! bus itself only carries bytes).
//!
//! A gateway (the node a client is connected to) sends commands to the
//! room's channel, which only the room's owner listens on; the owner sends
//! the frames for that gateway's connections back on the gateway's
//! channel, batched; everyone hears the few messages about sessions on the
//! cluster's shared channel. Connection numbers are the gateway's own.
//! Frames are already JSON and travel as raw JSON, not as strings: they
//! are not escaped, only checked as JSON (a scan, no values built).

use parlor_games::Seat;
use parlor_protocol::{ErrorCode, RoomId, ServerMsg};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use uuid::Uuid;

use crate::room::RoomCmd;

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
        /// The command, as the room takes it; its connection is the
        /// gateway's (never a `Relinquish`, which does not travel).
        cmd: RoomCmd,
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
        /// The account (its key) the resuming connection is signed in
        /// as: that account's own connections keep speaking for it.
        #[serde(default)]
        account: Option<String>,
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
    /// A message for every connection of an account, wherever it is
    /// connected (a challenge, a `your_turn`); gateway `gw` has already
    /// told its own.
    Account {
        /// The sender.
        gw: String,
        /// The account name's key.
        key: String,
        /// The message.
        msg: ServerMsg,
    },
    /// Seekers were placed: every node hands its own their seats now.
    Placed,
    /// Credentials ended (revoked tokens, logged-out sessions): every
    /// node closes its connections made with one; gateway `gw` has
    /// already closed its own.
    CredentialsEnded {
        /// The sender.
        gw: String,
        /// The credentials' hashes (SHA-256 hex, as the store keeps
        /// them: never the tokens).
        hashes: Vec<String>,
    },
    /// A message for gateway `gw`'s connection `conn`.
    Tell {
        /// The gateway.
        gw: String,
        /// Its connection.
        conn: u64,
        /// The message.
        msg: ServerMsg,
    },
    /// Gateway `gw`'s connection `conn` is to take a seat (a match found,
    /// a challenge accepted, a rematch).
    Summon {
        /// The gateway.
        gw: String,
        /// Its connection.
        conn: u64,
        /// What to tell the client first.
        notice: ServerMsg,
        /// The room.
        room: RoomId,
        /// The seat.
        seat: Seat,
        /// Bots its session seats after itself.
        bots: Vec<(Seat, String)>,
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

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use std::sync::Arc;

    use parlor_games::Seat;
    use serde_json::json;

    use super::*;
    use crate::outbox::ConnId;
    use crate::room::{Member, RoomRequest};

    #[test]
    fn a_command_crosses_the_bus_unchanged_but_for_its_connection() {
        let cmd = RoomCmd::request(
            Member {
                token: Uuid::new_v4(),
                name: Arc::from("ann"),
                conn: ConnId(7),
                account: true,
            },
            RoomRequest::Play {
                seat: Seat(1),
                seq: 4,
                mv: json!({"take": [0, 2]}),
            },
        );
        assert!(cmd.travels());
        let env = Envelope::Cmd {
            gw: "g1".into(),
            room: RoomId::new("abc").unwrap_or_else(|| panic!()),
            cmd,
        };
        let text = serde_json::to_string(&env).unwrap_or_else(|e| panic!("{e}"));
        let Ok(Envelope::Cmd { cmd, gw, .. }) = serde_json::from_str::<Envelope>(&text) else {
            panic!("{text}");
        };
        assert_eq!(gw, "g1");
        assert_eq!(cmd.origin(), Some(ConnId(7)));
        let RoomCmd::Request {
            who,
            req: RoomRequest::Play { seat, seq, mv },
        } = cmd.with_conn(ConnId(99))
        else {
            panic!("not a play");
        };
        assert_eq!((who.conn, seat, seq), (ConnId(99), Seat(1), 4));
        assert_eq!(&*who.name, "ann");
        assert_eq!(mv, json!({"take": [0, 2]}));
    }

    #[test]
    fn a_detach_crosses_with_its_connection_and_a_relinquish_does_not_travel() {
        let token = Uuid::new_v4();
        let env = Envelope::Cmd {
            gw: "g1".into(),
            room: RoomId::new("abc").unwrap_or_else(|| panic!()),
            cmd: RoomCmd::Detach {
                token,
                conn: ConnId(5),
            },
        };
        let text = serde_json::to_string(&env).unwrap_or_else(|e| panic!("{e}"));
        let Ok(Envelope::Cmd { cmd, .. }) = serde_json::from_str::<Envelope>(&text) else {
            panic!("{text}");
        };
        assert_eq!(cmd.origin(), Some(ConnId(5)));
        let RoomCmd::Detach { token: t, conn } = cmd.with_conn(ConnId(8)) else {
            panic!("not a detach");
        };
        assert_eq!((t, conn), (token, ConnId(8)));
        assert!(!RoomCmd::Relinquish.travels());
        let relinquish = Envelope::Cmd {
            gw: "g1".into(),
            room: RoomId::new("abc").unwrap_or_else(|| panic!()),
            cmd: RoomCmd::Relinquish,
        };
        assert!(serde_json::to_string(&relinquish).is_err());
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
