//! Finding opponents from the client's side: seeks, challenges and the
//! seat they end in. People's commands and bots share these; what is
//! shown to a person is left to the commands.

use parlor_games::Seat;
use parlor_protocol::{
    ChallengeEnd, ChallengeInfo, ClientMsg, DeclineReason, ErrorCode, RoomId, SeekEnd, ServerMsg,
};

use crate::client::{Client, ClientError};

/// Where a seek, a challenge or a rematch seated the player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seated {
    /// The new room.
    pub room: RoomId,
    /// The player's seat in it.
    pub seat: Seat,
}

/// Whether a refusal arriving while waiting for opponents concerns
/// something already over (a move that crossed the end of the last match,
/// a busy server) rather than what is being waited for.
pub fn ignorable(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::ActionStaleSeq
            | ErrorCode::ActionNotYourTurn
            | ErrorCode::RequestRateLimited
            | ErrorCode::ServerBusy
    )
}

/// Sends `seek` and returns its id from the server's `seeking`.
pub async fn start_seek(client: &mut Client, seek: &ClientMsg) -> Result<u64, ClientError> {
    client.send(seek).await?;
    loop {
        match client.recv().await? {
            ServerMsg::Seeking { seek, .. } => return Ok(seek),
            ServerMsg::Error { code, message, .. } if !ignorable(code) => {
                return Err(ClientError::Refused { code, message })
            }
            _ => {}
        }
    }
}

/// What a message means for a waiting seek.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeekNews {
    /// Matched: the player sits in a new room (`joined` and `update`
    /// follow), with these players in seat order.
    Matched(Seated, Vec<String>),
    /// The seek ended without a match.
    Ended(SeekEnd),
}

/// What `msg` says about seek `seek`, if anything.
pub fn seek_news(msg: &ServerMsg, seek: u64) -> Option<SeekNews> {
    match msg {
        ServerMsg::Matched {
            seek: s,
            room,
            seat,
            players,
        } if *s == seek => Some(SeekNews::Matched(
            Seated {
                room: room.clone(),
                seat: *seat,
            },
            players.clone(),
        )),
        ServerMsg::SeekEnded { seek: s, reason } if *s == seek => Some(SeekNews::Ended(*reason)),
        _ => None,
    }
}

/// Waits for seek `seek` to be matched (for bots: no person to cancel
/// it); `None` when the server lost it (a cluster node went away): the
/// protocol says to seek again.
pub async fn wait_matched(client: &mut Client, seek: u64) -> Result<Option<Seated>, ClientError> {
    loop {
        let msg = client.recv().await?;
        match seek_news(&msg, seek) {
            Some(SeekNews::Matched(seated, _)) => return Ok(Some(seated)),
            Some(SeekNews::Ended(SeekEnd::Lost)) => return Ok(None),
            Some(SeekNews::Ended(reason)) => {
                return Err(ClientError::Protocol(format!(
                    "the seek ended without a match ({reason:?})"
                )))
            }
            None => {}
        }
        if let ServerMsg::Error { code, message, .. } = msg {
            if !ignorable(code) {
                return Err(ClientError::Refused { code, message });
            }
        }
    }
}

/// Sends a challenge and returns the server's confirmation of it.
pub async fn start_challenge(
    client: &mut Client,
    challenge: &ClientMsg,
) -> Result<ChallengeInfo, ClientError> {
    client.send(challenge).await?;
    let me = client.account().map(|a| a.name.to_lowercase());
    let to = match challenge {
        ClientMsg::Challenge { to, .. } => to.to_lowercase(),
        _ => String::new(),
    };
    loop {
        match client.recv().await? {
            // Ours (not one made to us), to whom we asked (not one another
            // connection of the account made at the same time).
            ServerMsg::ChallengeMade(info)
                if Some(info.from.to_lowercase()) == me && info.to.to_lowercase() == to =>
            {
                return Ok(info)
            }
            ServerMsg::Error { code, message, .. } if !ignorable(code) => {
                return Err(ClientError::Refused { code, message })
            }
            _ => {}
        }
    }
}

/// Whether `info` is a challenge made to this client's account by someone
/// else (the challenger's own confirmation looks the same otherwise).
pub fn is_incoming(client: &Client, info: &ChallengeInfo) -> bool {
    client.account().is_some_and(|a| {
        a.name.eq_ignore_ascii_case(&info.to) && !a.name.eq_ignore_ascii_case(&info.from)
    })
}

