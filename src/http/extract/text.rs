//! Text from clients, checked once for every endpoint.
//!
//! Every JSON body and every query string goes through the extractors here ([`Json`],
//! [`OptionalJson`], [`Query`]; actix's own are refused by clippy, see `clippy.toml`), which
//! look at every string (and object key) before the handler sees the request: a NUL character
//! (PostgreSQL cannot store it, in `text` or `jsonb`) or another control character (other than
//! tab, line feed and carriage return) is answered with 422 `invalid_field` (400
//! `invalid_parameter` in a query) naming the field, and nothing is changed. Invalid UTF-8 is
//! not JSON and is refused while parsing (400 `malformed_json`); in a query string it is named
//! like a control character.
//!
//! What a particular field may hold beyond that (its length, whether it is one line) is checked
//! by its handler, with [`line`] for short one-line fields. The rules themselves live in
//! `crate::text`, below this layer, so the services can apply them too.

use crate::http::error::{ApiError, ErrorCode};
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, HttpResponse, Responder, web};
use futures_util::future::LocalBoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::ops::{Deref, DerefMut, RangeInclusive};

pub use crate::text::TextError;
use crate::text::{check_json, check_query};

/// A refused text as the answer to a request.
impl TextError {
    /// As a problem in a JSON body.
    pub fn in_body(self) -> ApiError {
        ApiError::unprocessable(ErrorCode::InvalidField, self.detail).with("field", self.field)
    }

    /// As a problem in a query string.
    pub fn in_query(self) -> ApiError {
        ApiError::bad_request(ErrorCode::InvalidParameter, self.detail).with("field", self.field)
    }
}

/// Checks the JSON on each line of an ndjson upload. Lines that are not JSON are left to the
/// parser, which explains them.
pub fn check_ndjson(text: &str) -> Result<(), ApiError> {
    for (index, line) in text.lines().enumerate() {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if let Err(e) = check_json(&value) {
            return Err(ApiError::unprocessable(
                ErrorCode::InvalidExport,
                format!("line {}: {}", index + 1, e.detail),
            )
            .with("line", index + 1)
            .with("field", e.field));
        }
    }
    Ok(())
}

/// A short one-line field (see [`crate::text::line`]), refused as 422 `invalid_field`.
pub fn line<'a>(
    field: &str,
    text: &'a str,
    chars: RangeInclusive<usize>,
) -> Result<&'a str, ApiError> {
    crate::text::line(field, text, chars).map_err(TextError::in_body)
}

// ---------------------------------------------------------------------------------------
// Extractors

/// A JSON body whose text has been checked (see the module), then deserialised.
/// Also a responder: `Json(value)` answers 200 with `value` as JSON.
#[derive(Debug, Default)]
pub struct Json<T>(pub T);

impl<T> Json<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> Deref for Json<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Json<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// Parses the body as JSON (size limit, content type and syntax as `http::json_config` says),
/// checks its text and deserialises it.
fn extract_json<T: DeserializeOwned>(
    req: &HttpRequest,
    payload: &mut Payload,
) -> LocalBoxFuture<'static, Result<T, actix_web::Error>> {
    #[allow(clippy::disallowed_types)] // the one place that may use actix's own extractor
    let parsed = web::Json::<Value>::from_request(req, payload);
    Box::pin(async move {
        let mut value = parsed.await?.into_inner();
        // Every body the API takes is an object. Serde would also fill a struct from an array
        // of its members in order (`[2, null]` for `{"seat": 2, "nonce": null}`), which no
        // schema of ours allows.
        if !value.is_object() {
            return Err(ApiError::bad_request(
                ErrorCode::InvalidBody,
                format!("the body must be a JSON object, not {}", json_kind(&value)),
            )
            .into());
        }
        check_json(&value).map_err(TextError::in_body)?;
        integral_floats(&mut value);
        T::deserialize(value).map_err(|e| {
            ApiError::bad_request(
                ErrorCode::InvalidBody,
                format!("the body does not fit: {e}"),
            )
            .into()
        })
    })
}

/// What a JSON value is, in words.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = extract_json::<T>(req, payload);
        Box::pin(async move { body.await.map(Json) })
    }
}

impl<T: Serialize> Responder for Json<T> {
    type Body = actix_web::body::BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        HttpResponse::Ok().json(self.0)
    }
}

/// Writes numbers like `39.0` as the integers they are: to JSON Schema (and so to the API
/// description) `39.0` is an integer, while serde would refuse it for an integer field.
fn integral_floats(value: &mut Value) {
    match value {
        Value::Number(number) => {
            // Exactly representable integers only (|x| < 2^53).
            if let Some(float) = number.as_f64().filter(|_| number.is_f64())
                && float.fract() == 0.0
                && float.abs() < 9_007_199_254_740_992.0
            {
                *value = Value::from(float as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats),
        Value::Object(members) => members.values_mut().for_each(integral_floats),
        _ => {}
    }
}

/// A JSON body that may be left out: `None` when the request has no body at all. A body that
/// is sent is checked like [`Json`]'s, so a bad one is refused rather than ignored.
#[derive(Debug, Default)]
pub struct OptionalJson<T>(pub Option<T>);

impl<T: DeserializeOwned + 'static> FromRequest for OptionalJson<T> {
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let headers = req.headers();
        let length = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .map(str::trim);
        let no_body = length == Some("0")
            || (length.is_none()
                && !headers.contains_key(header::TRANSFER_ENCODING)
                && !headers.contains_key(header::CONTENT_TYPE));
        if no_body {
            return Box::pin(async { Ok(OptionalJson(None)) });
        }
        // A body that is sent is the object itself: `null` is refused like any other
        // non-object, as the description says (it offers no `null`).
        let body = extract_json::<T>(req, payload);
        Box::pin(async move { body.await.map(|body| OptionalJson(Some(body))) })
    }
}

/// Query parameters whose text has been checked (see the module), then deserialised.
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<T> Query<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> Deref for Query<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned> FromRequest for Query<T> {
    type Error = actix_web::Error;
    type Future = std::future::Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let query = req.query_string();
        let result = check_query(query)
            .map_err(TextError::in_query)
            .and_then(|()| {
                #[allow(clippy::disallowed_types)] // the one place that may use actix's own
                let parsed = web::Query::<T>::from_query(query);
                parsed
                    .map(|q| Query(q.into_inner()))
                    .map_err(|e| crate::http::extract::malformed::query_error(&e))
            });
        std::future::ready(result.map_err(Into::into))
    }
}
