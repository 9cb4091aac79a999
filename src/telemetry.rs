//! Metrics in Prometheus's text format (`/metrics`, see `http::metrics`).
//!
//! The code that does a thing counts it where it happens, through the `metrics` crate's
//! macros (`metrics::counter!(names::ACTIONS_APPENDED, ..)`); those cost nothing while no
//! recorder is installed, which is the case unless the configuration serves metrics
//! (`KONTOR_METRICS_BIND` or `KONTOR_METRICS_TOKEN`). The recorder is the process's
//! (`metrics` has one global recorder), installed by the first server that needs it.
//!
//! Gauges that need a query (mail due, deadlines due) are sampled when scraped, not per
//! request; the pool's and the streams' are read from memory. Those read from the database
//! are the database's, not this instance's: every instance reports the same value, so they
//! are aggregated with `max`, never summed (their descriptions say so too).
//!
//! Every series whose labels are known in advance is registered at install, at zero, so that
//! it is there from the first scrape (an alert on `kontor_mails_failed_total` needs no
//! `or vector(0)`); only the requests' series, one per route, method and status seen, come
//! as they happen. `kontor_build_info` names the version and commit, and the process's own
//! metrics (CPU, memory, open files, threads) come from `metrics-process`.

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The names of every metric, in one place.
pub mod names {
    pub const HTTP_REQUESTS: &str = "kontor_http_requests_total";
    pub const HTTP_DURATION: &str = "kontor_http_request_duration_seconds";
    pub const ACTIONS_APPENDED: &str = "kontor_actions_appended_total";
    pub const BATCH_SIZE: &str = "kontor_group_commit_batch_size";
    pub const TIMEOUTS_APPLIED: &str = "kontor_timeouts_applied_total";
    pub const DEADLINES_DUE: &str = "kontor_deadlines_due";
    pub const POOL_CONNECTIONS: &str = "kontor_db_pool_connections";
    pub const POOL_ACQUIRE_WAIT: &str = "kontor_db_pool_acquire_wait_seconds";
    pub const DB_UNAVAILABLE: &str = "kontor_db_unavailable_total";
    pub const DB_OVERLOADED: &str = "kontor_db_overloaded_total";
    pub const DB_RESTARTS: &str = "kontor_db_restarts_total";
    pub const DB_FAILOVERS: &str = "kontor_db_failovers_total";
    pub const DB_WITHOUT_PRIMARY: &str = "kontor_db_without_primary_seconds";
    pub const REPLICA_READS: &str = "kontor_replica_reads_total";
    pub const REPLICA_FALLBACKS: &str = "kontor_replica_fallbacks_total";
    pub const REPLICA_LAG: &str = "kontor_replica_lag_seconds";
    pub const LIVE_STREAMS: &str = "kontor_live_streams_open";
    pub const LIVE_FEED_READS: &str = "kontor_live_feed_reads_total";
    pub const OUTBOX_DUE: &str = "kontor_mail_outbox_due";
    pub const OLDEST_DUE_AGE: &str = "kontor_mail_oldest_due_age_seconds";
    pub const MAILS_SENT: &str = "kontor_mails_sent_total";
    pub const MAILS_FAILED: &str = "kontor_mails_failed_total";
    pub const BUILD_INFO: &str = "kontor_build_info";
}

/// The commit the binary was built from (set by `build.rs`), or `unknown`.
pub const COMMIT: &str = env!("KONTOR_BUILD_COMMIT");

/// Buckets of the latency histograms, in seconds.
const SECONDS_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// Buckets of the group commit's batch sizes (at most 64 appends a statement).
const BATCH_BUCKETS: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];

