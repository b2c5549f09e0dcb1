//! `parlor verify ROOM`: checks a finished match from its public log, as
//! docs/protocol/fair-dealing.md describes, with no trust in the
//! server beyond the commitment it published when the room was made:
//!
//! 1. the revealed server seed and salt hash to the commitment;
//! 2. the deal those and the client seeds make (every seat's view right
//!    after setup, and what nobody saw: the bag, the rest of the deck);
//! 3. every logged step is accepted by the rules, in order, and the replay
//!    ends in the logged outcome.
//!
//! A match dealt before fair dealing has a bare seed and no commitment:
//! its deal cannot be proven fair (`fair_deal` is false), but its steps
//! are still replayed.

use parlor_games::{deal_key, AnyGame, AnyView, GameKind, GameRng, Outcome, Seat, Viewer};
use parlor_protocol::{replay, step, Deal, DealCheck, LogEntry, MatchLog, ReplayError, RoomId};
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::seeds::{seat_seeds, server_alone, SeatSeed};
use super::{Layout, Verification};

/// Which check a failure belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// The revealed secret against the published commitment.
    Commitment,
    /// One client seed per seat.
    ClientSeeds,
    /// Setting the match up from its header.
    Setup,
    /// Replaying the logged steps.
    Steps,
    /// The replay's outcome against the logged one.
    Outcome,
}

impl Check {
    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Check::Commitment => "commitment",
            Check::ClientSeeds => "client_seeds",
            Check::Setup => "setup",
            Check::Steps => "steps",
            Check::Outcome => "outcome",
        }
    }
}

impl Serialize for Check {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A check that failed, and why.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Failure {
    /// The revealed server seed and salt are unreadable or do not hash to
    /// the commitment.
    #[error("{0}")]
    Commitment(DealCheck),
    /// The deal does not have one client seed per seat.
    #[error("the deal lists {given} client seeds for {seats} seats")]
    ClientSeeds {
        /// Seats of the match.
        seats: u8,
        /// Client seeds listed.
        given: usize,
    },
    /// The header does not set a match up.
    #[error("{0}")]
    Setup(String),
    /// A step is numbered out of order.
    #[error("step {index} is numbered {seq}")]
    Numbering {
        /// Its place in the log, from 0.
        index: usize,
        /// The number it carries.
        seq: u64,
    },
    /// The rules refuse a logged step.
    #[error("step {seq} is refused: {message}")]
    Step {
        /// The step's number.
        seq: u64,
        /// Why.
        message: String,
    },
    /// A step logged after the match had ended.
    #[error("step {seq} comes after the match ended")]
    AfterEnd {
        /// The step's number.
        seq: u64,
    },
    /// The replay ends otherwise than the log says.
    #[error("the log says the match ended {}, but the replay ends {}", describe(.logged), describe(.replayed))]
    Outcome {
        /// What the log says.
        logged: Option<Outcome>,
        /// What replaying the steps gives.
        replayed: Option<Outcome>,
    },
}

fn describe(o: &Option<Outcome>) -> String {
    match o {
        None => "without a result".into(),
        Some(Outcome::Draw) => "in a draw".into(),
        Some(Outcome::Win { winners }) => {
            let seats: Vec<String> = winners.iter().map(|s| s.0.to_string()).collect();
            format!("in a win for seat(s) {}", seats.join(", "))
        }
    }
}

impl Failure {
    /// The check it belongs to.
    pub fn check(&self) -> Check {
        match self {
            Failure::Commitment(_) => Check::Commitment,
            Failure::ClientSeeds { .. } => Check::ClientSeeds,
            Failure::Setup(_) => Check::Setup,
            Failure::Numbering { .. } | Failure::Step { .. } | Failure::AfterEnd { .. } => {
                Check::Steps
            }
            Failure::Outcome { .. } => Check::Outcome,
        }
    }
}

/// In the report a failure is `{"check": ..., "reason": ...}`.
impl Serialize for Failure {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Failure", 2)?;
        st.serialize_field("check", &self.check())?;
        st.serialize_field("reason", &self.to_string())?;
        st.end()
    }
}

