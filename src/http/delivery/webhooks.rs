//! The caller's webhook endpoints (`/me/webhooks`): a signed-in session, or an API token with
//! the scope `webhooks`.

use crate::auth::Scope;
use crate::http::error::{ApiError, ErrorCode, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::headers::AcceptLanguage;
use crate::http::extract::text::{Json, Query};
use crate::http::state::AppState;
use crate::key;
use crate::service::delivery::webhooks::endpoints::{self, Refusal, Settings};
use crate::store::webhooks::{DeliveryLine, Endpoint};
use crate::words::catalogue::{self, Args};
use crate::words::language::Language;
use actix_web::{HttpResponse, delete, get, patch, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// The most characters of a URL and of a description.
const MAX_URL: usize = 2000;
const MAX_DESCRIPTION: usize = 200;

/// The body sent in the form of an endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum WebhookFormat {
    /// Standard Webhooks: `{type, timestamp, data}`.
    #[default]
    Standard,
    /// A Discord channel hook: `{content}` (one line of text).
    Discord,
    /// A Slack incoming webhook: `{text}` (one line of text).
    Slack,
}

impl WebhookFormat {
    fn as_str(self) -> &'static str {
        match self {
            WebhookFormat::Standard => "standard",
            WebhookFormat::Discord => "discord",
            WebhookFormat::Slack => "slack",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "discord" => WebhookFormat::Discord,
            "slack" => WebhookFormat::Slack,
            _ => WebhookFormat::Standard,
        }
    }
}

/// A new endpoint.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://bot.example/kontor", "event_types": ["notice.your_turn"], "format": "standard"}))]
pub struct NewWebhook {
    /// `https://` (plain `http://` only on servers set up for development).
    pub url: String,
    #[serde(default)]
    pub description: String,
    /// `notice.<kind>` for the notice kinds (see the notification preferences); at least one.
    #[schema(schema_with = event_types_schema)]
    pub event_types: Vec<String>,
    #[serde(default)]
    pub format: WebhookFormat,
}

/// The event types as the schema lists them: from the notice kinds, never a copy.
fn event_types_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
    ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(crate::service::delivery::webhooks::event_types())),
        )
        .min_items(Some(1))
        .max_items(Some(64))
        .build()
        .into()
}

/// A change: fields left out keep their value.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"enabled": true}))]
pub struct WebhookUpdate {
    pub url: Option<String>,
    pub description: Option<String>,
    #[schema(schema_with = event_types_schema)]
    pub event_types: Option<Vec<String>>,
    pub format: Option<WebhookFormat>,
    /// Enabling an endpoint the server disabled clears `disabled_reason`.
    pub enabled: Option<bool>,
}

/// An endpoint (its secret is shown only when created or rotated).
#[derive(Debug, Serialize, ToSchema)]
pub struct Webhook {
    pub id: Uuid,
    pub url: String,
    pub description: String,
    pub event_types: Vec<String>,
    pub format: WebhookFormat,
    pub enabled: bool,
    /// Why the server disabled it: `gone` (the receiver answered 410) or `failing` (a
    /// delivery's last retry failed); null otherwise.
    pub disabled_reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<Endpoint> for Webhook {
    fn from(e: Endpoint) -> Self {
        Self {
            id: e.id,
            url: e.url,
            description: e.description,
            event_types: e.event_types,
            format: WebhookFormat::parse(&e.format),
            enabled: e.enabled,
            disabled_reason: e.disabled_reason,
            created_at: e.created_at,
        }
    }
}

/// A new endpoint with its secret, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedWebhook {
    #[serde(flatten)]
    pub webhook: Webhook,
    /// `whsec_…`: verify the `webhook-signature` header with it (Standard Webhooks).
    pub secret: String,
}

/// The caller's endpoints.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookList {
    pub items: Vec<Webhook>,
}

/// A new secret, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct RotatedWebhookSecret {
    pub secret: String,
    /// Until when the previous secret still signs (both signatures are sent meanwhile).
    pub previous_expires_at: DateTime<Utc>,
}

