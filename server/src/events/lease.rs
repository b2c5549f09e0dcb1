//! Leases on rows: which node runs an event's rounds, or pairs a game's
//! ladder. A lease is two columns of the row (`lease_node`,
//! `lease_until_ms`); a node takes it if nobody holds it, it holds it
//! already, or the holder's has run out, in one conditional update, so
//! two nodes asking at once cannot both get it.

use rusqlite::params;

use crate::store::{Beside, StoreError};

/// A table with a lease per row, keyed by one text column.
#[derive(Clone, Copy, Debug)]
pub struct LeasedTable {
    /// The table (a constant of the code, never input).
    pub table: &'static str,
    /// Its key column.
    pub key: &'static str,
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
        let (id, node) = (id.to_owned(), node.to_owned());
        let now = i64::try_from(now_ms).unwrap_or(i64::MAX);
        let until = i64::try_from(until_ms).unwrap_or(i64::MAX);
        let (table, key) = (self.table, self.key);
        let n = match db {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.execute(
                        &format!(
                        "UPDATE {table} SET lease_node = ?1, lease_until_ms = ?2 WHERE {key} = ?3 \
                             AND (lease_node IS NULL OR lease_node = ?1 OR lease_until_ms < ?4)"
                    ),
                        params![node, until, id, now],
                    )
                })
                .await?
            }
            Beside::Postgres(pool) => {
                let n = Beside::pg_client(pool)
                    .await?
                    .execute(
                        &format!(
                            "UPDATE {table} SET lease_node = $1, lease_until_ms = $2 WHERE {key} = $3 \
                             AND (lease_node IS NULL OR lease_node = $1 OR lease_until_ms < $4)"
                        ),
                        &[&node, &until, &id, &now],
                    )
                    .await?;
                usize::try_from(n).unwrap_or(0)
            }
        };
        Ok(n == 1)
    }

    /// Gives up every lease `node` holds in the table (it is stopping:
    /// another node need not wait for them to run out).
    pub async fn release_all(self, db: &Beside, node: &str) -> Result<(), StoreError> {
        let node = node.to_owned();
        let table = self.table;
        match db {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    c.execute(
                        &format!("UPDATE {table} SET lease_node = NULL, lease_until_ms = 0 WHERE lease_node = ?1"),
                        params![node],
                    )
                })
                .await?;
            }
            Beside::Postgres(pool) => {
                Beside::pg_client(pool)
                    .await?
                    .execute(
                        &format!("UPDATE {table} SET lease_node = NULL, lease_until_ms = 0 WHERE lease_node = $1"),
                        &[&node],
                    )
                    .await?;
            }
        }
        Ok(())
    }
}
