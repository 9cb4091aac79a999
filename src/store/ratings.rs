//! The ratings' tables (migration 0019): the games judged, each seat's update, the current
//! rating per player and kind, and the finished games not yet judged.

use super::events::EventRow;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use std::collections::HashMap;
use uuid::Uuid;

/// The advisory lock that lets one rating worker (or rebuild) judge at a time.
const JUDGE_LOCK: i64 = 0x6b6f_6e74_6f72_5261; // "kontorRa"

/// Takes the judging lock for the transaction if nobody holds it.
pub async fn try_lock(conn: &mut PgConnection) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT pg_try_advisory_xact_lock($1)")
        .bind(JUDGE_LOCK)
        .fetch_one(conn)
        .await
}

/// Waits for the judging lock, for the transaction.
pub async fn lock(conn: &mut PgConnection) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(JUDGE_LOCK)
        .execute(conn)
        .await?;
    Ok(())
}

/// A finished game to judge.
#[derive(Debug, sqlx::FromRow)]
pub struct Pending {
    pub game_id: Uuid,
    pub finished_at: DateTime<Utc>,
    pub sandbox: bool,
}

/// The oldest finished game not judged yet (`finished_at, id` order).
pub async fn oldest_pending(conn: &mut PgConnection) -> Result<Option<Pending>, sqlx::Error> {
    sqlx::query_as(
        "SELECT p.game_id, p.finished_at, g.sandbox
           FROM rating_pending p JOIN games g ON g.id = p.game_id
          ORDER BY p.finished_at, p.game_id LIMIT 1",
    )
    .fetch_optional(conn)
    .await
}

/// A player's current rating in a kind.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Current {
    pub user_id: Uuid,
    pub kind: String,
    pub mu: f64,
    pub sigma: f64,
    pub games: i32,
    pub rating: i32,
}

/// The current ratings of `users` in `kind` (those who have one).
pub async fn current(
    conn: &mut PgConnection,
    kind: &str,
    users: &[Uuid],
) -> Result<Vec<Current>, sqlx::Error> {
    sqlx::query_as(
        "SELECT user_id, kind, mu, sigma, games, rating FROM ratings
          WHERE kind = $1 AND user_id = ANY($2)",
    )
    .bind(kind)
    .bind(users)
    .fetch_all(conn)
    .await
}

/// Every current rating, by player and kind.
pub async fn all_current<'e>(executor: impl PgExecutor<'e>) -> Result<Vec<Current>, sqlx::Error> {
    sqlx::query_as(
        "SELECT user_id, kind, mu, sigma, games, rating FROM ratings ORDER BY user_id, kind",
    )
    .fetch_all(executor)
    .await
}

/// The judgement of one game, as recorded.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Judged {
    pub game_id: Uuid,
    pub kind: String,
    pub rated: bool,
    pub reason: Option<String>,
    /// The version of the judge that made it (`ratings::JUDGE_VERSION`).
    pub judge_version: i16,
}

/// The oldest version of the judge any judged game was judged by; `None` when none is judged.
pub async fn oldest_judge_version<'e>(
    executor: impl PgExecutor<'e>,
) -> Result<Option<i16>, sqlx::Error> {
    sqlx::query_scalar("SELECT min(judge_version) FROM rating_games")
        .fetch_one(executor)
        .await
}

/// Records a game's judgement and takes it off the pending list. `false` when it was judged
/// already (nothing written).
pub async fn record_game(
    conn: &mut PgConnection,
    judged: &Judged,
    finished_at: DateTime<Utc>,
    at: DateTime<Utc>,
) -> Result<bool, sqlx::Error> {
    let inserted = sqlx::query(
        "INSERT INTO rating_games (game_id, kind, rated, reason, finished_at, judged_at,
                                   judge_version)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (game_id) DO NOTHING",
    )
    .bind(judged.game_id)
    .bind(&judged.kind)
    .bind(judged.rated)
    .bind(&judged.reason)
    .bind(finished_at)
    .bind(at)
    .bind(judged.judge_version)
    .execute(&mut *conn)
    .await?
    .rows_affected()
        == 1;
    sqlx::query("DELETE FROM rating_pending WHERE game_id = $1")
        .bind(judged.game_id)
        .execute(&mut *conn)
        .await?;
    Ok(inserted)
}

/// One seat's update in a rated game.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Update {
    pub game_id: Uuid,
    pub seat: i16,
    pub user_id: Uuid,
    pub kind: String,
    pub rank: i16,
    pub mu_before: f64,
    pub sigma_before: f64,
    pub mu_after: f64,
    pub sigma_after: f64,
}

