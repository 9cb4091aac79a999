//! Web Push: subscriptions (`push_subscriptions`) and the delivery rows (`push_deliveries`),
//! and the push worker's walk of the outbox (`mail_outbox.push_planned`). The per-kind choice
//! is a preference like the mail's (`store::preferences`, channel `push`).

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use std::sync::LazyLock;
use uuid::Uuid;

/// A subscription as listed to its owner: no keys.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Subscription {
    pub id: Uuid,
    pub endpoint: String,
    pub user_agent: String,
    pub created_at: DateTime<Utc>,
    pub last_success_at: Option<DateTime<Utc>>,
    pub failure_count: i32,
}

/// Stores a subscription for `user`, or renews the user's own with the same endpoint (a
/// browser that subscribes again gets the same row, with its new keys). An endpoint that was
/// another account's becomes a new subscription of this one: the device now belongs to whoever
/// subscribed last, and nothing of the other account's goes with it (not its times, not its
/// pending deliveries, which are dropped). Returns the row's id and whether it is new.
#[allow(clippy::too_many_arguments)]
pub async fn upsert_subscription(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    user_agent: &str,
    now: DateTime<Utc>,
) -> sqlx::Result<(Uuid, bool)> {
    sqlx::query("DELETE FROM push_subscriptions WHERE endpoint = $1 AND user_id <> $2")
        .bind(endpoint)
        .bind(user)
        .execute(&mut *conn)
        .await?;
    sqlx::query_as(
        "INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth, user_agent, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (endpoint) DO UPDATE
            SET p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth,
                user_agent = EXCLUDED.user_agent, failure_count = 0,
                -- Another account's row committed meanwhile (the delete above did not see it):
                -- it moves, with none of that account's times.
                created_at = CASE WHEN push_subscriptions.user_id = EXCLUDED.user_id
                                  THEN push_subscriptions.created_at ELSE EXCLUDED.created_at END,
                last_success_at = CASE WHEN push_subscriptions.user_id = EXCLUDED.user_id
                                       THEN push_subscriptions.last_success_at END,
                user_id = EXCLUDED.user_id
         RETURNING id, id = $1",
    )
    .bind(id)
    .bind(user)
    .bind(endpoint)
    .bind(p256dh)
    .bind(auth)
    .bind(user_agent)
    .bind(now)
    .fetch_one(conn)
    .await
}

/// The user's subscriptions other than the one at `endpoint`, counted.
pub async fn count_others(
    conn: &mut PgConnection,
    user: Uuid,
    endpoint: &str,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT count(*) FROM push_subscriptions WHERE user_id = $1 AND endpoint <> $2",
    )
    .bind(user)
    .bind(endpoint)
    .fetch_one(conn)
    .await
}

/// Locks the user's row so that two subscribes at once cannot pass the limit together.
pub async fn lock_user(conn: &mut PgConnection, user: Uuid) -> sqlx::Result<()> {
    sqlx::query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE")
        .bind(user)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn list<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
) -> sqlx::Result<Vec<Subscription>> {
    sqlx::query_as(
        "SELECT id, endpoint, user_agent, created_at, last_success_at, failure_count
           FROM push_subscriptions WHERE user_id = $1 ORDER BY created_at, id",
    )
    .bind(user)
    .fetch_all(executor)
    .await
}

/// Deletes one of the user's subscriptions; false if there is none with that id.
pub async fn delete<'e>(executor: impl PgExecutor<'e>, user: Uuid, id: Uuid) -> sqlx::Result<bool> {
    let deleted = sqlx::query("DELETE FROM push_subscriptions WHERE user_id = $1 AND id = $2")
        .bind(user)
        .bind(id)
        .execute(executor)
        .await?
        .rows_affected();
    Ok(deleted > 0)
}

/// Deletes every subscription of the user (logout everywhere, password reset, deletion).
pub async fn delete_all<'e>(executor: impl PgExecutor<'e>, user: Uuid) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM push_subscriptions WHERE user_id = $1")
            .bind(user)
            .execute(executor)
            .await?
            .rows_affected(),
    )
}

/// An outbox row not yet planned for push.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Unplanned {
    pub id: Uuid,
    pub user_id: Uuid,
    pub kind: String,
}

/// Takes up to `limit` outbox rows not yet planned, oldest first, locked for this
/// transaction (rows other instances are planning are skipped).
pub async fn take_unplanned(conn: &mut PgConnection, limit: i64) -> sqlx::Result<Vec<Unplanned>> {
    sqlx::query_as(
        "SELECT id, user_id, kind FROM mail_outbox WHERE NOT push_planned
          ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED",
    )
    .bind(limit)
    .fetch_all(conn)
    .await
}

/// A subscription as the planner needs it: whose, and its owner's stored push choices (as
/// parallel arrays, see `store::preferences`; a kind without one has its default).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Target {
    pub id: Uuid,
    pub user_id: Uuid,
    pub kinds: Vec<String>,
    pub channels: Vec<String>,
    pub choices: Vec<String>,
}

