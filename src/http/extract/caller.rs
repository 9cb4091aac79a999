//! The `Caller` extractor: who is calling, with which credential. The checks themselves
//! (signatures, token rows, whether the account still exists) are `auth::credentials`'; this
//! is where a request's `Authorization` header meets them, and where scopes are enforced.

use crate::auth::Scope;
use crate::auth::credentials::{self, Credential, Identity};
use crate::http::error::{ApiError, ErrorCode};
use crate::http::state::AppState;
use actix_web::{FromRequest, HttpMessage, HttpRequest, dev::Payload, http::header, web};
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
        let req = req.clone();
        Box::pin(async move {
            let state = state.ok_or_else(|| ApiError::internal(anyhow::anyhow!("no app state")))?;
            let caller = authenticate(&state, &token?).await?;
            // For read-your-writes: the `observe` middleware notes when this user's writes end.
            req.extensions_mut()
                .insert(crate::http::serving_pool::Author(caller.user_id));
            Ok(caller)
        })
    }
}

/// A caller who may be nobody, for what anyone may read (profiles, leaderboards): a request
/// without an `Authorization` header is read as a visitor signed out; one with the header
/// must authenticate like any other (a bad token is a 401, not a visitor).
#[derive(Clone, Debug)]
pub struct MaybeCaller(pub Option<Caller>);

impl MaybeCaller {
    /// Refuses API tokens without `scope`; a visitor passes.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        self.0
            .as_ref()
            .map_or(Ok(()), |caller| caller.require(scope))
    }
}

impl FromRequest for MaybeCaller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        if req.headers().get(header::AUTHORIZATION).is_none() {
            return Box::pin(async { Ok(MaybeCaller(None)) });
        }
        let caller = Caller::from_request(req, payload);
        Box::pin(async move { Ok(MaybeCaller(Some(caller.await?))) })
    }
}

/// Admin rights are the role stored with the account (`kontor admin grant <user>`), never a
/// username: a name alone proves nothing, since anyone may register a name nobody holds yet.
pub async fn require_admin(state: &AppState, caller: &Caller) -> Result<(), ApiError> {
    caller.require_session()?;
    if crate::store::users::is_admin(&state.pool, caller.user_id).await? {
        Ok(())
    } else {
        Err(ApiError::forbidden(
            ErrorCode::AdminRequired,
            "only administrators may do this (the operator grants the role with `kontor admin grant <user>`)",
        ))
    }
}

/// Refuses to let an account whose address is not verified create, join or act in games,
/// where the operator asked for that (`KONTOR_UNVERIFIED_MAY_PLAY=false`).
pub async fn require_verified(state: &AppState, caller: &Caller) -> Result<(), ApiError> {
    Ok(crate::service::accounts::security::require_verified(
        &state.pool,
        &state.config,
        caller.user_id,
    )
    .await?)
}

/// Whether the caller may create or join rated games and tournaments (see
/// `security::may_play_rated`).
pub async fn may_play_rated(state: &AppState, caller: &Caller) -> Result<bool, ApiError> {
    Ok(crate::service::accounts::security::may_play_rated(
        &state.pool,
        &state.config,
        caller.user_id,
    )
    .await?)
}