/// A queued delivery.
#[derive(Debug, Serialize, ToSchema)]
pub struct QueuedWebhookDelivery {
    /// The delivery's `webhook-id`.
    pub delivery_id: String,
}

/// A page of the delivery log.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookDeliveryPage {
    pub items: Vec<DeliveryLine>,
    /// Pass as `after` for the next page; null on the last.
    pub next: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct DeliveryQuery {
    /// At most this many (1–100, default 50).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
    /// The last delivery id of the previous page.
    #[param(pattern = "^msg_[0-9a-f]{32}$")]
    pub after: Option<String>,
}

/// A refusal in the words of `language` (the caller's `Accept-Language`).
fn refused(refusal: Refusal, language: Language) -> ApiError {
    let say = |key: &str, args: Args| catalogue::say(language, key, &args);
    match refusal {
        Refusal::Url(code, detail) => ApiError::unprocessable(
            ErrorCode::InvalidWebhookUrl,
            say(
                key!("refusal-webhook-url"),
                Args::new().choice("reason", code).text("detail", detail),
            ),
        )
        .with("field", "url")
        .with("reason", code),
        Refusal::UnknownEventType(event_type) => ApiError::unprocessable(
            ErrorCode::InvalidField,
            say(
                key!("refusal-webhook-event-type"),
                Args::new()
                    .text("event_type", format!("{event_type:?}"))
                    .text(
                        "types",
                        crate::service::delivery::webhooks::event_types().join(", "),
                    ),
            ),
        )
        .with("field", "event_types"),
        Refusal::TooManyEndpoints => ApiError::conflict(
            ErrorCode::TooManyWebhooks,
            say(
                key!("refusal-too-many-webhooks"),
                Args::new().number("max", crate::service::delivery::webhooks::MAX_ENDPOINTS),
            ),
        ),
        Refusal::NotFound => ApiError::not_found(
            ErrorCode::WebhookNotFound,
            say(key!("refusal-webhook-not-found"), Args::new()),
        ),
        Refusal::TooManyTestSends(wait) => ApiError::limit_reached(
            ErrorCode::TooManyTestSends,
            wait,
            say(
                key!("refusal-too-many-test-sends"),
                Args::new().number("minutes", wait.div_ceil(60) as i64),
            ),
        ),
        Refusal::NotFinished => ApiError::conflict(
            ErrorCode::DeliveryUnderWay,
            say(key!("refusal-delivery-under-way"), Args::new()),
        ),
    }
}

fn check_lengths(
    url: Option<&str>,
    description: Option<&str>,
    events: Option<&[String]>,
) -> Result<(), ApiError> {
    if url.is_some_and(|u| u.chars().count() > MAX_URL) {
        return Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            format!("the URL may have at most {MAX_URL} characters"),
        )
        .with("field", "url"));
    }
    if let Some(d) = description
        && (d.chars().count() > MAX_DESCRIPTION
            || d.chars().any(char::is_control)
            || crate::text::visible::misplaced(d).is_some())
    {
        return Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            format!(
                "the description is one line of visible text (no invisible or bidirectional control characters), at most {MAX_DESCRIPTION} characters"
            ),
        )
        .with("field", "description"));
    }
    if let Some(events) = events
        && (events.is_empty() || events.len() > 64)
    {
        return Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            "name at least one event type",
        )
        .with("field", "event_types"));
    }
    Ok(())
}

fn distinct(mut events: Vec<String>) -> Vec<String> {
    events.sort();
    events.dedup();
    events
}

/// Register a webhook endpoint. The answer holds its secret, shown this once. At most 10
/// endpoints per account.
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    request_body = NewWebhook,
    responses(
        (status = 201, description = "Created; the secret is shown this once.", body = CreatedWebhook),
        (status = 400, description = "`malformed_json` or `invalid_body`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`: the API token lacks `webhooks`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too_many_webhooks`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_webhook_url` (`reason`: `invalid_url`, `insecure_url`, `blocked_address`) or `invalid_field` (`field`).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/webhooks")]
