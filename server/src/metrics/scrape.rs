//! `GET /metrics`: the states read from the server being asked, then the
//! whole recorder as Prometheus text.

use parlor_games::GameKind;
use parlor_protocol::RoomStatus;

use super::{recorder, LEASES_HELD, ROOMS};

/// Every room state, as labelled.
const STATES: [(RoomStatus, &str); 3] = [
    (RoomStatus::Waiting, "waiting"),
    (RoomStatus::Playing, "playing"),
    (RoomStatus::Finished, "finished"),
];

/// The rooms a server hosts, counted by game and state (pairs with no
/// room may be left out).
pub type Census = [(GameKind, RoomStatus, usize)];

/// The metrics as Prometheus text (format 0.0.4), with the asked server's
/// `census` of rooms and, in cluster mode, whether it holds its lease;
/// `None` if the recorder could not be installed.
pub fn render(census: &Census, lease_held: Option<bool>) -> Option<String> {
    let handle = recorder::handle()?;
    // Every game and state, zeros included: a series that vanished would
    // leave its last value on dashboards.
    for game in GameKind::ALL {
        for (state, label) in STATES {
            let n = census
                .iter()
                .find(|(g, s, _)| g == game && *s == state)
                .map_or(0, |(_, _, n)| *n);
            metrics::gauge!(ROOMS, "game" => game.name(), "state" => label).set(n as f64);
        }
    }
    if let Some(held) = lease_held {
        metrics::gauge!(LEASES_HELD).set(if held { 1.0 } else { 0.0 });
    }
    Some(handle.render())
}
