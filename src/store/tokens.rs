//! Tokens kept in the database, always by their hash (`auth::token_hash`), never as issued:
//! refresh tokens (`refresh_tokens`, grouped in families, one family per login, rotated at
//! each use) and API tokens (`api_tokens`, named, scoped, revocable).

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor, PgPool};
use std::time::Duration;
use uuid::Uuid;

// ---------------------------------------------------------------------------------------
// Refresh tokens

/// Stores a new refresh token of `family` for `user_id`, valid for `ttl`.
pub async fn insert_refresh_token<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    family: Uuid,
    token_hash: &[u8],
    ttl: Duration,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO refresh_tokens (id, user_id, family_id, token_hash, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))",
    )
    .bind(Uuid::now_v7())
    .bind(user_id)
    .bind(family)
    .bind(token_hash)
    .bind(ttl.as_secs_f64())
    .execute(executor)
    .await?;
    Ok(())
}

/// A stored refresh token, as a refresh finds it.
#[derive(Clone, Copy, Debug, sqlx::FromRow)]
pub struct RefreshToken {
    pub id: Uuid,
    pub user_id: Uuid,
    pub family_id: Uuid,
    /// Already used (rotated) or logged out.
    pub revoked: bool,
    pub expired: bool,
    /// Spent by a refresh less than the grace ago, and its login not ended since: presented
    /// again, it is taken as the same browser's (see `lock_refresh_token`).
    pub rotated_within_grace: bool,
}

/// The refresh token with this hash, locked until the transaction ends, so that two refreshes
/// with one token cannot both rotate it. `rotated_within_grace`: it was spent by a refresh
/// less than `grace` ago and its login still has a live token (a logout or a detected reuse
/// revokes them all).
pub async fn lock_refresh_token(
    conn: &mut PgConnection,
    token_hash: &[u8],
    grace: std::time::Duration,
) -> Result<Option<RefreshToken>, sqlx::Error> {
    sqlx::query_as(
        "SELECT t.id, t.user_id, t.family_id, t.revoked_at IS NOT NULL AS revoked,
                t.expires_at <= now() AS expired,
                coalesce(t.rotated_at > now() - make_interval(secs => $2), false)
                AND EXISTS (SELECT 1 FROM refresh_tokens f
                             WHERE f.family_id = t.family_id AND f.revoked_at IS NULL
                               AND f.expires_at > now()) AS rotated_within_grace
           FROM refresh_tokens t WHERE t.token_hash = $1 FOR UPDATE",
    )
    .bind(token_hash)
    .bind(grace.as_secs_f64())
    .fetch_optional(conn)
    .await
}

/// The family (login) of the refresh token with this hash, revoked or not.
pub async fn refresh_token_family<'e>(
    executor: impl PgExecutor<'e>,
    token_hash: &[u8],
) -> Result<Option<Uuid>, sqlx::Error> {
    sqlx::query_scalar("SELECT family_id FROM refresh_tokens WHERE token_hash = $1")
        .bind(token_hash)
        .fetch_optional(executor)
        .await
}

/// Revokes one refresh token: it was spent by a refresh.
pub async fn revoke_refresh_token<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE refresh_tokens SET revoked_at = now(), rotated_at = now() WHERE id = $1")
        .bind(id)
        .execute(executor)
        .await?;
    Ok(())
}

/// Revokes every refresh token of a family not revoked yet: the whole login ends.
pub async fn revoke_refresh_family<'e>(
    executor: impl PgExecutor<'e>,
    family: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL",
    )
    .bind(family)
    .execute(executor)
    .await?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// API tokens

/// What is shown of an API token after it was created (never the token itself).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ApiTokenRow {
    pub id: Uuid,
    pub name: String,
    pub prefix: String,
    pub scopes: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
}

/// The columns of an [`ApiTokenRow`], for every statement that returns one.
const API_TOKEN_COLUMNS: &str = "id, name, prefix, scopes, created_at, expires_at, last_used_at";

