//! Accounts: register, login, refresh, logout, me, API tokens. Verification, password reset
//! and change, change of address and the list of logins are in `security`.

use super::caller::Caller;
use super::error::{ApiError, ErrorCode};
use super::{AppState, Created, Json, client_address, text};
use crate::auth::{self, API_TOKEN_PREFIX, REFRESH_PREFIX, Scope, identity, password, throttle};
use crate::notify::language::Language;
use crate::store::{mail_tokens, sessions, tokens, users};
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "anna", "email": "anna@example.org", "password": "correct horse battery"}))]
pub struct RegisterRequest {
    /// 3–32 characters: letters (any script), digits, `_` and `-`; no spaces or invisible
    /// characters. Unique regardless of letter case and Unicode form (`straße` = `STRASSE`).
    pub username: String,
    /// Unique regardless of letter case and Unicode form.
    pub email: String,
    /// 8–128 characters, and not easy to guess: common passwords, keyboard patterns,
    /// repeats and the username or email address are refused (zxcvbn score ≥ 3 of 4).
    pub password: String,
    /// The language of the mails (`en`, the default, or `ja`); changed later with
    /// `PUT /me/profile`.
    pub language: Option<Language>,
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d", "username": "anna", "email": "anna@example.org", "created_at": "2026-11-29T12:00:00Z", "email_verified": true, "display_name": "Anna K.", "language": "en", "time_zone": "Europe/Berlin"}))]
pub struct UserProfile {
    pub id: Uuid,
    pub username: String,
    pub email: String,
    pub created_at: DateTime<Utc>,
    /// Whether the address is verified (its link was used). Game notices are mailed only to
    /// a verified address. A new account gets a verification link by mail.
    pub email_verified: bool,
    /// A new address waiting for its verification link (`POST /me/email`); it replaces
    /// `email` once the link is used. Absent when no change waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_email: Option<String>,
    /// Shown beside the username at the table; `null` if none.
    pub display_name: Option<String>,
    /// The language of the mails.
    pub language: Language,
    /// The IANA time zone of the dates in mails and of the digest hour.
    pub time_zone: String,
}

/// What a caller whose account is gone (deleted since the token was issued) is told.
pub(super) fn account_gone() -> ApiError {
    ApiError::unauthorized(
        ErrorCode::InvalidToken,
        "the token's account does not exist",
    )
}

/// The caller's account (401 if it no longer exists).
pub(super) async fn own_account(state: &AppState, user: Uuid) -> Result<users::Account, ApiError> {
    users::account(&state.pool, user)
        .await?
        .ok_or_else(account_gone)
}

/// The profile of the caller's account (401 if it no longer exists).
pub(super) async fn profile_of(state: &AppState, user: Uuid) -> Result<UserProfile, ApiError> {
    let account = own_account(state, user).await?;
    let pending_email = mail_tokens::open_verification(&state.pool, user, state.config.clock.now())
        .await?
        .filter(|address| identity::key(address) != identity::key(&account.email));
    Ok(UserProfile {
        id: account.id,
        username: account.username,
        email: account.email,
        created_at: account.created_at,
        email_verified: account.email_verified_at.is_some(),
        pending_email,
        display_name: account.display_name,
        language: Language::parse(&account.language).unwrap_or_default(),
        time_zone: account.time_zone,
    })
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "anna", "password": "correct horse battery"}))]
pub struct LoginRequest {
    /// The username or the email address.
    pub username: String,
    pub password: String,
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "access_token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIuLi4ifQ.c2ln",
    "token_type": "Bearer",
    "expires_in": 900,
    "refresh_token": "kontor_rt_q3V0aGVudGljYXRlZC1yZWZyZXNoLXRva2VuLWV4YW1wbGU",
    "refresh_expires_in": 2592000
}))]
pub struct TokenPair {
    /// A JWT for `Authorization: Bearer`.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until the access token expires.
    pub expires_in: u64,
    /// Exchange it at `/auth/refresh` for a new pair; it can be used once.
    pub refresh_token: String,
    pub refresh_expires_in: u64,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"refresh_token": "kontor_rt_q3V0aGVudGljYXRlZC1yZWZyZXNoLXRva2VuLWV4YW1wbGU"}))]