pub async fn create_webhook(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    body: Json<NewWebhook>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::Webhooks)?;
    let new = body.into_inner();
    check_lengths(
        Some(&new.url),
        Some(&new.description),
        Some(&new.event_types),
    )?;
    let settings = Settings {
        url: new.url,
        description: new.description,
        event_types: distinct(new.event_types),
        format: new.format.as_str().to_string(),
        enabled: true,
    };
    let (endpoint, secret) = endpoints::create(
        &state.pool,
        state.config.outbound_allow_insecure,
        caller.user_id,
        settings,
        state.config.clock.now(),
    )
    .await?
    .map_err(|refusal| refused(refusal, language.0))?;
    let id = endpoint.id;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/me/webhooks/{id}")))
        .json(CreatedWebhook {
            webhook: endpoint.into(),
            secret,
        }))
}

/// The caller's webhook endpoints, oldest first.
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The endpoints.", body = WebhookList),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/webhooks")]
pub async fn list_webhooks(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<WebhookList>, ApiError> {
    caller.require(Scope::Webhooks)?;
    let items = crate::store::webhooks::list(&state.pool, caller.user_id).await?;
    Ok(Json(WebhookList {
        items: items.into_iter().map(Webhook::from).collect(),
    }))
}

/// One of the caller's webhook endpoints.
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The endpoint's id.")),
    responses(
        (status = 200, description = "The endpoint.", body = Webhook),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`webhook_not_found`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/webhooks/{id}")]
pub async fn get_webhook(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    path: web::Path<Uuid>,
) -> Result<Json<Webhook>, ApiError> {
    caller.require(Scope::Webhooks)?;
    crate::store::webhooks::get(&state.pool, caller.user_id, path.into_inner())
        .await?
        .map(|e| Json(e.into()))
        .ok_or_else(|| refused(Refusal::NotFound, language.0))
}

/// Change a webhook endpoint: fields left out keep their value.
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The endpoint's id.")),
    request_body = WebhookUpdate,
    responses(
        (status = 200, description = "The endpoint after the change.", body = Webhook),
        (status = 400, description = "`malformed_json` or `invalid_body`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`webhook_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_webhook_url` or `invalid_field`; nothing is changed.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/me/webhooks/{id}")]
pub async fn update_webhook(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    path: web::Path<Uuid>,
    body: Json<WebhookUpdate>,
) -> Result<Json<Webhook>, ApiError> {
    caller.require(Scope::Webhooks)?;
    let change = body.into_inner();
    check_lengths(
        change.url.as_deref(),
        change.description.as_deref(),
        change.event_types.as_deref(),
    )?;
    let endpoint = endpoints::update(
        &state.pool,
        state.config.outbound_allow_insecure,
        caller.user_id,
        path.into_inner(),
        move |e| {
            if let Some(url) = change.url {
                e.url = url;
            }
            if let Some(description) = change.description {
                e.description = description;
            }
            if let Some(events) = change.event_types {
                e.event_types = distinct(events);
            }
            if let Some(format) = change.format {
                e.format = format.as_str().to_string();
            }
            if let Some(enabled) = change.enabled {
                e.enabled = enabled;
            }
        },
    )
    .await?
    .map_err(|refusal| refused(refusal, language.0))?;
    Ok(Json(endpoint.into()))
}

/// Delete a webhook endpoint, its secrets and its delivery log.
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The endpoint's id.")),
    responses(
        (status = 204, description = "Deleted."),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`webhook_not_found`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/webhooks/{id}")]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::Webhooks)?;
    if crate::store::webhooks::delete(&state.pool, caller.user_id, path.into_inner()).await? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(refused(Refusal::NotFound, language.0))
    }
}

/// Rotate an endpoint's secret: the new one is shown this once; the previous one keeps
/// signing for 24 hours (each request carries both signatures meanwhile).
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The endpoint's id.")),
    responses(
        (status = 200, description = "The new secret.", body = RotatedWebhookSecret),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`webhook_not_found`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/webhooks/{id}/rotate")]
pub async fn rotate_webhook_secret(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    path: web::Path<Uuid>,
) -> Result<Json<RotatedWebhookSecret>, ApiError> {
    caller.require(Scope::Webhooks)?;
    let now = state.config.clock.now();
    let secret = endpoints::rotate(&state.pool, caller.user_id, path.into_inner(), now)
        .await?
        .map_err(|refusal| refused(refusal, language.0))?;
    Ok(Json(RotatedWebhookSecret {
        secret,
        previous_expires_at: now + crate::service::delivery::webhooks::SECRET_OVERLAP,
    }))
}

/// Send a `webhook.test` event to the endpoint (queued now; the log shows what became of it).
/// An account may make `KONTOR_TEST_SENDS_PER_HOUR` test sends an hour (10 by default; push
/// test notifications count too).
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The endpoint's id.")),
    responses(
        (status = 202, description = "Queued.", body = QueuedWebhookDelivery),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`webhook_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_test_sends`: the account's test sends of the hour (webhook and push together, `KONTOR_TEST_SENDS_PER_HOUR`) are used up; see `Retry-After`.", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = String, description = "Seconds until another test send is allowed."))),
    )
)]
#[post("/me/webhooks/{id}/test")]
pub async fn test_webhook(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::Webhooks)?;
    let delivery_id = endpoints::send_test(
        &state.pool,
        caller.user_id,
        path.into_inner(),
        state.config.delivery.test_sends_per_hour,
        state.config.clock.now(),
    )
    .await?
    .map_err(|refusal| refused(refusal, language.0))?;
    Ok(HttpResponse::Accepted().json(QueuedWebhookDelivery { delivery_id }))
}

