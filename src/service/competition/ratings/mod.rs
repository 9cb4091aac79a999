//! Ratings (issue 24): a projection of finished games. The worker judges each finished game
//! once, from its log ([`judge`]), oldest first, and records in the same transaction the
//! judgement, each seat's update (before and after) and the players' current ratings. One
//! worker judges at a time (an advisory lock), and `rating_games`' key refuses a second
//! judgement of a game, so every game counts exactly once; a crash before the commit leaves
//! the game to judge again. [`rebuild`] recomputes everything from the logs in the order the
//! games were judged and compares.

pub mod judge;

pub use judge::{JUDGE_VERSION, Judgement, Rating, Unrated, display, provisional, rate, update};

use crate::live::Signal;
use crate::store::ratings::{self as store, Current, Judged, Update};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Games judged in one pass at most (each in its own transaction).
const PER_PASS: usize = 500;

/// Games whose logs a rebuild reads in one statement.
const REBUILD_BATCH: usize = 250;

/// Judges the finished games not judged yet, oldest first, up to a pass's worth: how many it
/// judged (0 also when another instance holds the lock). Judgements an older judge made are
/// rebuilt first ([`bring_up_to_date`]).
pub async fn process_due(pool: &PgPool, at: DateTime<Utc>) -> Result<usize, sqlx::Error> {
    bring_up_to_date(pool, at).await?;
    let mut judged = 0;
    while judged < PER_PASS {
        let mut tx = pool.begin().await?;
        if !judge_next(&mut tx, at).await? {
            return Ok(judged);
        }
        tx.commit().await?;
        judged += 1;
    }
    Ok(judged)
}

/// Judges the oldest unjudged game within the transaction `tx`: `false` when there is none or
/// another instance is judging.
pub async fn judge_next(tx: &mut PgConnection, at: DateTime<Utc>) -> Result<bool, sqlx::Error> {
    if !store::try_lock(&mut *tx).await? {
        return Ok(false);
    }
    let Some(pending) = store::oldest_pending(&mut *tx).await? else {
        return Ok(false);
    };
    // Read as the rebuild reads it (see `store::logs_for_judging`).
    let log = store::logs_for_judging(&mut *tx, &[pending.game_id])
        .await?
        .remove(&pending.game_id)
        .unwrap_or_default();
    let judgement = judge::judge(&log, pending.sandbox);
    let judged = judged_row(pending.game_id, &judgement);
    if !store::record_game(&mut *tx, &judged, pending.finished_at, at).await? {
        return Ok(true);
    }
    if let Judgement::Rated { kind, users, .. } = &judgement {
        let current: HashMap<Uuid, Rating> = store::current(&mut *tx, kind, users)
            .await?
            .into_iter()
            .map(|c| {
                (
                    c.user_id,
                    Rating {
                        mu: c.mu,
                        sigma: c.sigma,
                    },
                )
            })
            .collect();
        let before: Vec<Rating> = users
            .iter()
            .map(|u| current.get(u).copied().unwrap_or_else(Rating::initial))
            .collect();
        let updates = updates_for(pending.game_id, &judgement, &before);
        let shown: Vec<i32> = updates.iter().map(shown).collect();
        store::apply_updates(&mut *tx, &updates, &shown, at).await?;
    }
    Ok(true)
}

/// Rebuilds every judgement, update and rating (as `kontor ratings rebuild` does) when a game
/// was judged by an older version of the judge ([`JUDGE_VERSION`]): after an upgrade that
/// changed the judgement, the ratings are what the new one makes of the whole history before
/// any new game moves them. `None` when every judgement is current (one index probe).
pub async fn bring_up_to_date(
    pool: &PgPool,
    at: DateTime<Utc>,
) -> Result<Option<Rebuilt>, sqlx::Error> {
    if store::oldest_judge_version(pool)
        .await?
        .is_none_or(|v| v >= JUDGE_VERSION)
    {
        return Ok(None);
    }
    let rebuilt = rebuild(pool, true, at).await?;
    tracing::info!(
        games = rebuilt.games,
        games_differing = rebuilt.games_differing,
        ratings_differing = rebuilt.ratings_differing,
        judge_version = JUDGE_VERSION,
        "ratings rebuilt: games were judged by an older judge"
    );
    Ok(Some(rebuilt))
}

