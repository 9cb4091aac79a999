//! What the readiness probe asks of the database: is it reachable, and has every migration
//! this binary knows been applied?

use sqlx::PgPool;

/// The migrations of this binary that the database has not (successfully) applied, by
/// version; empty when the schema is current. One indexed read of `_sqlx_migrations` (a
/// few dozen rows), cheap enough for a probe every second. An error means the database
/// could not be asked (unreachable, or not yet migrated at all).
pub async fn pending_migrations(pool: &PgPool) -> Result<Vec<i64>, sqlx::Error> {
    let applied: Vec<i64> =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
            .fetch_all(pool)
            .await?;
    Ok(super::MIGRATOR
        .iter()
        .filter(|m| m.migration_type.is_up_migration())
        .map(|m| m.version)
        .filter(|v| applied.binary_search(v).is_err())
        .collect())
}

/// Whether an error (or any error it wraps) says the database cannot be reached: no
/// connection within the acquire timeout, a broken or refused connection, or a server that
/// is shutting down or starting up. Such failures are transient, unlike a failing query.
pub fn database_unreachable(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<sqlx::Error>())
        .any(|error| match error {
            sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Io(_)
            | sqlx::Error::Tls(_) => true,
            // Class 08: connection exceptions; 57P01-57P03: the server is shutting down,
            // crashed, or not accepting connections yet; 25006: a write refused as read-only
            // (the server is a standby now: the primary moved, see `store::primary`).
            sqlx::Error::Database(db) => db.code().is_some_and(|code| {
                code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03" | "25006")
            }),
            // A connection refused by the check after connecting: it landed on a standby.
            sqlx::Error::Protocol(message) => message == super::primary::ON_A_STANDBY,
            _ => false,
        })
}

/// Whether an error says only that no connection came free within the acquire timeout while
/// every connection `pool` may open was open: all of them in use, so the database answers and
/// the server is busy (overload), rather than unreachable. While the database is down its
/// connections break and are dropped, and new ones fail to open, so the pool is not full then.
/// (A database that hangs with every connection open reads as busy too; it is, to a client.)
pub fn pool_exhausted(error: &anyhow::Error, pool: &PgPool) -> bool {
    timed_out(error) && !pool.is_closed() && pool.size() >= pool.options().get_max_connections()
}

/// [`pool_exhausted`], and the database answered its last probe (see `store::monitor`): under
/// load during an outage, connections being opened count in the pool's size too, so a full
/// pool alone does not tell a busy database from a lost one.
pub fn overloaded(
    error: &anyhow::Error,
    pool: &PgPool,
    status: &super::monitor::DatabaseStatus,
) -> bool {
    status.answering() && pool_exhausted(error, pool)
}

/// Whether the error is (or wraps) a pool timeout.
fn timed_out(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<sqlx::Error>())
        .any(|error| matches!(error, sqlx::Error::PoolTimedOut))
}

/// How often a busy pool is logged, at most: one line per interval says it is (with how many
/// times since the last line), rather than one per request refused.
pub const OVERLOAD_LOG_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Logs, as a warning and at most once per [`OVERLOAD_LOG_EVERY`] in this process, that
/// `what` (requests, a worker) found every database connection busy.
pub fn warn_overloaded(what: &str, cause: &anyhow::Error) {
    use std::sync::Mutex;
    use std::time::Instant;
    static LAST: Mutex<Option<(Instant, u64)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    match &mut *last {
        Some((at, since)) if at.elapsed() < OVERLOAD_LOG_EVERY => *since += 1,
        _ => {
            let since = last.map_or(0, |(_, since)| since);
            *last = Some((Instant::now(), 0));
            tracing::warn!(
                what,
                error = %cause,
                also_since_last_line = since,
                "overloaded: every database connection stayed busy for the whole acquire \
                 timeout (KONTOR_DB_ACQUIRE_TIMEOUT_MS); answered 503 overloaded"
            );
        }
    }
}

/// Logs a worker's failed pass as what it was: a busy pool while the database answers (a
/// warning, at most once per interval, as for requests), a database that cannot be reached (a
/// warning: the worker tries again), or any other failure (an error).
pub fn log_worker_failure(
    worker: &'static str,
    error: &anyhow::Error,
    pool: &PgPool,
    status: &super::monitor::DatabaseStatus,
) {
    if overloaded(error, pool, status) {
        warn_overloaded(worker, error);
    } else if database_unreachable(error) || timed_out(error) {
        tracing::warn!(worker, error = %error, "the database cannot be reached; trying again");
    } else {
        tracing::error!(worker, error = ?error, "a worker's pass failed; trying again");
    }
}
