//! Table talk: a game's chat channels, messages, read markers, reports, and the moderators'
//! endpoints (see `service::social::chat` for who may do what).

use crate::auth::Scope;
use crate::http::error::{ApiError, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::text::{Json, OptionalJson, Query};
use crate::http::state::AppState;
use crate::service::social::chat::moderation::{self, MuteRequest, MuteView, ReportView};
use crate::service::social::chat::{
    self, ChatMessage, ChatOverview, ChatPage, ReadRequest, ReportCreated, ReportRequest,
    SendRequest, Sent, SpectatorsRequest,
};
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, put, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The chat of a game as the caller may see it: the setting, and each channel the caller may
/// read now with their read marker and unread count (a seat of a `full` table sees one
/// private channel for every other seat, listed even when empty).
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    responses(
        (status = 200, description = "The channels the caller may read.", body = ChatOverview),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or the caller may not read it.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{game_id}/chat")]
pub async fn chat_overview(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<ChatOverview>, ApiError> {
    caller.require(Scope::GameRead)?;
    Ok(Json(
        chat::overview(&state.pool, path.into_inner(), caller.user_id).await?,
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Messages after this id (default 0: from the first).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// Page size, 1–200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
}

/// One page of a channel's messages, ascending by id. A channel the caller may not read
/// answers exactly as one that does not exist.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("channel" = String, Path, description = "`table`, `spectators` or `private:A-B` (seats A < B)."),
        PageQuery,
    ),
    responses(
        (status = 200, description = "The page.", body = ChatPage),
        (status = 400, description = "`invalid_parameter` (`after`, `limit`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found` or `chat_channel_not_found`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{game_id}/chat/{channel}/messages")]
pub async fn chat_messages(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(Uuid, String)>,
    query: Query<PageQuery>,
) -> Result<Json<ChatPage>, ApiError> {
    caller.require(Scope::GameRead)?;
    let (game_id, channel) = path.into_inner();
    let query = query.into_inner();
    Ok(Json(
        chat::page(
            &state.pool,
            game_id,
            caller.user_id,
            &channel,
            query.after,
            query.limit,
        )
        .await?,
    ))
}

/// Send a message. Send an `Idempotency-Key` (1 to 255 visible ASCII characters, unique per
/// message): a retry with the same key and text gets the same message back (200 with
/// `Idempotent-Replayed: true`) and posts nothing; the same key with another text or channel
/// is refused. Sending never changes the game's version or ETag.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("channel" = String, Path, description = "`table`, `spectators` or `private:A-B` (seats A < B)."),
        ("Idempotency-Key" = String, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "Unique per intended message; retries reuse it. A key is the caller's within this game."),
    ),
    request_body = SendRequest,
    responses(
        (status = 201, description = "Sent.", body = ChatMessage),
        (status = 200, description = "A retry: the message the first request with this key sent.", body = ChatMessage,
            headers(("Idempotent-Replayed" = String, description = "`true`."))),
        (status = 400, description = "Malformed JSON or `idempotency_key_required`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`chat_read_only`, `chat_channel_closed`, `chat_muted` (with `muted_until`), `chat_blocked`, `insufficient_scope` or `email_not_verified`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found` or `chat_channel_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_chat_message` or `idempotency_key_reused`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`chat_rate_limited` or `chat_daily_limit`, with `Retry-After`.", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = String, description = "Seconds to wait."))),
    )
)]
#[post("/games/{game_id}/chat/{channel}/messages")]
pub async fn send_chat_message(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<(Uuid, String)>,
    body: Json<SendRequest>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GamePlay)?;
    crate::http::extract::caller::require_verified(&state, &caller).await?;
    let key = crate::http::extract::headers::idempotency_key(&req)?;
    let (game_id, channel) = path.into_inner();
    let sent = chat::send(
        &state.pool,
        &state.config.clock,
        (&state.config.limits).into(),
        chat::Sender {
            game_id,
            caller: caller.user_id,
            channel: &channel,
            key: &key,
        },
        &body.into_inner(),
    )
    .await?;
    Ok(match sent {
        Sent::Created(message) => HttpResponse::Created()
            .insert_header((
                header::LOCATION,
                format!(
                    "/api/v1/games/{game_id}/chat/{}/messages?after={}&limit=1",
                    message.channel,
                    message.id - 1
                ),
            ))
            .json(message),
        Sent::Replayed(message) => HttpResponse::Ok()
            .insert_header(("Idempotent-Replayed", "true"))
            .json(message),
    })
}

