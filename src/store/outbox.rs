//! The mail outbox (`mail_outbox`): notices queued with the changes they report, claimed by
//! delivery workers with a lease, held for the daily digest, and recorded as they end.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::{PgConnection, PgExecutor};
use std::sync::LazyLock;
use utoipa::ToSchema;
use uuid::Uuid;

/// The channel delivery workers listen on: every statement that queues a mail due now
/// notifies it, once, in its own transaction.
pub const CHANNEL: &str = "kontor_mail";

/// Users who may get the digest with dedupe key `key` (none queued yet): those with held
/// notices, and those who chose `digest` for one of `waiting_kinds` (the kinds the digest
/// tells of as the games waiting) and are pending in an active game. In user order.
pub async fn digest_candidates<'e>(
    executor: impl PgExecutor<'e>,
    key: &str,
    waiting_kinds: &[&str],
) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "WITH candidates AS (
             SELECT user_id FROM mail_outbox WHERE status = 'held'
             UNION
             SELECT c.user_id FROM notice_choices c
              WHERE c.choice = 'digest' AND c.channel = 'mail' AND c.kind = ANY($2)
                AND EXISTS (SELECT 1 FROM game_seats s JOIN games g ON g.id = s.game_id
                             WHERE s.user_id = c.user_id AND g.status = 'active'
                               AND s.seat = ANY(g.pending_seats))
         )
         SELECT c.user_id FROM candidates c
          WHERE NOT EXISTS (SELECT 1 FROM mail_outbox d
                             WHERE d.user_id = c.user_id AND d.dedupe_key = $1)
          ORDER BY c.user_id",
    )
    .bind(key)
    .bind(waiting_kinds)
    .fetch_all(executor)
    .await
}

/// Queues an empty digest mail `id` for the user under the dedupe key `key`; returns whether
/// it is new (a second worker doing the same waits for the first one's transaction, then
/// finds the key taken).
pub async fn claim_digest(
    conn: &mut PgConnection,
    id: Uuid,
    user_id: Uuid,
    key: &str,
) -> Result<bool, sqlx::Error> {
    let inserted = sqlx::query(
        "INSERT INTO mail_outbox (id, user_id, kind, dedupe_key, data, status)
         VALUES ($1, $2, 'digest', $3, '{}', 'pending')
         ON CONFLICT (user_id, dedupe_key) DO NOTHING",
    )
    .bind(id)
    .bind(user_id)
    .bind(key)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(inserted > 0)
}

/// Skips the user's held notices of these kinds (the user turned them off meanwhile).
pub async fn skip_held_of_kinds(
    conn: &mut PgConnection,
    user_id: Uuid,
    kinds: &[&str],
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE mail_outbox SET status = 'skipped', skip_reason = 'off', updated_at = now()
          WHERE user_id = $1 AND status = 'held' AND kind = ANY($2)",
    )
    .bind(user_id)
    .bind(kinds)
    .execute(conn)
    .await?;
    Ok(())
}

/// A notice held for the digest.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct HeldNotice {
    pub id: Uuid,
    pub kind: String,
    pub game_id: Option<Uuid>,
    pub data: Value,
}

/// The user's held notices, oldest first, locked until the transaction ends.
pub async fn lock_held(
    conn: &mut PgConnection,
    user_id: Uuid,
) -> Result<Vec<HeldNotice>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, kind, game_id, data FROM mail_outbox
          WHERE user_id = $1 AND status = 'held' ORDER BY created_at, id FOR UPDATE",
    )
    .bind(user_id)
    .fetch_all(conn)
    .await
}

/// Marks these mails skipped, not mailed on purpose for `reason`.
pub async fn skip(conn: &mut PgConnection, ids: &[Uuid], reason: &str) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE mail_outbox SET status = 'skipped', skip_reason = $2, updated_at = now()
          WHERE id = ANY($1)",
    )
    .bind(ids)
    .bind(reason)
    .execute(conn)
    .await?;
    Ok(())
}

/// Marks these held notices as reported in the digest mail `digest_id`.
pub async fn mark_digested(
    conn: &mut PgConnection,
    ids: &[Uuid],
    digest_id: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE mail_outbox SET status = 'digested', digest_id = $2, updated_at = now()
          WHERE id = ANY($1)",
    )
    .bind(ids)
    .bind(digest_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Sets what a queued mail's template gets.
pub async fn set_data(conn: &mut PgConnection, id: Uuid, data: &Value) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE mail_outbox SET data = $2 WHERE id = $1")
        .bind(id)
        .bind(data)
        .execute(conn)
        .await?;
    Ok(())
}

