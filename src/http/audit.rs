//! Audit endpoints: the event log, the export, fairness verification and import.

use super::error::{ApiError, Problem};
use super::{AppState, Json};
use crate::audit::log::{self, EventPage, Reader};
use crate::audit::verify::{Verification, verify_export};
use crate::audit::{import, parse_ndjson, to_ndjson};
use crate::auth::Scope;
use crate::auth::extract::Caller;
use crate::service::lobby::GameSummary;
use actix_web::{HttpResponse, get, post, web};
use serde::Deserialize;
use uuid::Uuid;

/// Largest accepted export upload (verify, import).
pub const MAX_EXPORT_BODY: usize = 16 * 1024 * 1024;

pub const NDJSON: &str = "application/x-ndjson";

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LogQuery {
    /// Return events after this version, 0 to the game's current version (default 0: from
    /// the start); a larger or negative value is refused with `invalid_parameter`.
    pub after: Option<i64>,
    /// Page size, 1–1000 (default 200).
    pub limit: Option<i64>,
}

/// The game's event log as the caller may see it, paged by version. After the game ends,
/// everyone sees the full log.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game."), LogQuery),
    responses(
        (status = 200, description = "A page of events.", body = EventPage),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{game_id}/events")]
pub async fn event_log(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
    query: web::Query<LogQuery>,
) -> Result<Json<EventPage>, ApiError> {
    caller.require(Scope::GameRead)?;
    // `log::page` checks both: `after` against the game's version, `limit` against its range.
    let after = query.after.unwrap_or(0);
    let limit = query.limit.unwrap_or(200);
    let page = log::page(
        &state.pool,
        path.into_inner(),
        Reader::User(caller.user_id),
        after,
        limit,
    )
    .await?;
    Ok(Json(page))
}

/// The game's log as ndjson: a header line (format, kind, rules version, seats, options, seed
/// commitment, and after the end the seed) and one line per event, redacted for the caller.
/// After the end the export is complete: every event, and the commands, so that it can be
/// verified and imported.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    responses(
        (status = 200, description = "The export, one JSON document per line: first an `ExportHeader`, then `ExportEvent`s.", content_type = "application/x-ndjson", body = String),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{game_id}/export")]
pub async fn export_game(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GameRead)?;
    let game_id = path.into_inner();
    let (header, events) = log::export(&state.pool, game_id, Reader::User(caller.user_id)).await?;
    Ok(HttpResponse::Ok()
        .content_type(NDJSON)
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"kontor-{game_id}.ndjson\""),
        ))
        .body(to_ndjson(&header, &events)))
}

/// Verify a finished game's fairness on the server's own log: every roll, deal and shuffle is
/// re-derived from the revealed seed and the seat nonces.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    responses(
        (status = 200, description = "The verification (`verified` false names the first event that does not match).", body = Verification),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_finished`: the seed is revealed at the end.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{game_id}/verification")]
pub async fn verification(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<Verification>, ApiError> {
    caller.require(Scope::GameRead)?;
    let (header, events) =
        log::export(&state.pool, path.into_inner(), Reader::User(caller.user_id)).await?;
    if header.seed.is_none() {
        return Err(ApiError::conflict(
            "game_not_finished",
            "the seed is revealed when the game ends; verify then",
        ));
    }
    Ok(Json(verify_export(&header, &events)))
}

/// Verify an uploaded export (`Content-Type: application/x-ndjson`). Anyone may check any
/// complete export, including one edited on purpose.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    request_body(content = String, content_type = "application/x-ndjson", description = "A complete export."),
    responses(
        (status = 200, description = "The verification.", body = Verification),
        (status = 422, description = "`invalid_export`: not a Kontor export.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/verify")]
pub async fn verify_upload(caller: Caller, body: String) -> Result<Json<Verification>, ApiError> {
    caller.require(Scope::GameRead)?;
    let (header, events) = parse_ndjson(&body)
        .map_err(|e| ApiError::unprocessable("invalid_export", e.to_string()))?;
    Ok(Json(verify_export(&header, &events)))
}

/// Import a complete export as a new sandbox game of yours (private, not rated, marked with the
/// game it came from), to step through its positions with `GET /games/{id}?at=N`.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    request_body(content = String, content_type = "application/x-ndjson", description = "A complete export."),
    responses(
        (status = 201, description = "The sandbox game.", body = GameSummary),
        (status = 422, description = "`invalid_export`, `export_incomplete`, `unknown_game_kind` or `unsupported_rules_version`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/import")]
pub async fn import_game(
    state: web::Data<AppState>,
    caller: Caller,
    body: String,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GamePlay)?;
    let game = import::import(&state.pool, caller.user_id, &body).await?;
    Ok(HttpResponse::Created().json(game))
}
