//! The metrics as an operator reads them: the label values known in advance (for the series
//! registered at zero), and a scrape, which samples what is read rather than counted (the
//! mail and the clocks due, from the database; the pool's connections) before rendering.

use crate::service::notices::MailKind;
use crate::telemetry::{self, KnownLabels};
use crate::{games::GameKind, store};
use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// The game kinds and the mail kinds the outbox holds, as the counters label them.
pub fn known_labels() -> KnownLabels {
    KnownLabels {
        game_kinds: GameKind::ALL.map(GameKind::as_str).to_vec(),
        mail_kinds: MailKind::all().map(MailKind::as_str).collect(),
        fallback_reasons: crate::store::replica::Fallback::ALL
            .map(crate::store::replica::Fallback::as_str)
            .to_vec(),
    }
}

/// Samples the gauges that are read rather than counted (the pool's connections; the mail
/// and the clocks due at `now`, by query) and renders every metric. A query that fails (the
/// database is away) leaves its gauges as they were; the rest is rendered all the same.
pub async fn scrape(pool: &PgPool, now: DateTime<Utc>) -> String {
    if crate::telemetry::handle().is_none() {
        return String::new();
    }
    // The gauges are the process's: two scrapes at once (two servers in one process, as in
    // the tests) must not render each other's samples.
    static SCRAPING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _one_at_a_time = SCRAPING.lock().await;
    let (outbox, deadlines) = tokio::join!(
        store::outbox::due_summary(pool, now),
        store::deadlines::count_due(pool, now),
    );
    match outbox {
        Ok(due) => {
            metrics::gauge!(telemetry::names::OUTBOX_DUE).set(due.count as f64);
            metrics::gauge!(telemetry::names::OLDEST_DUE_AGE).set(due.oldest_age_secs.max(0.0));
        }
        Err(error) => tracing::warn!(%error, "metrics: the mail due cannot be counted"),
    }
    match deadlines {
        Ok(due) => metrics::gauge!(telemetry::names::DEADLINES_DUE).set(due as f64),
        Err(error) => tracing::warn!(%error, "metrics: the clocks due cannot be counted"),
    }
    let idle = pool.num_idle() as f64;
    let size = f64::from(pool.size());
    metrics::gauge!(telemetry::names::POOL_CONNECTIONS, "state" => "idle").set(idle);
    metrics::gauge!(telemetry::names::POOL_CONNECTIONS, "state" => "used")
        .set((size - idle).max(0.0));
    crate::telemetry::render()
}
