//! Making a room for players who agreed to play, and summoning each to
//! their seat: seats are drawn at random (who moves first is luck, not a
//! matter of who sought first), unless a challenger chose theirs.

use std::sync::Arc;

use parlor_games::Seat;
use parlor_protocol::{ChallengeEnd, RoomId, SeekEnd, ServerMsg};
use rand::seq::SliceRandom;

use super::asker::Asker;
use super::challenges::Open;
use super::seeks::Group;
use crate::directory::{Directory, NewRoom, Refused, RoomSpec, Summons};

/// Makes the room a spec and a rated flag ask for, `first` its creator
/// (for the caps, and so that the players' sessions may seat bots).
async fn make_room(
    dir: &Directory,
    spec: &RoomSpec,
    rated: bool,
    first: &Asker,
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
    })
    .await
    .map(|c| c.room)
}

/// Seats a group of paired seeks in a new room.
pub(super) async fn start_match(dir: Arc<Directory>, group: Group) {
    let Some(first) = group.members.first() else {
        return;
    };
    let spec = first.spec.clone();
    let room = match make_room(&dir, &spec, first.rated, &first.asker).await {
        Ok(room) => room,
        Err((code, message)) => {
            for m in &group.members {
                if let Some(out) = dir.outbox_of(m.asker.conn) {
                    out.send(&ServerMsg::error(code, message.clone()));
                    out.send(&ServerMsg::SeekEnded {
                        seek: m.id,
                        reason: SeekEnd::Refused,
                    });
                }
            }
            return;
        }
    };
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
    for (i, (m, &seat)) in group.members.iter().zip(&order).enumerate() {
        let summons = Summons {
            notice: ServerMsg::Matched {
                seek: m.id,
                room: room.clone(),
                seat: Seat(seat),
                players: players.clone(),
            },
            room: room.clone(),
            seat: Seat(seat),
            // The first seeker's session seats the bots, after itself.
            bots: if i == 0 {
                bot_seats.clone()
            } else {
                Vec::new()
            },
        };
        dir.summon_or_tell(m.asker.conn, summons);
    }
}

/// Seats a challenger and the player accepting in a new room; its id.
pub(super) async fn start_challenge(
    dir: &Directory,
    open: &Open,
    by: &Asker,
) -> Result<RoomId, Refused> {
    let room = make_room(dir, &open.spec, open.info.rated, &open.from).await?;
    let theirs = open
        .info
        .seat
        .unwrap_or_else(|| Seat(u8::from(rand::random::<bool>())));
    let mine = Seat(1 - theirs.0.min(1));
    let notice = ServerMsg::ChallengeEnded {
        challenge: open.info.challenge,
        end: ChallengeEnd::Accepted,
        reason: None,
        room: Some(room.clone()),
    };
    for (asker, seat) in [(&open.from, theirs), (by, mine)] {
        dir.summon_or_tell(
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
