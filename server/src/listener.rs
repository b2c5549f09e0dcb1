//! Accepting connections.

use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::{timeout, timeout_at, Instant};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::admission::{Admission, Turned};
use crate::api::{self, Plain};
use crate::connection::{serve, Analyses, Hold, Shared};
use crate::directory::Directory;
use crate::http::{self, Method, Peer, Proxies};
use crate::limits::{ACCEPT_BACKOFF, LISTEN_BACKLOG, MAX_TURN_AWAYS, TURN_AWAY_LINGER};
use crate::net::{Socket, Stream, Tls};
use crate::slots::Slots;
use crate::websocket::WebSocket;

/// Seconds a client turned away at the connection cap is asked to wait.
const FULL_RETRY_AFTER_S: u64 = 5;

/// Why a connection is turned away before its handshake.
#[derive(Clone, Copy, Debug)]
enum Refusal {
    /// Its address connects too fast, or flooded.
    Admission(Turned),
    /// The server holds as many connections as it allows.
    Full,
}

/// How the game port is reached (under native TLS or in clear, through
/// which trusted proxies) and what it answers beside the game.
#[derive(Clone, Debug, Default)]
pub struct GamePort {
    /// Native TLS (`--tls-cert`): every connection's TLS handshake
    /// comes before its first request head.
    pub tls: Option<Tls>,
    /// Proxies whose `X-Forwarded-*` headers are believed
    /// (`--behind-proxy`).
    pub proxies: Proxies,
    /// Whether `/healthz` and `/metrics` are answered here (not when they
    /// have a listener of their own).
    pub ops_here: bool,
}

/// Listens on `addr` with a backlog of [`LISTEN_BACKLOG`] (the standard
/// library's bind asks for 128).
pub fn bind(addr: std::net::SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // Rebinding right after a restart must not wait out old connections.
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Accepts connections until `shutdown`, each served on its own task.
/// A connection's place among `slots` (`limits.max_connections` of them)
/// is taken before its handshake (as mini-redis takes its semaphore
/// before `accept`): past the cap, and for addresses connecting faster
/// than `limits.admission` allows, the client gets an HTTP refusal and no
/// task of its own. `/healthz` and `/metrics` are answered here only if
/// `port.ops_here`.
pub async fn accept_loop(
    listener: TcpListener,
    directory: Arc<Directory>,
    slots: Arc<Slots>,
    ops_here: bool,
    tracker: TaskTracker,
    shutdown: CancellationToken,
    config: &crate::config::Config,
) {
    let limits = config.limits;
    let port = Arc::new(GamePort {
        tls: config.tls.clone(),
        proxies: config.proxies.clone(),
        ops_here,
    });
    let turn_aways = Arc::new(Semaphore::new(MAX_TURN_AWAYS));
    let accounts = Arc::new(crate::accounts::Accounts::new(
        crate::accounts::store::AccountStore::new(directory.store().beside()),
        config.accounts.clone(),
        &limits,
        Arc::clone(&directory) as Arc<dyn crate::accounts::EndConnections>,
    ));
    let matchmaker =
        crate::matchmaking::Matchmaker::start(Arc::clone(&directory), &tracker, shutdown.clone());
    // Tournaments and the ladder side by side, each on its own leased
    // ticker (the ladder's starts first, as it always has).
    let ladder = Arc::new(crate::ladder::Ladder::new(Arc::clone(&directory)));
    ladder.start(&tracker, shutdown.clone());
    let tournaments = Arc::new(crate::tournaments::Tournaments::new(Arc::clone(&directory)));
    tournaments.start(&tracker, shutdown.clone());
    let shared = Arc::new(Shared {
        accounts,
        matchmaker,
        tournaments,
        ladder,
        directory,
        analyses: Arc::new(Analyses::new(limits.analysis_positions)),
        admission: Admission::new(limits.admission),
        shutdown: shutdown.clone(),
        limits,
        tracker: tracker.clone(),
    });
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let now = Instant::now();
        // A trusted proxy's connections are admitted by the address it
        // forwards, once their first head is read.
        let proxied = port.proxies.trusts(peer.ip());
        let admitted = if proxied {
            Ok(())
        } else {
            shared.admission.admit(peer.ip(), now)
        };
        let refusal = match admitted {
            Err(why) => Err(Refusal::Admission(why)),
            Ok(()) => slots.take(now).ok_or(Refusal::Full),
        };
        let permit = match refusal {
            Ok(permit) => permit,
            Err(why) => {
                tracing::debug!(%peer, ?why, "connection turned away");
                // Answering holds the socket a moment; past this many at
                // once the socket is simply closed, so that a burst cannot
                // use up the file descriptors players need.
                if let Ok(answering) = Arc::clone(&turn_aways).try_acquire_owned() {
                    tracker.spawn(async move {
                        turn_away(stream, why).await;
                        drop(answering);
                    });
                }
                continue;
            }
        };
        // One deadline for the handshake and `hello` together.
        let hello_by = Instant::now() + limits.hello_timeout;
        let shared = Arc::clone(&shared);
        let slots = Arc::clone(&slots);
        let stop = shutdown.clone();
        // The socket leaves this runtime's poller for that of the shard
        // the connection runs on, which then alone is woken by its reads.
        let stream = match stream.into_std() {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "cannot hand a connection to a shard");
                continue;
            }
        };
        let shards = Arc::clone(shared.directory.shards());
        let port = Arc::clone(&port);
        shards.spawn_connection(&tracker, async move {
            let open_connection = crate::metrics::OpenConnection::open();
            let stream = match TcpStream::from_std(stream) {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(error = %e, "a shard cannot poll a connection");
                    return;
                }
            };
            let http = PlainHttp {
                slots: &slots,
                port: &port,
                charge: if proxied {
                    Charge::Owed
                } else {
                    Charge::Held(peer.ip())
                },
            };
            // Boxed: the HTTP requests a connection may serve first need
            // more state than its WebSocket life, and a task keeps the
            // size of its largest state for as long as it lives.
            let ws = tokio::select! {
                _ = stop.cancelled() => None,
                ws = Box::pin(open(stream, peer.ip(), hello_by, &shared, http)) => ws,
            };
            if let Some((ws, client, hello_by, credential)) = ws {
                let hold = Hold {
                    permit,
                    open: open_connection,
                };
                serve(ws, client, hello_by, shared, credential, hold);
            }
        });
    }
}