/// Digest mails not sent yet (pending, being sent, or failed and retryable by an admin) whose
/// stored content holds `text`: their id and data.
pub async fn unsent_digests_holding(
    conn: &mut PgConnection,
    text: &str,
) -> Result<Vec<(Uuid, Value)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, data FROM mail_outbox
          WHERE kind = 'digest' AND status IN ('pending', 'sending', 'failed')
            AND strpos(data::text, $1) > 0",
    )
    .bind(text)
    .fetch_all(conn)
    .await
}

/// Removes a mail that turned out to have nothing to say (before it was ever sent).
pub async fn delete(conn: &mut PgConnection, id: Uuid) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM mail_outbox WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// A mail to queue: a notice, or a mail of the account itself.
#[derive(Clone, Copy, Debug)]
pub struct NewMail<'a> {
    pub user_id: Uuid,
    /// The kind's name.
    pub kind: &'a str,
    pub game_id: Option<Uuid>,
    /// One mail per key and recipient: a mail whose key its recipient already has is left out.
    pub dedupe_key: &'a str,
    /// What the template needs.
    pub data: &'a Value,
}

/// The two parts of a `WITH` that queue mails (`queued`, then `woken`), from `rows`: an SQL
/// FROM item with the columns `m(id, user_id, kind, game_id, key, data)`. Each mail's status
/// is looked up in `routes` (an SQL expression for a JSON object: kind → the recipient's
/// stored mail choice for that kind, `""` for none → `pending`, `held` or `skipped`; see
/// `service::notices::queue`): the table decides, this SQL only looks up. A kind the table
/// does not name has no status, and the statement fails. A recipient with no push
/// subscription (no webhook endpoint) has nothing for the push (webhooks) planner to do: the
/// row is queued as planned for that channel, which saves it the planner's index entry and the
/// planner's later rewrite of the row. `woken` notifies [`CHANNEL`] once if
/// any mail queued is due now; the statement must read it (see [`WOKEN`]). Used by [`insert`]
/// and by the append statement (`store::append`): one door, one set of rules.
pub(super) fn queue_sql(rows: &str, routes: &str) -> String {
    format!(
        "queued AS (
           INSERT INTO mail_outbox (id, user_id, kind, game_id, dedupe_key, data, status, skip_reason,
                                    push_planned, hooks_planned)
           SELECT m.id, m.user_id, m.kind, m.game_id, m.key, m.data, s.status,
                  CASE s.status WHEN 'skipped' THEN 'off' END,
                  NOT EXISTS (SELECT 1 FROM push_subscriptions p WHERE p.user_id = m.user_id),
                  NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.user_id = m.user_id)
             FROM {rows}
             LEFT JOIN notice_choices c
                    ON c.user_id = m.user_id AND c.kind = m.kind AND c.channel = 'mail',
                  LATERAL (SELECT ({routes}) -> m.kind ->> coalesce(c.choice, '') AS status) s
           ON CONFLICT (user_id, dedupe_key) DO NOTHING
           RETURNING status
         ), woken AS (
           SELECT pg_notify('{CHANNEL}', '')
             FROM (SELECT 1 FROM queued WHERE status = 'pending' LIMIT 1) due
         )"
    )
}

/// An expression that reads `woken` (see [`queue_sql`]), once: a part of `WITH` that
/// modifies nothing runs only if the statement reads it.
pub(super) const WOKEN: &str = "(SELECT count(*) FROM woken)";

/// Queues mails, as `routes` says (see [`queue_sql`]), and notifies the delivery workers if
/// any is due now: on commit, and not at all on rollback.
pub async fn insert(
    conn: &mut PgConnection,
    mails: &[NewMail<'_>],
    routes: &Value,
) -> Result<(), sqlx::Error> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "WITH {} SELECT {WOKEN}",
            queue_sql(
                "unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::jsonb[])
                     AS m(id, user_id, kind, game_id, key, data)",
                "$7::jsonb",
            )
        )
    });
    if mails.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = mails.iter().map(|_| Uuid::now_v7()).collect();
    let users: Vec<Uuid> = mails.iter().map(|m| m.user_id).collect();
    let kinds: Vec<&str> = mails.iter().map(|m| m.kind).collect();
    let games: Vec<Option<Uuid>> = mails.iter().map(|m| m.game_id).collect();
    let keys: Vec<&str> = mails.iter().map(|m| m.dedupe_key).collect();
    let data: Vec<Value> = mails.iter().map(|m| m.data.clone()).collect();
    sqlx::query(sqlx::AssertSqlSafe(SQL.as_str()))
        .bind(&ids)
        .bind(&users)
        .bind(&kinds)
        .bind(&games)
        .bind(&keys)
        .bind(&data)
        .bind(routes)
        .execute(conn)
        .await?;
    Ok(())
}

