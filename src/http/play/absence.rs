//! Absent players: taking an abandoned seat back, and vacations.

use crate::auth::Scope;
use crate::http::error::{ApiError, Problem};
use crate::http::extract::caller::Caller;
use crate::http::extract::text::Json;
use crate::http::state::AppState;
use crate::service::play::absence::{self, Vacation, VacationRequest};
use actix_web::{delete, get, post, web};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Serialize, ToSchema)]
pub struct Returned {
    /// The game's version after the return.
    pub version: i64,
}

/// Take back your seat after it was abandoned (too many timeouts): the bot stops playing it
/// and your own clock starts again.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    responses(
        (status = 200, description = "The seat is yours again.", body = Returned),
        (status = 403, description = "`not_a_player`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`seat_not_abandoned`, `seat_forfeited` or `game_not_active`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/return")]
pub async fn return_to_seat(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<Returned>, ApiError> {
    caller.require(Scope::GamePlay)?;
    let version = absence::return_to_seat(
        &state.pool,
        &state.config.clock,
        caller.user_id,
        path.into_inner(),
    )
    .await?;
    Ok(Json(Returned { version }))
}

/// Your vacation allowance, and the current vacation if any.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses((status = 200, description = "The allowance.", body = Vacation))
)]
#[get("/me/vacation")]
pub async fn get_vacation(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<Vacation>, ApiError> {
    caller.require_session()?;
    Ok(Json(
        absence::vacation(
            &state.pool,
            caller.user_id,
            state.config.vacation_days_per_year,
        )
        .await?,
    ))
}

/// Go on vacation now: your clocks in every game stand still for the days given, and turns
/// that come to you meanwhile start when you are back.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = VacationRequest,
    responses(
        (status = 200, description = "On vacation.", body = Vacation),
        (status = 409, description = "`already_on_vacation`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: more days than the allowance has left.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/vacation")]
pub async fn start_vacation(
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<VacationRequest>,
) -> Result<Json<Vacation>, ApiError> {
    caller.require_session()?;
    let days = state.config.vacation_days_per_year;
    Ok(Json(
        absence::start_vacation(&state.pool, caller.user_id, body.into_inner(), days).await?,
    ))
}

/// End your vacation now; the unused days go back to the allowance.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Back.", body = Vacation),
        (status = 409, description = "`not_on_vacation`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/vacation")]
pub async fn end_vacation(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<Vacation>, ApiError> {
    caller.require_session()?;
    let days = state.config.vacation_days_per_year;
    Ok(Json(
        absence::end_vacation(&state.pool, caller.user_id, days).await?,
    ))
}
