//! The Postgres layout, and the migration step that creates or upgrades it.
//!
//! Layout 1 mirrors SQLite's layout 3 column for column (matches, seats,
//! moves; JSON kept as JSON) and adds what cluster mode's ownership needs:
//! a `nodes` registry (a lease per node, renewed with the database's
//! clock) and each match's `owner` and `epoch` (the fencing token a
//! takeover bumps). A single node leaves them empty (`owner` NULL, `epoch`
//! 1); leases, claims and fenced appends use them.
//!
//! Nodes starting together migrate one at a time (an advisory lock held by
//! the migration's transaction), and an interrupted migration leaves the
//! old layout as it was.

use tokio_postgres::Client;

use super::super::StoreError;

/// The layout this server writes, kept in `layout.version`.
pub const LAYOUT: i32 = 15;

/// Layout 1.
///
/// - `moves.action` and `clocks` are text, as SQLite keeps them: they are
///   written once per move and only ever read back whole, so Postgres
///   need not parse them on the hot path. Match-level JSON (options, clock,
///   outcome, deal) is `jsonb`, which lobby queries can look into.
/// - `(match_id, seq)` is the primary key of `moves`: a second step at one
///   position is refused whoever sends it.
/// - `matches_live` lists only unfinished matches (what a restore or a
///   claim reads), by owner, so it stays as small as the live rooms.
/// - `seats_token` finds a player's seats from their resume token.
const LAYOUT_1: &str = "
CREATE TABLE nodes (
    id text PRIMARY KEY,
    url text NOT NULL,
    lease_until timestamptz NOT NULL
);
CREATE TABLE matches (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    room text NOT NULL UNIQUE,
    game text NOT NULL,
    options jsonb NOT NULL,
    seats smallint NOT NULL,
    seed bigint NOT NULL,
    clock jsonb,
    private boolean NOT NULL,
    finished boolean NOT NULL DEFAULT false,
    outcome jsonb,
    closed jsonb,
    deal jsonb,
    creator uuid,
    creator_addr text,
    created_ms bigint,
    owner text REFERENCES nodes (id),
    epoch bigint NOT NULL DEFAULT 1
);
CREATE INDEX matches_live ON matches (owner, id) WHERE NOT finished;
CREATE TABLE seats (
    match_id bigint NOT NULL REFERENCES matches (id),
    seat smallint NOT NULL,
    kind text NOT NULL,
    token uuid,
    name text,
    strategy text,
    client_seed text,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX seats_token ON seats (token) WHERE token IS NOT NULL;
CREATE TABLE moves (
    match_id bigint NOT NULL REFERENCES matches (id),
    seq bigint NOT NULL,
    seat smallint NOT NULL,
    action text NOT NULL,
    clocks text,
    PRIMARY KEY (match_id, seq)
);
";

/// Layout 2: the lobby beside the log, so that every node lists every
/// room from the database, which outlives any node. Each public room's
/// owner keeps its summary here (`summary`, JSON, with the fields the
/// listing filters on beside it) at the epoch it holds the room.
///
/// A table of its own, not columns of `matches`: a listing written while
/// the writer's batch holds its `FOR SHARE` locks on `matches` rows would
/// take those rows' locks in another order and deadlock with it (measured:
/// a deadlock a second under load). No foreign key either, for the same
/// reason: a key check locks the match's row. Finished rooms are deleted
/// once they are no longer listed.
const LAYOUT_2: &str = "
CREATE TABLE lobby (
    match_id bigint PRIMARY KEY,
    room text NOT NULL,
    game text NOT NULL,
    status text NOT NULL,
    played boolean NOT NULL,
    epoch bigint NOT NULL,
    summary jsonb NOT NULL,
    listed_ms bigint NOT NULL
);
CREATE INDEX lobby_room ON lobby (room);
";

/// Layout 3: players with names, as in SQLite's layout 4 (`accounts`,
/// API `tokens`, browser `sessions`; secrets only as SHA-256 hex). Shared
/// by every node of a cluster, so an account logs in on any of them.
const LAYOUT_3: &str = "
CREATE TABLE accounts (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL,
    name_key text NOT NULL UNIQUE,
    kind text NOT NULL,
    password text NOT NULL,
    created_ms bigint NOT NULL
);
CREATE TABLE tokens (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account bigint NOT NULL REFERENCES accounts (id),
    hash text NOT NULL UNIQUE,
    label text NOT NULL,
    created_ms bigint NOT NULL,
    last_used_ms bigint
);
CREATE INDEX tokens_account ON tokens (account);
CREATE TABLE sessions (
    hash text PRIMARY KEY,
    account bigint NOT NULL REFERENCES accounts (id),
    expires_ms bigint NOT NULL
);
";

/// Layout 4, as SQLite's layout 5: which seats accounts hold
/// (`account_key`, the name's key, indexed for `my_games`), whether a
/// match is `rated`, and whose `turn` it is with its deadline (recorded
/// only for rooms with an account seat or a correspondence clock).
const LAYOUT_4: &str = "
ALTER TABLE matches ADD COLUMN rated boolean NOT NULL DEFAULT false;
ALTER TABLE matches ADD COLUMN turn jsonb;
ALTER TABLE seats ADD COLUMN account_key text;
CREATE INDEX seats_account ON seats (account_key) WHERE account_key IS NOT NULL;
";

/// Layout 5, as SQLite's layout 6: ratings per pool and account, the
/// public ledger (each line's JSON exactly as served and hashed), which
/// lines each account played in, and the ledger's head in a single row
/// that the transaction applying a rated end locks, so that nodes append
/// to one chain one at a time.
const LAYOUT_5: &str = "
CREATE TABLE ratings (
    pool text NOT NULL,
    account_key text NOT NULL,
    name text NOT NULL,
    rating double precision NOT NULL,
    rd double precision NOT NULL,
    vol double precision NOT NULL,
    games bigint NOT NULL,
    last_ms bigint NOT NULL,
    PRIMARY KEY (pool, account_key)
);
CREATE INDEX ratings_board ON ratings (pool, rating DESC);
CREATE TABLE ledger (
    n bigint PRIMARY KEY,
    room text NOT NULL UNIQUE,
    pool text NOT NULL,
    at_ms bigint NOT NULL,
    hash text NOT NULL,
    line text NOT NULL
);
CREATE INDEX ledger_pool ON ledger (pool, n);
CREATE TABLE ledger_seats (
    account_key text NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (account_key, n)
);
CREATE TABLE ledger_head (n bigint NOT NULL, hash text NOT NULL, at_ms bigint NOT NULL);
INSERT INTO ledger_head VALUES (0, repeat('0', 64), 0);
";

/// Layout 6, as SQLite's layout 7: tournaments, one row per event (its
/// state a JSON document changed by compare-and-set on `version`, and
/// the lease of the node running its rounds).
const LAYOUT_6: &str = "
CREATE TABLE events (
    id text PRIMARY KEY,
    status text NOT NULL,
    starts_at_ms bigint NOT NULL,
    created_ms bigint NOT NULL,
    version bigint NOT NULL,
    lease_node text,
    lease_until_ms bigint NOT NULL DEFAULT 0,
    doc text NOT NULL
);
CREATE INDEX events_due ON events (status, starts_at_ms);
";

/// Layout 7, as SQLite's layout 8: the bot ladder (built-in accounts,
/// each game's entrants and games, and the lease of the node pairing
/// each game's ladder).
const LAYOUT_7: &str = "
ALTER TABLE accounts ADD COLUMN builtin boolean NOT NULL DEFAULT false;
CREATE TABLE ladder_entries (
    game text NOT NULL,
    account_key text NOT NULL,
    name text NOT NULL,
    builtin boolean NOT NULL DEFAULT false,
    active boolean NOT NULL,
    entered_ms bigint NOT NULL,
    seen_ms bigint NOT NULL DEFAULT 0,
    games bigint NOT NULL DEFAULT 0,
    wins bigint NOT NULL DEFAULT 0,
    losses bigint NOT NULL DEFAULT 0,
    draws bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (game, account_key)
);
CREATE TABLE ladder_games (
    room text PRIMARY KEY,
    game text NOT NULL,
    seat0 text NOT NULL,
    seat1 text NOT NULL,
    strategies text NOT NULL,
    started_ms bigint NOT NULL,
    ended_ms bigint,
    result text
);
CREATE INDEX ladder_games_playing ON ladder_games (game) WHERE ended_ms IS NULL;
CREATE INDEX ladder_games_ended ON ladder_games (game, ended_ms);
CREATE INDEX ladder_games_started ON ladder_games (game, started_ms);
CREATE TABLE ladders (
    game text PRIMARY KEY,
    lease_node text,
    lease_until_ms bigint NOT NULL DEFAULT 0
);
";

/// Layout 8: cluster matchmaking's books (PostgreSQL only: a single node
/// keeps them in memory). Which nodes are alive (`mm_nodes`), which
/// account each connection acts as (`mm_presence`), the waiting seeks
/// (`mm_seeks`, each seeker's place written into its row when paired) and
/// the open challenges (`mm_challenges`); see `matchmaking::shared`.
///
/// UNLOGGED: they describe live connections, which do not outlive a
/// database crash either, so they need no WAL (a crash empties them, and
/// a node tells its seekers that their seek was lost). `IF NOT EXISTS`:
/// servers before this layout made the same tables at run time, so a
/// cluster's database may have them already.
const LAYOUT_8: &str = "
CREATE UNLOGGED TABLE IF NOT EXISTS mm_nodes (
    gw text PRIMARY KEY,
    alive_until_ms bigint NOT NULL
);
CREATE UNLOGGED TABLE IF NOT EXISTS mm_presence (
    gw text NOT NULL,
    conn bigint NOT NULL,
    account text NOT NULL,
    PRIMARY KEY (gw, conn)
);
CREATE INDEX IF NOT EXISTS mm_presence_account ON mm_presence (account);
CREATE UNLOGGED TABLE IF NOT EXISTS mm_seeks (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    gw text NOT NULL,
    conn bigint NOT NULL,
    account text,
    addr text NOT NULL,
    body text NOT NULL,
    placed text
);
CREATE UNLOGGED TABLE IF NOT EXISTS mm_challenges (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    gw text NOT NULL,
    conn bigint NOT NULL,
    from_key text NOT NULL,
    to_key text NOT NULL,
    expires_ms bigint NOT NULL,
    body text NOT NULL
);
";

/// Layout 9, as SQLite's: device cookies (`devices`), kept as their
/// SHA-256 hex and bound to an account.
const LAYOUT_9: &str = "
CREATE TABLE devices (
    hash text PRIMARY KEY,
    account bigint NOT NULL REFERENCES accounts (id),
    created_ms bigint NOT NULL
);
CREATE INDEX devices_account ON devices (account, created_ms);
";

/// Layout 10, as SQLite's layout 10: who made each event and from where
/// (the event caps count them), and the rated matches each account let
/// be aborted by never moving (the rated cooldown counts them).
const LAYOUT_10: &str = "
ALTER TABLE events ADD COLUMN creator_key text;
ALTER TABLE events ADD COLUMN creator_addr text;
CREATE INDEX events_creator ON events (creator_key, status);
CREATE INDEX events_creator_addr ON events (creator_addr, created_ms);
CREATE TABLE rated_aborts (
    account_key text NOT NULL,
    at_ms bigint NOT NULL,
    room text NOT NULL,
    PRIMARY KEY (account_key, at_ms, room)
);
";

/// Layout 11, as SQLite's layout 11: moderation (roles and standing on
/// the accounts, the moderation log, reports, blocks, and each rated
/// match's fair-play counts per human account).
const LAYOUT_11: &str = "
ALTER TABLE accounts ADD COLUMN role text NOT NULL DEFAULT 'player';
ALTER TABLE accounts ADD COLUMN closed_ms bigint;
ALTER TABLE accounts ADD COLUMN mark text;
ALTER TABLE accounts ADD COLUMN muted_until_ms bigint;
ALTER TABLE accounts ADD COLUMN playban_until_ms bigint;
CREATE TABLE mod_log (
    id bigserial PRIMARY KEY,
    at_ms bigint NOT NULL,
    moderator text NOT NULL,
    action text NOT NULL,
    account_key text,
    account text,
    room text,
    reason text NOT NULL,
    text text NOT NULL,
    detail text
);
CREATE INDEX mod_log_account ON mod_log (account_key, id);
CREATE TABLE reports (
    id bigserial PRIMARY KEY,
    at_ms bigint NOT NULL,
    reporter_key text NOT NULL,
    reporter text NOT NULL,
    player_key text NOT NULL,
    player text NOT NULL,
    reason text NOT NULL,
    room text,
    text text NOT NULL,
    resolved_ms bigint,
    resolved_by text,
    resolution text
);
CREATE INDEX reports_open ON reports (id) WHERE resolved_ms IS NULL;
CREATE INDEX reports_reporter ON reports (reporter_key, at_ms);
CREATE TABLE blocks (
    account_key text NOT NULL,
    blocked_key text NOT NULL,
    blocked text NOT NULL,
    at_ms bigint NOT NULL,
    PRIMARY KEY (account_key, blocked_key)
);
CREATE INDEX blocks_blocked ON blocks (blocked_key);
CREATE TABLE fairplay_games (
    room text NOT NULL,
    account_key text NOT NULL,
    name text NOT NULL,
    pool text NOT NULL,
    at_ms bigint NOT NULL,
    choices bigint NOT NULL,
    agreed bigint NOT NULL,
    PRIMARY KEY (room, account_key)
);
CREATE INDEX fairplay_pool ON fairplay_games (pool, account_key);
";

/// Layout 12, as SQLite's layout 12: each room's chat.
const LAYOUT_12: &str = "
CREATE TABLE chat (
    room text NOT NULL,
    id bigint NOT NULL,
    at_ms bigint NOT NULL,
    name text NOT NULL,
    account_key text,
    channel text NOT NULL,
    text text NOT NULL,
    PRIMARY KEY (room, id)
);
";

/// Layout 13, as SQLite's layout 13: whom each account follows.
const LAYOUT_13: &str = "
CREATE TABLE follows (
    account_key text NOT NULL,
    followed_key text NOT NULL,
    followed text NOT NULL,
    at_ms bigint NOT NULL,
    PRIMARY KEY (account_key, followed_key)
);
";

/// Layout 14 (PostgreSQL only, as layout 8): matchmaking's books survive
/// a database crash truthfully. A crash empties the UNLOGGED tables, and
/// nobody was told: so their ids come from one logged sequence (an id
/// never comes back after a crash, where an identity of an unlogged table
/// may start again at 1 and an old seek or challenge would be mistaken
/// for a new one), and `mm_epoch` holds one row naming the books' current
/// life: a node that finds a new epoch knows the books were emptied (its
/// players' presence is written again, its challengers told their
/// challenges were lost).
const LAYOUT_14: &str = "
CREATE SEQUENCE IF NOT EXISTS mm_ids;
SELECT setval('mm_ids', greatest(
    (SELECT coalesce(max(id), 0) FROM mm_seeks),
    (SELECT coalesce(max(id), 0) FROM mm_challenges)) + 1);
ALTER TABLE mm_seeks ALTER COLUMN id DROP IDENTITY IF EXISTS;
ALTER TABLE mm_seeks ALTER COLUMN id SET DEFAULT nextval('mm_ids');
ALTER TABLE mm_challenges ALTER COLUMN id DROP IDENTITY IF EXISTS;
ALTER TABLE mm_challenges ALTER COLUMN id SET DEFAULT nextval('mm_ids');
CREATE UNLOGGED TABLE IF NOT EXISTS mm_epoch (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    epoch text NOT NULL
);
";

/// Layout 15, as SQLite's layout 14: each tournament's chat.
const LAYOUT_15: &str = "
CREATE TABLE event_chat (
    event text NOT NULL,
    id bigint NOT NULL,
    at_ms bigint NOT NULL,
    speaker_key text NOT NULL,
    name text NOT NULL,
    text text NOT NULL,
    phrase text,
    PRIMARY KEY (event, id)
);
CREATE INDEX event_chat_speaker ON event_chat (speaker_key, at_ms);
";

/// Each layout's step from the one before, in order: `STEPS[n]` brings
/// layout `n` to `n + 1` (layout 0: an empty schema). A new table or
/// column is a new step at the end (and [`LAYOUT`] one more).
const STEPS: &[&str] = &[
    LAYOUT_1, LAYOUT_2, LAYOUT_3, LAYOUT_4, LAYOUT_5, LAYOUT_6, LAYOUT_7, LAYOUT_8, LAYOUT_9,
    LAYOUT_10, LAYOUT_11, LAYOUT_12, LAYOUT_13, LAYOUT_14, LAYOUT_15,
];

// Every layout has its step.
const _: () = assert!(STEPS.len() as i32 == LAYOUT);

/// Brings `schema` to [`LAYOUT`]: creates it and its tables if missing,
/// runs the steps from its layout, refuses a newer one. `schema` is a
/// checked name (see `connect`), and the connection's search path.
pub(super) async fn prepare(client: &mut Client, schema: &str) -> Result<(), StoreError> {
    let tx = client.transaction().await?;
    // Serialises nodes migrating the same schema; released with the
    // transaction.
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext('parlor layout ' || $1::text))",
        &[&schema],
    )
    .await?;
    tx.batch_execute(&format!(
        "CREATE SCHEMA IF NOT EXISTS {schema};
         CREATE TABLE IF NOT EXISTS layout (version integer NOT NULL);"
    ))
    .await?;
    let version: i32 = match tx.query_opt("SELECT version FROM layout", &[]).await? {
        Some(row) => row.try_get(0)?,
        None => {
            tx.execute("INSERT INTO layout (version) VALUES (0)", &[])
                .await?;
            0
        }
    };
    if version > LAYOUT {
        return Err(StoreError::Corrupt(format!(
            "the database has layout {version}, newer than this server's {LAYOUT}; use a newer server"
        )));
    }
    let from =
        usize::try_from(version).map_err(|_| StoreError::Corrupt(format!("layout {version}")))?;
    for (i, step) in STEPS.iter().enumerate().skip(from) {
        tracing::info!(schema, layout = i + 1, "migrating the database");
        tx.batch_execute(step).await?;
    }
    if version != LAYOUT {
        tx.execute("UPDATE layout SET version = $1", &[&LAYOUT])
            .await?;
    }
    tx.commit().await?;
    Ok(())
}
