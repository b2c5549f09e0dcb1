//! `parlor verify-tournament ID`: re-checks a finished event from its
//! public page, its revealed seed and its games' logs, trusting none of
//! the server's arithmetic:
//!
//! 1. the event is finished and its seed revealed; SHA-256 of the seed is
//!    the commitment published when it was made;
//! 2. round by round: its pairings (and bye) are the ones the rules make
//!    from the seed and the results before it; then each of its games:
//!    the room's log names this event, round, board and deal, its deal is
//!    the one the seed derives for that place with no client seeds, it
//!    passes `parlor verify`'s checks, and its result is the published
//!    one (a game forfeited without a room must have a player who left);
//! 3. the event has all its rounds, and the standings recomputed from the
//!    results equal the published ones (points, tie-break, order);
//! 4. every player's published seeding rating is one the public ratings
//!    ledger gave them in the event's pool from the start on (see
//!    [`super::seeding`]).
//!
//! The games' logs come in batches (see [`super::logs`]).
//!
//! The first disagreement is reported with where it is.

use std::collections::BTreeSet;

use parlor_competition::tournament::{check_rounds, EventSeed, PlannedGame};
use parlor_games::Outcome;
use parlor_protocol::{MatchLog, RoomId, TournamentGame, TournamentInfo, TournamentStatus};
use serde::Serialize;

use super::logs::Logs;
use super::{match_log, Layout, Verification};
use crate::tournament::{api, page};

/// How far a published point total or tie-break may be from the
/// recomputed one: both sum halves and products of them in `f64`, so
/// anything beyond rounding noise is a change.
pub const TOLERANCE: f64 = 1e-9;

/// What the command prints when everything checks out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verified {
    /// Always true.
    pub verified: bool,
    /// The event.
    pub tournament: String,
    /// Rounds checked.
    pub rounds: usize,
    /// Games checked (those played were replayed from their logs).
    pub games: usize,
}

/// The first disagreement, printed as `{"verified": false, ...}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// Always false.
    pub verified: bool,
    /// Which check: `status`, `seed`, `commitment`, `pairings`, `game`,
    /// `forfeit`, `log`, `event`, `deal`, `match`, `result`, `rounds`,
    /// `standings` or `seeding`.
    pub check: String,
    /// The round, from 1, when the disagreement is in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<usize>,
    /// The game's place in its round, from 0, when it is in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<usize>,
    /// The game's room, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub room: Option<RoomId>,
    /// What disagrees, for people.
    pub error: String,
}

impl Failure {
    fn new(check: &str, error: impl Into<String>) -> Failure {
        Failure {
            verified: false,
            check: check.to_owned(),
            round: None,
            game: None,
            room: None,
            error: error.into(),
        }
    }

    fn at_round(mut self, round: usize) -> Failure {
        self.round = Some(round);
        self
    }

    fn at_game(mut self, round: usize, game: usize, room: Option<&RoomId>) -> Failure {
        self.round = Some(round);
        self.game = Some(game);
        self.room = room.cloned();
        self
    }
}

/// The result: everything verified, or the first disagreement.
pub type Verdict = Result<Verified, Failure>;

impl Verification for Verdict {
    const COMMAND: &'static str = "parlor verify-tournament";
    const LAYOUT: Layout = Layout::Compact;

    fn verified(&self) -> bool {
        self.is_ok()
    }

    fn json(&self) -> serde_json::Result<String> {
        match self {
            Ok(v) => Self::LAYOUT.write(v),
            Err(f) => Self::LAYOUT.write(f),
        }
    }

    fn remarks(&self) -> Vec<String> {
        let Err(f) = self else {
            return Vec::new();
        };
        let at = match (f.round, f.game) {
            (Some(r), Some(g)) => format!("round {r}, game {g}: "),
            (Some(r), None) => format!("round {r}: "),
            _ => String::new(),
        };
        vec![format!("{at}the {} check failed: {}", f.check, f.error)]
    }
}

/// Verifies event `id` on the server at `url`. `Err` is a connection or
/// protocol error (the server could not be asked), not a failed check.
pub async fn verify_server(url: &str, id: &str) -> Result<Verdict, String> {
    let page = api::page(url, id).await?;
    let mut logs = Logs::new(url, "parlor-verify-tournament");
    logs.plan(page.rounds.iter().flatten().filter_map(|g| g.room.clone()));
    let verdict = verify_page(&page, &mut logs).await?;
    if verdict.is_err() || page.players.is_empty() {
        return Ok(verdict);
    }
    let lines = match super::ratings::fetch_ledger(url, Some(page.game.name())).await? {
        Ok(lines) => lines,
        Err(f) => {
            return Ok(Err(Failure::new(
                "seeding",
                format!("the ratings ledger is not readable: {}", f.reason),
            )))
        }
    };
    if let Err(why) = super::seeding::check(&page, &lines) {
        return Ok(Err(Failure::new("seeding", why)));
    }
    Ok(verdict)
}

