//! Audit endpoints: the event log, the export, fairness verification and import.

use crate::audit::log::{self, EventPage, Reader};
use crate::audit::verify::{Verification, verify_export};
use crate::audit::{ExportEvent, ExportHeader, import, parse_ndjson, to_ndjson};
use crate::auth::Scope;
use crate::http::error::{ApiError, ErrorCode, Problem};
use crate::http::extract::caller::Caller;
use crate::http::extract::text::{Json, Query};
use crate::http::replica_reads::{self, LateRead};
use crate::http::state::AppState;
use crate::http::uploads::{self, UploadSlot};
use crate::service::play::lobby::GameSummary;
use actix_web::http::StatusCode;
use actix_web::http::header::Header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Deserialize;
use uuid::Uuid;

/// Largest accepted export upload (verify, import), in bytes. A whole game's export is well
/// under 100 KB; anything larger is refused (413 `payload_too_large`) before it is read.
pub const MAX_EXPORT_BODY: usize = 4 * 1024 * 1024;

/// Most events an uploaded export may have (verify, import). Whole games have a few hundred
/// (each timeout adds one or two); an upload with more is refused (413 `export_too_large`)
/// before any of it is checked.
pub const MAX_EXPORT_EVENTS: usize = 5_000;

/// Reads an uploaded export, within the limits. The bytes must be UTF-8 (an upload described
/// as `application/octet-stream` may be any bytes): others are 422 `invalid_export` naming
/// the line, not a body the server could not decode.
fn parse_upload(bytes: &[u8]) -> Result<(ExportHeader, Vec<ExportEvent>), ApiError> {
    let body = std::str::from_utf8(bytes).map_err(|error| {
        let line = bytes[..error.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        ApiError::unprocessable(
            ErrorCode::InvalidExport,
            format!("an export is UTF-8 text, one JSON document per line; line {line} is not"),
        )
        .with("line", line)
    })?;
    // Counted before parsing, so an oversized upload costs no more than this look.
    let lines = body.lines().filter(|l| !l.trim().is_empty()).count();
    if lines > MAX_EXPORT_EVENTS + 1 {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::ExportTooLarge,
            format!(
                "the export has {} events; at most {MAX_EXPORT_EVENTS} are accepted",
                lines - 1
            ),
        )
        .with("max_events", MAX_EXPORT_EVENTS));
    }
    crate::http::extract::text::check_ndjson(body)?;
    parse_ndjson(body).map_err(|e| ApiError::unprocessable(ErrorCode::InvalidExport, e.to_string()))
}

pub const NDJSON: &str = "application/x-ndjson";
/// The export's other media type, for clients that handle bytes but no ndjson.
pub const OCTET_STREAM: &str = "application/octet-stream";

/// The media type an export is answered in: ndjson, unless `Accept` prefers bytes.
fn export_media_type(req: &HttpRequest) -> &'static str {
    let preferred = actix_web::http::header::Accept::parse(req)
        .ok()
        .and_then(|accept| {
            accept
                .ranked()
                .into_iter()
                .find(|mime| mime.essence_str() == NDJSON || mime.essence_str() == OCTET_STREAM)
        });
    match preferred {
        Some(mime) if mime.essence_str() == OCTET_STREAM => OCTET_STREAM,
        _ => NDJSON,
    }
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct LogQuery {
    /// Return events after this version, 0 to the game's current version (default 0: from
    /// the start); a larger or negative value is refused with `invalid_parameter`.
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// Page size, 1–1000 (default 200).
    #[param(minimum = 1, maximum = 1000)]
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
    query: Query<LogQuery>,
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
    req: HttpRequest,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GameRead)?;
    let game_id = path.into_inner();
    let (header, events) = export(&state, game_id, caller.user_id).await?;
    Ok(HttpResponse::Ok()
        .content_type(export_media_type(&req))
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"kontor-{game_id}.ndjson\""),
        ))
        .body(to_ndjson(&header, &events)))
}

/// The game's log as `reader` may see it, for an export or a verification: a read that may be
/// a little late (`http::replica_reads`).
async fn export(
    state: &AppState,
    game_id: Uuid,
    reader: Uuid,
) -> Result<(ExportHeader, Vec<ExportEvent>), ApiError> {
    replica_reads::answer(state, LateRead::Export, Some(reader), |pool| async move {
        Ok(log::export(&pool, game_id, Reader::User(reader)).await?)
    })
    .await
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
    let (header, events) = export(&state, path.into_inner(), caller.user_id).await?;
    if header.seed.is_none() {
        return Err(ApiError::conflict(
            ErrorCode::GameNotFinished,
            "the seed is revealed when the game ends; verify then",
        ));
    }
    Ok(Json(verify_export(&header, &events)))
}

