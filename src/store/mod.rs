//! PostgreSQL storage: the connection pool and migrations, game head rows, the append-only
//! event log and the state cache. Every game query is keyed by `game_id`.

pub mod append;
pub mod events;
pub mod games;
pub mod health;
pub mod users;

use anyhow::Context;
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use std::time::Duration;

/// The migrations in `migrations/`, embedded in the binary.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Opens a pool for tools and tests, which rather wait long (10 s) for a connection than
/// fail; the server's pool uses `KONTOR_DB_ACQUIRE_TIMEOUT_MS` ([`connect_with_timeout`]).
pub async fn connect(options: PgConnectOptions, size: u32) -> anyhow::Result<PgPool> {
    connect_with_timeout(options, size, Duration::from_secs(10)).await
}

/// Opens a pool. `acquire_timeout` bounds how long a request waits for a connection: when the
/// database is down, a request fails after it (and is answered 503) instead of hanging.
pub async fn connect_with_timeout(
    options: PgConnectOptions,
    size: u32,
    acquire_timeout: Duration,
) -> anyhow::Result<PgPool> {
    PgPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(acquire_timeout)
        .connect_with(options)
        .await
        .context("connecting to PostgreSQL")
}

/// Applies every migration not yet applied, then recomputes the identity keys of accounts
/// made before the current folding (see `users::backfill_identity_keys`).
pub async fn migrate(pool: &PgPool) -> anyhow::Result<()> {
    MIGRATOR
        .run(pool)
        .await
        .context("applying database migrations")?;
    let backfill = users::backfill_identity_keys(pool)
        .await
        .context("recomputing the identity keys of older accounts")?;
    if backfill.updated > 0 {
        tracing::info!(
            accounts = backfill.updated,
            conflicts = backfill.conflicts.len(),
            "recomputed the identity keys of older accounts"
        );
    }
    Ok(())
}