/// The winning seats a finished log gives, as the server reads them (a
/// game closed without an outcome counts as a draw); `None` when it has
/// not finished.
fn log_result(log: &MatchLog) -> Option<BTreeSet<u8>> {
    match (&log.outcome, log.closed) {
        (Some(Outcome::Win { winners }), _) => Some(winners.iter().map(|s| s.0).collect()),
        (Some(Outcome::Draw), _) | (None, Some(_)) => Some(BTreeSet::new()),
        (None, None) => None,
    }
}

/// The published result as a set of seats.
fn published_result(g: &TournamentGame) -> Option<BTreeSet<u8>> {
    g.result
        .as_ref()
        .map(|r| r.winners.iter().map(|s| s.0).collect())
}

fn seats_text(s: &BTreeSet<u8>) -> String {
    if s.is_empty() {
        return "a draw".into();
    }
    let seats: Vec<String> = s.iter().map(u8::to_string).collect();
    format!("a win for seat(s) {}", seats.join(", "))
}

async fn verify_page(p: &TournamentInfo, logs: &mut Logs) -> Result<Verdict, String> {
    if p.status != TournamentStatus::Finished {
        return Ok(Err(Failure::new(
            "status",
            format!(
                "the event is {}, not finished: its seed is secret until it ends",
                p.status.as_str()
            ),
        )));
    }
    let Some(hex) = &p.seed else {
        return Ok(Err(Failure::new(
            "seed",
            "the finished event does not reveal its seed",
        )));
    };
    let seed = match EventSeed::from_hex(hex) {
        Ok(s) => s,
        Err(e) => return Ok(Err(Failure::new("seed", e.to_string()))),
    };
    if !seed.commitment().eq_ignore_ascii_case(&p.commitment) {
        return Ok(Err(Failure::new(
            "commitment",
            format!(
                "SHA-256 of the revealed seed is {}, the published commitment {}",
                seed.commitment(),
                p.commitment
            ),
        )));
    }
    if p.byes.len() != p.rounds.len() {
        return Ok(Err(Failure::new(
            "rounds",
            format!("{} rounds but {} byes listed", p.rounds.len(), p.byes.len()),
        )));
    }
    let entrants = page::entrants(p);
    let rules = page::rules(p);
    let records = page::records(p);
    let mut games = 0;
    for (i, played) in p.rounds.iter().enumerate() {
        let round = i + 1;
        if let Err(d) = check_rounds(&rules, &seed, &entrants, &records[..round]) {
            return Ok(Err(Failure::new("pairings", d.to_string()).at_round(round)));
        }
        for (index, (g, plan)) in played
            .iter()
            .zip(page::planned(played, rules.play))
            .enumerate()
        {
            let at = |f: Failure| f.at_game(round, index, g.room.as_ref());
            if let Err(f) = check_game(p, &seed, round, g, &plan, played, logs).await? {
                return Ok(Err(at(f)));
            }
            games += 1;
        }
    }
    if let Some(total) = rules.total_rounds(entrants.len()) {
        let total = usize::try_from(total).unwrap_or(usize::MAX);
        if p.rounds.len() != total {
            return Ok(Err(Failure::new(
                "rounds",
                format!(
                    "the event has {total} rounds for {} players, the page {}",
                    entrants.len(),
                    p.rounds.len()
                ),
            )));
        }
    }
    if let Err(f) = check_standings(p, &entrants, &records) {
        return Ok(Err(f));
    }
    Ok(Ok(Verified {
        verified: true,
        tournament: p.id.clone(),
        rounds: p.rounds.len(),
        games,
    }))
}

