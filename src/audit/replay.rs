//! Refolding stored games: `kontor replay --check` and `kontor rebuild`.

use crate::games::GameKind;
use crate::service::fold_to;
use crate::store::{events, games};
use crate::with_rules;
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// The games that have a log (started ones), in id order.
async fn started_games(pool: &PgPool) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar("SELECT id FROM games WHERE status IN ('active', 'finished') ORDER BY id")
        .fetch_all(pool)
        .await
}

/// Folds a game's log up to `version` (its whole log if `None`) with the rules it was created
/// with; returns the version reached, the rules version and the state.
async fn refold(
    conn: &mut PgConnection,
    game_id: Uuid,
    version: Option<i64>,
) -> anyhow::Result<(i64, i32, Value)> {
    let head = games::head(&mut *conn, game_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("the game vanished"))?;
    let version = version.unwrap_or(head.version);
    anyhow::ensure!(
        version <= head.version,
        "the cache is at version {version}, beyond the log's {}",
        head.version
    );
    let kind = GameKind::parse(&head.kind)
        .ok_or_else(|| anyhow::anyhow!("unknown game kind {}", head.kind))?;
    let state = with_rules!(kind, R => {
        anyhow::ensure!(
            head.rules_version as u32 == R::RULES_VERSION,
            "rules version {} is not supported by this build (it has {})",
            head.rules_version,
            R::RULES_VERSION
        );
        serde_json::to_value(fold_to::<R>(conn, game_id, version).await?)?
    });
    Ok((version, head.rules_version, state))
}

/// A game whose cache disagrees with its log, or whose log does not fold.
#[derive(Debug)]
pub struct Mismatch {
    pub game_id: Uuid,
    pub reason: String,
}

/// Refolds every started game up to its state cache's version and compares the two.
/// `progress(done, total)` is called after each game.
pub async fn check(
    pool: &PgPool,
    mut progress: impl FnMut(usize, usize),
) -> anyhow::Result<Vec<Mismatch>> {
    let ids = started_games(pool).await?;
    let mut mismatches = Vec::new();
    for (done, game_id) in ids.iter().enumerate() {
        let cached: Option<(i64, i32, Value)> = sqlx::query_as(
            "SELECT version, rules_version, state::jsonb FROM game_state WHERE game_id = $1",
        )
        .bind(game_id)
        .fetch_optional(pool)
        .await?;
        let mut conn = pool.acquire().await?;
        let reason = match cached {
            None => Some("no cached state".to_string()),
            Some((version, _, cached)) => match refold(&mut conn, *game_id, Some(version)).await {
                Err(e) => Some(format!("the log does not fold: {e:#}")),
                Ok((_, _, state)) if state != cached => Some(format!(
                    "the cached state differs from the log folded to version {version}"
                )),
                Ok(_) => None,
            },
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

/// Drops every state cache and rebuilds it from the logs, each game under its row lock.
/// Games whose log does not fold are reported and left without a cache.
pub async fn rebuild(
    pool: &PgPool,
    mut progress: impl FnMut(usize, usize),
) -> anyhow::Result<Vec<Mismatch>> {
    sqlx::query("DELETE FROM game_state").execute(pool).await?;
    let ids = started_games(pool).await?;
    let mut failures = Vec::new();
    for (done, game_id) in ids.iter().enumerate() {
        let mut tx = pool.begin().await?;
        games::lock_head(&mut tx, *game_id).await?;
        match refold(&mut tx, *game_id, None).await {
            Ok((version, rules_version, state)) => {
                events::save_state(
                    &mut *tx,
                    *game_id,
                    version,
                    rules_version,
                    &state.to_string(),
                )
                .await?;
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
