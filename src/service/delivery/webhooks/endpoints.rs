//! Managing a user's webhook endpoints: create (the secret is shown once), change, delete,
//! rotate the secret, send a test event, read the delivery log, redeliver.

use super::{MAX_ENDPOINTS, SECRET_OVERLAP, TEST_EVENT, new_message_id, new_secret, standard_body};
use crate::key;
use crate::store::webhooks::{self as store, DeliveryLine, Endpoint, NewDelivery};
use crate::words::catalogue::{Args, say};
use crate::words::language::Language;
use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

/// Why a change was refused (the caller's input, never the server's trouble).
#[derive(Debug)]
pub enum Refusal {
    /// The URL is not one the server will send to; the outbound client's code and what it
    /// names (the address, the parser's reason).
    Url(&'static str, String),
    /// An event type that is not one of [`super::event_types`].
    UnknownEventType(String),
    /// The user has [`MAX_ENDPOINTS`] already.
    TooManyEndpoints,
    /// No endpoint (or delivery) of the caller with this id.
    NotFound,
    /// The delivery is still under way: nothing to redeliver.
    NotFinished,
    /// The account's test sends of the hour are used up: seconds to wait.
    TooManyTestSends(u64),
}

/// What a create or update asks for, checked.
pub struct Settings {
    pub url: String,
    pub description: String,
    pub event_types: Vec<String>,
    pub format: String,
    pub enabled: bool,
}

/// Checks a URL and event types as the server will use them.
pub fn check(allow_insecure: bool, url: &str, event_types: &[String]) -> Result<(), Refusal> {
    crate::service::delivery::outbound::check_url(url, allow_insecure)
        .map_err(|error| Refusal::Url(error.code(), error.detail().to_string()))?;
    let known = super::event_types();
    if let Some(unknown) = event_types.iter().find(|t| !known.contains(t)) {
        return Err(Refusal::UnknownEventType(unknown.clone()));
    }
    Ok(())
}

/// Creates an endpoint for the user; the endpoint and its secret (shown this once).
pub async fn create(
    pool: &PgPool,
    allow_insecure: bool,
    user_id: Uuid,
    settings: Settings,
    now: DateTime<Utc>,
) -> sqlx::Result<Result<(Endpoint, String), Refusal>> {
    if let Err(refusal) = check(allow_insecure, &settings.url, &settings.event_types) {
        return Ok(Err(refusal));
    }
    let mut tx = pool.begin().await?;
    store::lock_owner(&mut tx, user_id).await?;
    if store::count(&mut *tx, user_id).await? >= MAX_ENDPOINTS {
        return Ok(Err(Refusal::TooManyEndpoints));
    }
    let endpoint = Endpoint {
        id: Uuid::now_v7(),
        user_id,
        url: settings.url,
        description: settings.description,
        event_types: settings.event_types,
        format: settings.format,
        enabled: settings.enabled,
        disabled_reason: None,
        created_at: now,
    };
    let secret = new_secret();
    store::insert(&mut tx, &endpoint, &secret).await?;
    tx.commit().await?;
    Ok(Ok((endpoint, secret)))
}

/// Changes an endpoint: `change` gets the stored settings and returns the new ones.
pub async fn update(
    pool: &PgPool,
    allow_insecure: bool,
    user_id: Uuid,
    id: Uuid,
    change: impl FnOnce(&mut Endpoint),
) -> sqlx::Result<Result<Endpoint, Refusal>> {
    let Some(mut endpoint) = store::get(pool, user_id, id).await? else {
        return Ok(Err(Refusal::NotFound));
    };
    change(&mut endpoint);
    if let Err(refusal) = check(allow_insecure, &endpoint.url, &endpoint.event_types) {
        return Ok(Err(refusal));
    }
    store::update(pool, &endpoint).await?;
    Ok(store::get(pool, user_id, id)
        .await?
        .ok_or(Refusal::NotFound))
}

/// Rotates the endpoint's secret: the new one (shown this once); the old one keeps signing
/// for [`SECRET_OVERLAP`].
pub async fn rotate(
    pool: &PgPool,
    user_id: Uuid,
    id: Uuid,
    now: DateTime<Utc>,
) -> sqlx::Result<Result<String, Refusal>> {
    let mut tx = pool.begin().await?;
    if store::get(&mut *tx, user_id, id).await?.is_none() {
        return Ok(Err(Refusal::NotFound));
    }
    let secret = new_secret();
    store::rotate_secret(&mut tx, id, &secret, now, now + SECRET_OVERLAP).await?;
    tx.commit().await?;
    Ok(Ok(secret))
}

/// Queues a `webhook.test` event to the endpoint; its delivery id. A disabled endpoint is
/// sent nothing: the test waits until it is enabled again. At most `per_hour` test sends of
/// the account an hour (`KONTOR_TEST_SENDS_PER_HOUR`, push tests included).
pub async fn send_test(
    pool: &PgPool,
    user_id: Uuid,
    id: Uuid,
    per_hour: u32,
    now: DateTime<Utc>,
) -> sqlx::Result<Result<String, Refusal>> {
    let Some(endpoint) = store::get(pool, user_id, id).await? else {
        return Ok(Err(Refusal::NotFound));
    };
    if let Err(wait) =
        crate::service::delivery::fair::take_test_send(pool, user_id, per_hour).await?
    {
        return Ok(Err(Refusal::TooManyTestSends(wait)));
    }
    let message_id = new_message_id();
    let language = crate::store::users::mail_locale(pool, user_id)
        .await?
        .and_then(|(_, language, _)| Language::parse(&language))
        .unwrap_or_default();
    let summary = say(language, key!("webhook-test"), &Args::new());
    let body = standard_body(
        TEST_EVENT,
        now,
        &json!({ "endpoint_id": endpoint.id, "summary": summary }),
    );
    store::insert_delivery(
        pool,
        &NewDelivery {
            id: &message_id,
            endpoint_id: endpoint.id,
            notice_id: None,
            event_type: TEST_EVENT,
            body: &body,
            now,
        },
    )
    .await?;
    Ok(Ok(message_id))
}

/// A page of the endpoint's delivery log, newest first, after the delivery `after`.
pub async fn deliveries(
    pool: &PgPool,
    user_id: Uuid,
    id: Uuid,
    after: Option<&str>,
    limit: i64,
) -> sqlx::Result<Result<Vec<DeliveryLine>, Refusal>> {
    if store::get(pool, user_id, id).await?.is_none() {
        return Ok(Err(Refusal::NotFound));
    }
    let after = match after {
        None => None,
        Some(delivery) => match store::delivery_position(pool, id, delivery).await? {
            Some(at) => Some((at, delivery.to_string())),
            None => return Ok(Err(Refusal::NotFound)),
        },
    };
    Ok(Ok(store::deliveries(pool, id, after, limit).await?))
}

/// Makes a finished delivery due again (same id and body, a fresh set of attempts).
pub async fn redeliver(
    pool: &PgPool,
    user_id: Uuid,
    id: Uuid,
    delivery: &str,
    now: DateTime<Utc>,
) -> sqlx::Result<Result<(), Refusal>> {
    if store::get(pool, user_id, id).await?.is_none()
        || store::delivery_position(pool, id, delivery)
            .await?
            .is_none()
    {
        return Ok(Err(Refusal::NotFound));
    }
    if store::redeliver(pool, id, delivery, now).await? {
        Ok(Ok(()))
    } else {
        Ok(Err(Refusal::NotFinished))
    }
}
