//! Request ids, the access log and the HTTP metrics.
//!
//! Every request gets an id: the client's (or a proxy's) `X-Request-Id` when it is sane
//! (visible ASCII, at most [`MAX_REQUEST_ID`] characters), else a fresh UUID. It is echoed in
//! the response's `X-Request-Id`, recorded in the request's log span, and written into every
//! problem body (`request_id`), so a client's report of an error can be found in the log.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::InternalError;
use actix_web::http::Method;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage};
use std::sync::Arc;
use std::time::Instant;

/// The longest request id taken from a client.
pub const MAX_REQUEST_ID: usize = 128;

/// The header that carries the id both ways.
pub const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The id of a request, in its extensions.
#[derive(Clone, Debug)]
pub struct RequestId(pub Arc<str>);

/// A client's id, if it is one to keep: visible ASCII only (nothing that could forge a log
/// line), not empty, at most [`MAX_REQUEST_ID`] characters.
fn sane(value: &[u8]) -> Option<&str> {
    let ok = !value.is_empty()
        && value.len() <= MAX_REQUEST_ID
        && value.iter().all(|b| (0x21..=0x7e).contains(b));
    ok.then(|| std::str::from_utf8(value).ok()).flatten()
}

/// Gives the request its id and echoes it (middleware for `from_fn`, the outermost: the log
/// span, the problems and even an error that escaped every other layer get it).
pub async fn request_id(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let id: Arc<str> = match req
        .headers()
        .get(&REQUEST_ID_HEADER)
        .and_then(|v| sane(v.as_bytes()))
    {
        Some(id) => id.into(),
        None => uuid::Uuid::new_v4().to_string().into(),
    };
    req.extensions_mut().insert(RequestId(id.clone()));
    let header = HeaderValue::from_str(&id).ok();
    match crate::http::request_id::CURRENT
        .scope(id.clone(), next.call(req))
        .await
    {
        Ok(mut response) => {
            if let Some(value) = header {
                response.headers_mut().insert(REQUEST_ID_HEADER, value);
            }
            Ok(response)
        }
        // An error no layer turned into a response: its response is made here, inside the
        // id's scope, rather than by the server without it (the request cannot be kept for
        // a `ServiceResponse`: routing needs it unshared).
        Err(error) => {
            let mut response =
                crate::http::request_id::CURRENT.sync_scope(id, || error.error_response());
            if let Some(value) = header {
                response.headers_mut().insert(REQUEST_ID_HEADER, value);
            }
            Err(InternalError::from_response(error.to_string(), response).into())
        }
    }
}

/// The method as a metric label: the standard ones by name, any other as `other` (a client
/// may send any token as a method; labels must stay few).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        _ => "other",
    }
}

/// A request's route pattern, as the request log's span found it: the router matches the
/// path against every route's regular expression until one fits, so it is asked once per
/// request, not once by the log and again by the metrics.
pub struct RoutePattern(pub String);

/// Counts and times each request by route pattern (never the raw path: the labels stay
/// bounded) and writes its access line (middleware for `from_fn`, inside the request's log
/// span, so the line carries the span's fields: request id, route, masked target). The time
/// is until the response's head: a live stream counts as answered once it has begun.
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let started = Instant::now();
    let route = req.extensions_mut().remove::<RoutePattern>();
    let route = route.map_or_else(
        || req.match_pattern().unwrap_or_else(|| "default".into()),
        |route| route.0,
    );
    let method = method_label(req.method());
    // The request's pool, for the errors that must tell a busy pool from a lost database.
    let serving = req
        .app_data::<actix_web::web::Data<crate::http::state::AppState>>()
        .map(|state| crate::http::serving_pool::Serving {
            pool: state.pool.clone(),
            status: state.database.clone(),
        });
    // Who wrote when, for read-your-writes (see `store::replica`): every request that may
    // write, once answered (after its commit), whatever its outcome.
    let writes = match req.method() {
        &actix_web::http::Method::GET
        | &actix_web::http::Method::HEAD
        | &actix_web::http::Method::OPTIONS => None,
        _ => req
            .app_data::<actix_web::web::Data<crate::http::state::AppState>>()
            .map(|state| state.replicas.clone()),
    };
    let outcome = match serving {
        Some(serving) => {
            crate::http::serving_pool::CURRENT
                .scope(serving, next.call(req))
                .await
        }
        None => next.call(req).await,
    };
    if let (Some(writes), Ok(response)) = (&writes, &outcome)
        && let Some(author) = response
            .request()
            .extensions()
            .get::<crate::http::serving_pool::Author>()
    {
        writes.wrote(author.0);
    }
    let status = match &outcome {
        Ok(response) => response.status(),
        Err(error) => error.as_response_error().status_code(),
    };
    let seconds = started.elapsed().as_secs_f64();
    tracing::info!(
        target: "kontor::access",
        status = status.as_u16(),
        latency_ms = seconds * 1000.0,
        "{method} {route} {}",
        status.as_u16()
    );
    crate::telemetry::http_request(&route, method, status.as_u16(), seconds);
    outcome
}

#[cfg(test)]
mod tests {
    use super::sane;

    #[test]
    fn only_visible_ascii_ids_of_bounded_length_are_kept() {
        assert_eq!(sane(b"abc-123"), Some("abc-123"));
        assert_eq!(sane(&[b'a'; 128]).map(str::len), Some(128));
        assert_eq!(sane(&[b'a'; 129]), None);
        assert_eq!(sane(b""), None);
        assert_eq!(sane(b"two words"), None);
        assert_eq!(sane(b"line\nbreak"), None);
        assert_eq!(sane("caf\u{e9}".as_bytes()), None);
    }
}
