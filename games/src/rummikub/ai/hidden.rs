//! What a seat has not seen, and deals of it that agree with its view:
//! the blocks outside its rack and the table, dealt into the other racks
//! (of the sizes the view shows) and the bag, in a random order.
//!
//! The view also tells a little about the other racks, and a deal should
//! agree with it: a seat that just drew had nothing to lay on this table
//! before its draw (a draw changes no row), and the seats that just passed
//! have nothing to lay now. Deals for such seats leave out the blocks that
//! fit the table and racks that hold a row of their own (the drawn block
//! excepted), by rejection within [`CLUE_TRIES`].

use rand::seq::SliceRandom;
use rand::Rng;

use super::board::{bit, bits, holds_row, set_of, Board, MAX_SEATS};
use crate::game::Seat;
use crate::rummikub::action::Move;
use crate::rummikub::block::{Block, HOSTED_SET_SIZE};
use crate::rummikub::game::View;

/// Attempts at a rack without a row of its own for a seat known to be
/// stuck, before dealing it any rack: a stuck rack is a common one, so a
/// few tries nearly always succeed, and the bound keeps a deal's cost
/// fixed when the view is odd.
pub const CLUE_TRIES: usize = 16;

/// What the view says about one other seat's rack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Clue {
    /// Nothing.
    None,
    /// It can lay nothing on the table (it just passed).
    Stuck,
    /// Without one of its blocks (the one it just drew) it can lay nothing
    /// on the table.
    Drew,
}

/// The hidden part of a seat's view, ready to be dealt.
#[derive(Clone, Debug)]
pub(crate) struct Hidden {
    /// The game with the seat's own rack and the table; the other racks and
    /// the bag empty.
    base: Board,
    /// The blocks the seat has not seen (indices).
    unseen: Vec<u8>,
    /// The size of each rack to deal (zero for the seat's own).
    sizes: [usize; MAX_SEATS],
    clues: [Clue; MAX_SEATS],
}

impl Hidden {
    /// The hidden part of `seat`'s `view`; `None` when the view does not
    /// describe a hosted game with `seat` to move (blocks outside the
    /// hosted set, a spectator's view, counts that do not add up).
    pub(crate) fn of_view(seat: Seat, view: &View) -> Option<Hidden> {
        let seats = view.rack_sizes.len();
        let me = seat.index();
        if !(2..=MAX_SEATS).contains(&seats) || me >= seats || view.next != Some(seat) {
            return None;
        }
        let mut base = Board::with_table(&view.table, seats as u8, me as u8, view.empty_bag)?;
        let mine = set_of(view.rack.as_deref()?)?;
        let laid: Vec<Block> = view
            .table
            .iter()
            .flat_map(|r| r.blocks().iter().copied())
            .collect();
        let on_table = set_of(&laid)?;
        let all = (1u64 << HOSTED_SET_SIZE) - 1;
        let unseen: Vec<u8> = bits(all & !mine & !on_table).collect();
        let mut sizes = [0; MAX_SEATS];
        for (s, &n) in view.rack_sizes.iter().enumerate() {
            if s != me {
                sizes[s] = n;
            }
        }
        let dealt: usize = sizes.iter().sum::<usize>() + view.bag;
        let counts_agree = mine & on_table == 0
            && mine.count_ones() as usize == view.rack.as_ref()?.len()
            && on_table.count_ones() as usize == laid.len()
            && unseen.len() == dealt;
        if !counts_agree {
            return None;
        }
        base.racks[me] = mine;
        base.passes = view.passes;
        let mut clues = [Clue::None; MAX_SEATS];
        // The seats that passed in a row are the ones just before this one.
        for k in 1..=usize::from(view.passes).min(seats - 1) {
            clues[(me + seats - k) % seats] = Clue::Stuck;
        }
        if let Some(last) = &view.last {
            if last.mv == Move::Draw && last.seat != seat && last.seat.index() < seats {
                clues[last.seat.index()] = Clue::Drew;
            }
        }
        Some(Hidden {
            base,
            unseen,
            sizes,
            clues,
        })
    }

