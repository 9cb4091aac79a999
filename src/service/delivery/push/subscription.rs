//! Checking a browser's `PushSubscription` before it is stored.

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
    let url = url::Url::parse(endpoint).map_err(|_| Invalid::Endpoint("not_absolute"))?;
    match url.scheme() {
        "https" => {}
        "http" if allow_insecure => {}
        _ => return Err(Invalid::Endpoint("not_https")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Invalid::Endpoint("credentials"));
    }
    let loopback = match url.host() {
        None => return Err(Invalid::Endpoint("no_host")),
        Some(url::Host::Domain(name)) => {
            name.eq_ignore_ascii_case("localhost")
                || name.to_ascii_lowercase().ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => !is_global_v4(ip),
        Some(url::Host::Ipv6(ip)) => {
            ip.is_loopback()
                || ip.is_unspecified()
                || ip.to_ipv4_mapped().is_some_and(|v4| !is_global_v4(v4))
                || (ip.segments()[0] & 0xfe00) == 0xfc00
                || (ip.segments()[0] & 0xffc0) == 0xfe80
        }
    };
    if loopback && !allow_insecure {
        return Err(Invalid::Endpoint("not_public"));
    }
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

/// Loopback, private, link-local, CGNAT, unspecified, broadcast, documentation: not a push
/// service. (The full SSRF guard is the outbound client's; this refuses obvious ones early.)
fn is_global_v4(ip: std::net::Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_multicast()
        || (a == 100 && (64..128).contains(&b))
        || a == 0)
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
