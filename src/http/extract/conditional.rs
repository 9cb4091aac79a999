//! Entity tags and conditional requests (RFC 9110 §8.8.3, §13).
//!
//! `GET /games/{id}` tags each representation: `"v{version shown}-{viewer}-{digest}"`, the
//! viewer being `s{seat}` or `spectator`, the digest the first 16 hex digits of the body's
//! SHA-256. The version and viewer make tags readable and differ wherever views do; the
//! digest makes the tag change whenever the body does, also without a new version (a seat
//! taken in an open game, a player going on vacation). `If-None-Match` (weak comparison)
//! with a matching tag is answered 304.
//!
//! The tags are strong, so each names one representation: an answer compressed with brotli
//! or gzip is another representation of the same content (RFC 9110 §8.8.3), and its tag says
//! so, `"v12-s0-…-br"` (identity adds nothing). The coding is known before the body is
//! compressed ([`coding`]), so a 304 carries the tag the 200 would have.
//!
//! `If-Match` on `GET /games/{id}` compares strongly with the current representation's tag:
//! no match is 412 `precondition_failed`.
//!
//! `POST /games/{id}/actions` reads `If-Match` as the version the client saw: each tag
//! carries a version (`"v12-s0-…"` as sent by the GET, in any coding, or the older plain
//! `"12"`). Comparison is strong: a weak tag (`W/"…"`) never matches, nor does a tag of no
//! version of ours; both are answered 412 `precondition_failed`. `*` matches whatever the
//! game's current version is.
//!
//! A player's note (`/games/{id}/notes`) is tagged `"note-{digest}"` (with the coding, as
//! above), the digest being its text's; `PUT` requires `If-Match` with such a tag (strong
//! comparison, in any coding) or `*`, and saves only while the note is still the one named.

use crate::http::error::{ApiError, ErrorCode};
use actix_web::HttpRequest;
use actix_web::http::header::{
    self, AcceptEncoding, ContentEncoding, Encoding, Header, HeaderName,
};
use sha2::{Digest, Sha256};

/// The codings the server's `Compress` middleware chooses from (actix-web's `compress-brotli`
/// and `compress-gzip` features), identity included.
const CODINGS: [Encoding; 4] = [
    Encoding::identity(),
    Encoding::brotli(),
    Encoding::gzip(),
    Encoding::deflate(),
];

/// The content coding an answer of `content_type` to `req` is sent in, chosen as `Compress`
/// chooses it (the request's `Accept-Encoding`; images but SVG, and video, are never
/// compressed): `None` for identity.
pub fn coding(req: &HttpRequest, content_type: &str) -> Option<&'static str> {
    let media = content_type.split(';').next().unwrap_or_default().trim();
    if media.starts_with("video/") || (media.starts_with("image/") && media != "image/svg+xml") {
        return None;
    }
    let accepted = AcceptEncoding::parse(req).ok()?;
    match accepted.negotiate(CODINGS.iter())? {
        Encoding::Known(ContentEncoding::Brotli) => Some("br"),
        Encoding::Known(ContentEncoding::Gzip) => Some("gzip"),
        Encoding::Known(ContentEncoding::Deflate) => Some("deflate"),
        _ => None,
    }
}

/// The tag of a representation: the tag of its content, and the coding it is sent in.
pub fn coded(tag: String, coding: Option<&str>) -> String {
    match coding {
        Some(coding) => format!("{tag}-{coding}"),
        None => tag,
    }
}

/// One entity tag of a request header.
#[derive(Debug, PartialEq, Eq)]
pub struct Tag<'a> {
    pub weak: bool,
    /// The opaque part, without quotes.
    pub opaque: &'a str,
}

/// A request's `If-Match` or `If-None-Match` header, unless it is absent or an empty list
/// (RFC 9110 allows `#entity-tag` to be empty), which is no condition.
pub fn condition_header(
    req: &actix_web::HttpRequest,
    name: actix_web::http::header::HeaderName,
) -> Option<&actix_web::http::header::HeaderValue> {
    req.headers()
        .get(name)
        .filter(|value| !value.as_bytes().trim_ascii().is_empty())
}