/// The endpoint's delivery log, newest first, paged.
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The endpoint's id."), DeliveryQuery),
    responses(
        (status = 200, description = "A page of deliveries.", body = WebhookDeliveryPage),
        (status = 400, description = "`invalid_parameter`: `limit` out of range.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`webhook_not_found`: no such endpoint, or no delivery `after` of it.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/webhooks/{id}/deliveries")]
pub async fn webhook_deliveries(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    path: web::Path<Uuid>,
    query: Query<DeliveryQuery>,
) -> Result<Json<WebhookDeliveryPage>, ApiError> {
    caller.require(Scope::Webhooks)?;
    let limit = query.limit.unwrap_or(50);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::bad_request(
            ErrorCode::InvalidParameter,
            "limit is between 1 and 100",
        ));
    }
    let lines = endpoints::deliveries(
        &state.pool,
        caller.user_id,
        path.into_inner(),
        query.after.as_deref(),
        limit,
    )
    .await?
    .map_err(|refusal| refused(refusal, language.0))?;
    let next = (lines.len() as i64 == limit)
        .then(|| lines.last().map(|l| l.id.clone()))
        .flatten();
    Ok(Json(WebhookDeliveryPage { items: lines, next }))
}

/// Send a finished delivery again: same `webhook-id` and body, newly signed, with a fresh set
/// of attempts.
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    params(
        ("id" = Uuid, Path, description = "The endpoint's id."),
        ("delivery_id" = String, Path, description = "The delivery's id (`msg_…`)."),
    ),
    responses(
        (status = 202, description = "Queued again.", body = QueuedWebhookDelivery),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`webhook_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`delivery_under_way`: it has neither succeeded nor failed yet.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/webhooks/{id}/deliveries/{delivery_id}/redeliver")]
pub async fn redeliver_webhook(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::Webhooks)?;
    let (id, delivery_id) = path.into_inner();
    endpoints::redeliver(
        &state.pool,
        caller.user_id,
        id,
        &delivery_id,
        state.config.clock.now(),
    )
    .await?
    .map_err(|refusal| refused(refusal, language.0))?;
    Ok(HttpResponse::Accepted().json(QueuedWebhookDelivery { delivery_id }))
}
