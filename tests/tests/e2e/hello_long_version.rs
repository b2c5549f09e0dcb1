//! A `hello` whose version has 401 digits is negotiated as the protocol
//! says for any integer (above the newest: the newest; below the oldest:
//! `protocol/version`, and the connection stays open), not refused as
//! malformed.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_protocol::{ErrorCode, ServerMsg, PROTOCOL_VERSION};
use parlor_server::Config;
use parlor_tests::{start_server_with, Raw};

#[tokio::test]
async fn a_version_of_401_digits_is_negotiated_not_malformed() {
    let server = start_server_with(Config::default()).await;
    let url = server.url();
    let long = format!("1{}", "0".repeat(400));
    let mut high = Raw::connect(&url).await;
    high.send_text(&format!(r#"{{"type":"hello","version":{long}}}"#))
        .await;
    let version = high
        .expect(|m| match m {
            ServerMsg::Welcome { version, .. } => Some(*version),
            ServerMsg::Error { code, .. } => panic!("refused: {code}"),
            _ => None,
        })
        .await;
    assert_eq!(version, PROTOCOL_VERSION);
    let mut low = Raw::connect(&url).await;
    low.send_text(&format!(r#"{{"type":"hello","version":-{long}}}"#))
        .await;
    low.expect_error(ErrorCode::ProtocolVersion).await;
    low.send_text(r#"{"type":"hello","version":1}"#).await;
    low.expect(|m| matches!(m, ServerMsg::Welcome { .. }).then_some(()))
        .await;
    server.stop().await.unwrap();
}
