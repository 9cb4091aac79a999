//! What every handler can reach ([`AppState`]), and the answers shared by every resource.

use crate::auth::JwtKeys;
use crate::config::Config;
use actix_web::body::BoxBody;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, Responder};
use serde::Serialize;
use sqlx::PgPool;

/// Largest accepted JSON body.
pub const MAX_JSON_BODY: usize = 64 * 1024;

/// What every handler can reach.
pub struct AppState {
    pub pool: PgPool,
    pub jwt: JwtKeys,
    pub config: Config,
    /// The OpenAPI description, built once at start.
    pub openapi: serde_json::Value,
    /// What the command service last knew of each game (see `service::play::cache`).
    pub cache: crate::service::play::cache::ContextCache,
    /// Live notes from every instance, fanned out to this one's streams.
    pub hub: std::sync::Arc<crate::live::Hub>,
    /// The shared readings of the games with live streams here (see `service::streams::game`).
    pub feeds: std::sync::Arc<crate::service::streams::game::Feeds>,
    /// Writes this instance's appends (in batches) and announces them.
    pub committer: crate::service::play::committer::Committer,
    /// Users recently found to exist, so access tokens of vanished users are refused cheaply.
    pub known_users: crate::auth::credentials::KnownUsers,
    /// The uploaded exports being read and checked (`KONTOR_UPLOADS_MAX`…).
    pub uploads: crate::http::uploads::UploadSlots,
    /// What the database monitor last found (see `store::monitor`).
    pub database: std::sync::Arc<crate::store::monitor::DatabaseStatus>,
    /// The read replicas, how far behind each is, and who wrote last when (see
    /// `store::replica`; which reads may go to one: `http::replica_reads`).
    pub replicas: std::sync::Arc<crate::store::replica::Replicas>,
    /// The server's attempts to bring its database back (`/healthz` reads it).
    pub recovery: std::sync::Arc<crate::ops::recovery::Recovery>,
    /// The server's VAPID key pair for Web Push.
    pub vapid: std::sync::Arc<crate::service::delivery::push::vapid::Vapid>,
}

/// A `201 Created` JSON response with the created resource's address in `Location`
/// (a path below `/api/v1`, e.g. `/games/{id}`).
pub struct Created<T> {
    pub body: T,
    pub location: String,
}

impl<T> Created<T> {
    pub fn at(location: impl Into<String>, body: T) -> Self {
        Self {
            body,
            location: location.into(),
        }
    }
}

impl<T: Serialize> Responder for Created<T> {
    type Body = BoxBody;

    fn respond_to(self, _: &HttpRequest) -> HttpResponse {
        HttpResponse::Created()
            .insert_header((header::LOCATION, format!("/api/v1{}", self.location)))
            .json(self.body)
    }
}
