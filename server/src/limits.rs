//! Every limit the server enforces on its clients, with the reason for its
//! value: the caps and timeouts a client meets, the admission policy, and
//! the settings an operator may change ([`Limits`]). Internal tuning (the
//! store's batches, pools and WAL, the lease's renewals, the bus's queues,
//! the shards' sampling) lives next to the code it tunes.

use std::time::Duration;

/// Largest frame or message a client may send. The biggest legitimate
/// request is an analysis input (a Rummikub position is a few KiB); 64 KiB
/// leaves ample room while capping what one frame can make us parse.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;

/// Most simultaneous connections. Each idle connection costs a few KiB
/// (see `websocket`), so 20,000 fit comfortably in memory while
/// keeping file descriptors below common `ulimit -n` settings.
pub const MAX_CONNECTIONS: usize = 20_000;

/// Most rooms hosted at once: a room actor is a task plus its game state,
/// well under 100 KiB; 20,000 bounds memory and listing cost.
pub const MAX_ROOMS: usize = 20_000;

/// Unfinished rooms one player (resume token) may have created: enough
/// for any real use (a few tables at once), and it keeps one client from
/// exhausting [`MAX_ROOMS`] for everyone.
pub const MAX_OPEN_ROOMS_PER_CREATOR: usize = 16;

/// Unfinished rooms created from one client address (IPv6 by /64) at
/// once: a club behind one address hosts a few tables, while the
/// per-token cap alone let three connections fill the room cap. Set by
/// `--rooms-per-address`; 0 turns it off (behind a reverse proxy).
pub const MAX_OPEN_ROOMS_PER_ADDRESS: usize = 32;

/// A room that has not started (every seat taken) within this closes:
/// long enough to invite a friend, short enough that abandoned tables do
/// not pile up against the caps.
pub const UNSTARTED_ROOM_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// A started room whose seated players have all been gone this long
/// closes without a result: a dropped player has ample time to resume,
/// and a match nobody will finish does not hold memory for ever. A room
/// of bots alone closes the same way once nobody has watched it this
/// long: a bot match nobody follows must not run for ever (a game whose
/// bots can repeat positions) or pile up against the caps.
pub const ABANDONED_ROOM_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// Messages per second a connection may send on average. A person makes a
/// few moves a minute and a fast bot a few hundred moves a second in a
/// closed loop; this refuses only floods.
pub const MESSAGES_PER_SECOND: u32 = 500;

/// Messages a connection may send in a burst above the average rate. A
/// client has at most a few requests in flight; every message of a burst
/// is fully handled, so a large burst was measured to be what a
/// reconnecting flooder costs the server (it was 1,000).
pub const MESSAGE_BURST: u32 = 100;

/// Refused (rate-limited) messages within one second after which the
/// connection is closed: a client that keeps flooding after being told is
/// not going to stop.
pub const MAX_REFUSED_PER_SECOND: u32 = 50;

/// Seeks one connection may make a minute on average, not counting those
/// that end in a match (their token is given back). A seek and its cancel
/// are each a write where the whole cluster pairs, and a seek wakes a
/// pairing round; a person seeks a few times a minute and a bot once a
/// game, so this refuses only a churn of seeks and cancels, in memory,
/// before it costs the database anything.
pub const SEEKS_PER_MINUTE: u32 = 60;

/// Seeks a connection may make at once above that rate: a player trying
/// several games' seeks, or changing their mind a few times.
pub const SEEK_BURST: u32 = 20;

/// New connections one client address may open per second on average
/// (see `admission`). A person opens one; a household or a club behind
/// one address a few; a client reconnecting in a loop is slowed to this.
pub const CONNECTS_PER_SECOND_PER_ADDRESS: f64 = 16.0;

/// New connections one client address may open at once above that rate:
/// a club sitting down together, or a bot runner starting its bots.
pub const CONNECT_BURST_PER_ADDRESS: f64 = 64.0;

/// How long an address is turned away after one of its connections was
/// closed for flooding: without it a flooder reconnects at once, and its
/// handshakes and bursts cost as much as the flood.
pub const FLOOD_COOLDOWN: Duration = Duration::from_secs(10);

/// Client addresses whose connection rate is tracked at once. Entries
/// whose bucket has refilled are dropped when the books fill; a few MiB at
/// most.
pub const MAX_TRACKED_ADDRESSES: usize = 65_536;

