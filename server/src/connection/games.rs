//! `my_games`: the account's unfinished games, read from the store (so
//! that rooms on every node of a cluster, and rooms restored after a
//! restart, are listed alike).

use std::sync::Arc;

use parlor_protocol::{ErrorCode, GameEntry, ServerMsg};

use super::Session;
use crate::accounts::name_key;
use crate::limits::MAX_GAMES_LISTED;
use crate::store::AccountGame;

/// The entries of `games`, by room id (the store lists the newest first;
/// a stable order lets clients compare two answers).
pub(super) fn entries(games: Vec<AccountGame>) -> Vec<GameEntry> {
    let mut out: Vec<GameEntry> = games.into_iter().map(AccountGame::into_entry).collect();
    out.sort_by(|a, b| a.room.as_str().cmp(b.room.as_str()));
    out
}

impl Session {
    /// Answers `my_games`; guests get `auth/required`.
    pub(super) async fn my_games(&mut self) {
        let Some(account) = self.account.as_ref() else {
            self.out.send(&ServerMsg::error(
                ErrorCode::AuthRequired,
                "my_games lists an account's games; log in or send a token in hello",
            ));
            return;
        };
        let key = name_key(&account.name);
        let directory = Arc::clone(&self.shared.directory);
        let answer = match directory.store().games_of(&key, MAX_GAMES_LISTED).await {
            Ok(games) => ServerMsg::Games {
                games: entries(games),
            },
            Err(e) => {
                tracing::warn!(error = %e, "cannot list an account's games");
                ServerMsg::error(
                    ErrorCode::ServerStorage,
                    format!("your games could not be read: {e}"),
                )
            }
        };
        self.out.send(&answer);
    }

    /// Creates a tournament for the connection's account.
    pub(super) async fn create_tournament(&mut self, req: parlor_protocol::NewTournament) {
        let Some(account) = self.account.as_ref() else {
            self.out.send(&ServerMsg::error(
                ErrorCode::AuthRequired,
                "only an account may create a tournament; log in or send a token in hello",
            ));
            return;
        };
        let answer = match self
            .shared
            .tournaments
            .create(req, &account.name, Some(self.peer.addr))
            .await
        {
            Ok(tournament) => ServerMsg::TournamentCreated { tournament },
            Err(e) => ServerMsg::error(e.code(), e.message),
        };
        self.out.send(&answer);
    }
}

#[cfg(test)]
mod tests {
    use parlor_games::{GameKind, Seat};
    use parlor_protocol::{Clock, MatchHeader, RoomId, RoomStatus};
    use uuid::Uuid;

    use super::*;
    use crate::store::{MatchRecord, Origin, StoredSeat, Turn, TurnSeat};

    fn game(seats: Vec<(Seat, StoredSeat)>, turn: Option<Turn>) -> AccountGame {
        AccountGame {
            record: MatchRecord {
                room: RoomId::new("abcdefabcdef").unwrap_or_else(|| unreachable!()),
                header: MatchHeader {
                    game: GameKind::Nimrod,
                    options: serde_json::json!({"piles": [3, 5]}),
                    seats: 2,
                    seed: Some(1),
                    deal: None,
                    clock: Some(Clock::DaysPerMove(3)),
                    rated: true,
                    event: None,
                    ladder: None,
                    matched: None,
                },
                private: false,
                origin: Origin::default(),
            },
            seat: Seat(1),
            seats,
            turn,
        }
    }

    fn alice() -> (Seat, StoredSeat) {
        (
            Seat(1),
            StoredSeat::Player {
                token: Uuid::nil(),
                name: "Alice".into(),
                client_seed: None,
                account: true,
            },
        )
    }

    #[test]
    fn a_full_room_whose_turn_is_the_accounts_shows_its_deadline() {
        let bot = (
            Seat(0),
            StoredSeat::Bot {
                strategy: "optimal".into(),
                account: None,
            },
        );
        let turn = Turn {
            due: vec![TurnSeat {
                seat: Seat(1),
                deadline_ms: Some(42),
            }],
        };
        let e = AccountGame::into_entry(game(vec![bot, alice()], Some(turn)));
        assert_eq!(e.status, RoomStatus::Playing);
        assert!(e.your_turn);
        assert_eq!(e.deadline_ms, Some(42));
        assert_eq!(
            e.players,
            vec![Some("bot:optimal".to_owned()), Some("Alice".to_owned())]
        );
        assert!(e.rated);
    }

    #[test]
    fn a_waiting_room_is_nobodys_turn() {
        let turn = Turn {
            due: vec![TurnSeat {
                seat: Seat(1),
                deadline_ms: Some(42),
            }],
        };
        let e = AccountGame::into_entry(game(vec![alice()], Some(turn)));
        assert_eq!(e.status, RoomStatus::Waiting);
        assert!(!e.your_turn);
        assert_eq!(e.deadline_ms, None);
        assert_eq!(e.players, vec![None, Some("Alice".to_owned())]);
    }
}
