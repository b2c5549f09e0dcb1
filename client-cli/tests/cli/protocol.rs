//! The client against a scripted server: what it does with messages it
//! does not know.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use futures_util::{SinkExt, StreamExt};
use parlor_cli::{Client, ClientError};
use parlor_protocol::ServerMsg;
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

/// A server that welcomes one client, then sends `frames` in order.
async fn scripted(frames: Vec<&'static str>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("ws://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        let hello = ws.next().await.unwrap().unwrap();
        assert!(hello.to_text().unwrap().contains("\"hello\""));
        let welcome = r#"{"type":"welcome","version":1,"session":"00000000-0000-0000-0000-000000000001","token":"00000000-0000-0000-0000-000000000002","games":["nimrod"]}"#;
        ws.send(Message::Text(welcome.into())).await.unwrap();
        for f in frames {
            ws.send(Message::Text(f.into())).await.unwrap();
        }
        // Keep the connection open until the client is done.
        while ws.next().await.is_some() {}
    });
    url
}

#[tokio::test]
async fn messages_of_unknown_types_are_skipped_and_garbage_is_not() {
    let url = scripted(vec![
        r#"{"type":"from_a_newer_server","x":1}"#,
        r#"{"type":"seek_ended","seek":1,"reason":"a_reason_not_known_yet"}"#,
        r#"{"type":"pong","id":7}"#,
        "this is not JSON",
    ])
    .await;
    let mut c = Client::connect(&url, "t").await.unwrap();
    match c.recv().await.unwrap() {
        ServerMsg::Pong { id } => assert_eq!(id, Some(7)),
        other => panic!("expected the pong, got {other:?}"),
    }
    assert!(matches!(c.recv().await, Err(ClientError::Protocol(_))));
}
