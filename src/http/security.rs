//! Keeping an account: verified addresses, password reset by mail, changing the password and
//! the address, and the list of logins (sessions).
//!
//! Links by mail carry single-use tokens (`kontor_ve_…` verifies an address, `kontor_pw_…`
//! resets a password), stored only as their SHA-256 (`store::mail_tokens`) and judged by the
//! instance's clock. A token that is unknown or damaged, used or replaced, or expired is
//! refused with its own code and changes nothing.

use super::accounts::own_account;
use super::caller::Caller;
use super::error::{ApiError, ErrorCode, Problem};
use super::{AppState, Json, client_address, text};
use crate::auth::{self, RESET_PASSWORD_PREFIX, VERIFY_EMAIL_PREFIX, identity, password, throttle};
use crate::notify::account::{self as mail, AccountMail, PasswordChange};
use crate::store::mail_tokens::{self, MailToken, NewMailToken};
use crate::store::{sessions, tokens, users};
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use std::time::Duration;
use utoipa::ToSchema;
use uuid::Uuid;

/// Verification mails per account: one a minute, five a day (resends and changes of address
/// together), so that no one can use Kontor to flood an address.
const VERIFY_MAILS: [(u32, u64); 2] = [(1, 60), (5, 86_400)];
/// Reset mails per account: three an hour. Beyond it nothing is mailed, silently (an answer
/// that differed would tell that the account exists).
const RESET_MAILS_PER_ACCOUNT: (u32, u64) = (3, 3_600);
/// Reset requests per client address: ten an hour, then 429.
const RESET_REQUESTS_PER_ADDRESS: (u32, u64) = (10, 3_600);
// Housekeeping forgets mail counters after the longest window it knows of.
const _: () = assert!(
    VERIFY_MAILS[0].1 <= throttle::LONGEST_MAIL_WINDOW.as_secs()
        && VERIFY_MAILS[1].1 <= throttle::LONGEST_MAIL_WINDOW.as_secs()
        && RESET_MAILS_PER_ACCOUNT.1 <= throttle::LONGEST_MAIL_WINDOW.as_secs()
        && RESET_REQUESTS_PER_ADDRESS.1 <= throttle::LONGEST_MAIL_WINDOW.as_secs()
);
/// The longest token a link may carry (ours have 53 characters).
const TOKEN_CHARS: usize = 200;

fn limit(subject: String, (limit, secs): (u32, u64)) -> throttle::Limit {
    throttle::Limit {
        subject,
        limit,
        window: Duration::from_secs(secs),
    }
}

fn rate_limited(wait: u64, what: &str) -> ApiError {
    let when = match wait {
        0..=120 => format!("{wait} seconds"),
        121..=7_200 => format!("{} minutes", wait.div_ceil(60)),
        _ => format!("{} hours", wait.div_ceil(3_600)),
    };
    ApiError::too_many_requests(wait, format!("{what}; try again in {when}"))
}

fn expiry(now: DateTime<Utc>, ttl: Duration) -> DateTime<Utc> {
    // Bounded, so that no setting can overflow the time.
    let secs = ttl.as_secs().min(10 * 366 * 86_400) as i64;
    now + chrono::TimeDelta::seconds(secs)
}

/// Issues a verification link for `email` and queues its mail, in the caller's transaction;
/// returns the token's id. `change`: `email` is a new address for the account.
pub(super) async fn mail_verification_link(
    state: &AppState,
    conn: &mut PgConnection,
    user_id: Uuid,
    email: &str,
    change: bool,
) -> Result<(Uuid, DateTime<Utc>), ApiError> {
    let token = auth::random_token(VERIFY_EMAIL_PREFIX);
    let id = Uuid::now_v7();
    let now = state.config.clock.now();
    let expires_at = expiry(now, state.config.verify_token_ttl);
    let stored = NewMailToken {
        id,
        user_id,
        purpose: mail_tokens::VERIFY_EMAIL,
        email,
        token_hash: &auth::token_hash(&token),
        now,
        expires_at,
    };
    mail_tokens::issue(&mut *conn, &stored).await?;
    let link = AccountMail::verify_email(user_id, id, email, &token, expires_at, change);
    mail::enqueue(&mut *conn, &[link]).await?;
    Ok((id, expires_at))
}

/// The token of a link as sent: one line, of a sensible length.
fn token_text(raw: &str) -> Result<&str, ApiError> {
    text::line("token", raw, 1..=TOKEN_CHARS)
}

