//! The bus between a cluster's nodes: Redis pub/sub, and nothing durable.
//!
//! Three kinds of channel, all under the cluster's name (its schema), so
//! that two clusters or two test runs sharing a Redis never hear each
//! other:
//! - `ROOM`: one per hosted room, which only its owner subscribes to.
//!   A gateway publishes commands there without asking who the owner is;
//!   a publish that reaches nobody means nobody hosts the room now.
//! - `GATEWAY`: one per process, on which owners send frames for the
//!   connections the process holds.
//! - `ALL`: the cluster's shared channel (sessions taken over, or gone).
//!
//! The bus is transport only: it carries JSON of any serialisable type;
//! what nodes say to each other is the cluster directory's
//! (`directory::cluster::wire`).
//!
//! Losing Redis loses no move: every step is in PostgreSQL before anyone
//! hears of it, and clients heal gaps with `seq` and `resume`.
//!
//! After Redis comes back, this node renews its subscriptions itself and
//! only then tells [`Bus::losses`]' listeners: whatever was published to
//! it before that moment was heard by nobody, so anything that closes
//! connections to resume must wait for it, or a resume could race the
//! re-subscription and miss what follows.

use std::sync::Arc;

use fred::clients::{Client, SubscriberClient};
use fred::interfaces::{ClientLike, EventInterface, PubsubInterface};
use fred::prelude::{Builder, Config, ReconnectPolicy};
use fred::types::Message;
use parlor_protocol::RoomId;
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::broadcast;

/// Bus messages a node may have received and not yet handled before the
/// oldest are dropped (the Redis client's broadcast queue): drops are
/// healed by `seq` and `resume`, but each is a client left waiting, so
/// this is far above a node's messages per scheduler turn.
pub const BUS_INBOX: usize = 65_536;

/// How long one publish may wait for Redis (connecting or reconnecting
/// included): past this the command is answered `server/unreachable`
/// rather than left to hang while the bus is down.
pub const BUS_COMMAND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// Delay between attempts to reach a lost Redis: short, since every
/// forwarded game is paused meanwhile.
pub const BUS_RECONNECT_DELAY: std::time::Duration = std::time::Duration::from_millis(200);

/// Losses a listener may not yet have been told of before the oldest
/// are dropped: one loss and many are handled alike (close to resume).
const LOSS_QUEUE: usize = 16;

/// Why the bus failed.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// Redis refused, timed out or is unreachable.
    #[error("bus error: {0}")]
    Redis(#[from] fred::error::Error),
    /// A message could not be encoded.
    #[error("bus message: {0}")]
    Encode(#[from] serde_json::Error),
}

/// A node's connection to the bus: one client to publish, one to listen.
#[derive(Clone)]
pub struct Bus {
    publisher: Client,
    subscriber: SubscriberClient,
    /// This process's name on the bus (its gateway channel).
    me: Arc<str>,
    /// The cluster's name: every channel's prefix.
    prefix: Arc<str>,
    /// Tells of each moment after which messages to this node may have
    /// been lost (see [`Bus::losses`]).
    losses: broadcast::Sender<()>,
    /// The task renewing subscriptions after each reconnection.
    resubscriber: Arc<tokio::task::AbortHandle>,
}

impl std::fmt::Debug for Bus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bus")
            .field("me", &self.me)
            .field("prefix", &self.prefix)
            .finish()
    }
}

impl Bus {
    /// Connects to Redis at `url` (`redis://HOST:PORT`) for the cluster
    /// named `cluster`, and listens on this process's channel and the
    /// cluster's. Subscriptions are renewed after Redis comes back, and
    /// then [`Bus::losses`] is told.
    pub async fn connect(url: &str, cluster: &str) -> Result<Bus, BusError> {
        let config = Config::from_url(url)?;
        let mut builder = Builder::from_config(config);
        builder
            .with_performance_config(|p| {
                p.default_command_timeout = BUS_COMMAND_TIMEOUT;
                p.broadcast_channel_capacity = BUS_INBOX;
            })
            .with_connection_config(|c| {
                c.connection_timeout = BUS_COMMAND_TIMEOUT;
            })
            .set_policy(ReconnectPolicy::new_constant(
                0,
                u32::try_from(BUS_RECONNECT_DELAY.as_millis()).unwrap_or(u32::MAX),
            ));
        let publisher = builder.build()?;
        let subscriber = builder.build_subscriber_client()?;
        publisher.init().await?;
        subscriber.init().await?;
        let (losses, _) = broadcast::channel(LOSS_QUEUE);
        let resubscriber = tokio::spawn(resubscribe(subscriber.clone(), losses.clone()));
        let me: Arc<str> = Arc::from(uuid::Uuid::new_v4().simple().to_string());
        let bus = Bus {
            publisher,
            subscriber,
            me,
            prefix: Arc::from(format!("parlor:{cluster}")),
            losses,
            resubscriber: Arc::new(resubscriber.abort_handle()),
        };
        bus.subscriber
            .subscribe(vec![bus.gateway_channel(&bus.me), bus.all_channel()])
            .await?;
        tracing::info!(gateway = %bus.me, url, "joined the bus");
        Ok(bus)
    }

