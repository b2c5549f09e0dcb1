//! Parlor's authoritative game server.
//!
//! # A map of the server
//!
//! Every module, one line each, in the order a move passes through them:
//!
//! - [`listener`]: accepts connections on the game port, turning away
//!   what is over the caps before any handshake.
//! - [`admission`]: the per-address token bucket and flood cool-down a
//!   connection passes first (its policy is in [`limits`]).
//! - [`net`]: the byte stream under every connection: a TCP socket that
//!   can move between runtimes, and native TLS over it.
//! - [`http`]: HTTP/1.1 on the same port, the wire only: request heads
//!   and bodies, the WebSocket upgrade's checks, writing answers, each
//!   request's `Peer` (client address, `secure`), the web client's files.
//! - [`api`]: the HTTP endpoints behind one route table (`/api/*`, the
//!   replay, `/healthz`, `/metrics`), with one error type mapped to an
//!   HTTP status and an `ErrorCode` at the edge.
//! - [`connection`]: one reader (decodes a request, answers it or turns it
//!   into a room request) and one writer per client.
//! - [`rate`]: the per-connection message token bucket.
//! - [`outbox`]: a connection's bounded queue of frames, which rooms write
//!   to by connection id.
//! - [`shard`]: the threads rooms and their connections run on.
//! - [`accounts`]: players with names: name rules, password hashes,
//!   tokens, their store (beside the match log, in the same database) and
//!   the service `api` and `hello` authenticate through.
//! - [`matchmaking`]: seeks paired into matches (the pure pairing
//!   function, not yet wired into a request).
//! - [`tournaments`]: events: creating, entering, and running their
//!   rounds (pairings from `parlor_competition`), an event's rounds run by
//!   the node holding its lease.
//! - [`ladder`]: the continuous bot ladder, one per game, paired by the
//!   node holding the game's lease, with built-in bots as anchors.
//! - [`reports`]: players reporting players, the moderators' queue and
//!   its resolutions (with [`moderation`]'s log).
//! - [`blocks`]: players blocking players: no challenge, seek, ladder
//!   game or rematch between them.
//! - [`schedule`]: what tournaments and the ladder share: the leased
//!   ticker every node runs, leases on rows, and their requests' refusal.
//! - [`follows`]: players following players, for who of them is online
//!   and playing.
//! - [`directory`]: routes a room request to its room; owns sessions,
//!   creation and caps, hosting (restore, claim, relinquish) and the
//!   listing; cluster mode plugs in behind one `Mode` and
//!   `directory::cluster` (forwarding, stand-ins, the shared lobby).
//! - [`room`]: one actor per match: seating, moves, clocks, views, expiry;
//!   it reaches its node only through [`room::RoomHost`].
//! - [`store`]: the durable log (SQLite, or PostgreSQL shared by a
//!   cluster); every accepted step is stored before anyone hears of it;
//!   the cluster's lease and claims sit behind `Store::cluster`.
//! - [`bus`]: Redis pub/sub between a cluster's nodes, transport only.
//! - [`metrics`]: what a node records and reports (a leaf: it is handed
//!   what it reports).
//! - [`clock`]: the wall clock, read in one place.
//! - [`config`]: the server's settings ([`Config`]), gathered from the
//!   modules they configure.
//! - [`options`]: `parlor-server`'s run flags, also read from the
//!   environment and a configuration file, and printed back.
//! - [`limits`]: every client-facing cap and timeout, with its reason.
//! - [`logs`]: log lines tagged with the node's id.
//! - [`shutdown`]: waiting for the signal to stop.
//! - [`transfer`]: `export` and `import`, moving a single node's matches
//!   into a cluster.
//! - [`testing`]: the services cluster-mode tests need.
//!
//! Arrows between these modules run one way: `listener` → `connection` →
//! `directory` → `room` → `store`; `bus` knows neither rooms nor the
//! directory; `api` uses `http` (never the reverse); `tournaments` and
//! `ladder` each import `schedule`, never each other; and `metrics`,
//! `limits`, `http` and `net` import no other module. The
//! server's wiring is [`run_with`] below.

pub mod accounts;
pub mod admission;
pub mod api;
pub mod blocks;
pub mod bus;
pub mod chat;
pub mod clock;
pub mod config;
pub mod connection;
pub mod directory;
pub mod fair_play;
pub mod follows;
pub mod http;
pub mod ladder;
pub mod limits;
pub mod listener;
pub mod logs;
pub mod matchmaking;
pub mod metrics;
pub mod moderation;
pub mod net;
pub mod options;
pub mod outbox;
pub mod rate;
pub mod reports;
pub mod room;
pub mod schedule;
pub mod shard;
pub mod shutdown;
pub mod slots;
pub mod store;
pub mod testing;
pub mod tournaments;
pub mod transfer;
pub mod websocket;

use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use config::Config;
pub use store::{StoreConfig, Sync};

/// How long shutdown waits for the store's writer to finish its last commits.
const STORE_DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The database could not be opened or read.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// The address could not be bound.
    #[error("cannot listen: {0}")]
    Io(#[from] std::io::Error),
    /// The bus could not be reached, or was asked for without a shared store.
    #[error("cannot join the bus: {0}")]
    Bus(String),
}

