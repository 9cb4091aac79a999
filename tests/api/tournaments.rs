//! Tournaments through the API: entry, the organiser's start, the worker's rounds, Swiss and
//! round-robin played out by bots, withdrawal, the deadline's adjudication, the organiser
//! setting, bad input, and re-deriving a finished tournament from its games' logs.

use crate::support::{AppOptions, TestApp, User, spawn_app, spawn_app_with};
use serde_json::{Value, json};
use std::collections::HashMap;
use uuid::Uuid;

fn in_a_day(app: &TestApp) -> String {
    (app.config.clock.now() + chrono::Duration::days(1)).to_rfc3339()
}

fn body(app: &TestApp, format: &str, rounds: u32) -> Value {
    json!({
        "name": "Winter cup", "kind": "steel-driver", "format": format, "seats_per_table": 3,
        "rounds": rounds, "entry_closes_at": in_a_day(app), "max_players": 12,
    })
}

async fn create(app: &TestApp, organiser: &User, body: &Value) -> Value {
    app.post("/tournaments")
        .as_user(organiser)
        .json(body)
        .send()
        .await
        .assert_ok()
        .clone()
}

async fn players(app: &TestApp, count: usize) -> Vec<User> {
    let mut users = Vec::new();
    for i in 0..count {
        users.push(app.register(&format!("entrant{i}")).await);
    }
    users
}

async fn enter_all(app: &TestApp, id: &str, users: &[User]) {
    for user in users {
        app.post(&format!("/tournaments/{id}/join"))
            .as_user(user)
            .send()
            .await
            .assert_ok();
    }
}

#[tokio::test]
async fn tournament_entry_leave_and_the_organisers_early_start() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let users = players(&app, 4).await;
    let created = create(&app, &organiser, &body(&app, "swiss", 2)).await;
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(created["status"], "entry");
    assert_eq!(created["organiser"], "organiser");
    assert_eq!(created["current_round"], 0);
    let listed = app
        .get("/tournaments?status=entry")
        .as_user(&users[0])
        .send()
        .await;
    assert_eq!(listed.assert_ok()["items"][0]["id"], created["id"]);
    // Too few to start.
    enter_all(&app, &id, &users[..2]).await;
    app.post(&format!("/tournaments/{id}/start"))
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(409, "tournament_too_few_players");
    enter_all(&app, &id, &users[2..]).await;
    // Entering twice changes nothing; leaving takes the entry back; leaving twice is refused.
    enter_all(&app, &id, &users[..1]).await;
    let left = app
        .delete(&format!("/tournaments/{id}/join"))
        .as_user(&users[3])
        .send()
        .await;
    assert_eq!(left.assert_ok()["players"].as_array().unwrap().len(), 3);
    app.delete(&format!("/tournaments/{id}/join"))
        .as_user(&users[3])
        .send()
        .await
        .assert_problem(409, "tournament_not_entered");
    // Only the organiser starts it.
    app.post(&format!("/tournaments/{id}/start"))
        .as_user(&users[0])
        .send()
        .await
        .assert_problem(403, "not_the_organiser");
    let started = app
        .post(&format!("/tournaments/{id}/start"))
        .as_user(&organiser)
        .send()
        .await;
    let started = started.assert_ok();
    assert_eq!(started["status"], "running");
    assert_eq!(started["current_round"], 1);
    let tables = started["rounds_played"][0]["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 1);
    let game = tables[0]["game_id"].as_str().unwrap();
    let seen = app
        .get(&format!("/games/{game}"))
        .as_user(&users[0])
        .send()
        .await;
    assert_eq!(seen.assert_ok()["status"], "active");
    // Entry is closed now.
    app.post(&format!("/tournaments/{id}/join"))
        .as_user(&users[3])
        .send()
        .await
        .assert_problem(409, "tournament_wrong_status");
    app.delete(&format!("/tournaments/{id}/join"))
        .as_user(&users[0])
        .send()
        .await
        .assert_problem(409, "tournament_wrong_status");
}

