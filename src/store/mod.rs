//! PostgreSQL storage: the connection pool and migrations, accounts, tokens and failed
//! logins, game head rows, seats, clocks and vacations, invitations, the append-only event
//! log and the state cache, the mail outbox and notification preferences, live presence and
//! notification channels, housekeeping, and setting up a cluster. This is the only code that
//! speaks SQL (a contract test keeps it so): everything else calls the named functions here,
//! and decides the transactions (a function that must run in one takes a
//! `&mut PgConnection`). Every game query is keyed by `game_id`.

pub mod append;
pub mod blocks;
pub mod channels;
pub mod cluster;
pub mod deadlines;
pub mod events;
pub mod games;
pub mod health;
pub mod housekeeping;
pub mod invitations;
pub mod outbox;
pub mod preferences;
pub mod presence;
pub mod seats;
pub mod throttle;
pub mod tokens;
pub mod users;
pub mod vacations;

use anyhow::Context;
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use std::time::Duration;

/// A PostgreSQL array literal (`{0,2}`) of seat numbers. Statements that `unnest` one array
/// per column take arrays of arrays as such text (cast back in SQL): PostgreSQL arrays of
/// arrays must be rectangular, and these lists differ in length.
pub fn array_literal(seats: &[i16]) -> String {
    let items: Vec<String> = seats.iter().map(i16::to_string).collect();
    format!("{{{}}}", items.join(","))
}

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

#[cfg(test)]
mod tests {
    #[test]
    fn array_literals_list_the_seats_in_braces() {
        assert_eq!(super::array_literal(&[]), "{}");
        assert_eq!(super::array_literal(&[0, 2, -1]), "{0,2,-1}");
    }
}
