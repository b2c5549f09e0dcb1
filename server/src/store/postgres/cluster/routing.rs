//! Where rooms live, as the database knows it: what a node asks when a
//! command for a room it does not host finds nobody on the bus, and when
//! a player resumes (their seats, in every room, whoever hosts it).

use parlor_games::Seat;
use parlor_protocol::RoomId;
use tokio_postgres::GenericClient;

use crate::store::StoreError;

/// A live owner: a node whose lease has not run out (`m` joined to `n`).
const LIVE_OWNER: &str = "(m.owner IS NOT NULL AND n.lease_until > now())";

/// Where a room is, for a node that does not host it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whereabouts {
    /// No match has that room id.
    Unknown,
    /// Its match is over: nobody hosts it for good.
    Over,
    /// A live node owns it.
    Hosted,
    /// Nobody owns it, or its owner's lease ran out: it may be claimed.
    Orphaned,
}

/// Where `room` is.
pub(in crate::store::postgres) async fn whereabouts(
    client: &impl GenericClient,
    room: &str,
) -> Result<Whereabouts, StoreError> {
    let row = client
        .query_opt(
            &format!(
                "SELECT m.finished, {LIVE_OWNER} FROM matches m \
                 LEFT JOIN nodes n ON n.id = m.owner WHERE m.room = $1"
            ),
            &[&room],
        )
        .await?;
    let Some(row) = row else {
        return Ok(Whereabouts::Unknown);
    };
    let finished: bool = row.try_get(0)?;
    let live: bool = row.try_get(1)?;
    Ok(match (finished, live) {
        (true, _) => Whereabouts::Over,
        (false, true) => Whereabouts::Hosted,
        (false, false) => Whereabouts::Orphaned,
    })
}

/// A seat a player holds in an unfinished match, and whether a live node
/// hosts its room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldSeat {
    /// The room.
    pub room: RoomId,
    /// The seat.
    pub seat: Seat,
    /// A live node owns the room.
    pub hosted: bool,
}

/// The seats `token` holds in unfinished matches, by room.
pub(in crate::store::postgres) async fn seats_of(
    client: &impl GenericClient,
    token: &str,
) -> Result<Vec<HeldSeat>, StoreError> {
    let rows = client
        .query(
            &format!(
                "SELECT m.room, s.seat, {LIVE_OWNER} FROM seats s \
                 JOIN matches m ON m.id = s.match_id LEFT JOIN nodes n ON n.id = m.owner \
                 WHERE s.token = $1::text::uuid AND NOT m.finished ORDER BY m.room"
            ),
            &[&token],
        )
        .await?;
    rows.iter()
        .map(|r| {
            let room: String = r.try_get(0)?;
            let seat: i16 = r.try_get(1)?;
            Ok(HeldSeat {
                room: RoomId::new(&room)
                    .ok_or_else(|| StoreError::Corrupt(format!("room id {room:?}")))?,
                seat: Seat(
                    u8::try_from(seat).map_err(|_| StoreError::Corrupt(format!("seat {seat}")))?,
                ),
                hosted: r.try_get(2)?,
            })
        })
        .collect()
}
