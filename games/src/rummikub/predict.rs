//! Counting outcomes without listing them: the seed's `count_wins`.
//!
//! The number of complete games from a position is the sum over its legal
//! actions of the number from each resulting position. Positions recur
//! (laying A then B and laying B then A meet again), so each position's
//! counts are memoised on its canonical form (see [`super::engine`]); each
//! distinct position is then expanded once, however many games pass
//! through it. Counts are exact: they start as `u64` and move to
//! arbitrary precision the moment one would overflow.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use num_bigint::BigUint;

use super::action::Action;
use super::block::Block;
use super::engine::{End, Engine, State, Step};
use super::position::{Player, Position, PositionError};

/// Most positions one memo holds before it is emptied and refilled. Each
/// entry takes about 100 bytes, so this bounds the memo near 1.6 GiB on a
/// 24 GiB machine shared with other work. Emptying it loses speed, never
/// exactness: every count is recomputed from the rules when needed.
pub const MEMO_CAP: usize = 1 << 24;

/// How many threads [`predict`] uses: the machines Parlor is built for have
/// two cores, and measurement showed a second worker pays off once a
/// search expands more than [`PARALLEL_THRESHOLD`] positions.
pub const WORKERS: usize = 2;

/// Below this many positions a second worker costs more (thread start,
/// locked memo) than it saves, so [`predict`] first tries this budget alone.
pub const PARALLEL_THRESHOLD: usize = 20_000;

/// Exact counts of the complete games from a position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prediction {
    /// Games player 1 wins.
    pub p1_wins: BigUint,
    /// Games player 2 wins.
    pub p2_wins: BigUint,
    /// Games that end in a draw.
    pub draws: BigUint,
}

impl Prediction {
    /// Every complete game.
    pub fn outcomes(&self) -> BigUint {
        &self.p1_wins + &self.p2_wins + &self.draws
    }

    /// Player 1's wins over all games, draws included in the denominator:
    /// the seed's `count_wins`. 0 when there is no game at all.
    pub fn win_fraction(&self) -> f64 {
        ratio(&self.p1_wins, &self.outcomes())
    }

    /// The fraction of games `player` wins.
    pub fn fraction_for(&self, player: Player) -> f64 {
        let wins = match player {
            Player::P1 => &self.p1_wins,
            Player::P2 => &self.p2_wins,
        };
        ratio(wins, &self.outcomes())
    }
}

/// `num / den` as a float, exact to float precision for any size: both are
/// shifted down together until the denominator fits 64 bits.
fn ratio(num: &BigUint, den: &BigUint) -> f64 {
    if den.bits() == 0 {
        return 0.0;
    }
    let shift = den.bits().saturating_sub(64);
    let n = u64::try_from(num >> shift).unwrap_or(u64::MAX);
    let d = u64::try_from(den >> shift).unwrap_or(u64::MAX);
    n as f64 / d as f64
}

/// Counts from the mover's point of view: wins, losses, draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tally {
    /// Counts that fit 64 bits, the common case, kept small for the memo.
    Small([u64; 3]),
    /// Counts beyond 64 bits.
    Big(Box<[BigUint; 3]>),
}

impl Tally {
    const ZERO: Tally = Tally::Small([0; 3]);

    fn of_end(end: End) -> Tally {
        Tally::Small(match end {
            End::MoverWins => [1, 0, 0],
            End::MoverLoses => [0, 1, 0],
            End::Drawn => [0, 0, 1],
        })
    }

    fn big(&self) -> [BigUint; 3] {
        match self {
            Tally::Small(v) => v.map(BigUint::from),
            Tally::Big(b) => (**b).clone(),
        }
    }

    /// Adds a child's counts, which are from the other player's side.
    fn add_flipped(&mut self, child: &Tally) {
        if let (Tally::Small(a), Tally::Small(c)) = (&mut *self, child) {
            if let (Some(w), Some(l), Some(d)) = (
                a[0].checked_add(c[1]),
                a[1].checked_add(c[0]),
                a[2].checked_add(c[2]),
            ) {
                *a = [w, l, d];
                return;
            }
        }
        let mut a = self.big();
        let c = child.big();
        a[0] += &c[1];
        a[1] += &c[0];
        a[2] += &c[2];
        *self = Tally::Big(Box::new(a));
    }

    /// The counts as a prediction, `mover` having been to move.
    pub fn prediction(&self, mover: Player) -> Prediction {
        let [w, l, d] = self.big();
        let (p1_wins, p2_wins) = match mover {
            Player::P1 => (w, l),
            Player::P2 => (l, w),
        };
        Prediction {
            p1_wins,
            p2_wins,
            draws: d,
        }
    }
}

/// A fast hash for [`State`]: its words are already well spread bitsets, so
/// a multiply-rotate mix with a final avalanche is enough, and much cheaper
/// than the default SipHash, which dominated the search's profile.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct StateHasher(u64);

