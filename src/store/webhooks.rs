//! Webhook endpoints, their secrets and their deliveries (`webhook_endpoints`,
//! `webhook_secrets`, `webhook_deliveries`), and the webhooks channel's walk of the outbox
//! (`mail_outbox.hooks_planned`).

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// An endpoint as its owner sees it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Endpoint {
    pub id: Uuid,
    pub user_id: Uuid,
    pub url: String,
    pub description: String,
    pub event_types: Vec<String>,
    pub format: String,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

const ENDPOINT_COLUMNS: &str =
    "id, user_id, url, description, event_types, format, enabled, disabled_reason, created_at";

/// How many endpoints the user has.
pub async fn count<'e>(executor: impl PgExecutor<'e>, user_id: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT count(*) FROM webhook_endpoints WHERE user_id = $1")
        .bind(user_id)
        .fetch_one(executor)
        .await
}

/// Locks the user's row, so that two creations at once count each other.
pub async fn lock_owner(conn: &mut PgConnection, user_id: Uuid) -> sqlx::Result<()> {
    sqlx::query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE")
        .bind(user_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Stores a new endpoint with its first secret.
pub async fn insert(
    conn: &mut PgConnection,
    endpoint: &Endpoint,
    secret: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO webhook_endpoints
             (id, user_id, url, description, event_types, format, enabled, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(endpoint.id)
    .bind(endpoint.user_id)
    .bind(&endpoint.url)
    .bind(&endpoint.description)
    .bind(&endpoint.event_types)
    .bind(&endpoint.format)
    .bind(endpoint.enabled)
    .bind(endpoint.created_at)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT INTO webhook_secrets (endpoint_id, secret, created_at) VALUES ($1, $2, $3)",
    )
    .bind(endpoint.id)
    .bind(secret)
    .bind(endpoint.created_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// The user's endpoints, oldest first.
pub async fn list<'e>(executor: impl PgExecutor<'e>, user_id: Uuid) -> sqlx::Result<Vec<Endpoint>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE user_id = $1
          ORDER BY created_at, id"
    )))
    .bind(user_id)
    .fetch_all(executor)
    .await
}

/// The user's endpoint `id`, if it is theirs.
pub async fn get<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    id: Uuid,
) -> sqlx::Result<Option<Endpoint>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE user_id = $1 AND id = $2"
    )))
    .bind(user_id)
    .bind(id)
    .fetch_optional(executor)
    .await
}

/// Writes an endpoint's changeable fields back (url, description, event types, format,
/// enabled; enabling clears why the server had disabled it).
pub async fn update<'e>(executor: impl PgExecutor<'e>, endpoint: &Endpoint) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE webhook_endpoints
            SET url = $3, description = $4, event_types = $5, format = $6, enabled = $7,
                disabled_reason = CASE WHEN $7 THEN NULL ELSE disabled_reason END
          WHERE user_id = $1 AND id = $2",
    )
    .bind(endpoint.user_id)
    .bind(endpoint.id)
    .bind(&endpoint.url)
    .bind(&endpoint.description)
    .bind(&endpoint.event_types)
    .bind(&endpoint.format)
    .bind(endpoint.enabled)
    .execute(executor)
    .await?;
    Ok(())
}

/// Deletes the user's endpoint (its secrets and deliveries with it); whether there was one.
pub async fn delete<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    id: Uuid,
) -> sqlx::Result<bool> {
    let done = sqlx::query("DELETE FROM webhook_endpoints WHERE user_id = $1 AND id = $2")
        .bind(user_id)
        .bind(id)
        .execute(executor)
        .await?
        .rows_affected();
    Ok(done > 0)
}

/// Disables an endpoint for `reason` (the server's decision): its owner and URL, or `None`
/// if it was disabled already.
pub async fn disable<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
    reason: &str,
) -> sqlx::Result<Option<(Uuid, String)>> {
    sqlx::query_as(
        "UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2
          WHERE id = $1 AND enabled
         RETURNING user_id, url",
    )
    .bind(id)
    .bind(reason)
    .fetch_optional(executor)
    .await
}

