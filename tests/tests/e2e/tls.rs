//! Native TLS end to end: a certificate made at test time (a CA and a
//! leaf for `localhost` and 127.0.0.1, by rcgen), a server started with
//! it from PEM files, and clients that trust the CA.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parlor_cli::{bot, Client};
use parlor_games::{GameKind, GameRng, Outcome, Seat};
use parlor_protocol::{ClientMsg, ServerMsg};
use parlor_server::net::Tls;
use parlor_server::Config;
use parlor_tests::{start_server_with, TestServer};
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// A test CA and a leaf it signed, as PEM.
struct Pki {
    ca: String,
    ca_der: CertificateDer<'static>,
    cert: String,
    key: String,
}

/// One CA for the whole test binary: the CLI's trust settings are made
/// once a process.
fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(|| {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Parlor test CA");
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let leaf_key = rcgen::KeyPair::generate().unwrap();
        let leaf_params =
            rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
                .unwrap();
        let leaf = leaf_params.signed_by(&leaf_key, &ca, &ca_key).unwrap();
        Pki {
            ca: ca.pem(),
            ca_der: ca.der().clone(),
            cert: leaf.pem(),
            key: leaf_key.serialize_pem(),
        }
    })
}

/// Writes `text` to `name` in `dir`.
fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A server under TLS, its certificate read from PEM files as
/// `--tls-cert` and `--tls-key` read them.
async fn tls_server(mut config: Config) -> TestServer {
    let dir = tempfile::tempdir().unwrap();
    let cert = file(&dir, "cert.pem", &pki().cert);
    let key = file(&dir, "key.pem", &pki().key);
    config.tls = Some(Tls::from_pem_files(&cert, &key).unwrap());
    start_server_with(config).await
}

/// Makes the CLI's client trust the test CA (once a process). The CLI's
/// TLS settings are the process's, fixed by the first `wss://` or
/// `https://` connection it makes: in this test binary only this file's
/// tests make one, each after calling this.
fn trust_test_ca() {
    static TRUSTED: OnceLock<()> = OnceLock::new();
    TRUSTED.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let ca = file(&dir, "ca.pem", &pki().ca);
        parlor_cli::tls::trust_ca_file(&ca).unwrap();
    });
}

/// A TLS connection to `server` trusting the test CA, by rustls directly.
async fn https(server: &TestServer) -> tokio_rustls::client::TlsStream<TcpStream> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(pki().ca_der.clone()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let tcp = TcpStream::connect(server.addr()).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .unwrap()
}

/// Reads one HTTP answer with a `Content-Length` from `stream`.
async fn answer<S: AsyncReadExt + Unpin>(stream: &mut S) -> (String, String) {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let len = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap())
                })
                .unwrap();
            if body.len() >= len {
                return (head.to_owned(), body.to_owned());
            }
        }
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("an answer in time")
            .unwrap();
        assert!(n > 0, "closed before the answer ended: {text}");
        bytes.extend_from_slice(&chunk[..n]);
    }
}

