//! Golden logs: complete exports of whole games played on an earlier build, kept in
//! `tests/golden/`. A game records the rules version it was created with, and a later change
//! to the rules must not change how a stored game folds. So each log must still fold to the
//! final state and result recorded beside it, and still verify (every recorded command
//! re-decides to exactly the recorded events).
//!
//! A failure means the change alters stored games: bump the game's `RULES_VERSION` and keep the
//! old behaviour for old games. Only if just the shape of the state changed (a cache format,
//! not a fold) may the `.expected.json` be regenerated; the logs themselves never are.
//! New golden logs come from `cargo test --test api write_golden_logs -- --ignored`.

use crate::bots;
use crate::support::*;
use kontor::audit::parse_ndjson;
use kontor::audit::verify::verify_export;
use kontor::games::flying_dutchman::FlyingDutchman;
use kontor::games::steel_driver::SteelDriver;
use kontor::games::{Outcome, Rules};
use kontor::service::play::events::is_platform_event;
use kontor::service::play::log::decode_rules_events;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

fn golden_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden"))
}

/// What a log folds to: the final state's digest, the result, the number of events.
fn fold<R: Rules>(export: &str) -> Value {
    let (header, lines) = parse_ndjson(export).unwrap();
    assert!(header.complete, "golden logs are complete exports");
    let rows: Vec<kontor::store::events::EventRow> = lines
        .iter()
        .map(|l| kontor::store::events::EventRow {
            seq: l.event.seq,
            kind: l.event.kind.clone(),
            payload: l.event.data.clone(),
            audience: None,
            actor: l.event.actor,
            created_at: l.event.at,
            auto: None,
        })
        .collect();
    let events = decode_rules_events::<R>(&rows).unwrap();
    let state = R::fold(&events);
    let outcome: Outcome = R::outcome(&state).expect("a golden game is finished");
    let recorded = lines
        .iter()
        .rev()
        .find(|l| is_platform_event(&l.event.kind))
        .map(|l| l.event.data["outcome"].clone())
        .unwrap();
    assert_eq!(
        serde_json::to_value(&outcome).unwrap(),
        recorded,
        "the log's own result"
    );
    let digest = hex::encode(Sha256::digest(serde_json::to_vec(&state).unwrap()));
    json!({
        "kind": R::KIND,
        "rules_version": header.rules_version,
        "events": lines.len(),
        "outcome": outcome,
        "final_state_sha256": digest,
    })
}

fn check<R: Rules>(name: &str) {
    let dir = golden_dir();
    let export = std::fs::read_to_string(dir.join(format!("{name}.ndjson")))
        .unwrap_or_else(|e| panic!("tests/golden/{name}.ndjson: {e}"));
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{name}.expected.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(
        fold::<R>(&export),
        expected,
        "{name} no longer folds as it did: see the comment at the top of tests/api/golden.rs"
    );
    let (header, lines) = parse_ndjson(&export).unwrap();
    let verification = verify_export(&header, &lines);
    assert!(
        verification.verified,
        "{name} no longer verifies: {verification:?}"
    );
}

#[test]
fn stored_flying_dutchman_games_still_fold_and_verify() {
    check::<FlyingDutchman>("flying-dutchman-4p");
    check::<FlyingDutchman>("flying-dutchman-6p-1992");
}

#[test]
fn stored_steel_driver_games_still_fold_and_verify() {
    check::<SteelDriver>("steel-driver-3p");
    check::<SteelDriver>("steel-driver-5p");
}

/// Not a test: writes new golden logs (whole games played through the server by the API
/// bots, exported complete). Run it on purpose, with `--ignored`.
#[tokio::test]
#[ignore = "writes tests/golden/; run with --ignored to make new golden logs"]
async fn write_golden_logs() {
    let app = spawn_app().await;
    let mut everyone = Vec::new();
    for i in 0..6 {
        everyone.push(app.register(&format!("golden{i}")).await);
    }
    let games: [(&str, &str, usize, Value, bots::Chooser); 4] = [
        (
            "flying-dutchman-4p",
            "flying-dutchman",
            4,
            json!({}),
            bots::flying_dutchman,
        ),
        (
            "flying-dutchman-6p-1992",
            "flying-dutchman",
            6,
            json!({"edition": "1992"}),
            bots::flying_dutchman,
        ),
        (
            "steel-driver-3p",
            "steel-driver",
            3,
            json!({}),
            bots::steel_driver,
        ),
        (
            "steel-driver-5p",
            "steel-driver",
            5,
            json!({}),
            bots::steel_driver,
        ),
    ];
    for (index, (name, kind, seats, options, chooser)) in games.into_iter().enumerate() {
        let table = &everyone[..seats];
        let game = app.start_game(kind, options, table).await;
        bots::play_to_end(&app, game, table, chooser, 1000 + index as u64).await;
        let export = app.export(game, &table[0]).await;
        let expected = match kind {
            "flying-dutchman" => fold::<FlyingDutchman>(&export),
            _ => fold::<SteelDriver>(&export),
        };
        std::fs::write(golden_dir().join(format!("{name}.ndjson")), &export).unwrap();
        std::fs::write(
            golden_dir().join(format!("{name}.expected.json")),
            serde_json::to_string_pretty(&expected).unwrap() + "\n",
        )
        .unwrap();
    }
}
