//! Sending many statements in one round trip: tokio-postgres pipelines
//! requests that are in flight together on one connection, and the server
//! runs them in the order they were sent.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

/// Sends every request in the order given, then waits for every answer,
/// returned in that order.
///
/// A tokio-postgres request for a prepared statement is written to the
/// connection on its future's first poll, so polling each future once, in
/// order, fixes the order the server runs them in (which the savepoints
/// of a batch depend on; a `join_all` promises no order). Answers come
/// back in the same order, so they are then awaited one after the other,
/// each future polled again only once its answer can be there.
pub(super) async fn in_order<F: Future>(requests: Vec<F>) -> Vec<F::Output> {
    let mut requests: Vec<Pin<Box<F>>> = requests.into_iter().map(Box::pin).collect();
    let mut early: Vec<Option<F::Output>> = requests.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        for (request, answer) in requests.iter_mut().zip(early.iter_mut()) {
            if let Poll::Ready(out) = request.as_mut().poll(cx) {
                *answer = Some(out);
            }
        }
        Poll::Ready(())
    })
    .await;
    let mut answers = Vec::with_capacity(requests.len());
    for (request, answer) in requests.into_iter().zip(early) {
        answers.push(match answer {
            Some(out) => out,
            None => request.await,
        });
    }
    answers
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex, PoisonError};

    use super::*;

    #[tokio::test]
    async fn requests_start_in_order_and_answers_keep_it() {
        let started = Arc::new(Mutex::new(Vec::new()));
        let requests: Vec<_> = (0..100)
            .map(|i| {
                let started = Arc::clone(&started);
                async move {
                    started
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(i);
                    // Answers arrive out of order; some at once.
                    if i % 3 != 0 {
                        tokio::time::sleep(std::time::Duration::from_micros(100 - i)).await;
                    }
                    i * 2
                }
            })
            .collect();
        let answers = in_order(requests).await;
        assert_eq!(answers, (0..100).map(|i| i * 2).collect::<Vec<_>>());
        let started = started.lock().unwrap_or_else(PoisonError::into_inner);
        assert_eq!(*started, (0..100).collect::<Vec<_>>());
    }
}
