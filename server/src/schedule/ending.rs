//! How a finished tournament or ladder game ended ([`GameEnd`]), read
//! from its log: a forfeit as the last step is a loss on time when the
//! seat's clock had run out (its time ran out with no default move to
//! play), a resignation otherwise (it left, or its account was closed);
//! any other ending is the game's rules'.

use parlor_protocol::{GameEnd, LoggedAction, MatchLog};

use crate::store::{Store, StoreError};

/// How `log`'s match ended, given the clocks its last step left (ms per
/// seat); `None` while it is played, or when it closed without an
/// outcome.
pub fn game_end(log: &MatchLog, clocks: Option<&[u64]>) -> Option<GameEnd> {
    log.outcome.as_ref()?;
    let Some(last) = log.moves.last() else {
        return Some(GameEnd::Rules);
    };
    if last.action != LoggedAction::Forfeit {
        return Some(GameEnd::Rules);
    }
    let out_of_time = clocks
        .and_then(|c| c.get(last.seat.index()))
        .is_some_and(|&left| left == 0);
    Some(if out_of_time {
        GameEnd::Time
    } else {
        GameEnd::Resigned
    })
}

/// [`game_end`] of `log`, a match in `store`: its clocks are read only
/// when they decide it (its last step a forfeit).
pub async fn read_game_end(store: &Store, log: &MatchLog) -> Result<Option<GameEnd>, StoreError> {
    let forfeit = log
        .moves
        .last()
        .is_some_and(|m| m.action == LoggedAction::Forfeit);
    let clocks = if forfeit && log.outcome.is_some() {
        store.final_clocks(&log.room).await?
    } else {
        None
    };
    Ok(game_end(log, clocks.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use parlor_games::{Outcome, Seat, SeatSet};
    use parlor_protocol::LogEntry;

    fn log(moves: Vec<(u8, LoggedAction)>, outcome: Option<Outcome>) -> MatchLog {
        let header: parlor_protocol::MatchHeader = serde_json::from_value(serde_json::json!({
            "game": "nimrod", "options": null, "seats": 2
        }))
        .unwrap_or_else(|e| unreachable!("{e}"));
        MatchLog {
            chat: Vec::new(),
            room: parlor_protocol::RoomId::new("0123456789ab").unwrap_or_else(|| unreachable!()),
            header,
            moves: moves
                .into_iter()
                .enumerate()
                .map(|(i, (seat, action))| LogEntry {
                    seq: i as u64,
                    seat: Seat(seat),
                    action,
                })
                .collect(),
            outcome,
            closed: None,
            players: Vec::new(),
        }
    }

    #[test]
    fn a_forfeit_with_no_time_left_is_a_loss_on_time_else_a_resignation() {
        let won = Some(Outcome::Win {
            winners: SeatSet::single(Seat(0)),
        });
        let moved = LoggedAction::Move(serde_json::json!({"take": [1, 0]}));
        let played = log(vec![(0, moved.clone()), (1, LoggedAction::Forfeit)], won);
        assert_eq!(game_end(&played, Some(&[900, 0])), Some(GameEnd::Time));
        assert_eq!(game_end(&played, Some(&[0, 700])), Some(GameEnd::Resigned));
        assert_eq!(game_end(&played, None), Some(GameEnd::Resigned));
        let timeout = LoggedAction::TimeoutMove(serde_json::json!({"take": [1, 0]}));
        assert_eq!(
            game_end(
                &log(vec![(0, moved.clone()), (1, timeout)], won),
                Some(&[5, 0])
            ),
            Some(GameEnd::Rules)
        );
        assert_eq!(
            game_end(&log(vec![(0, moved.clone())], won), None),
            Some(GameEnd::Rules)
        );
        assert_eq!(game_end(&log(vec![(0, moved)], None), None), None);
    }
}