fn invalid_token(what: &str) -> ApiError {
    ApiError::bad_request(
        ErrorCode::MailTokenInvalid,
        format!("this is not a {what} link of this server (unknown or damaged token)"),
    )
}

/// Whether a stored token may be used now for `purpose`.
fn judge(
    token: Option<&MailToken>,
    purpose: &str,
    what: &str,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    let Some(token) = token.filter(|t| t.purpose == purpose) else {
        return Err(invalid_token(what));
    };
    if token.used_at.is_some() {
        return Err(ApiError::new(
            actix_web::http::StatusCode::GONE,
            ErrorCode::MailTokenUsed,
            format!("this {what} link was used already; each link works once"),
        ));
    }
    if token.superseded_at.is_some() {
        return Err(ApiError::new(
            actix_web::http::StatusCode::GONE,
            ErrorCode::MailTokenUsed,
            format!("a newer {what} link replaced this one; use the latest mail"),
        ));
    }
    if token.expires_at <= now {
        return Err(ApiError::new(
            actix_web::http::StatusCode::GONE,
            ErrorCode::MailTokenExpired,
            format!("this {what} link has expired; ask for a new one"),
        ));
    }
    Ok(())
}

/// Checks the caller's own password, as a login would: throttled per account and client
/// address, and a wrong one counts as a failed login. `field` names the member it came in
/// (`current_password`, `password`), in the refusal's `field` and its words.
pub(super) async fn check_own_password(
    state: &AppState,
    req: &HttpRequest,
    user_id: Uuid,
    field: &str,
    given: String,
) -> Result<(), ApiError> {
    if given.len() > password::MAX_PASSWORD_BYTES {
        return Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            format!(
                "a password has at most {} bytes",
                password::MAX_PASSWORD_BYTES
            ),
        )
        .with("field", field));
    }
    let config = &state.config;
    let address = client_address(req);
    let subjects = throttle::subjects(
        &throttle::Account::Known(user_id),
        address.as_deref(),
        config.login_max_failures,
        config.login_max_failures_per_address,
    );
    if let Err(wait) = throttle::check(&state.pool, &subjects, config.login_window).await? {
        return Err(rate_limited(wait, "too many wrong passwords"));
    }
    let hash = users::password_hash(&state.pool, user_id)
        .await?
        .unwrap_or_else(|| auth::DUMMY_PASSWORD_HASH.clone());
    let ok = web::block(move || auth::verify_password(&hash, &given))
        .await
        .map_err(ApiError::internal)?;
    if !ok {
        throttle::record_failure(&state.pool, &subjects, config.login_window).await?;
        return Err(ApiError::forbidden(
            ErrorCode::WrongPassword,
            format!("the {} is wrong", field.replace('_', " ")),
        )
        .with("field", field));
    }
    throttle::clear(&state.pool, &subjects[0].0).await?;
    Ok(())
}

/// Judges a new password against the account's names and hashes it, off the async threads.
async fn new_password_hash(
    field: &'static str,
    new: String,
    account: &users::Account,
) -> Result<String, ApiError> {
    let inputs = [account.username.clone(), account.email.clone()];
    web::block(move || -> Result<String, ApiError> {
        password::check_new(&new, &[&inputs[0], &inputs[1]]).map_err(|reason| {
            ApiError::unprocessable(ErrorCode::InvalidField, reason).with("field", field)
        })?;
        auth::hash_password(&new).map_err(ApiError::internal)
    })
    .await
    .map_err(ApiError::internal)?
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

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"email": "anna@example.org", "changed": false}))]
pub struct VerifiedEmail {
    /// The account's address, now verified.
    pub email: String,
    /// Whether the link was for a new address, which has now replaced the old one.
    pub changed: bool,
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
    if !raw.starts_with(VERIFY_EMAIL_PREFIX) {
        return Err(invalid_token("verification"));
    }
    let now = state.config.clock.now();
    let mut tx = state.pool.begin().await?;
    let token = mail_tokens::lock(&mut tx, &auth::token_hash(raw)).await?;
    judge(
        token.as_ref(),
        mail_tokens::VERIFY_EMAIL,
        "verification",
        now,
    )?;
    let token = token.expect("judged above");
    let before = users::account(&mut *tx, token.user_id).await?;
    let changed = match users::verify_email(&mut *tx, token.user_id, &token.email, now).await? {
        users::Verified::Address => false,
        users::Verified::Changed => true,
        users::Verified::EmailTaken => {
            return Err(ApiError::conflict(
                ErrorCode::EmailTaken,
                "another account has this address now; the address was not changed",
            ));
        }
    };
    mail_tokens::mark_used(&mut *tx, token.id, now).await?;
    if changed {
        // Reset links went to the old address: they stop working with it.
        mail_tokens::supersede(&mut *tx, token.user_id, mail_tokens::RESET_PASSWORD, now).await?;
        // And the old address is told that the change took effect.
        if let Some(old) = before.as_ref().map(|account| account.email.as_str()) {
            let notice = AccountMail::email_replaced(token.user_id, token.id, old, &token.email);
            mail::enqueue(&mut tx, &[notice]).await?;
        }
    }
    tx.commit().await?;
    Ok(Json(VerifiedEmail {
        email: token.email,
        changed,
    }))
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"sent_to": "anna@example.org", "expires_at": "2026-12-03T12:00:00Z"}))]
pub struct LinkSent {
    /// The address the link was mailed to.
    pub sent_to: String,
    /// When the link stops working.
    pub expires_at: DateTime<Utc>,
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
        (status = 429, description = "`rate_limited`: see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/email/verification")]
