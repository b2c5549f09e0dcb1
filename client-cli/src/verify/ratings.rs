//! `parlor verify-ratings`: re-derives a server's ratings from its public
//! ledger and its public match logs, trusting neither its ratings nor its
//! arithmetic:
//!
//! 1. the whole ledger, page by page; its head (`/api/ratings/head`) must
//!    be a line of it, and so must a head the user kept earlier
//!    (`--head N:HASH`): a ledger rewritten consistently (a line dropped,
//!    the rest renumbered and rehashed) passes every other check;
//! 2. numbering, the hash chain and every line's hash, then every rating
//!    folded again from the initial values with parlor-competition's
//!    Glicko-2 (each `before` and `after` computed here and compared to
//!    the line's within [`TOLERANCE`]);
//! 3. every line's match (of one pool, if asked) from its log: `parlor
//!    verify`'s checks (commitment, deal, every step, the outcome), then
//!    the line against the replay: the pool is the game, one rated player
//!    per seat in seat order, each the account the log names at that seat,
//!    each place and partnership what the finished match gives, the
//!    commitment the log's, and no match rated twice. The logs come in
//!    batches (see [`super::logs`]). A correction line (a voided result)
//!    has no log of its own: the fold checks it against the line it voids.
//!
//! The first line that fails is reported, with the check and why.

use std::collections::{BTreeSet, HashMap};

use parlor_competition::ledger::{self, GENESIS};
use parlor_competition::{Glicko2, LedgerError, LedgerLine};
use parlor_games::Seat;
use parlor_protocol::{replay, LedgerHead, MatchLog, RoomId};
use serde::Serialize;

use super::logs::Logs;
use super::{match_log, Layout, Verification};
use crate::api;

/// Lines the server sends per ledger page at most (the API's
/// `LEDGER_PAGE`): a shorter page is the last.
pub const LEDGER_PAGE: usize = 1000;

/// How far a ledger's `before` and `after` may be from the fold's: the
/// server folds with the same `f64` arithmetic, so anything but rounding
/// noise in the JSON (none with shortest round-trip numbers) is a change.
pub const TOLERANCE: f64 = 1e-9;

/// Largest ledger page read: a line of four players is about 1.2 KB, so
/// a page of [`LEDGER_PAGE`] is under 2 MB; this leaves room for long
/// names and bounds what a misbehaving server can make us hold per page.
const MAX_PAGE_BYTES: usize = 8 * 1024 * 1024;

/// Largest answer of the small endpoints (the head).
const MAX_SMALL_BYTES: usize = 64 * 1024;

/// What the command prints when everything checks out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verified {
    /// Always true.
    pub verified: bool,
    /// Lines of the ledger checked (numbering, chain, fold).
    pub lines: u64,
    /// The head the server published, found in the ledger.
    pub head: LedgerHead,
    /// Distinct accounts rated in the ledger.
    pub players: usize,
    /// Matches whose logs were replayed against their lines (all, or the
    /// pool's).
    pub matches: usize,
    /// Correction lines (voided results), each checked against the line
    /// it voids.
    pub corrections: usize,
}

/// The first line that fails, printed as `{"verified": false, ...}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Failure {
    /// Always false.
    pub verified: bool,
    /// The ledger line (`n`; its position for a line that does not
    /// parse or is numbered wrong).
    pub line: u64,
    /// The check: `format`, `numbering`, `chain`, `hash`, `time`,
    /// `duplicate`, `before`, `after`, `void` (a correction that may not
    /// void what it names), `head`, `kept_head`, `room`, `log`,
    /// `rated`, `pool`, `commitment`, `match` (the log fails `parlor
    /// verify`), `outcome`, `seats`, `players` (a name is not the account
    /// the log names at that seat), `places` or `teams`.
    pub check: String,
    /// Why, for people.
    pub reason: String,
}

impl Failure {
    fn new(line: u64, check: &str, reason: impl Into<String>) -> Failure {
        Failure {
            verified: false,
            line,
            check: check.to_owned(),
            reason: reason.into(),
        }
    }
}

/// The result: everything verified, or the first failure.
pub type Verdict = Result<Verified, Failure>;

impl Verification for Verdict {
    const COMMAND: &'static str = "parlor verify-ratings";
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
        match self {
            Ok(_) => Vec::new(),
            Err(f) => vec![format!(
                "line {}: the {} check failed: {}",
                f.line, f.check, f.reason
            )],
        }
    }
}

