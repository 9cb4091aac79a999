//! Who may watch a game: the table's `spectators` setting and blocks, on every read path.

use crate::bots;
use crate::support::*;
use serde_json::{Value, json};
use uuid::Uuid;

/// The status of each read of `game` by `user`: the view, a past version, the events, the
/// export and the live stream (only its head is read).
async fn reads(app: &TestApp, game: Uuid, user: &User) -> Vec<(String, u16)> {
    let mut statuses = Vec::new();
    for path in [
        format!("/games/{game}"),
        format!("/games/{game}?at=1"),
        format!("/games/{game}/events"),
        format!("/games/{game}/export"),
        format!("/games/{game}/stream"),
    ] {
        let response = app
            .client
            .get(app.url(&path))
            .bearer_auth(&user.token)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        if status == 404 {
            let problem: Value = response.json().await.unwrap();
            assert_eq!(problem["code"], "game_not_found", "{path}: {problem}");
        }
        statuses.push((path, status));
    }
    statuses
}

fn all(statuses: &[(String, u16)], expected: u16) -> bool {
    statuses.iter().all(|(_, status)| *status == expected)
}

async fn table(app: &TestApp, names: &[&str]) -> Vec<User> {
    let mut users = Vec::new();
    for name in names {
        users.push(app.register(name).await);
    }
    users
}

#[tokio::test]
async fn a_players_only_game_is_read_by_its_players_alone() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let outsider = app.register("dave").await;
    let created = app
        .post("/games")
        .as_user(&players[0])
        .json(&json!({"kind": "steel-driver", "seats": 3, "options": {"spectators": "players"}}))
        .send()
        .await;
    let game: Uuid = created.assert_ok()["id"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        created.body["options"],
        json!({"map": "usa", "spectators": "players", "chat": "table", "undo": "own", "rated": false})
    );
    // Waiting for players, a public table is read by whoever may join it.
    let open = app
        .get(&format!("/games/{game}"))
        .as_user(&outsider)
        .send()
        .await;
    assert_eq!(open.assert_ok()["options"]["spectators"], "players");
    for player in &players[1..] {
        app.post(&format!("/games/{game}/join"))
            .as_user(player)
            .send()
            .await
            .assert_ok();
    }
    for player in &players {
        let statuses = reads(&app, game, player).await;
        assert!(all(&statuses, 200), "{}: {statuses:?}", player.name);
    }
    let statuses = reads(&app, game, &outsider).await;
    assert!(all(&statuses, 404), "an outsider: {statuses:?}");
    // The export header says who may watch, and the start event records it.
    let export = app.export(game, &players[0]).await;
    let header: Value = serde_json::from_str(export.lines().next().unwrap()).unwrap();
    assert_eq!(header["options"]["spectators"], "players");
    // Played to the end, the game stays its players': not listed to others, not readable.
    bots::play_to_end(&app, game, &players, bots::steel_driver, 3).await;
    let statuses = reads(&app, game, &outsider).await;
    assert!(
        all(&statuses, 404),
        "an outsider after the end: {statuses:?}"
    );
    let verification = app
        .get(&format!("/games/{game}/verification"))
        .as_user(&outsider)
        .send()
        .await;
    verification.assert_problem(404, "game_not_found");
    let finished = |user: &User| {
        let user = user.clone();
        let app = &app;
        async move {
            let page = app.get("/games?view=finished").as_user(&user).send().await;
            page.assert_ok()["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["id"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(finished(&players[1]).await, vec![game.to_string()]);
    assert!(finished(&outsider).await.is_empty());
    // Its complete export verifies: the setting is no rule of the game.
    app.assert_verified(game, &players[0]).await;
    let export = app.export(game, &players[0]).await;
    let uploaded = app
        .client
        .post(app.url("/verify"))
        .bearer_auth(&outsider.token)
        .header("content-type", "application/x-ndjson")
        .body(export)
        .send()
        .await
        .unwrap();
    let uploaded: Value = uploaded.json().await.unwrap();
    assert_eq!(uploaded["verified"], true, "{uploaded}");
}

#[tokio::test]
async fn a_private_players_only_table_is_read_before_the_start_by_the_invited_alone() {
    let app = spawn_app().await;
    let [anna, bert, dave] =
        <[User; 3]>::try_from(table(&app, &["anna", "bert", "dave"]).await).unwrap();
    let created = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "steel-driver", "seats": 3, "visibility": "private", "options": {"spectators": "players"}}))
        .send()
        .await;
    let game = created.assert_ok()["id"].as_str().unwrap().to_string();
    let view = |user: &User| app.get(&format!("/games/{game}")).as_user(user).send();
    view(&bert).await.assert_problem(404, "game_not_found");
    app.post(&format!("/games/{game}/invitations"))
        .as_user(&anna)
        .json(&json!({"username": "bert"}))
        .send()
        .await
        .assert_ok();
    view(&bert).await.assert_ok();
    view(&dave).await.assert_problem(404, "game_not_found");
}