/// Connections the kernel queues before `accept` takes them. The
/// standard 128 overflowed when 1,000 clients connected at once (63
/// listen overflows measured), and each overflowed client waits a second
/// to retry; the kernel caps this at `net.core.somaxconn`.
pub const LISTEN_BACKLOG: u32 = 1024;

/// How long `/healthz` keeps answering 503 after a newcomer was turned
/// away for want of a connection slot. Slots held by slow clients free
/// up and fill again within moments, so a check that looked only at the
/// free slots would see "ok" between refusals; load balancers poll every
/// few seconds, and this covers two such polls.
pub const FULL_REPORTED_FOR: Duration = Duration::from_secs(10);

/// How long the server waits for a turned-away client to take its HTTP
/// answer before closing the socket.
pub const TURN_AWAY_LINGER: Duration = Duration::from_millis(200);

/// Turned-away connections answered at once; beyond, they are closed
/// without an answer. Each holds a socket for up to [`TURN_AWAY_LINGER`]:
/// a burst of attempts must not use up the file descriptors players need.
pub const MAX_TURN_AWAYS: usize = 256;

/// How long an accept loop (the game port's, the operations port's) waits
/// after `accept` failed (out of file descriptors, say) before trying
/// again: a failing accept returns at once, and retrying at once would
/// spin a core while nothing can be accepted anyway.
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// How long a new connection has to complete the WebSocket handshake and
/// send `hello`: long enough for any real client, short enough that
/// half-open connections cannot pile up.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// How often the server pings each connection. Clients' WebSocket stacks
/// answer pings by themselves, so a live but quiet player never idles out.
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);

/// A connection from which nothing (not even a pong) arrived for this long
/// is dead or hostile and is closed: three missed keepalives.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(100);

/// Messages queued for one connection before it counts as too slow and is
/// closed: a client that cannot keep up must not make the server buffer
/// without bound. A game produces at most a few messages per move.
pub const OUTBOX_CAPACITY: usize = 256;

/// Bytes queued for one connection before it counts as too slow and is
/// closed. Counting frames alone let two clients that never read, each
/// asking for 300 large room lists, push the server from 70 MB to 500 MB;
/// 1 MiB is hundreds of updates, far more than a reading client lags.
pub const MAX_QUEUED_BYTES: usize = 1024 * 1024;

/// How long a write to a connection may take (its socket full) before
/// the client counts as not reading at all and is closed.
pub const OUTBOX_STALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Commands queued for one room. Each connection has at most a few in
/// flight; beyond this the room is overloaded and new requests are refused
/// with `server/busy`.
pub const ROOM_INBOX_CAPACITY: usize = 1_024;

/// Longest list of legal moves sent with an update. Larger lists (Nimrod
/// with huge piles) are left out; clients compute them from the view.
pub const MAX_LEGAL_SENT: usize = 512;

/// How long a finished room stays open so that requests already on their
/// way (a last move, a `leave`) get their proper answer; then it is closed
/// and its memory freed. The log stays in the store, which serves
/// `get_log`. Measured: at 800 games/s a 5-minute linger kept ~80 MB of
/// finished rooms alive; 30 s keeps a tenth of that.
pub const FINISHED_ROOM_LINGER: Duration = Duration::from_secs(30);

/// How long a finished match stays in the lobby's listing (status
/// `finished`) after its room closed: long enough for people to find last
/// hour's games to replay, and checked against [`MAX_LISTED_FINISHED`].
pub const FINISHED_LISTED_FOR: Duration = Duration::from_secs(3600);

/// Most finished matches kept listed after their rooms closed: a summary
/// is a few hundred bytes, so this bounds the listing's memory at about a
/// megabyte however many games a busy hour ends.
pub const MAX_LISTED_FINISHED: usize = 4_096;

/// Finished rooms kept lingering at most; beyond, the oldest closes at
/// once (as does the oldest when [`MAX_ROOMS`] is reached). At two
/// thousand games a second the linger alone kept 60,000 finished rooms and
/// 180 MB, and finished rooms took the room cap from new games.
pub const MAX_LINGERING_ROOMS: usize = 4_096;

/// Longest clock a room may have: a day per move or per game is already far
/// beyond turn-based play; the bound keeps deadline arithmetic safe.
pub const MAX_CLOCK_MS: u64 = 24 * 60 * 60 * 1000;

/// Longest correspondence clock, in days per move: two weeks covers a
/// holiday away from the board, as correspondence sites allow; beyond it a
/// game mostly stalls (and holds its players' room caps) for nothing.
pub const MAX_DAYS_PER_MOVE: u8 = 14;

