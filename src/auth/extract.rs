//! The `Caller` extractor: who is calling, with which credential.

use super::{API_TOKEN_PREFIX, REFRESH_PREFIX, Scope, TokenError, token_hash};
use crate::http::AppState;
use crate::http::error::ApiError;
use actix_web::{FromRequest, HttpRequest, dev::Payload, http::header, web};
use futures_util::future::LocalBoxFuture;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How the caller authenticated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credential {
    /// An access token from a login: may do everything the account may.
    Session,
    /// An API token, limited to its scopes.
    ApiToken { id: Uuid, scopes: Vec<Scope> },
}

/// An authenticated caller.
#[derive(Clone, Debug)]
pub struct Caller {
    pub user_id: Uuid,
    pub credential: Credential,
}

impl Caller {
    /// Refuses API tokens without `scope`.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        match &self.credential {
            Credential::Session => Ok(()),
            Credential::ApiToken { scopes, .. } if scopes.contains(&scope) => Ok(()),
            Credential::ApiToken { .. } => Err(ApiError::forbidden(
                "insufficient_scope",
                format!("this API token lacks the scope {}", scope.as_str()),
            )
            .with("required_scope", scope.as_str())),
        }
    }

    /// Refuses API tokens altogether (account and token management).
    pub fn require_session(&self) -> Result<(), ApiError> {
        match self.credential {
            Credential::Session => Ok(()),
            Credential::ApiToken { .. } => Err(ApiError::forbidden(
                "session_required",
                "this needs a logged-in user's access token, not an API token",
            )),
        }
    }
}

/// The bearer token of a request, or why there is none.
pub fn bearer_token(req: &HttpRequest) -> Result<&str, ApiError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Err(ApiError::unauthorized(
            "unauthenticated",
            "send an access token or API token as `Authorization: Bearer <token>`",
        ));
    };
    let value = value.to_str().unwrap_or("");
    let Some((scheme, token)) = value.split_once(' ') else {
        return Err(ApiError::unauthorized(
            "unauthenticated",
            "the Authorization header must be `Bearer <token>`",
        ));
    };
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Err(ApiError::unauthorized(
            "unauthenticated",
            "the Authorization header must be `Bearer <token>`",
        ));
    }
    Ok(token.trim())
}

/// Authenticates a bearer token.
pub async fn authenticate(state: &AppState, token: &str) -> Result<Caller, ApiError> {
    if token.starts_with(REFRESH_PREFIX) {
        return Err(ApiError::unauthorized(
            "wrong_token_type",
            "this is a refresh token; exchange it at /api/v1/auth/refresh for an access token",
        ));
    }
    if token.starts_with(API_TOKEN_PREFIX) {
        return authenticate_api_token(state, token).await;
    }
    match state.jwt.verify(token) {
        Ok(user_id) => {
            ensure_user_exists(state, user_id).await?;
            Ok(Caller {
                user_id,
                credential: Credential::Session,
            })
        }
        Err(TokenError::Expired) => Err(ApiError::unauthorized(
            "token_expired",
            "the access token has expired; get a new one with your refresh token",
        )),
        Err(TokenError::Invalid) => Err(ApiError::unauthorized(
            "invalid_token",
            "the access token is malformed or its signature does not match",
        )),
    }
}

/// How many user ids an instance remembers as existing.
const KNOWN_USERS_CAPACITY: usize = 100_000;
/// How long a user once found is trusted to exist without looking again.
const KNOWN_USER_TTL: Duration = Duration::from_secs(60);

/// Users this instance has recently found in the database.
///
/// A validly signed access token only proves that its user existed when it was issued: the
/// account may be gone since (removed by hand, or a database restored from an older backup
/// under the same JWT secret). Every handler takes the caller's id on trust, and those that
/// write rows keyed by it would fail on a foreign key with a 500, so the extractor checks that
/// the user exists, for every endpoint at once. Kontor itself never deletes users, so a user
/// found once is remembered for a while and a steady player costs one primary-key lookup a
/// minute instead of one per request (an action is otherwise often no read at all). The time
/// bound keeps a removed account's tokens from passing for more than a minute.
#[derive(Default)]
pub struct KnownUsers {
    seen: Mutex<HashMap<Uuid, Instant>>,
}

impl KnownUsers {
    fn contains(&self, user: Uuid) -> bool {
        let seen = self
            .seen
            .lock()
            .expect("the known-users lock is never poisoned");
        seen.get(&user)
            .is_some_and(|found| found.elapsed() < KNOWN_USER_TTL)
    }

    fn insert(&self, user: Uuid) {
        let mut seen = self
            .seen
            .lock()
            .expect("the known-users lock is never poisoned");
        if seen.len() >= KNOWN_USERS_CAPACITY && !seen.contains_key(&user) {
            seen.retain(|_, found| found.elapsed() < KNOWN_USER_TTL);
            if seen.len() >= KNOWN_USERS_CAPACITY {
                // Bounded memory: forgetting only costs a lookup each.
                seen.clear();
            }
        }
        seen.insert(user, Instant::now());
    }
}

/// Refuses an access token whose user no longer exists (see [`KnownUsers`]).
async fn ensure_user_exists(state: &AppState, user: Uuid) -> Result<(), ApiError> {
    if state.known_users.contains(user) {
        return Ok(());
    }
    if !crate::store::users::exists(&state.pool, user).await? {
        return Err(ApiError::unauthorized(
            "invalid_token",
            "the account of this access token no longer exists",
        ));
    }
    state.known_users.insert(user);
    Ok(())
}

/// API tokens need no such check: the token's row is read anyway, and it references its user
/// by a foreign key, so a token row always has its user.
async fn authenticate_api_token(state: &AppState, token: &str) -> Result<Caller, ApiError> {
    let row: Option<(Uuid, Uuid, Vec<String>)> = sqlx::query_as(
        "UPDATE api_tokens SET last_used_at = now()
          WHERE token_hash = $1 AND revoked_at IS NULL
            AND (expires_at IS NULL OR expires_at > now())
        RETURNING id, user_id, scopes",
    )
    .bind(token_hash(token))
    .fetch_optional(&state.pool)
    .await?;
    let Some((id, user_id, scopes)) = row else {
        return Err(ApiError::unauthorized(
            "invalid_token",
            "this API token is unknown, revoked or expired",
        ));
    };
    Ok(Caller {
        user_id,
        credential: Credential::ApiToken {
            id,
            scopes: scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
        },
    })
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().cloned();
        let token = bearer_token(req).map(str::to_string);
        Box::pin(async move {
            let state = state.ok_or_else(|| ApiError::internal(anyhow::anyhow!("no app state")))?;
            authenticate(&state, &token?).await
        })
    }
}