pub async fn resend_verification(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    let account = own_account(&state, caller.user_id).await?;
    let now = state.config.clock.now();
    let pending = mail_tokens::open_verification(&state.pool, caller.user_id, now)
        .await?
        .filter(|address| identity::key(address) != identity::key(&account.email));
    let (target, change) = match pending {
        Some(address) => (address, true),
        None if account.email_verified_at.is_none() => (account.email.clone(), false),
        None => {
            return Err(ApiError::conflict(
                ErrorCode::EmailAlreadyVerified,
                "your address is verified and no change of address waits for a link",
            ));
        }
    };
    take_verify_mail(&state, caller.user_id).await?;
    let mut tx = state.pool.begin().await?;
    let (_, expires_at) =
        mail_verification_link(&state, &mut tx, caller.user_id, &target, change).await?;
    tx.commit().await?;
    Ok(HttpResponse::Accepted().json(LinkSent {
        sent_to: target,
        expires_at,
    }))
}

async fn take_verify_mail(state: &AppState, user_id: Uuid) -> Result<(), ApiError> {
    let limits = VERIFY_MAILS.map(|l| limit(format!("mail:verify:{}:{user_id}", l.1), l));
    if let Err(wait) = throttle::take(&state.pool, &limits).await? {
        let (per_minute, per_day) = (VERIFY_MAILS[0], VERIFY_MAILS[1]);
        let what = if wait <= per_minute.1 {
            "a verification link was mailed just now".to_string()
        } else {
            format!(
                "{} verification links were mailed today, the most a day",
                per_day.0
            )
        };
        return Err(rate_limited(wait, &what));
    }
    Ok(())
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
    if let Some(address) = client_address(&req) {
        let per_address = [limit(
            format!("mail:reset:ip:{address}"),
            RESET_REQUESTS_PER_ADDRESS,
        )];
        if let Err(wait) = throttle::take(&state.pool, &per_address).await? {
            return Err(rate_limited(wait, "too many password reset requests"));
        }
    }
    // The same statements run whether or not the account exists, up to writing the link:
    // the lookup, the per-account count (an unknown name is counted as typed), a new token
    // and its hash, and a transaction that replaces older links; only for an account is it
    // kept and the mail queued (sent later by the mail worker, not in this request).
    let account = users::find_for_reset(&state.pool, login).await?;
    let subject = match &account {
        Some((id, _)) => format!("mail:reset:account:{id}"),
        None => format!("mail:reset:name:{}", identity::key(login)),
    };
    let allowed = throttle::take(&state.pool, &[limit(subject, RESET_MAILS_PER_ACCOUNT)])
        .await?
        .is_ok();
    let token = auth::random_token(RESET_PASSWORD_PREFIX);
    let hash = auth::token_hash(&token);
    let now = state.config.clock.now();
    let mut tx = state.pool.begin().await?;
    match account.filter(|_| allowed) {
        Some((user_id, email)) => {
            let id = Uuid::now_v7();
            let expires_at = expiry(now, state.config.reset_token_ttl);
            let stored = NewMailToken {
                id,
                user_id,
                purpose: mail_tokens::RESET_PASSWORD,
                email: &email,
                token_hash: &hash,
                now,
                expires_at,
            };
            mail_tokens::issue(&mut tx, &stored).await?;
            let link = AccountMail::password_reset(user_id, id, &token, expires_at);
            mail::enqueue(&mut tx, &[link]).await?;
            tx.commit().await?;
        }
        None => {
            mail_tokens::supersede(&mut *tx, Uuid::nil(), mail_tokens::RESET_PASSWORD, now).await?;
            tx.rollback().await?;
        }
    }
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

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"sessions": 3, "api_tokens": 2}))]
pub struct RevokedCounts {
    /// Logins (refresh-token families) ended: their refresh tokens stop working at once,
    /// their access tokens within `KONTOR_ACCESS_TOKEN_TTL`.
    pub sessions: i64,
    /// API tokens revoked (they stop working at once).
    pub api_tokens: u64,
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"revoked": {"sessions": 3, "api_tokens": 2}}))]
pub struct PasswordChanged {
    /// What the new password ended.
    pub revoked: RevokedCounts,
}

