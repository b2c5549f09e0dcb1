//! Support for tests that need cluster mode's services: where they are,
//! a scratch schema per test that is dropped at its end (and SQL run in
//! it by hand), the one rule for a service that is not there, and a match
//! record for the store's tests to write to.
//!
//! - `PARLOR_TEST_STORE=postgres`: the servers under test keep their
//!   matches in PostgreSQL ([`postgres_run`]); SQLite otherwise.
//! - `PARLOR_TEST_POSTGRES`: the database tests make their schemas in
//!   (default [`DEFAULT_POSTGRES`]).
//! - A test whose service is missing prints why and is skipped, except
//!   under `CI=true`, where it fails: CI must not go green by skipping
//!   ([`missing_service`]).
//!
//! Compiled into the server like [`crate::store::Faults`], so that the
//! server's own tests and the end-to-end harness share it; servers never
//! call it.

use std::time::Duration;

use tokio_postgres::NoTls;
use uuid::Uuid;

use parlor_games::GameKind;
use parlor_protocol::{MatchHeader, RoomId};

use crate::store::{pg_args, pg_refs, with_causes, Arg, MatchRecord, Origin};
use crate::StoreConfig;

/// Where tests find PostgreSQL when `PARLOR_TEST_POSTGRES` is not set.
pub const DEFAULT_POSTGRES: &str = "postgres://postgres@127.0.0.1:5432/test";

/// Where tests find Redis when `PARLOR_TEST_REDIS` is not set.
pub const DEFAULT_REDIS: &str = "redis://127.0.0.1:6379";

/// How long a test waits for PostgreSQL to accept a connection before it
/// counts as missing (it is on loopback: it answers at once or not at all).
const SERVICE_WAIT: Duration = Duration::from_secs(5);

/// How long dropping a scratch schema may take before it is left behind
/// (and reported): its connections are ended first, so it takes
/// milliseconds unless the database is gone.
const DROP_WAIT: Duration = Duration::from_secs(20);

/// Whether this run puts the servers under test on PostgreSQL
/// (`PARLOR_TEST_STORE=postgres`) rather than SQLite.
pub fn postgres_run() -> bool {
    std::env::var("PARLOR_TEST_STORE").is_ok_and(|s| s == "postgres")
}

/// The database tests use: `PARLOR_TEST_POSTGRES`, or [`DEFAULT_POSTGRES`].
pub fn postgres_url() -> String {
    std::env::var("PARLOR_TEST_POSTGRES").unwrap_or_else(|_| DEFAULT_POSTGRES.to_owned())
}

/// The Redis tests use as the bus: `PARLOR_TEST_REDIS`, or
/// [`DEFAULT_REDIS`].
pub fn redis_url() -> String {
    std::env::var("PARLOR_TEST_REDIS").unwrap_or_else(|_| DEFAULT_REDIS.to_owned())
}

/// The bus for a cluster test: [`redis_url`] if Redis answers there;
/// `None` (after [`missing_service`]) if not.
pub async fn redis_bus() -> Option<String> {
    let url = redis_url();
    let why =
        match tokio::time::timeout(SERVICE_WAIT, crate::bus::Bus::connect(&url, "probe")).await {
            Ok(Ok(bus)) => {
                bus.close().await;
                return Some(url);
            }
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("no answer within {SERVICE_WAIT:?}"),
        };
    missing_service("Redis", &format!("{url}: {why}"));
    None
}

/// Whether this is a CI run (`CI=true`), where a missing service fails.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The rule for a test whose `service` cannot be used (`why`): under
/// `CI=true` the test fails; elsewhere it says why it is skipped and
/// returns, and the test returns too.
///
/// # Panics
///
/// Under `CI=true`: that is how the test fails.
#[allow(clippy::panic)]
pub fn missing_service(service: &str, why: &str) {
    if under_ci() {
        panic!("{service} is needed under CI=true, and cannot be used: {why}");
    }
    eprintln!("skipped: {service} cannot be used ({why}); set up {service} or point the PARLOR_TEST_* variables at one");
}

/// A schema of its own in the test database, for one test: unique, so
/// tests running together never see each other's matches, and dropped
/// with everything in it when this is dropped. The store creates its
/// tables there ([`ScratchSchema::config`]).
#[derive(Debug)]
pub struct ScratchSchema {
    base: String,
    name: String,
}

impl ScratchSchema {
    /// A new schema in the test database; `None` (after
    /// [`missing_service`]) if PostgreSQL cannot be used.
    pub async fn new() -> Option<ScratchSchema> {
        match ScratchSchema::create(postgres_url()).await {
            Ok(s) => Some(s),
            Err(why) => {
                missing_service("PostgreSQL", &why);
                None
            }
        }
    }

