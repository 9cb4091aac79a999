//! Web Push (RFC 8030, message encryption RFC 8291, VAPID RFC 8292): the same notices as mail,
//! to the browsers a player subscribed, with a per-kind choice.
//!
//! * A subscription (`POST /me/push-subscriptions`) is a browser's endpoint and keys; at most
//!   [`MAX_SUBSCRIPTIONS`] per account; removed at logout-everywhere, password reset and
//!   account deletion, and when a push service answers 404/410.
//! * The worker ([`deliver`]) plans each notice of the outbox once (`push_planned`), writing one
//!   delivery row per subscription whose owner wants that kind by push, then delivers those
//!   rows concurrently with retries, a lease per claimed row, and the same staleness checks as
//!   mail ([`super::relevance`]).
//! * The payload ([`payload`]) is thin JSON from the recipient's own view: kind, title, body,
//!   link, game id, tag. Never anything a mail of that kind would not show that seat.

pub mod deliver;
pub mod payload;
pub mod subscription;
pub mod vapid;

/// Push subscriptions one account may have (its browsers and devices).
pub const MAX_SUBSCRIPTIONS: i64 = 10;

/// Why a subscription was not stored.
#[derive(Debug)]
pub enum SubscribeError {
    /// The account has [`MAX_SUBSCRIPTIONS`] already (the same endpoint again is not counted).
    TooMany,
    Database(sqlx::Error),
}

impl From<sqlx::Error> for SubscribeError {
    fn from(e: sqlx::Error) -> Self {
        SubscribeError::Database(e)
    }
}

/// Stores a checked subscription for `user` (idempotent for the same endpoint); returns its id
/// and whether it is new.
pub async fn subscribe(
    pool: &sqlx::PgPool,
    user: uuid::Uuid,
    checked: &subscription::Checked,
    user_agent: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(uuid::Uuid, bool), SubscribeError> {
    use crate::store::push as store;
    let mut tx = pool.begin().await?;
    store::lock_user(&mut tx, user).await?;
    let endpoint = checked.endpoint.as_str();
    if store::count_others(&mut tx, user, endpoint).await? >= MAX_SUBSCRIPTIONS {
        return Err(SubscribeError::TooMany);
    }
    let stored = store::upsert_subscription(
        &mut tx,
        uuid::Uuid::now_v7(),
        user,
        endpoint,
        &checked.p256dh,
        &checked.auth,
        user_agent,
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(stored)
}