/// Runs the server on `listener` until `shutdown` is cancelled: restores
/// unfinished matches, serves connections, and on shutdown closes every
/// connection with a close frame and waits for the store to finish.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: CancellationToken,
) -> Result<(), ServerError> {
    let ops = config.metrics_bind.map(listener::bind).transpose()?;
    run_with(listener, ops, config, shutdown).await
}

/// [`run`] with the operations listener (`/healthz`, `/metrics`) already
/// bound, if any (`config.metrics_bind` is then not used).
pub async fn run_with(
    listener: TcpListener,
    ops: Option<TcpListener>,
    config: Config,
    shutdown: CancellationToken,
) -> Result<(), ServerError> {
    metrics::install();
    let mut store_config = config.store.clone();
    if let StoreConfig::Postgres { node, .. } = &mut store_config {
        if node.advertise.is_empty() {
            let scheme = if config.tls.is_some() { "wss" } else { "ws" };
            node.advertise = format!("{scheme}://{}", listener.local_addr()?);
        }
    }
    let (store, store_task) = store::Store::open(&store_config).await?;
    let bus = match (&config.bus, store.cluster()) {
        (None, _) => None,
        (Some(_), None) => {
            return Err(ServerError::Bus(
                "a bus needs a shared store (--cluster)".into(),
            ))
        }
        (Some(url), Some(cluster)) => Some(
            bus::Bus::connect(url, cluster.name())
                .await
                .map_err(|e| ServerError::Bus(e.to_string()))?,
        ),
    };
    let shards = shard::Shards::start(config.shards)?;
    store.commit_on(&shards);
    let tracker = TaskTracker::new();
    let directory = directory::Directory::with_bus(
        store,
        tracker.clone(),
        shutdown.clone(),
        config.limits,
        bus.clone(),
        std::sync::Arc::clone(&shards),
    );
    let restored = directory.restore().await?;
    tracing::info!(
        addr = %listener.local_addr()?,
        store = %config.store,
        restored,
        "parlor-server listening"
    );
    let slots = std::sync::Arc::new(slots::Slots::new(
        config.limits.max_connections,
        config.limits.full_reported_for,
    ));
    let ops_here = ops.is_none();
    if let Some(ops) = ops {
        tracing::info!(addr = %ops.local_addr()?, "serving /healthz and /metrics");
        tracker.spawn(api::serve_ops(
            ops,
            std::sync::Arc::clone(&directory),
            std::sync::Arc::clone(&slots),
            tracker.clone(),
            shutdown.clone(),
        ));
    }
    listener::accept_loop(
        listener,
        std::sync::Arc::clone(&directory),
        slots,
        ops_here,
        tracker.clone(),
        shutdown,
        &config,
    )
    .await;
    tracker.close();
    tracker.wait().await;
    drop(directory);
    if let Some(bus) = bus {
        // A Redis that is gone must not hold the stop up.
        let _ = tokio::time::timeout(bus::BUS_COMMAND_TIMEOUT, bus.close()).await;
    }
    match tokio::time::timeout(STORE_DRAIN_TIMEOUT, store_task.finished()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::error!(error = %e, "the store did not close cleanly"),
        Err(_) => tracing::warn!("the store did not close in time"),
    }
    // Nothing runs on the shards any more (the tracker is done).
    tokio::task::spawn_blocking(move || shards.stop())
        .await
        .map_err(|e| ServerError::Io(std::io::Error::other(e.to_string())))?;
    tracing::info!("parlor-server stopped");
    Ok(())
}

/// A server running on a background task (for tests and the CLI's
/// built-in server).
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    metrics_addr: Option<SocketAddr>,
    tls: bool,
    shutdown: CancellationToken,
    task: JoinHandle<Result<(), ServerError>>,
}

impl Server {
    /// Binds `addr` (port 0 picks a free port) and starts serving.
    pub async fn start(addr: SocketAddr, config: Config) -> Result<Server, ServerError> {
        let listener = listener::bind(addr)?;
        let addr = listener.local_addr()?;
        let ops = config.metrics_bind.map(listener::bind).transpose()?;
        let metrics_addr = ops.as_ref().map(TcpListener::local_addr).transpose()?;
        let shutdown = CancellationToken::new();
        let tls = config.tls.is_some();
        let task = tokio::spawn(run_with(listener, ops, config, shutdown.clone()));
        Ok(Server {
            addr,
            metrics_addr,
            tls,
            shutdown,
            task,
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where its operations listener is (`Config::metrics_bind`, port 0
    /// resolved), if it has one.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_addr
    }

    /// Its WebSocket URL (`wss://` under native TLS).
    pub fn url(&self) -> String {
        let scheme = if self.tls { "wss" } else { "ws" };
        format!("{scheme}://{}", self.addr)
    }

    /// Shuts down gracefully and waits until it has stopped.
    pub async fn stop(self) -> Result<(), ServerError> {
        self.shutdown.cancel();
        match self.task.await {
            Ok(res) => res,
            Err(e) => Err(ServerError::Io(std::io::Error::other(e.to_string()))),
        }
    }
}
