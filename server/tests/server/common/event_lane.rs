//! A Swiss event played through faults (the crash and chaos tests): its
//! players reconnect after every fault, find their seats with `my_games`
//! (an announcement sent while they were away is lost with their
//! connection) and play on; at the end everything the event published
//! is re-checked against the match logs and the revealed seed.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parlor_competition::tournament::{
    check_rounds, standings, Entrant, EventRules, EventSeed, Format, GameRecord, Play, Round,
    RoundRecord,
};
use parlor_games::Outcome;
use parlor_protocol::{ServerMsg, TournamentInfo, TournamentStatus};
use serde_json::json;

use super::live::{get_log, hello, recv_within, send};
use super::rated::get;
use super::seekers::{account_token, connect, post};

/// Rounds of the event: enough that pairings depend on results.
pub const EVENT_ROUNDS: u32 = 3;

/// How often a player asks for its games again while nothing comes.
const ASK_AGAIN: Duration = Duration::from_secs(2);

/// How long the last (fault-free) cycle may take to finish the event.
pub const EVENT_FINISH_WITHIN: Duration = Duration::from_secs(90);

/// Makes the players' accounts and a Swiss event of Nimrod for them,
/// starting in a second (unrated: the rated lane's ledger check counts
/// its own matches); the tokens by player, and the event's id.
pub async fn make_event(http: &str, names: &[&str]) -> Result<(Vec<String>, String), String> {
    let mut tokens = Vec::new();
    for name in names {
        tokens.push(account_token(http, name).await?);
    }
    let starts = parlor_server::clock::now_ms() + 1_000;
    let auth = format!("Bearer {}", tokens[0]);
    let made = post(
        http,
        "/api/tournaments",
        Some(&auth),
        json!({"game": "nimrod", "format": "swiss", "rounds": EVENT_ROUNDS,
               "options": {"piles": [4, 6]}, "starts_at_ms": starts, "kind": "bot"}),
    )
    .await?;
    let id = made["id"].as_str().ok_or("no id")?.to_owned();
    for token in &tokens {
        let auth = format!("Bearer {token}");
        post(
            http,
            &format!("/api/tournaments/{id}/join"),
            Some(&auth),
            json!({}),
        )
        .await?;
    }
    Ok((tokens, id))
}

/// Plays the event's games as the player of `token` on `url` until the
/// connection breaks (a fault) or `stop` is set.
async fn player(url: String, token: String, stop: Arc<AtomicBool>) {
    let Ok(mut ws) = connect(&url, Some(&token)).await else {
        return;
    };
    if send(&mut ws, json!({"type": "my_games"})).await.is_err() {
        return;
    }
    let mut played: HashMap<String, u64> = HashMap::new();
    // Rooms this connection has seen an update of: it sits there.
    let mut seated: HashSet<String> = HashSet::new();
    let mut asked = tokio::time::Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let msg = match recv_within(&mut ws, Duration::from_millis(500)).await {
            Ok(m) => m,
            Err(e) if e == "timeout" => {
                // As a real client reads its event's page now and then: a
                // game made while this connection was being set up may
                // have missed both the notice and the first `my_games`.
                if asked.elapsed() >= ASK_AGAIN {
                    asked = tokio::time::Instant::now();
                    if send(&mut ws, json!({"type": "my_games"})).await.is_err() {
                        return;
                    }
                }
                continue;
            }
            Err(_) => return,
        };
        let join = |room: String, seat: u8| json!({"type": "join", "room": room, "seat": seat});
        let sent = match msg {
            ServerMsg::Games { games } => {
                let mut ok = Ok(());
                for g in games.iter().filter(|g| !seated.contains(g.room.as_str())) {
                    ok = ok.and(send(&mut ws, join(g.room.to_string(), g.seat.0)).await);
                }
                ok
            }
            ServerMsg::TournamentGame(t) => send(&mut ws, join(t.room.to_string(), t.seat.0)).await,
            ServerMsg::Update(u) => {
                let room = u.room.to_string();
                seated.insert(room.clone());
                let mine = u.you.filter(|s| u.to_act.contains(*s));
                let mv = u.legal.as_ref().and_then(|l| l.first()).cloned();
                match (mine, mv) {
                    (Some(seat), Some(mv)) if played.get(&room).is_none_or(|&s| s < u.seq) => {
                        played.insert(room.clone(), u.seq);
                        send(
                            &mut ws,
                            json!({"type": "play", "room": room, "seat": seat.0,
                                   "seq": u.seq, "move": mv}),
                        )
                        .await
                    }
                    _ => Ok(()),
                }
            }
            _ => Ok(()),
        };
        if sent.is_err() {
            return;
        }
    }
}

