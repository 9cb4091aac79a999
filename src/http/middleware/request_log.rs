//! The request log: one span per request, as `tracing_actix_web`'s default records it, but
//! with the target's credentials masked (`?access_token=`, the unsubscribe link's `?token=`;
//! see [`crate::redact`]). No header but the user agent is recorded: never `Authorization`
//! or `Cookie`. The request id is the one `observe::request_id` gave the request (the
//! client's `X-Request-Id` when sane), and the client's address is `http::client_address`'s
//! (a forwarded one only from a trusted proxy), as are the scheme and host.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Version;
use actix_web::{Error, HttpMessage};
use tracing::Span;
use tracing::field::Empty;
use tracing_actix_web::{DefaultRootSpanBuilder, RequestId, RootSpanBuilder};

/// The root span of every request (the fields and names of the default builder, so log
/// searches keep working), with a masked `http.target`.
pub struct MaskedRootSpan;

impl RootSpanBuilder for MaskedRootSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let user_agent = request
            .headers()
            .get("User-Agent")
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        let route = request.match_pattern().unwrap_or_else(|| "default".into());
        // The metrics need it too: asked of the router once per request (see `observe`).
        request
            .extensions_mut()
            .insert(super::observe::RoutePattern(route.clone()));
        let method = request.method().as_str();
        let request_id = match request.extensions().get::<super::observe::RequestId>() {
            Some(id) => id.0.to_string(),
            None => request
                .extensions()
                .get::<RequestId>()
                .map(ToString::to_string)
                .unwrap_or_default(),
        };
        let client_ip = crate::http::middleware::forwarded::client_address(request.request())
            .unwrap_or_default();
        let target = crate::redact::mask_target(request.path(), request.uri().query());
        let (scheme, host) =
            crate::http::middleware::forwarded::requested_scheme_and_host(request.request());
        let name = format!("{method} {route}");
        // What the client chose (its method, agent, target, host, scheme and request id) is
        // recorded as a string, which the text log writes quoted and escaped: unquoted, an
        // agent like `x http.client_ip=10.0.0.1 request_id=forged` read as forged fields of
        // the line. (The JSON log writes every field as a JSON string either way.) The
        // route is a pattern of ours, the address a parsed one and the flavour a constant.
        tracing::info_span!(
            "HTTP request",
            http.method = method,
            http.route = %route,
            http.flavor = %flavor(request.version()),
            http.scheme = scheme.as_str(),
            http.host = host.as_str(),
            http.client_ip = %client_ip,
            http.user_agent = user_agent,
            http.target = target.as_str(),
            http.status_code = Empty,
            otel.name = name.as_str(),
            otel.kind = "server",
            otel.status_code = Empty,
            request_id = request_id.as_str(),
            exception.message = Empty,
            exception.details = Empty,
        )
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}

/// The HTTP version as the default builder writes it (`1.1`).
fn flavor(version: Version) -> &'static str {
    match version {
        Version::HTTP_09 => "0.9",
        Version::HTTP_10 => "1.0",
        Version::HTTP_11 => "1.1",
        Version::HTTP_2 => "2.0",
        Version::HTTP_3 => "3.0",
        _ => "other",
    }
}
