//! Throttling of failed logins per account and per client address, kept in the database so
//! that several server instances share the count.
//!
//! An account's failures count together whichever identifier was typed (username or email
//! address, in any case): the login resolves the account first. The address limit is its own
//! setting (`KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS`): many people can share one address behind
//! a NAT or proxy, and one client's failures lock them all out for the rest of the window.

use crate::store::throttle as store;
use crate::text::identity;
use sqlx::{PgConnection, PgPool};
use std::time::Duration;
use uuid::Uuid;

/// Rate-limited mails are counted in the same table under subjects beginning `mail:`, and other
/// volume limits (test sends) under [`VOLUME_PREFIX`], with windows of their own; none is
/// longer than this, so housekeeping may forget such a counter once this long has passed since
/// its window began.
pub const LONGEST_MAIL_WINDOW: Duration = Duration::from_secs(86_400);

/// The prefix of the subjects of volume limits that are not about mail (windows of up to
/// [`LONGEST_MAIL_WINDOW`]).
pub const VOLUME_PREFIX: &str = "limit:";

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
    let wait = store::seconds_blocked(pool, &names, &limits, window).await?;
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
    store::record_failure(pool, &names, window).await
}

/// Forgets the failures of an account after a successful login.
pub async fn clear(pool: &PgPool, subject: &str) -> Result<(), sqlx::Error> {
    store::clear(pool, subject).await
}

/// A rate limit: at most `limit` uses of `subject` per `window`.
pub struct Limit {
    pub subject: String,
    pub limit: u32,
    pub window: Duration,
}

/// Counts one use against every limit; `Err(seconds)` (the longest wait) when any of them
/// is used up. On the caller's connection: inside a transaction, a use that is rolled back
/// (the mail it allowed was not sent after all) is not counted.
pub async fn take(
    conn: &mut PgConnection,
    limits: &[Limit],
) -> Result<Result<(), u64>, sqlx::Error> {
    let mut wait: Option<f64> = None;
    for limit in limits {
        let limit_count = i32::try_from(limit.limit).unwrap_or(i32::MAX);
        if let Some(left) =
            store::take(&mut *conn, &limit.subject, limit_count, limit.window).await?
        {
            wait = Some(wait.map_or(left, |w| w.max(left)));
        }
    }
    Ok(match wait {
        Some(seconds) => Err(seconds.ceil().max(1.0) as u64),
        None => Ok(()),
    })
}
