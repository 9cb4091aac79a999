//! Absent players: taking an abandoned seat back, and vacations.

use super::PlatformEvent;
use super::clock::{self, TimeControl};
use super::lobby::{game_not_found, live_note, seat_clocks};
use crate::http::error::ApiError;
use crate::store::append;
use crate::store::events;
use crate::store::games::{self, Status};
use crate::store::seats::SeatState;
use chrono::{DateTime, Datelike, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

/// The player of an abandoned seat takes it back: the bot stops, their clock starts again.
/// Returns the new version.
pub async fn return_to_seat(pool: &PgPool, caller: Uuid, game_id: Uuid) -> Result<i64, ApiError> {
    let mut tx = pool.begin().await?;
    let head = games::lock_head(&mut tx, game_id)
        .await?
        .ok_or_else(game_not_found)?;
    let seat: Option<(i16, SeatState)> =
        sqlx::query_as("SELECT seat, state FROM game_seats WHERE game_id = $1 AND user_id = $2")
            .bind(game_id)
            .bind(caller)
            .fetch_optional(&mut *tx)
            .await?;
    let Some((seat, state)) = seat else {
        return Err(ApiError::forbidden(
            "not_a_player",
            "you have no seat in this game",
        ));
    };
    if head.status() != Status::Active {
        return Err(ApiError::conflict(
            "game_not_active",
            "the game is not running",
        ));
    }
    match state {
        SeatState::Abandoned => {}
        SeatState::Forfeited => {
            return Err(ApiError::conflict(
                "seat_forfeited",
                "this seat was forfeited under the game's time control and cannot be taken back",
            ));
        }
        SeatState::Active => {
            return Err(ApiError::conflict(
                "seat_not_abandoned",
                "your seat is not abandoned: you are playing it",
            ));
        }
    }
    sqlx::query(
        "UPDATE game_seats SET state = 'active', timeouts = 0 WHERE game_id = $1 AND seat = $2",
    )
    .bind(game_id)
    .bind(seat)
    .execute(&mut *tx)
    .await?;
    let version = head.version + 1;
    let event = PlatformEvent::SeatReturned { seat: seat as u8 }.to_new_event();
    events::append(&mut tx, game_id, version, None, &[event]).await?;
    sqlx::query("UPDATE games SET version = $2 WHERE id = $1")
        .bind(game_id)
        .bind(version)
        .execute(&mut *tx)
        .await?;
    // If the seat must act now, its own clock replaces the bot's.
    if head.pending_seats.contains(&seat) {
        let control: Option<TimeControl> = head
            .time_control
            .clone()
            .and_then(|c| serde_json::from_value(c).ok());
        let clocks = seat_clocks(&mut tx, game_id).await?;
        let mut plan = clock::plan(
            control.as_ref(),
            &clocks,
            &[],
            &[seat],
            None,
            None,
            None,
            Utc::now(),
        );
        if control.is_none() {
            plan.disarm.push(seat);
        }
        append::arm(&mut tx, game_id, plan.clocks()).await?;
    }
    let note = json!({"game_id": game_id, "version": version, "status": "active"});
    live_note(&mut tx, &note).await?;
    tx.commit().await?;
    Ok(version)
}

/// A user's vacation allowance and current vacation.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"on_vacation": true, "until": "2026-12-06T12:00:00Z", "days_per_year": 30, "days_left": 23.5}))]
pub struct Vacation {
    pub on_vacation: bool,
    /// When the current vacation ends.
    pub until: Option<DateTime<Utc>>,
    pub days_per_year: i64,
    /// What is left of this calendar year's allowance (UTC), counting the current vacation
    /// in full.
    pub days_left: f64,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"days": 7}))]
pub struct VacationRequest {
    /// Whole days, at least 1 and at most what is left of the allowance.
    pub days: i64,
}

const DAY: f64 = 86_400.0;