/// A mail claimed for delivery.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ClaimedMail {
    pub id: Uuid,
    pub user_id: Uuid,
    pub kind: String,
    pub game_id: Option<Uuid>,
    pub data: Value,
    /// This attempt included.
    pub attempts: i32,
    /// When an earlier attempt handed the mail to the mail server without its end being
    /// recorded (its worker died): it may have arrived.
    pub handed_at: Option<DateTime<Utc>>,
}

/// Claims up to `limit` mails due at `now` (pending and due, or sending with an expired lease)
/// for the claim `claim` of `worker`, with a lease of `lease_secs` and one more attempt; mails
/// other workers are claiming are skipped.
pub async fn claim_due<'e>(
    executor: impl PgExecutor<'e>,
    limit: i64,
    claim: Uuid,
    worker: &str,
    lease_secs: f64,
    now: DateTime<Utc>,
) -> Result<Vec<ClaimedMail>, sqlx::Error> {
    sqlx::query_as(
        "WITH due AS (
             SELECT id FROM mail_outbox
              WHERE (status = 'pending' AND next_attempt_at <= $5)
                 OR (status = 'sending' AND lease_until <= $5)
              ORDER BY next_attempt_at, id
              LIMIT $1
              FOR UPDATE SKIP LOCKED
         )
         UPDATE mail_outbox o
            SET status = 'sending', attempts = o.attempts + 1, claim_id = $2, claimed_by = $3,
                lease_until = $5 + make_interval(secs => $4), updated_at = $5
           FROM due WHERE o.id = due.id
         RETURNING o.id, o.user_id, o.kind, o.game_id, o.data, o.attempts, o.handed_at",
    )
    .bind(limit)
    .bind(claim)
    .bind(worker)
    .bind(lease_secs)
    .bind(now)
    .fetch_all(executor)
    .await
}

/// Renews the lease of a mail still held by `claim` (for `lease_secs` from `now`); returns
/// false when another worker has taken it over meanwhile.
pub async fn renew_lease<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    claim: Uuid,
    lease_secs: f64,
    now: DateTime<Utc>,
) -> Result<bool, sqlx::Error> {
    let renewed = sqlx::query(
        "UPDATE mail_outbox SET lease_until = $4 + make_interval(secs => $3), updated_at = $4
          WHERE id = $1 AND claim_id = $2 AND status = 'sending'",
    )
    .bind(id)
    .bind(claim)
    .bind(lease_secs)
    .bind(now)
    .execute(executor)
    .await?
    .rows_affected();
    Ok(renewed > 0)
}

/// Records, under the claim `claim`, that the mail is being handed to the mail server at
/// `now`, and renews its lease for `lease_secs` (the send may take half of it); returns false
/// when another worker has taken it over meanwhile (then it must not be sent).
pub async fn hand_over<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    claim: Uuid,
    lease_secs: f64,
    now: DateTime<Utc>,
) -> Result<bool, sqlx::Error> {
    let handed = sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE mail_outbox SET handed_at = $4, lease_until = $4 + make_interval(secs => $3),
                updated_at = $4
          WHERE {CLAIMED}"
    )))
    .bind(id)
    .bind(claim)
    .bind(lease_secs)
    .bind(now)
    .execute(executor)
    .await?
    .rows_affected();
    Ok(handed > 0)
}

/// Whether a "your turn" mail to the same user about the same game was queued after the mail
/// `id`: a turn of theirs began after the one `id` announces (or reminds of), which has
/// therefore passed, even if it is their turn again. (Every turn of a player queues one, in the
/// transaction that begins it; `created_at` is the database's time of that transaction.)
pub async fn later_turn_queued<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT EXISTS (
           SELECT 1 FROM mail_outbox this JOIN mail_outbox later
                    ON later.user_id = this.user_id AND later.game_id = this.game_id
            WHERE this.id = $1 AND later.kind = 'your_turn' AND later.id <> this.id
              AND (later.created_at, later.id) > (this.created_at, this.id))",
    )
    .bind(id)
    .fetch_one(executor)
    .await
}

/// Records a claimed mail that an earlier attempt handed to the mail server (its worker died
/// before hearing back) and that is no longer worth sending again: sent, at the hand-over.
pub async fn mark_sent_at_hand_over<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    claim: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE mail_outbox SET status = 'sent', sent_at = handed_at, lease_until = NULL,
                last_error = NULL, updated_at = now(), data = data - 'token'
          WHERE {CLAIMED} AND handed_at IS NOT NULL"
    )))
    .bind(id)
    .bind(claim)
    .execute(executor)
    .await?;
    Ok(())
}