    /// This process's name on the bus.
    pub fn me(&self) -> &Arc<str> {
        &self.me
    }

    /// Room `room`'s channel.
    pub fn room_channel(&self, room: &RoomId) -> String {
        format!("{}:room:{room}", self.prefix)
    }

    /// Gateway `gw`'s channel.
    pub fn gateway_channel(&self, gw: &str) -> String {
        format!("{}:gw:{gw}", self.prefix)
    }

    /// The cluster's shared channel.
    pub fn all_channel(&self) -> String {
        format!("{}:all", self.prefix)
    }

    /// Publishes `env` on `channel`, as JSON; how many listeners heard it.
    pub async fn publish(&self, channel: String, env: &impl Serialize) -> Result<u64, BusError> {
        let bytes = serde_json::to_vec(env)?;
        let heard = self.publisher.publish(channel, bytes).await?;
        crate::metrics::bus_published(1);
        Ok(heard)
    }

    /// Starts listening on `channel`.
    pub async fn subscribe(&self, channel: String) -> Result<(), BusError> {
        Ok(self.subscriber.subscribe(channel).await?)
    }

    /// Stops listening on `channel`.
    pub async fn unsubscribe(&self, channel: String) -> Result<(), BusError> {
        Ok(self.subscriber.unsubscribe(channel).await?)
    }

    /// What arrives on the channels listened to.
    pub fn messages(&self) -> broadcast::Receiver<Message> {
        self.subscriber.message_rx()
    }

    /// Tells of each moment after which messages published to this node
    /// before it may have been lost: the listening connection came back
    /// after Redis was lost and its subscriptions are renewed (so what is
    /// published from now on is heard), or this node fell behind what it
    /// heard ([`Bus::report_loss`]).
    pub fn losses(&self) -> broadcast::Receiver<()> {
        self.losses.subscribe()
    }

    /// Says that messages heard on the bus were dropped before this node
    /// handled them.
    pub fn report_loss(&self) {
        // No listener: nothing to heal.
        let _ = self.losses.send(());
    }

    /// Decodes a message heard on the bus (JSON); `None`, logged, if it
    /// is not a `T`.
    pub fn decode<T: DeserializeOwned>(msg: &Message) -> Option<T> {
        let bytes = msg.value.as_bytes()?;
        match serde_json::from_slice(bytes) {
            Ok(env) => Some(env),
            Err(e) => {
                tracing::warn!(channel = %msg.channel, error = %e, "an unreadable bus message was dropped");
                None
            }
        }
    }

    /// Leaves the bus.
    pub async fn close(&self) {
        self.resubscriber.abort();
        let _ = self.subscriber.quit().await;
        let _ = self.publisher.quit().await;
    }
}

/// Each time `subscriber` comes back after Redis was lost, subscribes
/// again to every channel it listened on (retrying until Redis takes it),
/// then tells `losses`.
async fn resubscribe(subscriber: SubscriberClient, losses: broadcast::Sender<()>) {
    let mut reconnects = subscriber.reconnect_rx();
    loop {
        match reconnects.recv().await {
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => return,
        }
        // Channels only (fred's `resubscribe_all` would also send the
        // patterns and shard channels, which this bus never uses).
        loop {
            let channels: Vec<String> = subscriber
                .tracked_channels()
                .into_iter()
                .map(|c| c.to_string())
                .collect();
            if channels.is_empty() {
                break;
            }
            match subscriber.subscribe(channels).await {
                Ok(()) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot listen on the bus again yet; retrying");
                    tokio::time::sleep(BUS_RECONNECT_DELAY).await;
                }
            }
        }
        tracing::info!("back on the bus: every channel is listened to again");
        let _ = losses.send(());
    }
}
