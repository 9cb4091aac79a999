//! The deadline calendar (see `service::delivery::calendar`): the caller's feed (make or replace,
//! look, revoke) and the feed itself, whose URL's token is its only credential.

use crate::http::error::{ApiError, ErrorCode, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::conditional;
use crate::http::extract::text::Json;
use crate::http::state::{AppState, Created};
use crate::service::accounts::calendar_feed::{
    self as feed_link, CalendarFeedCreated, CalendarFeedStatus,
};
use crate::service::delivery::calendar;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use sha2::{Digest, Sha256};

/// The feed's media type (RFC 5545 §8.1).
const CONTENT_TYPE: &str = "text/calendar; charset=utf-8";

/// Calendar programs fetch the feed every quarter of an hour; a minute of private caching
/// spares the server their bursts without hiding a move for long.
const CACHE_CONTROL: &str = "private, max-age=60";

fn calendar_not_found() -> ApiError {
    ApiError::not_found(
        ErrorCode::CalendarNotFound,
        "no calendar feed has this address: it was replaced or revoked, or never existed; make a new one in the settings",
    )
}

/// Make the caller's calendar feed: a private iCalendar (RFC 5545) URL listing the games
/// where it is their move, with the deadlines, for a calendar program to subscribe to.
/// An earlier feed is replaced: its URL stops working. The URL is shown this once (the
/// server keeps only a hash of its token); a password reset, "log out everywhere" and the
/// account's deletion revoke it.
#[utoipa::path(
    tag = "calendar",
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The new feed, its URL shown this once.", body = CalendarFeedCreated),
        Unauthenticated,
        (status = 403, description = "`session_required`: API tokens cannot do this.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/calendar")]
pub async fn create_calendar_feed(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Created<CalendarFeedCreated>, ApiError> {
    caller.require_session()?;
    let created = feed_link::create(&state.pool, &state.config, caller.user_id).await?;
    Ok(Created::at("/me/calendar", created))
}

/// Whether the caller has a calendar feed, and since when (never its URL).
#[utoipa::path(
    tag = "calendar",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Whether there is a feed.", body = CalendarFeedStatus),
        Unauthenticated,
        (status = 403, description = "`session_required`: API tokens cannot do this.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/calendar")]
pub async fn calendar_feed_status(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<CalendarFeedStatus>, ApiError> {
    caller.require_session()?;
    Ok(Json(feed_link::status(&state.pool, caller.user_id).await?))
}

/// Revoke the caller's calendar feed: its URL stops working at once.
#[utoipa::path(
    tag = "calendar",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Revoked."),
        Unauthenticated,
        (status = 403, description = "`session_required`: API tokens cannot do this.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`calendar_not_found`: the caller has no feed.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/calendar")]
pub async fn revoke_calendar_feed(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    if !feed_link::revoke(&state.pool, caller.user_id).await? {
        return Err(ApiError::not_found(
            ErrorCode::CalendarNotFound,
            "you have no calendar feed to revoke",
        ));
    }
    Ok(HttpResponse::NoContent().finish())
}

/// A calendar feed (RFC 5545): one event per running game where it is the feed owner's move
/// now, at its deadline (an all-day event on the day the move became theirs in a game
/// without a time limit), updating as the games move. No credentials but the token in the
/// URL; an unknown, replaced or revoked token is answered 404 `calendar_not_found`, all
/// alike.
#[utoipa::path(
    tag = "calendar",
    params(
        ("token" = String, Path, description = "The feed's token (`kontor_cal_…`), as in the URL `POST /me/calendar` answered."),
        ("If-None-Match" = Option<String>, Header, description = "An `ETag` of an earlier answer: 304 while the feed is still that one."),
    ),
    responses(
        (status = 200, description = "The feed.", body = String, content_type = "text/calendar",
            headers(("ETag" = String, description = "`\"cal-{digest}\"` (16 hex digits of the body's SHA-256), and `-br`, `-gzip` or `-deflate` when the body is sent compressed."))),
        (status = 304, description = "Not modified: `If-None-Match` named the current feed.",
            headers(("ETag" = String, description = "The current feed's tag."))),
        (status = 400, description = "`invalid_parameter` (a malformed `If-None-Match`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`calendar_not_found`: no feed has this token (unknown, replaced or revoked).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/calendar/{token}.ics")]
pub async fn calendar_feed(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let body = calendar::feed(&state.pool, &state.config, &path.into_inner())
        .await?
        .ok_or_else(calendar_not_found)?;
    let digest = hex::encode(&Sha256::digest(body.as_bytes())[..8]);
    let tag = conditional::coded(
        format!("cal-{digest}"),
        conditional::coding(&req, CONTENT_TYPE),
    );
    let condition = conditional::requested(&req, header::IF_NONE_MATCH, "\"cal-…\"")?;
    if condition.is_some_and(|condition| conditional::none_match(&condition, &tag)) {
        return Ok(HttpResponse::NotModified()
            .insert_header(header::ETag(header::EntityTag::new_strong(tag)))
            .insert_header((header::CACHE_CONTROL, CACHE_CONTROL))
            .finish());
    }
    Ok(HttpResponse::Ok()
        .content_type(CONTENT_TYPE)
        .insert_header(header::ETag(header::EntityTag::new_strong(tag)))
        .insert_header((header::CACHE_CONTROL, CACHE_CONTROL))
        // The URL is a secret: no page or program should pass it on.
        .insert_header(("Referrer-Policy", "no-referrer"))
        .insert_header(("X-Robots-Tag", "noindex"))
        .body(body))
}