/// How often the recorder folds its histograms' samples (unscraped, they would pile up).
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the process's recorder once; `None` if another recorder was installed first (by
/// a program embedding the library), whose metrics this server then cannot render.
pub fn install(known: &KnownLabels) -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
                .and_then(|b| {
                    b.set_buckets_for_metric(Matcher::Full(names::BATCH_SIZE.into()), BATCH_BUCKETS)
                })
                .expect("the buckets are not empty")
                .build_recorder();
            let handle = recorder.handle();
            match metrics::set_global_recorder(recorder) {
                Ok(()) => {
                    describe();
                    register_known_series(known);
                    Some(handle)
                }
                Err(error) => {
                    tracing::warn!(%error, "another metrics recorder is installed: /metrics stays empty");
                    None
                }
            }
        })
        .as_ref()
}

/// The installed recorder's handle, if [`install`] has run and succeeded.
pub fn handle() -> Option<&'static PrometheusHandle> {
    HANDLE.get().and_then(Option::as_ref)
}

fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        names::HTTP_REQUESTS,
        "HTTP requests answered, by route pattern, method and status."
    );
    describe_histogram!(
        names::HTTP_DURATION,
        Unit::Seconds,
        "Time to the response's head, by route pattern."
    );
    describe_counter!(
        names::ACTIONS_APPENDED,
        "Commands appended to game logs (players' actions, timeouts, bot moves), by game kind."
    );
    describe_histogram!(
        names::BATCH_SIZE,
        "Appends written together in one statement by the group committer."
    );
    describe_counter!(
        names::TIMEOUTS_APPLIED,
        "Turns whose time ran out and whose timeout policy was played."
    );
    describe_gauge!(
        names::DEADLINES_DUE,
        "Clocks (turns, bot moves, rules timers) due now and not yet handled. The database's: \
         every instance reports the same value; aggregate with max, not sum."
    );
    describe_gauge!(
        names::POOL_CONNECTIONS,
        "Database connections of this server's pool, by state (idle, used)."
    );
    describe_histogram!(
        names::POOL_ACQUIRE_WAIT,
        Unit::Seconds,
        "Time the group committer waited for a database connection."
    );
    describe_counter!(
        names::DB_UNAVAILABLE,
        "Requests answered 503 database_unavailable: the database could not be reached."
    );
    describe_counter!(
        names::DB_OVERLOADED,
        "Requests answered 503 overloaded: the database answers, but every connection of the \
         pool stayed busy for the whole acquire timeout."
    );
    describe_counter!(
        names::DB_FAILOVERS,
        "Times the pool was re-pointed at another of the listed servers, the new primary."
    );
    describe_gauge!(
        names::DB_WITHOUT_PRIMARY,
        Unit::Seconds,
        "How long no database server that takes writes has answered this server's probe (0 \
         while one does)."
    );
    describe_counter!(
        names::REPLICA_READS,
        "Reads answered by a read replica (KONTOR_REPLICA_URLS), by kind of read."
    );
    describe_counter!(
        names::REPLICA_FALLBACKS,
        "Reads that could have gone to a read replica and went to the primary, by reason: \
         own_write, lagging, unreachable, failed, refused."
    );
    describe_gauge!(
        names::REPLICA_LAG,
        Unit::Seconds,
        "How far each read replica is behind the primary, by replica (its place in \
         KONTOR_REPLICA_URLS, from 1): the time since the latest primary position it has \
         replayed (an upper bound, within 0.25 s)."
    );
    describe_counter!(
        names::DB_RESTARTS,
        "Times the embedded PostgreSQL was started again after its postmaster died."
    );
    describe_counter!(
        names::LIVE_FEED_READS,
        "Readings of a game shared by its live streams on this server (one per game and change)."
    );
    describe_gauge!(
        names::LIVE_STREAMS,
        "Live streams open on this server, by kind (game, user)."
    );
    describe_gauge!(
        names::OUTBOX_DUE,
        "Mails due for delivery now. The database's: every instance reports the same value; \
         aggregate with max, not sum."
    );
    describe_gauge!(
        names::OLDEST_DUE_AGE,
        Unit::Seconds,
        "How long the oldest due mail has been due (0 when none is). The database's: every \
         instance reports the same value; aggregate with max, not sum."
    );
    describe_counter!(names::MAILS_SENT, "Mails delivered, by notice kind.");
    describe_counter!(
        names::MAILS_FAILED,
        "Failed delivery attempts, by notice kind; final=\"true\" for mails given up on."
    );
    describe_gauge!(
        names::BUILD_INFO,
        "Always 1; the labels name this binary's version and the commit it was built from."
    );
}

