//! Following the primary among several servers (`KONTOR_DATABASE_URL` listing a primary and
//! its standbys). sqlx takes one host per pool and ignores `target_session_attrs`, so Kontor
//! does it: it asks each server whether it takes writes (`pg_is_in_recovery()`), points its
//! pool at the one that does, refuses any connection that lands on a standby (checked after
//! each connect), and the database monitor (`store::monitor`) re-points the live pool
//! (`Pool::set_connect_options`) once the primary has moved.

use anyhow::Context;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use sqlx::{Connection, PgPool};
use std::time::Duration;

/// The error of a connection refused because it landed on a standby (the pool then tries
/// again; `store::health::database_unreachable` counts it as an outage).
pub const ON_A_STANDBY: &str = "connected to a standby (read-only) server; waiting for the primary";

/// How long asking one server (connecting, then the question) may take.
const ASK_TIMEOUT: Duration = Duration::from_secs(2);

/// The connection options of each address of `setting` (named in the error).
pub fn parse(addresses: &[String], setting: &str) -> anyhow::Result<Vec<PgConnectOptions>> {
    addresses
        .iter()
        .enumerate()
        .map(|(at, url)| {
            url.parse::<PgConnectOptions>()
                .with_context(|| format!("address {} of {setting} is not a PostgreSQL URL", at + 1))
        })
        .collect()
}

/// The question whether a server takes writes (it is no standby in recovery).
pub const TAKES_WRITES: &str = "SELECT NOT pg_is_in_recovery()";

/// Whether the server behind `connection` takes writes (it is no standby in recovery).
pub async fn takes_writes(connection: &mut PgConnection) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar::<_, bool>(TAKES_WRITES)
        .fetch_one(connection)
        .await
}

/// Asks one server whether it takes writes; `false` when it cannot be asked.
async fn is_primary(options: &PgConnectOptions) -> bool {
    let asked = tokio::time::timeout(ASK_TIMEOUT, async {
        let mut connection = PgConnection::connect_with(options).await?;
        let answer = takes_writes(&mut connection).await;
        let _ = connection.close().await;
        answer
    })
    .await;
    matches!(asked, Ok(Ok(true)))
}

/// The first of `candidates` that takes writes (all asked at once), if any does.
pub async fn find(candidates: &[PgConnectOptions]) -> Option<usize> {
    let answers = futures_util::future::join_all(candidates.iter().map(is_primary)).await;
    answers.iter().position(|primary| *primary)
}

/// A pool on the primary among `candidates`: the server that takes writes now (an error
/// naming how many were asked if none does), whose every new connection is checked to be on a
/// primary still (one that lands on a standby is refused, and the pool tries again).
pub async fn connect(
    candidates: &[PgConnectOptions],
    size: u32,
    acquire_timeout: Duration,
) -> anyhow::Result<(PgPool, usize)> {
    let Some(primary) = find(candidates).await else {
        anyhow::bail!(
            "none of the {} servers in KONTOR_DATABASE_URL takes writes (is the primary down, \
             and no standby promoted yet?)",
            candidates.len()
        );
    };
    let pool = PgPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(acquire_timeout)
        .after_connect(|connection, _| {
            Box::pin(async move {
                if takes_writes(connection).await? {
                    Ok(())
                } else {
                    Err(sqlx::Error::Protocol(ON_A_STANDBY.into()))
                }
            })
        })
        .connect_with(candidates[primary].clone())
        .await
        .context("connecting to the primary")?;
    Ok((pool, primary))
}
