//! Errors as `application/problem+json` (RFC 9457) with a stable `code`.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use serde_json::{Map, Value};
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
    /// Stable machine-readable code: a platform code or a game's rule code (both lists are
    /// in the API description).
    #[schema(schema_with = problem_code_schema)]
    pub code: Code,
    /// What went wrong, for a person.
    pub detail: String,
    /// The request's id (its `X-Request-Id`, echoed in the response's): quote it when
    /// reporting a problem, it finds the request in the server's log.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub request_id: Option<String>,
    /// Further members depending on the code (`current_version`, `field`, `retry_after`…).
    /// The description lists them (`http::openapi`): utoipa would make the struct an `allOf`
    /// with a bare object, which generators intersect with `Record<string, never>`.
    #[serde(flatten)]
    #[schema(ignore)]
    pub extra: Map<String, Value>,
}

/// The code of an answer: one of the platform's, or a rule code of a game (which each game
/// lists in `Rules::ERROR_CODES`, all answered 422).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    Platform(ErrorCode),
    Rule(&'static str),
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Platform(code) => code.as_str(),
            Code::Rule(code) => code,
        }
    }
}

impl From<ErrorCode> for Code {
    fn from(code: ErrorCode) -> Self {
        Code::Platform(code)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<ErrorCode> for Code {
    fn eq(&self, other: &ErrorCode) -> bool {
        *self == Code::Platform(*other)
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The schema of `Problem.code`: a platform code ([`ErrorCode`], schema `PlatformErrorCode`),
/// any game's rule code, or any other string. New codes are additive (the versioning
/// promise): a client generated today keeps a code added later instead of failing on it (a
/// closed enum makes generated parsers raise).
fn problem_code_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, Type};
    let mut rule_codes: Vec<&str> = Vec::new();
    for kind in crate::games::GameKind::ALL {
        crate::with_rules!(kind, R => rule_codes.extend(R::ERROR_CODES.iter().map(|(c, _)| *c)));
    }
    rule_codes.sort_unstable();
    rule_codes.dedup();
    let rules = ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some("A rule code of a game (status 422)."))
        .enum_values(Some(rule_codes));
    let later = ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(
            "A code added after this description: read `status` and `detail`.",
        ));
    utoipa::openapi::schema::Schema::AnyOf(
        AnyOfBuilder::new()
            .description(Some(
                "Stable machine-readable code: a platform code or a game's rule code; see the \
                 lists in the API description.",
            ))
            .item(utoipa::openapi::Ref::from_schema_name("PlatformErrorCode"))
            .item(rules)
            .item(later)
            .build(),
    )
    .into()
}

/// The media type of a [`Problem`].
pub const PROBLEM_JSON: &str = "application/problem+json";

/// A problem answer as the API description gives it: `description`, and a [`Problem`] body.
pub fn problem_response(description: &str) -> utoipa::openapi::RefOr<utoipa::openapi::Response> {
    use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
    ResponseBuilder::new()
        .description(description)
        .content(
            PROBLEM_JSON,
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("Problem")))
                .build(),
        )
        .build()
        .into()
}

/// The 401 of an operation that needs a bearer token, as most handlers list it
/// (`responses(…, Unauthenticated, …)`). An operation that lists no 401 gets the longer
/// wording of the answers every secured operation can give (`http::openapi::responses`).
pub struct Unauthenticated;

impl utoipa::IntoResponses for Unauthenticated {
    fn responses()
    -> std::collections::BTreeMap<String, utoipa::openapi::RefOr<utoipa::openapi::Response>> {
        [(
            "401".to_string(),
            problem_response("No or bad credentials."),
        )]
        .into()
    }
}

/// An error answered to the client. Internal failures carry their cause for the log only.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: Code,
    pub detail: String,
    pub extra: Map<String, Value>,
    pub retry_after: Option<u64>,
    /// Logged, never shown: the cause of a 500.
    internal: Option<anyhow::Error>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: impl Into<Code>, detail: impl Into<String>) -> Self {
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

    pub fn bad_request(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, detail)
    }

    pub fn unauthorized(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, code, detail)
    }

    pub fn forbidden(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, code, detail)
    }

    pub fn not_found(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, code, detail)
    }

    pub fn conflict(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, detail)
    }

    pub fn unprocessable(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, detail)
    }

    /// A refusal by a game's rules: 422 with the game's own code.
    pub fn rule(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, Code::Rule(code), detail)
    }

    /// 429 with `Retry-After` and a code of its own: a volume limit is reached.
    pub fn limit_reached(
        code: ErrorCode,
        retry_after_secs: u64,
        detail: impl Into<String>,
    ) -> Self {
        let mut error = Self::too_many_requests(retry_after_secs, detail);
        error.code = code.into();
        error
    }

    pub fn too_many_requests(retry_after_secs: u64, detail: impl Into<String>) -> Self {
        let mut error = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            detail,
        )
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
            ErrorCode::InternalError,
            "the server failed to handle this request; it has been logged",
        );
        error.internal = Some(cause);
        error
    }

    /// 503 `database_unavailable` with `Retry-After`: the database cannot be reached (the
    /// cause is logged, as a warning). Or 503 `overloaded` when the cause is only that no
    /// connection came free in time while every connection of the request's pool was open
    /// and in use: the database answers, the server is busy (see
    /// `store::health::pool_exhausted`).
    pub fn unavailable(cause: anyhow::Error) -> Self {
        if crate::http::serving_pool::exhausted(&cause) {
            return Self::overloaded(cause);
        }
        // The primary may have moved (a failover): the monitor looks again at once.
        crate::http::serving_pool::nudge_monitor();
        let mut error = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::DatabaseUnavailable,
            "the database cannot be reached right now; retry after `Retry-After` seconds",
        )
        .with("retry_after", DATABASE_RETRY_AFTER_SECS);
        error.retry_after = Some(DATABASE_RETRY_AFTER_SECS);
        error.internal = Some(cause);
        error
    }

    /// 503 `overloaded` with a short `Retry-After`: every connection stayed busy for the
    /// whole acquire timeout. Logged as a warning at most once per
    /// [`crate::store::health::OVERLOAD_LOG_EVERY`], not per request (the cause is the same
    /// each time: a pool timeout).
    pub fn overloaded(cause: anyhow::Error) -> Self {
        crate::store::health::warn_overloaded("requests", &cause);
        let mut error = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Overloaded,
            "the server is busy: every database connection stayed in use for as long as a \
             request may wait; retry after `Retry-After` seconds",
        )
        .with("retry_after", OVERLOADED_RETRY_AFTER_SECS);
        error.retry_after = Some(OVERLOADED_RETRY_AFTER_SECS);
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
            code: self.code,
            detail: self.detail.clone(),
            request_id: crate::http::request_id::current_request_id(),
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

