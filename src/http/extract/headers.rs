//! Request headers a handler reads itself: the `Idempotency-Key` of a command, and the
//! `User-Agent` of a login.

use crate::http::error::{ApiError, ErrorCode};
use crate::words::language::Language;
use actix_web::{FromRequest, HttpRequest, dev::Payload};
use std::future::{Ready, ready};

/// The language the caller asks refusals to be written in (`Accept-Language`; English when
/// it asks for none the server writes). The problem's `code` is the same in every language.
pub struct AcceptLanguage(pub Language);

impl FromRequest for AcceptLanguage {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let header = req
            .headers()
            .get(actix_web::http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        ready(Ok(AcceptLanguage(Language::from_accept_language(header))))
    }
}

/// The longest client description kept of a login (its `User-Agent`).
const USER_AGENT_CHARS: usize = 200;

/// The request's `Idempotency-Key`: 1 to 255 visible ASCII characters.
pub fn idempotency_key(req: &HttpRequest) -> Result<String, ApiError> {
    optional_idempotency_key(req)?.ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::IdempotencyKeyRequired,
            "send an Idempotency-Key header, unique for each action you mean to take",
        )
    })
}

/// The request's `Idempotency-Key` where one is optional: `None` without the header; one that
/// is there must be 1 to 255 visible ASCII characters.
pub fn optional_idempotency_key(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = req.headers().get("Idempotency-Key") else {
        return Ok(None);
    };
    let bytes = value.as_bytes();
    let wrong = if bytes.is_empty() {
        Some("this one is empty".to_string())
    } else if bytes.len() > 255 {
        Some(format!("this one has {} bytes", bytes.len()))
    } else if !bytes.iter().all(u8::is_ascii_graphic) {
        Some("this one holds a space, a control character or a character outside ASCII".into())
    } else {
        None
    };
    if let Some(wrong) = wrong {
        return Err(ApiError::bad_request(
            ErrorCode::IdempotencyKeyRequired,
            format!(
                "an Idempotency-Key is 1 to 255 visible ASCII characters (letters, digits, punctuation); {wrong}"
            ),
        ));
    }
    Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
}

/// The client a login comes from, as its `User-Agent` says (truncated, control characters
/// dropped), for the account's list of logins.
pub fn user_agent(req: &HttpRequest) -> Option<String> {
    let value = req.headers().get(actix_web::http::header::USER_AGENT)?;
    let text = String::from_utf8_lossy(value.as_bytes());
    let clean: String = text
        .chars()
        .filter(|c| !c.is_control())
        .take(USER_AGENT_CHARS)
        .collect();
    let clean = clean.trim().to_string();
    (!clean.is_empty()).then_some(clean)
}
