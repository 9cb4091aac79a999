//! Absent players: taking an abandoned seat back, and vacations.

use super::clock;
use super::error::Error;
use super::events::PlatformEvent;
use super::lobby::seat_clocks;
use crate::live::Note;
use crate::store::append;
use crate::store::events;
use crate::store::games::{self, Status};
use crate::store::seats::{self, SeatState};
use crate::store::{deadlines, vacations};
use crate::time::Clock;
use chrono::{DateTime, Datelike, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

/// The player of an abandoned seat takes it back: the bot stops, their clock starts again.
/// Returns the new version.
pub async fn return_to_seat(
    pool: &PgPool,
    time: &Clock,
    caller: Uuid,
    game_id: Uuid,
) -> Result<i64, Error> {
    let mut tx = pool.begin().await?;
    let head = games::lock_head(&mut tx, game_id)
        .await?
        .filter(|head| crate::service::play::log::readable_by(head, caller))
        .ok_or(Error::GameNotFound)?;
    let seat = seats::seat_and_state_of(&mut tx, game_id, caller).await?;
    let Some((seat, state)) = seat else {
        return Err(Error::NotAPlayer);
    };
    if head.status() != Status::Active {
        return Err(Error::GameNotRunning);
    }
    match state {
        SeatState::Abandoned => {}
        SeatState::Forfeited => {
            return Err(Error::ForfeitedSeatNotReturnable);
        }
        SeatState::Active => {
            return Err(Error::SeatNotAbandoned);
        }
    }
    seats::mark_returned(&mut tx, game_id, seat).await?;
    let version =
        crate::service::play::undo_lapses::lapse_before_seat_change(&mut tx, &head).await? + 1;
    let event = PlatformEvent::SeatReturned { seat: seat as u8 }.to_new_event();
    events::append(&mut tx, game_id, version, None, &[event]).await?;
    games::set_version(&mut tx, game_id, version).await?;
    // If the seat must act now, its own clock replaces the bot's.
    if head.pending_seats.contains(&seat) {
        let control = super::step::time_control(&head);
        let clocks = seat_clocks(&mut tx, game_id).await?;
        let mut plan = clock::plan(
            control.as_ref(),
            &clocks,
            &[],
            &[seat],
            None,
            None,
            None,
            time.now(),
        );
        if control.is_none() {
            plan.disarm.push(seat);
        }
        append::arm(&mut tx, game_id, plan.clocks()).await?;
    }
    crate::live::announce(&mut tx, &Note::returned(game_id, version)).await?;
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
    let seconds =
        vacations::seconds_between(pool, user, year_start, year_start + chrono::Months::new(12))
            .await?;
    Ok(seconds / DAY)
}

async fn current(
    pool: &PgPool,
    user: Uuid,
) -> Result<Option<(DateTime<Utc>, DateTime<Utc>)>, sqlx::Error> {
    vacations::current(pool, user).await
}

pub async fn vacation(pool: &PgPool, user: Uuid, days_per_year: i64) -> Result<Vacation, Error> {
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
) -> Result<Vacation, Error> {
    let now = events::now_micros();
    if current(pool, user).await?.is_some() {
        return Err(Error::AlreadyOnVacation);
    }
    let left = days_per_year as f64 - used_this_year(pool, user, now).await?;
    if request.days < 1 || request.days as f64 > left {
        return Err(Error::invalid_field(
            "days",
            format!(
                "a vacation is 1 to {} whole days (what is left of this year's {days_per_year})",
                left.floor().max(0.0)
            ),
        ));
    }
    let ends = now + chrono::Duration::days(request.days);
    let mut tx = pool.begin().await?;
    vacations::insert(&mut tx, user, now, ends).await?;
    deadlines::shift_turns_of(&mut tx, user, chrono::Duration::days(request.days)).await?;
    tx.commit().await?;
    vacation(pool, user, days_per_year).await
}

/// Ends the current vacation now; the unused days return to the allowance.
pub async fn end_vacation(
    pool: &PgPool,
    user: Uuid,
    days_per_year: i64,
) -> Result<Vacation, Error> {
    let now = events::now_micros();
    let Some((starts, ends)) = current(pool, user).await? else {
        return Err(Error::NotOnVacation);
    };
    let mut tx = pool.begin().await?;
    vacations::set_end(&mut tx, user, starts, now).await?;
    deadlines::shift_turns_of(&mut tx, user, -(ends - now)).await?;
    tx.commit().await?;
    vacation(pool, user, days_per_year).await
}
