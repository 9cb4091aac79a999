//! The HTTP API under `/api/v1`: handlers per resource, input error handling and the
//! OpenAPI description assembled from the handlers.

pub mod absence;
pub mod accounts;
pub mod audit;
pub mod body_deadline;
pub mod calendar;
pub mod caller;
pub mod chat;
pub mod conditional;
pub mod cors;
pub mod error;
pub mod forwarded;
pub mod games;
pub mod headers;
pub mod health;
pub mod live;
pub mod lobby_stream;
pub mod methods;
pub mod metrics;
pub mod notes;
pub mod notifications;
pub mod observe;
pub mod openapi;
pub mod page;
pub mod players;
pub mod profile;
pub mod push;
pub mod query_policy;
pub mod rematch;
pub mod request_log;
pub mod security;
pub mod session;
pub mod text;
pub mod tournaments;
pub mod undo;
pub mod uploads;
pub mod webhooks;

use crate::auth::JwtKeys;
use crate::config::Config;
use actix_web::ResponseError;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::ServiceResponse;
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::middleware::ErrorHandlerResponse;
use actix_web::{HttpRequest, HttpResponse, Responder, web};
use error::{ApiError, ErrorCode};
use serde::Serialize;
use sqlx::PgPool;
use utoipa_actix_web::service_config::ServiceConfig;

pub use text::{Json, OptionalJson, Query};

/// Largest accepted JSON body.
pub const MAX_JSON_BODY: usize = 64 * 1024;

/// What every handler can reach.
pub struct AppState {
    pub pool: PgPool,
    pub jwt: JwtKeys,
    pub config: Config,
    /// The OpenAPI description, built once at start.
    pub openapi: serde_json::Value,
    /// What the command service last knew of each game (see `service::cache`).
    pub cache: crate::service::play::cache::ContextCache,
    /// Live notes from every instance, fanned out to this one's streams.
    pub hub: std::sync::Arc<crate::live::Hub>,
    /// The shared readings of the games with live streams here (see `service::feed`).
    pub feeds: std::sync::Arc<crate::service::streams::game::Feeds>,
    /// Writes this instance's appends (in batches) and announces them.
    pub committer: crate::service::play::committer::Committer,
    /// Users recently found to exist, so access tokens of vanished users are refused cheaply.
    pub known_users: crate::auth::credentials::KnownUsers,
    /// The uploaded exports being read and checked (`KONTOR_UPLOADS_MAX`…).
    pub uploads: uploads::UploadSlots,
    /// The server's VAPID key pair for Web Push.
    pub vapid: std::sync::Arc<crate::service::delivery::push::vapid::Vapid>,
}

/// A `201 Created` JSON response with the created resource's address in `Location`
/// (a path below `/api/v1`, e.g. `/games/{id}`).
pub struct Created<T> {
    pub body: T,
    pub location: String,
}

impl<T> Created<T> {
    pub fn at(location: impl Into<String>, body: T) -> Self {
        Self {
            body,
            location: location.into(),
        }
    }
}

impl<T: Serialize> Responder for Created<T> {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        HttpResponse::Created()
            .insert_header((header::LOCATION, format!("/api/v1{}", self.location)))
            .json(self.body)
    }
}

/// The client's address: the peer's, or, when the peer is one of `KONTOR_TRUSTED_PROXIES`,
/// the address its `X-Forwarded-For` names (see [`forwarded`]). Whatever keys on the client
/// (the login throttle, the request log) asks here.
pub fn client_address(req: &HttpRequest) -> Option<String> {
    let peer = req.peer_addr()?.ip();
    let forwarded_for = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok());
    Some(forwarded::client_ip(peer, forwarded_for, trusted_proxies(req)).to_string())
}

/// `KONTOR_TRUSTED_PROXIES` (none when the request has no app state).
fn trusted_proxies(req: &HttpRequest) -> &[ipnet::IpNet] {
    req.app_data::<web::Data<AppState>>()
        .map(|state| state.config.trusted_proxies.as_slice())
        .unwrap_or_default()
}

