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

use std::fmt;

use serde::{Deserialize, Serialize};

use super::advice::select_hand;
use super::card::{first_duplicate, show_cards, Card, CardSet};
use super::events::{Event, Reason, Stage};
use super::pegging::{Laid, PegScore, Pegging};
use super::score::{breakdown, HandKind};
use crate::game::{Game, Outcome, Seat, SeatSet, SetupError, Viewer};
use crate::rng::GameRng;
use crate::secrets::Secrets;

/// The usual game, once round a standard board.
pub const DEFAULT_TARGET: u16 = 121;

/// The targets a room may choose: the full game, or the short game once
/// round the board (both standard; any other target changes the balance
/// between pegging and the show the game is known for).
pub const TARGETS: [u16; 2] = [61, 121];

/// Room options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Points to win: 121 (default) or 61.
    #[serde(default = "default_target")]
    pub target: u16,
}

fn default_target() -> u16 {
    DEFAULT_TARGET
}

impl Default for Config {
    fn default() -> Self {
        Config {
            target: DEFAULT_TARGET,
        }
    }
}

/// A move. `{"discard": [cards]}` throws cards to the crib;
/// `{"play": card}` lays a card in the play. There is no "go" move: a go is
/// applied automatically when a player cannot lay a card.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Move {
    /// Throw these cards to the crib (2 with two players, 1 otherwise).
    Discard(Vec<Card>),
    /// Lay this card in the play.
    Play(Card),
}

/// What is happening now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Players are throwing cards to the crib.
    Discard,
    /// The play: players lay cards in turn.
    Play,
    /// The game is over.
    Over,
}

/// Why a move is refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Illegal {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// The seat is not at this table.
    #[error("{seat} is not at this table of {seats}")]
    NoSuchSeat {
        /// The seat that tried to move.
        seat: Seat,
        /// Seats at the table.
        seats: u8,
    },
    /// Cards can be thrown to the crib only before the play.
    #[error("it is not time to discard: it is the {phase}")]
    NotDiscarding {
        /// The phase now.
        phase: Phase,
    },
    /// Cards can be laid only during the play.
    #[error("it is not time to play a card: it is the {phase}")]
    NotPlaying {
        /// The phase now.
        phase: Phase,
    },
    /// This seat has already thrown to the crib this hand.
    #[error("{seat} has already discarded this hand")]
    AlreadyDiscarded {
        /// The seat.
        seat: Seat,
    },
    /// The wrong number of cards thrown.
    #[error("discard exactly {expected} card(s), not {got}")]
    DiscardCount {
        /// Cards each player throws.
        expected: usize,
        /// Cards in the move.
        got: usize,
    },
    /// A card named twice in one discard.
    #[error("{card} is named twice")]
    DuplicateCard {
        /// The card.
        card: Card,
    },
    /// The seat does not hold this card (or has laid it already).
    #[error("you do not hold {card}")]
    NotHeld {
        /// The card.
        card: Card,
    },
    /// Another seat lays next.
    #[error("it is not {seat}'s turn to play, but {next}'s")]
    NotYourTurn {
        /// The seat that tried to play.
        seat: Seat,
        /// The seat to play.
        next: Seat,
    },
    /// The card would take the count past 31.
    #[error("{card} would take the count from {count} past 31")]
    OverThirtyOne {
        /// The card.
        card: Card,
        /// The count now.
        count: u8,
    },
}

/// A hand or the crib as shown, with its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shown {
    /// Whose it is (the dealer's for the crib).
    pub seat: Seat,
    /// A hand or the crib.
    pub kind: HandKind,
    /// The four cards.
    pub cards: Vec<Card>,
    /// Their value with the start card.
    pub total: u8,
}

/// Everything public about a finished hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandRecord {
    /// Hands are numbered from 1.
    pub number: u32,
    /// Who dealt it.
    pub dealer: Seat,
    /// The start card.
    pub start: Option<Card>,
    /// Every card laid in the play, in order.
    pub laid: Vec<Laid>,
    /// The hands and crib shown, in showing order.
    pub shown: Vec<Shown>,
    /// Every event of the hand.
    pub events: Vec<Event>,
}

