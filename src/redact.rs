//! Keeping secrets out of the log: request targets with their credentials masked, and URLs
//! without their passwords.
//!
//! Browsers' `EventSource` sends the access token as `?access_token=`, every mail's
//! unsubscribe link carries its signed token as `?token=`, and a client may put a token in a
//! query by mistake. Whatever logs a request target or a configured URL goes through here.

use std::borrow::Cow;

// The prefixes of the credentials Kontor issues (`auth` makes them): a value that starts with
// one is a secret wherever it appears, and is masked here.
pub const REFRESH_PREFIX: &str = "kontor_rt_";
pub const API_TOKEN_PREFIX: &str = "kontor_pat_";
/// Links mailed to verify an address (`kontor_ve_…`) or reset a password (`kontor_pw_…`).
pub const VERIFY_EMAIL_PREFIX: &str = "kontor_ve_";
pub const RESET_PASSWORD_PREFIX: &str = "kontor_pw_";
/// A calendar feed's token (`kontor_cal_…`), the secret part of its URL.
pub const CALENDAR_FEED_PREFIX: &str = "kontor_cal_";

/// What a masked value is replaced with.
pub const MASK: &str = "***";

/// Whether a query parameter of this (decoded) name carries a credential. Besides the names
/// Kontor itself reads (`access_token`, the unsubscribe link's `token`), it covers the usual
/// names of signatures, passwords and keys, so that a client's mistake is not logged either;
/// masking a harmless parameter costs nothing.
fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "sig" | "signature" | "key" | "code" | "auth" | "authorization" | "jwt"
    ) || ["token", "password", "passwd", "secret", "api_key", "apikey"]
        .iter()
        .any(|part| name.contains(part))
}

/// Whether a (decoded) value looks like one of Kontor's credentials wherever it appears: an
/// API token, a refresh token, a mailed link's token, a calendar feed's token (the path
/// segment `kontor_cal_….ics`) or a JWT (whose base64url header always starts with `eyJ`).
fn looks_like_credential(value: &str) -> bool {
    value.starts_with(API_TOKEN_PREFIX)
        || value.starts_with(CALENDAR_FEED_PREFIX)
        || value.starts_with(REFRESH_PREFIX)
        || value.starts_with(VERIFY_EMAIL_PREFIX)
        || value.starts_with(RESET_PASSWORD_PREFIX)
        || value.starts_with("eyJ")
}

/// Percent-decodes (and turns `+` into a space, as forms do); bad escapes stay as they are.
fn decode(text: &str) -> Cow<'_, str> {
    if !text.contains(['%', '+']) {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match bytes.get(i + 1..i + 3) {
                Some(hex) if hex.iter().all(u8::is_ascii_hexdigit) => {
                    let hex = std::str::from_utf8(hex).expect("hex digits are ASCII");
                    out.push(u8::from_str_radix(hex, 16).expect("two hex digits make a byte"));
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            byte => out.push(byte),
        }
        i += 1;
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// A query string with the value of every parameter that carries (or looks like) a
/// credential replaced by [`MASK`]; everything else is kept as it came.
pub fn mask_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value))
                if is_secret_name(&decode(name)) || looks_like_credential(&decode(value)) =>
            {
                format!("{name}={MASK}")
            }
            None if looks_like_credential(&decode(pair)) => MASK.to_string(),
            _ => pair.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// A request target (`/path?query`) fit for the log: credentials in the query are masked
/// (see [`mask_query`]), and so is any path segment that looks like a token.
pub fn mask_target(path: &str, query: Option<&str>) -> String {
    let mut target = path
        .split('/')
        .map(|segment| {
            if looks_like_credential(&decode(segment)) {
                MASK
            } else {
                segment
            }
        })
        .collect::<Vec<_>>()
        .join("/");
    if let Some(query) = query {
        target.push('?');
        target.push_str(&mask_query(query));
    }
    target
}

/// A URL (a database or SMTP server) without its password: `smtp://user:***@host:587`.
/// Query parameters that carry a password (`?password=`, as libpq allows) are masked too.
pub fn mask_url(url: &str) -> String {
    let (before_query, query) = match url.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (url, None),
    };
    let mut masked = match before_query.split_once("://") {
        // The user information ends at the last `@` (a password may hold a `/`); a path
        // holding an `@` is masked with it, which errs on the safe side.
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((user_info, host)) => {
                let user = user_info
                    .split_once(':')
                    .map_or(user_info, |(user, _)| user);
                let user = if user_info.contains(':') {
                    format!("{user}:{MASK}")
                } else {
                    user.to_string()
                };
                format!("{scheme}://{user}@{host}")
            }
            None => before_query.to_string(),
        },
        None => before_query.to_string(),
    };
    if let Some(query) = query {
        masked.push('?');
        masked.push_str(&mask_query(query));
    }
    masked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_credentials_are_masked_and_the_rest_kept() {
        assert_eq!(
            mask_target(
                "/api/v1/games/42/stream",
                Some("access_token=eyJhbGciOi.x.y&last_event_id=3")
            ),
            "/api/v1/games/42/stream?access_token=***&last_event_id=3"
        );
        assert_eq!(
            mask_target(
                "/api/v1/unsubscribe",
                Some("token=0191abc.all.c2lnbmF0dXJl")
            ),
            "/api/v1/unsubscribe?token=***"
        );
        // Encoded names, other letter cases, and credentials under any name.
        assert_eq!(
            mask_query("access%5Ftoken=abc&Sig=1&view=open&t=kontor_pat_xyz&kontor_rt_abc"),
            "access%5Ftoken=***&Sig=***&view=open&t=***&***"
        );
        // The links of verification and reset mails, however the token is named.
        assert_eq!(
            mask_target("/verify-email", Some("token=kontor_ve_abc")),
            "/verify-email?token=***"
        );
        assert_eq!(mask_query("t=kontor_pw_abc&lang=ja"), "t=***&lang=ja");
        assert_eq!(
            mask_query("password=hunter2&limit=10&cursor=abc"),
            "password=***&limit=10&cursor=abc"
        );
        // A token pasted into the path.
        assert_eq!(
            mask_target("/api/v1/eyJhbGciOiJIUzI1NiJ9.e30.sig/x", None),
            "/api/v1/***/x"
        );
        // A calendar feed's URL is its credential.
        assert_eq!(
            mask_target("/api/v1/calendar/kontor_cal_abc.ics", None),
            "/api/v1/calendar/***"
        );
        assert_eq!(mask_target("/api/v1/kinds", None), "/api/v1/kinds");
        assert_eq!(mask_target("/", Some("")), "/?");
    }

    #[test]
    fn urls_lose_their_passwords() {
        assert_eq!(
            mask_url("smtp://mailer:s3cret@mail.example:587"),
            "smtp://mailer:***@mail.example:587"
        );
        assert_eq!(
            mask_url("postgres://kontor:p%40ss/w@db:5432/kontor?sslmode=require&password=x"),
            "postgres://kontor:***@db:5432/kontor?sslmode=require&password=***"
        );
        assert_eq!(
            mask_url("postgres://kontor@localhost/db?host=/run/pg"),
            "postgres://kontor@localhost/db?host=/run/pg"
        );
        assert_eq!(mask_url("smtp://host:25"), "smtp://host:25");
    }

    #[test]
    fn decoding_tolerates_bad_escapes() {
        assert_eq!(decode("a%5Fb+c"), "a_b c");
        assert_eq!(decode("%"), "%");
        assert_eq!(decode("%4"), "%4");
        assert_eq!(decode("%zz"), "%zz");
        assert_eq!(decode("100%"), "100%");
    }
}
