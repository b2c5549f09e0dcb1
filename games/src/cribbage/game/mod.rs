//! Cribbage as a hosted game: deal, discard, cut, play, show, repeat.
//!
//! - **Players.** 2 (6 cards each, 2 to the crib), 3 (5 each and one card
//!   dealt straight to the crib, 1 each to the crib) or 4 in fixed
//!   partnerships, seats 0 & 2 against 1 & 3 (5 each, 1 each to the crib).
//!   Partners share one score.
//! - **First dealer.** [`Game::setup`] cuts for deal: the first dealer is a
//!   seat drawn from the match's RNG (each equally likely, as a fair cut
//!   is), so the match log still replays exactly. [`Cribbage::with_dealer`]
//!   picks the dealer instead. The deal passes left (to the next seat)
//!   after every hand.
//! - **Discarding** is simultaneous: every seat that has not yet thrown to
//!   the crib is in [`Game::to_act`].
//! - **The cut.** Once all have thrown, the start card is drawn from the
//!   rest of the deck with the match's RNG; a jack scores 2 for the dealer
//!   (his heels).
//! - **The play** follows [`super::pegging`]: the go is automatic, a player
//!   is asked to lay a card only when they can. A player who can lay only
//!   one card still lays it themselves, as at the table.
//! - **The show** is scored automatically as soon as the last card is laid:
//!   left of the dealer first, clockwise, the dealer last, then the crib;
//!   then the next hand is dealt.
//! - **The chance**, exactly (see [`crate::rng`] for the draws). Setup
//!   draws the first dealer, [`GameRng::below_u8`]`(seats)`. Each hand then
//!   [`GameRng::shuffle`]s the 52 cards in [`Card::deck`] order (ace to
//!   king, clubs, diamonds, hearts, spades within a rank) and deals from
//!   the *end* of the shuffled list: the last card to the seat left of the
//!   dealer, the one before it to the next seat, and so on round the table
//!   until each seat has 6 (two players) or 5 cards; with three players the
//!   next card goes to the crib. Once everyone has thrown, the start card
//!   is the card at index [`GameRng::below`]`(len)` of the undealt rest of
//!   the shuffled list (`len` cards, still in shuffled order). Nothing else
//!   draws; the next hand shuffles a fresh deck.
//! - **The end.** The game ends the instant a side reaches the target
//!   (121, or 61 for a short game), even in the middle of the play or the
//!   show; later combinations are not scored.
//!
//! Every point is an [`Event`]. A [`View`] carries the events of the hand in
//! progress and the full record of the previous hand (its play, every hand
//! shown, the crib and their events), so a client that sees a new deal can
//! still narrate the show that ended the last one.

mod check;
mod hand;
mod seen;

use super::advice::select_hand;
use super::card::Card;
use super::config::{Config, TARGETS};
use super::events::Event;
use super::illegal::Illegal;
use super::moves::Move;
use super::pegging::Pegging;
use super::phase::Phase;
use super::view::{HandRecord, Shown, View};
use crate::game::{Game, Outcome, Seat, SeatSet, SetupError, Viewer};
use crate::rng::GameRng;
use crate::secrets::Secrets;

/// A cribbage match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cribbage {
    target: u16,
    seats: u8,
    dealer: Seat,
    hand_number: u32,
    /// Points per side.
    scores: Vec<u16>,
    phase: Phase,
    /// The undealt cards (hidden from everyone).
    deck: Vec<Card>,
    /// Each seat's cards: the whole deal while discarding, the four kept
    /// afterwards (for the show).
    hands: Vec<Vec<Card>>,
    /// Each seat's throw, once made.
    discards: Vec<Option<Vec<Card>>>,
    /// The crib: the card dealt to it (three players), then the throws.
    crib: Vec<Card>,
    start: Option<Card>,
    pegging: Option<Pegging>,
    shown: Vec<Shown>,
    events: Vec<Event>,
    previous: Option<HandRecord>,
    outcome: Option<Outcome>,
}

