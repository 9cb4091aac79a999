//! The deadline calendar's private link (see `service::delivery::calendar` for the feed
//! itself): making one (which revokes the one before), whether there is one, revoking it.
//! The server keeps only the token's hash.

use crate::auth::{self, CALENDAR_FEED_PREFIX};
use crate::config::Config;
use crate::service::play::error::Error;
use crate::store::calendar as feeds;
use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

/// A new feed's address, shown this once.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"url": "https://kontor.example/api/v1/calendar/kontor_cal_3q2-7wEhYH8a0n9Yd2m6uQ0cS5xVbK1LrTjZpF4eGkA.ics", "created_at": "2026-12-02T12:00:00Z"}))]
pub struct CalendarFeedCreated {
    /// The feed's URL: subscribe to it in a calendar program. It is a secret (whoever has
    /// it sees the caller's games to move in), shown only now: the server keeps only a hash.
    pub url: String,
    pub created_at: DateTime<Utc>,
}

/// Whether the caller has a feed (never its URL, which the server does not keep).
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"exists": true, "created_at": "2026-12-02T12:00:00Z"}))]
pub struct CalendarFeedStatus {
    pub exists: bool,
    /// When the current feed was made; `null` without one.
    pub created_at: Option<DateTime<Utc>>,
}

/// Makes a new feed for `user`, replacing (and so revoking) any earlier one.
pub async fn create(
    pool: &PgPool,
    config: &Config,
    user: Uuid,
) -> Result<CalendarFeedCreated, Error> {
    let token = auth::random_token(CALENDAR_FEED_PREFIX);
    let now = config.clock.now();
    feeds::replace(pool, user, &auth::token_hash(&token), now).await?;
    Ok(CalendarFeedCreated {
        url: format!("{}/api/v1/calendar/{token}.ics", config.public_base_url()),
        created_at: now,
    })
}

/// Whether `user` has a feed.
pub async fn status(pool: &PgPool, user: Uuid) -> Result<CalendarFeedStatus, Error> {
    let created_at = feeds::created_at(pool, user).await?;
    Ok(CalendarFeedStatus {
        exists: created_at.is_some(),
        created_at,
    })
}

/// Revokes `user`'s feed; whether there was one.
pub async fn revoke(pool: &PgPool, user: Uuid) -> Result<bool, Error> {
    Ok(feeds::revoke(pool, user).await?)
}