/// Most games one `my_games` answer lists (the newest first): more than a
/// person plays at once, and it bounds one read of the store.
pub const MAX_GAMES_LISTED: usize = 200;

/// Most results one `analyze` reply carries; the rest are cut and the
/// reply says `truncated` (the CLI streams without this limit).
pub const MAX_ANALYSIS_RESULTS: usize = 1_000;

/// Most bytes of results one `analyze` reply carries: it must fit well
/// within a client's frame limit and the connection's byte budget
/// (`MAX_QUEUED_BYTES`).
pub const MAX_ANALYSIS_REPLY_BYTES: usize = 256 * 1024;

/// Most positions an analysis searches for one request (Rummikub's
/// `predict` visits about a million a second here): a few seconds of one
/// core at most; bigger deals are for the CLI, which has no limit.
pub const MAX_ANALYSIS_POSITIONS: usize = 3_000_000;

/// Most bytes one analysis's tables may hold (memo tables, levels of
/// positions, lists being built), counted at their peak while they grow
/// (old and new table alive while one doubles). With the thread, the
/// input and the reply, an analysis in flight then stays under 64 MiB of
/// resident memory (see the README's hostile table), so the two heavy
/// places and the quick ones cannot push a small host into the kernel's
/// out-of-memory killer. 56 rather than 48: a Mitsudomoe `perft` to depth
/// 4 (182,255 positions of 128 bytes) still fits. A request whose size
/// predicts more is refused (`analysis/too_large`) before the work; a memo
/// that fills up forgets positions (answers stay exact) and the position
/// budget bounds the time.
pub const MAX_ANALYSIS_MEMORY_BYTES: usize = 56 << 20;

/// Heavy analyses running at once: they are CPU-bound and run on blocking
/// threads; two keep the game rooms responsive on a small machine.
pub const MAX_CONCURRENT_ANALYSES: usize = 2;

/// Positions every analysis may first search in the quick lane. Almost
/// every request (a best move, a score, a small prediction) finishes
/// within it in a few milliseconds, so small requests never queue behind
/// big ones; a request that needs more starts again in the heavy lane.
pub const QUICK_ANALYSIS_POSITIONS: usize = 20_000;

/// Quick-lane analyses running at once (each takes milliseconds; a
/// request waits for a place rather than being refused).
pub const QUICK_ANALYSES: usize = 2;

/// Analyses one connection may have running at once: one, so that no
/// client can take every heavy place for itself.
pub const ANALYSES_PER_CONNECTION: usize = 1;

/// How long a closed connection's socket is still read (and what comes
/// discarded) before it is dropped: a socket closed with unread input
/// is reset, which can destroy the close frame and replies sent just
/// before. A client that answers the close is let go at once.
pub const CLOSE_LINGER: Duration = Duration::from_secs(1);

/// Longest display name kept from `hello`.
pub const MAX_NAME_CHARS: usize = 32;

/// How long a closed session waits for its writer task to send what is
/// queued (the last error and the close frame) before the writer is
/// aborted: a client that never reads its socket would otherwise keep the
/// writer, its socket and its queue alive for ever.
pub const WRITER_DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// How a client address may connect.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdmissionPolicy {
    /// New connections per second an address may open on average.
    pub per_second: f64,
    /// New connections an address may open at once above the average.
    pub burst: f64,
    /// How long an address whose connection was closed for flooding is
    /// refused.
    pub flood_cooldown: Duration,
}

// Accounts: what guessing passwords and minting accounts may cost.

/// Accounts one address may create an hour unless
/// `--accounts-per-address-hour` says otherwise: a household or a club
/// behind one address registers a few; a script minting names to squat
/// or to spam challenges is held to this.
pub const ACCOUNTS_PER_ADDRESS_HOUR: usize = 10;

/// The window failed logins are counted in: long enough that guessing
/// stays slow, short enough that the real owner who mistyped is let in
/// again soon (a window, never a lockout).
pub const LOGIN_FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Failed logins one address may make in [`LOGIN_FAILURE_WINDOW`]: a
/// person mistypes a few times; 20 leaves room for a shared address.
pub const LOGIN_FAILURES_PER_ADDRESS: u32 = 20;

/// Failed logins against one account name in [`LOGIN_FAILURE_WINDOW`],
/// whatever the address: bounds guessing spread over many addresses,
/// while the owner is kept out for one window at most.
pub const LOGIN_FAILURES_PER_NAME: u32 = 10;