/// What one viewer may know: their own cards, and everything public. A
/// spectator sees only the public part (`you` is `null`, `hand` and
/// `discarded` are empty).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Seats at the table.
    pub seats: u8,
    /// Points to win.
    pub target: u16,
    /// Whether seats 0 & 2 and 1 & 3 are partners (four players).
    pub partnerships: bool,
    /// Score per side. With 2 or 3 players a side is a seat; with 4, side
    /// 0 is seats 0 & 2 and side 1 is seats 1 & 3.
    pub scores: Vec<u16>,
    /// The hand being played, numbered from 1.
    pub hand_number: u32,
    /// Who deals this hand (and owns the crib).
    pub dealer: Seat,
    /// What is happening.
    pub phase: Phase,
    /// Who must act now.
    pub to_act: SeatSet,
    /// Who lays the next card during the play.
    pub next: Option<Seat>,
    /// The viewer's seat; `None` for a spectator.
    pub you: Option<Seat>,
    /// The viewer's cards not yet laid (all the dealt cards while
    /// discarding), sorted.
    pub hand: Vec<Card>,
    /// The cards the viewer threw to the crib this hand.
    pub discarded: Vec<Card>,
    /// How many cards each seat throws to the crib.
    pub discard_count: u8,
    /// How many cards each seat still holds.
    pub held: Vec<u8>,
    /// How many cards are in the crib.
    pub crib_size: u8,
    /// The start card, once cut.
    pub start: Option<Card>,
    /// The running count of the play.
    pub count: u8,
    /// The cards laid since the count last restarted.
    pub series: Vec<Laid>,
    /// Every card laid this hand, in order.
    pub laid: Vec<Laid>,
    /// Hands (and the crib) shown so far this hand.
    pub shown: Vec<Shown>,
    /// Every event of this hand so far.
    pub events: Vec<Event>,
    /// The previous hand, complete.
    pub previous: Option<HandRecord>,
    /// How the game ended, once it has.
    pub outcome: Option<Outcome>,
}