/// Rotates an endpoint's secret at `now`: the current one expires at `old_expires_at` (and
/// signs until then), `secret` becomes the current one; secrets expired by `now` are dropped.
pub async fn rotate_secret(
    conn: &mut PgConnection,
    endpoint_id: Uuid,
    secret: &str,
    now: DateTime<Utc>,
    old_expires_at: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM webhook_secrets WHERE endpoint_id = $1 AND expires_at <= $2")
        .bind(endpoint_id)
        .bind(now)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "UPDATE webhook_secrets SET expires_at = $2 WHERE endpoint_id = $1 AND expires_at IS NULL",
    )
    .bind(endpoint_id)
    .bind(old_expires_at)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT INTO webhook_secrets (endpoint_id, secret, created_at) VALUES ($1, $2, $3)",
    )
    .bind(endpoint_id)
    .bind(secret)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// The secrets that sign for an endpoint at `now`, newest first.
pub async fn signing_secrets<'e>(
    executor: impl PgExecutor<'e>,
    endpoint_id: Uuid,
    now: DateTime<Utc>,
) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar(
        "SELECT secret FROM webhook_secrets
          WHERE endpoint_id = $1 AND (expires_at IS NULL OR expires_at > $2)
          ORDER BY created_at DESC",
    )
    .bind(endpoint_id)
    .bind(now)
    .fetch_all(executor)
    .await
}

/// A notice of the outbox not yet planned for webhooks.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct UnplannedNotice {
    pub id: Uuid,
    pub user_id: Uuid,
    pub kind: String,
    pub game_id: Option<Uuid>,
    pub data: Value,
    pub created_at: DateTime<Utc>,
}

/// Claims up to `limit` outbox rows not yet planned for webhooks, oldest first, locked until
/// the transaction ends (others skip them).
pub async fn claim_unplanned(
    conn: &mut PgConnection,
    limit: i64,
) -> sqlx::Result<Vec<UnplannedNotice>> {
    sqlx::query_as(
        "SELECT id, user_id, kind, game_id, data, created_at FROM mail_outbox
          WHERE NOT hooks_planned ORDER BY created_at, id LIMIT $1 FOR UPDATE SKIP LOCKED",
    )
    .bind(limit)
    .fetch_all(conn)
    .await
}

/// Marks outbox rows as planned for webhooks.
pub async fn mark_planned(conn: &mut PgConnection, ids: &[Uuid]) -> sqlx::Result<()> {
    sqlx::query("UPDATE mail_outbox SET hooks_planned = true WHERE id = ANY($1)")
        .bind(ids)
        .execute(conn)
        .await?;
    Ok(())
}

/// What the payload of a user's notice needs besides the notice: the game's kind.
pub async fn game_kind<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("SELECT kind FROM games WHERE id = $1")
        .bind(game_id)
        .fetch_optional(executor)
        .await
}

/// The user's enabled endpoints subscribed to `event_type`.
pub async fn subscribed<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
    event_type: &str,
) -> sqlx::Result<Vec<Endpoint>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints
          WHERE user_id = $1 AND enabled AND $2 = ANY(event_types)"
    )))
    .bind(user_id)
    .bind(event_type)
    .fetch_all(executor)
    .await
}

/// A delivery to queue.
pub struct NewDelivery<'a> {
    pub id: &'a str,
    pub endpoint_id: Uuid,
    pub notice_id: Option<Uuid>,
    pub event_type: &'a str,
    pub body: &'a Value,
    pub now: DateTime<Utc>,
}

/// Queues a delivery due at `now` (one per notice and endpoint).
pub async fn insert_delivery<'e>(
    executor: impl PgExecutor<'e>,
    new: &NewDelivery<'_>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO webhook_deliveries
             (id, endpoint_id, notice_id, event_type, body, next_attempt_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6)
         ON CONFLICT (endpoint_id, notice_id) DO NOTHING",
    )
    .bind(new.id)
    .bind(new.endpoint_id)
    .bind(new.notice_id)
    .bind(new.event_type)
    .bind(new.body)
    .bind(new.now)
    .execute(executor)
    .await?;
    Ok(())
}