#[tokio::test]
async fn a_wss_client_plays_nimrod_to_the_end() {
    trust_test_ca();
    let server = tls_server(Config::default()).await;
    let url = server.url();
    assert!(url.starts_with("wss://"), "{url}");
    let mut host = Client::connect(&url, "host").await.unwrap();
    let room = host
        .request(
            &ClientMsg::CreateRoom {
                game: GameKind::Nimrod,
                seats: Some(2),
                options: json!({"piles": [5, 8]}),
                clock: None,
                private: false,
            },
            |m| match m {
                ServerMsg::RoomCreated { room, .. } => Some(room),
                _ => None,
            },
        )
        .await
        .unwrap();
    let mut players = Vec::new();
    for (seat, mut client) in [
        (0u8, host),
        (1u8, Client::connect(&url, "guest").await.unwrap()),
    ] {
        let room = room.clone();
        players.push(tokio::spawn(async move {
            client
                .request(
                    &ClientMsg::Join {
                        room: room.clone(),
                        seat: Some(Seat(seat)),
                        client_seed: None,
                    },
                    |m| matches!(m, ServerMsg::Joined { .. }).then_some(()),
                )
                .await
                .unwrap();
            let mut rng = GameRng::from_seed(u64::from(seat) + 1);
            bot::play(&mut client, &room, Seat(seat), Some("random"), &mut rng)
                .await
                .unwrap()
        }));
    }
    let mut outcomes = Vec::new();
    for p in players {
        outcomes.push(
            tokio::time::timeout(Duration::from_secs(60), p)
                .await
                .expect("the match ends")
                .unwrap(),
        );
    }
    // Both saw the same end, and somebody won (Nimrod has no draws).
    assert_eq!(outcomes[0], outcomes[1]);
    assert!(matches!(outcomes[0], Outcome::Win { .. }), "{outcomes:?}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn https_serves_the_health_check_and_the_page_on_one_connection() {
    let server = tls_server(Config::default()).await;
    let mut tls = https(&server).await;
    tls.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let (head, body) = answer(&mut tls).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(body.starts_with("ok"), "{body}");
    // Kept alive: the page next, on the same TLS session.
    tls.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let (head, body) = answer(&mut tls).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/html"),
        "{head}"
    );
    assert!(
        body.to_ascii_lowercase().starts_with("<!doctype html"),
        "{body}"
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn plain_http_and_silence_on_the_tls_port_are_let_go_promptly() {
    let server = tls_server(Config {
        limits: parlor_server::limits::Limits {
            hello_timeout: Duration::from_secs(1),
            ..Default::default()
        },
        ..Config::default()
    })
    .await;
    // Plain HTTP: no answer in clear, and closed at once (it is not a
    // TLS handshake), long before any timeout.
    let started = Instant::now();
    let mut plain = TcpStream::connect(server.addr()).await.unwrap();
    plain
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut got = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), plain.read_to_end(&mut got))
        .await
        .expect("closed, not left hanging");
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    assert!(
        !String::from_utf8_lossy(&got).contains("HTTP/1.1"),
        "{got:?}"
    );
    // A client that never starts its handshake is let go when its head
    // would have been due (here the 1 s hello deadline, the tighter).
    let started = Instant::now();
    let mut silent = TcpStream::connect(server.addr()).await.unwrap();
    let mut got = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), silent.read_to_end(&mut got))
        .await
        .expect("closed, not left hanging");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    drop((plain, silent));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_metrics_listener_stays_plain_http() {
    let server = tls_server(Config {
        metrics_bind: Some(([127, 0, 0, 1], 0).into()),
        ..Config::default()
    })
    .await;
    let mut plain = TcpStream::connect(server.metrics_addr().unwrap())
        .await
        .unwrap();
    plain
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let (head, body) = answer(&mut plain).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(body.starts_with("ok"), "{body}");
    drop(plain);
    server.stop().await.unwrap();
}

#[test]
fn bad_certificate_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let cert = file(&dir, "cert.pem", &pki().cert);
    let key = file(&dir, "key.pem", &pki().key);
    let missing = dir.path().join("missing.pem");
    let err = Tls::from_pem_files(&missing, &key).unwrap_err().to_string();
    assert!(
        err.contains("missing.pem") && err.contains("certificate"),
        "{err}"
    );
    // A key where the certificate should be, and the other way round.
    let err = Tls::from_pem_files(&key, &key).unwrap_err().to_string();
    assert!(
        err.contains("key.pem") && err.contains("no PEM certificate"),
        "{err}"
    );
    let err = Tls::from_pem_files(&cert, &cert).unwrap_err().to_string();
    assert!(
        err.contains("cert.pem") && err.contains("no PEM private key"),
        "{err}"
    );
    // A key that is not the certificate's.
    let other = file(
        &dir,
        "other.pem",
        &rcgen::KeyPair::generate().unwrap().serialize_pem(),
    );
    let err = Tls::from_pem_files(&cert, &other).unwrap_err().to_string();
    assert!(
        err.contains("other.pem") && err.contains("cert.pem"),
        "{err}"
    );
    assert!(Tls::from_pem_files(&cert, &key).is_ok());
}
