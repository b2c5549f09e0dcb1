//! The database layout, and the migration from earlier layouts.
//!
//! Layout 9 adds device cookies (`devices`): a login's long-lived
//! cookie, kept as its SHA-256 hex and bound to its account, so that
//! failed logins from that browser or CLI are counted apart from
//! strangers' (see `accounts::device`).
//!
//! Layout 10 bounds abuse: who made each event and from where (its
//! caps), and the rated matches each account let be aborted
//! (`rated_aborts`, for the rated cooldown).
//!
//! Layout 8 adds the bot ladder: accounts marked `builtin` (the server's
//! own bots, which nobody signs in as), each game's entrants
//! (`ladder_entries`, with their ladder record and when a node last saw
//! them connected), its games (`ladder_games`) and which node pairs each
//! game's ladder (`ladders`, a lease as tournaments have).
//!
//! Layout 7 adds tournaments: `events`, one row per event holding its
//! whole state as a JSON document with a version (changed by
//! compare-and-set) and the lease of the node running it (see `schedule::LeasedTable`).
//!
//! Layout 6 adds ratings: each account's rating per pool (`ratings`),
//! the public ledger of rated matches (`ledger`, one line per match, its
//! JSON kept exactly as served and hashed), and which ledger lines each
//! account played in (`ledger_seats`, for its page). All three change only
//! in the transaction that records a rated match's end.
//!
//! Layout 5 remembers which seats accounts hold (`seats.account_key`, the
//! name's key, indexed for `my_games`), whether a match is `rated`, and
//! whose `turn` it is with its deadline (recorded only for rooms with an
//! account seat or a correspondence clock; see `store::Turn`).
//!
//! Layout 4 adds players with names: `accounts`, their API `tokens` and
//! browser `sessions` (secrets kept only as SHA-256 hex; see
//! `accounts::store`). They sit in the same file as the match log, so one
//! backup holds both.
//!
//! Layout 3 adds what outlives a restart beyond the moves: why a match
//! closed without an outcome (`closed`; such a match is `finished` and
//! never restored), its provably fair deal (`deal`, and each seat's
//! `client_seed`), and who made it when (`creator`, `creator_addr`,
//! `created_ms`), which the caps and room lifetimes count.
//!
//! Layout 2 keys seats and moves by a match's integer id, which grows with
//! every new match. Live matches are the newest, so their moves land in
//! the last few pages of the `moves` b-tree: a commit of moves from a
//! hundred rooms writes a handful of pages. Layout 1 keyed them by the
//! random room id, which scattered every commit over the whole table; the
//! write-ahead log grew by a page per move and checkpoints copied most of
//! the table.

use rusqlite::{Connection, OptionalExtension};

use super::StoreError;

/// The layout this server writes, kept in `PRAGMA user_version`.
pub const LAYOUT: i64 = 14;