/// A new API token.
pub struct NewApiToken<'a> {
    pub user_id: Uuid,
    pub name: &'a str,
    pub token_hash: &'a [u8],
    /// The first characters of the token, to recognise it by.
    pub prefix: &'a str,
    pub scopes: &'a [String],
    /// `None`: it never expires.
    pub expires_in_days: Option<u32>,
}

/// Stores a new API token and returns what is shown of it.
pub async fn insert_api_token<'e>(
    executor: impl PgExecutor<'e>,
    token: &NewApiToken<'_>,
) -> Result<ApiTokenRow, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO api_tokens (id, user_id, name, token_hash, prefix, scopes, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(days => $7))
         RETURNING {API_TOKEN_COLUMNS}"
    )))
    .bind(Uuid::now_v7())
    .bind(token.user_id)
    .bind(token.name)
    .bind(token.token_hash)
    .bind(token.prefix)
    .bind(token.scopes)
    .bind(token.expires_in_days.map(|d| d as i32))
    .fetch_one(executor)
    .await
}

/// A user's API tokens that are not revoked, oldest first.
pub async fn list_api_tokens<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<Vec<ApiTokenRow>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {API_TOKEN_COLUMNS}
           FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at, id"
    )))
    .bind(user_id)
    .fetch_all(executor)
    .await
}

/// Revokes a user's API token; `false` if the user has no such token not revoked yet.
pub async fn revoke_api_token<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    id: Uuid,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE api_tokens SET revoked_at = now()
          WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL",
    )
    .bind(id)
    .bind(user_id)
    .execute(executor)
    .await?;
    Ok(done.rows_affected() > 0)
}

/// An API token that is valid now: its id, its user and its scopes (as stored).
#[derive(Debug, sqlx::FromRow)]
pub struct LiveApiToken {
    pub id: Uuid,
    pub user_id: Uuid,
    pub scopes: Vec<String>,
}

/// The API token with this hash if it is neither revoked nor expired, noting that it was
/// used just now (one statement: authentication costs one round trip).
pub async fn use_api_token(pool: &PgPool, token_hash: &[u8]) -> sqlx::Result<Option<LiveApiToken>> {
    sqlx::query_as(
        "UPDATE api_tokens SET last_used_at = now()
          WHERE token_hash = $1 AND revoked_at IS NULL
            AND (expires_at IS NULL OR expires_at > now())
        RETURNING id, user_id, scopes",
    )
    .bind(token_hash)
    .fetch_optional(pool)
    .await
}

/// Whether the API token still works: neither revoked nor expired (nor gone with its account).
pub async fn api_token_works(pool: &PgPool, id: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM api_tokens
                         WHERE id = $1 AND revoked_at IS NULL
                           AND (expires_at IS NULL OR expires_at > now()))",
    )
    .bind(id)
    .fetch_one(pool)
    .await
}

/// Revokes every API token of the user that still works; returns how many.
pub async fn revoke_all_api_tokens<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE api_tokens SET revoked_at = now()
          WHERE user_id = $1 AND revoked_at IS NULL
            AND (expires_at IS NULL OR expires_at > now())",
    )
    .bind(user_id)
    .execute(executor)
    .await?;
    Ok(done.rows_affected())
}

/// A login (a family of refresh tokens) that has a token still usable: when it began, when
/// it was last refreshed, when its current token expires.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct LoginRow {
    pub family_id: Uuid,
    pub started_at: DateTime<Utc>,
    pub refreshed_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// The user's logins with a usable refresh token, the newest first (metadata only).
pub async fn logins_of<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<Vec<LoginRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT family_id, min(created_at) AS started_at, max(created_at) AS refreshed_at,
                max(expires_at) AS expires_at
           FROM refresh_tokens
          WHERE user_id = $1
          GROUP BY family_id
         HAVING bool_or(revoked_at IS NULL AND expires_at > now())
          ORDER BY max(created_at) DESC",
    )
    .bind(user_id)
    .fetch_all(executor)
    .await
}
