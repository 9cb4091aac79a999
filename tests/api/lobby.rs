//! The lobby: create, list, join, leave, start, cancel, invite.

use crate::support::*;
use serde_json::json;

#[tokio::test]
async fn create_join_and_auto_start_when_full() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let created = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "flying-dutchman", "seats": 3, "options": {"edition": "1992"}}))
        .send()
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let game = created.body.clone();
    assert_eq!(game["status"], "open");
    assert_eq!(game["your_seat"], 0);
    // Options come back complete, defaults filled in.
    assert_eq!(game["options"]["edition"], "1992");
    assert!(game["options"].as_object().unwrap().len() > 1, "{game}");
    assert_eq!(game["seed_commitment"].as_str().unwrap().len(), 64);
    let id = game["id"].as_str().unwrap();

    // Bert sees it in the open list and joins.
    let open = app.get("/games?view=open").as_user(&bert).send().await;
    assert!(
        open.assert_ok()["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == id)
    );
    let joined = app
        .post(&format!("/games/{id}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await;
    assert_eq!(joined.assert_ok()["your_seat"], 1);
    app.post(&format!("/games/{id}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(409, "already_seated");

    // The last seat starts the game.
    let full = app
        .post(&format!("/games/{id}/join"))
        .as_user(&cleo)
        .json(&json!({"nonce": "cleo's luck"}))
        .send()
        .await;
    assert_eq!(full.assert_ok()["status"], "active");
    assert!(full.body["version"].as_i64().unwrap() > 1);
    // Started games are no longer open.
    let open = app.get("/games?view=open").as_user(&bert).send().await;
    assert!(
        !open.body["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == id)
    );
    let mine = app.get("/games?view=mine").as_user(&cleo).send().await;
    assert_eq!(mine.assert_ok()["items"][0]["id"], id);
    // The first event commits to the seed and records the nonces.
    let (kind, payload): (String, serde_json::Value) = sqlx::query_as(
        "SELECT type, payload FROM game_events WHERE game_id = $1::uuid AND seq = 1",
    )
    .bind(id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(kind, "kontor.game_started");
    assert_eq!(payload["seed_commitment"], game["seed_commitment"]);
    assert_eq!(payload["nonces"][2], "cleo's luck");
}

#[tokio::test]
async fn leave_start_and_cancel_follow_the_rules() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let dora = app.register("dora").await;
    let id = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "steel-driver", "seats": 5}))
        .send()
        .await
        .assert_ok()["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.post(&format!("/games/{id}/join"))
        .as_user(&bert)
        .json(&json!({"seat": 3}))
        .send()
        .await
        .assert_ok();
    app.post(&format!("/games/{id}/join"))
        .as_user(&cleo)
        .json(&json!({"seat": 3}))
        .send()
        .await
        .assert_problem(409, "seat_taken");
    app.post(&format!("/games/{id}/join"))
        .as_user(&cleo)
        .json(&json!({"seat": 9}))
        .send()
        .await
        .assert_problem(422, "invalid_field");
    // Too few to start; only the creator may start.
    app.post(&format!("/games/{id}/start"))
        .as_user(&anna)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(409, "not_enough_players");
    app.post(&format!("/games/{id}/join"))
        .as_user(&cleo)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    app.post(&format!("/games/{id}/join"))
        .as_user(&dora)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    app.post(&format!("/games/{id}/leave"))
        .as_user(&dora)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    app.post(&format!("/games/{id}/start"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(403, "not_the_creator");
    let started = app
        .post(&format!("/games/{id}/start"))
        .as_user(&anna)
        .json(&json!({}))
        .send()
        .await;
    let started = started.assert_ok();
    assert_eq!(started["status"], "active");
    // Three players: seats renumbered 0, 1, 2 in their order.
    assert_eq!(started["seat_count"], 3);
    let names: Vec<&str> = started["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["anna", "cleo", "bert"]);
    app.post(&format!("/games/{id}/leave"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(409, "wrong_status");
    app.post(&format!("/games/{id}/cancel"))
        .as_user(&anna)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(409, "wrong_status");

    // An open game can be cancelled by its creator.
    let other = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "steel-driver", "seats": 3}))
        .send()
        .await;
    let other = other.body["id"].as_str().unwrap().to_string();
    app.post(&format!("/games/{other}/cancel"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(403, "not_the_creator");
    let cancelled = app
        .post(&format!("/games/{other}/cancel"))
        .as_user(&anna)
        .json(&json!({}))
        .send()
        .await;
    assert_eq!(cancelled.assert_ok()["status"], "cancelled");
    app.post(&format!("/games/{other}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(409, "wrong_status");
}

#[tokio::test]
async fn private_games_admit_invited_players_only() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let id = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "flying-dutchman", "seats": 3, "visibility": "private"}))
        .send()
        .await
        .assert_ok()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Not listed for others, not joinable without an invitation.
    let open = app.get("/games?view=open").as_user(&bert).send().await;
    assert!(open.body["items"].as_array().unwrap().is_empty());
    app.post(&format!("/games/{id}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(403, "not_invited");
    // Invited, bert sees it and may join.
    let invited = app
        .post(&format!("/games/{id}/invitations"))
        .as_user(&anna)
        .json(&json!({"username": "bert"}))
        .send()
        .await;
    assert_eq!(invited.status, 201, "{}", invited.text);
    let again = app
        .post(&format!("/games/{id}/invitations"))
        .as_user(&anna)
        .json(&json!({"username": "bert"}))
        .send()
        .await;
    assert_eq!(again.status, 200);
    app.post(&format!("/games/{id}/invitations"))
        .as_user(&anna)
        .json(&json!({"username": "nobody"}))
        .send()
        .await
        .assert_problem(404, "user_not_found");
    app.post(&format!("/games/{id}/invitations"))
        .as_user(&cleo)
        .json(&json!({"username": "cleo"}))
        .send()
        .await
        .assert_problem(403, "not_a_player");
    let open = app.get("/games?view=open").as_user(&bert).send().await;
    assert_eq!(open.body["items"][0]["id"], id.as_str());
    app.post(&format!("/games/{id}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
}

#[tokio::test]
async fn lists_are_paged_with_cursors() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        let game = app
            .post("/games")
            .as_user(&anna)
            .json(&json!({"kind": "steel-driver", "seats": 3}))
            .send()
            .await;
        ids.push(game.body["id"].as_str().unwrap().to_string());
    }
    ids.reverse(); // newest first
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/games?view=mine&limit=2&cursor={c}"),
            None => "/games?view=mine&limit=2".to_string(),
        };
        let page = app.get(&path).as_user(&anna).send().await;
        let page = page.assert_ok().clone();
        for item in page["items"].as_array().unwrap() {
            seen.push(item["id"].as_str().unwrap().to_string());
        }
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, ids);
    let only_steel = app
        .get("/games?view=open&kind=steel-driver")
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(only_steel.body["items"].as_array().unwrap().len(), 5);
    let none = app
        .get("/games?view=open&kind=flying-dutchman")
        .as_user(&anna)
        .send()
        .await;
    assert!(none.body["items"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn my_games_narrow_by_status_and_kind() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let open = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "flying-dutchman", "seats": 3}))
        .send()
        .await
        .assert_ok()["id"]
        .clone();
    let ids = |page: &serde_json::Value| -> Vec<serde_json::Value> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].clone())
            .collect()
    };
    let listed = app
        .get("/games?view=mine&status=open")
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(ids(listed.assert_ok()), vec![open.clone()]);
    let listed = app
        .get("/games?view=mine&status=active")
        .as_user(&anna)
        .send()
        .await;
    assert!(ids(listed.assert_ok()).is_empty());
    let listed = app
        .get("/games?view=mine&kind=steel-driver")
        .as_user(&anna)
        .send()
        .await;
    assert!(ids(listed.assert_ok()).is_empty());
    let listed = app
        .get("/games?view=mine&kind=flying-dutchman")
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(ids(listed.assert_ok()), vec![open.clone()]);
    app.get("/games?view=mine&status=playing")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
    // A status narrows the other views too.
    let open_open = app
        .get("/games?view=open&status=open")
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(ids(open_open.assert_ok()), vec![open]);
    let open_active = app
        .get("/games?view=open&status=active")
        .as_user(&anna)
        .send()
        .await;
    assert!(ids(open_active.assert_ok()).is_empty());
}