/// The commitment against the revealed secret.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommitmentCheck {
    /// What the room published when it was made.
    pub published: String,
    /// SHA-256 of the revealed server seed and salt; `None` when they are
    /// unreadable.
    pub computed: Option<String>,
    /// Whether the two agree.
    pub matches: bool,
}

/// What the match's chance stream is keyed by.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum KeyInputs {
    /// A fair deal.
    Fair {
        /// The revealed server seed, hex.
        server_seed: String,
        /// The revealed salt, hex.
        salt: String,
        /// Each seat's client seed, in seat order.
        client_seeds: Vec<Option<String>>,
        /// The ChaCha20 key they make, hex; `None` when the secret is
        /// unreadable.
        key: Option<String>,
    },
    /// A match dealt before fair dealing.
    Legacy {
        /// Its seed.
        seed: u64,
    },
}

/// The deal, as the freshly set-up match had it. A game that deals again
/// later (Cribbage's next hands) draws those from the same stream as the
/// steps are replayed; the replay check covers them.
#[derive(Clone, Debug, Serialize)]
pub struct Dealt {
    /// Each seat's view right after setup, seat 0 first.
    pub views: Vec<AnyView>,
    /// What nobody saw (the bag, the rest of the deck), as the game lists
    /// it: a bag drawn from in order is listed next item first.
    pub undisclosed: Vec<Value>,
}

/// The replay of the logged steps.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplayCheck {
    /// Steps in the log.
    pub steps: usize,
    /// Steps the rules accepted, in order, before the first refusal.
    pub accepted: usize,
    /// How the log says the match ended.
    pub logged_outcome: Option<Outcome>,
    /// How the replay ended; `None` when it ended without a result or
    /// stopped at a refused step.
    pub replayed_outcome: Option<Outcome>,
    /// Whether every step was accepted and the outcomes agree.
    pub ok: bool,
}

/// Everything `parlor verify` found, printed as one JSON object.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The room.
    pub room: RoomId,
    /// The game.
    pub game: GameKind,
    /// Its seats.
    pub seats: u8,
    /// Whether the match was dealt fairly, with a commitment to check;
    /// false for a match dealt before fair dealing.
    pub fair_deal: bool,
    /// The commitment check; absent without a fair deal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commitment: Option<CommitmentCheck>,
    /// What the deal's chance stream is keyed by; `None` when the header
    /// has neither a deal nor a seed.
    pub deal_key: Option<KeyInputs>,
    /// What each seat added to the deal (empty without a fair deal).
    pub seat_seeds: Vec<SeatSeed>,
    /// The deal rests on the server's seed alone: no seat added a seed.
    pub server_alone: bool,
    /// The deal; `None` when the header sets no match up.
    pub deal: Option<Dealt>,
    /// The replay of the steps.
    pub replay: ReplayCheck,
    /// Every check that failed, in the order found.
    pub failures: Vec<Failure>,
    /// Whether every check passed.
    pub verified: bool,
}

impl Verification for Report {
    const COMMAND: &'static str = "parlor verify";
    /// The deal's views are read by people: indented.
    const LAYOUT: Layout = Layout::Pretty;

    fn verified(&self) -> bool {
        self.verified
    }

    fn json(&self) -> serde_json::Result<String> {
        Self::LAYOUT.write(self)
    }

    fn remarks(&self) -> Vec<String> {
        let note = (!self.fair_deal).then(|| {
            "note: this match was dealt before fair dealing, from a bare seed; \
             there is no commitment to check, only the replay"
                .to_owned()
        });
        let alone = self.server_alone.then(|| {
            "note: no seat added a seed: this deal rests on the server's seed alone \
             (the commitment shows it was fixed before the match, not that it was not chosen)"
                .to_owned()
        });
        let seats = self
            .seat_seeds
            .iter()
            .map(|s| format!("{}: {}", s.seat, s.protects));
        let failed = self
            .failures
            .iter()
            .map(|f| format!("the {} check failed: {f}", f.check().name()));
        note.into_iter()
            .chain(alone)
            .chain(seats)
            .chain(failed)
            .collect()
    }
}

