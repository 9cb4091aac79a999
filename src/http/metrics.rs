//! `/metrics`: Prometheus's text format, at the root like the health probes.
//!
//! Two ways to serve it, either or both (settings): on the main address to
//! `Authorization: Bearer <KONTOR_METRICS_TOKEN>`, and on a separate address
//! (`KONTOR_METRICS_BIND`, meant for a private network) that serves nothing else and asks for
//! no token. With neither, metrics are not recorded at all and `/metrics` is 404.

use super::error::{ApiError, ErrorCode, Problem};
use crate::http::state::AppState;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};

/// Prometheus's text exposition format.
const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The server's metrics (Prometheus text format): requests by route and status with latency
/// histograms, actions appended, group-commit batch sizes, pool use, open live streams, the
/// mail outbox, mails sent and failed, deadlines due and timeouts applied. Served here only
/// when `KONTOR_METRICS_TOKEN` is set, to that token; the separate `KONTOR_METRICS_BIND`
/// address serves it without one.
#[utoipa::path(
    tag = "health",
    security(("metrics_token" = [])),
    responses(
        (status = 200, description = "Every metric, in Prometheus's text format (version 0.0.4).", body = String, content_type = "text/plain"),
        (status = 401, description = "`unauthenticated` (no bearer token) or `invalid_token` (not the metrics token).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`metrics_not_served`: this server does not serve metrics on this address (`KONTOR_METRICS_TOKEN` is not set).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/metrics")]
pub async fn metrics(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let Some(token) = state.config.metrics_token.as_deref() else {
        return Err(ApiError::not_found(
            ErrorCode::MetricsNotServed,
            "this server serves no metrics on this address",
        ));
    };
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_token);
    match given {
        None => Err(ApiError::unauthorized(
            ErrorCode::Unauthenticated,
            "send the metrics token as Authorization: Bearer <token>",
        )),
        Some(given) if !same_secret(given.trim().as_bytes(), token.as_bytes()) => Err(
            ApiError::unauthorized(ErrorCode::InvalidToken, "that is not the metrics token"),
        ),
        Some(_) => Ok(scrape(&state).await),
    }
}

/// The separate metrics address: `/metrics` without a token.
pub async fn metrics_without_token(state: web::Data<AppState>) -> HttpResponse {
    scrape(&state).await
}

/// Anything else on the separate metrics address: 404.
pub async fn only_metrics() -> Result<HttpResponse, ApiError> {
    Err(ApiError::not_found(
        ErrorCode::NotFound,
        "this address serves only GET /metrics",
    ))
}

async fn scrape(state: &AppState) -> HttpResponse {
    let text = crate::ops::metrics::scrape(&state.pool, state.config.clock.now()).await;
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, TEXT_FORMAT))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(text)
}

/// The token of an `Authorization: Bearer <token>` value. The scheme's name is
/// case-insensitive (RFC 9110, 11.1): `bearer` and `BEARER` are Bearer too.
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then_some(token)
}

/// Compares two secrets in time that does not depend on where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
