//! Deleting an account in the middle of a game: the game goes on under its abandonment
//! policy, its log still exports, imports and verifies, and nothing served afterwards names
//! the old account.

use crate::bots;
use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;
use uuid::Uuid;

/// The player who leaves: a name and an address that occur nowhere else.
const LEAVER: &str = "quentin";

type World = MailedApp;

async fn world() -> World {
    spawn_mailed_app(&[]).await
}

/// Fails if `text` names the leaver by username or address (in any letter case).
fn assert_anonymous(what: &str, text: &str) {
    let lower = text.to_lowercase();
    assert!(
        !lower.contains(LEAVER),
        "{what} still names the deleted account: {text}"
    );
}

async fn get(app: &TestApp, user: &User, path: &str) -> Value {
    app.get(path).as_user(user).send().await.assert_ok().clone()
}

/// What a game's live stream sends at once (its snapshot and the log), until it is quiet.
async fn stream_text(app: &TestApp, user: &User, game: Uuid) -> String {
    let mut response = app
        .client
        .get(app.url(&format!("/games/{game}/stream")))
        .bearer_auth(&user.token)
        .header("Last-Event-ID", "0")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut text = String::new();
    while let Ok(Some(chunk)) = tokio::time::timeout(Duration::from_millis(700), response.chunk())
        .await
        .map(|c| c.unwrap())
    {
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    text
}

async fn count(app: &TestApp, sql: &str, user: Uuid) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .bind(user)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// Plays the game to its end: the bot's clock for the seat that left, the others through
/// the API.
async fn play_out(w: &World, game: Uuid, table: &[User], left: usize) {
    for step in 0..5000 {
        let state = get(&w.app, &table[0], &format!("/games/{game}")).await;
        if state["status"] == "finished" {
            return;
        }
        let pending = state["pending"][0].as_u64().unwrap() as usize;
        if pending == left {
            let pass = w.app.run_deadlines().await;
            assert!(
                pass.bot_moves > 0,
                "the bot plays the seat that left: {state}"
            );
        } else {
            bots::play(&w.app, game, table, bots::steel_driver, step, 1).await;
        }
    }
    panic!("the game did not end");
}

/// The whole story for one time control (`None`: a game without one).
async fn delete_in_the_middle_of_a_game(time_control: Option<Value>, expect_policy: &str) {
    let w = world().await;
    let anna = w.app.register("anna").await;
    let leaver = w.app.register(LEAVER).await;
    let cleo = w.app.register("cleo").await;
    let mut create = json!({"kind": "steel-driver"});
    if let Some(control) = time_control {
        create["time_control"] = control;
    }
    let table = vec![anna.clone(), leaver.clone(), cleo.clone()];
    let game = w.app.start_game_with(create, &table).await;
    // Something the account owns that must go: an API token, preferences, a profile, a
    // vacation, an open game it created, a seat in another's open game.
    let api_token = w.app.api_token(&leaver.token, &["game:read"]).await;
    w.app
        .put("/me/notifications")
        .as_user(&leaver)
        .json(&json!({"game_over": "digest", "always_email": true, "push": {"player_left": true}}))
        .send()
        .await
        .assert_ok();
    w.app
        .put("/me/profile")
        .as_user(&leaver)
        .json(&json!({"display_name": "Quentin Q.", "language": "ja", "time_zone": "Asia/Tokyo"}))
        .send()
        .await
        .assert_ok();
    w.app
        .post("/me/vacation")
        .as_user(&leaver)
        .json(&json!({"days": 1}))
        .send()
        .await
        .assert_ok();
    let own_open: Uuid = w.app.open_game(&leaver).await.parse().unwrap();
    let annas_open: Uuid = w.app.open_game(&anna).await.parse().unwrap();
    w.app
        .post(&format!("/games/{annas_open}/join"))
        .as_user(&leaver)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    // A few moves; mail goes out meanwhile.
    bots::play(&w.app, game, &table, bots::steel_driver, 7, 6).await;
    w.notifier.deliver_due(100).await.unwrap();
    let before = get(&w.app, &anna, &format!("/games/{game}")).await;
    assert!(before.to_string().contains(LEAVER));
    assert!(
        before.to_string().contains("Quentin Q."),
        "display names beside usernames"
    );
    let mails_before = w.sink.received().len();
    // A digest for anna, queued (not yet sent) while the account still had its name: it names
    // the inviter in a line written then.
    w.app
        .put("/me/notifications")
        .as_user(&anna)
        .json(&json!({"invited": "digest"}))
        .send()
        .await
        .assert_ok();
    let mut tx = w.app.pool.begin().await.unwrap();
    kontor::service::notices::enqueue(
        &mut tx,
        &[kontor::service::notices::Notice::invited(
            anna.id,
            own_open,
            json!({"inviter": LEAVER}),
        )],
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let noon = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 12, 1, 12, 0, 0).unwrap();
    assert_eq!(w.notifier.queue_digests(noon).await.unwrap(), 1);

    // The deletion needs the password, and a session.
    w.app
        .post("/me/delete")
        .token(&api_token)
        .json(&json!({"password": password_of(LEAVER)}))
        .send()
        .await
        .assert_problem(403, "session_required");
    w.app
        .post("/me/delete")
        .as_user(&leaver)
        .json(&json!({"password": "not the password at all"}))
        .send()
        .await
        .assert_problem(403, "wrong_password");
    let failures = count(
        &w.app,
        "SELECT coalesce(sum(failures), 0)::int8 FROM login_failures WHERE subject = 'account:' || $1::text",
        leaver.id,
    )
    .await;
    assert_eq!(failures, 1, "a wrong password counts as a failed login");
    // A reset link asked for: a mailed token and a mail counter of the account's, which the
    // deletion must take with it.
    w.app
        .post("/auth/password/forgot")
        .json(&json!({"login": LEAVER}))
        .send()
        .await
        .assert_ok();
    assert_eq!(
        count(
            &w.app,
            "SELECT count(*) FROM mail_tokens WHERE user_id = $1 AND purpose = 'reset_password'",
            leaver.id
        )
        .await,
        1
    );
    let version_before = before["version"].as_i64().unwrap();
    let reply = w
        .app
        .post("/me/delete")
        .as_user(&leaver)
        .json(&json!({"password": password_of(LEAVER)}))
        .send()
        .await;
    assert_eq!(reply.status, 204, "{}", reply.text);

    // The account is gone for every credential, and its rows with it.
    w.app
        .get("/me")
        .as_user(&leaver)
        .send()
        .await
        .assert_problem(401, "invalid_token");
    w.app
        .get("/me")
        .token(&api_token)
        .send()
        .await
        .assert_problem(401, "invalid_token");
    w.app
        .post("/auth/refresh")
        .json(&json!({"refresh_token": leaver.refresh}))
        .send()
        .await
        .assert_problem(401, "invalid_token");
    for login in [LEAVER.to_string(), format!("{LEAVER}@example.org")] {
        w.app
            .post("/auth/login")
            .json(&json!({"username": login, "password": password_of(LEAVER)}))
            .send()
            .await
            .assert_problem(401, "invalid_credentials");
    }
    for (table_name, sql) in [
        ("refresh_tokens", "SELECT count(*) FROM refresh_tokens WHERE user_id = $1"),
        ("api_tokens", "SELECT count(*) FROM api_tokens WHERE user_id = $1"),
        ("notification_prefs", "SELECT count(*) FROM notification_prefs WHERE user_id = $1"),
        ("notice_choices", "SELECT count(*) FROM notice_choices WHERE user_id = $1"),
        ("vacations", "SELECT count(*) FROM vacations WHERE user_id = $1"),
        ("mail_outbox", "SELECT count(*) FROM mail_outbox WHERE user_id = $1"),
        ("game_invitations", "SELECT count(*) FROM game_invitations WHERE user_id = $1"),
        ("live_presence", "SELECT count(*) FROM live_presence WHERE user_id = $1"),
        ("login_failures", "SELECT count(*) FROM login_failures WHERE subject = 'account:' || $1::text"),
        ("mail_tokens", "SELECT count(*) FROM mail_tokens WHERE user_id = $1"),
        ("login_sessions", "SELECT count(*) FROM login_sessions WHERE user_id = $1"),
        ("mail counters", "SELECT count(*) FROM login_failures WHERE subject LIKE 'mail:%:' || $1::text"),
        (
            "users (personal columns)",
            "SELECT count(*) FROM users WHERE id = $1 AND (email IS NOT NULL OR password_hash IS NOT NULL
               OR display_name IS NOT NULL OR deleted_at IS NULL OR username NOT LIKE 'deleted-player-%')",
        ),
    ] {
        assert_eq!(count(&w.app, sql, leaver.id).await, 0, "{table_name}");
    }
    // An admin's view of the account has nothing to read back either.
    let row: (String, Option<String>, String) =
        sqlx::query_as("SELECT username, email, email_key FROM users WHERE id = $1")
            .bind(leaver.id)
            .fetch_one(&w.app.pool)
            .await
            .unwrap();
    assert_anonymous("the account row", &format!("{row:?}"));
    let placeholder = row.0;
    // "Forgot password" answers for the placeholder as for any name, and mails nothing.
    for login in [placeholder.clone(), LEAVER.to_string()] {
        w.app
            .post("/auth/password/forgot")
            .json(&json!({"login": login}))
            .send()
            .await
            .assert_ok();
    }
    assert_eq!(
        count(
            &w.app,
            "SELECT count(*) FROM mail_tokens WHERE user_id = $1",
            leaver.id
        )
        .await,
        0
    );

    // Open games: the one it created is cancelled, its seat in the other given up.
    let own = get(&w.app, &anna, &format!("/games/{own_open}")).await;
    assert_eq!(own["status"], "cancelled");
    let other = get(&w.app, &anna, &format!("/games/{annas_open}")).await;
    assert_eq!(other["seats"].as_array().unwrap().len(), 1);

    // The running game: the seat went to the policy, recorded in the log.
    let after = get(&w.app, &anna, &format!("/games/{game}")).await;
    assert_eq!(after["version"].as_i64().unwrap(), version_before + 1);
    let seat = &after["seats"][1];
    assert_eq!(seat["username"], placeholder.as_str());
    assert_eq!(seat["display_name"], Value::Null);
    let expected_state = if expect_policy == "forfeit" {
        "forfeited"
    } else {
        "abandoned"
    };
    assert_eq!(seat["state"], expected_state);
    let events = get(
        &w.app,
        &anna,
        &format!("/games/{game}/events?after={version_before}"),
    )
    .await;
    assert_eq!(events["items"][0]["type"], "kontor.seat_left");
    assert_eq!(events["items"][0]["data"]["policy"], expect_policy);
    assert_eq!(events["items"][0]["data"]["seat"], 1);

    // The others are told, by mail and in their own streams' game; the game goes on to its end.
    play_out(&w, game, &table, 1).await;
    w.notifier.deliver_due(100).await.unwrap();
    let received = w.sink.received();
    let after_mails = &received[mails_before..];
    let left_mails: Vec<&str> = after_mails
        .iter()
        .filter(|r| {
            r.mail()
                .header("Subject")
                .is_some_and(|s| s.contains(&placeholder))
        })
        .map(|r| r.to[0].as_str())
        .collect();
    assert!(left_mails.contains(&"anna@example.org"), "{left_mails:?}");
    assert!(left_mails.contains(&"cleo@example.org"), "{left_mails:?}");
    assert!(
        after_mails
            .iter()
            .any(|m| m.to[0] == "anna@example.org" && m.data.contains("daily digest")),
        "the digest queued before the deletion went out after it"
    );
    for mail in after_mails {
        assert!(
            !mail.to.iter().any(|to| to.contains(LEAVER)),
            "no mail to the address"
        );
        assert_anonymous("a mail sent afterwards", &mail.data);
    }
    // The game over mail is also unsent to the account that left.
    assert!(after_mails.iter().all(|m| !m.to[0].contains(LEAVER)));

    // Nothing served names the account: detail, log, export, stream, lobby, past versions.
    let end = get(&w.app, &anna, &format!("/games/{game}")).await;
    assert_eq!(end["status"], "finished");
    if expect_policy == "forfeit" {
        let ranks = end["outcome"]["ranks"].as_array().unwrap();
        let worst = ranks.iter().filter_map(Value::as_u64).max().unwrap();
        assert_eq!(
            ranks[1].as_u64(),
            Some(worst),
            "a forfeited seat ranks last"
        );
    }
    for user in [&anna, &cleo] {
        for path in [
            format!("/games/{game}"),
            format!("/games/{game}?at=1"),
            format!("/games/{game}/events?limit=1000"),
            format!("/games/{game}/verification"),
            "/games?view=finished".to_string(),
            "/games?view=mine".to_string(),
            format!("/games/{own_open}"),
        ] {
            let body = get(&w.app, user, &path).await;
            assert_anonymous(&path, &body.to_string());
        }
        assert_anonymous("the stream", &stream_text(&w.app, user, game).await);
    }
    let export = w.app.export(game, &anna).await;
    assert_anonymous("the export", &export);
    assert!(export.contains(&placeholder));
    assert!(export.contains("kontor.seat_left"));
    let verified = w
        .app
        .client
        .post(w.app.url("/verify"))
        .bearer_auth(&cleo.token)
        .header("content-type", "application/x-ndjson")
        .body(export.clone())
        .send()
        .await
        .unwrap();
    let verified = read(verified).await;
    assert_eq!(verified.assert_ok()["verified"], true, "{}", verified.text);
    // A seat that leaves under a policy no game has, or a seat not in the game, does not verify.
    for (member, value) in [("policy", json!("stay")), ("seat", json!(9))] {
        let mut seq = 0;
        let tampered: String = export
            .lines()
            .map(|line| {
                let mut line: Value = serde_json::from_str(line).unwrap();
                if line["type"] == "kontor.seat_left" {
                    line["data"][member] = value.clone();
                    seq = line["seq"].as_i64().unwrap();
                }
                line.to_string() + "\n"
            })
            .collect();
        let report = w
            .app
            .client
            .post(w.app.url("/verify"))
            .bearer_auth(&cleo.token)
            .header("content-type", "application/x-ndjson")
            .body(tampered)
            .send()
            .await
            .unwrap();
        let report = read(report).await;
        assert_eq!(report.assert_ok()["verified"], false, "{member}");
        assert_eq!(report.body["failure"]["seq"], seq, "{}", report.text);
    }
    let imported = w
        .app
        .client
        .post(w.app.url("/games/import"))
        .bearer_auth(&cleo.token)
        .header("content-type", "application/x-ndjson")
        .body(export)
        .send()
        .await
        .unwrap();
    let imported = read(imported).await;
    let sandbox = imported.assert_ok()["id"].as_str().unwrap().to_string();
    let sandbox_export = w.app.export(sandbox.parse().unwrap(), &cleo).await;
    assert_anonymous("the sandbox's export", &sandbox_export);
    // Every stored state still folds from the log.
    let (ok, output) = w.app.kontor(&["replay", "--check"]).await;
    assert!(ok, "{output}");

    // The name and the address are free again.
    w.app
        .post("/auth/register")
        .json(&json!({"username": LEAVER, "email": format!("{LEAVER}@example.org"), "password": password_of(LEAVER)}))
        .send()
        .await
        .assert_ok();
    // Nobody can pass for a deleted account.
    w.app
        .post("/auth/register")
        .json(&json!({"username": "Deleted-Player-99", "email": "x@example.org", "password": password_of("xavier")}))
        .send()
        .await
        .assert_problem(422, "invalid_field");
}

#[tokio::test]
async fn an_account_deleted_mid_game_leaves_its_seat_to_the_bot() {
    delete_in_the_middle_of_a_game(
        Some(json!({"seconds_per_move": 60, "on_abandon": "bot"})),
        "bot",
    )
    .await;
}

#[tokio::test]
async fn an_account_deleted_mid_game_forfeits_its_seat_under_a_forfeit_policy() {
    delete_in_the_middle_of_a_game(
        Some(json!({"seconds_per_move": 60, "on_abandon": "forfeit"})),
        "forfeit",
    )
    .await;
}

#[tokio::test]
async fn an_account_deleted_in_a_game_without_time_control_leaves_it_to_the_bot() {
    delete_in_the_middle_of_a_game(None, "bot").await;
}
