//! Stand-ins on a room's owner for connections held by other nodes.
//!
//! A command that arrived over the bus names its gateway's connection. The
//! owner gives that connection a local stand-in: an ordinary [`Outbox`],
//! so rooms send to it exactly as to a local connection, whose frames a
//! link task per gateway sends back over the bus. The link takes every
//! frame queued for that gateway's stand-ins in one scheduler turn and
//! publishes them as one message: one publish per gateway per move, with
//! the spectator frame (encoded once by the room) in it as often as that
//! gateway has spectators.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::stream::{self, SelectAll, Stream};
use futures_util::{FutureExt, StreamExt};
use parlor_protocol::ErrorCode;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, watch};

use super::wire::{Envelope, WireFrame};
use crate::bus::Bus;
use crate::outbox::{ConnId, Inbox, Outbox, Outgoing};
use crate::store::ClusterStore;

/// How often a node that is not sure it still holds its lease checks
/// again before sending frames over the bus (see `cluster::proxy::link`):
/// a fraction of any lease, so frames wait little once it is renewed.
pub(super) const LEASE_RECHECK: std::time::Duration = std::time::Duration::from_millis(20);

/// Frames sent to a gateway in one bus message at most: batches stay
/// well under Redis's and the gateway's comfortable message size.
pub(super) const BUS_BATCH_FRAMES: usize = 256;

/// A gateway's connection: the gateway's name and its number there.
pub(super) type Remote = (Arc<str>, u64);

/// The stand-ins this node holds, and a link per gateway.
#[derive(Default)]
pub(super) struct Proxies {
    by_remote: HashMap<Remote, Outbox>,
    links: HashMap<Arc<str>, mpsc::UnboundedSender<(u64, Inbox)>>,
}

impl Proxies {
    /// The stand-in for `remote`, if there is one.
    pub fn get(&self, remote: &Remote) -> Option<&Outbox> {
        self.by_remote.get(remote)
    }

    /// The stand-in for `remote`, made (with its gateway's link) if
    /// needed; `true` if it is new. `spawn` starts a gateway's link.
    pub fn get_or_make(
        &mut self,
        remote: Remote,
        spawn: impl FnOnce(Arc<str>, mpsc::UnboundedReceiver<(u64, Inbox)>),
    ) -> (Outbox, bool) {
        if let Some(out) = self.by_remote.get(&remote) {
            if out.is_open() {
                return (out.clone(), false);
            }
        }
        let (out, inbox) = Outbox::new(ConnId::next());
        let (gw, conn) = remote.clone();
        // A link that ended (its gateway was gone) is made anew.
        if self.links.get(&gw).is_none_or(|l| l.is_closed()) {
            let (tx, rx) = mpsc::unbounded_channel();
            spawn(Arc::clone(&gw), rx);
            self.links.insert(Arc::clone(&gw), tx);
        }
        if let Some(link) = self.links.get(&gw) {
            let _ = link.send((conn, inbox));
        }
        self.by_remote.insert(remote, out.clone());
        (out, true)
    }

    /// Drops the stand-in for `remote`; the stand-in, to be ended.
    /// The gateway connection a stand-in here stands for.
    pub fn remote_of(&self, conn: ConnId) -> Option<Remote> {
        self.by_remote
            .iter()
            .find(|(_, o)| o.id() == conn)
            .map(|(r, _)| r.clone())
    }

    pub fn remove(&mut self, remote: &Remote) -> Option<Outbox> {
        self.by_remote.remove(remote)
    }

    /// Drops every stand-in of gateway `gw` and its link (the gateway is
    /// gone); the stand-ins, to be ended.
    pub fn remove_gateway(&mut self, gw: &str) -> Vec<Outbox> {
        self.links.remove(gw);
        let gone: Vec<Remote> = self
            .by_remote
            .keys()
            .filter(|(g, _)| &**g == gw)
            .cloned()
            .collect();
        gone.iter()
            .filter_map(|r| self.by_remote.remove(r))
            .collect()
    }
}

type Frames = Pin<Box<dyn Stream<Item = WireFrame> + Send>>;

