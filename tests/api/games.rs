//! Whole games through the API, and the hidden-information property.

use crate::bots::{self, Seen};
use crate::support::*;
use kontor::games::flying_dutchman::FlyingDutchman;
use kontor::games::{Rules, Viewer};
use serde_json::{Value, json};
use uuid::Uuid;

async fn players(app: &TestApp, count: usize) -> Vec<User> {
    let mut players = Vec::new();
    for i in 0..count {
        players.push(app.register(&format!("player{i}")).await);
    }
    players
}

async fn finished_detail(app: &TestApp, game: Uuid, user: &User) -> Value {
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(user)
        .send()
        .await;
    let detail = detail.assert_ok().clone();
    assert_eq!(detail["status"], "finished");
    detail
}

#[tokio::test]
async fn a_whole_flying_dutchman_game_through_the_api() {
    let app = spawn_app().await;
    let players = players(&app, 4).await;
    let game = app
        .start_game("flying-dutchman", json!({"edition": "1992"}), &players)
        .await;
    bots::play_to_end(&app, game, &players, bots::flying_dutchman, 7).await;
    let detail = finished_detail(&app, game, &players[0]).await;
    let outcome = &detail["outcome"];
    assert_eq!(outcome["ranks"].as_array().unwrap().len(), 4);
    assert!(!outcome["winners"].as_array().unwrap().is_empty());
    // The seed is revealed and matches the commitment made before the start.
    let seed = hex::decode(detail["seed"].as_str().unwrap()).unwrap();
    assert_eq!(
        kontor::games::rng::commitment(&seed.try_into().unwrap()),
        detail["seed_commitment"].as_str().unwrap()
    );
    // Nobody is pending, nothing more is accepted.
    assert!(detail["pending"].as_array().unwrap().is_empty());
    let reply = app
        .act(&players[0], game)
        .version(detail["version"].as_i64().unwrap())
        .send(&json!({"type": "pass"}))
        .await;
    reply.assert_problem(409, "game_not_active");
    let finished = app
        .get("/games?view=finished")
        .as_user(&players[1])
        .send()
        .await;
    assert_eq!(finished.body["items"][0]["id"], game.to_string());
}

#[tokio::test]
async fn a_whole_steel_driver_game_through_the_api() {
    let app = spawn_app().await;
    let players = players(&app, 3).await;
    let game = app.start_game("steel-driver", json!({}), &players).await;
    bots::play_to_end(&app, game, &players, bots::steel_driver, 11).await;
    let detail = finished_detail(&app, game, &players[2]).await;
    let scores = detail["outcome"]["scores"].as_array().unwrap();
    assert_eq!(scores.len(), 3);
    assert!(scores.iter().all(|s| s.as_i64().unwrap() >= 0));
    assert_eq!(detail["view"]["round"], 5, "{}", detail["view"]);
}

/// The private parts of a Flying Dutchman player entry in a view.
const PRIVATE_PLAYER_FIELDS: [&str; 2] = ["shares", "horseshoes"];

/// Checks everything one game sent to its seats: each view is exactly the rules engine's
/// view for that seat at that version, each returned event exactly the engine's redaction for
/// that seat, and no view carries another seat's hand.
fn check_nothing_leaked(seen: &Seen, log: &[Value], seats: usize) {
    // States after each version, folded from the complete log.
    let mut states = vec![<FlyingDutchman as Rules>::State::default()];
    let mut events_by_seq = std::collections::HashMap::new();
    for line in log {
        let mut state = states.last().unwrap().clone();
        if !line["type"].as_str().unwrap().starts_with("kontor.") {
            let event: <FlyingDutchman as Rules>::Event =
                serde_json::from_value(line["data"].clone()).unwrap();
            FlyingDutchman::evolve(&mut state, &event);
            events_by_seq.insert(line["seq"].as_i64().unwrap(), event);
        }
        states.push(state);
    }
    for (seat, detail) in &seen.views {
        let version = detail["version"].as_u64().unwrap() as usize;
        let expected = serde_json::to_value(FlyingDutchman::view(
            &states[version],
            Viewer::Seat(*seat as u8),
        ))
        .unwrap();
        assert_eq!(
            detail["view"], expected,
            "seat {seat} at version {version} got a view the rules do not give it"
        );
        let expected_legal =
            serde_json::to_value(FlyingDutchman::legal(&states[version], *seat as u8)).unwrap();
        assert_eq!(detail["legal"], expected_legal);
        for (other, player) in detail["view"]["players"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            // A bankrupt player's cards become public (rules, section 6).
            let public = player["bankrupt"] == true;
            for field in PRIVATE_PLAYER_FIELDS {
                assert_eq!(
                    player.get(field).is_some(),
                    other == *seat || public,
                    "seat {seat} was sent {field} of seat {other}: {player}"
                );
            }
        }
        assert!(
            detail["view"].get("hidden").is_none(),
            "seat {seat} saw the hidden parts"
        );
        assert!(
            detail["seed"].is_null(),
            "the seed was revealed before the end"
        );
    }
    for (seat, ended, events) in &seen.action_events {
        // Once the game is over, the whole log is everyone's.
        let viewer = if *ended {
            Viewer::Omniscient
        } else {
            Viewer::Seat(*seat as u8)
        };
        for served in events.as_array().unwrap() {
            let seq = served["seq"].as_i64().unwrap();
            let Some(event) = events_by_seq.get(&seq) else {
                continue;
            };
            let expected =
                FlyingDutchman::redact(event, viewer).map(|e| serde_json::to_value(e).unwrap());
            assert_eq!(
                Some(&served["data"]),
                expected.as_ref(),
                "seat {seat} got event {seq} unredacted"
            );
        }
    }
    assert!(seats >= 3);
}

#[tokio::test]
async fn hidden_information_never_reaches_another_seat() {
    let app = spawn_app().await;
    let everyone = players(&app, 6).await;
    for (round, seats) in [3usize, 4, 5, 6, 4, 5].into_iter().enumerate() {
        let table = &everyone[..seats];
        let game = app.start_game("flying-dutchman", json!({}), table).await;
        // While the game runs, each seat's log is its redaction too.
        let seen =
            bots::play_to_end(&app, game, table, bots::flying_dutchman, 100 + round as u64).await;
        let export = app.export(game, &table[0]).await;
        let log: Vec<Value> = export
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        check_nothing_leaked(&seen, &log, seats);
    }
}
