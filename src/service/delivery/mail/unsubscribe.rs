//! Unsubscribe tokens: `{user id}.{scope}.{signature}`, signed with HMAC-SHA256 under a key
//! derived from the JWT secret. They work without a login and do not expire (a link in an
//! old mail keeps working); changing the JWT secret invalidates every one.

use crate::auth::{constant_time_eq, hmac_sha256};
use crate::service::notices::NoticeKind;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use uuid::Uuid;

/// The purpose the unsubscribe key is derived for.
pub const PURPOSE: &str = "unsubscribe/v1";

/// What an unsubscribe link turns off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnsubscribeScope {
    /// One kind of notice.
    Kind(NoticeKind),
    /// The daily digest: every kind whose preference is `digest` becomes `off`.
    Digest,
    /// Every kind of notice.
    All,
}

impl UnsubscribeScope {
    pub fn as_str(self) -> &'static str {
        match self {
            UnsubscribeScope::Kind(kind) => kind.as_str(),
            UnsubscribeScope::Digest => "digest",
            UnsubscribeScope::All => "all",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "digest" => Some(UnsubscribeScope::Digest),
            "all" => Some(UnsubscribeScope::All),
            other => NoticeKind::parse(other).map(UnsubscribeScope::Kind),
        }
    }
}

fn signature(key: &[u8; 32], user: Uuid, scope: UnsubscribeScope) -> [u8; 32] {
    hmac_sha256(
        key,
        format!("unsubscribe:{}:{}", user.simple(), scope.as_str()).as_bytes(),
    )
}

/// A token that unsubscribes `user` from `scope`.
pub fn sign(key: &[u8; 32], user: Uuid, scope: UnsubscribeScope) -> String {
    format!(
        "{}.{}.{}",
        user.simple(),
        scope.as_str(),
        URL_SAFE_NO_PAD.encode(signature(key, user, scope))
    )
}

/// The user and scope of a genuine token; `None` for anything malformed or forged.
pub fn verify(key: &[u8; 32], token: &str) -> Option<(Uuid, UnsubscribeScope)> {
    if token.len() > 200 {
        return None;
    }
    let mut parts = token.trim().split('.');
    let (user, scope, mac) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || user.len() != 32 {
        return None;
    }
    let user = Uuid::try_parse(user).ok()?;
    let scope = UnsubscribeScope::parse(scope)?;
    let mac = URL_SAFE_NO_PAD.decode(mac).ok()?;
    constant_time_eq(&mac, &signature(key, user, scope)).then_some((user, scope))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_resist_tampering() {
        let key = [7u8; 32];
        let user = Uuid::now_v7();
        for scope in [
            UnsubscribeScope::Kind(NoticeKind::YourTurn),
            UnsubscribeScope::Kind(NoticeKind::GameOver),
            UnsubscribeScope::Digest,
            UnsubscribeScope::All,
        ] {
            let token = sign(&key, user, scope);
            assert_eq!(verify(&key, &token), Some((user, scope)));
            assert_eq!(verify(&[8u8; 32], &token), None, "another key");
        }
        let token = sign(&key, user, UnsubscribeScope::Kind(NoticeKind::Invited));
        // Another scope or another user with the same signature.
        let widened = token.replace(".invited.", ".all.");
        assert_eq!(verify(&key, &widened), None);
        let other = Uuid::now_v7();
        let moved = token.replace(&user.simple().to_string(), &other.simple().to_string());
        assert_eq!(verify(&key, &moved), None);
        // Every single changed character of the signature.
        let (head, mac) = token.rsplit_once('.').unwrap();
        for i in 0..mac.len() {
            let mut bytes = mac.as_bytes().to_vec();
            bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
            let forged = format!("{head}.{}", String::from_utf8(bytes).unwrap());
            assert_eq!(verify(&key, &forged), None, "{forged}");
        }
        for junk in [
            "",
            ".",
            "..",
            "a.b.c",
            &format!("{token}.x"),
            &"x".repeat(500),
        ] {
            assert_eq!(verify(&key, junk), None, "{junk}");
        }
    }
}
