//! The process-wide recorder the metrics macros write to, and the text
//! Prometheus reads from it.

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::{
    BUS_PUBLISHES, CHECKPOINT_BUCKETS, CHECKPOINT_SECONDS, COMMIT_BUCKETS, COMMIT_SECONDS,
    CONNECTIONS, FENCED_WRITES, LEASES_HELD, MOVES, REFUSED_MOVES, ROOMS, ROOMS_CLAIMED,
};

/// How often recorded histogram samples are folded into their buckets
/// when nobody scrapes: until then each sample is kept, so a node nobody
/// scrapes would grow by one sample per commit.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// The recorder's handle once installed; `None` if another recorder was
/// installed first (by a program embedding the server), in which case
/// that one gets the events and `/metrics` says so.
static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the recorder if no server of this process has yet (every
/// server calls this at start-up; only the first call does anything).
pub fn install() {
    handle();
}

/// The recorder's handle, installing it on the first call.
pub(super) fn handle() -> Option<&'static PrometheusHandle> {
    HANDLE.get_or_init(build).as_ref()
}

fn build() -> Option<PrometheusHandle> {
    let builder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Full(COMMIT_SECONDS.into()), COMMIT_BUCKETS)
        .and_then(|b| {
            b.set_buckets_for_metric(Matcher::Full(CHECKPOINT_SECONDS.into()), CHECKPOINT_BUCKETS)
        });
    let recorder = match builder {
        Ok(b) => b.build_recorder(),
        Err(e) => {
            tracing::error!(error = %e, "cannot set up the metrics");
            return None;
        }
    };
    let handle = recorder.handle();
    if let Err(e) = metrics::set_global_recorder(recorder) {
        tracing::warn!(error = %e, "another metrics recorder is installed; /metrics stays empty");
        return None;
    }
    describe();
    let upkeep = handle.clone();
    let started = std::thread::Builder::new()
        .name("parlor-metrics".into())
        .spawn(move || loop {
            std::thread::sleep(UPKEEP_EVERY);
            upkeep.run_upkeep();
        });
    if let Err(e) = started {
        tracing::warn!(error = %e, "cannot start the metrics upkeep; samples fold in at each scrape");
    }
    Some(handle)
}

/// The `# HELP` lines.
fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
    describe_gauge!(CONNECTIONS, "Connections holding a slot.");
    describe_gauge!(ROOMS, "Rooms hosted, by game and state.");
    describe_counter!(MOVES, "Steps accepted and stored, by game.");
    describe_counter!(REFUSED_MOVES, "Moves refused by their room, by error code.");
    describe_histogram!(
        COMMIT_SECONDS,
        Unit::Seconds,
        "Time to commit one batch of writes."
    );
    describe_histogram!(
        CHECKPOINT_SECONDS,
        Unit::Seconds,
        "Time a step of a SQLite checkpoint took: copy (commits go on) or finish (commits wait)."
    );
    describe_counter!(BUS_PUBLISHES, "Messages published on the cluster's bus.");
    describe_gauge!(
        LEASES_HELD,
        "Whether this node holds its lease (cluster mode)."
    );
    describe_counter!(ROOMS_CLAIMED, "Orphaned rooms claimed.");
    describe_counter!(
        FENCED_WRITES,
        "Writes refused because the room is another node's now."
    );
}