/// How a challenge ended, as `challenge_ended` told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChallengeNews {
    /// Accepted: both players are seated in this room.
    Accepted(RoomId),
    /// Ended otherwise (declined with its reason, cancelled, expired, gone).
    Over(ChallengeEnd, Option<DeclineReason>),
}

/// What `msg` says about challenge `challenge`, if anything.
pub fn challenge_news(msg: &ServerMsg, challenge: u64) -> Option<ChallengeNews> {
    match msg {
        ServerMsg::ChallengeEnded {
            challenge: c,
            end,
            reason,
            room,
        } if *c == challenge => Some(match (end, room) {
            (ChallengeEnd::Accepted, Some(room)) => ChallengeNews::Accepted(room.clone()),
            _ => ChallengeNews::Over(*end, *reason),
        }),
        _ => None,
    }
}

/// After a challenge was accepted: the seat the player was given in
/// `room`, from the `joined` that follows (its `update` is left unread).
pub async fn seat_in(client: &mut Client, room: RoomId) -> Result<Seated, ClientError> {
    loop {
        match client.recv().await? {
            ServerMsg::Joined { room: r, seat, .. } if r == room => {
                return Ok(Seated { room, seat });
            }
            ServerMsg::Error { code, message, .. } if !ignorable(code) => {
                return Err(ClientError::Refused { code, message })
            }
            _ => {}
        }
    }
}

/// Accepts challenge `challenge` and waits until the player is seated.
/// `Ok(None)` when it ended otherwise first (withdrawn, expired).
pub async fn accept(client: &mut Client, challenge: u64) -> Result<Option<Seated>, ClientError> {
    client
        .send(&ClientMsg::Accept {
            challenge,
            client_seed: Some(crate::client::client_seed()),
        })
        .await?;
    loop {
        let msg = client.recv().await?;
        match challenge_news(&msg, challenge) {
            Some(ChallengeNews::Accepted(room)) => return seat_in(client, room).await.map(Some),
            Some(ChallengeNews::Over(..)) => return Ok(None),
            None => {}
        }
        if let ServerMsg::Error { code, message, .. } = msg {
            match code {
                // Withdrawn or expired just before the answer arrived.
                ErrorCode::ChallengeNotFound => return Ok(None),
                code if ignorable(code) => {}
                code => return Err(ClientError::Refused { code, message }),
            }
        }
    }
}

/// A reason to decline, as a person types it (the protocol's word, or
/// the same with `-` for `_`).
pub fn decline_reason(word: &str) -> Option<DeclineReason> {
    serde_json::from_value(serde_json::Value::String(
        word.trim().to_lowercase().replace('-', "_"),
    ))
    .ok()
}

/// Every reason to decline, for help texts.
pub const DECLINE_REASONS: &str =
    "generic, later, too_fast, too_slow, game, casual, rated, no_bots, only_bots";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decline_reasons_are_read_as_typed_and_unknown_ones_refused() {
        assert_eq!(decline_reason("too-fast"), Some(DeclineReason::TooFast));
        assert_eq!(decline_reason(" Later "), Some(DeclineReason::Later));
        assert_eq!(decline_reason("only_bots"), Some(DeclineReason::OnlyBots));
        assert_eq!(decline_reason("busy"), None);
        for word in DECLINE_REASONS.split(", ") {
            assert!(decline_reason(word).is_some(), "{word}");
        }
    }

    #[test]
    fn seek_news_is_only_about_its_own_seek() {
        let room = RoomId::new("9a0c66e1b2f4").unwrap_or_else(|| unreachable!());
        let m = ServerMsg::Matched {
            seek: 7,
            room: room.clone(),
            seat: Seat(1),
            players: vec!["a".into(), "b".into()],
        };
        assert_eq!(seek_news(&m, 8), None);
        assert_eq!(
            seek_news(&m, 7),
            Some(SeekNews::Matched(
                Seated {
                    room,
                    seat: Seat(1)
                },
                vec!["a".into(), "b".into()]
            ))
        );
        let ended = ServerMsg::SeekEnded {
            seek: 7,
            reason: SeekEnd::Cancelled,
        };
        assert_eq!(
            seek_news(&ended, 7),
            Some(SeekNews::Ended(SeekEnd::Cancelled))
        );
    }
}