/// Move the caller's read marker of a channel forward (it never moves back).
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("channel" = String, Path, description = "`table`, `spectators` or `private:A-B`."),
    ),
    request_body = ReadRequest,
    responses(
        (status = 204, description = "The marker is at `up_to` or beyond."),
        (status = 400, description = "Malformed JSON.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found` or `chat_channel_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field` (`up_to` below 0).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/games/{game_id}/chat/{channel}/read")]
pub async fn mark_chat_read(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(Uuid, String)>,
    body: Json<ReadRequest>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GameRead)?;
    let (game_id, channel) = path.into_inner();
    chat::mark_read(&state.pool, game_id, caller.user_id, &channel, body.up_to).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Open or close the spectators' channel (the game's creator only). Closed, it stays
/// readable; writes get 403 `chat_channel_closed`.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    request_body = SpectatorsRequest,
    responses(
        (status = 200, description = "The chat as the creator now sees it.", body = ChatOverview),
        (status = 400, description = "Malformed JSON.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_the_creator` or `insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/games/{game_id}/chat/spectators")]
pub async fn set_spectators_channel(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
    body: Json<SpectatorsRequest>,
) -> Result<Json<ChatOverview>, ApiError> {
    caller.require(Scope::GamePlay)?;
    Ok(Json(
        chat::set_spectators(&state.pool, path.into_inner(), caller.user_id, body.open).await?,
    ))
}

/// Report a message to the moderators (anyone who may read it). One report per reader and
/// message: reporting again answers 200 with the first report.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("message_id" = i64, Path, description = "The message.")),
    request_body = ReportRequest,
    responses(
        (status = 201, description = "Reported.", body = ReportCreated),
        (status = 200, description = "Reported before: the first report.", body = ReportCreated),
        (status = 400, description = "Malformed JSON or an unknown reason.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`chat_message_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field` (`note`).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/chat/messages/{message_id}/report")]
pub async fn report_chat_message(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<i64>,
    body: Json<ReportRequest>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GameRead)?;
    let (report, new) = moderation::report(
        &state.pool,
        path.into_inner(),
        caller.user_id,
        &body.into_inner(),
    )
    .await?;
    Ok(if new {
        HttpResponse::Created().json(report)
    } else {
        HttpResponse::Ok().json(report)
    })
}

#[derive(Debug, Clone, Copy, Deserialize, ToSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum ReportStatus {
    #[default]
    Open,
    All,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ReportsQuery {
    /// `open` (default) or `all`.
    pub status: Option<ReportStatus>,
    /// At most this many (1–1000, default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct ReportList {
    pub items: Vec<ReportView>,
}

/// Reports of chat messages, the oldest first, with each message's whole text. Admins only.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(ReportsQuery),
    responses(
        (status = 200, description = "The reports.", body = ReportList),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`admin_required` or `session_required`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/admin/chat/reports")]
pub async fn chat_reports(
    state: web::Data<AppState>,
    caller: Caller,
    query: Query<ReportsQuery>,
) -> Result<Json<ReportList>, ApiError> {
    crate::http::extract::caller::require_admin(&state, &caller).await?;
    let limit = query.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::bad_request(
            crate::http::error::ErrorCode::InvalidParameter,
            "limit is between 1 and 1000",
        ));
    }
    let open_only = matches!(query.status.unwrap_or_default(), ReportStatus::Open);
    Ok(Json(ReportList {
        items: moderation::reports(&state.pool, open_only, limit).await?,
    }))
}