pub struct RefreshRequest {
    pub refresh_token: String,
}

/// The checked registration: username and email in display form.
struct Registration {
    username: String,
    email: String,
}

fn invalid(field: &str, detail: String) -> ApiError {
    ApiError::unprocessable(ErrorCode::InvalidField, detail).with("field", field)
}

fn validate_registration(body: &RegisterRequest) -> Result<Registration, ApiError> {
    let username = identity::username(&body.username).map_err(|e| invalid("username", e.0))?;
    // Deleted accounts are shown under these names: nobody may pass for one, not even with
    // letters that look alike.
    if identity::looks_prefixed(&username, crate::service::accounts::DELETED_PREFIX) {
        return Err(invalid(
            "username",
            format!(
                "names beginning with {:?} are kept for deleted accounts",
                crate::service::accounts::DELETED_PREFIX
            ),
        ));
    }
    let email = identity::email(&body.email).map_err(|e| invalid("email", e.0))?;
    Ok(Registration { username, email })
}

/// Create an account.
#[utoipa::path(
    tag = "accounts",
    request_body = RegisterRequest,
    responses(
        (status = 201, description = "The account was created.", body = UserProfile),
        (status = 400, description = "Malformed JSON or wrong types.", body = super::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "`username_taken` or `email_taken`.", body = super::error::Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: the username, email or password is not acceptable.", body = super::error::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/register")]
pub async fn register(
    state: web::Data<AppState>,
    body: Json<RegisterRequest>,
) -> Result<Created<UserProfile>, ApiError> {
    let body = body.into_inner();
    let registration = validate_registration(&body)?;
    let password = body.password;
    let user_inputs = [registration.username.clone(), registration.email.clone()];
    // Judging the password and hashing it both take CPU time: off the async threads.
    let hash = web::block(move || -> Result<String, ApiError> {
        password::check_new(&password, &[&user_inputs[0], &user_inputs[1]])
            .map_err(|reason| invalid("password", reason))?;
        auth::hash_password(&password).map_err(ApiError::internal)
    })
    .await
    .map_err(ApiError::internal)??;
    let id = Uuid::now_v7();
    let language = body.language.unwrap_or_default();
    let new_user = users::NewUser {
        language: language.as_str(),
        id,
        username: &registration.username,
        email: &registration.email,
        password_hash: &hash,
    };
    // The account and its verification mail commit together: no account without its link.
    let mut tx = state.pool.begin().await?;
    let created_at = match users::insert(&mut *tx, &new_user).await {
        Ok(created_at) => created_at,
        Err(users::InsertError::UsernameTaken) => {
            return Err(ApiError::conflict(
                ErrorCode::UsernameTaken,
                format!(
                    "the username {:?} is taken, or one that looks like it (names are compared regardless of letter case and of letters that look alike)",
                    registration.username
                ),
            ));
        }
        Err(users::InsertError::EmailTaken) => {
            return Err(ApiError::conflict(
                ErrorCode::EmailTaken,
                "an account with this email address exists already",
            ));
        }
        Err(users::InsertError::Database(e)) => return Err(e.into()),
    };
    super::security::mail_verification_link(&state, &mut tx, id, &registration.email, false)
        .await?;
    tx.commit().await?;
    Ok(Created::at(
        "/me",
        UserProfile {
            id,
            username: registration.username,
            email: registration.email,
            created_at,
            email_verified: false,
            pending_email: None,
            display_name: None,
            language,
            time_zone: "UTC".to_string(),
        },
    ))
}

/// The longest identifier a login accepts (an email address has at most 254 bytes).
const LOGIN_IDENTIFIER_CHARS: usize = 254;

