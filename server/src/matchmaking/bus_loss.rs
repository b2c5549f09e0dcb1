//! Cluster mode: what the matchmaker does when messages to this node
//! may have been lost on the bus.

use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;
use tokio::sync::broadcast::Receiver;
use tokio_util::sync::CancellationToken;

use super::{Books, Matchmaker};

/// Cluster mode: each time messages to this node may have been lost on
/// the bus (Redis came back and this node listens again, or it fell
/// behind), closes (to reconnect and resume) the connections here whose
/// challenges may have been answered meanwhile: an acceptance on
/// another node summons the challenger over the bus, and one sent
/// while it was down is gone. (Seekers need not: where they were
/// seated is kept in the database and collected.) Then tells the players
/// here again of the challenges addressed to them.
pub(super) async fn close_challengers(
    mm: Arc<Matchmaker>,
    mut losses: Receiver<()>,
    shutdown: CancellationToken,
) {
    let Books::Shared(books) = &mm.books else {
        return;
    };
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            got = losses.recv() => match got {
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return,
            },
        }
        let challengers = books.challengers();
        if !challengers.is_empty() {
            tracing::warn!(
                connections = challengers.len(),
                "bus messages may have been lost; connections whose challenges may have been accepted meanwhile are closed to resume"
            );
        }
        for conn in challengers {
            mm.dir.close_to_resume(conn);
        }
        super::retell::after_loss(&mm, books).await;
    }
}
