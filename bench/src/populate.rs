//! Filling a server with public Nimrod rooms that nobody joins, for the
//! modes that measure listing them. A token may have only
//! `MAX_OPEN_ROOMS_PER_CREATOR` unfinished rooms, so the rooms are made by
//! many short-lived connections, each from its own loopback address (the
//! server also limits how fast one address connects). Rooms outlive their
//! creator's connection: they wait for players until they expire.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use parlor_server::limits::MAX_OPEN_ROOMS_PER_CREATOR;
use serde_json::{json, Value};

use crate::conn::Conn;

/// Rooms one creator connection makes: as many as one token may have.
const ROOMS_PER_CREATOR: usize = MAX_OPEN_ROOMS_PER_CREATOR;

/// Creator connections at work at once: enough to keep the server's store
/// busy, few enough that the setup does not measure connection storms.
pub const CREATORS_AT_ONCE: usize = 16;

/// Creates `n` public Nimrod rooms with `options` on `url` and returns
/// their ids (in no particular order). Any refusal ends the setup.
pub async fn create_rooms(url: &str, n: usize, options: &Value) -> Result<Vec<String>, String> {
    let next = Arc::new(AtomicUsize::new(0));
    let ids = Arc::new(Mutex::new(Vec::with_capacity(n)));
    let create = json!({"type": "create_room", "game": "nimrod", "options": options}).to_string();
    let workers: Vec<_> = (0..CREATORS_AT_ONCE.min(n.div_ceil(ROOMS_PER_CREATOR)))
        .map(|_| {
            let (next, ids, url, create) = (
                Arc::clone(&next),
                Arc::clone(&ids),
                url.to_owned(),
                create.clone(),
            );
            tokio::spawn(async move {
                loop {
                    // Batches are handed out from a shared counter, so
                    // that a slow creator does not hold up the rest.
                    let first = next.fetch_add(ROOMS_PER_CREATOR, Ordering::Relaxed);
                    if first >= n {
                        return Ok::<(), String>(());
                    }
                    let batch = ROOMS_PER_CREATOR.min(n - first);
                    let made = one_creator(&url, batch, &create).await?;
                    ids.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .extend(made);
                }
            })
        })
        .collect();
    for w in workers {
        w.await
            .map_err(|e| format!("room creator: {e}"))?
            .map_err(|e| format!("creating rooms: {e}"))?;
    }
    let ids = std::mem::take(&mut *ids.lock().unwrap_or_else(PoisonError::into_inner));
    Ok(ids)
}

/// One connection creating `k` rooms: the requests go out at once (well
/// within the message burst), then the answers are collected.
async fn one_creator(url: &str, k: usize, create: &str) -> Result<Vec<String>, String> {
    let mut c = Conn::open(url).await?;
    for _ in 0..k {
        c.send(create.to_owned()).await?;
    }
    let mut made = Vec::with_capacity(k);
    for _ in 0..k {
        let f = c.until(|f| f.kind == "room_created").await?;
        made.push(f.room.ok_or("room_created without a room")?);
    }
    c.close().await;
    Ok(made)
}