/// Log in with a username (or email) and password.
///
/// The username and email address are compared regardless of letter case and Unicode form.
/// Repeated failures for one account (by username and email address together) or one client
/// address are answered with 429 and `Retry-After` for the rest of the window. A failure never
/// says whether the account exists.
#[utoipa::path(
    tag = "accounts",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Logged in.", body = TokenPair),
        (status = 400, description = "Malformed JSON or wrong types.", body = super::error::Problem, content_type = "application/problem+json"),
        (status = 401, description = "`invalid_credentials`.", body = super::error::Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: a control character, or an over-long username or password.", body = super::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many failures; see `Retry-After`.", body = super::error::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/login")]
pub async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: Json<LoginRequest>,
) -> Result<Json<TokenPair>, ApiError> {
    let user_id = check_credentials(&state, &req, body.into_inner()).await?;
    let pair = issue_pair(&state, user_id, Uuid::now_v7(), user_agent(&req).as_deref()).await?;
    Ok(Json(pair))
}

/// The account a login names, if its password is right; failures are throttled (see
/// [`login`]). Shared by the token login and the browser's cookie session.
pub(super) async fn check_credentials(
    state: &AppState,
    req: &HttpRequest,
    body: LoginRequest,
) -> Result<Uuid, ApiError> {
    let identifier = text::line("username", &body.username, 1..=LOGIN_IDENTIFIER_CHARS)?;
    if body.password.len() > password::MAX_PASSWORD_BYTES {
        return Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            format!(
                "a password has at most {} bytes",
                password::MAX_PASSWORD_BYTES
            ),
        )
        .with("field", "password"));
    }
    let address = client_address(req);
    let config = &state.config;
    // The account first, so that its failures count together whether it was named by
    // username or by email address.
    let user = users::find_for_login(&state.pool, identifier).await?;
    let account = match &user {
        Some((id, _)) => throttle::Account::Known(*id),
        None => throttle::Account::Unknown(identifier),
    };
    let subjects = throttle::subjects(
        &account,
        address.as_deref(),
        config.login_max_failures,
        config.login_max_failures_per_address,
    );
    if let Err(wait) = throttle::check(&state.pool, &subjects, config.login_window).await? {
        return Err(ApiError::too_many_requests(
            wait,
            format!("too many failed logins; try again in {wait} seconds"),
        ));
    }
    let (user_id, hash) = match user {
        Some((id, hash)) => (Some(id), hash),
        None => (None, auth::DUMMY_PASSWORD_HASH.clone()),
    };
    let password = body.password;
    let password_ok = web::block(move || auth::verify_password(&hash, &password))
        .await
        .map_err(ApiError::internal)?;
    let Some(user_id) = user_id.filter(|_| password_ok) else {
        throttle::record_failure(&state.pool, &subjects, config.login_window).await?;
        return Err(ApiError::unauthorized(
            ErrorCode::InvalidCredentials,
            "the username or password is wrong",
        ));
    };
    throttle::clear(&state.pool, &subjects[0].0).await?;
    Ok(user_id)
}

/// The longest client description kept of a login (its `User-Agent`).
const USER_AGENT_CHARS: usize = 200;

/// The client a login comes from, as its `User-Agent` says (truncated, control characters
/// dropped), for the account's list of logins.
pub(super) fn user_agent(req: &HttpRequest) -> Option<String> {
    let value = req.headers().get(actix_web::http::header::USER_AGENT)?;
    let text = String::from_utf8_lossy(value.as_bytes());
    let clean: String = text
        .chars()
        .filter(|c| !c.is_control())
        .take(USER_AGENT_CHARS)
        .collect();
    let clean = clean.trim().to_string();
    (!clean.is_empty()).then_some(clean)
}

/// A new access token and a new refresh token in the same family (login); the login is
/// recorded (with `user_agent` when it is new) as used now.
pub(super) async fn issue_pair(
    state: &AppState,
    user_id: Uuid,
    family: Uuid,
    user_agent: Option<&str>,
) -> Result<TokenPair, ApiError> {
    let refresh_token = auth::random_token(REFRESH_PREFIX);
    let ttl = state.config.refresh_token_ttl;
    let hash = auth::token_hash(&refresh_token);
    let mut tx = state.pool.begin().await?;
    tokens::insert_refresh_token(&mut *tx, user_id, family, &hash, ttl).await?;
    sessions::touch(&mut *tx, family, user_id, user_agent).await?;
    tx.commit().await?;
    Ok(TokenPair {
        access_token: state.jwt.issue_for_session(user_id, family)?,
        token_type: "Bearer",
        expires_in: state.jwt.ttl().as_secs(),
        refresh_token,
        refresh_expires_in: ttl.as_secs(),
    })
}

