//! What accounts play through the faults: seekers and challengers finding
//! each other, rated matches (checked against the ledger at the end), and
//! a Swiss event of bot accounts (re-checked from its logs and seed).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::shared::{lock, Shared};
use crate::common::seekers;
use crate::common::{event_lane, rated};

/// Pairs of players seek each other on random nodes, again and again
/// until the faults are over (each pair asks for piles of its own, so
/// that it pairs only with itself); every attempt must end, not hang.
pub(crate) async fn seekers(sh: Arc<Shared>, lane: u64) {
    let mut attempt = 0u64;
    while !sh.calm() {
        attempt += 1;
        let (Some((_, a)), Some((_, b))) = (sh.pick(), sh.pick()) else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let piles = [lane + 1, 1_000 + attempt];
        match seekers::seek_pair(&a, &b, piles).await {
            Ok(ended) => {
                *lock(&sh.finding)
                    .entry(format!("seek {ended:?}"))
                    .or_default() += 1
            }
            Err(e) => sh.problem(format!("seekers (lane {lane}, attempt {attempt}): {e}")),
        }
    }
}

/// A challenger and the player it names, each with an account, connect
/// to random nodes and play (the challenge accepted) again and again
/// until the faults are over.
pub(crate) async fn challengers(sh: Arc<Shared>, lane: u64) {
    let (from, to) = (format!("chaos-from-{lane}"), format!("chaos-to-{lane}"));
    let mut tokens = None;
    while tokens.is_none() && !sh.calm() {
        let Some((_, url)) = sh.pick() else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let http = url
            .trim_start_matches("ws://")
            .trim_end_matches('/')
            .to_owned();
        // Made once; a fault during the making is met by making them again
        // under the same names (a taken name means they were made).
        let made = async {
            let a = seekers::account_token(&http, &from).await?;
            let b = seekers::account_token(&http, &to).await?;
            Ok::<_, String>((a, b))
        };
        match made.await {
            Ok(t) => tokens = Some(t),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    let Some((ta, tb)) = tokens else { return };
    while !sh.calm() {
        let (Some((_, a)), Some((_, b))) = (sh.pick(), sh.pick()) else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        match seekers::challenge_pair(&a, &b, &ta, &tb, &to).await {
            Ok(seekers::Ended::Offline) => {
                *lock(&sh.finding)
                    .entry("challenge Offline".into())
                    .or_default() += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Ok(ended) => {
                *lock(&sh.finding)
                    .entry(format!("challenge {ended:?}"))
                    .or_default() += 1;
            }
            Err(e) => sh.problem(format!("challengers (lane {lane}): {e}")),
        }
    }
}

/// The accounts that play rated matches through the faults.
pub(crate) const RATED: [&str; 2] = ["chaos-rated-a", "chaos-rated-b"];

/// Rated matches played once the faults are over.
pub(crate) const RATED_WHEN_CALM: usize = 2;

/// Attempts those may take: just after the last fault a node may still be
/// taking rooms over, so one may be cut, but not most.
pub(crate) const RATED_CALM_ATTEMPTS: usize = 6;

/// Two accounts play short rated matches on random nodes again and again
/// until the faults are over (a fault may cut any of them), then a few
/// more; the ledger is checked against every room at the end.
pub(crate) async fn rated_players(sh: Arc<Shared>) {
    let mut tokens = None;
    while tokens.is_none() {
        let Some((_, url)) = sh.pick() else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let http = url
            .trim_start_matches("ws://")
            .trim_end_matches('/')
            .to_owned();
        let made = async {
            let a = seekers::account_token(&http, RATED[0]).await?;
            let b = seekers::account_token(&http, RATED[1]).await?;
            Ok::<_, String>((a, b))
        };
        match made.await {
            Ok(t) => tokens = Some(t),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    let Some((ta, tb)) = tokens else { return };
    let (mut calm_played, mut calm_tries) = (0, 0);
    while calm_played < RATED_WHEN_CALM {
        let calm = sh.calm();
        let (Some((_, a)), Some((_, b))) = (sh.pick(), sh.pick()) else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let mut rooms = Vec::new();
        let played = rated::rated_match(&a, &b, &ta, &tb, RATED[1], &mut rooms).await;
        lock(&sh.rated_rooms).extend(rooms);
        match played {
            Ok(_) => {
                *lock(&sh.finding).entry("rated Played".into()).or_default() += 1;
                calm_played += usize::from(calm);
            }
            Err(_) => *lock(&sh.finding).entry("rated Cut".into()).or_default() += 1,
        }
        calm_tries += usize::from(calm);
        if calm_tries >= RATED_CALM_ATTEMPTS && calm_played < RATED_WHEN_CALM {
            sh.problem(format!(
                "only {calm_played} of {calm_tries} rated matches after the faults finished"
            ));
            return;
        }
    }
}

/// The accounts that play a Swiss event through the faults.
pub(crate) const EVENT_PLAYERS: [&str; 4] =
    ["chaos-ev-a", "chaos-ev-b", "chaos-ev-c", "chaos-ev-d"];

/// The event's `host:port` of node `url`.
pub(crate) fn http_of(url: &str) -> String {
    url.trim_start_matches("ws://")
        .trim_end_matches('/')
        .to_owned()
}

/// Four bot accounts enter a Swiss event made on a random node and play
/// it on random nodes, reconnecting after every fault, until the faults
/// are over and the event has finished (checked at the end).
pub(crate) async fn event_players(sh: Arc<Shared>) {
    let made = loop {
        let Some((_, url)) = sh.pick() else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        match event_lane::make_event(&http_of(&url), &EVENT_PLAYERS).await {
            Ok(made) => break made,
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    };
    let (tokens, id) = made;
    *lock(&sh.event) = Some(id.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let players: Vec<_> = tokens
        .into_iter()
        .map(|t| {
            let sh = sh.clone();
            tokio::spawn(event_lane::roaming_player(
                move || sh.pick().map(|(_, url)| url),
                t,
                stop.clone(),
            ))
        })
        .collect();
    let finished = loop {
        if sh.calm() {
            let deadline = Instant::now() + event_lane::EVENT_FINISH_WITHIN;
            let mut done = false;
            while !done && Instant::now() < deadline {
                if let Some((_, url)) = sh.pick() {
                    done = event_lane::page(&http_of(&url), &id)
                        .await
                        .is_ok_and(|p| p.status == parlor_protocol::TournamentStatus::Finished);
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            break done;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    stop.store(true, Ordering::Relaxed);
    for p in players {
        let _ = p.await;
    }
    if !finished {
        sh.problem(format!(
            "the Swiss event {id} did not finish within {:?} after the faults",
            event_lane::EVENT_FINISH_WITHIN
        ));
    }
}
