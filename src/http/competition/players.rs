//! Players' public profiles, their rating histories and the leaderboards: what they show is
//! `service::standing`'s; here each request is read, handed on and answered.

use crate::auth::Scope;
use crate::http::error::{ApiError, Problem, Unauthenticated};
use crate::http::extract::caller::MaybeCaller;
use crate::http::extract::text::{Json, Query};
use crate::http::replica_reads::{self, LateRead};
use crate::http::state::AppState;
use crate::service::competition::standing::{
    self, Leaderboard, PageQuery, PlayerProfile, RatingHistory,
};
use actix_web::{get, web};

/// A player's public profile: ratings per game kind, games played, recent results.
///
/// Only public games count (listed, not an imported sandbox, watchable by anyone): a
/// private game never shows, not even in the counts. Anyone sees the same profile, signed
/// in or not, blocked or not: no credentials are needed (a token sent must be valid). The
/// username is matched in any letter case.
#[utoipa::path(
    tag = "players",
    security((), ("bearer" = [])),
    params(("username" = String, Path, description = "The player's username.")),
    responses(
        (status = 200, description = "The profile.", body = PlayerProfile),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`player_not_found`: no live account has this name (a deleted account's neither).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/players/{username}")]
pub async fn player_profile(
    state: web::Data<AppState>,
    caller: MaybeCaller,
    username: web::Path<String>,
) -> Result<Json<PlayerProfile>, ApiError> {
    caller.require(Scope::GameRead)?;
    let reader = caller.0.as_ref().map(|c| c.user_id);
    let profile = replica_reads::answer(&state, LateRead::Profile, reader, |pool| {
        let username = &username;
        async move { Ok(standing::profile(&pool, username).await?) }
    })
    .await?;
    Ok(Json(profile))
}

/// A player's rating history in one game kind, newest first, paged.
///
/// Rated private games are left out of the list, although they moved the rating (and count
/// in the rating's `games`): a history entry's `rating_before` may therefore differ from
/// the `rating_after` of the entry below it. No credentials are needed.
#[utoipa::path(
    tag = "players",
    security((), ("bearer" = [])),
    params(
        ("username" = String, Path, description = "The player's username."),
        ("kind" = String, Path, description = "A game kind: `flying-dutchman` or `steel-driver`."),
        PageQuery,
    ),
    responses(
        (status = 200, description = "One page of the history.", body = RatingHistory),
        (status = 400, description = "`invalid_parameter`: a limit outside 1–100, or a cursor this server did not give.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`player_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_game_kind`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/players/{username}/ratings/{kind}")]
pub async fn rating_history(
    state: web::Data<AppState>,
    caller: MaybeCaller,
    path: web::Path<(String, String)>,
    query: Query<PageQuery>,
) -> Result<Json<RatingHistory>, ApiError> {
    caller.require(Scope::GameRead)?;
    let (username, kind) = path.into_inner();
    let query = query.into_inner();
    let reader = caller.0.as_ref().map(|c| c.user_id);
    let history = replica_reads::answer(&state, LateRead::Profile, reader, |pool| {
        let (username, kind, query) = (&username, &kind, query.clone());
        async move { Ok(standing::rating_history(&pool, username, kind, query).await?) }
    })
    .await?;
    Ok(Json(history))
}

/// The leaderboard of one game kind, paged.
///
/// Live accounts whose rating is no longer provisional (at least 5 rated games and σ at
/// most 5.0), highest rating first, then by username; `position` counts from 1. No
/// credentials are needed.
#[utoipa::path(
    tag = "players",
    security((), ("bearer" = [])),
    params(
        ("kind" = String, Path, description = "A game kind: `flying-dutchman` or `steel-driver`."),
        PageQuery,
    ),
    responses(
        (status = 200, description = "One page of the leaderboard.", body = Leaderboard),
        (status = 400, description = "`invalid_parameter`: a limit outside 1–100, or a cursor this server did not give.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_game_kind`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/leaderboards/{kind}")]
pub async fn leaderboard(
    state: web::Data<AppState>,
    caller: MaybeCaller,
    kind: web::Path<String>,
    query: Query<PageQuery>,
) -> Result<Json<Leaderboard>, ApiError> {
    caller.require(Scope::GameRead)?;
    let query = query.into_inner();
    let reader = caller.0.as_ref().map(|c| c.user_id);
    let board = replica_reads::answer(&state, LateRead::Leaderboard, reader, |pool| {
        let (kind, query) = (&kind, query.clone());
        async move { Ok(standing::leaderboard(&pool, kind, query).await?) }
    })
    .await?;
    Ok(Json(board))
}
