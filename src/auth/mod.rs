//! Credentials: argon2id passwords, JWT access tokens, opaque refresh and API tokens.
//!
//! * Access tokens are HS256 JWTs (`typ: "access"`), short-lived, carrying the user id.
//! * Refresh tokens (`kontor_rt_…`) and API tokens (`kontor_pat_…`) are random opaque strings;
//!   only their SHA-256 is stored. The prefix tells them apart from each other and from JWTs,
//!   so a refresh token sent as an access token is refused with a clear reason.

pub mod credentials;
pub mod password;
pub mod throttle;

use anyhow::Context;
use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, errors::ErrorKind};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::LazyLock;
use std::time::Duration;
use uuid::Uuid;

pub use crate::redact::{
    API_TOKEN_PREFIX, CALENDAR_FEED_PREFIX, REFRESH_PREFIX, RESET_PASSWORD_PREFIX,
    VERIFY_EMAIL_PREFIX,
};

/// What an API token may do. Access tokens from a login may do everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
pub enum Scope {
    /// Read games: views, legal actions, logs, exports, live streams, lobby lists.
    #[serde(rename = "game:read")]
    GameRead,
    /// Take part: create, join, leave, start, cancel, invite and submit actions.
    #[serde(rename = "game:play")]
    GamePlay,
    /// Manage the account's webhook endpoints (`/me/webhooks`).
    #[serde(rename = "webhooks")]
    Webhooks,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::GameRead, Scope::GamePlay, Scope::Webhooks];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::GameRead => "game:read",
            Scope::GamePlay => "game:play",
            Scope::Webhooks => "webhooks",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

// ---------------------------------------------------------------------------------------
// Passwords

/// Hashes a password with argon2id (default parameters, random salt). CPU-heavy: call it
/// from a blocking thread.
pub fn hash_password(password: &str) -> anyhow::Result<String> {
    let hash = Argon2::default()
        .hash_password(password.as_bytes())
        .map_err(|e| anyhow::anyhow!("hashing a password: {e}"))?;
    Ok(hash.to_string())
}

/// Checks a password against a stored PHC string. CPU-heavy: call it from a blocking thread.
pub fn verify_password(hash: &str, password: &str) -> bool {
    match PasswordHash::new(hash) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
    }
}

/// A hash to verify against when the user does not exist, so that a failed login takes as
/// long whether or not the account exists.
pub static DUMMY_PASSWORD_HASH: LazyLock<String> = LazyLock::new(|| {
    hash_password("no account has this password").expect("hashing a constant works")
});

// ---------------------------------------------------------------------------------------
// Access tokens (JWT)

#[derive(Debug, Serialize, Deserialize)]
pub struct AccessClaims {
    /// The user id.
    pub sub: Uuid,
    pub exp: u64,
    pub iat: u64,
    /// Not before: never issued by Kontor, checked when present (a token is not good before
    /// it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<u64>,
    /// Always `access`: guards against other JWTs signed with the same key.
    pub typ: String,
    /// The login (refresh-token family) the token was issued for, so that the account's
    /// session list can mark the caller's own and a password change can keep it. Absent in
    /// tokens issued before logins were listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<Uuid>,
}

/// The clock difference between servers a token's times are allowed, in seconds.
const CLOCK_LEEWAY_SECS: u64 = 5;

/// Why an access token was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum TokenError {
    Expired,
    Invalid,
}

/// The keys that sign and check access tokens.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
    /// The secret itself, for [`JwtKeys::derive_key`].
    secret: Vec<u8>,
}