/// Plays as `token` on the node `pick` chooses, choosing again after
/// every break, until `stop` (the chaos test's roaming player).
pub async fn roaming_player(
    pick: impl Fn() -> Option<String>,
    token: String,
    stop: Arc<AtomicBool>,
) {
    while !stop.load(Ordering::Relaxed) {
        if let Some(url) = pick() {
            player(url, token.clone(), Arc::clone(&stop)).await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The event's page from `http`.
pub async fn page(http: &str, id: &str) -> Result<TournamentInfo, String> {
    let body = get(http, &format!("/api/tournaments/{id}")).await?;
    serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))
}

/// Plays the event on `url` with every player until their connections
/// break; with `last`, until the event has finished (no fault comes).
pub async fn event_lane(url: String, http: String, tokens: Vec<String>, id: String, last: bool) {
    let stop = Arc::new(AtomicBool::new(false));
    let players: Vec<_> = tokens
        .into_iter()
        .map(|t| tokio::spawn(player(url.clone(), t, Arc::clone(&stop))))
        .collect();
    if last {
        let deadline = tokio::time::Instant::now() + EVENT_FINISH_WITHIN;
        loop {
            match page(&http, &id).await {
                Ok(p) if p.status == TournamentStatus::Finished => break,
                _ if tokio::time::Instant::now() > deadline => {
                    panic!("the event did not finish: {:?}", page(&http, &id).await)
                }
                _ => tokio::time::sleep(Duration::from_millis(250)).await,
            }
        }
        stop.store(true, Ordering::Relaxed);
    }
    for p in players {
        let _ = p.await;
    }
}

/// Re-checks the finished event: the seed is the one committed to, every
/// round follows from it and the results before, every game's log has
/// the deal the seed derives and the result the page shows, and the
/// standings are recomputed from the logs. Panics on a disagreement;
/// the games checked.
pub async fn check_event(url: &str, http: &str, id: &str) -> usize {
    let page = page(http, id).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(page.status, TournamentStatus::Finished, "{page:?}");
    assert_eq!(page.format, Format::Swiss);
    assert_eq!(page.rounds.len(), EVENT_ROUNDS as usize);
    let seed = EventSeed::from_hex(page.seed.as_deref().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(seed.commitment(), page.commitment);
    let entrants: Vec<Entrant> = page
        .players
        .iter()
        .map(|p| Entrant {
            name: p.name.clone(),
            rating: p.rating.unwrap_or_else(|| panic!("{} unseeded", p.name)),
        })
        .collect();
    let (mut ws, _) = hello(url).await.unwrap_or_else(|e| panic!("{e}"));
    let mut rounds = Vec::new();
    let mut games = 0;
    for (r, (played, bye)) in page.rounds.iter().zip(&page.byes).enumerate() {
        let boards: Vec<[String; 2]> = played
            .iter()
            .map(|g| [g.seats[0].clone(), g.seats[1].clone()])
            .collect();
        let planned = Round {
            boards: boards.clone(),
            bye: bye.clone(),
        }
        .games(Play::Single);
        let mut record = RoundRecord {
            games: Vec::new(),
            bye: bye.clone(),
            unpaired: vec![],
        };
        for (g, plan) in played.iter().zip(planned) {
            let room = g
                .room
                .clone()
                .unwrap_or_else(|| panic!("round {r}: a game with no room"));
            let log = get_log(&mut ws, room.as_str())
                .await
                .unwrap_or_else(|e| panic!("{room}: {e}"))
                .unwrap_or_else(|| panic!("{room}: unfinished"));
            let deal = log
                .header
                .deal
                .clone()
                .unwrap_or_else(|| panic!("{room}: no deal"));
            let want = seed.deal(r as u32 + 1, plan.board, plan.deal);
            assert_eq!(deal.server_seed, want.seed_hex(), "{room}");
            let winners: Vec<u8> = match &log.outcome {
                Some(Outcome::Win { winners }) => winners.iter().map(|s| s.0).collect(),
                Some(Outcome::Draw) => Vec::new(),
                None => panic!("{room}: no outcome"),
            };
            let shown: Option<Vec<u8>> = g
                .result
                .as_ref()
                .map(|res| res.winners.iter().map(|s| s.0).collect());
            assert_eq!(shown.as_ref(), Some(&winners), "{room}: the page's result");
            record.games.push(GameRecord {
                seats: [g.seats[0].clone(), g.seats[1].clone()],
                winners: Some(winners),
            });
            games += 1;
        }
        rounds.push(record);
    }
    let rules = EventRules {
        format: Format::Swiss,
        rounds: EVENT_ROUNDS,
        play: Play::Single,
        arena_pairing: Default::default(),
    };
    assert_eq!(check_rounds(&rules, &seed, &entrants, &rounds), Ok(()));
    let table = standings(Format::Swiss, &entrants, &rounds);
    assert_eq!(
        table, page.standings,
        "the standings recomputed from the logs"
    );
    games
}
