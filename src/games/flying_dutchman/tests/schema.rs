//! The API schemas (utoipa) of the wire types: complete, and named apart from other games.

use super::super::*;
use std::collections::{BTreeMap, BTreeSet};
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

fn collect<T: ToSchema>(all: &mut Vec<(String, RefOr<Schema>)>) {
    all.push((T::name().into_owned(), T::schema()));
    T::schemas(all);
}

fn refs(value: &serde_json::Value, out: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                if k == "$ref" {
                    out.insert(v.as_str().unwrap().to_string());
                } else {
                    refs(v, out);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[test]
fn every_schema_reference_resolves_and_names_are_prefixed() {
    let mut all = Vec::new();
    collect::<Options>(&mut all);
    collect::<Command>(&mut all);
    collect::<Event>(&mut all);
    collect::<View>(&mut all);
    collect::<Legal>(&mut all);
    let mut by_name: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    for (name, schema) in &all {
        let json = serde_json::to_value(schema).unwrap();
        if let Some(previous) = by_name.insert(name.clone(), json.clone()) {
            assert_eq!(previous, json, "two different schemas named {name}");
        }
    }
    let mut referenced = BTreeSet::new();
    for json in by_name.values() {
        refs(json, &mut referenced);
    }
    for r in &referenced {
        let name = r
            .strip_prefix("#/components/schemas/")
            .expect("a component reference");
        assert!(by_name.contains_key(name), "unresolved reference {r}");
    }
    for name in by_name.keys() {
        // Prefixed so they cannot clash with another game's `Command`, `Colour`, …;
        // `Outcome` is the platform's own shared type, and `u8` comes from the platform's
        // `Seat` alias (utoipa documents an alias by reference to its target).
        assert!(
            name.starts_with("Fd") || name == "Outcome" || name == "u8",
            "schema {name} is not prefixed"
        );
    }
    for expected in [
        "FdOptions",
        "FdCommand",
        "FdEvent",
        "FdView",
        "FdLegal",
        "FdBoard",
        "FdSpaceId",
    ] {
        assert!(by_name.contains_key(expected), "{expected} missing");
    }
    // The command schema is the internally tagged union the API accepts.
    let command = serde_json::to_string(&by_name["FdCommand"]).unwrap();
    for tag in [
        "use_kontor",
        "return_shares",
        "make_offer",
        "no_agreement",
        "decline_income",
    ] {
        assert!(
            command.contains(tag),
            "{tag} missing from the command schema"
        );
    }
}
