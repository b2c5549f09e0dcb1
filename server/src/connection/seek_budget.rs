//! A connection's seek budget: [`SEEK_BURST`] seeks at once, then
//! [`SEEKS_PER_MINUTE`]; a seek that ends in a match gives its place back.

use parlor_protocol::ErrorCode;
use tokio::time::Instant;

use crate::directory::Refused;
use crate::limits::{SEEKS_PER_MINUTE, SEEK_BURST};
use crate::rate::Bucket;

/// Made at the connection's first seek, boxed so that a connection that
/// never seeks keeps only a pointer for it.
#[derive(Debug, Default)]
pub(super) struct SeekBudget(Option<Box<Bucket>>);

impl SeekBudget {
    /// Takes a seek at `now`; refused `seek/too_fast`, saying when the
    /// next may be made.
    pub(super) fn take(&mut self, now: Instant) -> Result<(), Refused> {
        let bucket = self.0.get_or_insert_with(|| {
            Box::new(Bucket::full(
                SEEK_BURST,
                f64::from(SEEKS_PER_MINUTE) / 60.0,
                now,
            ))
        });
        if bucket.take(now) {
            return Ok(());
        }
        Err(Refused::new(
            ErrorCode::SeekTooFast,
            format!(
                "at most {SEEK_BURST} seeks at once and {SEEKS_PER_MINUTE} a minute (matched ones do not count): seek again in {} ms",
                bucket.next_in().as_millis().max(1)
            ),
        ))
    }

    /// A seek ended in a match: it does not count.
    pub(super) fn matched(&mut self) {
        if let Some(bucket) = &mut self.0 {
            bucket.give_back();
        }
    }
}
