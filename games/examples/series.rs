//! Plays a series of two-player games between two built-in bots without a
//! server, with duplicate deals: each deal is played twice, the bots
//! swapping seats, so both get the same cards, racks or bag and the luck
//! of the deal cancels out. Prints the first bot's wins, losses and draws,
//! its share of the decisive games and that share's 95% Wilson interval.
//!
//! ```text
//! cargo run --release -p parlor-games --example series -- rummikub sampler greedy 500 '{"empty_bag":"pass"}'
//! cargo run --release -p parlor-games --example series -- cribbage expert seed 1000
//! cargo run --release -p parlor-games --example series -- mitsudomoe search:100 greedy 100
//! ```
//!
//! Arguments: game, first bot, second bot, deals (each played twice), and
//! optionally the room options as JSON (the game's defaults otherwise).
//! `SERIES_THREADS` sets the worker threads (default 1: the bench machine
//! is shared) and `SERIES_SEED` the first deal's number (default 0).

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use parlor_games::cribbage::Cribbage;
use parlor_games::mitsudomoe::Mitsudomoe;
use parlor_games::nimrod::Nimrod;
use parlor_games::rummikub::Rummikub;
use parlor_games::{Bots, GameRng, Outcome, Seat, Viewer};

/// The seats of every game in a series: duplicate deals swap two sides.
const SEATS: u8 = 2;

/// z for a two-sided 95% interval.
const Z95: f64 = 1.96;

/// How one game went for the first bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Result {
    Won,
    Lost,
    Drawn,
}

/// The totals of a series, for the first bot.
#[derive(Clone, Debug, Default)]
struct Tally {
    won: u64,
    lost: u64,
    drawn: u64,
    /// Deals the first bot won from both seats, split, and lost from both
    /// (draws count half a game: a deal scores 0 to 2 points).
    deal_points: [u64; 5],
    /// How long each decision with a choice (two legal moves or more)
    /// took, either bot's.
    choices: Vec<Duration>,
    /// Decisions in all, forced ones included.
    moves: u64,
}

/// The generator of deal `n`: its own key, so that both games of a deal
/// get the same chance whatever the bots draw (they draw from their own
/// generators).
fn deal_rng(n: u64) -> GameRng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&n.to_le_bytes());
    key[8..14].copy_from_slice(b"series");
    GameRng::from_key(key)
}

/// A bot's own generator for deal `n`, seat arrangement `swap`.
fn bot_rng(n: u64, swap: bool, which: u64) -> GameRng {
    GameRng::from_seed(n.wrapping_mul(4).wrapping_add(u64::from(swap) * 2 + which))
}

/// How one game went: the result for the first bot, the time of each
/// decision with a choice, and the number of decisions.
type Game = (Result, Vec<Duration>, u64);

/// Plays deal `n` with `a` in seat 0 (or seat 1 when `swap`), `b` in the
/// other.
fn play<G: Bots>(
    cfg: &G::Config,
    (a, b): (&str, &str),
    n: u64,
    swap: bool,
) -> std::result::Result<Game, String> {
    let mut chance = deal_rng(n);
    let mut g = G::setup(cfg, SEATS, &mut chance).map_err(|e| e.to_string())?;
    let a_seat = Seat(u8::from(swap));
    let make = |name: &str| G::strategy(name).ok_or_else(|| format!("no bot {name:?}"));
    let mut bots = [make(a)?, make(b)?];
    if swap {
        bots.swap(0, 1);
    }
    let mut rngs = [bot_rng(n, swap, 0), bot_rng(n, swap, 1)];
    let (mut choices, mut moves) = (Vec::new(), 0u64);
    for _ in 0..G::max_steps(cfg, SEATS) {
        if let Some(outcome) = g.outcome() {
            let r = match outcome {
                Outcome::Win { winners } if winners.contains(a_seat) && winners.len() == 1 => {
                    Result::Won
                }
                Outcome::Win { winners } if !winners.contains(a_seat) => Result::Lost,
                _ => Result::Drawn,
            };
            return Ok((r, choices, moves));
        }
        let seat = g
            .to_act()
            .iter()
            .next()
            .ok_or("a game with nobody to act")?;
        let view = g.view(Viewer::Seat(seat));
        let i = seat.index().min(1);
        let start = Instant::now();
        let mv = bots[i]
            .choose(seat, &view, &mut rngs[i])
            .ok_or_else(|| format!("deal {n}: {seat} found no move"))?;
        let took = start.elapsed();
        if g.legal_moves_upto(seat, 2).is_none_or(|m| m.len() > 1) {
            choices.push(took);
        }
        moves += 1;
        g.play(seat, &mv, &mut chance)
            .map_err(|e| format!("deal {n}: {seat} played an illegal move: {e}"))?;
    }
    Err(format!("deal {n} did not end within its step bound"))
}

