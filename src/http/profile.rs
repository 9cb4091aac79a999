//! The account's profile (display name, language, time zone), its deletion, the export of
//! everything stored about the caller, and blocking other players.

use super::accounts::{ApiTokenInfo, UserProfile, account_gone, profile_of};
use super::caller::Caller;
use super::error::{ApiError, ErrorCode, Problem};
use super::{AppState, Json, text};
use crate::notify::language::Language;
use crate::notify::{Preferences, prefs};
use crate::service::accounts::delete_account;
use crate::store::seats::SeatState;
use crate::store::{blocks, invitations, outbox, seats, sessions, tokens, users, vacations};
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, put, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

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
    #[schema(value_type = Option<String>, max_length = 40)]
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
        (status = 401, description = "No or bad credentials.", body = Problem, content_type = "application/problem+json"),
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
    if !users::update_profile(&state.pool, caller.user_id, &change).await? {
        return Err(account_gone());
    }
    Ok(Json(profile_of(&state, caller.user_id).await?))
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
        (status = 401, description = "No or bad credentials.", body = Problem, content_type = "application/problem+json"),
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
    super::security::check_own_password(&state, &req, caller.user_id, "password", password).await?;
    let deleted = delete_account(&state.pool, &state.config.clock, caller.user_id).await?;
    if deleted.is_none() {
        return Err(account_gone());
    }
    state.known_users.forget(caller.user_id);
    Ok(HttpResponse::NoContent().finish())
}

/// A vacation, as the export lists it.
#[derive(Serialize, ToSchema)]
pub struct VacationPeriod {
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

/// A login (the browser session or a token login) that can still be refreshed.
#[derive(Serialize, ToSchema)]
pub struct LoginInfo {
    pub id: Uuid,
    pub started_at: DateTime<Utc>,
    pub last_refreshed_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// The client's `User-Agent` as the login recorded it (as `GET /me/sessions` shows it).
    pub client: Option<String>,
}

/// A game the caller sits in.
#[derive(Serialize, ToSchema)]
pub struct MyGame {
    pub game_id: Uuid,
    pub kind: String,
    /// `open`, `active`, `finished` or `cancelled`.
    pub status: String,
    pub seat: i16,
    /// `active`, `abandoned` or `forfeited`.
    pub seat_state: SeatState,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// A player the caller blocked.
#[derive(Serialize, ToSchema)]
pub struct BlockedUser {
    pub user_id: Uuid,
    pub username: String,
    pub blocked_at: DateTime<Utc>,
}

/// Everything Kontor stores about the caller (no secrets: no password hash, no token).
#[derive(Serialize, ToSchema)]
pub struct MyData {
    pub exported_at: DateTime<Utc>,
    pub account: UserProfile,
    pub notification_preferences: Preferences,
    pub vacations: Vec<VacationPeriod>,
    /// API tokens that are not revoked: what is shown of them, never the tokens.
    pub api_tokens: Vec<ApiTokenInfo>,
    /// Logins that can still be refreshed.
    pub logins: Vec<LoginInfo>,
    /// Every game the caller sits in, with its id (its log: `GET /games/{id}/export`).
    pub games: Vec<MyGame>,
    pub blocked_users: Vec<BlockedUser>,
    /// Invitations to private games the caller received or made.
    pub invitations: Vec<MyInvitation>,
    /// The mails kept for the caller (sent ones for `KONTOR_KEEP_SENT_MAIL_DAYS`): their kind,
    /// game and fate, not their text (which may hold a link's secret while unsent).
    pub mails: Vec<MyMail>,
}

#[derive(Serialize, ToSchema)]
pub struct MyInvitation {
    pub game_id: Uuid,
    /// `true`: the caller was invited by `username`; `false`: the caller invited them.
    pub received: bool,
    pub username: String,
    pub created_at: DateTime<Utc>,
}

#[derive(Serialize, ToSchema)]
pub struct MyMail {
    /// The kind of notice (`your_turn`, `verify_email`…).
    pub kind: String,
    pub game_id: Option<Uuid>,
    /// `pending`, `sending`, `sent`, `failed`, `skipped`, `held` or `digested`.
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
}

/// Everything stored about the caller, as one JSON document (a download).
///
/// The account (with a waiting change of address), the notification preferences, vacations,
/// API tokens and logins (metadata only), every game the caller sits in, with its id, the
/// players the caller blocked, the invitations received and made, and the mails kept.
/// Each game's own log is exported by `GET /games/{id}/export`.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's data, as an attachment (`kontor-my-data.json`).", body = MyData),
        (status = 401, description = "No or bad credentials.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`session_required`: API tokens cannot export the account.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/export")]
pub async fn export_me(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    let user = caller.user_id;
    let account = profile_of(&state, user).await?;
    // A login's id is its refresh-token family's.
    let clients: std::collections::HashMap<Uuid, Option<String>> =
        sessions::active(&state.pool, user)
            .await?
            .into_iter()
            .map(|s| (s.id, s.user_agent))
            .collect();
    let mut conn = state.pool.acquire().await?;
    let notification_preferences = prefs::load(&mut conn, user).await?;
    drop(conn);
    let data = MyData {
        exported_at: Utc::now(),
        account,
        notification_preferences,
        vacations: vacations::all_of(&state.pool, user)
            .await?
            .into_iter()
            .map(|(starts_at, ends_at)| VacationPeriod { starts_at, ends_at })
            .collect(),
        api_tokens: tokens::list_api_tokens(&state.pool, user)
            .await?
            .into_iter()
            .map(ApiTokenInfo::from)
            .collect(),
        logins: tokens::logins_of(&state.pool, user)
            .await?
            .into_iter()
            .map(|l| LoginInfo {
                id: l.family_id,
                started_at: l.started_at,
                last_refreshed_at: l.refreshed_at,
                expires_at: l.expires_at,
                client: clients.get(&l.family_id).cloned().flatten(),
            })
            .collect(),
        games: seats::games_of_user(&state.pool, user)
            .await?
            .into_iter()
            .map(|g| MyGame {
                game_id: g.game_id,
                kind: g.kind,
                status: g.status,
                seat: g.seat,
                seat_state: g.state,
                created_at: g.created_at,
                started_at: g.started_at,
                finished_at: g.finished_at,
            })
            .collect(),
        blocked_users: blocked_users(&state, user).await?,
        invitations: invitations::of_user(&state.pool, user)
            .await?
            .into_iter()
            .map(|i| MyInvitation {
                game_id: i.game_id,
                received: i.received,
                username: i.other,
                created_at: i.created_at,
            })
            .collect(),
        mails: outbox::kept_for(&state.pool, user)
            .await?
            .into_iter()
            .map(|m| MyMail {
                kind: m.kind,
                game_id: m.game_id,
                status: m.status,
                created_at: m.created_at,
                sent_at: m.sent_at,
            })
            .collect(),
    };
    Ok(HttpResponse::Ok()
        .insert_header((
            header::CONTENT_DISPOSITION,
            "attachment; filename=\"kontor-my-data.json\"",
        ))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(data))
}

async fn blocked_users(state: &AppState, user: Uuid) -> Result<Vec<BlockedUser>, ApiError> {
    Ok(blocks::list(&state.pool, user)
        .await?
        .into_iter()
        .map(|b| BlockedUser {
            user_id: b.user_id,
            username: b.username,
            blocked_at: b.created_at,
        })
        .collect())
}

#[derive(Serialize, ToSchema)]
pub struct BlockList {
    pub items: Vec<BlockedUser>,
}

/// The players the caller blocked.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The blocked players, by name.", body = BlockList),
        (status = 401, description = "No or bad credentials.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/blocks")]
