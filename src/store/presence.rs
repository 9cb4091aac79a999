//! Live presence (`live_presence`): who watches which game on its live stream, from which
//! server instance. Mail delivery holds a player's "your turn" mail while they watch
//! (`outbox::recipient`); housekeeping deletes rows whose stream ended without saying so
//! (`housekeeping::purge_stale_presence`).

use sqlx::PgExecutor;
use uuid::Uuid;

/// Marks `user` as watching `game_id` from `instance` now (a stream's start and heartbeat).
pub async fn mark_watching<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    game_id: Uuid,
    instance: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO live_presence (user_id, game_id, instance_id, seen_at)
         VALUES ($1, $2, $3, now())
         ON CONFLICT (user_id, game_id, instance_id) DO UPDATE SET seen_at = now()",
    )
    .bind(user)
    .bind(game_id)
    .bind(instance)
    .execute(executor)
    .await?;
    Ok(())
}

/// Forgets that `user` watches `game_id` from `instance` (the stream ended).
pub async fn unmark_watching<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    game_id: Uuid,
    instance: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM live_presence WHERE user_id = $1 AND game_id = $2 AND instance_id = $3",
    )
    .bind(user)
    .bind(game_id)
    .bind(instance)
    .execute(executor)
    .await?;
    Ok(())
}