pub(super) fn invalid_refresh() -> ApiError {
    ApiError::unauthorized(
        ErrorCode::InvalidToken,
        "this refresh token is unknown, expired or already used; log in again",
    )
}

/// Exchange a refresh token for a new pair (the old refresh token stops working).
///
/// A refresh token used a second time revokes every token of its login: someone else may
/// hold a copy.
#[utoipa::path(
    tag = "accounts",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "A new token pair.", body = TokenPair),
        (status = 401, description = "`invalid_token` or `wrong_token_type`.", body = super::error::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    body: Json<RefreshRequest>,
) -> Result<Json<TokenPair>, ApiError> {
    Ok(Json(
        rotate(&state, &body.into_inner().refresh_token).await?,
    ))
}

/// Spends a refresh token for a new pair of the same login (see [`refresh`]).
pub(super) async fn rotate(state: &AppState, token: &str) -> Result<TokenPair, ApiError> {
    if !token.starts_with(REFRESH_PREFIX) {
        return Err(ApiError::unauthorized(
            ErrorCode::WrongTokenType,
            "this is not a refresh token (they start with kontor_rt_)",
        ));
    }
    let mut tx = state.pool.begin().await?;
    let Some(stored) = tokens::lock_refresh_token(&mut tx, &auth::token_hash(token)).await? else {
        return Err(invalid_refresh());
    };
    let user_id = stored.user_id;
    if stored.revoked {
        // Reuse of a spent token: end the whole login.
        tokens::revoke_refresh_family(&mut *tx, stored.family_id).await?;
        tx.commit().await?;
        state.known_users.forget_login(stored.family_id);
        tracing::warn!(%user_id, "a spent refresh token was reused; its login is revoked");
        return Err(invalid_refresh());
    }
    if stored.expired {
        return Err(invalid_refresh());
    }
    tokens::revoke_refresh_token(&mut *tx, stored.id).await?;
    tx.commit().await?;
    issue_pair(state, user_id, stored.family_id, None).await
}