pub async fn list_blocks(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<BlockList>, ApiError> {
    caller.require_session()?;
    Ok(Json(BlockList {
        items: blocked_users(&state, caller.user_id).await?,
    }))
}

/// The account a block names; 404 for no (live) account, 422 for the caller.
async fn block_target(state: &AppState, caller: Uuid, name: &str) -> Result<Uuid, ApiError> {
    let name = text::line("username", name, 1..=254)?.to_string();
    let Some((id, _)) = users::find_by_username(&state.pool, &name).await? else {
        return Err(ApiError::not_found(
            ErrorCode::UserNotFound,
            format!("there is no user {name:?}"),
        ));
    };
    if id == caller {
        return Err(
            ApiError::unprocessable(ErrorCode::InvalidField, "you cannot block yourself")
                .with("field", "username"),
        );
    }
    Ok(id)
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
        (status = 401, description = "No or bad credentials.", body = Problem, content_type = "application/problem+json"),
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
    let target = block_target(&state, caller.user_id, &path.into_inner()).await?;
    blocks::block(&state.pool, caller.user_id, target).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Lift a block.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    params(("username" = String, Path, description = "The player's username (any letter case).")),
    responses(
        (status = 204, description = "The block is lifted."),
        (status = 401, description = "No or bad credentials.", body = Problem, content_type = "application/problem+json"),
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
    let target = block_target(&state, caller.user_id, &path.into_inner()).await?;
    if !blocks::unblock(&state.pool, caller.user_id, target).await? {
        return Err(ApiError::not_found(
            ErrorCode::UserNotFound,
            "you have not blocked this player",
        ));
    }
    Ok(HttpResponse::NoContent().finish())
}
