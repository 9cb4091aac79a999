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
            // crashed, or not accepting connections yet.
            sqlx::Error::Database(db) => db.code().is_some_and(|code| {
                code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03")
            }),
            _ => false,
        })
}