/// What answering plain HTTP on the game port needs beside [`Shared`].
struct PlainHttp<'a> {
    /// The connection slots (the health check reports on them).
    slots: &'a Slots,
    /// TLS, the trusted proxies, and whether the operations' paths are
    /// answered.
    port: &'a GamePort,
    /// The admission token the connection holds.
    charge: Charge,
}

/// Which address's admission token a connection holds, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Charge {
    /// Taken at the accept for this address (a direct connection), or
    /// for the client a proxy forwarded.
    Held(std::net::IpAddr),
    /// Given back (the connection fetched only the client's files).
    Refunded,
    /// A trusted proxy's connection, not yet charged to any client.
    Owed,
}

/// Reads request heads and answers them: a WebSocket upgrade goes on
/// to the handshake (the connection then serves the protocol, with the
/// time `hello` is due by), and any other request is a plain HTTP one,
/// answered here, after which the connection is kept for the next (up to
/// [`http::MAX_REQUESTS_PER_CONNECTION`]; the browser loads a page's
/// files over one or two). The first head must come within
/// [`http::HEAD_TIMEOUT`] and the handshake by `deadline`; each later head
/// within [`http::KEEP_ALIVE_IDLE`] of the answer before. Under native
/// TLS its handshake comes first, due with the first head. The
/// connection's [`Peer`] (the client's address and whether it is secure)
/// is the upgrade request's.
async fn open(
    stream: TcpStream,
    socket_peer: std::net::IpAddr,
    deadline: Instant,
    shared: &Shared,
    mut plain: PlainHttp<'_>,
) -> Option<(
    WebSocket,
    Peer,
    Instant,
    Option<crate::accounts::Credential>,
)> {
    let mut head_by = deadline.min(Instant::now() + http::HEAD_TIMEOUT);
    let socket = Socket::new(stream);
    let mut stream = match &plain.port.tls {
        None => Stream::Plain(socket),
        // The handshake is due when the first head would be: a client
        // speaking plain HTTP to this port fails it at once, and a silent
        // one gives its slot back then.
        Some(tls) => tls.accept(socket, head_by).await?,
    };
    let tls = stream.is_tls();
    let mut hello_by = deadline;
    let mut read = Vec::new();
    for served in 1..=http::MAX_REQUESTS_PER_CONNECTION {
        let head = match http::read_head_after(&mut stream, head_by, read).await {
            Ok(head) => head,
            Err(why) => {
                tracing::debug!(?why, served, "no request head");
                http::refuse_head(stream, why).await;
                return None;
            }
        };
        let peer = plain.port.proxies.peer(socket_peer, tls, &head);
        if head.upgrade {
            if served > 1 {
                // A connection kept alive from the page goes on to its
                // WebSocket: its handshake and `hello` are due from now.
                hello_by = Instant::now() + shared.limits.hello_timeout;
            }
            // It takes its address's token again if it gave it back (else
            // refunds would let an address connect without limit), or
            // first takes one if a proxy forwarded it.
            if plain.charge != Charge::Held(peer.addr) {
                if let Err(why) = shared.admission.admit(peer.addr, Instant::now()) {
                    turn_away(stream, Refusal::Admission(why)).await;
                    return None;
                }
            }
            if let Err(why) = http::check_upgrade(&head) {
                tracing::debug!(?why, "bad WebSocket upgrade");
                http::refuse_upgrade(stream, why).await;
                return None;
            }
            let credential = match (api::bearer(&head), api::session_cookie(&head)) {
                (Some(token), _) => Some(crate::accounts::Credential::Bearer(token.to_owned())),
                (None, Some(session)) => {
                    // A page of another site must not play as the player
                    // whose cookie the browser adds to its upgrade.
                    if !api::origin_allowed(
                        head.header("origin"),
                        head.header("host"),
                        peer.secure,
                        &shared.accounts.settings().allow_origins,
                    ) {
                        tracing::debug!("upgrade with the session cookie from a foreign origin");
                        http::refuse_upgrade(stream, http::BadUpgrade::ForeignOrigin).await;
                        return None;
                    }
                    Some(crate::accounts::Credential::Session(session.to_owned()))
                }
                (None, None) => None,
            };
            let _ = stream.set_nodelay(true);
            let ws = handshake(stream, head, hello_by).await?;
            return Some((ws, peer, hello_by, credential));
        }
        let mut found = match api::route(&head.method, &head.target) {
            api::Route::Plain(found) => found,
            api::Route::Json(endpoint) => {
                tracing::debug!(method = %head.method, ?endpoint, served, "API request");
                let keep_alive = served < http::MAX_REQUESTS_PER_CONNECTION
                    && head.count("transfer-encoding") == 0
                    && if head.minor >= 1 {
                        !head.lists("connection", "close")
                    } else {
                        head.lists("connection", "keep-alive")
                    };
                let req = api::ApiRequest {
                    accounts: &shared.accounts,
                    store: shared.directory.store(),
                    tournaments: &shared.tournaments,
                    ladder: &shared.ladder,
                    directory: &shared.directory,
                    matchmaker: &shared.matchmaker,
                    peer: peer.addr,
                    secure: peer.secure,
                };
                read = api::serve(&mut stream, &head, endpoint, req, keep_alive).await?;
                head_by = Instant::now() + http::KEEP_ALIVE_IDLE;
                continue;
            }
        };
        let method = Method::parse(&head.method);
        if found.is_ops() && !plain.port.ops_here {
            // Served on `--metrics-bind` only.
            found = Plain::Wire(http::Route::NotFound);
        }
        tracing::debug!(method = %head.method, target = %head.target, ?found, served, "HTTP request");
        // The client's files, the OpenAPI document and the health check
        // cost microseconds and no task: they do not count against the
        // address's connection rate (a page load fetches a dozen files; a
        // load balancer polls the health check as often as it likes).
        if matches!(
            found,
            Plain::Wire(http::Route::Asset(_)) | Plain::Health | Plain::OpenApi
        ) {
            if let Charge::Held(addr) = plain.charge {
                shared.admission.refund(addr, Instant::now());
                plain.charge = Charge::Refunded;
            }
        } else if plain.charge == Charge::Owed {
            // A proxy's connection pays for its first costly request as
            // a direct one pays at the accept.
            if let Err(why) = shared.admission.admit(peer.addr, Instant::now()) {
                turn_away(stream, Refusal::Admission(why)).await;
                return None;
            }
            plain.charge = Charge::Held(peer.addr);
        }
        let keep_alive = served < http::MAX_REQUESTS_PER_CONNECTION && head.keeps_alive();
        let ctx = api::Context {
            directory: &shared.directory,
            slots: plain.slots,
        };
        if !api::answer(&mut stream, method, found, ctx, keep_alive).await {
            return None;
        }
        read = head.rest();
        head_by = Instant::now() + http::KEEP_ALIVE_IDLE;
    }
    None
}

