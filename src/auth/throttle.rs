//! Throttling of failed logins per account and per client address, kept in the database so
//! that several server instances share the count.
//!
//! An account's failures count together whichever identifier was typed (username or email
//! address, in any case): the login resolves the account first. The address limit is its own
//! setting (`KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS`): many people can share one address behind
//! a NAT or proxy, and one client's failures lock them all out for the rest of the window.

use super::identity;
use sqlx::PgPool;
use std::time::Duration;
use uuid::Uuid;

/// Whom a login attempt names.
pub enum Account<'a> {
    /// An existing account, however it was named (username or email address, any case).
    Known(Uuid),
    /// No account has this identifier. Failures still count against it, as typed (folded),
    /// so that throttling looks the same whether or not an account exists.
    Unknown(&'a str),
}

/// The subjects a login attempt counts against, with the failures each is allowed: the
/// account (or the unknown identifier), and the client's address.
pub fn subjects(
    account: &Account<'_>,
    address: Option<&str>,
    per_account: u32,
    per_address: u32,
) -> Vec<(String, u32)> {
    let first = match account {
        Account::Known(id) => format!("account:{id}"),
        Account::Unknown(identifier) => format!("name:{}", identity::key(identifier)),
    };
    let mut subjects = vec![(first, per_account)];
    if let Some(address) = address {
        subjects.push((format!("ip:{address}"), per_address));
    }
    subjects
}

/// `Err(seconds)` when any subject has used up its failures in the current window.
pub async fn check(
    pool: &PgPool,
    subjects: &[(String, u32)],
    window: Duration,
) -> Result<Result<(), u64>, sqlx::Error> {
    let names: Vec<&str> = subjects.iter().map(|(s, _)| s.as_str()).collect();
    let limits: Vec<i32> = subjects.iter().map(|(_, n)| *n as i32).collect();
    let wait: Option<f64> = sqlx::query_scalar(
        "SELECT max(extract(epoch FROM f.window_start + make_interval(secs => $3) - now()))::float8
           FROM login_failures f
           JOIN unnest($1::text[], $2::int[]) AS s(subject, max_failures) USING (subject)
          WHERE f.failures >= s.max_failures
            AND f.window_start + make_interval(secs => $3) > now()",
    )
    .bind(&names)
    .bind(&limits)
    .bind(window.as_secs_f64())
    .fetch_one(pool)
    .await?;
    Ok(match wait {
        Some(seconds) => Err(seconds.ceil().max(1.0) as u64),
        None => Ok(()),
    })
}

/// Counts one failure against every subject (a new window starts when the old one is over).
pub async fn record_failure(
    pool: &PgPool,
    subjects: &[(String, u32)],
    window: Duration,
) -> Result<(), sqlx::Error> {
    let names: Vec<&str> = subjects.iter().map(|(s, _)| s.as_str()).collect();
    sqlx::query(
        "INSERT INTO login_failures (subject, failures, window_start)
         SELECT s, 1, now() FROM unnest($1::text[]) AS s
         ON CONFLICT (subject) DO UPDATE SET
           failures = CASE WHEN login_failures.window_start + make_interval(secs => $2) <= now()
                           THEN 1 ELSE login_failures.failures + 1 END,
           window_start = CASE WHEN login_failures.window_start + make_interval(secs => $2) <= now()
                               THEN now() ELSE login_failures.window_start END",
    )
    .bind(&names)
    .bind(window.as_secs_f64())
    .execute(pool)
    .await?;
    Ok(())
}

/// Forgets the failures of an account after a successful login.
pub async fn clear(pool: &PgPool, subject: &str) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM login_failures WHERE subject = $1")
        .bind(subject)
        .execute(pool)
        .await?;
    Ok(())
}
