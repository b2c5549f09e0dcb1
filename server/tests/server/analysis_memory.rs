//! Analyses bounded in memory, measured from outside: the real
//! `parlor-server` binary, whose peak resident memory (`VmHWM` in
//! `/proc/PID/status`) is read while clients ask it for analyses.
//!
//! The quick test runs in every `cargo test`; the measurement of every
//! analysis kind is run on purpose, with the release server:
//! `cargo test --release -p parlor-server --test server analysis_memory:: -- --ignored --nocapture`.

// Test helpers fail the test by panicking.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::live::{hello, recv, send, start_server, OwnedServer, Ws};
use parlor_protocol::{ErrorCode, ServerMsg};
use serde_json::{json, Value};

/// The goal for the whole server while two 25-block predictions run at
/// once (issue 23): on a 1-2 GB host it must not be what the kernel kills.
const SERVER_PEAK_LIMIT_MIB: u64 = 200;

/// A field of `/proc/PID/status` in KiB (`VmRSS`: resident now, `VmHWM`:
/// the most it has been).
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The 52 hosted blocks in a fixed scramble (the same for a seed every
/// run), dealt as racks of `a` and `b` blocks and a bag of `bag`.
fn deal(seed: u64, a: usize, b: usize, bag: usize) -> Value {
    let colors = ["red", "blue", "yellow", "black"];
    let mut blocks: Vec<Value> = (1..=13)
        .flat_map(|n| colors.iter().map(move |c| json!({"number": n, "color": c})))
        .collect();
    let mut x = seed.max(1);
    for i in (1..blocks.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        blocks.swap(i, (x % (i as u64 + 1)) as usize);
    }
    json!({"p1": blocks[..a], "p2": blocks[a..a + b], "bag": blocks[a + b..a + b + bag]})
}

/// A prediction over racks of 25 blocks and a bag of 2: 28 million
/// distinct positions, far beyond any server's budget, as issue 23 sent
/// it. The players' own lines alone make only 54,888, so the search
/// starts and runs into its budgets.
fn predict_25() -> Value {
    json!({"type": "analyze", "game": "rummikub", "tool": "predict", "input": deal(2, 25, 25, 2)})
}

/// A prediction over racks of 25 blocks, each two colours in runs of 12
/// and 13: their own lines of play alone make about a billion positions,
/// so it is refused before any search.
fn predict_25_lines() -> Value {
    let run = |c: &'static str, lo: i64| (lo..=13).map(move |n| json!({"number": n, "color": c}));
    let p1: Vec<Value> = run("red", 1).chain(run("blue", 2)).collect();
    let p2: Vec<Value> = run("yellow", 1).chain(run("black", 2)).collect();
    json!({"type": "analyze", "game": "rummikub", "tool": "predict", "input": {"p1": p1, "p2": p2}})
}

/// The server binary on a fresh database in `dir`, with `args`.
fn server(dir: &Path, args: &[&str]) -> (OwnedServer, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_parlor-server"));
    let mut all = vec!["--db".into(), dir.join("memory.db").into_os_string()];
    all.extend(args.iter().map(Into::into));
    start_server(bin, &all, &dir.join("addr"), None)
}

/// The time budget of the quick test: a debug build searches a few
/// hundred thousand positions a second, and a memo that kept every
/// position of 600,000 would take over 100 MiB for one request (a table
/// of 2^20 entries of 81 bytes, with its half-size predecessor while it
/// doubles), so two of them would pass the server's goal. The memory
/// budget is the server's own.
const QUICK_TEST_POSITIONS: &str = "600000";

/// The answer to the analysis `ws` asked for: `Ok(results)` or
/// `Err((code, message))`.
async fn answer(ws: &mut Ws) -> Result<Vec<Value>, (ErrorCode, String)> {
    loop {
        match recv(ws).await.unwrap() {
            ServerMsg::Analysis { results, .. } => return Ok(results),
            ServerMsg::Error { code, message, .. } => return Err((code, message)),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_concurrent_25_block_predicts_keep_the_server_under_its_memory_goal() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, url) = server(dir.path(), &["--analysis-positions", QUICK_TEST_POSITIONS]);
    let pid = child.id();
    let (mut a, _) = hello(&url).await.unwrap();
    let (mut b, _) = hello(&url).await.unwrap();
    let before = status_kib(pid, "VmRSS");
    // A deal whose size shows it is too large is refused before the search.
    send(&mut a, predict_25_lines()).await.unwrap();
    send(&mut b, predict_25_lines()).await.unwrap();
    for ws in [&mut a, &mut b] {
        let (code, message) = answer(ws).await.err().unwrap();
        assert_eq!(code, ErrorCode::AnalysisTooLarge, "{message}");
        assert!(message.contains("at least"), "{message}");
    }
    // One that does not show it runs into its budgets: both sent before
    // either is read, so they run at once, one in each heavy place.
    send(&mut a, predict_25()).await.unwrap();
    send(&mut b, predict_25()).await.unwrap();
    for ws in [&mut a, &mut b] {
        let (code, message) = answer(ws).await.err().unwrap();
        assert_eq!(code, ErrorCode::AnalysisTooLarge, "{message}");
        // The refusal says what was too large.
        assert!(
            message.contains(&format!("more than {QUICK_TEST_POSITIONS} positions")),
            "{message}"
        );
    }
    // A small prediction is still answered, exactly.
    let small = json!({"type": "analyze", "game": "rummikub", "tool": "predict", "input": {
        "p1": [{"number": 1, "color": "red"}, {"number": 2, "color": "red"}, {"number": 3, "color": "red"}, {"number": 2, "color": "blue"}],
        "p2": [{"number": 5, "color": "red"}, {"number": 5, "color": "yellow"}, {"number": 5, "color": "black"}, {"number": 4, "color": "red"}],
        "bag": [{"number": 5, "color": "blue"}],
    }});
    send(&mut a, small).await.unwrap();
    assert_eq!(answer(&mut a).await.unwrap()[0]["outcomes"], json!(3));
    let peak = status_kib(pid, "VmHWM");
    child.kill();
    eprintln!(
        "server RSS {:.1} MiB before, peak {:.1} MiB",
        mib(before),
        mib(peak)
    );
    assert!(
        peak < SERVER_PEAK_LIMIT_MIB * 1024,
        "the server peaked at {:.1} MiB (from {:.1} MiB) during two 25-block predictions",
        mib(peak),
        mib(before)
    );
}

/// One measured request: a label, the analysis request, and how many
/// clients send it at once.
struct Case {
    label: &'static str,
    request: Value,
    clients: usize,
}

fn analyze(game: &str, tool: &str, input: Value) -> Value {
    json!({"type": "analyze", "game": game, "tool": tool, "input": input})
}

/// Measures each case on a fresh server: resident memory before, its
/// peak, what the clients were answered and how long it took, resident
/// memory right after and a second later.
async fn measure(case: &Case) {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, url) = server(dir.path(), &[]);
    let pid = child.id();
    let mut clients = Vec::new();
    for _ in 0..case.clients {
        clients.push(hello(&url).await.unwrap().0);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = status_kib(pid, "VmRSS");
    let t0 = Instant::now();
    for ws in &mut clients {
        send(ws, case.request.clone()).await.unwrap();
    }
    let mut answers = Vec::new();
    for ws in &mut clients {
        answers.push(match answer(ws).await {
            Ok(r) => format!("answered ({} results)", r.len()),
            Err((code, _)) => code.to_string(),
        });
    }
    let took = t0.elapsed();
    let peak = status_kib(pid, "VmHWM");
    let right_after = status_kib(pid, "VmRSS");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let later = status_kib(pid, "VmRSS");
    child.kill();
    println!(
        "| {} | {} | {:.2} s | {:.1} | {:.1} (+{:.1}) | {:.1} / {:.1} |",
        case.label,
        answers.join(", "),
        took.as_secs_f64(),
        mib(before),
        mib(peak),
        mib(peak.saturating_sub(before)),
        mib(right_after),
        mib(later)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measures every analysis kind on its own server: run on purpose, with --release"]
async fn peak_memory_of_each_analysis_kind() {
    let b = |n: i64, c: &str| json!({"number": n, "color": c});
    // The most rows a table can have: every block of 1 to 13 in nrows.
    let table: Vec<Value> = ["red", "blue", "yellow", "black"]
        .iter()
        .flat_map(|c| {
            [(1, 4), (5, 8), (9, 13)]
                .map(|(lo, hi)| json!({"nrow": (lo..=hi).map(|n| b(n, c)).collect::<Vec<_>>()}))
        })
        .collect();
    let largest_accepted = deal(
        LARGEST_ACCEPTED.0,
        LARGEST_ACCEPTED.1,
        LARGEST_ACCEPTED.2,
        LARGEST_ACCEPTED.3,
    );
    let mut replay = largest_accepted.clone();
    replay["actions"] = json!([]);
    let mut replay_25 = deal(2, 25, 25, 2);
    let start = parlor_games::mitsudomoe::Position::initial().to_string();
    replay_25["actions"] = json!([]);
    let cases = [
        Case {
            label: "rummikub `predict`, largest accepted deal",
            request: analyze("rummikub", "predict", largest_accepted.clone()),
            clients: 1,
        },
        Case {
            label: "rummikub `predict`, two clients, largest accepted deal",
            request: analyze("rummikub", "predict", largest_accepted),
            clients: 2,
        },
        Case {
            label: "rummikub `predict`, 25-block rack (refused)",
            request: predict_25(),
            clients: 1,
        },
        Case {
            label: "rummikub `predict`, two clients, 25-block rack (refused)",
            request: predict_25(),
            clients: 2,
        },
        Case {
            label: "rummikub `predict`, two clients, racks of 25 in two runs each (refused before the search)",
            request: predict_25_lines(),
            clients: 2,
        },
        Case {
            label: "rummikub `replay`, largest accepted deal",
            request: analyze("rummikub", "replay", replay),
            clients: 1,
        },
        Case {
            label: "rummikub `replay`, 25-block rack (refused)",
            request: analyze("rummikub", "replay", replay_25),
            clients: 1,
        },
        Case {
            label: "rummikub `outcomes`, 25-block rack (cut at the reply limit)",
            request: analyze("rummikub", "outcomes", deal(2, 25, 25, 2)),
            clients: 1,
        },
        Case {
            label: "rummikub `check-table`, every block in 12 rows",
            request: analyze("rummikub", "check-table", json!(table)),
            clients: 1,
        },
        Case {
            label: "cribbage `discard`, 6 cards as dealer",
            request: analyze(
                "cribbage",
                "discard",
                json!({"cards": ["5H", "5S", "JD", "2C", "8H", "KS"], "role": "dealer"}),
            ),
            clients: 1,
        },
        Case {
            label: "cribbage `score`",
            request: analyze(
                "cribbage",
                "score",
                json!({"hand": ["5H", "5S", "5C", "JD"], "start": "5D"}),
            ),
            clients: 1,
        },
        Case {
            label: "nimrod `lose-positions`, 12,000 (largest that fits a reply)",
            request: analyze("nimrod", "lose-positions", json!({"count": 12_000})),
            clients: 1,
        },
        Case {
            label: "nimrod `lose-positions`, 1,000,000 (refused: over 256 KiB)",
            request: analyze("nimrod", "lose-positions", json!({"count": 1_000_000})),
            clients: 1,
        },
        Case {
            label: "nimrod `best-move`, piles near 10^18",
            request: analyze(
                "nimrod",
                "best-move",
                json!({"piles": [999_999_999_999_999_999u64, 618_033_988_749_894_848u64]}),
            ),
            clients: 1,
        },
        Case {
            label: "mitsudomoe `perft`, depth 4 (182,255 positions)",
            request: analyze("mitsudomoe", "perft", json!({"depth": 4})),
            clients: 1,
        },
        Case {
            label: "mitsudomoe `perft`, depth 5 (refused)",
            request: analyze("mitsudomoe", "perft", json!({"depth": 5})),
            clients: 1,
        },
        Case {
            label: "mitsudomoe `best-move`, 10 s from the start",
            request: analyze(
                "mitsudomoe",
                "best-move",
                json!({"position": start, "time_ms": 10_000}),
            ),
            clients: 1,
        },
    ];
    println!(
        "| analysis | answer | time | RSS before (MiB) | peak (MiB) | after / 1 s later (MiB) |"
    );
    println!("|---|---|---|---|---|---|");
    for case in &cases {
        measure(case).await;
    }
}

/// The deal (scramble seed, rack sizes, bag) with the most positions that
/// a server's budget still answers, found by trying scrambles.
const LARGEST_ACCEPTED: (u64, usize, usize, usize) = (6, 24, 24, 4);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run on purpose, with --release"]
async fn small_analyses_while_two_heavy_ones_run() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, url) = server(dir.path(), &[]);
    let (mut a, _) = hello(&url).await.unwrap();
    let (mut b, _) = hello(&url).await.unwrap();
    let (mut small, _) = hello(&url).await.unwrap();
    let (mut third, _) = hello(&url).await.unwrap();
    let best_move = analyze("nimrod", "best-move", json!({"piles": [5, 12]}));
    let mut calm = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        send(&mut small, best_move.clone()).await.unwrap();
        answer(&mut small).await.unwrap();
        calm.push(t.elapsed());
    }
    send(&mut a, predict_25()).await.unwrap();
    send(&mut b, predict_25()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    // A third heavy request finds both heavy places taken.
    send(&mut third, predict_25()).await.unwrap();
    let third_answer = answer(&mut third).await.err().map(|(c, _)| c);
    let mut busy = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        send(&mut small, best_move.clone()).await.unwrap();
        answer(&mut small).await.unwrap();
        busy.push(t.elapsed());
    }
    for ws in [&mut a, &mut b] {
        answer(ws).await.err().unwrap();
    }
    child.kill();
    let ms = |v: &mut Vec<Duration>| {
        v.sort();
        (
            v[v.len() / 2].as_secs_f64() * 1e3,
            v[v.len() - 1].as_secs_f64() * 1e3,
        )
    };
    let (c50, cmax) = ms(&mut calm);
    let (b50, bmax) = ms(&mut busy);
    println!(
        "nimrod best-move: median {c50:.2} ms, max {cmax:.2} ms alone; median {b50:.2} ms, max {bmax:.2} ms beside two 25-block predictions; a third prediction: {third_answer:?}"
    );
}
