//! The clocks a match's last step left: what tells a seat that lost on
//! time from one that resigned, both logged as a forfeit (its time ran
//! out with no default move, or it left), for a finished game's result.

use parlor_protocol::RoomId;

use super::{Arg, Kind, Store, StoreError};

impl Store {
    /// Each seat's time left (ms) after the last step of `room`'s match;
    /// `None` for a match without a clock or a step, or no such room.
    pub async fn final_clocks(&self, room: &RoomId) -> Result<Option<Vec<u64>>, StoreError> {
        // One statement for both databases: `clocks` is the same JSON text
        // in both.
        let rows = self
            .beside()
            .query(
                "SELECT v.clocks FROM moves v JOIN matches m ON m.id = v.match_id \
                 WHERE m.room = $1 ORDER BY v.seq DESC LIMIT 1",
                vec![Arg::Text(room.as_str().to_owned())],
                &[Kind::Text],
            )
            .await?;
        let Some(text) = rows
            .first()
            .and_then(|r| r.first())
            .and_then(|c| c.opt_text())
        else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| StoreError::Corrupt(format!("the clocks of {room}'s last step: {e}")))
    }
}