/// A delivery claimed for sending, with its endpoint's URL, format and owner.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ClaimedDelivery {
    pub id: String,
    pub endpoint_id: Uuid,
    pub user_id: Uuid,
    pub url: String,
    pub format: String,
    pub event_type: String,
    pub body: Value,
    pub created_at: DateTime<Utc>,
    /// This attempt included.
    pub attempts: i32,
}

/// The host of the URL in `column`, as SQL: lower case, without user, port or the root's
/// trailing dot (what the fair sending bounds per host; see `service::delivery::fair`).
pub(crate) fn host_of(column: &str) -> String {
    format!(
        "rtrim(lower(substring({column} from '^[^:/?#]+://(?:[^@/?#]*@)?(\\[[^]]*\\]|[^:/?#]*)')), '.')"
    )
}

/// A due delivery before it is claimed: its id, owner and host.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Due {
    pub id: String,
    pub owner: Uuid,
    pub host: String,
}

/// Up to `limit` deliveries due at `now` to enabled endpoints (pending and due, or sending
/// under an expired lease), oldest first, except those of the owners `busy_owners` and to the
/// hosts `busy_hosts`. Nothing is locked: [`claim`] takes what is still due.
pub async fn due<'e>(
    executor: impl PgExecutor<'e>,
    now: DateTime<Utc>,
    busy_owners: &[Uuid],
    busy_hosts: &[String],
    limit: i64,
) -> sqlx::Result<Vec<Due>> {
    let host = host_of("e.url");
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT d.id, e.user_id AS owner, coalesce({host}, '') AS host
           FROM webhook_deliveries d
           JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled
          WHERE ((d.status = 'pending' AND d.next_attempt_at <= $1)
              OR (d.status = 'sending' AND d.lease_until <= $1))
            AND NOT (e.user_id = ANY($2))
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

/// Claims those of the deliveries `ids` that are still due at `now` and not being claimed by
/// another worker (`SKIP LOCKED`), with a lease of `lease_secs` and one more attempt.
pub async fn claim<'e>(
    executor: impl PgExecutor<'e>,
    ids: &[String],
    lease_secs: f64,
    now: DateTime<Utc>,
) -> sqlx::Result<Vec<ClaimedDelivery>> {
    sqlx::query_as(
        "WITH due AS (
             SELECT d.id FROM webhook_deliveries d
               JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled
              WHERE d.id = ANY($1)
                AND ((d.status = 'pending' AND d.next_attempt_at <= $3)
                  OR (d.status = 'sending' AND d.lease_until <= $3))
              FOR UPDATE OF d SKIP LOCKED
         )
         UPDATE webhook_deliveries d
            SET status = 'sending', attempts = d.attempts + 1,
                lease_until = $3 + make_interval(secs => $2)
           FROM due, webhook_endpoints e
          WHERE d.id = due.id AND e.id = d.endpoint_id
         RETURNING d.id, d.endpoint_id, e.user_id, e.url, e.format, d.event_type, d.body,
                   d.created_at, d.attempts",
    )
    .bind(ids)
    .bind(lease_secs)
    .bind(now)
    .fetch_all(executor)
    .await
}

/// Gives back the claims of deliveries abandoned while being sent (a stop): due again at
/// `now`, the attempt not counted.
pub async fn release<'e>(
    executor: impl PgExecutor<'e>,
    ids: &[String],
    now: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE webhook_deliveries
            SET status = 'pending', attempts = greatest(attempts - 1, 0), lease_until = NULL,
                next_attempt_at = $2
          WHERE id = ANY($1) AND status = 'sending'",
    )
    .bind(ids)
    .bind(now)
    .execute(executor)
    .await?;
    Ok(())
}

/// Holds back the endpoint's other pending deliveries until `until` (an endpoint that did not
/// answer, or asked to be left alone, is tried again by one delivery, not by all at once);
/// their attempts are not counted.
pub async fn defer_endpoint<'e>(
    executor: impl PgExecutor<'e>,
    endpoint_id: Uuid,
    except: &str,
    until: DateTime<Utc>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE webhook_deliveries SET next_attempt_at = $3
          WHERE endpoint_id = $1 AND id <> $2 AND status = 'pending' AND next_attempt_at < $3",
    )
    .bind(endpoint_id)
    .bind(except)
    .bind(until)
    .execute(executor)
    .await?;
    Ok(())
}

