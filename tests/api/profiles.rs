//! Profiles (display name, language, time zone), mail in the recipient's language, the export
//! of one's data, and blocking.

use crate::support::*;
use serde_json::json;

#[tokio::test]
async fn a_profile_is_shown_changed_with_merge_semantics_and_checked() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let me = app.get("/me").as_user(&anna).send().await;
    let me = me.assert_ok();
    assert_eq!(me["display_name"], serde_json::Value::Null);
    assert_eq!(me["language"], "en");
    assert_eq!(me["time_zone"], "UTC");

    let changed = app
        .put("/me/profile")
        .as_user(&anna)
        .json(&json!({"display_name": "  Anna K.  ", "language": "ja", "time_zone": "Asia/Tokyo"}))
        .send()
        .await;
    let changed = changed.assert_ok();
    assert_eq!(changed["display_name"], "Anna K.");
    assert_eq!(changed["language"], "ja");
    assert_eq!(changed["time_zone"], "Asia/Tokyo");
    // Absent members stay; null removes the display name.
    let changed = app
        .put("/me/profile")
        .as_user(&anna)
        .json(&json!({"time_zone": "europe/BERLIN"}))
        .send()
        .await;
    // A zone in any letter case is stored as IANA spells it.
    assert_eq!(changed.assert_ok()["time_zone"], "Europe/Berlin");
    assert_eq!(changed.assert_ok()["display_name"], "Anna K.");
    assert_eq!(changed.body["language"], "ja");
    let changed = app
        .put("/me/profile")
        .as_user(&anna)
        .json(&json!({"display_name": null}))
        .send()
        .await;
    assert_eq!(changed.assert_ok()["display_name"], serde_json::Value::Null);
    assert_eq!(changed.body["time_zone"], "Europe/Berlin");

    // Refusals change nothing.
    for (body, field) in [
        (json!({"time_zone": "Mars/Olympus"}), "time_zone"),
        (json!({"time_zone": ""}), "time_zone"),
        (json!({"display_name": ""}), "display_name"),
        (json!({"display_name": "x".repeat(41)}), "display_name"),
        (json!({"display_name": "a\u{202e}b"}), "display_name"),
        (json!({"display_name": "two\nlines"}), "display_name"),
    ] {
        let reply = app
            .put("/me/profile")
            .as_user(&anna)
            .json(&body)
            .send()
            .await;
        assert_eq!(
            reply.assert_problem(422, "invalid_field")["field"],
            field,
            "{body}"
        );
    }
    app.put("/me/profile")
        .as_user(&anna)
        .json(&json!({"language": "fr"}))
        .send()
        .await
        .assert_problem(400, "invalid_body");
    let me = app.get("/me").as_user(&anna).send().await;
    assert_eq!(me.assert_ok()["time_zone"], "Europe/Berlin");

    // API tokens cannot change the profile.
    let token = app.api_token(&anna.token, &["game:read"]).await;
    app.put("/me/profile")
        .token(&token)
        .json(&json!({"language": "en"}))
        .send()
        .await
        .assert_problem(403, "session_required");

    // Registration may name the language.
    let reply = app
        .post("/auth/register")
        .json(&json!({"username": "kenji", "email": "kenji@example.org", "password": password_of("kenji"), "language": "ja"}))
        .send()
        .await;
    assert_eq!(reply.assert_ok()["language"], "ja");
}

