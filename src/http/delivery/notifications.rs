//! Notification preferences, one-click unsubscribe, and the admin view of failed mails.

use crate::http::error::{ApiError, ErrorCode, Problem, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::text::{Json, Query};
use crate::http::state::AppState;
use crate::service::delivery::mail::admin::{self, FailedMail};
use crate::service::delivery::mail::unsubscribe::{self as unsubscribe_link, UnsubscribeScope};
use crate::service::delivery::render::escape_html;
use crate::service::notices::preferences::{Choice, Choices, Delivery, Preferences};
use crate::service::notices::{NoticeKind, notice_kinds, preferences};
use crate::store::users;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, put, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// `PreferencesUpdate`: an optional field per kind of the list, `always_email` and `push`.
macro_rules! define_preferences_update {
    ($(
        $(#[doc = $doc:tt])*
        $kind:ident = $name:ident { preference: $preference:tt, $($spec:tt)* }
    ),* $(,)?) => {
        /// A change of preferences: fields left out keep their value.
        #[derive(Debug, Default, Deserialize, ToSchema)]
        #[serde(deny_unknown_fields)]
        #[schema(example = json!({"your_turn": "digest", "game_over": "off", "always_email": true}))]
        pub struct PreferencesUpdate {
            $( pub $name: Option<Delivery>, )*
            pub always_email: Option<bool>,
            /// Web Push per kind (`true`: pushed to your subscribed browsers); kinds left out keep
            /// their choice.
            pub push: Option<std::collections::BTreeMap<String, bool>>,
        }

        impl PreferencesUpdate {
            /// The mail choices it makes.
            fn mail(&self) -> impl Iterator<Item = (NoticeKind, Choice)> {
                [$( (NoticeKind::$kind, self.$name) ),*]
                    .into_iter()
                    .filter_map(|(kind, delivery)| Some((kind, Choice::Mail(delivery?))))
            }
        }
    };
}
notice_kinds!(define_preferences_update);

/// The caller's notification preferences: the mail choice per kind (as before) and the push
/// choice per kind.
#[derive(Debug, Serialize, ToSchema)]
pub struct NotificationSettings {
    #[serde(flatten)]
    pub mail: Preferences,
    /// Whether each kind of notice is pushed to the caller's subscribed browsers (every kind
    /// is listed; by default all but `player_left`).
    #[schema(example = json!({"your_turn": true, "reminder": true, "player_left": false}))]
    pub push: std::collections::BTreeMap<String, bool>,
}

impl From<Choices> for NotificationSettings {
    fn from(choices: Choices) -> Self {
        Self {
            push: choices.push_by_name(),
            mail: choices.mail,
        }
    }
}

/// The caller's notification preferences: for each kind of notice `immediately`, `digest`
/// (one mail a day, from `KONTOR_DIGEST_HOUR` in the caller's time zone) or `off`; and whether "your turn" mails
/// are sent even while the caller watches the game's live stream (`always_email`).
///
/// Needs a logged-in user's access token: API tokens (for bots and tools) cannot read or
/// change account settings.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The preferences (defaults included).", body = NotificationSettings),
        Unauthenticated,
        (status = 403, description = "`session_required`: API tokens cannot do this.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/notifications")]
pub async fn get_preferences(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<NotificationSettings>, ApiError> {
    caller.require_session()?;
    let mut conn = state.pool.acquire().await?;
    let choices = preferences::load(&mut conn, caller.user_id).await?;
    Ok(Json(choices.into()))
}

/// Change the caller's notification preferences. Fields left out keep their value. A
/// change applies to mails already queued but not yet sent, too.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = [])),
    request_body = PreferencesUpdate,
    responses(
        (status = 200, description = "The preferences after the change.", body = NotificationSettings),
        (status = 400, description = "`malformed_json` or `invalid_body` (an unknown field, or a value other than `immediately`, `digest`, `off`), or `unknown_notice_kind` (a kind in `push` that does not exist); nothing is changed.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`session_required`: API tokens cannot do this.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/me/notifications")]
pub async fn put_preferences(
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<PreferencesUpdate>,
) -> Result<Json<NotificationSettings>, ApiError> {
    caller.require_session()?;
    let update = body.into_inner();
    let push: Vec<(NoticeKind, bool)> = match &update.push {
        None => Vec::new(),
        Some(choices) => choices
            .iter()
            .map(|(name, enabled)| {
                NoticeKind::parse(name)
                    .map(|kind| (kind, *enabled))
                    .ok_or_else(|| {
                        ApiError::bad_request(
                            ErrorCode::UnknownNoticeKind,
                            format!("push names {name:?}, which is no kind of notice"),
                        )
                        .with("field", "push")
                    })
            })
            .collect::<Result<_, _>>()?,
    };
    let choices: Vec<(NoticeKind, Choice)> = update
        .mail()
        .chain(push.into_iter().map(|(kind, on)| (kind, Choice::Push(on))))
        .collect();
    let mut tx = state.pool.begin().await?;
    preferences::choose(&mut tx, caller.user_id, &choices, update.always_email).await?;
    let settings = preferences::load(&mut tx, caller.user_id).await?;
    tx.commit().await?;
    Ok(Json(settings.into()))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UnsubscribeQuery {
    /// The signed token from the mail's link.
    pub token: String,
}

fn bad_token() -> ApiError {
    ApiError::bad_request(
        ErrorCode::InvalidUnsubscribeToken,
        "this unsubscribe link is damaged or was not made by this server; use the link from the mail as it is, or change your preferences at /api/v1/me/notifications",
    )
}

/// The user and scope of a token, after checking that the user exists.
async fn check_token(
    state: &AppState,
    token: &str,
) -> Result<(Uuid, String, UnsubscribeScope), ApiError> {
    let key = state.jwt.derive_key(unsubscribe_link::PURPOSE);
    let (user, scope) = unsubscribe_link::verify(&key, token).ok_or_else(bad_token)?;
    let username = users::find_username(&state.pool, user).await?;
    let username = username.ok_or_else(|| {
        ApiError::not_found(
            ErrorCode::UserNotFound,
            "the account of this link no longer exists",
        )
    })?;
    Ok((user, username, scope))
}

fn page(title: &str, body: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .body(format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><meta name=\"robots\" content=\"noindex\">\
             <title>{title}</title></head>\n<body style=\"font-family: sans-serif; max-width: 36em; margin: 2em auto;\">\n\
             <h1>{title}</h1>\n{body}\n</body></html>\n",
            title = escape_html(title)
        ))
}

/// The page behind the unsubscribe link in every mail: it says what the link turns off and
/// asks for a click. Opening it changes nothing (mail scanners open links too); the button
/// sends the same POST a mail client's one-click unsubscribe sends. No login needed.
#[utoipa::path(
    tag = "notifications",
    params(UnsubscribeQuery),
    responses(
        (status = 200, description = "A confirmation page with an Unsubscribe button.", content_type = "text/html", body = String),
        (status = 400, description = "`invalid_unsubscribe_token` (damaged or forged link) or `invalid_parameter` (no token).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`user_not_found`: the account no longer exists.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/unsubscribe")]
pub async fn unsubscribe_page(
    state: web::Data<AppState>,
    query: Query<UnsubscribeQuery>,
) -> Result<HttpResponse, ApiError> {
    let (_, username, scope) = check_token(&state, &query.token).await?;
    let action = format!("?token={}", query.token.trim());
    Ok(page(
        "Unsubscribe",
        &format!(
            "<p>Stop sending <strong>{what}</strong> to <strong>{user}</strong>?</p>\n\
             <form method=\"post\" action=\"{action}\">\
             <input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">\
             <button type=\"submit\">Unsubscribe</button></form>\n\
             <p>You can change every notification preference later with \
             <code>PUT /api/v1/me/notifications</code>.</p>",
            what = escape_html(scope.label()),
            user = escape_html(&username),
            action = escape_html(&action),
        ),
    ))
}

/// One-click unsubscribe (RFC 8058): what a mail client POSTs for the `List-Unsubscribe`
/// header, with the body `List-Unsubscribe=One-Click` (form-urlencoded or multipart). No
/// login needed: the signed token says who and what. Unsubscribing twice is harmless.
///
/// A token for one kind sets that kind to `off`; `digest` sets every kind now on `digest`
/// to `off`; `all` sets every kind to `off`.
#[utoipa::path(
    tag = "notifications",
    params(UnsubscribeQuery),
    request_body(content = String, content_type = "application/x-www-form-urlencoded", example = "List-Unsubscribe=One-Click"),
    responses(
        (status = 200, description = "Unsubscribed; a short confirmation page.", content_type = "text/html", body = String),
        (status = 400, description = "`invalid_unsubscribe_token`, `invalid_parameter` (no token) or `invalid_body` (the body is not `List-Unsubscribe=One-Click`); nothing is changed.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`user_not_found`: the account no longer exists.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/unsubscribe")]
pub async fn unsubscribe(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: Query<UnsubscribeQuery>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let (user, username, scope) = check_token(&state, &query.token).await?;
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if body.len() > 16 * 1024 || !is_one_click(content_type, &body) {
        return Err(ApiError::bad_request(
            ErrorCode::InvalidBody,
            "a one-click unsubscribe sends the form field List-Unsubscribe=One-Click (RFC 8058)",
        ));
    }
    let mut tx = state.pool.begin().await?;
    let preferences = preferences::load_for_update(&mut tx, user).await?.mail;
    let off: Vec<(NoticeKind, Choice)> = NoticeKind::ALL
        .into_iter()
        .filter(|kind| match scope {
            UnsubscribeScope::All => true,
            UnsubscribeScope::Kind(k) => k == *kind,
            UnsubscribeScope::Digest => preferences.of(*kind) == Delivery::Digest,
        })
        .map(|kind| (kind, Choice::Mail(Delivery::Off)))
        .collect();
    preferences::choose(&mut tx, user, &off, None).await?;
    tx.commit().await?;
    tracing::info!(%user, scope = scope.as_str(), "unsubscribed by link");
    Ok(page(
        "Unsubscribed",
        &format!(
            "<p><strong>{user}</strong> gets no more <strong>{what}</strong>.</p>\n\
             <p>To receive them again, log in and change your preferences with \
             <code>PUT /api/v1/me/notifications</code>.</p>",
            user = escape_html(&username),
            what = escape_html(scope.label()),
        ),
    ))
}

/// Whether a POST body carries `List-Unsubscribe=One-Click`, form-urlencoded or multipart.
fn is_one_click(content_type: &str, body: &[u8]) -> bool {
    let Ok(body) = std::str::from_utf8(body) else {
        return false;
    };
    let media = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if media == "multipart/form-data" {
        let Some(boundary) = content_type.split(';').find_map(|p| {
            let (k, v) = p.split_once('=')?;
            (k.trim().eq_ignore_ascii_case("boundary")).then(|| v.trim().trim_matches('"'))
        }) else {
            return false;
        };
        return body.split(&format!("--{boundary}")).any(|part| {
            let Some((head, value)) = part
                .split_once("\r\n\r\n")
                .or_else(|| part.split_once("\n\n"))
            else {
                return false;
            };
            let named = head.lines().any(|line| {
                line.to_ascii_lowercase()
                    .starts_with("content-disposition:")
                    && (line.contains("name=\"List-Unsubscribe\"")
                        || line.contains("name=List-Unsubscribe"))
            });
            named && value.trim_end_matches("--").trim() == "One-Click"
        });
    }
    body.trim().split('&').any(|pair| {
        pair.split_once('=').is_some_and(|(k, v)| {
            form_decode(k) == "List-Unsubscribe" && form_decode(v) == "One-Click"
        })
    })
}

/// Decodes one `application/x-www-form-urlencoded` component.
fn form_decode(text: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    out.push(high * 16 + low);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

// ---------------------------------------------------------------------------------------
// Admin

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct FailedQuery {
    /// At most this many (1–1000, default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct FailedMailList {
    pub items: Vec<FailedMail>,
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"retried": 3}))]
pub struct Retried {
    /// How many failed mails are due again.
    pub retried: u64,
}

