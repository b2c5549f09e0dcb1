//! Counting outcomes without listing them: the seed's `count_wins`.
//!
//! The number of complete games from a position is the sum over its legal
//! actions of the number from each resulting position. Positions recur
//! (laying A then B and laying B then A meet again), so each position's
//! counts are memoised on its canonical form (see the rules' `engine`);
//! each distinct position is then expanded once, however many games pass
//! through it. Counts are exact: they start as `u64` and move to
//! arbitrary precision the moment one would overflow.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use num_bigint::BigUint;

use crate::rummikub::action::Action;
use crate::rummikub::block::Block;
use crate::rummikub::engine::{End, Engine, State, Step};
use crate::rummikub::position::{Player, Position, PositionError};

/// Most positions the memo of one search holds. A hash table of this
/// many entries stays within 2^24 slots of about 81 bytes (key, counts and
/// control byte), about 1.4 GiB, on a 24 GiB machine shared with other work.
/// When it is full, the positions with the fewest blocks left (the
/// cheapest to recompute) are dropped until half remain: exactness never
/// depends on the memo, only speed does.
pub const MEMO_CAP: usize = 14_000_000;

/// Bytes one memo entry takes in its table: the position and its counts
/// (the table adds a control byte; counts beyond 64 bits own more, see
/// [`BIG_BYTES`]).
pub const ENTRY_BYTES: usize = std::mem::size_of::<(State, Tally)>();

/// Heap bytes one memo entry with counts beyond 64 bits holds besides its
/// table entry, an upper estimate: the shared allocation's two reference
/// counts and three big numbers of up to four 64-bit digits each (counts
/// below 2^256: a search within a server's budget has far fewer games),
/// plus the allocator's overhead for each of the four allocations.
pub const BIG_BYTES: usize = 16 + 3 * 24 + 3 * 32 + 4 * 16;

/// How many threads [`predict`] uses on large searches: the machines
/// Parlor is built for have two cores (measured gain: about 1.3 to 1.5
/// times faster on millions of positions, see `SHARE_DEPTH`).
pub const WORKERS: usize = 2;

/// [`predict`] first searches alone with this budget of positions (about
/// 0.3 s), and only past it starts [`WORKERS`] threads, the first of which
/// keeps the solo search's memo. Below it a second worker's gain was within
/// the noise of a shared machine (0.16 s of CPU alone against 0.26 s for
/// two on a 180,000-position deal), while thread start-up and the locked
/// shared memo always cost.
pub const PARALLEL_THRESHOLD: usize = 200_000;

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
    /// Counts beyond 64 bits, shared: a memo hit only bumps a reference
    /// count instead of copying three big numbers.
    Big(Arc<[BigUint; 3]>),
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

/// A running sum of children's counts, turned round to the parent's side
/// (a child's wins are the parent's losses). It adds in `u128`, which no
/// sum of a position's few hundred 64-bit children can overflow, and moves
/// to arbitrary precision only for children that are already big.
#[derive(Debug)]
struct Sum {
    small: [u128; 3],
    big: Option<[BigUint; 3]>,
}

impl Sum {
    fn new() -> Sum {
        Sum {
            small: [0; 3],
            big: None,
        }
    }

    fn add_flipped(&mut self, child: &Tally) {
        match child {
            Tally::Small(c) => {
                let c = [c[1], c[0], c[2]].map(u128::from);
                for k in 0..3 {
                    match self.small[k].checked_add(c[k]) {
                        Some(v) => self.small[k] = v,
                        None => {
                            let big = self.big.get_or_insert_with(Default::default);
                            big[k] += self.small[k];
                            big[k] += c[k];
                            self.small[k] = 0;
                        }
                    }
                }
            }
            Tally::Big(c) => {
                let big = self.big.get_or_insert_with(Default::default);
                big[0] += &c[1];
                big[1] += &c[0];
                big[2] += &c[2];
            }
        }
    }