fn judged_row(game_id: Uuid, judgement: &Judgement) -> Judged {
    Judged {
        game_id,
        kind: judgement.kind().to_string(),
        rated: judgement.reason().is_none(),
        reason: judgement.reason().map(|r| r.as_str().to_string()),
        judge_version: JUDGE_VERSION,
    }
}

fn shown(update: &Update) -> i32 {
    display(Rating {
        mu: update.mu_after,
        sigma: update.sigma_after,
    })
}

/// The update of each seat a rated game rates (see [`rate`]), its players rated `before` (in
/// seat order); a seat the game does not rate has none.
fn updates_for(game_id: Uuid, judgement: &Judgement, before: &[Rating]) -> Vec<Update> {
    let Judgement::Rated {
        kind,
        users,
        ranks,
        abandoned,
    } = judgement
    else {
        return Vec::new();
    };
    rate(before, ranks, abandoned)
        .into_iter()
        .enumerate()
        .filter_map(|(seat, after)| {
            let after = after?;
            Some(Update {
                game_id,
                seat: seat as i16,
                user_id: users[seat],
                kind: kind.clone(),
                rank: ranks[seat] as i16,
                mu_before: before[seat].mu,
                sigma_before: before[seat].sigma,
                mu_after: after.mu,
                sigma_after: after.sigma,
            })
        })
        .collect()
}

/// The worker: a pass at once, then whenever a game finishes (a live note of a finished game
/// from `wake`, any instance's) or notes may have been lost, and every `every` as the safety
/// net (notes are not durable), until `stop`.
pub async fn run(
    pool: PgPool,
    database: std::sync::Arc<crate::store::monitor::DatabaseStatus>,
    every: Duration,
    mut wake: broadcast::Receiver<Signal>,
    stop: CancellationToken,
) {
    let mut listening = true;
    loop {
        if pool.is_closed() || stop.is_cancelled() {
            return;
        }
        match process_due(&pool, Utc::now()).await {
            // A full pass: more may be due at once.
            Ok(PER_PASS) => {
                tracing::info!(judged = PER_PASS, "ratings");
                continue;
            }
            Ok(0) => {}
            Ok(judged) => tracing::info!(judged, "ratings"),
            Err(error) if pool.is_closed() => {
                tracing::debug!(%error, "ratings stop with their pool");
                return;
            }
            Err(error) => crate::store::health::log_worker_failure(
                "ratings",
                &anyhow::Error::from(error),
                &pool,
                &database,
            ),
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            woken = a_game_finished(&mut wake), if listening => listening = woken,
            _ = stop.cancelled() => return,
        }
    }
}

/// Waits for a live note of a finished game, or for a sign that notes were lost (a resync, or
/// this receiver fell behind): `true`. `false` once the hub is gone (only the poll is left).
async fn a_game_finished(wake: &mut broadcast::Receiver<Signal>) -> bool {
    loop {
        match wake.recv().await {
            Ok(Signal::Changed(note)) if note.status == "finished" => return true,
            Ok(Signal::Changed(_)) => {}
            Ok(Signal::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => return true,
            Err(broadcast::error::RecvError::Closed) => return false,
        }
    }
}

/// What a rebuild found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rebuilt {
    /// Judged games read.
    pub games: usize,
    /// Games whose recomputed judgement or updates differ from the stored ones.
    pub games_differing: usize,
    /// Current ratings (player and kind) that differ, are missing or are extra.
    pub ratings_differing: usize,
}

