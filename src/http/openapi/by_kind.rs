//! The schemas that carry a game's value (`GameSummary`, `GameDetail`, `GameUpdate`) as one
//! variant per game, told apart by `kind`, so that a client that has looked at `kind` has the
//! game's types without a cast. Each variant is made from the general schema (which utoipa
//! derives once, from one Rust type for all games), so this is a pass.

use super::prefix_of;
use crate::games::GameKind;
use serde_json::{Value, json};

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
pub(super) fn summary_by_kind(spec: &mut Value) {
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
pub(super) fn detail_by_kind(spec: &mut Value) {
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
pub(super) fn update_by_kind(spec: &mut Value) {
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
