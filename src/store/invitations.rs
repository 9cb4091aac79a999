//! Invitations to private games.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// An invitation the user received or made, with the other player's name.
#[derive(Debug, sqlx::FromRow)]
pub struct InvitationOf {
    pub game_id: Uuid,
    /// Whether the user was invited (else the user invited `other`).
    pub received: bool,
    pub other: String,
    pub created_at: DateTime<Utc>,
}

/// Every invitation the user received or made, newest first.
pub async fn of_user(pool: &PgPool, user_id: Uuid) -> Result<Vec<InvitationOf>, sqlx::Error> {
    sqlx::query_as(
        "SELECT i.game_id, i.user_id = $1 AS received, u.username AS other, i.created_at
           FROM game_invitations i
           JOIN users u ON u.id = CASE WHEN i.user_id = $1 THEN i.invited_by ELSE i.user_id END
          WHERE i.user_id = $1 OR i.invited_by = $1
          ORDER BY i.created_at DESC, i.game_id",
    )
    .bind(user_id)
    .fetch_all(pool)
    .await
}

/// Whether the user is invited to the game.
pub async fn is_invited(
    conn: &mut PgConnection,
    game_id: Uuid,
    user_id: Uuid,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM game_invitations WHERE game_id = $1 AND user_id = $2)",
    )
    .bind(game_id)
    .bind(user_id)
    .fetch_one(conn)
    .await
}

/// Invites the user to the game; returns whether the invitation is new.
pub async fn invite(
    conn: &mut PgConnection,
    game_id: Uuid,
    user_id: Uuid,
    invited_by: Uuid,
) -> Result<bool, sqlx::Error> {
    let inserted = sqlx::query(
        "INSERT INTO game_invitations (game_id, user_id, invited_by) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING",
    )
    .bind(game_id)
    .bind(user_id)
    .bind(invited_by)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}