/// The request's `If-Match` or `If-None-Match` condition, if it sends one. A value that is
/// neither `*` nor a list of entity tags is 400 `invalid_parameter` naming the header, its
/// message showing `example`, a tag of the resource's shape (`"v12-s0-…"`).
pub fn requested<'r>(
    req: &'r HttpRequest,
    name: HeaderName,
    example: &str,
) -> Result<Option<Condition<'r>>, ApiError> {
    let Some(value) = condition_header(req, name.clone()) else {
        return Ok(None);
    };
    let header = match name {
        header::IF_MATCH => "If-Match",
        header::IF_NONE_MATCH => "If-None-Match",
        _ => name.as_str(),
    };
    value
        .to_str()
        .ok()
        .and_then(parse)
        .map(Some)
        .ok_or_else(|| {
            ApiError::bad_request(
                ErrorCode::InvalidParameter,
                format!("{header} must be * or a list of entity tags such as {example}"),
            )
            .with("field", header)
        })
}

/// An `If-Match` or `If-None-Match` value.
#[derive(Debug, PartialEq, Eq)]
pub enum Condition<'a> {
    /// `*`: any current representation.
    Any,
    Tags(Vec<Tag<'a>>),
}

/// Parses `"*"` or a comma-separated list of entity tags; `None` for anything else. A bare
/// number (`12`, not quoted) is read as the tag `"12"`, as earlier versions accepted it.
pub fn parse(value: &str) -> Option<Condition<'_>> {
    let value = value.trim();
    if value == "*" {
        return Some(Condition::Any);
    }
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Condition::Tags(vec![Tag {
            weak: false,
            opaque: value,
        }]));
    }
    let mut tags = Vec::new();
    let mut rest = value;
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        if rest.is_empty() {
            break;
        }
        let weak = rest.starts_with("W/");
        if weak {
            rest = &rest[2..];
        }
        let inner = rest.strip_prefix('"')?;
        let end = inner.find('"')?;
        let opaque = &inner[..end];
        // etagc: visible ASCII but the quote, or obs-text.
        if !opaque
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x7e).contains(&b) || b >= 0x80)
        {
            return None;
        }
        tags.push(Tag { weak, opaque });
        rest = &inner[end + 1..];
        let next = rest.trim_start_matches([' ', '\t']);
        if !(next.is_empty() || next.starts_with(',')) {
            return None;
        }
    }
    (!tags.is_empty()).then_some(Condition::Tags(tags))
}

/// The tag of a game representation (the opaque part; send it quoted).
pub fn game_tag(version: i64, seat: Option<i16>, body: &[u8]) -> String {
    let viewer = match seat {
        Some(seat) => format!("s{seat}"),
        None => "spectator".to_string(),
    };
    let digest = hex::encode(&Sha256::digest(body)[..8]);
    format!("v{version}-{viewer}-{digest}")
}

/// The game version a tag of ours names: `v{N}-{s<seat>|spectator}-{16 hex digits}`, with
/// the coding it was sent in, if any (the shape [`game_tag`] and [`coded`] write; a tag of
/// another shape is none of ours) or a plain `N`.
pub fn version_of(opaque: &str) -> Option<i64> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let number = match opaque.strip_prefix('v') {
        Some(rest) => {
            let rest = ["br", "gzip", "deflate"]
                .iter()
                .find_map(|coding| rest.strip_suffix(coding)?.strip_suffix('-'))
                .unwrap_or(rest);
            let mut parts = rest.split('-');
            let (number, viewer, digest) = (parts.next()?, parts.next()?, parts.next()?);
            let viewer_ok = viewer == "spectator" || viewer.strip_prefix('s').is_some_and(digits);
            let digest_ok = digest.len() == 16
                && digest
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            if parts.next().is_some() || !viewer_ok || !digest_ok {
                return None;
            }
            number
        }
        None => opaque,
    };
    if !digits(number) {
        return None;
    }
    number.parse().ok()
}

/// The tag of a player's note (the opaque part; send it quoted): `note-{digest}`, the digest
/// being the note's own (`service::notes::digest`: 16 hex digits of its text's SHA-256), so
/// equal texts have equal tags and another text another tag.
pub fn note_tag(digest: &str) -> String {
    format!("note-{digest}")
}

