//! PostgreSQL storage: the connection pool and migrations, accounts, tokens and failed
//! logins, game head rows, seats, clocks and vacations, invitations, the append-only event
//! log and the state cache, the mail outbox and notification preferences, live presence and
//! notification channels, players' private notes and standing orders, housekeeping, setting up a cluster, watching
//! that the database answers, and read replicas.
//! This is the only code that speaks SQL (a contract test keeps it so): everything else
//! calls the named functions here, and decides the transactions (a function that must run
//! in one takes a `&mut PgConnection`). Every game query is keyed by `game_id`.

pub mod append;
pub mod audience;
pub mod blocks;
pub mod calendar;
pub mod channels;
pub mod chat;
pub mod cluster;
pub mod deadlines;
pub mod events;
pub mod games;
pub mod health;
pub mod housekeeping;
pub mod invitations;
pub mod mail_tokens;
pub mod mentions;
pub mod monitor;
pub mod notes;
pub mod orders;
pub mod outbox;
pub mod preferences;
pub mod presence;
pub mod primary;
pub mod push;
pub mod ratings;
pub mod rematch;
pub mod replica;
pub mod seats;
pub mod sessions;
pub mod standing;
pub mod throttle;
pub mod tokens;
pub mod tournaments;
pub mod undo;
pub mod users;
pub mod vacations;
pub mod webhooks;

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

/// Connections of the session pool (see [`session_pool`]): the live listener's, the mail
/// listener's, and one to spare (a reconnect while the old connection is not yet returned).
pub const SESSION_POOL_SIZE: u32 = 3;

/// The pool for what needs a PostgreSQL session of its own rather than a transaction:
/// `LISTEN` (the live listener, the mail listener) and the migrations' advisory lock. Through
/// a transaction pooler (PgBouncer in transaction mode) neither works, since consecutive
/// transactions of one client may run on different server connections, so `url` then names
/// the database directly. Opened lazily: nothing connects before the first listener does.
pub fn session_pool(url: &str, acquire_timeout: Duration) -> anyhow::Result<PgPool> {
    let options: PgConnectOptions = url
        .parse()
        .context("KONTOR_SESSION_DATABASE_URL is not a PostgreSQL URL")?;
    Ok(PgPoolOptions::new()
        .max_connections(SESSION_POOL_SIZE)
        .acquire_timeout(acquire_timeout)
        .connect_lazy_with(options))
}

/// Applies every migration not yet applied, then recomputes the identity keys of accounts
/// made before the current folding (see `users::backfill_identity_keys`) and gives accounts
/// made before migration 0011 their username skeletons (`users::backfill_username_skeletons`).
pub async fn migrate(pool: &PgPool) -> anyhow::Result<()> {
    migrate_over(pool, pool).await
}

/// [`migrate`], with the migrations themselves applied over `session`: sqlx holds a
/// session-level advisory lock while it migrates (so that two instances starting at once do
/// not both apply a migration), which a transaction pooler would hand to some other client.
pub async fn migrate_over(pool: &PgPool, session: &PgPool) -> anyhow::Result<()> {
    MIGRATOR
        .run(session)
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
    let (updated, lookalikes) = users::backfill_username_skeletons(pool)
        .await
        .context("computing the username skeletons of older accounts")?;
    if updated > 0 {
        tracing::info!(
            accounts = updated,
            lookalikes = lookalikes.len(),
            "computed the username skeletons of older accounts"
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
