//! Server-Sent Events and ndjson, which OpenAPI 3.1 has no schema language for, described as
//! SSE-aware tools and generators read them.

use super::constraints::RESUME_ID;
use serde_json::{Value, json};

/// Server-sent events and ndjson have no schema language of their own in OpenAPI 3.1. A
/// stream's schema is that of one event (`event`, `id`, `data`; the data's JSON schema as its
/// `contentSchema`), as SSE-aware tools read it; each ndjson body's line schemas are given as
/// `x-ndjson-lines` beside the media type (and in words in the descriptions). utoipa cannot say
/// it all: its schemas have no `const` (the SSE event names), and a path attribute's example
/// cannot refer to a component (the golden log, given once for the three bodies).
pub(super) fn describe_streams(spec: &mut Value) {
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
            json!({"snapshot": schema("GameDetail"), "event": schema("EventOut"), "view": schema("GameUpdate"),
                "orders": {"type": "object", "required": ["game_id"], "properties": {"game_id": {"type": "string", "format": "uuid"}}, "additionalProperties": true}}),
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
const EXAMPLE_EXPORT: &str = include_str!("../../../tests/golden/flying-dutchman-4p.ndjson");
