//! The web client: the page built from `web/` (see `web/README.md`), served at `/`.
//!
//! A release build embeds `web/dist` in the binary, so the server needs no files beside it;
//! a debug build reads the folder at run time, so a rebuilt page shows without recompiling.
//! Hashed assets (`/assets/…`) are cached for a year; the page itself is revalidated. Paths
//! of the page's own screens (`/games/…`, `/settings`…) answer the page, which routes them in
//! the browser; anything else falls through to the API's 404 or 405.

use super::AppState;
use super::error::ApiError;
use super::methods;
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "web/dist"]
#[allow_missing = true]
struct Assets;

/// The first path segments of the page's screens (`/` is the lobby). Keep in step with the
/// routes in `web/src/app.tsx`.
pub const SCREENS: &[&str] = &["signin", "signup", "settings", "new", "games"];

const PAGE: &str = "index.html";

/// Serves an asset, the page for one of its screens, or what the API answers for an unknown
/// path (the default service).
pub async fn page_or_unrouted(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let path = req.path();
    let readable = req.method() == Method::GET || req.method() == Method::HEAD;
    if !readable || path.starts_with("/api/") {
        return methods::unrouted(req, state).await;
    }
    let file = path.trim_start_matches('/');
    if !file.is_empty()
        && !file.ends_with('/')
        && let Some(asset) = Assets::get(file)
    {
        return answer(&req, file, asset);
    }
    let first = file.split('/').next().unwrap_or_default();
    if file.is_empty() || SCREENS.contains(&first) {
        return match Assets::get(PAGE) {
            Some(page) => answer(&req, PAGE, page),
            None => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "web_client_missing",
                "the web client is not built: run `npm ci && npm run build` in web/ (deploy/setup.sh does) and restart",
            )
            .error_response(),
        };
    }
    methods::unrouted(req, state).await
}

fn answer(req: &HttpRequest, name: &str, asset: rust_embed::EmbeddedFile) -> HttpResponse {
    let tag = format!("\"{}\"", hex(&asset.metadata.sha256_hash()[..16]));
    let cache = if name.starts_with("assets/") {
        // Vite names them by their content: a changed file is a new name.
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    let unchanged = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.split(',').any(|t| t.trim() == tag || t.trim() == "*"));
    let mut response = if unchanged {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    response
        .insert_header((header::CACHE_CONTROL, cache))
        .insert_header((header::ETAG, tag));
    if unchanged {
        return response.finish();
    }
    let mime = asset.metadata.mimetype();
    let mime = if mime.starts_with("text/") || mime.ends_with("javascript") {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_string()
    };
    response
        .insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_str(&mime)
                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
        ))
        .body(asset.data.into_owned())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
