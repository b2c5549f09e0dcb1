//! `parlor-server`: host Parlor games over WebSocket.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use parlor_server::{run, Config, StoreConfig, Sync};
use tokio_util::sync::CancellationToken;

/// Parlor's game server: hosts rooms of Nimrod, Rummikub Lite, Cribbage
/// and more over WebSocket, validating every move and keeping every match
/// in a SQLite file (or, with --cluster, in PostgreSQL). Log level: set
/// RUST_LOG (e.g. RUST_LOG=debug).
#[derive(Debug, Parser)]
#[command(
    name = "parlor-server",
    version,
    args_conflicts_with_subcommands = true
)]
struct Args {
    /// Without one, the server runs.
    #[command(subcommand)]
    command: Option<Command>,
    /// Address and port to listen on. Use 0.0.0.0:7878 to accept players
    /// from other machines.
    #[arg(long, default_value = "127.0.0.1:7878")]
    bind: SocketAddr,
    /// SQLite database holding every match; created if missing. Unfinished
    /// matches in it are restored at start-up.
    #[arg(long, default_value = "parlor.db")]
    db: PathBuf,
    /// How hard each commit is pushed to disk: `normal` survives the
    /// process being killed, `full` also survives power loss (slower).
    #[arg(long, value_enum, default_value_t = Sync::Normal)]
    sync: Sync,
    /// Keep every match in this PostgreSQL database instead of a SQLite
    /// file: postgres://USER[:PASSWORD]@HOST[:PORT]/DB. The tables go in
    /// the schema `parlor` (or the first of a search_path set in the URL,
    /// e.g. ?options=-c%20search_path%3Dname), created if missing.
    /// Commits are as durable as the database's own settings make them.
    #[arg(long, value_name = "URL", conflicts_with_all = ["db", "sync"])]
    cluster: Option<String>,
    /// With --cluster: how long (ms) this node's rooms stay its own
    /// without a renewal. After a crash, the other nodes claim its rooms
    /// this long after its last renewal; a node whose renewals stall this
    /// long gives its rooms up.
    #[arg(long, value_name = "MS", requires = "cluster",
          default_value_t = parlor_server::limits::DEFAULT_LEASE.as_millis() as u64)]
    lease_ms: u64,
    /// With --cluster: the Redis bus the nodes talk over
    /// (redis://HOST:PORT). With it, any node serves any room (commands
    /// and frames are forwarded to and from the room's node) and lists
    /// every room of the cluster; without it, a player must reach the node
    /// hosting their room. Redis keeps nothing: losing it pauses forwarded
    /// play and loses no move.
    #[arg(long, value_name = "URL", requires = "cluster")]
    bus: Option<String>,
    /// With --cluster: the address clients reach this node at
    /// (ws://host:port), recorded in the cluster's node table; default
    /// the address bound.
    #[arg(long, value_name = "URL", requires = "cluster")]
    advertise: Option<String>,
    /// Answer `GET /healthz` and `GET /metrics` (Prometheus text) on
    /// this address, e.g. one only the monitoring network reaches, and
    /// no longer on the game port (which then answers them 404).
    #[arg(long, value_name = "ADDR")]
    metrics_bind: Option<SocketAddr>,
    /// Write the address actually bound (e.g. `127.0.0.1:41237` after
    /// `--bind 127.0.0.1:0`) to this file once listening. The same address
    /// is also printed on stdout as `parlor-server listening on ws://ADDR`.
    #[arg(long)]
    port_file: Option<PathBuf>,
    /// Most simultaneous connections; more get HTTP 503 before the
    /// WebSocket handshake.
    #[arg(long, default_value_t = parlor_server::limits::MAX_CONNECTIONS)]
    max_connections: usize,
    /// Most rooms at once; more are refused with `room/too_many`.
    #[arg(long, default_value_t = parlor_server::limits::MAX_ROOMS)]
    max_rooms: usize,
    /// New connections one client address may open per second on average,
    /// after a burst of 64; faster ones get HTTP 429, and an address whose
    /// connection is closed for flooding waits 10 s. 0 turns this off.
    /// Behind a reverse proxy, give --behind-proxy: the client address is
    /// then the one the proxy forwards.
    #[arg(long, default_value_t = parlor_server::limits::CONNECTS_PER_SECOND_PER_ADDRESS)]
    connects_per_address: f64,
    /// Threads that run rooms and connections, each on its own
    /// single-threaded scheduler with its own share of the rooms (a move
    /// then wakes one thread). Default: one per core.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=parlor_server::shard::MAX_SHARDS as i64))]
    shards: Option<u16>,
    /// Unfinished rooms that may be created from one client address (an
    /// IPv6 address counts by its /64); more are refused with
    /// `room/too_many`. 0 turns this off. Behind a reverse proxy, give
    /// --behind-proxy so that each client counts by its own address.
    #[arg(long, default_value_t = parlor_server::limits::MAX_OPEN_ROOMS_PER_ADDRESS)]
    rooms_per_address: usize,
    /// Most positions one `analyze` request may search (its time budget;
    /// Rummikub's `predict` searches about a million a second); more is
    /// refused with `analysis/too_large`. Memory is bounded apart (56 MiB
    /// of tables a request) whatever this is.
    #[arg(long, default_value_t = parlor_server::limits::MAX_ANALYSIS_POSITIONS)]
    analysis_positions: usize,
    /// Serve https:// and wss:// on the game port with this certificate
    /// chain (PEM, leaf first). Needs --tls-key. --metrics-bind stays
    /// plain HTTP.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// A reverse proxy in front of the server (an address, or a CIDR block
    /// such as 10.0.0.0/8; repeat for more). Only from these peers are
    /// X-Forwarded-For (the client's address, for the per-address limits)
    /// and X-Forwarded-Proto (`https`: the request counts as secure)
    /// believed; from anyone else they are ignored.
    #[arg(long, value_name = "ADDR")]
    behind_proxy: Vec<parlor_server::http::Net>,
    /// Accounts that may be created from one client address an hour; more
    /// are refused with `auth/rate_limited`. 0 turns this off: do so
    /// behind a reverse proxy.
    #[arg(long, default_value_t = parlor_server::limits::ACCOUNTS_PER_ADDRESS_HOUR)]
    accounts_per_address_hour: usize,
    /// Rated results two accounts may have together in any 24 hours,
    /// whatever the route; past it their rated challenges and rematches are
    /// refused with `challenge/rated_limit` and seeks do not pair them
    /// rated. 0 turns this off.
    #[arg(long, default_value_t = parlor_server::limits::RATED_PAIR_CAP)]
    rated_pair_cap: u64,
    /// Upcoming tournaments one account may have made at once; more are
    /// refused with `tournament/too_many`. 0 turns this off.
    #[arg(long, default_value_t = parlor_server::limits::MAX_UPCOMING_EVENTS_PER_ACCOUNT)]
    max_upcoming_events_per_account: usize,
    /// Tournaments one client address may create in 24 hours (an IPv6
    /// address counts by its /64); more are refused with
    /// `tournament/too_many`. 0 turns this off.
    #[arg(long, default_value_t = parlor_server::limits::MAX_EVENTS_PER_ADDRESS_PER_DAY)]
    max_events_per_address_per_day: usize,
    /// Accept passwords (registration, login) over plain HTTP from other
    /// machines. Without it and without TLS, passwords are accepted only
    /// from this machine: over a network they would travel in clear.
    #[arg(long)]
    insecure_passwords: bool,
    /// An origin (scheme://host[:port]) besides the server's own whose
    /// pages may use a player's session cookie; repeatable.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// Pair no bot ladder games (the anchors' accounts are still made, and
    /// entering a ladder is refused with `ladder/off`): for benchmarks,
    /// or a node that should only serve rooms.
    #[arg(long)]
    no_ladder: bool,
}

