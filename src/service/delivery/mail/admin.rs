//! For operators: the mails that failed for good, and sending them again (used by
//! `kontor mail failed|retry` and the admin endpoints).

pub use crate::store::outbox::FailedMail;
use crate::store::{channels, outbox};
use sqlx::PgPool;
use uuid::Uuid;

/// Failed mails, the most recent first.
pub async fn list_failed(pool: &PgPool, limit: i64) -> sqlx::Result<Vec<FailedMail>> {
    outbox::list_failed(pool, limit).await
}

/// Sends a failed mail again: due now, with a fresh set of attempts. Returns whether there
/// was a failed mail with this id.
pub async fn retry(pool: &PgPool, id: Uuid) -> sqlx::Result<bool> {
    let done = outbox::retry_failed(pool, id).await?;
    notify(pool, u64::from(done)).await?;
    Ok(done)
}

/// Sends every failed mail again; returns how many.
pub async fn retry_all(pool: &PgPool) -> sqlx::Result<u64> {
    let done = outbox::retry_all_failed(pool).await?;
    notify(pool, done).await?;
    Ok(done)
}

async fn notify(pool: &PgPool, changed: u64) -> sqlx::Result<()> {
    if changed > 0 {
        channels::notify(pool, crate::service::notices::CHANNEL, "").await?;
    }
    Ok(())
}
