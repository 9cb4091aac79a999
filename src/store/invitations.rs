//! Invitations to private games.

use sqlx::PgConnection;
use uuid::Uuid;

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
