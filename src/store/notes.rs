//! Players' private notes, one per (game, user): read, written under a lock for the
//! compare-and-set of `service::notes`, listed for the my-data export. Only the note's owner
//! is ever given one (the service decides who that is).

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// A stored note.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct NoteRow {
    pub game_id: Uuid,
    pub body: String,
    pub updated_at: DateTime<Utc>,
}

/// `user`'s note on `game_id`, if there is one.
pub async fn get<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    user: Uuid,
) -> sqlx::Result<Option<NoteRow>> {
    sqlx::query_as(
        "SELECT game_id, body, updated_at FROM game_notes WHERE game_id = $1 AND user_id = $2",
    )
    .bind(game_id)
    .bind(user)
    .fetch_optional(executor)
    .await
}

/// `user`'s note on `game_id`, locked until the caller's transaction ends.
pub async fn lock(
    conn: &mut PgConnection,
    game_id: Uuid,
    user: Uuid,
) -> sqlx::Result<Option<NoteRow>> {
    sqlx::query_as(
        "SELECT game_id, body, updated_at FROM game_notes
          WHERE game_id = $1 AND user_id = $2 FOR UPDATE",
    )
    .bind(game_id)
    .bind(user)
    .fetch_optional(conn)
    .await
}

/// Writes a new note; `false` when one appeared meanwhile (another request inserted it), so
/// the caller's comparison must be made again.
pub async fn insert(
    conn: &mut PgConnection,
    game_id: Uuid,
    user: Uuid,
    body: &str,
    now: DateTime<Utc>,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "INSERT INTO game_notes (game_id, user_id, body, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (game_id, user_id) DO NOTHING",
    )
    .bind(game_id)
    .bind(user)
    .bind(body)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Replaces the text of an existing (locked) note.
pub async fn update(
    conn: &mut PgConnection,
    game_id: Uuid,
    user: Uuid,
    body: &str,
    now: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE game_notes SET body = $3, updated_at = $4 WHERE game_id = $1 AND user_id = $2",
    )
    .bind(game_id)
    .bind(user)
    .bind(body)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// Clears a note (deletes its row).
pub async fn delete(conn: &mut PgConnection, game_id: Uuid, user: Uuid) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM game_notes WHERE game_id = $1 AND user_id = $2")
        .bind(game_id)
        .bind(user)
        .execute(conn)
        .await?;
    Ok(())
}

/// Every note of `user`, the most recently written first.
pub async fn of_user<'e>(executor: impl PgExecutor<'e>, user: Uuid) -> sqlx::Result<Vec<NoteRow>> {
    sqlx::query_as(
        "SELECT game_id, body, updated_at FROM game_notes WHERE user_id = $1
          ORDER BY updated_at DESC, game_id",
    )
    .bind(user)
    .fetch_all(executor)
    .await
}
