//! A duplicate set's games share one deal: the log of one that is over
//! reveals the deal (its server seed) of the others, so it stays private
//! until every game of the set is over.

use parlor_protocol::MatchLog;

use super::{Store, StoreError};

impl Store {
    /// Whether `log`, a finished match's, must stay private for now: some
    /// game sharing its deal is still being played.
    pub async fn embargoed(&self, log: &MatchLog) -> Result<bool, StoreError> {
        let Some(event) = &log.header.event else {
            return Ok(false);
        };
        for sibling in &event.siblings {
            if let Some(other) = self.log(sibling.clone()).await? {
                if other.outcome.is_none() && other.closed.is_none() {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }
}
