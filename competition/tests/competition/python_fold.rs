//! The protocol document's Python fold (examples/ratings_fold.py, the
//! same text as the document's code block) against this crate: on a
//! ledger of a few hundred random matches it checks the chain and
//! reproduces every `before` and `after`.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use parlor_competition::ledger::{next_line, MatchEntrant, DAY_MS};
use parlor_competition::{Glicko2, LedgerLine, Rating};
use serde_json::Value;

const SYSTEM: Glicko2 = Glicko2::PARLOR;

/// Matches in the random ledger.
const MATCHES: usize = 400;

/// How close the Python fold must come to every value (the issue's bar).
const PYTHON_TOLERANCE: f64 = 1e-6;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn script() -> PathBuf {
    root().join("examples").join("ratings_fold.py")
}

/// Whether python3 runs here; without it the test is skipped, except in
/// CI, where it must run.
fn python() -> bool {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "python3 is needed for this test in CI"
        );
        eprintln!("skipped: python3 is not installed");
    }
    ok
}

/// A small deterministic stream.
struct Stream(u64);

impl Stream {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A ledger of random matches as a server writes it: 2-4 players,
/// Cribbage partnerships, draws and shared places, idle gaps of days.
fn random_ledger(seed: u64) -> Vec<LedgerLine> {
    use std::collections::HashMap;
    let names: Vec<String> = (0..12).map(|i| format!("p{i}")).collect();
    let pools = ["nimrod", "rummikub", "cribbage", "mitsudomoe"];
    let mut s = Stream(seed | 1);
    let mut table: HashMap<(String, String), (Rating, u64)> = HashMap::new();
    let mut lines: Vec<LedgerLine> = Vec::new();
    let mut at = 1_764_000_000_000u64;
    for i in 0..MATCHES {
        at += match s.next(4) {
            0 => s.next(5) * DAY_MS + s.next(DAY_MS),
            _ => 60_000 + s.next(3_600_000),
        };
        let pool = pools[s.next(4) as usize];
        let seats = 2 + s.next(3) as u8;
        let mut chosen: Vec<&String> = Vec::new();
        while chosen.len() < usize::from(seats) {
            let n = &names[s.next(names.len() as u64) as usize];
            if !chosen.contains(&n) {
                chosen.push(n);
            }
        }
        let teams = pool == "cribbage" && seats == 4;
        let draw = s.next(8) == 0;
        let winning_team = s.next(2) as u8;
        let entrants: Vec<MatchEntrant> = chosen
            .iter()
            .enumerate()
            .map(|(seat, name)| {
                let seat = seat as u8;
                let team = teams.then_some(seat % 2);
                let place = match (draw, team) {
                    (true, _) => 1,
                    (false, Some(t)) => 1 + u8::from(t != winning_team),
                    (false, None) => 1 + s.next(u64::from(seats)) as u8,
                };
                MatchEntrant {
                    name: (*name).clone(),
                    seat,
                    team,
                    place,
                    current: table.get(&(pool.to_owned(), (*name).clone())).copied(),
                }
            })
            .collect();
        let head = lines.last().map(|l| (l.n, l.hash.as_str()));
        let room = format!("room{i}");
        let line = next_line(&SYSTEM, head, at, pool, &room, "c0ffee", &entrants);
        for p in &line.players {
            table.insert((pool.to_owned(), p.name.clone()), (p.after, at));
        }
        lines.push(line);
    }
    lines
}

fn ndjson(lines: &[LedgerLine]) -> String {
    lines
        .iter()
        .map(|l| serde_json::to_string(l).unwrap() + "\n")
        .collect()
}

/// Runs the fold on `input`: its exit status and its JSON report.
fn fold(input: &str) -> (bool, Value) {
    let mut child = Command::new("python3")
        .arg(script())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not a report ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.success(), report)
}

