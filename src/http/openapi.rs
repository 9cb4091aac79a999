//! The OpenAPI 3.1 description, assembled from the handlers and the games' own schemas.

use super::error::ErrorCode;
use crate::games::{Actor, BotLevel, GameKind, GameRng, Rules, Viewer};
use crate::service::play::game_schemas::{pascal, prefix_of};
use crate::with_rules;
use actix_web::App;
use serde_json::{Value, json};
use std::collections::HashMap;
use utoipa::openapi::OpenApi as Spec;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
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

/// The whole description, as served at `/api/v1/openapi.json` and committed in `openapi/`.
pub fn build() -> Value {
    let (_, mut spec) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .service(utoipa_actix_web::scope("/api/v1").configure(super::routes::configure))
        .configure(super::routes::configure_root)
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
    add_table_settings(&mut value);
    open_problem(&mut value);
    name_variants(&mut value);
    close_commands(&mut value);
    type_event_lines(&mut value);
    constrain_fields(&mut value);
    constrain_request_text(&mut value);
    complete_responses(&mut value);
    describe_streams(&mut value);
    name_push_kinds(&mut value);
    add_links(&mut value);
    inline_primitives(&mut value);
    optional_bodies(&mut value);
    summary_by_kind(&mut value);
    detail_by_kind(&mut value);
    update_by_kind(&mut value);
    value
}

/// Replaces schema `name` with one variant per game, told apart by `kind`: `variant` makes
/// each game's own (named `{Prefix}.{name}`, given the game's prefix) from the general
/// schema, and `name` becomes their `oneOf`, keeping the general one's description and
/// examples.
fn split_by_kind(spec: &mut Value, name: &str, variant: impl Fn(GameKind, &str, &Value) -> Value) {
    let schemas = spec
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .expect("the spec has component schemas");
    let general = schemas[name].clone();
    let mut variants = Vec::new();
    let mut mapping = serde_json::Map::new();
    for kind in GameKind::ALL {
        let prefix = prefix_of(kind.as_str());
        let own = format!("{prefix}.{name}");
        schemas.insert(own.clone(), variant(kind, &prefix, &general));
        let reference = format!("#/components/schemas/{own}");
        mapping.insert(kind.as_str().to_string(), json!(reference));
        variants.push(json!({"$ref": reference}));
    }
    let mut split =
        json!({"oneOf": variants, "discriminator": {"propertyName": "kind", "mapping": mapping}});
    for key in ["description", "example", "examples"] {
        if let Some(value) = general.get(key) {
            split[key] = value.clone();
        }
    }
    schemas.insert(name.to_string(), split);
}

/// A game's own schema (`view`, `legal`, `outcome`), or null: the members of an `anyOf`.
fn own_or_null(prefix: &str, part: &str) -> Value {
    json!([{"$ref": format!("#/components/schemas/{prefix}.{part}")}, {"type": "null"}])
}

/// `GameSummary` as one variant per game, told apart by `kind`, as `GameDetail` is: each
/// game's `options` and `outcome` are its own, so a Steel Driver outcome never parses as a
/// Flying Dutchman one (`FlyingDutchman.GameSummary`, `SteelDriver.GameSummary`). The
/// lifecycle states are one schema both share, `GameStatus`.
fn summary_by_kind(spec: &mut Value) {
    let schemas = spec
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .expect("the spec has component schemas");
    let status = std::mem::replace(
        &mut schemas["GameSummary"]["properties"]["status"],
        json!({"$ref": "#/components/schemas/GameStatus"}),
    );
    schemas.insert("GameStatus".to_string(), status);
    split_by_kind(spec, "GameSummary", |kind, prefix, general| {
        let mut summary = general.clone();
        if let Some(summary) = summary.as_object_mut() {
            summary.remove("example");
        }
        summary["description"] = json!(format!(
            "A game of `{}` as listed in the lobby and at the top of its page.",
            kind.as_str()
        ));
        let properties = &mut summary["properties"];
        properties["kind"] = json!({"type": "string", "enum": [kind.as_str()]});
        let options = &mut properties["options"];
        *options = json!({
            "$ref": format!("#/components/schemas/{prefix}.FullOptions"),
            "description": options["description"],
        });
        properties["outcome"]["anyOf"] = own_or_null(prefix, "Outcome");
        summary
    });
}

/// `GameDetail` as one variant per game, told apart by `kind`: each game's `view` and
/// `legal` are its own, so a client that has looked at `kind` has the game's types without a
/// cast (`FlyingDutchman.GameDetail`, `SteelDriver.GameDetail`).
fn detail_by_kind(spec: &mut Value) {
    split_by_kind(spec, "GameDetail", |kind, prefix, general| {
        let mut members = general["allOf"]
            .as_array()
            .and_then(|members| members.iter().find(|m| m.get("properties").is_some()))
            .cloned()
            .expect("GameDetail declares its own members");
        members["properties"]["kind"] = json!({"type": "string", "enum": [kind.as_str()]});
        for (field, part) in [("view", "View"), ("legal", "Legal")] {
            let property = &mut members["properties"][field];
            property["anyOf"] = own_or_null(prefix, part);
        }
        json!({
            "description": format!("A game of `{}` as one caller sees it.", kind.as_str()),
            "allOf": [{"$ref": format!("#/components/schemas/{prefix}.GameSummary")}, members],
        })
    });
}

