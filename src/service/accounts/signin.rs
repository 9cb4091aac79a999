//! Accounts and their credentials: registration, login, the rotating refresh tokens of a
//! login, logout, and API tokens. Verification, password reset and change, change of address
//! and the list of logins are in [`security`](super::security); the profile, blocks, the
//! export and deletion in [`profile`](super::profile).

use super::error::AccountError;
use super::profile::UserProfile;
use crate::auth::credentials::KnownUsers;
use crate::auth::{self, API_TOKEN_PREFIX, JwtKeys, REFRESH_PREFIX, Scope, password, throttle};
use crate::config::Config;
use crate::store::{sessions, tokens, users};
use crate::words::language::Language;
use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use std::time::Duration;
use utoipa::ToSchema;
use uuid::Uuid;

/// What the account flows reach: the database, the settings (the clock, the links'
/// lifetimes, the throttles), the access tokens' keys and the cache of users known to exist.
#[derive(Clone, Copy)]
pub struct Accounts<'a> {
    pub pool: &'a PgPool,
    pub config: &'a Config,
    pub jwt: &'a JwtKeys,
    pub known_users: &'a KnownUsers,
}

/// A registration whose username and address are checked (in display form).
pub struct NewAccount {
    pub username: String,
    pub email: String,
    pub password: String,
    pub language: Language,
}

/// Judges a new password against the account's names and hashes it, off the async threads
/// (both take CPU time). `field` names the member it came in.
pub(super) async fn new_password_hash(
    field: &'static str,
    new: String,
    names: [String; 2],
) -> Result<String, AccountError> {
    tokio::task::spawn_blocking(move || -> Result<String, AccountError> {
        password::check_new(&new, &[&names[0], &names[1]])
            .map_err(|reason| AccountError::invalid_field(field, reason))?;
        auth::hash_password(&new).map_err(AccountError::internal)
    })
    .await?
}

/// The window of `KONTOR_REGISTRATIONS_PER_ADDRESS`.
const REGISTRATION_WINDOW: Duration = Duration::from_secs(3_600);
// Housekeeping forgets `mail:` counters a day after their window began.
const _: () = assert!(REGISTRATION_WINDOW.as_secs() <= throttle::LONGEST_MAIL_WINDOW.as_secs());

/// Creates an account; its verification mail is queued in the same transaction (no account
/// without its link). Accounts registered from one client `address` an hour are limited:
/// each mails the address typed, and accounts are what the other limits are per.
pub async fn register(
    accounts: Accounts<'_>,
    new: NewAccount,
    address: Option<&str>,
) -> Result<UserProfile, AccountError> {
    let most = accounts.config.limits.registrations_per_address_hour;
    // A `mail:` subject: each registration mails (housekeeping keeps such counters a day).
    let per_address = address.map(|address| throttle::Limit {
        subject: format!("mail:register:ip:{address}"),
        limit: most,
        window: REGISTRATION_WINDOW,
    });
    let refused = |wait| AccountError::TooManyRegistrations { limit: most, wait };
    // Looked at before the password is judged and hashed, which take CPU time; counted only
    // with the account created, below (a refused registration counts nothing).
    if let Some(limit) = &per_address {
        let subjects = [(limit.subject.clone(), limit.limit)];
        if let Err(wait) = throttle::check(accounts.pool, &subjects, limit.window).await? {
            return Err(refused(wait));
        }
    }
    let names = [new.username.clone(), new.email.clone()];
    let hash = new_password_hash("password", new.password, names).await?;
    let id = Uuid::now_v7();
    let new_user = users::NewUser {
        language: new.language.as_str(),
        id,
        username: &new.username,
        email: &new.email,
        password_hash: &hash,
    };
    let mut tx = accounts.pool.begin().await?;
    let created_at = match users::insert(&mut *tx, &new_user).await {
        Ok(created_at) => created_at,
        Err(users::InsertError::UsernameTaken) => {
            return Err(AccountError::UsernameTaken(new.username));
        }
        Err(users::InsertError::EmailTaken) => return Err(AccountError::EmailTaken),
        Err(users::InsertError::Database(e)) => return Err(e.into()),
    };
    if let Some(limit) = per_address
        && let Err(wait) = throttle::take(&mut tx, &[limit]).await?
    {
        return Err(refused(wait));
    }
    super::security::mail_verification_link(accounts.config, &mut tx, id, &new.email, false)
        .await?;
    tx.commit().await?;
    Ok(UserProfile {
        id,
        username: new.username,
        email: new.email,
        created_at,
        email_verified: false,
        pending_email: None,
        display_name: None,
        language: new.language,
        time_zone: "UTC".to_string(),
        admin: false,
    })
}

