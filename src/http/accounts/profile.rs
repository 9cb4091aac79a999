//! The account's profile (display name, language, time zone), its deletion, the export of
//! everything stored about the caller, and blocking other players. What they do is
//! `service::profile`'s; here each request is read, handed on and answered.

use crate::http::error::{ApiError, ErrorCode, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::text;
use crate::http::extract::text::Json;
use crate::http::middleware::forwarded::client_address;
use crate::http::state::AppState;
use crate::service::accounts::profile::{self, BlockList, MyData, UserProfile};
use crate::store::users;
use crate::words::language::Language;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, put, web};
use serde::{Deserialize, Deserializer};
use utoipa::ToSchema;

/// The longest display name, in characters.
pub const DISPLAY_NAME_CHARS: usize = 40;

/// A present member is `Some`, even when it is `null` (`Some(None)`): JSON merge semantics.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"display_name": "Anna K.", "language": "ja", "time_zone": "Asia/Tokyo"}))]
pub struct ProfileUpdate {
    /// 1–40 characters on one line, shown beside the username; `null` removes it. Absent:
    /// unchanged.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 40)]
    pub display_name: Option<Option<String>>,
    /// The language of every mail to you (`en` or `ja`). Absent: unchanged.
    pub language: Option<Language>,
    /// An IANA time zone name (`Europe/Berlin`, `Asia/Tokyo`, `UTC`): mails show deadlines
    /// and dates in it, and the daily digest comes at `KONTOR_DIGEST_HOUR` there. Absent:
    /// unchanged.
    pub time_zone: Option<String>,
}

/// Checks an IANA time zone name, in any letter case (`america/new_york`); answers the
/// canonical spelling (`America/New_York`).
pub fn time_zone(name: &str) -> Result<&'static str, ApiError> {
    let trimmed = name.trim();
    let zone = trimmed.parse::<chrono_tz::Tz>().ok().or_else(|| {
        chrono_tz::TZ_VARIANTS
            .iter()
            .copied()
            .find(|zone| zone.name().eq_ignore_ascii_case(trimmed))
    });
    match zone {
        Some(zone) if !trimmed.is_empty() => Ok(zone.name()),
        _ => Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            format!("{name:?} is not an IANA time zone name (such as Europe/Berlin or UTC)"),
        )
        .with("field", "time_zone")),
    }
}

/// Change the caller's profile: display name, language of the mails, time zone.
///
/// Members left out keep their value; `"display_name": null` removes the display name. The
/// username stays the account's identifier; the display name is shown beside it.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = ProfileUpdate,
    responses(
        (status = 200, description = "The account after the change.", body = UserProfile),
        (status = 400, description = "`malformed_json` or `invalid_body` (an unknown member, a language other than `en`, `ja`); nothing is changed.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`session_required`: API tokens cannot change the profile.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: a display name that is empty, longer than 40 characters or holds control characters, or an unknown time zone; nothing is changed.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/me/profile")]
pub async fn put_profile(
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<ProfileUpdate>,
) -> Result<Json<UserProfile>, ApiError> {
    caller.require_session()?;
    let body = body.into_inner();
    let display_name = match &body.display_name {
        None => None,
        Some(None) => Some(None),
        Some(Some(name)) => Some(Some(text::line(
            "display_name",
            name,
            1..=DISPLAY_NAME_CHARS,
        )?)),
    };
    let time_zone = body.time_zone.as_deref().map(time_zone).transpose()?;
    let change = users::ProfileChange {
        display_name,
        language: body.language.map(Language::as_str),
        time_zone,
    };
    let updated = profile::update_profile(state.accounts(), caller.user_id, &change).await?;
    Ok(Json(updated))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"password": "correct horse battery"}))]
pub struct DeleteAccountRequest {
    /// The account's password, to confirm.
    pub password: String,
}

/// Delete the caller's account, for good.
///
/// Needs the password (a wrong one counts as a failed login, and is throttled like one) and a
/// logged-in session, not an API token. In one transaction: the username becomes a
/// placeholder (`deleted-player-17`); the email address, the password, every token and login,
/// the preferences, vacations, blocks, invitations and every mail to the account are deleted.
/// The account's seats and every event stay, so every game still folds, replays, exports and
/// verifies. In each running game the seat goes to the game's abandonment policy (the bot
/// plays it, or it is forfeited and ranks last; without a time control the bot plays it),
/// recorded as `kontor.seat_left`, and the other players are told. Open games the account
/// created are cancelled; its seats in other open games are given up. The username and the
/// address are free again at once.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = DeleteAccountRequest,
    responses(
        (status = 204, description = "The account is deleted; its tokens no longer work."),
        (status = 400, description = "`malformed_json` or `invalid_body`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`session_required` (API tokens cannot delete the account) or `wrong_password`; nothing is changed.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: an over-long password or a control character.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many failed passwords or logins; see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/delete")]
pub async fn delete_me(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    body: Json<DeleteAccountRequest>,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    let password = body.into_inner().password;
    let address = client_address(&req);
    profile::delete_account(
        state.accounts(),
        caller.user_id,
        address.as_deref(),
        password,
    )
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Everything stored about the caller, as one JSON document (a download).
///
/// The account (with a waiting change of address), the notification preferences, vacations,
/// API tokens and logins (metadata only), every game the caller sits in, with its id, the
/// players the caller blocked, the invitations received and made, the mails kept, the chat
/// messages written and reported, and the caller's private notes on games.
/// Each game's own log is exported by `GET /games/{id}/export`.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's data, as an attachment (`kontor-my-data.json`).", body = MyData),
        Unauthenticated,
        (status = 403, description = "`session_required`: API tokens cannot export the account.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/export")]
pub async fn export_me(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    let data = profile::export(state.accounts(), caller.user_id).await?;
    Ok(HttpResponse::Ok()
        .insert_header((
            header::CONTENT_DISPOSITION,
            "attachment; filename=\"kontor-my-data.json\"",
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(data))
}

/// The players the caller blocked.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The blocked players, by name.", body = BlockList),
        Unauthenticated,
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/blocks")]
pub async fn list_blocks(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<BlockList>, ApiError> {
    caller.require_session()?;
    Ok(Json(
        profile::blocked_users(&state.pool, caller.user_id).await?,
    ))
}

/// The name a block's path names: one line.
fn block_name(name: &str) -> Result<&str, ApiError> {
    text::line("username", name, 1..=254)
}

/// Block a player: from now on neither of you can invite the other, and neither can join an
/// open game where the other sits. They are not told; an invitation they try is refused with
/// `blocked` ("you cannot invite this player"), which does not say who blocked whom.
/// Blocking someone again changes nothing.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    params(("username" = String, Path, description = "The player's username (any letter case).")),
    responses(
        (status = 204, description = "The player is blocked."),
        Unauthenticated,
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`user_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: yourself, or a name with control characters.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/me/blocks/{username}")]
pub async fn block(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    let name = path.into_inner();
    profile::block(&state.pool, caller.user_id, block_name(&name)?).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Lift a block.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    params(("username" = String, Path, description = "The player's username (any letter case).")),
    responses(
        (status = 204, description = "The block is lifted."),
        Unauthenticated,
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`user_not_found`: no such player, or you have not blocked them.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: yourself, or a name with control characters.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/blocks/{username}")]
pub async fn unblock(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    let name = path.into_inner();
    profile::unblock(&state.pool, caller.user_id, block_name(&name)?).await?;
    Ok(HttpResponse::NoContent().finish())
}