/// Recomputes every judgement, update and current rating from the logs, in the order the
/// games were judged (`seq`), and compares them with the stored ones; with `write`, stores the
/// recomputed ones where they differ. Holds the judging lock throughout (the worker waits).
pub async fn rebuild(
    pool: &PgPool,
    write: bool,
    at: DateTime<Utc>,
) -> Result<Rebuilt, sqlx::Error> {
    let mut tx = pool.begin().await?;
    store::lock(&mut tx).await?;
    let judged = store::judged_in_order(&mut *tx).await?;
    let mut report = Rebuilt {
        games: judged.len(),
        ..Rebuilt::default()
    };
    // (player, kind) → rating and rated games so far.
    let mut current: HashMap<(Uuid, String), (Rating, i32)> = HashMap::new();
    // The logs and stored updates are read a batch of games at a time: two statements per
    // batch rather than per game, and only one batch's logs in memory.
    for batch in judged.chunks(REBUILD_BATCH) {
        let ids: Vec<Uuid> = batch.iter().map(|(stored, _)| stored.game_id).collect();
        let mut logs = store::logs_for_judging(&mut *tx, &ids).await?;
        let mut stored_updates = store::updates_of_games(&mut *tx, &ids).await?;
        for (stored, sandbox) in batch {
            let log = logs.remove(&stored.game_id).unwrap_or_default();
            let judgement = judge::judge(&log, *sandbox);
            let row = judged_row(stored.game_id, &judgement);
            let updates = match &judgement {
                Judgement::Rated { kind, users, .. } => {
                    let before: Vec<Rating> = users
                        .iter()
                        .map(|u| {
                            current
                                .get(&(*u, kind.clone()))
                                .map(|(r, _)| *r)
                                .unwrap_or_else(Rating::initial)
                        })
                        .collect();
                    let updates = updates_for(stored.game_id, &judgement, &before);
                    for u in &updates {
                        let entry = current
                            .entry((u.user_id, u.kind.clone()))
                            .or_insert((Rating::initial(), 0));
                        entry.0 = Rating {
                            mu: u.mu_after,
                            sigma: u.sigma_after,
                        };
                        entry.1 += 1;
                    }
                    updates
                }
                Judgement::Unrated { .. } => Vec::new(),
            };
            let stored_updates = stored_updates.remove(&stored.game_id).unwrap_or_default();
            if row != *stored || updates != stored_updates {
                report.games_differing += 1;
                if write {
                    store::rewrite_game(&mut tx, &row, &updates).await?;
                }
            }
        }
    }
    let mut recomputed: Vec<Current> = current
        .into_iter()
        .map(|((user_id, kind), (rating, games))| Current {
            user_id,
            kind,
            mu: rating.mu,
            sigma: rating.sigma,
            games,
            rating: display(rating),
        })
        .collect();
    recomputed.sort_by(|a, b| (a.user_id, &a.kind).cmp(&(b.user_id, &b.kind)));
    let stored = store::all_current(&mut *tx).await?;
    report.ratings_differing = differing(&stored, &recomputed);
    if write && report.ratings_differing > 0 {
        store::replace_current(&mut tx, &recomputed, at).await?;
    }
    tx.commit().await?;
    Ok(report)
}

/// How many of two sorted lists of current ratings differ (one side missing counts too).
fn differing(stored: &[Current], recomputed: &[Current]) -> usize {
    let key = |c: &Current| (c.user_id, c.kind.clone());
    let same = |a: &Current, b: &Current| {
        a.mu == b.mu && a.sigma == b.sigma && a.games == b.games && a.rating == b.rating
    };
    let stored: HashMap<_, _> = stored.iter().map(|c| (key(c), c)).collect();
    let mut differ = recomputed
        .iter()
        .filter(|c| !stored.get(&key(c)).is_some_and(|s| same(s, c)))
        .count();
    let recomputed: HashMap<_, _> = recomputed.iter().map(|c| (key(c), c)).collect();
    differ += stored
        .keys()
        .filter(|k| !recomputed.contains_key(*k))
        .count();
    differ
}
