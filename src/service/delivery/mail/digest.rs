//! The daily digest, for users who chose `digest` for some kinds of notice.
//!
//! From `KONTOR_DIGEST_HOUR` in each user's own time zone on, once per user and (local) day
//! (dedupe key `digest:<date>`, the user's local date), a digest mail is queued for every user who has held notices, or who chose `digest` for
//! a kind the list tells of as the games waiting ("your turn", reminders: `InDigest::Waiting`)
//! and has games waiting. It lists
//!
//! * the active games where the user is pending (`status = 'active' AND seat =
//!   ANY(pending_seats)`), the truth at the time of the digest rather than a replay of
//!   turn notices already outdated, and
//! * the other held notices (invitations, games started, results) as one line each.
//!
//! Held notices of a kind the user has since turned `off` are skipped. Nothing to report
//! means no mail. The digest goes through the outbox like every mail, so it is retried,
//! leased and deduplicated the same way.

use super::worker::{Notifier, load_games};
use crate::service::delivery::render::{self, Links, NoticeContext};
use crate::service::notices::digest::{DigestData, NewsItem, WaitingGame};
use crate::service::notices::preferences::Delivery;
use crate::service::notices::{CHANNEL, InDigest, NoticeKind, preferences};
use crate::store::{channels, games, outbox, users};
use crate::words::language::Language;
use chrono::{DateTime, Timelike, Utc};
use std::collections::HashMap;
use uuid::Uuid;

/// Queues the digests due at `now`; returns how many were queued. Safe to run in several
/// workers at once (the dedupe key decides, and the loser waits for the winner's commit).
pub async fn queue(notifier: &Notifier, now: DateTime<Utc>) -> anyhow::Result<usize> {
    let pool = notifier.pool();
    let mut queued = 0;
    // Somewhere on earth it is the day before, the same day or the day after the UTC date:
    // for each, the users still without that day's digest whose own clock shows that date
    // and at least the digest hour.
    for days in [-1i64, 0, 1] {
        let date = now.date_naive() + chrono::Duration::days(days);
        let key = format!("digest:{date}");
        let waiting: Vec<&str> = waiting_kinds().map(NoticeKind::as_str).collect();
        for user in outbox::digest_candidates(pool, &key, &waiting).await? {
            let Some((_, _, zone)) = users::mail_locale(pool, user).await? else {
                continue;
            };
            let local = now.with_timezone(&render::zone(&zone));
            if local.date_naive() != date || local.hour() < notifier.settings().digest_hour {
                continue;
            }
            if queue_one(notifier, user, date, &key, now).await? {
                queued += 1;
            }
        }
    }
    Ok(queued)
}

/// The kinds the digest tells of as the games waiting (the list's `digest: Waiting`).
fn waiting_kinds() -> impl Iterator<Item = NoticeKind> {
    NoticeKind::ALL
        .into_iter()
        .filter(|k| k.spec().digest == InDigest::Waiting)
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
    if !outbox::claim_digest(&mut tx, digest_id, user, key).await? {
        return Ok(false);
    }
    let prefs = preferences::load(&mut tx, user).await?.mail;
    let off: Vec<&str> = NoticeKind::ALL
        .into_iter()
        .filter(|k| prefs.of(*k) == Delivery::Off)
        .map(NoticeKind::as_str)
        .collect();
    outbox::skip_held_of_kinds(&mut tx, user, &off).await?;
    let mut held = outbox::lock_held(&mut tx, user).await?;
    // Mentions whose message was hidden since, or that the user may no longer read, are
    // skipped, not listed; the others show the author's name as it is now.
    let mut unlisted: HashMap<&'static str, Vec<Uuid>> = HashMap::new();
    let mut listed = Vec::with_capacity(held.len());
    for mut h in held {
        if h.kind == NoticeKind::ChatMention.as_str() {
            match crate::service::notices::mention::recheck(&mut tx, &h.data, user).await? {
                Ok(author) => h.data["author"] = author.into(),
                Err(reason) => {
                    unlisted.entry(reason).or_default().push(h.id);
                    continue;
                }
            }
        }
        listed.push(h);
    }
    held = listed;
    for (reason, ids) in &unlisted {
        outbox::skip(&mut tx, ids, reason).await?;
    }
    let turn_kinds: Vec<NoticeKind> = waiting_kinds().collect();
    let wants_waiting = turn_kinds.iter().any(|k| prefs.of(*k) == Delivery::Digest)
        || held
            .iter()
            .any(|h| turn_kinds.iter().any(|k| k.as_str() == h.kind));
    let waiting_ids: Vec<Uuid> = if wants_waiting {
        games::waiting_for(&mut *tx, user).await?
    } else {
        Vec::new()
    };
    let mut game_ids: Vec<Uuid> = waiting_ids.clone();
    game_ids.extend(held.iter().filter_map(|h| h.game_id));
    game_ids.sort_unstable();
    game_ids.dedup();
    let games: HashMap<Uuid, render::GameInfo> = load_games(pool, &game_ids)
        .await?
        .into_iter()
        .map(|g| (g.id, g))
        .collect();
    let Some((username, language, zone)) = users::mail_locale(&mut *tx, user).await? else {
        return Ok(false);
    };
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
        preferences: String::new(),
    };
    let news: Vec<NewsItem> = held
        .iter()
        .filter_map(|h| {
            let kind = NoticeKind::parse(&h.kind)?;
            if turn_kinds.contains(&kind) {
                return None; // the waiting list says it as it is now
            }
            let game = h.game_id.and_then(|id| games.get(&id));
            Some(NewsItem {
                headline: render::news_line(&NoticeContext {
                    recipient_id: user,
                    recipient_name: &username,
                    kind,
                    data: &h.data,
                    game_id: h.game_id,
                    game,
                    game_link: None,
                    links: &no_links,
                    now,
                    language: Language::parse(&language).unwrap_or_default(),
                    zone: render::zone(&zone),
                }),
                game_id: h.game_id,
            })
        })
        .collect();
    let held_ids: Vec<Uuid> = held.iter().map(|h| h.id).collect();
    if waiting.is_empty() && news.is_empty() {
        // Only outdated turn notices: nothing to tell, and no digest today after all.
        outbox::skip(&mut tx, &held_ids, "stale").await?;
        outbox::delete(&mut tx, digest_id).await?;
        tx.commit().await?;
        return Ok(false);
    }
    outbox::mark_digested(&mut tx, &held_ids, digest_id).await?;
    let data = DigestData {
        date,
        waiting,
        news,
    };
    outbox::set_data(&mut tx, digest_id, &serde_json::to_value(&data)?).await?;
    channels::notify(&mut *tx, CHANNEL, "").await?;
    tx.commit().await?;
    Ok(true)
}
