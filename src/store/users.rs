//! Accounts as the authentication and the operator's tools see them: whether a user still
//! exists, and the admin role (granted and revoked only through `kontor admin`).

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// Whether an account with this id exists (one primary-key lookup).
pub async fn exists(pool: &PgPool, id: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM users WHERE id = $1)")
        .bind(id)
        .fetch_one(pool)
        .await
}

/// Whether the account holds the admin role; `false` for an account that does not exist.
pub async fn is_admin(pool: &PgPool, id: Uuid) -> sqlx::Result<bool> {
    let admin: Option<bool> = sqlx::query_scalar("SELECT is_admin FROM users WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?;
    Ok(admin == Some(true))
}

/// The outcome of granting or revoking the admin role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleChange {
    /// The account's username as registered.
    pub username: String,
    /// Whether it held the role before the change.
    pub was_admin: bool,
}

/// Grants (`admin = true`) or revokes the admin role of the account named `username` (in any
/// letter case). `None` if there is no such account.
pub async fn set_admin(
    pool: &PgPool,
    username: &str,
    admin: bool,
) -> sqlx::Result<Option<RoleChange>> {
    // The old value is read in the same statement (the sub-select sees the row before the
    // update), so the report says truthfully whether anything changed.
    let row: Option<(String, bool)> = sqlx::query_as(
        "UPDATE users u SET is_admin = $2
           FROM (SELECT id, is_admin FROM users WHERE username_key = lower($1) FOR UPDATE) old
          WHERE u.id = old.id
        RETURNING u.username, old.is_admin",
    )
    .bind(username.trim())
    .bind(admin)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(username, was_admin)| RoleChange {
        username,
        was_admin,
    }))
}

/// An account holding the admin role.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Admin {
    pub id: Uuid,
    pub username: String,
    pub email: String,
    pub created_at: DateTime<Utc>,
}

/// Every admin, by username.
pub async fn admins(pool: &PgPool) -> sqlx::Result<Vec<Admin>> {
    sqlx::query_as(
        "SELECT id, username, email, created_at FROM users WHERE is_admin ORDER BY username_key",
    )
    .fetch_all(pool)
    .await
}
