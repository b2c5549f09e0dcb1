//! The epochs of every match read now and then: a takeover must only ever
//! raise a room's epoch.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::shared::{lock, Shared};
use super::EPOCH_EVERY;

/// Reads every match's epoch now and then, until `stop`.
pub(crate) async fn watch_epochs(sh: Arc<Shared>, url: String, stop: Arc<AtomicBool>) {
    let mut client: Option<tokio_postgres::Client> = None;
    while !stop.load(Ordering::SeqCst) {
        if client
            .as_ref()
            .is_none_or(tokio_postgres::Client::is_closed)
        {
            client = match tokio_postgres::connect(&url, tokio_postgres::NoTls).await {
                Ok((c, conn)) => {
                    tokio::spawn(conn);
                    Some(c)
                }
                Err(_) => None,
            };
        }
        if let Some(c) = &client {
            if let Ok(rows) = c.query("SELECT room, epoch FROM parlor.matches", &[]).await {
                let mut epochs = lock(&sh.epochs);
                for row in rows {
                    let (room, epoch): (String, i64) = (row.get(0), row.get(1));
                    let seen = epochs.entry(room).or_default();
                    if seen.last() != Some(&epoch) {
                        seen.push(epoch);
                    }
                }
            }
        }
        tokio::time::sleep(EPOCH_EVERY).await;
    }
}