/// The label values known in advance (the game kinds, the mail kinds), for the series
/// registered at zero when the recorder is installed.
pub struct KnownLabels {
    pub game_kinds: Vec<&'static str>,
    pub mail_kinds: Vec<&'static str>,
    /// Why a read went to the primary rather than a replica.
    pub fallback_reasons: Vec<&'static str>,
}

/// Creates every series whose labels are known in advance, at zero (see the module
/// documentation), the build's information, and the process collector's series.
fn register_known_series(known: &KnownLabels) {
    for &kind in &known.game_kinds {
        metrics::counter!(names::ACTIONS_APPENDED, "kind" => kind).increment(0);
    }
    for &kind in &known.mail_kinds {
        metrics::counter!(names::MAILS_SENT, "kind" => kind).increment(0);
        for last in ["true", "false"] {
            metrics::counter!(names::MAILS_FAILED, "kind" => kind, "final" => last).increment(0);
        }
    }
    for kind in ["game", "user"] {
        metrics::gauge!(names::LIVE_STREAMS, "kind" => kind).increment(0.0);
    }
    for name in [
        names::TIMEOUTS_APPLIED,
        names::DB_UNAVAILABLE,
        names::DB_OVERLOADED,
        names::DB_RESTARTS,
        names::DB_FAILOVERS,
        names::LIVE_FEED_READS,
    ] {
        metrics::counter!(name).increment(0);
    }
    // The pool's gauges and those read from the database are set by every scrape before it
    // renders (absent only while the database cannot be asked: a zero would say "nothing due").
    // A histogram with no sample yet renders as zero counts in every bucket.
    for name in [names::BATCH_SIZE, names::POOL_ACQUIRE_WAIT] {
        let _ = metrics::histogram!(name);
    }
    metrics::gauge!(names::DB_WITHOUT_PRIMARY).set(0.0);
    for &why in &known.fallback_reasons {
        metrics::counter!(names::REPLICA_FALLBACKS, "reason" => why).increment(0);
    }
    metrics::gauge!(
        names::BUILD_INFO,
        "version" => env!("CARGO_PKG_VERSION"),
        "commit" => COMMIT,
    )
    .set(1.0);
    process_collector().describe();
}

/// The process's own metrics (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
/// `process_open_fds`, `process_threads`, …), read when scraped.
fn process_collector() -> &'static metrics_process::Collector {
    static COLLECTOR: OnceLock<metrics_process::Collector> = OnceLock::new();
    COLLECTOR.get_or_init(metrics_process::Collector::default)
}

/// Counts one answered request.
pub fn http_request(route: &str, method: &'static str, status: u16, seconds: f64) {
    metrics::counter!(
        names::HTTP_REQUESTS,
        "route" => route.to_string(),
        "method" => method,
        "status" => status.to_string(),
    )
    .increment(1);
    metrics::histogram!(names::HTTP_DURATION, "route" => route.to_string()).record(seconds);
}

/// Folds the histograms' samples every few seconds until `stop` (a worker of the server).
pub async fn upkeep(stop: CancellationToken) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(UPKEEP_EVERY) => {}
            _ = stop.cancelled() => return,
        }
        if let Some(handle) = handle() {
            handle.run_upkeep();
        }
    }
}

/// Renders every metric, with the process's own read now; empty when no recorder is installed.
/// The caller samples the gauges read from elsewhere first (`ops::metrics::scrape`).
pub fn render() -> String {
    let Some(handle) = handle() else {
        return String::new();
    };
    process_collector().collect();
    handle.render()
}
