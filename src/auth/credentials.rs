//! Authenticating a bearer token: an access token (a JWT of a user who still exists, from a
//! login that was not ended), or an API token (a row that is neither revoked nor expired). It
//! takes what it needs (the pool, the keys, this instance's memory of known users); reading
//! the token from a request is the HTTP layer's `Caller` extractor.

use super::{API_TOKEN_PREFIX, JwtKeys, REFRESH_PREFIX, Scope, TokenError, token_hash};
use crate::store::health::database_unreachable;
use sqlx::PgPool;
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

/// Who a valid token speaks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub user_id: Uuid,
    pub credential: Credential,
    /// The login (refresh-token family) an access token was issued for, when it names one.
    pub session: Option<Uuid>,
}

/// Why a token was not accepted. The message (`Display`) is the problem's `detail`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("this is a refresh token; exchange it at /api/v1/auth/refresh for an access token")]
    WrongTokenType,
    #[error("the access token has expired; get a new one with your refresh token")]
    TokenExpired,
    #[error("the access token is malformed or its signature does not match")]
    MalformedToken,
    /// A validly signed access token of an account that no longer exists.
    #[error("the account of this access token no longer exists")]
    AccountGone,
    /// A validly signed access token of a login that was ended (logged out, ended from
    /// another device, or by a password change or reset).
    #[error("the login of this access token was ended; sign in again")]
    LoginEnded,
    #[error("this API token is unknown, revoked or expired")]
    UnknownApiToken,
    /// The database cannot be reached (transient: retry later).
    #[error("the database cannot be reached: {0}")]
    Unavailable(anyhow::Error),
    #[error(transparent)]
    Internal(anyhow::Error),
}

impl From<sqlx::Error> for Error {
    fn from(cause: sqlx::Error) -> Self {
        let cause = anyhow::Error::from(cause);
        if database_unreachable(&cause) {
            Self::Unavailable(cause)
        } else {
            Self::Internal(cause)
        }
    }
}

/// Authenticates a bearer token.
pub async fn authenticate(
    pool: &PgPool,
    jwt: &JwtKeys,
    known_users: &KnownUsers,
    token: &str,
) -> Result<Identity, Error> {
    if token.starts_with(REFRESH_PREFIX) {
        return Err(Error::WrongTokenType);
    }
    if token.starts_with(API_TOKEN_PREFIX) {
        return authenticate_api_token(pool, token).await;
    }
    match jwt.verify_session(token) {
        Ok((user_id, session)) => {
            ensure_signed_in(pool, known_users, user_id, session).await?;
            Ok(Identity {
                user_id,
                credential: Credential::Session,
                session,
            })
        }
        Err(TokenError::Expired) => Err(Error::TokenExpired),
        Err(TokenError::Invalid) => Err(Error::MalformedToken),
    }
}

/// How many signed-in users (user and login) an instance remembers.
const KNOWN_USERS_CAPACITY: usize = 100_000;
/// How long a user and login once found in good standing are trusted without looking again.
const KNOWN_USER_TTL: Duration = Duration::from_secs(60);

/// A user, and the login an access token names (`None` for tokens that name none).
type SignedIn = (Uuid, Option<Uuid>);

/// Users and logins this instance has recently found in good standing in the database.
///
/// A validly signed access token only proves that its user existed and its login was open
/// when it was issued. The account may be gone since (deleted, removed by hand, or a database
/// restored from an older backup under the same JWT secret): every handler takes the caller's
/// id on trust, and those that write rows keyed by it would fail on a foreign key with a 500.
/// The login may have been ended (a logout, "sign out everywhere else", a password change
/// after a theft): its holder must lose access then, not when the token expires. So
/// authentication checks both, for every endpoint at once. A pair found once is remembered
/// for a while, and a steady player costs one lookup a minute instead of one per request (an
/// action is otherwise often no read at all). The instance that ends a login or deletes an
/// account forgets it at once; the time bound keeps it from passing on the others for more
/// than a minute.
#[derive(Default)]
pub struct KnownUsers {
    seen: Mutex<HashMap<SignedIn, Instant>>,
}

impl KnownUsers {
    fn contains(&self, key: SignedIn) -> bool {
        self.lock()
            .get(&key)
            .is_some_and(|found| found.elapsed() < KNOWN_USER_TTL)
    }

    /// Forgets a user and all their logins at once (their account was deleted, or their
    /// logins ended, through this instance).
    pub fn forget(&self, user: Uuid) {
        self.lock().retain(|(known, _), _| *known != user);
    }

    /// Forgets one login at once (it was just ended through this instance).
    pub fn forget_login(&self, login: Uuid) {
        self.lock().retain(|(_, known), _| *known != Some(login));
    }

    fn insert(&self, key: SignedIn) {
        let mut seen = self.lock();
        if seen.len() >= KNOWN_USERS_CAPACITY && !seen.contains_key(&key) {
            seen.retain(|_, found| found.elapsed() < KNOWN_USER_TTL);
            if seen.len() >= KNOWN_USERS_CAPACITY {
                // Bounded memory: forgetting only costs a lookup each.
                seen.clear();
            }
        }
        seen.insert(key, Instant::now());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SignedIn, Instant>> {
        self.seen
            .lock()
            .expect("the known-users lock is never poisoned")
    }
}

/// Refuses an access token whose user no longer exists or whose login was ended (see
/// [`KnownUsers`]). A login known to stand is answered in memory, and only the query is
/// awaited boxed: a live stream asks before each delivery (through [`still_stands`]), and a
/// future holding the query's room would be that much larger on every wake-up.
async fn ensure_signed_in(
    pool: &PgPool,
    known_users: &KnownUsers,
    user: Uuid,
    login: Option<Uuid>,
) -> Result<(), Error> {
    if known_users.contains((user, login)) {
        return Ok(());
    }
    let standing = Box::pin(crate::store::sessions::standing(pool, user, login)).await?;
    if !standing.account {
        return Err(Error::AccountGone);
    }
    if !standing.login {
        return Err(Error::LoginEnded);
    }
    known_users.insert((user, login));
    Ok(())
}

/// Whether a credential accepted earlier still stands: the account exists, the login was not
/// ended, the API token was neither revoked nor has expired. For what outlasts the request
/// that authenticated it (a live stream), which must stop when its credential is taken away.
/// An access token's own expiry does not end what it opened: the expiry bounds when a request
/// may be made with the token, and a stream is one request.
pub async fn still_stands(
    pool: &PgPool,
    known_users: &KnownUsers,
    identity: &Identity,
) -> Result<(), Error> {
    match identity.credential {
        Credential::Session => {
            ensure_signed_in(pool, known_users, identity.user_id, identity.session).await
        }
        Credential::ApiToken { id, .. } => {
            if Box::pin(crate::store::tokens::api_token_works(pool, id)).await? {
                Ok(())
            } else {
                Err(Error::UnknownApiToken)
            }
        }
    }
}

/// API tokens need no such check: the token's row is read anyway, and it references its user
/// by a foreign key, so a token row always has its user.
async fn authenticate_api_token(pool: &PgPool, token: &str) -> Result<Identity, Error> {
    let Some(row) = crate::store::tokens::use_api_token(pool, &token_hash(token)).await? else {
        return Err(Error::UnknownApiToken);
    };
    Ok(Identity {
        user_id: row.user_id,
        credential: Credential::ApiToken {
            id: row.id,
            scopes: row.scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
        },
        session: None,
    })
}
