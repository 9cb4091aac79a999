//! Acting in a game: the answers to right and wrong submissions, idempotency, concurrency.

use crate::support::*;
use futures_util::future::join_all;
use serde_json::{Value, json};
use std::collections::HashSet;
use uuid::Uuid;

/// Four players in a started Flying Dutchman game, and the player who must act first.
async fn flying_dutchman(app: &TestApp) -> (Uuid, Vec<User>, usize) {
    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo", "dora"] {
        players.push(app.register(name).await);
    }
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&players[0])
        .send()
        .await;
    let first = detail.assert_ok()["pending"][0].as_u64().unwrap() as usize;
    (game, players, first)
}

async fn version(app: &TestApp, game: Uuid, user: &User) -> i64 {
    app.get(&format!("/games/{game}"))
        .as_user(user)
        .send()
        .await
        .body["version"]
        .as_i64()
        .unwrap()
}

#[tokio::test]
async fn the_view_shows_version_pending_and_legal_actions() {
    let app = spawn_app().await;
    let (game, players, first) = flying_dutchman(&app).await;
    let mover = app
        .get(&format!("/games/{game}"))
        .as_user(&players[first])
        .send()
        .await;
    let mover = mover.assert_ok();
    assert_eq!(mover["your_turn"], true);
    assert!(
        mover["legal"]["commands"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "use_smith"),
        "{mover}"
    );
    assert_eq!(mover["view"]["seat"], first, "{mover}");
    let etag = app
        .client
        .get(app.url(&format!("/games/{game}")))
        .bearer_auth(&players[first].token)
        .send()
        .await
        .unwrap();
    // The tag names the version shown and the viewer (see tests/api/http.rs for more).
    let tag = etag.headers()["etag"].to_str().unwrap();
    assert!(
        tag.starts_with(&format!("\"v{}-s{first}-", mover["version"])),
        "{tag}"
    );

    // A logged-in non-player gets the public view and no legal actions.
    let stranger = app.register("eve").await;
    let public = app
        .get(&format!("/games/{game}"))
        .as_user(&stranger)
        .send()
        .await;
    let public = public.assert_ok();
    assert!(public["legal"].is_null());
    assert!(public["your_seat"].is_null());
    assert!(public["view"].get("seat").is_none(), "{public}");
    assert_eq!(public["version"], mover["version"]);
}

