//! What a node hears on the bus: commands for the rooms it hosts, frames
//! for the connections it holds, and the cluster's news of sessions.

use std::sync::{Arc, Weak};

use parlor_protocol::{ErrorCode, RoomId, ServerMsg};
use tokio::sync::broadcast::error::RecvError;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::super::{lock, Directory};
use super::wire::{Envelope, WireFrame};
use super::{proxy, Cluster};
use crate::bus::Bus;
use crate::outbox::{ConnId, CLOSE_TAKEN_OVER};
use crate::room::RoomCmd;

/// WebSocket close code for a connection whose forwarded rooms' frames
/// may have been lost with the bus (1012, service restart): reconnect and
/// resume.
pub const CLOSE_BUS_LOST: u16 = 1012;

/// Handles what arrives on the bus until the directory is gone.
pub(super) async fn listen(dir: Weak<Directory>, cluster: Arc<Cluster>) {
    let cluster = &cluster;
    let mut messages = cluster.bus.messages();
    loop {
        let msg = match messages.recv().await {
            Ok(msg) => msg,
            Err(RecvError::Lagged(n)) => {
                tracing::warn!(
                    lost = n,
                    "this node fell behind the bus; messages were lost"
                );
                // Those they were for resume, as after Redis was lost.
                cluster.bus.report_loss();
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        let Some(env) = Bus::decode::<Envelope>(&msg) else {
            continue;
        };
        let Some(d) = dir.upgrade() else { return };
        match env {
            Envelope::Cmd { gw, room, cmd } => command(&d, cluster, gw, room, cmd),
            Envelope::Frames { frames, until_ms } => {
                if in_time(until_ms, crate::clock::now_ms()) {
                    deliver(&d, frames);
                } else {
                    distrust(&d, &frames);
                }
            }
            Envelope::TakenOver {
                gw,
                conn,
                token,
                account,
            } => taken_over(&d, cluster, &gw, conn, token, account.as_deref()),
            Envelope::Gone { gw, conn } => gone(&d, cluster, gw, conn),
            Envelope::Rehosted { room } => rehosted(&d, cluster, &room),
            Envelope::Account { gw, key, msg } => {
                if *gw != **cluster.bus.me() {
                    d.notify_account_here(&key, &msg, &[]);
                }
            }
            Envelope::Placed => d.placed.notify_one(),
            Envelope::CredentialsEnded { gw, hashes } => {
                if *gw != **cluster.bus.me() {
                    d.end_credentials_here(&hashes);
                }
            }
            Envelope::Tell { gw, conn, msg } => {
                if *gw == **cluster.bus.me() {
                    if let Some(out) = d.sessions().outbox(ConnId(conn)) {
                        out.send(&msg);
                    }
                }
            }
            Envelope::Summon {
                gw,
                conn,
                notice,
                room,
                seat,
                bots,
            } => {
                if *gw == **cluster.bus.me() {
                    d.summon_or_tell(
                        ConnId(conn),
                        crate::directory::Summons {
                            notice,
                            room,
                            seat,
                            bots,
                        },
                    );
                }
            }
        }
    }
}

/// A command for a room hosted here, from gateway `gw`.
fn command(dir: &Arc<Directory>, cluster: &Arc<Cluster>, gw: String, room: RoomId, cmd: RoomCmd) {
    let me = cluster.bus.me();
    if let RoomCmd::Resign { .. } = cmd {
        // No connection's: the room acts on it alone.
        if let Err(e) = dir.route_local(&room, cmd) {
            tracing::debug!(%room, ?e, "a resignation found its room gone");
        }
        return;
    }
    // Every other command that travels names its connection.
    let Some(remote_conn) = cmd.origin() else {
        return;
    };
    let conn = if *gw == **me {
        // This node's own command, published before it hosted the room.
        Some(remote_conn)
    } else {
        let remote: proxy::Remote = (Arc::from(gw), remote_conn.0);
        match cmd {
            // A connection that closed needs no stand-in made for it.
            RoomCmd::Detach { .. } => lock(&cluster.proxies).get(&remote).map(|o| o.id()),
            _ => Some(stand_in(dir, cluster, remote)),
        }
    };
    let Some(conn) = conn else { return };
    let cmd = cmd.with_conn(conn);
    if dir.route_local(&room, cmd).is_err() {
        // Gone from here meanwhile: the player finds it again by resuming.
        if let Some(out) = dir.sessions().outbox(conn) {
            out.send(&ServerMsg::room_error(
                &room,
                ErrorCode::RoomMoved,
                "the room moved to another server; resume to carry on there",
            ));
        }
    }
}

/// The stand-in for a gateway's connection, made if needed.
fn stand_in(dir: &Arc<Directory>, cluster: &Arc<Cluster>, remote: proxy::Remote) -> ConnId {
    let weak = Arc::downgrade(dir);
    let weak_cluster = Arc::downgrade(cluster);
    let bus = cluster.bus.clone();
    let store = cluster.store.clone();
    let (out, new) = lock(&cluster.proxies).get_or_make(remote, |gw, joining| {
        let link = proxy::link(bus, gw, joining, store, move |gw| {
            if let (Some(d), Some(cluster)) = (weak.upgrade(), weak_cluster.upgrade()) {
                gateway_gone(&d, &cluster, gw);
            }
        });
        dir.spawn(link);
    });
    if new {
        dir.sessions().add(&out);
    }
    out.id()
}

/// Frames from an owner for connections held here.
fn deliver(dir: &Directory, frames: Vec<WireFrame>) {
    for frame in frames {
        match frame {
            WireFrame::Text { conn, text } => {
                if let Some(out) = dir.sessions().outbox(ConnId(conn)) {
                    out.send_text(Utf8Bytes::from(String::from(Box::<str>::from(text))));
                }
            }
            WireFrame::End { conn, code, why } => {
                if let Some(out) = dir.sessions().outbox(ConnId(conn)) {
                    out.end(code, why);
                }
            }
        }
    }
}

/// Whether frames sent while their sender surely held its rooms until
/// `until_ms` may be delivered at `now_ms`. Later, the sender may have
/// been paused past its lease, and another node may host its rooms and
/// have sent newer views since: a stale view must not follow them.
/// Frames from a node too old to say are delivered.
fn in_time(until_ms: Option<u64>, now_ms: u64) -> bool {
    until_ms.is_none_or(|until| now_ms <= until)
}

/// Frames that came too late to be trusted: their connections are closed
/// to resume (their rooms' current nodes then bring them up to date);
/// none of the frames is delivered.
fn distrust(dir: &Directory, frames: &[WireFrame]) {
    let mut closed = std::collections::HashSet::new();
    for frame in frames {
        let conn = match frame {
            WireFrame::Text { conn, .. } | WireFrame::End { conn, .. } => *conn,
        };
        if !closed.insert(conn) {
            continue;
        }
        if let Some(out) = dir.sessions().outbox(ConnId(conn)) {
            tracing::info!(
                conn,
                "frames came after their sender's lease; the connection resumes"
            );
            out.send(&ServerMsg::error(
                ErrorCode::ServerUnreachable,
                "the server hosting your room stalled and its last news may be stale; reconnect and resume",
            ));
            out.close(CLOSE_BUS_LOST, ErrorCode::ServerUnreachable);
        }
    }
}

/// `token` speaks on gateway `gw`'s `conn` now: a connection here that
/// spoke for it is told and closed, unless it is signed in as the
/// resuming connection's `account` (an account's connections never take
/// each other's place).
fn taken_over(
    dir: &Directory,
    cluster: &Cluster,
    gw: &str,
    conn: u64,
    token: uuid::Uuid,
    account: Option<&str>,
) {
    let here = **cluster.bus.me() == *gw;
    let keep = here.then_some(ConnId(conn));
    let same = |c: ConnId| account.is_some_and(|k| dir.signed_in_as(c, k));
    if let Some(out) = dir.sessions().displace(token, keep, same) {
        out.send(&ServerMsg::error(
            ErrorCode::SessionTakenOver,
            "your session was resumed on another connection",
        ));
        out.close(CLOSE_TAKEN_OVER, ErrorCode::SessionTakenOver);
    }
}

/// Gateway `gw`'s connection `conn` closed: its stand-in here goes.
fn gone(dir: &Directory, cluster: &Cluster, gw: String, conn: u64) {
    let out = lock(&cluster.proxies).remove(&(Arc::from(gw), conn));
    if let Some(out) = out {
        dir.sessions().remove(out.id());
        out.end(crate::outbox::CLOSE_SLOW, ErrorCode::ConnectionIdle);
    }
}

/// `room` was rebuilt from its log on some node: the local connections
/// that reached it over the bus are not attached to the rebuilt room, and
/// the node they reached may have died without a word, so each is told
/// `room/moved` (resume, or spectate again).
fn rehosted(dir: &Directory, cluster: &Cluster, room: &RoomId) {
    let msg = ServerMsg::room_error(
        room,
        ErrorCode::RoomMoved,
        "another server hosts this room now; send resume (or spectate) again to carry on",
    );
    for conn in cluster.reached(room) {
        if let Some(out) = dir.sessions().outbox(conn) {
            out.send(&msg);
        }
    }
}

/// Gateway `gw` is gone: every stand-in of its connections goes.
fn gateway_gone(dir: &Directory, cluster: &Cluster, gw: &str) {
    let outs = lock(&cluster.proxies).remove_gateway(gw);
    for out in outs {
        dir.sessions().remove(out.id());
        out.end(crate::outbox::CLOSE_SLOW, ErrorCode::ConnectionIdle);
    }
}

/// Each time messages to this node may have been lost (the bus came back
/// after Redis was lost and this node listens again, or it fell behind),
/// closes the local connections that play or watch rooms hosted
/// elsewhere: frames for them may be gone, and a resume brings them up
/// to date.
pub(super) async fn watch_losses(dir: Weak<Directory>, cluster: Arc<Cluster>) {
    let mut losses = cluster.bus.losses();
    loop {
        match losses.recv().await {
            Ok(_) | Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => return,
        }
        let Some(d) = dir.upgrade() else { return };
        // Each, as it closes, tells the cluster to drop its stand-ins.
        let forwarded: Vec<ConnId> = lock(&cluster.forwarded).keys().copied().collect();
        tracing::warn!(
            connections = forwarded.len(),
            "bus messages may have been lost; connections to rooms hosted elsewhere are closed to resume"
        );
        for conn in forwarded {
            d.close_to_resume(conn);
        }
    }
}

impl Directory {
    /// Cluster mode: tells of each moment after which what was sent to
    /// this node on the bus before may be gone ([`Bus::losses`]); `None`
    /// on one node.
    pub fn bus_losses(&self) -> Option<tokio::sync::broadcast::Receiver<()>> {
        self.mode.bus().map(|cluster| cluster.bus.losses())
    }

    /// Closes local connection `conn` with close code 1012, telling it
    /// to reconnect and resume: something sent to it over the bus may
    /// have been lost.
    pub fn close_to_resume(&self, conn: ConnId) {
        if let Some(out) = self.sessions().get(conn) {
            out.send(&ServerMsg::error(
                ErrorCode::ServerUnreachable,
                "this server lost touch with the rest of the cluster for a moment; reconnect and resume",
            ));
            out.close(CLOSE_BUS_LOST, ErrorCode::ServerUnreachable);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::in_time;

    #[test]
    fn frames_are_delivered_only_while_their_sender_surely_held_its_rooms() {
        assert!(in_time(Some(1_000), 999));
        assert!(in_time(Some(1_000), 1_000));
        assert!(
            !in_time(Some(1_000), 1_001),
            "late: the sender may have lost its rooms"
        );
        assert!(
            in_time(None, u64::MAX),
            "a sender that does not say is trusted"
        );
    }
}
