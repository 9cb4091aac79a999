//! Keeping an account: verified addresses, password reset by mail, changing the password and
//! the address, and the list of logins (sessions). What they do is `service::security`'s;
//! here each request is read, handed on and answered.

use crate::http::error::{ApiError, ErrorCode, Problem};
use crate::http::extract::caller::Caller;
use crate::http::extract::text;
use crate::http::extract::text::Json;
use crate::http::middleware::forwarded::client_address;
use crate::http::state::AppState;
use crate::service::accounts::security::{
    self, Asker, EmailChangePending, LinkSent, PasswordChanged, SessionList, SessionsRevoked,
    VerifiedEmail,
};
use crate::text::identity;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The longest token a link may carry (ours have 53 characters).
const TOKEN_CHARS: usize = 200;

/// The token of a link as sent: one line, of a sensible length.
fn token_text(raw: &str) -> Result<&str, ApiError> {
    text::line("token", raw, 1..=TOKEN_CHARS)
}

/// Who asks, for a change of their own account.
fn asker<'a>(caller: &Caller, address: Option<&'a str>) -> Asker<'a> {
    Asker {
        user: caller.user_id,
        session: caller.session,
        address,
    }
}

// ---------------------------------------------------------------------------------------
// Verification

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"token": "kontor_ve_q3V0aGVudGljYXRlZC12ZXJpZnktdG9rZW4tZXhhbXBsZQ"}))]
pub struct VerifyEmailRequest {
    /// The `token` of the link in the verification mail.
    #[schema(min_length = 1, max_length = 200)]
    pub token: String,
}

/// Verify an email address with the token of a mailed link.
///
/// No login needed: the token is the credential. A link mailed to a new address (`POST
/// /me/email`) makes it the account's address now. Each link works once, until it expires
/// (`KONTOR_VERIFY_TOKEN_TTL`); a newer link replaces older ones.
#[utoipa::path(
    tag = "accounts",
    request_body = VerifyEmailRequest,
    responses(
        (status = 200, description = "The address is verified.", body = VerifiedEmail),
        (status = 400, description = "`mail_token_invalid`: unknown or damaged token.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`email_taken`: another account took the new address since the link was sent; nothing changed.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`mail_token_used` (used already, or replaced by a newer link) or `mail_token_expired`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/verify-email")]
pub async fn verify_email(
    state: web::Data<AppState>,
    body: Json<VerifyEmailRequest>,
) -> Result<Json<VerifiedEmail>, ApiError> {
    let raw = token_text(&body.token)?;
    Ok(Json(security::verify_email(state.accounts(), raw).await?))
}

/// Mail the verification link again.
///
/// To the address a change waits for (`POST /me/email`) if there is one, else to the
/// account's address while it is not verified. The new link replaces the older ones. At most
/// one a minute and five a day per account (changes of address count too).
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 202, description = "A new link is on its way.", body = LinkSent),
        (status = 403, description = "`session_required`: API tokens cannot do this.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`email_already_verified`: nothing waits for a link.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited` (this account's verification mails), or `too_many_mails_to_address` (the address was sent the most verification links a day, whichever accounts asked: `KONTOR_VERIFY_MAILS_PER_ADDRESS`); see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/email/verification")]
pub async fn resend_verification(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    let sent = security::resend_verification(state.accounts(), caller.user_id).await?;
    Ok(HttpResponse::Accepted().json(sent))
}

// ---------------------------------------------------------------------------------------
// Password reset

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"login": "anna"}))]
pub struct ForgotPasswordRequest {
    /// The username or the email address of the account.
    #[schema(min_length = 1, max_length = 254)]
    pub login: String,
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"detail": "If an account has this username or address, a link to choose a new password has been mailed to its address."}))]
pub struct ForgotPasswordAnswer {
    /// The same words whether or not the account exists.
    pub detail: &'static str,
}

const FORGOT_ANSWER: &str = "If an account has this username or address, a link to choose a new \
                             password has been mailed to its address.";

/// Ask for a password reset link by mail.
///
/// Always the same answer, whether or not an account has this username or address (and
/// about as fast either way), so it tells no one which accounts exist. The link goes to the
/// account's address (verified or not) and works once, for `KONTOR_RESET_TOKEN_TTL` seconds.
/// Per account at most three links an hour are mailed (beyond that, silently none); per client
/// address ten requests an hour are answered, then 429.
#[utoipa::path(
    tag = "accounts",
    request_body = ForgotPasswordRequest,
    responses(
        (status = 202, description = "The same answer for every account name or address.", body = ForgotPasswordAnswer),
        (status = 422, description = "`invalid_field`: an empty or over-long `login`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many requests from this client address; see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/password/forgot")]
pub async fn forgot_password(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: Json<ForgotPasswordRequest>,
) -> Result<HttpResponse, ApiError> {
    let login = text::line("login", &body.login, 1..=254)?;
    let address = client_address(&req);
    security::forgot_password(state.accounts(), login, address.as_deref()).await?;
    Ok(HttpResponse::Accepted().json(ForgotPasswordAnswer {
        detail: FORGOT_ANSWER,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"token": "kontor_pw_q3V0aGVudGljYXRlZC1yZXNldC10b2tlbi1leGFtcGxl", "password": "a new horse battery staple"}))]
pub struct ResetPasswordRequest {
    /// The `token` of the link in the reset mail.
    #[schema(min_length = 1, max_length = 200)]
    pub token: String,
    /// The new password: the same rules as at registration.
    #[schema(min_length = 8)]
    pub password: String,
}