    /// One deal of the unseen blocks that agrees with the view as far as
    /// [`CLUE_TRIES`] allow.
    pub(crate) fn deal<R: Rng + ?Sized>(&self, rng: &mut R) -> Board {
        let mut board = self.base;
        let mut pool = self.unseen.clone();
        pool.shuffle(rng);
        let fits = board.fits();
        // Seats with a clue first: they choose among blocks the others
        // may take.
        let mut order: Vec<usize> = (0..usize::from(board.seats)).collect();
        order.sort_by_key(|&s| self.clues[s] == Clue::None);
        for s in order {
            let n = self.sizes[s];
            if n == 0 {
                continue;
            }
            let rack = match self.clues[s] {
                Clue::None => None,
                Clue::Stuck => stuck_rack(&pool, fits, n, 0, rng),
                Clue::Drew => {
                    let x = pool.get(rng.gen_range(0..pool.len().max(1))).copied();
                    x.and_then(|x| stuck_rack(&pool, fits, n - 1, bit(x), rng))
                }
            };
            let rack = rack.unwrap_or_else(|| pool.iter().take(n).fold(0, |m, &i| m | bit(i)));
            board.racks[s] = rack;
            pool.retain(|&i| rack & bit(i) == 0);
        }
        for (slot, &i) in board.bag.iter_mut().zip(&pool) {
            *slot = i;
        }
        board.bag_len = pool.len().min(HOSTED_SET_SIZE) as u8;
        board
    }
}

