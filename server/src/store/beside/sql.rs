//! One spelling of a statement for both databases: SQL is written with
//! PostgreSQL's `$N` placeholders (rewritten to SQLite's `?N`), arguments
//! and columns are a handful of plain kinds, so each statement on the
//! tables beside the log is written once rather than once per backend.

use std::borrow::Cow;

use rusqlite::types::Value as Lite;
use tokio_postgres::types::ToSql;

use super::{Beside, Row};
use crate::store::StoreError;

/// An argument of a statement.
#[derive(Clone, Debug)]
pub enum Arg {
    /// An integer (`bigint`).
    Int(i64),
    /// Text.
    Text(String),
    /// A boolean (SQLite keeps it as 0 or 1).
    Bool(bool),
    /// An integer or null (`bigint`).
    OptInt(Option<i64>),
    /// Text or null.
    OptText(Option<String>),
}

impl From<i64> for Arg {
    fn from(n: i64) -> Arg {
        Arg::Int(n)
    }
}

impl From<bool> for Arg {
    fn from(b: bool) -> Arg {
        Arg::Bool(b)
    }
}

impl From<String> for Arg {
    fn from(t: String) -> Arg {
        Arg::Text(t)
    }
}

impl From<&str> for Arg {
    fn from(t: &str) -> Arg {
        Arg::Text(t.to_owned())
    }
}

impl From<Option<i64>> for Arg {
    fn from(n: Option<i64>) -> Arg {
        Arg::OptInt(n)
    }
}

impl From<Option<String>> for Arg {
    fn from(t: Option<String>) -> Arg {
        Arg::OptText(t)
    }
}

impl From<Option<&str>> for Arg {
    fn from(t: Option<&str>) -> Arg {
        Arg::OptText(t.map(str::to_owned))
    }
}

/// A column as read, by the kind its query asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum Col {
    /// An integer, or null.
    Int(Option<i64>),
    /// Text, or null.
    Text(Option<String>),
    /// A boolean.
    Bool(bool),
}

/// The kind of a column to read.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// `bigint` (or null).
    Int,
    /// `text` (or null).
    Text,
    /// `boolean`.
    Bool,
}

impl Col {
    /// The integer (0 for null).
    pub fn int(&self) -> i64 {
        match self {
            Col::Int(Some(n)) => *n,
            _ => 0,
        }
    }

    /// The integer, if not null.
    pub fn opt_int(&self) -> Option<i64> {
        match self {
            Col::Int(n) => *n,
            _ => None,
        }
    }

    /// The text (empty for null).
    pub fn text(&self) -> String {
        self.opt_text().unwrap_or_default()
    }

    /// The text, if not null.
    pub fn opt_text(&self) -> Option<String> {
        match self {
            Col::Text(t) => t.clone(),
            _ => None,
        }
    }

    /// The boolean.
    pub fn bool(&self) -> bool {
        matches!(self, Col::Bool(true))
    }
}

/// `sql` with `$N` placeholders as SQLite's `?N`.
fn lite_sql(sql: &str) -> String {
    sql.replace('$', "?")
}

fn lite_args(args: &[Arg]) -> Vec<Lite> {
    args.iter()
        .map(|a| match a {
            Arg::Int(n) => Lite::Integer(*n),
            Arg::Text(t) => Lite::Text(t.clone()),
            Arg::Bool(b) => Lite::Integer(i64::from(*b)),
            Arg::OptInt(n) => n.map_or(Lite::Null, Lite::Integer),
            Arg::OptText(t) => t.clone().map_or(Lite::Null, Lite::Text),
        })
        .collect()
}

/// The arguments, boxed for tokio-postgres.
pub(crate) fn pg_args(args: &[Arg]) -> Vec<Box<dyn ToSql + Sync + Send>> {
    args.iter()
        .map(|a| -> Box<dyn ToSql + Sync + Send> {
            match a {
                Arg::Int(n) => Box::new(*n),
                Arg::Text(t) => Box::new(t.clone()),
                Arg::Bool(b) => Box::new(*b),
                Arg::OptInt(n) => Box::new(*n),
                Arg::OptText(t) => Box::new(t.clone()),
            }
        })
        .collect()
}