/// Verifies the ratings of the server at `url`; only the matches of
/// `pool` are replayed when it is given (the chain and the fold always
/// cover the whole ledger). `Err` is a connection or protocol error, not
/// a failed check.
pub async fn verify_server(url: &str, pool: Option<&str>) -> Result<Verdict, String> {
    verify_server_kept(url, pool, None, None).await
}

/// [`verify_server`], and `kept` (a head the user kept earlier) must
/// still be a line of the ledger; with `logs`, the matches' logs are read
/// from that directory (`ROOM.json` each) rather than from the server.
pub async fn verify_server_kept(
    url: &str,
    pool: Option<&str>,
    kept: Option<&LedgerHead>,
    logs: Option<&std::path::Path>,
) -> Result<Verdict, String> {
    let head = fetch_head(url).await?;
    let lines = match fetch_ledger(url, None).await? {
        Ok(lines) => lines,
        Err(f) => return Ok(Err(f)),
    };
    let mut up_to = check_ledger(&lines, &head).err();
    if let Some(Err(k)) = kept.map(|k| check_kept(&lines, k)) {
        if up_to.as_ref().is_none_or(|f| k.line < f.line) {
            up_to = Some(k);
        }
    }
    let limit = up_to.as_ref().map_or(u64::MAX, |f| f.line);
    let mut rooms: HashMap<&str, u64> = HashMap::new();
    let mut matches = 0;
    let mut logs = match logs {
        Some(dir) => Logs::from_dir(dir, "parlor-verify-ratings"),
        None => Logs::new(url, "parlor-verify-ratings"),
    };
    logs.plan(
        lines
            .iter()
            .take_while(|l| l.n < limit)
            .filter(|l| pool.is_none_or(|p| p == l.pool) && l.void.is_none())
            .filter_map(|l| RoomId::new(&l.room)),
    );
    let mut corrections = 0;
    for line in lines.iter().take_while(|l| l.n < limit) {
        if line.void.is_some() {
            // A correction names the match line it voids, whose log is
            // checked there; the fold checked it against that line.
            corrections += 1;
            continue;
        }
        if let Some(first) = rooms.insert(&line.room, line.n) {
            return Ok(Err(Failure::new(
                line.n,
                "room",
                format!(
                    "room {} was already rated at line {first}: a match is rated once",
                    line.room
                ),
            )));
        }
        if pool.is_some_and(|p| p != line.pool) {
            continue;
        }
        let Some(room) = RoomId::new(&line.room) else {
            return Ok(Err(Failure::new(
                line.n,
                "room",
                format!("{:?} is not a room id", line.room),
            )));
        };
        let log = match logs.fetch(&room).await? {
            Ok(log) => log,
            Err(why) => return Ok(Err(Failure::new(line.n, "log", why))),
        };
        if let Err(f) = check_line(line, &log) {
            return Ok(Err(f));
        }
        matches += 1;
    }
    if let Some(f) = up_to {
        return Ok(Err(f));
    }
    let players: BTreeSet<&str> = lines
        .iter()
        .flat_map(|l| l.players.iter().map(|p| p.name.as_str()))
        .collect();
    Ok(Ok(Verified {
        verified: true,
        lines: lines.len() as u64,
        head,
        players: players.len(),
        matches,
        corrections,
    }))
}

/// `GET /api/ratings/head`.
async fn fetch_head(url: &str) -> Result<LedgerHead, String> {
    let a = api::get(url, "/api/ratings/head", MAX_SMALL_BYTES).await?;
    if a.status != 200 {
        return Err(format!("the ledger's head: {}", a.refusal()));
    }
    serde_json::from_slice(&a.body).map_err(|e| format!("the ledger's head is not readable: {e}"))
}

