//! Background readers of one long match log (`--log-readers`): what
//! serving big `get_log` replies costs the players of closed and paced
//! loads. Before a repetition's load, two players play one Nimrod match
//! of `--log-steps` moves to its end; then each reader asks for its log,
//! reads the reply, pauses `--log-every-ms`, and asks again, through the
//! warm-up and the measured window. Only requests sent within the
//! measured window are counted.

use std::time::Duration;

use parlor_protocol::{decode_server, ServerMsg};
use parlor_server::limits::{MESSAGES_PER_SECOND, MESSAGE_BURST};
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio::time::{sleep, sleep_until, Instant};

use crate::bot::{new_game, PLAYERS};
use crate::conn::{loopback_address, Conn};
use crate::metrics::{quantile, round};
use crate::pacer::Pacer;

/// Default length of the logged match: its log reply is about 220 KB
/// (~55 bytes a step), a big reply that still fits the server's 512 KiB
/// frame limit (`MAX_SERVER_FRAME_BYTES`: past ~9,500 steps the log is
/// refused as too large).
pub const DEFAULT_STEPS: u64 = 4000;

/// Default pause of a reader between a reply and its next request: a
/// steady background load of about ten big replies a second per reader,
/// not a flood.
pub const DEFAULT_EVERY_MS: u64 = 100;

/// Log readers connect from 127.7.x.y, one address each, apart from every
/// other client of the bench (bots 1, flooders 2, hostile readers 3,
/// stuck and hello-less connections 4 and 5, the metrics scraper 6), so
/// that no per-address limit mixes them up with the players.
const READER_NET: u8 = 7;

/// Messages a second one connection here sends at most: below the
/// server's average per connection, so that no move or request is
/// dropped as rate-limited (which would stall the match or look like a
/// lost reply).
const SEND_PER_SECOND: u32 = MESSAGES_PER_SECOND * 4 / 5;

/// Messages one connection here sends without pausing: half the server's
/// burst, for the same reason.
const SEND_BURST: u32 = MESSAGE_BURST / 2;

// Should the server's limits ever shrink, the build fails rather than a
// run meeting rate-limited replies.
const _: () = assert!(SEND_PER_SECOND < MESSAGES_PER_SECOND && 0 < SEND_BURST);

/// How long a reader whose connection broke waits before opening a new
/// one: at most ten connections a second from its address, well within
/// the server's 16 (`CONNECTS_PER_SECOND_PER_ADDRESS`), and no spinning
/// against a server that is gone.
const RECONNECT_PAUSE: Duration = Duration::from_millis(100);

/// The move that takes one rod from the greater pile: with the lesser
/// pile empty it is always legal, so the match lasts one move per rod.
const ONE_ROD: &str = r#"{"take":[0,1]}"#;

/// Nimrod options for a match of exactly `steps` moves when each player
/// takes one rod at a time: every rod in one pile (the other empty, so
/// the only moves are from that pile, and an update's list of legal
/// moves is as short as it can be).
pub fn match_options(steps: u64) -> Value {
    json!({ "piles": [0, steps] })
}

/// The `get_log` request for `room`.
fn request(room: &str) -> String {
    json!({ "type": "get_log", "room": room }).to_string()
}

/// A pacer for one connection here.
fn pacer() -> Pacer {
    Pacer::new(
        f64::from(SEND_PER_SECOND),
        f64::from(SEND_BURST),
        Instant::now(),
    )
}

/// What the readers of one load ask for, and how often.
#[derive(Clone, Debug)]
pub struct LogReads {
    /// The finished match whose log they ask for.
    pub room: String,
    /// Reader connections.
    pub readers: usize,
    /// Each reader's pause between a reply and its next request.
    pub every: Duration,
}

/// The logged match, played and checked.
#[derive(Debug)]
pub struct LoggedMatch {
    /// Its room.
    pub room: String,
    /// The size of its log reply.
    pub reply_bytes: usize,
    /// How long creating and playing it took.
    pub took: Duration,
}

