//! Making a room for players who agreed to play, and summoning each to
//! their seat: seats are drawn at random (who moves first is luck, not a
//! matter of who sought first), unless a challenger chose theirs.

use parlor_games::Seat;
use parlor_protocol::{ChallengeEnd, ErrorCode, RoomId, SeekEnd, ServerMsg};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use super::asker::Asker;
use super::challenges::Open;
use super::seeks::{Group, Waiting};
use crate::directory::{Directory, NewRoom, Refused, RoomSpec, Summons};
use crate::outbox::ConnId;

/// Where a paired seek's player sits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seating {
    /// The new room.
    pub room: RoomId,
    /// The player's seat.
    pub seat: Seat,
    /// Every seat's player by name.
    pub players: Vec<String>,
    /// Bots this player's session seats (the first seeker's only).
    pub bots: Vec<(Seat, String)>,
}

/// What became of a paired seek: a seat, or the room could not be made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placed {
    /// Seated.
    Seated(Seating),
    /// Refused, with the room's refusal.
    Refused {
        /// Why.
        code: ErrorCode,
        /// For people.
        message: String,
    },
}

/// Makes the room a spec and a rated flag ask for, `first` its creator
/// (for the caps, and so that the players' sessions may seat bots), its
/// seats held for the accounts `matched` names by seat (if any).
async fn make_room(
    dir: &Directory,
    spec: &RoomSpec,
    rated: bool,
    first: &Asker,
    matched: Vec<String>,
) -> Result<RoomId, Refused> {
    dir.create(NewRoom {
        game: spec.game,
        seats: Some(spec.seats),
        options: spec.options.clone(),
        clock: spec.clock,
        private: false,
        creator: Some(first.token),
        creator_addr: Some(first.addr),
        rated,
        by_account: first.account.is_some(),
        scheduled: None,
        matched,
    })
    .await
    .map(|c| c.room)
}

/// Makes the room of a group of paired seeks: where each member sits.
pub(super) async fn place_group(dir: &Directory, group: Group) -> Vec<(Waiting, Placed)> {
    let Some(first) = group.members.first() else {
        return Vec::new();
    };
    let spec = first.spec.clone();
    let mut order: Vec<u8> = (0..spec.seats).collect();
    order.shuffle(&mut rand::thread_rng());
    let strategy = spec.game.strategies().first().copied().unwrap_or("random");
    let mut players: Vec<String> = vec![format!("bot:{strategy}"); usize::from(spec.seats)];
    for (m, &seat) in group.members.iter().zip(&order) {
        players[usize::from(seat)] = m.asker.name.to_string();
    }
    let bot_seats: Vec<(Seat, String)> = order
        .iter()
        .skip(group.members.len())
        .map(|&s| (Seat(s), strategy.to_owned()))
        .collect();
    // Accounts alone (no bots, no guests): the room holds every seat for
    // its account from its making, so a crash cannot leave it half made.
    let accounts_only =
        bot_seats.is_empty() && group.members.iter().all(|m| m.asker.account.is_some());
    let matched = if accounts_only {
        let mut names = players.clone();
        for (m, &seat) in group.members.iter().zip(&order) {
            if let (Some(name), Some(account)) =
                (names.get_mut(usize::from(seat)), &m.asker.account)
            {
                name.clone_from(&account.name);
            }
        }
        names
    } else {
        Vec::new()
    };
    let room = match make_room(dir, &spec, first.rated, &first.asker, matched).await {
        Ok(room) => room,
        Err(Refused { code, message }) => {
            return group
                .members
                .into_iter()
                .map(|m| {
                    let placed = Placed::Refused {
                        code,
                        message: message.clone(),
                    };
                    (m, placed)
                })
                .collect();
        }
    };
    group
        .members
        .into_iter()
        .zip(order)
        .enumerate()
        .map(|(i, (m, seat))| {
            let seating = Seating {
                room: room.clone(),
                seat: Seat(seat),
                players: players.clone(),
                // The first seeker's session seats the bots, after itself.
                bots: if i == 0 {
                    bot_seats.clone()
                } else {
                    Vec::new()
                },
            };
            (m, Placed::Seated(seating))
        })
        .collect()
}

/// Tells the player of seek `seek`, connected here on `conn`, where they
/// sit (and seats them), or why the match could not be made.
pub(super) fn deliver(dir: &Directory, seek: u64, conn: ConnId, placed: Placed) {
    match placed {
        Placed::Seated(s) => dir.summon_or_tell(
            conn,
            Summons {
                notice: ServerMsg::Matched {
                    seek,
                    room: s.room.clone(),
                    seat: s.seat,
                    players: s.players,
                },
                room: s.room,
                seat: s.seat,
                bots: s.bots,
            },
        ),
        Placed::Refused { code, message } => {
            if let Some(out) = dir.outbox_of(conn) {
                out.send(&ServerMsg::error(code, message));
                out.send(&ServerMsg::SeekEnded {
                    seek,
                    reason: SeekEnd::Refused,
                });
            }
        }
    }
}

/// Seats a challenger and the player accepting in a new room; its id.
pub(super) async fn start_challenge(
    dir: &Directory,
    open: &Open,
    by: &Asker,
) -> Result<RoomId, Refused> {
    let theirs = open
        .info
        .seat
        .unwrap_or_else(|| Seat(u8::from(rand::random::<bool>())));
    let mine = Seat(1 - theirs.0.min(1));
    // Challenges are between accounts: their seats are held from the
    // room's making (see `make_room`).
    let mut matched = vec![String::new(); 2];
    for (asker, seat) in [(&open.from, theirs), (by, mine)] {
        if let (Some(slot), Some(account)) = (matched.get_mut(usize::from(seat.0)), &asker.account)
        {
            slot.clone_from(&account.name);
        }
    }
    if matched.iter().any(String::is_empty) || open.spec.seats != 2 {
        matched.clear();
    }
    let room = make_room(dir, &open.spec, open.info.rated, &open.from, matched).await?;
    let notice = ServerMsg::ChallengeEnded {
        challenge: open.info.challenge,
        end: ChallengeEnd::Accepted,
        reason: None,
        room: Some(room.clone()),
    };
    for (asker, seat) in [(&open.from, theirs), (by, mine)] {
        dir.summon_at(
            &asker.node,
            asker.conn,
            Summons {
                notice: notice.clone(),
                room: room.clone(),
                seat,
                bots: Vec::new(),
            },
        );
    }
    Ok(room)
}