/// The whole ledger (only `pool`'s lines, when given), paged with
/// `after`; a line that is not a ledger line fails the `format` check at
/// its position.
pub(super) async fn fetch_ledger(
    url: &str,
    pool: Option<&str>,
) -> Result<Result<Vec<LedgerLine>, Failure>, String> {
    let mut lines: Vec<LedgerLine> = Vec::new();
    let mut after = 0;
    let pool = pool
        .map(|p| format!("&pool={}", api::escape(p)))
        .unwrap_or_default();
    loop {
        let path = format!("/api/ratings/ledger?after={after}{pool}");
        let a = api::get(url, &path, MAX_PAGE_BYTES).await?;
        if a.status != 200 {
            return Err(format!("the ledger: {}", a.refusal()));
        }
        let text = String::from_utf8_lossy(&a.body);
        let mut page = 0;
        for raw in text.lines().filter(|l| !l.trim().is_empty()) {
            page += 1;
            let at = lines.len() as u64 + 1;
            match serde_json::from_str::<LedgerLine>(raw) {
                Ok(line) => lines.push(line),
                Err(e) => {
                    return Ok(Err(Failure::new(
                        at,
                        "format",
                        format!("not a ledger line: {e}"),
                    )))
                }
            }
        }
        let last = lines.last().map_or(0, |l| l.n);
        // A page that does not move forward would be asked for again for
        // ever; the numbering check reports what it holds.
        if page < LEDGER_PAGE || last <= after {
            return Ok(Ok(lines));
        }
        after = last;
    }
}

/// The chain, the hashes and the fold of the whole ledger, and the head
/// against it: the first line that fails.
pub fn check_ledger(lines: &[LedgerLine], head: &LedgerHead) -> Result<(), Failure> {
    let folded = match ledger::verify(&Glicko2::PARLOR, lines, TOLERANCE) {
        Ok(_) => None,
        Err(e) => Some(ledger_failure(&e)),
    };
    let head = check_head(lines, head).err();
    match (folded, head) {
        (Some(f), Some(h)) if h.line < f.line => Err(h),
        (Some(f), _) => Err(f),
        (None, Some(h)) => Err(h),
        (None, None) => Ok(()),
    }
}

/// The head must be one of the ledger's lines (the server may have
/// added lines since it answered).
fn check_head(lines: &[LedgerLine], head: &LedgerHead) -> Result<(), Failure> {
    if head.n == 0 {
        if head.hash != GENESIS {
            return Err(Failure::new(
                0,
                "head",
                "the head of an empty ledger is not 64 zeros",
            ));
        }
        return Ok(());
    }
    let at = usize::try_from(head.n - 1).unwrap_or(usize::MAX);
    match lines.get(at) {
        None => Err(Failure::new(
            head.n,
            "head",
            format!(
                "the published head is line {} but the ledger has {} lines",
                head.n,
                lines.len()
            ),
        )),
        Some(line) if line.hash != head.hash => Err(Failure::new(
            head.n,
            "head",
            format!(
                "the published head's hash is {}, the ledger's line {} has {}",
                head.hash, head.n, line.hash
            ),
        )),
        Some(_) => Ok(()),
    }
}

/// A head kept earlier, `N:HASH` as `--head` takes it.
pub fn parse_kept(text: &str) -> Result<LedgerHead, String> {
    let bad = || format!("{text:?} is not a kept head: N:HASH, as GET /api/ratings/head gave them");
    let (n, hash) = text.split_once(':').ok_or_else(bad)?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    let hash = hash.trim().to_ascii_lowercase();
    if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    Ok(LedgerHead { n, hash })
}

/// A head kept earlier must still be line `n` of the chain, with its
/// hash: otherwise history was rewritten since.
pub fn check_kept(lines: &[LedgerLine], kept: &LedgerHead) -> Result<(), Failure> {
    if kept.n == 0 {
        return Ok(());
    }
    let at = usize::try_from(kept.n - 1).unwrap_or(usize::MAX);
    match lines.get(at) {
        None => Err(Failure::new(
            kept.n,
            "kept_head",
            format!(
                "the head you kept is line {} but the ledger now has {} lines: history was rewritten",
                kept.n,
                lines.len()
            ),
        )),
        Some(line) if !line.hash.eq_ignore_ascii_case(&kept.hash) => Err(Failure::new(
            kept.n,
            "kept_head",
            format!(
                "the head you kept has hash {} at line {}, the ledger's line {} now has {}: history was rewritten",
                kept.hash, kept.n, kept.n, line.hash
            ),
        )),
        Some(_) => Ok(()),
    }
}

fn ledger_failure(e: &LedgerError) -> Failure {
    let (line, check) = match e {
        LedgerError::Numbering { at, .. } => (*at, "numbering"),
        LedgerError::Chain(at) => (*at, "chain"),
        LedgerError::Hash(at) => (*at, "hash"),
        LedgerError::Time(at) => (*at, "time"),
        LedgerError::Duplicate(at, _) => (*at, "duplicate"),
        LedgerError::Before(at, ..) => (*at, "before"),
        LedgerError::After(at, ..) => (*at, "after"),
        LedgerError::Void(at, _) => (*at, "void"),
    };
    Failure::new(line, check, e.to_string())
}