/// Plays, on `url`, a Nimrod match of `steps` moves, one rod at a time,
/// as fast as the server's rate limit allows each player's connection;
/// checks that it finished after exactly `steps` moves and that its log
/// holds them.
pub async fn play_logged_match(url: &str, steps: u64) -> Result<LoggedMatch, String> {
    let started = Instant::now();
    let mut conns = Vec::with_capacity(PLAYERS);
    for _ in 0..PLAYERS {
        conns.push(Conn::open(url).await?);
    }
    let room = new_game(&match_options(steps), &mut conns).await?;
    let context = |played: u64, e: String| format!("log match {room}, move {played}: {e}");
    // The limit is per connection: each player has its own pacer.
    let mut pacers: Vec<Pacer> = (0..PLAYERS).map(|_| pacer()).collect();
    let mut played = 0;
    loop {
        let u = conns[0]
            .last
            .as_ref()
            .ok_or_else(|| context(played, "no update".into()))?;
        if u.status.as_deref() != Some("playing") {
            if u.status.as_deref() != Some("finished") || u.outcome.is_none() {
                let status = u.status.as_deref().unwrap_or("none");
                return Err(context(played, format!("status {status}, no outcome")));
            }
            break;
        }
        if played >= steps {
            return Err(context(played, format!("not over after {steps} moves")));
        }
        let seq = u
            .seq
            .ok_or_else(|| context(played, "update without seq".into()))?;
        let seat = usize::from(
            *u.to_act
                .first()
                .ok_or_else(|| context(played, "nobody to act".into()))?,
        );
        let (Some(conn), Some(pace)) = (conns.get_mut(seat), pacers.get_mut(seat)) else {
            return Err(context(played, format!("seat {seat} to act")));
        };
        pace.wait().await;
        let msg = format!(
            r#"{{"type":"play","room":"{room}","seat":{seat},"seq":{seq},"move":{ONE_ROD}}}"#
        );
        conn.send(msg).await.map_err(|e| context(played, e))?;
        for c in conns.iter_mut() {
            c.update_after(&room, Some(seq))
                .await
                .map_err(|e| context(played, e))?;
        }
        played += 1;
    }
    if played != steps {
        return Err(format!(
            "log match {room} finished after {played} moves, not {steps}"
        ));
    }
    let reply = ask(&mut conns[1], &request(&room))
        .await
        .map_err(|e| format!("log match {room}: get_log: {}", e.text()))?;
    if reply.steps as u64 != steps {
        return Err(format!(
            "log match {room}: its log holds {} steps, not {steps}",
            reply.steps
        ));
    }
    for c in conns {
        c.close().await;
    }
    Ok(LoggedMatch {
        room,
        reply_bytes: reply.bytes,
        took: started.elapsed(),
    })
}

/// One `log` reply.
#[derive(Debug)]
struct Reply {
    /// Its size (the text frame's payload).
    bytes: usize,
    /// Steps in the log.
    steps: usize,
    /// From sending the request to having the reply's text (its parsing,
    /// the client's own work, left out).
    rtt: Duration,
}

/// Why a request got no log.
#[derive(Debug)]
enum Failure {
    /// The server answered with an error; the connection goes on.
    Refused(String),
    /// The connection failed or sent what is not a server message.
    Broken(String),
}

impl Failure {
    fn text(&self) -> &str {
        match self {
            Failure::Refused(e) | Failure::Broken(e) => e,
        }
    }
}

/// Sends `request` and reads frames until the `log` reply (or an error).
async fn ask(conn: &mut Conn, request: &str) -> Result<Reply, Failure> {
    let sent = Instant::now();
    conn.send(request.to_owned())
        .await
        .map_err(Failure::Broken)?;
    loop {
        let text = conn.recv_text().await.map_err(Failure::Broken)?;
        let rtt = sent.elapsed();
        match decode_server(text.as_str()) {
            Ok(ServerMsg::Log(log)) => {
                return Ok(Reply {
                    bytes: text.len(),
                    steps: log.moves.len(),
                    rtt,
                })
            }
            Ok(ServerMsg::Error { code, message, .. }) => {
                return Err(Failure::Refused(format!("error {code}: {message}")))
            }
            // Nothing else is expected, but nothing else answers this.
            Ok(_) => {}
            Err(e) => return Err(Failure::Broken(e.message)),
        }
    }
}

/// One reader's (or all readers') figures for the measured window.
#[derive(Debug, Default, PartialEq)]
struct Books {
    /// Requests sent.
    requests: u64,
    /// `log` replies to them.
    replies: u64,
    /// Error replies, failed connections and reads.
    errors: u64,
    /// The size of a reply (they are all the same log).
    reply_bytes: usize,
    /// Steps in a reply.
    steps: usize,
    /// Round trips, µs.
    rtt_us: Vec<u32>,
}

impl Books {
    fn add(&mut self, other: Books) {
        self.requests += other.requests;
        self.replies += other.replies;
        self.errors += other.errors;
        self.reply_bytes = self.reply_bytes.max(other.reply_bytes);
        self.steps = self.steps.max(other.steps);
        self.rtt_us.extend(other.rtt_us);
    }

    /// As JSON, over a window of `secs`.
    fn report(mut self, secs: f64) -> Value {
        self.rtt_us.sort_unstable();
        let ms = |us: u32| round(f64::from(us) / 1000.0);
        json!({
            "requests": self.requests,
            "replies": self.replies,
            "errors": self.errors,
            "reply_bytes": self.reply_bytes,
            "steps": self.steps,
            "round_trip_ms": {
                "p50": ms(quantile(&self.rtt_us, 0.50)),
                "p99": ms(quantile(&self.rtt_us, 0.99)),
                "max": ms(self.rtt_us.last().copied().unwrap_or(0)),
            },
            "per_s": round(if secs > 0.0 { self.replies as f64 / secs } else { 0.0 }),
        })
    }
}

/// The measured window.
#[derive(Clone, Copy, Debug)]
struct Window {
    start: Instant,
    end: Instant,
}

impl Window {
    fn holds(self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }
}

/// The readers of one load, running.
#[derive(Debug)]
pub struct Readers {
    /// Their figures, added up, once they all stopped.
    done: oneshot::Receiver<Books>,
}