#[tokio::test]
async fn display_names_are_shown_beside_usernames_at_the_table_and_in_the_lobby() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    app.put("/me/profile")
        .as_user(&bert)
        .json(&json!({"display_name": "Bert the Bold"}))
        .send()
        .await
        .assert_ok();
    let game = app.open_game(&anna).await;
    app.post(&format!("/games/{game}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&anna)
        .send()
        .await;
    let seats = detail.assert_ok()["seats"].as_array().unwrap().clone();
    assert_eq!(seats[0]["username"], "anna");
    assert_eq!(seats[0]["display_name"], serde_json::Value::Null);
    assert_eq!(seats[1]["username"], "bert");
    assert_eq!(seats[1]["display_name"], "Bert the Bold");
    let lobby = app.get("/games?view=mine").as_user(&anna).send().await;
    assert_eq!(
        lobby.assert_ok()["items"][0]["seats"][1]["display_name"],
        "Bert the Bold"
    );
}

#[tokio::test]
async fn a_japanese_players_turn_mail_arrives_in_japanese_with_its_unsubscribe_headers() {
    let MailedApp {
        app,
        sink,
        notifier,
    } = spawn_mailed_app(&[]).await;
    let mut table = Vec::new();
    for name in ["anna", "bert", "cleo"] {
        let user = app.register(name).await;
        app.put("/me/profile")
            .as_user(&user)
            .json(&json!({"language": "ja", "time_zone": "Asia/Tokyo"}))
            .send()
            .await
            .assert_ok();
        table.push(user);
    }
    let game = app
        .start_game_with(
            json!({"kind": "steel-driver", "time_control": {"seconds_per_move": 86400}}),
            &table,
        )
        .await;
    notifier.deliver_due(50).await.unwrap();
    let received = sink.received();
    let turn = received
        .iter()
        .map(|r| r.mail())
        .find(|m| m.text().contains("あなたの番です"))
        .unwrap_or_else(|| panic!("a Japanese turn mail among {received:?}"));
    let subject = turn.subject();
    assert!(subject.contains("スチールドライバー"), "{subject}");
    assert!(subject.contains("あなたの番です"), "{subject}");
    // The deadline in Tokyo time, named.
    assert!(turn.text().contains("Asia/Tokyo"), "{}", turn.text());
    assert!(turn.html().contains("lang=\"ja\""));
    let unsubscribe = turn.header("List-Unsubscribe").unwrap();
    assert!(unsubscribe.contains("/unsubscribe?token="), "{unsubscribe}");
    assert_eq!(
        turn.header("List-Unsubscribe-Post"),
        Some("List-Unsubscribe=One-Click")
    );
    assert!(turn.text().contains(&format!("/games/{game}")));
}

#[tokio::test]
async fn my_data_exports_everything_stored_about_me_without_secrets() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let token = app
        .post("/me/tokens")
        .as_user(&anna)
        .json(&json!({"name": "my bot", "scopes": ["game:read"]}))
        .send()
        .await
        .assert_ok()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let game = app
        .start_game(
            "steel-driver",
            json!({}),
            &[anna.clone(), bert.clone(), cleo],
        )
        .await;
    app.put("/me/blocks/bert").as_user(&anna).send().await;
    let private = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "steel-driver", "seats": 3, "visibility": "private"}))
        .send()
        .await;
    let private = private.assert_ok()["id"].as_str().unwrap().to_string();
    app.post(&format!("/games/{private}/invitations"))
        .as_user(&anna)
        .json(&json!({"username": "cleo"}))
        .send()
        .await
        .assert_ok();
    let response = app
        .client
        .get(app.url("/me/export"))
        .bearer_auth(&anna.token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment")
    );
    let text = response.text().await.unwrap();
    let data: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(data["account"]["username"], "anna");
    assert_eq!(data["account"]["email"], "anna@example.org");
    let played = data["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game_id"] == game.to_string())
        .expect("the game anna sits in");
    assert_eq!(played["kind"], "steel-driver");
    assert_eq!(played["seat"], 0);
    assert_eq!(data["api_tokens"][0]["name"], "my bot");
    assert_eq!(data["blocked_users"][0]["username"], "bert");
    assert!(data["logins"].as_array().is_some_and(|l| !l.is_empty()));
    assert!(data["notification_preferences"]["your_turn"].is_string());
    assert_eq!(data["invitations"][0]["game_id"], private.as_str());
    assert_eq!(data["invitations"][0]["received"], false);
    assert_eq!(data["invitations"][0]["username"], "cleo");
    // The mails kept for anna (the game's start), what and when, without their text.
    let mails = data["mails"].as_array().unwrap();
    let started = mails
        .iter()
        .find(|m| m["kind"] == "game_started")
        .unwrap_or_else(|| panic!("{mails:?}"));
    assert_eq!(started["game_id"], game.to_string());
    assert_eq!(started["status"], "pending");
    assert!(started.get("data").is_none(), "{started}");
    // No secret: not the token, not the refresh token, no hash.
    assert!(!text.contains(&token));
    assert!(!text.contains(&anna.refresh));
    assert!(!text.contains("argon2"));
    assert!(!text.contains("hash"));
    app.get("/me/export")
        .token(&token)
        .send()
        .await
        .assert_problem(403, "session_required");
}