impl Target {
    /// The owner's stored push choices.
    pub fn stored(&self) -> impl Iterator<Item = super::preferences::StoredChoice<'_>> {
        super::preferences::zip(&self.kinds, &self.channels, &self.choices)
    }
}

/// The subscriptions of these users with their owners' stored push choices.
pub async fn targets(conn: &mut PgConnection, users: &[Uuid]) -> sqlx::Result<Vec<Target>> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT s.id, s.user_id, {}
               FROM push_subscriptions s
               LEFT JOIN notice_choices c ON c.user_id = s.user_id AND c.channel = 'push'
              WHERE s.user_id = ANY($1)
              GROUP BY s.id, s.user_id",
            super::preferences::CHOICES
        )
    });
    sqlx::query_as(sqlx::AssertSqlSafe(SQL.as_str()))
        .bind(users)
        .fetch_all(conn)
        .await
}

/// Writes the planned deliveries (`(outbox id, subscription id, user)`) and marks the outbox
/// rows `ids` planned, in the caller's transaction.
pub async fn plan(
    conn: &mut PgConnection,
    ids: &[Uuid],
    deliveries: &[(Uuid, Uuid, Uuid)],
    now: DateTime<Utc>,
) -> sqlx::Result<()> {
    if !deliveries.is_empty() {
        let new_ids: Vec<Uuid> = deliveries.iter().map(|_| Uuid::now_v7()).collect();
        let outbox: Vec<Uuid> = deliveries.iter().map(|d| d.0).collect();
        let subscriptions: Vec<Uuid> = deliveries.iter().map(|d| d.1).collect();
        let users: Vec<Uuid> = deliveries.iter().map(|d| d.2).collect();
        sqlx::query(
            "INSERT INTO push_deliveries
                 (id, outbox_id, subscription_id, user_id, next_attempt_at, created_at, updated_at)
             SELECT i, o, s, u, $5, $5, $5 FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[])
                 AS t(i, o, s, u)
             ON CONFLICT (outbox_id, subscription_id) DO NOTHING",
        )
        .bind(&new_ids)
        .bind(&outbox)
        .bind(&subscriptions)
        .bind(&users)
        .bind(now)
        .execute(&mut *conn)
        .await?;
    }
    sqlx::query("UPDATE mail_outbox SET push_planned = true WHERE id = ANY($1)")
        .bind(ids)
        .execute(conn)
        .await?;
    Ok(())
}

/// A delivery claimed for sending, with what it needs.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Claimed {
    pub id: Uuid,
    pub outbox_id: Uuid,
    pub subscription_id: Uuid,
    pub user_id: Uuid,
    pub attempts: i32,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
    pub kind: String,
    pub game_id: Option<Uuid>,
    pub data: serde_json::Value,
    pub created_at: DateTime<Utc>,
}

/// A due delivery before it is claimed: its id, owner and the host of its endpoint.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Due {
    pub id: Uuid,
    pub owner: Uuid,
    pub host: String,
}

/// Up to `limit` deliveries due at `now` (pending and due, or sending with an expired lease),
/// oldest first, except those of the owners `busy_owners` and to the hosts `busy_hosts`.
/// Nothing is locked: [`claim`] takes what is still due.
pub async fn due<'e>(
    executor: impl PgExecutor<'e>,
    now: DateTime<Utc>,
    busy_owners: &[Uuid],
    busy_hosts: &[String],
    limit: i64,
) -> sqlx::Result<Vec<Due>> {
    let host = super::webhooks::host_of("s.endpoint");
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT d.id, d.user_id AS owner, coalesce({host}, '') AS host
           FROM push_deliveries d JOIN push_subscriptions s ON s.id = d.subscription_id
          WHERE ((d.status = 'pending' AND d.next_attempt_at <= $1)
              OR (d.status = 'sending' AND d.lease_until <= $1))
            AND NOT (d.user_id = ANY($2))
            AND NOT (coalesce({host}, '') = ANY($3))
          ORDER BY d.next_attempt_at, d.id
          LIMIT $4"
    )))
    .bind(now)
    .bind(busy_owners)
    .bind(busy_hosts)
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// Claims those of the deliveries `ids` still due at `now` and not being claimed by another
/// worker (`SKIP LOCKED`), under `claim`, with a lease of `lease_secs` and one more attempt.
pub async fn claim<'e>(
    executor: impl PgExecutor<'e>,
    ids: &[Uuid],
    claim: Uuid,
    lease_secs: f64,
    now: DateTime<Utc>,
) -> sqlx::Result<Vec<Claimed>> {
    sqlx::query_as(
        "WITH due AS (
             SELECT id FROM push_deliveries
              WHERE id = ANY($1) AND subscription_id IS NOT NULL
                AND ((status = 'pending' AND next_attempt_at <= $4)
                  OR (status = 'sending' AND lease_until <= $4))
              FOR UPDATE SKIP LOCKED
         ), claimed AS (
             UPDATE push_deliveries d
                SET status = 'sending', attempts = d.attempts + 1, claim_id = $2,
                    lease_until = $4 + make_interval(secs => $3), updated_at = $4
               FROM due WHERE d.id = due.id
             RETURNING d.id, d.outbox_id, d.subscription_id, d.user_id, d.attempts
         )
         SELECT c.id, c.outbox_id, c.subscription_id, c.user_id, c.attempts,
                s.endpoint, s.p256dh, s.auth, o.kind, o.game_id, o.data, o.created_at
           FROM claimed c
           JOIN push_subscriptions s ON s.id = c.subscription_id
           JOIN mail_outbox o ON o.id = c.outbox_id",
    )
    .bind(ids)
    .bind(claim)
    .bind(lease_secs)
    .bind(now)
    .fetch_all(executor)
    .await
}

