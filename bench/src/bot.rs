//! The bot driver: one task per room plays complete Nimrod games over the
//! protocol, game after game, measuring each move's round trip.

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::sync::{watch, Barrier};
use tokio::time::{sleep_until, Instant};

use crate::conn::Conn;
use crate::metrics::Counters;
use crate::placement::Placement;

/// Seats in a Nimrod room.
pub const PLAYERS: usize = 2;

/// Mixed into the seed of the random placement, so that it draws
/// independently of the bots' moves (which stay the same whatever the
/// placement).
const PLACEMENT_SALT: u64 = 0x9e37_79b9_7f4a_7c15;

/// How an error frame with a `server/...` code reads once turned into a
/// bot's error.
const SERVER_ERROR: &str = "error server/";

/// Games a room may abandon after server errors before it stops: a
/// server that fails every game is not worth loading further.
const MAX_RESTARTS: u32 = 100;

/// The move sent when an update carries no legal list (the bare relay).
const FALLBACK_MOVE: &str = r#"{"take":[0,1]}"#;

/// What every room task does.
#[derive(Debug)]
pub struct Plan {
    /// The servers' URLs (the nodes of one cluster, or one server).
    pub urls: Vec<String>,
    /// Which node each client of a room connects to.
    pub placement: Placement,
    /// Spectators per room.
    pub spectators: usize,
    /// `Some(think)`: paced, one move per `think`; `None`: closed loop.
    pub think: Option<Duration>,
    /// Room options.
    pub options: Value,
    /// Bot seed.
    pub seed: u64,
    /// Everyone connected and the window is set: the counters.
    pub go: watch::Receiver<Option<Arc<Counters>>>,
    /// Met once every room is connected (or failed to).
    pub ready: Arc<Barrier>,
}

/// Plays room `i` until the measured window ends; returns the latencies
/// (µs) of moves sent within the window.
pub async fn run_room(i: usize, plan: Arc<Plan>) -> Vec<u32> {
    let connected = connect(i, &plan).await;
    plan.ready.wait().await;
    let mut go = plan.go.clone();
    let counters = match go.wait_for(Option::is_some).await {
        Ok(c) => c.clone(),
        Err(_) => None,
    };
    let Some(counters) = counters else {
        return Vec::new();
    };
    let mut lat = Vec::new();
    let mut conns = match connected {
        Ok(c) => c,
        Err(e) => {
            Counters::always(&counters.errors);
            eprintln!("room {i}: {e}");
            return lat;
        }
    };
    let mut restarts = 0;
    while let Err(e) = play(i, &plan, &counters, &mut conns, &mut lat).await {
        Counters::always(&counters.errors);
        if e.starts_with("error action/") {
            Counters::always(&counters.refused);
        }
        eprintln!("room {i}: {e}");
        // A server-side failure (e.g. `server/storage`) ends that game,
        // not the room's load: the bots start a new game, as players
        // would.
        if !e.starts_with(SERVER_ERROR)
            || restarts >= MAX_RESTARTS
            || Instant::now() >= counters.end
        {
            break;
        }
        restarts += 1;
        Counters::always(&counters.abandoned);
    }
    for c in conns {
        c.close().await;
    }
    lat
}

/// Opens room `i`'s connections: the first creates every game of the
/// room, so its node hosts them; the others go where `plan.placement`
/// says.
async fn connect(i: usize, plan: &Plan) -> Result<Vec<Conn>, String> {
    let n = PLAYERS + plan.spectators;
    let mut rng = StdRng::seed_from_u64(plan.seed.wrapping_add(i as u64) ^ PLACEMENT_SALT);
    let nodes = plan.urls.len().max(1);
    let owner = i % nodes;
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        let node = match plan.placement {
            Placement::Owner => owner,
            Placement::Random => rng.gen_range(0..nodes),
        };
        let url = plan.urls.get(node).ok_or("no server to connect to")?;
        conns.push(Conn::open(url).await?);
    }
    Ok(conns)
}

/// Creates a Nimrod room with `options` and seats the players (the first
/// two connections) and spectators (the rest); returns its id once every
/// connection has its first playing update.
pub async fn new_game(options: &Value, conns: &mut [Conn]) -> Result<String, String> {
    let create = json!({"type": "create_room", "game": "nimrod", "options": options});
    conns[0].send(create.to_string()).await?;
    let created = conns[0].until(|f| f.kind == "room_created").await?;
    let room = created.room.ok_or("room_created without a room")?;
    for (i, c) in conns.iter_mut().enumerate() {
        if i < PLAYERS {
            c.send(json!({"type": "join", "room": room, "seat": i}).to_string())
                .await?;
            c.until(|f| f.kind == "joined").await?;
        } else {
            c.send(json!({"type": "spectate", "room": room}).to_string())
                .await?;
            c.until(|f| f.kind == "spectating").await?;
        }
    }
    for c in conns.iter_mut() {
        c.update_after(&room, None).await?;
    }
    Ok(room)
}

async fn play(
    i: usize,
    plan: &Plan,
    counters: &Counters,
    conns: &mut [Conn],
    lat: &mut Vec<u32>,
) -> Result<(), String> {
    let mut rng = StdRng::seed_from_u64(plan.seed.wrapping_add(i as u64));
    let mut next_tick = plan.think.map(|t| {
        // Rooms start at random points of their period, so the load is even.
        Instant::now() + t.mul_f64(rng.gen::<f64>())
    });
    'games: while Instant::now() < counters.end {
        let room = new_game(&plan.options, conns).await?;
        loop {
            let Some(u) = conns[0].last.as_ref() else {
                return Err("no update".into());
            };
            if u.outcome.is_some() {
                counters.count(&counters.games, Instant::now());
                continue 'games;
            }
            let seq = u.seq.unwrap_or(0);
            let seat = usize::from(*u.to_act.first().ok_or("nobody to act")?);
            if seat >= PLAYERS {
                return Err(format!("seat {seat} to act"));
            }
            let mv = match conns[seat].last.as_ref().and_then(|f| f.legal.as_ref()) {
                Some(legal) if !legal.is_empty() => {
                    legal[rng.gen_range(0..legal.len())].to_string()
                }
                _ => FALLBACK_MOVE.to_owned(),
            };
            if let (Some(t), Some(tick)) = (plan.think, next_tick.as_mut()) {
                sleep_until(*tick).await;
                *tick += t;
            }
            let sent = Instant::now();
            if sent >= counters.end {
                break 'games;
            }
            let msg = format!(
                r#"{{"type":"play","room":"{room}","seat":{seat},"seq":{seq},"move":{mv}}}"#
            );
            conns[seat].send(msg).await?;
            conns[seat].update_after(&room, Some(seq)).await?;
            let now = Instant::now();
            if counters.in_window(sent) {
                lat.push(u32::try_from((now - sent).as_micros()).unwrap_or(u32::MAX));
            }
            counters.count(&counters.moves, sent);
            counters.count(&counters.deliveries, now);
            for (j, c) in conns.iter_mut().enumerate() {
                if j != seat {
                    c.update_after(&room, Some(seq)).await?;
                    counters.count(&counters.deliveries, Instant::now());
                }
            }
        }
    }
    Ok(())
}
