//! Seats: who sits where in a game, in what state, with what clock.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgExecutor};
use utoipa::ToSchema;
use uuid::Uuid;

/// Who plays a seat: its user, or the bot (stored as text in `game_seats.state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum SeatState {
    /// The user plays the seat.
    Active,
    /// After too many timeouts the sensible bot plays the seat until the user returns.
    Abandoned,
    /// The bot plays the seat out and it ranks last.
    Forfeited,
}

impl SeatState {
    /// Whether the bot plays the seat rather than its user.
    pub fn played_by_bot(self) -> bool {
        self != SeatState::Active
    }
}

/// A taken seat.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SeatRow {
    pub seat: i16,
    pub user_id: Uuid,
    pub username: String,
    /// The player's display name, if they chose one.
    pub display_name: Option<String>,
    pub nonce: String,
    pub state: SeatState,
    /// When the seat's time for its turn runs out, while it is to move under a time control
    /// (its time bank and any vacation counted in).
    pub deadline: Option<DateTime<Utc>>,
}

/// The columns of a [`SeatRow`] from `game_seats s JOIN users u`.
const SEAT_COLUMNS: &str = "s.seat, s.user_id, u.username, u.display_name, s.nonce, s.state,
    (SELECT d.due_at FROM deadlines d
      WHERE d.game_id = s.game_id AND d.seat = s.seat AND d.kind = 'turn') AS deadline";

/// The taken seats of a game, in seat order.
pub async fn seats<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Vec<SeatRow>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SEAT_COLUMNS}
           FROM game_seats s JOIN users u ON u.id = s.user_id
          WHERE s.game_id = $1 ORDER BY s.seat"
    )))
    .bind(game_id)
    .fetch_all(executor)
    .await
}

/// A taken seat and its game.
#[derive(sqlx::FromRow)]
struct SeatOfGame {
    game_id: Uuid,
    #[sqlx(flatten)]
    seat: SeatRow,
}

/// The taken seats of several games, by game and in seat order.
pub async fn seats_of_games<'e>(
    executor: impl PgExecutor<'e>,
    game_ids: &[Uuid],
) -> Result<Vec<(Uuid, SeatRow)>, sqlx::Error> {
    let rows: Vec<SeatOfGame> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT s.game_id, {SEAT_COLUMNS}
           FROM game_seats s JOIN users u ON u.id = s.user_id
          WHERE s.game_id = ANY($1) ORDER BY s.game_id, s.seat"
    )))
    .bind(game_ids)
    .fetch_all(executor)
    .await?;
    Ok(rows.into_iter().map(|r| (r.game_id, r.seat)).collect())
}

/// The caller's seat in a game, if any.
pub async fn seat_of<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    user_id: Uuid,
) -> Result<Option<i16>, sqlx::Error> {
    sqlx::query_scalar("SELECT seat FROM game_seats WHERE game_id = $1 AND user_id = $2")
        .bind(game_id)
        .bind(user_id)
        .fetch_optional(executor)
        .await
}

/// The user's seat in a game and its state, if they have one.
pub async fn seat_and_state_of(
    conn: &mut PgConnection,
    game_id: Uuid,
    user_id: Uuid,
) -> Result<Option<(i16, SeatState)>, sqlx::Error> {
    sqlx::query_as("SELECT seat, state FROM game_seats WHERE game_id = $1 AND user_id = $2")
        .bind(game_id)
        .bind(user_id)
        .fetch_optional(conn)
        .await
}

/// Seats a user in an open game (the caller holds the game's row lock and checked the seat
/// is free).
pub async fn take(
    conn: &mut PgConnection,
    game_id: Uuid,
    seat: i16,
    user_id: Uuid,
    nonce: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO game_seats (game_id, seat, user_id, nonce) VALUES ($1, $2, $3, $4)")
        .bind(game_id)
        .bind(seat)
        .bind(user_id)
        .bind(nonce)
        .execute(conn)
        .await?;
    Ok(())
}

/// Gives up the user's seat in a game; returns whether they had one.
pub async fn leave(
    conn: &mut PgConnection,
    game_id: Uuid,
    user_id: Uuid,
) -> Result<bool, sqlx::Error> {
    let left = sqlx::query("DELETE FROM game_seats WHERE game_id = $1 AND user_id = $2")
        .bind(game_id)
        .bind(user_id)
        .execute(conn)
        .await?;
    Ok(left.rows_affected() > 0)
}

