//! One spelling of a statement for both databases: SQL is written with
//! PostgreSQL's `$N` placeholders (rewritten to SQLite's `?N`), arguments
//! and columns are a handful of plain kinds, so each statement on the
//! tables beside the log is written once rather than once per backend.

use std::borrow::Cow;

use rusqlite::types::Value as Lite;
use tokio_postgres::types::ToSql;

use super::Beside;
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
        })
        .collect()
}

fn pg_args(args: &[Arg]) -> Vec<Box<dyn ToSql + Sync + Send>> {
    args.iter()
        .map(|a| -> Box<dyn ToSql + Sync + Send> {
            match a {
                Arg::Int(n) => Box::new(*n),
                Arg::Text(t) => Box::new(t.clone()),
                Arg::Bool(b) => Box::new(*b),
            }
        })
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
    /// Runs statement `sql` with `args`; the rows it changed. The SQL is
    /// a constant, or text formatted from constants of the code (a table's
    /// name), never input.
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
                let refs: Vec<&(dyn ToSql + Sync)> = boxed
                    .iter()
                    .map(|b| b.as_ref() as &(dyn ToSql + Sync))
                    .collect();
                Ok(Beside::pg_client(pool).await?.execute(&*sql, &refs).await?)
            }
        }
    }

    /// Runs query `sql` with `args`; its rows, each column read as `kinds`
    /// says. The SQL is a constant, or formatted from constants of the code.
    pub async fn query(
        &self,
        sql: impl Into<Cow<'static, str>>,
        args: Vec<Arg>,
        kinds: &'static [Kind],
    ) -> Result<Vec<Vec<Col>>, StoreError> {
        let sql = sql.into();
        match self {
            Beside::Sqlite(conn) => {
                Beside::on_sqlite(conn, move |c| {
                    let mut st = c.prepare(&lite_sql(&sql))?;
                    let rows = st.query_map(rusqlite::params_from_iter(lite_args(&args)), |r| {
                        kinds
                            .iter()
                            .enumerate()
                            .map(|(i, k)| lite_col(r, i, *k))
                            .collect::<rusqlite::Result<Vec<Col>>>()
                    })?;
                    rows.collect()
                })
                .await
            }
            Beside::Postgres(pool) => {
                let boxed = pg_args(&args);
                let refs: Vec<&(dyn ToSql + Sync)> = boxed
                    .iter()
                    .map(|b| b.as_ref() as &(dyn ToSql + Sync))
                    .collect();
                let rows = Beside::pg_client(pool).await?.query(&*sql, &refs).await?;
                let mut out = Vec::with_capacity(rows.len());
                for r in &rows {
                    let cols = kinds
                        .iter()
                        .enumerate()
                        .map(|(i, k)| pg_col(r, i, *k))
                        .collect::<Result<Vec<Col>, _>>()?;
                    out.push(cols);
                }
                Ok(out)
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
                    let refs: Vec<&(dyn ToSql + Sync)> = boxed
                        .iter()
                        .map(|b| b.as_ref() as &(dyn ToSql + Sync))
                        .collect();
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
    use super::*;

    #[test]
    fn placeholders_become_sqlites() {
        assert_eq!(
            lite_sql("UPDATE t SET a = $1 WHERE b = $2 AND c = $1"),
            "UPDATE t SET a = ?1 WHERE b = ?2 AND c = ?1"
        );
    }
}
