//! User accounts, as the game and mail code reads them.

use sqlx::PgExecutor;
use uuid::Uuid;

/// The id and name of the user called `username` (regardless of case), if there is one.
pub async fn find_by_username<'e>(
    executor: impl PgExecutor<'e>,
    username: &str,
) -> Result<Option<(Uuid, String)>, sqlx::Error> {
    sqlx::query_as("SELECT id, username FROM users WHERE username_key = lower($1)")
        .bind(username)
        .fetch_optional(executor)
        .await
}

/// The name of an existing user.
pub async fn username<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<String, sqlx::Error> {
    sqlx::query_scalar("SELECT username FROM users WHERE id = $1")
        .bind(user_id)
        .fetch_one(executor)
        .await
}