/// What became of one attempt.
pub struct Attempt<'a> {
    pub id: &'a str,
    /// `succeeded`, `failed` (for good) or `pending` (retried at `next_attempt_at`).
    pub status: &'a str,
    pub next_attempt_at: DateTime<Utc>,
    pub last_status: Option<i32>,
    pub last_error: Option<&'a str>,
    pub response_excerpt: Option<&'a str>,
    pub now: DateTime<Utc>,
}

/// Records an attempt of a delivery being sent.
pub async fn record_attempt<'e>(
    executor: impl PgExecutor<'e>,
    attempt: &Attempt<'_>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE webhook_deliveries
            SET status = $2, next_attempt_at = $3, last_status = $4, last_error = $5,
                response_excerpt = $6, lease_until = NULL,
                finished_at = CASE WHEN $2 = 'pending' THEN NULL ELSE $7 END
          WHERE id = $1 AND status = 'sending'",
    )
    .bind(attempt.id)
    .bind(attempt.status)
    .bind(attempt.next_attempt_at)
    .bind(attempt.last_status)
    .bind(attempt.last_error)
    .bind(attempt.response_excerpt)
    .bind(attempt.now)
    .execute(executor)
    .await?;
    Ok(())
}

/// A line of the delivery log (its API schema is `WebhookDelivery`).
#[derive(Clone, Debug, sqlx::FromRow, serde::Serialize, utoipa::ToSchema)]
#[schema(as = WebhookDelivery)]
pub struct DeliveryLine {
    /// The `webhook-id` (`msg_…`); a redelivery keeps it.
    pub id: String,
    pub event_type: String,
    /// `pending`, `sending`, `succeeded` or `failed`.
    pub status: String,
    pub attempts: i32,
    /// When a pending delivery is tried next.
    pub next_attempt_at: DateTime<Utc>,
    /// The HTTP status of the last answer.
    pub last_status: Option<i32>,
    /// Why the last attempt got no answer (`timeout: …`, `blocked_address: …`).
    pub last_error: Option<String>,
    /// The start of the last answer's body (at most 1,000 characters).
    pub response_excerpt: Option<String>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// A page of an endpoint's deliveries, newest first, from after the delivery `after` (its
/// creation time and id), at most `limit`.
pub async fn deliveries<'e>(
    executor: impl PgExecutor<'e>,
    endpoint_id: Uuid,
    after: Option<(DateTime<Utc>, String)>,
    limit: i64,
) -> sqlx::Result<Vec<DeliveryLine>> {
    let (after_at, after_id) = after.unzip();
    sqlx::query_as(
        "SELECT id, event_type, status, attempts, next_attempt_at, last_status, last_error,
                response_excerpt, created_at, finished_at
           FROM webhook_deliveries
          WHERE endpoint_id = $1
            AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3))
          ORDER BY created_at DESC, id DESC
          LIMIT $4",
    )
    .bind(endpoint_id)
    .bind(after_at)
    .bind(after_id)
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// Where a delivery of the endpoint is in the log (for a page cursor).
pub async fn delivery_position<'e>(
    executor: impl PgExecutor<'e>,
    endpoint_id: Uuid,
    id: &str,
) -> sqlx::Result<Option<DateTime<Utc>>> {
    sqlx::query_scalar(
        "SELECT created_at FROM webhook_deliveries WHERE endpoint_id = $1 AND id = $2",
    )
    .bind(endpoint_id)
    .bind(id)
    .fetch_optional(executor)
    .await
}

/// Makes a finished delivery of the endpoint due again at `now` with a fresh set of
/// attempts (same id, same body); whether there was one.
pub async fn redeliver<'e>(
    executor: impl PgExecutor<'e>,
    endpoint_id: Uuid,
    id: &str,
    now: DateTime<Utc>,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE webhook_deliveries
            SET status = 'pending', attempts = 0, next_attempt_at = $3, finished_at = NULL,
                lease_until = NULL
          WHERE endpoint_id = $1 AND id = $2 AND status IN ('succeeded', 'failed')",
    )
    .bind(endpoint_id)
    .bind(id)
    .bind(now)
    .execute(executor)
    .await?
    .rows_affected();
    Ok(done > 0)
}