impl JwtKeys {
    pub fn new(secret: &[u8], ttl: Duration) -> anyhow::Result<Self> {
        anyhow::ensure!(
            secret.len() >= 32,
            "the JWT secret must be at least 32 bytes"
        );
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = CLOCK_LEEWAY_SECS;
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "sub"]);
        Ok(Self {
            encoding: EncodingKey::from_secret(secret).context("JWT encoding key")?,
            decoding: DecodingKey::from_secret(secret).context("JWT decoding key")?,
            validation,
            ttl,
            secret: secret.to_vec(),
        })
    }

    /// A key for another purpose, derived from the same secret; see [`derive_key`].
    pub fn derive_key(&self, purpose: &str) -> [u8; 32] {
        derive_key(&self.secret, purpose)
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Issues an access token for `user` that names no login.
    pub fn issue(&self, user: Uuid) -> anyhow::Result<String> {
        let now = jsonwebtoken::get_current_timestamp();
        self.issue_with_times(user, now, now + self.ttl.as_secs())
    }

    /// Issues an access token for `user` within the login `session`.
    pub fn issue_for_session(&self, user: Uuid, session: Uuid) -> anyhow::Result<String> {
        let now = jsonwebtoken::get_current_timestamp();
        self.sign(AccessClaims {
            sub: user,
            exp: now + self.ttl.as_secs(),
            iat: now,
            nbf: None,
            typ: "access".to_string(),
            sid: Some(session),
        })
    }

    /// Issues a token with explicit times (tests use it to make expired tokens).
    pub fn issue_with_times(&self, user: Uuid, iat: u64, exp: u64) -> anyhow::Result<String> {
        self.sign(AccessClaims {
            sub: user,
            exp,
            iat,
            nbf: None,
            typ: "access".to_string(),
            sid: None,
        })
    }

    fn sign(&self, claims: AccessClaims) -> anyhow::Result<String> {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .context("signing an access token")
    }

    /// Checks signature, algorithm (HS256 only; `none` is refused), expiry, type, and that the
    /// times are ones this server issues: issued (`iat`) and good from (`nbf`, if given) not in
    /// the future, and a lifetime (`exp` − `iat`, and `exp` from now) no longer than the
    /// configured one. A token signed with the key but with other times (a leaked key used to
    /// mint long-lived tokens, a token made for another server's settings) is refused.
    pub fn verify(&self, token: &str) -> Result<Uuid, TokenError> {
        self.verify_session(token).map(|(user, _)| user)
    }

    /// Like [`JwtKeys::verify`], with the login the token names (if it names one).
    pub fn verify_session(&self, token: &str) -> Result<(Uuid, Option<Uuid>), TokenError> {
        self.verify_at(token, jsonwebtoken::get_current_timestamp())
    }

    fn verify_at(&self, token: &str, now: u64) -> Result<(Uuid, Option<Uuid>), TokenError> {
        let claims =
            match jsonwebtoken::decode::<AccessClaims>(token, &self.decoding, &self.validation) {
                Ok(data) => data.claims,
                Err(e) if matches!(e.kind(), ErrorKind::ExpiredSignature) => {
                    return Err(TokenError::Expired);
                }
                Err(_) => return Err(TokenError::Invalid),
            };
        let ttl = self.ttl.as_secs();
        let issued_in_the_future = claims.iat > now + CLOCK_LEEWAY_SECS;
        let lives_too_long = claims.exp.saturating_sub(claims.iat) > ttl + CLOCK_LEEWAY_SECS
            || claims.exp > now + ttl + CLOCK_LEEWAY_SECS;
        if claims.typ != "access" || issued_in_the_future || lives_too_long {
            return Err(TokenError::Invalid);
        }
        Ok((claims.sub, claims.sid))
    }
}

/// The JWT secret: from the configuration, else read from (or generated into) the data
/// folder as `jwt-secret` (mode 0600), so tokens survive restarts.
pub fn load_or_create_secret(configured: Option<&str>, data_dir: &Path) -> anyhow::Result<Vec<u8>> {
    if let Some(secret) = configured {
        return Ok(secret.as_bytes().to_vec());
    }
    let path = data_dir.join("jwt-secret");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let secret = text.trim().to_string();
        anyhow::ensure!(
            secret.len() >= 32,
            "{} is too short to be a JWT secret",
            path.display()
        );
        return Ok(secret.into_bytes());
    }
    std::fs::create_dir_all(data_dir)?;
    let secret = random_token("");
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .with_context(|| format!("creating {}", path.display()))?;
    file.write_all(secret.as_bytes())?;
    tracing::info!(path = %path.display(), "generated a JWT secret");
    Ok(secret.into_bytes())
}

/// A key for one purpose (e.g. signing unsubscribe links) derived from the JWT secret:
/// `HMAC-SHA256(secret, "kontor/" + purpose)`. Keys of different purposes are unrelated, so a
/// signature made for one can never pass for another, nor for an access token.
pub fn derive_key(secret: &[u8], purpose: &str) -> [u8; 32] {
    hmac_sha256(secret, format!("kontor/{purpose}").as_bytes())
}

/// HMAC-SHA256 (RFC 2104).
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    inner.update(message);
    let inner = inner.finalize();
    let mut outer = Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner);
    outer.finalize().into()
}