impl From<crate::service::play::error::Error> for ApiError {
    fn from(error: crate::service::play::error::Error) -> Self {
        use crate::service::play::error::Error as E;
        let detail = error.to_string();
        match error {
            E::GameNotFound => Self::not_found(ErrorCode::GameNotFound, detail),
            E::VersionConflict { current, .. } => {
                Self::conflict(ErrorCode::VersionConflict, detail).with("current_version", current)
            }
            E::Rule(refusal) => Self::rule(refusal.code, detail),
            E::InvalidCommand { .. } => Self::unprocessable(ErrorCode::InvalidCommand, detail),
            E::UnknownOrder { .. } => {
                Self::unprocessable(ErrorCode::UnknownOrder, detail).with("field", "order")
            }
            E::OrderNotFound(_) => {
                Self::new(StatusCode::NOT_FOUND, ErrorCode::OrderNotFound, detail)
            }
            E::TooManyOrders { max } => {
                Self::conflict(ErrorCode::TooManyOrders, detail).with("max_orders", max)
            }
            E::IdempotencyKeyReused => Self::unprocessable(ErrorCode::IdempotencyKeyReused, detail),
            E::IdempotencyKeyExpired {
                applied_at,
                current,
            } => Self::conflict(ErrorCode::IdempotencyKeyExpired, detail)
                .with("applied_version", applied_at)
                .with("current_version", current),
            E::NotAPlayer | E::NotYourSeat { .. } | E::OnlyPlayersInvite => {
                Self::forbidden(ErrorCode::NotAPlayer, detail)
            }
            E::SeatForfeited | E::ForfeitedSeatNotReturnable => {
                Self::conflict(ErrorCode::SeatForfeited, detail)
            }
            E::SeatAbandoned => Self::conflict(ErrorCode::SeatAbandoned, detail),
            E::SeatNotAbandoned => Self::conflict(ErrorCode::SeatNotAbandoned, detail),
            E::GameNotActive { status } => Self::conflict(ErrorCode::GameNotActive, detail)
                .with("game_status", status.as_str()),
            E::GameNotRunning => Self::conflict(ErrorCode::GameNotActive, detail),
            E::WrongStatus { status, .. } => {
                Self::conflict(ErrorCode::WrongStatus, detail).with("game_status", status.as_str())
            }
            E::AlreadySeated => Self::conflict(ErrorCode::AlreadySeated, detail),
            E::NotInvited => Self::forbidden(ErrorCode::NotInvited, detail),
            E::RatedNeedsVerified => Self::forbidden(ErrorCode::EmailNotVerified, detail),
            E::TooManyTournaments { open } => Self::limit_reached(
                ErrorCode::TooManyTournaments,
                crate::service::competition::tournaments::TOURNAMENTS_RETRY_AFTER_SECS,
                detail,
            )
            .with("open", open),
            E::CannotInvite | E::CannotJoin => Self::forbidden(ErrorCode::Blocked, detail),
            E::SeatTaken(_) => Self::conflict(ErrorCode::SeatTaken, detail),
            E::GameFull => Self::conflict(ErrorCode::GameFull, detail),
            E::NotTheCreator { .. } => Self::forbidden(ErrorCode::NotTheCreator, detail),
            E::UserNotFound(_) => Self::not_found(ErrorCode::UserNotFound, detail),
            E::PlayerNotFound(_) => Self::not_found(ErrorCode::PlayerNotFound, detail),
            E::NotEnoughPlayers { .. } => Self::conflict(ErrorCode::NotEnoughPlayers, detail),
            E::UnknownGameKind { .. } => {
                Self::unprocessable(ErrorCode::UnknownGameKind, detail).with("field", "kind")
            }
            E::InvalidOptions { field, .. } => {
                Self::unprocessable(ErrorCode::InvalidOptions, detail).with("field", field)
            }
            E::InvalidField { field, .. } => {
                Self::unprocessable(ErrorCode::InvalidField, detail).with("field", field)
            }
            E::InvalidParameter(_) => Self::bad_request(ErrorCode::InvalidParameter, detail),
            E::TooManyOpenGames { .. } => Self::limit_reached(
                ErrorCode::TooManyOpenGames,
                crate::service::play::lobby::OPEN_GAMES_RETRY_AFTER_SECS,
                detail,
            ),
            E::TooManyInvitations { wait, .. } => {
                Self::limit_reached(ErrorCode::TooManyInvitations, wait, detail)
            }
            E::TournamentNotFound => Self::not_found(ErrorCode::TournamentNotFound, detail),
            E::OrganiserNotAllowed(_) => Self::forbidden(ErrorCode::OrganiserNotAllowed, detail),
            E::NotTheOrganiser => Self::forbidden(ErrorCode::NotTheOrganiser, detail),
            E::TournamentWrongStatus { status, .. } => {
                Self::conflict(ErrorCode::TournamentWrongStatus, detail)
                    .with("tournament_status", status)
            }
            E::TournamentFull { max } => {
                Self::conflict(ErrorCode::TournamentFull, detail).with("max_players", max)
            }
            E::TournamentNotEntered => Self::conflict(ErrorCode::TournamentNotEntered, detail),
            E::TournamentAlreadyWithdrawn => {
                Self::conflict(ErrorCode::TournamentAlreadyWithdrawn, detail)
            }
            E::TournamentTooFewPlayers { .. } => {
                Self::conflict(ErrorCode::TournamentTooFewPlayers, detail)
            }
            E::RematchNotFinished { status } => {
                Self::conflict(ErrorCode::RematchNotFinished, detail)
                    .with("game_status", status.as_str())
            }
            E::RematchBotSeat => Self::forbidden(ErrorCode::NotAPlayer, detail),
            E::RematchOfferOpen { offer } => {
                Self::conflict(ErrorCode::RematchOfferOpen, detail).with("offer_id", offer)
            }
            E::RematchExists { game } => {
                Self::conflict(ErrorCode::RematchExists, detail).with("rematch", game.to_string())
            }
            E::RematchNotPossible(_) => Self::conflict(ErrorCode::RematchNotPossible, detail),
            E::RematchOfferNotFound => Self::not_found(ErrorCode::RematchOfferNotFound, detail),
            E::RematchOfferClosed { status } => {
                Self::conflict(ErrorCode::RematchOfferClosed, detail)
                    .with("offer_status", status.as_str())
            }
            E::RematchOfferExpired { at } => Self::conflict(ErrorCode::RematchOfferExpired, detail)
                .with("expired_at", at.to_rfc3339()),
            E::RematchAlreadyAnswered { accept } => {
                Self::conflict(ErrorCode::RematchAlreadyAnswered, detail).with("accept", accept)
            }
            E::UndoDisabled(_) => Self::conflict(ErrorCode::UndoDisabled, detail),
            E::UndoNothingToUndo => Self::conflict(ErrorCode::UndoNothingToUndo, detail),
            E::UndoNotOwnMoves { to_version } => {
                Self::conflict(ErrorCode::UndoNotOwnMoves, detail).with("to_version", to_version)
            }
            E::UndoDeclined { declined_at } => {
                Self::conflict(ErrorCode::UndoDeclined, detail).with("declined_at", declined_at)
            }
            E::UndoBarrier {
                barrier_version,
                barrier,
            } => Self::conflict(ErrorCode::UndoBarrier, detail)
                .with("barrier_version", barrier_version)
                .with("barrier", barrier),
            E::UndoStale {
                current_version, ..
            } => Self::conflict(ErrorCode::UndoStale, detail)
                .with("current_version", current_version),
            E::UndoNeedsConsent { seats } => {
                Self::conflict(ErrorCode::UndoNeedsConsent, detail).with("seats", seats)
            }
            E::UndoRequestOpen { request } => {
                Self::conflict(ErrorCode::UndoRequestOpen, detail).with("request", request)
            }
            E::UndoNoRequest(_) | E::UndoNotYourRequest => {
                Self::conflict(ErrorCode::UndoNoRequest, detail)
            }
            E::UndoNotAsked(_) => Self::conflict(ErrorCode::UndoNotAsked, detail),
            E::InvalidUndo(_) => Self::unprocessable(ErrorCode::InvalidUndo, detail),
            E::UndoNoTarget { why, .. } => {
                Self::unprocessable(ErrorCode::InvalidUndo, detail).with("reason", why.as_str())
            }
            E::AlreadyOnVacation => Self::conflict(ErrorCode::AlreadyOnVacation, detail),
            E::NotOnVacation => Self::conflict(ErrorCode::NotOnVacation, detail),
            E::Unavailable(cause) => Self::unavailable(cause),
            E::Internal(cause) => Self::internal(cause),
        }
    }
}

