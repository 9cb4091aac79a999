//! Malformed bodies, queries and paths, answered as problem+json 4xx by the framework's
//! extractors' configurations.

use crate::http::error::{ApiError, ErrorCode};
use crate::http::state::MAX_JSON_BODY;
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::http::StatusCode;
use actix_web::web;

/// JSON bodies: size limit, and client mistakes answered as problem+json.
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(MAX_JSON_BODY)
        .error_handler(|error, _req| json_error(&error).into())
}

fn json_error(error: &JsonPayloadError) -> ApiError {
    match error {
        JsonPayloadError::OverflowKnownLength { length, limit } => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::PayloadTooLarge,
            format!("the body has {length} bytes; at most {limit} are accepted"),
        ),
        JsonPayloadError::Overflow { limit } => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::PayloadTooLarge,
            format!("the body is larger than the {limit} bytes accepted"),
        ),
        JsonPayloadError::ContentType => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::UnsupportedMediaType,
            "send the body as Content-Type: application/json",
        ),
        JsonPayloadError::Deserialize(e) if e.is_data() => ApiError::bad_request(
            ErrorCode::InvalidBody,
            format!("the body does not fit: {e}"),
        ),
        JsonPayloadError::Deserialize(e) => ApiError::bad_request(
            ErrorCode::MalformedJson,
            format!("the body is not valid JSON: {e}"),
        ),
        other => ApiError::bad_request(
            ErrorCode::MalformedJson,
            format!("the body could not be read: {other}"),
        ),
    }
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default()
        .error_handler(|error: QueryPayloadError, _req| query_error(&error).into())
}

pub fn query_error(error: &QueryPayloadError) -> ApiError {
    ApiError::bad_request(
        ErrorCode::InvalidParameter,
        format!("bad query parameters: {error}"),
    )
}

pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|error: PathError, _req| {
        ApiError::bad_request(ErrorCode::InvalidParameter, format!("bad path: {error}")).into()
    })
}
