//! Accounts: register, login, refresh, logout, me, API tokens. Verification, password reset
//! and change, change of address and the list of logins are in `security`. What they do is
//! `service::signin`'s; here each request is read, handed on and answered.

use crate::auth::{Scope, password};
use crate::http::error::{ApiError, ErrorCode, Unauthenticated};
use crate::http::extract::caller::Caller;
use crate::http::extract::text;
use crate::http::extract::text::Json;
use crate::http::middleware::forwarded::client_address;
use crate::http::state::{AppState, Created};
use crate::service::accounts::profile::{self, UserProfile};
use crate::service::accounts::signin::{self, Accounts, ApiTokenList, CreatedApiToken, NewAccount};
use crate::text::identity;
use crate::words::language::Language;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

pub use crate::service::accounts::signin::TokenPair;

impl AppState {
    /// What the account flows of the service reach, from this server's state.
    pub fn accounts(&self) -> Accounts<'_> {
        Accounts {
            pool: &self.pool,
            config: &self.config,
            jwt: &self.jwt,
            known_users: &self.known_users,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "anna", "email": "anna@example.org", "password": "correct horse battery"}))]
pub struct RegisterRequest {
    /// 3–32 characters: letters (any script), digits, `_` and `-`; no spaces or invisible
    /// characters. Unique regardless of letter case and Unicode form (`straße` = `STRASSE`).
    #[schema(min_length = 3, max_length = 32)]
    pub username: String,
    /// Unique regardless of letter case and Unicode form.
    // The server checks the shape only (one `@`, a dotted domain), in any script.
    #[schema(format = IdnEmail)]
    pub email: String,
    /// 8–128 characters, and not easy to guess: common passwords, keyboard patterns,
    /// repeats and the username or email address are refused (zxcvbn score ≥ 3 of 4).
    #[schema(min_length = 8)]
    pub password: String,
    /// The language of the mails (`en`, the default, or `ja`); changed later with
    /// `PUT /me/profile`.
    pub language: Option<Language>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "anna", "password": "correct horse battery"}))]
