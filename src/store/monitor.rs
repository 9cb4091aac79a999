//! Watching the database from outside the pool: one connection of its own, asked every
//! [`PROBE_EVERY`] whether the server answers. What it finds tells a busy pool from a lost
//! database (sqlx reports both as a pool timeout): while the probe is answered, a request that
//! found every connection of a full pool in use was refused for overload, not for an outage.

use sqlx::postgres::PgConnection;
use sqlx::{Connection, PgPool};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How often the database is asked.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);
/// How long a probe (connecting, then its query) may take before the database counts as not
/// answering.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// What the probe last found.
#[derive(Debug)]
pub struct DatabaseStatus {
    answering: AtomicBool,
}

impl Default for DatabaseStatus {
    /// Answering: the server starts on a database it has just reached.
    fn default() -> Self {
        Self {
            answering: AtomicBool::new(true),
        }
    }
}

impl DatabaseStatus {
    /// Whether the database answered the last probe.
    pub fn answering(&self) -> bool {
        self.answering.load(Ordering::Relaxed)
    }

    fn set(&self, answering: bool) {
        let was = self.answering.swap(answering, Ordering::Relaxed);
        match (was, answering) {
            (true, false) => tracing::warn!("the database stopped answering"),
            (false, true) => tracing::info!("the database answers again"),
            _ => {}
        }
    }
}

/// Asks the database behind `pool` every [`PROBE_EVERY`] until `stop` is cancelled, over a
/// connection of its own (opened again after any failure), and records the answer in `status`.
pub async fn watch(pool: PgPool, status: Arc<DatabaseStatus>, stop: CancellationToken) {
    let mut connection: Option<PgConnection> = None;
    loop {
        let answered = tokio::select! {
            answered = probe(&pool, &mut connection) => answered,
            _ = stop.cancelled() => return,
        };
        status.set(answered);
        tokio::select! {
            _ = tokio::time::sleep(PROBE_EVERY) => {}
            _ = stop.cancelled() => return,
        }
    }
}

/// One probe: connects if need be, then asks a trivial question. A connection that failed is
/// dropped, not closed politely: it is broken.
async fn probe(pool: &PgPool, connection: &mut Option<PgConnection>) -> bool {
    if connection.is_none() {
        let options = pool.connect_options();
        match tokio::time::timeout(PROBE_TIMEOUT, PgConnection::connect_with(&options)).await {
            Ok(Ok(opened)) => *connection = Some(opened),
            _ => return false,
        }
    }
    let Some(open) = connection.as_mut() else {
        return false;
    };
    let asked = tokio::time::timeout(
        PROBE_TIMEOUT,
        sqlx::query_scalar::<_, i32>("SELECT 1").fetch_one(open),
    )
    .await;
    let answered = matches!(asked, Ok(Ok(1)));
    if !answered {
        *connection = None;
    }
    answered
}