impl Readers {
    /// Starts `reads.readers` readers at once (they run through the
    /// warm-up), reader `i` on `urls[i % urls.len()]`; they stop at `end`.
    /// They run on a thread of their own: decoding a big reply takes
    /// milliseconds, which on the bots' runtime would delay the bots and
    /// show up in the move latency as the server's.
    pub fn start(reads: &LogReads, urls: &[String], start: Instant, end: Instant) -> Readers {
        let window = Window { start, end };
        let request = request(&reads.room);
        let every = reads.every;
        let targets: Vec<Option<String>> = (0..reads.readers)
            .map(|i| urls.get(i % urls.len().max(1)).cloned())
            .collect();
        let (tx, done) = oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("log-readers".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        eprintln!("log readers: no runtime: {e}");
                        let _ = tx.send(Books {
                            errors: 1,
                            ..Books::default()
                        });
                        return;
                    }
                };
                let all = rt.block_on(async move {
                    let tasks: Vec<_> = targets
                        .into_iter()
                        .enumerate()
                        .map(|(i, url)| {
                            let request = request.clone();
                            tokio::spawn(async move {
                                match url {
                                    Some(url) => read(i, url, request, every, window).await,
                                    None => Books {
                                        errors: 1,
                                        ..Books::default()
                                    },
                                }
                            })
                        })
                        .collect();
                    let mut all = Books::default();
                    for t in tasks {
                        match t.await {
                            Ok(b) => all.add(b),
                            Err(_) => all.errors += 1,
                        }
                    }
                    all
                });
                let _ = tx.send(all);
            });
        if let Err(e) = spawned {
            eprintln!("log readers: no thread: {e}");
        }
        Readers { done }
    }

    /// Waits for the readers to stop; their figures over the window of
    /// `secs`.
    pub async fn finish(self, secs: f64) -> Value {
        let all = self.done.await.unwrap_or(Books {
            errors: 1,
            ..Books::default()
        });
        all.report(secs)
    }
}

/// Reader `i`: asks for the log again and again until the window ends,
/// opening a new connection (from the same address) if its own breaks.
async fn read(i: usize, url: String, request: String, every: Duration, window: Window) -> Books {
    let source = loopback_address(READER_NET, u32::try_from(i).unwrap_or(u32::MAX));
    let mut books = Books::default();
    let mut pace = pacer();
    let mut conn: Option<Conn> = None;
    while Instant::now() < window.end {
        let c = match conn.as_mut() {
            Some(c) => c,
            None => match Conn::open_from(&url, source).await {
                Ok(c) => conn.insert(c),
                Err(e) => {
                    eprintln!("log reader {i}: {e}");
                    books.errors += u64::from(window.holds(Instant::now()));
                    sleep(RECONNECT_PAUSE).await;
                    continue;
                }
            },
        };
        pace.wait().await;
        let sent = Instant::now();
        if sent >= window.end {
            break;
        }
        let counted = window.holds(sent);
        books.requests += u64::from(counted);
        match ask(c, &request).await {
            Ok(reply) if counted => {
                let rtt = reply.rtt.as_micros();
                books.replies += 1;
                books.reply_bytes = books.reply_bytes.max(reply.bytes);
                books.steps = books.steps.max(reply.steps);
                books.rtt_us.push(u32::try_from(rtt).unwrap_or(u32::MAX));
            }
            Ok(_) => {}
            Err(e) => {
                eprintln!("log reader {i}: {}", e.text());
                books.errors += u64::from(counted);
                if let Failure::Broken(_) = e {
                    conn = None;
                    sleep(RECONNECT_PAUSE).await;
                }
            }
        }
        sleep_until((Instant::now() + every).min(window.end)).await;
    }
    if let Some(c) = conn {
        c.close().await;
    }
    books
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_options_make_one_pile_of_one_rod_per_step() {
        assert_eq!(match_options(4000), json!({"piles": [0, 4000]}));
        assert_eq!(match_options(1), json!({"piles": [0, 1]}));
    }

    #[test]
    fn books_add_up_and_report_in_milliseconds() {
        let mut all = Books::default();
        all.add(Books {
            requests: 3,
            replies: 2,
            errors: 1,
            reply_bytes: 100,
            steps: 4,
            rtt_us: vec![3000, 1000],
        });
        all.add(Books {
            requests: 2,
            replies: 2,
            errors: 0,
            reply_bytes: 100,
            steps: 4,
            rtt_us: vec![2500, 1500],
        });
        assert_eq!(
            all.report(2.0),
            json!({
                "requests": 5, "replies": 4, "errors": 1,
                "reply_bytes": 100, "steps": 4,
                "round_trip_ms": {"p50": 1.5, "p99": 3, "max": 3},
                "per_s": 2,
            })
        );
    }

    #[test]
    fn no_replies_report_zeros() {
        let r = Books::default().report(5.0);
        assert_eq!(r["replies"], json!(0));
        assert_eq!(r["round_trip_ms"]["p99"], json!(0));
        assert_eq!(r["per_s"], json!(0));
    }
}
