//! What every store backend must do with its data, as test bodies that
//! take the backend to run on (`store.rs` runs them on SQLite,
//! `store_pg.rs` on Postgres): matches survive a reopen with every field
//! intact, a duplicate step is refused without a trace, a database from a
//! newer server is refused.

use std::net::IpAddr;

use parlor_games::{GameKind, Outcome, Seat, SeatSet};
use parlor_protocol::{Clock, Closed, Deal, LogEntry, LoggedAction, MatchHeader, RoomId};
use parlor_server::store::{MatchRecord, Origin, Store, StoreError, StoredSeat};
use serde_json::json;
use uuid::Uuid;

use super::backend::{close, Backend};

fn ok<T, E: std::fmt::Debug>(r: Result<T, E>) -> T {
    r.unwrap_or_else(|e| panic!("{e:?}"))
}

pub fn room(id: &str) -> RoomId {
    RoomId::new(id).unwrap_or_else(|| panic!("bad room id {id}"))
}

pub fn header(seed: u64) -> MatchHeader {
    MatchHeader {
        game: GameKind::Nimrod,
        options: json!({"piles": [3, 5]}),
        seats: 2,
        seed: Some(seed),
        deal: None,
        clock: None,
        rated: false,
    }
}

pub fn step(seq: u64, seat: u8, take: [u64; 2]) -> LogEntry {
    LogEntry {
        seq,
        seat: Seat(seat),
        action: LoggedAction::Move(json!({ "take": take })),
    }
}

/// Opens the store on `backend`, runs `f` on it, then closes it and
/// waits for the writer to finish (so the data can be reopened).
pub async fn with_store<T>(backend: &Backend, f: impl AsyncFnOnce(&Store) -> T) -> T {
    let (store, task) = backend.open().await;
    let out = f(&store).await;
    close(store, task).await;
    out
}

/// A fairly dealt Rummikub match with a clock, its creator known: every
/// column a header has is filled.
fn full_record() -> MatchRecord {
    MatchRecord {
        room: room("ffffffffffff"),
        header: MatchHeader {
            game: GameKind::Rummikub,
            options: json!({"rack_size": 7}),
            seats: 2,
            seed: None,
            deal: Some(Deal {
                commitment: "c0ffee".into(),
                server_seed: "5eed".into(),
                salt: "5a17".into(),
                client_seeds: vec![Some("mine".into()), None],
            }),
            clock: Some(Clock::Increment {
                main_ms: 300_000,
                increment_ms: 2_000,
            }),
            rated: false,
        },
        private: true,
        origin: Origin {
            creator: Some(Uuid::new_v4()),
            addr: Some(IpAddr::from([10, 1, 2, 3])),
            created_ms: Some(1_790_000_000_123),
        },
    }
}

