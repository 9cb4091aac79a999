//! A player's private note on a game (see `service::notes`): read it, save it under
//! `If-Match`.

use crate::auth::Scope;
use crate::http::error::{ApiError, ErrorCode, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::conditional::{self, Condition};
use crate::http::extract::text::Json;
use crate::http::state::AppState;
use crate::service::social::notes::{self, Expected, Note, NoteRequest};
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, get, put, web};
use uuid::Uuid;

/// A note's entity tag as messages show it.
const NOTE_TAG: &str = "\"note-…\"";

/// The answer carrying `note`, tagged with its `ETag` in the coding it is sent in.
fn tagged(req: &HttpRequest, note: &Note, status: StatusCode) -> HttpResponse {
    let tag = conditional::coded(
        conditional::note_tag(&note.digest()),
        conditional::coding(req, "application/json"),
    );
    HttpResponse::build(status)
        .insert_header(header::ETag(header::EntityTag::new_strong(tag)))
        .insert_header((header::CACHE_CONTROL, "private, no-cache"))
        .json(note)
}

/// The caller's private note on this game (empty when they have written none). Only the
/// game's players have notes; nobody else ever sees one, not even after the end.
#[utoipa::path(
    tag = "notes",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("If-None-Match" = Option<String>, Header, description = "An `ETag` of an earlier answer: 304 while the note is still that one."),
    ),
    responses(
        (status = 200, description = "The note. `ETag` names it: send it as `If-Match` to save.", body = Note,
            headers(("ETag" = String, description = "`\"note-{digest}\"` (16 hex digits of the text's SHA-256), and `-br`, `-gzip` or `-deflate` when the body is sent compressed."))),
        (status = 304, description = "Not modified: `If-None-Match` named the current note.",
            headers(("ETag" = String, description = "The current note's tag."))),
        (status = 400, description = "`invalid_parameter` (a malformed `If-None-Match`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player` (the caller holds no seat in the game) or `insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or the caller may not read it.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{game_id}/notes")]
pub async fn get_note(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GameRead)?;
    let note = notes::get(&state.pool, path.into_inner(), caller.user_id).await?;
    if let Some(condition) = conditional::requested(&req, header::IF_NONE_MATCH, NOTE_TAG)? {
        let current = note.digest();
        let unchanged = match condition {
            Condition::Any => true,
            Condition::Tags(tags) => tags
                .iter()
                .any(|t| conditional::note_digest_of(t.opaque) == Some(current.as_str())),
        };
        if unchanged {
            let tag = conditional::coded(
                conditional::note_tag(&current),
                conditional::coding(&req, "application/json"),
            );
            return Ok(HttpResponse::NotModified()
                .insert_header(header::ETag(header::EntityTag::new_strong(tag)))
                .insert_header((header::CACHE_CONTROL, "private, no-cache"))
                .finish());
        }
    }
    Ok(tagged(&req, &note, StatusCode::OK))
}

/// Save the caller's private note on this game: the whole text, replacing the note; an
/// empty text clears it. `If-Match` must name the note as the caller last read it (its
/// `ETag`), so that a save from another tab or device is never overwritten unseen: when the
/// note changed meanwhile the answer is 412 and nothing is saved. A save of the text the note
/// already holds is answered 200 whatever `If-Match` names, so a save retried after a lost
/// answer learns that it was saved. `If-Match: *` overwrites whatever is there. Saving changes nothing else: no game version, ETag, stream or mail.
#[utoipa::path(
    tag = "notes",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("If-Match" = String, Header, description = "The note's `ETag` as the caller read it (`\"note-…\"`, in any coding), or `*`. Compared strongly: a weak tag never matches."),
    ),
    request_body = NoteRequest,
    responses(
        (status = 200, description = "Saved (or cleared): the note as it now is.", body = Note,
            headers(("ETag" = String, description = "The saved note's tag: send it as `If-Match` next time."))),
        (status = 400, description = "Malformed JSON, or a malformed `If-Match` (`invalid_parameter`).", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`not_a_player` (the caller holds no seat in the game) or `insufficient_scope`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or the caller may not read it.", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`precondition_failed`: the note is no longer the one `If-Match` names (another tab or device saved it), and not the text sent either; read it again.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_note` (too long, or a control character other than a line break) or `invalid_field`.", body = Problem, content_type = "application/problem+json"),
        (status = 428, description = "`precondition_required`: no `If-Match`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/games/{game_id}/notes")]
pub async fn put_note(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<Uuid>,
    body: Json<NoteRequest>,
) -> Result<HttpResponse, ApiError> {
    caller.require(Scope::GamePlay)?;
    let Some(condition) = conditional::requested(&req, header::IF_MATCH, NOTE_TAG)? else {
        return Err(ApiError::new(
            StatusCode::PRECONDITION_REQUIRED,
            ErrorCode::PreconditionRequired,
            "send If-Match: the ETag of the note as you read it (GET /games/{id}/notes), or * to overwrite whatever is there",
        ));
    };
    let expected = match condition {
        Condition::Any => Expected::Any,
        Condition::Tags(tags) => Expected::OneOf(
            tags.iter()
                .filter(|t| !t.weak)
                .filter_map(|t| conditional::note_digest_of(t.opaque))
                .map(str::to_string)
                .collect(),
        ),
    };
    let note = notes::put(
        &state.pool,
        &state.config.clock,
        path.into_inner(),
        caller.user_id,
        &expected,
        &body.into_inner(),
    )
    .await?;
    Ok(tagged(&req, &note, StatusCode::OK))
}
