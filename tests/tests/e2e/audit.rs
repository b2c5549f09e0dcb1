//! Hidden-information audit. Every hosted game (`GameKind::ALL`) is played
//! to the end by clients over the real protocol; every frame each seat
//! receives is recorded. Afterwards the match is rebuilt from its log
//! (`parlor_protocol::replay::step`, the deal's secret included, public once over) and
//! each frame is checked mechanically against the true state at its
//! `seq`, using only the generic game interface: what a state hides comes
//! from `AnyGame::secrets`, so no game is named here.
//!
//! 1. the view sent equals the rules' view for that seat, and every legal
//!    move sent is legal there: the server adds nothing of its own;
//! 2. every item of a hidden kind (an object shaped like the game's own
//!    secret items: cards, blocks) anywhere in the frame is public at
//!    that moment (in the spectator view) or the recipient's own secret;
//!    and no item hidden from the recipient (another seat's, or the
//!    undisclosed deck or bag) occurs in it at all: either is a leak;
//! 3. no frame carries the deal's server seed or salt (or an old match's seed);
//! 4. a seat's own secrets are the truth: its view shows, beyond the
//!    public view, exactly the items the state says it holds, and no item
//!    is held by two seats or is both held and undisclosed or public, so a
//!    leak cannot hide in a seat's "own" items.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use futures_util::{SinkExt, StreamExt};
use parlor_games::secrets::occurs_in;
use parlor_games::{AnyGame, GameKind, GameRng, Seat, Viewer};
use parlor_protocol::{decode_server, MatchLog, ServerMsg};
use parlor_server::limits::MAX_LEGAL_SENT;
use parlor_tests::{start_server, PATIENCE};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// Games played per game and seat count; `PARLOR_AUDIT_GAMES` raises it
/// for a long audit (`cargo test --release -p parlor-tests --test e2e audit::`).
fn games_each() -> u64 {
    std::env::var("PARLOR_AUDIT_GAMES")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(1)
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn recv_text(ws: &mut Ws) -> String {
    loop {
        match tokio::time::timeout(PATIENCE, ws.next()).await.unwrap() {
            Some(Ok(Message::Text(t))) => return t.as_str().to_owned(),
            Some(Ok(_)) => {}
            other => panic!("connection ended: {other:?}"),
        }
    }
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

async fn connect(url: &str) -> Ws {
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    send(&mut ws, json!({"type": "hello", "version": 1})).await;
    recv_text(&mut ws).await;
    ws
}

/// Plays `seat` until the match ends; returns every frame received.
async fn seat_client(mut ws: Ws, kind: GameKind, room: String, seat: u8, seed: u64) -> Vec<String> {
    let mut frames = Vec::new();
    let mut pick = SplitMix(seed);
    let mut game_rng = GameRng::from_seed(seed);
    let strategy = if kind.strategies().contains(&"random") {
        "random"
    } else {
        kind.strategies()[0]
    };
    let mut bot = kind.bot(strategy).unwrap();
    let mut answered = None;
    loop {
        let text = recv_text(&mut ws).await;
        frames.push(text.clone());
        let Ok(ServerMsg::Update(u)) = decode_server(&text) else {
            continue;
        };
        if u.outcome.is_some() {
            return frames;
        }
        if !u.to_act.contains(Seat(seat)) || answered == Some(u.seq) {
            continue;
        }
        answered = Some(u.seq);
        let mv = match &u.legal {
            Some(legal) if !legal.is_empty() => legal[pick.below(legal.len())].clone(),
            _ => {
                let view = kind.parse_view(&u.view).unwrap();
                let mv = bot.choose(Seat(seat), &view, &mut game_rng).unwrap();
                serde_json::to_value(&mv).unwrap()
            }
        };
        send(
            &mut ws,
            json!({"type": "play", "room": room, "seat": seat, "seq": u.seq, "move": mv}),
        )
        .await;
    }
}

/// A tiny seeded generator for picking among legal moves.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// The shapes of hidden items (the sorted keys of their JSON objects,
/// e.g. a card's or a block's), learnt from the game's own secrets over
/// the whole match: any object of such a shape in a frame is an item.
type Shapes = BTreeSet<Vec<String>>;

fn shape(v: &Value) -> Option<Vec<String>> {
    let m = v.as_object()?;
    let mut keys: Vec<String> = m.keys().cloned().collect();
    keys.sort();
    Some(keys)
}

fn shapes_of(states: &[AnyGame]) -> Shapes {
    let mut shapes = Shapes::new();
    for state in states {
        let secrets = state.secrets();
        let all = secrets
            .per_seat
            .iter()
            .flatten()
            .chain(&secrets.undisclosed);
        shapes.extend(all.filter_map(shape));
    }
    shapes
}

/// Every item (an object of one of `shapes`) anywhere in `v`, as JSON text.
fn items(v: &Value, shapes: &Shapes, out: &mut BTreeSet<String>) {
    if shape(v).is_some_and(|s| shapes.contains(&s)) {
        out.insert(v.to_string());
        return;
    }
    match v {
        Value::Object(m) => m.values().for_each(|x| items(x, shapes, out)),
        Value::Array(a) => a.iter().for_each(|x| items(x, shapes, out)),
        _ => {}
    }
}

fn item_set(v: &Value, shapes: &Shapes) -> BTreeSet<String> {
    let mut s = BTreeSet::new();
    items(v, shapes, &mut s);
    s
}

fn texts(values: &[Value]) -> BTreeSet<String> {
    values.iter().map(Value::to_string).collect()
}

#[derive(Default, Debug)]
struct Tally {
    games: u64,
    frames: u64,
    leaks: Vec<String>,
}

fn audit(log: &MatchLog, frames: &[(u8, String)], tally: &mut Tally) {
    let kind = log.header.game;
    let mut rng = parlor_protocol::deal_rng(&log.header).unwrap();
    let mut game = kind
        .setup(&log.header.options, log.header.seats, &mut rng)
        .unwrap();
    let mut states = vec![game.clone()];
    for entry in &log.moves {
        parlor_protocol::step(&mut game, &mut rng, entry).unwrap();
        states.push(game.clone());
    }
    let shapes = shapes_of(&states);
    let secrets = parlor_tests::deal_secrets(log);
    for (seat, text) in frames {
        tally.frames += 1;
        let seat = Seat(*seat);
        let mut leak = |what: String| tally.leaks.push(format!("{kind} {seat}: {what}"));
        if let Some(s) = secrets.iter().find(|s| text.contains(s.as_str())) {
            leak(format!("the deal's secret {s} in {text:.200}"));
        }
        let frame: Value = serde_json::from_str(text).unwrap();
        if frame["type"] != "update" {
            let stray = item_set(&frame, &shapes);
            if !stray.is_empty() {
                leak(format!("hidden-kind items outside an update: {text:.200}"));
            }
            continue;
        }
        let seq = frame["seq"].as_u64().unwrap() as usize;
        let state = &states[seq];
        // A room waiting for players shows everyone the public view: the
        // deal is made only once every seat (and client seed) is in.
        let waiting = frame["status"] == "waiting";
        let viewer = if waiting {
            Viewer::Spectator
        } else {
            Viewer::Seat(seat)
        };
        let view = serde_json::to_value(state.view(viewer)).unwrap();
        if frame["view"] != view {
            leak(format!("view at seq {seq} differs from the rules' view"));
        }
        if let Some(legal) = frame["legal"].as_array() {
            let all: BTreeSet<String> = state
                .legal_moves(seat)
                .iter()
                .map(|m| serde_json::to_value(m).unwrap().to_string())
                .collect();
            if legal.len() > MAX_LEGAL_SENT || legal.iter().any(|m| !all.contains(&m.to_string())) {
                leak(format!("legal list at seq {seq} is not the rules' list"));
            }
        }
        let secrets = state.secrets();
        let public = item_set(
            &serde_json::to_value(state.view(Viewer::Spectator)).unwrap(),
            &shapes,
        );
        // Nothing is its own while the room waits: it is shown no deal.
        let own = if waiting {
            BTreeSet::new()
        } else {
            texts(secrets.of(seat))
        };
        // Every item in the frame is public or the recipient's own;
        // anything else is another seat's, or the deck's or bag's.
        for item in item_set(&frame, &shapes) {
            if !public.contains(&item) && !own.contains(&item) {
                leak(format!("{item} at seq {seq} is neither public nor its own"));
            }
        }
        for hidden in secrets.hidden_from(Viewer::Seat(seat)) {
            if occurs_in(hidden, &frame) {
                leak(format!("{hidden} at seq {seq} is hidden from it"));
            }
        }
        // Its own holdings are the truth: what its view shows beyond the
        // public view is exactly what the state says it holds in secret,
        // so a leak cannot pass as the seat's "own" items.
        let private: BTreeSet<String> = item_set(&view, &shapes)
            .difference(&public)
            .cloned()
            .collect();
        if private != own {
            leak(format!(
                "its own items at seq {seq} are not the truth: shown {private:?}, held {own:?}"
            ));
        }
        // And nobody else's: no item is held by two seats, held and
        // undisclosed, or held and public.
        let undisclosed = texts(&secrets.undisclosed);
        for other in (0..log.header.seats).map(Seat).filter(|o| *o != seat) {
            let theirs = texts(secrets.of(other));
            let overlap: Vec<_> = own.intersection(&theirs).collect();
            if !overlap.is_empty() {
                leak(format!(
                    "{seat} and {other} both hold {overlap:?} at seq {seq}"
                ));
            }
        }
        let also: Vec<_> = own
            .iter()
            .filter(|i| undisclosed.contains(*i) || public.contains(*i))
            .collect();
        if !also.is_empty() {
            leak(format!(
                "{also:?} at seq {seq} is its own and also undisclosed or public"
            ));
        }
    }
    tally.games += 1;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_frame_leaks_hidden_information_in_any_hosted_game() {
    let server = start_server(None).await;
    let url = server.url();
    let mut tally = Tally::default();
    for &kind in GameKind::ALL {
        let (min, max) = kind.seat_range();
        let mut counts = vec![min];
        if max != min {
            counts.push(max);
        }
        for seats in counts {
            for g in 0..games_each() {
                let mut host = connect(&url).await;
                send(
                    &mut host,
                    json!({"type": "create_room", "game": kind.name(), "seats": seats}),
                )
                .await;
                let room = loop {
                    let t = recv_text(&mut host).await;
                    if let Ok(ServerMsg::RoomCreated { room, .. }) = decode_server(&t) {
                        break room;
                    }
                    assert!(!t.contains("\"error\""), "{t}");
                };
                let mut tasks = Vec::new();
                for s in 0..seats {
                    let mut ws = connect(&url).await;
                    send(&mut ws, json!({"type": "join", "room": room, "seat": s})).await;
                    let seed = g * 100 + u64::from(s) + u64::from(seats) * 10;
                    tasks.push(tokio::spawn(seat_client(
                        ws,
                        kind,
                        room.to_string(),
                        s,
                        seed,
                    )));
                }
                let mut frames = Vec::new();
                for (s, t) in tasks.into_iter().enumerate() {
                    for f in t.await.unwrap() {
                        frames.push((s as u8, f));
                    }
                }
                send(&mut host, json!({"type": "get_log", "room": room})).await;
                let log = loop {
                    let t = recv_text(&mut host).await;
                    match decode_server(&t) {
                        Ok(ServerMsg::Log(l)) => break l,
                        Ok(ServerMsg::Error { .. }) => panic!("{t}"),
                        _ => {}
                    }
                };
                audit(&log, &frames, &mut tally);
            }
        }
    }
    eprintln!(
        "audit: games {:?}, {} matches, {} frames scanned, {} leaks",
        GameKind::ALL.iter().map(|g| g.name()).collect::<Vec<_>>(),
        tally.games,
        tally.frames,
        tally.leaks.len()
    );
    assert!(
        tally.leaks.is_empty(),
        "{:#?}",
        &tally.leaks[..tally.leaks.len().min(20)]
    );
    server.stop().await.unwrap();
}
