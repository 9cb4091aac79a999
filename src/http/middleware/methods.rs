//! Methods: `HEAD` wherever `GET` works, and 405 with `Allow` for a path that exists with
//! other methods (unknown paths stay 404).
//!
//! Each handler is registered for one method, and actix-web passes a request whose method
//! fits no handler on to the default service, as for an unknown path. So the default
//! service tells the two apart with the table of routes the OpenAPI description lists
//! (every route is documented, which a contract test checks).

use crate::http::error::{ApiError, ErrorCode};
use crate::http::state::AppState;
use actix_web::body::{BodySize, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use actix_web::{Error, HttpMessage, HttpRequest, HttpResponse, ResponseError, web};
use std::collections::BTreeSet;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

/// Marks a request that came as `HEAD` and is routed as `GET`.
#[derive(Clone, Copy)]
struct WasHead;

/// The method the client sent (`HEAD` for one routed as `GET`).
pub fn sent_method(req: &HttpRequest) -> Method {
    if req.extensions().get::<WasHead>().is_some() {
        Method::HEAD
    } else {
        req.method().clone()
    }
}

/// Routes `HEAD` to the `GET` handlers and sends their answer's head without its body
/// (middleware for `actix_web::middleware::from_fn`). The response keeps every header of
/// the `GET`, `Content-Length` included; the body is dropped unread, so a `HEAD` of a live
/// stream ends at once instead of holding the connection (and a stream slot).
pub async fn head_as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let head = req.method() == Method::HEAD;
    if head {
        req.head_mut().method = Method::GET;
        req.extensions_mut().insert(WasHead);
    }
    let response = next.call(req).await?;
    Ok(response.map_body(move |_, body| {
        if head {
            EitherBody::right(Headless(body.size()))
        } else {
            EitherBody::left(body)
        }
    }))
}

/// What is left of a body for `HEAD`: its size.
struct Headless(BodySize);

impl MessageBody for Headless {
    type Error = std::convert::Infallible;

    /// The size the GET would have: actix-http writes its Content-Length (or chunked) and,
    /// for a HEAD, no body bytes.
    fn size(&self) -> BodySize {
        self.0
    }

    fn poll_next(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Poll::Ready(None)
    }
}

/// A documented path: its operations, each with the query parameters it takes.
struct Route {
    segments: Vec<Segment>,
    /// How many `{parameters}` the path has: of the routes a path fits, the one with the
    /// fewest is its (as for the router: `/games/import` before `/games/{game_id}`).
    parameters: usize,
    operations: Vec<(Method, BTreeSet<String>)>,
}

/// A segment of a documented path: a literal, or a `{parameter}` with the literal text
/// around it (`{token}.ics`: "" and ".ics").
enum Segment {
    Literal(String),
    Parameter { before: String, after: String },
}

/// The segments of a documented path.
fn segments(path: &str) -> Vec<Segment> {
    path.split('/')
        .map(|segment| match (segment.find('{'), segment.rfind('}')) {
            (Some(open), Some(close)) => Segment::Parameter {
                before: segment[..open].to_string(),
                after: segment[close + 1..].to_string(),
            },
            _ => Segment::Literal(segment.to_string()),
        })
        .collect()
}

impl Route {
    /// Whether a path of these `segments` is this route, as actix-web's router matches a
    /// pattern of plain `{parameters}` (at most one a segment, each at least one character,
    /// no `/`). Asked of every route for every request, so compared segment by segment rather
    /// than with the router's regular expressions: the count first, then from the last
    /// segment, which tells most routes apart at once (they all begin with `/api/v1`).
    fn fits(&self, segments: &[&str]) -> bool {
        self.segments.len() == segments.len()
            && self
                .segments
                .iter()
                .rev()
                .zip(segments.iter().rev())
                .all(|(expected, segment)| match expected {
                    Segment::Literal(literal) => literal == segment,
                    // The parameter's own part is at least one character.
                    Segment::Parameter { before, after } => {
                        segment.len() > before.len() + after.len()
                            && segment.starts_with(before.as_str())
                            && segment.ends_with(after.as_str())
                    }
                })
    }
}

