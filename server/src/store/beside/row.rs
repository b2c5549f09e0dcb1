//! A row read from a table beside the log, the same whichever database
//! answered: its columns are read by position as the caller's types, and
//! the dialects' differences in how a value is kept are absorbed here once
//! (SQLite keeps booleans as 0 or 1; PostgreSQL's `integer` and
//! `smallint` widen to `i64`), so a caller never says a column's kind
//! twice, once in the query and once when reading.
//!
//! A value of an unexpected kind, or a null where a value must be, is a
//! [`StoreError::Corrupt`]: the row does not match its table.

use tokio_postgres::types::Type;

use crate::store::StoreError;

/// One value of a row, as either database keeps it.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Null,
    Int(i64),
    Text(String),
    Bool(bool),
}

/// A row of a query's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Row(Vec<Value>);

impl Row {
    /// Column `i`, an integer.
    pub fn int(&self, i: usize) -> Result<i64, StoreError> {
        self.opt_int(i)?.ok_or_else(|| null(i))
    }

    /// Column `i`, an integer or null.
    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, StoreError> {
        match self.value(i)? {
            Value::Null => Ok(None),
            Value::Int(n) => Ok(Some(*n)),
            other => Err(kind(i, "an integer", other)),
        }
    }

    /// Column `i`, text.
    pub fn text(&self, i: usize) -> Result<String, StoreError> {
        self.opt_text(i)?.ok_or_else(|| null(i))
    }

    /// Column `i`, text or null.
    pub fn opt_text(&self, i: usize) -> Result<Option<String>, StoreError> {
        match self.value(i)? {
            Value::Null => Ok(None),
            Value::Text(t) => Ok(Some(t.clone())),
            other => Err(kind(i, "text", other)),
        }
    }

    /// Column `i`, a boolean (SQLite's 0 or 1, PostgreSQL's `boolean`).
    pub fn bool(&self, i: usize) -> Result<bool, StoreError> {
        match self.value(i)? {
            Value::Bool(b) => Ok(*b),
            Value::Int(n) => Ok(*n != 0),
            Value::Null => Err(null(i)),
            other => Err(kind(i, "a boolean", other)),
        }
    }

    fn value(&self, i: usize) -> Result<&Value, StoreError> {
        self.0.get(i).ok_or_else(|| {
            StoreError::Corrupt(format!(
                "a row of {} columns has no column {i}",
                self.0.len()
            ))
        })
    }

    /// The row SQLite answered.
    pub(super) fn from_sqlite(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
        use rusqlite::types::ValueRef;
        let count = r.as_ref().column_count();
        let mut values = Vec::with_capacity(count);
        for i in 0..count {
            values.push(match r.get_ref(i)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(n) => Value::Int(n),
                ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                // No table beside the log keeps reals or bytes.
                other => {
                    return Err(rusqlite::Error::InvalidColumnType(
                        i,
                        r.as_ref().column_name(i).unwrap_or("?").to_owned(),
                        other.data_type(),
                    ))
                }
            });
        }
        Ok(Row(values))
    }

    /// The row PostgreSQL answered.
    pub(super) fn from_postgres(r: &tokio_postgres::Row) -> Result<Row, StoreError> {
        let mut values = Vec::with_capacity(r.len());
        for (i, column) in r.columns().iter().enumerate() {
            let t = column.type_();
            let value = if *t == Type::INT8 {
                r.try_get::<_, Option<i64>>(i)?.map(Value::Int)
            } else if *t == Type::INT4 {
                r.try_get::<_, Option<i32>>(i)?
                    .map(|n| Value::Int(n.into()))
            } else if *t == Type::INT2 {
                r.try_get::<_, Option<i16>>(i)?
                    .map(|n| Value::Int(n.into()))
            } else if *t == Type::BOOL {
                r.try_get::<_, Option<bool>>(i)?.map(Value::Bool)
            } else if *t == Type::TEXT || *t == Type::VARCHAR || *t == Type::BPCHAR {
                r.try_get::<_, Option<String>>(i)?.map(Value::Text)
            } else {
                // No table beside the log keeps other kinds.
                return Err(StoreError::Corrupt(format!(
                    "column {} is of type {t}, not kept beside the log",
                    column.name()
                )));
            };
            values.push(value.unwrap_or(Value::Null));
        }
        Ok(Row(values))
    }
}

fn null(i: usize) -> StoreError {
    StoreError::Corrupt(format!("column {i} is null"))
}

/// The error for column `i` holding `found` where `wanted` was asked for
/// (the value itself is not shown: it may be a secret's hash).
fn kind(i: usize, wanted: &str, found: &Value) -> StoreError {
    let found = match found {
        Value::Null => "null",
        Value::Int(_) => "an integer",
        Value::Text(_) => "text",
        Value::Bool(_) => "a boolean",
    };
    StoreError::Corrupt(format!("column {i} is {found}, not {wanted}"))
}
