//! Web Push: the server's VAPID public key, and the caller's push subscriptions (see
//! `service::delivery::push`). The per-kind push choice is part of `/me/notifications`.

use crate::http::error::{ApiError, ErrorCode, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::headers::AcceptLanguage;
use crate::http::extract::text::Json;
use crate::http::state::AppState;
use crate::key;
use crate::service::delivery::push::payload::Payload;
use crate::service::delivery::push::subscription::{self, Invalid};
use crate::service::delivery::push::{self, SubscribeError};
use crate::store::push as store;
use crate::words::catalogue::{Args, say};
use crate::words::language::Language;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The server's VAPID public key.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"public_key": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"}))]
pub struct VapidPublicKey {
    /// The P-256 public key, uncompressed (65 bytes), base64url without padding: the
    /// `applicationServerKey` for `pushManager.subscribe`.
    pub public_key: String,
}

/// The server's VAPID public key, for the page to subscribe a browser to Web Push. Public.
#[utoipa::path(
    tag = "push",
    responses(
        (status = 200, description = "The key.", body = VapidPublicKey),
    )
)]
#[get("/push/vapid-public-key")]
pub async fn vapid_public_key(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .json(VapidPublicKey {
            public_key: state.vapid.public_key().to_string(),
        })
}

/// A browser's push subscription keys.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SubscriptionKeys {
    /// The browser's P-256 public key, base64url (65 bytes uncompressed).
    pub p256dh: String,
    /// The browser's authentication secret, base64url (16 bytes).
    pub auth: String,
}

/// A browser's `PushSubscription` as `JSON.stringify(subscription)` gives it.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({"endpoint": "https://fcm.googleapis.com/fcm/send/dxs…", "expirationTime": null, "keys": {"p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", "auth": "BTBZMqHH6r4Tts7J_aSIgg"}}))]
pub struct NewSubscription {
    pub endpoint: String,
    pub keys: SubscriptionKeys,
    /// Ignored (browsers send it; push services end subscriptions with 404/410 anyway).
    #[serde(rename = "expirationTime")]
    #[allow(dead_code)]
    pub expiration_time: Option<serde_json::Value>,
}

/// One of the caller's push subscriptions (never its keys).
#[derive(Debug, Serialize, ToSchema)]
pub struct PushSubscriptionView {
    pub id: Uuid,
    /// The push service's URL for this browser.
    pub endpoint: String,
    /// The browser, as its `User-Agent` said when it subscribed.
    pub user_agent: String,
    pub created_at: DateTime<Utc>,
    /// The last time a push service accepted a notice for it.
    pub last_success_at: Option<DateTime<Utc>>,
    /// Failed deliveries since the last success.
    pub failure_count: i32,
}

impl From<store::Subscription> for PushSubscriptionView {
    fn from(s: store::Subscription) -> Self {
        Self {
            id: s.id,
            endpoint: s.endpoint,
            user_agent: s.user_agent,
            created_at: s.created_at,
            last_success_at: s.last_success_at,
            failure_count: s.failure_count,
        }
    }
}

async fn view(state: &AppState, user: Uuid, id: Uuid) -> Result<PushSubscriptionView, ApiError> {
    store::list(&state.pool, user)
        .await?
        .into_iter()
        .find(|s| s.id == id)
        .map(Into::into)
        .ok_or_else(|| not_found(Language::En))
}

fn not_found(language: Language) -> ApiError {
    ApiError::not_found(
        ErrorCode::PushSubscriptionNotFound,
        say(
            language,
            key!("refusal-push-subscription-not-found"),
            &Args::new(),
        ),
    )
}

/// Register this browser for Web Push: the body is its `PushSubscription` as JSON. The same
/// endpoint again updates the stored one (200) instead of adding one (201). At most 10 per
/// account. Needs a logged-in user (not an API token).
#[utoipa::path(
    tag = "push",
    security(("bearer" = [])),
    request_body = NewSubscription,
    responses(
        (status = 201, description = "Subscribed.", body = PushSubscriptionView),
        (status = 200, description = "Already subscribed: the keys were updated.", body = PushSubscriptionView),
        (status = 400, description = "`malformed_json` or `invalid_body`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too_many_push_subscriptions`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_push_endpoint` or `invalid_push_keys`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/push-subscriptions")]