/// Records the updates of one game and moves its players' current ratings to their `after`
/// (a new player's row is created), with `rating` the displayed value of each.
pub async fn apply_updates(
    conn: &mut PgConnection,
    updates: &[Update],
    ratings: &[i32],
    at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    for (update, &rating) in updates.iter().zip(ratings) {
        insert_update(&mut *conn, update).await?;
        sqlx::query(
            "INSERT INTO ratings (user_id, kind, mu, sigma, games, rating, updated_at)
             VALUES ($1, $2, $3, $4, 1, $5, $6)
             ON CONFLICT (user_id, kind) DO UPDATE
                SET mu = $3, sigma = $4, games = ratings.games + 1, rating = $5, updated_at = $6",
        )
        .bind(update.user_id)
        .bind(&update.kind)
        .bind(update.mu_after)
        .bind(update.sigma_after)
        .bind(rating)
        .bind(at)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Every judged game in the order it was judged (`seq`), with whether it is a sandbox.
pub async fn judged_in_order<'e>(
    executor: impl PgExecutor<'e>,
) -> Result<Vec<(Judged, bool)>, sqlx::Error> {
    let rows: Vec<(Uuid, String, bool, Option<String>, i16, bool)> = sqlx::query_as(
        "SELECT r.game_id, r.kind, r.rated, r.reason, r.judge_version, g.sandbox
           FROM rating_games r JOIN games g ON g.id = r.game_id ORDER BY r.seq",
    )
    .fetch_all(executor)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(game_id, kind, rated, reason, judge_version, sandbox)| {
            (
                Judged {
                    game_id,
                    kind,
                    rated,
                    reason,
                    judge_version,
                },
                sandbox,
            )
        })
        .collect())
}

/// The logs of `games` as judging reads them, by game, each in order: every event's type,
/// actor and time, but the payload of the platform's events only (`kontor.…`); a rules
/// event's payload is `null` here, since the judge never reads it, and it is most of a log's
/// bytes. One statement for many games: a rebuild reads its games in batches.
pub async fn logs_for_judging<'e>(
    executor: impl PgExecutor<'e>,
    games: &[Uuid],
) -> Result<HashMap<Uuid, Vec<EventRow>>, sqlx::Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        game_id: Uuid,
        #[sqlx(flatten)]
        event: EventRow,
    }
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT game_id, seq, type,
                CASE WHEN type LIKE 'kontor.%' THEN payload ELSE 'null'::jsonb END AS payload,
                audience, actor, created_at
           FROM game_events WHERE game_id = ANY($1) ORDER BY game_id, seq",
    )
    .bind(games)
    .fetch_all(executor)
    .await?;
    let mut logs: HashMap<Uuid, Vec<EventRow>> = HashMap::with_capacity(games.len());
    for row in rows {
        logs.entry(row.game_id).or_default().push(row.event);
    }
    Ok(logs)
}

/// The updates recorded for `games`, by game, each by seat.
pub async fn updates_of_games<'e>(
    executor: impl PgExecutor<'e>,
    games: &[Uuid],
) -> Result<HashMap<Uuid, Vec<Update>>, sqlx::Error> {
    let rows: Vec<Update> = sqlx::query_as(
        "SELECT game_id, seat, user_id, kind, rank, mu_before, sigma_before, mu_after,
                sigma_after
           FROM rating_updates WHERE game_id = ANY($1) ORDER BY game_id, seat",
    )
    .bind(games)
    .fetch_all(executor)
    .await?;
    let mut updates: HashMap<Uuid, Vec<Update>> = HashMap::with_capacity(games.len());
    for update in rows {
        updates.entry(update.game_id).or_default().push(update);
    }
    Ok(updates)
}

/// Replaces one game's judgement and updates with those given (a rebuild's correction).
pub async fn rewrite_game(
    conn: &mut PgConnection,
    judged: &Judged,
    updates: &[Update],
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE rating_games SET kind = $2, rated = $3, reason = $4, judge_version = $5
          WHERE game_id = $1",
    )
    .bind(judged.game_id)
    .bind(&judged.kind)
    .bind(judged.rated)
    .bind(&judged.reason)
    .bind(judged.judge_version)
    .execute(&mut *conn)
    .await?;
    sqlx::query("DELETE FROM rating_updates WHERE game_id = $1")
        .bind(judged.game_id)
        .execute(&mut *conn)
        .await?;
    for update in updates {
        insert_update(&mut *conn, update).await?;
    }
    Ok(())
}

/// Replaces every current rating with `ratings` (a rebuild's correction).
pub async fn replace_current(
    conn: &mut PgConnection,
    ratings: &[Current],
    at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM ratings")
        .execute(&mut *conn)
        .await?;
    for r in ratings {
        sqlx::query(
            "INSERT INTO ratings (user_id, kind, mu, sigma, games, rating, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(r.user_id)
        .bind(&r.kind)
        .bind(r.mu)
        .bind(r.sigma)
        .bind(r.games)
        .bind(r.rating)
        .bind(at)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Records one seat's update of a game.
async fn insert_update(conn: &mut PgConnection, update: &Update) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO rating_updates (game_id, seat, user_id, kind, rank, mu_before,
                                     sigma_before, mu_after, sigma_after)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(update.game_id)
    .bind(update.seat)
    .bind(update.user_id)
    .bind(&update.kind)
    .bind(update.rank)
    .bind(update.mu_before)
    .bind(update.sigma_before)
    .bind(update.mu_after)
    .bind(update.sigma_after)
    .execute(conn)
    .await?;
    Ok(())
}