/// Layout 2, with layout 3's columns (a new file starts at layout 3).
/// `seats` and `moves` are `WITHOUT ROWID`: keyed by their
/// primary key alone, an insert updates one b-tree, not a table and an
/// index. The partial index lists only unfinished matches (what a restart
/// restores), so it stays as small as the number of live rooms.
const TABLES: &str = "
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,
    room TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    seats INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    clock TEXT,
    private INTEGER NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    outcome TEXT,
    closed TEXT,
    deal TEXT,
    creator TEXT,
    creator_addr TEXT,
    created_ms INTEGER
);
CREATE INDEX matches_unfinished ON matches (id) WHERE finished = 0;
CREATE TABLE seats (
    match_id INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    token TEXT,
    name TEXT,
    strategy TEXT,
    client_seed TEXT,
    PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
CREATE TABLE moves (
    match_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    clocks TEXT,
    PRIMARY KEY (match_id, seq)
) WITHOUT ROWID;
";

/// Layout 1 (before `user_version` was set) to layout 2: the old tables
/// are renamed, copied into the new ones in match order, then dropped.
const FROM_LAYOUT_1: &str = "
DROP INDEX IF EXISTS matches_unfinished;
ALTER TABLE matches RENAME TO matches_v1;
ALTER TABLE seats RENAME TO seats_v1;
ALTER TABLE moves RENAME TO moves_v1;
";

const COPY_LAYOUT_1: &str = "
INSERT INTO matches (room, game, options, seats, seed, clock, private, finished, outcome)
    SELECT room, game, options, seats, seed, clock, private, finished, outcome
    FROM matches_v1 ORDER BY rowid;
INSERT INTO seats (match_id, seat, kind, token, name, strategy)
    SELECT m.id, s.seat, s.kind, s.token, s.name, s.strategy
    FROM seats_v1 s JOIN matches m ON m.room = s.room;
INSERT INTO moves (match_id, seq, seat, action, clocks)
    SELECT m.id, v.seq, v.seat, v.action, v.clocks
    FROM moves_v1 v JOIN matches m ON m.room = v.room;
DROP TABLE moves_v1;
DROP TABLE seats_v1;
DROP TABLE matches_v1;
";

/// Layout 2 to layout 3: new columns only, all empty for old matches.
const FROM_LAYOUT_2: &str = "
ALTER TABLE matches ADD COLUMN closed TEXT;
ALTER TABLE matches ADD COLUMN deal TEXT;
ALTER TABLE matches ADD COLUMN creator TEXT;
ALTER TABLE matches ADD COLUMN creator_addr TEXT;
ALTER TABLE matches ADD COLUMN created_ms INTEGER;
ALTER TABLE seats ADD COLUMN client_seed TEXT;
";

/// Layout 3 to layout 4: the account tables.
const ACCOUNTS: &str = "
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    password TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE TABLE tokens (
    id INTEGER PRIMARY KEY,
    account INTEGER NOT NULL REFERENCES accounts (id),
    hash TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    last_used_ms INTEGER
);
CREATE INDEX tokens_account ON tokens (account);
CREATE TABLE sessions (
    hash TEXT PRIMARY KEY,
    account INTEGER NOT NULL REFERENCES accounts (id),
    expires_ms INTEGER NOT NULL
);
";

/// Layout 4 to layout 5: new columns,
/// empty or false for old rows, and the index `my_games` reads by.
const FROM_LAYOUT_4: &str = "
ALTER TABLE matches ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN turn TEXT;
ALTER TABLE seats ADD COLUMN account_key TEXT;
CREATE INDEX seats_account ON seats (account_key) WHERE account_key IS NOT NULL;
";

/// Layout 5 to layout 6: the ratings.
/// Ratings are `REAL`, which keeps an `f64` exactly, so the stored ratings
/// equal the ledger's fold bit for bit. The leaderboard reads a pool by
/// rating (`ratings_board`); a player's page reads their lines newest
/// first (`ledger_seats`).
const RATINGS: &str = "
CREATE TABLE ratings (
    pool TEXT NOT NULL,
    account_key TEXT NOT NULL,
    name TEXT NOT NULL,
    rating REAL NOT NULL,
    rd REAL NOT NULL,
    vol REAL NOT NULL,
    games INTEGER NOT NULL,
    last_ms INTEGER NOT NULL,
    PRIMARY KEY (pool, account_key)
) WITHOUT ROWID;
CREATE INDEX ratings_board ON ratings (pool, rating DESC);
CREATE TABLE ledger (
    n INTEGER PRIMARY KEY,
    room TEXT NOT NULL UNIQUE,
    pool TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    hash TEXT NOT NULL,
    line TEXT NOT NULL
);
CREATE INDEX ledger_pool ON ledger (pool, n);
CREATE TABLE ledger_seats (
    account_key TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (account_key, n)
) WITHOUT ROWID;
";

/// Layout 6 to layout 7: the events. Upcoming and running events are
/// found by status and start (`events_due`), the scheduler's one query.
const EVENTS: &str = "
CREATE TABLE events (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    starts_at_ms INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    version INTEGER NOT NULL,
    lease_node TEXT,
    lease_until_ms INTEGER NOT NULL DEFAULT 0,
    doc TEXT NOT NULL
);
CREATE INDEX events_due ON events (status, starts_at_ms);
";

/// Layout 7 to layout 8: the bot ladder. Games being played are found
/// by a partial index (the scheduler's query each tick); finished ones by
/// game and end (the page's recent games), begun ones by game and start
/// (the day's games per pair).
const LADDER: &str = "
ALTER TABLE accounts ADD COLUMN builtin INTEGER NOT NULL DEFAULT 0;
CREATE TABLE ladder_entries (
    game TEXT NOT NULL,
    account_key TEXT NOT NULL,
    name TEXT NOT NULL,
    builtin INTEGER NOT NULL DEFAULT 0,
    active INTEGER NOT NULL,
    entered_ms INTEGER NOT NULL,
    seen_ms INTEGER NOT NULL DEFAULT 0,
    games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game, account_key)
);
CREATE TABLE ladder_games (
    room TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    seat0 TEXT NOT NULL,
    seat1 TEXT NOT NULL,
    strategies TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    ended_ms INTEGER,
    result TEXT
);
CREATE INDEX ladder_games_playing ON ladder_games (game) WHERE ended_ms IS NULL;
CREATE INDEX ladder_games_ended ON ladder_games (game, ended_ms);
CREATE INDEX ladder_games_started ON ladder_games (game, started_ms);
CREATE TABLE ladders (
    game TEXT PRIMARY KEY,
    lease_node TEXT,
    lease_until_ms INTEGER NOT NULL DEFAULT 0
);
";

