//! Cross-origin requests (CORS) for the browser clients named in `KONTOR_CORS_ORIGINS`.
//!
//! With no origins configured the server sends no CORS headers at all (browsers then keep
//! other sites' pages away from the API). For a configured origin, a preflight (`OPTIONS`
//! with `Access-Control-Request-Method`) is answered here, before routing and
//! authentication, with the methods and request headers the API uses; every other answer to
//! that origin says `Access-Control-Allow-Origin` and exposes the response headers clients
//! read (`ETag`, `Idempotent-Replayed`, `Retry-After`, `Location`, `X-Request-Id`, and
//! `Allow`, which a 405 lists the path's methods in). No credentials mode:
//! tokens travel in `Authorization`, never in cookies. A request from any other origin is
//! served as it would be without CORS (the browser then withholds the answer from that page;
//! same-origin pages such as `/docs/` send `Origin` too and must keep working).

use crate::http::state::AppState;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{Error, HttpResponse, web};

/// The methods the API answers.
pub const ALLOW_METHODS: &str = "GET, HEAD, POST, PUT, DELETE";
/// The request headers the API reads (besides the CORS-safelisted ones).
pub const ALLOW_HEADERS: &str = "authorization, content-type, idempotency-key, if-match, if-none-match, last-event-id, x-request-id";
/// The response headers a cross-origin page may read (besides the safelisted ones).
pub const EXPOSE_HEADERS: &str =
    "etag, idempotent-replayed, retry-after, location, x-request-id, allow";
/// How long a browser may cache a preflight's answer, in seconds.
pub const MAX_AGE: &str = "3600";

/// The middleware (for `actix_web::middleware::from_fn`).
pub async fn cors(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    let configured = req
        .app_data::<web::Data<AppState>>()
        .map(|state| state.config.cors_origins.clone())
        .unwrap_or_default();
    if configured.is_empty() {
        return Ok(next.call(req).await?.map_into_left_body());
    }
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .filter(|o| configured.iter().any(|c| c.as_bytes() == o.as_bytes()))
        .cloned();
    let preflight = req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    if let (Some(origin), true) = (&origin, preflight) {
        let response = HttpResponse::build(StatusCode::NO_CONTENT)
            .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone()))
            .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, ALLOW_METHODS))
            .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, ALLOW_HEADERS))
            .insert_header((header::ACCESS_CONTROL_MAX_AGE, MAX_AGE))
            .insert_header((
                header::VARY,
                "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
            ))
            .finish();
        return Ok(req.into_response(response).map_into_right_body());
    }
    let mut response = next.call(req).await?;
    let headers = response.headers_mut();
    // The answer depends on `Origin` whenever origins are configured: caches must keep apart
    // the answers to different origins (and to none).
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
    if let Some(origin) = origin {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSE_HEADERS),
        );
    }
    Ok(response.map_into_left_body())
}
