//! For operators: the mails that failed for good, and sending them again (used by
//! `kontor mail failed|retry` and the admin endpoints).

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

/// A mail that failed for good.
#[derive(Clone, Debug, Serialize, ToSchema, sqlx::FromRow)]
#[schema(example = json!({
    "id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d",
    "user_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3e",
    "username": "anna",
    "email": "anna@example.org",
    "kind": "your_turn",
    "game_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3f",
    "attempts": 8,
    "last_error": "SMTP: permanent error (550): mailbox unavailable",
    "created_at": "2026-11-29T12:00:00Z",
    "failed_at": "2026-11-29T18:02:11Z"
}))]
pub struct FailedMail {
    pub id: Uuid,
    pub user_id: Uuid,
    pub username: String,
    pub email: String,
    /// `your_turn`, `reminder`, `invited`, `game_started`, `game_over` or `digest`.
    pub kind: String,
    pub game_id: Option<Uuid>,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub failed_at: DateTime<Utc>,
}

/// Failed mails, the most recent first.
pub async fn list_failed(pool: &PgPool, limit: i64) -> sqlx::Result<Vec<FailedMail>> {
    sqlx::query_as(
        "SELECT o.id, o.user_id, u.username, u.email, o.kind, o.game_id, o.attempts,
                o.last_error, o.created_at, o.updated_at AS failed_at
           FROM mail_outbox o JOIN users u ON u.id = o.user_id
          WHERE o.status = 'failed'
          ORDER BY o.updated_at DESC, o.id
          LIMIT $1",
    )
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Sends a failed mail again: due now, with a fresh set of attempts. Returns whether there
/// was a failed mail with this id.
pub async fn retry(pool: &PgPool, id: Uuid) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE mail_outbox
            SET status = 'pending', attempts = 0, next_attempt_at = now(), updated_at = now()
          WHERE id = $1 AND status = 'failed'",
    )
    .bind(id)
    .execute(pool)
    .await?
    .rows_affected();
    notify(pool, done).await?;
    Ok(done == 1)
}

/// Sends every failed mail again; returns how many.
pub async fn retry_all(pool: &PgPool) -> sqlx::Result<u64> {
    let done = sqlx::query(
        "UPDATE mail_outbox
            SET status = 'pending', attempts = 0, next_attempt_at = now(), updated_at = now()
          WHERE status = 'failed'",
    )
    .execute(pool)
    .await?
    .rows_affected();
    notify(pool, done).await?;
    Ok(done)
}

async fn notify(pool: &PgPool, changed: u64) -> sqlx::Result<()> {
    if changed > 0 {
        sqlx::query("SELECT pg_notify($1, '')")
            .bind(super::CHANNEL)
            .execute(pool)
            .await?;
    }
    Ok(())
}