/// `GameUpdate` (a game stream's `view` event) as one variant per game, told apart by
/// `kind`, as `GameDetail` is: its `view`, `legal` and `outcome` are the game's own, so a
/// client merges it into the `GameDetail` it holds without a cast.
fn update_by_kind(spec: &mut Value) {
    split_by_kind(spec, "GameUpdate", |kind, prefix, general| {
        let mut update = general.clone();
        update["description"] = json!(format!(
            "What a move can change of a game of `{}` (a game stream's `view` event).",
            kind.as_str()
        ));
        let properties = &mut update["properties"];
        properties["kind"] = json!({"type": "string", "enum": [kind.as_str()]});
        for (field, part) in [("view", "View"), ("legal", "Legal"), ("outcome", "Outcome")] {
            let property = &mut properties[field];
            *property = match property.get("description") {
                Some(description) => {
                    json!({"anyOf": own_or_null(prefix, part), "description": description})
                }
                None => json!({"anyOf": own_or_null(prefix, part)}),
            };
        }
        update
    });
}

/// The join and report-dismissal bodies may be left out (`OptionalJson` in the handlers).
/// utoipa marks a body optional only by making it nullable, which the server refuses and which
/// generators mishandle (openapi-python-client then sends its "unset" marker as JSON): an
/// optional object instead.
fn optional_bodies(spec: &mut Value) {
    for pointer in [
        "/paths/~1api~1v1~1games~1{game_id}~1join/post/requestBody",
        "/paths/~1api~1v1~1admin~1chat~1reports~1{report_id}~1dismiss/post/requestBody",
    ] {
        let body = spec.pointer_mut(pointer).expect("an optional body");
        body["required"] = json!(false);
    }
}

/// `Problem` takes further members (its flattened `extra`), which utoipa can neither allow
/// (it writes `additionalProperties: true` of no struct) nor type (they are no fields): both
/// said here, so that clients need not guess.
fn open_problem(spec: &mut Value) {
    let problem = spec
        .pointer_mut("/components/schemas/Problem")
        .expect("the spec has the Problem schema");
    problem["additionalProperties"] = json!(true);
    let integer = |description: &str| json!({"type": "integer", "description": description});
    let string = |description: &str| json!({"type": "string", "description": description});
    for (name, schema) in [
        (
            "current_version",
            integer("`version_conflict`: the game's current version."),
        ),
        (
            "version",
            integer("`invalid_resume_id`, `invalid_parameter` (`at`): the game's current version."),
        ),
        (
            "field",
            string(
                "The member, header or query parameter at fault (`invalid_field`, `invalid_parameter`, `unknown_game_kind`, `wrong_password`…).",
            ),
        ),
        (
            "parameter",
            string("`unknown_parameter`: the query parameter that is not taken."),
        ),
        (
            "line",
            integer("A refused ndjson upload: the line at fault (from 1)."),
        ),
        (
            "game_status",
            string("`game_not_active`, `wrong_status`: the game's status."),
        ),
        (
            "retry_after",
            integer(
                "`rate_limited`, `too_many_streams`, `database_unavailable`, `not_ready`: seconds to wait, as `Retry-After` says.",
            ),
        ),
        (
            "max_streams",
            integer("`too_many_streams`: how many streams one user may hold."),
        ),
        (
            "max_events",
            integer("`export_too_large`: the most events an upload may hold."),
        ),
        (
            "required_scope",
            string("`insufficient_scope`: the scope the API token lacks."),
        ),
        (
            "reason",
            string("`export_not_verified`: why the log does not verify."),
        ),
        (
            "seq",
            integer("`export_not_verified`: the event at fault, when one is."),
        ),
    ] {
        problem["properties"][name] = schema;
    }
}

/// OpenAPI links from a created or listed game to what can be done with it, so that stateful
/// clients and fuzzers can chain create → get → join/start → act.
fn add_links(spec: &mut Value) {
    let game_of = |pointer: &str| json!({"game_id": format!("$response.body#{pointer}")});
    let game_links = |pointer: &str| {
        let mut links = serde_json::Map::new();
        for (name, operation, description) in [
            ("GetGame", "get_game", "The game as the caller sees it."),
            ("JoinGame", "join_game", "Take a seat."),
            ("StartGame", "start_game", "Start it (the creator)."),
            ("SubmitAction", "submit_action", "Act in it."),
            ("GameStream", "game_stream", "Follow it live."),
            ("EventLog", "event_log", "Its event log."),
        ] {
            links.insert(
                name.to_string(),
                json!({"operationId": operation, "parameters": game_of(pointer), "description": description}),
            );
        }
        Value::Object(links)
    };
    for (path, method, status, pointer) in [
        ("/api/v1/games", "post", "201", "/id"),
        ("/api/v1/games/import", "post", "201", "/id"),
        ("/api/v1/games/{game_id}", "get", "200", "/id"),
        ("/api/v1/games/{game_id}/join", "post", "200", "/id"),
        ("/api/v1/games/{game_id}/start", "post", "200", "/id"),
    ] {
        let response = &mut spec["paths"][path][method]["responses"][status];
        assert!(response.is_object(), "{method} {path} answers {status}");
        response["links"] = game_links(pointer);
    }
}

/// The push choice (`push` of the notification preferences) is a map whose keys are the
/// notice kinds: said in the schema (`propertyNames`), so that a client knows the keys and
/// an unknown one is outside the contract (it is refused with `unknown_notice_kind`).
/// (A `schema_with` at the two fields could say it; `Preferences` lives with the notices,
/// which are being reworked, so both stay here until that lands.)
fn name_push_kinds(spec: &mut Value) {
    let kinds: Vec<&str> = crate::service::notices::NoticeKind::ALL
        .iter()
        .map(|k| k.as_str())
        .collect();
    for schema in ["Preferences", "PreferencesUpdate"] {
        if let Some(push) = spec
            .pointer_mut(&format!("/components/schemas/{schema}/properties/push"))
            .and_then(Value::as_object_mut)
        {
            push.insert("propertyNames".into(), json!({"enum": kinds}));
        }
    }
}

