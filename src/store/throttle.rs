//! Failed logins (`login_failures`): one row per subject (an account, an unknown identifier,
//! a client address) with its failures in the current window. The same table counts the
//! volume limits of what sends mail (subjects `mail:…`, windows of up to a day): verification
//! and reset links, links to one address, registrations per client address, invitations.
//! What counts against which subject, and with what limit, is `auth::throttle`'s business.

use sqlx::PgExecutor;
use std::time::Duration;

/// Seconds (fractional) until the window of the most exhausted subject ends, if any of
/// `subjects` has used up its failures (`limits`, in the same order) in its current window.
pub async fn seconds_blocked<'e>(
    executor: impl PgExecutor<'e>,
    subjects: &[&str],
    limits: &[i32],
    window: Duration,
) -> Result<Option<f64>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT max(extract(epoch FROM f.window_start + make_interval(secs => $3) - now()))::float8
           FROM login_failures f
           JOIN unnest($1::text[], $2::int[]) AS s(subject, max_failures) USING (subject)
          WHERE f.failures >= s.max_failures
            AND f.window_start + make_interval(secs => $3) > now()",
    )
    .bind(subjects)
    .bind(limits)
    .bind(window.as_secs_f64())
    .fetch_one(executor)
    .await
}

/// Counts one failure against every subject; a subject whose window is over starts a new one.
pub async fn record_failure<'e>(
    executor: impl PgExecutor<'e>,
    subjects: &[&str],
    window: Duration,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO login_failures (subject, failures, window_start)
         SELECT s, 1, now() FROM unnest($1::text[]) AS s
         ON CONFLICT (subject) DO UPDATE SET
           failures = CASE WHEN login_failures.window_start + make_interval(secs => $2) <= now()
                           THEN 1 ELSE login_failures.failures + 1 END,
           window_start = CASE WHEN login_failures.window_start + make_interval(secs => $2) <= now()
                               THEN now() ELSE login_failures.window_start END",
    )
    .bind(subjects)
    .bind(window.as_secs_f64())
    .execute(executor)
    .await?;
    Ok(())
}

/// Forgets the failures of one subject.
pub async fn clear<'e>(executor: impl PgExecutor<'e>, subject: &str) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM login_failures WHERE subject = $1")
        .bind(subject)
        .execute(executor)
        .await?;
    Ok(())
}

/// Counts one use against `subject` (a rate limit rather than failures: a mail sent, say)
/// and returns the seconds (fractional) until its window ends if this use is more than the
/// `limit` its window allows; a subject whose window is over starts a new one. One
/// statement, so concurrent uses cannot both slip under the limit.
pub async fn take<'e>(
    executor: impl PgExecutor<'e>,
    subject: &str,
    limit: i32,
    window: Duration,
) -> Result<Option<f64>, sqlx::Error> {
    let (count, left): (i32, f64) = sqlx::query_as(
        "INSERT INTO login_failures (subject, failures, window_start) VALUES ($1, 1, now())
         ON CONFLICT (subject) DO UPDATE SET
           failures = CASE WHEN login_failures.window_start + make_interval(secs => $2) <= now()
                           THEN 1 ELSE login_failures.failures + 1 END,
           window_start = CASE WHEN login_failures.window_start + make_interval(secs => $2) <= now()
                               THEN now() ELSE login_failures.window_start END
         RETURNING failures,
                   extract(epoch FROM window_start + make_interval(secs => $2) - now())::float8",
    )
    .bind(subject)
    .bind(window.as_secs_f64())
    .fetch_one(executor)
    .await?;
    Ok((count > limit).then_some(left))
}