    fn finish(self) -> Tally {
        let small = self.small;
        match self.big {
            None => match small.map(u64::try_from) {
                [Ok(w), Ok(l), Ok(d)] => Tally::Small([w, l, d]),
                _ => Tally::Big(Arc::new(small.map(BigUint::from))),
            },
            Some(mut big) => {
                for k in 0..3 {
                    big[k] += small[k];
                }
                Tally::Big(Arc::new(big))
            }
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

/// Stores `t` for `s`, first making room when `map` holds `cap` entries.
fn put(map: &mut Map, cap: usize, s: State, t: Tally) {
    if map.len() >= cap {
        evict(map, cap / 2);
    }
    map.insert(s, t);
}

/// How much a memo may hold: its entries and, of them, the entries with
/// counts beyond 64 bits (which own heap memory besides the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MemoCap {
    entries: usize,
    big: usize,
}

impl MemoCap {
    /// The memo of a search without a memory budget (the CLI's).
    const ROOMY: MemoCap = MemoCap {
        entries: MEMO_CAP,
        big: usize::MAX,
    };

    /// A memo within `bytes`: three quarters for the table, counted at its
    /// peak while it grows (old and new table both alive), and a quarter
    /// for big counts. Never more than [`MEMO_CAP`].
    fn within(bytes: usize) -> MemoCap {
        MemoCap {
            entries: crate::analysis::table_entries_within(bytes / 4 * 3, ENTRY_BYTES)
                .min(MEMO_CAP),
            big: (bytes / 4 / BIG_BYTES).max(1),
        }
    }
}

/// [`put`] for a memo bounded by `cap`, `big` counting its entries with
/// counts beyond 64 bits. Making room never lets the table grow past the
/// size `cap.entries` needs: what eviction leaves is at most half of it, or
/// the memo starts again empty. Exactness never depends on the memo.
fn put_within(map: &mut Map, cap: MemoCap, big: &mut usize, s: State, t: Tally) {
    if map.len() >= cap.entries || *big >= cap.big {
        evict(map, cap.entries / 2);
        // Put what is kept back into the emptied table: removed entries
        // leave tombstones that new ones do not always reuse, and a table
        // full of them grows (doubles) even with few entries; emptied, it
        // keeps its buckets and has room for `cap.entries` again. The
        // moment's copy is at most half the table's entries.
        let kept: Vec<(State, Tally)> = map.drain().collect();
        *big = kept
            .iter()
            .filter(|(_, t)| matches!(t, Tally::Big(_)))
            .count();
        if kept.len() <= cap.entries / 2 && *big < cap.big / 2 {
            map.extend(kept);
        } else {
            *big = 0;
        }
    }
    if matches!(t, Tally::Big(_)) {
        *big += 1;
    }
    if let Some(Tally::Big(_)) = map.insert(s, t) {
        *big = big.saturating_sub(1);
    }
}

/// How much work a position's subtree can hold, roughly: the blocks still
/// in the supplies and the bag (its length, the same for every position of
/// a search, left out).
fn weight(s: &State) -> usize {
    (s.mover | s.other).count_ones() as usize + 64 - usize::from(s.drawn)
}

/// Keeps at most about `keep` entries, the heaviest ones: near the root of
/// the search, where a recomputation would cost the most.
fn evict(map: &mut Map, keep: usize) {
    let mut histogram = [0usize; 129];
    for s in map.keys() {
        histogram[weight(s).min(128)] += 1;
    }
    let mut kept = 0;
    let mut threshold = 129;
    while threshold > 0 && kept + histogram[threshold - 1] <= keep {
        threshold -= 1;
        kept += histogram[threshold];
    }
    // Keep the heaviest class even if alone it is more than `keep`.
    let heaviest = histogram.iter().rposition(|&n| n > 0).unwrap_or(0);
    let threshold = threshold.min(heaviest);
    map.retain(|s, _| weight(s) >= threshold);
}

/// A memo shared by several workers: one lock per shard, so that two
/// workers rarely wait for each other.
struct Shared {
    shards: Vec<Shard>,
}

/// One shard, alone on its cache lines so that two workers locking
/// neighbouring shards do not slow each other down (false sharing).
#[repr(align(128))]
struct Shard(Mutex<Map>);

/// Shards of the shared memo: far more than workers, so that lock
/// collisions are rare. The shared memo holds at most half of
/// [`MEMO_CAP`], the workers' private memos the other half.
const SHARDS: usize = 256;

impl Shared {
    fn new() -> Shared {
        Shared {
            shards: (0..SHARDS)
                .map(|_| Shard(Mutex::new(Map::default())))
                .collect(),
        }
    }

    fn shard(&self, s: &State) -> std::sync::MutexGuard<'_, Map> {
        let mut h = StateHasher::default();
        std::hash::Hash::hash(s, &mut h);
        // High bits: the map inside the shard uses the low ones.
        let shard = &self.shards[(h.finish() >> 56) as usize % SHARDS].0;
        shard.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, s: &State) -> Option<Tally> {
        self.shard(s).get(s).cloned()
    }

    fn put(&self, s: State, t: &Tally) {
        put(&mut self.shard(&s), MEMO_CAP / 2 / SHARDS, s, t.clone());
    }
}

/// A memoised depth-first count over one engine's positions.
///
/// Each solver has a private memo, read without locks. Solvers working
/// together also share one: a position missing from the private memo is
/// looked up there before it is expanded, and every count found is
/// published there. Locks are then taken once per private miss rather than
/// once per lookup, which is what made a second worker pay.
pub(crate) struct Solver<'e> {
    engine: &'e Engine,
    memo: Map,
    /// Most entries `memo` holds.
    cap: usize,
    /// Most entries with counts beyond 64 bits `memo` holds.
    big_cap: usize,
    /// Entries with counts beyond 64 bits in `memo`.
    big: usize,
    shared: Option<&'e Shared>,
    /// Positions deeper than this use the private memo only.
    share_depth: usize,
    scratch: Vec<Vec<Step>>,
    expanded: usize,
    budget: usize,
    /// Which worker this is: worker `w` of `n` visits each position's
    /// actions starting a fraction `w/n` of the way along, so that workers
    /// sharing a memo fan out over different subtrees first.
    worker: (usize, usize),
    cancel: Option<&'e AtomicBool>,
}