/// Server-sent events and ndjson have no schema language of their own in OpenAPI 3.1. A
/// stream's schema is that of one event (`event`, `id`, `data`; the data's JSON schema as its
/// `contentSchema`), as SSE-aware tools read it; each ndjson body's line schemas are given as
/// `x-ndjson-lines` beside the media type (and in words in the descriptions).
fn describe_streams(spec: &mut Value) {
    let schema = |name: &str| json!({"$ref": format!("#/components/schemas/{name}")});
    // `tournament_started` and `tournament_round` name the caller's game of the round;
    // `tournament_finished` and `tournament_cancelled` have none.
    let tournament_event = || {
        json!({"type": "object", "required": ["tournament_id", "event", "round"], "properties": {
            "tournament_id": {"type": "string", "format": "uuid"},
            "event": {"type": "string", "enum": ["started", "round", "finished", "cancelled"]},
            "round": {"type": "integer"},
            "game_id": {"type": "string", "format": "uuid"}}, "additionalProperties": true})
    };
    let streams = [
        (
            "/api/v1/games/{game_id}/stream",
            json!({"snapshot": schema("GameDetail"), "event": schema("EventOut"), "view": schema("GameUpdate")}),
        ),
        (
            "/api/v1/me/stream",
            json!({
                "snapshot": {"type": "object", "required": ["your_turn"], "properties": {"your_turn": {"type": "array", "items": {
                    "type": "object", "required": ["game_id", "kind", "version"],
                    "properties": {"game_id": {"type": "string", "format": "uuid"}, "kind": {"type": "string"}, "version": {"type": "integer"}}}}}},
                "your_turn": {"type": "object", "required": ["game_id"], "properties": {"game_id": {"type": "string", "format": "uuid"}}, "additionalProperties": true},
                "game_started": {"type": "object", "required": ["game_id"], "properties": {"game_id": {"type": "string", "format": "uuid"}}, "additionalProperties": true},
                "game_over": {"type": "object", "required": ["game_id"], "properties": {"game_id": {"type": "string", "format": "uuid"}}, "additionalProperties": true},
                "invited": {"type": "object", "required": ["game_id"], "properties": {"game_id": {"type": "string", "format": "uuid"}}, "additionalProperties": true},
                "player_left": {"type": "object", "required": ["game_id", "seat", "version"], "properties": {"game_id": {"type": "string", "format": "uuid"}, "seat": {"type": "integer", "minimum": 0}, "version": {"type": "integer"}}, "additionalProperties": true},
                "rematch": {"type": "object", "required": ["game_id", "offer_id"], "properties": {"game_id": {"type": "string", "format": "uuid"}, "offer_id": {"type": "integer"}}, "additionalProperties": true},
                "undo_requested": {"type": "object", "required": ["game_id", "request", "version"], "properties": {"game_id": {"type": "string", "format": "uuid"}, "request": {"type": "integer"}, "version": {"type": "integer"}}, "additionalProperties": true},
                "tournament_started": tournament_event(),
                "tournament_round": tournament_event(),
                "tournament_finished": tournament_event(),
                "tournament_cancelled": tournament_event(),
                "undo_closed": {"type": "object", "required": ["game_id", "request", "version", "outcome"], "properties": {"game_id": {"type": "string", "format": "uuid"}, "request": {"type": "integer"}, "version": {"type": "integer"}, "outcome": {"type": "string", "enum": ["rewound", "declined", "withdrawn", "lapsed"]}}, "additionalProperties": true},
            }),
        ),
        (
            "/api/v1/lobby/stream",
            json!({
                "snapshot": schema("LobbySnapshot"),
                "game_opened": schema("GameSummary"),
                "seats_changed": schema("GameSummary"),
                "game_started": schema("GameSummary"),
                "game_cancelled": schema("GameSummary"),
                "your_turn": schema("GameSummary"),
                "game_over": schema("GameSummary"),
                "chat_unread": schema("GameSummary"),
                "game_removed": schema("LobbyGameRemoved"),
            }),
        ),
    ];
    for (path, events) in streams {
        let media = spec
            .pointer_mut(&format!(
                "/paths/{}/get/responses/200/content/text~1event-stream",
                path.replace('~', "~0").replace('/', "~1")
            ))
            .unwrap_or_else(|| panic!("{path} answers text/event-stream"));
        // Each item of the stream is one event: its name, its id (the game's version `V`, or
        // `V.C` once a chat message is covered, where there is one) and its data, a JSON
        // document of the schema given for the name.
        let items: Vec<Value> = events
            .as_object()
            .expect("events are a map")
            .iter()
            .map(|(name, data)| {
                json!({
                    "type": "object",
                    "title": name,
                    "required": ["event", "data"],
                    "properties": {
                        "event": {"const": name},
                        "id": {"type": "string", "pattern": RESUME_ID},
                        "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": data},
                        "retry": {"type": "integer"},
                    },
                })
            })
            .collect();
        media["schema"] = json!({"oneOf": items});
    }
    let lines = json!([schema("ExportHeader"), schema("ExportEvent")]);
    // Generators know no ndjson: openapi-python-client drops an operation whose only body
    // is `application/x-ndjson`, and the content of such an answer. The same bytes are also
    // described as `application/octet-stream` (which the server takes, and answers when asked
    // for), so that they get a call with a binary body and a binary answer.
    let binary = json!({"type": "string", "format": "binary"});
    for pointer in [
        "/paths/~1api~1v1~1games~1{game_id}~1export/get/responses/200/content",
        "/paths/~1api~1v1~1games~1import/post/requestBody/content",
        "/paths/~1api~1v1~1verify/post/requestBody/content",
    ] {
        let content = spec
            .pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer} is in the spec"));
        content["application/octet-stream"] = json!({"schema": binary.clone()});
    }
    for pointer in [
        "/paths/~1api~1v1~1games~1{game_id}~1export/get/responses/200/content/application~1x-ndjson",
        "/paths/~1api~1v1~1games~1import/post/requestBody/content/application~1x-ndjson",
        "/paths/~1api~1v1~1verify/post/requestBody/content/application~1x-ndjson",
    ] {
        if let Some(media) = spec.pointer_mut(pointer) {
            media["schema"] = binary.clone();
            media["x-ndjson-lines"] = json!({
                "description": "One JSON document per line: first the header, then one event per line in version order.",
                "first": lines[0].clone(),
                "rest": lines[1].clone(),
            });
            media["examples"] =
                json!({"finished-game": {"$ref": "#/components/examples/FinishedGameLog"}});
        }
    }
    spec["components"]["examples"] = json!({"FinishedGameLog": {
        "summary": "The whole log of a finished four-player game of The Flying Dutchman",
        "value": EXAMPLE_EXPORT,
    }});
}

