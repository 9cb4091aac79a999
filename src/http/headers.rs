//! Security headers on every response.
//!
//! Every answer says `X-Content-Type-Options: nosniff` (a browser must not guess a type, e.g.
//! run an uploaded export as script) and `Referrer-Policy: no-referrer` (links in API
//! answers and mails carry ids and tokens in their URLs; no page of ours needs to tell
//! another site where it came from). The JSON API may load nothing and be framed by nothing:
//! `default-src 'none'; frame-ancestors 'none'`. The docs page (`/docs/`, the vendored
//! Swagger UI served from the binary) loads its scripts and styles from this server only,
//! fetches the API description from it, uses `data:` images in its stylesheet and sets some
//! styles inline; it may not be framed either.

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

/// Adds the headers (middleware for `actix_web::middleware::from_fn`).
pub async fn security_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let docs = req.path() == "/docs" || req.path().starts_with("/docs/");
    let mut response = next.call(req).await?;
    let headers = response.headers_mut();
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
        HeaderValue::from_static(if docs { DOCS_CSP } else { API_CSP }),
    );
    Ok(response)
}
