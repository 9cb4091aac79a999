//! The SQL of housekeeping: what is deleted because nobody needs it any more. The game log,
//! the commands, the games, the seats and the snapshots are never deleted here; of a command
//! only the answer stored for its idempotency key goes, once no retry can come (see
//! [`trim_answers`]).

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;
use std::time::Duration;

/// How long a `live_presence` row counts as "watching" after its last heartbeat. A row older
/// than this counts for nothing (a stream still open refreshes its row at its next beat), so
/// rows older than it are those of streams or instances that ended without saying so.
pub const PRESENCE_WINDOW_SECS: i64 = 60;

/// Mails finished before `before` and deleted in one statement at most: a first run on a
/// large backlog deletes in bounded steps instead of one huge transaction.
pub const MAIL_BATCH: i64 = 5_000;

/// Commands whose stored answers one statement of [`trim_answers`] looks at, at most.
pub const ANSWER_BATCH: i64 = 5_000;

/// What one statement of [`trim_answers`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Trimmed {
    /// Commands passed over for good (the mark moved past them): fewer than
    /// [`ANSWER_BATCH`] means the pass reached the commands still within the window.
    pub passed: u64,
    /// Answers emptied among them (the others had none: the server's own commands, imported
    /// ones, or those a concurrent pass emptied first).
    pub emptied: u64,
}

/// Empties the answers stored whole (`game_commands.response` with its events, as records
/// kept them before they kept the answer without: see `service::play::actions::StoredAnswer`)
/// of up to [`ANSWER_BATCH`] commands recorded before `before`, in the order of their ids (uuid v7, so the order they were
/// made in), from where the last statement stopped (`housekeeping_marks` 'answers') to the
/// first command recorded at `before` or later; the mark moves on to the last one passed. So
/// no index beyond the primary key is needed, and no row is read again once passed. The key
/// and the request's digest stay: a late retry is recognised, and refused by the record's age
/// whatever it keeps (see `service::play::actions::stored_answer`). The command itself, its events and everything
/// an audit, an export or a replay reads stay untouched.
pub async fn trim_answers<'e>(
    executor: impl PgExecutor<'e>,
    before: DateTime<Utc>,
) -> Result<Trimmed, sqlx::Error> {
    let (passed, emptied): (i64, i64) = sqlx::query_as(
        "WITH mark AS (
           SELECT coalesce((SELECT through FROM housekeeping_marks WHERE name = 'answers'),
                           '00000000-0000-0000-0000-000000000000'::uuid) AS through
         ), batch AS (
           SELECT c.id, c.created_at FROM game_commands c, mark
            WHERE c.id > mark.through ORDER BY c.id LIMIT $2
         ), passed AS (
           -- (PostgreSQL has no min() or max() of uuids: the first by ORDER BY.)
           SELECT id FROM batch
            WHERE id < coalesce((SELECT id FROM batch WHERE created_at >= $1
                                  ORDER BY id LIMIT 1),
                                'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid)
         ), emptied AS (
           -- Only answers stored whole, with their events (as before the records kept them
           -- without): a 48-byte answer is not worth a rewrite of its record.
           UPDATE game_commands c SET response = NULL
             FROM passed
            WHERE c.id = passed.id AND c.response IS NOT NULL
              AND strpos(c.response, '\"events\"') > 0
           RETURNING c.id
         ), marked AS (
           INSERT INTO housekeeping_marks (name, through)
           SELECT 'answers', id FROM passed ORDER BY id DESC LIMIT 1
           ON CONFLICT (name) DO UPDATE
              SET through = greatest(housekeeping_marks.through, EXCLUDED.through)
         )
         SELECT (SELECT count(*) FROM passed), (SELECT count(*) FROM emptied)",
    )
    .bind(before)
    .bind(ANSWER_BATCH)
    .fetch_one(executor)
    .await?;
    Ok(Trimmed {
        passed: passed as u64,
        emptied: emptied as u64,
    })
}

/// Deletes up to [`MAIL_BATCH`] mails finished before `before`: sent ones (by when they were
/// sent), ones skipped on purpose (preferences, watching live), and, with a digest, the
/// notices it summed up. Mails not yet sent, held for a digest, being sent or failed for good
/// (`kontor mail failed`) stay. Returns how many were deleted.
pub async fn purge_finished_mail<'e>(
    executor: impl PgExecutor<'e>,
    before: DateTime<Utc>,
) -> Result<u64, sqlx::Error> {
    // The digested notices reference their digest: both go in one statement, whose foreign
    // key check runs at its end.
    let deleted: i64 = sqlx::query_scalar(
        "WITH old AS (
           SELECT id FROM mail_outbox
            WHERE (status = 'sent' AND coalesce(sent_at, updated_at) < $1)
               OR (status = 'skipped' AND updated_at < $1)
            LIMIT $2
         ), summed AS (
           DELETE FROM mail_outbox m USING old WHERE m.digest_id = old.id RETURNING m.id
         ), gone AS (
           DELETE FROM mail_outbox m USING old WHERE m.id = old.id RETURNING m.id
         )
         SELECT (SELECT count(*) FROM summed) + (SELECT count(*) FROM gone)",
    )
    .bind(before)
    .bind(MAIL_BATCH)
    .fetch_one(executor)
    .await?;
    Ok(deleted as u64)
}

/// Deletes the `live_presence` rows not refreshed for [`PRESENCE_WINDOW_SECS`] (those of
/// instances that died). Returns how many.
pub async fn purge_stale_presence<'e>(executor: impl PgExecutor<'e>) -> Result<u64, sqlx::Error> {
    let done =
        sqlx::query("DELETE FROM live_presence WHERE seen_at < now() - make_interval(secs => $1)")
            .bind(PRESENCE_WINDOW_SECS as f64)
            .execute(executor)
            .await?;
    Ok(done.rows_affected())
}

/// Deletes the refresh tokens that have expired (by the database's clock, which judges their
/// expiry at `/auth/refresh`). Every refresh writes a new row, so without this the table
/// would grow by one row per browser session every quarter of an hour, forever. An expired
/// token is refused whether or not its row exists; what goes with the row is only that a
/// spent token presented after its expiry no longer ends the rest of its login. Returns how
/// many were deleted.
pub async fn purge_expired_refresh_tokens<'e>(
    executor: impl PgExecutor<'e>,
) -> Result<u64, sqlx::Error> {
    let done = sqlx::query("DELETE FROM refresh_tokens WHERE expires_at <= now()")
        .execute(executor)
        .await?;
    Ok(done.rows_affected())
}

/// Deletes the failed-login counters whose window (`KONTOR_LOGIN_WINDOW`) has ended, and the
/// mail counters (subjects `mail:…`) older than `mail_window`, the longest of theirs: they
/// block nothing and the next use starts a new window anyway. A row is written per subject
/// that ever failed a login (every client address, every mistyped name), so without this the
/// table only grows. Returns how many were deleted.
pub async fn purge_ended_login_windows<'e>(
    executor: impl PgExecutor<'e>,
    login_window: Duration,
    mail_window: Duration,
) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(
        "DELETE FROM login_failures
          WHERE window_start + make_interval(secs => CASE WHEN subject LIKE 'mail:%'
                                                            OR subject LIKE 'limit:%'
                                                          THEN $2 ELSE $1 END) <= now()",
    )
    .bind(login_window.as_secs_f64())
    .bind(mail_window.as_secs_f64())
    .execute(executor)
    .await?;
    Ok(done.rows_affected())
}
