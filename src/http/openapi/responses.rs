//! The answers of the operations, beyond each handler's own list: those every operation of a
//! kind can give (declared once here, from what the operation takes), the links from a game to
//! what can be done with it, the problem's further members, and the bodies that may be left
//! out.

use super::for_each_operation;
use serde_json::{Value, json};

/// The join and report-dismissal bodies may be left out (`OptionalJson` in the handlers).
/// utoipa marks a body optional only by making it nullable, which the server refuses and which
/// generators mishandle (openapi-python-client then sends its "unset" marker as JSON): an
/// optional object instead.
pub(super) fn optional_bodies(spec: &mut Value) {
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
pub(super) fn open_problem(spec: &mut Value) {
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
/// clients and fuzzers can chain create → get → join/start → act. utoipa's `links(…)` are
/// written out in each response: one list here serves the five answers that lead to a game.
pub(super) fn add_links(spec: &mut Value) {
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

/// A problem response as the spec writes it.
fn problem(description: &str) -> Value {
    serde_json::to_value(crate::http::error::problem_response(description))
        .expect("responses serialise")
}

/// Adds the answers every operation of a kind can give, which the handlers' own lists leave
/// out because they come from the shared extractors and middleware: 401 from the bearer
/// check, 400 from path, query and body parsing, 413/415/408 for bodies, 503 when the
/// database is unreachable; with the headers those answers carry (`Retry-After`,
/// `Location`) and a `servers` entry so generated clients know where paths are rooted. Declared
/// once here, from what each operation takes, instead of in every handler's list; a handler
/// lists an answer of these only to say more of it (its own description wins).
pub(super) fn complete_responses(spec: &mut Value) {
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