/// Failed logins one device (a login's `parlor_device` cookie, for the
/// account it was issued to) may make in [`LOGIN_FAILURE_WINDOW`]. A
/// login presenting a valid device cookie is counted here alone, not
/// against its name or address, so that strangers' failures never keep
/// the owner out; a stolen cookie guesses no faster than a name is
/// guessed ([`LOGIN_FAILURES_PER_NAME`]).
pub const LOGIN_FAILURES_PER_DEVICE: u32 = 10;

/// Argon2id hashes computed at once. Each takes 19 MiB and tens of
/// milliseconds of a core; two keep a 2-core host's shards playing while
/// logins are hashed.
pub const MAX_CONCURRENT_HASHES: usize = 2;

/// Password checks waiting for a hashing slot before more are refused
/// with `server/busy`: a burst of logins waits a fraction of a second; a
/// flood is refused rather than queued without end.
pub const MAX_QUEUED_HASHES: usize = 32;

/// Addresses and names whose recent failures or creations are
/// remembered; past this the oldest windows are dropped first, so a
/// flood of addresses cannot grow the memory without bound.
pub const MAX_TRACKED_KEYS: usize = 100_000;

/// Ladder games a bot plays at once: two keep it busy while one game
/// waits on the other side's clock, without burying a slow bot in games
/// it then loses on time.
pub const LADDER_MAX_GAMES: u32 = 2;

/// Ladder games an anchor (a built-in bot, run by the server) plays at
/// once: it faces every newcomer, so it takes more games than an entrant,
/// bounded so that the anchors' thinking cannot crowd out the rooms.
pub const LADDER_ANCHOR_MAX_GAMES: u32 = 8;

/// Ladder games one pair plays in a UTC day: ten games against each of a
/// few opponents settle a new bot's rating within a day, and no pair of
/// bots fills the ledger with one match-up.
pub const LADDER_DAILY_CAP: u32 = 10;

/// How often the ladder pairs: a bot that finishes a game is given the
/// next within about this long, at a handful of queries a tick.
pub const LADDER_TICK: Duration = Duration::from_secs(2);

/// The ladder's settings ([`LADDER_MAX_GAMES`], [`LADDER_ANCHOR_MAX_GAMES`],
/// [`LADDER_DAILY_CAP`], [`LADDER_TICK`] by default); tests set small
/// bounds and a fast tick, benches switch it off (`--no-ladder`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LadderSettings {
    /// Whether this node pairs ladder games at all.
    pub enabled: bool,
    /// Games an entered bot plays at once.
    pub max_games: u32,
    /// Games an anchor plays at once.
    pub anchor_max_games: u32,
    /// Games a pair plays in a UTC day.
    pub daily_cap: u32,
    /// How often the ladder pairs.
    pub tick: Duration,
}

impl Default for LadderSettings {
    fn default() -> Self {
        LadderSettings {
            enabled: true,
            max_games: LADDER_MAX_GAMES,
            anchor_max_games: LADDER_ANCHOR_MAX_GAMES,
            daily_cap: LADDER_DAILY_CAP,
            tick: LADDER_TICK,
        }
    }
}

/// Rated results between the same two accounts that count in any 24
/// hours (`fair_play::RATED_PAIR_WINDOW_MS`): enough for a real rivalry's
/// evening, too few for two puppets to lift a third's rating far (12
/// resigned games took one from 1500 to 1918).
pub const RATED_PAIR_CAP: u64 = 5;

/// Upcoming tournaments one account may have made at once: enough for a
/// club's week of events, too few to fill the lobby's list with spam.
pub const MAX_UPCOMING_EVENTS_PER_ACCOUNT: usize = 3;

/// Tournaments one client address may create in 24 hours: a handful of
/// organisers behind one address, not a script making accounts to make
/// events.
pub const MAX_EVENTS_PER_ADDRESS_PER_DAY: usize = 10;

