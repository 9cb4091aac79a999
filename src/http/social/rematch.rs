//! Rematch: offering a finished game again, answering an offer, reading where it stands.

use crate::auth::Scope;
use crate::http::error::{ApiError, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::text::Json;
use crate::http::state::{AppState, Created};
use crate::service::social::rematch::{self, RematchAnswerRequest, RematchState};
use actix_web::{HttpRequest, HttpResponse, Responder, get, post, web};
use uuid::Uuid;

/// A finished game's rematch: the game it is a rematch of, its own rematch once started,
/// and the latest offer with every answer. Anyone who may read the game may read this.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    responses(
        (status = 200, description = "The rematch links and the latest offer.", body = RematchState),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{game_id}/rematch")]
pub async fn get_rematch(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<RematchState>, ApiError> {
    caller.require(Scope::GameRead)?;
    Ok(Json(
        rematch::state(
            &state.pool,
            &state.config.clock,
            caller.user_id,
            path.into_inner(),
        )
        .await?,
    ))
}

/// Offer a rematch of a finished game (any player whose seat they played at the end). The
/// offer counts as the offering seat's acceptance; the other players answer it before
/// `expires_at` (`KONTOR_REMATCH_DEADLINE_HOURS`). With nobody else to ask (the other seats
/// are bots) the rematch starts at once. Repeating the offer while it is open returns it
/// (200).
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The finished game.")),
    responses(
        (status = 201, description = "The offer was made.", body = RematchState),
        (status = 200, description = "The caller's offer was open already.", body = RematchState),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player`: the caller holds no seat, or the bot played it at the end.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`rematch_not_finished` (with `game_status`), `rematch_offer_open` (another player's offer, `offer_id`), `rematch_exists` (`rematch`: the game's rematch), `rematch_not_possible` (a deleted account or a block at the table).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/rematch")]
pub async fn offer_rematch(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GamePlay)?;
    let game_id = path.into_inner();
    let (rematch, created) = rematch::offer(
        &state.pool,
        &state.config.clock,
        caller.user_id,
        game_id,
        state.config.rematch_deadline,
    )
    .await?;
    Ok(if created {
        Created::at(format!("/games/{game_id}/rematch"), rematch).respond_to(&req)
    } else {
        HttpResponse::Ok().json(rematch)
    })
}

/// Accept or decline a rematch offer. Answers are final; sending the same answer again
/// changes nothing (200). One decline ends the offer; the last acceptance starts the rematch
/// (`rematch` names it, and every player gets `game_started` on `/me/stream`).
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The finished game."),
        ("offer_id" = i64, Path, description = "The offer."),
    ),
    request_body = RematchAnswerRequest,
    responses(
        (status = 200, description = "The answer is recorded.", body = RematchState),
        (status = 400, description = "Malformed JSON, wrong types, or a bad path (`invalid_parameter`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player`: the caller holds no seat, or the bot played it at the end.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, `rematch_offer_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`rematch_not_finished`, `rematch_offer_closed` (with `offer_status`), `rematch_offer_expired` (with `expired_at`), `rematch_already_answered` (the other answer was given; with `accept`).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/rematch/{offer_id}/answer")]
pub async fn answer_rematch(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(Uuid, i64)>,
    body: Json<RematchAnswerRequest>,
) -> Result<Json<RematchState>, ApiError> {
    caller.require(Scope::GamePlay)?;
    let (game_id, offer_id) = path.into_inner();
    Ok(Json(
        rematch::answer(
            &state.pool,
            &state.config.clock,
            caller.user_id,
            game_id,
            offer_id,
            body.accept,
        )
        .await?,
    ))
}