/// Every documented path, read once from the description.
fn routes(spec: &serde_json::Value) -> &'static [Route] {
    static ROUTES: OnceLock<Vec<Route>> = OnceLock::new();
    ROUTES.get_or_init(|| {
        let Some(paths) = spec["paths"].as_object() else {
            return Vec::new();
        };
        paths
            .iter()
            .map(|(path, item)| Route {
                segments: segments(path),
                parameters: path.matches('{').count(),
                operations: item
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter_map(|(method, operation)| {
                        let method = Method::from_bytes(method.to_uppercase().as_bytes()).ok()?;
                        let query = operation["parameters"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter(|p| p["in"] == "query")
                            .filter_map(|p| p["name"].as_str().map(str::to_string))
                            .collect();
                        Some((method, query))
                    })
                    .collect(),
            })
            .collect()
    })
}

/// What the description documents at a path: the operations of the route it is, each with
/// the query parameters it takes (none for a path that does not exist). Looked up once per
/// request, for both policies (methods and query parameters).
pub struct Documented(Vec<&'static (Method, BTreeSet<String>)>);

/// The operations documented at `path`.
pub fn documented(spec: &serde_json::Value, path: &str) -> Documented {
    let segments: Vec<&str> = path.split('/').collect();
    let matching: Vec<&'static Route> = routes(spec).iter().filter(|r| r.fits(&segments)).collect();
    let fewest = matching.iter().map(|r| r.parameters).min();
    Documented(
        matching
            .into_iter()
            .filter(|r| Some(r.parameters) == fewest)
            .flat_map(|r| &r.operations)
            .collect(),
    )
}

impl Documented {
    /// The query parameters the operation `method` takes, or `None` for an undocumented one.
    pub fn query_parameters(&self, method: &Method) -> Option<&'static BTreeSet<String>> {
        self.0
            .iter()
            .find(|(m, _)| m == method)
            .map(|(_, query)| query)
    }

    /// The methods the path answers, in a fixed order, `HEAD` with every `GET`; empty for a
    /// path that does not exist.
    pub fn allowed_methods(&self) -> Vec<Method> {
        let found: Vec<&Method> = self.0.iter().map(|(m, _)| m).collect();
        [
            Method::GET,
            Method::HEAD,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ]
        .into_iter()
        .filter(|m| found.contains(&m) || (*m == Method::HEAD && found.contains(&&Method::GET)))
        .collect()
    }
}

/// Anything that matches no route: 405 with `Allow` where the path exists, else 404.
pub async fn unrouted(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let method = sent_method(&req);
    let allowed = documented(&state.openapi, req.path()).allowed_methods();
    if allowed.is_empty() {
        return ApiError::not_found(
            ErrorCode::NotFound,
            format!("there is nothing at {method} {}", req.path()),
        )
        .error_response();
    }
    let list = allowed
        .iter()
        .map(Method::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    let mut response = ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::MethodNotAllowed,
        format!("{} answers {list}, not {method}", req.path()),
    )
    .error_response();
    if let Ok(value) = HeaderValue::from_str(&list) {
        response.headers_mut().insert(header::ALLOW, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::dev::ResourceDef;

    /// The segment matcher agrees with actix-web's router on every documented path, for the
    /// path itself and its near misses.
    #[test]
    fn documented_paths_fit_as_the_router_matches_them() {
        // The description as the server builds it at start, which the middleware reads.
        let spec = crate::http::openapi::build();
        let paths: Vec<&String> = spec["paths"].as_object().unwrap().keys().collect();
        let mut samples = Vec::new();
        for path in &paths {
            let filled = path
                .split('/')
                .map(|s| if s.starts_with('{') { "x%2Fy" } else { s })
                .collect::<Vec<_>>()
                .join("/");
            samples.push(filled.clone());
            samples.push(format!("{filled}/"));
            samples.push(format!("{filled}/more"));
            samples.push(path.replace(['{', '}'], ""));
            samples.push(
                path.split('/')
                    .map(|s| if s.starts_with('{') { "" } else { s })
                    .collect::<Vec<_>>()
                    .join("/"),
            );
            samples.push(filled.rsplit_once('/').unwrap().0.to_string());
        }
        let mut fitting = 0;
        for path in &paths {
            let route = Route {
                segments: segments(path),
                parameters: 0,
                operations: Vec::new(),
            };
            let router = ResourceDef::new(path.as_str());
            for sample in &samples {
                let split: Vec<&str> = sample.split('/').collect();
                assert_eq!(
                    route.fits(&split),
                    router.is_match(sample),
                    "{path} against {sample}"
                );
                fitting += usize::from(route.fits(&split));
            }
        }
        assert!(fitting >= paths.len(), "each path fits at least itself");
    }
}