/// Checks `log` (see the module doc).
pub fn verify(log: &MatchLog) -> Report {
    let h = &log.header;
    let mut failures = Vec::new();
    let (commitment, deal_key) = match (&h.deal, h.seed) {
        (Some(deal), _) => {
            let (c, k) = check_deal(deal, h.seats, &mut failures);
            (Some(c), Some(k))
        }
        (None, Some(seed)) => (None, Some(KeyInputs::Legacy { seed })),
        (None, None) => (None, None),
    };
    let (deal, replay) = replay_steps(log, &mut failures);
    let seat_seeds = seat_seeds(h);
    Report {
        server_alone: server_alone(&seat_seeds),
        seat_seeds,
        room: log.room.clone(),
        game: h.game,
        seats: h.seats,
        fair_deal: h.deal.is_some(),
        commitment,
        deal_key,
        deal,
        replay,
        verified: failures.is_empty(),
        failures,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn check_deal(deal: &Deal, seats: u8, failures: &mut Vec<Failure>) -> (CommitmentCheck, KeyInputs) {
    let secret = deal.secret();
    let matches = match deal.check() {
        Ok(()) => true,
        Err(e) => {
            failures.push(Failure::Commitment(e));
            false
        }
    };
    if deal.client_seeds.len() != usize::from(seats) {
        failures.push(Failure::ClientSeeds {
            seats,
            given: deal.client_seeds.len(),
        });
    }
    let seeds: Vec<Option<&str>> = deal.client_seeds.iter().map(Option::as_deref).collect();
    let commitment = CommitmentCheck {
        published: deal.commitment.clone(),
        computed: secret.as_ref().ok().map(|s| s.commitment()),
        matches,
    };
    let key = KeyInputs::Fair {
        server_seed: deal.server_seed.clone(),
        salt: deal.salt.clone(),
        client_seeds: deal.client_seeds.clone(),
        key: secret.ok().map(|s| hex(&deal_key(&s, &seeds))),
    };
    (commitment, key)
}

fn dealt(game: &AnyGame) -> Dealt {
    Dealt {
        views: (0..game.seats())
            .map(|s| game.view(Viewer::Seat(Seat(s))))
            .collect(),
        undisclosed: game.secrets().undisclosed,
    }
}

/// Replays the steps one by one, stopping at the first the rules refuse.
fn replay_steps(log: &MatchLog, failures: &mut Vec<Failure>) -> (Option<Dealt>, ReplayCheck) {
    let mut check = ReplayCheck {
        steps: log.moves.len(),
        accepted: 0,
        logged_outcome: log.outcome,
        replayed_outcome: None,
        ok: false,
    };
    let (mut game, mut rng) = match replay(&log.header, &[]) {
        Ok(set_up) => set_up,
        Err(e) => {
            failures.push(Failure::Setup(e.to_string()));
            return (None, check);
        }
    };
    let deal = dealt(&game);
    let before = failures.len();
    for (index, entry) in log.moves.iter().enumerate() {
        if entry.seq != index as u64 {
            failures.push(Failure::Numbering {
                index,
                seq: entry.seq,
            });
        }
        if let Err(f) = apply(&mut game, &mut rng, entry) {
            failures.push(f);
            return (Some(deal), check);
        }
        check.accepted += 1;
    }
    check.replayed_outcome = game.outcome();
    if check.replayed_outcome != log.outcome {
        failures.push(Failure::Outcome {
            logged: log.outcome,
            replayed: check.replayed_outcome,
        });
    }
    check.ok = failures.len() == before;
    (Some(deal), check)
}

/// One step, refused when the match is over or the seat is not at the
/// table (the rules would take a forfeit there without question).
fn apply(game: &mut AnyGame, rng: &mut GameRng, entry: &LogEntry) -> Result<(), Failure> {
    if game.outcome().is_some() {
        return Err(Failure::AfterEnd { seq: entry.seq });
    }
    if entry.seat.0 >= game.seats() {
        return Err(Failure::Step {
            seq: entry.seq,
            message: format!(
                "seat {} is not at this table of {}",
                entry.seat.0,
                game.seats()
            ),
        });
    }
    step(game, rng, entry).map_err(|e| match e {
        ReplayError::Step { seq, message } => Failure::Step { seq, message },
        ReplayError::Setup(m) => Failure::Setup(m),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_games::{DealSecret, SeatSet};
    use parlor_protocol::{LoggedAction, MatchHeader};

    /// Steps played before seat 1 resigns: the discards and a few cards
    /// of the play.
    const PLAYED: usize = 8;

    fn secret() -> DealSecret {
        let mut seed = [0u8; 32];
        for (i, b) in (0u8..).zip(seed.iter_mut()) {
            *b = i.wrapping_mul(7).wrapping_add(3);
        }
        DealSecret::new(seed, [0x5a; 16])
    }

    fn header(deal: Option<Deal>, seed: Option<u64>) -> MatchHeader {
        MatchHeader {
            game: GameKind::Cribbage,
            options: serde_json::Value::Null,
            seats: 2,
            seed,
            deal,
            clock: None,
            rated: false,
            event: None,
            ladder: None,
            matched: None,
        }
    }

    /// A two-seat Cribbage match: each seat to act plays its first legal
    /// move for [`PLAYED`] steps, then seat 1 resigns. Cribbage moves name
    /// cards, so a different deal refuses the first discard.
    fn log_with(header: MatchHeader) -> MatchLog {
        let (mut game, mut rng) = replay(&header, &[]).unwrap_or_else(|e| panic!("{e}"));
        let mut moves = Vec::new();
        for seq in 0..PLAYED as u64 {
            let seat = game
                .to_act()
                .iter()
                .next()
                .unwrap_or_else(|| panic!("over"));
            let mv = game.legal_moves(seat).remove(0);
            game.play(seat, &mv, &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
            let action = LoggedAction::Move(serde_json::to_value(&mv).unwrap_or_default());
            moves.push(LogEntry { seq, seat, action });
        }
        moves.push(LogEntry {
            seq: PLAYED as u64,
            seat: Seat(1),
            action: LoggedAction::Forfeit,
        });
        MatchLog {
            chat: Vec::new(),
            room: RoomId::new("verify-test").unwrap_or_else(|| panic!("room id")),
            header,
            moves,
            outcome: Some(Outcome::Win {
                winners: SeatSet::single(Seat(0)),
            }),
            closed: None,
            players: Vec::new(),
        }
    }

    fn fair_log() -> MatchLog {
        let s = secret();
        log_with(header(
            Some(Deal {
                commitment: s.commitment(),
                server_seed: s.seed_hex(),
                salt: s.salt_hex(),
                client_seeds: vec![Some("alice".into()), None],
                bot_seats: Vec::new(),
            }),
            None,
        ))
    }

    fn deal_of(log: &mut MatchLog) -> &mut Deal {
        log.header
            .deal
            .as_mut()
            .unwrap_or_else(|| panic!("a fair deal"))
    }

    fn checks(r: &Report) -> Vec<Check> {
        r.failures.iter().map(Failure::check).collect()
    }

    /// Flips the last hex digit.
    fn tamper(hex: &mut String) {
        let last = if hex.ends_with('0') { "1" } else { "0" };
        hex.pop();
        hex.push_str(last);
    }

    #[test]
    fn a_log_with_chat_verifies_as_the_same_log_without() {
        let plain = fair_log();
        let text = serde_json::to_value(&plain).unwrap_or_default();
        let mut with_chat = text.clone();
        with_chat["chat"] = serde_json::json!([
            {"id": 1, "at_ms": 5, "name": "alice", "to": "players", "text": "glhf"},
            {"id": 2, "at_ms": 9, "name": "bob", "to": "players", "text": "Good game", "phrase": "good_game"}
        ]);
        let read: MatchLog = serde_json::from_value(with_chat).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.chat.len(), 2);
        let (a, b) = (verify(&plain), verify(&read));
        assert!(b.verified, "{:?}", b.failures);
        assert_eq!(
            serde_json::to_value(&a).unwrap_or_default(),
            serde_json::to_value(&b).unwrap_or_default()
        );
    }

    #[test]
    fn a_good_deal_and_log_verify() {
        let log = fair_log();
        let r = verify(&log);
        assert!(r.verified, "{:?}", r.failures);
        assert!(r.fair_deal && r.failures.is_empty());
        let c = r.commitment.clone().unwrap_or_else(|| panic!("checked"));
        assert!(c.matches);
        assert_eq!(c.computed.as_deref(), Some(c.published.as_str()));
        assert_eq!(
            (r.replay.steps, r.replay.accepted, r.replay.ok),
            (PLAYED + 1, PLAYED + 1, true)
        );
        assert_eq!(r.replay.replayed_outcome, log.outcome);
        let s = secret();
        let key = hex(&deal_key(&s, &[Some("alice"), None]));
        match &r.deal_key {
            Some(KeyInputs::Fair {
                key: Some(k),
                client_seeds,
                ..
            }) => {
                assert_eq!(k, &key);
                assert_eq!(client_seeds, &[Some("alice".to_owned()), None]);
            }
            other => panic!("{other:?}"),
        }
        // The deal: two hands of six dealt, forty cards nobody saw.
        let deal = r.deal.clone().unwrap_or_else(|| panic!("dealt"));
        assert_eq!(deal.views.len(), 2);
        assert_eq!(deal.undisclosed.len(), 52 - 2 * 6);
        let json = serde_json::to_value(&r).unwrap_or_default();
        assert_eq!(json["verified"], serde_json::json!(true));
        assert_eq!(
            json["deal"]["views"][0]["hand"].as_array().map(Vec::len),
            Some(6)
        );
        assert_eq!(
            json["commitment"]["published"],
            serde_json::json!(s.commitment())
        );
    }

    #[test]
    fn a_tampered_server_seed_or_salt_breaks_the_commitment() {
        for part in ["server_seed", "salt"] {
            let mut log = fair_log();
            let deal = deal_of(&mut log);
            tamper(if part == "salt" {
                &mut deal.salt
            } else {
                &mut deal.server_seed
            });
            let r = verify(&log);
            assert!(!r.verified, "{part}");
            assert_eq!(checks(&r).first(), Some(&Check::Commitment), "{part}");
            assert!(matches!(
                r.failures[0],
                Failure::Commitment(DealCheck::Mismatch { .. })
            ));
            assert!(r.commitment.is_some_and(|c| !c.matches));
        }
    }

    #[test]
    fn a_tampered_client_seed_deals_other_cards_and_a_step_is_refused() {
        let mut log = fair_log();
        deal_of(&mut log).client_seeds[1] = Some("mallory".into());
        let r = verify(&log);
        assert!(!r.verified);
        // The commitment still holds: the client seeds are not part of it.
        assert!(r.commitment.as_ref().is_some_and(|c| c.matches));
        assert_eq!(checks(&r), [Check::Steps]);
        assert!(
            matches!(&r.failures[0], Failure::Step { seq: 0, message } if message.contains("hold")),
            "{:?}",
            r.failures
        );
        assert_eq!(r.replay.accepted, 0);
        assert!(!r.replay.ok);
    }

    #[test]
    fn a_tampered_move_or_outcome_fails_the_replay() {
        // A discard the rules refuse: a card seat 0 was never dealt.
        let mut log = fair_log();
        let first = log.moves[0].clone();
        let dealt = verify(&log).deal.unwrap_or_else(|| panic!("dealt"));
        let hand = serde_json::to_value(&dealt.views[first.seat.index()]).unwrap_or_default();
        let held = hand["hand"].as_array().cloned().unwrap_or_default();
        let other = parlor_games::cribbage::Card::deck()
            .map(|c| serde_json::to_value(c).unwrap_or_default())
            .find(|c| !held.contains(c))
            .unwrap_or_default();
        let LoggedAction::Move(mut mv) = first.action else {
            panic!("a move")
        };
        mv["discard"][0] = other;
        log.moves[0].action = LoggedAction::Move(mv);
        let r = verify(&log);
        assert_eq!(checks(&r), [Check::Steps]);
        assert!(matches!(r.failures[0], Failure::Step { seq: 0, .. }));

        // Every step fine, but the other seat resigned in the log's story.
        let mut log = fair_log();
        log.outcome = Some(Outcome::Win {
            winners: SeatSet::single(Seat(1)),
        });
        let r = verify(&log);
        assert_eq!(checks(&r), [Check::Outcome]);
        let reason = r.failures[0].to_string();
        assert!(
            reason.contains("seat(s) 1") && reason.contains("seat(s) 0"),
            "{reason}"
        );
        assert!(!r.verified && !r.replay.ok);
    }

    #[test]
    fn steps_out_of_order_after_the_end_or_from_no_seat_are_refused() {
        let mut log = fair_log();
        log.moves[2].seq = 7;
        let r = verify(&log);
        assert_eq!(checks(&r), [Check::Steps]);
        assert_eq!(r.failures[0], Failure::Numbering { index: 2, seq: 7 });

        let mut log = fair_log();
        log.moves.push(LogEntry {
            seq: PLAYED as u64 + 1,
            seat: Seat(0),
            action: LoggedAction::Forfeit,
        });
        let r = verify(&log);
        assert_eq!(
            r.failures,
            [Failure::AfterEnd {
                seq: PLAYED as u64 + 1
            }]
        );

        let mut log = fair_log();
        if let Some(last) = log.moves.last_mut() {
            last.seat = Seat(5);
        }
        let r = verify(&log);
        assert!(
            matches!(&r.failures[..], [Failure::Step { message, .. }] if message.contains("seat 5")),
            "{:?}",
            r.failures
        );
    }

    #[test]
    fn an_unreadable_secret_or_missing_seeds_are_named() {
        let mut log = fair_log();
        deal_of(&mut log).server_seed = "zz".into();
        let r = verify(&log);
        assert_eq!(checks(&r), [Check::Commitment, Check::Setup]);
        assert!(r.deal.is_none());
        assert!(r.commitment.is_some_and(|c| c.computed.is_none()));

        let mut log = fair_log();
        deal_of(&mut log).client_seeds.pop();
        let r = verify(&log);
        assert_eq!(checks(&r).first(), Some(&Check::ClientSeeds));
    }

    #[test]
    fn a_legacy_seed_is_not_a_fair_deal_but_still_replays() {
        let log = log_with(header(None, Some(42)));
        let r = verify(&log);
        assert!(!r.fair_deal && r.commitment.is_none());
        assert!(r.verified, "{:?}", r.failures);
        assert_eq!(r.deal_key, Some(KeyInputs::Legacy { seed: 42 }));
        let json = serde_json::to_value(&r).unwrap_or_default();
        assert_eq!(json["fair_deal"], serde_json::json!(false));
        assert!(json.get("commitment").is_none());
        assert_eq!(json["deal_key"], serde_json::json!({"seed": 42}));
        // And it is checked all the same.
        let mut log = log;
        log.outcome = None;
        assert_eq!(checks(&verify(&log)), [Check::Outcome]);
    }
}
