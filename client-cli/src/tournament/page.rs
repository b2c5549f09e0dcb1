//! A published event page as `parlor_competition::tournament`'s pure
//! functions see it: the entrants, the rules, the rounds played, and the
//! board and deal each published game stands for.

use parlor_competition::tournament::{
    Entrant, EventRules, GameRecord, PlannedGame, Play, Round, RoundRecord, DUPLICATE_DEALS, SEATS,
    UNRATED_SEEDING,
};
use parlor_protocol::{TournamentGame, TournamentInfo};

/// The entrants in the order they entered, seeded by the rating the page
/// shows (a player without one by the server's default, as it does).
pub fn entrants(page: &TournamentInfo) -> Vec<Entrant> {
    page.players
        .iter()
        .map(|p| Entrant {
            name: p.name.clone(),
            rating: p.rating.unwrap_or(UNRATED_SEEDING),
        })
        .collect()
}

/// How each board is played: one game, or the server's duplicate set.
pub fn play(page: &TournamentInfo) -> Play {
    if page.duplicate {
        Play::Duplicate {
            deals: DUPLICATE_DEALS,
        }
    } else {
        Play::Single
    }
}

/// The rules the pairings follow.
pub fn rules(page: &TournamentInfo) -> EventRules {
    EventRules {
        format: page.format,
        rounds: page.rounds_asked.unwrap_or(0),
        play: play(page),
        arena_pairing: page.arena_pairing.unwrap_or_default(),
    }
}

/// A game's players as a pair, or `None` when it does not have two.
pub fn pair(game: &TournamentGame) -> Option<[String; SEATS]> {
    match game.seats.as_slice() {
        [a, b] => Some([a.clone(), b.clone()]),
        _ => None,
    }
}

/// A published game as a record (a game without two players is kept
/// with empty names, which no pairing makes, so the check names it).
pub fn record(game: &TournamentGame) -> GameRecord {
    GameRecord {
        seats: pair(game).unwrap_or_default(),
        winners: game
            .result
            .as_ref()
            .map(|r| r.winners.iter().map(|s| s.0).collect()),
    }
}

/// The published rounds as records (with an arena wave's waiting list).
pub fn records(page: &TournamentInfo) -> Vec<RoundRecord> {
    page.rounds
        .iter()
        .enumerate()
        .map(|(i, games)| RoundRecord {
            games: games.iter().map(record).collect(),
            bye: page.byes.get(i).cloned().flatten(),
            unpaired: page.waiting.get(i).cloned().unwrap_or_default(),
        })
        .collect()
}

/// The board and deal of each published game of a round, in order: the
/// round's boards are the first game of each set, as the server lists
/// them.
pub fn planned(games: &[TournamentGame], play: Play) -> Vec<PlannedGame> {
    let per_board = match play {
        Play::Single => 1,
        Play::Duplicate { deals } => usize::try_from(deals).unwrap_or(1).saturating_mul(2),
    };
    let boards = games
        .iter()
        .step_by(per_board.max(1))
        .map(|g| pair(g).unwrap_or_default())
        .collect();
    Round { boards, bye: None }.games(play)
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_games::Seat;
    use parlor_protocol::TournamentResult;

    fn game(a: &str, b: &str) -> TournamentGame {
        TournamentGame {
            room: None,
            seats: vec![a.into(), b.into()],
            result: Some(TournamentResult {
                winners: vec![Seat(1)],
                end: None,
            }),
        }
    }

    #[test]
    fn duplicate_sets_are_read_as_boards_with_a_deal_each() {
        let games = [
            game("a", "b"),
            game("b", "a"),
            game("c", "d"),
            game("d", "c"),
        ];
        let planned = planned(&games, Play::Duplicate { deals: 1 });
        let places: Vec<(u32, u32)> = planned.iter().map(|g| (g.board, g.deal)).collect();
        assert_eq!(places, [(0, 0), (0, 0), (1, 0), (1, 0)]);
        assert_eq!(planned[1].seats, ["b".to_owned(), "a".to_owned()]);
        let single = super::planned(&games, Play::Single);
        let boards: Vec<u32> = single.iter().map(|g| g.board).collect();
        assert_eq!(boards, [0, 1, 2, 3]);
    }

    #[test]
    fn results_become_winning_seats() {
        let r = record(&game("a", "b"));
        assert_eq!(r.winners, Some(vec![1]));
        assert_eq!(r.score(0), Some(0.0));
        let odd = TournamentGame {
            room: None,
            seats: vec!["a".into()],
            result: None,
        };
        assert_eq!(record(&odd).seats, [String::new(), String::new()]);
    }
}
