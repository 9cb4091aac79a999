//! Examples from seeded bot games: one command of each type with the acting seat's view and
//! legal actions at that moment. They are played, not written, so this is a pass.

use super::prefix_of;
use crate::games::{Actor, BotLevel, GameRng, Rules, Viewer};
use serde_json::{Value, json};

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
pub(super) fn add_examples<R: Rules>(spec: &mut Value) {
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