/// Mails that failed for good (after `KONTOR_MAIL_MAX_ATTEMPTS` attempts, or refused
/// permanently by the SMTP server), the most recent first. Admins only.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = [])),
    params(FailedQuery),
    responses(
        (status = 200, description = "The failed mails.", body = FailedMailList),
        (status = 400, description = "`invalid_parameter`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
        (status = 403, description = "`admin_required` or `session_required`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/admin/mail/failed")]
pub async fn failed_mails(
    state: web::Data<AppState>,
    caller: Caller,
    query: Query<FailedQuery>,
) -> Result<Json<FailedMailList>, ApiError> {
    crate::http::extract::caller::require_admin(&state, &caller).await?;
    let limit = query.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::bad_request(
            ErrorCode::InvalidParameter,
            "limit is between 1 and 1000",
        ));
    }
    Ok(Json(FailedMailList {
        items: admin::list_failed(&state.pool, limit).await?,
    }))
}

/// Send a failed mail again (due now, with a fresh set of attempts). Admins only.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = [])),
    params(("mail_id" = Uuid, Path, description = "The failed mail's id.")),
    responses(
        (status = 200, description = "The mail is due again.", body = Retried),
        (status = 403, description = "`admin_required` or `session_required`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`mail_not_found`: no failed mail has this id.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/admin/mail/{mail_id}/retry")]
