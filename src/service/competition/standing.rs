//! A player's standing, as anyone signed in may read it: the public profile, the rating
//! history per kind and the leaderboards. Only public games count here (listed, not a
//! sandbox, watchable by anyone): nothing of a private game shows, neither its id nor its
//! table nor its existence in a count. Blocks do not change what a profile shows, since it
//! shows only what is public anyway. A deleted account has no profile.

use super::ratings::{self, provisional};
use crate::games::GameKind;
use crate::service::play::error::Error;
use crate::store::standing::{self, Settled};
use crate::text::identity;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use utoipa::ToSchema;

/// How many finished games a profile lists.
pub const RECENT_GAMES: i64 = 10;

const SETTLED: Settled = Settled {
    min_games: ratings::judge::PROVISIONAL_GAMES,
    max_sigma: ratings::judge::PROVISIONAL_SIGMA,
};

/// The rating shown for a skill estimate (see [`ratings::display`]).
fn display_rating(mu: f64, sigma: f64) -> i32 {
    ratings::display(ratings::Rating { mu, sigma })
}

/// A player's rating in one game kind.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"kind": "steel-driver", "rating": 1184, "mu": 28.4, "sigma": 4.9, "games": 12, "provisional": false}))]
pub struct KindRating {
    pub kind: String,
    /// The shown rating: `round(1000 + 40·(μ − 3σ))`.
    pub rating: i32,
    /// The skill estimate (Weng–Lin μ).
    pub mu: f64,
    /// Its uncertainty (σ).
    pub sigma: f64,
    /// Rated games played in this kind, private ones included.
    pub games: i32,
    /// Fewer than 5 rated games, or σ above 5.0: not on the leaderboard yet.
    pub provisional: bool,
}

/// A seat of a finished game, as a profile lists it.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeatResult {
    pub username: String,
    /// 1 = won; tied seats share a rank. `null` if the outcome ranks no seat here.
    pub rank: Option<i32>,
}

/// A change of the shown rating by one game.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingChange {
    pub before: i32,
    pub after: i32,
}

/// A finished public game on a profile.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecentGame {
    pub id: uuid::Uuid,
    pub kind: String,
    pub finished_at: DateTime<Utc>,
    /// Every seat in seat order, with its final rank.
    pub seats: Vec<SeatResult>,
    /// The player's shown rating before and after, if the game was rated (and judged).
    pub rating_change: Option<RatingChange>,
}

/// A player's public profile.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({
    "username": "anna", "display_name": "Anna K.", "joined_at": "2026-11-29",
    "ratings": [{"kind": "steel-driver", "rating": 1184, "mu": 28.4, "sigma": 4.9, "games": 12, "provisional": false}],
    "games_played": 15, "games_finished": 14,
    "recent": [{"id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d", "kind": "steel-driver",
                "finished_at": "2026-11-30T18:00:00Z",
                "seats": [{"username": "anna", "rank": 1}, {"username": "ben", "rank": 2}, {"username": "cleo", "rank": 3}],
                "rating_change": {"before": 1160, "after": 1184}}]
}))]
pub struct PlayerProfile {
    pub username: String,
    /// `null` if none.
    pub display_name: Option<String>,
    /// The day the account was made (UTC).
    pub joined_at: NaiveDate,
    /// One per game kind the player has a rating in.
    pub ratings: Vec<KindRating>,
    /// Public games the player sat in that started (running or ended).
    pub games_played: i64,
    /// Of those, the ones that ended.
    pub games_finished: i64,
    /// The 10 most recently finished public games, newest first.
    pub recent: Vec<RecentGame>,
}

fn kind_of(kind: &str) -> Result<GameKind, Error> {
    GameKind::parse(kind).ok_or_else(|| Error::UnknownGameKind {
        kind: kind.to_string(),
    })
}