    async fn create(base: String) -> Result<ScratchSchema, String> {
        if base.contains("options=") {
            return Err(format!("{base} sets options; the tests set their own"));
        }
        let name = format!("parlor_test_{}", &Uuid::new_v4().simple().to_string()[..16]);
        let client = connect(&base).await?;
        client
            .batch_execute(&format!("CREATE SCHEMA {name}"))
            .await
            .map_err(|e| format!("cannot create a schema in {base}: {}", with_causes(&e)))?;
        Ok(ScratchSchema { base, name })
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The URL of the test database with this schema as the search path
    /// (what `parlor-server --cluster` takes), its connections named
    /// after it so that they can be ended when it is dropped.
    pub fn url(&self) -> String {
        let sep = if self.base.contains('?') { '&' } else { '?' };
        format!(
            "{}{sep}options=-c%20search_path%3D{name}&application_name={name}",
            self.base,
            name = self.name
        )
    }

    /// Runs `sql` in this schema, as a test's own hand on the database
    /// (what a crash's recovery does to it, say).
    pub async fn execute(&self, sql: &str) -> Result<(), String> {
        connect(&self.url())
            .await?
            .batch_execute(sql)
            .await
            .map_err(|e| with_causes(&e))
    }

    /// Runs statement `sql` with `args` in this schema (`$1`...), as an
    /// operator would by hand; the rows it changed.
    pub async fn execute_with(&self, sql: &str, args: &[Arg]) -> Result<u64, String> {
        let boxed = pg_args(args);
        connect(&self.url())
            .await?
            .execute(sql, &pg_refs(&boxed))
            .await
            .map_err(|e| with_causes(&e))
    }

    /// A store in this schema.
    pub fn config(&self) -> StoreConfig {
        StoreConfig::Postgres {
            url: self.url(),
            node: crate::store::NodeSettings::default(),
        }
    }

    /// A store in this schema for a node whose lease is `lease` (short
    /// in tests, so that a node's loss is noticed soon).
    pub fn config_with_lease(&self, lease: Duration) -> StoreConfig {
        StoreConfig::Postgres {
            url: self.url(),
            node: crate::store::NodeSettings {
                lease,
                advertise: String::new(),
            },
        }
    }
}

async fn connect(url: &str) -> Result<tokio_postgres::Client, String> {
    let connecting = tokio_postgres::connect(url, NoTls);
    let (client, connection) = tokio::time::timeout(SERVICE_WAIT, connecting)
        .await
        .map_err(|_| format!("{url} did not answer within {SERVICE_WAIT:?}"))?
        .map_err(|e| format!("cannot connect to {url}: {}", with_causes(&e)))?;
    tokio::spawn(async move {
        // Ends when the client is dropped.
        let _ = connection.await;
    });
    Ok(client)
}

/// Ends every connection still working in the schema (a server the test
/// left running may be in the middle of a transaction, on a runtime that
/// is now blocked in this drop), then drops the schema.
async fn drop_schema(base: &str, name: &str) -> Result<(), String> {
    let client = connect(base).await?;
    client
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE application_name = $1 AND pid <> pg_backend_pid()",
            &[&name],
        )
        .await
        .map_err(|e| with_causes(&e))?;
    client
        .batch_execute(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
        .await
        .map_err(|e| with_causes(&e))
}

impl Drop for ScratchSchema {
    fn drop(&mut self) {
        let (base, name) = (self.base.clone(), self.name.clone());
        // Its own thread and runtime: the test's runtime may be the one
        // dropping this, and cannot be blocked on from inside.
        let dropped = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            rt.block_on(async {
                tokio::time::timeout(DROP_WAIT, drop_schema(&base, &name))
                    .await
                    .map_err(|_| format!("no answer within {DROP_WAIT:?}"))?
            })
        })
        .join();
        match dropped {
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("warning: schema {} was not dropped: {e}", self.name),
            Err(_) => eprintln!("warning: dropping schema {} panicked", self.name),
        }
    }
}

/// A two-seat Nimrod match on piles of 30 and 30 with a fixed seed, in
/// `room`: what the store's own tests make to have a match to write to.
pub fn nimrod_record(room: RoomId) -> MatchRecord {
    MatchRecord {
        room,
        header: MatchHeader {
            game: GameKind::Nimrod,
            options: serde_json::json!({"piles": [30, 30]}),
            seats: 2,
            seed: Some(7),
            deal: None,
            clock: None,
            rated: false,
            event: None,
            ladder: None,
            matched: None,
        },
        private: false,
        origin: Origin::default(),
    }
}
