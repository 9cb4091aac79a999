//! PostgreSQL notification channels (`NOTIFY`): a note is delivered to the listeners when the
//! transaction that sends it commits, and not at all if it rolls back.

use sqlx::PgExecutor;

/// Sends `payload` on `channel` (delivered on commit).
pub async fn notify<'e>(
    executor: impl PgExecutor<'e>,
    channel: &str,
    payload: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(channel)
        .bind(payload)
        .execute(executor)
        .await?;
    Ok(())
}
