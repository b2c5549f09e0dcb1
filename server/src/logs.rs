//! The server's log lines: in cluster mode each starts with the node's
//! id (`node=ID`), so that the lines of several nodes gathered in one
//! place can be told apart, and a node's lines before and after it lost
//! its lease (and took a new id) too.
//!
//! The id is the process's: the store sets it when the node registers
//! and each time it takes a new one ([`set_node`]). A process running
//! several nodes (tests) tags its lines with the latest.

use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};

use tracing::{Event, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// The node id log lines carry; `None` outside cluster mode.
static NODE: RwLock<Option<Arc<str>>> = RwLock::new(None);

/// This process's node id is now `id`.
pub fn set_node(id: Arc<str>) {
    *NODE.write().unwrap_or_else(PoisonError::into_inner) = Some(id);
}

/// This process's node id, if it is a cluster node.
pub fn node() -> Option<Arc<str>> {
    NODE.read().unwrap_or_else(PoisonError::into_inner).clone()
}

/// An event format that puts `node=ID ` in front of another's lines when
/// `source` gives an id.
#[derive(Debug)]
pub struct NodeTagged<F> {
    inner: F,
    source: fn() -> Option<Arc<str>>,
}

impl<F> NodeTagged<F> {
    /// `inner`'s lines, tagged with the process's node id.
    pub fn new(inner: F) -> NodeTagged<F> {
        NodeTagged::with_source(inner, node)
    }

    /// `inner`'s lines, tagged with the id `source` gives.
    pub fn with_source(inner: F, source: fn() -> Option<Arc<str>>) -> NodeTagged<F> {
        NodeTagged { inner, source }
    }
}

impl<S, N, F> FormatEvent<S, N> for NodeTagged<F>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
    F: FormatEvent<S, N>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        if let Some(id) = (self.source)() {
            write!(writer, "node={id} ")?;
        }
        self.inner.format_event(ctx, writer, event)
    }
}

/// Sets up the process's logging: lines on stderr, filtered by
/// `RUST_LOG` (default `info`), tagged with the node id.
pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .event_format(NodeTagged::new(tracing_subscriber::fmt::format()))
        .init();
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::Mutex;

    use super::*;

    /// Where the test's lines go.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn logged(source: fn() -> Option<Arc<str>>) -> String {
        let lines = Lines::default();
        let out = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || out.clone())
            .with_ansi(false)
            .event_format(NodeTagged::with_source(
                tracing_subscriber::fmt::format().with_ansi(false),
                source,
            ))
            .finish();
        tracing::subscriber::with_default(subscriber, || tracing::info!(room = "r1", "hello"));
        let bytes = lines
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[test]
    fn a_cluster_nodes_lines_carry_its_id_and_others_none() {
        let line = logged(|| Some(Arc::from("abc123")));
        assert!(line.starts_with("node=abc123 "), "{line}");
        assert!(
            line.contains("hello") && line.contains("room=\"r1\""),
            "{line}"
        );
        let line = logged(|| None);
        assert!(!line.contains("node="), "{line}");
        assert!(line.contains("hello"), "{line}");
    }
}