impl From<crate::service::accounts::error::AccountError> for ApiError {
    fn from(error: crate::service::accounts::error::AccountError) -> Self {
        use crate::service::accounts::error::AccountError as E;
        let detail = error.to_string();
        match error {
            E::InvalidField { field, .. } => {
                Self::unprocessable(ErrorCode::InvalidField, detail).with("field", field)
            }
            E::RateLimited { wait, .. } => Self::too_many_requests(wait, detail),
            E::TooManyRegistrations { wait, .. } => {
                Self::limit_reached(ErrorCode::TooManyRegistrations, wait, detail)
            }
            E::TooManyMailsToAddress { wait, .. } => {
                Self::limit_reached(ErrorCode::TooManyMailsToAddress, wait, detail)
            }
            E::InvalidCredentials => Self::unauthorized(ErrorCode::InvalidCredentials, detail),
            E::WrongPassword { field } => {
                Self::forbidden(ErrorCode::WrongPassword, detail).with("field", field)
            }
            E::AccountGone | E::InvalidRefreshToken => {
                Self::unauthorized(ErrorCode::InvalidToken, detail)
            }
            E::NotARefreshToken => Self::unauthorized(ErrorCode::WrongTokenType, detail),
            E::UsernameTaken(_) => Self::conflict(ErrorCode::UsernameTaken, detail),
            E::EmailTaken | E::EmailTakenSince => Self::conflict(ErrorCode::EmailTaken, detail),
            E::MailTokenInvalid { .. } => Self::bad_request(ErrorCode::MailTokenInvalid, detail),
            E::MailTokenUsed { .. } | E::MailTokenReplaced { .. } => {
                Self::new(StatusCode::GONE, ErrorCode::MailTokenUsed, detail)
            }
            E::MailTokenExpired { .. } => {
                Self::new(StatusCode::GONE, ErrorCode::MailTokenExpired, detail)
            }
            E::EmailAlreadyVerified => Self::conflict(ErrorCode::EmailAlreadyVerified, detail),
            E::EmailNotVerified => Self::forbidden(ErrorCode::EmailNotVerified, detail),
            E::SessionNotFound => Self::not_found(ErrorCode::SessionNotFound, detail),
            E::TokenNotFound => Self::not_found(ErrorCode::TokenNotFound, detail),
            E::UserNotFound(_) | E::NotBlocked => Self::not_found(ErrorCode::UserNotFound, detail),
            E::Service(error) => error.into(),
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
            E::LimitOutOfRange { .. } => Self::bad_request(ErrorCode::InvalidParameter, detail),
            E::AfterOutOfRange { version, .. } => {
                Self::bad_request(ErrorCode::InvalidParameter, detail).with("version", version)
            }
            E::ExportIncomplete => Self::unprocessable(ErrorCode::ExportIncomplete, detail),
            E::ExportUnfinished => Self::unprocessable(ErrorCode::ExportUnfinished, detail),
            E::UnknownGameKind(_) => Self::unprocessable(ErrorCode::UnknownGameKind, detail),
            E::UnsupportedRulesVersion { .. } => {
                Self::unprocessable(ErrorCode::UnsupportedRulesVersion, detail)
            }
            E::ImportLimitReached { limit, retry_after } => {
                let mut error = Self::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    ErrorCode::ImportLimitReached,
                    detail,
                )
                .with("limit", limit)
                .with("retry_after", retry_after);
                error.retry_after = Some(retry_after);
                error
            }
            E::NotVerified(failure) => {
                let error = Self::unprocessable(ErrorCode::ExportNotVerified, detail)
                    .with("reason", failure.reason);
                match failure.seq {
                    Some(seq) => error.with("seq", seq),
                    None => error,
                }
            }
        }
    }
}

