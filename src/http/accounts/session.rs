//! The browser's session: the same login as `/auth/login`, but the refresh token travels in
//! an `HttpOnly`, `SameSite=Strict` cookie that page scripts cannot read, and the answer
//! carries only the short-lived access token (which the page keeps in memory).
//!
//! The cookie is scoped to `/api/v1/auth/session`, so it is sent to these three endpoints
//! only, and `SameSite=Strict` keeps other sites' pages from sending it at all (no
//! cross-site request can refresh or end the session). It is `Secure` when
//! `KONTOR_BASE_URL` is `https://…`. What a browser marks as made by another site's page
//! (`Sec-Fetch-Site` other than `same-origin`) is refused outright (403
//! `cross_site_request`), and a logout clears the cookie only when one came.

use crate::http::accounts::signin::{self, LoginRequest, TokenPair};
use crate::http::error::{ApiError, ErrorCode, Problem};
use crate::http::extract::text::Json;
use crate::http::state::AppState;
use actix_web::cookie::{Cookie, CookieBuilder, SameSite, time};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, post, web};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// The cookie holding the browser session's refresh token.
pub const SESSION_COOKIE: &str = "kontor_session";
const COOKIE_PATH: &str = "/api/v1/auth/session";

#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "access_token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIuLi4ifQ.c2ln",
    "token_type": "Bearer",
    "expires_in": 900,
    "refresh_expires_in": 2592000
}))]
pub struct SessionToken {
    /// A JWT for `Authorization: Bearer`.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until the access token expires; refresh the session before then.
    pub expires_in: u64,
    /// Seconds until the session cookie expires unless it is refreshed.
    pub refresh_expires_in: u64,
}

/// The answer: the access token in the body, the refresh token in the cookie.
fn session_response(state: &AppState, pair: TokenPair) -> HttpResponse {
    let cookie = session_cookie(state, pair.refresh_token)
        .max_age(time::Duration::seconds(
            i64::try_from(pair.refresh_expires_in).unwrap_or(i64::MAX),
        ))
        .finish();
    HttpResponse::Ok()
        .cookie(cookie)
        .insert_header(("cache-control", "no-store"))
        .json(SessionToken {
            access_token: pair.access_token,
            token_type: pair.token_type,
            expires_in: pair.expires_in,
            refresh_expires_in: pair.refresh_expires_in,
        })
}

/// The session cookie's attributes, the same whether it is set or cleared (a browser only
/// clears a cookie of the same name, path and domain).
fn session_cookie(state: &AppState, value: String) -> CookieBuilder<'static> {
    Cookie::build(SESSION_COOKIE, value)
        .path(COOKIE_PATH)
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(secure(state))
}

fn secure(state: &AppState) -> bool {
    state
        .config
        .base_url
        .as_deref()
        .is_some_and(|url| url.starts_with("https://"))
}

/// A cookie that tells the browser to forget the session.
fn cleared(state: &AppState) -> Cookie<'static> {
    let mut cookie = session_cookie(state, String::new()).finish();
    cookie.make_removal();
    cookie
}

/// Refuses a request that a browser says another site's page made (`Sec-Fetch-Site` other
/// than `same-origin`): such a page may neither sign the browser in (to an account of its
/// choosing) nor refresh nor end its session. `SameSite=Strict` already keeps the cookie
/// from it; this keeps the answer from acting too. A request without the header (an older
/// browser, a client that is no browser) passes.
fn same_origin_only(req: &HttpRequest) -> Result<(), ApiError> {
    let Some(site) = req.headers().get("sec-fetch-site") else {
        return Ok(());
    };
    if site.as_bytes() == b"same-origin" {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::FORBIDDEN,
        ErrorCode::CrossSiteRequest,
        format!(
            "the browser says another site made this request (Sec-Fetch-Site: {}); the \
             session's endpoints answer only the server's own pages",
            String::from_utf8_lossy(site.as_bytes())
        ),
    ))
}

