//! Tournaments: creating, listing and reading them, entering and leaving, the organiser's
//! early start, and withdrawing once it runs. The server seats the rounds and creates the
//! games itself (`service::competition::tournaments`).

use crate::auth::Scope;
use crate::http::error::{ApiError, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::text::{Json, Query};
use crate::http::replica_reads::{self, LateRead};
use crate::http::state::{AppState, Created};
use crate::service::competition::tournaments::{
    self, CreateTournamentRequest, Tournament, TournamentSummary,
};
use actix_web::{HttpRequest, Responder, delete, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TournamentQuery {
    /// Only tournaments in this status; absent: all but cancelled ones.
    pub status: Option<TournamentStatus>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    Entry,
    Running,
    Finished,
    Cancelled,
}

impl TournamentStatus {
    fn as_str(self) -> &'static str {
        match self {
            Self::Entry => "entry",
            Self::Running => "running",
            Self::Finished => "finished",
            Self::Cancelled => "cancelled",
        }
    }
}

/// One page of tournaments, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentList {
    pub items: Vec<TournamentSummary>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

const PROBLEM: &str = "application/problem+json";

/// Open a tournament. Who may organise is the server's setting
/// `KONTOR_TOURNAMENT_ORGANISERS`: any player whose address is verified (default), or
/// administrators only. Entry stays open until `entry_closes_at`, when the server starts it
/// (or cancels it, with too few players to fill a table). An organiser may have
/// `KONTOR_TOURNAMENTS_PER_ORGANISER` (5) open for entry or running at once. The seed is
/// shown only by its commitment (`seed_commitment`) until entry closes.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    request_body = CreateTournamentRequest,
    responses(
        (status = 201, description = "The tournament, open for entries.", body = Tournament),
        (status = 400, description = "Malformed JSON or wrong types.", body = Problem, content_type = PROBLEM),
        Unauthenticated,
        (status = 403, description = "`organiser_not_allowed`.", body = Problem, content_type = PROBLEM),
        (status = 422, description = "`invalid_field` (`field`: name, format, seats_per_table, rounds, max_players, round_hours, entry_closes_at, time_control.…), `unknown_game_kind`, `invalid_options`.", body = Problem, content_type = PROBLEM),
        (status = 429, description = "`too_many_tournaments` (with `open`): the caller organises as many tournaments open for entry or running as `KONTOR_TOURNAMENTS_PER_ORGANISER` allows; start, finish or cancel one.", body = Problem, content_type = PROBLEM,
            headers(("Retry-After" = String, description = "Seconds to wait before asking again."))),
    )
)]
#[post("/tournaments")]
pub async fn create_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    body: Json<CreateTournamentRequest>,
) -> Result<impl Responder, ApiError> {
    caller.require(Scope::GamePlay)?;
    let tournament = tournaments::create(
        &state.pool,
        &state.config.clock,
        state.config.tournament_organisers,
        state.config.min_seconds_per_move,
        state.config.tournaments_per_organiser,
        caller.user_id,
        body.into_inner(),
    )
    .await?;
    let location = format!("/tournaments/{}", tournament.id);
    Ok(Created::at(location, tournament).respond_to(&req))
}

/// List tournaments, newest first, one page at a time.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    params(TournamentQuery),
    responses(
        (status = 200, description = "One page of tournaments.", body = TournamentList),
        (status = 400, description = "`invalid_parameter`: an unknown status, a limit outside 1–100, or a cursor this server did not give.", body = Problem, content_type = PROBLEM),
        Unauthenticated,
    )
)]
#[get("/tournaments")]
pub async fn list_tournaments(
    state: web::Data<AppState>,
    caller: Caller,
    query: Query<TournamentQuery>,
) -> Result<Json<TournamentList>, ApiError> {
    caller.require(Scope::GameRead)?;
    let query = query.into_inner();
    let reader = Some(caller.user_id);
    let (items, next_cursor) =
        replica_reads::answer(&state, LateRead::TournamentList, reader, |pool| {
            let query = &query;
            async move {
                Ok(tournaments::list(
                    &pool,
                    query.status.map(TournamentStatus::as_str),
                    query.limit,
                    query.cursor.as_deref(),
                )
                .await?)
            }
        })
        .await?;
    Ok(Json(TournamentList { items, next_cursor }))
}

