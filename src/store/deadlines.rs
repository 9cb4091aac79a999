//! Armed clocks (`deadlines`): one per pending seat, and one (seat -1) per rules timer.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// What an armed clock is for (`deadlines.kind`, stored as text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum DeadlineKind {
    /// A player's turn clock: when it passes, the game's policy plays for the seat.
    Turn,
    /// The bot plays the seat (abandoned or forfeited) as soon as it is due.
    Bot,
    /// A rules timer, such as a negotiation deadline.
    Timer,
}

/// A due clock, leased to the worker that took it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct DueClock {
    pub game_id: Uuid,
    pub seat: i16,
    pub kind: DeadlineKind,
    pub timer_key: Option<String>,
}

/// Leases up to `limit` clocks due at `now`, the earliest first, for `lease_secs`: other
/// workers skip them (and rows another worker is locking) until the lease expires.
pub async fn lease_due<'e>(
    executor: impl PgExecutor<'e>,
    limit: i64,
    lease_secs: f64,
    now: DateTime<Utc>,
) -> Result<Vec<DueClock>, sqlx::Error> {
    sqlx::query_as(
        "UPDATE deadlines d SET leased_until = $3 + make_interval(secs => $2)
           FROM (SELECT game_id, seat FROM deadlines
                  WHERE due_at <= $3 AND (leased_until IS NULL OR leased_until < $3)
                  ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED) due
          WHERE d.game_id = due.game_id AND d.seat = due.seat
         RETURNING d.game_id, d.seat, d.kind, d.timer_key",
    )
    .bind(limit)
    .bind(lease_secs)
    .bind(now)
    .fetch_all(executor)
    .await
}

/// Gives up the lease on a seat's clock: it is looked at afresh when next due.
pub async fn release(conn: &mut PgConnection, game_id: Uuid, seat: i16) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE deadlines SET leased_until = NULL WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat)
        .execute(conn)
        .await?;
    Ok(())
}

/// Removes a seat's clock.
pub async fn remove(conn: &mut PgConnection, game_id: Uuid, seat: i16) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM deadlines WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat)
        .execute(conn)
        .await?;
    Ok(())
}

/// Restarts a seat's clock at `at` with its whole allowance (and its reminder), unleased.
pub async fn restart_at(
    conn: &mut PgConnection,
    game_id: Uuid,
    seat: i16,
    at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE deadlines
            SET due_at = $3 + (due_at - turn_started_at),
                remind_at = $3 + (remind_at - turn_started_at),
                turn_started_at = $3, reminded = false, leased_until = NULL
          WHERE game_id = $1 AND seat = $2",
    )
    .bind(game_id)
    .bind(seat)
    .bind(at)
    .execute(conn)
    .await?;
    Ok(())
}

/// A turn clock whose reminder is due.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct DueReminder {
    pub game_id: Uuid,
    pub seat: i16,
    pub user_id: Uuid,
    /// The game's version now.
    pub version: i64,
    pub due_at: DateTime<Utc>,
}

/// Marks up to `limit` reminders of turn clocks due at `now` sent (once per turn), the
/// earliest first, skipping rows other workers are locking; returns them.
pub async fn take_due_reminders(
    conn: &mut PgConnection,
    limit: i64,
    now: DateTime<Utc>,
) -> Result<Vec<DueReminder>, sqlx::Error> {
    sqlx::query_as(
        "UPDATE deadlines d SET reminded = true
           FROM (SELECT game_id, seat FROM deadlines
                  WHERE kind = 'turn' AND NOT reminded AND remind_at <= $2
                  ORDER BY remind_at LIMIT $1 FOR UPDATE SKIP LOCKED) due,
                game_seats s, games g
          WHERE d.game_id = due.game_id AND d.seat = due.seat
            AND s.game_id = d.game_id AND s.seat = d.seat AND g.id = d.game_id
         RETURNING d.game_id, d.seat, s.user_id, g.version, d.due_at",
    )
    .bind(limit)
    .bind(now)
    .fetch_all(conn)
    .await
}

/// Moves the user's running turn clocks (not bots', not rules timers) by `by`.
pub async fn shift_turns_of(
    conn: &mut PgConnection,
    user_id: Uuid,
    by: chrono::Duration,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE deadlines d
            SET turn_started_at = d.turn_started_at + $2, due_at = d.due_at + $2,
                remind_at = d.remind_at + $2
           FROM game_seats s
          WHERE s.game_id = d.game_id AND s.seat = d.seat AND s.user_id = $1 AND d.kind = 'turn'",
    )
    .bind(user_id)
    .bind(by)
    .execute(conn)
    .await?;
    Ok(())
}

/// How many clocks are due at `now` and not leased to a worker (for the metrics).
pub async fn count_due<'e>(
    executor: impl PgExecutor<'e>,
    now: DateTime<Utc>,
) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT count(*) FROM deadlines
          WHERE due_at <= $1 AND (leased_until IS NULL OR leased_until < $1)",
    )
    .bind(now)
    .fetch_one(executor)
    .await
}