fn session_token(req: &HttpRequest) -> Option<String> {
    req.cookie(SESSION_COOKIE)
        .map(|cookie| cookie.value().to_string())
        .filter(|value| !value.is_empty())
}

/// Log in from a browser: like `/auth/login`, but the refresh token is set as an `HttpOnly`
/// cookie (`kontor_session`) instead of being returned.
#[utoipa::path(
    tag = "accounts",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Logged in; the session cookie is set.", body = SessionToken,
            headers(("Set-Cookie" = String, description = "`kontor_session`: the refresh token, `HttpOnly; SameSite=Strict`."))),
        (status = 400, description = "Malformed JSON or wrong types.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "`invalid_credentials`.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`cross_site_request`: `Sec-Fetch-Site` says another site's page sent it.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: a control character, or an over-long username or password.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many failures; see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/session")]
pub async fn open_session(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: Json<LoginRequest>,
) -> Result<HttpResponse, ApiError> {
    same_origin_only(&req)?;
    let user_id = signin::check_credentials(&state, &req, body.into_inner()).await?;
    let user_agent = crate::http::extract::headers::user_agent(&req);
    let pair = signin::issue_pair(&state, user_id, Uuid::now_v7(), user_agent.as_deref()).await?;
    Ok(session_response(&state, pair))
}

/// A new access token for the browser session; the cookie's refresh token is spent and
/// replaced. No body: the session cookie is the credential. A request without the cookie is
/// a browser where nobody is signed in: it is answered 204 (no session, nothing to renew),
/// so that a page opened signed out learns it without a failed request. A cookie whose token
/// was spent less than 15 seconds ago (the page was reloaded while its refresh was under way,
/// and the renewed cookie never arrived) is renewed once more; later, it ends the login.
#[utoipa::path(
    tag = "accounts",
    security((), ("session_cookie" = [])),
    responses(
        (status = 200, description = "A new access token; the session cookie is renewed.", body = SessionToken,
            headers(("Set-Cookie" = String, description = "The renewed `kontor_session` cookie."))),
        (status = 204, description = "No session cookie came: nobody is signed in in this browser."),
        (status = 401, description = "`invalid_token`: the session cookie's token is unknown, expired or spent (the cookie is then cleared).", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`cross_site_request`: `Sec-Fetch-Site` says another site's page sent it.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/session/refresh")]
pub async fn refresh_session(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    same_origin_only(&req)?;
    let Some(token) = session_token(&req) else {
        return Ok(HttpResponse::NoContent()
            .insert_header(("cache-control", "no-store"))
            .finish());
    };
    match signin::rotate(&state, &token).await {
        Ok(pair) => Ok(session_response(&state, pair)),
        Err(error) if error.status.is_client_error() => {
            let mut response = actix_web::ResponseError::error_response(&error);
            let _ = response.add_cookie(&cleared(&state));
            Ok(response)
        }
        Err(error) => Err(error),
    }
}

/// Log out of the browser session: its login is revoked and the cookie cleared. Answers 204
/// also when there is no session, so logging out twice is not an error; without a cookie
/// the answer clears none.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 204, description = "Logged out; the cookie is cleared (if one came).",
            headers(("Set-Cookie" = String, description = "Clears `kontor_session`, when the request carried it."))),
        (status = 403, description = "`cross_site_request`: `Sec-Fetch-Site` says another site's page sent it.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/session/logout")]
pub async fn close_session(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    same_origin_only(&req)?;
    // Without a cookie there is nothing to end, and nothing to clear: a clearing cookie in
    // the answer to a request that carried none (another site's form: `SameSite=Strict`
    // kept the cookie back) would still sign the browser out, its login left listed.
    let Some(token) = session_token(&req) else {
        return Ok(HttpResponse::NoContent().finish());
    };
    match signin::end_login(&state, &token).await {
        Ok(()) => {}
        // An unknown token is a session already gone.
        Err(error) if error.status.is_client_error() => {}
        Err(error) => return Err(error),
    }
    Ok(HttpResponse::NoContent().cookie(cleared(&state)).finish())
}