impl From<crate::service::social::chat::ChatError> for ApiError {
    fn from(error: crate::service::social::chat::ChatError) -> Self {
        use crate::service::social::chat::ChatError as E;
        let detail = error.to_string();
        match error {
            E::Service(error) => error.into(),
            E::ChannelNotFound => Self::not_found(ErrorCode::ChatChannelNotFound, detail),
            E::MessageNotFound => Self::not_found(ErrorCode::ChatMessageNotFound, detail),
            E::ReportNotFound(_) => Self::not_found(ErrorCode::ChatReportNotFound, detail),
            E::ReadOnly => Self::forbidden(ErrorCode::ChatReadOnly, detail),
            E::Closed => Self::forbidden(ErrorCode::ChatChannelClosed, detail),
            E::Blocked => Self::forbidden(ErrorCode::ChatBlocked, detail),
            E::Muted { until, left_secs } => Self::forbidden(ErrorCode::ChatMuted, detail)
                .with(
                    "muted_until",
                    until.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                )
                .with("seconds_left", left_secs),
            E::InvalidMessage(_) => {
                Self::unprocessable(ErrorCode::InvalidChatMessage, detail).with("field", "text")
            }
            E::RateLimited { retry_after } => {
                Self::limit_reached(ErrorCode::ChatRateLimited, retry_after, detail)
            }
            E::DailyLimit { limit, retry_after } => {
                Self::limit_reached(ErrorCode::ChatDailyLimit, retry_after, detail)
                    .with("limit", limit)
            }
            E::IdempotencyKeyReused => Self::unprocessable(ErrorCode::IdempotencyKeyReused, detail),
        }
    }
}

impl From<crate::service::social::notes::NoteError> for ApiError {
    fn from(error: crate::service::social::notes::NoteError) -> Self {
        use crate::service::social::notes::NoteError as E;
        let detail = error.to_string();
        match error {
            E::Service(error) => error.into(),
            E::NotASeat => Self::forbidden(ErrorCode::NotAPlayer, detail),
            E::InvalidNote(_) => {
                Self::unprocessable(ErrorCode::InvalidNote, detail).with("field", "text")
            }
            E::Changed { .. } => Self::new(
                StatusCode::PRECONDITION_FAILED,
                ErrorCode::PreconditionFailed,
                detail,
            ),
        }
    }
}