#[tokio::test]
async fn tournament_creation_refuses_bad_input_with_stable_codes() {
    let app = spawn_app().await;
    let organiser = app.register("organiser").await;
    let past = (app.config.clock.now() - chrono::Duration::hours(1)).to_rfc3339();
    for (change, status, code, field) in [
        (json!({"name": ""}), 422, "invalid_field", Some("name")),
        (
            json!({"name": "x".repeat(81)}),
            422,
            "invalid_field",
            Some("name"),
        ),
        (
            json!({"format": "knockout"}),
            422,
            "invalid_field",
            Some("format"),
        ),
        (
            json!({"seats_per_table": 2}),
            422,
            "invalid_field",
            Some("seats_per_table"),
        ),
        (
            json!({"seats_per_table": 7}),
            422,
            "invalid_field",
            Some("seats_per_table"),
        ),
        (json!({"rounds": 0}), 422, "invalid_field", Some("rounds")),
        (json!({"rounds": 21}), 422, "invalid_field", Some("rounds")),
        (
            json!({"max_players": 2}),
            422,
            "invalid_field",
            Some("max_players"),
        ),
        (
            json!({"max_players": 1001}),
            422,
            "invalid_field",
            Some("max_players"),
        ),
        (
            json!({"round_hours": 0}),
            422,
            "invalid_field",
            Some("round_hours"),
        ),
        (
            json!({"entry_closes_at": past}),
            422,
            "invalid_field",
            Some("entry_closes_at"),
        ),
        (json!({"kind": "chess"}), 422, "unknown_game_kind", None),
        (
            json!({"options": {"colour": "red"}}),
            422,
            "invalid_options",
            None,
        ),
        (
            json!({"options": {"rated": true}}),
            422,
            "invalid_options",
            Some("rated"),
        ),
        (
            json!({"time_control": {"days_per_move": 99}}),
            422,
            "invalid_field",
            Some("time_control.days_per_move"),
        ),
        (
            json!({"seats_per_table": "three"}),
            400,
            "invalid_body",
            None,
        ),
        (json!({"surprise": 1}), 400, "invalid_body", None),
    ] {
        let mut request = body(&app, "swiss", 3);
        for (key, value) in change.as_object().unwrap() {
            request[key] = value.clone();
        }
        let reply = app
            .post("/tournaments")
            .as_user(&organiser)
            .json(&request)
            .send()
            .await;
        let problem = reply.assert_problem(status, code);
        if let Some(field) = field {
            assert_eq!(problem["field"], field, "{change}: {problem}");
        }
    }
    let listed = app.get("/tournaments").as_user(&organiser).send().await;
    assert_eq!(
        listed.assert_ok()["items"],
        json!([]),
        "nothing was created"
    );
    app.get("/tournaments?status=later")
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
    app.get(&format!("/tournaments/{}", Uuid::now_v7()))
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(404, "tournament_not_found");
    app.get("/tournaments/not-an-id")
        .as_user(&organiser)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
}

#[tokio::test]
async fn tournament_organisers_are_verified_players_or_admins_as_the_setting_says() {
    let app = spawn_app().await;
    let unverified = app.register_unverified("newcomer").await;
    let request = body(&app, "swiss", 1);
    app.post("/tournaments")
        .as_user(&unverified)
        .json(&request)
        .send()
        .await
        .assert_problem(403, "organiser_not_allowed");
    let verified = app.register("regular").await;
    create(&app, &verified, &request).await;

    let admins_only = spawn_app_with(AppOptions {
        settings: HashMap::from([(
            "KONTOR_TOURNAMENT_ORGANISERS".to_string(),
            "admins".to_string(),
        )]),
    })
    .await;
    let regular = admins_only.register("regular").await;
    let request = body(&admins_only, "swiss", 1);
    admins_only
        .post("/tournaments")
        .as_user(&regular)
        .json(&request)
        .send()
        .await
        .assert_problem(403, "organiser_not_allowed");
    let admin = admins_only.register("boss").await;
    sqlx::query("UPDATE users SET is_admin = true WHERE id = $1")
        .bind(admin.id)
        .execute(&admins_only.pool)
        .await
        .unwrap();
    create(&admins_only, &admin, &request).await;
}
