//! Leases on rows: which node runs an event's rounds, or pairs a game's
//! ladder. A lease is two columns of the row (`lease_node`,
//! `lease_until_ms`); a node takes it if nobody holds it, it holds it
//! already, or the holder's has run out, in one conditional update, so
//! two nodes asking at once cannot both get it.

use crate::store::{Arg, Beside, StoreError};

/// A table with a lease per row, keyed by one text column.
#[derive(Clone, Copy, Debug)]
pub struct LeasedTable {
    /// The table (a constant of the code, never input).
    pub table: &'static str,
    /// Its key column.
    pub key: &'static str,
}

/// A time in ms since the epoch as the tables keep it.
fn ms(n: u64) -> Arg {
    Arg::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

impl LeasedTable {
    /// Takes (or keeps) the lease on row `id` for `node` until `until_ms`,
    /// unless another node holds one past `now_ms`; whether `node` holds
    /// it now.
    pub async fn take(
        self,
        db: &Beside,
        id: &str,
        node: &str,
        now_ms: u64,
        until_ms: u64,
    ) -> Result<bool, StoreError> {
        let (table, key) = (self.table, self.key);
        let n = db
            .exec(
                format!(
                    "UPDATE {table} SET lease_node = $1, lease_until_ms = $2 WHERE {key} = $3 \
                     AND (lease_node IS NULL OR lease_node = $1 OR lease_until_ms < $4)"
                ),
                vec![
                    Arg::Text(node.to_owned()),
                    ms(until_ms),
                    Arg::Text(id.to_owned()),
                    ms(now_ms),
                ],
            )
            .await?;
        Ok(n == 1)
    }

    /// Gives up every lease `node` holds in the table (it is stopping:
    /// another node need not wait for them to run out).
    pub async fn release_all(self, db: &Beside, node: &str) -> Result<(), StoreError> {
        let table = self.table;
        db.exec(
            format!(
                "UPDATE {table} SET lease_node = NULL, lease_until_ms = 0 WHERE lease_node = $1"
            ),
            vec![Arg::Text(node.to_owned())],
        )
        .await
        .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]

    use std::sync::{Arc, Mutex};

    use rusqlite::Connection;

    use super::*;

    const TABLE: LeasedTable = LeasedTable {
        table: "things",
        key: "id",
    };

    fn db() -> Beside {
        let conn = Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        conn.execute_batch(
            "CREATE TABLE things (id TEXT PRIMARY KEY, lease_node TEXT, lease_until_ms INTEGER NOT NULL DEFAULT 0);
             INSERT INTO things (id) VALUES ('a'), ('b');",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        Beside::Sqlite(Arc::new(Mutex::new(conn)))
    }

    async fn take(db: &Beside, id: &str, node: &str, now: u64) -> bool {
        TABLE
            .take(db, id, node, now, now + 10_000)
            .await
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[tokio::test]
    async fn one_node_holds_a_lease_until_it_runs_out_or_is_given_up() {
        let db = db();
        assert!(take(&db, "a", "n1", 1_000).await);
        assert!(take(&db, "b", "n1", 1_000).await);
        // Held: another node waits; the holder renews.
        assert!(!take(&db, "a", "n2", 5_000).await);
        assert!(take(&db, "a", "n1", 5_000).await);
        // Run out: another node takes it.
        assert!(take(&db, "a", "n2", 15_001).await);
        assert!(!take(&db, "a", "n1", 15_002).await);
        // Given up: taken at once, and only the leaver's.
        TABLE
            .release_all(&db, "n1")
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(take(&db, "b", "n3", 1_001).await);
        assert!(!take(&db, "a", "n3", 15_003).await, "n2's lease stands");
    }
}
