//! PostgreSQL notification channels (`NOTIFY`): a note is delivered to the listeners when the
//! transaction that sends it commits, and not at all if it rolls back.

use sqlx::{PgConnection, PgExecutor};

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

/// Sends every payload on `channel` in one statement (delivered on commit; outside a
/// transaction, at once).
pub async fn notify_all<'e>(
    executor: impl PgExecutor<'e>,
    channel: &str,
    payloads: &[String],
) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT count(pg_notify($1, note)) FROM unnest($2::text[]) AS note")
        .bind(channel)
        .bind(payloads)
        .execute(executor)
        .await?;
    Ok(())
}

/// Lets this session's commits return before they are flushed. For a connection that only
/// sends notes: a note lost to a crash costs a resync, not data.
pub async fn commit_without_flush(conn: &mut PgConnection) -> Result<(), sqlx::Error> {
    sqlx::query("SET synchronous_commit = off")
        .execute(conn)
        .await?;
    Ok(())
}
