//! Single-use tokens sent by mail (`mail_tokens`): address verification and password reset
//! links. Only their SHA-256 is stored (`auth::token_hash`); the token itself travels in the
//! mail's outbox row until the mail is sent (see `service::notices::account`). Times come from the
//! instance's clock, so tests can let a link expire.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// What a token is for (the `purpose` column).
pub const VERIFY_EMAIL: &str = "verify_email";
pub const RESET_PASSWORD: &str = "reset_password";

/// A token to store.
pub struct NewMailToken<'a> {
    pub id: Uuid,
    pub user_id: Uuid,
    pub purpose: &'static str,
    /// The address the link is mailed to (and, for `verify_email`, verifies).
    pub email: &'a str,
    pub token_hash: &'a [u8],
    pub now: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// Stores a new token; the user's older unused tokens of the same purpose stop working (a
/// newer link replaces them).
pub async fn issue(conn: &mut PgConnection, token: &NewMailToken<'_>) -> Result<(), sqlx::Error> {
    supersede(&mut *conn, token.user_id, token.purpose, token.now).await?;
    sqlx::query(
        "INSERT INTO mail_tokens (id, user_id, purpose, email, token_hash, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(token.id)
    .bind(token.user_id)
    .bind(token.purpose)
    .bind(token.email)
    .bind(token.token_hash)
    .bind(token.now)
    .bind(token.expires_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// Marks the user's unused tokens of `purpose` replaced.
pub async fn supersede<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    purpose: &str,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE mail_tokens SET superseded_at = $3
          WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL AND superseded_at IS NULL",
    )
    .bind(user_id)
    .bind(purpose)
    .bind(now)
    .execute(executor)
    .await?;
    Ok(())
}

/// Cancels the user's pending changes of address: the open verification links of any
/// address but `current`, the account's own (whose link, if it waits, stays good).
pub async fn supersede_address_changes<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    current: &str,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE mail_tokens SET superseded_at = $3
          WHERE user_id = $1 AND purpose = 'verify_email' AND email <> $2
            AND used_at IS NULL AND superseded_at IS NULL",
    )
    .bind(user_id)
    .bind(current)
    .bind(now)
    .execute(executor)
    .await?;
    Ok(())
}

/// A stored token, as a link's use finds it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct MailToken {
    pub id: Uuid,
    pub user_id: Uuid,
    pub purpose: String,
    pub email: String,
    pub expires_at: DateTime<Utc>,
    pub used_at: Option<DateTime<Utc>>,
    pub superseded_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, user_id, purpose, email, expires_at, used_at, superseded_at";

/// The token with this hash, if any.
pub async fn find<'e>(
    executor: impl PgExecutor<'e>,
    token_hash: &[u8],
) -> Result<Option<MailToken>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM mail_tokens WHERE token_hash = $1"
    )))
    .bind(token_hash)
    .fetch_optional(executor)
    .await
}

/// The token with this hash, locked until the transaction ends, so that a link is used once
/// even when two requests bring it at the same time.
pub async fn lock(
    conn: &mut PgConnection,
    token_hash: &[u8],
) -> Result<Option<MailToken>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM mail_tokens WHERE token_hash = $1 FOR UPDATE"
    )))
    .bind(token_hash)
    .fetch_optional(conn)
    .await
}

/// Marks a token used.
pub async fn mark_used<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE mail_tokens SET used_at = $2 WHERE id = $1")
        .bind(id)
        .bind(now)
        .execute(executor)
        .await?;
    Ok(())
}

/// The address of the user's newest verification link that still works at `now`, if any.
pub async fn open_verification<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT email FROM mail_tokens
          WHERE user_id = $1 AND purpose = 'verify_email' AND used_at IS NULL
            AND superseded_at IS NULL AND expires_at > $2
          ORDER BY created_at DESC, id DESC LIMIT 1",
    )
    .bind(user_id)
    .bind(now)
    .fetch_optional(executor)
    .await
}