/// The limits one server instance runs with: the constants above by
/// default; tests and benchmarks set smaller ones through
/// [`crate::Config::limits`] (for example a short idle timeout) so that
/// nothing has to wait for the production values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Most simultaneous connections ([`MAX_CONNECTIONS`]).
    pub max_connections: usize,
    /// Most rooms hosted at once ([`MAX_ROOMS`]).
    pub max_rooms: usize,
    /// Unfinished rooms per client address ([`MAX_OPEN_ROOMS_PER_ADDRESS`]; 0: no cap).
    pub rooms_per_address: usize,
    /// How long a room may wait to start ([`UNSTARTED_ROOM_TIMEOUT`]).
    pub unstarted_room_timeout: Duration,
    /// How long a started room's players may all be gone ([`ABANDONED_ROOM_TIMEOUT`]).
    pub abandoned_room_timeout: Duration,
    /// Time to finish the WebSocket handshake and send `hello` ([`HELLO_TIMEOUT`]).
    pub hello_timeout: Duration,
    /// Time between keepalive pings ([`KEEPALIVE_INTERVAL`]).
    pub keepalive_interval: Duration,
    /// Silence after which a connection is closed ([`IDLE_TIMEOUT`]).
    pub idle_timeout: Duration,
    /// How long a write may wait for the client to read before it counts
    /// as not reading ([`OUTBOX_STALL_TIMEOUT`]).
    pub outbox_stall_timeout: Duration,
    /// How long a closing connection's writer may take to send what is
    /// left ([`WRITER_DRAIN_TIMEOUT`]).
    pub writer_drain_timeout: Duration,
    /// How long `/healthz` reports a newcomer turned away at the
    /// connection cap ([`FULL_REPORTED_FOR`]).
    pub full_reported_for: Duration,
    /// How fast one address may connect ([`CONNECTS_PER_SECOND_PER_ADDRESS`],
    /// [`CONNECT_BURST_PER_ADDRESS`], [`FLOOD_COOLDOWN`]); `None`: no
    /// per-address limit.
    pub admission: Option<AdmissionPolicy>,
    /// Most positions one analysis may search ([`MAX_ANALYSIS_POSITIONS`]).
    pub analysis_positions: usize,
    /// Accounts one address may create an hour
    /// ([`ACCOUNTS_PER_ADDRESS_HOUR`]; 0: no cap).
    pub accounts_per_address_hour: usize,
    /// The bot ladder's bounds and tick.
    pub ladder: LadderSettings,
    /// Rated results two accounts may have together in 24 hours
    /// ([`RATED_PAIR_CAP`]; 0: no cap).
    pub rated_pair_cap: u64,
    /// Upcoming tournaments per account
    /// ([`MAX_UPCOMING_EVENTS_PER_ACCOUNT`]; 0: no cap).
    pub upcoming_events_per_account: usize,
    /// Tournaments created per address in 24 hours
    /// ([`MAX_EVENTS_PER_ADDRESS_PER_DAY`]; 0: no cap).
    pub events_per_address_day: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: MAX_CONNECTIONS,
            max_rooms: MAX_ROOMS,
            rooms_per_address: MAX_OPEN_ROOMS_PER_ADDRESS,
            unstarted_room_timeout: UNSTARTED_ROOM_TIMEOUT,
            abandoned_room_timeout: ABANDONED_ROOM_TIMEOUT,
            hello_timeout: HELLO_TIMEOUT,
            keepalive_interval: KEEPALIVE_INTERVAL,
            idle_timeout: IDLE_TIMEOUT,
            outbox_stall_timeout: OUTBOX_STALL_TIMEOUT,
            analysis_positions: MAX_ANALYSIS_POSITIONS,
            writer_drain_timeout: WRITER_DRAIN_TIMEOUT,
            full_reported_for: FULL_REPORTED_FOR,
            admission: Some(AdmissionPolicy {
                per_second: CONNECTS_PER_SECOND_PER_ADDRESS,
                burst: CONNECT_BURST_PER_ADDRESS,
                flood_cooldown: FLOOD_COOLDOWN,
            }),
            accounts_per_address_hour: ACCOUNTS_PER_ADDRESS_HOUR,
            ladder: LadderSettings::default(),
            rated_pair_cap: RATED_PAIR_CAP,
            upcoming_events_per_account: MAX_UPCOMING_EVENTS_PER_ACCOUNT,
            events_per_address_day: MAX_EVENTS_PER_ADDRESS_PER_DAY,
        }
    }
}

// Cluster mode: the lease an operator may set (`--lease-ms`).

/// How long a node's rooms stay its own without a renewal of its lease,
/// unless `--lease-ms` says otherwise: after a node's crash its rooms wait
/// this long to be claimed, so shorter is a shorter pause; but a node
/// whose renewals are held up this long (a stalled disk, a network blip)
/// loses its rooms, so it must be well above such hiccups.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(5);