/// Compares two byte strings in time independent of where they differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

// ---------------------------------------------------------------------------------------
// Opaque tokens

/// A new random token: `prefix` + 43 characters of base64url (256 bits).
pub fn random_token(prefix: &str) -> String {
    let bytes: [u8; 32] = rand::rng().random();
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// What is stored of an opaque token.
pub fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> JwtKeys {
        JwtKeys::new(&[42; 32], Duration::from_secs(60)).unwrap()
    }

    #[test]
    fn passwords_verify_only_themselves() {
        let hash = hash_password("correct horse").unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password(&hash, "correct horse"));
        assert!(!verify_password(&hash, "correct horsf"));
        assert!(!verify_password("not a hash", "correct horse"));
    }

    #[test]
    fn access_tokens_round_trip() {
        let user = Uuid::new_v4();
        let token = keys().issue(user).unwrap();
        assert_eq!(keys().verify(&token), Ok(user));
    }

    #[test]
    fn expired_tampered_and_unsigned_tokens_are_refused() {
        let user = Uuid::new_v4();
        let now = jsonwebtoken::get_current_timestamp();
        let expired = keys().issue_with_times(user, now - 600, now - 300).unwrap();
        assert_eq!(keys().verify(&expired), Err(TokenError::Expired));

        let token = keys().issue(user).unwrap();
        let mut parts: Vec<&str> = token.split('.').collect();
        let forged_claims = URL_SAFE_NO_PAD.encode(
            format!(
                r#"{{"sub":"{}","exp":{},"iat":{now},"typ":"access"}}"#,
                Uuid::new_v4(),
                now + 60
            )
            .as_bytes(),
        );
        parts[1] = &forged_claims;
        assert_eq!(keys().verify(&parts.join(".")), Err(TokenError::Invalid));

        let none_header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        let unsigned = format!("{none_header}.{forged_claims}.");
        assert_eq!(keys().verify(&unsigned), Err(TokenError::Invalid));

        let other_key = JwtKeys::new(&[7; 32], Duration::from_secs(60)).unwrap();
        assert_eq!(
            keys().verify(&other_key.issue(user).unwrap()),
            Err(TokenError::Invalid)
        );
    }

    #[test]
    fn tokens_with_times_this_server_never_issues_are_refused() {
        let keys = keys(); // a 60 s lifetime
        let user = Uuid::new_v4();
        let now = jsonwebtoken::get_current_timestamp();
        let sign = |claims: serde_json::Value| {
            jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &keys.encoding).unwrap()
        };
        let claims = |iat: u64, exp: u64| serde_json::json!({"sub": user, "iat": iat, "exp": exp, "typ": "access"});
        // Fine: what the server issues, and a token already half through its life.
        assert_eq!(keys.verify(&sign(claims(now, now + 60))), Ok(user));
        assert_eq!(keys.verify(&sign(claims(now - 30, now + 30))), Ok(user));
        // Issued in the future; good only later (nbf); far too long a life, or an end past
        // what the server would give from now.
        for token in [
            sign(claims(now + 600, now + 660)),
            sign(
                serde_json::json!({"sub": user, "iat": now, "exp": now + 60, "nbf": now + 30, "typ": "access"}),
            ),
            sign(claims(now, now + 30 * 365 * 86_400)),
            sign(claims(now - 10, now + 3_600)),
            sign(claims(now - 86_400, now + 600)),
        ] {
            assert_eq!(keys.verify(&token), Err(TokenError::Invalid), "{token}");
        }
        // Without an iat: refused too (every token the server issues has one).
        let bare = sign(serde_json::json!({"sub": user, "exp": now + 60, "typ": "access"}));
        assert_eq!(keys.verify(&bare), Err(TokenError::Invalid));
    }

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test cases 2 and 6 (a key longer than the block).
        assert_eq!(
            hex::encode(hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            hex::encode(hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
        assert_ne!(derive_key(b"s", "a"), derive_key(b"s", "b"));
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }

    #[test]
    fn opaque_tokens_are_random_and_prefixed() {
        let a = random_token(API_TOKEN_PREFIX);
        let b = random_token(API_TOKEN_PREFIX);
        assert!(a.starts_with(API_TOKEN_PREFIX));
        assert_ne!(a, b);
        assert_eq!(token_hash(&a).len(), 32);
    }
}