/// Gives back the claims of deliveries abandoned while being sent (a stop): due again at
/// `now`, the attempt not counted.
pub async fn release<'e>(
    executor: impl PgExecutor<'e>,
    ids: &[Uuid],
    now: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE push_deliveries
            SET status = 'pending', attempts = greatest(attempts - 1, 0), lease_until = NULL,
                next_attempt_at = $2, updated_at = $2
          WHERE id = ANY($1) AND status = 'sending'",
    )
    .bind(ids)
    .bind(now)
    .execute(executor)
    .await?;
    Ok(())
}

/// Holds back the subscription's other pending deliveries until `until` (a push service that
/// did not answer, or asked to be left alone, is tried again by one delivery, not by all at
/// once); their attempts are not counted.
pub async fn defer_subscription<'e>(
    executor: impl PgExecutor<'e>,
    subscription: Uuid,
    except: Uuid,
    until: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE push_deliveries SET next_attempt_at = $3
          WHERE subscription_id = $1 AND id <> $2 AND status = 'pending' AND next_attempt_at < $3",
    )
    .bind(subscription)
    .bind(except)
    .bind(until)
    .execute(executor)
    .await?;
    Ok(())
}

/// Records the end of a claimed delivery: `status` (`sent`, `failed`, `skipped`, `gone`) with
/// an error or skip reason; false if another worker has taken it over.
pub async fn finish<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    claim: Uuid,
    status: &str,
    error: Option<&str>,
    skip_reason: Option<&str>,
    now: DateTime<Utc>,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE push_deliveries
            SET status = $3, last_error = coalesce($4, last_error), skip_reason = $5,
                lease_until = NULL, updated_at = $6
          WHERE id = $1 AND claim_id = $2 AND status = 'sending'",
    )
    .bind(id)
    .bind(claim)
    .bind(status)
    .bind(error)
    .bind(skip_reason)
    .bind(now)
    .execute(executor)
    .await?
    .rows_affected();
    Ok(done > 0)
}

/// Puts a claimed delivery back to `pending`, due again at `next`.
pub async fn retry<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    claim: Uuid,
    error: &str,
    next: DateTime<Utc>,
    now: DateTime<Utc>,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE push_deliveries
            SET status = 'pending', last_error = $3, next_attempt_at = $4, lease_until = NULL,
                updated_at = $5
          WHERE id = $1 AND claim_id = $2 AND status = 'sending'",
    )
    .bind(id)
    .bind(claim)
    .bind(error)
    .bind(next)
    .bind(now)
    .execute(executor)
    .await?
    .rows_affected();
    Ok(done > 0)
}

/// Notes a subscription's success (resets its failure count) or failure.
pub async fn note_outcome<'e>(
    executor: impl PgExecutor<'e>,
    subscription: Uuid,
    success: bool,
    now: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE push_subscriptions
            SET last_success_at = CASE WHEN $2 THEN $3 ELSE last_success_at END,
                failure_count = CASE WHEN $2 THEN 0 ELSE failure_count + 1 END
          WHERE id = $1",
    )
    .bind(subscription)
    .bind(success)
    .bind(now)
    .execute(executor)
    .await?;
    Ok(())
}

/// Deletes a subscription the push service no longer knows (404/410), whoever owns it.
pub async fn delete_gone<'e>(
    executor: impl PgExecutor<'e>,
    subscription: Uuid,
) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM push_subscriptions WHERE id = $1")
        .bind(subscription)
        .execute(executor)
        .await?;
    Ok(())
}

/// One subscription of the user with its keys (for a test notification).
pub async fn find_for_test<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    id: Uuid,
) -> sqlx::Result<Option<(String, String, String)>> {
    sqlx::query_as(
        "SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE user_id = $1 AND id = $2",
    )
    .bind(user)
    .bind(id)
    .fetch_optional(executor)
    .await
}