/// Why a report is dismissed (optional).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "friendly banter between the two"}))]
pub struct DismissRequest {
    /// `null` or absent: no word; else 1–500 characters, one line, kept for the record.
    #[serde(default)]
    pub reason: Option<String>,
}

/// Dismiss a report: the message stays as it is, the report leaves the open list, resolved
/// as `dismissed` with who and when (and the reason, if given; no body is no reason). Idempotent: a report resolved
/// before (dismissed, or its message hidden) is answered as it stands, unchanged. Admins only.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("report_id" = i64, Path, description = "The report.")),
    request_body(content = DismissRequest, description = "Optional: a reason (no body, or `{}`, for none)."),
    responses(
        (status = 200, description = "Dismissed (or resolved before); the report.", body = ReportView),
        (status = 400, description = "Malformed JSON.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`admin_required` or `session_required`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`chat_report_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field` (`reason`).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/admin/chat/reports/{report_id}/dismiss")]
pub async fn dismiss_chat_report(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<i64>,
    body: OptionalJson<DismissRequest>,
) -> Result<Json<ReportView>, ApiError> {
    crate::http::extract::caller::require_admin(&state, &caller).await?;
    let reason = body.0.and_then(|b| b.reason);
    Ok(Json(
        moderation::dismiss(
            &state.pool,
            &state.config.clock,
            path.into_inner(),
            Some(caller.user_id),
            reason.as_deref(),
        )
        .await?
        .0,
    ))
}

/// Why a message is hidden.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HideRequest {
    /// 1–500 characters, one line; kept for the record.
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
}

/// Hide a message: it stays in the database for the record; everyone but admins sees it as
/// removed by a moderator (without its text). Its open reports are resolved. Admins only.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("message_id" = i64, Path, description = "The message.")),
    request_body = HideRequest,
    responses(
        (status = 200, description = "Hidden (or hidden before); the message as admins see it.", body = ChatMessage),
        (status = 400, description = "Malformed JSON.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`admin_required` or `session_required`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`chat_message_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field` (`reason`).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/admin/chat/messages/{message_id}/hide")]
pub async fn hide_chat_message(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<i64>,
    body: Json<HideRequest>,
) -> Result<Json<ChatMessage>, ApiError> {
    crate::http::extract::caller::require_admin(&state, &caller).await?;
    Ok(Json(
        moderation::hide(
            &state.pool,
            path.into_inner(),
            Some(caller.user_id),
            &body.reason,
        )
        .await?,
    ))
}

/// Mute an account from every chat for a time, with the reason recorded. Admins only.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    request_body = MuteRequest,
    responses(
        (status = 201, description = "Muted.", body = MuteView),
        (status = 400, description = "Malformed JSON.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`admin_required` or `session_required`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`user_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field` (`minutes`, `reason`).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/admin/chat/mutes")]
pub async fn mute_chat_user(
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<MuteRequest>,
) -> Result<HttpResponse, ApiError> {
    crate::http::extract::caller::require_admin(&state, &caller).await?;
    let mute = moderation::mute(
        &state.pool,
        &state.config.clock,
        Some(caller.user_id),
        &body.into_inner(),
    )
    .await?;
    Ok(HttpResponse::Created().json(mute))
}

/// Lift an account's running chat mutes. Admins only.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("user_id" = Uuid, Path, description = "The account.")),
    responses(
        (status = 204, description = "No mute runs for the account any more."),
        Unauthenticated,
        (status = 403, description = "`admin_required` or `session_required`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/admin/chat/mutes/{user_id}")]
pub async fn unmute_chat_user(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    crate::http::extract::caller::require_admin(&state, &caller).await?;
    moderation::unmute(&state.pool, &state.config.clock, path.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