/// The note digest a tag of ours names (the shape [`note_tag`] and [`coded`] write), else
/// `None`.
pub fn note_digest_of(opaque: &str) -> Option<&str> {
    let rest = opaque.strip_prefix("note-")?;
    let digest = ["br", "gzip", "deflate"]
        .iter()
        .find_map(|coding| rest.strip_suffix(coding)?.strip_suffix('-'))
        .unwrap_or(rest);
    (digest.len() == 16
        && digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
    .then_some(digest)
}

/// Whether `If-None-Match` matches a representation tagged `current` (weak comparison).
pub fn none_match(condition: &Condition<'_>, current: &str) -> bool {
    match condition {
        Condition::Any => true,
        Condition::Tags(tags) => tags.iter().any(|t| t.opaque == current),
    }
}

/// Whether `If-Match` matches a representation tagged `current` (strong comparison: a weak
/// tag never does).
pub fn matches(condition: &Condition<'_>, current: &str) -> bool {
    match condition {
        Condition::Any => true,
        Condition::Tags(tags) => tags.iter().any(|t| !t.weak && t.opaque == current),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_lists_parse_as_rfc_9110_writes_them() {
        assert_eq!(parse(" * "), Some(Condition::Any));
        assert_eq!(
            parse(r#""v1-s0-ab", W/"v2", "x,y""#),
            Some(Condition::Tags(vec![
                Tag {
                    weak: false,
                    opaque: "v1-s0-ab"
                },
                Tag {
                    weak: true,
                    opaque: "v2"
                },
                Tag {
                    weak: false,
                    opaque: "x,y"
                },
            ]))
        );
        assert_eq!(
            parse("12"),
            Some(Condition::Tags(vec![Tag {
                weak: false,
                opaque: "12"
            }]))
        );
        for bad in [
            "",
            "abc",
            "\"open",
            "\"a\" \"b\"",
            "W/12",
            "\"a b\"",
            ",",
            "v12",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn versions_come_from_our_tags_only() {
        assert_eq!(version_of("v12-s0-0123456789abcdef"), Some(12));
        assert_eq!(version_of("v0-spectator-0000000000000000"), Some(0));
        assert_eq!(version_of("12"), Some(12));
        for other in [
            "",
            "v",
            "v-1",
            "vx-s0",
            "abc",
            "-3",
            "1.5",
            "v22-spectator-not-a-digest",
            "v12-s0-0123abcd",
            "v12-sx-0123456789abcdef",
            "v12-s0-0123456789ABCDEF",
            "v12-s0-0123456789abcdef-extra",
        ] {
            assert_eq!(version_of(other), None, "{other:?}");
        }
        let tag = game_tag(7, Some(2), b"{}");
        assert!(
            tag.starts_with("v7-s2-") && tag.len() == "v7-s2-".len() + 16,
            "{tag}"
        );
        assert_ne!(game_tag(7, Some(2), b"{}"), game_tag(7, Some(2), b"{ }"));
        assert_ne!(game_tag(7, None, b"{}"), game_tag(7, Some(2), b"{}"));
        // Each coding's tag names the same version.
        for coding in ["br", "gzip", "deflate"] {
            assert_eq!(version_of(&coded(tag.clone(), Some(coding))), Some(7));
        }
        for other in ["-zstd", "-br-gzip", "br", "-"] {
            assert_eq!(version_of(&format!("{tag}{other}")), None, "{other}");
        }
    }

    #[test]
    fn note_tags_name_their_digest_in_any_coding() {
        let tag = note_tag("0123456789abcdef");
        assert_eq!(tag, "note-0123456789abcdef");
        assert_eq!(note_digest_of(&tag), Some("0123456789abcdef"));
        for coding in ["br", "gzip", "deflate"] {
            assert_eq!(
                note_digest_of(&coded(tag.clone(), Some(coding))),
                Some("0123456789abcdef")
            );
        }
        for other in [
            "",
            "note-",
            "note-0123",
            "note-0123456789ABCDEF",
            "note-0123456789abcdef-zstd",
            "v1-s0-0123456789abcdef",
            "0123456789abcdef",
        ] {
            assert_eq!(note_digest_of(other), None, "{other:?}");
        }
    }

    #[test]
    fn if_match_compares_strongly() {
        let tag = "v1-s0-0123456789abcdef-br";
        assert!(matches(&Condition::Any, tag));
        assert!(matches(&parse(&format!("\"x\", \"{tag}\"")).unwrap(), tag));
        assert!(!matches(&parse(&format!("W/\"{tag}\"")).unwrap(), tag));
        assert!(!matches(&parse("\"v1-s0-0123456789abcdef\"").unwrap(), tag));
        // If-None-Match compares weakly.
        assert!(none_match(&parse(&format!("W/\"{tag}\"")).unwrap(), tag));
    }
}