impl Hasher for StateHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h
    }
}

type Map = HashMap<State, Tally, BuildHasherDefault<StateHasher>>;

/// Why a search stopped before its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// It expanded more positions than it was allowed.
    OverBudget,
    /// Another worker finished the job.
    Cancelled,
}

/// Where a solver keeps the counts it has found.
pub(crate) trait Memo {
    fn get(&mut self, s: &State) -> Option<Tally>;
    fn put(&mut self, s: State, t: &Tally);
}

impl Memo for Map {
    fn get(&mut self, s: &State) -> Option<Tally> {
        HashMap::get(self, s).cloned()
    }

    fn put(&mut self, s: State, t: &Tally) {
        if self.len() >= MEMO_CAP {
            self.clear();
        }
        self.insert(s, t.clone());
    }
}

/// A memo shared by several workers: one lock per shard, so that two
/// workers rarely wait for each other.
struct Shared {
    shards: Vec<Mutex<Map>>,
}

/// Shards of the shared memo: far more than workers, so that lock
/// collisions are rare.
const SHARDS: usize = 64;

impl Shared {
    fn new() -> Shared {
        Shared {
            shards: (0..SHARDS).map(|_| Mutex::new(Map::default())).collect(),
        }
    }

    fn shard(&self, s: &State) -> &Mutex<Map> {
        let mut h = StateHasher::default();
        std::hash::Hash::hash(s, &mut h);
        // High bits: the map inside the shard uses the low ones.
        &self.shards[(h.finish() >> 58) as usize % SHARDS]
    }
}

impl Memo for &Shared {
    fn get(&mut self, s: &State) -> Option<Tally> {
        let map = self.shard(s).lock().unwrap_or_else(|e| e.into_inner());
        HashMap::get(&map, s).cloned()
    }

    fn put(&mut self, s: State, t: &Tally) {
        let mut map = self.shard(&s).lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= MEMO_CAP / SHARDS {
            map.clear();
        }
        map.insert(s, t.clone());
    }
}

/// A memoised depth-first count over one engine's positions.
pub(crate) struct Solver<'e, M> {
    engine: &'e Engine,
    memo: M,
    scratch: Vec<Vec<Step>>,
    expanded: usize,
    budget: usize,
    /// Which worker this is: worker `w` of `n` visits each position's
    /// actions starting a fraction `w/n` of the way along, so that workers
    /// sharing a memo fan out over different subtrees first.
    worker: (usize, usize),
    cancel: Option<&'e AtomicBool>,
}

/// How deep into the tree workers visit actions in their own rotated
/// order; below it every worker takes the natural order, so that they
/// meet each other's finished subtrees in the memo.
const SPREAD_DEPTH: usize = 12;

impl<'e> Solver<'e, Map> {
    /// A solver with its own memo, expanding at most `budget` positions.
    pub fn new(engine: &'e Engine, budget: usize) -> Self {
        Solver::with_memo(engine, Map::default(), budget)
    }
}

impl<'e, M: Memo> Solver<'e, M> {
    fn with_memo(engine: &'e Engine, memo: M, budget: usize) -> Self {
        Solver {
            engine,
            memo,
            scratch: Vec::new(),
            expanded: 0,
            budget,
            worker: (0, 1),
            cancel: None,
        }
    }

    /// Positions expanded so far.
    pub fn expanded(&self) -> usize {
        self.expanded
    }

    /// The counts from `s`, from the mover's side.
    pub fn tally(&mut self, s: &State) -> Result<Tally, Stop> {
        self.visit(s, 0)
    }

    fn visit(&mut self, s: &State, depth: usize) -> Result<Tally, Stop> {
        // Only positions with moves are memoised, so a hit is final.
        if let Some(t) = self.memo.get(s) {
            return Ok(t);
        }
        if self.scratch.len() <= depth {
            self.scratch.push(Vec::new());
        }
        let mut steps = std::mem::take(&mut self.scratch[depth]);
        if let Some(end) = self.engine.steps(s, &mut steps) {
            self.scratch[depth] = steps;
            return Ok(Tally::of_end(end));
        }
        if let Some(flag) = self.cancel {
            if flag.load(Ordering::Relaxed) {
                return Err(Stop::Cancelled);
            }
        }
        self.expanded += 1;
        if self.expanded > self.budget {
            return Err(Stop::OverBudget);
        }
        let n = steps.len();
        let first = if depth < SPREAD_DEPTH {
            self.worker.0 * n / self.worker.1.max(1)
        } else {
            0
        };
        let mut total = Tally::ZERO;
        for k in 0..n {
            let step = steps[(first + k) % n];
            let child = self.visit(&self.engine.apply(s, step), depth + 1)?;
            total.add_flipped(&child);
        }
        self.scratch[depth] = steps;
        self.memo.put(*s, &total);
        Ok(total)
    }
}

