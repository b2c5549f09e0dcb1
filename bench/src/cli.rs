//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::log_readers;
use crate::placement::Placement;

/// Drives bot games through a Parlor server over the real protocol and
/// prints one JSON line of figures (medians over `--reps`).
#[derive(Clone, Debug, Parser)]
#[command(name = "parlor-bench", version)]
pub struct Args {
    /// A helper process (the bare relay baseline); not for direct use.
    #[command(subcommand)]
    pub helper: Option<Helper>,
    /// What to measure.
    #[arg(long, value_enum, default_value_t = Mode::Closed)]
    pub mode: Mode,
    /// Rooms played at once (listing mode: public rooms created).
    #[arg(long, default_value_t = 100)]
    pub rooms: usize,
    /// Spectator connections per room (besides its two players): they
    /// receive every update, so they count as delivered frames.
    #[arg(long, default_value_t = 0)]
    pub spectators: usize,
    /// Paced mode: each room makes one move per this many milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub think_ms: u64,
    /// Seconds of load before measuring.
    #[arg(long, default_value_t = 3)]
    pub warmup_s: u64,
    /// Seconds measured.
    #[arg(long, default_value_t = 10)]
    pub measure_s: u64,
    /// Repetitions; the figures printed are medians.
    #[arg(long, default_value_t = 1)]
    pub reps: usize,
    /// Seed for the bots' choices (room `i` uses `seed + i`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Nimrod options for each room (JSON).
    #[arg(long, default_value = r#"{"piles":[21,34]}"#)]
    pub options: String,
    /// Target this running server instead of starting one (no server CPU
    /// or memory figures then, and no baseline).
    #[arg(long)]
    pub server: Option<String>,
    /// Target these running nodes of one cluster instead of starting
    /// any (comma-separated `ws://` URLs). On loopback their processes
    /// are found by their listening ports, for CPU figures; their
    /// `/metrics` are read before and after the measured window.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["server", "nodes"])]
    pub servers: Vec<String>,
    /// Start this many `parlor-server` nodes, each with every
    /// `--server-arg` (e.g. `--cluster` and `--bus`); `{run}` is the same
    /// for every node of one repetition, so that they share a schema.
    #[arg(long, default_value_t = 1, conflicts_with = "server")]
    pub nodes: usize,
    /// Which node each client connects to, with several.
    #[arg(long, value_enum, default_value_t = Placement::Random)]
    pub placement: Placement,
    /// The PostgreSQL database the nodes use, for its statistics
    /// (`pg_stat_database`, `pg_stat_user_tables` of the nodes' schema)
    /// and to find the backends serving them (default: the `--cluster`
    /// among the `--server-arg`s).
    #[arg(long, value_name = "URL")]
    pub postgres: Option<String>,
    /// The Redis the nodes' bus uses, to count `redis-server`'s CPU
    /// (default: the `--bus` among the `--server-arg`s).
    #[arg(long, value_name = "URL")]
    pub redis: Option<String>,
    /// The `parlor-server` binary (default: next to this one).
    #[arg(long)]
    pub server_bin: Option<PathBuf>,
    /// An argument for each `parlor-server` the tool starts (repeat for
    /// several): e.g. `--server-arg=--cluster --server-arg=URL` to run it on
    /// PostgreSQL, where `{run}` in an argument becomes a name unique to
    /// each start, so that every repetition gets a fresh schema
    /// (`?options=-c%20search_path%3Dbench_{run}`). `--db` is passed only
    /// when `--cluster` is not.
    #[arg(long, allow_hyphen_values = true)]
    pub server_arg: Vec<String>,
    /// Also measure the CPU of every process whose command line contains
    /// this (e.g. the database's name, for the Postgres backends serving
    /// the server), reported as `also_cpu_*`.
    #[arg(long)]
    pub cpu_also: Option<String>,
    /// Skip the bare-relay baseline.
    #[arg(long)]
    pub no_baseline: bool,
    /// Extra connections that flood the server with messages while the
    /// rooms play (to see whether one bad client hurts the others).
    #[arg(long, default_value_t = 0)]
    pub flooders: usize,
    /// Idle mode: connections opened (each says hello, then waits).
    /// Handshakes mode: TCP connections that never send a byte.
    #[arg(long, default_value_t = 10_000)]
    pub connections: usize,
    /// Connections opened at once while setting up.
    #[arg(long, default_value_t = 64)]
    pub connect_concurrency: usize,
    /// Arena mode: the arena's length in minutes.
    #[arg(long, default_value_t = 1)]
    pub arena_minutes: u32,
    /// Matchmaking mode: seeks sent per second, over all seekers.
    #[arg(long, default_value_t = 500)]
    pub seek_rate: u64,
    /// Listing mode: `list_rooms` pages asked for at random cursors.
    #[arg(long, default_value_t = 200)]
    pub page_samples: usize,
    /// Hostile-readers mode: clients that never read.
    #[arg(long, default_value_t = 10)]
    pub clients: usize,
    /// Hostile-readers mode: `list_rooms` requests each client sends.
    #[arg(long, default_value_t = 300)]
    pub requests: usize,
    /// Hostile-readers mode: about how long the requests are spread over,
    /// in milliseconds (longer if the rate limit needs it).
    #[arg(long, default_value_t = 4000)]
    pub send_ms: u64,
    /// Hostile-readers mode: when the clients start reading, in
    /// milliseconds after their last burst (default: the server's stall
    /// timeout plus a second, once the server has judged them; never
    /// before the figures taken 2 s after the sending phase).
    #[arg(long)]
    pub read_after_ms: Option<u64>,
    /// Hostile-readers mode: public rooms present, so that every page is
    /// full.
    #[arg(long, default_value_t = 5000)]
    pub background_rooms: usize,
    /// Closed and paced modes: connections that keep asking for the log
    /// of one long finished match (`get_log`) through the warm-up and the
    /// measured window, beside the rooms (0: none). Not against the relay.
    #[arg(long, default_value_t = 0)]
    pub log_readers: usize,
    /// Moves of the match whose log the readers ask for (played to its
    /// end before each repetition's load).
    #[arg(long, default_value_t = log_readers::DEFAULT_STEPS)]
    pub log_steps: u64,
    /// Each log reader's pause between a reply and its next request, in
    /// milliseconds.
    #[arg(long, default_value_t = log_readers::DEFAULT_EVERY_MS)]
    pub log_every_ms: u64,
}