/// Choose a new password with the token of a reset link.
///
/// Ends every login of the account and revokes every API token, and says how many. The link
/// reached the account's address, so that address counts as verified too. The owner is told
/// by mail.
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
    if !raw.starts_with(RESET_PASSWORD_PREFIX) {
        return Err(invalid_token("password reset"));
    }
    let hash = auth::token_hash(raw);
    let now = state.config.clock.now();
    let found = mail_tokens::find(&state.pool, &hash).await?;
    judge(
        found.as_ref(),
        mail_tokens::RESET_PASSWORD,
        "password reset",
        now,
    )?;
    let found = found.expect("judged above");
    let account = own_account(&state, found.user_id).await?;
    let password_hash = new_password_hash("password", body.password, &account).await?;
    let mut tx = state.pool.begin().await?;
    // Judged again under the lock: two resets with one link cannot both pass.
    let token = mail_tokens::lock(&mut tx, &hash).await?;
    judge(
        token.as_ref(),
        mail_tokens::RESET_PASSWORD,
        "password reset",
        now,
    )?;
    let token = token.expect("judged above");
    users::set_password(&mut *tx, token.user_id, &password_hash).await?;
    mail_tokens::mark_used(&mut *tx, token.id, now).await?;
    let sessions = sessions::revoke_all_except(&mut *tx, token.user_id, None).await?;
    let api_tokens = tokens::revoke_all_api_tokens(&mut *tx, token.user_id).await?;
    // A change of address someone else began (with a stolen session) must not outlive the
    // reset its notice advised: its link stops working.
    mail_tokens::supersede_address_changes(&mut *tx, token.user_id, &account.email, now).await?;
    if identity::key(&token.email) == identity::key(&account.email) {
        users::verify_email(&mut *tx, token.user_id, &token.email, now).await?;
    }
    let notice = AccountMail::password_changed(token.user_id, token.id, PasswordChange::Reset);
    mail::enqueue(&mut tx, &[notice]).await?;
    tx.commit().await?;
    state.known_users.forget(token.user_id);
    // The owner is back: earlier failed logins no longer count against the account.
    throttle::clear(&state.pool, &format!("account:{}", token.user_id)).await?;
    Ok(Json(PasswordChanged {
        revoked: RevokedCounts {
            sessions,
            api_tokens,
        },
    }))
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
    let unchanged = body.new_password == body.current_password;
    check_own_password(
        &state,
        &req,
        caller.user_id,
        "current_password",
        body.current_password,
    )
    .await?;
    // Checked once the current password is known to be right: the answer tells nothing else.
    if unchanged {
        return Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            "the new password is the current one; choose another",
        )
        .with("field", "new_password"));
    }
    let account = own_account(&state, caller.user_id).await?;
    let hash = new_password_hash("new_password", body.new_password, &account).await?;
    let mut tx = state.pool.begin().await?;
    users::set_password(&mut *tx, caller.user_id, &hash).await?;
    let sessions = sessions::revoke_all_except(&mut *tx, caller.user_id, caller.session).await?;
    // As after a reset, a pending change of address is called off: whoever changes the
    // password owns the account now, and asks again if the change was theirs.
    let now = state.config.clock.now();
    mail_tokens::supersede_address_changes(&mut *tx, caller.user_id, &account.email, now).await?;
    let notice =
        AccountMail::password_changed(caller.user_id, Uuid::now_v7(), PasswordChange::Changed);
    mail::enqueue(&mut tx, &[notice]).await?;
    tx.commit().await?;
    state.known_users.forget(caller.user_id);
    Ok(Json(PasswordChanged {
        revoked: RevokedCounts {
            sessions,
            api_tokens: 0,
        },
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"password": "correct horse battery", "email": "anna@new.example"}))]
pub struct ChangeEmailRequest {
    /// The account's current password.
    pub password: String,
    /// The new address. Unique regardless of letter case and Unicode form.
    pub email: String,
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"pending_email": "anna@new.example", "expires_at": "2026-12-03T12:00:00Z"}))]
pub struct EmailChangePending {
    /// The new address, waiting for its link; `GET /me` shows it as `pending_email`.
    pub pending_email: String,
    /// When the link stops working (the change is then dropped).
    pub expires_at: DateTime<Utc>,
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
        (status = 429, description = "`rate_limited`: too many wrong passwords or verification mails; see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
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
    check_own_password(&state, &req, caller.user_id, "password", body.password).await?;
    let account = own_account(&state, caller.user_id).await?;
    if identity::key(&email) == identity::key(&account.email) {
        return Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            "this is the account's address already",
        )
        .with("field", "email"));
    }
    // Checked before a mail is counted: a refused change mails nothing.
    if users::email_taken(&state.pool, &email, caller.user_id).await? {
        return Err(ApiError::conflict(
            ErrorCode::EmailTaken,
            "an account with this email address exists already",
        ));
    }
    take_verify_mail(&state, caller.user_id).await?;
    let mut tx = state.pool.begin().await?;
    let (token_id, expires_at) =
        mail_verification_link(&state, &mut tx, caller.user_id, &email, true).await?;
    let notice = AccountMail::email_changed(caller.user_id, token_id, &email);
    mail::enqueue(&mut tx, &[notice]).await?;
    tx.commit().await?;
    Ok(HttpResponse::Accepted().json(EmailChangePending {
        pending_email: email,
        expires_at,
    }))
}