#[tokio::test]
async fn a_block_keeps_either_player_from_watching_the_others_game() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let [dave, eve, fred] =
        <[User; 3]>::try_from(table(&app, &["dave", "eve", "fred"]).await).unwrap();
    let game = app.start_game("steel-driver", json!({}), &players).await;
    // Anyone may watch by default, as before.
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&dave)
        .send()
        .await;
    assert_eq!(detail.assert_ok()["options"]["spectators"], "anyone");
    // Dave blocks anna; anna blocks eve: neither dave nor eve may watch anna's game.
    app.put("/me/blocks/anna")
        .as_user(&dave)
        .send()
        .await
        .assert_ok();
    app.put("/me/blocks/eve")
        .as_user(&players[0])
        .send()
        .await
        .assert_ok();
    for (who, user) in [("the blocker", &dave), ("the blocked", &eve)] {
        let statuses = reads(&app, game, user).await;
        assert!(all(&statuses, 404), "{who}: {statuses:?}");
    }
    let statuses = reads(&app, game, &fred).await;
    assert!(all(&statuses, 200), "someone else: {statuses:?}");
    // The players themselves are not affected (the game was under way).
    let statuses = reads(&app, game, &players[0]).await;
    assert!(all(&statuses, 200), "anna: {statuses:?}");
    // Lifted, the block no longer keeps dave out.
    app.delete("/me/blocks/anna").as_user(&dave).send().await;
    let statuses = reads(&app, game, &dave).await;
    assert!(all(&statuses, 200), "after the unblock: {statuses:?}");
}

#[tokio::test]
async fn a_stream_being_watched_ends_when_the_watcher_is_blocked() {
    let app = spawn_app().await;
    let players = table(&app, &["anna", "bert", "cleo"]).await;
    let dave = app.register("dave").await;
    let game = app.start_game("steel-driver", json!({}), &players).await;
    let mut stream = crate::live::Stream::open(
        &app.address,
        &format!("/games/{game}/stream"),
        &dave.token,
        None,
    )
    .await;
    assert_eq!(
        stream
            .next(std::time::Duration::from_secs(10))
            .await
            .unwrap()
            .event,
        "snapshot"
    );
    app.put("/me/blocks/dave")
        .as_user(&players[1])
        .send()
        .await
        .assert_ok();
    // The next move is the stream's next look: it ends instead of sending it.
    bots::play(&app, game, &players, bots::steel_driver, 5, 1).await;
    let rest = stream.drain(std::time::Duration::from_secs(3)).await;
    assert!(rest.iter().all(|e| e.event != "event"), "{rest:?}");
    assert_eq!(
        stream
            .next(std::time::Duration::from_secs(1))
            .await
            .map(|e| e.event),
        None
    );
}

#[tokio::test]
async fn the_setting_is_anyone_or_players_and_anything_else_is_refused() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    for bad in [json!("friends"), json!(null), json!(1)] {
        let reply = app
            .post("/games")
            .as_user(&anna)
            .json(&json!({"kind": "flying-dutchman", "seats": 3, "options": {"spectators": bad}}))
            .send()
            .await;
        let problem = reply.assert_problem(422, "invalid_options");
        assert_eq!(problem["field"], "spectators", "{problem}");
    }
    let mine = app.get("/games?view=mine").as_user(&anna).send().await;
    assert_eq!(mine.assert_ok()["items"], json!([]), "nothing was created");
    let created = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "flying-dutchman", "seats": 3}))
        .send()
        .await;
    assert_eq!(created.assert_ok()["options"]["spectators"], "anyone");
}
