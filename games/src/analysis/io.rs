//! A tool's input and output: JSON in, one JSON document per result out,
//! through a callback the caller may stop; and why a tool refused.

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
    /// The answer needs more work than the caller's [`Budget`](super::Budget) allows.
    #[error("{0}")]
    TooLarge(String),
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
    analyze: fn(
        &str,
        &serde_json::Value,
        super::Budget,
        &mut Emit<'_>,
    ) -> Result<(), AnalysisError>,
    tool: &str,
    input: serde_json::Value,
) -> Result<Vec<serde_json::Value>, AnalysisError> {
    let mut out = Vec::new();
    analyze(tool, &input, super::Budget::UNLIMITED, &mut |x| {
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