pub async fn add_push_subscription(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    req: HttpRequest,
    body: Json<NewSubscription>,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    let body = body.into_inner();
    let checked = subscription::check(
        &body.endpoint,
        &body.keys.p256dh,
        &body.keys.auth,
        state.config.outbound_allow_insecure,
    )
    .map_err(|invalid| match invalid {
        Invalid::Endpoint(problem) => ApiError::unprocessable(
            ErrorCode::InvalidPushEndpoint,
            say(
                language.0,
                key!("refusal-push-endpoint"),
                &Args::new().choice("problem", problem),
            ),
        )
        .with("field", "endpoint"),
        Invalid::P256dh => ApiError::unprocessable(
            ErrorCode::InvalidPushKeys,
            say(language.0, key!("refusal-push-p256dh"), &Args::new()),
        )
        .with("field", "keys.p256dh"),
        Invalid::Auth => ApiError::unprocessable(
            ErrorCode::InvalidPushKeys,
            say(language.0, key!("refusal-push-auth"), &Args::new()),
        )
        .with("field", "keys.auth"),
    })?;
    let agent = crate::http::extract::headers::user_agent(&req).unwrap_or_default();
    let now = state.config.clock.now();
    let (id, new) = push::subscribe(&state.pool, caller.user_id, &checked, &agent, now)
        .await
        .map_err(|e| match e {
            SubscribeError::TooMany => ApiError::conflict(
                ErrorCode::TooManyPushSubscriptions,
                say(
                    language.0,
                    key!("refusal-too-many-push-subscriptions"),
                    &Args::new().number("max", push::MAX_SUBSCRIPTIONS),
                ),
            ),
            SubscribeError::Database(e) => e.into(),
        })?;
    let body = view(&state, caller.user_id, id).await?;
    Ok(match new {
        true => HttpResponse::Created()
            .insert_header((
                header::LOCATION,
                format!("/api/v1/me/push-subscriptions/{id}"),
            ))
            .json(body),
        false => HttpResponse::Ok().json(body),
    })
}

/// The caller's push subscriptions, oldest first (at most 10; never their keys).
#[utoipa::path(
    tag = "push",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The subscriptions.", body = Vec<PushSubscriptionView>),
        Unauthenticated,
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/push-subscriptions")]
pub async fn list_push_subscriptions(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<Vec<PushSubscriptionView>>, ApiError> {
    caller.require_session()?;
    let subscriptions = store::list(&state.pool, caller.user_id).await?;
    Ok(Json(subscriptions.into_iter().map(Into::into).collect()))
}

/// Remove one of the caller's push subscriptions (the browser gets no more pushes).
#[utoipa::path(
    tag = "push",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The subscription.")),
    responses(
        (status = 204, description = "Removed."),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`push_subscription_not_found`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/push-subscriptions/{id}")]
pub async fn remove_push_subscription(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    match store::delete(&state.pool, caller.user_id, path.into_inner()).await? {
        true => Ok(HttpResponse::NoContent().finish()),
        false => Err(not_found(language.0)),
    }
}

/// What the push service answered to a test notification.
#[derive(Serialize, ToSchema)]
pub struct PushTestResult {
    /// The push service's HTTP status (201 when it took the message), or none when it could
    /// not be reached.
    pub status: Option<u16>,
    /// Why it could not be reached.
    pub error: Option<String>,
}

/// Send a test notification to one of the caller's subscriptions now. A 404/410 answer
/// removes the subscription, as for any notice. An account may make
/// `KONTOR_TEST_SENDS_PER_HOUR` test sends an hour (10 by default; webhook test events count
/// too).
#[utoipa::path(
    tag = "push",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The subscription.")),
    responses(
        (status = 200, description = "Sent; the push service's answer.", body = PushTestResult),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`push_subscription_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_test_sends`: the account's test sends of the hour (push and webhook together, `KONTOR_TEST_SENDS_PER_HOUR`) are used up; see `Retry-After`.", body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = String, description = "Seconds until another test send is allowed."))),
    )
)]
#[post("/me/push-subscriptions/{id}/test")]
pub async fn test_push_subscription(
    state: web::Data<AppState>,
    caller: Caller,
    language: AcceptLanguage,
    path: web::Path<Uuid>,
) -> Result<Json<PushTestResult>, ApiError> {
    caller.require_session()?;
    let id = path.into_inner();
    let (endpoint, p256dh, auth) = store::find_for_test(&state.pool, caller.user_id, id)
        .await?
        .ok_or_else(|| not_found(language.0))?;
    let per_hour = state.config.delivery.test_sends_per_hour;
    if let Err(wait) =
        crate::service::delivery::fair::take_test_send(&state.pool, caller.user_id, per_hour)
            .await?
    {
        return Err(ApiError::limit_reached(
            ErrorCode::TooManyTestSends,
            wait,
            say(
                language.0,
                key!("refusal-too-many-test-sends"),
                &Args::new().number("minutes", wait.div_ceil(60) as i64),
            ),
        ));
    }
    let base = state.config.public_base_url();
    let payload = Payload {
        kind: "test",
        title: "Kontor".to_string(),
        body: say(language.0, key!("push-test"), &Args::new()),
        url: format!("{base}/settings"),
        game_id: None,
        tag: "test".to_string(),
    };
    let client = push::deliver::client(&state.config).map_err(ApiError::from)?;
    let now = state.config.clock.now();
    let result = push::deliver::send_test(
        &client,
        &state.vapid,
        &endpoint,
        &p256dh,
        &auth,
        &payload,
        now,
    )
    .await;
    Ok(Json(match result {
        Ok(status) => {
            if status == 404 || status == 410 {
                store::delete_gone(&state.pool, id).await?;
            }
            PushTestResult {
                status: Some(status),
                error: None,
            }
        }
        Err(error) => PushTestResult {
            status: None,
            error: Some(error),
        },
    }))
}
