//! Lobby and play endpoints.

use crate::auth::Scope;
use crate::games::{Chat, GameKind, GameNames};
use crate::http::error::{ApiError, ErrorCode, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::conditional::{self, Condition};
use crate::http::extract::text::{Json, OptionalJson, Query};
use crate::http::replica_reads::{self, LateRead};
use crate::http::state::{AppState, Created};
use crate::service::play::actions::{self, ActionRequest, ActionResult, GameDetail, Submitted};
use crate::service::play::lobby::{
    self, CreateGameRequest, GamePage, GameSummary, Invitation, InviteRequest, JoinRequest,
    ListQuery,
};
use crate::with_rules;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// A registered game kind.
#[derive(Serialize, ToSchema)]
pub struct KindInfo {
    pub kind: &'static str,
    /// The game's name in each language the server and its web client write in (`en`, `ja`).
    pub names: GameNames,
    /// The table's chat unless its creator chooses another (the `chat` option).
    pub chat: Chat,
    pub rules_version: u32,
    pub min_seats: u8,
    pub max_seats: u8,
    /// The game's rule error codes with their meaning.
    pub error_codes: Vec<RuleCodeInfo>,
}

/// A rule code of a game with its meaning.
// Its schema keeps the name it was published with; the platform's codes are another type.
#[derive(Serialize, ToSchema)]
#[schema(as = ErrorCode)]
pub struct RuleCodeInfo {
    pub code: &'static str,
    pub meaning: &'static str,
}

#[derive(Serialize, ToSchema)]
pub struct KindList {
    pub items: Vec<KindInfo>,
}

pub fn kind_info(kind: GameKind) -> KindInfo {
    with_rules!(kind, R => KindInfo {
        kind: R::KIND,
        names: R::NAMES,
        chat: R::CHAT,
        rules_version: R::RULES_VERSION,
        min_seats: R::MIN_SEATS,
        max_seats: R::MAX_SEATS,
        error_codes: R::ERROR_CODES
            .iter()
            .map(|&(code, meaning)| RuleCodeInfo { code, meaning })
            .collect(),
    })
}

/// The game kinds this server plays.
#[utoipa::path(tag = "lobby", responses((status = 200, description = "The kinds.", body = KindList)))]
#[get("/kinds")]
pub async fn list_kinds() -> Json<KindList> {
    Json(kind_list())
}

/// Every kind this server plays (also `kontor kinds`, which writes the web client's copy).
pub fn kind_list() -> KindList {
    KindList {
        items: GameKind::ALL.into_iter().map(kind_info).collect(),
    }
}

/// List games: open ones to join, the caller's, those waiting for the caller, finished ones.
#[utoipa::path(
    tag = "lobby",
    security(("bearer" = [])),
    params(ListQuery),
    responses(
        (status = 200, description = "One page of games.", body = GamePage),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 422, description = "`unknown_game_kind`: `kind` names no registered game.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games")]
pub async fn list_games(
    state: web::Data<AppState>,
    caller: Caller,
    query: Query<ListQuery>,
) -> Result<Json<GamePage>, ApiError> {
    caller.require(Scope::GameRead)?;
    let query = query.into_inner();
    let (read, reader) = (LateRead::of_game_list(&query), caller.user_id);
    let page = replica_reads::answer(&state, read, Some(reader), |pool| {
        let query = query.clone();
        async move { Ok(lobby::list(&pool, reader, query).await?) }
    })
    .await?;
    Ok(Json(page))
}