impl From<crate::auth::credentials::Error> for ApiError {
    fn from(error: crate::auth::credentials::Error) -> Self {
        use crate::auth::credentials::Error as E;
        let detail = error.to_string();
        match error {
            E::WrongTokenType => Self::unauthorized(ErrorCode::WrongTokenType, detail),
            E::TokenExpired => Self::unauthorized(ErrorCode::TokenExpired, detail),
            E::MalformedToken | E::AccountGone | E::LoginEnded | E::UnknownApiToken => {
                Self::unauthorized(ErrorCode::InvalidToken, detail)
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
        if self.code == ErrorCode::DatabaseUnavailable {
            metrics::counter!(crate::telemetry::names::DB_UNAVAILABLE).increment(1);
        }
        if self.code == ErrorCode::Overloaded {
            metrics::counter!(crate::telemetry::names::DB_OVERLOADED).increment(1);
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

/// The `Retry-After` of a 503 `overloaded`: a busy pool frees up within moments, and clients
/// that come back spread over a second rather than all at once.
pub const OVERLOADED_RETRY_AFTER_SECS: u64 = 1;

pub use crate::store::health::database_unreachable;

/// Declares [`ErrorCode`] from one table: each code's variant, its wire name, its status and
/// its meaning (published in the API description), so that the list of codes is the type.
macro_rules! error_codes {
    ($($variant:ident = $code:literal, $status:literal, $meaning:literal;)*) => {
        /// Every platform error code; game-specific rule codes are listed by each game
        /// (`Rules::ERROR_CODES`). The API description publishes both lists.
        // Its schema is `PlatformErrorCode`: `ErrorCode` names a game's rule code with its
        // meaning in `GET /kinds`, as published before.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, ToSchema)]
        #[serde(rename_all = "snake_case")]
        #[schema(as = PlatformErrorCode)]
        pub enum ErrorCode {
            $(#[doc = $meaning] $variant,)*
        }

        impl ErrorCode {
            /// Every code, in the order the API description lists them.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The code as clients see it (`version_conflict`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                }
            }

            /// The status it is answered with (`request_rejected` and `internal_error`
            /// stand for a class of statuses; this is the one documented).
            pub const fn status(self) -> u16 {
                match self {
                    $(ErrorCode::$variant => $status,)*
                }
            }

            /// What it means, for the API description.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $meaning,)*
                }
            }
        }
    };
}

error_codes! {
    MalformedJson = "malformed_json", 400, "The body is not valid JSON.";
    InvalidBody = "invalid_body", 400, "The JSON does not have the expected shape or types.";
    InvalidParameter = "invalid_parameter", 400, "A path or query parameter is malformed.";
    InvalidResumeId = "invalid_resume_id", 400, "The stream's resume id (Last-Event-ID or last_event_id) is not a version of the game (0 to its current version).";
    IdempotencyKeyRequired = "idempotency_key_required", 400, "POST /actions needs an Idempotency-Key header.";
    VersionRequired = "version_required", 400, "POST /actions needs the version the client saw (body `version` or If-Match).";
    Unauthenticated = "unauthenticated", 401, "No credentials were sent, or they are not a bearer token.";
    InvalidToken = "invalid_token", 401, "The token is malformed, forged, revoked or unknown, or its account no longer exists.";
    TokenExpired = "token_expired", 401, "The access token has expired.";
    WrongTokenType = "wrong_token_type", 401, "A refresh token was sent where an access token is needed, or the reverse.";
    InvalidCredentials = "invalid_credentials", 401, "The username or password is wrong.";
    InsufficientScope = "insufficient_scope", 403, "The API token lacks the scope this endpoint needs.";
    SessionRequired = "session_required", 403, "Only a logged-in user (not an API token) may do this.";
    CrossSiteRequest = "cross_site_request", 403, "The browser says another site's page made this request (`Sec-Fetch-Site` other than `same-origin`); the browser session's endpoints answer only the server's own pages.";
    NotAPlayer = "not_a_player", 403, "The caller holds no seat in this game, or not the seat named.";
    NotTheCreator = "not_the_creator", 403, "Only the game's creator may do this.";
    NotInvited = "not_invited", 403, "The game is private and the caller is not invited.";
    Blocked = "blocked", 403, "The invitation or the join is not possible: one of the two players blocked the other.";
    WrongPassword = "wrong_password", 403, "The password sent to confirm this is not the account's (it counts as a failed login).";
    NotFound = "not_found", 404, "No such resource.";
    WebhookNotFound = "webhook_not_found", 404, "No webhook endpoint (or delivery of it) of the caller with this id.";
    TooManyWebhooks = "too_many_webhooks", 409, "The account has the most webhook endpoints allowed (10); delete one first.";
    DeliveryUnderWay = "delivery_under_way", 409, "The webhook delivery is still being tried; redeliver it once it has succeeded or failed.";
    InvalidWebhookUrl = "invalid_webhook_url", 422, "The webhook URL cannot be used; `reason`: `invalid_url`, `insecure_url` (https only) or `blocked_address` (not a public internet address).";
    GameNotFound = "game_not_found", 404, "No game with this id.";
    UserNotFound = "user_not_found", 404, "No user with this name.";
    TokenNotFound = "token_not_found", 404, "No API token with this id.";
    MethodNotAllowed = "method_not_allowed", 405, "The resource does not support this method; `Allow` lists those it does.";
    VersionConflict = "version_conflict", 409, "The game moved on since the version sent; `current_version` says where it is.";
    UsernameTaken = "username_taken", 409, "Another account has this username.";
    EmailTaken = "email_taken", 409, "Another account has this email address.";
    SeatTaken = "seat_taken", 409, "Someone already sits in that seat.";
    GameFull = "game_full", 409, "Every seat is taken.";
    AlreadySeated = "already_seated", 409, "The caller already holds a seat in this game.";
    WrongStatus = "wrong_status", 409, "The game is not in a state that allows this (e.g. joining a started game).";
    IdempotencyKeyReused = "idempotency_key_reused", 422, "The Idempotency-Key was already used for a different request.";
    IdempotencyKeyExpired = "idempotency_key_expired", 409, "A retry of an action applied longer ago than the idempotency window (KONTOR_IDEMPOTENCY_WINDOW, 24 hours by default): it was applied, at `applied_version`, and is not applied again, but its answer is no longer kept; `current_version` says where the game is now. Read the game.";
    BodyTimeout = "body_timeout", 408, "The request body did not arrive within KONTOR_BODY_TIMEOUT seconds; the connection is closed.";
    PayloadTooLarge = "payload_too_large", 413, "The body is larger than allowed.";
    UnsupportedMediaType = "unsupported_media_type", 415, "The body must be application/json.";
    InvalidField = "invalid_field", 422, "A field is well-formed JSON but not acceptable; `field` names it.";
    UnknownGameKind = "unknown_game_kind", 422, "No game of this kind is registered.";
    InvalidOptions = "invalid_options", 422, "The game options are unknown or out of range; `field` names the culprit.";
    InvalidCommand = "invalid_command", 422, "The action is not one this game understands.";
    UnknownOrder = "unknown_order", 422, "The standing order is not one this game understands (its `type` or a member); `field` is `order`.";
    OrderNotFound = "order_not_found", 404, "The caller's seat has no standing order with this id (it played, was dropped or cancelled).";
    TooManyOrders = "too_many_orders", 409, "The seat has the most standing orders allowed (`max_orders`); cancel one first.";
    GameNotActive = "game_not_active", 409, "The game has not started yet, or has ended.";
    NotEnoughPlayers = "not_enough_players", 409, "The game cannot start with so few seats taken.";
    GameNotFinished = "game_not_finished", 409, "The game has not ended, so its seed is still secret.";
    InvalidExport = "invalid_export", 422, "The upload is not a readable Kontor export.";
    ExportIncomplete = "export_incomplete", 422, "The export is redacted for one viewer; import needs a complete log.";
    ExportUnfinished = "export_unfinished", 422, "The export is of a game that has not ended: without its seed it cannot be verified, so it is not imported.";
    ExportNotVerified = "export_not_verified", 422, "The export does not verify; `seq` names the first event that differs and `reason` says why.";
    ExportTooLarge = "export_too_large", 413, "The export has more events than an upload may have; `max_events` says how many.";
    UnsupportedRulesVersion = "unsupported_rules_version", 422, "The log was played under rules this server does not fold.";
    InvalidUnsubscribeToken = "invalid_unsubscribe_token", 400, "The unsubscribe link is damaged or was not signed by this server.";
    InvalidPushEndpoint = "invalid_push_endpoint", 422, "The push subscription's endpoint is not an https:// URL of a push service (too long, not absolute, with a user or password, or on a loopback or private address).";
    InvalidPushKeys = "invalid_push_keys", 422, "The push subscription's keys are not usable: p256dh must be a P-256 public key (65 bytes) and auth 16 bytes, both base64url.";
    TooManyPushSubscriptions = "too_many_push_subscriptions", 409, "The account already has the most push subscriptions allowed (10); remove one first.";
    PushSubscriptionNotFound = "push_subscription_not_found", 404, "The caller has no push subscription with this id.";
    UnknownNoticeKind = "unknown_notice_kind", 400, "The push choice names a kind of notice that does not exist.";
    MailTokenInvalid = "mail_token_invalid", 400, "The token of a mailed link (address verification, password reset) is unknown, damaged or for another purpose.";
    MailTokenExpired = "mail_token_expired", 410, "The mailed link has expired; ask for a new one.";
    MailTokenUsed = "mail_token_used", 410, "The mailed link was used already, or a newer link replaced it.";
    EmailNotVerified = "email_not_verified", 403, "The account's email address is not verified yet, and this server lets only verified accounts play (KONTOR_UNVERIFIED_MAY_PLAY=false), or play rated games and tournaments (KONTOR_UNVERIFIED_MAY_PLAY_RATED=false, the default).";
    EmailAlreadyVerified = "email_already_verified", 409, "The address is verified already and no change of address waits for its link.";
    SessionNotFound = "session_not_found", 404, "No active login (session) of the caller with this id.";
    AdminRequired = "admin_required", 403, "Only accounts with the admin role (granted by the operator with `kontor admin grant`) may do this.";
    MailNotFound = "mail_not_found", 404, "No failed mail with this id.";
    CalendarNotFound = "calendar_not_found", 404, "No calendar feed has this token (unknown, replaced or revoked), or the caller has no feed to revoke.";
    MetricsNotServed = "metrics_not_served", 404, "This server serves no metrics on this address (KONTOR_METRICS_TOKEN is not set).";
    SeatNotAbandoned = "seat_not_abandoned", 409, "The seat is being played by its player; there is nothing to take back.";
    SeatAbandoned = "seat_abandoned", 409, "The bot plays this seat after its timeouts; take it back first.";
    SeatForfeited = "seat_forfeited", 409, "The seat was forfeited under the game's time control.";
    AlreadyOnVacation = "already_on_vacation", 409, "A vacation is running; end it before starting another.";
    NotOnVacation = "not_on_vacation", 409, "There is no vacation to end.";
    RematchNotFinished = "rematch_not_finished", 409, "A rematch is offered once the game has ended; `game_status` says where it is.";
    RematchOfferOpen = "rematch_offer_open", 409, "Another player's rematch offer is open (`offer_id`): answer it instead.";
    RematchExists = "rematch_exists", 409, "The game's rematch was played already (`rematch` names it).";
    RematchNotPossible = "rematch_not_possible", 409, "The table cannot meet again: a player deleted their account, or players blocked one another.";
    RematchOfferNotFound = "rematch_offer_not_found", 404, "The game has no rematch offer with this id.";
    RematchOfferClosed = "rematch_offer_closed", 409, "The rematch offer ended (`offer_status`: accepted, declined, expired or cancelled); make a new one.";
    RematchOfferExpired = "rematch_offer_expired", 409, "The rematch offer's deadline passed (`expired_at`); make a new one.";
    RematchAlreadyAnswered = "rematch_already_answered", 409, "The caller answered the offer the other way already (`accept`); answers are final.";
    UndoDisabled = "undo_disabled", 409, "No undo here: the table's `undo` setting is `none`, or the game is not running.";
    UndoNothingToUndo = "undo_nothing_to_undo", 409, "The caller has no move to take back since the game's last barrier.";
    UndoNotOwnMoves = "undo_not_own_moves", 409, "Only other seats moved after the `to_version` sent (named again in `to_version`), though the caller has moves since the last barrier: an undo takes back a move of the caller's own, and others' after it with their consent.";
    UndoDeclined = "undo_declined", 409, "Another seat declined the caller's last undo request, and nothing has moved since (`declined_at`: the answer's version): one declined request per position; ask again after the next move.";
    UndoBarrier = "undo_barrier", 409, "The undo would reach back across a barrier (something revealed, drawn or settled): `barrier_version` is the earliest version an undo may go back to, `barrier` its kind.";
    UndoStale = "undo_stale", 409, "The `at_version` sent is not the game's version (`current_version`): look again before asking.";
    UndoNeedsConsent = "undo_needs_consent", 409, "The table's `undo` setting is `own`, and the undo would take back moves of other seats (`seats`), bots' included.";
    UndoRequestOpen = "undo_request_open", 409, "Another undo request (`request`) of this game is open; it must end first.";
    UndoNoRequest = "undo_no_request", 409, "The game has no open undo request with this number (it was answered, withdrawn or lapsed), or the caller, withdrawing it, is not its requester.";
    UndoNotAsked = "undo_not_asked", 409, "The caller's seat is not among those the request asks, or answered it the other way already.";
    InvalidUndo = "invalid_undo", 422, "The `to_version` is not a version an undo can go back to: out of range, or (with `reason`) `nothing_after` (nothing was played after it), `mid_move` (the middle of a move), `undo_event` (an undo's own event) or `undone` (a move taken back already).";
    RateLimited = "rate_limited", 429, "Too many attempts; retry after `Retry-After` seconds.";
    UploadsBusy = "uploads_busy", 429, "The caller, or the server, has as many uploaded exports being checked as it checks at once; retry after `Retry-After` seconds.";
    ImportLimitReached = "import_limit_reached", 429, "The caller imported as many games within 24 hours as a user may (`limit`); retry after `Retry-After` seconds.";
    TooManyStreams = "too_many_streams", 429, "The caller holds the most live streams allowed on this server; close one, or retry after `Retry-After` seconds.";
    TooManyStreamsFromAddress = "too_many_streams_from_address", 429, "The client's address holds the most live streams allowed on this server (whichever accounts opened them); close one, or retry after `Retry-After` seconds.";
    TooManyRegistrations = "too_many_registrations", 429, "This client address registered the most accounts an hour allows (KONTOR_REGISTRATIONS_PER_ADDRESS); retry after `Retry-After` seconds.";
    TooManyOpenGames = "too_many_open_games", 429, "The caller has the most open games allowed (KONTOR_OPEN_GAMES_PER_USER); start or cancel one, or retry after `Retry-After` seconds (players may fill one meanwhile).";
    TooManyMailsToAddress = "too_many_mails_to_address", 429, "This address was mailed the most verification links a day allows, whichever accounts asked (KONTOR_VERIFY_MAILS_PER_ADDRESS); nothing was changed or mailed.";
    TooManyTestSends = "too_many_test_sends", 429, "The caller's account made the most test sends an hour allows, webhook test events and push test notifications together (KONTOR_TEST_SENDS_PER_HOUR); retry after `Retry-After` seconds.";
    TooManyTournaments = "too_many_tournaments", 429, "The caller organises the most tournaments open for entry or running at once that an organiser may (KONTOR_TOURNAMENTS_PER_ORGANISER); retry once one has finished or been cancelled.";
    TooManyInvitations = "too_many_invitations", 429, "The caller made the most invitations a day allows (KONTOR_INVITATIONS_PER_DAY); retry after `Retry-After` seconds.";
    RequestRejected = "request_rejected", 400, "The request was refused before reaching the API (another 4xx status).";
    PreconditionFailed = "precondition_failed", 412, "`If-Match` holds a weak tag or none of this game's (strong comparison); send the `ETag` of `GET /games/{id}`. For a note (`PUT /games/{id}/notes`): the note changed since the client read it (another tab or device saved it); read it again.";
    PreconditionRequired = "precondition_required", 428, "`PUT /games/{id}/notes` needs `If-Match`: the `ETag` of the note as the client read it, or `*` to overwrite whatever is there.";
    WebClientMissing = "web_client_missing", 503, "The web client's files were not built into this server (`npm ci && npm run build` in `web/`).";
    NotReady = "not_ready", 503, "`GET /readyz`: the database cannot be reached or lacks migrations of this server; retry after `Retry-After` seconds.";
    DatabaseUnavailable = "database_unavailable", 503, "The database cannot be reached right now (it is down, restarting, or no primary was found); retry after `Retry-After` seconds.";
    Overloaded = "overloaded", 503, "The server is busy: every database connection stayed in use for as long as a request may wait (KONTOR_DB_ACQUIRE_TIMEOUT_MS). Retry after `Retry-After` seconds (an action retried with its Idempotency-Key never applies twice).";
    DatabaseLost = "database_lost", 503, "`GET /healthz`: the embedded database died and could not be started again within KONTOR_DB_RECOVERY_LIMIT_SECS; restart the server.";
    InternalError = "internal_error", 500, "The server failed; the request may be retried.";
    ChatChannelNotFound = "chat_channel_not_found", 404, "No such chat channel in this game, or the caller may not read it (the same answer), or the game has no chat.";
    ChatMessageNotFound = "chat_message_not_found", 404, "No such chat message, or the caller may not read it.";
    ChatReportNotFound = "chat_report_not_found", 404, "No chat report has this id.";
    ChatReadOnly = "chat_read_only", 403, "The caller may read this chat channel but not write to it (a cancelled game; a finished game's table channel for a non-player).";
    ChatChannelClosed = "chat_channel_closed", 403, "The game's creator closed the spectators' chat channel; it is still readable.";
    ChatMuted = "chat_muted", 403, "A moderator muted the caller in the chat; `muted_until` says until when.";
    ChatBlocked = "chat_blocked", 403, "One of the private channel's two players blocked the other: the channel is silent (still readable).";
    InvalidChatMessage = "invalid_chat_message", 422, "The message is empty, longer than 500 characters, or holds a control character other than a line break.";
    ChatRateLimited = "chat_rate_limited", 429, "The caller sends chat messages too fast (KONTOR_CHAT_BURST, KONTOR_CHAT_INTERVAL_SECS); retry after `Retry-After` seconds.";
    ChatDailyLimit = "chat_daily_limit", 429, "The caller sent the most chat messages a day allows in this game (KONTOR_CHAT_DAILY_MAX); retry after `Retry-After` seconds.";
    PlayerNotFound = "player_not_found", 404, "No live account has this username (a deleted account's profile is gone too).";
    InvalidNote = "invalid_note", 422, "The note is longer than 10000 characters, or holds a control character other than a line break.";
    TournamentNotFound = "tournament_not_found", 404, "No tournament has this id.";
    OrganiserNotAllowed = "organiser_not_allowed", 403, "The caller may not organise tournaments on this server (KONTOR_TOURNAMENT_ORGANISERS: verified players, or administrators only).";
    NotTheOrganiser = "not_the_organiser", 403, "Only the tournament's organiser may do this.";
    TournamentWrongStatus = "tournament_wrong_status", 409, "The tournament is not in a state that allows this (`tournament_status`: entry, running, finished, cancelled).";
    TournamentFull = "tournament_full", 409, "The tournament has as many entrants as it takes (`max_players`).";
    TournamentNotEntered = "tournament_not_entered", 409, "The caller has not entered this tournament.";
    TournamentAlreadyWithdrawn = "tournament_already_withdrawn", 409, "The caller withdrew from this tournament already.";
    TournamentTooFewPlayers = "tournament_too_few_players", 409, "Too few players entered to fill a table.";
}

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
    fn service_errors_keep_their_status_code_and_members() {
        use crate::service::play::error::Error as E;
        use crate::store::games::Status;
        let conflict = ApiError::from(E::VersionConflict {
            current: 13,
            sent: 12,
        });
        assert_eq!(conflict.status, StatusCode::CONFLICT);
        assert_eq!(conflict.code, ErrorCode::VersionConflict);
        assert_eq!(
            conflict.detail,
            "the game is at version 13, not 12: reload it and decide again"
        );
        assert_eq!(conflict.extra["current_version"], 13);
        let seat = ApiError::from(E::NotYourSeat {
            held: 1,
            requested: 2,
        });
        assert_eq!(
            (seat.status, seat.code, seat.detail.as_str()),
            (
                StatusCode::FORBIDDEN,
                Code::Platform(ErrorCode::NotAPlayer),
                "you hold seat 1, not seat 2"
            )
        );
        let inactive = ApiError::from(E::GameNotActive {
            status: Status::Finished,
        });
        assert_eq!(inactive.extra["game_status"], "finished");
        let rule = ApiError::from(E::Rule(crate::games::RuleError::new(
            "not_your_turn",
            "wait",
        )));
        assert_eq!(
            (rule.status, rule.code, rule.detail.as_str()),
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                Code::Rule("not_your_turn"),
                "wait"
            )
        );
        let field = ApiError::from(E::invalid_field("nonce", "too long"));
        assert_eq!(field.extra["field"], "nonce");
        let down = ApiError::from(E::internal(sqlx::Error::PoolTimedOut));
        assert_eq!(down.code, ErrorCode::DatabaseUnavailable);
        assert!(down.logged());
        let bug = ApiError::from(E::internal(anyhow::anyhow!("a bug")));
        assert_eq!(bug.code, ErrorCode::InternalError);
    }

    #[test]
    fn the_codes_are_their_serde_names_with_their_problem_type() {
        for &code in ErrorCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
            let problem = ApiError::new(StatusCode::BAD_REQUEST, code, "x").problem();
            let body = serde_json::to_value(&problem).unwrap();
            assert_eq!(body["code"], code.as_str());
            assert_eq!(
                body["type"],
                format!("urn:kontor:problem:{}", code.as_str())
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