/// A rack of `with` and `n` more blocks of `pool` that can lay nothing on
/// a table where `fits` fit and holds no row of its own, without `with`;
/// `None` if [`CLUE_TRIES`] random picks find none.
fn stuck_rack<R: Rng + ?Sized>(
    pool: &[u8],
    fits: u64,
    n: usize,
    with: u64,
    rng: &mut R,
) -> Option<u64> {
    let mut free: Vec<u8> = pool
        .iter()
        .copied()
        .filter(|&i| (fits | with) & bit(i) == 0)
        .collect();
    if free.len() < n {
        return None;
    }
    for _ in 0..CLUE_TRIES {
        let (pick, _) = free.partial_shuffle(rng, n);
        let rack = pick.iter().fold(0, |m, &i| m | bit(i));
        if !holds_row(rack) {
            return Some(rack | with);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use rand::seq::SliceRandom;

    use super::*;
    use crate::game::{Game, Viewer};
    use crate::rng::GameRng;
    use crate::rummikub::empty_bag::EmptyBag;
    use crate::rummikub::game::{Config, Rummikub};

    /// Positions of random games, each with the seat to move's view.
    fn positions(games: u64) -> Vec<(Seat, View)> {
        let mut out = Vec::new();
        for n in 0..games {
            let cfg = Config {
                rack_size: 7,
                empty_bag: EmptyBag::Pass,
            };
            let mut rng = GameRng::from_seed(n);
            let seats = 2 + (n % 3) as u8;
            let mut g = Rummikub::setup(&cfg, seats, &mut rng).unwrap_or_else(|e| panic!("{e}"));
            while let Some(seat) = g.to_act().iter().next() {
                out.push((seat, g.view(Viewer::Seat(seat))));
                let mv = g.legal_moves(seat).choose(&mut rng).cloned();
                let mv = mv.unwrap_or_else(|| panic!("a move"));
                g.play(seat, &mv, &mut rng)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
        }
        out
    }

    #[test]
    fn deals_fill_the_racks_and_the_bag_with_exactly_the_unseen_blocks() {
        let mut rng = GameRng::from_seed(1);
        for (seat, view) in positions(12) {
            let hidden = Hidden::of_view(seat, &view).unwrap_or_else(|| panic!("{view:?}"));
            let table = Board::with_table(&view.table, 2, 0, view.empty_bag)
                .unwrap_or_else(|| panic!("table"));
            for _ in 0..3 {
                let b = hidden.deal(&mut rng);
                let mine = set_of(view.rack.as_deref().unwrap_or_default());
                assert_eq!(Some(b.racks[seat.index()]), mine);
                assert_eq!(
                    (b.crow, b.start, b.end),
                    (table.crow, table.start, table.end)
                );
                assert_eq!(usize::from(b.bag_len), view.bag);
                assert_eq!((b.next, b.passes), (seat.0, view.passes));
                let mut all = 0u64;
                let mut count = 0;
                for (s, &n) in view.rack_sizes.iter().enumerate() {
                    assert_eq!(b.racks[s].count_ones() as usize, n);
                    all |= b.racks[s];
                    count += n;
                }
                for &i in &b.bag[..usize::from(b.bag_len)] {
                    all |= bit(i);
                }
                count += view.bag;
                let laid: Vec<Block> = view
                    .table
                    .iter()
                    .flat_map(|r| r.blocks().to_vec())
                    .collect();
                all |= set_of(&laid).unwrap_or_else(|| panic!("table"));
                count += laid.len();
                assert_eq!(count, HOSTED_SET_SIZE, "a block dealt twice");
                assert_eq!(all, (1 << HOSTED_SET_SIZE) - 1);
            }
        }
    }

    #[test]
    fn a_seat_that_just_drew_or_passed_is_dealt_a_rack_that_was_stuck() {
        let mut rng = GameRng::from_seed(2);
        let (mut kept, mut clued, mut free_kept, mut free) = (0, 0, 0, 0);
        let mut out = Vec::new();
        for (seat, view) in positions(60) {
            let Some(last) = view.last.clone().filter(|l| l.seat != seat) else {
                continue;
            };
            let hidden = Hidden::of_view(seat, &view).unwrap_or_else(|| panic!("{view:?}"));
            let other = last.seat.index();
            let b = hidden.deal(&mut rng);
            let rack = b.racks[other];
            // Stuck: nothing to lay, or (after a draw) nothing without
            // one of its blocks.
            let stuck = bits(rack).any(|x| {
                let without = if last.mv == Move::Draw {
                    rack & !bit(x)
                } else {
                    rack
                };
                b.plays(without, &mut out);
                out.is_empty()
            });
            match last.mv {
                Move::Draw | Move::Pass => {
                    clued += 1;
                    kept += usize::from(stuck);
                }
                _ => {
                    free += 1;
                    free_kept += usize::from(stuck);
                }
            }
        }
        assert!(clued > 100 && free > 100, "{clued} {free}");
        // The clue holds in (nearly) every deal; a rack dealt without a
        // clue is stuck far less often, so the clue is what holds it.
        assert!(kept * 100 >= clued * 95, "{kept} of {clued}");
        assert!(free_kept * 100 < free * 80, "{free_kept} of {free}");
    }

    #[test]
    fn views_that_are_not_a_hosted_seat_to_move_are_refused() {
        let (seat, view) = positions(1)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("a position"));
        assert!(Hidden::of_view(seat, &view).is_some());
        let other = Seat(1 - seat.0.min(1));
        assert!(Hidden::of_view(other, &view).is_none(), "not to move");
        let spectator = View {
            rack: None,
            ..view.clone()
        };
        assert!(Hidden::of_view(seat, &spectator).is_none());
        let mut odd = view.clone();
        if let Some(rack) = odd.rack.as_mut() {
            rack.push(Block::new(14, crate::rummikub::block::Color::Red));
        }
        assert!(
            Hidden::of_view(seat, &odd).is_none(),
            "a block of no hosted set"
        );
        let miscounted = View {
            bag: view.bag + 1,
            ..view
        };
        assert!(Hidden::of_view(seat, &miscounted).is_none());
    }
}