impl Cribbage {
    /// A match with `first_dealer` dealing the first hand. Fails like
    /// [`Game::setup`] on bad options; a dealer beyond the table is taken
    /// modulo the number of seats.
    pub fn with_dealer(
        cfg: &Config,
        seats: u8,
        first_dealer: Seat,
        rng: &mut GameRng,
    ) -> Result<Self, SetupError> {
        let (min, max) = <Self as Game>::SEATS;
        if !(min..=max).contains(&seats) {
            return Err(SetupError::Seats {
                game: <Self as Game>::NAME,
                min,
                max,
                got: seats,
            });
        }
        if !TARGETS.contains(&cfg.target) {
            return Err(SetupError::Config(format!(
                "the target must be 121 (the usual game) or 61 (a short game), not {}",
                cfg.target
            )));
        }
        let sides = sides(seats);
        let mut game = Cribbage {
            target: cfg.target,
            seats,
            dealer: Seat(first_dealer.0 % seats),
            hand_number: 0,
            scores: vec![0; sides],
            phase: Phase::Discard,
            deck: Vec::new(),
            hands: Vec::new(),
            discards: Vec::new(),
            crib: Vec::new(),
            start: None,
            pegging: None,
            shown: Vec::new(),
            events: Vec::new(),
            previous: None,
            outcome: None,
        };
        game.deal(rng);
        Ok(game)
    }

    /// Points per side (see [`View::scores`]).
    pub fn scores(&self) -> &[u16] {
        &self.scores
    }

    /// The points needed to win.
    pub fn target(&self) -> u16 {
        self.target
    }

    /// Who deals the current hand.
    pub fn dealer(&self) -> Seat {
        self.dealer
    }

    /// What is happening.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// How many cards each seat throws to the crib.
    pub fn discard_count(&self) -> usize {
        discard_count(self.seats)
    }

    /// The side `seat` plays for.
    fn side(&self, seat: Seat) -> usize {
        seat.index() % self.scores.len().max(1)
    }

    /// The seats of side `side`.
    fn side_seats(&self, side: usize) -> SeatSet {
        (0..self.seats)
            .map(Seat)
            .filter(|s| self.side(*s) == side)
            .collect()
    }

    /// `seat`'s cards not yet laid.
    fn unlaid(&self, seat: Seat) -> &[Card] {
        match &self.pegging {
            Some(p) => p.hand(seat),
            None => self.hands.get(seat.index()).map_or(&[], Vec::as_slice),
        }
    }
}

/// Sides keeping score: seats, or two partnerships with four players.
fn sides(seats: u8) -> usize {
    if seats == 4 {
        2
    } else {
        usize::from(seats)
    }
}

/// Cards each seat throws to the crib.
fn discard_count(seats: u8) -> usize {
    if seats == 2 {
        2
    } else {
        1
    }
}

/// Every way to choose `k` of `cards`, in lexicographic order.
fn choices(cards: &[Card], k: usize) -> Vec<Vec<Card>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for (i, &c) in cards.iter().enumerate() {
        for mut rest in choices(&cards[i + 1..], k - 1) {
            rest.insert(0, c);
            out.push(rest);
        }
    }
    out
}

impl Game for Cribbage {
    type Config = Config;
    type Move = Move;
    type View = View;
    type Illegal = Illegal;

    const NAME: &'static str = "cribbage";
    const SEATS: (u8, u8) = (2, 4);
    /// Ends by construction: every hand scores at least one point (the
    /// play's last card scores 1, or 2 for 31), so after `sides x
    /// (target - 1) + 1` hands some side has reached the target; and a
    /// hand takes `5 x seats` steps (one discard and four cards laid per
    /// seat).
    fn max_steps(cfg: &Config, seats: u8) -> u64 {
        let hands = sides(seats) as u64 * u64::from(cfg.target.saturating_sub(1)) + 1;
        hands * 5 * u64::from(seats)
    }

    /// Sets up a match, cutting for the first deal with `rng`.
    fn setup(cfg: &Config, seats: u8, rng: &mut GameRng) -> Result<Self, SetupError> {
        let first = if (Self::SEATS.0..=Self::SEATS.1).contains(&seats) {
            Seat(rng.below_u8(seats))
        } else {
            Seat(0)
        };
        Cribbage::with_dealer(cfg, seats, first, rng)
    }

    fn seats(&self) -> u8 {
        self.seats
    }

    fn to_act(&self) -> SeatSet {
        match self.phase {
            Phase::Over => SeatSet::EMPTY,
            Phase::Discard => (0..self.seats)
                .map(Seat)
                .filter(|s| self.discards[s.index()].is_none())
                .collect(),
            Phase::Play => self
                .pegging
                .as_ref()
                .and_then(Pegging::next)
                .map_or(SeatSet::EMPTY, SeatSet::single),
        }
    }