/// A tournament: its settings, entrants, standings (after the ended rounds) and rounds with
/// their tables and games.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    params(("tournament_id" = Uuid, Path, description = "The tournament.")),
    responses(
        (status = 200, description = "The tournament.", body = Tournament),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = PROBLEM),
        Unauthenticated,
        (status = 404, description = "`tournament_not_found`.", body = Problem, content_type = PROBLEM),
    )
)]
#[get("/tournaments/{tournament_id}")]
pub async fn get_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<Tournament>, ApiError> {
    caller.require(Scope::GameRead)?;
    Ok(Json(
        tournaments::get(&state.pool, path.into_inner()).await?,
    ))
}

/// Enter a tournament during its entry window. Entering again changes nothing.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    params(("tournament_id" = Uuid, Path, description = "The tournament.")),
    responses(
        (status = 200, description = "The caller is entered.", body = Tournament),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = PROBLEM),
        Unauthenticated,
        (status = 403, description = "`email_not_verified` (where unverified accounts may not play, or, by default, for a rated tournament: `KONTOR_UNVERIFIED_MAY_PLAY_RATED`).", body = Problem, content_type = PROBLEM),
        (status = 404, description = "`tournament_not_found`.", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`tournament_wrong_status` (entry is closed), `tournament_full`.", body = Problem, content_type = PROBLEM),
    )
)]
#[post("/tournaments/{tournament_id}/join")]
pub async fn join_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<Tournament>, ApiError> {
    caller.require(Scope::GamePlay)?;
    crate::http::extract::caller::require_verified(&state, &caller).await?;
    let may_play_rated = crate::http::extract::caller::may_play_rated(&state, &caller).await?;
    Ok(Json(
        tournaments::join(
            &state.pool,
            &state.config.clock,
            caller.user_id,
            path.into_inner(),
            may_play_rated,
        )
        .await?,
    ))
}

/// Take back an entry before the tournament starts.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    params(("tournament_id" = Uuid, Path, description = "The tournament.")),
    responses(
        (status = 200, description = "The entry is taken back.", body = Tournament),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = PROBLEM),
        Unauthenticated,
        (status = 404, description = "`tournament_not_found`.", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`tournament_wrong_status` (it started: withdraw instead), `tournament_not_entered`.", body = Problem, content_type = PROBLEM),
    )
)]
#[delete("/tournaments/{tournament_id}/join")]
pub async fn leave_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<Tournament>, ApiError> {
    caller.require(Scope::GamePlay)?;
    Ok(Json(
        tournaments::leave(&state.pool, caller.user_id, path.into_inner()).await?,
    ))
}

/// Start the tournament before entry closes (the organiser; enough entrants for a table).
/// Round 1 is seated and its games start at once.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    params(("tournament_id" = Uuid, Path, description = "The tournament.")),
    responses(
        (status = 200, description = "The tournament, running.", body = Tournament),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = PROBLEM),
        Unauthenticated,
        (status = 403, description = "`not_the_organiser`.", body = Problem, content_type = PROBLEM),
        (status = 404, description = "`tournament_not_found`.", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`tournament_wrong_status`, `tournament_too_few_players`.", body = Problem, content_type = PROBLEM),
    )
)]
#[post("/tournaments/{tournament_id}/start")]
pub async fn start_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<Tournament>, ApiError> {
    caller.require(Scope::GamePlay)?;
    Ok(Json(
        tournaments::start(
            &state.pool,
            &state.config.clock,
            caller.user_id,
            path.into_inner(),
        )
        .await?,
    ))
}

/// Withdraw from a running tournament: the caller scores nothing from the running round on
/// and is never seated again; their seats in its running games go to each game's
/// abandonment policy (the bot plays them, or they are forfeited), as a deleted account's do.
#[utoipa::path(
    tag = "tournaments",
    security(("bearer" = [])),
    params(("tournament_id" = Uuid, Path, description = "The tournament.")),
    responses(
        (status = 200, description = "The caller is withdrawn.", body = Tournament),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = PROBLEM),
        Unauthenticated,
        (status = 404, description = "`tournament_not_found`.", body = Problem, content_type = PROBLEM),
        (status = 409, description = "`tournament_wrong_status` (not running: before the start, leave instead), `tournament_not_entered`, `tournament_already_withdrawn`.", body = Problem, content_type = PROBLEM),
    )
)]
#[post("/tournaments/{tournament_id}/withdraw")]
pub async fn withdraw_from_tournament(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<Tournament>, ApiError> {
    caller.require(Scope::GamePlay)?;
    Ok(Json(
        tournaments::withdraw(
            &state.pool,
            &state.config.clock,
            caller.user_id,
            path.into_inner(),
        )
        .await?,
    ))
}