/// A line against its match's log: `parlor verify`'s checks, then the
/// line's pool, commitment, players, places and partnerships against the
/// replay.
pub fn check_line(line: &LedgerLine, log: &MatchLog) -> Result<(), Failure> {
    let fail = |check: &str, reason: String| Err(Failure::new(line.n, check, reason));
    let h = &log.header;
    if log.room.as_str() != line.room {
        return fail(
            "room",
            format!(
                "the line is room {}, the log room {}",
                line.room,
                log.room.as_str()
            ),
        );
    }
    if !h.rated {
        return fail("rated", "the log says the match was not rated".into());
    }
    if h.game.name() != line.pool {
        return fail(
            "pool",
            format!("the line's pool is {}, the match was {}", line.pool, h.game),
        );
    }
    match &h.deal {
        Some(d) if d.commitment == line.commitment => {}
        Some(d) => {
            return fail(
                "commitment",
                format!(
                    "the line's commitment is {}, the log's {}",
                    line.commitment, d.commitment
                ),
            )
        }
        None => {
            return fail(
                "commitment",
                "the log has no fair deal and so no commitment".into(),
            )
        }
    }
    let report = match_log::verify(log);
    if let Some(f) = report.failures.first() {
        return fail(
            "match",
            format!(
                "the match fails parlor verify's {} check: {f}",
                f.check().name()
            ),
        );
    }
    if log.outcome.is_none() {
        return fail("outcome", "the match did not finish with a result".into());
    }
    if line.players.len() != usize::from(h.seats) {
        return fail(
            "seats",
            format!(
                "the line rates {} players, the match had {} seats",
                line.players.len(),
                h.seats
            ),
        );
    }
    let game = match replay(h, &log.moves) {
        Ok((game, _)) => game,
        Err(e) => return fail("match", format!("the match does not replay: {e}")),
    };
    let Some(places) = game.places() else {
        return fail("places", "the replayed match gives no places".into());
    };
    let named = seated_accounts(log);
    if named.is_empty() {
        return fail(
            "players",
            "the log names no accounts by seat, so the line's players cannot be checked".into(),
        );
    }
    for (i, p) in line.players.iter().enumerate() {
        if usize::from(p.seat) != i {
            return fail(
                "seats",
                format!(
                    "{} is listed {} but played seat {}: players go by seat",
                    p.name,
                    i + 1,
                    p.seat
                ),
            );
        }
        if named.get(i).map(String::as_str) != Some(p.name.as_str()) {
            return fail(
                "players",
                format!(
                    "the line puts {} at seat {}, the log {}",
                    p.name,
                    p.seat,
                    named
                        .get(i)
                        .map_or("names nobody there".into(), |n| format!("seats {n} there"))
                ),
            );
        }
        let place = places.get(i).copied();
        if place != Some(p.place) {
            return fail(
                "places",
                format!(
                    "{} (seat {}) has place {}, the match gives {}",
                    p.name,
                    p.seat,
                    p.place,
                    place.map_or("none".into(), |x| x.to_string())
                ),
            );
        }
        let team = game.team(Seat(p.seat));
        if team != p.team {
            return fail(
                "teams",
                format!(
                    "{} (seat {}) has team {:?}, the match gives {:?}",
                    p.name, p.seat, p.team, team
                ),
            );
        }
    }
    Ok(())
}

/// The accounts the log seats, by seat: its `players` (every rated
/// match's), or its event's or ladder game's.
fn seated_accounts(log: &MatchLog) -> &[String] {
    if !log.players.is_empty() {
        return &log.players;
    }
    let h = &log.header;
    if let Some(ev) = h.event.as_ref().filter(|e| !e.players.is_empty()) {
        return &ev.players;
    }
    h.ladder.as_ref().map_or(&[], |l| &l.players)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_head_is_n_colon_hash() {
        let hash = "AB".repeat(32);
        let kept = parse_kept(&format!("12:{hash}"));
        assert_eq!(
            kept,
            Ok(LedgerHead {
                n: 12,
                hash: hash.to_ascii_lowercase()
            })
        );
        for bad in [
            "12",
            "x:00",
            "3:abc",
            &format!("-1:{hash}"),
            &format!("4:{}", "g".repeat(64)),
        ] {
            assert!(parse_kept(bad).is_err(), "{bad}");
        }
    }
}