/// How deep into the tree workers share their counts. Deeper positions
/// have small subtrees that a worker recomputes faster than it could
/// lock, probe and publish a shared entry. Measured on a deal of 24-block
/// racks (3.8 million positions, two cores, other work running): sharing
/// every position made two workers no faster than one (6.5 s against
/// 6.4 s, each worker doing half the positions at twice the cost), sharing
/// down to depth 4 or 8 duplicated too much work (10 to 12 s), and depth 10
/// to 14 gave 4.2 to 5.6 s.
const SHARE_DEPTH: usize = 12;

/// How deep into the tree workers visit actions in their own rotated
/// order; below it every worker takes the natural order, so that they
/// meet each other's finished subtrees in the memo.
const SPREAD_DEPTH: usize = 12;

impl<'e> Solver<'e> {
    /// A solver on its own, expanding at most `budget` positions.
    pub fn new(engine: &'e Engine, budget: usize) -> Self {
        Solver {
            engine,
            memo: Map::default(),
            cap: MemoCap::ROOMY.entries,
            big_cap: MemoCap::ROOMY.big,
            big: 0,
            shared: None,
            share_depth: SHARE_DEPTH,
            scratch: Vec::new(),
            expanded: 0,
            budget,
            worker: (0, 1),
            cancel: None,
        }
    }

    /// The same solver with its memo held within `bytes` (none: the
    /// default [`MEMO_CAP`] entries). A search that would remember more
    /// forgets its lightest positions and recomputes them when met again:
    /// the answer is the same, only slower, and the position budget still
    /// bounds the time.
    pub fn with_memory(mut self, bytes: Option<usize>) -> Self {
        let cap = bytes.map_or(MemoCap::ROOMY, MemoCap::within);
        self.cap = cap.entries;
        self.big_cap = cap.big;
        self
    }

