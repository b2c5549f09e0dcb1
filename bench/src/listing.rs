//! `--mode listing`: what `list_rooms` costs with many rooms. The server
//! is filled with `--rooms` public Nimrod rooms; then one client asks for
//! pages at random cursors (time and size of one page), walks every page
//! from first to last, and asks for a filter nothing matches (the server
//! scans every room to say so). The server's memory with the rooms is
//! read too.

use std::path::Path;
use std::time::Duration;

use parlor_protocol::MAX_ROOMS_PER_PAGE;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::time::Instant;

use crate::cli::Args;
use crate::conn::Conn;
use crate::metrics::{latency_summary, quantile, round};
use crate::pacer::Pacer;
use crate::pages::{fetch, Fetched, PageWalk};
use crate::populate::create_rooms;
use crate::process::ServerProcess;
use crate::procfs;

/// Rooms the server may hold beyond those a mode creates: the cap is
/// raised for the run (`--max-rooms`), and room for a player's games and
/// the finished rooms lingering after them keeps it from being the limit.
const ROOM_CAP_HEADROOM: usize = 1024;

/// Requests with a filter that matches nothing: each costs a scan of
/// every room, so fewer than pages suffice for a median and p99.
const FILTERED_SAMPLES: usize = 50;

/// List requests a second from the measuring client: below the server's
/// average of 500, so that no request is dropped as rate-limited.
pub const LIST_PER_SECOND: f64 = 400.0;

/// List requests the measuring client sends without pausing: half the
/// server's burst of 100.
pub const LIST_BURST: f64 = 50.0;

/// Rooms in a full page.
const PAGE: usize = MAX_ROOMS_PER_PAGE as usize;

/// How long after the setup the server's memory is read: the creators'
/// connections have closed and their memory has been given back.
const SETTLE: Duration = Duration::from_secs(1);

/// The server flags for a run with `rooms` public rooms: no cap per
/// address (the rooms come from many loopback addresses, but the cap is
/// not what is measured) and a room cap above `rooms`.
pub fn server_flags(rooms: usize) -> Vec<String> {
    vec![
        "--rooms-per-address".into(),
        "0".into(),
        "--max-rooms".into(),
        (rooms + ROOM_CAP_HEADROOM).to_string(),
    ]
}

/// One repetition: a fresh server, `args.rooms` rooms, the measurements.
pub async fn run(args: &Args, bin: &Path, options: &Value) -> Result<Value, String> {
    let server = ServerProcess::parlor(bin, &server_flags(args.rooms))?;
    let (url, pid) = (server.url.clone(), server.pid);
    let rss_base = procfs::rss_bytes(pid);
    let setup = Instant::now();
    let mut ids = create_rooms(&url, args.rooms, options).await?;
    let setup_s = setup.elapsed().as_secs_f64();
    tokio::time::sleep(SETTLE).await;
    let rss_rooms = procfs::rss_bytes(pid);
    // The server lists in id order; sorted ids tell which cursors have a
    // full page after them.
    ids.sort_unstable();

    let mut conn = Conn::open(&url).await?;
    let mut pacer = Pacer::new(LIST_PER_SECOND, LIST_BURST, Instant::now());
    let mut rng = StdRng::seed_from_u64(args.seed);
    let mut pages = Vec::with_capacity(args.page_samples);
    for _ in 0..args.page_samples {
        let mut q = json!({"type": "list_rooms"});
        if ids.len() > PAGE {
            q["cursor"] = json!(ids[rng.gen_range(0..ids.len() - PAGE)]);
        }
        pages.push(fetch(&mut conn, &mut pacer, &q).await?);
    }

    let mut walk = PageWalk::default();
    let mut cursor: Option<String> = None;
    let walk_start = Instant::now();
    loop {
        let mut q = json!({"type": "list_rooms", "limit": PAGE});
        if let Some(c) = cursor {
            q["cursor"] = json!(c);
        }
        let f = fetch(&mut conn, &mut pacer, &q).await?;
        cursor = walk.record(&f.page, f.bytes, f.rtt)?;
        if cursor.is_none() {
            break;
        }
    }
    let walk_wall = walk_start.elapsed();

    let mut filtered = Vec::with_capacity(FILTERED_SAMPLES);
    let q = json!({"type": "list_rooms", "status": "playing"});
    for _ in 0..FILTERED_SAMPLES {
        filtered.push(fetch(&mut conn, &mut pacer, &q).await?);
    }
    conn.close().await;
    let rss_after = procfs::rss_bytes(pid);
    drop(server);

    let kib = |b: Option<u64>| b.map_or(Value::Null, |b| json!(b / 1024));
    Ok(json!({
        "rooms_created": ids.len(),
        "setup_s": round(setup_s),
        "page": summary(&pages),
        "walk": {
            "pages": walk.pages,
            "rooms": walk.rooms,
            "complete": walk.rooms == ids.len() && walk.out_of_order == 0,
            "bytes": walk.bytes,
            "round_trips_ms": round(walk.round_trips.as_secs_f64() * 1e3),
            "wall_ms": round(walk_wall.as_secs_f64() * 1e3),
        },
        "filtered_status_playing": summary(&filtered),
        "server_rss_kib": {
            "base": kib(rss_base),
            "with_rooms": kib(rss_rooms),
            "after_listing": kib(rss_after),
        },
        "mem_per_room_bytes": match (rss_rooms, rss_base) {
            (Some(r), Some(b)) if !ids.is_empty() => json!(r.saturating_sub(b) / ids.len() as u64),
            _ => Value::Null,
        },
    }))
}

/// Round trips (µs), sizes and room counts of several pages.
fn summary(pages: &[Fetched]) -> Value {
    let micros = |d: Duration| u32::try_from(d.as_micros()).unwrap_or(u32::MAX);
    let lat = pages.iter().map(|f| micros(f.rtt)).collect();
    let mut bytes: Vec<u32> = pages
        .iter()
        .map(|f| u32::try_from(f.bytes).unwrap_or(u32::MAX))
        .collect();
    bytes.sort_unstable();
    let rooms = pages.iter().map(|f| f.page.rooms.len());
    json!({
        "requests": pages.len(),
        "latency_us": latency_summary(lat),
        "bytes": {
            "p50": quantile(&bytes, 0.5),
            "p99": quantile(&bytes, 0.99),
            "max": bytes.last().copied().unwrap_or(0),
        },
        "rooms_per_page": {
            "min": rooms.clone().min().unwrap_or(0),
            "max": rooms.max().unwrap_or(0),
        },
    })
}