/// The scheme and host the client asked for, for the log: a trusted proxy's
/// `Forwarded`/`X-Forwarded-Proto`/`X-Forwarded-Host` say them; from anyone else those
/// headers are ignored (the server itself speaks plain HTTP, and the host is the `Host`
/// header's).
pub fn requested_scheme_and_host(req: &HttpRequest) -> (String, String) {
    let from_trusted_proxy = req
        .peer_addr()
        .is_some_and(|peer| forwarded::is_trusted_proxy(peer.ip(), trusted_proxies(req)));
    if from_trusted_proxy {
        let info = req.connection_info();
        return (info.scheme().to_string(), info.host().to_string());
    }
    let host = req
        .headers()
        .get(actix_web::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    ("http".to_string(), host.to_string())
}

/// Registers the health probes and the metrics (at the root, outside `/api/v1`).
pub fn configure_root(cfg: &mut ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(metrics::metrics);
}

/// Registers every API endpoint (under the `/api/v1` scope given by the caller).
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(accounts::register)
        .service(accounts::login)
        .service(accounts::refresh)
        .service(accounts::logout)
        .service(session::open_session)
        .service(session::refresh_session)
        .service(session::close_session)
        .service(accounts::me)
        .service(accounts::create_token)
        .service(accounts::list_tokens)
        .service(accounts::revoke_token)
        .service(security::verify_email)
        .service(security::resend_verification)
        .service(security::forgot_password)
        .service(security::reset_password)
        .service(security::change_password)
        .service(security::change_email)
        .service(security::list_sessions)
        .service(security::revoke_other_sessions)
        .service(security::revoke_session)
        .service(profile::put_profile)
        .service(profile::delete_me)
        .service(profile::export_me)
        .service(profile::list_blocks)
        .service(profile::block)
        .service(profile::unblock)
        .service(games::list_kinds)
        .service(games::list_games)
        .service(games::create_game)
        .service(games::get_game)
        .service(games::join_game)
        .service(games::leave_game)
        .service(games::start_game)
        .service(games::cancel_game)
        .service(games::invite)
        .service(games::submit_action)
        .service(absence::return_to_seat)
        .service(rematch::get_rematch)
        .service(rematch::offer_rematch)
        .service(rematch::answer_rematch)
        .service(undo::undo)
        .service(undo::answer_undo)
        .service(undo::withdraw_undo)
        .service(absence::get_vacation)
        .service(absence::start_vacation)
        .service(absence::end_vacation)
        .service(chat::chat_overview)
        .service(chat::chat_messages)
        .service(chat::send_chat_message)
        .service(chat::mark_chat_read)
        .service(chat::set_spectators_channel)
        .service(chat::report_chat_message)
        .service(chat::chat_reports)
        .service(chat::dismiss_chat_report)
        .service(chat::hide_chat_message)
        .service(chat::mute_chat_user)
        .service(chat::unmute_chat_user)
        .service(notes::get_note)
        .service(notes::put_note)
        .service(live::game_stream)
        .service(live::user_stream)
        .service(lobby_stream::lobby_stream)
        .service(audit::event_log)
        .service(audit::export_game)
        .service(audit::verification)
        .service(audit::verify_upload)
        .service(audit::import_game)
        .service(push::vapid_public_key)
        .service(push::add_push_subscription)
        .service(push::list_push_subscriptions)
        .service(push::remove_push_subscription)
        .service(push::test_push_subscription)
        .service(notifications::get_preferences)
        .service(notifications::put_preferences)
        .service(notifications::unsubscribe_page)
        .service(notifications::unsubscribe)
        .service(notifications::failed_mails)
        .service(notifications::retry_mail)
        .service(notifications::retry_failed_mails)
        .service(webhooks::create_webhook)
        .service(webhooks::list_webhooks)
        .service(webhooks::get_webhook)
        .service(webhooks::update_webhook)
        .service(webhooks::delete_webhook)
        .service(webhooks::rotate_webhook_secret)
        .service(webhooks::test_webhook)
        .service(webhooks::webhook_deliveries)
        .service(webhooks::redeliver_webhook)
        .service(players::player_profile)
        .service(players::rating_history)
        .service(players::leaderboard)
        // Tournaments
        .service(tournaments::create_tournament)
        .service(tournaments::list_tournaments)
        .service(tournaments::get_tournament)
        .service(tournaments::join_tournament)
        .service(tournaments::leave_tournament)
        .service(tournaments::start_tournament)
        .service(tournaments::withdraw_from_tournament)
        // The deadline calendar
        .service(calendar::create_calendar_feed)
        .service(calendar::calendar_feed_status)
        .service(calendar::revoke_calendar_feed)
        .service(calendar::calendar_feed)
        .service(openapi::serve_spec);
}

