//! The games' own schemas in the description: each game's types under its prefix
//! (`FlyingDutchman.Command`), the platform's table settings in each game's options, the
//! variants of tagged unions as named components, and the event types. The games' engines
//! know nothing of the description (their types derive `ToSchema` and no more), so what the
//! platform says of them is said here.

use super::{pascal, prefix_of};
use crate::games::{GameKind, Rules};
use serde_json::{Value, json};
use std::collections::HashMap;
use utoipa::ToSchema;

/// The event types `EventOut` refers to (see `service::play::game_schemas::event_type`): the
/// tags of the games' and the platform's events (`EventType`), collected once the games'
/// schemas are in, and the data of a type added later (`UnknownEvent`, whose `not` utoipa's
/// schema types cannot say).
pub(super) fn type_event_lines(spec: &mut Value) {
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
/// tag (`FlyingDutchman.EventBidPlaced`, `SteelDriver.LegalBuild`). utoipa inlines the
/// variants of an internally tagged enum: a component of its own would take a Rust type per
/// variant, in the games' engines.
pub(super) fn name_variants(spec: &mut Value) {
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

/// Every game's commands and orders refuse members they do not name (`deny_unknown_fields`),
/// which utoipa does not say of an enum's variants.
pub(super) fn close_commands(spec: &mut Value) {
    for (kind, part) in GameKind::ALL
        .into_iter()
        .flat_map(|kind| [(kind, "Command"), (kind, "Order")])
    {
        let union = format!("{}.{part}", prefix_of(kind.as_str()));
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
/// they are not required: games created before a setting existed do not store it. The games'
/// options types do not know them (the platform stores them beside), so they are added here.
pub(super) fn add_table_settings(spec: &mut Value) {
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
        "description": "Whether the game moves its players' ratings (see Ratings in docs/design.md): default `false`, stored explicitly. Refused with `undo: consent` (422 `invalid_options`, field `rated`). A game is rated only when, besides, every seat is a human at the start and nobody leaves before every seat has moved; a sandbox never is. A stored game without this member is unrated.",
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

/// utoipa turns a type alias of a primitive (`Seat = u8`) into a reference to a component
/// named after the primitive; put the primitive's schema in place of such references.
pub(super) fn inline_primitives(spec: &mut Value) {
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

/// The game's six schemas, named by their part alone (`FlyingDutchman.Command`).
const GAME_PARTS: [&str; 6] = ["Options", "Command", "Event", "View", "Legal", "Order"];

/// Adds a game's Options, Command, Event, View, Legal and Order schemas (and all they refer
/// to) under names prefixed with the game, so that two games' `Command` types never collide.
pub(super) fn add_game_schemas<R: Rules>(spec: &mut Value) {
    let prefix = prefix_of(R::KIND);
    let mut collected = Vec::new();
    collect::<R::Options>("Options", &mut collected);
    collect::<R::Command>("Command", &mut collected);
    collect::<R::Event>("Event", &mut collected);
    collect::<R::View>("View", &mut collected);
    collect::<R::Legal>("Legal", &mut collected);
    collect::<R::Order>("Order", &mut collected);
    // A part used inside another (the command an order plays) is that part, not another
    // type of the same local name. (The options stored are `FullOptions`, every one filled
    // in, though the same type as the `Options` a request sends: those stay apart.)
    let parts: HashMap<&str, &Value> = collected
        .iter()
        .filter(|(name, _)| GAME_PARTS.contains(&name.as_str()))
        .map(|(name, schema)| (name.as_str(), schema))
        .collect();
    let names: HashMap<String, String> = collected
        .iter()
        .map(|(name, schema)| {
            let local = local_name(R::KIND, name);
            let local = match local.strip_prefix("Full") {
                Some(part) if part != "Options" && parts.get(part) == Some(&schema) => {
                    part.to_string()
                }
                _ => local,
            };
            (name.clone(), format!("{prefix}.{local}"))
        })
        .collect();
    // Two types may share a name only if they are one schema (a part and its use inside
    // another).
    let mut by_name: HashMap<&String, &Value> = HashMap::new();
    for (name, schema) in &collected {
        let renamed = &names[name];
        if let Some(other) = by_name.insert(renamed, schema) {
            assert_eq!(
                other, schema,
                "two of {prefix}'s types share the name {renamed}"
            );
        }
    }
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
