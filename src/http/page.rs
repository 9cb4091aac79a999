//! The web client: the page built from `web/` (see `web/README.md`), served at `/`.
//!
//! A release build embeds `web/dist` in the binary, so the server needs no files beside it;
//! a debug build reads the folder at run time, so a rebuilt page shows without recompiling.
//! `KONTOR_WEB_DIR` serves another build of the client from a folder instead.
//! Hashed assets (`/assets/…`) are cached for a year; the page itself is revalidated. Paths
//! of the page's own screens (`/games/…`, `/settings`…) answer the page, which routes them in
//! the browser; anything else falls through to the API's 404 or 405.

use super::error::{ApiError, ErrorCode};
use crate::http::extract::conditional;
use crate::http::middleware::methods;
use crate::http::state::AppState;
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use rust_embed::RustEmbed;
use sha2::Digest;

#[derive(RustEmbed)]
#[folder = "web/dist"]
#[allow_missing = true]
struct Assets;

/// The first path segments of the page's screens (`/` is the lobby). Keep in step with the
/// routes in `web/src/app.tsx`.
pub const SCREENS: &[&str] = &[
    "signin",
    "signup",
    "settings",
    "new",
    "games",
    "players",
    "leaderboards",
    "verify-email",
    "reset-password",
    "tournaments",
];

const PAGE: &str = "index.html";

/// A file of the client, from the binary or from `KONTOR_WEB_DIR`.
struct File {
    data: Vec<u8>,
    /// The entity tag, without its quotes: a digest of the content.
    tag: String,
    mime: String,
}

async fn file(state: &AppState, name: &str) -> Option<File> {
    let Some(dir) = &state.config.web_dir else {
        let asset = Assets::get(name)?;
        return Some(File {
            tag: hex::encode(&asset.metadata.sha256_hash()[..16]),
            mime: asset.metadata.mimetype().to_string(),
            data: asset.data.into_owned(),
        });
    };
    // Only plain names below the folder: no `..`, no hidden files, no absolute paths.
    if name
        .split('/')
        .any(|part| part.is_empty() || part.starts_with('.') || part.contains('\\'))
    {
        return None;
    }
    let path = dir.join(name);
    let data = tokio::fs::read(&path).await.ok()?;
    let digest = sha2::Sha256::digest(&data);
    Some(File {
        tag: hex::encode(&digest[..16]),
        mime: mime_guess::from_path(&path)
            .first_or_octet_stream()
            .essence_str()
            .to_string(),
        data,
    })
}

/// Serves an asset, the page for one of its screens, or what the API answers for an unknown
/// path (the default service).
pub async fn page_or_unrouted(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let path = req.path();
    let readable = req.method() == Method::GET || req.method() == Method::HEAD;
    if !readable || path.starts_with("/api/") {
        return methods::unrouted(req, state).await;
    }
    let name = path.trim_start_matches('/');
    if !name.is_empty()
        && !name.ends_with('/')
        && let Some(found) = file(&state, name).await
    {
        return answer(&req, name, found);
    }
    let first = name.split('/').next().unwrap_or_default();
    if name.is_empty() || SCREENS.contains(&first) {
        return match file(&state, PAGE).await {
            Some(page) => answer(&req, PAGE, page),
            None => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::WebClientMissing,
                "the web client is not built: run `npm ci && npm run build` in web/ (deploy/setup.sh does) and restart",
            )
            .error_response(),
        };
    }
    methods::unrouted(req, state).await
}

fn answer(req: &HttpRequest, name: &str, file: File) -> HttpResponse {
    let File { data, tag, mime } = file;
    let tag = conditional::coded(tag, conditional::coding(req, &mime));
    let cache = if name.starts_with("assets/") {
        // Vite names them by their content: a changed file is a new name.
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    let unchanged = conditional::condition_header(req, header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .and_then(conditional::parse)
        .is_some_and(|condition| conditional::none_match(&condition, &tag));
    let mut response = if unchanged {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    response
        .insert_header((header::CACHE_CONTROL, cache))
        .insert_header(header::ETag(header::EntityTag::new_strong(tag)));
    if unchanged {
        return response.finish();
    }
    let mime = if mime.starts_with("text/") || mime.ends_with("javascript") {
        format!("{mime}; charset=utf-8")
    } else {
        mime
    };
    response
        .insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_str(&mime)
                .unwrap_or(HeaderValue::from_static("application/octet-stream")),
        ))
        .body(data)
}