#[tokio::test]
async fn a_block_stops_invitations_and_joins_both_ways() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let reply = app.put("/me/blocks/BERT").as_user(&anna).send().await;
    assert_eq!(reply.status, 204, "{}", reply.text);
    let listed = app.get("/me/blocks").as_user(&anna).send().await;
    assert_eq!(listed.assert_ok()["items"][0]["username"], "bert");
    // Blocking again changes nothing; yourself and strangers are refused.
    assert_eq!(
        app.put("/me/blocks/bert")
            .as_user(&anna)
            .send()
            .await
            .status,
        204
    );
    app.put("/me/blocks/anna")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(422, "invalid_field");
    app.put("/me/blocks/nobody")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(404, "user_not_found");
    // Bert sees no block, but cannot invite anna, nor she him.
    let listed = app.get("/me/blocks").as_user(&bert).send().await;
    assert_eq!(listed.assert_ok()["items"], json!([]));
    let berts = app.open_game(&bert).await;
    let refused = app
        .post(&format!("/games/{berts}/invitations"))
        .as_user(&bert)
        .json(&json!({"username": "anna"}))
        .send()
        .await;
    let problem = refused.assert_problem(403, "blocked");
    assert_eq!(problem["detail"], "you cannot invite this player");
    let annas = app.open_game(&anna).await;
    app.post(&format!("/games/{annas}/invitations"))
        .as_user(&anna)
        .json(&json!({"username": "bert"}))
        .send()
        .await
        .assert_problem(403, "blocked");
    // Nor can either join an open game where the other sits; cleo can.
    app.post(&format!("/games/{annas}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(403, "blocked");
    app.post(&format!("/games/{berts}/join"))
        .as_user(&anna)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(403, "blocked");
    app.post(&format!("/games/{annas}/join"))
        .as_user(&cleo)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    // So neither is offered the other's open games; cleo sees both.
    let open = |user: &User| {
        let request = app.get("/games?view=open").as_user(user);
        async move {
            let listed = request.send().await;
            listed.assert_ok()["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["id"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert!(!open(&anna).await.contains(&berts.to_string()));
    assert!(!open(&bert).await.contains(&annas.to_string()));
    let cleos = open(&cleo).await;
    assert!(cleos.contains(&berts.to_string()) && cleos.contains(&annas.to_string()));
    // Lifted, all is as before.
    assert_eq!(
        app.delete("/me/blocks/bert")
            .as_user(&anna)
            .send()
            .await
            .status,
        204
    );
    app.delete("/me/blocks/bert")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(404, "user_not_found");
    app.post(&format!("/games/{annas}/invitations"))
        .as_user(&anna)
        .json(&json!({"username": "bert"}))
        .send()
        .await
        .assert_ok();
    assert!(open(&bert).await.contains(&annas.to_string()));
    // A new block takes back the invitations between the two to open games.
    app.put("/me/blocks/bert").as_user(&anna).send().await;
    let invited: i64 =
        sqlx::query_scalar("SELECT count(*) FROM game_invitations WHERE user_id = $1")
            .bind(bert.id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(invited, 0);
}

#[tokio::test]
async fn the_digest_comes_at_the_digest_hour_of_each_recipients_own_time_zone() {
    use chrono::{TimeZone, Utc};
    use kontor::service::notices::{Notice, NoticeKind};
    let MailedApp {
        app,
        sink: _sink,
        notifier,
    } = spawn_mailed_app(&[("KONTOR_DIGEST_HOUR", "7")]).await;
    let mut users = Vec::new();
    for (name, zone) in [
        ("tokyo", "Asia/Tokyo"),
        ("angeles", "America/Los_Angeles"),
        ("greenwich", "UTC"),
    ] {
        let user = app.register(name).await;
        app.put("/me/profile")
            .as_user(&user)
            .json(&json!({"time_zone": zone}))
            .send()
            .await
            .assert_ok();
        app.put("/me/notifications")
            .as_user(&user)
            .json(&json!({"game_over": "digest"}))
            .send()
            .await
            .assert_ok();
        let mut tx = app.pool.begin().await.unwrap();
        kontor::service::notices::enqueue(
            &mut tx,
            &[Notice {
                user_id: user.id,
                kind: NoticeKind::GameOver,
                game_id: None,
                dedupe_key: "game_over:test".into(),
                data: json!({}),
            }],
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        users.push(user);
    }
    let digest_keys = |user: uuid::Uuid| {
        let pool = app.pool.clone();
        async move {
            let keys: Vec<String> = sqlx::query_scalar(
                "SELECT dedupe_key FROM mail_outbox WHERE user_id = $1 AND kind = 'digest'",
            )
            .bind(user)
            .fetch_all(&pool)
            .await
            .unwrap();
            keys
        }
    };
    // 03:00 UTC: noon in Tokyo (1 December), 19:00 the evening before in Los Angeles
    // (30 November), too early in Greenwich.
    let early = Utc.with_ymd_and_hms(2026, 12, 1, 3, 0, 0).unwrap();
    assert_eq!(notifier.queue_digests(early).await.unwrap(), 2);
    assert_eq!(digest_keys(users[0].id).await, ["digest:2026-12-01"]);
    assert_eq!(digest_keys(users[1].id).await, ["digest:2026-11-30"]);
    assert!(digest_keys(users[2].id).await.is_empty());
    // 07:00 UTC: Greenwich's turn; nobody gets a second one.
    let seven = Utc.with_ymd_and_hms(2026, 12, 1, 7, 0, 0).unwrap();
    assert_eq!(notifier.queue_digests(seven).await.unwrap(), 1);
    assert_eq!(digest_keys(users[2].id).await, ["digest:2026-12-01"]);
    assert_eq!(notifier.queue_digests(seven).await.unwrap(), 0);
    assert_eq!(notifier.deliver_due(10).await.unwrap().sent, 3);
}
