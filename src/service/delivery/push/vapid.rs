//! The server's VAPID identity (RFC 8292): a P-256 key pair, generated on first start into the
//! data folder (`vapid_private_key.pem`, mode 0600, like the JWT secret) unless
//! `KONTOR_VAPID_PRIVATE_KEY` supplies one, and the `Authorization: vapid t=…, k=…` header of
//! each push request (an ES256 JWT signed by `jsonwebtoken`).

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use rand::RngExt;
use std::path::Path;

/// The file the generated key is kept in, inside the data folder.
pub const KEY_FILE: &str = "vapid_private_key.pem";

/// How long a VAPID token is valid (RFC 8292 allows at most 24 hours).
pub const TOKEN_LIFETIME_SECS: i64 = 12 * 60 * 60;

/// The server's VAPID key pair.
#[derive(Clone)]
pub struct Vapid {
    encoding: EncodingKey,
    /// The public key, uncompressed SEC1 (65 bytes), base64url without padding: what the page
    /// passes to `pushManager.subscribe` as `applicationServerKey`, and `k=` in each request.
    public_key: String,
    /// `sub`: a `mailto:` or `https:` contact for the push services.
    subject: String,
}

impl std::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vapid")
            .field("public_key", &self.public_key)
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

#[derive(serde::Serialize)]
struct Claims<'a> {
    aud: &'a str,
    exp: i64,
    sub: &'a str,
}

impl Vapid {
    /// The configured key (`KONTOR_VAPID_PRIVATE_KEY`), else the one kept in `data_dir`,
    /// else a new one written there.
    pub fn load_or_create(
        configured: Option<&str>,
        data_dir: &Path,
        subject: String,
    ) -> anyhow::Result<Self> {
        let secret = match configured {
            Some(text) => parse_key(text).context("KONTOR_VAPID_PRIVATE_KEY")?,
            None => load_or_create_file(data_dir)?,
        };
        Self::from_secret(&secret, subject)
    }

    fn from_secret(secret: &p256::SecretKey, subject: String) -> anyhow::Result<Self> {
        // jsonwebtoken signs ES256 with a PKCS#8 DER key.
        let der = secret
            .to_pkcs8_der()
            .map_err(|e| anyhow::anyhow!("encoding the VAPID key: {e}"))?;
        let encoding = EncodingKey::from_ec_der(der.as_bytes());
        let point = secret.public_key().as_affine().to_encoded_point(false);
        Ok(Self {
            encoding,
            public_key: URL_SAFE_NO_PAD.encode(point.as_bytes()),
            subject,
        })
    }

    pub fn public_key(&self) -> &str {
        &self.public_key
    }

    /// The `Authorization` header for a request to `endpoint` at `now`: the audience is the
    /// endpoint's origin (scheme, host and port), the token expires 12 hours later.
    pub fn authorization(&self, endpoint: &url::Url, now: DateTime<Utc>) -> anyhow::Result<String> {
        let audience = endpoint.origin().ascii_serialization();
        let claims = Claims {
            aud: &audience,
            exp: now.timestamp() + TOKEN_LIFETIME_SECS,
            sub: &self.subject,
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::ES256), &claims, &self.encoding)
            .context("signing the VAPID token")?;
        Ok(format!("vapid t={token}, k={}", self.public_key))
    }
}

/// A PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), a SEC1 PEM (`-----BEGIN EC PRIVATE KEY-----`)
/// or the raw 32-byte private key in base64url (what most Web Push tools print).
fn parse_key(text: &str) -> anyhow::Result<p256::SecretKey> {
    let text = text.trim();
    if text.contains("BEGIN PRIVATE KEY") {
        return p256::SecretKey::from_pkcs8_pem(text)
            .map_err(|e| anyhow::anyhow!("not a P-256 PKCS#8 key: {e}"));
    }
    if text.contains("BEGIN EC PRIVATE KEY") {
        return p256::SecretKey::from_sec1_pem(text)
            .map_err(|e| anyhow::anyhow!("not a P-256 SEC1 key: {e}"));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .context("neither a PEM key nor base64url")?;
    p256::SecretKey::from_slice(&bytes).map_err(|_| anyhow::anyhow!("not a P-256 private key"))
}

fn load_or_create_file(data_dir: &Path) -> anyhow::Result<p256::SecretKey> {
    let path = data_dir.join(KEY_FILE);
    if let Ok(text) = std::fs::read_to_string(&path) {
        return parse_key(&text).with_context(|| path.display().to_string());
    }
    std::fs::create_dir_all(data_dir)?;
    let secret = loop {
        let bytes: [u8; 32] = rand::rng().random();
        // Almost every 32-byte string is a valid scalar; the loop only guards the others.
        if let Ok(secret) = p256::SecretKey::from_slice(&bytes) {
            break secret;
        }
    };
    let pem = secret
        .to_pkcs8_pem(LineEnding::LF)
        .map_err(|e| anyhow::anyhow!("encoding the VAPID key: {e}"))?;
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .with_context(|| format!("creating {}", path.display()))?;
    file.write_all(pem.as_bytes())?;
    tracing::info!(path = %path.display(), "generated a VAPID key pair for Web Push");
    Ok(secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_key_is_kept_and_read_back() {
        let dir = std::env::temp_dir().join(format!("kontor-vapid-{}", uuid::Uuid::new_v4()));
        let first = Vapid::load_or_create(None, &dir, "mailto:a@example.org".into()).unwrap();
        let again = Vapid::load_or_create(None, &dir, "mailto:a@example.org".into()).unwrap();
        assert_eq!(first.public_key(), again.public_key());
        assert_eq!(
            URL_SAFE_NO_PAD.decode(first.public_key()).unwrap().len(),
            65
        );
        let header = first
            .authorization(&"https://push.example:8443/x".parse().unwrap(), Utc::now())
            .unwrap();
        assert!(header.starts_with("vapid t="), "{header}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