async fn player(pool: &PgPool, username: &str) -> Result<standing::Player, Error> {
    let not_found = || Error::PlayerNotFound(username.to_string());
    // A name longer than any username, or with a control character, is no one's (and is
    // not worth a query; PostgreSQL would refuse a NUL in a text).
    if username.chars().count() > 254 || username.chars().any(char::is_control) {
        return Err(not_found());
    }
    standing::live_player(pool, &identity::key(username))
        .await?
        .ok_or_else(not_found)
}

/// The public profile of the live account `username` (in any letter case).
pub async fn profile(pool: &PgPool, username: &str) -> Result<PlayerProfile, Error> {
    let player = player(pool, username).await?;
    let ratings = standing::ratings_of(pool, player.id).await?;
    let (games_played, games_finished) = standing::public_game_counts(pool, player.id).await?;
    let recent = standing::recent_finished(pool, player.id, RECENT_GAMES).await?;
    Ok(PlayerProfile {
        username: player.username,
        display_name: player.display_name,
        joined_at: player.created_at.date_naive(),
        ratings: ratings
            .into_iter()
            .map(|r| KindRating {
                provisional: provisional(r.games, r.sigma),
                rating: display_rating(r.mu, r.sigma),
                kind: r.kind,
                mu: r.mu,
                sigma: r.sigma,
                games: r.games,
            })
            .collect(),
        games_played,
        games_finished,
        recent: recent
            .into_iter()
            .map(|g| RecentGame {
                id: g.id,
                kind: g.kind,
                finished_at: g.finished_at,
                seats: g
                    .usernames
                    .into_iter()
                    .zip(g.ranks)
                    .map(|(username, rank)| SeatResult { username, rank })
                    .collect(),
                rating_change: match (g.mu_before, g.sigma_before, g.mu_after, g.sigma_after) {
                    (Some(mu_b), Some(sigma_b), Some(mu_a), Some(sigma_a)) => Some(RatingChange {
                        before: display_rating(mu_b, sigma_b),
                        after: display_rating(mu_a, sigma_a),
                    }),
                    _ => None,
                },
            })
            .collect(),
    })
}

/// Page size and position for the paged lists here.
#[derive(Clone, Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Page size, 1–100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page.
    #[param(min_length = 1, pattern = "^[A-Za-z0-9_-]+$")]
    pub cursor: Option<String>,
}

fn page_size(limit: Option<u32>) -> Result<i64, Error> {
    let limit = i64::from(limit.unwrap_or(20));
    if !(1..=100).contains(&limit) {
        return Err(Error::InvalidParameter(
            "limit is between 1 and 100".to_string(),
        ));
    }
    Ok(limit)
}

fn bad_cursor() -> Error {
    Error::InvalidParameter("the cursor is not one this server gave".to_string())
}

fn decode(cursor: &str) -> Result<String, Error> {
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| bad_cursor())?;
    String::from_utf8(bytes).map_err(|_| bad_cursor())
}

/// One rated game in a player's rating history.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingHistoryEntry {
    pub game_id: uuid::Uuid,
    pub finished_at: DateTime<Utc>,
    /// The player's rank in it, as the rating counted it (seats that left rank last).
    pub rank: i16,
    /// Every seat of the game with its rank, in seat order.
    pub seats: Vec<HistorySeat>,
    pub rating_before: i32,
    pub rating_after: i32,
    pub mu_after: f64,
    pub sigma_after: f64,
}

/// A seat of a rated game, with the rank the rating counted.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistorySeat {
    pub username: String,
    pub rank: i16,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"items": [{"game_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d", "finished_at": "2026-11-30T18:00:00Z", "rank": 1, "seats": [{"username": "anna", "rank": 1}, {"username": "ben", "rank": 2}, {"username": "cleo", "rank": 3}], "rating_before": 1160, "rating_after": 1184, "mu_after": 28.4, "sigma_after": 4.9}], "next_cursor": null}))]
