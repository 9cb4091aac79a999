//! Errors as `application/problem+json` (RFC 9457) with a stable `code`.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use utoipa::ToSchema;

/// The body of every error response.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "type": "urn:kontor:problem:version_conflict",
    "title": "Conflict",
    "status": 409,
    "code": "version_conflict",
    "detail": "the game is at version 13, not 12: reload it and decide again",
    "current_version": 13
}))]
pub struct Problem {
    /// `urn:kontor:problem:<code>`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The HTTP status text.
    pub title: String,
    pub status: u16,
    /// Stable machine-readable code; see the list in the API description.
    pub code: String,
    /// What went wrong, for a person.
    pub detail: String,
    /// Further members depending on the code (`current_version`, `field`, `retry_after`…).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub extra: Map<String, Value>,
}

/// An error answered to the client. Internal failures carry their cause for the log only.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: Cow<'static, str>,
    pub detail: String,
    pub extra: Map<String, Value>,
    pub retry_after: Option<u64>,
    /// Logged, never shown: the cause of a 500.
    internal: Option<anyhow::Error>,
}

impl ApiError {
    pub fn new(
        status: StatusCode,
        code: impl Into<Cow<'static, str>>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            status,
            code: code.into(),
            detail: detail.into(),
            extra: Map::new(),
            retry_after: None,
            internal: None,
        }
    }

    /// Adds a member to the problem body.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    pub fn bad_request(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, detail)
    }

    pub fn unauthorized(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, code, detail)
    }

    pub fn forbidden(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, code, detail)
    }

    pub fn not_found(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, code, detail)
    }

    pub fn conflict(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, detail)
    }

    pub fn unprocessable(code: impl Into<Cow<'static, str>>, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, detail)
    }

    pub fn too_many_requests(retry_after_secs: u64, detail: impl Into<String>) -> Self {
        let mut error = Self::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", detail)
            .with("retry_after", retry_after_secs);
        error.retry_after = Some(retry_after_secs);
        error
    }

    /// A failure of the server: 500, or 503 `database_unavailable` with `Retry-After` when
    /// the cause is that the database cannot be reached (so clients and load balancers back
    /// off and retry instead of treating it as a bug).
    pub fn internal(cause: impl Into<anyhow::Error>) -> Self {
        let cause = cause.into();
        if database_unreachable(&cause) {
            return Self::unavailable(cause);
        }
        let mut error = Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "the server failed to handle this request; it has been logged",
        );
        error.internal = Some(cause);
        error
    }

    /// 503 `database_unavailable` with `Retry-After`: the database cannot be reached (the
    /// cause is logged, as a warning).
    pub fn unavailable(cause: anyhow::Error) -> Self {
        let mut error = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "database_unavailable",
            "the database cannot be reached right now; retry after `Retry-After` seconds",
        )
        .with("retry_after", DATABASE_RETRY_AFTER_SECS);
        error.retry_after = Some(DATABASE_RETRY_AFTER_SECS);
        error.internal = Some(cause);
        error
    }

    /// Whether answering this error logs it (a server failure with its cause).
    pub fn logged(&self) -> bool {
        self.internal.is_some()
    }

    pub fn problem(&self) -> Problem {
        Problem {
            kind: format!("urn:kontor:problem:{}", self.code),
            title: self
                .status
                .canonical_reason()
                .unwrap_or("Error")
                .to_string(),
            status: self.status.as_u16(),
            code: self.code.to_string(),
            detail: self.detail.clone(),
            extra: self.extra.clone(),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.detail)
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(error: sqlx::Error) -> Self {
        Self::internal(error)
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(error: anyhow::Error) -> Self {
        Self::internal(error)
    }
}

// ---------------------------------------------------------------------------------------
// The one place where the errors of the layers below become HTTP answers: each variant gets
// its status, its stable code and its extra members; its message is the problem's `detail`.

impl From<crate::service::Error> for ApiError {
    fn from(error: crate::service::Error) -> Self {
        use crate::service::Error as E;
        let detail = error.to_string();
        match error {
            E::GameNotFound => Self::not_found("game_not_found", detail),
            E::VersionConflict { current, .. } => {
                Self::conflict("version_conflict", detail).with("current_version", current)
            }
            E::Rule(refusal) => Self::unprocessable(refusal.code, detail),
            E::InvalidCommand { .. } => Self::unprocessable("invalid_command", detail),
            E::IdempotencyKeyReused => Self::unprocessable("idempotency_key_reused", detail),
            E::NotAPlayer | E::NotYourSeat { .. } | E::OnlyPlayersInvite => {
                Self::forbidden("not_a_player", detail)
            }
            E::SeatForfeited | E::ForfeitedSeatNotReturnable => {
                Self::conflict("seat_forfeited", detail)
            }
            E::SeatAbandoned => Self::conflict("seat_abandoned", detail),
            E::SeatNotAbandoned => Self::conflict("seat_not_abandoned", detail),
            E::GameNotActive { status } => {
                Self::conflict("game_not_active", detail).with("game_status", status.as_str())
            }
            E::GameNotRunning => Self::conflict("game_not_active", detail),
            E::WrongStatus { status, .. } => {
                Self::conflict("wrong_status", detail).with("game_status", status.as_str())
            }
            E::AlreadySeated => Self::conflict("already_seated", detail),
            E::NotInvited => Self::forbidden("not_invited", detail),
            E::SeatTaken(_) => Self::conflict("seat_taken", detail),
            E::GameFull => Self::conflict("game_full", detail),
            E::NotTheCreator { .. } => Self::forbidden("not_the_creator", detail),
            E::UserNotFound(_) => Self::not_found("user_not_found", detail),
            E::NotEnoughPlayers { .. } => Self::conflict("not_enough_players", detail),
            E::UnknownGameKind { .. } => {
                Self::unprocessable("unknown_game_kind", detail).with("field", "kind")
            }
            E::InvalidOptions { field, .. } => {
                Self::unprocessable("invalid_options", detail).with("field", field)
            }
            E::InvalidField { field, .. } => {
                Self::unprocessable("invalid_field", detail).with("field", field)
            }
            E::InvalidParameter(_) => Self::bad_request("invalid_parameter", detail),
            E::AlreadyOnVacation => Self::conflict("already_on_vacation", detail),
            E::NotOnVacation => Self::conflict("not_on_vacation", detail),
            E::Unavailable(cause) => Self::unavailable(cause),
            E::Internal(cause) => Self::internal(cause),
        }
    }
}

impl From<crate::audit::Error> for ApiError {
    fn from(error: crate::audit::Error) -> Self {
        use crate::audit::Error as E;
        let detail = error.to_string();
        match error {
            E::Service(error) => error.into(),
            E::LimitOutOfRange { .. } => Self::bad_request("invalid_parameter", detail),
            E::AfterOutOfRange { version, .. } => {
                Self::bad_request("invalid_parameter", detail).with("version", version)
            }
            E::ExportIncomplete => Self::unprocessable("export_incomplete", detail),
            E::ExportUnfinished => Self::unprocessable("export_unfinished", detail),
            E::UnknownGameKind(_) => Self::unprocessable("unknown_game_kind", detail),
            E::UnsupportedRulesVersion { .. } => {
                Self::unprocessable("unsupported_rules_version", detail)
            }
            E::NotVerified(failure) => {
                let error = Self::unprocessable("export_not_verified", detail)
                    .with("reason", failure.reason);
                match failure.seq {
                    Some(seq) => error.with("seq", seq),
                    None => error,
                }
            }
        }
    }
}

impl From<crate::auth::credentials::Error> for ApiError {
    fn from(error: crate::auth::credentials::Error) -> Self {
        use crate::auth::credentials::Error as E;
        let detail = error.to_string();
        match error {
            E::WrongTokenType => Self::unauthorized("wrong_token_type", detail),
            E::TokenExpired => Self::unauthorized("token_expired", detail),
            E::MalformedToken | E::AccountGone | E::UnknownApiToken => {
                Self::unauthorized("invalid_token", detail)
            }
            E::Unavailable(cause) => Self::unavailable(cause),
            E::Internal(cause) => Self::internal(cause),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        if let Some(cause) = &self.internal {
            if self.status == StatusCode::SERVICE_UNAVAILABLE {
                tracing::warn!(error = %cause, "the database is unavailable");
            } else {
                tracing::error!(error = ?cause, "internal error");
            }
        }
        let mut response = HttpResponse::build(self.status);
        response.insert_header((header::CONTENT_TYPE, "application/problem+json"));
        if let Some(seconds) = self.retry_after {
            response.insert_header((header::RETRY_AFTER, seconds.to_string()));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        response.json(self.problem())
    }
}

/// The `Retry-After` of a 503 `database_unavailable`: long enough not to hammer a database
/// that is restarting, short enough that clients come back soon after it is up.
pub const DATABASE_RETRY_AFTER_SECS: u64 = 2;

pub use crate::store::health::database_unreachable;

/// Every platform error code with its status and meaning; game-specific rule codes are
/// listed by each game. The API description publishes both lists.
pub const ERROR_CODES: &[(&str, u16, &str)] = &[
    ("malformed_json", 400, "The body is not valid JSON."),
    (
        "invalid_body",
        400,
        "The JSON does not have the expected shape or types.",
    ),
    (
        "invalid_parameter",
        400,
        "A path or query parameter is malformed.",
    ),
    (
        "invalid_resume_id",
        400,
        "The stream's resume id (Last-Event-ID or last_event_id) is not a version of the game (0 to its current version).",
    ),
    (
        "idempotency_key_required",
        400,
        "POST /actions needs an Idempotency-Key header.",
    ),
    (
        "version_required",
        400,
        "POST /actions needs the version the client saw (body `version` or If-Match).",
    ),
    (
        "unauthenticated",
        401,
        "No credentials were sent, or they are not a bearer token.",
    ),
    (
        "invalid_token",
        401,
        "The token is malformed, forged, revoked or unknown, or its account no longer exists.",
    ),
    ("token_expired", 401, "The access token has expired."),
    (
        "wrong_token_type",
        401,
        "A refresh token was sent where an access token is needed, or the reverse.",
    ),
    (
        "invalid_credentials",
        401,
        "The username or password is wrong.",
    ),
    (
        "insufficient_scope",
        403,
        "The API token lacks the scope this endpoint needs.",
    ),
    (
        "session_required",
        403,
        "Only a logged-in user (not an API token) may do this.",
    ),
    (
        "not_a_player",
        403,
        "The caller holds no seat in this game, or not the seat named.",
    ),
    (
        "not_the_creator",
        403,
        "Only the game's creator may do this.",
    ),
    (
        "not_invited",
        403,
        "The game is private and the caller is not invited.",
    ),
    ("not_found", 404, "No such resource."),
    ("game_not_found", 404, "No game with this id."),
    ("user_not_found", 404, "No user with this name."),
    ("token_not_found", 404, "No API token with this id."),
    (
        "method_not_allowed",
        405,
        "The resource does not support this method; `Allow` lists those it does.",
    ),
    (
        "version_conflict",
        409,
        "The game moved on since the version sent; `current_version` says where it is.",
    ),
    ("username_taken", 409, "Another account has this username."),
    (
        "email_taken",
        409,
        "Another account has this email address.",
    ),
    ("seat_taken", 409, "Someone already sits in that seat."),
    ("game_full", 409, "Every seat is taken."),
    (
        "already_seated",
        409,
        "The caller already holds a seat in this game.",
    ),
    (
        "wrong_status",
        409,
        "The game is not in a state that allows this (e.g. joining a started game).",
    ),
    (
        "idempotency_key_reused",
        422,
        "The Idempotency-Key was already used for a different request.",
    ),
    (
        "body_timeout",
        408,
        "The request body did not arrive within KONTOR_BODY_TIMEOUT seconds; the connection is closed.",
    ),
    ("payload_too_large", 413, "The body is larger than allowed."),
    (
        "unsupported_media_type",
        415,
        "The body must be application/json.",
    ),
    (
        "invalid_field",
        422,
        "A field is well-formed JSON but not acceptable; `field` names it.",
    ),
    (
        "unknown_game_kind",
        422,
        "No game of this kind is registered.",
    ),
    (
        "invalid_options",
        422,
        "The game options are unknown or out of range; `field` names the culprit.",
    ),
    (
        "invalid_command",
        422,
        "The action is not one this game understands.",
    ),
    (
        "game_not_active",
        409,
        "The game has not started yet, or has ended.",
    ),
    (
        "not_enough_players",
        409,
        "The game cannot start with so few seats taken.",
    ),
    (
        "game_not_finished",
        409,
        "The game has not ended, so its seed is still secret.",
    ),
    (
        "invalid_export",
        422,
        "The upload is not a readable Kontor export.",
    ),
    (
        "export_incomplete",
        422,
        "The export is redacted for one viewer; import needs a complete log.",
    ),
    (
        "export_unfinished",
        422,
        "The export is of a game that has not ended: without its seed it cannot be verified, so it is not imported.",
    ),
    (
        "export_not_verified",
        422,
        "The export does not verify; `seq` names the first event that differs and `reason` says why.",
    ),
    (
        "export_too_large",
        413,
        "The export has more events than an upload may have; `max_events` says how many.",
    ),
    (
        "unsupported_rules_version",
        422,
        "The log was played under rules this server does not fold.",
    ),
    (
        "invalid_unsubscribe_token",
        400,
        "The unsubscribe link is damaged or was not signed by this server.",
    ),
    (
        "admin_required",
        403,
        "Only accounts with the admin role (granted by the operator with `kontor admin grant`) may do this.",
    ),
    ("mail_not_found", 404, "No failed mail with this id."),
    (
        "seat_not_abandoned",
        409,
        "The seat is being played by its player; there is nothing to take back.",
    ),
    (
        "seat_abandoned",
        409,
        "The bot plays this seat after its timeouts; take it back first.",
    ),
    (
        "seat_forfeited",
        409,
        "The seat was forfeited under the game's time control.",
    ),
    (
        "already_on_vacation",
        409,
        "A vacation is running; end it before starting another.",
    ),
    ("not_on_vacation", 409, "There is no vacation to end."),
    (
        "rate_limited",
        429,
        "Too many attempts; retry after `Retry-After` seconds.",
    ),
    (
        "too_many_streams",
        429,
        "The caller holds the most live streams allowed on this server; close one, or retry after `Retry-After` seconds.",
    ),
    (
        "request_rejected",
        400,
        "The request was refused before reaching the API (another 4xx status).",
    ),
    (
        "precondition_failed",
        412,
        "`If-Match` holds a weak tag or none of this game's (strong comparison); send the `ETag` of `GET /games/{id}`.",
    ),
    (
        "not_ready",
        503,
        "`GET /readyz`: the database cannot be reached or lacks migrations of this server; retry after `Retry-After` seconds.",
    ),
    (
        "database_unavailable",
        503,
        "The database cannot be reached right now; retry after `Retry-After` seconds.",
    ),
    (
        "internal_error",
        500,
        "The server failed; the request may be retried.",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn an_unreachable_database_is_503_with_retry_after() {
        let refused = sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        for cause in [
            anyhow::Error::from(sqlx::Error::PoolTimedOut),
            anyhow::Error::from(refused),
            // Wrapped in context on the way up, it is still recognised.
            Err::<(), _>(sqlx::Error::PoolTimedOut)
                .context("loading the game")
                .unwrap_err(),
        ] {
            let error = ApiError::internal(cause);
            assert_eq!(error.status, StatusCode::SERVICE_UNAVAILABLE);
            assert_eq!(error.code, "database_unavailable");
            assert_eq!(error.retry_after, Some(DATABASE_RETRY_AFTER_SECS));
            let response = error.error_response();
            assert_eq!(
                response.headers().get(header::RETRY_AFTER).unwrap(),
                &DATABASE_RETRY_AFTER_SECS.to_string()
            );
        }
    }

    #[test]
    fn other_failures_stay_500() {
        for cause in [
            anyhow::Error::from(sqlx::Error::Protocol("garbled".into())),
            anyhow::Error::from(sqlx::Error::RowNotFound),
            anyhow::anyhow!("a bug"),
        ] {
            let error = ApiError::internal(cause);
            assert_eq!(error.status, StatusCode::INTERNAL_SERVER_ERROR);
            assert_eq!(error.code, "internal_error");
            assert_eq!(error.retry_after, None);
        }
    }
}
