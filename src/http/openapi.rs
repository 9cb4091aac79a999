//! The OpenAPI 3.1 description, assembled from the handlers and the games' own schemas.

use super::error::ErrorCode;
use crate::games::{Actor, BotLevel, GameKind, GameRng, Rules, Viewer};
use crate::with_rules;
use actix_web::{App, get};
use serde_json::{Value, json};
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
        (name = "live", description = "Server-Sent Events: a game as it happens, your notices."),
        (name = "audit", description = "Event logs, exports, fairness verification and import."),
        (name = "notifications", description = "Mail preferences, one-click unsubscribe, failed mails."),
        (name = "meta", description = "This description."),
        (name = "health", description = "Probes for proxies and orchestrators, at the root outside `/api/v1`."),
    ),
    components(schemas(
        super::error::Problem,
        super::error::ErrorCode,
        super::health::Health,
        crate::service::PlatformEvent,
        crate::service::EventOut,
        crate::service::lobby::ListView,
        crate::audit::ExportHeader,
        crate::audit::ExportEvent,
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
        .configure(super::configure_root)
        .split_for_parts();
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
    let mut value = serde_json::to_value(&spec).expect("the spec serialises");
    for kind in GameKind::ALL {
        with_rules!(kind, R => {
            add_game_schemas::<R>(&mut value);
            add_examples::<R>(&mut value);
        });
    }
    link_game_schemas(&mut value);
    inline_primitives(&mut value);
    value
}

/// A reference to each game's schema of one part (`Command`, `View`…).
fn one_of_games(part: &str, nullable: bool) -> Value {
    let mut choices: Vec<Value> = GameKind::ALL
        .iter()
        .map(|k| json!({"$ref": format!("#/components/schemas/{}.{part}", prefix_of(k.as_str()))}))
        .collect();
    if nullable {
        choices.push(json!({"type": "null"}));
    }
    Value::Array(choices)
}

/// Points the generic fields (an action, a view, legal actions) at the games' own schemas.
fn link_game_schemas(spec: &mut Value) {
    let schemas = spec
        .pointer_mut("/components/schemas")
        .expect("the spec has component schemas");
    for (schema, field, part, nullable, description) in [
        (
            "ActionRequest",
            "action",
            "Command",
            false,
            "The action, as its game defines it.",
        ),
        (
            "GameDetail",
            "view",
            "View",
            true,
            "The position as the caller may see it; `null` before the start.",
        ),
        (
            "GameDetail",
            "legal",
            "Legal",
            true,
            "What the caller may do now; `null` for non-players and past versions.",
        ),
    ] {
        schemas[schema]["properties"][field] =
            json!({"description": description, "oneOf": one_of_games(part, nullable)});
    }
}

/// Examples from a seeded bot game: one command of each type with the acting seat's view and
/// legal actions at that moment. The seed is fixed, so the description does not change between
/// builds.
fn add_examples<R: Rules>(spec: &mut Value) {
    let prefix = prefix_of(R::KIND);
    let options = R::parse_options(&json!({}), R::MIN_SEATS + 1).expect("default options");
    let seats = R::MIN_SEATS + 1;
    let mut state = R::State::default();
    let mut rng = GameRng::from_u64(1);
    let mut examples: Vec<(String, Value, Value, Value)> = Vec::new();
    let mut version = 0;
    for event in R::setup(&options, seats, &mut rng) {
        R::evolve(&mut state, &event);
        version += 1;
    }
    let mut bot_rng = GameRng::from_u64(2);
    for _ in 0..5_000 {
        let Some(&seat) = R::pending(&state).first() else {
            break;
        };
        let command = R::bot_command(&state, seat, BotLevel::Sensible, &mut bot_rng);
        let as_json = serde_json::to_value(&command).expect("commands serialise");
        let kind = as_json["type"].as_str().unwrap_or("command").to_string();
        if !examples.iter().any(|(k, ..)| *k == kind) {
            examples.push((
                kind,
                json!({"version": version, "action": as_json}),
                serde_json::to_value(R::view(&state, Viewer::Seat(seat))).expect("views serialise"),
                serde_json::to_value(R::legal(&state, seat)).expect("legal serialises"),
            ));
        }
        let Ok(events) = R::decide(&state, Actor::Seat(seat), &command, &mut rng) else {
            break;
        };
        for event in &events {
            R::evolve(&mut state, event);
            version += 1;
        }
    }
    let request_examples = spec
        .pointer_mut("/paths/~1api~1v1~1games~1{game_id}~1actions/post/requestBody/content/application~1json")
        .and_then(Value::as_object_mut)
        .expect("the actions endpoint has a JSON body");
    let listed = request_examples
        .entry("examples")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("examples are a map");
    for (kind, request, ..) in &examples {
        listed.insert(
            format!("{}-{kind}", R::KIND),
            json!({"summary": format!("{}: {kind}", R::KIND), "value": request}),
        );
    }
    let schemas = spec.pointer_mut("/components/schemas").expect("schemas");
    schemas[format!("{prefix}.Command")]["examples"] = Value::Array(
        examples
            .iter()
            .map(|(_, r, ..)| r["action"].clone())
            .collect(),
    );
    let sample: Vec<&(String, Value, Value, Value)> = examples.iter().take(3).collect();
    schemas[format!("{prefix}.View")]["examples"] =
        Value::Array(sample.iter().map(|(_, _, v, _)| v.clone()).collect());
    schemas[format!("{prefix}.Legal")]["examples"] =
        Value::Array(examples.iter().map(|(.., l)| l.clone()).collect());
}

/// utoipa turns a type alias of a primitive (`Seat = u8`) into a reference to a component
/// named after the primitive; put the primitive's schema in place of such references.
fn inline_primitives(spec: &mut Value) {
    const PRIMITIVES: [&str; 8] = ["u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64"];
    let schemas = spec
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .expect("the spec has component schemas");
    let primitive_names: Vec<String> = schemas
        .keys()
        .filter(|name| PRIMITIVES.contains(&name.rsplit('.').next().unwrap_or(name)))
        .cloned()
        .collect();
    let mut inlined = serde_json::Map::new();
    for name in primitive_names {
        if let Some(schema) = schemas.remove(&name) {
            inlined.insert(format!("#/components/schemas/{name}"), schema);
        }
    }
    replace_refs(spec, &inlined);
}

fn replace_refs(value: &mut Value, inlined: &serde_json::Map<String, Value>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref")
                && let Some(schema) = inlined.get(reference)
            {
                *value = schema.clone();
                return;
            }
            for child in map.values_mut() {
                replace_refs(child, inlined);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| replace_refs(v, inlined)),
        _ => {}
    }
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
