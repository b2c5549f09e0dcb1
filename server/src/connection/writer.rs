//! The writing half of a connection: frames from its outbox to the socket.

use futures_util::stream::SplitSink;
use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;
use tokio_util::sync::CancellationToken;

use crate::http::Transport;
use crate::outbox::{Inbox, Outgoing};

/// The socket's sending half.
pub(super) type Sink = SplitSink<WebSocketStream<Transport>, Message>;

fn close_frame(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code: CloseCode::from(code),
        reason: reason.into(),
    }))
}

/// Writes queued frames, flushing once whenever the queue runs dry so that
/// a burst of updates costs one syscall. When the connection is ended (too
/// slow, taken over), what is queued is dropped and a close frame says why.
/// When `recall` is cancelled, stops between batches and hands the socket
/// and the queue back (the connection moves to another shard); otherwise
/// returns `None` once the connection is over.
pub(super) async fn write_loop(
    mut sink: Sink,
    mut inbox: Inbox,
    recall: CancellationToken,
) -> Option<(Sink, Inbox)> {
    let stop = inbox.stopped();
    let mut stopped = std::pin::pin!(stop.cancelled());
    let mut recalled = std::pin::pin!(recall.cancelled());
    'batches: loop {
        let first = tokio::select! {
            biased;
            _ = &mut stopped => break 'batches,
            _ = &mut recalled => return Some((sink, inbox)),
            item = inbox.recv() => item,
        };
        let Some(first) = first else {
            let _ = sink.close().await;
            return None;
        };
        let mut next = Some(first);
        while let Some(item) = next.take() {
            let sent = match item {
                Outgoing::Text(t) => {
                    // A flag, not the token: polling the token takes a
                    // lock, and this runs for every frame.
                    if inbox.is_ended() {
                        break 'batches;
                    }
                    let len = t.len();
                    let sent = sink.feed(Message::Text(t)).await;
                    inbox.written(len);
                    sent
                }
                Outgoing::Ping => sink.feed(Message::Ping(Default::default())).await,
                Outgoing::Close(code, reason) => {
                    let _ = sink.send(close_frame(code, &reason)).await;
                    return None;
                }
            };
            if sent.is_err() {
                return None;
            }
            next = inbox.try_recv();
        }
        if sink.flush().await.is_err() {
            return None;
        }
        inbox.batch_done();
    }
    if let Some(end) = inbox.ending() {
        let _ = sink.send(close_frame(end.code, end.why.as_str())).await;
    }
    None
}
