//! The run flags of `parlor-server`: one struct that is at once the
//! command line's flags (clap, with each flag's environment variable) and
//! the configuration file's keys (serde, under the flags' long names).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::builder::BoolishValueParser;
use serde::{Deserialize, Serialize};

use crate::http::Net;
use crate::limits;
use crate::store::Sync;

/// How the server runs: every flag of `parlor-server` without a command.
///
/// Each is also a key of the configuration file (`--config`), spelt as
/// the flag's long name (`lease-ms`), and an environment variable,
/// `PARLOR_` and the name in upper case with dashes as underscores
/// (`PARLOR_LEASE_MS`). Rules between flags (`--lease-ms` needs
/// `--cluster`) are checked once the layers are merged (see
/// [`super::check`]), whichever layer gave each value.
#[derive(Clone, Debug, PartialEq, clap::Args, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RunOptions {
    /// Address and port to listen on. Use 0.0.0.0:7878 to accept players
    /// from other machines.
    #[arg(long, env = "PARLOR_BIND", default_value = "127.0.0.1:7878")]
    pub bind: SocketAddr,
    /// SQLite database holding every match; created if missing. Unfinished
    /// matches in it are restored at start-up.
    #[arg(long, env = "PARLOR_DB", default_value = "parlor.db")]
    pub db: PathBuf,
    /// How hard each commit is pushed to disk: `normal` survives the
    /// process being killed, `full` also survives power loss (slower).
    #[arg(long, env = "PARLOR_SYNC", value_enum, default_value_t = Sync::Normal)]
    pub sync: Sync,
    /// Keep every match in this PostgreSQL database instead of a SQLite
    /// file: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`. The tables go in
    /// the schema `parlor` (or the first of a search_path set in the URL,
    /// e.g. ?options=-c%20search_path%3Dname), created if missing.
    /// Commits are as durable as the database's own settings make them.
    /// Not with --db or --sync.
    #[arg(
        long,
        env = "PARLOR_CLUSTER",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub cluster: Option<String>,
    /// With --cluster: how long (ms) this node's rooms stay its own
    /// without a renewal. After a crash, the other nodes claim its rooms
    /// this long after its last renewal; a node whose renewals stall this
    /// long gives its rooms up.
    #[arg(long, env = "PARLOR_LEASE_MS", value_name = "MS",
          default_value_t = limits::DEFAULT_LEASE.as_millis() as u64)]
    pub lease_ms: u64,
    /// With --cluster: the Redis bus the nodes talk over
    /// (redis://HOST:PORT). With it, any node serves any room (commands
    /// and frames are forwarded to and from the room's node) and lists
    /// every room of the cluster; without it, a player must reach the node
    /// hosting their room. Redis keeps nothing: losing it pauses forwarded
    /// play and loses no move.
    #[arg(long, env = "PARLOR_BUS", hide_env_values = true, value_name = "URL")]
    pub bus: Option<String>,
    /// With --cluster: the address clients reach this node at
    /// (ws://host:port), recorded in the cluster's node table; default
    /// the address bound.
    #[arg(
        long,
        env = "PARLOR_ADVERTISE",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub advertise: Option<String>,
    /// Answer `GET /healthz` and `GET /metrics` (Prometheus text) on
    /// this address, e.g. one only the monitoring network reaches, and
    /// no longer on the game port (which then answers them 404).
    #[arg(long, env = "PARLOR_METRICS_BIND", value_name = "ADDR")]
    pub metrics_bind: Option<SocketAddr>,
    /// Write the address actually bound (e.g. `127.0.0.1:41237` after
    /// `--bind 127.0.0.1:0`) to this file once listening. The same address
    /// is also printed on stdout as `parlor-server listening on ws://ADDR`.
    #[arg(long, env = "PARLOR_PORT_FILE")]
    pub port_file: Option<PathBuf>,
    /// Most simultaneous connections; more get HTTP 503 before the
    /// WebSocket handshake.
    #[arg(long, env = "PARLOR_MAX_CONNECTIONS", default_value_t = limits::MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Most rooms at once; more are refused with `room/too_many`.
    #[arg(long, env = "PARLOR_MAX_ROOMS", default_value_t = limits::MAX_ROOMS)]
    pub max_rooms: usize,
    /// New connections one client address may open per second on average,
    /// after a burst of 64; faster ones get HTTP 429, and an address whose
    /// connection is closed for flooding waits 10 s. 0 turns this off.
    /// Behind a reverse proxy, give --behind-proxy: the client address is
    /// then the one the proxy forwards.
    #[arg(long, env = "PARLOR_CONNECTS_PER_ADDRESS",
          default_value_t = limits::CONNECTS_PER_SECOND_PER_ADDRESS)]
    pub connects_per_address: f64,
    /// Threads that run rooms and connections, each on its own
    /// single-threaded scheduler with its own share of the rooms (a move
    /// then wakes one thread), from 1 to 256. Default: one per core.
    #[arg(long, env = "PARLOR_SHARDS")]
    pub shards: Option<u16>,
    /// Unfinished rooms that may be created from one client address (an
    /// IPv6 address counts by its /64); more are refused with
    /// `room/too_many`. 0 turns this off. Behind a reverse proxy, give
    /// --behind-proxy so that each client counts by its own address.
    #[arg(long, env = "PARLOR_ROOMS_PER_ADDRESS",
          default_value_t = limits::MAX_OPEN_ROOMS_PER_ADDRESS)]
    pub rooms_per_address: usize,
    /// Most positions one `analyze` request may search (its time budget;
    /// Rummikub's `predict` searches about a million a second); more is
    /// refused with `analysis/too_large`. Memory is bounded apart (56 MiB
    /// of tables a request) whatever this is.
    #[arg(long, env = "PARLOR_ANALYSIS_POSITIONS",
          default_value_t = limits::MAX_ANALYSIS_POSITIONS)]
    pub analysis_positions: usize,
    /// Serve https:// and wss:// on the game port with this certificate
    /// chain (PEM, leaf first). Needs --tls-key. --metrics-bind stays
    /// plain HTTP.
    #[arg(long, env = "PARLOR_TLS_CERT", value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, env = "PARLOR_TLS_KEY", value_name = "FILE")]
    pub tls_key: Option<PathBuf>,
    /// A reverse proxy in front of the server (an address, or a CIDR block
    /// such as 10.0.0.0/8; repeat for more, or separate them with commas).
    /// Only from these peers are X-Forwarded-For (the client's address,
    /// for the per-address limits) and X-Forwarded-Proto (`https`: the
    /// request counts as secure) believed; from anyone else they are
    /// ignored.
    #[arg(
        long,
        env = "PARLOR_BEHIND_PROXY",
        value_name = "ADDR",
        value_delimiter = ','
    )]
    pub behind_proxy: Vec<Net>,
    /// Accounts that may be created from one client address an hour; more
    /// are refused with `auth/rate_limited`. 0 turns this off: do so
    /// behind a reverse proxy.
    #[arg(long, env = "PARLOR_ACCOUNTS_PER_ADDRESS_HOUR",
          default_value_t = limits::ACCOUNTS_PER_ADDRESS_HOUR)]
    pub accounts_per_address_hour: usize,
    /// Rated results two accounts may have together in any 24 hours,
    /// whatever the route; past it their rated challenges and rematches are
    /// refused with `challenge/rated_limit` and seeks do not pair them
    /// rated. 0 turns this off.
    #[arg(long, env = "PARLOR_RATED_PAIR_CAP", default_value_t = limits::RATED_PAIR_CAP)]
    pub rated_pair_cap: u64,
    /// Upcoming tournaments one account may have made at once; more are
    /// refused with `tournament/too_many`. 0 turns this off.
    #[arg(long, env = "PARLOR_MAX_UPCOMING_EVENTS_PER_ACCOUNT",
          default_value_t = limits::MAX_UPCOMING_EVENTS_PER_ACCOUNT)]
    pub max_upcoming_events_per_account: usize,
    /// Tournaments one client address may create in 24 hours (an IPv6
    /// address counts by its /64); more are refused with
    /// `tournament/too_many`. 0 turns this off.
    #[arg(long, env = "PARLOR_MAX_EVENTS_PER_ADDRESS_PER_DAY",
          default_value_t = limits::MAX_EVENTS_PER_ADDRESS_PER_DAY)]
    pub max_events_per_address_per_day: usize,
    /// Accept passwords (registration, login) over plain HTTP from other
    /// machines. Without it and without TLS, passwords are accepted only
    /// from this machine: over a network they would travel in clear.
    #[arg(long, env = "PARLOR_INSECURE_PASSWORDS", value_parser = BoolishValueParser::new())]
    pub insecure_passwords: bool,
    /// An origin (`scheme://host[:port]`) besides the server's own whose
    /// pages may use a player's session cookie; repeatable, or separated
    /// by commas.
    #[arg(
        long,
        env = "PARLOR_ALLOW_ORIGIN",
        value_name = "ORIGIN",
        value_delimiter = ','
    )]
    pub allow_origin: Vec<String>,
    /// Pair no bot ladder games (the anchors' accounts are still made, and
    /// entering a ladder is refused with `ladder/off`): for benchmarks,
    /// or a node that should only serve rooms.
    #[arg(long, env = "PARLOR_NO_LADDER", value_parser = BoolishValueParser::new())]
    pub no_ladder: bool,
}
