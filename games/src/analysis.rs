//! Analysis tools: JSON in, JSON values out, no server needed.
//!
//! Each game offers named tools (`parlor nimrod best-move`, `parlor
//! rummikub predict`, ...). A tool reads one JSON input and emits one or
//! more JSON values through a callback, so that a tool with many results
//! (every outcome of a game) streams them instead of holding them all.
//! The CLI prints each value as a line; the protocol's `analyze` request
//! returns them in a message.

/// Why an analysis could not run: bad input, for people to read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    /// The game has no tool of that name.
    #[error("unknown tool {tool:?} for {game} (tools: {known})")]
    UnknownTool {
        /// The game's name.
        game: &'static str,
        /// The tool asked for.
        tool: String,
        /// The tools it has, comma-separated.
        known: String,
    },
    /// The input is not what the tool takes.
    #[error("{0}")]
    BadInput(String),
    /// The caller stopped the stream (e.g. a result limit was reached).
    #[error("stopped after {0} results")]
    Stopped(u64),
    /// The answer needs more work than the caller's [`Budget`] allows.
    #[error("{0}")]
    TooLarge(String),
}

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

impl AnalysisError {
    /// A bad-input error from anything printable.
    pub fn bad(msg: impl std::fmt::Display) -> Self {
        AnalysisError::BadInput(msg.to_string())
    }
}

/// Where a tool sends its results, each one JSON document as text (text,
/// not `serde_json::Value`, so that exact counts beyond 2^64 stay JSON
/// integers). Returning `false` asks the tool to stop (it then returns
/// [`AnalysisError::Stopped`]).
pub type Emit<'a> = dyn FnMut(String) -> bool + 'a;

/// Serialises `value` and hands it to `emit`; `Err(Stopped(n))` when the
/// caller asked to stop, `n` being the results emitted before this one.
pub fn emit_json<T: serde::Serialize>(
    emit: &mut Emit<'_>,
    emitted: u64,
    value: &T,
) -> Result<(), AnalysisError> {
    let text = serde_json::to_string(value).map_err(AnalysisError::bad)?;
    if emit(text) {
        Ok(())
    } else {
        Err(AnalysisError::Stopped(emitted))
    }
}

/// Runs `analyze` without a budget and collects its results (for tests).
#[cfg(test)]
pub(crate) fn collect(
    analyze: fn(&str, &serde_json::Value, Budget, &mut Emit<'_>) -> Result<(), AnalysisError>,
    tool: &str,
    input: serde_json::Value,
) -> Result<Vec<serde_json::Value>, AnalysisError> {
    let mut out = Vec::new();
    analyze(tool, &input, Budget::UNLIMITED, &mut |x| {
        out.push(serde_json::from_str(&x).unwrap_or_default());
        true
    })?;
    Ok(out)
}

/// Reads `input` as `T`, naming the tool in the error.
pub fn input<T: serde::de::DeserializeOwned>(
    tool: &str,
    input: &serde_json::Value,
) -> Result<T, AnalysisError> {
    T::deserialize(input).map_err(|e| AnalysisError::BadInput(format!("{tool}: {e}")))
}
