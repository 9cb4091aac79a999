//! Logins (`login_sessions`): one row per refresh-token family, with when it began, when it
//! was last refreshed and the client that made it. A login is active while one of its
//! refresh tokens is neither revoked nor expired; ending one revokes them (`refresh_tokens`).

use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, PgPool};
use uuid::Uuid;

/// Records a login as just used: a new one with its client, or a known one refreshed.
pub async fn touch<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    user_id: Uuid,
    user_agent: Option<&str>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO login_sessions (id, user_id, user_agent) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET last_used_at = now()",
    )
    .bind(id)
    .bind(user_id)
    .bind(user_agent)
    .execute(executor)
    .await?;
    Ok(())
}

/// A login as its owner sees it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Session {
    pub id: Uuid,
    pub created_at: DateTime<Utc>,
    pub last_used_at: DateTime<Utc>,
    pub user_agent: Option<String>,
}

/// The user's active logins, the most recently used first.
pub async fn active<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<Vec<Session>, sqlx::Error> {
    sqlx::query_as(
        "SELECT s.id, s.created_at, s.last_used_at, s.user_agent FROM login_sessions s
          WHERE s.user_id = $1
            AND EXISTS (SELECT 1 FROM refresh_tokens t
                         WHERE t.family_id = s.id AND t.user_id = $1
                           AND t.revoked_at IS NULL AND t.expires_at > now())
          ORDER BY s.last_used_at DESC, s.id",
    )
    .bind(user_id)
    .fetch_all(executor)
    .await
}

/// Ends one of the user's active logins; `false` if the user has no such active login.
pub async fn revoke<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    id: Uuid,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE refresh_tokens SET revoked_at = now()
          WHERE user_id = $1 AND family_id = $2 AND revoked_at IS NULL AND expires_at > now()",
    )
    .bind(user_id)
    .bind(id)
    .execute(executor)
    .await?;
    Ok(done.rows_affected() > 0)
}

/// Ends every active login of the user but `keep`; returns how many were ended.
pub async fn revoke_all_except<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    keep: Option<Uuid>,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "WITH ended AS (
             UPDATE refresh_tokens SET revoked_at = now()
              WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()
                AND family_id IS DISTINCT FROM $2
             RETURNING family_id
         )
         SELECT count(DISTINCT family_id) FROM ended",
    )
    .bind(user_id)
    .bind(keep)
    .fetch_one(executor)
    .await
}

/// Whether an access token's user and login are in good standing.
#[derive(Debug, sqlx::FromRow)]
pub struct Standing {
    /// The account exists and is not deleted.
    pub account: bool,
    /// The login is active (or the token names none).
    pub login: bool,
}

/// The standing of `user` and their `login` (one primary-key and one index lookup).
pub async fn standing(
    pool: &PgPool,
    user_id: Uuid,
    login: Option<Uuid>,
) -> Result<Standing, sqlx::Error> {
    sqlx::query_as(
        "SELECT EXISTS (SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL) AS account,
                ($2::uuid IS NULL OR EXISTS (
                    SELECT 1 FROM refresh_tokens t
                     WHERE t.family_id = $2 AND t.user_id = $1
                       AND t.revoked_at IS NULL AND t.expires_at > now())) AS login",
    )
    .bind(user_id)
    .bind(login)
    .fetch_one(pool)
    .await
}
