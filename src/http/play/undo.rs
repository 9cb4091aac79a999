//! Undo: taking moves back, asking the others' consent, answering and withdrawing requests.

use crate::auth::Scope;
use crate::http::error::{ApiError, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::headers::AcceptLanguage;
use crate::http::extract::text::Json;
use crate::http::state::AppState;
use crate::service::play::undo_views::{UndoAnswerBody, UndoBody, UndoOutcome};
use crate::service::play::{undo_answers, undo_commands};
use crate::words::language::Language;
use actix_web::{delete, post, web};
use uuid::Uuid;

/// Take moves back. Without `to_version`, back to just before the caller's latest move;
/// never across the game's last barrier (something revealed, drawn or settled: `undo_barrier`
/// names its version). When only the caller's own moves are in range it applies at once
/// (`status: rewound`, a `kontor.rewound` event). Otherwise, if the table's `undo` setting is
/// `consent`, a request asks every other seat with moves in range (`status: asked`, a
/// `kontor.undo_requested` event): they are told on `/me/stream` and by mail, and have
/// `KONTOR_UNDO_DEADLINE_HOURS` to answer; a seat the bot plays accepts at once (so an undo
/// over bots' moves alone applies at once). Any move in the game while a request is open
/// lapses it. A request that a seat declines is not asked again by the same seat until
/// something moves the game (a move, a rewind, a seat changing hands): one declined request
/// per position (`undo_declined`; `GameDetail.undo.declined_at` says so beforehand).
/// `at_version` must be the game's version: a retry of an undo that applied gets the same
/// answer again, never a second undo.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(("game_id" = Uuid, Path, description = "The game.")),
    request_body = UndoBody,
    responses(
        (status = 200, description = "Rewound, or asked.", body = UndoOutcome),
        (status = 400, description = "Malformed JSON, wrong types, or a bad path (`invalid_parameter`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player`: the caller holds no seat in the game.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`undo_disabled` (the table allows no undo, or the game is not running), `undo_nothing_to_undo`, `undo_not_own_moves` (only other seats moved after `to_version`; with `to_version`), `undo_declined` (the caller's last request was declined and nothing moved since: ask again after the next move; with `declined_at`), `undo_barrier` (with `barrier_version` and `barrier`), `undo_stale` (with `current_version`), `undo_needs_consent` (the table allows only one's own moves; with `seats`), `undo_request_open` (with `request`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_undo`: `to_version` is out of range, has nothing played after it, or is not the end of a move (the middle of one, an undo's own event, or a move taken back already; the detail says which and names the end of a move before it).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/undo")]
pub async fn undo(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
    body: Json<UndoBody>,
    language: AcceptLanguage,
) -> Result<Json<UndoOutcome>, ApiError> {
    caller.require(Scope::GamePlay)?;
    let outcome = undo_commands::request(
        &state.pool,
        &state.config.clock,
        state.config.undo_deadline,
        caller.user_id,
        path.into_inner(),
        &body,
    )
    .await;
    Ok(Json(outcome.map_err(|e| in_words(e, language.0))?))
}

/// A refusal of undo in the caller's language where its words are the catalogue's.
fn in_words(error: crate::service::play::error::Error, language: Language) -> ApiError {
    let words = error.undo_refusal().and_then(|r| r.words(language));
    let mut refusal = ApiError::from(error);
    if let Some(words) = words {
        refusal.detail = words;
    }
    refusal
}

/// Accept or decline an undo request the caller's seat is asked (`needs`). One decline ends
/// it; the last acceptance takes the moves back (`status: rewound`). Answers are final: the
/// same answer again gets the same outcome, the other one `undo_not_asked`.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("request" = i64, Path, description = "The request: the sequence number of its `kontor.undo_requested` event."),
    ),
    request_body = UndoAnswerBody,
    responses(
        (status = 200, description = "The answer is recorded: `asked` (others must still answer), `declined` or `rewound`.", body = UndoOutcome),
        (status = 400, description = "Malformed JSON, wrong types, or a bad path (`invalid_parameter`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player`: the caller holds no seat in the game.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`undo_no_request` (no such open request: it ended, or its deadline passed), `undo_not_asked` (the caller's seat is not asked, or answered the other way), `undo_barrier` (a return to a seat or a departure since the request is a barrier it cannot cross).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{game_id}/undo/{request}/answer")]
pub async fn answer_undo(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(Uuid, i64)>,
    body: Json<UndoAnswerBody>,
) -> Result<Json<UndoOutcome>, ApiError> {
    caller.require(Scope::GamePlay)?;
    let (game_id, request) = path.into_inner();
    Ok(Json(
        undo_answers::answer(
            &state.pool,
            &state.config.clock,
            caller.user_id,
            game_id,
            request,
            body.accept,
        )
        .await?,
    ))
}

/// Withdraw the caller's open undo request (`status: withdrawn`). Again once withdrawn: the
/// same answer.
#[utoipa::path(
    tag = "play",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("request" = i64, Path, description = "The request: the sequence number of its `kontor.undo_requested` event."),
    ),
    responses(
        (status = 200, description = "The request is withdrawn.", body = UndoOutcome),
        (status = 400, description = "A bad path (`invalid_parameter`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player`: the caller holds no seat in the game.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`undo_no_request` (no such open request, or another seat's).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/games/{game_id}/undo/{request}")]
pub async fn withdraw_undo(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(Uuid, i64)>,
) -> Result<Json<UndoOutcome>, ApiError> {
    caller.require(Scope::GamePlay)?;
    let (game_id, request) = path.into_inner();
    Ok(Json(
        undo_answers::withdraw(&state.pool, caller.user_id, game_id, request).await?,
    ))
}