/// What to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Each room has one move in flight: the most moves per second.
    Closed,
    /// Each room moves once per `--think-ms`: latency at a set load.
    Paced,
    /// Connections that say hello and sit: memory per connection.
    Idle,
    /// `list_rooms` with `--rooms` public rooms: page time and size, a
    /// walk through every page, a filtered scan, memory per room.
    Listing,
    /// Clients that request large room lists and never read them: the
    /// server's memory, how it ends them, a player's games meanwhile.
    HostileReaders,
    /// SIGTERM to exit with `--connections` connections stuck before the
    /// handshake (and a few without `hello`), against none.
    Handshakes,
    /// `--connections` players seek a Nimrod game at `--seek-rate` a
    /// second (over `--nodes`): the time from `seek` to `matched`.
    Matchmaking,
    /// `--connections` bot accounts play one Nimrod arena of
    /// `--arena-minutes`: games per minute and the move latency.
    Arena,
}

impl Mode {
    /// The name given on the command line.
    pub fn name(self) -> String {
        self.to_possible_value()
            .map_or_else(|| format!("{self:?}"), |v| v.get_name().to_owned())
    }
}

/// Helper processes started by the tool itself.
#[derive(Clone, Debug, Subcommand)]
pub enum Helper {
    /// Run the bare WebSocket relay baseline.
    Relay {
        /// Where to write the bound address.
        #[arg(long)]
        port_file: PathBuf,
        /// Moves after which a relayed game ends (match Parlor's average).
        #[arg(long, default_value_t = 20)]
        game_len: u64,
    },
}