/// The WebSocket opening handshake's answer to `head` (checked by
/// `http::check_upgrade`), which must be written by `deadline`: a client
/// that opens a TCP connection and reads nothing is dropped.
async fn handshake(stream: Stream, head: http::Head, deadline: Instant) -> Option<WebSocket> {
    let key = head.header("sec-websocket-key")?.trim().to_owned();
    match timeout_at(deadline, WebSocket::accept(stream, &key, head.rest())).await {
        Ok(Ok(ws)) => Some(ws),
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "WebSocket handshake failed");
            None
        }
        Err(_) => None,
    }
}

/// Answers a turned-away connection with `429 Too Many Requests` or `503
/// Service Unavailable` (a WebSocket client reports the status as its
/// handshake error), then closes it. Whatever the client sent is drained
/// for a moment first: closing a socket with unread data resets it, and
/// the client might never see the answer.
async fn turn_away<S>(mut stream: S, why: Refusal)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let (status, retry, reason) = match why {
        Refusal::Admission(Turned::TooFast) => (
            "429 Too Many Requests",
            1,
            "too many new connections from your address",
        ),
        Refusal::Admission(Turned::CoolingDown(left)) => (
            "429 Too Many Requests",
            left.as_secs().max(1),
            "your address flooded the server and must wait",
        ),
        Refusal::Full => (
            "503 Service Unavailable",
            FULL_RETRY_AFTER_S,
            "server/full: the server has as many connections as it allows; try again later",
        ),
    };
    let answer = format!(
        "HTTP/1.1 {status}\r\nRetry-After: {retry}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reason}",
        reason.len()
    );
    let _ = timeout(TURN_AWAY_LINGER, async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 1024];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    })
    .await;
}
