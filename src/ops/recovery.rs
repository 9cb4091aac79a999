//! Bringing the embedded database back by itself: a watchdog that notices when the private
//! cluster's postmaster has died (killed, crashed, out of memory) and starts it again with
//! backoff, and the state `/healthz` reads to tell a supervisor when the server has given up.
//!
//! The pools, the live listener, the mail listener and the publisher need nothing from here:
//! each already reconnects after an outage, and a restarted cluster is an outage that ended.
//! While the cluster is down, requests are answered 503 `database_unavailable`; once restarts
//! have failed for longer than `KONTOR_DB_RECOVERY_LIMIT_SECS`, `/healthz` answers 503
//! `database_lost` too, so that whatever watches liveness restarts the whole server (which
//! then reports what keeps the cluster from starting, at its start).

use crate::embedded_pg::EmbeddedPostgres;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How often the watchdog looks at the postmaster.
pub const WATCH_EVERY: Duration = Duration::from_millis(500);
/// The first wait after a failed restart; doubled after each further failure, up to
/// [`MOST_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MOST_BACKOFF: Duration = Duration::from_secs(5);

/// What the server knows of its own attempts to bring its database back.
#[derive(Debug)]
pub struct Recovery {
    /// How long restarts may fail before the server gives up (`KONTOR_DB_RECOVERY_LIMIT_SECS`).
    limit: Duration,
    /// Since when the database has been down and not yet brought back, with the last error.
    failing: Mutex<Option<(Instant, String)>>,
    restarts: AtomicU64,
    /// Whether giving up has been logged for this outage: once, at error, by the watchdog;
    /// `/healthz` probes that report it afterwards are not logged again.
    gave_up_logged: AtomicBool,
}

impl Recovery {
    pub fn new(limit: Duration) -> Self {
        Self {
            limit,
            failing: Mutex::new(None),
            restarts: AtomicU64::new(0),
            gave_up_logged: AtomicBool::new(false),
        }
    }

    /// Why the server cannot bring its database back by itself, once it has tried for longer
    /// than its limit; `None` while all is well or it is still trying.
    pub fn given_up(&self) -> Option<String> {
        let failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        let (since, error) = failing.as_ref()?;
        let down = since.elapsed();
        (down >= self.limit).then(|| {
            format!(
                "the embedded PostgreSQL has been down for {} s and could not be restarted \
                 (last error: {error}); restart the server",
                down.as_secs()
            )
        })
    }

    /// How many times the cluster was started again since the server started.
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }

    fn failed(&self, error: String) -> Duration {
        let mut failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        let since = failing
            .as_ref()
            .map_or_else(Instant::now, |(since, _)| *since);
        *failing = Some((since, error));
        since.elapsed()
    }

    /// True only the first time it is asked after the server has given up on this outage.
    fn newly_given_up(&self) -> bool {
        self.given_up().is_some() && !self.gave_up_logged.swap(true, Ordering::Relaxed)
    }

    fn recovered(&self) -> Option<Duration> {
        self.gave_up_logged.store(false, Ordering::Relaxed);
        let mut failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        failing.take().map(|(since, _)| since.elapsed())
    }
}

/// Watches the embedded cluster until `stop` is cancelled: each [`WATCH_EVERY`], if its
/// postmaster is gone, starts it again (and again, with backoff, while that fails). Each
/// restart is logged and counted (`kontor_db_restarts_total`).
pub async fn watch_embedded(
    pg: Arc<EmbeddedPostgres>,
    recovery: Arc<Recovery>,
    stop: CancellationToken,
) {
    let mut backoff = FIRST_BACKOFF;
    loop {
        let wait = if pg.postmaster_alive() {
            backoff = FIRST_BACKOFF;
            WATCH_EVERY
        } else {
            restart(&pg, &recovery, &mut backoff, &stop).await
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = stop.cancelled() => return,
        }
    }
}

/// One attempt to start the dead cluster again; how long to wait before the next look.
async fn restart(
    pg: &Arc<EmbeddedPostgres>,
    recovery: &Recovery,
    backoff: &mut Duration,
    stop: &CancellationToken,
) -> Duration {
    if stop.is_cancelled() {
        return Duration::ZERO;
    }
    if recovery.failing.lock().map(|f| f.is_none()).unwrap_or(true) {
        tracing::warn!("the embedded PostgreSQL's postmaster is gone; starting it again");
    }
    let starting = pg.clone();
    let started = tokio::task::spawn_blocking(move || starting.restart_if_down()).await;
    let outcome = match started {
        Ok(outcome) => outcome,
        Err(error) => Err(anyhow::anyhow!("the restart's task failed: {error}")),
    };
    match outcome {
        Ok(started) => {
            let down = recovery.recovered().unwrap_or_default();
            if started {
                recovery.restarts.fetch_add(1, Ordering::Relaxed);
                metrics::counter!(crate::telemetry::names::DB_RESTARTS).increment(1);
                tracing::warn!(
                    down_ms = down.as_millis() as u64,
                    restarts = recovery.restarts(),
                    "the embedded PostgreSQL was started again; connections come back by themselves"
                );
            }
            *backoff = FIRST_BACKOFF;
            WATCH_EVERY
        }
        Err(error) => {
            let error = format!("{error:#}");
            let down = recovery.failed(error.clone());
            tracing::warn!(
                %error,
                down_ms = down.as_millis() as u64,
                retry_in_ms = backoff.as_millis() as u64,
                "the embedded PostgreSQL could not be started again; trying again"
            );
            if recovery.newly_given_up() {
                tracing::error!(
                    %error,
                    down_ms = down.as_millis() as u64,
                    "the embedded PostgreSQL stays down past KONTOR_DB_RECOVERY_LIMIT_SECS; \
                     /healthz now answers 503 database_lost so that a supervisor restarts the server"
                );
            }
            let wait = *backoff;
            *backoff = (*backoff * 2).min(MOST_BACKOFF);
            wait
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_gives_up_only_after_its_limit() {
        let recovery = Recovery::new(Duration::from_secs(3600));
        assert_eq!(recovery.given_up(), None);
        recovery.failed("the shared memory is still in use".into());
        assert_eq!(recovery.given_up(), None, "still within the limit");
        let recovery = Recovery::new(Duration::ZERO);
        recovery.failed("no space left on device".into());
        let reason = recovery.given_up().expect("past the limit");
        assert!(reason.contains("no space left on device"), "{reason}");
        assert!(recovery.newly_given_up(), "giving up is logged once");
        assert!(
            !recovery.newly_given_up(),
            "and not again for the same outage"
        );
        recovery.recovered();
        assert_eq!(recovery.given_up(), None, "back up");
        recovery.failed("the disk is gone".into());
        assert!(recovery.newly_given_up(), "a later outage is logged again");
    }
}