/// Counts every complete game from `pos`: the seed's `count_wins`, with
/// the wins of each player and the draws kept apart. Exact however large.
///
/// Small searches run on one thread; larger ones on [`WORKERS`] threads
/// sharing one memo.
pub fn predict(pos: &Position) -> Prediction {
    let (engine, state) = Engine::new(pos);
    let mut solo = Solver::new(&engine, PARALLEL_THRESHOLD);
    if let Ok(t) = solo.tally(&state) {
        return t.prediction(pos.to_move());
    }
    drop(solo);
    predict_parallel(&engine, &state, WORKERS).prediction(pos.to_move())
}

/// [`predict`] on one thread, whatever the size, with the number of
/// distinct positions it expanded (the size of the search, for
/// measurements).
pub fn predict_sequential(pos: &Position) -> (Prediction, usize) {
    let (engine, state) = Engine::new(pos);
    let mut solver = Solver::new(&engine, usize::MAX);
    let tally = solver.tally(&state).unwrap_or(Tally::ZERO);
    // `tally` cannot fail here: no budget and no cancellation.
    (tally.prediction(pos.to_move()), solver.expanded())
}

fn predict_parallel(engine: &Engine, state: &State, workers: usize) -> Tally {
    let shared = Shared::new();
    let done = AtomicBool::new(false);
    let result: Mutex<Option<Tally>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for w in 0..workers {
            let (shared, done, result) = (&shared, &done, &result);
            scope.spawn(move || {
                let mut solver = Solver::with_memo(engine, shared, usize::MAX);
                solver.worker = (w, workers);
                solver.cancel = Some(done);
                if let Ok(t) = solver.tally(state) {
                    done.store(true, Ordering::Relaxed);
                    let mut slot = result.lock().unwrap_or_else(|e| e.into_inner());
                    slot.get_or_insert(t);
                }
            });
        }
    });
    let slot = result.into_inner().unwrap_or_else(|e| e.into_inner());
    // Every worker finishes unless another finished first, so one did.
    slot.unwrap_or(Tally::ZERO)
}

/// [`predict`], giving up (`None`) once the search has expanded more than
/// `max_positions` distinct positions. One thread.
pub fn predict_within(pos: &Position, max_positions: usize) -> Option<Prediction> {
    let (engine, state) = Engine::new(pos);
    Solver::new(&engine, max_positions)
        .tally(&state)
        .ok()
        .map(|t| t.prediction(pos.to_move()))
}

/// The prediction after each legal action of the player to move, sharing
/// one search; `None` when it would expand more than `max_positions`
/// positions, or when the game is already over.
pub fn predict_actions(pos: &Position, max_positions: usize) -> Option<Vec<(Action, Prediction)>> {
    let (engine, state) = Engine::new(pos);
    let mut steps = Vec::new();
    if engine.steps(&state, &mut steps).is_some() {
        return None;
    }
    let mut solver = Solver::new(&engine, max_positions);
    let mover = pos.to_move();
    steps
        .iter()
        .map(|&step| {
            let child = solver.tally(&engine.apply(&state, step)).ok()?;
            Some((engine.action(&state, step), child.prediction(mover.other())))
        })
        .collect()
}

/// The seed's `count_wins(P1Blocks, P2Blocks, Bag, F)`: from an empty
/// table, the fraction of complete games player 1 wins.
pub fn count_wins(p1: Vec<Block>, p2: Vec<Block>, bag: Vec<Block>) -> Result<f64, PositionError> {
    Ok(predict(&Position::deal(p1, p2, bag)?).win_fraction())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_stay_exact_past_64_bits() {
        let mut t = Tally::Small([u64::MAX, 1, 2]);
        t.add_flipped(&Tally::Small([5, u64::MAX, 1]));
        let p = t.prediction(Player::P1);
        assert_eq!(p.p1_wins, BigUint::from(u64::MAX) * 2u32);
        assert_eq!(p.p2_wins, BigUint::from(6u32));
        assert_eq!(p.draws, BigUint::from(3u32));
        // The same counts seen from the other side, with P2 to move.
        let mut u = Tally::ZERO;
        u.add_flipped(&t);
        assert_eq!(u.prediction(Player::P2), p);
        u.add_flipped(&Tally::Small([0, 1, 0]));
        assert_eq!(u.prediction(Player::P2).p2_wins, BigUint::from(7u32));
    }

    #[test]
    fn fractions_of_huge_counts_are_accurate() {
        let big = BigUint::from(1u32) << 300u32;
        let p = Prediction {
            p1_wins: big.clone(),
            p2_wins: big.clone() * 3u32,
            draws: BigUint::from(0u32),
        };
        assert!((p.win_fraction() - 0.25).abs() < 1e-12);
        let none = Prediction {
            p1_wins: BigUint::from(0u32),
            p2_wins: BigUint::from(0u32),
            draws: BigUint::from(0u32),
        };
        assert_eq!(none.win_fraction(), 0.0);
    }
}