/// The arguments as tokio-postgres takes them.
pub(crate) fn pg_refs(boxed: &[Box<dyn ToSql + Sync + Send>]) -> Vec<&(dyn ToSql + Sync)> {
    boxed
        .iter()
        .map(|b| b.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

fn lite_col(r: &rusqlite::Row<'_>, i: usize, kind: Kind) -> rusqlite::Result<Col> {
    Ok(match kind {
        Kind::Int => Col::Int(r.get(i)?),
        Kind::Text => Col::Text(r.get(i)?),
        Kind::Bool => Col::Bool(r.get::<_, i64>(i)? != 0),
    })
}

fn pg_col(r: &tokio_postgres::Row, i: usize, kind: Kind) -> Result<Col, tokio_postgres::Error> {
    Ok(match kind {
        Kind::Int => Col::Int(r.try_get(i)?),
        Kind::Text => Col::Text(r.try_get(i)?),
        Kind::Bool => Col::Bool(r.try_get(i)?),
    })
}

impl Beside {
    /// Runs statement `sql` with `args`; the rows it changed.
    pub async fn exec(
        &self,
        sql: impl Into<Cow<'static, str>>,
        args: Vec<Arg>,
    ) -> Result<u64, StoreError> {
        let sql = sql.into();
        match self {
            Beside::Sqlite(conn) => {
                let n = Beside::on_sqlite(conn, move |c| {
                    c.execute(
                        &lite_sql(&sql),
                        rusqlite::params_from_iter(lite_args(&args)),
                    )
                })
                .await?;
                Ok(u64::try_from(n).unwrap_or(0))
            }
            Beside::Postgres(pool) => {
                let boxed = pg_args(&args);
                let refs = pg_refs(&boxed);
                Ok(Beside::pg_client(pool).await?.execute(&*sql, &refs).await?)
            }
        }
    }

    /// Runs query `sql` with `args`; its rows, each column read as `kinds`
    /// says.
    pub async fn query(
        &self,
        sql: impl Into<Cow<'static, str>>,
        args: Vec<Arg>,
        kinds: &'static [Kind],
    ) -> Result<Vec<Vec<Col>>, StoreError> {
        self.rows_of(
            sql.into(),
            args,
            move |r| {
                kinds
                    .iter()
                    .enumerate()
                    .map(|(i, k)| lite_col(r, i, *k))
                    .collect()
            },
            move |r| {
                kinds
                    .iter()
                    .enumerate()
                    .map(|(i, k)| pg_col(r, i, *k).map_err(StoreError::from))
                    .collect()
            },
        )
        .await
    }

    /// Runs query `sql` (a `SELECT`, or a change with `RETURNING`) with
    /// `args`; its rows.
    pub async fn fetch(
        &self,
        sql: impl Into<Cow<'static, str>>,
        args: Vec<Arg>,
    ) -> Result<Vec<Row>, StoreError> {
        self.rows_of(sql.into(), args, Row::from_sqlite, Row::from_postgres)
            .await
    }

    /// Runs query `sql` with `args`; its rows, each read by `lite` or `pg`
    /// (whichever database answered).
    async fn rows_of<T: Send + 'static>(
        &self,
        sql: Cow<'static, str>,
        args: Vec<Arg>,
        lite: impl Fn(&rusqlite::Row<'_>) -> rusqlite::Result<T> + Send + 'static,
        pg: impl Fn(&tokio_postgres::Row) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        match self {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    let mut st = c.prepare(&lite_sql(&sql))?;
                    let rows = st.query_map(rusqlite::params_from_iter(lite_args(&args)), lite)?;
                    rows.collect()
                })
                .await
            }
            Beside::Postgres(pool) => {
                let boxed = pg_args(&args);
                let refs = pg_refs(&boxed);
                let rows = Beside::pg_client(pool).await?.query(&*sql, &refs).await?;
                rows.iter().map(pg).collect()
            }
        }
    }

    /// [`Beside::fetch`] for a statement answering one row at most: that
    /// row, if any.
    pub async fn fetch_opt(
        &self,
        sql: impl Into<Cow<'static, str>>,
        args: Vec<Arg>,
    ) -> Result<Option<Row>, StoreError> {
        Ok(self.fetch(sql, args).await?.into_iter().next())
    }

    /// [`Beside::fetch`] of a check-and-change statement (an `INSERT ...
    /// SELECT ... WHERE` counting rows first) that must not run beside
    /// another holding the same `lock` (e.g. one reporter's two requests
    /// at once): on PostgreSQL in a transaction holding an advisory lock
    /// on `lock` (READ COMMITTED would let both see the old count); on
    /// SQLite as it is, SQLite's one writer already runs such a statement
    /// alone.
    pub async fn fetch_alone(
        &self,
        lock: &str,
        sql: &'static str,
        args: Vec<Arg>,
    ) -> Result<Vec<Row>, StoreError> {
        match self {
            Beside::Sqlite(_) => self.fetch(sql, args).await,
            Beside::Postgres(pool) => {
                let mut client = Beside::pg_client(pool).await?;
                let tx = client.transaction().await?;
                tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&lock])
                    .await?;
                let boxed = pg_args(&args);
                let refs = pg_refs(&boxed);
                let rows = tx.query(sql, &refs).await?;
                let rows = rows
                    .iter()
                    .map(Row::from_postgres)
                    .collect::<Result<Vec<_>, _>>()?;
                tx.commit().await?;
                Ok(rows)
            }
        }
    }

    /// Runs `statements` in one transaction: all or none. Each runs only if
    /// the first changed a row (the first is the guard: a change made once).
    /// Whether the first did.
    pub async fn guarded(
        &self,
        statements: Vec<(&'static str, Vec<Arg>)>,
    ) -> Result<bool, StoreError> {
        match self {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    let tx = c.unchecked_transaction()?;
                    let mut first = true;
                    for (sql, args) in &statements {
                        let n = tx
                            .execute(&lite_sql(sql), rusqlite::params_from_iter(lite_args(args)))?;
                        if first && n != 1 {
                            return Ok(false);
                        }
                        first = false;
                    }
                    tx.commit()?;
                    Ok(true)
                })
                .await
            }
            Beside::Postgres(pool) => {
                let mut client = Beside::pg_client(pool).await?;
                let tx = client.transaction().await?;
                let mut first = true;
                for (sql, args) in &statements {
                    let boxed = pg_args(args);
                    let refs = pg_refs(&boxed);
                    let n = tx.execute(*sql, &refs).await?;
                    if first && n != 1 {
                        return Ok(false);
                    }
                    first = false;
                }
                tx.commit().await?;
                Ok(true)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use rusqlite::Connection;

    use super::*;

    fn db() -> Beside {
        let conn = Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        conn.execute_batch(
            "CREATE TABLE things (
                 id INTEGER PRIMARY KEY,
                 name TEXT NOT NULL UNIQUE,
                 live INTEGER NOT NULL,
                 count INTEGER,
                 note TEXT
             );",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        Beside::Sqlite(Arc::new(Mutex::new(conn)))
    }

    fn ok<T>(r: Result<T, StoreError>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    async fn add(db: &Beside, name: &str, count: Option<i64>) -> Result<Option<Row>, StoreError> {
        db.fetch_opt(
            "INSERT INTO things (name, live, count, note) VALUES ($1, $2, $3, $4) RETURNING id",
            vec![
                name.into(),
                true.into(),
                count.into(),
                None::<String>.into(),
            ],
        )
        .await
    }

    async fn names(db: &Beside) -> Vec<String> {
        let rows = ok(db
            .fetch("SELECT name FROM things ORDER BY id", vec![])
            .await);
        rows.iter().map(|r| ok(r.text(0))).collect()
    }

    #[test]
    fn placeholders_become_sqlites() {
        assert_eq!(
            lite_sql("UPDATE t SET a = $1 WHERE b = $2 AND c = $1"),
            "UPDATE t SET a = ?1 WHERE b = ?2 AND c = ?1"
        );
    }

    #[tokio::test]
    async fn every_kind_goes_in_and_comes_back() {
        let db = db();
        let id = ok(add(&db, "a", Some(7)).await).map(|r| ok(r.int(0)));
        assert_eq!(id, Some(1), "RETURNING answers the new row's id");
        ok(add(&db, "b", None).await);
        let row = ok(db
            .fetch_opt(
                "SELECT id, name, live, count, note FROM things WHERE name = $1",
                vec!["a".into()],
            )
            .await)
        .unwrap_or_else(|| panic!("no row"));
        assert_eq!(ok(row.int(0)), 1);
        assert_eq!(ok(row.text(1)), "a");
        assert!(ok(row.bool(2)), "SQLite's 1 reads as true");
        assert_eq!(ok(row.opt_int(3)), Some(7));
        assert_eq!(ok(row.opt_text(4)), None);
        // A null where a value must be, a column of another kind, or one
        // past the end is a corrupt row, not a default.
        assert!(matches!(row.text(4), Err(StoreError::Corrupt(_))));
        assert!(matches!(row.int(1), Err(StoreError::Corrupt(_))));
        assert!(matches!(row.int(5), Err(StoreError::Corrupt(_))));
        // The kinds-first reading sees the same.
        let cols = ok(db
            .query(
                "SELECT count, note, live FROM things WHERE name = $1",
                vec![Arg::Text("b".into())],
                &[Kind::Int, Kind::Text, Kind::Bool],
            )
            .await);
        assert_eq!(
            cols,
            vec![vec![Col::Int(None), Col::Text(None), Col::Bool(true)]]
        );
        // A null argument matches nothing with `=`, everything with `IS NULL`.
        let n = ok(db
            .exec(
                "UPDATE things SET note = $1 WHERE $2 IS NULL OR count = $2",
                vec![Some("seen").into(), None::<i64>.into()],
            )
            .await);
        assert_eq!(n, 2);
    }

    #[tokio::test]
    async fn a_taken_key_is_a_duplicate() {
        let db = db();
        ok(add(&db, "a", None).await);
        let again = add(&db, "a", None).await;
        assert!(
            again.as_ref().is_err_and(StoreError::is_duplicate),
            "{again:?}"
        );
        assert_eq!(names(&db).await, ["a"]);
    }

    #[tokio::test]
    async fn a_failed_statement_rolls_back_the_whole_transaction() {
        let db = db();
        ok(add(&db, "a", None).await);
        // The guard changes a row, then the second statement breaks the
        // unique name: neither stays.
        let failed = db
            .guarded(vec![
                (
                    "UPDATE things SET count = 1 WHERE name = $1",
                    vec!["a".into()],
                ),
                (
                    "INSERT INTO things (name, live) VALUES ($1, $2)",
                    vec!["b".into(), true.into()],
                ),
                (
                    "INSERT INTO things (name, live) VALUES ($1, $2)",
                    vec!["b".into(), true.into()],
                ),
            ])
            .await;
        assert!(
            failed.as_ref().is_err_and(StoreError::is_duplicate),
            "{failed:?}"
        );
        assert_eq!(names(&db).await, ["a"]);
        let count =
            ok(db.fetch_opt("SELECT count FROM things", vec![]).await).map(|r| ok(r.opt_int(0)));
        assert_eq!(count, Some(None), "the guard's change went too");
        // A guard that changes nothing stops the rest, and says so.
        let done = ok(db
            .guarded(vec![
                (
                    "UPDATE things SET count = 1 WHERE name = $1",
                    vec!["z".into()],
                ),
                (
                    "INSERT INTO things (name, live) VALUES ($1, $2)",
                    vec!["c".into(), false.into()],
                ),
            ])
            .await);
        assert!(!done);
        assert_eq!(names(&db).await, ["a"]);
    }
}
