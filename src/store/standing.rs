//! What a player's standing reads: the public profile (the account, its public games and
//! ratings), the rating history and the leaderboards (see `migrations/0019_ratings.sql`;
//! the rating worker writes those tables, this module only reads them).

use chrono::{DateTime, Utc};
use sqlx::PgExecutor;
use uuid::Uuid;

/// SQL that is true when the game `g` is public to everyone: listed (not private), not an
/// imported sandbox, and watchable by anyone (not `spectators: players`). Only such games
/// appear on a profile, in a rating history or in a profile's counts.
const PUBLIC_GAME: &str = "(g.visibility = 'public' AND NOT g.sandbox
     AND coalesce(g.options->>'spectators', 'anyone') <> 'players')";

/// A live account, as a profile shows it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Player {
    pub id: Uuid,
    pub username: String,
    pub display_name: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// The live account with this username key (see `auth::identity::key`); deleted accounts
/// are not found.
pub async fn live_player<'e>(
    executor: impl PgExecutor<'e>,
    username_key: &str,
) -> sqlx::Result<Option<Player>> {
    sqlx::query_as(
        "SELECT id, username, display_name, created_at FROM users
          WHERE username_key = $1 AND deleted_at IS NULL",
    )
    .bind(username_key)
    .fetch_optional(executor)
    .await
}

/// A player's current rating in one kind, as stored.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RatingRow {
    pub kind: String,
    pub mu: f64,
    pub sigma: f64,
    pub games: i32,
    pub rating: i32,
}

/// Every rating the player has, by kind.
pub async fn ratings_of<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
) -> sqlx::Result<Vec<RatingRow>> {
    sqlx::query_as(
        "SELECT kind, mu, sigma, games, rating FROM ratings WHERE user_id = $1 ORDER BY kind",
    )
    .bind(user)
    .fetch_all(executor)
    .await
}

/// How many public games the player sat in that started, and how many of those ended.
pub async fn public_game_counts<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
) -> sqlx::Result<(i64, i64)> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FILTER (WHERE g.status IN ('active', 'finished')),
                count(*) FILTER (WHERE g.status = 'finished')
           FROM game_seats s JOIN games g ON g.id = s.game_id
          WHERE s.user_id = $1 AND {PUBLIC_GAME}"
    )))
    .bind(user)
    .fetch_one(executor)
    .await
}

/// A finished public game of the player's, with its table.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct FinishedGame {
    pub id: Uuid,
    pub kind: String,
    pub finished_at: DateTime<Utc>,
    /// The seats' usernames and ranks, in seat order (`ranks` from the outcome; null where
    /// the outcome has none).
    pub usernames: Vec<String>,
    pub ranks: Vec<Option<i32>>,
    /// The player's rating before and after this game, when it was rated.
    pub mu_before: Option<f64>,
    pub sigma_before: Option<f64>,
    pub mu_after: Option<f64>,
    pub sigma_after: Option<f64>,
}

/// The player's `limit` most recently finished public games.
pub async fn recent_finished<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    limit: i64,
) -> sqlx::Result<Vec<FinishedGame>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT g.id, g.kind, g.finished_at,
                array(SELECT u.username FROM game_seats t JOIN users u ON u.id = t.user_id
                       WHERE t.game_id = g.id ORDER BY t.seat) AS usernames,
                array(SELECT (g.outcome->'ranks'->>(t.seat::int))::int FROM game_seats t
                       WHERE t.game_id = g.id ORDER BY t.seat) AS ranks,
                ru.mu_before, ru.sigma_before, ru.mu_after, ru.sigma_after
           FROM game_seats s
           JOIN games g ON g.id = s.game_id
           LEFT JOIN rating_updates ru ON ru.game_id = g.id AND ru.seat = s.seat
          WHERE s.user_id = $1 AND g.status = 'finished' AND {PUBLIC_GAME}
          ORDER BY g.finished_at DESC, g.id DESC
          LIMIT $2"
    )))
    .bind(user)
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// One rated game in a player's history.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct HistoryRow {
    /// The order the worker judged it in (the cursor).
    pub seq: i64,
    pub game_id: Uuid,
    pub finished_at: DateTime<Utc>,
    pub rank: i16,
    pub usernames: Vec<String>,
    pub ranks: Vec<i16>,
    pub mu_before: f64,
    pub sigma_before: f64,
    pub mu_after: f64,
    pub sigma_after: f64,
}

