//! How much work a tool may do ([`Budget`]), and the arithmetic of the
//! hash tables its memory bound is checked against.

/// How much work a tool may do, in time and in memory. The CLI gives
/// tools all they need; a server answering strangers bounds both, so that
/// one request can neither hold a core for minutes nor take the memory
/// every match in progress lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Most positions (or results) a search may visit; `None`: no limit.
    pub positions: Option<usize>,
    /// Most bytes the tool's tables and enumerations (memo tables, levels
    /// of positions, lists of results) may hold at once; `None`: no limit.
    /// A tool refuses (`TooLarge`) a request whose size predicts more, and
    /// bounds its tables as they grow: a memo that is only a speed-up
    /// forgets positions (answers stay exact), anything else stops.
    pub memory: Option<usize>,
}

impl Budget {
    /// No limit.
    pub const UNLIMITED: Budget = Budget {
        positions: None,
        memory: None,
    };

    /// At most `n` positions, and no memory bound.
    pub fn positions(n: usize) -> Budget {
        Budget {
            positions: Some(n),
            memory: None,
        }
    }

    /// At most `n` positions in at most `bytes` of tables.
    pub fn within(n: usize, bytes: usize) -> Budget {
        Budget {
            positions: Some(n),
            memory: Some(bytes),
        }
    }
}

/// Bytes of a hash table holding `entries` entries of `entry` bytes each,
/// as a SwissTable (std's `HashMap`) lays it out: a power-of-two number of
/// buckets, at most 7/8 of them full, each bucket its entry and one
/// control byte. While it grows, the old table (half the buckets) is alive
/// too; [`table_growth_bytes`] counts that.
pub fn table_bytes(entries: usize, entry: usize) -> usize {
    let buckets = (entries.saturating_mul(8) / 7).max(1).next_power_of_two();
    buckets.saturating_mul(entry + 1)
}

/// The most a hash table of `entries` entries of `entry` bytes held at
/// any moment while growing to its size: its own buckets and, during the
/// last doubling, the old half-size table's.
pub fn table_growth_bytes(entries: usize, entry: usize) -> usize {
    let full = table_bytes(entries, entry);
    full.saturating_add(full / 2)
}

/// The most entries of `entry` bytes a hash table may grow to while
/// [`table_growth_bytes`] stays within `bytes` (0 when not even the
/// smallest table fits).
pub fn table_entries_within(bytes: usize, entry: usize) -> usize {
    let grown = |buckets: usize| buckets.saturating_mul(entry + 1).saturating_mul(3) / 2;
    if grown(16) > bytes {
        return 0;
    }
    let mut buckets = 16usize;
    while buckets
        .saturating_mul(2)
        .saturating_mul(entry + 1)
        .saturating_mul(3)
        / 2
        <= bytes
    {
        buckets *= 2;
    }
    buckets / 8 * 7
}
