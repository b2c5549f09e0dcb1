//! Entering and leaving over the WebSocket: the bot ladder
//! (`ladder_join`, `ladder_leave`) and tournaments (`join_tournament`,
//! `leave_tournament`), with the HTTP routes' rules and error codes.

use parlor_games::GameKind;
use parlor_protocol::{ErrorCode, ServerMsg};

use super::Session;
use crate::accounts::store::Account;

/// What a session asks to enter or leave.
#[derive(Clone, Debug)]
pub(super) enum Entry {
    /// A game's ladder: enter.
    LadderJoin(GameKind),
    /// A game's ladder: leave.
    LadderLeave(GameKind),
    /// A tournament: enter.
    TournamentJoin(String),
    /// A tournament: leave.
    TournamentLeave(String),
}

impl Session {
    /// Answers `entry` for the connection's account.
    pub(super) async fn entry(&mut self, entry: Entry) {
        let Some(account) = self.account.clone() else {
            self.out.send(&ServerMsg::error(
                ErrorCode::AuthRequired,
                "only an account may enter or leave; log in or send a token in hello",
            ));
            return;
        };
        let answer = match self.answer_entry(entry, &account).await {
            Ok(msg) => msg,
            Err(e) => ServerMsg::error(e.code(), e.message),
        };
        self.out.send(&answer);
    }

    async fn answer_entry(
        &self,
        entry: Entry,
        account: &Account,
    ) -> Result<ServerMsg, crate::schedule::EventError> {
        let (ladder, tournaments) = (&self.shared.ladder, &self.shared.tournaments);
        Ok(match entry {
            Entry::LadderJoin(game) => {
                ladder.join(game, account).await?;
                ServerMsg::LadderJoined { game }
            }
            Entry::LadderLeave(game) => {
                ladder.leave(game, account).await?;
                ServerMsg::LadderLeft { game }
            }
            Entry::TournamentJoin(id) => {
                tournaments.join(&id, &account.name, account.kind).await?;
                ServerMsg::TournamentJoined { tournament: id }
            }
            Entry::TournamentLeave(id) => {
                tournaments.leave(&id, &account.name).await?;
                ServerMsg::TournamentLeft { tournament: id }
            }
        })
    }
}