pub struct LoginRequest {
    /// The username or the email address.
    #[schema(min_length = 1, max_length = 254)]
    pub username: String,
    pub password: String,
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
    if identity::looks_prefixed(
        &username,
        crate::service::accounts::deletion::DELETED_PREFIX,
    ) {
        return Err(invalid(
            "username",
            format!(
                "names beginning with {:?} are kept for deleted accounts",
                crate::service::accounts::deletion::DELETED_PREFIX
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
        (status = 400, description = "Malformed JSON or wrong types.", body = crate::http::error::Problem, content_type = "application/problem+json"),
        (status = 409, description = "`username_taken` or `email_taken`.", body = crate::http::error::Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: the username, email or password is not acceptable.", body = crate::http::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_registrations` (from this client address this hour: `KONTOR_REGISTRATIONS_PER_ADDRESS`) or `too_many_mails_to_address` (the address was sent the most verification links a day: `KONTOR_VERIFY_MAILS_PER_ADDRESS`); see `Retry-After`. No account is made.", body = crate::http::error::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/register")]
pub async fn register(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: Json<RegisterRequest>,
) -> Result<Created<UserProfile>, ApiError> {
    let body = body.into_inner();
    let registration = validate_registration(&body)?;
    let new = NewAccount {
        username: registration.username,
        email: registration.email,
        password: body.password,
        language: body.language.unwrap_or_default(),
    };
    let address = client_address(&req);
    let profile = signin::register(state.accounts(), new, address.as_deref()).await?;
    Ok(Created::at("/me", profile))
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
        (status = 400, description = "Malformed JSON or wrong types.", body = crate::http::error::Problem, content_type = "application/problem+json"),
        (status = 401, description = "`invalid_credentials`.", body = crate::http::error::Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: a control character, or an over-long username or password.", body = crate::http::error::Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: too many failures; see `Retry-After`.", body = crate::http::error::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/login")]
pub async fn login(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: Json<LoginRequest>,
) -> Result<Json<TokenPair>, ApiError> {
    let user_id = check_credentials(&state, &req, body.into_inner()).await?;
    let pair = issue_pair(
        &state,
        user_id,
        Uuid::now_v7(),
        crate::http::extract::headers::user_agent(&req).as_deref(),
    )
    .await?;
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
    let accounts = state.accounts();
    Ok(signin::check_credentials(accounts, identifier, body.password, address.as_deref()).await?)
}

/// A new token pair of the login `family` (see `signin::issue_pair`).
pub(super) async fn issue_pair(
    state: &AppState,
    user_id: Uuid,
    family: Uuid,
    user_agent: Option<&str>,
) -> Result<TokenPair, ApiError> {
    Ok(signin::issue_pair(state.accounts(), user_id, family, user_agent).await?)
}

/// Exchange a refresh token for a new pair (the old refresh token stops working).
///
/// A refresh token used a second time revokes every token of its login: someone else may
/// hold a copy. Only within 15 seconds of its refresh, while the login stands, is it taken
/// once more as the same client's (which never received the new pair, say a page left
/// mid-refresh) and answered with another new pair.
#[utoipa::path(
    tag = "accounts",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "A new token pair.", body = TokenPair),
        (status = 401, description = "`invalid_token` or `wrong_token_type`.", body = crate::http::error::Problem, content_type = "application/problem+json"),
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
    Ok(signin::rotate(state.accounts(), token).await?)
}

/// Log out: revoke the refresh token (and every token of the same login).
#[utoipa::path(
    tag = "accounts",
    request_body = RefreshRequest,
    responses(
        (status = 204, description = "Logged out. Access tokens issued to the login stop working too (on other instances of the server within a minute)."),
        (status = 401, description = "`invalid_token`: unknown refresh token.", body = crate::http::error::Problem, content_type = "application/problem+json"),
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
    Ok(signin::end_login(state.accounts(), token).await?)
}

/// The caller's account.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The account.", body = UserProfile),
        Unauthenticated,
    )
)]
#[get("/me")]
pub async fn me(state: web::Data<AppState>, caller: Caller) -> Result<Json<UserProfile>, ApiError> {
    Ok(Json(
        profile::profile_of(state.accounts(), caller.user_id).await?,
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "my bot", "scopes": ["game:read", "game:play"], "expires_in_days": 90}))]
pub struct CreateTokenRequest {
    /// A name to recognise the token by.
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    /// `game:read` and/or `game:play`, and `webhooks` (manage the account's webhooks).
    pub scopes: Vec<String>,
    /// Days until the token expires; absent = never.
    #[schema(minimum = 1, maximum = 3650)]
    pub expires_in_days: Option<u32>,
}

/// Create an API token for a bot or tool. The token is shown once.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = CreateTokenRequest,
    responses(
        (status = 201, description = "The token, shown this once.", body = CreatedApiToken),
        (status = 403, description = "`session_required`: API tokens cannot make tokens.", body = crate::http::error::Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_field`: unknown scope, empty name.", body = crate::http::error::Problem, content_type = "application/problem+json"),
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
        scopes.push(scope);
    }
    if body.expires_in_days == Some(0) || body.expires_in_days.is_some_and(|d| d > 3650) {
        return Err(ApiError::unprocessable(
            ErrorCode::InvalidField,
            "expires_in_days is between 1 and 3650",
        )
        .with("field", "expires_in_days"));
    }
    let created = signin::create_api_token(
        &state.pool,
        caller.user_id,
        name,
        &scopes,
        body.expires_in_days,
    )
    .await?;
    Ok(Created::at(
        format!("/me/tokens/{}", created.info.id),
        created,
    ))
}

/// The caller's API tokens that are not revoked (the tokens themselves are never shown again).
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The tokens.", body = ApiTokenList),
        (status = 403, description = "`session_required`.", body = crate::http::error::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/tokens")]
pub async fn list_tokens(
    state: web::Data<AppState>,
    caller: Caller,
) -> Result<Json<ApiTokenList>, ApiError> {
    caller.require_session()?;
    Ok(Json(signin::api_tokens(&state.pool, caller.user_id).await?))
}

/// Revoke an API token; it stops working at once.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    params(("token_id" = Uuid, Path, description = "The token's id.")),
    responses(
        (status = 204, description = "Revoked."),
        (status = 403, description = "`session_required`.", body = crate::http::error::Problem, content_type = "application/problem+json"),
        (status = 404, description = "`token_not_found`.", body = crate::http::error::Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/tokens/{token_id}")]
pub async fn revoke_token(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    caller.require_session()?;
    signin::revoke_api_token(&state.pool, caller.user_id, path.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
