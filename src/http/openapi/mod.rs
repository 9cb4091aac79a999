//! The OpenAPI 3.1 description, assembled from the handlers and the games' own schemas.
//!
//! utoipa builds most of it from the declarations: the handlers' `#[utoipa::path]`
//! attributes (their answers, with the shared ones such as `http::error::Unauthenticated`),
//! and the types' `ToSchema` with their `#[schema(…)]` and `#[param(…)]` attributes (literal
//! limits, `schema_with` where a field holds a game's value, see
//! `service::play::game_schemas`). [`build`] then runs the passes for what utoipa cannot say,
//! each in the file of its subject and each saying why it is a pass:
//! - [`games`]: each game's schemas under its prefix, the table's settings in its options,
//!   named variants of tagged unions, the event types; [`examples`] from seeded bot games;
//!   [`by_kind`]: the game-bearing schemas as one variant per game.
//! - [`constraints`]: enums, consts and limits from the code's constants; the text patterns.
//! - [`responses`]: the answers every operation of a kind can give, declared once; links;
//!   the problem's further members; optional bodies.
//! - [`streams`]: Server-Sent Events and ndjson, which OpenAPI has no schema language for.

mod by_kind;
mod constraints;
mod examples;
mod games;
mod responses;
mod streams;

use super::error::ErrorCode;
use crate::games::GameKind;
use crate::service::play::game_schemas::{pascal, prefix_of};
use crate::with_rules;
use actix_web::App;
use serde_json::Value;
use utoipa::openapi::OpenApi as Spec;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Kontor API",
        version = "1",
        description = include_str!("intro.md"),
        license(name = "MIT OR Apache-2.0")
    ),
    modifiers(&BearerAuth, &ErrorCodeTables),
    tags(
        (name = "accounts", description = "Registration, login, tokens."),
        (name = "lobby", description = "Creating, finding and joining games."),
        (name = "play", description = "Views, legal actions and submitting actions."),
        (name = "chat", description = "Table talk beside each game's log: channels, messages, read markers, reports and moderation."),
        (name = "notes", description = "Each player's private note on a game, for their eyes only."),
        (name = "live", description = "Server-Sent Events: a game as it happens, your notices."),
        (name = "audit", description = "Event logs, exports, fairness verification and import."),
        (name = "notifications", description = "Mail preferences, one-click unsubscribe, failed mails."),
        (name = "webhooks", description = "Signed webhooks (Standard Webhooks): endpoints, secrets, delivery log, test events and redelivery."),
        (name = "push", description = "Web Push: the server's VAPID key and your browsers' push subscriptions."),
        (name = "players", description = "Public profiles, rating histories and leaderboards."),
        (name = "tournaments", description = "Correspondence tournaments: Swiss or round-robin groups, run by the server."),
        (name = "calendar", description = "The deadline calendar: a private iCalendar feed of the games where it is your move."),
        (name = "meta", description = "This description."),
        (name = "health", description = "Probes for proxies and orchestrators, at the root outside `/api/v1`."),
    ),
    components(schemas(
        super::error::Problem,
        super::error::ErrorCode,
        super::health::Health,
        crate::service::play::events::PlatformEvent,
        crate::service::play::log::EventOut,
        crate::service::play::actions::GameUpdate,
        crate::service::play::lobby::ListView,
        crate::service::play::lobby::GameResult,
        crate::service::play::lobby::TournamentGamesFilter,
        crate::http::competition::tournaments::TournamentStatus,
        crate::audit::ExportHeader,
        crate::audit::ExportEvent,
        crate::service::play::table::Spectators,
        crate::service::play::table::Chat,
        crate::service::play::undo::Policy,
        crate::http::social::chat::ReportStatus,
        crate::service::streams::lobby::LobbySnapshot,
        crate::service::streams::lobby::LobbyGameRemoved,
    ))
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut Spec) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT access token, or an API token kontor_pat_…")
                    .build(),
            ),
        );
        components.add_security_scheme(
            "session_cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                crate::http::accounts::session::SESSION_COOKIE,
                "The browser session's refresh token, in the HttpOnly cookie `POST /auth/session` sets.",
            ))),
        );
        components.add_security_scheme(
            "metrics_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("The operator's KONTOR_METRICS_TOKEN."))
                    .build(),
            ),
        );
    }
}

/// The description's tables of error codes: the platform's, then each game's rule codes.
struct ErrorCodeTables;

impl Modify for ErrorCodeTables {
    fn modify(&self, spec: &mut Spec) {
        let mut description = spec.info.description.take().unwrap_or_default();
        description.push_str("\n\n## Error codes\n\n| code | status | meaning |\n|---|---|---|\n");
        for code in ErrorCode::ALL {
            description.push_str(&format!(
                "| `{}` | {} | {} |\n",
                code.as_str(),
                code.status(),
                code.meaning()
            ));
        }
        for kind in GameKind::ALL {
            with_rules!(kind, R => {
                description.push_str(&format!(
                    "\n### Rule codes of `{}` (status 422)\n\n| code | meaning |\n|---|---|\n",
                    R::KIND
                ));
                for (code, meaning) in R::ERROR_CODES {
                    description.push_str(&format!("| `{code}` | {meaning} |\n"));
                }
            });
        }
        spec.info.description = Some(description);
    }
}

/// The whole description, as served at `/api/v1/openapi.json` and committed in `openapi/`.
pub fn build() -> Value {
    let (_, spec) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .service(utoipa_actix_web::scope("/api/v1").configure(super::routes::configure))
        .configure(super::routes::configure_root)
        .split_for_parts();
    let mut value = serde_json::to_value(&spec).expect("the spec serialises");
    for kind in GameKind::ALL {
        with_rules!(kind, R => {
            games::add_game_schemas::<R>(&mut value);
            examples::add_examples::<R>(&mut value);
        });
    }
    // The order matters where a pass reads what an earlier one wrote: the variants' names
    // before the event types collected from them, the constraints before the text patterns
    // (which leave a declared pattern alone), the common answers before the streams' and the
    // links, and the split by kind last (its variants copy the finished general schema).
    games::add_table_settings(&mut value);
    responses::open_problem(&mut value);
    games::name_variants(&mut value);
    games::close_commands(&mut value);
    games::type_event_lines(&mut value);
    constraints::constrain_fields(&mut value);
    constraints::constrain_request_text(&mut value);
    responses::complete_responses(&mut value);
    streams::describe_streams(&mut value);
    constraints::name_push_kinds(&mut value);
    responses::add_links(&mut value);
    games::inline_primitives(&mut value);
    responses::optional_bodies(&mut value);
    by_kind::summary_by_kind(&mut value);
    by_kind::detail_by_kind(&mut value);
    by_kind::update_by_kind(&mut value);
    value
}

/// Calls `f` with each operation's path and object.
fn for_each_operation(spec: &mut Value, mut f: impl FnMut(&str, &mut Value)) {
    for (path, item) in spec["paths"].as_object_mut().into_iter().flatten() {
        for (_, operation) in item.as_object_mut().into_iter().flatten() {
            f(path, operation);
        }
    }
}

/// A property of a component schema, also when it sits in an `allOf` member.
fn property_mut<'a>(spec: &'a mut Value, schema: &str, field: &str) -> Option<&'a mut Value> {
    let schema = spec.pointer_mut(&format!("/components/schemas/{schema}"))?;
    if schema["properties"].get(field).is_some() {
        return schema["properties"].get_mut(field);
    }
    schema
        .get_mut("allOf")?
        .as_array_mut()?
        .iter_mut()
        .find_map(|member| member.get_mut("properties")?.get_mut(field))
}
