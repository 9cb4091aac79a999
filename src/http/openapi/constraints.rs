//! What the server accepts, where utoipa's attributes cannot say it: enums and consts of
//! fields the Rust types carry as plain strings, limits that come from the code's constants
//! and the settings, and the patterns of the server's text check (`crate::text`), written
//! once here (utoipa's `pattern` takes a literal only).

use super::{for_each_operation, prefix_of, property_mut};
use crate::games::GameKind;
use crate::with_rules;
use serde_json::{Value, json};

/// The push choice (`push` of the notification preferences) is a map whose keys are the
/// notice kinds: said in the schema (`propertyNames`), so that a client knows the keys and
/// an unknown one is outside the contract (it is refused with `unknown_notice_kind`).
/// (A `schema_with` at the two fields could say it; `Preferences` lives with the notices,
/// which are being reworked, so both stay here until that lands.)
pub(super) fn name_push_kinds(spec: &mut Value) {
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

/// Says what the server accepts and answers where utoipa's attributes cannot: the registered
/// kinds, the lifecycle states and constants of fields the Rust types carry as plain strings
/// (utoipa has no `enum` or `const` for a string field), and the limits that come from the
/// code's constants and the settings' defaults (its `minimum`, `max_length`… take literals
/// only). Literal limits are at the fields (`#[schema(max_length = …)]`, `#[param(…)]`).
/// Lengths are in characters; where the server counts bytes the limit is left to the
/// description.
pub(super) fn constrain_fields(spec: &mut Value) {
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
pub(super) const RESUME_ID: &str = "^[0-9]+(\\.[0-9]+)?$";

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
pub(super) fn constrain_request_text(spec: &mut Value) {
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