async fn used_this_year(pool: &PgPool, user: Uuid, now: DateTime<Utc>) -> Result<f64, sqlx::Error> {
    let year_start = Utc
        .with_ymd_and_hms(now.year(), 1, 1, 0, 0, 0)
        .single()
        .expect("1 January exists");
    let seconds: Option<f64> = sqlx::query_scalar(
        "SELECT sum(extract(epoch FROM least(ends_at, $3) - greatest(starts_at, $2)))::float8
           FROM vacations WHERE user_id = $1 AND ends_at > $2 AND starts_at < $3",
    )
    .bind(user)
    .bind(year_start)
    .bind(year_start + chrono::Months::new(12))
    .fetch_one(pool)
    .await?;
    Ok(seconds.unwrap_or(0.0) / DAY)
}

async fn current(
    pool: &PgPool,
    user: Uuid,
) -> Result<Option<(DateTime<Utc>, DateTime<Utc>)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT starts_at, ends_at FROM vacations
          WHERE user_id = $1 AND starts_at <= now() AND ends_at > now()",
    )
    .bind(user)
    .fetch_optional(pool)
    .await
}

pub async fn vacation(pool: &PgPool, user: Uuid, days_per_year: i64) -> Result<Vacation, ApiError> {
    let now = Utc::now();
    let current = current(pool, user).await?;
    let used = used_this_year(pool, user, now).await?;
    Ok(Vacation {
        on_vacation: current.is_some(),
        until: current.map(|(_, end)| end),
        days_per_year,
        days_left: (days_per_year as f64 - used).max(0.0),
    })
}

/// Starts a vacation now: the user's running clocks stand still for `days`.
pub async fn start_vacation(
    pool: &PgPool,
    user: Uuid,
    request: VacationRequest,
    days_per_year: i64,
) -> Result<Vacation, ApiError> {
    let now = events::now_micros();
    if current(pool, user).await?.is_some() {
        return Err(ApiError::conflict(
            "already_on_vacation",
            "you are on vacation already; end it first to start another",
        ));
    }
    let left = days_per_year as f64 - used_this_year(pool, user, now).await?;
    if request.days < 1 || request.days as f64 > left {
        return Err(ApiError::unprocessable(
            "invalid_field",
            format!(
                "a vacation is 1 to {} whole days (what is left of this year's {days_per_year})",
                left.floor().max(0.0)
            ),
        )
        .with("field", "days"));
    }
    let ends = now + chrono::Duration::days(request.days);
    let mut tx = pool.begin().await?;
    sqlx::query("INSERT INTO vacations (user_id, starts_at, ends_at) VALUES ($1, $2, $3)")
        .bind(user)
        .bind(now)
        .bind(ends)
        .execute(&mut *tx)
        .await?;
    shift_clocks(&mut tx, user, chrono::Duration::days(request.days)).await?;
    tx.commit().await?;
    vacation(pool, user, days_per_year).await
}

/// Ends the current vacation now; the unused days return to the allowance.
pub async fn end_vacation(
    pool: &PgPool,
    user: Uuid,
    days_per_year: i64,
) -> Result<Vacation, ApiError> {
    let now = events::now_micros();
    let Some((starts, ends)) = current(pool, user).await? else {
        return Err(ApiError::conflict(
            "not_on_vacation",
            "you are not on vacation",
        ));
    };
    let mut tx = pool.begin().await?;
    sqlx::query("UPDATE vacations SET ends_at = $3 WHERE user_id = $1 AND starts_at = $2")
        .bind(user)
        .bind(starts)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    shift_clocks(&mut tx, user, -(ends - now)).await?;
    tx.commit().await?;
    vacation(pool, user, days_per_year).await
}

/// Moves the user's running turn clocks (not bots', not rules timers) by `by`.
async fn shift_clocks(
    conn: &mut sqlx::PgConnection,
    user: Uuid,
    by: chrono::Duration,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE deadlines d
            SET turn_started_at = d.turn_started_at + $2, due_at = d.due_at + $2,
                remind_at = d.remind_at + $2
           FROM game_seats s
          WHERE s.game_id = d.game_id AND s.seat = d.seat AND s.user_id = $1 AND d.kind = 'turn'",
    )
    .bind(user)
    .bind(by)
    .execute(conn)
    .await?;
    Ok(())
}
