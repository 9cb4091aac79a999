//! Housekeeping: deleting what nobody needs any more, so that tables that grow with use stay
//! flat. Run by the workers every `KONTOR_HOUSEKEEPING_EVERY` seconds and by
//! `kontor housekeeping`; deleting twice is harmless, so several instances may run it.
//!
//! Deleted: mail finished (sent or skipped) more than `KONTOR_KEEP_SENT_MAIL_DAYS` days ago,
//! the live-presence rows of streams and instances that ended without saying so, expired
//! refresh tokens and failed-login counters whose window has ended, and the answers stored
//! for actions' idempotency keys once `KONTOR_IDEMPOTENCY_WINDOW` has passed (a cache for
//! retries, not the truth: the key and the request's digest stay, so a late retry is still
//! recognised). Never deleted: the game log, the commands, the games, the seats, the
//! snapshots, the accounts, the API tokens, and mail not finished (due, held for a digest, or
//! failed for good).

use crate::store::housekeeping;
use crate::time::Clock;
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What one pass deleted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub mails: u64,
    pub presence: u64,
    pub refresh_tokens: u64,
    pub login_failures: u64,
    /// Stored answers of actions emptied.
    pub answers: u64,
}

/// One pass at `now`: deletes mail finished more than `keep_sent_mail_days` days before (none
/// if 0), and by the database's own clock (as they are judged where they are used: presence
/// is real time, see [`crate::time`]; token expiry and login windows are checked with SQL's
/// `now()`) stale live-presence rows, expired refresh tokens and failed-login counters whose
/// `login_window` has ended; and by the instance's clock the answers of actions recorded
/// more than `idempotency_window` before `now` (see [`housekeeping::trim_answers`]).
pub async fn sweep(
    pool: &PgPool,
    keep_sent_mail_days: u32,
    login_window: Duration,
    idempotency_window: Duration,
    now: DateTime<Utc>,
) -> Result<Swept, sqlx::Error> {
    let mut swept = Swept {
        presence: housekeeping::purge_stale_presence(pool).await?,
        refresh_tokens: housekeeping::purge_expired_refresh_tokens(pool).await?,
        login_failures: housekeeping::purge_ended_login_windows(
            pool,
            login_window,
            crate::auth::throttle::LONGEST_MAIL_WINDOW,
        )
        .await?,
        ..Swept::default()
    };
    if keep_sent_mail_days > 0 {
        let before = now - chrono::Duration::days(i64::from(keep_sent_mail_days));
        loop {
            let deleted = housekeeping::purge_finished_mail(pool, before).await?;
            swept.mails += deleted;
            // A batch's digests count with their notices, so "fewer than a batch" is not
            // the end; nothing deleted is.
            if deleted == 0 {
                break;
            }
        }
    }
    let window = chrono::Duration::from_std(idempotency_window).unwrap_or(chrono::Duration::MAX);
    let before = now
        .checked_sub_signed(window)
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    loop {
        let trimmed = housekeeping::trim_answers(pool, before).await?;
        swept.answers += trimmed.emptied;
        if trimmed.passed < housekeeping::ANSWER_BATCH as u64 {
            break;
        }
    }
    Ok(swept)
}

/// How long the worker keeps what it sweeps (the settings of the same names).
pub struct Keep {
    pub sent_mail_days: u32,
    pub login_window: Duration,
    pub idempotency_window: Duration,
}

/// The worker: a pass now and then every `every`, until `stop`.
pub async fn run(
    pool: PgPool,
    database: std::sync::Arc<crate::store::monitor::DatabaseStatus>,
    keep: Keep,
    every: Duration,
    clock: Clock,
    stop: CancellationToken,
) {
    loop {
        if pool.is_closed() || stop.is_cancelled() {
            return;
        }
        match sweep(
            &pool,
            keep.sent_mail_days,
            keep.login_window,
            keep.idempotency_window,
            clock.now(),
        )
        .await
        {
            Ok(swept) if swept != Swept::default() => {
                tracing::info!(
                    mails = swept.mails,
                    presence = swept.presence,
                    refresh_tokens = swept.refresh_tokens,
                    login_failures = swept.login_failures,
                    answers = swept.answers,
                    "housekeeping"
                )
            }
            Ok(_) => {}
            Err(error) if pool.is_closed() => {
                tracing::debug!(%error, "housekeeping stops with its pool");
                return;
            }
            Err(error) => crate::store::health::log_worker_failure(
                "housekeeping",
                &anyhow::Error::from(error),
                &pool,
                &database,
            ),
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.cancelled() => return,
        }
    }
}
