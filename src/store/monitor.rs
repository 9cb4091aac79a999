//! Watching the database from outside the pool: one connection of its own, asked every
//! [`PROBE_EVERY`] (and at once when a request finds the database away) whether the server
//! answers and takes writes. What it finds
//! - tells a busy pool from a lost database (sqlx reports both as a pool timeout): while the
//!   probe is answered, a request that found every connection of a full pool in use was
//!   refused for overload, not for an outage;
//! - with several servers listed (`KONTOR_DATABASE_URL`, see `store::primary`), finds the
//!   primary again when the one the pool is on stops answering or turns standby, and re-points
//!   the pool at it (the live listener, the mail listener and the publisher draw on that pool
//!   and follow: each reconnects after a lost connection);
//! - is counted: failovers seen, and how long the server has been without a primary.

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{Connection, PgPool};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How often the database is asked.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);
/// The least time between two probes when requests keep waking the monitor (see
/// [`DatabaseStatus::nudge`]).
const LEAST_GAP: Duration = Duration::from_millis(100);
/// How long a probe (connecting, then its query) may take before the database counts as not
/// answering.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// What the probe last found.
#[derive(Debug)]
pub struct DatabaseStatus {
    answering: AtomicBool,
    failovers: AtomicU64,
    /// Since when no server that takes writes has answered; `None` while one does.
    without_primary: Mutex<Option<Instant>>,
    /// Wakes the monitor before its next probe is due.
    wake: tokio::sync::Notify,
}

impl Default for DatabaseStatus {
    /// Answering: the server starts on a database it has just reached.
    fn default() -> Self {
        Self {
            answering: AtomicBool::new(true),
            failovers: AtomicU64::new(0),
            without_primary: Mutex::new(None),
            wake: tokio::sync::Notify::new(),
        }
    }
}

impl DatabaseStatus {
    /// Whether the database answered the last probe, as a primary.
    pub fn answering(&self) -> bool {
        self.answering.load(Ordering::Relaxed)
    }

    /// How many times the pool was re-pointed at another server since the start.
    pub fn failovers(&self) -> u64 {
        self.failovers.load(Ordering::Relaxed)
    }

    /// Asks the monitor to look now (at most every 100 ms): a request found the database
    /// unreachable, or a write was refused as read-only, so the primary may have moved.
    pub fn nudge(&self) {
        self.wake.notify_one();
    }

    fn set(&self, answering: bool) {
        let was = self.answering.swap(answering, Ordering::Relaxed);
        let mut without = self
            .without_primary
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        match (was, answering) {
            (true, false) => {
                tracing::warn!("the database stopped answering as a primary");
                *without = Some(Instant::now());
            }
            (false, true) => {
                let down = without
                    .take()
                    .map(|since| since.elapsed())
                    .unwrap_or_default();
                tracing::info!(
                    without_primary_ms = down.as_millis() as u64,
                    "the database answers again as a primary"
                );
            }
            (false, false) if without.is_none() => *without = Some(Instant::now()),
            _ => {}
        }
        let seconds = without.map_or(0.0, |since| since.elapsed().as_secs_f64());
        metrics::gauge!(crate::telemetry::names::DB_WITHOUT_PRIMARY).set(seconds);
    }
}

/// Asks the database behind `pool` every [`PROBE_EVERY`] until `stop` is cancelled, over a
/// connection of its own (opened again after any failure), and records the answer in `status`.
/// With several `candidates` (the servers listed), a pool whose server no longer answers as a
/// primary is re-pointed at the one that does, once one does.
pub async fn watch(
    pool: PgPool,
    status: Arc<DatabaseStatus>,
    candidates: Vec<PgConnectOptions>,
    stop: CancellationToken,
) {
    let mut connection: Option<PgConnection> = None;
    loop {
        let looked = async {
            let mut primary = probe(&pool, &mut connection).await == Some(true);
            if !primary && candidates.len() > 1 {
                primary = follow(&pool, &candidates, &status).await;
                connection = None;
            }
            primary
        };
        let primary = tokio::select! {
            primary = looked => primary,
            _ = stop.cancelled() => return,
        };
        status.set(primary);
        tokio::select! {
            _ = tokio::time::sleep(PROBE_EVERY) => {}
            _ = status.wake.notified() => {
                tokio::select! {
                    _ = tokio::time::sleep(LEAST_GAP) => {}
                    _ = stop.cancelled() => return,
                }
            }
            _ = stop.cancelled() => return,
        }
    }
}

/// Looks for the primary among `candidates` and points `pool` at it if it is not there
/// already; whether one was found.
async fn follow(pool: &PgPool, candidates: &[PgConnectOptions], status: &DatabaseStatus) -> bool {
    let Some(found) = super::primary::find(candidates).await else {
        return false;
    };
    let target = &candidates[found];
    if !same_server(&pool.connect_options(), target) {
        // Counted first: whoever sees the pool on the new primary sees the failover counted.
        let failovers = status.failovers.fetch_add(1, Ordering::Relaxed) + 1;
        pool.set_connect_options(target.clone());
        metrics::counter!(crate::telemetry::names::DB_FAILOVERS).increment(1);
        tracing::warn!(
            address = found + 1,
            host = target.get_host(),
            port = target.get_port(),
            failovers,
            "the primary moved: the pool now connects to address {} of KONTOR_DATABASE_URL",
            found + 1
        );
    }
    true
}

fn same_server(a: &PgConnectOptions, b: &PgConnectOptions) -> bool {
    a.get_host() == b.get_host() && a.get_port() == b.get_port() && a.get_socket() == b.get_socket()
}

/// One probe: connects if need be, then asks whether the server takes writes. `None` when it
/// does not answer.
async fn probe(pool: &PgPool, connection: &mut Option<PgConnection>) -> Option<bool> {
    let options = pool.connect_options();
    ask_kept(
        &options,
        connection,
        super::primary::TAKES_WRITES,
        PROBE_TIMEOUT,
    )
    .await
}

/// Asks `question` (one value) over `connection`, a connection kept from one probe to the
/// next and opened on `options` if there is none. `None` when the server does not answer
/// within `timeout`; a connection that failed is then dropped (not closed politely: it is
/// broken), to be opened again at the next probe.
pub(super) async fn ask_kept<T>(
    options: &PgConnectOptions,
    connection: &mut Option<PgConnection>,
    question: &'static str,
    timeout: Duration,
) -> Option<T>
where
    T: for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres> + Send + Unpin,
{
    if connection.is_none() {
        match tokio::time::timeout(timeout, PgConnection::connect_with(options)).await {
            Ok(Ok(opened)) => *connection = Some(opened),
            _ => return None,
        }
    }
    let open = connection.as_mut()?;
    let asked = sqlx::query_scalar::<_, T>(question).fetch_one(open);
    match tokio::time::timeout(timeout, asked).await {
        Ok(Ok(answer)) => Some(answer),
        _ => {
            *connection = None;
            None
        }
    }
}