#[tokio::test]
async fn wrong_submissions_get_the_right_answer_and_change_nothing() {
    let app = spawn_app().await;
    let (game, players, first) = flying_dutchman(&app).await;
    let other = (first + 1) % 4;
    let v = version(&app, game, &players[first]).await;
    let stranger = app.register("eve").await;
    let before = app.fingerprint().await;

    // Out of turn: the rules engine's code.
    let reply = app
        .act(&players[other], game)
        .version(v)
        .send(&json!({"type": "use_smith"}))
        .await;
    reply.assert_problem(422, "not_your_turn");
    // Not an action of this game.
    let reply = app
        .act(&players[first], game)
        .version(v)
        .send(&json!({"type": "castle"}))
        .await;
    reply.assert_problem(422, "invalid_command");
    // Illegal: passing while holding nine horseshoes.
    let reply = app
        .act(&players[first], game)
        .version(v)
        .send(&json!({"type": "pass"}))
        .await;
    reply.assert_problem(422, "too_many_horseshoes_to_pass");
    // Stale version.
    let reply = app
        .act(&players[first], game)
        .version(v - 1)
        .send(&json!({"type": "use_smith"}))
        .await;
    assert_eq!(
        reply.assert_problem(409, "version_conflict")["current_version"],
        v
    );
    // A seat that is not yours.
    let reply = app
        .act(&players[first], game)
        .key("k1")
        .send_body(&json!({"version": v, "seat": other, "action": {"type": "use_smith"}}))
        .await;
    reply.assert_problem(403, "not_a_player");
    // Not a player at all.
    let reply = app
        .act(&stranger, game)
        .version(v)
        .send(&json!({"type": "use_smith"}))
        .await;
    reply.assert_problem(403, "not_a_player");
    // No credentials.
    let reply = app
        .act(&players[first], game)
        .anonymous()
        .key("k2")
        .version(v)
        .send(&json!({"type": "use_smith"}))
        .await;
    reply.assert_problem(401, "unauthenticated");
    // Missing key or version.
    let reply = app
        .act(&players[first], game)
        .without_key()
        .version(v)
        .send(&json!({"type": "use_smith"}))
        .await;
    reply.assert_problem(400, "idempotency_key_required");
    let reply = app
        .act(&players[first], game)
        .key("k3")
        .send(&json!({"type": "use_smith"}))
        .await;
    reply.assert_problem(400, "version_required");
    assert_eq!(app.fingerprint().await, before);

    // The right one is accepted; If-Match works as the version.
    let reply = app
        .act(&players[first], game)
        .key("k4")
        .header("If-Match", &format!("\"{v}\""))
        .send(&json!({"type": "use_smith"}))
        .await;
    let accepted = reply.assert_ok();
    assert!(accepted["version"].as_i64().unwrap() > v);
    assert!(!accepted["events"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn a_retried_request_is_answered_from_the_store_and_applies_once() {
    let app = spawn_app().await;
    let (game, players, first) = flying_dutchman(&app).await;
    let v = version(&app, game, &players[first]).await;
    let action = json!({"type": "use_smith"});
    let send = || {
        app.act(&players[first], game)
            .key("same")
            .version(v)
            .send(&action)
    };
    let one = send().await;
    let two = send().await;
    assert_eq!(one.status, 200, "{}", one.text);
    assert_eq!(two.status, 200, "{}", two.text);
    assert!(!one.body["events"].as_array().unwrap().is_empty());
    // The retry's answer is the same bytes: its events read again from the log.
    assert_eq!(one.text, two.text);
    assert_eq!(two.headers["idempotent-replayed"], "true");
    assert_eq!(
        version(&app, game, &players[first]).await,
        one.body["version"].as_i64().unwrap()
    );
    // The command record keeps the answer without its events.
    let kept: Value = serde_json::from_str(&stored(&app, "same").await.0.unwrap()).unwrap();
    assert_eq!(
        kept,
        json!({"version": one.body["version"], "status": one.body["status"],
               "pending": one.body["pending"]})
    );
    // The same key with a different request is refused.
    app.act(&players[first], game)
        .key("same")
        .version(v)
        .send(&json!({"type": "use_kontor"}))
        .await
        .assert_problem(422, "idempotency_key_reused");
    // An answer stored whole (as records kept them before) is replayed as it was stored.
    let whole = json!({"version": one.body["version"], "status": "active", "pending": [],
                       "events": []})
    .to_string();
    sqlx::query("UPDATE game_commands SET response = $1 WHERE idempotency_key = 'same'")
        .bind(&whole)
        .execute(&app.pool)
        .await
        .unwrap();
    let three = send().await;
    assert_eq!(three.headers["idempotent-replayed"], "true");
    assert_eq!(three.text, whole);
}

/// The answer stored for `key` (`None`: trimmed) and whether its request's digest is kept.
async fn stored(app: &TestApp, key: &str) -> (Option<String>, bool) {
    sqlx::query_as(
        "SELECT response, request_hash IS NOT NULL FROM game_commands WHERE idempotency_key = $1",
    )
    .bind(key)
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

async fn events(app: &TestApp, game: Uuid) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM game_events WHERE game_id = $1")
        .bind(game)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_retry_past_the_idempotency_window_is_refused_and_never_applied_again() {
    let app = spawn_app().await;
    let (game, players, first) = flying_dutchman(&app).await;
    let v = version(&app, game, &players[first]).await;
    let action = json!({"type": "use_smith"});
    // Sent with `If-Match: *`, a request that is the same whatever the version is by then:
    // were its retry decided anew, it could be applied again.
    let late = || {
        app.act(&players[first], game)
            .key("late")
            .header("If-Match", "*")
            .send(&action)
    };
    let applied = late().await.assert_ok()["version"].as_i64().unwrap();
    // A later action, in another game: its answer is younger than the window throughout.
    let other = app.start_game("flying-dutchman", json!({}), &players).await;
    let detail = app
        .get(&format!("/games/{other}"))
        .as_user(&players[0])
        .send()
        .await;
    let mover = detail.assert_ok()["pending"][0].as_u64().unwrap() as usize;
    let w = version(&app, other, &players[mover]).await;
    let fresh = || {
        app.act(&players[mover], other)
            .key("fresh")
            .version(w)
            .send(&action)
    };
    let fresh_answer = fresh().await.assert_ok().clone();
    let sweep = || {
        kontor::service::housekeeping::sweep(
            &app.pool,
            30,
            app.config.login_window,
            app.config.idempotency_window,
            app.config.clock.now(),
        )
    };

    // Within the window the pass keeps every answer, and a retry gets it again.
    assert_eq!(sweep().await.unwrap().answers, 0);
    let again = late().await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.headers["idempotent-replayed"], "true");

    // A day and more later for everything recorded up to the first action (aged by SQL), not
    // for the second: its retry is refused by the record's age, before any pass.
    sqlx::query(
        "UPDATE game_commands SET created_at = created_at - interval '25 hours'
          WHERE id <= (SELECT id FROM game_commands WHERE idempotency_key = 'late')",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    assert_eq!(app.config.idempotency_window.as_secs(), 86_400);
    late().await.assert_problem(409, "idempotency_key_expired");
    // The pass empties only an answer stored whole (as records kept them before they kept
    // the answer without its events), and keeps the key and digest.
    let (compact, _) = stored(&app, "late").await;
    assert!(!compact.as_deref().unwrap().contains("events"));
    sqlx::query("UPDATE game_commands SET response = $1 WHERE idempotency_key = 'late'")
        .bind(
            json!({"version": applied, "status": "active", "pending": [], "events": []})
                .to_string(),
        )
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(sweep().await.unwrap().answers, 1);
    assert_eq!(stored(&app, "late").await, (None, true));
    assert!(stored(&app, "fresh").await.0.is_some());
    // Passed once, never again: a second pass finds nothing to do.
    assert_eq!(sweep().await.unwrap().answers, 0);

    // The late retry: refused, saying where it was applied and where the game is, and not
    // applied again.
    let (logged, now) = (
        events(&app, game).await,
        version(&app, game, &players[first]).await,
    );
    let reply = late().await;
    reply.assert_problem(409, "idempotency_key_expired");
    assert_eq!(reply.body["applied_version"], applied);
    assert_eq!(reply.body["current_version"], now);
    // Another request under the key is still another request: another action, or the same
    // one at a named version.
    for (named, sent) in [
        (None, json!({"type": "use_kontor"})),
        (Some(v), action.clone()),
    ] {
        let request = app.act(&players[first], game).key("late");
        let request = match named {
            Some(v) => request.version(v),
            None => request.header("If-Match", "*"),
        };
        request
            .send(&sent)
            .await
            .assert_problem(422, "idempotency_key_reused");
    }
    assert_eq!(events(&app, game).await, logged);
    assert_eq!(version(&app, game, &players[first]).await, now);

    // The younger one still replays.
    let again = fresh().await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!(again.body, fresh_answer);
}

#[tokio::test]
async fn a_key_used_before_is_never_applied_again_even_at_the_current_version() {
    let app = spawn_app().await;
    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo"] {
        players.push(app.register(name).await);
    }
    let game = app.start_game("steel-driver", json!({}), &players).await;
    let path = format!("/games/{game}/actions");
    let mut used = Vec::new();
    // Each player passes the pawn once with their own key; the third pass ends the auctions,
    // so the first player may act again.
    for round in 0..2 {
        let detail = app
            .get(&format!("/games/{game}"))
            .as_user(&players[0])
            .send()
            .await;
        let seat = detail.body["pending"][0].as_u64().unwrap() as usize;
        let v = detail.body["version"].as_i64().unwrap();
        let key = format!("key-{seat}");
        let body = json!({"version": v, "action": {"type": "pass_pawn"}});
        let reply = app
            .post(&path)
            .as_user(&players[seat])
            .json(&body)
            .key(&key)
            .send()
            .await;
        if round == 0 {
            reply.assert_ok();
            used.push((seat, key));
        } else {
            // A different player: their own key is fresh.
            reply.assert_ok();
        }
    }
    // The first player's key again, with a different request at the version now current:
    // refused, and nothing is appended.
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&players[0])
        .send()
        .await;
    let v = detail.body["version"].as_i64().unwrap();
    let (seat, key) = &used[0];
    let body =
        json!({"version": v, "action": {"type": "open_auction", "company": "red", "bid": 1}});
    let reply = app
        .post(&path)
        .as_user(&players[*seat])
        .json(&body)
        .key(key)
        .send()
        .await;
    assert_eq!(reply.status, 422, "{}", reply.text);
    assert!(
        ["idempotency_key_reused", "not_your_turn"].contains(&reply.body["code"].as_str().unwrap()),
        "{}",
        reply.text
    );
    assert_eq!(
        version(&app, game, &players[0]).await,
        v,
        "nothing was appended"
    );
}

#[tokio::test]
async fn twenty_clients_at_once_with_the_same_version_one_wins() {
    let app = spawn_app().await;
    let (game, players, first) = flying_dutchman(&app).await;
    let v = version(&app, game, &players[first]).await;
    let path = format!("/games/{game}/actions");
    let body = json!({"version": v, "action": {"type": "use_smith"}});
    let replies = join_all((0..20).map(|i| {
        let key = format!("client-{i}");
        let (app, path, body, token) = (&app, &path, &body, &players[first].token);
        async move {
            app.post(path)
                .token(token)
                .json(body)
                .key(&key)
                .send()
                .await
        }
    }))
    .await;
    let accepted: Vec<&Reply> = replies.iter().filter(|r| r.status == 200).collect();
    let conflicts = replies.iter().filter(|r| r.status == 409).count();
    assert_eq!(
        accepted.len(),
        1,
        "{:?}",
        replies.iter().map(|r| &r.text).collect::<Vec<_>>()
    );
    assert_eq!(conflicts, 19);
    for reply in replies.iter().filter(|r| r.status == 409) {
        reply.assert_problem(409, "version_conflict");
    }
    let seqs = app.event_seqs(game).await;
    let expected: Vec<i64> = (1..=seqs.len() as i64).collect();
    assert_eq!(seqs, expected, "no gap, no duplicate");
    assert_eq!(
        *seqs.last().unwrap(),
        accepted[0].body["version"].as_i64().unwrap()
    );
}

#[tokio::test]
async fn the_same_key_twenty_times_at_once_applies_once_with_one_answer() {
    let app = spawn_app().await;
    let (game, players, first) = flying_dutchman(&app).await;
    let v = version(&app, game, &players[first]).await;
    let path = format!("/games/{game}/actions");
    let body = json!({"version": v, "action": {"type": "use_smith"}});
    let replies = join_all((0..20).map(|_| {
        let (app, path, body, token) = (&app, &path, &body, &players[first].token);
        async move {
            app.post(path)
                .token(token)
                .json(body)
                .key("once")
                .send()
                .await
        }
    }))
    .await;
    let bodies: HashSet<String> = replies.iter().map(|r| r.body.to_string()).collect();
    assert!(
        replies.iter().all(|r| r.status == 200),
        "{:?}",
        replies.iter().map(|r| &r.text).collect::<Vec<_>>()
    );
    assert_eq!(bodies.len(), 1, "all twenty get the same answer");
    let commands: i64 = sqlx::query_scalar("SELECT count(*) FROM game_commands WHERE game_id = $1")
        .bind(game)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(commands, 1);
    let answer: Value = serde_json::from_str(bodies.iter().next().unwrap()).unwrap();
    assert_eq!(
        version(&app, game, &players[first]).await,
        answer["version"].as_i64().unwrap()
    );
}

#[tokio::test]
async fn the_database_refuses_to_rewrite_the_log() {
    let app = spawn_app().await;
    let (game, _, _) = flying_dutchman(&app).await;
    // The application's own role, through its own pool.
    let update = sqlx::query("UPDATE game_events SET payload = '{}' WHERE game_id = $1")
        .bind(game)
        .execute(&app.pool)
        .await;
    assert!(update.unwrap_err().to_string().contains("append-only"));
    let delete = sqlx::query("DELETE FROM game_events WHERE game_id = $1")
        .bind(game)
        .execute(&app.pool)
        .await;
    assert!(delete.unwrap_err().to_string().contains("append-only"));
    let truncate = sqlx::query("TRUNCATE game_events CASCADE")
        .execute(&app.pool)
        .await;
    assert!(truncate.is_err());
    let role_is_superuser: bool =
        sqlx::query_scalar("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(!role_is_superuser);
}
