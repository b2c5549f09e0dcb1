//! The server's settings: what `run` is given, gathered here from the
//! modules each part configures (the store, limits, TLS, proxies,
//! accounts), so that the modules read it without reaching back up to the
//! crate's root.

use std::net::SocketAddr;

use crate::{accounts, http, limits, shard, store::StoreConfig};

/// Server settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where matches are stored; by default a throwaway SQLite file that
    /// vanishes with the process (tests, the CLI's private server).
    pub store: StoreConfig,
    /// Caps and timeouts (the constants of [`limits`] by default).
    pub limits: limits::Limits,
    /// Cluster mode: the Redis bus (`redis://HOST:PORT`) over which nodes
    /// forward commands and frames, so that any node serves any room.
    /// Needs a shared store; without it, a client must reach the node that
    /// hosts its room.
    pub bus: Option<String>,
    /// Where to answer `/healthz` and `/metrics` instead of the game port
    /// (which then answers them 404); `None`: on the game port.
    pub metrics_bind: Option<SocketAddr>,
    /// How many shard threads run rooms and connections (see [`shard`]);
    /// 0 runs them on the caller's runtime. Default: one per core.
    pub shards: usize,
    /// Native TLS on the game port (`--tls-cert`, `--tls-key`):
    /// `https://` and `wss://` instead of `http://` and `ws://`. The
    /// `metrics_bind` listener stays plain.
    pub tls: Option<crate::net::Tls>,
    /// Reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto`
    /// are believed (`--behind-proxy`); from anyone else they are ignored.
    pub proxies: http::Proxies,
    /// Account settings (`--insecure-passwords`, `--allow-origin`).
    pub accounts: accounts::AccountSettings,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            store: StoreConfig::default(),
            limits: limits::Limits::default(),
            bus: None,
            metrics_bind: None,
            shards: shard::default_count(),
            tls: None,
            proxies: http::Proxies::default(),
            accounts: accounts::AccountSettings::default(),
        }
    }
}
