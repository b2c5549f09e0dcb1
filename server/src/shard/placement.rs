//! Which shard a new room goes to: fill one shard before waking another.

/// How busy a shard may be expected to get before new rooms go to the
/// next one. Filling one shard first keeps the others asleep: on two
/// cores at 1,000 moves/s, two half-idle shards woke twice as often as
/// one and cost ~20% more CPU a move (issue 15). Half busy leaves a
/// shard headroom for its rooms' bursts before its queue delays moves.
pub(super) const SHARD_PACK_UNTIL: f64 = 0.5;

/// What placement knows of a shard.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Load {
    /// Share of the last sample its thread was busy, 0 to 1.
    pub busy: f64,
    /// Rooms on it now.
    pub rooms: usize,
    /// Rooms on it when `busy` was sampled.
    pub rooms_sampled: usize,
}

impl Load {
    /// Its busy share with the rooms placed since the sample counted at
    /// the sample's average per room, so that a burst of new rooms does
    /// not all land on one shard before the next sample sees them.
    fn expected(self) -> f64 {
        if self.rooms_sampled == 0 || self.rooms <= self.rooms_sampled {
            return self.busy;
        }
        // Room counts are far below 2^52.
        #[allow(clippy::cast_precision_loss)]
        let grown = self.rooms as f64 / self.rooms_sampled as f64;
        self.busy * grown
    }
}

/// The shard for a new room: the first one (in index order) expected to
/// stay under [`SHARD_PACK_UNTIL`] busy, so that at light load the rooms
/// share one thread and the others sleep; when every shard is past it,
/// the least busy one, fewest rooms among equals. `None` for no shards.
pub(super) fn choose(loads: &[Load]) -> Option<usize> {
    if let Some(i) = loads.iter().position(|l| l.expected() < SHARD_PACK_UNTIL) {
        return Some(i);
    }
    loads
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| {
            a.expected()
                .total_cmp(&b.expected())
                .then(a.rooms.cmp(&b.rooms))
        })
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(busy: f64, rooms: usize, rooms_sampled: usize) -> Load {
        Load {
            busy,
            rooms,
            rooms_sampled,
        }
    }

    #[test]
    fn rooms_fill_the_first_shard_with_room_to_spare() {
        let idle = load(0.0, 0, 0);
        assert_eq!(choose(&[idle, idle, idle]), Some(0));
        assert_eq!(choose(&[load(0.2, 40, 40), idle]), Some(0), "room to spare");
        let full = load(SHARD_PACK_UNTIL, 100, 100);
        assert_eq!(choose(&[full, load(0.1, 3, 3), idle]), Some(1));
        assert_eq!(choose(&[]), None);
    }

    #[test]
    fn rooms_placed_since_the_sample_count_as_load() {
        // 0.3 busy with 30 rooms; 30 more since: expected 0.6, past the mark.
        let grown = load(0.3, 60, 30);
        assert_eq!(choose(&[grown, load(0.0, 0, 0)]), Some(1));
        // Rooms that ended since lower nothing: the sample stands.
        assert_eq!(choose(&[load(0.3, 10, 30), load(0.0, 0, 0)]), Some(0));
    }

    #[test]
    fn when_every_shard_is_busy_the_least_busy_takes_the_room() {
        let a = load(0.9, 50, 50);
        let b = load(0.7, 80, 80);
        assert_eq!(choose(&[a, b]), Some(1));
        let c = load(0.7, 60, 60);
        assert_eq!(choose(&[a, b, c]), Some(2), "fewest rooms among equals");
    }
}