/// Layout 8 to 9: device cookies, by hash, and by account (to bound how
/// many one account keeps and to end them with it).
const DEVICES: &str = "
CREATE TABLE devices (
    hash TEXT PRIMARY KEY,
    account INTEGER NOT NULL REFERENCES accounts (id),
    created_ms INTEGER NOT NULL
);
CREATE INDEX devices_account ON devices (account, created_ms);
";

/// Layout 9 to layout 10: what bounds abuse. Who made each event and
/// from which address (`creator_key`, `creator_addr`: the caps on
/// upcoming events per account and events per address a day count
/// them), and each rated match an account let be aborted by never moving
/// (`rated_aborts`, counted per account over a window for the cooldown).
const ABUSE: &str = "
ALTER TABLE events ADD COLUMN creator_key TEXT;
ALTER TABLE events ADD COLUMN creator_addr TEXT;
CREATE INDEX events_creator ON events (creator_key, status);
CREATE INDEX events_creator_addr ON events (creator_addr, created_ms);
CREATE TABLE rated_aborts (
    account_key TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    room TEXT NOT NULL,
    PRIMARY KEY (account_key, at_ms, room)
) WITHOUT ROWID;
";

/// Layout 10 to layout 11: moderation. Each account's role and standing
/// (closed since, a fair-play mark, mute and play-ban ends); the
/// moderation log (append-only, read newest first and per account); the
/// players' reports (the open ones are the moderators' queue; a
/// reporter's recent ones bound floods); blocks, both ways (whom I block,
/// who blocks me); and each rated match's fair-play counts per human
/// account (choices with a real alternative, and how many agreed with
/// the engine), kept per match so that a match is counted once.
const MODERATION: &str = "
ALTER TABLE accounts ADD COLUMN role TEXT NOT NULL DEFAULT 'player';
ALTER TABLE accounts ADD COLUMN closed_ms INTEGER;
ALTER TABLE accounts ADD COLUMN mark TEXT;
ALTER TABLE accounts ADD COLUMN muted_until_ms INTEGER;
ALTER TABLE accounts ADD COLUMN playban_until_ms INTEGER;
CREATE TABLE mod_log (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    moderator TEXT NOT NULL,
    action TEXT NOT NULL,
    account_key TEXT,
    account TEXT,
    room TEXT,
    reason TEXT NOT NULL,
    text TEXT NOT NULL,
    detail TEXT
);
CREATE INDEX mod_log_account ON mod_log (account_key, id);
CREATE TABLE reports (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    reporter_key TEXT NOT NULL,
    reporter TEXT NOT NULL,
    player_key TEXT NOT NULL,
    player TEXT NOT NULL,
    reason TEXT NOT NULL,
    room TEXT,
    text TEXT NOT NULL,
    resolved_ms INTEGER,
    resolved_by TEXT,
    resolution TEXT
);
CREATE INDEX reports_open ON reports (id) WHERE resolved_ms IS NULL;
CREATE INDEX reports_reporter ON reports (reporter_key, at_ms);
CREATE TABLE blocks (
    account_key TEXT NOT NULL,
    blocked_key TEXT NOT NULL,
    blocked TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (account_key, blocked_key)
) WITHOUT ROWID;
CREATE INDEX blocks_blocked ON blocks (blocked_key);
CREATE TABLE fairplay_games (
    room TEXT NOT NULL,
    account_key TEXT NOT NULL,
    name TEXT NOT NULL,
    pool TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    choices INTEGER NOT NULL,
    agreed INTEGER NOT NULL,
    PRIMARY KEY (room, account_key)
) WITHOUT ROWID;
CREATE INDEX fairplay_pool ON fairplay_games (pool, account_key);
";