#[test]
fn the_python_fold_reproduces_a_random_ledger() {
    if !python() {
        return;
    }
    let lines = random_ledger(0x5eed);
    // The ledger is what this crate's own fold accepts, bit for bit.
    parlor_competition::ledger::verify(&SYSTEM, &lines, 0.0).unwrap();
    let shapes = |f: fn(&LedgerLine) -> bool| lines.iter().filter(|l| f(l)).count();
    assert!(shapes(|l| l.players.len() == 4 && l.players[0].team.is_some()) > 5);
    assert!(shapes(|l| l.players.len() == 3) > 5);
    assert!(shapes(|l| l.players.iter().all(|p| p.place == 1)) > 5);
    let idle_gaps = lines
        .windows(2)
        .filter(|w| w[1].at_ms - w[0].at_ms >= DAY_MS)
        .count();
    assert!(idle_gaps > 5, "{idle_gaps}");
    let (ok, report) = fold(&ndjson(&lines));
    eprintln!("the Python fold of {MATCHES} random matches: {report}");
    assert!(ok, "{report}");
    assert_eq!(report["chain"], Value::Bool(true), "{report}");
    assert_eq!(report["lines"], MATCHES, "{report}");
    assert_eq!(report["players"], 12, "{report}");
    let after = report["max_after_diff"].as_f64().unwrap();
    let before = report["max_before_diff"].as_f64().unwrap();
    assert!(after <= PYTHON_TOLERANCE, "{report}");
    assert!(before <= PYTHON_TOLERANCE, "{report}");
}

/// `lines` with `name`'s results voided from line `from` on (newest
/// first, as a server writes them), then `more` random matches after.
fn with_corrections(mut lines: Vec<LedgerLine>, name: &str, from: u64) -> Vec<LedgerLine> {
    use parlor_competition::correction::correction_line;
    let mut table = parlor_competition::ledger::verify(&SYSTEM, &lines, 0.0).unwrap();
    let targets: Vec<LedgerLine> = lines
        .iter()
        .filter(|l| l.n >= from && l.players.iter().any(|p| p.name == name))
        .rev()
        .cloned()
        .collect();
    let at = lines.last().unwrap().at_ms + 1_000;
    for t in &targets {
        let head = lines.last().map(|l| (l.n, l.hash.clone())).unwrap();
        let line =
            correction_line(&mut table, Some((head.0, &head.1)), at, t, name, "engine").unwrap();
        lines.push(line);
    }
    // Matches after the void rate from the corrected ratings.
    let extra = random_ledger(99)[..40].to_vec();
    for m in extra {
        let entrants: Vec<MatchEntrant> = m
            .players
            .iter()
            .map(|p| MatchEntrant {
                name: p.name.clone(),
                seat: p.seat,
                team: p.team,
                place: p.place,
                current: table.get(&m.pool, &p.name),
            })
            .collect();
        let head = lines.last().map(|l| (l.n, l.hash.clone())).unwrap();
        let at_ms = lines.last().unwrap().at_ms + m.at_ms % DAY_MS;
        let line = next_line(
            &SYSTEM,
            Some((head.0, &head.1)),
            at_ms,
            &m.pool,
            &format!("x{}", m.n),
            "c0ffee",
            &entrants,
        );
        let placings: Vec<_> = line
            .players
            .iter()
            .map(parlor_competition::Placing::from)
            .collect();
        table.apply(&SYSTEM, &line.pool, at_ms, &placings);
        lines.push(line);
    }
    lines
}

