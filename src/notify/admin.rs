//! For operators: the mails that failed for good, and sending them again (used by
//! `kontor mail failed|retry` and the admin endpoints).

use crate::store::{channels, outbox};
use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

/// A mail that failed for good.
#[derive(Clone, Debug, Serialize, ToSchema)]
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

impl From<outbox::FailedRow> for FailedMail {
    fn from(row: outbox::FailedRow) -> Self {
        Self {
            id: row.id,
            user_id: row.user_id,
            username: row.username,
            email: row.email,
            kind: row.kind,
            game_id: row.game_id,
            attempts: row.attempts,
            last_error: row.last_error,
            created_at: row.created_at,
            failed_at: row.failed_at,
        }
    }
}

/// Failed mails, the most recent first.
pub async fn list_failed(pool: &PgPool, limit: i64) -> sqlx::Result<Vec<FailedMail>> {
    let rows = outbox::list_failed(pool, limit).await?;
    Ok(rows.into_iter().map(FailedMail::from).collect())
}

/// Sends a failed mail again: due now, with a fresh set of attempts. Returns whether there
/// was a failed mail with this id.
pub async fn retry(pool: &PgPool, id: Uuid) -> sqlx::Result<bool> {
    let done = outbox::retry_failed(pool, id).await?;
    notify(pool, u64::from(done)).await?;
    Ok(done)
}

/// Sends every failed mail again; returns how many.
pub async fn retry_all(pool: &PgPool) -> sqlx::Result<u64> {
    let done = outbox::retry_all_failed(pool).await?;
    notify(pool, done).await?;
    Ok(done)
}

async fn notify(pool: &PgPool, changed: u64) -> sqlx::Result<()> {
    if changed > 0 {
        channels::notify(pool, super::CHANNEL, "").await?;
    }
    Ok(())
}