pub struct RatingHistory {
    /// Newest first. Rated private games are left out, although they moved the rating.
    pub items: Vec<RatingHistoryEntry>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// A page of `username`'s rating history in `kind`, newest first.
pub async fn rating_history(
    pool: &PgPool,
    username: &str,
    kind: &str,
    query: PageQuery,
) -> Result<RatingHistory, Error> {
    let kind = kind_of(kind)?;
    let limit = page_size(query.limit)?;
    let before = query
        .cursor
        .as_deref()
        .map(|c| decode(c)?.parse::<i64>().map_err(|_| bad_cursor()))
        .transpose()?;
    let player = player(pool, username).await?;
    let mut rows =
        standing::rating_history(pool, player.id, kind.as_str(), before, limit + 1).await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next_cursor = more
        .then(|| {
            rows.last()
                .map(|r| URL_SAFE_NO_PAD.encode(r.seq.to_string()))
        })
        .flatten();
    let items = rows
        .into_iter()
        .map(|r| RatingHistoryEntry {
            game_id: r.game_id,
            finished_at: r.finished_at,
            rank: r.rank,
            seats: r
                .usernames
                .into_iter()
                .zip(r.ranks)
                .map(|(username, rank)| HistorySeat { username, rank })
                .collect(),
            rating_before: display_rating(r.mu_before, r.sigma_before),
            rating_after: display_rating(r.mu_after, r.sigma_after),
            mu_after: r.mu_after,
            sigma_after: r.sigma_after,
        })
        .collect();
    Ok(RatingHistory { items, next_cursor })
}

/// A place on a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardEntry {
    /// 1-based, in the board's order (players with equal ratings get consecutive places,
    /// by username).
    pub position: i64,
    pub username: String,
    pub display_name: Option<String>,
    pub rating: i32,
    pub games: i32,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"items": [{"position": 1, "username": "anna", "display_name": "Anna K.", "rating": 1184, "games": 12}], "next_cursor": null}))]
pub struct Leaderboard {
    pub items: Vec<LeaderboardEntry>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

fn decode_board_cursor(cursor: &str) -> Result<(i32, String), Error> {
    let text = decode(cursor)?;
    let (rating, key) = text.split_once('|').ok_or_else(bad_cursor)?;
    Ok((rating.parse().map_err(|_| bad_cursor())?, key.to_string()))
}

/// A page of the leaderboard of `kind`: settled (not provisional) ratings of live accounts,
/// highest first, then by username.
pub async fn leaderboard(
    pool: &PgPool,
    kind: &str,
    query: PageQuery,
) -> Result<Leaderboard, Error> {
    let kind = kind_of(kind)?;
    let limit = page_size(query.limit)?;
    let after = query
        .cursor
        .as_deref()
        .map(decode_board_cursor)
        .transpose()?;
    let after_ref = after.as_ref().map(|(r, k)| (*r, k.as_str()));
    let mut rows =
        standing::leaderboard(pool, kind.as_str(), SETTLED, after_ref, limit + 1).await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let first_position = match after_ref {
        None => 1,
        Some(at) => standing::leaderboard_rows_before(pool, kind.as_str(), SETTLED, at).await? + 1,
    };
    let next_cursor = more
        .then(|| {
            rows.last()
                .map(|r| URL_SAFE_NO_PAD.encode(format!("{}|{}", r.rating, r.username_key)))
        })
        .flatten();
    let items = rows
        .into_iter()
        .zip(first_position..)
        .map(|(r, position)| LeaderboardEntry {
            position,
            username: r.username,
            display_name: r.display_name,
            rating: r.rating,
            games: r.games,
        })
        .collect();
    Ok(Leaderboard { items, next_cursor })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_player_shows_1000_and_is_provisional() {
        assert_eq!(display_rating(25.0, 25.0 / 3.0), 1000);
        assert_eq!(display_rating(30.0, 4.0), 1000 + 40 * 18);
        assert!(provisional(0, 25.0 / 3.0));
        assert!(provisional(4, 2.0));
        assert!(provisional(20, 5.01));
        assert!(!provisional(5, 5.0));
    }
}