/// Marks a mail sent, whoever holds its claim now: it has been sent and never is again. The
/// single-use token an account mail carried (`data.token`) is blanked: the mail has it now,
/// and the database keeps only its hash (`mail_tokens`).
pub async fn mark_sent<'e>(executor: impl PgExecutor<'e>, id: Uuid) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE mail_outbox SET status = 'sent', sent_at = now(), lease_until = NULL,
                last_error = NULL, updated_at = now(), data = data - 'token'
          WHERE id = $1 AND status <> 'sent'",
    )
    .bind(id)
    .execute(executor)
    .await?;
    Ok(())
}

/// The mail `$1` as long as the claim `$2` still holds it.
const CLAIMED: &str = "id = $1 AND claim_id = $2 AND status = 'sending'";

/// Marks a claimed mail skipped (not mailed on purpose, for `reason`).
pub async fn mark_skipped<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    claim: Uuid,
    reason: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE mail_outbox SET status = 'skipped', skip_reason = $3, lease_until = NULL,
                updated_at = now(), data = data - 'token' WHERE {CLAIMED}"
    )))
    .bind(id)
    .bind(claim)
    .bind(reason)
    .execute(executor)
    .await?;
    Ok(())
}

/// Holds a claimed mail for the digest.
pub async fn mark_held<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    claim: Uuid,
) -> Result<(), sqlx::Error> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE mail_outbox SET status = 'held', lease_until = NULL, updated_at = now()
          WHERE {CLAIMED}"
    )))
    .bind(id)
    .bind(claim)
    .execute(executor)
    .await?;
    Ok(())
}

/// Records a failed attempt of a claimed mail at `now`: failed for good when `give_up` (an
/// account mail's token is then blanked, as when it is sent), else pending again `wait_secs`
/// later. The failure is what became of its hand-over, if any.
pub async fn mark_failed<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    claim: Uuid,
    give_up: bool,
    wait_secs: f64,
    error: &str,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE mail_outbox
            SET status = CASE WHEN $3 THEN 'failed' ELSE 'pending' END,
                data = CASE WHEN $3 THEN data - 'token' ELSE data END,
                next_attempt_at = $6 + make_interval(secs => $4),
                last_error = $5, lease_until = NULL, handed_at = NULL, updated_at = $6
          WHERE {CLAIMED}"
    )))
    .bind(id)
    .bind(claim)
    .bind(give_up)
    .bind(wait_secs)
    .bind(error)
    .bind(now)
    .execute(executor)
    .await?;
    Ok(())
}

/// A mail's recipient as delivery sees them just before sending: address, name, stored
/// preferences (their choices as parallel arrays, as `store::preferences` reads them; a kind
/// without one has its default) and whether they watch the mail's game live.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Recipient {
    pub email: String,
    pub username: String,
    pub kinds: Vec<String>,
    pub channels: Vec<String>,
    pub choices: Vec<String>,
    pub always_email: bool,
    /// Whether the address is verified: game notices are mailed only to verified addresses.
    pub email_verified: bool,
    /// `en` or `ja`.
    pub language: String,
    /// An IANA time zone name.
    pub time_zone: String,
    /// Seen on the game's live stream in the last minute (`live_presence`, see
    /// `housekeeping::PRESENCE_WINDOW_SECS`).
    pub watching: bool,
}

impl Recipient {
    /// The recipient's stored preferences.
    pub fn stored(&self) -> impl Iterator<Item = super::preferences::StoredChoice<'_>> {
        super::preferences::zip(&self.kinds, &self.channels, &self.choices)
    }
}

/// The recipient `user_id` of a mail about `game_id`, if the user exists.
pub async fn recipient<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    game_id: Option<Uuid>,
) -> Result<Option<Recipient>, sqlx::Error> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT u.email, u.username, u.language, u.time_zone,
                    chosen.kinds, chosen.channels, chosen.choices,
                    coalesce(p.always_email, false) AS always_email,
                    u.email_verified_at IS NOT NULL AS email_verified,
                    EXISTS (SELECT 1 FROM live_presence lp
                             WHERE lp.user_id = u.id AND lp.game_id = $2
                               AND lp.seen_at > now() - make_interval(secs => $3)) AS watching
               FROM users u LEFT JOIN notification_prefs p ON p.user_id = u.id,
                    LATERAL (SELECT {} FROM notice_choices c WHERE c.user_id = u.id) chosen
              WHERE u.id = $1 AND u.deleted_at IS NULL",
            super::preferences::CHOICES
        )
    });
    sqlx::query_as(sqlx::AssertSqlSafe(SQL.as_str()))
        .bind(user_id)
        .bind(game_id)
        .bind(super::housekeeping::PRESENCE_WINDOW_SECS as f64)
        .fetch_optional(executor)
        .await
}