#[test]
fn the_python_fold_applies_corrections_exactly() {
    if !python() {
        return;
    }
    let lines = with_corrections(random_ledger(0xc0de)[..200].to_vec(), "p3", 50);
    let corrections = lines.iter().filter(|l| l.void.is_some()).count();
    assert!(corrections > 5, "{corrections}");
    // This crate's fold accepts it bit for bit.
    parlor_competition::ledger::verify(&SYSTEM, &lines, 0.0).unwrap();
    let (ok, report) = fold(&ndjson(&lines));
    assert!(ok, "{report}");
    assert_eq!(report["chain"], Value::Bool(true), "{report}");
    assert_eq!(report["corrections"], corrections, "{report}");
    assert!(
        report["max_after_diff"].as_f64().unwrap() <= PYTHON_TOLERANCE,
        "{report}"
    );
    assert!(
        report["max_before_diff"].as_f64().unwrap() <= PYTHON_TOLERANCE,
        "{report}"
    );
    // A refund made larger, resealed and rechained, shows in the fold.
    let mut lying = lines.clone();
    let at = lying.iter().position(|l| l.void.is_some()).unwrap();
    let other = lying[at]
        .players
        .iter()
        .position(|p| p.name != "p3")
        .unwrap();
    lying[at].players[other].after.rating += 5.0;
    for i in at..lying.len() {
        if i > at {
            lying[i].prev = lying[i - 1].hash.clone();
        }
        lying[i] = lying[i].clone().seal();
    }
    let (ok, report) = fold(&ndjson(&lying));
    assert!(ok, "{report}");
    assert!(
        report["max_after_diff"].as_f64().unwrap() >= 4.9,
        "{report}"
    );
    // A line voided twice is refused with its number.
    let mut twice = lines.clone();
    let mut again = twice[at].clone();
    again.n = twice.len() as u64 + 1;
    again.prev = twice.last().unwrap().hash.clone();
    again.at_ms = twice.last().unwrap().at_ms;
    twice.push(again.seal());
    let (ok, report) = fold(&ndjson(&twice));
    assert!(!ok, "{report}");
    assert!(
        report["error"].as_str().unwrap().contains("voided already"),
        "{report}"
    );
}

#[test]
fn the_python_fold_finds_a_changed_line() {
    if !python() {
        return;
    }
    let good = random_ledger(7)[..60].to_vec();
    let mut changed = good.clone();
    changed[30].players[0].after.rating += 0.001;
    let (ok, report) = fold(&ndjson(&changed));
    assert!(!ok);
    assert_eq!(report["chain"], Value::Bool(false), "{report}");
    assert!(
        report["error"].as_str().unwrap().starts_with("line 31:"),
        "{report}"
    );
    // Re-sealed and re-chained, the chain holds but the fold differs.
    for i in 30..changed.len() {
        changed[i].prev = changed[i - 1].hash.clone();
        changed[i] = changed[i].clone().seal();
    }
    let (ok, report) = fold(&ndjson(&changed));
    assert!(ok, "{report}");
    assert!(
        report["max_after_diff"].as_f64().unwrap() > 0.0009,
        "{report}"
    );
}

/// The Python canonical form writes every float as serde_json does, in
/// and out of the ratings' range.
#[test]
fn the_python_number_form_is_serde_jsons() {
    if !python() {
        return;
    }
    let floats = [
        1500.0,
        350.0,
        0.06,
        0.059_999_7,
        1_662.310_893_906_297_7,
        45.0,
        1e-7,
        1e-5,
        9.999e-6,
        0.000_123_4,
        1e15,
        1e16,
        1.5e16,
        123_456_789_012_345.6,
        1e21,
        -2.5,
        -0.0,
        f64::MIN_POSITIVE,
        f64::MAX,
        1.0 / 3.0,
    ];
    let list: Vec<String> = floats.iter().map(|f| format!("{f:e}")).collect();
    let code = format!(
        "import sys; sys.path.insert(0, {:?}); import ratings_fold as r\n\
         for x in [{}]: print(r.number(float(x)))",
        root().join("examples").display().to_string(),
        list.iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let out = Command::new("python3")
        .args(["-c", &code])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let python: Vec<&str> = text.lines().collect();
    let rust: Vec<String> = floats
        .iter()
        .map(|f| serde_json::to_string(f).unwrap())
        .collect();
    assert_eq!(python, rust);
}

/// The document shows the program; the two are the same text.
#[test]
fn the_protocol_document_shows_the_example_program() {
    let doc =
        std::fs::read_to_string(root().join("docs").join("protocol").join("ratings.md")).unwrap();
    let file = std::fs::read_to_string(script()).unwrap();
    let marker = "<!-- examples/ratings_fold.py -->\n```python\n";
    let start = doc.find(marker).expect("the marked code block") + marker.len();
    let len = doc[start..].find("\n```\n").expect("the block's end") + 1;
    assert_eq!(
        &doc[start..start + len],
        file,
        "docs/protocol/ratings.md's Python fold differs from examples/ratings_fold.py"
    );
}