    fn legal_moves(&self, seat: Seat) -> Vec<Move> {
        if !self.to_act().contains(seat) {
            return Vec::new();
        }
        match (self.phase, &self.pegging) {
            (Phase::Discard, _) => choices(&self.hands[seat.index()], self.discard_count())
                .into_iter()
                .map(Move::Discard)
                .collect(),
            (Phase::Play, Some(p)) => p.playable(seat).into_iter().map(Move::Play).collect(),
            _ => Vec::new(),
        }
    }

    /// A discard's cards sorted: the order of a throw means nothing.
    fn canonical(&self, seat: Seat, mv: &Move) -> Move {
        match mv {
            Move::Discard(cards) if self.check(seat, mv).is_ok() => {
                let mut cards = cards.clone();
                cards.sort();
                Move::Discard(cards)
            }
            _ => mv.clone(),
        }
    }

    fn play(&mut self, seat: Seat, mv: &Move, rng: &mut GameRng) -> Result<(), Illegal> {
        self.check(seat, mv)?;
        match mv {
            Move::Discard(cards) => self.discard(seat, cards, rng),
            Move::Play(card) => self.lay(*card, rng),
        }
        Ok(())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Those who did not win follow their side's score (higher first);
    /// partners share their side's place.
    fn places(&self) -> Option<Vec<u8>> {
        let scores = self.scores();
        self.outcome.map(|o| {
            crate::places::places_by(o, self.seats, |s| {
                std::cmp::Reverse(scores.get(self.side(s)).copied().unwrap_or(0))
            })
        })
    }

    /// Four players play as two partnerships: seats 0 & 2 against 1 & 3.
    fn team(&self, seat: Seat) -> Option<u8> {
        (self.seats == 4).then_some(seat.0 % 2)
    }

    fn view(&self, viewer: Viewer) -> View {
        self.seen_by(viewer)
    }

    /// Each seat's cards not yet laid, and its throw until the crib is
    /// shown; the undealt deck, and the card dealt straight to the crib
    /// (three players) until the show, are nobody's. Cards the public
    /// record names (laid, shown, cut, scored, this hand or the previous
    /// one, whose cards are back in the deck or in new hands) are left
    /// out: seeing them named reveals nothing.
    fn secrets(&self) -> Secrets {
        self.hidden()
    }

    /// While discarding, the seed's choice (keep the best average hand);
    /// in the play, the lowest card that fits.
    fn timeout_move(&self, seat: Seat) -> Option<Move> {
        if !self.to_act().contains(seat) {
            return None;
        }
        match self.phase {
            Phase::Discard => select_hand(&self.hands[seat.index()])
                .ok()
                .map(|s| Move::Discard(s.crib))
                .or_else(|| self.legal_moves(seat).into_iter().next()),
            Phase::Play => self.legal_moves(seat).into_iter().next(),
            Phase::Over => None,
        }
    }

    fn forfeit(&mut self, seat: Seat) {
        if self.outcome.is_some() {
            return;
        }
        let loser = self.side(seat);
        self.outcome = Some(Outcome::Win {
            winners: (0..self.seats)
                .map(Seat)
                .filter(|s| self.side(*s) != loser)
                .collect(),
        });
        self.phase = Phase::Over;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cribbage::{HandKind, Stage};

    fn cards(s: &str) -> Vec<Card> {
        s.split_whitespace()
            .map(|t| t.parse().unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    fn card(s: &str) -> Card {
        cards(s)[0]
    }

    /// A two-player game, seat 0 dealing, in the play with these kept
    /// hands, crib and start, and these scores.
    fn in_play(h0: &str, h1: &str, crib: &str, start: &str, scores: [u16; 2]) -> Cribbage {
        let mut rng = GameRng::from_seed(1);
        let mut g = Cribbage::with_dealer(&Config::default(), 2, Seat(0), &mut rng)
            .unwrap_or_else(|e| panic!("{e}"));
        g.hands = vec![cards(h0), cards(h1)];
        g.discards = vec![Some(Vec::new()), Some(Vec::new())];
        g.crib = cards(crib);
        g.start = Some(card(start));
        g.scores = scores.to_vec();
        g.phase = Phase::Play;
        g.pegging = Pegging::new(&g.hands, Seat(1));
        g
    }

    fn lay(g: &mut Cribbage, seat: u8, c: &str) {
        let mut rng = GameRng::from_seed(2);
        g.play(Seat(seat), &Move::Play(card(c)), &mut rng)
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn the_show_goes_pone_dealer_crib_then_the_deal_passes() {
        let mut g = in_play("2C 3C 4C 5C", "KD KH KS QD", "AH AS 7D 8D", "9H", [0, 0]);
        for (seat, c) in [(1, "KD"), (0, "2C"), (1, "KH"), (0, "3C")] {
            lay(&mut g, seat, c);
        }
        // 10 12 22 25; seat 1 cannot lay a 10 on 25: seat 0 goes on.
        lay(&mut g, 0, "4C"); // 29, run of 3
        lay(&mut g, 1, "KS");
        lay(&mut g, 0, "5C");
        lay(&mut g, 1, "QD");
        let prev = g.previous.clone().unwrap_or_else(|| panic!("no record"));
        let order: Vec<(u8, HandKind)> = prev.shown.iter().map(|s| (s.seat.0, s.kind)).collect();
        assert_eq!(
            order,
            vec![
                (1, HandKind::Hand),
                (0, HandKind::Hand),
                (0, HandKind::Crib)
            ]
        );
        // Seat 1: KD KH KS QD + 9H: three pairs of kings = 6.
        assert_eq!(prev.shown[0].total, 6);
        // Seat 0: 2 3 4 5 + 9: run of 4, 2+4+9, flush 4 = 10.
        assert_eq!(prev.shown[1].total, 4 + 2 + 4);
        // Crib AH AS 7D 8D + 9H: pair, 7+8, A+A+... = run 7-8-9 (3), 15s.
        let crib_total = prev.shown[2].total;
        assert_eq!(
            crib_total,
            crib_value([card("AH"), card("AS"), card("7D"), card("8D")], card("9H"))
        );
        assert_eq!(g.hand_number, 2);
        assert_eq!(g.dealer, Seat(1));
        assert_eq!(g.phase, Phase::Discard);
        assert!(g.events.is_empty());
        let total: u16 = prev.events.iter().map(|e| u16::from(e.points)).sum();
        assert_eq!(total, g.scores.iter().sum::<u16>());
        assert!(prev.events.iter().any(|e| e.text == "run of 3 for 3"));
        let king_pairs = prev
            .events
            .iter()
            .filter(|e| e.stage == Stage::Hand && e.seat == Seat(1) && e.text == "pair for 2")
            .count();
        assert_eq!(king_pairs, 3, "three of a kind shows as three pairs");
    }

    use crate::cribbage::score::crib_value;

    #[test]
    fn the_game_ends_mid_show_before_the_dealer_counts() {
        // Seat 1 (pone) needs 6 and shows three kings = 6: the dealer's
        // better hand and crib are never counted.
        let mut g = in_play(
            "5C 5D 5H JS",
            "KD KH KS 2D",
            "AH AS 7D 8D",
            "5S",
            [100, 115],
        );
        for (seat, c) in [(1, "KD"), (0, "5C"), (1, "KH"), (0, "5D")] {
            lay(&mut g, seat, c);
        }
        assert_eq!(g.outcome, None);
        let before: u16 = g.scores[0];
        lay(&mut g, 1, "2D");
        lay(&mut g, 0, "5H");
        lay(&mut g, 1, "KS");
        lay(&mut g, 0, "JS");
        assert_eq!(
            g.outcome,
            Some(Outcome::Win {
                winners: SeatSet::single(Seat(1))
            })
        );
        assert_eq!(g.shown.len(), 1, "only the pone's hand was shown");
        assert!(g.scores[1] >= 121 && g.scores[0] < 121 && g.scores[0] >= before);
        assert!(g.to_act().is_empty());
        let mut rng = GameRng::from_seed(3);
        assert_eq!(
            g.play(Seat(0), &Move::Play(card("5H")), &mut rng),
            Err(Illegal::GameOver)
        );
    }

    #[test]
    fn his_heels_can_win_the_game() {
        // Find a seed whose cut is a jack, then deal with the dealer on 119.
        for seed in 0..200u64 {
            let mut rng = GameRng::from_seed(seed);
            let mut g = Cribbage::with_dealer(&Config::default(), 2, Seat(0), &mut rng)
                .unwrap_or_else(|e| panic!("{e}"));
            g.scores = vec![119, 0];
            for seat in [Seat(0), Seat(1)] {
                let mv = g.timeout_move(seat).unwrap_or_else(|| panic!("no move"));
                g.play(seat, &mv, &mut rng)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
            if g.start
                .is_some_and(|s| s.rank == crate::cribbage::card::Rank::JACK)
            {
                assert_eq!(g.events.len(), 1);
                assert_eq!(g.events[0].text, "his heels for 2");
                assert_eq!(
                    g.outcome,
                    Some(Outcome::Win {
                        winners: SeatSet::single(Seat(0))
                    })
                );
                assert_eq!(g.phase, Phase::Over);
                return;
            }
        }
        panic!("no jack cut in 200 deals");
    }

    #[test]
    fn refused_moves_name_their_reason_and_change_nothing() {
        let mut rng = GameRng::from_seed(9);
        let mut g = Cribbage::with_dealer(&Config::default(), 2, Seat(0), &mut rng)
            .unwrap_or_else(|e| panic!("{e}"));
        let hand = g.hands[0].clone();
        let other = g.hands[1][0];
        let cases = [
            (
                Seat(5),
                Move::Discard(vec![hand[0], hand[1]]),
                Illegal::NoSuchSeat {
                    seat: Seat(5),
                    seats: 2,
                },
            ),
            (
                Seat(0),
                Move::Play(hand[0]),
                Illegal::NotPlaying {
                    phase: Phase::Discard,
                },
            ),
            (
                Seat(0),
                Move::Discard(vec![hand[0]]),
                Illegal::DiscardCount {
                    expected: 2,
                    got: 1,
                },
            ),
            (
                Seat(0),
                Move::Discard(vec![hand[0], hand[0]]),
                Illegal::DuplicateCard { card: hand[0] },
            ),
            (
                Seat(0),
                Move::Discard(vec![hand[0], other]),
                Illegal::NotHeld { card: other },
            ),
        ];
        for (seat, mv, why) in cases {
            let before = g.clone();
            assert_eq!(g.play(seat, &mv, &mut rng), Err(why));
            assert_eq!(g, before);
        }
        g.play(Seat(0), &Move::Discard(vec![hand[0], hand[1]]), &mut rng)
            .unwrap_or_else(|e| panic!("{e}"));
        let before = g.clone();
        assert_eq!(
            g.play(Seat(0), &Move::Discard(vec![hand[2], hand[3]]), &mut rng),
            Err(Illegal::AlreadyDiscarded { seat: Seat(0) })
        );
        assert_eq!(g, before);

        let mut g = in_play("KC KD 5C 5D", "QH QS 9H 9S", "AH AS 7D 8D", "2S", [0, 0]);
        let before = g.clone();
        for (seat, mv, why) in [
            (
                Seat(0),
                Move::Play(card("KC")),
                Illegal::NotYourTurn {
                    seat: Seat(0),
                    next: Seat(1),
                },
            ),
            (
                Seat(1),
                Move::Play(card("KC")),
                Illegal::NotHeld { card: card("KC") },
            ),
            (
                Seat(1),
                Move::Discard(cards("QH QS")),
                Illegal::NotDiscarding { phase: Phase::Play },
            ),
        ] {
            assert_eq!(g.play(seat, &mv, &mut rng), Err(why));
            assert_eq!(g, before);
        }
        lay(&mut g, 1, "QH");
        lay(&mut g, 0, "5C");
        let before = g.clone();
        lay(&mut g, 1, "QS");
        let at25 = g.clone();
        assert_eq!(
            g.play(Seat(0), &Move::Play(card("KD")), &mut rng),
            Err(Illegal::OverThirtyOne {
                card: card("KD"),
                count: 25
            })
        );
        assert_eq!(g, at25);
        assert_ne!(g, before);
        // Messages are for people.
        assert_eq!(
            Illegal::OverThirtyOne {
                card: card("KD"),
                count: 30
            }
            .to_string(),
            "KD would take the count from 30 past 31"
        );
        let json = serde_json::to_value(Illegal::NotHeld { card: card("KC") }).unwrap_or_default();
        assert_eq!(json["reason"], "not_held");
    }
}