/// The server's tools, run instead of the server.
#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Moving matches between stores.
    #[command(flatten)]
    Transfer(parlor_server::transfer::Command),
    /// Accounts on this server's database (roles), run on the server
    /// machine.
    #[command(subcommand)]
    Accounts(parlor_server::moderation::command::AccountsCommand),
    /// Copy a SQLite database while the server runs (SQLite's online
    /// backup, from one snapshot) to a new file readable by its owner
    /// alone, checked before it is said done. (A cluster's PostgreSQL is
    /// backed up with its own tools, e.g. `pg_dump`.)
    Backup {
        /// The database to copy, as given to the server's `--db`.
        #[arg(long, default_value = "parlor.db")]
        db: std::path::PathBuf,
        /// The new file (never overwritten).
        #[arg(long, value_name = "FILE")]
        to: std::path::PathBuf,
    },
}

// The main thread accepts connections and runs the cluster's background
// work; rooms and connections run on the shards' threads.
#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    parlor_server::logs::init();
    let args = Args::parse();
    match args.command {
        Some(Command::Transfer(command)) => return command.run().await,
        Some(Command::Accounts(command)) => return command.run().await,
        Some(Command::Backup { db, to }) => {
            return match parlor_server::store::backup(&db, &to) {
                Ok(done) => {
                    println!(
                        "backed up {} to {}: {} bytes, layout {}",
                        db.display(),
                        done.to.display(),
                        done.bytes,
                        done.layout
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("parlor-server backup: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        None => {}
    }
    // Read before binding: a bad file stops the start with its name.
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => match parlor_server::net::Tls::from_pem_files(cert, key) {
            Ok(tls) => Some(tls),
            Err(e) => {
                eprintln!("parlor-server: {e}");
                return ExitCode::FAILURE;
            }
        },
        _ => None,
    };
    let scheme = if tls.is_some() { "wss" } else { "ws" };
    let listener = match parlor_server::listener::bind(args.bind) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("parlor-server: cannot listen on {}: {e}", args.bind);
            return ExitCode::FAILURE;
        }
    };
    let bound = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("parlor-server: cannot read the bound address: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(path) = &args.port_file {
        // Written to a temporary name and renamed, so that a reader never
        // sees a half-written address.
        let tmp = path.with_extension("tmp");
        if let Err(e) =
            std::fs::write(&tmp, bound.to_string()).and_then(|()| std::fs::rename(&tmp, path))
        {
            eprintln!("parlor-server: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    println!("parlor-server listening on {scheme}://{bound}");
    let shutdown = CancellationToken::new();
    let trigger = shutdown.clone();
    tokio::spawn(async move {
        parlor_server::shutdown::signal().await;
        tracing::info!("shutting down");
        trigger.cancel();
    });
    let defaults = parlor_server::limits::Limits::default();
    let config = Config {
        store: match args.cluster {
            Some(url) => StoreConfig::Postgres {
                url,
                node: parlor_server::store::NodeSettings {
                    lease: std::time::Duration::from_millis(args.lease_ms),
                    advertise: args
                        .advertise
                        .unwrap_or_else(|| format!("{scheme}://{bound}")),
                },
            },
            None => StoreConfig::Sqlite {
                db: Some(args.db),
                sync: args.sync,
            },
        },
        limits: parlor_server::limits::Limits {
            max_connections: args.max_connections,
            max_rooms: args.max_rooms,
            rooms_per_address: args.rooms_per_address,
            analysis_positions: args.analysis_positions,
            accounts_per_address_hour: args.accounts_per_address_hour,
            rated_pair_cap: args.rated_pair_cap,
            upcoming_events_per_account: args.max_upcoming_events_per_account,
            events_per_address_day: args.max_events_per_address_per_day,
            ladder: parlor_server::limits::LadderSettings {
                enabled: !args.no_ladder,
                ..defaults.ladder
            },
            // The default policy, at the rate asked for (0: none).
            admission: defaults
                .admission
                .filter(|_| args.connects_per_address > 0.0)
                .map(|p| parlor_server::admission::AdmissionPolicy {
                    per_second: args.connects_per_address,
                    ..p
                }),
            ..defaults
        },
        bus: args.bus,
        metrics_bind: args.metrics_bind,
        shards: args
            .shards
            .map_or_else(parlor_server::shard::default_count, usize::from),
        tls,
        proxies: parlor_server::http::Proxies::new(args.behind_proxy),
        accounts: parlor_server::accounts::AccountSettings {
            insecure_passwords: args.insecure_passwords,
            allow_origins: args.allow_origin,
        },
    };
    match run(listener, config, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parlor-server: {e}");
            ExitCode::FAILURE
        }
    }
}