/// One game of round `round` against the place `plan` the pairing gives
/// it, and against its log.
async fn check_game(
    p: &TournamentInfo,
    seed: &EventSeed,
    round: usize,
    g: &TournamentGame,
    plan: &PlannedGame,
    played: &[TournamentGame],
    logs: &mut Logs,
) -> Result<Result<(), Failure>, String> {
    let fail = |check: &str, e: String| Ok(Err(Failure::new(check, e)));
    let Some(published) = published_result(g) else {
        return fail(
            "result",
            "the finished event lists this game without a result".into(),
        );
    };
    let Some(room) = &g.room else {
        return Ok(forfeit(p, g, &published));
    };
    let log = match logs.fetch(room).await? {
        Ok(log) => log,
        Err(why) => return fail("log", why),
    };
    if &log.room != room {
        return fail(
            "log",
            format!("asked for room {room}'s log, got room {}'s", log.room),
        );
    }
    let h = &log.header;
    if h.game != p.game {
        return fail(
            "log",
            format!("the match is {}, the event {}", h.game, p.game),
        );
    }
    let number = u32::try_from(round).unwrap_or(u32::MAX);
    let Some(ev) = &h.event else {
        return fail("event", "the match's header names no event".into());
    };
    let want = (p.id.as_str(), number, plan.board, plan.deal);
    let got = (ev.event.as_str(), ev.round, ev.board, ev.deal);
    if got != want {
        return fail(
            "event",
            format!(
                "the match is event {} round {} board {} deal {}; the page puts it at event {} round {} board {} deal {}",
                got.0, got.1, got.2, got.3, want.0, want.1, want.2, want.3
            ),
        );
    }
    // The room seated the players the page shows, by seat.
    if ev.players != g.seats {
        return fail(
            "event",
            format!(
                "the match seated {:?}, the page shows {:?}",
                ev.players, g.seats
            ),
        );
    }
    // A duplicate set's games name each other: the other rooms of the
    // round on the same board and deal.
    let siblings: BTreeSet<&RoomId> = played
        .iter()
        .zip(page::planned(played, page::play(p)))
        .filter(|(_, q)| (q.board, q.deal) == (plan.board, plan.deal))
        .filter_map(|(other, _)| other.room.as_ref())
        .filter(|r| *r != room)
        .collect();
    let named: BTreeSet<&RoomId> = ev.siblings.iter().collect();
    if siblings != named {
        return fail(
            "event",
            format!("the match names {named:?} as playing its deal, the page {siblings:?}"),
        );
    }
    if h.rated != p.rated {
        return fail(
            "event",
            format!(
                "the match is {}rated, the event {}rated",
                if h.rated { "" } else { "un" },
                if p.rated { "" } else { "un" }
            ),
        );
    }
    let Some(deal) = &h.deal else {
        return fail("deal", "the match has no committed deal".into());
    };
    let expected = seed.deal(number, plan.board, plan.deal);
    if !deal.server_seed.eq_ignore_ascii_case(&expected.seed_hex())
        || !deal.salt.eq_ignore_ascii_case(&expected.salt_hex())
    {
        return fail(
            "deal",
            format!(
                "the match was dealt from server seed {} and salt {}; the event's seed gives {} and {} for round {number} board {} deal {}",
                deal.server_seed, deal.salt, expected.seed_hex(), expected.salt_hex(), plan.board, plan.deal
            ),
        );
    }
    // A duplicate set's games share one deal: no seat may add to it. A
    // lone game's players add their seeds after its commitment, as in
    // any room (the fair-dealing check below recomputes the deal).
    if !ev.siblings.is_empty() && deal.client_seeds.iter().any(Option::is_some) {
        return fail(
            "deal",
            "a seat added a client seed to a duplicate set's shared deal".into(),
        );
    }
    let report = match_log::verify(&log);
    if let Some(f) = report.failures.first() {
        return fail(
            "match",
            format!(
                "the match fails parlor verify's {} check: {f}",
                f.check().name()
            ),
        );
    }
    let Some(result) = log_result(&log) else {
        return fail("result", "the match did not finish".into());
    };
    if result != published {
        return fail(
            "result",
            format!(
                "the page says {}, the match ended in {}",
                seats_text(&published),
                seats_text(&result)
            ),
        );
    }
    Ok(Ok(()))
}

/// A game forfeited without being played: its players who left lose it
/// (both gone: a draw); one between two who stayed is not a forfeit.
fn forfeit(
    p: &TournamentInfo,
    g: &TournamentGame,
    published: &BTreeSet<u8>,
) -> Result<(), Failure> {
    let left = |name: &str| p.players.iter().any(|pl| pl.name == name && pl.withdrawn);
    let stayed: BTreeSet<u8> = (0u8..)
        .zip(&g.seats)
        .filter(|(_, name)| !left(name))
        .map(|(seat, _)| seat)
        .collect();
    if stayed.len() == g.seats.len() {
        return Err(Failure::new(
            "forfeit",
            "a game without a room, between players who did not leave".to_owned(),
        ));
    }
    if &stayed != published {
        return Err(Failure::new(
            "forfeit",
            format!(
                "the page says {}; a forfeit gives {}",
                seats_text(published),
                seats_text(&stayed)
            ),
        ));
    }
    Ok(())
}

/// The published standings against the recomputed ones.
fn check_standings(
    p: &TournamentInfo,
    entrants: &[parlor_competition::tournament::Entrant],
    records: &[parlor_competition::tournament::RoundRecord],
) -> Result<(), Failure> {
    let ours = parlor_competition::tournament::standings(p.format, entrants, records);
    if ours.len() != p.standings.len() {
        return Err(Failure::new(
            "standings",
            format!(
                "{} players ranked, {} entered",
                p.standings.len(),
                ours.len()
            ),
        ));
    }
    for (i, (want, got)) in ours.iter().zip(&p.standings).enumerate() {
        let same = want.name == got.name
            && (want.points - got.points).abs() <= TOLERANCE
            && (want.tiebreak - got.tiebreak).abs() <= TOLERANCE
            && want.games == got.games;
        if !same {
            return Err(Failure::new(
                "standings",
                format!(
                    "rank {}: the page has {} with {} points, tie-break {}, {} games; the results give {} with {} points, tie-break {}, {} games",
                    i + 1,
                    got.name,
                    got.points,
                    got.tiebreak,
                    got.games,
                    want.name,
                    want.points,
                    want.tiebreak,
                    want.games
                ),
            ));
        }
    }
    Ok(())
}
