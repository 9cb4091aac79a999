//! The players' calendar feeds (`calendar_feeds`): at most one per account, found by the
//! SHA-256 of its token (`auth::token_hash`), never by the token itself.

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;
use uuid::Uuid;

/// Makes the feed with `token_hash` `user_id`'s: an earlier feed of theirs is replaced, so
/// its URL stops working in the same statement.
pub async fn replace<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    token_hash: &[u8],
    now: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO calendar_feeds (user_id, token_hash, created_at) VALUES ($1, $2, $3)
         ON CONFLICT (user_id) DO UPDATE
            SET token_hash = EXCLUDED.token_hash, created_at = EXCLUDED.created_at",
    )
    .bind(user_id)
    .bind(token_hash)
    .bind(now)
    .execute(executor)
    .await?;
    Ok(())
}

/// When `user_id`'s feed was made, if they have one.
pub async fn created_at<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> sqlx::Result<Option<DateTime<Utc>>> {
    sqlx::query_scalar("SELECT created_at FROM calendar_feeds WHERE user_id = $1")
        .bind(user_id)
        .fetch_optional(executor)
        .await
}

/// Revokes `user_id`'s feed; whether there was one.
pub async fn revoke<'e>(executor: impl PgExecutor<'e>, user_id: Uuid) -> sqlx::Result<bool> {
    let done = sqlx::query("DELETE FROM calendar_feeds WHERE user_id = $1")
        .bind(user_id)
        .execute(executor)
        .await?;
    Ok(done.rows_affected() > 0)
}

/// The live account whose feed has this token hash. The lookup is by the hash (an index
/// on a digest of the token), so its time tells nothing about how near a guess came.
pub async fn owner<'e>(
    executor: impl PgExecutor<'e>,
    token_hash: &[u8],
) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar(
        "SELECT f.user_id FROM calendar_feeds f JOIN users u ON u.id = f.user_id
          WHERE f.token_hash = $1 AND u.deleted_at IS NULL",
    )
    .bind(token_hash)
    .fetch_optional(executor)
    .await
}
