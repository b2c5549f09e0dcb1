//! Analysis requests over the protocol: answers, bounds and bad input.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use parlor_protocol::{ErrorCode, ServerMsg};
use parlor_tests::{start_server, Raw};
use serde_json::{json, Value};

async fn analysis(c: &mut Raw) -> (Vec<Value>, bool) {
    c.expect(|m| match m {
        ServerMsg::Analysis {
            results, truncated, ..
        } => Some((results.clone(), *truncated)),
        ServerMsg::Error { .. } => panic!("refused: {m:?}"),
        _ => None,
    })
    .await
}

#[tokio::test]
async fn tools_answer_over_the_protocol_within_their_bounds() {
    let server = start_server(None).await;
    let mut c = Raw::greeted(&server.url(), "analyst").await;

    c.send_json(json!({"type": "analyze", "game": "nimrod", "tool": "best-move", "input": {"piles": [5, 12]}})).await;
    let (results, truncated) = analysis(&mut c).await;
    assert!(!truncated);
    assert_eq!(results[0]["move"], json!({"take": [0, 9]}));

    let b = |n: i64, c: &str| json!({"number": n, "color": c});
    let deal = json!({
        "p1": [b(1, "red"), b(2, "red"), b(3, "red"), b(2, "blue")],
        "p2": [b(5, "red"), b(5, "yellow"), b(5, "black"), b(4, "red")],
        "bag": [b(5, "blue")],
    });
    c.send_json(json!({"type": "analyze", "game": "rummikub", "tool": "predict", "input": deal}))
        .await;
    let (results, _) = analysis(&mut c).await;
    assert_eq!(results[0]["outcomes"], json!(3));
    assert_eq!(results[0]["win_fraction"], json!(0.0));

    // Streaming tools are cut at the reply limit and say so.
    c.send_json(json!({"type": "analyze", "game": "rummikub", "tool": "outcomes", "input": deal}))
        .await;
    let (results, truncated) = analysis(&mut c).await;
    assert_eq!((results.len(), truncated), (3, false));

    // An answer too big for one reply is refused, not sent in pieces.
    c.send_json(json!({"type": "analyze", "game": "nimrod", "tool": "lose-positions", "input": {"count": 900_000}})).await;
    c.expect_error(ErrorCode::AnalysisTooLarge).await;

    c.send_json(json!({"type": "analyze", "game": "cribbage", "tool": "score", "input": {"hand": ["5H", "5H", "5C", "JD"], "start": "5D"}})).await;
    c.expect_error(ErrorCode::AnalysisBadInput).await;
    c.send_json(json!({"type": "analyze", "game": "cribbage", "tool": "fortune", "input": {}}))
        .await;
    c.expect_error(ErrorCode::AnalysisUnknownTool).await;

    // The connection is still fine.
    c.send_json(json!({"type": "ping", "id": 7})).await;
    let id = c
        .expect(|m| match m {
            ServerMsg::Pong { id } => Some(*id),
            _ => None,
        })
        .await;
    assert_eq!(id, Some(7));
    server.stop().await.unwrap_or_else(|e| panic!("{e}"));
}
