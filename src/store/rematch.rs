//! Rematch offers and their answers (see `migrations/0015_rematch.sql`): platform records
//! beside a finished game, never events of its log.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, PgExecutor};
use utoipa::ToSchema;
use uuid::Uuid;

/// Where a rematch offer stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OfferStatus {
    /// Waiting for answers.
    Open,
    /// Everyone accepted: the rematch started (`new_game_id`).
    Accepted,
    /// A seat declined.
    Declined,
    /// The deadline passed before everyone accepted.
    Expired,
    /// The table could no longer meet (a block or a deleted account since the offer).
    Cancelled,
}

impl OfferStatus {
    pub fn parse(text: &str) -> Self {
        match text {
            "accepted" => Self::Accepted,
            "declined" => Self::Declined,
            "expired" => Self::Expired,
            "cancelled" => Self::Cancelled,
            _ => Self::Open,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Accepted => "accepted",
            Self::Declined => "declined",
            Self::Expired => "expired",
            Self::Cancelled => "cancelled",
        }
    }
}

/// One offer as stored.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct OfferRow {
    pub id: i64,
    pub game_id: Uuid,
    pub offered_by: Uuid,
    pub offer_seat: i16,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub status: String,
    pub closed_at: Option<DateTime<Utc>>,
    pub new_game_id: Option<Uuid>,
}

/// One seat's answer.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AnswerRow {
    pub seat: i16,
    pub user_id: Uuid,
    pub accept: bool,
    pub answered_at: DateTime<Utc>,
}

const OFFER_COLUMNS: &str =
    "id, game_id, offered_by, offer_seat, created_at, expires_at, status, closed_at, new_game_id";

/// A player's answer to a rematch offer, with the offer it answers (the offering seat's
/// acceptance is its offer).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AnswerOfUser {
    pub offer_id: i64,
    pub game_id: Uuid,
    pub offered: bool,
    pub accept: bool,
    pub answered_at: DateTime<Utc>,
    pub status: String,
    pub new_game_id: Option<Uuid>,
}

/// Every answer `user` gave to a rematch offer (their own offers included), newest first.
pub async fn answers_of_user<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
) -> Result<Vec<AnswerOfUser>, sqlx::Error> {
    sqlx::query_as(
        "SELECT o.id AS offer_id, o.game_id, o.offered_by = a.user_id AS offered, a.accept,
                a.answered_at, o.status, o.new_game_id
           FROM rematch_answers a JOIN rematch_offers o ON o.id = a.offer_id
          WHERE a.user_id = $1
          ORDER BY a.answered_at DESC, o.id DESC",
    )
    .bind(user)
    .fetch_all(executor)
    .await
}

/// The game's latest offer, if any.
pub async fn latest<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Option<OfferRow>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {OFFER_COLUMNS} FROM rematch_offers WHERE game_id = $1 ORDER BY id DESC LIMIT 1"
    )))
    .bind(game_id)
    .fetch_optional(executor)
    .await
}

/// One offer of the game, locked for the caller's transaction.
pub async fn lock(
    conn: &mut PgConnection,
    game_id: Uuid,
    offer_id: i64,
) -> Result<Option<OfferRow>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {OFFER_COLUMNS} FROM rematch_offers WHERE game_id = $1 AND id = $2 FOR UPDATE"
    )))
    .bind(game_id)
    .bind(offer_id)
    .fetch_optional(conn)
    .await
}

/// The answers to an offer, in seat order.
pub async fn answers<'e>(
    executor: impl PgExecutor<'e>,
    offer_id: i64,
) -> Result<Vec<AnswerRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT seat, user_id, accept, answered_at FROM rematch_answers
          WHERE offer_id = $1 ORDER BY seat",
    )
    .bind(offer_id)
    .fetch_all(executor)
    .await
}

/// Records a new open offer (the caller holds the game's row lock and checked no offer is
/// open) and its offering seat's acceptance.
pub async fn insert(
    conn: &mut PgConnection,
    game_id: Uuid,
    offered_by: Uuid,
    offer_seat: i16,
    now: DateTime<Utc>,
    expires_at: DateTime<Utc>,
) -> Result<i64, sqlx::Error> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO rematch_offers (game_id, offered_by, offer_seat, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5) RETURNING id",
    )
    .bind(game_id)
    .bind(offered_by)
    .bind(offer_seat)
    .bind(now)
    .bind(expires_at)
    .fetch_one(&mut *conn)
    .await?;
    answer(conn, id, offer_seat, offered_by, true, now).await?;
    Ok(id)
}

/// Records a seat's answer (the caller holds the offer's row lock and checked the seat has
/// not answered).
pub async fn answer(
    conn: &mut PgConnection,
    offer_id: i64,
    seat: i16,
    user_id: Uuid,
    accept: bool,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO rematch_answers (offer_id, seat, user_id, accept, answered_at)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(offer_id)
    .bind(seat)
    .bind(user_id)
    .bind(accept)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// Closes an open offer as `status` (`declined`, `expired`, `cancelled`), or as `accepted`
/// with the new game. Returns whether it was still open.
pub async fn close(
    conn: &mut PgConnection,
    offer_id: i64,
    status: &str,
    new_game_id: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE rematch_offers SET status = $2, new_game_id = $3, closed_at = $4
          WHERE id = $1 AND status = 'open'",
    )
    .bind(offer_id)
    .bind(status)
    .bind(new_game_id)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Open offers whose deadline has passed at `now` (at most `limit`), locked and skipped by
/// other workers: `(offer id, game id)`.
pub async fn lock_lapsed(
    conn: &mut PgConnection,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<(i64, Uuid)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, game_id FROM rematch_offers
          WHERE status = 'open' AND expires_at <= $1
          ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(conn)
    .await
}

/// The game this one is the rematch of, if any.
pub async fn rematch_of<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Option<Uuid>, sqlx::Error> {
    sqlx::query_scalar("SELECT game_id FROM rematch_offers WHERE new_game_id = $1")
        .bind(game_id)
        .fetch_optional(executor)
        .await
}

/// The rematch of this game, if one was played.
pub async fn rematch<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Option<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT new_game_id FROM rematch_offers WHERE game_id = $1 AND status = 'accepted'",
    )
    .bind(game_id)
    .fetch_optional(executor)
    .await
}

/// Whether any of the users was deleted.
pub async fn any_deleted(conn: &mut PgConnection, users: &[Uuid]) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM users WHERE id = ANY($1) AND deleted_at IS NOT NULL)",
    )
    .bind(users)
    .fetch_one(conn)
    .await
}

/// Whether any two of the users blocked one another, either way.
pub async fn any_block_among(conn: &mut PgConnection, users: &[Uuid]) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM user_blocks
                         WHERE blocker_id = ANY($1) AND blocked_id = ANY($1))",
    )
    .bind(users)
    .fetch_one(conn)
    .await
}