/// A mail that failed for good.
#[derive(Clone, Debug, Serialize, ToSchema, sqlx::FromRow)]
#[schema(example = json!({
    "id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d",
    "user_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3e",
    "username": "anna",
    "email": "anna@example.org",
    "kind": "your_turn",
    "game_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3f",
    "attempts": 8,
    "last_error": "SMTP: permanent error (550): mailbox unavailable",
    "created_at": "2026-11-29T12:00:00Z",
    "failed_at": "2026-11-29T18:02:11Z"
}))]
pub struct FailedMail {
    pub id: Uuid,
    pub user_id: Uuid,
    pub username: String,
    pub email: String,
    /// `your_turn`, `reminder`, `invited`, `game_started`, `game_over`, `digest`, or an
    /// account mail: `verify_email`, `password_reset`, `email_changed`, `password_changed`.
    pub kind: String,
    pub game_id: Option<Uuid>,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub failed_at: DateTime<Utc>,
}

/// Failed mails, the most recent first.
pub async fn list_failed<'e>(
    executor: impl PgExecutor<'e>,
    limit: i64,
) -> Result<Vec<FailedMail>, sqlx::Error> {
    sqlx::query_as(
        "SELECT o.id, o.user_id, u.username, u.email, o.kind, o.game_id, o.attempts,
                o.last_error, o.created_at, o.updated_at AS failed_at
           FROM mail_outbox o JOIN users u ON u.id = o.user_id
          WHERE o.status = 'failed'
          ORDER BY o.updated_at DESC, o.id
          LIMIT $1",
    )
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// Makes the failed mail `id` due now with a fresh set of attempts; returns whether there was
/// a failed mail with this id.
pub async fn retry_failed<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE mail_outbox
            SET status = 'pending', attempts = 0, next_attempt_at = now(), updated_at = now()
          WHERE id = $1 AND status = 'failed'",
    )
    .bind(id)
    .execute(executor)
    .await?
    .rows_affected();
    Ok(done == 1)
}

/// Makes every failed mail due now with a fresh set of attempts; returns how many.
pub async fn retry_all_failed<'e>(executor: impl PgExecutor<'e>) -> Result<u64, sqlx::Error> {
    Ok(sqlx::query(
        "UPDATE mail_outbox
            SET status = 'pending', attempts = 0, next_attempt_at = now(), updated_at = now()
          WHERE status = 'failed'",
    )
    .execute(executor)
    .await?
    .rows_affected())
}

/// How much mail is due at `now` (for the metrics).
#[derive(Debug, sqlx::FromRow)]
pub struct DueSummary {
    /// Mails due: pending and due, or being sent under a lease that has expired.
    pub count: i64,
    /// How long the oldest of them has been due, in seconds; 0 when none is.
    pub oldest_age_secs: f64,
}

/// Counts the mail due at `now` as [`claim_due`] would claim it.
pub async fn due_summary<'e>(
    executor: impl PgExecutor<'e>,
    now: DateTime<Utc>,
) -> Result<DueSummary, sqlx::Error> {
    sqlx::query_as(
        "SELECT count(*) AS count,
                COALESCE(EXTRACT(EPOCH FROM $1 - min(due_at))::float8, 0) AS oldest_age_secs
           FROM (SELECT CASE WHEN status = 'pending' THEN next_attempt_at ELSE lease_until END
                        AS due_at
                   FROM mail_outbox
                  WHERE (status = 'pending' AND next_attempt_at <= $1)
                     OR (status = 'sending' AND lease_until <= $1)) due",
    )
    .bind(now)
    .fetch_one(executor)
    .await
}

/// A mail kept for a user, as their data export shows it: what and when, not its contents.
#[derive(Debug, sqlx::FromRow)]
pub struct KeptMail {
    pub kind: String,
    pub game_id: Option<Uuid>,
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
}

/// Every mail the outbox keeps for the user (sent ones until housekeeping removes them),
/// newest first.
pub async fn kept_for<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<Vec<KeptMail>, sqlx::Error> {
    sqlx::query_as(
        "SELECT kind, game_id, status, created_at, sent_at FROM mail_outbox
          WHERE user_id = $1 ORDER BY created_at DESC, id",
    )
    .bind(user_id)
    .fetch_all(executor)
    .await
}