// ---------------------------------------------------------------------------------------
// Logins

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d", "created_at": "2026-11-29T12:00:00Z", "last_used_at": "2026-12-01T08:15:00Z", "client": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", "current": true}))]
pub struct SessionInfo {
    /// The login's id (its refresh-token family).
    pub id: Uuid,
    /// When the user logged in.
    pub created_at: DateTime<Utc>,
    /// When the login last got new tokens (a refresh).
    pub last_used_at: DateTime<Utc>,
    /// The client's `User-Agent` at login (at most 200 characters), if it sent one.
    pub client: Option<String>,
    /// Whether this is the login of the access token making the request.
    pub current: bool,
}

#[derive(Serialize, ToSchema)]
pub struct SessionList {
    pub items: Vec<SessionInfo>,
}

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
    let items = sessions::active(&state.pool, caller.user_id)
        .await?
        .into_iter()
        .map(|s| SessionInfo {
            current: caller.session == Some(s.id),
            id: s.id,
            created_at: s.created_at,
            last_used_at: s.last_used_at,
            client: s.user_agent,
        })
        .collect();
    Ok(Json(SessionList { items }))
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
    let login = path.into_inner();
    if !sessions::revoke(&state.pool, caller.user_id, login).await? {
        return Err(ApiError::not_found(
            ErrorCode::SessionNotFound,
            "you have no active login with this id",
        ));
    }
    state.known_users.forget_login(login);
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"revoked": 2}))]
pub struct SessionsRevoked {
    /// How many logins ended.
    pub revoked: i64,
}

/// End every login but the caller's own (all of them, when the caller's access token names no
/// login).
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
    let revoked = sessions::revoke_all_except(&state.pool, caller.user_id, caller.session).await?;
    state.known_users.forget(caller.user_id);
    Ok(Json(SessionsRevoked { revoked }))
}

/// Refuses to let an account whose address is not verified create, join or act in games,
/// where the operator asked for that (`KONTOR_UNVERIFIED_MAY_PLAY=false`).
pub async fn require_verified(state: &AppState, caller: &Caller) -> Result<(), ApiError> {
    if state.config.unverified_may_play || users::is_verified(&state.pool, caller.user_id).await? {
        return Ok(());
    }
    Err(ApiError::forbidden(
        ErrorCode::EmailNotVerified,
        "verify your email address first (the link in the mail, or POST /api/v1/me/email/verification for a new one)",
    ))
}