/// Choose a new password with the token of a reset link.
///
/// Ends every login of the account and revokes every API token, and says how many; the
/// calendar feed is revoked too. The link reached the account's address, so that address
/// counts as verified too. The owner is told by mail.
#[utoipa::path(
    tag = "accounts",
    request_body = ResetPasswordRequest,
    responses(
        (status = 200, description = "The password is set; every login and API token of the account ended.", body = PasswordChanged),
        (status = 400, description = "`mail_token_invalid`: unknown or damaged token.", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`mail_token_used` (used already, or replaced by a newer link) or `mail_token_expired`.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: the new password is not acceptable (the link still works).", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/password/reset")]
pub async fn reset_password(
    state: web::Data<AppState>,
    body: Json<ResetPasswordRequest>,
) -> Result<Json<PasswordChanged>, ApiError> {
    let body = body.into_inner();
    let raw = token_text(&body.token)?;
    let changed = security::reset_password(state.accounts(), raw, body.password).await?;
    Ok(Json(changed))
}

// ---------------------------------------------------------------------------------------
// Changing the password and the address

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"current_password": "correct horse battery", "new_password": "a new horse battery staple"}))]
pub struct ChangePasswordRequest {
    pub current_password: String,
    /// The same rules as at registration.
    #[schema(min_length = 8)]
    pub new_password: String,
}

/// Change the password (the current one is needed).
///
/// Every other login of the account ends (its refresh tokens stop working at once); the
/// caller's own stays, and API tokens are kept (`api_tokens` is 0). A wrong current password
/// counts as a failed login for the throttle. The owner is told by mail.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = ChangePasswordRequest,
    responses(
        (status = 200, description = "Changed; the other logins ended.", body = PasswordChanged),
        (status = 403, description = "`wrong_password`, or `session_required` (API tokens cannot do this).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: the new password is not acceptable.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many wrong passwords; see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/password")]
pub async fn change_password(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    body: Json<ChangePasswordRequest>,
) -> Result<Json<PasswordChanged>, ApiError> {
    caller.require_session()?;
    let body = body.into_inner();
    let address = client_address(&req);
    let asker = asker(&caller, address.as_deref());
    let changed = security::change_password(
        state.accounts(),
        asker,
        body.current_password,
        body.new_password,
    )
    .await?;
    Ok(Json(changed))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"password": "correct horse battery", "email": "anna@new.example"}))]
pub struct ChangeEmailRequest {
    /// The account's current password.
    pub password: String,
    /// The new address. Unique regardless of letter case and Unicode form.
    #[schema(format = IdnEmail)]
    pub email: String,
}

/// Change the email address: it takes effect when the link mailed to the new address is used.
///
/// The old address is told (with the new one masked: `n***@example.org`). Whether another
/// account has the new address is checked now and again when the link is used; the answer
/// says no more than registration does (409 `email_taken`). Counts against the verification
/// mails' limit (one a minute, five a day).
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = ChangeEmailRequest,
    responses(
        (status = 202, description = "A link is on its way to the new address.", body = EmailChangePending),
        (status = 403, description = "`wrong_password`, or `session_required` (API tokens cannot do this).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`email_taken`: another account has this address.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: not an email address, or the account's address already.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many wrong passwords or verification mails; or `too_many_mails_to_address`: the new address was sent the most verification links a day, whichever accounts asked (`KONTOR_VERIFY_MAILS_PER_ADDRESS`); nothing is changed or mailed. See `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/email")]
pub async fn change_email(
    state: web::Data<AppState>,
    req: HttpRequest,
    caller: Caller,
    body: Json<ChangeEmailRequest>,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    let body = body.into_inner();
    let email = identity::email(&body.email).map_err(|e| {
        ApiError::unprocessable(ErrorCode::InvalidField, e.0).with("field", "email")
    })?;
    let address = client_address(&req);
    let asker = asker(&caller, address.as_deref());
    let pending = security::change_email(state.accounts(), asker, body.password, email).await?;
    Ok(HttpResponse::Accepted().json(pending))
}

// ---------------------------------------------------------------------------------------
// Logins

/// The caller's active logins (sessions), the most recently used first.
///
/// A login is a `POST /auth/login` or a browser session (`POST /auth/session`) and every
/// refresh after it; it is active while its refresh token works.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The logins.", body = SessionList),
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/sessions")]
pub async fn list_sessions(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<SessionList>, ApiError> {
    caller.require_session()?;
    let list = security::sessions(&state.pool, caller.user_id, caller.session).await?;
    Ok(Json(list))
}

/// End one login: its refresh token and the access tokens issued to it stop working (at once
/// here, within a minute on other instances of the server).
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    params(("session_id" = Uuid, Path, description = "The login's id.")),
    responses(
        (status = 204, description = "Ended."),
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`session_not_found`: no active login of yours has this id.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/sessions/{session_id}")]
pub async fn revoke_session(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    security::end_session(state.accounts(), caller.user_id, path.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// End every login but the caller's own (all of them, when the caller's access token names no
/// login) — "log out everywhere". The calendar feed is revoked too (its URL is a credential);
/// API tokens stay.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The other logins ended.", body = SessionsRevoked),
        (status = 403, description = "`session_required`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/sessions")]
pub async fn revoke_other_sessions(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<SessionsRevoked>, ApiError> {
    caller.require_session()?;
    let revoked =
        security::end_other_sessions(state.accounts(), caller.user_id, caller.session).await?;
    Ok(Json(revoked))
}