/// Open a new game. The creator takes seat 0. Send an `Idempotency-Key` (optional: 1 to 255
/// visible ASCII characters, unique per game you mean to create) to make a retry safe: the same
/// request again with the key is answered 200 with the game the first one created (with
/// `Idempotent-Replayed: true`), never a second game; the key with another request is 422
/// `idempotency_key_reused`.
#[utoipa::path(
    tag = "lobby",
    security(("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "Unique per game you mean to create; a retry reuses it. A key is the caller's."),
    ),
    request_body = CreateGameRequest,
    responses(
        (status = 201, description = "The game, open for players.", body = GameSummary),
        (status = 200, description = "A retry: the game the earlier request with this `Idempotency-Key` created, as it is now.", body = GameSummary,
            headers(("Idempotent-Replayed" = String, description = "`true`."))),
        (status = 400, description = "Malformed JSON or wrong types, or `idempotency_key_required`: a malformed `Idempotency-Key`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`insufficient_scope`, or `email_not_verified` (where only verified accounts may play, or, by default, for a rated table: `KONTOR_UNVERIFIED_MAY_PLAY_RATED`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_game_kind`, `invalid_options` (with `field`), `invalid_field`, or `idempotency_key_reused`: the `Idempotency-Key` came with another request before.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_open_games`: the caller's open games are as many as `KONTOR_OPEN_GAMES_PER_USER` allows; start or cancel one.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games")]
pub async fn create_game(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    body: Json<CreateGameRequest>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GamePlay)?;
    crate::http::extract::caller::require_verified(&state, &caller).await?;
    let may_play_rated = crate::http::extract::caller::may_play_rated(&state, &caller).await?;
    let key = crate::http::extract::headers::optional_idempotency_key(&req)?;
    let created = lobby::create(
        &state.pool,
        caller.user_id,
        body.into_inner(),
        state.config.min_seconds_per_move,
        state.config.limits.open_games_per_user,
        may_play_rated,
        key.as_deref(),
    )
    .await?;
    Ok(match created {
        lobby::Creation::Created(game) => {
            actix_web::Responder::respond_to(Created::at(format!("/games/{}", game.id), game), &req)
        }
        lobby::Creation::Replayed(game) => HttpResponse::Ok()
            .insert_header(("Idempotent-Replayed", "true"))
            .insert_header((header::LOCATION, format!("/api/v1/games/{}", game.id)))
            .json(game),
    })
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DetailQuery {
    /// Show the position at this version (0 ≤ at ≤ version) instead of now.
    #[param(minimum = 0)]
    pub at: Option<i64>,
}

/// A game as the caller sees it: their own view (never another seat's secrets), the version,
/// who must act and the caller's legal actions. A non-player gets the public view; after the
/// end everyone sees everything.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        DetailQuery,
        ("If-None-Match" = Option<String>, Header, description = "An `ETag` of an earlier answer: 304 while it is still the caller's view."),
        ("If-Match" = Option<String>, Header, description = "An `ETag` of an earlier answer: 412 unless it is still the current one (strong comparison; `*` matches any)."),
    ),
    responses(
        (status = 200, description = "The game. `ETag` tags this representation (it differs per version shown, per viewer and per content coding).", body = GameDetail,
            headers(("ETag" = String, description = "`\"v{version}-{s<seat>|spectator}-{digest}\"`, and `-br`, `-gzip` or `-deflate` when the body is sent compressed."))),
        (status = 304, description = "Not modified: `If-None-Match` named the current representation's tag.",
            headers(("ETag" = String, description = "The current representation's tag (the one matched)."))),
        (status = 400, description = "`invalid_parameter` (`at`, or a malformed `If-None-Match` or `If-Match`).", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`precondition_failed`: `If-Match` names no current representation.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{game_id}")]
pub async fn get_game(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<Uuid>,
    query: Query<DetailQuery>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GameRead)?;
    let (reader, game_id, at) = (caller.user_id, path.into_inner(), query.at);
    let read = LateRead::of_game_view(at);
    let detail = replica_reads::answer(&state, read, Some(reader), |pool| async move {
        Ok(actions::detail(&pool, reader, game_id, at).await?)
    })
    .await?;
    let body = serde_json::to_vec(&detail).map_err(anyhow::Error::from)?;
    // The tag names the game as the caller sees it, not the chat beside it: a chat message
    // (which changes `chat_unread`) changes no game's ETag, so it cannot fail an `If-Match`.
    // The unread count of a cached copy may be stale; the chat and the streams tell it.
    let tagged = {
        let mut game = serde_json::to_value(&detail).map_err(anyhow::Error::from)?;
        if let Some(fields) = game.as_object_mut() {
            fields.remove("chat_unread");
        }
        serde_json::to_vec(&game).map_err(anyhow::Error::from)?
    };
    let tag = conditional::coded(
        conditional::game_tag(detail.at_version, detail.summary.your_seat, &tagged),
        conditional::coding(&req, "application/json"),
    );
    // Per-user answers: a browser may keep one but must ask again (conditionally) each
    // time; shared caches keep none.
    let mut response = HttpResponse::Ok();
    response
        .insert_header(header::ETag(header::EntityTag::new_strong(tag.clone())))
        .insert_header((header::CACHE_CONTROL, "private, no-cache"));
    // If-Match first (RFC 9110 §13.2.2): a representation other than the one named is 412.
    const EXAMPLE: &str = "\"v12-s0-…\"";
    let if_match = conditional::requested(&req, header::IF_MATCH, EXAMPLE)?;
    if if_match.is_some_and(|condition| !conditional::matches(&condition, &tag)) {
        return Err(ApiError::new(
            StatusCode::PRECONDITION_FAILED,
            ErrorCode::PreconditionFailed,
            format!("If-Match names no current representation of this game: its tag is \"{tag}\""),
        ));
    }
    let unchanged = conditional::requested(&req, header::IF_NONE_MATCH, EXAMPLE)?
        .is_some_and(|condition| conditional::none_match(&condition, &tag));
    if unchanged {
        return Ok(response.status(StatusCode::NOT_MODIFIED).finish());
    }
    Ok(response.content_type("application/json").body(body))
}

/// Take a seat. The game starts when the last seat is taken.
#[utoipa::path(
    tag = "lobby",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    request_body(content = JoinRequest, description = "Optional: the seat and a nonce (no body, or `{}`, for any free seat)."),
    responses(
        (status = 200, description = "Seated (the game may have started).", body = GameSummary),
        (status = 403, description = "`not_invited`, `insufficient_scope`, `email_not_verified` (where only verified accounts may play, or, by default, at a rated table: `KONTOR_UNVERIFIED_MAY_PLAY_RATED`), or `blocked`: a player seated in the game and the caller blocked one another (either way).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`wrong_status`, `already_seated`, `seat_taken` or `game_full`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/join")]
pub async fn join_game(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
    body: OptionalJson<JoinRequest>,
) -> Result<Json<GameSummary>, ApiError> {
    caller.require(Scope::GamePlay)?;
    crate::http::extract::caller::require_verified(&state, &caller).await?;
    let may_play_rated = crate::http::extract::caller::may_play_rated(&state, &caller).await?;
    let request = body.0.unwrap_or_default();
    Ok(Json(
        lobby::join(
            &state.pool,
            &state.config.clock,
            caller.user_id,
            path.into_inner(),
            request,
            may_play_rated,
        )
        .await?,
    ))
}

/// Give up your seat before the game starts.
#[utoipa::path(
    tag = "lobby",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    responses(
        (status = 200, description = "The seat is free again.", body = GameSummary),
        (status = 403, description = "`not_a_player`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`wrong_status`: the game has started.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/leave")]
pub async fn leave_game(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<GameSummary>, ApiError> {
    caller.require(Scope::GamePlay)?;
    Ok(Json(
        lobby::leave(&state.pool, caller.user_id, path.into_inner()).await?,
    ))
}

/// Start the game with the players seated so far (creator only); seats are renumbered
/// without gaps.
#[utoipa::path(
    tag = "lobby",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    responses(
        (status = 200, description = "Started.", body = GameSummary),
        (status = 403, description = "`not_the_creator`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`wrong_status` or `not_enough_players`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/start")]
pub async fn start_game(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<GameSummary>, ApiError> {
    caller.require(Scope::GamePlay)?;
    Ok(Json(
        lobby::start(
            &state.pool,
            &state.config.clock,
            caller.user_id,
            path.into_inner(),
        )
        .await?,
    ))
}

/// Cancel a game that has not started (creator only).
#[utoipa::path(
    tag = "lobby",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    responses(
        (status = 200, description = "Cancelled.", body = GameSummary),
        (status = 403, description = "`not_the_creator`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`wrong_status`: the game has started.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/cancel")]
pub async fn cancel_game(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<GameSummary>, ApiError> {
    caller.require(Scope::GamePlay)?;
    Ok(Json(
        lobby::cancel(&state.pool, caller.user_id, path.into_inner()).await?,
    ))
}

/// Invite a user to an open game (players only). A private game admits invited users only.
#[utoipa::path(
    tag = "lobby",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    request_body = InviteRequest,
    responses(
        (status = 201, description = "Invited.", body = Invitation),
        (status = 200, description = "Was invited already.", body = Invitation),
        (status = 403, description = "`not_a_player`, or `blocked`: the caller cannot invite this player (a block between them, either way).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found` or `user_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`wrong_status`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_invitations`: the caller made as many invitations today as `KONTOR_INVITATIONS_PER_DAY` allows; see `Retry-After`. (Beyond `KONTOR_INVITATION_MAILS_PER_INVITEE` a day, an invitation is made but not mailed.)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/invitations")]
pub async fn invite(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
    body: Json<InviteRequest>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GamePlay)?;
    let (invitation, new) = lobby::invite(
        &state.pool,
        caller.user_id,
        path.into_inner(),
        body.into_inner(),
        &state.config.limits,
    )
    .await?;
    Ok(if new {
        HttpResponse::Created()
            .insert_header((
                actix_web::http::header::LOCATION,
                format!("/api/v1/games/{}/invitations", invitation.game_id),
            ))
            .json(invitation)
    } else {
        HttpResponse::Ok().json(invitation)
    })
}

/// Submit an action.
///
/// Send an `Idempotency-Key` (1 to 255 visible ASCII characters, unique per action) and the
/// version you saw, in the body or as `If-Match`. A retried request with the same key gets
/// the stored answer and changes nothing (with `Idempotent-Replayed: true`). The answer is
/// kept for retries for 24 hours (the server's `KONTOR_IDEMPOTENCY_WINDOW`) at least; a retry
/// after that is still never applied again, but gets 409 `idempotency_key_expired`.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("Idempotency-Key" = String, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "Unique per intended action; retries reuse it. A key is the caller's within this game, for good: the same request with it is never applied twice. Its answer is kept for retries for 24 hours at least (the server's `KONTOR_IDEMPOTENCY_WINDOW`); a retry after that gets 409 `idempotency_key_expired` (with `applied_version` and `current_version`) instead: read the game."),
        ("If-Match" = Option<String>, Header, description = "The game's `ETag` as the client saw it (`\"v12-s0-…\"`, or the plain version `\"12\"`), instead of the body's `version`; `*` = whatever the current version is. Compared strongly: weak tags never match."),
    ),
    request_body = ActionRequest,
    responses(
        (status = 200, description = "Accepted and appended (or, with the same key, the stored answer).", body = ActionResult,
            headers(("Idempotent-Replayed" = String, description = "`true` when this is the stored answer to an earlier request with the same Idempotency-Key; absent otherwise."))),
        (status = 400, description = "Malformed JSON, `idempotency_key_required` or `version_required`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player`: no seat, or not the seat named; `insufficient_scope`; or `email_not_verified` (where only verified accounts may play).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`version_conflict` (with `current_version`), `game_not_active`, or `idempotency_key_expired`: a retry with the same key and request after the idempotency window (24 hours by default); it was applied at `applied_version` and is not applied again, the game is at `current_version`.", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`precondition_failed`: `If-Match` holds a weak tag or none of this game's.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The rules refused it: the game's own code (e.g. `not_your_turn`), `invalid_command`, or `idempotency_key_reused`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/actions")]
pub async fn submit_action(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<Uuid>,
    body: Json<ActionRequest>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GamePlay)?;
    crate::http::extract::caller::require_verified(&state, &caller).await?;
    let key = crate::http::extract::headers::idempotency_key(&req)?;
    let body = body.into_inner();
    let game_id = path.into_inner();
    let version = match conditional::condition_header(&req, header::IF_MATCH) {
        None => actions::Expected::Named(body.version.ok_or_else(|| {
            ApiError::bad_request(
                ErrorCode::VersionRequired,
                "send the version you saw, as the body's `version` or as If-Match",
            )
        })?),
        Some(value) => {
            let condition = value.to_str().ok().and_then(conditional::parse).ok_or_else(|| {
                ApiError::bad_request(
                    ErrorCode::VersionRequired,
                    "If-Match must be * or the ETag of the game as you saw it (e.g. \"v12-s0-…\")",
                )
            })?;
            match_version(&state, caller.user_id, game_id, body.version, &condition).await?
        }
    };
    let submitted = actions::submit(
        &state.pool,
        &state.cache,
        &state.committer,
        actions::Attempt {
            caller: caller.user_id,
            game_id,
            idempotency_key: &key,
            expected_version: version,
            request: &body,
            idempotency_window: state.config.idempotency_window,
        },
    )
    .await?;
    Ok(match submitted {
        Submitted::Applied(result) => HttpResponse::Ok().json(result),
        Submitted::Replayed(status, response) => {
            HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::OK))
                .insert_header(("Idempotent-Replayed", "true"))
                .content_type("application/json")
                .body(response)
        }
    })
}

/// The version an action is decided at, from `If-Match` (strong comparison, RFC 9110
/// §13.1.1) and the body's `version`. A tag of ours names a version; a weak tag or one
/// naming no version never matches (412 `precondition_failed`). `*`, or tags naming several
/// versions, are checked against the current version, which the action then expects (a
/// move made meanwhile still answers 409 `version_conflict`).
async fn match_version(
    state: &AppState,
    caller: uuid::Uuid,
    game_id: Uuid,
    body_version: Option<i64>,
    condition: &Condition<'_>,
) -> Result<actions::Expected, ApiError> {
    let versions = match condition {
        Condition::Any => None,
        Condition::Tags(tags) => {
            let mut versions = Vec::new();
            for tag in tags {
                match conditional::version_of(tag.opaque) {
                    Some(v) if !tag.weak => versions.push(v),
                    _ if tag.weak => {
                        return Err(ApiError::new(
                            StatusCode::PRECONDITION_FAILED,
                            ErrorCode::PreconditionFailed,
                            "If-Match compares strongly: a weak tag (W/\"…\") never matches; send the ETag as the game's GET gave it",
                        ));
                    }
                    _ => {
                        return Err(ApiError::new(
                            StatusCode::PRECONDITION_FAILED,
                            ErrorCode::PreconditionFailed,
                            format!("If-Match: \"{}\" is no tag of this game", tag.opaque),
                        ));
                    }
                }
            }
            versions.sort_unstable();
            versions.dedup();
            Some(versions)
        }
    };
    match (body_version, versions) {
        (Some(v), Some(listed)) if !listed.contains(&v) => Err(ApiError::bad_request(
            ErrorCode::VersionRequired,
            format!("the body says version {v} but If-Match says {listed:?}"),
        )),
        (Some(v), _) => Ok(actions::Expected::Named(v)),
        (None, Some(listed)) if listed.len() == 1 => Ok(actions::Expected::Named(listed[0])),
        (None, among) => {
            let current = actions::current_version(&state.pool, caller, game_id).await?;
            match among {
                Some(listed) if !listed.contains(&current) => Err(ApiError::conflict(
                    ErrorCode::VersionConflict,
                    format!("the game is at version {current}, not one of {listed:?}: reload it and decide again"),
                )
                .with("current_version", current)),
                among => Ok(actions::Expected::Current { among, current }),
            }
        }
    }
}