/// Log out: revoke the refresh token (and every token of the same login).
#[utoipa::path(
    tag = "accounts",
    request_body = RefreshRequest,
    responses(
        (status = 204, description = "Logged out. Access tokens issued to the login stop working too (on other instances of the server within a minute)."),
        (status = 401, description = "`invalid_token`: unknown refresh token.", body = super::error::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/logout")]
pub async fn logout(
    state: web::Data<AppState>,
    body: Json<RefreshRequest>,
) -> Result<HttpResponse, ApiError> {
    end_login(&state, &body.into_inner().refresh_token).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Revokes every refresh token of the login `token` belongs to.
pub(super) async fn end_login(state: &AppState, token: &str) -> Result<(), ApiError> {
    let family = tokens::refresh_token_family(&state.pool, &auth::token_hash(token)).await?;
    let Some(family) = family else {
        return Err(invalid_refresh());
    };
    tokens::revoke_refresh_family(&state.pool, family).await?;
    state.known_users.forget_login(family);
    Ok(())
}

/// The caller's account.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The account.", body = UserProfile),
        (status = 401, description = "No or bad credentials.", body = super::error::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me")]
pub async fn me(state: web::Data<AppState>, caller: Caller) -> Result<Json<UserProfile>, ApiError> {
    Ok(Json(profile_of(&state, caller.user_id).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "my bot", "scopes": ["game:read", "game:play"], "expires_in_days": 90}))]
pub struct CreateTokenRequest {
    /// A name to recognise the token by.
    pub name: String,
    /// `game:read` and/or `game:play`.
    pub scopes: Vec<String>,
    /// Days until the token expires; absent = never.
    pub expires_in_days: Option<u32>,
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d", "name": "my bot", "prefix": "kontor_pat_Ab3d", "scopes": ["game:read", "game:play"], "created_at": "2026-11-29T12:00:00Z", "expires_at": null, "last_used_at": null}))]
pub struct ApiTokenInfo {
    pub id: Uuid,
    pub name: String,
    /// The first characters of the token.
    pub prefix: String,
    pub scopes: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
}

impl From<tokens::ApiTokenRow> for ApiTokenInfo {
    fn from(row: tokens::ApiTokenRow) -> Self {
        Self {
            id: row.id,
            name: row.name,
            prefix: row.prefix,
            scopes: row.scopes,
            created_at: row.created_at,
            expires_at: row.expires_at,
            last_used_at: row.last_used_at,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct CreatedApiToken {
    #[serde(flatten)]
    pub info: ApiTokenInfo,
    /// The token itself. It is shown this once; only its hash is kept.
    #[schema(example = "kontor_pat_Ab3dZ0Jv4c2F0ZWQtYXBpLXRva2VuLWV4YW1wbGUtdmFsdWU")]
    pub token: String,
}

/// Create an API token for a bot or tool. The token is shown once.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = CreateTokenRequest,
    responses(
        (status = 201, description = "The token, shown this once.", body = CreatedApiToken),
        (status = 403, description = "`session_required`: API tokens cannot make tokens.", body = super::error::Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: unknown scope, empty name.", body = super::error::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/tokens")]
pub async fn create_token(
    state: web::Data<AppState>,
    caller: Caller,
    body: Json<CreateTokenRequest>,
) -> Result<Created<CreatedApiToken>, ApiError> {
    caller.require_session()?;
    let body = body.into_inner();
    let name = text::line("name", &body.name, 1..=100)?;
    if body.scopes.is_empty() {
        return Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            "name at least one scope: game:read, game:play",
        )
        .with("field", "scopes"));
    }
    let mut scopes = Vec::new();
    for scope in &body.scopes {
        let Some(scope) = Scope::parse(scope) else {
            return Err(ApiError::unprocessable(
                ErrorCode::InvalidField,
                format!("unknown scope {scope:?}; known scopes: game:read, game:play"),
            )
            .with("field", "scopes"));
        };
        if !scopes.contains(&scope.as_str().to_string()) {
            scopes.push(scope.as_str().to_string());
        }
    }
    if body.expires_in_days == Some(0) || body.expires_in_days.is_some_and(|d| d > 3650) {
        return Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            "expires_in_days is between 1 and 3650",
        )
        .with("field", "expires_in_days"));
    }
    let token = auth::random_token(API_TOKEN_PREFIX);
    let prefix: String = token.chars().take(API_TOKEN_PREFIX.len() + 4).collect();
    let new = tokens::NewApiToken {
        user_id: caller.user_id,
        name,
        token_hash: &auth::token_hash(&token),
        prefix: &prefix,
        scopes: &scopes,
        expires_in_days: body.expires_in_days,
    };
    let info: ApiTokenInfo = tokens::insert_api_token(&state.pool, &new).await?.into();
    Ok(Created::at(
        format!("/me/tokens/{}", info.id),
        CreatedApiToken { info, token },
    ))
}

#[derive(Serialize, ToSchema)]
pub struct ApiTokenList {
    pub items: Vec<ApiTokenInfo>,
}

/// The caller's API tokens that are not revoked (the tokens themselves are never shown again).
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The tokens.", body = ApiTokenList),
        (status = 403, description = "`session_required`.", body = super::error::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/tokens")]
pub async fn list_tokens(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<ApiTokenList>, ApiError> {
    caller.require_session()?;
    let items = tokens::list_api_tokens(&state.pool, caller.user_id)
        .await?
        .into_iter()
        .map(ApiTokenInfo::from)
        .collect();
    Ok(Json(ApiTokenList { items }))
}

/// Revoke an API token; it stops working at once.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    params(("token_id" = Uuid, Path, description = "The token's id.")),
    responses(
        (status = 204, description = "Revoked."),
        (status = 403, description = "`session_required`.", body = super::error::Problem, content_type = "application/problem+json"),
        (status = 404, description = "`token_not_found`.", body = super::error::Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/tokens/{token_id}")]
pub async fn revoke_token(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    let revoked = tokens::revoke_api_token(&state.pool, caller.user_id, path.into_inner()).await?;
    if !revoked {
        return Err(ApiError::not_found(
            ErrorCode::TokenNotFound,
            "you have no active API token with this id",
        ));
    }
    Ok(HttpResponse::NoContent().finish())
}
