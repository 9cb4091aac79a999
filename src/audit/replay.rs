//! Refolding stored games: `kontor replay --check` and `kontor rebuild`.

use crate::games::GameKind;
use crate::service::play::log::fold_through;
use crate::store::{events, games};
use crate::with_rules;
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// Folds a game's log once with the rules it was created with and returns the state at each
/// of `versions` (ascending), with the game's rules version.
async fn refold(
    conn: &mut PgConnection,
    game_id: Uuid,
    versions: &[i64],
) -> anyhow::Result<(i32, Vec<Value>)> {
    let head = games::head(&mut *conn, game_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("the game vanished"))?;
    if let Some(&last) = versions.last() {
        anyhow::ensure!(
            last <= head.version,
            "a snapshot is at version {last}, beyond the log's {}",
            head.version
        );
    }
    let kind = GameKind::parse(&head.kind)
        .ok_or_else(|| anyhow::anyhow!("unknown game kind {}", head.kind))?;
    let states = with_rules!(kind, R => {
        anyhow::ensure!(
            head.rules_version as u32 == R::RULES_VERSION,
            "rules version {} is not supported by this build (it has {})",
            head.rules_version,
            R::RULES_VERSION
        );
        fold_through::<R>(conn, game_id, versions).await?
    });
    Ok((head.rules_version, states))
}

/// A game whose cache disagrees with its log, or whose log does not fold.
#[derive(Debug)]
pub struct Mismatch {
    pub game_id: Uuid,
    pub reason: String,
}

/// Refolds every started game and compares every snapshot kept of it (the latest is where
/// commands fold from) with the log folded to their versions. `progress(done, total)` is
/// called after each game.
pub async fn check(
    pool: &PgPool,
    mut progress: impl FnMut(usize, usize),
) -> anyhow::Result<Vec<Mismatch>> {
    let ids = games::started_ids(pool).await?;
    let mut mismatches = Vec::new();
    for (done, game_id) in ids.iter().enumerate() {
        let mut conn = pool.acquire().await?;
        let kept = events::snapshots(&mut *conn, *game_id).await?;
        let versions: Vec<i64> = kept.iter().map(|s| s.version).collect();
        let reason = if kept.is_empty() {
            Some("no snapshot of its state".to_string())
        } else {
            match refold(&mut conn, *game_id, &versions).await {
                Err(e) => Some(format!("the log does not fold: {e:#}")),
                Ok((rules_version, states)) => kept
                    .iter()
                    .zip(&states)
                    .find(|(kept, folded)| {
                        kept.rules_version != rules_version || kept.state != **folded
                    })
                    .map(|(kept, _)| {
                        format!(
                            "the snapshot at version {} differs from the log folded to it",
                            kept.version
                        )
                    }),
            }
        };
        if let Some(reason) = reason {
            mismatches.push(Mismatch {
                game_id: *game_id,
                reason,
            });
        }
        progress(done + 1, ids.len());
    }
    Ok(mismatches)
}

/// Drops every snapshot and rebuilds them from the logs, each game under its row lock: a
/// snapshot at every multiple of `events::SNAPSHOT_EVERY`, at every rewind and at the game's
/// version (see `events::ladder`). Games whose log does not fold are reported and left
/// without one (commands then fold them from the start).
pub async fn rebuild(
    pool: &PgPool,
    mut progress: impl FnMut(usize, usize),
) -> anyhow::Result<Vec<Mismatch>> {
    events::delete_all_states(pool).await?;
    let ids = games::started_ids(pool).await?;
    let mut failures = Vec::new();
    for (done, game_id) in ids.iter().enumerate() {
        let mut tx = pool.begin().await?;
        let version = games::lock_head(&mut tx, *game_id)
            .await?
            .map_or(0, |h| h.version);
        let rewinds = events::rewind_seqs(&mut *tx, *game_id).await?;
        let versions = events::ladder(version, &rewinds);
        match refold(&mut tx, *game_id, &versions).await {
            Ok((_, states)) if states.is_empty() => {}
            Ok((rules_version, states)) => {
                save(&mut tx, *game_id, rules_version, &versions, &states).await?;
                tx.commit().await?;
            }
            Err(e) => failures.push(Mismatch {
                game_id: *game_id,
                reason: format!("the log does not fold: {e:#}"),
            }),
        }
        progress(done + 1, ids.len());
    }
    Ok(failures)
}

/// Keeps the states folded at `versions` as snapshots (the last one is where commands fold
/// from).
async fn save(
    conn: &mut PgConnection,
    game_id: Uuid,
    rules_version: i32,
    versions: &[i64],
    states: &[Value],
) -> Result<(), sqlx::Error> {
    for (version, state) in versions.iter().zip(states) {
        let state = state.to_string();
        events::save_snapshot(&mut *conn, game_id, *version, rules_version, &state).await?;
    }
    Ok(())
}

/// Writes the snapshots of a game whose log was just written whole (an
/// import), as `kontor rebuild` would.
pub async fn snapshot_log(
    conn: &mut PgConnection,
    game_id: Uuid,
    version: i64,
) -> anyhow::Result<()> {
    let rewinds = events::rewind_seqs(&mut *conn, game_id).await?;
    let versions = events::ladder(version, &rewinds);
    let (rules_version, states) = refold(&mut *conn, game_id, &versions).await?;
    save(conn, game_id, rules_version, &versions, &states).await?;
    Ok(())
}
