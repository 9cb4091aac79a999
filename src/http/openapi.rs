//! The OpenAPI 3.1 description, assembled from the handlers and the games' own schemas.

use super::error::ERROR_CODES;
use crate::games::{GameKind, Rules};
use crate::with_rules;
use actix_web::{App, get};
use serde_json::Value;
use utoipa::openapi::OpenApi as Spec;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};
use utoipa_actix_web::AppExt;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Kontor API",
        version = "1",
        description = include_str!("openapi-intro.md"),
        license(name = "MIT OR Apache-2.0")
    ),
    modifiers(&BearerAuth),
    tags(
        (name = "accounts", description = "Registration, login, tokens."),
        (name = "lobby", description = "Creating, finding and joining games."),
        (name = "play", description = "Views, legal actions and submitting actions."),
        (name = "audit", description = "Event logs, exports, fairness verification and import."),
        (name = "notifications", description = "Mail preferences, one-click unsubscribe, failed mails."),
        (name = "meta", description = "This description."),
    ),
    components(schemas(super::error::Problem, crate::service::PlatformEvent, crate::service::EventOut))
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
    }
}

/// This description (OpenAPI 3.1).
#[utoipa::path(
    tag = "meta",
    responses((status = 200, description = "The OpenAPI description of this API.", body = Object))
)]
#[get("/openapi.json")]
pub async fn serve_spec(state: actix_web::web::Data<super::AppState>) -> actix_web::HttpResponse {
    actix_web::HttpResponse::Ok().json(&state.openapi)
}

/// The whole description, as served at `/api/v1/openapi.json` and committed in `openapi/`.
pub fn build() -> Value {
    let (_, mut spec) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .service(utoipa_actix_web::scope("/api/v1").configure(super::configure))
        .split_for_parts();
    let mut description = spec.info.description.take().unwrap_or_default();
    description.push_str("\n\n## Error codes\n\n| code | status | meaning |\n|---|---|---|\n");
    for (code, status, meaning) in ERROR_CODES {
        description.push_str(&format!("| `{code}` | {status} | {meaning} |\n"));
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
    let mut value = serde_json::to_value(&spec).expect("the spec serialises");
    for kind in GameKind::ALL {
        with_rules!(kind, R => add_game_schemas::<R>(&mut value));
    }
    value
}

/// The schema-name prefix of a game's types (`FlyingDutchman.Command`).
fn prefix_of(kind: &str) -> String {
    kind.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Adds a game's Options, Command, Event, View and Legal schemas (and all they refer to)
/// under names prefixed with the game, so that two games' `Command` types never collide.
fn add_game_schemas<R: Rules>(spec: &mut Value) {
    let prefix = prefix_of(R::KIND);
    let mut collected = Vec::new();
    collect::<R::Options>("Options", &mut collected);
    collect::<R::Command>("Command", &mut collected);
    collect::<R::Event>("Event", &mut collected);
    collect::<R::View>("View", &mut collected);
    collect::<R::Legal>("Legal", &mut collected);
    let names: Vec<String> = collected.iter().map(|(n, _)| n.clone()).collect();
    let schemas = spec
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .expect("the spec has component schemas");
    for (name, mut schema) in collected {
        rename_refs(&mut schema, &names, &prefix);
        schemas.insert(format!("{prefix}.{name}"), schema);
    }
}

/// A type's schema under `name`, followed by every schema it refers to.
fn collect<T: ToSchema>(name: &str, into: &mut Vec<(String, Value)>) {
    let as_json = |schema| serde_json::to_value(schema).expect("schemas serialise");
    into.push((name.to_string(), as_json(T::schema())));
    let mut nested = Vec::new();
    T::schemas(&mut nested);
    into.extend(nested.into_iter().map(|(n, s)| (n.to_string(), as_json(s))));
}

fn rename_refs(value: &mut Value, names: &[String], prefix: &str) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(name) = reference.strip_prefix("#/components/schemas/")
                && names.iter().any(|n| n == name)
            {
                *reference = format!("#/components/schemas/{prefix}.{name}");
            }
            for child in map.values_mut() {
                rename_refs(child, names, prefix);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename_refs(v, names, prefix)),
        _ => {}
    }
}