/// The example of an export (and of what import and verify take): the whole log of a finished
/// four-player game of The Flying Dutchman, the golden log the tests replay.
const EXAMPLE_EXPORT: &str = include_str!("../../tests/golden/flying-dutchman-4p.ndjson");

/// A problem response as the spec writes it.
fn problem(description: &str) -> Value {
    serde_json::to_value(super::error::problem_response(description)).expect("responses serialise")
}

/// Adds the answers every operation of a kind can give, which the handlers' own lists leave
/// out because they come from the shared extractors and middleware: 401 from the bearer
/// check, 400 from path, query and body parsing, 413/415/408 for bodies, 503 when the
/// database is unreachable; with the headers those answers carry (`Retry-After`,
/// `Location`) and a `servers` entry so generated clients know where paths are rooted.
fn complete_responses(spec: &mut Value) {
    spec["servers"] = json!([{"url": "/", "description": "This server (paths include /api/v1)."}]);
    let retry_after = json!({
        "Retry-After": {"description": "Seconds to wait before trying again.", "schema": {"type": "integer", "minimum": 0}}
    });
    let location = json!({
        "Location": {"description": "The address of what was created.", "schema": {"type": "string"}}
    });
    // Every answer carries it: declared once, referred to by each response.
    spec["components"]["headers"]["X-Request-Id"] = json!({
        "description": "The request's id: the client's `X-Request-Id` when it is visible ASCII of at most 128 characters, else one the server made. Problems carry it as `request_id`.",
        "required": true,
        "schema": {"type": "string", "minLength": 1, "maxLength": 128}
    });
    let request_id = json!({"$ref": "#/components/headers/X-Request-Id"});
    for_each_operation(spec, |path, operation| {
        // A public operation says so: it needs no credentials (not merely none named).
        if operation.get("security").is_none() {
            operation["security"] = json!([]);
        }
        let secured = operation["security"]
            .as_array()
            .is_some_and(|s| s.iter().any(|r| r.get("bearer").is_some()));
        let parameters = operation["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let takes_path = parameters.iter().any(|p| p["in"] == "path");
        let takes_query = parameters.iter().any(|p| p["in"] == "query");
        let json_body = operation["requestBody"]["content"]
            .get("application/json")
            .is_some();
        let any_body = operation.get("requestBody").is_some();
        let responses = operation["responses"]
            .as_object_mut()
            .expect("every operation lists responses");
        let mut add = |status: &str, description: &str| {
            responses
                .entry(status)
                .or_insert_with(|| problem(description));
        };
        if secured {
            add(
                "401",
                "No or bad credentials: `unauthenticated`, `invalid_token`, `token_expired` or `wrong_token_type`.",
            );
            // Every secured operation needs a scope or a logged-in user's session.
            add(
                "403",
                "`insufficient_scope` (an API token without the scope this needs) or `session_required` (only a logged-in user's access token may do this).",
            );
        }
        if takes_path || takes_query || json_body {
            add(
                "400",
                "`invalid_parameter` (a malformed id or query parameter, or an unknown query parameter), `malformed_json` or `invalid_body`.",
            );
        }
        if any_body {
            add("408", "`body_timeout`: the body came too slowly.");
            add("413", "`payload_too_large`.");
        }
        if json_body {
            add(
                "415",
                "`unsupported_media_type`: send `Content-Type: application/json`.",
            );
            add(
                "422",
                "`invalid_field`: a field is well-formed but not acceptable (`field` names it), e.g. text with a control character.",
            );
        }
        if path.contains("{game_id}") {
            add(
                "404",
                "`game_not_found`: no such game, or a private one the caller may not see.",
            );
        }
        if path.starts_with("/api/v1/") && !path.ends_with("/openapi.json") {
            add(
                "503",
                "`database_unavailable`: retry after `Retry-After` seconds.",
            );
        }
        for (status, response) in responses.iter_mut() {
            let declared = response
                .as_object_mut()
                .expect("responses are objects")
                .entry("headers")
                .or_insert_with(|| json!({}));
            declared["X-Request-Id"] = request_id.clone();
            let headers = match status.as_str() {
                "429" | "503" => &retry_after,
                "201" => &location,
                _ => continue,
            };
            for (name, header) in headers.as_object().expect("headers are a map") {
                declared[name] = header.clone();
            }
        }
    });
}

/// Says what the server accepts and answers where utoipa's attributes cannot: the registered
/// kinds, the lifecycle states and constants of fields the Rust types carry as plain strings
/// (utoipa has no `enum` or `const` for a string field), and the limits that come from the
/// code's constants and the settings' defaults (its `minimum`, `max_length`… take literals
/// only). Literal limits are at the fields (`#[schema(max_length = …)]`, `#[param(…)]`).
/// Lengths are in characters; where the server counts bytes the limit is left to the
/// description.
fn constrain_fields(spec: &mut Value) {
    let kinds: Vec<&str> = GameKind::ALL.iter().map(|k| k.as_str()).collect();
    let statuses = json!(["open", "active", "finished", "cancelled"]);
    let visibility = json!(["public", "private"]);
    let min_seats = GameKind::ALL
        .iter()
        .map(|k| with_rules!(*k, R => R::MIN_SEATS))
        .min();
    let max_seats = GameKind::ALL
        .iter()
        .map(|k| with_rules!(*k, R => R::MAX_SEATS))
        .max();
    let last_seat = max_seats.map(|m| m - 1);
    let scopes: Vec<&str> = crate::auth::Scope::ALL.iter().map(|s| s.as_str()).collect();
    use crate::service::play::clock;
    // Limits an operator may set: the description gives those of a server with the defaults.
    let default_of = |name: &str| -> i64 {
        crate::config::SETTINGS
            .iter()
            .find(|setting| setting.name == name)
            .and_then(|setting| setting.default.parse().ok())
            .unwrap_or_else(|| panic!("{name} has a numeric default"))
    };
    let constraints = [
        (
            "TimeControlRequest",
            "days_per_move",
            json!({"minimum": clock::DAYS_PER_MOVE.start(), "maximum": clock::DAYS_PER_MOVE.end()}),
        ),
        (
            "TimeControlRequest",
            "seconds_per_move",
            json!({"minimum": default_of("KONTOR_MIN_SECONDS_PER_MOVE"), "maximum": clock::MAX_SECONDS_PER_MOVE}),
        ),
        (
            "TimeControlRequest",
            "bank_days",
            json!({"minimum": 0, "maximum": clock::MAX_BANK_DAYS}),
        ),
        (
            "TimeControlRequest",
            "bank_seconds",
            json!({"minimum": 0, "maximum": clock::MAX_BANK_SECONDS}),
        ),
        (
            "TimeControlRequest",
            "abandon_after",
            json!({"minimum": clock::ABANDON_AFTER.start(), "maximum": clock::ABANDON_AFTER.end()}),
        ),
        (
            "VacationRequest",
            "days",
            json!({"minimum": 1, "maximum": default_of("KONTOR_VACATION_DAYS")}),
        ),
        ("CreateGameRequest", "kind", json!({"enum": kinds})),
        ("GameSummary", "kind", json!({"enum": kinds})),
        ("ExportHeader", "kind", json!({"enum": kinds})),
        ("KindInfo", "kind", json!({"enum": kinds})),
        ("GameSummary", "status", json!({"enum": statuses})),
        (
            "GameUpdate",
            "status",
            json!({"enum": ["active", "finished"]}),
        ),
        ("ExportHeader", "status", json!({"enum": statuses})),
        (
            "ActionResult",
            "status",
            json!({"enum": ["active", "finished"]}),
        ),
        (
            "CreateGameRequest",
            "visibility",
            json!({"enum": visibility}),
        ),
        ("GameSummary", "visibility", json!({"enum": visibility})),
        ("TokenPair", "token_type", json!({"const": "Bearer"})),
        ("SessionToken", "token_type", json!({"const": "Bearer"})),
        (
            "ExportHeader",
            "format",
            json!({"const": "kontor-game-log"}),
        ),
        ("Health", "status", json!({"const": "ok"})),
        (
            "CreateGameRequest",
            "seats",
            json!({"minimum": min_seats, "maximum": max_seats}),
        ),
        (
            "CreateTokenRequest",
            "scopes",
            json!({"items": {"type": "string", "enum": scopes}, "minItems": 1}),
        ),
        (
            "JoinRequest",
            "seat",
            json!({"minimum": 0, "maximum": last_seat}),
        ),
        (
            "ActionRequest",
            "seat",
            json!({"minimum": 0, "maximum": last_seat}),
        ),
        (
            "MuteRequest",
            "minutes",
            json!({"minimum": 1, "maximum": crate::service::social::chat::moderation::MAX_MUTE_MINUTES}),
        ),
        (
            "SendRequest",
            "text",
            json!({"minLength": 1, "maxLength": crate::service::social::chat::MAX_CHARS, "pattern": CHAT_TEXT}),
        ),
        // Counted after CR LF and CR become LF (which only shortens a text).
        (
            "NoteRequest",
            "text",
            json!({"maxLength": crate::service::social::notes::MAX_CHARS, "pattern": NOTE_TEXT}),
        ),
    ];
    let parameters = [
        (
            "/api/v1/leaderboards/{kind}",
            "get",
            "kind",
            json!({"enum": kinds}),
        ),
        (
            "/api/v1/players/{username}/ratings/{kind}",
            "get",
            "kind",
            json!({"enum": kinds}),
        ),
        ("/api/v1/games", "get", "kind", json!({"enum": kinds})),
        ("/api/v1/games", "get", "status", json!({"enum": statuses})),
        (
            "/api/v1/games/{game_id}/stream",
            "get",
            "last_event_id",
            json!({"pattern": RESUME_ID}),
        ),
    ];
    for_each_operation(spec, |_, operation| {
        let parameters = operation
            .get_mut("parameters")
            .and_then(Value::as_array_mut);
        for parameter in parameters.into_iter().flatten() {
            if parameter["in"] == "query" {
                // Query text is checked like body text (`crate::text`).
                let schema = &mut parameter["schema"];
                let plain = ["enum", "const", "pattern", "format", "$ref"]
                    .iter()
                    .all(|key| schema.get(*key).is_none());
                if schema["type"] == "string" && plain {
                    schema["pattern"] = json!(TEXT);
                }
                continue;
            }
            if parameter["in"] != "header" {
                continue;
            }
            // A header is there or not: it has no JSON null.
            parameter["schema"]["type"] = json!("string");
            let pattern = match parameter["name"].as_str() {
                Some("If-Match" | "If-None-Match") => ENTITY_TAGS,
                Some("Last-Event-ID") => RESUME_ID,
                _ => continue,
            };
            parameter["schema"]["pattern"] = json!(pattern);
        }
    });
    for (path, method, name, constraint) in parameters {
        let parameter = spec["paths"][path][method]["parameters"]
            .as_array_mut()
            .and_then(|list| list.iter_mut().find(|p| p["name"] == name))
            .unwrap_or_else(|| panic!("{method} {path} takes {name}"));
        for (key, value) in constraint.as_object().expect("constraints are objects") {
            parameter["schema"][key] = value.clone();
        }
    }
    // Options left out take their defaults, so no option is required of a request (and an
    // answer, which has them all, still fits).
    for kind in GameKind::ALL {
        let name = format!("{}.Options", prefix_of(kind.as_str()));
        if let Some(options) = spec["components"]["schemas"].get_mut(&name) {
            options.as_object_mut().map(|o| o.remove("required"));
        }
    }
    for (schema, field, constraint) in constraints {
        let property = property_mut(spec, schema, field)
            .unwrap_or_else(|| panic!("{schema}.{field} is in the spec"));
        for (key, value) in constraint.as_object().expect("constraints are objects") {
            property[key] = value.clone();
        }
    }
}

/// A game stream's resume id: the version `V`, or `V.C` once a chat message was covered.
const RESUME_ID: &str = "^[0-9]+(\\.[0-9]+)?$";

/// A chat message (`service::social::chat::normalise`): line breaks but no other control character,
/// line separator or bidirectional control, and something besides spaces.
const CHAT_TEXT: &str = "^[^\\u0000-\\u0009\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]*[^\\s\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069][^\\u0000-\\u0009\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]*$";

/// A note's text: no control characters but line breaks (CR LF and CR are stored as LF);
/// empty clears the note.
const NOTE_TEXT: &str = "^[^\\u0000-\\u0009\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$";

/// Text in a request may hold tabs and line breaks but no other control character (see
/// `crate::text`); one-line fields (names) not even those.
const TEXT: &str = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$";
const LINE: &str = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";

/// Gives every free-text string of a request body the pattern the server's text check
/// enforces.
fn constrain_request_text(spec: &mut Value) {
    let mut pending: Vec<String> = Vec::new();
    for_each_operation(spec, |_, operation| {
        if let Some(reference) = operation
            .pointer("/requestBody/content/application~1json/schema/$ref")
            .and_then(Value::as_str)
        {
            pending.push(reference.to_string());
        }
    });
    let mut seen = std::collections::BTreeSet::new();
    while let Some(reference) = pending.pop() {
        if !seen.insert(reference.clone()) {
            continue;
        }
        let Some(name) = reference.strip_prefix("#/components/schemas/") else {
            continue;
        };
        let Some(schema) = spec["components"]["schemas"].get_mut(name) else {
            continue;
        };
        add_text_patterns(schema, &mut pending);
    }
    for (schema, field) in [
        ("RegisterRequest", "username"),
        ("RegisterRequest", "email"),
        ("ChangeEmailRequest", "email"),
        ("ForgotPasswordRequest", "login"),
        ("LoginRequest", "username"),
        ("InviteRequest", "username"),
        ("CreateTokenRequest", "name"),
        ("ProfileUpdate", "display_name"),
        // The chat's moderation (`crate::text::line`).
        ("HideRequest", "reason"),
        ("MuteRequest", "reason"),
        ("MuteRequest", "username"),
    ] {
        if let Some(property) = property_mut(spec, schema, field) {
            property["pattern"] = json!(LINE);
        }
    }
}

/// Adds [`TEXT`] to the plain strings in `schema` and collects the schemas it refers to.
fn add_text_patterns(schema: &mut Value, pending: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                pending.push(reference.clone());
            }
            let is_string = map.get("type").is_some_and(|t| {
                t == "string"
                    || t.as_array()
                        .is_some_and(|a| a.iter().any(|x| x == "string"))
            });
            let free = ["enum", "const", "pattern", "format"]
                .iter()
                .all(|key| !map.contains_key(*key));
            if is_string && free {
                map.insert("pattern".into(), json!(TEXT));
            }
            for child in map.values_mut() {
                add_text_patterns(child, pending);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| add_text_patterns(v, pending)),
        _ => {}
    }
}