/// Wilson's score interval at 95% for `k` successes in `n` trials.
fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    (centre - half, centre + half)
}

fn series<G: Bots>(
    options: Option<&str>,
    bots: (&str, &str),
    deals: u64,
    first: u64,
    threads: u64,
) -> std::result::Result<Tally, String> {
    let cfg: G::Config = match options {
        Some(json) => serde_json::from_str(json).map_err(|e| format!("options: {e}"))?,
        None => G::Config::default(),
    };
    let next = AtomicU64::new(0);
    let tally = Mutex::new(Tally::default());
    let failure = Mutex::new(None::<String>);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= deals {
                    return;
                }
                let n = first + i;
                let mut points = 0;
                let mut games = Vec::new();
                for swap in [false, true] {
                    match play::<G>(&cfg, bots, n, swap) {
                        Ok(g) => games.push(g),
                        Err(e) => {
                            if let Ok(mut f) = failure.lock() {
                                f.get_or_insert(e);
                            }
                            return;
                        }
                    }
                }
                let Ok(mut t) = tally.lock() else { return };
                for (r, choices, moves) in games {
                    match r {
                        Result::Won => (t.won, points) = (t.won + 1, points + 2),
                        Result::Lost => t.lost += 1,
                        Result::Drawn => (t.drawn, points) = (t.drawn + 1, points + 1),
                    }
                    t.choices.extend(choices);
                    t.moves += moves;
                }
                t.deal_points[points] += 1;
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    tally.into_inner().map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [game, a, b, deals, rest @ ..] = args.as_slice() else {
        eprintln!("usage: series GAME BOT_A BOT_B DEALS [OPTIONS_JSON]");
        return ExitCode::from(2);
    };
    let Ok(deals) = deals.parse::<u64>() else {
        eprintln!("DEALS must be a number, not {deals:?}");
        return ExitCode::from(2);
    };
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (threads, first) = (env("SERIES_THREADS", 1), env("SERIES_SEED", 0));
    let options = rest.first().map(String::as_str);
    let bots = (a.as_str(), b.as_str());
    let start = Instant::now();
    let result = match game.as_str() {
        "rummikub" => series::<Rummikub>(options, bots, deals, first, threads),
        "cribbage" => series::<Cribbage>(options, bots, deals, first, threads),
        "mitsudomoe" => series::<Mitsudomoe>(options, bots, deals, first, threads),
        "nimrod" => series::<Nimrod>(options, bots, deals, first, threads),
        other => Err(format!("no game {other:?}")),
    };
    let mut t = match result {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let games = t.won + t.lost + t.drawn;
    let decisive = t.won + t.lost;
    let (lo, hi) = wilson(t.won, decisive);
    let pct = |x: f64| 100.0 * x;
    println!(
        "{game} {a} vs {b}{}: {deals} deals x 2 seats = {games} games: won {}, lost {}, drawn {}",
        options.map(|o| format!(" {o}")).unwrap_or_default(),
        t.won,
        t.lost,
        t.drawn
    );
    println!(
        "  {a} won {:.1}% of the {decisive} decisive games (95% Wilson CI {:.1}%..{:.1}%)",
        pct(t.won as f64 / decisive.max(1) as f64),
        pct(lo),
        pct(hi)
    );
    println!(
        "  deals by {a}'s points out of 2 (a draw 1/2): 0: {}, 1/2: {}, 1: {}, 3/2: {}, 2: {}",
        t.deal_points[0], t.deal_points[1], t.deal_points[2], t.deal_points[3], t.deal_points[4]
    );
    t.choices.sort();
    let ms = |d: Option<&Duration>| d.map_or(0.0, |d| d.as_secs_f64() * 1e3);
    let n = t.choices.len();
    let mean = t.choices.iter().sum::<Duration>().as_secs_f64() * 1e3 / n.max(1) as f64;
    println!(
        "  {} decisions, {n} with a choice: mean {mean:.2} ms, p99 {:.1} ms, slowest {:.1} ms \
         (wall clock, both bots); {:.1} s in all",
        t.moves,
        ms(t.choices.get(n * 99 / 100)),
        ms(t.choices.last()),
        start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