/// The player's rated public games of `kind`, newest first (by the judging order), after
/// the one judged as `before` (exclusive), at most `limit`. Private games are left out.
pub async fn rating_history<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    kind: &str,
    before: Option<i64>,
    limit: i64,
) -> sqlx::Result<Vec<HistoryRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT rg.seq, rg.game_id, rg.finished_at, ru.rank,
                array(SELECT u.username FROM rating_updates o JOIN users u ON u.id = o.user_id
                       WHERE o.game_id = rg.game_id ORDER BY o.seat) AS usernames,
                array(SELECT o.rank FROM rating_updates o
                       WHERE o.game_id = rg.game_id ORDER BY o.seat) AS ranks,
                ru.mu_before, ru.sigma_before, ru.mu_after, ru.sigma_after
           FROM rating_updates ru
           JOIN rating_games rg ON rg.game_id = ru.game_id
           JOIN games g ON g.id = ru.game_id
          WHERE ru.user_id = $1 AND ru.kind = $2 AND {PUBLIC_GAME}
            AND ($3::bigint IS NULL OR rg.seq < $3)
          ORDER BY rg.seq DESC
          LIMIT $4"
    )))
    .bind(user)
    .bind(kind)
    .bind(before)
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// Which ratings count as settled (not provisional): at least `min_games` rated games and
/// an uncertainty of at most `max_sigma`.
#[derive(Clone, Copy, Debug)]
pub struct Settled {
    pub min_games: i32,
    pub max_sigma: f64,
}

/// One row of a leaderboard.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct BoardRow {
    pub username: String,
    pub username_key: String,
    pub display_name: Option<String>,
    pub rating: i32,
    pub games: i32,
}

/// The leaderboard of `kind`: settled ratings of live accounts, highest rating first, then
/// by username key; after (`rating`, `username_key`) when given; at most `limit` rows.
pub async fn leaderboard<'e>(
    executor: impl PgExecutor<'e>,
    kind: &str,
    settled: Settled,
    after: Option<(i32, &str)>,
    limit: i64,
) -> sqlx::Result<Vec<BoardRow>> {
    sqlx::query_as(
        "SELECT u.username, u.username_key, u.display_name, r.rating, r.games
           FROM ratings r JOIN users u ON u.id = r.user_id
          WHERE r.kind = $1 AND u.deleted_at IS NULL AND r.games >= $2 AND r.sigma <= $3
            AND ($4::int IS NULL OR (r.rating < $4 OR (r.rating = $4 AND u.username_key > $5)))
          ORDER BY r.rating DESC, u.username_key
          LIMIT $6",
    )
    .bind(kind)
    .bind(settled.min_games)
    .bind(settled.max_sigma)
    .bind(after.map(|a| a.0))
    .bind(after.map(|a| a.1))
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// How many rows of the leaderboard of `kind` come before (`rating`, `username_key`): the
/// position of the next row, less one.
pub async fn leaderboard_rows_before<'e>(
    executor: impl PgExecutor<'e>,
    kind: &str,
    settled: Settled,
    at: (i32, &str),
) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT count(*) FROM ratings r JOIN users u ON u.id = r.user_id
          WHERE r.kind = $1 AND u.deleted_at IS NULL AND r.games >= $2 AND r.sigma <= $3
            AND (r.rating > $4 OR (r.rating = $4 AND u.username_key <= $5))",
    )
    .bind(kind)
    .bind(settled.min_games)
    .bind(settled.max_sigma)
    .bind(at.0)
    .bind(at.1)
    .fetch_one(executor)
    .await
}
