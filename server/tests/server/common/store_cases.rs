//! What every store backend must do with its data, as test bodies that
//! take the backend to run on (`store.rs` runs them on SQLite,
//! `store_pg.rs` on Postgres): matches survive a reopen with every field
//! intact, a duplicate step is refused without a trace, a database from a
//! newer server is refused.

use std::net::IpAddr;

use parlor_competition::ledger;
use parlor_competition::{Glicko2, LedgerLine};
use parlor_games::{GameKind, Outcome, Seat, SeatSet};
use parlor_protocol::{Clock, Closed, Deal, LogEntry, LoggedAction, MatchHeader, RoomId};
use parlor_server::store::{
    MatchRecord, Origin, RatedEnd, RatedSeat, Step, Store, StoreError, StoredSeat, Turn, TurnSeat,
};
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
        event: None,
        ladder: None,
        matched: None,
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
                // The ladder's anchor plays seat 1 (its seat is a bot's).
                bot_seats: vec![Seat(1)],
            }),
            clock: Some(Clock::Increment {
                main_ms: 300_000,
                increment_ms: 2_000,
            }),
            rated: true,
            event: None,
            ladder: Some(Box::new(parlor_protocol::LadderGame {
                players: vec!["dee".into(), "rummikub-greedy".into()],
                strategies: vec![None, Some("greedy".into())],
            })),
            matched: None,
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
        account: true,
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
            account: false,
        };
        ok(s.set_seat(a, Seat(0), Some(player)).await);
        ok(s.set_seat(
            a,
            Seat(1),
            Some(StoredSeat::Bot {
                strategy: "optimal".into(),
                account: None,
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
                account: Some("rummikub-greedy".into()),
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
                    account: false,
                }
            ),
            (
                Seat(1),
                StoredSeat::Bot {
                    strategy: "optimal".into(),
                    account: None,
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
                    strategy: "greedy".into(),
                    account: Some("rummikub-greedy".into()),
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

/// A player's seat; an account's if `account`.
fn player(name: &str, account: bool) -> StoredSeat {
    StoredSeat::Player {
        token: Uuid::new_v4(),
        name: name.into(),
        client_seed: None,
        account,
    }
}

/// Whose turn: `seat`, due by `deadline_ms`.
fn turn(seat: u8, deadline_ms: Option<u64>) -> Turn {
    Turn {
        due: vec![TurnSeat {
            seat: Seat(seat),
            deadline_ms,
        }],
    }
}

pub async fn an_accounts_games_are_listed_with_whose_turn_it_is(backend: &Backend) {
    let record = |id: &str, seed, clock| MatchRecord {
        room: room(id),
        header: MatchHeader {
            clock,
            rated: seed % 2 == 0,
            event: None,
            ladder: None,
            ..header(seed)
        },
        private: false,
        origin: Origin::default(),
    };
    with_store(backend, async |s: &Store| {
        // Alice plays Bob (her turn, recorded at the start), waits in a
        // room of her own, finished one and was replaced by a bot in
        // another; a guest also called alice plays elsewhere.
        let playing = ok(s
            .create_match(record("aaaaaaaaaaa1", 2, Some(Clock::DaysPerMove(3))))
            .await);
        ok(s.set_seat(playing, Seat(0), Some(player("bob", true)))
            .await);
        ok(s.set_seat(playing, Seat(1), Some(player("Alice", true)))
            .await);
        ok(s.record_turn(playing, turn(0, Some(1_000))).await);
        let entry = step(0, 0, [1, 0]);
        let moved = ok(Step::new(entry.seq, entry.seat, &entry.action));
        ok(s.append_step(
            playing,
            moved,
            Some(vec![1, 2]),
            None,
            Some(turn(1, Some(2_000))),
        )
        .await);
        let waiting = ok(s.create_match(record("aaaaaaaaaaa2", 3, None)).await);
        ok(s.set_seat(waiting, Seat(0), Some(player("ALICE", true)))
            .await);
        let done = ok(s.create_match(record("aaaaaaaaaaa3", 4, None)).await);
        ok(s.set_seat(done, Seat(0), Some(player("alice", true))).await);
        ok(s.close_match(done, Closed::Aborted).await);
        let replaced = ok(s.create_match(record("aaaaaaaaaaa4", 5, None)).await);
        ok(s.set_seat(replaced, Seat(0), Some(player("alice", true)))
            .await);
        ok(s.set_seat(
            replaced,
            Seat(0),
            Some(StoredSeat::Bot {
                strategy: "optimal".into(),
                account: None,
            }),
        )
        .await);
        let guest = ok(s.create_match(record("aaaaaaaaaaa5", 6, None)).await);
        ok(s.set_seat(guest, Seat(0), Some(player("alice", false)))
            .await);
    })
    .await;
    // Read back after a reopen, as after a restart.
    let (games, one, bobs, nobody, aborted) = with_store(backend, async |s: &Store| {
        (
            ok(s.games_of("alice", 200).await),
            ok(s.games_of("alice", 1).await),
            ok(s.games_of("bob", 200).await),
            ok(s.games_of("carol", 200).await),
            ok(s.log(room("aaaaaaaaaaa3")).await),
        )
    })
    .await;
    let rooms: Vec<&str> = games.iter().map(|g| g.record.room.as_str()).collect();
    assert_eq!(rooms, vec!["aaaaaaaaaaa2", "aaaaaaaaaaa1"], "newest first");
    let (waiting, playing) = (&games[0], &games[1]);
    assert_eq!(waiting.seat, Seat(0));
    assert_eq!(waiting.seats.len(), 1);
    assert_eq!(waiting.turn, None);
    assert_eq!(playing.seat, Seat(1));
    assert!(playing.record.header.rated);
    assert_eq!(playing.record.header.clock, Some(Clock::DaysPerMove(3)));
    assert_eq!(
        playing.turn,
        Some(turn(1, Some(2_000))),
        "the last step's turn"
    );
    assert_eq!(playing.seats.len(), 2);
    assert!(matches!(
        &playing.seats[0].1,
        StoredSeat::Player { name, account: true, .. } if name == "bob"
    ));
    assert_eq!(one.len(), 1, "the list is capped");
    assert_eq!(one[0].record.room, room("aaaaaaaaaaa2"));
    assert_eq!(bobs.len(), 1);
    assert_eq!(bobs[0].seat, Seat(0));
    assert!(nobody.is_empty());
    let aborted = aborted.unwrap_or_else(|| panic!("the aborted match has a log"));
    assert_eq!(aborted.closed, Some(Closed::Aborted));
}

/// What the layout before the ladder lacked (SQLite's 7, PostgreSQL's
/// 6), and the SQL that takes a database back to it (undoing the later
/// steps too: the abuse bounds' columns and table).
pub fn downgrade_sql(backend: &Backend) -> &'static str {
    match backend {
        Backend::Sqlite(_) => {
            "DROP TABLE event_chat;
             DROP TABLE follows;
             DROP TABLE chat;
             DROP TABLE fairplay_games;
             DROP TABLE blocks;
             DROP TABLE reports;
             DROP TABLE mod_log;
             ALTER TABLE accounts DROP COLUMN role;
             ALTER TABLE accounts DROP COLUMN closed_ms;
             ALTER TABLE accounts DROP COLUMN mark;
             ALTER TABLE accounts DROP COLUMN muted_until_ms;
             ALTER TABLE accounts DROP COLUMN playban_until_ms;
             DROP TABLE devices;
             DROP TABLE rated_aborts;
             DROP INDEX events_creator;
             DROP INDEX events_creator_addr;
             ALTER TABLE events DROP COLUMN creator_key;
             ALTER TABLE events DROP COLUMN creator_addr;
             DROP TABLE ladders;
             DROP TABLE ladder_games;
             DROP TABLE ladder_entries;
             ALTER TABLE accounts DROP COLUMN builtin;
             PRAGMA user_version = 7;"
        }
        Backend::Postgres(_) => {
            // Matchmaking's books as layout 8 made them (layout 8's step
            // makes them again, with identities; layout 14 converts them).
            "DROP TABLE event_chat;
             DROP TABLE mm_epoch;
             DROP TABLE mm_seeks;
             DROP TABLE mm_challenges;
             DROP SEQUENCE mm_ids;
             DROP TABLE follows;
             DROP TABLE chat;
             DROP TABLE fairplay_games;
             DROP TABLE blocks;
             DROP TABLE reports;
             DROP TABLE mod_log;
             ALTER TABLE accounts DROP COLUMN role;
             ALTER TABLE accounts DROP COLUMN closed_ms;
             ALTER TABLE accounts DROP COLUMN mark;
             ALTER TABLE accounts DROP COLUMN muted_until_ms;
             ALTER TABLE accounts DROP COLUMN playban_until_ms;
             DROP TABLE devices;
             DROP TABLE rated_aborts;
             DROP INDEX events_creator;
             DROP INDEX events_creator_addr;
             ALTER TABLE events DROP COLUMN creator_key;
             ALTER TABLE events DROP COLUMN creator_addr;
             DROP TABLE ladders;
             DROP TABLE ladder_games;
             DROP TABLE ladder_entries;
             ALTER TABLE accounts DROP COLUMN builtin;
             UPDATE layout SET version = 6;"
        }
    }
}

pub async fn the_previous_layout_is_migrated_and_keeps_its_rows(backend: &Backend) {
    let token = Uuid::new_v4();
    let seat = StoredSeat::Player {
        token,
        name: "Eve".into(),
        client_seed: None,
        account: false,
    };
    with_store(backend, async |s: &Store| {
        let key = ok(s
            .create_match(MatchRecord {
                room: room("eeeeeeeeeeee"),
                header: header(9),
                private: false,
                origin: Origin::default(),
            })
            .await);
        ok(s.set_seat(key, Seat(0), Some(seat.clone())).await);
        ok(s.append(key, step(0, 0, [1, 0]), None, None).await);
        let closed = ok(s
            .create_match(MatchRecord {
                room: room("eeeeeeeeeee2"),
                header: header(10),
                private: false,
                origin: Origin::default(),
            })
            .await);
        ok(s.close_match(closed, Closed::Abandoned).await);
        // An account made before the migration.
        let accounts = parlor_server::accounts::store::AccountStore::new(s.beside());
        let name =
            parlor_server::accounts::AccountName::new("Old_Bot").unwrap_or_else(|e| panic!("{e}"));
        let hash = parlor_server::accounts::PasswordHash::from_stored("x".into());
        if let Err(e) = accounts
            .create(&name, parlor_server::accounts::AccountKind::Bot, &hash, 1)
            .await
        {
            panic!("{e}");
        }
    })
    .await;
    backend.execute(downgrade_sql(backend)).await;
    let (unfinished, closed, games) = with_store(backend, async |s: &Store| {
        let unfinished = ok(s.unfinished().await);
        let closed = ok(s.log(room("eeeeeeeeeee2")).await);
        // The migrated layout takes account seats (in a new match: on
        // PostgreSQL the old one is the previous node's until claimed).
        let key = ok(s
            .create_match(MatchRecord {
                room: room("eeeeeeeeeee3"),
                header: header(11),
                private: false,
                origin: Origin::default(),
            })
            .await);
        ok(s.set_seat(key, Seat(1), Some(player("Eve", true))).await);
        // The ratings' tables are there, empty.
        assert_eq!(ok(s.ledger_head().await), None);
        // So is the events table, empty.
        let events = parlor_server::tournaments::TournamentStore::new(s.beside());
        assert!(ok(events.list(&["upcoming", "running"], 10).await).is_empty());
        // The ladder's tables are there, empty; the old account is not
        // built in, and a built-in one can be made beside it.
        let ladder = parlor_server::ladder::LadderStore::new(s.beside());
        assert!(ok(ladder.entries().await).is_empty());
        let accounts = parlor_server::accounts::store::AccountStore::new(s.beside());
        let old = ok(accounts.by_name("old_bot").await).unwrap_or_else(|| panic!("lost"));
        assert!(!old.builtin);
        let anchor = parlor_server::accounts::AccountName::builtin(GameKind::Nimrod, "optimal");
        ok(accounts.ensure_builtin(&anchor, 2).await);
        ok(accounts.ensure_builtin(&anchor, 3).await);
        let made = ok(accounts.by_name("nimrod-optimal").await).unwrap_or_else(|| panic!("none"));
        assert!(made.builtin && made.created_ms == 2, "made once, kept");
        // The device cookies' table is there, empty.
        let device = parlor_server::accounts::Token::generate().hash();
        assert_eq!(ok(accounts.device_account(device, 4).await), None);
        assert!(ok(s.ratings_of("eve").await).is_empty());
        assert!(ok(s.ledger(0, None, 10).await).is_empty());
        // The follows' table is there, empty.
        let follows = parlor_server::follows::Follows::new(s.beside());
        assert!(ok(follows.list("eve").await).is_empty());
        // So is the events' chat's.
        let chat = parlor_server::chat::EventChat::new(s.beside());
        assert!(ok(chat.read("anyevent", Some("eve"), None).await).is_empty());
        (unfinished, closed, ok(s.games_of("eve", 10).await))
    })
    .await;
    assert_eq!(unfinished.len(), 1);
    let m = &unfinished[0];
    assert_eq!(m.record.header, header(9), "rated reads as false");
    assert_eq!(m.seats, vec![(Seat(0), seat)], "a guest's seat as before");
    assert_eq!(m.moves, vec![step(0, 0, [1, 0])]);
    assert_eq!(m.turn, None);
    let closed = closed.unwrap_or_else(|| panic!("the closed match kept its log"));
    assert_eq!(closed.closed, Some(Closed::Abandoned));
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].seat, Seat(1));
}

/// A duplicate set's game, finished, keeps its log private while the
/// other game of its set (same deal) is played; once that is over too,
/// both are public. A game of no set never is.
pub async fn a_duplicate_sets_log_is_embargoed_until_the_set_is_over(backend: &Backend) {
    with_store(backend, async |s: &Store| {
        let event = |me: &str, other: &str| {
            Some(Box::new(parlor_protocol::EventGame {
                event: "ev".into(),
                round: 1,
                board: 0,
                deal: 0,
                players: vec!["ann".into(), "bob".into()],
                siblings: vec![room(other)],
            }))
            .filter(|_| !me.is_empty())
        };
        let mut keys = Vec::new();
        for (me, other) in [
            ("dddddddddd01", "dddddddddd02"),
            ("dddddddddd02", "dddddddddd01"),
        ] {
            keys.push(ok(s
                .create_match(MatchRecord {
                    room: room(me),
                    // An event's games are always fairly dealt (their
                    // place in the event is kept with the deal).
                    header: MatchHeader {
                        event: event(me, other),
                        seed: None,
                        deal: Some(Deal {
                            commitment: "c0".into(),
                            server_seed: "5e".into(),
                            salt: "5a".into(),
                            client_seeds: vec![None, None],
                            bot_seats: Vec::new(),
                        }),
                        ..header(1)
                    },
                    private: false,
                    origin: Origin::default(),
                })
                .await));
        }
        let win = || Outcome::Win {
            winners: parlor_games::SeatSet::single(Seat(0)),
        };
        ok(s.append(keys[0], step(0, 0, [3, 5]), None, Some(win()))
            .await);
        let first = ok(s.log(room("dddddddddd01")).await).unwrap_or_else(|| panic!("a log"));
        assert!(first.outcome.is_some());
        assert_eq!(
            first.header.event,
            event("x", "dddddddddd02"),
            "stored and read back"
        );
        assert!(ok(s.embargoed(&first).await), "the sibling is still played");
        ok(s.append(keys[1], step(0, 0, [3, 5]), None, Some(win()))
            .await);
        assert!(!ok(s.embargoed(&first).await), "the set is over");
        let lone = ok(s
            .create_match(MatchRecord {
                room: room("dddddddddd03"),
                header: header(2),
                private: false,
                origin: Origin::default(),
            })
            .await);
        ok(s.append(lone, step(0, 0, [3, 5]), None, Some(win())).await);
        let lone = ok(s.log(room("dddddddddd03")).await).unwrap_or_else(|| panic!("a log"));
        assert!(!ok(s.embargoed(&lone).await));
    })
    .await;
}

/// Plays `results` (winner, loser) among `names` as rated Nimrod matches
/// a second apart from `t0`, through the store as a room's end does.
async fn rated_matches(store: &Store, names: &[&str], results: &[(usize, usize)], t0: u64) {
    for (i, &(w, l)) in results.iter().enumerate() {
        let id = room(&format!("{:012x}", 0xa000 + i));
        let mut head = header(i as u64);
        head.rated = true;
        let key = ok(store
            .create_match(MatchRecord {
                room: id.clone(),
                header: head,
                private: false,
                origin: Origin::default(),
            })
            .await);
        let seats = [(w, 0u8, 1u8), (l, 1, 2)]
            .iter()
            .map(|&(who, seat, place)| RatedSeat {
                name: names[who].to_owned(),
                account_key: names[who].to_ascii_lowercase(),
                seat: Seat(seat),
                team: None,
                place,
            })
            .collect();
        let winner = Outcome::Win {
            winners: SeatSet::single(Seat(0)),
        };
        let end = RatedEnd {
            pool: "nimrod".into(),
            room: id.as_str().to_owned(),
            commitment: String::new(),
            seats,
            ended_ms: t0 + i as u64 * 1_000,
        };
        let entry = step(1, 0, [0, 3]);
        let last = ok(Step::new(entry.seq, entry.seat, &entry.action));
        ok(store.append_rated(key, last, None, winner, end).await);
    }
}

/// The ledger as stored, parsed.
async fn ledger_lines(store: &Store) -> Vec<LedgerLine> {
    ok(store.ledger(0, None, 10_000).await)
        .iter()
        .map(|t| ok(serde_json::from_str::<LedgerLine>(t)))
        .collect()
}

pub async fn voiding_a_marked_accounts_results_refolds_exactly(backend: &Backend) {
    with_store(backend, async |store: &Store| {
        let names = ["Cheat", "ann", "bob"];
        let t0 = 1_790_000_000_000;
        // The cheat loses to ann, then beats ann, bob, ann; bob beats ann.
        rated_matches(store, &names, &[(1, 0), (0, 1), (0, 2), (2, 1), (0, 1)], t0).await;
        let before = ledger_lines(store).await;
        let cheat_entering = before[1].players[0].before;
        // Void from the second match on: its three wins, newest first.
        let lines = ok(store
            .void_rated("cheat", t0 + 1_000, t0 + 60_000, "engine")
            .await);
        let voided: Vec<u64> = lines
            .iter()
            .filter_map(|l| l.void.as_ref().map(|v| v.line))
            .collect();
        assert_eq!(voided, vec![5, 3, 2]);
        let all = ledger_lines(store).await;
        assert_eq!(all.len(), 8);
        let table = ok(ledger::verify(&Glicko2::PARLOR, &all, 0.0));
        for name in names {
            let stored = ok(store.rating("nimrod", &name.to_ascii_lowercase()).await);
            let folded = table.get("nimrod", name).map(|r| r.0);
            assert_eq!(stored.map(|s| s.rating), folded, "{name}");
        }
        assert_eq!(
            table.get("nimrod", "Cheat").map(|r| r.0),
            Some(cheat_entering),
            "the cheat is back to its rating before the first voided match"
        );
        // Nothing is voided twice.
        let again = ok(store.void_rated("cheat", t0, t0 + 70_000, "engine").await);
        assert_eq!(again.len(), 1, "only the first match was left: {again:?}");
        assert_eq!(again[0].void.as_ref().map(|v| v.line), Some(1));
        let none = ok(store.void_rated("cheat", t0, t0 + 80_000, "engine").await);
        assert!(none.is_empty());
        ok(ledger::verify(
            &Glicko2::PARLOR,
            &ledger_lines(store).await,
            0.0,
        ));
    })
    .await;
}