/// The frames a stand-in's rooms queue, as they go to its gateway; last,
/// if the stand-in was ended (too slow), the ending.
fn frames(conn: u64, inbox: Inbox) -> Frames {
    Box::pin(stream::unfold(Some(inbox), move |state| async move {
        let mut inbox = state?;
        loop {
            let Some(item) = inbox.recv().await else {
                if !inbox.is_ended() {
                    return None;
                }
                let ending = inbox.ending();
                let frame = WireFrame::End {
                    conn,
                    code: ending.map_or(crate::outbox::CLOSE_SLOW, |e| e.code),
                    why: ending.map_or(ErrorCode::ConnectionSlow, |e| e.why),
                };
                return Some((frame, None));
            };
            match item {
                Outgoing::Text(text) => match RawValue::from_string(text.as_str().to_owned()) {
                    Ok(text) => return Some((WireFrame::Text { conn, text }, Some(inbox))),
                    Err(e) => {
                        tracing::error!(error = %e, "a frame that is not JSON was not forwarded")
                    }
                },
                Outgoing::Ping => {}
                Outgoing::Close(code, why) => {
                    let why = why.parse().unwrap_or(ErrorCode::ServerInternal);
                    return Some((WireFrame::End { conn, code, why }, None));
                }
            }
        }
    }))
}

/// Sends the frames of gateway `gw`'s stand-ins to it, a batch per
/// scheduler turn, until the gateway is gone (nobody hears its channel)
/// or every stand-in is dropped; then `gone` is called.
///
/// A batch leaves only while this node surely holds its lease (`store`),
/// and says until when: a node paused past its lease may have had its
/// rooms taken over, and its queued views would then follow newer ones
/// from the rooms' new node. Unsure (renewals late, the database away),
/// the batch waits. If the lease was lost since the last batch, the
/// batch goes out marked as already expired: its gateway does not
/// deliver it but closes its connections to resume, so that none waits
/// for a frame that never comes.
pub(super) async fn link(
    bus: Bus,
    gw: Arc<str>,
    mut joining: mpsc::UnboundedReceiver<(u64, Inbox)>,
    store: ClusterStore,
    gone: impl FnOnce(&str),
) {
    let mut generations = store.generations();
    let channel = bus.gateway_channel(&gw);
    let mut all: SelectAll<Frames> = SelectAll::new();
    let mut open = true;
    loop {
        let first = tokio::select! {
            joined = joining.recv(), if open => {
                match joined {
                    Some((conn, inbox)) => all.push(frames(conn, inbox)),
                    None => open = false,
                }
                continue;
            }
            frame = all.next(), if !all.is_empty() => frame,
            else => return,
        };
        let Some(first) = first else { continue };
        let mut batch = vec![first];
        while batch.len() < BUS_BATCH_FRAMES {
            match all.next().now_or_never() {
                Some(Some(frame)) => batch.push(frame),
                _ => break,
            }
        }
        let sent = batch.len();
        let until_ms = Some(leased(&store, &mut generations).await);
        let envelope = Envelope::Frames {
            frames: batch,
            until_ms,
        };
        match bus.publish(channel.clone(), &envelope).await {
            Ok(0) => {
                tracing::info!(gateway = %gw, "a gateway is gone; its connections' stand-ins are dropped");
                gone(&gw);
                return;
            }
            Ok(_) => tracing::trace!(gateway = %gw, frames = sent, "frames forwarded"),
            Err(e) => {
                tracing::warn!(gateway = %gw, error = %e, "frames for a gateway were lost; its connections' stand-ins are dropped");
                gone(&gw);
                return;
            }
        }
    }
}

/// Waits until this node surely holds its lease and returns until when
/// (Unix ms), or 0 if the lease was lost since the last batch (the
/// generation moved on).
async fn leased(store: &ClusterStore, generations: &mut watch::Receiver<u64>) -> u64 {
    loop {
        // A closed channel: the store is closing with the server.
        if generations.has_changed().unwrap_or(false) {
            generations.borrow_and_update();
            return 0;
        }
        let left = store.lease_left();
        if !left.is_zero() {
            let left = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
            return crate::clock::now_ms().saturating_add(left);
        }
        tokio::time::sleep(LEASE_RECHECK).await;
    }
}