/// Takes an upload slot of the caller (`uploads_busy` beyond the limits) and reads the body:
/// a slow body holds its slot while it comes.
async fn receive_upload(
    state: &AppState,
    caller: &Caller,
    req: &HttpRequest,
    payload: web::Payload,
) -> Result<(UploadSlot, web::Bytes), ApiError> {
    uploads::check_announced_length(req, MAX_EXPORT_BODY)?;
    let slot = state.uploads.take(caller.user_id, &state.config.uploads)?;
    let body = uploads::read_body(payload, MAX_EXPORT_BODY).await?;
    Ok((slot, body))
}

/// Runs the CPU work of an upload on the blocking pool, off the request threads.
async fn off_the_request_threads<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    web::block(work).await.map_err(ApiError::internal)?
}

/// Verify an uploaded export (`Content-Type: application/x-ndjson`). Anyone may check any
/// complete export, including one edited on purpose. At most 4 MiB and 5,000 events; a user
/// may have 2 uploads checked at once, and the server 4 (configurable), else `uploads_busy`.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    request_body(content = String, content_type = "application/x-ndjson", description = "A complete export."),
    responses(
        (status = 200, description = "The verification.", body = Verification),
        (status = 413, description = "`payload_too_large` (over 4 MiB) or `export_too_large` (over 5,000 events).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_export`: not a Kontor export.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`uploads_busy`: the caller or the server has as many uploads checked at once as allowed; see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/verify")]
pub async fn verify_upload(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<Json<Verification>, ApiError> {
    caller.require(Scope::GameRead)?;
    let (_slot, body) = receive_upload(&state, &caller, &req, payload).await?;
    let outcome = off_the_request_threads(move || {
        let (header, events) = parse_upload(&body)?;
        Ok(verify_export(&header, &events))
    })
    .await?;
    Ok(Json(outcome))
}

/// Import a complete export of a finished game as a new sandbox game of yours (private, not
/// rated, marked with the game it came from), to step through its positions with
/// `GET /games/{id}?at=N`. The export must verify exactly as `POST /verify` checks it (seed,
/// setup, every command re-decided); otherwise nothing is stored and the answer names the
/// first event that differs (`seq`) and why (`reason`). The export of a game that has not
/// ended has no seed and cannot be verified, so it is refused. Only the importer can read the
/// sandbox; to anyone else it does not exist (404). At most 4 MiB and 5,000 events, and
/// the upload limits of `POST /verify`; a user may import 20 games within 24 hours
/// (configurable), else `import_limit_reached`.
#[utoipa::path(
    tag = "audit",
    security(("bearer" = [])),
    request_body(content = String, content_type = "application/x-ndjson", description = "A complete export of a finished game."),
    responses(
        (status = 201, description = "The sandbox game.", body = GameSummary),
        (status = 413, description = "`payload_too_large` (over 4 MiB) or `export_too_large` (over 5,000 events).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_export`, `export_incomplete`, `export_unfinished`, `export_not_verified` (with `seq` and `reason`), `unknown_game_kind` or `unsupported_rules_version`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`uploads_busy` (see `POST /verify`) or `import_limit_reached` (with `limit`): see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/import")]
pub async fn import_game(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GamePlay)?;
    let per_day = state.config.uploads.imports_per_day;
    // Asked before the upload is read, and again when it is stored.
    import::within_daily_limit(
        &state.pool,
        caller.user_id,
        state.config.clock.now(),
        per_day,
    )
    .await?;
    let (_slot, body) = receive_upload(&state, &caller, &req, payload).await?;
    let checked = off_the_request_threads(move || {
        let (header, events) = parse_upload(&body)?;
        Ok(import::check(header, &events)?)
    })
    .await?;
    let now = state.config.clock.now();
    let game = import::store(&state.pool, caller.user_id, checked, now, per_day).await?;
    Ok(HttpResponse::Created()
        .insert_header((
            actix_web::http::header::LOCATION,
            format!("/api/v1/games/{}", game.id),
        ))
        .json(game))
}
