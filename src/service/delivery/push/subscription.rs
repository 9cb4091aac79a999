//! Checking a browser's `PushSubscription` before it is stored.

use crate::service::delivery::outbound::{self, OutboundError};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// Longest endpoint URL accepted (real ones are a few hundred characters).
pub const MAX_ENDPOINT_LEN: usize = 2048;

/// Why a subscription was refused; each maps to one error code in `http/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// Not an absolute `https://` URL (or `http://` with `KONTOR_OUTBOUND_ALLOW_INSECURE`),
    /// too long, or on a loopback host without that setting: `too_long`, `not_absolute`,
    /// `not_https`, `credentials`, `no_host` or `not_public` (the refusal's words are the
    /// catalogue's `refusal-push-endpoint`).
    Endpoint(&'static str),
    /// `keys.p256dh` is not a P-256 public key (65 bytes uncompressed, base64url).
    P256dh,
    /// `keys.auth` is not 16 bytes in base64url.
    Auth,
}

/// A subscription that passed the checks: the endpoint as given, the keys in base64url
/// without padding.
#[derive(Debug, Clone)]
pub struct Checked {
    pub endpoint: url::Url,
    pub p256dh: String,
    pub auth: String,
}

fn decode(text: &str) -> Option<Vec<u8>> {
    // Browsers give base64url without padding; some libraries pad or use the standard alphabet.
    let text = text
        .trim()
        .trim_end_matches('=')
        .replace('+', "-")
        .replace('/', "_");
    URL_SAFE_NO_PAD.decode(text).ok()
}

/// Checks endpoint and keys. `allow_insecure` is `KONTOR_OUTBOUND_ALLOW_INSECURE`.
pub fn check(
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    allow_insecure: bool,
) -> Result<Checked, Invalid> {
    if endpoint.len() > MAX_ENDPOINT_LEN {
        return Err(Invalid::Endpoint("too_long"));
    }
    // The outbound client's own check: what every send would refuse (a loopback, private or
    // metadata address in any spelling, `localhost`) is refused now, not at each push.
    let url = outbound::check_url(endpoint, allow_insecure).map_err(|error| {
        Invalid::Endpoint(match (error, url::Url::parse(endpoint)) {
            (OutboundError::BlockedAddress(_), _) => "not_public",
            (OutboundError::InsecureScheme, _) => "not_https",
            (_, Ok(url)) if url.scheme() != "https" && url.scheme() != "http" => "not_https",
            (_, Ok(url)) if !url.username().is_empty() || url.password().is_some() => "credentials",
            (_, Ok(url)) if url.host().is_none() => "no_host",
            _ => "not_absolute",
        })
    })?;
    let key = decode(p256dh).ok_or(Invalid::P256dh)?;
    if key.len() != 65 || p256::PublicKey::from_sec1_bytes(&key).is_err() {
        return Err(Invalid::P256dh);
    }
    let secret = decode(auth).ok_or(Invalid::Auth)?;
    if secret.len() != 16 {
        return Err(Invalid::Auth);
    }
    Ok(Checked {
        endpoint: url,
        p256dh: URL_SAFE_NO_PAD.encode(&key),
        auth: URL_SAFE_NO_PAD.encode(&secret),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 8291, section 5.
    const KEY: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";

    #[test]
    fn a_browser_subscription_passes() {
        let checked = check("https://fcm.googleapis.com/fcm/send/abc", KEY, AUTH, false).unwrap();
        assert_eq!(checked.p256dh, KEY);
        assert_eq!(checked.auth, AUTH);
    }

    #[test]
    fn bad_endpoints_and_keys_are_refused() {
        assert!(matches!(
            check("http://push.example/x", KEY, AUTH, false),
            Err(Invalid::Endpoint(_))
        ));
        assert!(matches!(
            check("https://127.0.0.1/x", KEY, AUTH, false),
            Err(Invalid::Endpoint(_))
        ));
        assert!(matches!(
            check("https://[::1]/x", KEY, AUTH, false),
            Err(Invalid::Endpoint(_))
        ));
        assert!(matches!(
            check("not a url", KEY, AUTH, false),
            Err(Invalid::Endpoint(_))
        ));
        assert!(check("http://127.0.0.1:9/x", KEY, AUTH, true).is_ok());
        // Every form a send would refuse is refused here too: IPv4-compatible, NAT64 and 6to4
        // spellings of loopback and the metadata address, and localhost in any case.
        for endpoint in [
            "https://[::127.0.0.1]/x",
            "https://[64:ff9b::7f00:1]/x",
            "https://[64:ff9b::a9fe:a9fe]/x",
            "https://[2002:7f00:1::1]/x",
            "https://[::ffff:169.254.169.254]/x",
            "https://LOCALHOST./x",
            "https://push.localhost/x",
            "https://0x7f.1/x",
        ] {
            assert!(
                matches!(check(endpoint, KEY, AUTH, false), Err(Invalid::Endpoint(_))),
                "{endpoint}"
            );
        }
        assert_eq!(
            check("https://p.example/x", "AAAA", AUTH, false).unwrap_err(),
            Invalid::P256dh
        );
        assert_eq!(
            check("https://p.example/x", KEY, "AAAA", false).unwrap_err(),
            Invalid::Auth
        );
    }
}