pub async fn retry_mail(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<Json<Retried>, ApiError> {
    crate::http::extract::caller::require_admin(&state, &caller).await?;
    if !admin::retry(&state.pool, path.into_inner()).await? {
        return Err(ApiError::not_found(
            ErrorCode::MailNotFound,
            "no failed mail has this id",
        ));
    }
    Ok(Json(Retried { retried: 1 }))
}

/// Send every failed mail again. Admins only.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "How many mails are due again.", body = Retried),
        (status = 403, description = "`admin_required` or `session_required`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/admin/mail/retry-failed")]
pub async fn retry_failed_mails(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<Retried>, ApiError> {
    crate::http::extract::caller::require_admin(&state, &caller).await?;
    Ok(Json(Retried {
        retried: admin::retry_all(&state.pool).await?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_click_bodies() {
        let form = "application/x-www-form-urlencoded";
        assert!(is_one_click(form, b"List-Unsubscribe=One-Click"));
        assert!(is_one_click("", b"List-Unsubscribe=One-Click\r\n"));
        assert!(is_one_click(form, b"a=b&List-Unsubscribe=One%2DClick"));
        assert!(!is_one_click(form, b"List-Unsubscribe=Two-Clicks"));
        assert!(!is_one_click(form, b""));
        assert!(!is_one_click(form, b"%"));
        assert!(!is_one_click(form, b"List-Unsubscribe=One-Click%"));
        let multipart = "multipart/form-data; boundary=XyZ";
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"List-Unsubscribe\"\r\n\r\nOne-Click\r\n--XyZ--\r\n";
        assert!(is_one_click(multipart, body.as_bytes()));
        assert!(!is_one_click(
            multipart,
            body.replace("One-Click", "No").as_bytes()
        ));
        assert!(!is_one_click("multipart/form-data", body.as_bytes()));
        assert_eq!(form_decode("a%20b+c%zz%4"), "a b c%zz%4");
    }
}
