//! Security headers on every response.
//!
//! Every answer says `X-Content-Type-Options: nosniff` (a browser must not guess a type, e.g.
//! run an uploaded export as script) and `Referrer-Policy: no-referrer` (links in API
//! answers and mails carry ids and tokens in their URLs; no page of ours needs to tell
//! another site where it came from). The JSON API may load nothing and be framed by nothing:
//! `default-src 'none'; frame-ancestors 'none'`. The docs page (`/docs/`, the vendored
//! Swagger UI served from the binary) loads its scripts and styles from this server only,
//! fetches the API description from it, uses `data:` images in its stylesheet and sets some
//! styles inline; it may not be framed either. The web client (every other path: `/`, its
//! screens and assets) loads scripts, styles and images from this server only, talks to this
//! server only, and sets no inline script or style: nothing injected into it could run.
//!
//! On the way out it also drops `Content-Encoding: identity`: live streams set it so that
//! `Compress` passes them by (each event must leave at once), but it names no coding (RFC 9110
//! §8.4.1 reserves it for `Accept-Encoding`), so it is not sent.

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;

/// The API's policy: a JSON answer loads nothing and is framed by nothing.
pub const API_CSP: &str = "default-src 'none'; frame-ancestors 'none'";

/// The docs page's policy: what the vendored Swagger UI needs, nothing from elsewhere.
pub const DOCS_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

/// The web client's policy: its own files and its own API, nothing inline, nothing else.
pub const WEB_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Which policy a path gets.
fn policy(path: &str) -> &'static str {
    if path == "/docs" || path.starts_with("/docs/") {
        DOCS_CSP
    } else if path.starts_with("/api/") || path == "/healthz" || path == "/readyz" {
        API_CSP
    } else {
        WEB_CSP
    }
}

/// Adds the headers (middleware for `actix_web::middleware::from_fn`).
pub async fn security_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let csp = policy(req.path());
    let mut response = next.call(req).await?;
    let headers = response.headers_mut();
    if headers
        .get(header::CONTENT_ENCODING)
        .is_some_and(|coding| coding.as_bytes().eq_ignore_ascii_case(b"identity"))
    {
        headers.remove(header::CONTENT_ENCODING);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(csp),
    );
    Ok(response)
}
