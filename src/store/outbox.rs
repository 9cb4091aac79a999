//! The mail outbox (`mail_outbox`): notices queued with the changes they report, claimed by
//! delivery workers with a lease, held for the daily digest, and recorded as they end.

use serde_json::Value;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// Users who may get the digest with dedupe key `key` (none queued yet): those with held
/// notices, and those who chose `digest` for turn notices or reminders and are pending in an
/// active game. In user order.
pub async fn digest_candidates<'e>(
    executor: impl PgExecutor<'e>,
    key: &str,
) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "WITH candidates AS (
             SELECT user_id FROM mail_outbox WHERE status = 'held'
             UNION
             SELECT p.user_id FROM notification_prefs p
              WHERE (p.your_turn = 'digest' OR p.reminder = 'digest')
                AND EXISTS (SELECT 1 FROM game_seats s JOIN games g ON g.id = s.game_id
                             WHERE s.user_id = p.user_id AND g.status = 'active'
                               AND s.seat = ANY(g.pending_seats))
         )
         SELECT c.user_id FROM candidates c
          WHERE NOT EXISTS (SELECT 1 FROM mail_outbox d
                             WHERE d.user_id = c.user_id AND d.dedupe_key = $1)
          ORDER BY c.user_id",
    )
    .bind(key)
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

/// Removes a mail that turned out to have nothing to say (before it was ever sent).
pub async fn delete(conn: &mut PgConnection, id: Uuid) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM mail_outbox WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}