/// `*` or a comma-separated list of entity tags (RFC 9110), as `If-Match` and
/// `If-None-Match` take them.
/// A bare version number (`12`) is read as the tag `"12"`, as earlier versions accepted it.
/// An empty list is no condition.
const ENTITY_TAGS: &str = r#"^\s*(\*|[0-9]+|(W/)?"[!#-~]*"(\s*,\s*(W/)?"[!#-~]*")*)?\s*$"#;

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

/// The event types `EventOut` refers to (see `service::play::game_schemas::event_type`): the
/// tags of the games' and the platform's events (`EventType`), collected once the games'
/// schemas are in, and the data of a type added later (`UnknownEvent`, whose `not` utoipa's
/// schema types cannot say).
fn type_event_lines(spec: &mut Value) {
    let unions: Vec<String> = GameKind::ALL
        .iter()
        .map(|k| format!("{}.Event", prefix_of(k.as_str())))
        .chain(["PlatformEvent".to_string()])
        .collect();
    let schemas = &spec["components"]["schemas"];
    let mut tags: Vec<String> = unions
        .iter()
        .flat_map(|union| {
            schemas[union]["discriminator"]["mapping"]
                .as_object()
                .map(|m| m.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        })
        .collect();
    tags.sort();
    tags.dedup();
    // Event types are added with new game features (the versioning promise): the known ones
    // are `EventType`, and any other string is admitted, with its data as an `UnknownEvent`,
    // so that a client generated today keeps an event added later instead of failing on it.
    let schemas = &mut spec["components"]["schemas"];
    schemas["EventType"] = json!({
        "description": "The event types of this description: the games' and the platform's (`kontor.…`).",
        "type": "string",
        "enum": tags,
    });
    schemas["UnknownEvent"] = json!({
        "description": "An event of a type added after this description, with its members as sent.",
        "type": "object",
        "required": ["type"],
        // Not a known type: a known type's data is that type's schema.
        "properties": {"type": {"type": "string", "not": {"$ref": "#/components/schemas/EventType"}}},
        "additionalProperties": true,
    });
}

/// Gives every variant of a tagged union its own component with a discriminator mapping, so
/// generated clients get `FlyingDutchmanBid`, not `FlyingDutchmanCommandType3`. A union
/// qualifies when each member is an object whose tag property (the same in all) has one value.
/// A game's commands are named by their tag (`FlyingDutchman.Bid`); other unions by union and
/// tag (`FlyingDutchman.EventBidPlaced`, `SteelDriver.LegalBuild`).
fn name_variants(spec: &mut Value) {
    let schemas = spec
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .expect("the spec has component schemas");
    let unions: Vec<String> = schemas
        .iter()
        .filter(|(_, schema)| schema.get("oneOf").is_some())
        .map(|(name, _)| name.clone())
        .collect();
    for union in unions {
        let members = schemas[&union]["oneOf"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let Some(tag) = common_tag(&members) else {
            continue;
        };
        let (prefix, base) = match union.split_once('.') {
            Some((prefix, base)) => (format!("{prefix}."), base.to_string()),
            None => (String::new(), union.clone()),
        };
        let mut refs = Vec::new();
        let mut mapping = serde_json::Map::new();
        for member in members {
            let value = member["properties"][&tag]["enum"][0]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let variant = pascal(value.strip_prefix("kontor.").unwrap_or(&value));
            let name = if base == "Command" {
                format!("{prefix}{variant}")
            } else {
                format!("{prefix}{base}{variant}")
            };
            assert!(
                !schemas.contains_key(&name),
                "variant name {name} of {union} is taken"
            );
            let reference = format!("#/components/schemas/{name}");
            mapping.insert(value, json!(reference));
            refs.push(json!({"$ref": reference}));
            schemas.insert(name, member);
        }
        let schema = &mut schemas[&union];
        schema["oneOf"] = Value::Array(refs);
        schema["discriminator"] = json!({"propertyName": tag, "mapping": mapping});
    }
}

/// Every game's commands refuse members they do not name (`deny_unknown_fields`), which
/// utoipa does not say of an enum's variants.
fn close_commands(spec: &mut Value) {
    for kind in GameKind::ALL {
        let union = format!("{}.Command", prefix_of(kind.as_str()));
        let variants: Vec<String> = spec["components"]["schemas"][&union]["oneOf"]
            .as_array()
            .expect("a game's commands are a union")
            .iter()
            .filter_map(|member| member["$ref"].as_str())
            .filter_map(|r| r.strip_prefix("#/components/schemas/"))
            .map(str::to_string)
            .collect();
        for variant in variants {
            spec["components"]["schemas"][&variant]["additionalProperties"] = json!(false);
        }
    }
}

/// The property every member tags itself with (one allowed value), if there is one.
fn common_tag(members: &[Value]) -> Option<String> {
    let tags_of = |member: &Value| -> Vec<String> {
        member["properties"]
            .as_object()
            .map(|properties| {
                properties
                    .iter()
                    .filter(|(name, property)| {
                        property["enum"].as_array().is_some_and(|e| e.len() == 1)
                            && member["required"]
                                .as_array()
                                .is_some_and(|r| r.iter().any(|n| n == *name))
                    })
                    .map(|(name, _)| name.clone())
                    .collect()
            })
            .unwrap_or_default()
    };
    let first = members.first()?;
    tags_of(first)
        .into_iter()
        .find(|tag| members.iter().all(|m| tags_of(m).contains(tag)))
}

/// The platform's settings of a table that travel with every game's options (see
/// `service::play::table`): each game's `Options` and `FullOptions` list them. In `FullOptions`
/// they are not required: games created before a setting existed do not store it.
fn add_table_settings(spec: &mut Value) {
    let spectators = json!({
        "description": "Who besides the seated players may watch the game (its view, log, export and stream): `anyone` with its id or link (the default; also where a stored game has no such member) or only the `players` (before the start also whoever may join it). A player who blocked a seated player, or was blocked by one, may not watch either way. To those who may not, the game answers 404 `game_not_found`.",
        "$ref": "#/components/schemas/Spectators",
    });
    let undo = json!({
        "description": "Whether players may take moves back: `none` (never), `own` (a seat takes back its own moves since the last barrier at once, as long as no other seat acted since; the default for a new game) or `consent` (as `own`, and further with the consent of every seat whose moves would be undone). A stored game without this member is `none`.",
        "$ref": "#/components/schemas/UndoPolicy",
    });
    let rated = json!({
        "type": "boolean",
        "description": "Whether the game moves its players' ratings (see Ratings in docs/design.md): default `false`, stored explicitly. Refused with `undo: consent` (400 `invalid_options`, field `rated`). A game is rated only when, besides, every seat is a human at the start and nobody leaves before every seat has moved; a sandbox never is. A stored game without this member is unrated.",
    });
    for kind in GameKind::ALL {
        let default = crate::service::play::table::Chat::default_for(kind.as_str()).as_str();
        let chat = json!({
            "description": format!("Which chat channels the table has: `full` (the table channel, a private channel between any two seats, and the spectators' channel), `table` (no private channels) or `none` (no chat). Default for this game: `{default}` (also where a stored game has no such member)."),
            "$ref": "#/components/schemas/Chat",
        });
        for part in ["Options", "FullOptions"] {
            let name = format!("{}.{part}", prefix_of(kind.as_str()));
            spec["components"]["schemas"][&name]["properties"]["spectators"] = spectators.clone();
            spec["components"]["schemas"][&name]["properties"]["chat"] = chat.clone();
            spec["components"]["schemas"][&name]["properties"]["undo"] = undo.clone();
            spec["components"]["schemas"][&name]["properties"]["rated"] = rated.clone();
        }
    }
}

/// The first command of each type in one seeded bot game, with the acting seat's view and
/// legal actions at that moment.
fn collect_examples<R: Rules>(
    game: u64,
    level: BotLevel,
    examples: &mut Vec<(String, Value, Value, Value)>,
) {
    let seats = R::MIN_SEATS + 1;
    let options = R::parse_options(&json!({}), seats).expect("default options");
    let mut state = R::State::default();
    let mut rng = GameRng::from_u64(game);
    let mut version = 0;
    for event in R::setup(&options, seats, &mut rng) {
        R::evolve(&mut state, &event);
        version += 1;
    }
    let mut bot_rng = GameRng::from_u64(game + 1_000);
    for _ in 0..5_000 {
        let Some(&seat) = R::pending(&state).first() else {
            break;
        };
        let command = R::bot_command(&state, seat, level, &mut bot_rng);
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
}

/// Examples from seeded bot games: one command of each type with the acting seat's view and
/// legal actions at that moment. The seed is fixed, so the description does not change between
/// builds.
fn add_examples<R: Rules>(spec: &mut Value) {
    let prefix = prefix_of(R::KIND);
    let variants = spec["components"]["schemas"][format!("{prefix}.Command")]["oneOf"]
        .as_array()
        .map_or(0, Vec::len);
    let mut examples: Vec<(String, Value, Value, Value)> = Vec::new();
    // Seeded games of both bots until every command has shown up (the random bot reaches
    // the rarer ones: rejecting an offer, declining income), a bounded number; then the two
    // seeds a scan of 4,000 found to reach the rarest (the random bot withdrawing an offer in
    // game 970, a tie of transcontinental paths in game 192).
    for game in (1..=24u64).chain([192, 970]) {
        if examples.len() >= variants {
            break;
        }
        let level = if game % 2 == 1 {
            BotLevel::Sensible
        } else {
            BotLevel::Random
        };
        collect_examples::<R>(game, level, &mut examples);
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

/// The game's five schemas, named by their part alone (`FlyingDutchman.Command`).
const GAME_PARTS: [&str; 5] = ["Options", "Command", "Event", "View", "Legal"];

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
    let names: HashMap<String, String> = collected
        .iter()
        .map(|(name, _)| {
            (
                name.clone(),
                format!("{prefix}.{}", local_name(R::KIND, name)),
            )
        })
        .collect();
    let distinct: std::collections::HashSet<&String> = names.values().collect();
    assert_eq!(
        distinct.len(),
        names.len(),
        "two of {prefix}'s types share a name"
    );
    let schemas = spec
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
        .expect("the spec has component schemas");
    // A type both parts refer to (a colour) is collected with each: the same schema.
    for (name, mut schema) in collected {
        rename_refs(&mut schema, &names);
        schemas.insert(names[&name].clone(), schema);
    }
}

/// A game's own type under the game's prefix, without the game's name repeated: the Rust
/// types are `FdOffer` and `SteelDriverCompany`, the schemas `FlyingDutchman.Offer` and
/// `SteelDriver.Company` (so generated clients get `FlyingDutchmanOffer`, not
/// `FlyingDutchmanFdOffer`). The options every game stores, with each default filled in, are
/// `FullOptions`: `Options` is what a request may send (no option required).
fn local_name(kind: &str, name: &str) -> String {
    if GAME_PARTS.contains(&name) {
        return name.to_string();
    }
    let initials: String = kind
        .split('-')
        .filter_map(|word| word.chars().next())
        .collect();
    let initials = pascal(&initials);
    let local = [prefix_of(kind), initials]
        .iter()
        .find_map(|game| {
            name.strip_prefix(game.as_str())
                .filter(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
        })
        .unwrap_or(name);
    if GAME_PARTS.contains(&local) {
        format!("Full{local}")
    } else {
        local.to_string()
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

fn rename_refs(value: &mut Value, names: &HashMap<String, String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(name) = reference.strip_prefix("#/components/schemas/")
                && let Some(renamed) = names.get(name)
            {
                *reference = format!("#/components/schemas/{renamed}");
            }
            for child in map.values_mut() {
                rename_refs(child, names);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename_refs(v, names)),
        _ => {}
    }
}
