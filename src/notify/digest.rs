//! The daily digest, for users who chose `digest` for some kinds of notice.
//!
//! From `KONTOR_DIGEST_HOUR` (UTC) on, once per user and day (dedupe key `digest:<date>`), a
//! digest mail is queued for every user who has held notices, or who chose `digest` for
//! "your turn" or reminders and has games waiting. It lists
//!
//! * the active games where the user is pending (`status = 'active' AND seat =
//!   ANY(pending_seats)`), the truth at the time of the digest rather than a replay of
//!   turn notices already outdated, and
//! * the other held notices (invitations, games started, results) as one line each.
//!
//! Held notices of a kind the user has since turned `off` are skipped. Nothing to report
//! means no mail. The digest goes through the outbox like every mail, so it is retried,
//! leased and deduplicated the same way.

use super::deliver::{Notifier, load_games};
use super::render::{self, DigestData, Links, NewsItem, NoticeContext, WaitingGame};
use super::{CHANNEL, Delivery, NoticeKind, prefs};
use chrono::{DateTime, Timelike, Utc};
use serde_json::Value;
use std::collections::HashMap;
use uuid::Uuid;

/// Queues the digests due at `now`; returns how many were queued. Safe to run in several
/// workers at once (the dedupe key decides, and the loser waits for the winner's commit).
pub async fn queue(notifier: &Notifier, now: DateTime<Utc>) -> anyhow::Result<usize> {
    if now.hour() < notifier.settings().digest_hour {
        return Ok(0);
    }
    let date = now.date_naive();
    let key = format!("digest:{date}");
    let pool = notifier.pool();
    let candidates: Vec<Uuid> = sqlx::query_scalar(
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
    .bind(&key)
    .fetch_all(pool)
    .await?;
    let mut queued = 0;
    for user in candidates {
        if queue_one(notifier, user, date, &key, now).await? {
            queued += 1;
        }
    }
    Ok(queued)
}

async fn queue_one(
    notifier: &Notifier,
    user: Uuid,
    date: chrono::NaiveDate,
    key: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<bool> {
    let pool = notifier.pool();
    let mut tx = pool.begin().await?;
    // The row claims today's digest for this user first: a second worker doing the same
    // waits here for this transaction and then finds the key taken.
    let digest_id = Uuid::now_v7();
    let inserted = sqlx::query(
        "INSERT INTO mail_outbox (id, user_id, kind, dedupe_key, data, status)
         VALUES ($1, $2, 'digest', $3, '{}', 'pending')
         ON CONFLICT (user_id, dedupe_key) DO NOTHING",
    )
    .bind(digest_id)
    .bind(user)
    .bind(key)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Ok(false);
    }
    let prefs = prefs::load(&mut tx, user).await?;
    let off: Vec<&str> = NoticeKind::ALL
        .into_iter()
        .filter(|k| prefs.of(*k) == Delivery::Off)
        .map(NoticeKind::as_str)
        .collect();
    sqlx::query(
        "UPDATE mail_outbox SET status = 'skipped', skip_reason = 'off', updated_at = now()
          WHERE user_id = $1 AND status = 'held' AND kind = ANY($2)",
    )
    .bind(user)
    .bind(&off)
    .execute(&mut *tx)
    .await?;
    let held: Vec<(Uuid, String, Option<Uuid>, Value)> = sqlx::query_as(
        "SELECT id, kind, game_id, data FROM mail_outbox
          WHERE user_id = $1 AND status = 'held' ORDER BY created_at, id FOR UPDATE",
    )
    .bind(user)
    .fetch_all(&mut *tx)
    .await?;
    let turn_kinds = [NoticeKind::YourTurn, NoticeKind::Reminder];
    let wants_waiting = turn_kinds.iter().any(|k| prefs.of(*k) == Delivery::Digest)
        || held
            .iter()
            .any(|(_, kind, _, _)| turn_kinds.iter().any(|k| k.as_str() == kind));
    let waiting_ids: Vec<Uuid> = if wants_waiting {
        sqlx::query_scalar(
            "SELECT g.id FROM games g JOIN game_seats s ON s.game_id = g.id
              WHERE s.user_id = $1 AND g.status = 'active' AND s.seat = ANY(g.pending_seats)
              ORDER BY g.turn_started_at NULLS LAST, g.id",
        )
        .bind(user)
        .fetch_all(&mut *tx)
        .await?
    } else {
        Vec::new()
    };
    let mut game_ids: Vec<Uuid> = waiting_ids.clone();
    game_ids.extend(held.iter().filter_map(|(_, _, game, _)| *game));
    game_ids.sort_unstable();
    game_ids.dedup();
    let games: HashMap<Uuid, render::GameInfo> = load_games(pool, &game_ids)
        .await?
        .into_iter()
        .map(|g| (g.id, g))
        .collect();
    let username: String = sqlx::query_scalar("SELECT username FROM users WHERE id = $1")
        .bind(user)
        .fetch_one(&mut *tx)
        .await?;
    let waiting: Vec<WaitingGame> = waiting_ids
        .iter()
        .filter_map(|id| games.get(id))
        .map(|g| WaitingGame {
            game_id: g.id,
            game_kind: g.kind.clone(),
            opponents: g.others(user),
            since: g.turn_started_at,
        })
        .collect();
    let no_links = Links {
        unsubscribe: String::new(),
        unsubscribe_all: String::new(),
    };
    let news: Vec<NewsItem> = held
        .iter()
        .filter_map(|(_, kind, game_id, data)| {
            let kind = NoticeKind::parse(kind)?;
            if turn_kinds.contains(&kind) {
                return None; // the waiting list says it as it is now
            }
            let game = game_id.and_then(|id| games.get(&id));
            Some(NewsItem {
                headline: render::headline(&NoticeContext {
                    recipient_id: user,
                    recipient_name: &username,
                    kind,
                    data,
                    game_id: *game_id,
                    game,
                    game_link: None,
                    links: &no_links,
                    now,
                }),
                game_id: *game_id,
            })
        })
        .collect();
    let held_ids: Vec<Uuid> = held.iter().map(|(id, ..)| *id).collect();
    if waiting.is_empty() && news.is_empty() {
        // Only outdated turn notices: nothing to tell, and no digest today after all.
        sqlx::query(
            "UPDATE mail_outbox SET status = 'skipped', skip_reason = 'stale', updated_at = now()
              WHERE id = ANY($1)",
        )
        .bind(&held_ids)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM mail_outbox WHERE id = $1")
            .bind(digest_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        return Ok(false);
    }
    sqlx::query(
        "UPDATE mail_outbox SET status = 'digested', digest_id = $2, updated_at = now()
          WHERE id = ANY($1)",
    )
    .bind(&held_ids)
    .bind(digest_id)
    .execute(&mut *tx)
    .await?;
    let data = DigestData {
        date,
        waiting,
        news,
    };
    sqlx::query("UPDATE mail_outbox SET data = $2 WHERE id = $1")
        .bind(digest_id)
        .bind(serde_json::to_value(&data)?)
        .execute(&mut *tx)
        .await?;
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(CHANNEL)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}
