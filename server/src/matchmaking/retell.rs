//! Open challenges shown again to connections that missed them: each is
//! told once, to the challenged player's connections of the moment, so a
//! connection signing in later is shown those still open, and in cluster
//! mode, after messages to this node may have been lost on the bus, every
//! player here is.

use parlor_protocol::{ChallengeInfo, ServerMsg};

use super::shared::SharedBooks;
use super::{lock, Books, Matchmaker};
use crate::clock::now_ms;

impl Matchmaker {
    /// The open challenges addressed to the account `key`, for a
    /// connection that signs in after they were made (another device, or
    /// back after a cut): each is told once to every connection there is
    /// when it is made, and a later one must see them too.
    pub async fn challenges_to(&self, key: &str) -> Vec<ChallengeInfo> {
        let now = now_ms();
        match &self.books {
            Books::Local { challenges, .. } => lock(challenges).addressed_to(key, now),
            Books::Shared(books) => match books.addressed_to(&[key.to_owned()], now).await {
                Ok(open) => open.into_iter().map(|(_, info)| info).collect(),
                Err(e) => {
                    // Not fatal: a challenge not shown is answered by its
                    // expiry, as if unseen.
                    tracing::warn!(error = %e, "open challenges to a player were not looked up");
                    Vec::new()
                }
            },
        }
    }
}

/// Tells this node's signed-in players again of the open challenges
/// addressed to them: one made while this node was off the bus was told
/// to nobody here. (A challenge told twice is the same `challenge_made`,
/// by id.)
pub(super) async fn after_loss(mm: &Matchmaker, books: &SharedBooks) {
    let mut keys: Vec<String> = mm.dir.signed_in().into_iter().map(|(k, _)| k).collect();
    keys.sort_unstable();
    keys.dedup();
    match books.addressed_to(&keys, now_ms()).await {
        Ok(open) => {
            for (key, info) in open {
                let msg = ServerMsg::ChallengeMade(info);
                for out in mm.dir.account_outboxes(&key) {
                    out.send(&msg);
                }
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "open challenges were not told again after the bus came back");
        }
    }
}