    /// Bytes the memo's table holds now (its allocation, big counts apart).
    #[cfg(test)]
    fn memo_bytes(&self) -> usize {
        crate::analysis::table_bytes(self.memo.capacity(), ENTRY_BYTES)
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
        // An emptied supply ends the game: answer before touching the memo.
        if s.mover == 0 || s.other == 0 {
            return Ok(Tally::of_end(self.engine.end(s)));
        }
        // Only positions with moves are memoised, so a hit is final.
        if let Some(t) = self.memo.get(s) {
            return Ok(t.clone());
        }
        if self.scratch.len() <= depth {
            self.scratch.push(Vec::new());
        }
        let mut steps = std::mem::take(&mut self.scratch[depth]);
        if let Some(end) = self.engine.steps(s, &mut steps) {
            self.scratch[depth] = steps;
            return Ok(Tally::of_end(end));
        }
        let shared = self.shared.filter(|_| depth < self.share_depth);
        if let Some(shared) = shared {
            if let Some(t) = shared.get(s) {
                self.scratch[depth] = steps;
                self.remember(*s, t.clone());
                return Ok(t);
            }
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
        let mut sum = Sum::new();
        for k in 0..n {
            let step = steps[(first + k) % n];
            let child = self.visit(&self.engine.apply(s, step), depth + 1)?;
            sum.add_flipped(&child);
        }
        let total = sum.finish();
        self.scratch[depth] = steps;
        if let Some(shared) = shared {
            shared.put(*s, &total);
        }
        self.remember(*s, total.clone());
        Ok(total)
    }

    fn remember(&mut self, s: State, t: Tally) {
        let cap = MemoCap {
            entries: self.cap,
            big: self.big_cap,
        };
        put_within(&mut self.memo, cap, &mut self.big, s, t);
    }
}

/// Counts every complete game from `pos`: the seed's `count_wins`, with
/// the wins of each player and the draws kept apart. Exact however large.
///
/// Small searches run on one thread; larger ones on [`WORKERS`] threads
/// sharing one memo.
pub fn predict(pos: &Position) -> Prediction {
    predict_with_workers(pos, WORKERS)
}

/// [`predict`] with `workers` threads for searches larger than
/// [`PARALLEL_THRESHOLD`] positions (one thread when `workers <= 1`).
pub fn predict_with_workers(pos: &Position, workers: usize) -> Prediction {
    let (engine, state) = Engine::new(pos);
    let limit = if workers <= 1 {
        usize::MAX
    } else {
        PARALLEL_THRESHOLD
    };
    let mut solo = Solver::new(&engine, limit);
    if let Ok(t) = solo.tally(&state) {
        return t.prediction(pos.to_move());
    }
    // Worker 0 carries on with everything the solo search found.
    predict_parallel(&engine, &state, workers, solo.memo).prediction(pos.to_move())
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

fn predict_parallel(engine: &Engine, state: &State, workers: usize, found: Map) -> Tally {
    let shared = Shared::new();
    let mut found = Some(found);
    let done = AtomicBool::new(false);
    let result: Mutex<Option<Tally>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for w in 0..workers {
            let (shared, done, result) = (&shared, &done, &result);
            let memo = found.take();
            scope.spawn(move || {
                let mut solver = Solver::new(engine, usize::MAX);
                if let Some(memo) = memo {
                    solver.memo = memo;
                }
                solver.shared = Some(shared);
                // Half the memory for the shared memo, the rest split.
                solver.cap = MEMO_CAP / 2 / workers;
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
    predict_within_memory(pos, max_positions, None)
}

/// [`predict_within`] with its memo held within `memory` bytes: a memo
/// that would hold more forgets its lightest positions and recomputes
/// them when met again, so the answer is the same whenever it answers.
pub fn predict_within_memory(
    pos: &Position,
    max_positions: usize,
    memory: Option<usize>,
) -> Option<Prediction> {
    let (engine, state) = Engine::new(pos);
    Solver::new(&engine, max_positions)
        .with_memory(memory)
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
        let mut sum = Sum::new();
        sum.add_flipped(&Tally::Small([1, u64::MAX, 2]));
        sum.add_flipped(&Tally::Small([5, u64::MAX, 1]));
        let t = sum.finish();
        let p = t.prediction(Player::P1);
        assert_eq!(p.p1_wins, BigUint::from(u64::MAX) * 2u32);
        assert_eq!(p.p2_wins, BigUint::from(6u32));
        assert_eq!(p.draws, BigUint::from(3u32));
        // The same counts seen from the other side, with P2 to move.
        let mut u = Sum::new();
        u.add_flipped(&t);
        u.add_flipped(&Tally::Small([0, 1, 0]));
        let u = u.finish();
        assert_eq!(u.prediction(Player::P2).p2_wins, BigUint::from(7u32));
        assert_eq!(u.prediction(Player::P2).p1_wins, p.p1_wins);
        // Past 128 bits too.
        let mut huge = Sum::new();
        for _ in 0..3 {
            huge.add_flipped(&Tally::Big(Arc::new([
                BigUint::from(0u32),
                BigUint::from(1u32) << 200u32,
                BigUint::from(0u32),
            ])));
        }
        huge.add_flipped(&Tally::Small([0, u64::MAX, 0]));
        let expect = (BigUint::from(1u32) << 200u32) * 3u32 + u64::MAX;
        assert_eq!(huge.finish().prediction(Player::P1).p1_wins, expect);
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

    #[test]
    fn a_full_memo_keeps_its_heaviest_positions_and_counts_stay_exact() {
        let state = |mover: u64, drawn: u8| State {
            mover,
            other: 1,
            crow: 0,
            start: 0,
            end: 0,
            drawn,
        };
        let mut map = Map::default();
        for i in 0..40u8 {
            map.insert(state((1u64 << (i % 8 + 1)) - 1, i / 8), Tally::ZERO);
        }
        evict(&mut map, 10);
        assert!(map.len() <= 10 && !map.is_empty(), "{}", map.len());
        let lightest_kept = map.keys().map(weight).min().unwrap_or(0);
        assert!(map.keys().all(|s| weight(s) >= lightest_kept));
        assert_eq!(map.keys().map(weight).max(), Some(weight(&state(255, 0))));

        // A memo of 4 entries, emptied again and again, counts the same.
        use crate::rummikub::block::Block;
        let hosted = Block::hosted_set();
        let deal: Vec<Block> = hosted.iter().copied().filter(|b| b.number <= 6).collect();
        let pos = Position::deal(
            deal[..9].to_vec(),
            deal[9..18].to_vec(),
            deal[18..22].to_vec(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (engine, root) = Engine::new(&pos);
        let mut roomy = Solver::new(&engine, usize::MAX);
        let mut tight = Solver::new(&engine, usize::MAX);
        tight.cap = 4;
        let (a, b) = (roomy.tally(&root), tight.tally(&root));
        assert_eq!(a, b);
        assert!(tight.expanded() > roomy.expanded());
    }

    #[test]
    fn a_memo_within_a_memory_budget_never_outgrows_it_and_counts_the_same() {
        use crate::rummikub::block::Block;
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        let mut all = Block::hosted_set();
        all.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(1));
        let pos = Position::deal(
            all[..22].to_vec(),
            all[22..44].to_vec(),
            all[44..52].to_vec(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (engine, root) = Engine::new(&pos);
        let budget = 256 << 10;
        let mut roomy = Solver::new(&engine, usize::MAX);
        let mut tight = Solver::new(&engine, usize::MAX).with_memory(Some(budget));
        assert_eq!(roomy.tally(&root), tight.tally(&root));
        // Unbounded, this search's memo is several times the budget...
        assert!(roomy.memo_bytes() > 4 * budget, "{}", roomy.memo_bytes());
        // ... bounded, its table never grew past the budget's share, even
        // counting the old table alive while it doubled.
        assert!(
            tight.memo.capacity() <= tight.cap,
            "{}",
            tight.memo.capacity()
        );
        let grown = crate::analysis::table_growth_bytes(tight.memo.capacity(), ENTRY_BYTES);
        assert!(grown <= budget / 4 * 3, "{grown} > {budget}");
        assert!(tight.big <= tight.big_cap);
        assert!(tight.expanded() > roomy.expanded());
    }

    #[test]
    fn a_memo_full_of_big_counts_makes_room_too() {
        let mut map = Map::default();
        let cap = MemoCap {
            entries: 1_000,
            big: 8,
        };
        let mut big = 0;
        let huge = || {
            Tally::Big(Arc::new([
                BigUint::from(1u32) << 70u32,
                0u32.into(),
                0u32.into(),
            ]))
        };
        for i in 0..100u64 {
            let s = State {
                mover: i + 1,
                other: 1,
                crow: 0,
                start: 0,
                end: 0,
                drawn: 0,
            };
            put_within(&mut map, cap, &mut big, s, huge());
            let counted = map.values().filter(|t| matches!(t, Tally::Big(_))).count();
            assert_eq!(big, counted);
            assert!(big <= cap.big, "{big}");
        }
    }

    #[test]
    fn workers_sharing_a_memo_count_exactly() {
        use crate::rummikub::block::Block;
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        let mut all = Block::hosted_set();
        all.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(1));
        // About 24,000 positions: workers really meet in the shared memo.
        let pos = Position::deal(
            all[..22].to_vec(),
            all[22..44].to_vec(),
            all[44..52].to_vec(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (engine, root) = Engine::new(&pos);
        let mut solo = Solver::new(&engine, usize::MAX);
        let expected = solo.tally(&root);
        assert!(solo.expanded() > 20_000, "{}", solo.expanded());
        for workers in [2, 3] {
            assert_eq!(
                Ok(predict_parallel(&engine, &root, workers, Map::default())),
                expected
            );
        }
        // Carrying on from a solo search that ran out of budget.
        let mut partial = Solver::new(&engine, 5_000);
        assert_eq!(partial.tally(&root), Err(Stop::OverBudget));
        assert_eq!(
            Ok(predict_parallel(&engine, &root, 2, partial.memo)),
            expected
        );
    }
}
