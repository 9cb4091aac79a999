//! Error answers that did not come from a handler (the framework's own 404, 405, …) become
//! problem+json too, and error answers are logged by class.

use crate::http::error::{ApiError, ErrorCode};
use actix_web::ResponseError;
use actix_web::body::MessageBody;
use actix_web::dev::ServiceResponse;
use actix_web::http::header;
use actix_web::middleware::ErrorHandlerResponse;

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
    } else if api_error
        .is_some_and(|e| e.code == ErrorCode::NotReady || e.code == ErrorCode::DatabaseLost)
    {
        // A probe asks every few seconds while the database is down: once per probe at
        // error level would drown the log; the outage itself is logged where it hurts (giving
        // up on the embedded cluster once, at error, by its watchdog).
        tracing::debug!(status = status.as_u16(), error = detail, "not ready");
    } else if !api_error.is_some_and(ApiError::logged) {
        tracing::error!(status = status.as_u16(), error = detail, "server error");
    }
}