/// JSON bodies: size limit, and client mistakes answered as problem+json.
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(MAX_JSON_BODY)
        .error_handler(|error, _req| json_error(&error).into())
}

fn json_error(error: &JsonPayloadError) -> ApiError {
    match error {
        JsonPayloadError::OverflowKnownLength { length, limit } => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::PayloadTooLarge,
            format!("the body has {length} bytes; at most {limit} are accepted"),
        ),
        JsonPayloadError::Overflow { limit } => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::PayloadTooLarge,
            format!("the body is larger than the {limit} bytes accepted"),
        ),
        JsonPayloadError::ContentType => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::UnsupportedMediaType,
            "send the body as Content-Type: application/json",
        ),
        JsonPayloadError::Deserialize(e) if e.is_data() => ApiError::bad_request(
            ErrorCode::InvalidBody,
            format!("the body does not fit: {e}"),
        ),
        JsonPayloadError::Deserialize(e) => ApiError::bad_request(
            ErrorCode::MalformedJson,
            format!("the body is not valid JSON: {e}"),
        ),
        other => ApiError::bad_request(
            ErrorCode::MalformedJson,
            format!("the body could not be read: {other}"),
        ),
    }
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default()
        .error_handler(|error: QueryPayloadError, _req| query_error(&error).into())
}

fn query_error(error: &QueryPayloadError) -> ApiError {
    ApiError::bad_request(
        ErrorCode::InvalidParameter,
        format!("bad query parameters: {error}"),
    )
}

pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|error: PathError, _req| {
        ApiError::bad_request(ErrorCode::InvalidParameter, format!("bad path: {error}")).into()
    })
}

/// Turns any error response that is not yet problem+json (actix's own answers to oversized
/// uploads, unsupported methods and the like) into one, so every error has the same shape.
pub fn problem_fallback<B: MessageBody + 'static>(
    response: ServiceResponse<B>,
) -> actix_web::Result<ErrorHandlerResponse<B>> {
    log_error_response(&response);
    let is_problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/problem+json"));
    if is_problem {
        return Ok(ErrorHandlerResponse::Response(
            response.map_into_left_body(),
        ));
    }
    let status = response.status();
    let detail = match response.response().error() {
        Some(error) => error.to_string(),
        None => status.canonical_reason().unwrap_or("error").to_lowercase(),
    };
    let code = match status.as_u16() {
        400 => ErrorCode::InvalidBody,
        404 => ErrorCode::NotFound,
        405 => ErrorCode::MethodNotAllowed,
        413 => ErrorCode::PayloadTooLarge,
        415 => ErrorCode::UnsupportedMediaType,
        500..=599 => ErrorCode::InternalError,
        _ => ErrorCode::RequestRejected,
    };
    let (request, _) = response.into_parts();
    let problem = ApiError::new(status, code, detail).error_response();
    Ok(ErrorHandlerResponse::Response(
        ServiceResponse::new(request, problem).map_into_right_body(),
    ))
}

/// Logs an error response by its class: a client's mistake (4xx: an unknown id, a stale
/// version, a refused action) is routine and logged at debug only; a server failure (5xx) at
/// error, unless it is an `ApiError` with a cause, which logged itself with that cause.
fn log_error_response<B>(response: &ServiceResponse<B>) {
    let status = response.status();
    let error = response.response().error();
    // A string, which the text log quotes: a client error's text may quote the client.
    let detail = error.map(ToString::to_string);
    let detail = detail.as_deref();
    let api_error = error.and_then(|e| e.as_error::<ApiError>());
    if status.is_client_error() {
        tracing::debug!(status = status.as_u16(), error = detail, "client error");
    } else if api_error.is_some_and(|e| e.code == ErrorCode::NotReady) {
        // A probe asks every few seconds while the database is down: once per probe at
        // error level would drown the log; the outage itself is logged where it hurts.
        tracing::debug!(status = status.as_u16(), error = detail, "not ready");
    } else if !api_error.is_some_and(ApiError::logged) {
        tracing::error!(status = status.as_u16(), error = detail, "server error");
    }
}
