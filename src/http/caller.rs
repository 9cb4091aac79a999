//! The `Caller` extractor: who is calling, with which credential. The checks themselves
//! (signatures, token rows, whether the account still exists) are `auth::credentials`'; this
//! is where a request's `Authorization` header meets them, and where scopes are enforced.

use super::AppState;
use super::error::{ApiError, ErrorCode};
use crate::auth::Scope;
use crate::auth::credentials::{self, Credential, Identity};
use actix_web::{FromRequest, HttpRequest, dev::Payload, http::header, web};
use futures_util::future::LocalBoxFuture;
use uuid::Uuid;

/// An authenticated caller.
#[derive(Clone, Debug)]
pub struct Caller {
    pub user_id: Uuid,
    pub credential: Credential,
    /// The login an access token was issued for (see `auth::AccessClaims::sid`).
    pub session: Option<Uuid>,
}

impl From<Identity> for Caller {
    fn from(identity: Identity) -> Self {
        Self {
            user_id: identity.user_id,
            credential: identity.credential,
            session: identity.session,
        }
    }
}

impl Caller {
    /// Whether the credential this caller authenticated with still stands (see
    /// `credentials::still_stands`): `false` once the login was ended, the API token revoked
    /// or the account deleted. A database that cannot answer is no reason to say no.
    pub async fn still_stands(&self, state: &AppState) -> bool {
        let identity = Identity {
            user_id: self.user_id,
            credential: self.credential.clone(),
            session: self.session,
        };
        match credentials::still_stands(&state.pool, &state.known_users, &identity).await {
            Ok(()) => true,
            Err(credentials::Error::Unavailable(error) | credentials::Error::Internal(error)) => {
                tracing::warn!(%error, "a credential's standing could not be checked");
                true
            }
            Err(_) => false,
        }
    }

    /// Refuses API tokens without `scope`.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        match &self.credential {
            Credential::Session => Ok(()),
            Credential::ApiToken { scopes, .. } if scopes.contains(&scope) => Ok(()),
            Credential::ApiToken { .. } => Err(ApiError::forbidden(
                ErrorCode::InsufficientScope,
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
                ErrorCode::SessionRequired,
                "this needs a logged-in user's access token, not an API token",
            )),
        }
    }
}

/// The bearer token of a request, or why there is none.
pub fn bearer_token(req: &HttpRequest) -> Result<&str, ApiError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Err(ApiError::unauthorized(
            ErrorCode::Unauthenticated,
            "send an access token or API token as `Authorization: Bearer <token>`",
        ));
    };
    let value = value.to_str().unwrap_or("");
    let Some((scheme, token)) = value.split_once(' ') else {
        return Err(ApiError::unauthorized(
            ErrorCode::Unauthenticated,
            "the Authorization header must be `Bearer <token>`",
        ));
    };
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Err(ApiError::unauthorized(
            ErrorCode::Unauthenticated,
            "the Authorization header must be `Bearer <token>`",
        ));
    }
    Ok(token.trim())
}

/// Authenticates a bearer token with what the server holds (pool, keys, known users).
pub async fn authenticate(state: &AppState, token: &str) -> Result<Caller, ApiError> {
    let identity =
        credentials::authenticate(&state.pool, &state.jwt, &state.known_users, token).await?;
    Ok(identity.into())
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
