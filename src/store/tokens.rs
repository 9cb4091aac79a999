//! API tokens as authentication reads them.

use sqlx::PgPool;
use uuid::Uuid;

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
