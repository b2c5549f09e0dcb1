//! `GET /metrics`: the states read from the server being asked, then the
//! whole recorder as Prometheus text.

use parlor_games::GameKind;
use parlor_protocol::RoomStatus;

use super::{recorder, LEASES_HELD, ROOMS};
use crate::directory::Directory;

/// Every room state, as labelled.
const STATES: [(RoomStatus, &str); 3] = [
    (RoomStatus::Waiting, "waiting"),
    (RoomStatus::Playing, "playing"),
    (RoomStatus::Finished, "finished"),
];

/// The metrics as Prometheus text (format 0.0.4), with `directory`'s
/// rooms and lease; `None` if the recorder could not be installed.
pub fn render(directory: &Directory) -> Option<String> {
    let handle = recorder::handle()?;
    let census = directory.census();
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
    if let Some(held) = directory.store().lease_held() {
        metrics::gauge!(LEASES_HELD).set(if held { 1.0 } else { 0.0 });
    }
    Some(handle.render())
}