/// Renumbers a game's seats 0.. without gaps, keeping their order.
pub async fn renumber(conn: &mut PgConnection, game_id: Uuid) -> Result<(), sqlx::Error> {
    // Out of the way first (negative, reversed), so no two seats ever share a number.
    sqlx::query("UPDATE game_seats SET seat = -1 - seat WHERE game_id = $1")
        .bind(game_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "UPDATE game_seats s SET seat = r.new_seat
           FROM (SELECT user_id, (row_number() OVER (ORDER BY seat DESC) - 1)::smallint AS new_seat
                   FROM game_seats WHERE game_id = $1) r
          WHERE s.game_id = $1 AND s.user_id = r.user_id",
    )
    .bind(game_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Gives every seat of a game a full time bank of `bank_secs`.
pub async fn fill_banks(
    conn: &mut PgConnection,
    game_id: Uuid,
    bank_secs: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE game_seats SET bank_secs = $2 WHERE game_id = $1")
        .bind(game_id)
        .bind(bank_secs)
        .execute(conn)
        .await?;
    Ok(())
}

/// The player of an abandoned seat takes it back: active again, no timeouts counted.
pub async fn mark_returned(
    conn: &mut PgConnection,
    game_id: Uuid,
    seat: i16,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE game_seats SET state = 'active', timeouts = 0 WHERE game_id = $1 AND seat = $2",
    )
    .bind(game_id)
    .bind(seat)
    .execute(conn)
    .await?;
    Ok(())
}

/// A seat as the clock sees it (one element of [`clocks_sql`]).
#[derive(Clone, Debug, Deserialize)]
pub struct SeatClock {
    pub seat: i16,
    pub user_id: Uuid,
    pub state: SeatState,
    pub bank_secs: Option<i64>,
    /// Consecutive timeouts.
    #[serde(default)]
    pub timeouts: i32,
    /// The end of the user's current vacation, if they are on one.
    pub vacation_until: Option<DateTime<Utc>>,
    /// When the seat's current turn began, if it has an armed clock.
    pub turn_started_at: Option<DateTime<Utc>>,
}

impl SeatClock {
    pub fn played_by_bot(&self) -> bool {
        self.state.played_by_bot()
    }
}

/// SQL for the seats of the game `game` (an SQL expression) as the clock sees them, as a JSON
/// array of [`SeatClock`].
pub(super) fn clocks_sql(game: &str) -> String {
    format!(
        "(SELECT coalesce(json_agg(json_build_object(
                    'seat', s.seat, 'user_id', s.user_id, 'state', s.state,
                    'bank_secs', s.bank_secs, 'timeouts', s.timeouts,
                    'turn_started_at', d.turn_started_at,
                    'vacation_until', (SELECT max(v.ends_at) FROM vacations v
                                        WHERE v.user_id = s.user_id AND v.starts_at <= now()
                                          AND v.ends_at > now()))
                  ORDER BY s.seat), '[]')
            FROM game_seats s
            LEFT JOIN deadlines d ON d.game_id = s.game_id AND d.seat = s.seat
           WHERE s.game_id = {game})"
    )
}

/// The seats of a game as the clock sees them (state, bank, vacation, running turn).
pub async fn clocks(conn: &mut PgConnection, game_id: Uuid) -> Result<Vec<SeatClock>, sqlx::Error> {
    let clocks: sqlx::types::Json<Vec<SeatClock>> =
        sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT {}", clocks_sql("$1"))))
            .bind(game_id)
            .fetch_one(conn)
            .await?;
    Ok(clocks.0)
}

/// The games a user sits in, and the open games they created (seated or not), by id: what
/// deleting the account must settle. Ascending, so that their rows are locked in one order.
pub async fn games_to_settle(
    conn: &mut PgConnection,
    user_id: Uuid,
) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT game_id FROM game_seats WHERE user_id = $1
         UNION
         SELECT id FROM games WHERE created_by = $1 AND status = 'open'
         ORDER BY 1",
    )
    .bind(user_id)
    .fetch_all(conn)
    .await
}

/// Puts a seat in `state` (the caller holds the game's row lock).
pub async fn set_state(
    conn: &mut PgConnection,
    game_id: Uuid,
    seat: i16,
    state: SeatState,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE game_seats SET state = $3 WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat)
        .bind(state)
        .execute(conn)
        .await?;
    Ok(())
}

/// A game a user sits in, as their data export lists it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct UserGame {
    pub game_id: Uuid,
    pub kind: String,
    pub status: String,
    pub seat: i16,
    pub state: SeatState,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// Every game the user sits in, the newest first.
pub async fn games_of_user<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<Vec<UserGame>, sqlx::Error> {
    sqlx::query_as(
        "SELECT g.id AS game_id, g.kind, g.status, s.seat, s.state, g.created_at, g.started_at,
                g.finished_at
           FROM game_seats s JOIN games g ON g.id = s.game_id
          WHERE s.user_id = $1
          ORDER BY g.created_at DESC, g.id",
    )
    .bind(user_id)
    .fetch_all(executor)
    .await
}
