//! The database the request being answered draws on (its pool, and what the database monitor
//! last found), kept while it is answered (the `observe` middleware sets it), so that an error
//! built without the request can tell a busy pool (503 `overloaded`) from a database that
//! cannot be reached (503 `database_unavailable`): sqlx reports both as a pool timeout. And
//! who the request was made by, so that the end of a user's write is noted (read-your-writes
//! with read replicas).

use crate::store::monitor::DatabaseStatus;
use sqlx::PgPool;
use std::sync::Arc;

/// The authenticated user a request was made by, kept in the request's extensions: when a
/// request that may write has been answered, the `observe` middleware notes the user's write
/// (see `store::replica`, read-your-writes).
#[derive(Clone, Copy, Debug)]
pub struct Author(pub uuid::Uuid);

/// The request's database.
#[derive(Clone)]
pub struct Serving {
    pub pool: PgPool,
    pub status: Arc<DatabaseStatus>,
}

tokio::task_local! {
    pub static CURRENT: Serving;
}

/// Whether `cause` means the request's pool was busy while the database answered (see
/// `store::health::overloaded`); false outside a request.
pub fn exhausted(cause: &anyhow::Error) -> bool {
    CURRENT
        .try_with(|serving| crate::store::health::overloaded(cause, &serving.pool, &serving.status))
        .unwrap_or(false)
}

/// Tells the request's database monitor to look now: the request found the database away.
pub fn nudge_monitor() {
    let _ = CURRENT.try_with(|serving| serving.status.nudge());
}
