//! Blocks between users (`user_blocks`): stored one way (who blocked whom), applied both ways.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// Blocks `blocked` for `blocker`; returns whether the block is new.
pub async fn block<'e>(
    executor: impl PgExecutor<'e>,
    blocker: Uuid,
    blocked: Uuid,
) -> sqlx::Result<bool> {
    // Invitations between the two to games still open go with it: neither could accept.
    let added: i64 = sqlx::query_scalar(
        "WITH added AS (
             INSERT INTO user_blocks (blocker_id, blocked_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING RETURNING 1
         ), uninvited AS (
             DELETE FROM game_invitations i USING games g
              WHERE g.id = i.game_id AND g.status = 'open'
                AND ((i.user_id = $2 AND i.invited_by = $1) OR (i.user_id = $1 AND i.invited_by = $2))
         )
         SELECT count(*) FROM added",
    )
    .bind(blocker)
    .bind(blocked)
    .fetch_one(executor)
    .await?;
    Ok(added == 1)
}

/// Lifts a block; returns whether there was one.
pub async fn unblock<'e>(
    executor: impl PgExecutor<'e>,
    blocker: Uuid,
    blocked: Uuid,
) -> sqlx::Result<bool> {
    let done = sqlx::query("DELETE FROM user_blocks WHERE blocker_id = $1 AND blocked_id = $2")
        .bind(blocker)
        .bind(blocked)
        .execute(executor)
        .await?
        .rows_affected();
    Ok(done == 1)
}

/// A user someone blocked.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Blocked {
    pub user_id: Uuid,
    pub username: String,
    pub created_at: DateTime<Utc>,
}

/// The users `blocker` blocked, by name.
pub async fn list<'e>(executor: impl PgExecutor<'e>, blocker: Uuid) -> sqlx::Result<Vec<Blocked>> {
    sqlx::query_as(
        "SELECT b.blocked_id AS user_id, u.username, b.created_at
           FROM user_blocks b JOIN users u ON u.id = b.blocked_id
          WHERE b.blocker_id = $1 ORDER BY u.username_key",
    )
    .bind(blocker)
    .fetch_all(executor)
    .await
}

/// The blocks among `users` (both of a pair in it), as `(blocker, blocked)`, in a fixed order.
pub async fn among(conn: &mut PgConnection, users: &[Uuid]) -> sqlx::Result<Vec<(Uuid, Uuid)>> {
    sqlx::query_as(
        "SELECT blocker_id, blocked_id FROM user_blocks
          WHERE blocker_id = ANY($1) AND blocked_id = ANY($1)
          ORDER BY blocker_id, blocked_id",
    )
    .bind(users)
    .fetch_all(conn)
    .await
}

/// Whether either of the two users blocked the other.
pub async fn between(conn: &mut PgConnection, a: Uuid, b: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM user_blocks
                         WHERE (blocker_id = $1 AND blocked_id = $2)
                            OR (blocker_id = $2 AND blocked_id = $1))",
    )
    .bind(a)
    .bind(b)
    .fetch_one(conn)
    .await
}

/// Whether `user` and any player seated in the game blocked one another, either way.
pub async fn with_seated(conn: &mut PgConnection, game_id: Uuid, user: Uuid) -> sqlx::Result<bool> {
    let blocked = super::audience::blocked_with_seated("$1", "$2");
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT {blocked}")))
        .bind(game_id)
        .bind(user)
        .fetch_one(conn)
        .await
}