pub async fn matches_seats_and_moves_survive_a_reopen(backend: &Backend) {
    let token = Uuid::new_v4();
    let full = full_record();
    let full_player = StoredSeat::Player {
        token: Uuid::new_v4(),
        name: "dee".into(),
        client_seed: Some("mine".into()),
    };
    let (first, second) = with_store(backend, async |s: &Store| {
        let record = |id: &str, seed| MatchRecord {
            room: room(id),
            header: header(seed),
            private: false,
            origin: Origin::default(),
        };
        let a = ok(s.create_match(record("aaaaaaaaaaaa", 1)).await);
        let b = ok(s.create_match(record("bbbbbbbbbbbb", 2)).await);
        let player = StoredSeat::Player {
            token,
            name: "ann".into(),
            client_seed: None,
        };
        ok(s.set_seat(a, Seat(0), Some(player)).await);
        ok(s.set_seat(
            a,
            Seat(1),
            Some(StoredSeat::Bot {
                strategy: "optimal".into(),
            }),
        )
        .await);
        ok(s.append(a, step(0, 0, [1, 0]), None, None).await);
        ok(s.append(a, step(1, 1, [0, 2]), None, None).await);
        // b finishes: it is served as a log, not restored.
        let win = Outcome::Win {
            winners: SeatSet::single(Seat(1)),
        };
        ok(s.append(b, step(0, 0, [3, 5]), None, Some(win)).await);
        // A seat taken, given up and taken by a bot; clocks after a step.
        let f = ok(s.create_match(full.clone()).await);
        ok(s.set_seat(f, Seat(0), Some(full_player.clone())).await);
        ok(s.set_seat(f, Seat(1), Some(full_player.clone())).await);
        ok(s.set_seat(f, Seat(1), None).await);
        ok(s.set_seat(
            f,
            Seat(1),
            Some(StoredSeat::Bot {
                strategy: "greedy".into(),
            }),
        )
        .await);
        ok(
            s.append(f, step(0, 0, [0, 0]), Some(vec![290_000, 300_000]), None)
                .await,
        );
        // Closed without an outcome: not restored, its log says why.
        let c = ok(s.create_match(record("cccccccccccc", 3)).await);
        ok(s.close_match(c, Closed::Abandoned).await);
        (a, b)
    })
    .await;
    assert_ne!(first, second, "every match gets its own number");

    let (unfinished, log, closed) = with_store(backend, async |s: &Store| {
        (
            ok(s.unfinished().await),
            ok(s.log(room("bbbbbbbbbbbb")).await),
            ok(s.log(room("cccccccccccc")).await),
        )
    })
    .await;
    assert_eq!(unfinished.len(), 2);
    let m = &unfinished[0];
    assert_eq!(m.key, first);
    assert_eq!(m.record.room, room("aaaaaaaaaaaa"));
    assert_eq!(m.record.header, header(1));
    assert_eq!(m.moves, vec![step(0, 0, [1, 0]), step(1, 1, [0, 2])]);
    assert_eq!(m.clocks, None);
    assert_eq!(
        m.seats,
        vec![
            (
                Seat(0),
                StoredSeat::Player {
                    token,
                    name: "ann".into(),
                    client_seed: None,
                }
            ),
            (
                Seat(1),
                StoredSeat::Bot {
                    strategy: "optimal".into()
                }
            ),
        ]
    );
    let f = &unfinished[1];
    assert_eq!(f.record, full, "every header field comes back as stored");
    assert_eq!(
        f.seats,
        vec![
            (Seat(0), full_player),
            (
                Seat(1),
                StoredSeat::Bot {
                    strategy: "greedy".into()
                }
            )
        ]
    );
    assert_eq!(f.moves, vec![step(0, 0, [0, 0])]);
    assert_eq!(f.clocks, Some(vec![290_000, 300_000]));
    let log = log.unwrap_or_else(|| panic!("the finished match has a log"));
    assert_eq!(log.moves, vec![step(0, 0, [3, 5])]);
    assert_eq!(
        log.outcome,
        Some(Outcome::Win {
            winners: SeatSet::single(Seat(1))
        })
    );
    let closed = closed.unwrap_or_else(|| panic!("the closed match has a log"));
    assert_eq!(
        (closed.closed, closed.outcome),
        (Some(Closed::Abandoned), None)
    );
    let none = with_store(backend, async |s: &Store| {
        ok(s.log(room("zzzzzzzzzzzz")).await)
    })
    .await;
    assert!(none.is_none(), "no such room");
}

pub async fn a_duplicate_step_is_refused_and_changes_nothing(backend: &Backend) {
    with_store(backend, async |s: &Store| {
        let key = ok(s
            .create_match(MatchRecord {
                room: room("dddddddddddd"),
                header: header(4),
                private: false,
                origin: Origin::default(),
            })
            .await);
        ok(s.append(key, step(0, 0, [1, 0]), None, None).await);
        let twice = s.append(key, step(0, 1, [0, 1]), None, None).await;
        assert!(
            twice.as_ref().is_err_and(StoreError::is_duplicate),
            "{twice:?}"
        );
        // Sent together: the duplicate (which would also have ended the
        // match) is refused while its neighbour is stored.
        let draw = Some(Outcome::Draw);
        let (again, next) = tokio::join!(
            s.append(key, step(0, 1, [0, 3]), None, draw),
            s.append(key, step(1, 1, [0, 2]), None, None),
        );
        assert!(
            again.as_ref().is_err_and(StoreError::is_duplicate),
            "{again:?}"
        );
        ok(next);
        let log = ok(s.log(room("dddddddddddd")).await).unwrap_or_else(|| panic!("no log"));
        assert_eq!(log.moves, vec![step(0, 0, [1, 0]), step(1, 1, [0, 2])]);
        assert_eq!(log.outcome, None);
        // A room id is taken only once.
        let taken = s
            .create_match(MatchRecord {
                room: room("dddddddddddd"),
                header: header(5),
                private: false,
                origin: Origin::default(),
            })
            .await;
        assert!(
            taken.as_ref().is_err_and(StoreError::is_duplicate),
            "{taken:?}"
        );
    })
    .await;
}

pub async fn a_database_from_a_newer_server_is_refused(backend: &Backend) {
    backend.claim_layout(99).await;
    match parlor_server::store::Store::open(&backend.config()).await {
        Err(StoreError::Corrupt(why)) => assert!(why.contains("layout 99"), "{why}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}
