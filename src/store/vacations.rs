//! Users' vacations: while one runs, the user's turn clocks stand still.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// Seconds of the user's vacations that fall between `from` and `to`.
pub async fn seconds_between<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<f64, sqlx::Error> {
    let seconds: Option<f64> = sqlx::query_scalar(
        "SELECT sum(extract(epoch FROM least(ends_at, $3) - greatest(starts_at, $2)))::float8
           FROM vacations WHERE user_id = $1 AND ends_at > $2 AND starts_at < $3",
    )
    .bind(user_id)
    .bind(from)
    .bind(to)
    .fetch_one(executor)
    .await?;
    Ok(seconds.unwrap_or(0.0))
}

/// The user's current vacation (its start and end), if one runs now.
pub async fn current<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<Option<(DateTime<Utc>, DateTime<Utc>)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT starts_at, ends_at FROM vacations
          WHERE user_id = $1 AND starts_at <= now() AND ends_at > now()",
    )
    .bind(user_id)
    .fetch_optional(executor)
    .await
}

/// Records a vacation.
pub async fn insert(
    conn: &mut PgConnection,
    user_id: Uuid,
    starts_at: DateTime<Utc>,
    ends_at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO vacations (user_id, starts_at, ends_at) VALUES ($1, $2, $3)")
        .bind(user_id)
        .bind(starts_at)
        .bind(ends_at)
        .execute(conn)
        .await?;
    Ok(())
}

/// Moves the end of the user's vacation that started at `starts_at` to `ends_at`.
pub async fn set_end(
    conn: &mut PgConnection,
    user_id: Uuid,
    starts_at: DateTime<Utc>,
    ends_at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE vacations SET ends_at = $3 WHERE user_id = $1 AND starts_at = $2")
        .bind(user_id)
        .bind(starts_at)
        .bind(ends_at)
        .execute(conn)
        .await?;
    Ok(())
}

/// Every vacation of the user (start, end), oldest first: for the user's data export.
pub async fn all_of<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<Vec<(DateTime<Utc>, DateTime<Utc>)>, sqlx::Error> {
    sqlx::query_as("SELECT starts_at, ends_at FROM vacations WHERE user_id = $1 ORDER BY starts_at")
        .bind(user_id)
        .fetch_all(executor)
        .await
}
