//! Undo (see `migrations/0018_undo.sql` and `service::play::undo`): the log as the undo timeline
//! reads it, and the projection of a game's open request. The log is the truth; the
//! projection is written in the same transaction as the events that open, answer and close a
//! request, for the move path's cheap check and the deadline worker.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// One event of a game's log with the command whose batch it begins, if it begins one.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct LineRow {
    pub seq: i64,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub payload: Value,
    /// Whether a command's batch begins at this event.
    pub begins_command: bool,
    /// That command's seat (`None`: the platform's own command, a rules timer).
    pub command_seat: Option<i16>,
    /// Whether that command is one the server played on its own, and why (`forced`,
    /// `order`; see `game_commands.auto`).
    pub command_auto: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// The events of a game with `seq <= to`, in order, each with the command its batch begins.
pub async fn lines<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    to: i64,
) -> Result<Vec<LineRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT e.seq, e.type, e.payload, e.created_at,
                c.first_seq IS NOT DISTINCT FROM e.seq AS begins_command, c.seat AS command_seat,
                c.auto->>'kind' AS command_auto
           FROM game_events e
           LEFT JOIN game_commands c ON c.id = e.command_id AND c.first_seq = e.seq
          WHERE e.game_id = $1 AND e.seq <= $2
          ORDER BY e.seq",
    )
    .bind(game_id)
    .bind(to)
    .fetch_all(executor)
    .await
}

/// A game's open request, as projected.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct OpenRow {
    pub game_id: Uuid,
    pub request_seq: i64,
    pub by_seat: i16,
    pub at_version: i64,
    pub to_version: i64,
    pub needs: Vec<i16>,
    pub accepted: Vec<i16>,
    pub deadline_at: DateTime<Utc>,
}

const COLUMNS: &str =
    "game_id, request_seq, by_seat, at_version, to_version, needs, accepted, deadline_at";

/// The game's open request, if any.
pub async fn open<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Option<OpenRow>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM undo_requests WHERE game_id = $1"
    )))
    .bind(game_id)
    .fetch_optional(executor)
    .await
}

/// Records a request as the game's open one (the caller holds the game's row lock).
pub async fn insert(conn: &mut PgConnection, row: &OpenRow) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO undo_requests
             (game_id, request_seq, by_seat, at_version, to_version, needs, accepted, deadline_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(row.game_id)
    .bind(row.request_seq)
    .bind(row.by_seat)
    .bind(row.at_version)
    .bind(row.to_version)
    .bind(&row.needs)
    .bind(&row.accepted)
    .bind(row.deadline_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// The seats that have accepted the game's open request so far.
pub async fn set_accepted(
    conn: &mut PgConnection,
    game_id: Uuid,
    accepted: &[i16],
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE undo_requests SET accepted = $2 WHERE game_id = $1")
        .bind(game_id)
        .bind(accepted)
        .execute(conn)
        .await?;
    Ok(())
}

/// The game's request has ended (the caller holds the game's row lock).
pub async fn close(conn: &mut PgConnection, game_id: Uuid) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM undo_requests WHERE game_id = $1")
        .bind(game_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Whether request `request` of the game is still open and still waits for `user`'s answer
/// (what delivery checks before mailing that it is asked).
pub async fn still_asks<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    request: i64,
    user: Uuid,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT EXISTS (
             SELECT 1 FROM undo_requests u
               JOIN game_seats s ON s.game_id = u.game_id AND s.user_id = $3
              WHERE u.game_id = $1 AND u.request_seq = $2
                AND s.seat = ANY(u.needs) AND NOT s.seat = ANY(u.accepted))",
    )
    .bind(game_id)
    .bind(request)
    .bind(user)
    .fetch_one(executor)
    .await
}

/// Games whose open request's deadline is at `now` or before (at most `limit`).
pub async fn due<'e>(
    executor: impl PgExecutor<'e>,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT game_id FROM undo_requests WHERE deadline_at <= $1 ORDER BY deadline_at LIMIT $2",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// Moves a locked game on to `version` after a rewind: the seats pending in the rewound
/// position (their turn began now if they were not pending before) and the count of events
/// that no longer count.
pub async fn rewind_head(
    conn: &mut PgConnection,
    game_id: Uuid,
    version: i64,
    pending: &[i16],
    undone_events: i64,
    at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE games
            SET version = $2, pending_seats = $3, undone_events = $4,
                turn_started_at = CASE WHEN pending_seats = $3 THEN turn_started_at ELSE $5 END
          WHERE id = $1",
    )
    .bind(game_id)
    .bind(version)
    .bind(pending)
    .bind(undone_events)
    .bind(at)
    .execute(conn)
    .await?;
    Ok(())
}
