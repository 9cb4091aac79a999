//! Health probes, at the root (outside `/api/v1`) where proxies, load balancers and
//! orchestrators look for them, and outside the API's versioning.
//!
//! `/healthz` says that the process answers HTTP and has not given up on its embedded
//! database (a liveness probe: restart it when this fails). `/readyz` says whether it can serve the API: the database answers and its schema
//! is the one this binary expects (a readiness probe: send it traffic only when this is 200).

use super::error::{ApiError, ErrorCode, Problem};
use crate::http::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

/// The `Retry-After` of a 503 `not_ready`, in seconds.
pub const NOT_READY_RETRY_AFTER_SECS: u64 = 2;

/// A probe's answer when all is well.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"status": "ok"}))]
pub struct Health {
    /// Always `ok`.
    pub status: &'static str,
}

/// Liveness: the process answers, and has not given up bringing its database back. Touches
/// nothing else (not the database), so a database outage never makes an orchestrator restart
/// a healthy server; only once the embedded cluster has failed to start again for longer than
/// `KONTOR_DB_RECOVERY_LIMIT_SECS` is it 503 `database_lost`, so that a restart is tried.
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "The process answers.", body = Health),
        (status = 503, description = "`database_lost`: the embedded database died and could not be started again for longer than `KONTOR_DB_RECOVERY_LIMIT_SECS`; `detail` says why. Restart the server.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/healthz")]
pub async fn healthz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    if let Some(reason) = state.recovery.given_up() {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::DatabaseLost,
            reason,
        ));
    }
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(Health { status: "ok" }))
}

/// Readiness: the database answers and every migration of this binary has been applied.
/// Otherwise 503 `not_ready` with `Retry-After`.
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "Ready to serve the API.", body = Health),
        (status = 503, description = "`not_ready`: the database cannot be reached or its schema is behind this binary.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let detail = match crate::store::health::pending_migrations(&state.pool).await {
        Ok(pending) if pending.is_empty() => {
            return Ok(HttpResponse::Ok()
                .insert_header(("Cache-Control", "no-store"))
                .json(Health { status: "ok" }));
        }
        Ok(pending) => format!(
            "the database lacks {} migration(s) of this server (first: {}); run `kontor migrate`",
            pending.len(),
            pending[0]
        ),
        Err(error) => {
            // Expected while the database is down; the probe says so, the log need not shout.
            tracing::debug!(%error, "readiness: the database cannot be asked");
            "the database cannot be reached".to_string()
        }
    };
    Err(not_ready(detail))
}

fn not_ready(detail: String) -> ApiError {
    let mut error = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::NotReady, detail)
        .with("retry_after", NOT_READY_RETRY_AFTER_SECS);
    error.retry_after = Some(NOT_READY_RETRY_AFTER_SECS);
    error
}
