//! Game head rows and seats.

use super::seats::SeatState;
use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// The lifecycle of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Open,
    Active,
    Finished,
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Active => "active",
            Status::Finished => "finished",
            Status::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Open, Self::Active, Self::Finished, Self::Cancelled]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// A game's head row.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct GameHead {
    pub id: Uuid,
    pub kind: String,
    pub rules_version: i32,
    pub options: Value,
    pub seat_count: i16,
    pub visibility: String,
    #[sqlx(try_from = "String")]
    pub status: StatusText,
    pub version: i64,
    pub created_by: Uuid,
    pub seed: Vec<u8>,
    pub seed_commitment: String,
    pub nonces: Option<Vec<String>>,
    pub pending_seats: Vec<i16>,
    pub outcome: Option<Value>,
    pub sandbox: bool,
    pub imported_from: Option<Uuid>,
    /// The time control (`service::clock::TimeControl`), if the game has one.
    pub time_control: Option<Value>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    pub turn_started_at: Option<DateTime<Utc>>,
}

/// A status read from the database (the CHECK constraint keeps it valid).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatusText(pub Status);

impl TryFrom<String> for StatusText {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        Status::parse(&text)
            .map(StatusText)
            .ok_or_else(|| format!("unknown game status {text:?}"))
    }
}

impl GameHead {
    pub fn status(&self) -> Status {
        self.status.0
    }

    /// The secret seed as the fixed-size key of the game RNG.
    pub fn seed_bytes(&self) -> [u8; 32] {
        let mut seed = [0u8; 32];
        let n = self.seed.len().min(32);
        seed[..n].copy_from_slice(&self.seed[..n]);
        seed
    }
}

pub const HEAD_COLUMNS: &str = "id, kind, rules_version, options, seat_count, visibility, status, version, \
     created_by, seed, seed_commitment, nonces, pending_seats, outcome, sandbox, imported_from, time_control, created_at, \
     started_at, finished_at, turn_started_at";

/// Reads a head row without locking.
pub async fn head<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Option<GameHead>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {HEAD_COLUMNS} FROM games WHERE id = $1"
    )))
    .bind(game_id)
    .fetch_optional(executor)
    .await
}

/// Reads and locks a head row: every change to a game happens under this lock.
pub async fn lock_head(
    conn: &mut PgConnection,
    game_id: Uuid,
) -> Result<Option<GameHead>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {HEAD_COLUMNS} FROM games WHERE id = $1 FOR UPDATE"
    )))
    .bind(game_id)
    .fetch_optional(conn)
    .await
}

/// A taken seat.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SeatRow {
    pub seat: i16,
    pub user_id: Uuid,
    pub username: String,
    pub nonce: String,
    pub state: SeatState,
}

/// The taken seats of a game, in seat order.
pub async fn seats<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Vec<SeatRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT s.seat, s.user_id, u.username, s.nonce, s.state
           FROM game_seats s JOIN users u ON u.id = s.user_id
          WHERE s.game_id = $1 ORDER BY s.seat",
    )
    .bind(game_id)
    .fetch_all(executor)
    .await
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

/// SQL for the seats of the game `game` (an SQL expression) as the clock sees them, as a JSON
/// array of `service::clock::SeatClock`.
pub fn seat_clocks_sql(game: &str) -> String {
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