impl View {
    /// The side (index into `scores`) `seat` plays for.
    pub fn side(&self, seat: Seat) -> usize {
        seat.index() % self.scores.len().max(1)
    }
}

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

    /// Every card the public record names: the start card, the cards laid,
    /// shown and scored, in this hand and the previous one.
    fn public_cards(&self) -> CardSet {
        let mut set = CardSet::default();
        let mut add = |c: &Card| {
            set.insert(*c);
        };
        let laid = self.pegging.as_ref().map_or(&[][..], Pegging::laid);
        self.start.iter().for_each(&mut add);
        laid.iter().for_each(|l| add(&l.card));
        self.shown.iter().flat_map(|x| &x.cards).for_each(&mut add);
        self.events.iter().flat_map(|e| &e.cards).for_each(&mut add);
        if let Some(p) = &self.previous {
            p.start.iter().for_each(&mut add);
            p.laid.iter().for_each(|l| add(&l.card));
            p.shown.iter().flat_map(|x| &x.cards).for_each(&mut add);
            p.events.iter().flat_map(|e| &e.cards).for_each(&mut add);
        }
        set
    }

    fn deal(&mut self, rng: &mut GameRng) {
        self.hand_number += 1;
        let n = usize::from(self.seats);
        let mut deck = Card::shuffled_deck(rng);
        let size = if self.seats == 2 { 6 } else { 5 };
        // Deal from the top as at the table: one card to each seat in turn,
        // starting left of the dealer.
        let mut hands = vec![Vec::with_capacity(size); n];
        for i in 0..size * n {
            let seat = (self.dealer.index() + 1 + i) % n;
            if let Some(c) = deck.pop() {
                hands[seat].push(c);
            }
        }
        for h in &mut hands {
            h.sort();
        }
        self.crib.clear();
        if self.seats == 3 {
            self.crib.extend(deck.pop());
        }
        self.deck = deck;
        self.hands = hands;
        self.discards = vec![None; n];
        self.start = None;
        self.pegging = None;
        self.shown.clear();
        self.events.clear();
        self.phase = Phase::Discard;
    }

    /// Records `event` and adds its points; the game ends the moment a side
    /// reaches the target. Does nothing once the game is over.
    fn award(&mut self, event: Event) {
        if self.outcome.is_some() {
            return;
        }
        let side = self.side(event.seat);
        let points = u16::from(event.points);
        self.events.push(event);
        if let Some(score) = self.scores.get_mut(side) {
            *score += points;
            if *score >= self.target {
                self.outcome = Some(Outcome::Win {
                    winners: self.side_seats(side),
                });
                self.phase = Phase::Over;
            }
        }
    }

    fn check(&self, seat: Seat, mv: &Move) -> Result<(), Illegal> {
        if self.outcome.is_some() {
            return Err(Illegal::GameOver);
        }
        if seat.0 >= self.seats {
            return Err(Illegal::NoSuchSeat {
                seat,
                seats: self.seats,
            });
        }
        match mv {
            Move::Discard(cards) => {
                if self.phase != Phase::Discard {
                    return Err(Illegal::NotDiscarding { phase: self.phase });
                }
                if self.discards[seat.index()].is_some() {
                    return Err(Illegal::AlreadyDiscarded { seat });
                }
                let expected = self.discard_count();
                if cards.len() != expected {
                    return Err(Illegal::DiscardCount {
                        expected,
                        got: cards.len(),
                    });
                }
                if let Some(card) = first_duplicate(cards) {
                    return Err(Illegal::DuplicateCard { card });
                }
                if let Some(&card) = cards.iter().find(|c| !self.hands[seat.index()].contains(c)) {
                    return Err(Illegal::NotHeld { card });
                }
                Ok(())
            }
            Move::Play(card) => {
                let Some(pegging) = self.pegging.as_ref().filter(|_| self.phase == Phase::Play)
                else {
                    return Err(Illegal::NotPlaying { phase: self.phase });
                };
                match pegging.next() {
                    Some(next) if next != seat => return Err(Illegal::NotYourTurn { seat, next }),
                    None => return Err(Illegal::NotPlaying { phase: self.phase }),
                    Some(_) => {}
                }
                if !pegging.hand(seat).contains(card) {
                    return Err(Illegal::NotHeld { card: *card });
                }
                if !pegging.fits(*card) {
                    return Err(Illegal::OverThirtyOne {
                        card: *card,
                        count: pegging.count(),
                    });
                }
                Ok(())
            }
        }
    }

    fn discard(&mut self, seat: Seat, cards: &[Card], rng: &mut GameRng) {
        self.hands[seat.index()].retain(|c| !cards.contains(c));
        // Kept sorted, the form `canonical` gives: any order is one throw.
        let mut throw = cards.to_vec();
        throw.sort();
        self.discards[seat.index()] = Some(throw);
        if self.discards.iter().any(Option::is_none) {
            return;
        }
        for throw in self.discards.iter().flatten() {
            self.crib.extend_from_slice(throw);
        }
        self.crib.sort();
        // The cut: any card of the rest of the deck, equally likely.
        let start = if self.deck.is_empty() {
            None
        } else {
            // A deck length always fits in 64 bits, and the draw is below it.
            let i = rng.below(self.deck.len() as u64) as usize;
            Some(self.deck.swap_remove(i))
        };
        self.start = start;
        if let Some(start) = start.filter(|s| s.rank == super::card::Rank::JACK) {
            self.award(Event::new(
                self.dealer,
                Stage::Cut,
                Reason::HisHeels,
                2,
                vec![start],
            ));
            if self.outcome.is_some() {
                return;
            }
        }
        self.phase = Phase::Play;
        let leader = Seat((self.dealer.0 + 1) % self.seats);
        // Always `Some`: at most four seats of four cards.
        self.pegging = Pegging::new(&self.hands, leader);
    }

    fn lay(&mut self, card: Card, rng: &mut GameRng) {
        let mut scores: Vec<PegScore> = Vec::new();
        let over = match self.pegging.as_mut() {
            Some(p) => {
                p.lay(card, &mut scores);
                p.next().is_none()
            }
            None => return,
        };
        for s in scores {
            self.award(Event::from_peg(s));
        }
        if over && self.outcome.is_none() {
            self.show(rng);
        }
    }

    /// The show, then the next deal.
    fn show(&mut self, rng: &mut GameRng) {
        let Some(start) = self.start else { return };
        let n = self.seats;
        let order = (1..=n).map(|i| (Seat((self.dealer.0 + i) % n), HandKind::Hand));
        let all: Vec<(Seat, HandKind)> = order.chain([(self.dealer, HandKind::Crib)]).collect();
        for (seat, kind) in all {
            let cards: Vec<Card> = match kind {
                HandKind::Hand => self.hands[seat.index()].clone(),
                HandKind::Crib => self.crib.clone(),
            };
            let Ok(four) = <[Card; 4]>::try_from(cards.as_slice()) else {
                continue;
            };
            let b = breakdown(&four, start, kind);
            self.shown.push(Shown {
                seat,
                kind,
                cards,
                total: b.total(),
            });
            for item in b.items {
                self.award(Event::new(
                    seat,
                    kind.into(),
                    item.kind.into(),
                    item.points,
                    item.cards,
                ));
            }
            if self.outcome.is_some() {
                return;
            }
        }
        self.previous = Some(HandRecord {
            number: self.hand_number,
            dealer: self.dealer,
            start: self.start,
            laid: self
                .pegging
                .as_ref()
                .map(|p| p.laid().to_vec())
                .unwrap_or_default(),
            shown: std::mem::take(&mut self.shown),
            events: std::mem::take(&mut self.events),
        });
        self.dealer = Seat((self.dealer.0 + 1) % n);
        self.deal(rng);
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
        let you = match viewer {
            Viewer::Seat(s) if s.0 < self.seats => Some(s),
            _ => None,
        };
        let mut hand = you.map(|s| self.unlaid(s).to_vec()).unwrap_or_default();
        hand.sort();
        let discarded = you
            .and_then(|s| self.discards[s.index()].clone())
            .unwrap_or_default();
        let pegging = self.pegging.as_ref();
        View {
            seats: self.seats,
            target: self.target,
            partnerships: self.seats == 4,
            scores: self.scores.clone(),
            hand_number: self.hand_number,
            dealer: self.dealer,
            phase: self.phase,
            to_act: self.to_act(),
            next: pegging
                .and_then(Pegging::next)
                .filter(|_| self.phase == Phase::Play),
            you,
            hand,
            discarded,
            discard_count: self.discard_count() as u8,
            held: (0..self.seats)
                .map(|s| self.unlaid(Seat(s)).len() as u8)
                .collect(),
            // The throws join the crib at the cut; before it they are
            // counted where they wait.
            crib_size: (self.crib.len()
                + if self.start.is_none() {
                    self.discards.iter().flatten().map(Vec::len).sum()
                } else {
                    0
                }) as u8,
            start: self.start,
            count: pegging.map_or(0, Pegging::count),
            series: pegging.map(|p| p.series().to_vec()).unwrap_or_default(),
            laid: pegging.map(|p| p.laid().to_vec()).unwrap_or_default(),
            shown: self.shown.clone(),
            events: self.events.clone(),
            previous: self.previous.clone(),
            outcome: self.outcome,
        }
    }

    /// Each seat's cards not yet laid, and its throw until the crib is
    /// shown; the undealt deck, and the card dealt straight to the crib
    /// (three players) until the show, are nobody's. Cards the public
    /// record names (laid, shown, cut, scored, this hand or the previous
    /// one, whose cards are back in the deck or in new hands) are left
    /// out: seeing them named reveals nothing.
    fn secrets(&self) -> Secrets {
        let public = self.public_cards();
        let hidden = |c: &&Card| !public.contains(**c);
        let mut s = Secrets::new(self.seats);
        let crib_shown = self.shown.iter().any(|x| x.kind == HandKind::Crib);
        for seat in (0..self.seats).map(Seat) {
            s.seat_items(seat, self.unlaid(seat).iter().filter(hidden));
            if let Some(throw) = self.discards[seat.index()].as_ref().filter(|_| !crib_shown) {
                s.seat_items(seat, throw.iter().filter(hidden));
            }
        }
        s.undisclosed_items(self.deck.iter().filter(hidden));
        if !crib_shown {
            let dealt_to_crib = |c: &&Card| self.discards.iter().flatten().all(|t| !t.contains(c));
            s.undisclosed_items(self.crib.iter().filter(dealt_to_crib).filter(hidden));
        }
        s
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

impl fmt::Display for Move {
    /// `discard 5H KS` or `play 7C`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Discard(cards) => write!(f, "discard {}", show_cards(cards)),
            Move::Play(card) => write!(f, "play {card}"),
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Discard => "discard",
            Phase::Play => "play",
            Phase::Over => "end of the game",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
