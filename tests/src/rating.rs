//! Rated play from a test: seating several accounts in one rated match
//! through seeks, playing it out with legal moves, and reading the
//! public ratings ledger.

use std::net::SocketAddr;

use parlor_competition::LedgerLine;
use parlor_protocol::{RoomId, RoomStatus, Update};
use serde_json::{json, Value};

use crate::http::{account_with_token, request};
use crate::seeking::{matched, seek_id, signed_in};
use crate::Raw;

/// Registers a bot account per name and seats them all in one rated match
/// of `game` with `seats` seats, through seeks: the players ordered by
/// seat, the room, and each player's first update (by seat).
pub async fn rated_match(
    addr: SocketAddr,
    url: &str,
    names: &[&str],
    game: &str,
    options: Value,
) -> (Vec<Raw>, RoomId, Vec<Update>) {
    let mut seated = Vec::new();
    let mut seeks = Vec::new();
    for name in names {
        let (token, _) = account_with_token(addr, name).await;
        let mut c = signed_in(url, &token).await;
        let seek = json!({"type": "seek", "game": game, "seats": names.len(),
                          "options": options, "rated": true});
        seeks.push(seek_id(&mut c, seek).await);
        seated.push(c);
    }
    let mut by_seat: Vec<Option<(Raw, Update)>> = (0..names.len()).map(|_| None).collect();
    let mut the_room = None;
    for (mut c, seek) in seated.into_iter().zip(seeks) {
        let (room, seat, _, u) = matched(&mut c, seek).await;
        assert!(the_room.get_or_insert(room.clone()) == &room, "one room");
        by_seat[usize::from(seat)] = Some((c, u));
    }
    let (clients, updates) = by_seat
        .into_iter()
        .map(|s| s.expect("every seat taken"))
        .unzip();
    (clients, the_room.expect("a room"), updates)
}

/// Plays the match out, each seat to act playing its first legal move;
/// returns every player's last update (by seat), the match over.
pub async fn play_out_first_legal(
    players: &mut [Raw],
    room: &RoomId,
    mut last: Vec<Update>,
) -> Vec<Update> {
    loop {
        // Everyone's view of the latest position.
        let seq = last.iter().map(|u| u.seq).max().unwrap_or(0);
        for (c, u) in players.iter_mut().zip(last.iter_mut()) {
            while u.seq < seq || u.status == RoomStatus::Waiting {
                *u = c.update(room).await;
            }
        }
        if last.iter().all(|u| u.status == RoomStatus::Finished) {
            // The final update of a rated match carries the changes.
            return last;
        }
        let Some(i) = last.iter().position(|u| {
            u.you.is_some_and(|s| u.to_act.contains(s))
                && u.legal.as_ref().is_some_and(|l| !l.is_empty())
        }) else {
            // Nobody to act with a list: wait for the next update.
            for (c, u) in players.iter_mut().zip(last.iter_mut()) {
                *u = c.update_at(room, seq + 1).await;
            }
            continue;
        };
        let u = &last[i];
        let mv = u.legal.as_ref().and_then(|l| l.first()).cloned();
        let seat = u.you.map(|s| s.0).unwrap_or_default();
        players[i]
            .play(room, seat, u.seq, mv.expect("a legal move"))
            .await;
        last[i] = players[i].update_at(room, seq + 1).await;
    }
}

/// The whole ledger, line by line, paged as a client must.
pub async fn ledger(addr: SocketAddr, pool: Option<&str>) -> Vec<LedgerLine> {
    let mut out: Vec<LedgerLine> = Vec::new();
    loop {
        let after = out.last().map_or(0, |l| l.n);
        let pool = pool.map(|p| format!("&pool={p}")).unwrap_or_default();
        let answer = request(
            addr,
            "GET",
            &format!("/api/ratings/ledger?after={after}{pool}"),
            &[],
            None,
        )
        .await;
        assert_eq!(answer.status, 200, "{answer:?}");
        assert_eq!(answer.header("content-type"), Some("application/x-ndjson"));
        let page: Vec<LedgerLine> = answer
            .text
            .lines()
            .map(|l| serde_json::from_str(l).expect("a ledger line"))
            .collect();
        let done = page.len() < 1000;
        out.extend(page);
        if done {
            return out;
        }
    }
}
