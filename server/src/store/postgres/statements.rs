//! The writer's SQL, prepared once per connection: a batch then sends
//! only bind-and-execute messages, and (being prepared) every statement
//! can be pipelined behind the others (see `batch`).
//!
//! JSON travels as text and is cast in SQL (`$n::text::jsonb`), so the
//! rows are encoded by the same code as SQLite's (`rows`).

use tokio_postgres::{Client, Error, Statement};

/// Every statement the writer runs.
#[derive(Debug)]
pub(super) struct Statements {
    pub begin: Statement,
    pub commit: Statement,
    pub rollback: Statement,
    pub savepoint: Statement,
    pub release: Statement,
    pub rollback_to: Statement,
    pub create: Statement,
    pub seat_player: Statement,
    pub seat_bot: Statement,
    pub seat_clear: Statement,
    pub append: Statement,
    pub finish: Statement,
    pub close: Statement,
    pub turn: Statement,
}

impl Statements {
    /// Prepares them all on `client`, in one round of pipelined requests.
    pub(super) async fn prepare(client: &Client) -> Result<Statements, Error> {
        let (begin, commit, rollback, savepoint, release, rollback_to) = tokio::try_join!(
            client.prepare("BEGIN"),
            client.prepare("COMMIT"),
            client.prepare("ROLLBACK"),
            client.prepare("SAVEPOINT job"),
            client.prepare("RELEASE SAVEPOINT job"),
            client.prepare("ROLLBACK TO SAVEPOINT job"),
        )?;
        // Every write to an existing match is guarded: it happens only if
        // the match is still this node's at the writer's epoch ($owner,
        // $epoch, the last two parameters), and returns one row if so, none
        // if the match was taken over (see `claim`). The guard's row lock
        // (`FOR SHARE`) waits for a claim in progress and re-reads the row.
        let (create, seat_player, seat_bot, seat_clear, append, finish, close, turn) = tokio::try_join!(
            client.prepare(
                "INSERT INTO matches (room, game, options, seats, seed, clock, private, deal, \
                 creator, creator_addr, created_ms, owner, rated) \
                 VALUES ($1, $2, $3::text::jsonb, $4, $5, $6::text::jsonb, $7, $8::text::jsonb, \
                 $9::text::uuid, $10, $11, $12, $13) RETURNING id"
            ),
            client.prepare(
                "WITH ok AS (SELECT id FROM matches WHERE id = $1 AND owner = $6 AND epoch = $7 \
                 FOR SHARE) \
                 INSERT INTO seats (match_id, seat, kind, token, name, strategy, client_seed, \
                 account_key) \
                 SELECT id, $2, 'player', $3::text::uuid, $4, NULL, $5, $8 FROM ok \
                 ON CONFLICT (match_id, seat) DO UPDATE SET kind = excluded.kind, \
                 token = excluded.token, name = excluded.name, strategy = excluded.strategy, \
                 client_seed = excluded.client_seed, account_key = excluded.account_key \
                 RETURNING match_id"
            ),
            // A bot seat: an anchor's is filed under its account's key,
            // the name in lower case (names are ASCII), as `account_key` has it.
            client.prepare(
                "WITH ok AS (SELECT id FROM matches WHERE id = $1 AND owner = $4 AND epoch = $5 \
                 FOR SHARE) \
                 INSERT INTO seats (match_id, seat, kind, token, name, strategy, client_seed, \
                 account_key) \
                 SELECT id, $2, 'bot', NULL, $6, $3, NULL, lower($6) FROM ok \
                 ON CONFLICT (match_id, seat) DO UPDATE SET kind = excluded.kind, \
                 token = excluded.token, name = excluded.name, strategy = excluded.strategy, \
                 client_seed = excluded.client_seed, account_key = excluded.account_key \
                 RETURNING match_id"
            ),
            client.prepare(
                "WITH ok AS (SELECT id FROM matches WHERE id = $1 AND owner = $3 AND epoch = $4 \
                 FOR SHARE), \
                 gone AS (DELETE FROM seats WHERE match_id IN (SELECT id FROM ok) AND seat = $2) \
                 SELECT id FROM ok"
            ),
            client.prepare(
                "WITH ok AS (SELECT id FROM matches WHERE id = $1 AND owner = $6 AND epoch = $7 \
                 FOR SHARE) \
                 INSERT INTO moves (match_id, seq, seat, action, clocks) \
                 SELECT id, $2, $3, $4, $5 FROM ok RETURNING match_id"
            ),
            client.prepare(
                "UPDATE matches SET finished = true, outcome = $2::text::jsonb \
                 WHERE id = $1 AND owner = $3 AND epoch = $4 RETURNING id"
            ),
            client.prepare(
                "UPDATE matches SET finished = true, closed = $2::text::jsonb \
                 WHERE id = $1 AND owner = $3 AND epoch = $4 RETURNING id"
            ),
            client.prepare(
                "UPDATE matches SET turn = $2::text::jsonb \
                 WHERE id = $1 AND owner = $3 AND epoch = $4 RETURNING id"
            ),
        )?;
        Ok(Statements {
            begin,
            commit,
            rollback,
            savepoint,
            release,
            rollback_to,
            create,
            seat_player,
            seat_bot,
            seat_clear,
            append,
            finish,
            close,
            turn,
        })
    }
}