/// Layout 12: each room's chat, kept with its match (the players' shown
/// with the log after the end, the spectators' kept for moderators).
const CHAT: &str = "
CREATE TABLE chat (
    room TEXT NOT NULL,
    id INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    name TEXT NOT NULL,
    account_key TEXT,
    channel TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (room, id)
) WITHOUT ROWID;
";

/// Layout 13: whom each account follows.
const FOLLOWS: &str = "
CREATE TABLE follows (
    account_key TEXT NOT NULL,
    followed_key TEXT NOT NULL,
    followed TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (account_key, followed_key)
) WITHOUT ROWID;
";

/// Layout 14: each tournament's chat (`event_chat`), by event and
/// message id, with the speaker's account key (for blocks and the rate,
/// counted per account over every event: `event_chat_speaker`).
const EVENT_CHAT: &str = "
CREATE TABLE event_chat (
    event TEXT NOT NULL,
    id INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    speaker_key TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    phrase TEXT,
    PRIMARY KEY (event, id)
) WITHOUT ROWID;
CREATE INDEX event_chat_speaker ON event_chat (speaker_key, at_ms);
";

/// The steps from layout 3 on, in order: `STEPS[i]` brings layout
/// `FIRST_STEPPED + i` to the next. A new table or column is a new step
/// at the end (and [`LAYOUT`] one more). Layouts before 3 are first
/// brought to 3 by [`to_layout_3`]: a new file starts there.
const STEPS: &[&str] = &[
    ACCOUNTS,
    FROM_LAYOUT_4,
    RATINGS,
    EVENTS,
    LADDER,
    DEVICES,
    ABUSE,
    MODERATION,
    CHAT,
    FOLLOWS,
    EVENT_CHAT,
];

/// The layout [`STEPS`] starts from.
const FIRST_STEPPED: i64 = 3;

// Every layout has its step.
const _: () = assert!(FIRST_STEPPED + STEPS.len() as i64 == LAYOUT);

/// Brings the database to [`LAYOUT`]: creates the tables in a new file,
/// migrates an older layout (all in one transaction, so an interrupted
/// migration leaves the old layout intact), refuses a newer one.
pub fn prepare(conn: &mut Connection) -> Result<(), StoreError> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version == LAYOUT {
        return Ok(());
    }
    if version > LAYOUT {
        return Err(StoreError::Corrupt(format!(
            "the database has layout {version}, newer than this server's {LAYOUT}; use a newer server"
        )));
    }
    let tx = conn.transaction()?;
    let has_tables = tx
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'matches'",
            [],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    // Layout 1 kept no version: a file with tables and none is layout 1.
    let from = match (has_tables, version) {
        (false, _) => None,
        (true, v) => Some(v.max(1)),
    };
    if let Some(from) = from {
        tracing::info!("migrating the database from layout {from} to {LAYOUT}");
    }
    let from = to_layout_3(&tx, from)?;
    let first = usize::try_from(from - FIRST_STEPPED)
        .map_err(|_| StoreError::Corrupt(format!("layout {from}")))?;
    for step in STEPS.iter().skip(first) {
        tx.execute_batch(step)?;
    }
    tx.pragma_update(None, "user_version", LAYOUT)?;
    tx.commit()?;
    Ok(())
}

/// Brings a database of layout `from` (`None`: a new file) to layout 3,
/// or leaves a later one as it is; the layout it is at then.
fn to_layout_3(tx: &rusqlite::Transaction<'_>, from: Option<i64>) -> Result<i64, StoreError> {
    match from {
        None => tx.execute_batch(TABLES)?,
        Some(1) => {
            tx.execute_batch(FROM_LAYOUT_1)?;
            tx.execute_batch(TABLES)?;
            tx.execute_batch(COPY_LAYOUT_1)?;
        }
        Some(2) => tx.execute_batch(FROM_LAYOUT_2)?,
        Some(later) => return Ok(later),
    }
    Ok(FIRST_STEPPED)
}