/// The account a login names (`identifier`: its username or address), if `password` is
/// right. Failures are throttled per account, whichever identifier named it, and per client
/// `address`; a failure never says whether the account exists.
pub async fn check_credentials(
    accounts: Accounts<'_>,
    identifier: &str,
    password: String,
    address: Option<&str>,
) -> Result<Uuid, AccountError> {
    let config = accounts.config;
    let pool = accounts.pool;
    // The account first, so that its failures count together whether it was named by
    // username or by email address.
    let user = users::find_for_login(pool, identifier).await?;
    let account = match &user {
        Some((id, _)) => throttle::Account::Known(*id),
        None => throttle::Account::Unknown(identifier),
    };
    let subjects = throttle::subjects(
        &account,
        address,
        config.login_max_failures,
        config.login_max_failures_per_address,
    );
    if let Err(wait) = throttle::check(pool, &subjects, config.login_window).await? {
        return Err(AccountError::RateLimited {
            wait,
            detail: format!("too many failed logins; try again in {wait} seconds"),
        });
    }
    let (user_id, hash) = match user {
        Some((id, hash)) => (Some(id), hash),
        None => (None, auth::DUMMY_PASSWORD_HASH.clone()),
    };
    let password_ok =
        tokio::task::spawn_blocking(move || auth::verify_password(&hash, &password)).await?;
    let Some(user_id) = user_id.filter(|_| password_ok) else {
        throttle::record_failure(pool, &subjects, config.login_window).await?;
        return Err(AccountError::InvalidCredentials);
    };
    throttle::clear(pool, &subjects[0].0).await?;
    Ok(user_id)
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

/// A new access token and a new refresh token in the same family (login); the login is
/// recorded (with `user_agent` when it is new) as used now.
pub async fn issue_pair(
    accounts: Accounts<'_>,
    user_id: Uuid,
    family: Uuid,
    user_agent: Option<&str>,
) -> Result<TokenPair, AccountError> {
    let refresh_token = auth::random_token(REFRESH_PREFIX);
    let ttl = accounts.config.refresh_token_ttl;
    let hash = auth::token_hash(&refresh_token);
    let mut tx = accounts.pool.begin().await?;
    tokens::insert_refresh_token(&mut *tx, user_id, family, &hash, ttl).await?;
    sessions::touch(&mut *tx, family, user_id, user_agent).await?;
    tx.commit().await?;
    Ok(TokenPair {
        access_token: accounts.jwt.issue_for_session(user_id, family)?,
        token_type: "Bearer",
        expires_in: accounts.jwt.ttl().as_secs(),
        refresh_token,
        refresh_expires_in: ttl.as_secs(),
    })
}

/// How long after a refresh its spent token is still taken, once more, as the same browser's.
/// A page reloaded or left while its refresh was under way never receives the new token (the
/// answer, and its cookie, are dropped with the page), and its next load sends the spent one
/// again; without this grace that ends the player's login. Long enough for a reload on a slow
/// connection, short against a thief: a copy used later ends the login, as before.
pub const REFRESH_REUSE_GRACE: std::time::Duration = std::time::Duration::from_secs(15);

/// Spends a refresh token for a new pair of the same login. A refresh token used a second
/// time revokes every token of its login: someone else may hold a copy. Within
/// [`REFRESH_REUSE_GRACE`] of its refresh, while the login stands, it gets another new pair
/// (the pair its first use made stays valid too).
pub async fn rotate(accounts: Accounts<'_>, token: &str) -> Result<TokenPair, AccountError> {
    if !token.starts_with(REFRESH_PREFIX) {
        return Err(AccountError::NotARefreshToken);
    }
    let mut tx = accounts.pool.begin().await?;
    let hash = auth::token_hash(token);
    let Some(stored) = tokens::lock_refresh_token(&mut tx, &hash, REFRESH_REUSE_GRACE).await?
    else {
        return Err(AccountError::InvalidRefreshToken);
    };
    let user_id = stored.user_id;
    if stored.revoked && stored.rotated_within_grace && !stored.expired {
        tx.commit().await?;
        tracing::info!(%user_id, "a refresh token spent moments ago came again (a page left mid-refresh); a new pair is issued");
        return issue_pair(accounts, user_id, stored.family_id, None).await;
    }
    if stored.revoked {
        // Reuse of a spent token: end the whole login.
        tokens::revoke_refresh_family(&mut *tx, stored.family_id).await?;
        tx.commit().await?;
        accounts.known_users.forget_login(stored.family_id);
        tracing::warn!(%user_id, "a spent refresh token was reused; its login is revoked");
        return Err(AccountError::InvalidRefreshToken);
    }
    if stored.expired {
        return Err(AccountError::InvalidRefreshToken);
    }
    tokens::revoke_refresh_token(&mut *tx, stored.id).await?;
    tx.commit().await?;
    issue_pair(accounts, user_id, stored.family_id, None).await
}

/// Revokes every refresh token of the login `token` belongs to.
pub async fn end_login(accounts: Accounts<'_>, token: &str) -> Result<(), AccountError> {
    let family = tokens::refresh_token_family(accounts.pool, &auth::token_hash(token)).await?;
    let Some(family) = family else {
        return Err(AccountError::InvalidRefreshToken);
    };
    tokens::revoke_refresh_family(accounts.pool, family).await?;
    accounts.known_users.forget_login(family);
    Ok(())
}

// ---------------------------------------------------------------------------------------
// API tokens

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

#[derive(Serialize, ToSchema)]
pub struct ApiTokenList {
    pub items: Vec<ApiTokenInfo>,
}

/// A new API token of `user` named `name` with `scopes` (checked), for `expires_in_days`
/// (absent: never expires).
pub async fn create_api_token(
    pool: &PgPool,
    user: Uuid,
    name: &str,
    scopes: &[Scope],
    expires_in_days: Option<u32>,
) -> Result<CreatedApiToken, AccountError> {
    let mut names: Vec<String> = Vec::new();
    for scope in scopes {
        if !names.iter().any(|s| s == scope.as_str()) {
            names.push(scope.as_str().to_string());
        }
    }
    let token = auth::random_token(API_TOKEN_PREFIX);
    let prefix: String = token.chars().take(API_TOKEN_PREFIX.len() + 4).collect();
    let new = tokens::NewApiToken {
        user_id: user,
        name,
        token_hash: &auth::token_hash(&token),
        prefix: &prefix,
        scopes: &names,
        expires_in_days,
    };
    let info: ApiTokenInfo = tokens::insert_api_token(pool, &new).await?.into();
    Ok(CreatedApiToken { info, token })
}

/// The API tokens of `user` that are not revoked.
pub async fn api_tokens(pool: &PgPool, user: Uuid) -> Result<ApiTokenList, AccountError> {
    let items = tokens::list_api_tokens(pool, user)
        .await?
        .into_iter()
        .map(ApiTokenInfo::from)
        .collect();
    Ok(ApiTokenList { items })
}

/// Revokes one API token of `user`; it stops working at once.
pub async fn revoke_api_token(pool: &PgPool, user: Uuid, id: Uuid) -> Result<(), AccountError> {
    if !tokens::revoke_api_token(pool, user, id).await? {
        return Err(AccountError::TokenNotFound);
    }
    Ok(())
}
