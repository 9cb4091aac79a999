//! Private notes (issue 23): one per player and game, saved under `If-Match` so that two tabs
//! never overwrite each other unseen, for the player's eyes only, in their my-data export,
//! gone with their account.

use crate::support::*;
use serde_json::{Value, json};
use uuid::Uuid;

async fn read(app: &TestApp, user: &User, game: Uuid) -> Reply {
    app.get(&format!("/games/{game}/notes"))
        .as_user(user)
        .send()
        .await
}

fn etag(reply: &Reply) -> String {
    reply
        .headers
        .get("etag")
        .expect("an ETag")
        .to_str()
        .unwrap()
        .to_string()
}

async fn save(app: &TestApp, user: &User, game: Uuid, if_match: Option<&str>, text: &str) -> Reply {
    let call = app
        .put(&format!("/games/{game}/notes"))
        .as_user(user)
        .json(&json!({"text": text}));
    match if_match {
        Some(tag) => call.header("If-Match", tag),
        None => call,
    }
    .send()
    .await
}

async fn three_players(app: &TestApp) -> (Vec<User>, Uuid) {
    let players = vec![
        app.register("anna").await,
        app.register("bert").await,
        app.register("cleo").await,
    ];
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    (players, game)
}

async fn stored_notes(app: &TestApp, user: &User) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM game_notes WHERE user_id = $1")
        .bind(user.id)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_player_keeps_a_note_saved_only_over_the_note_they_read() {
    let app = spawn_app().await;
    let (players, game) = three_players(&app).await;
    let (anna, bert) = (&players[0], &players[1]);
    let game_tag = etag(
        &app.get(&format!("/games/{game}"))
            .as_user(anna)
            .send()
            .await,
    );

    // No note yet: an empty one, with a tag to save over.
    let empty = read(&app, anna, game).await;
    assert_eq!(empty.assert_ok()["text"], "");
    assert_eq!(empty.body["updated_at"], Value::Null);
    assert_eq!(empty.body["max_chars"], 10000);
    assert_eq!(
        empty.headers.get("cache-control").unwrap(),
        "private, no-cache"
    );
    let first = etag(&empty);
    assert!(first.starts_with("\"note-"), "{first}");

    // Without If-Match nothing is saved.
    save(&app, anna, game, None, "lost")
        .await
        .assert_problem(428, "precondition_required");
    assert_eq!(stored_notes(&app, anna).await, 0);

    let saved = save(
        &app,
        anna,
        game,
        Some(&first),
        "Bert hoards horseshoes.\r\nBid high.",
    )
    .await;
    assert_eq!(
        saved.assert_ok()["text"],
        "Bert hoards horseshoes.\nBid high."
    );
    assert!(saved.body["updated_at"].is_string());
    let second = etag(&saved);
    assert_ne!(first, second);
    let again = read(&app, anna, game).await;
    assert_eq!(
        again.assert_ok()["text"],
        "Bert hoards horseshoes.\nBid high."
    );
    assert_eq!(etag(&again), second);
    assert_eq!(again.body["updated_at"], saved.body["updated_at"]);
    // A conditional read of the same note is 304.
    let unchanged = app
        .get(&format!("/games/{game}/notes"))
        .as_user(anna)
        .header("If-None-Match", &second)
        .send()
        .await;
    assert_eq!(unchanged.status, 304);
    assert_eq!(etag(&unchanged), second);

    // Another tab still holding the first tag is refused, and the note stays.
    save(&app, anna, game, Some(&first), "from a stale tab")
        .await
        .assert_problem(412, "precondition_failed");
    // A weak tag never matches, nor does a game's tag.
    save(&app, anna, game, Some(&format!("W/{second}")), "weak")
        .await
        .assert_problem(412, "precondition_failed");
    save(&app, anna, game, Some(&game_tag), "game's tag")
        .await
        .assert_problem(412, "precondition_failed");
    save(&app, anna, game, Some("not a tag"), "junk")
        .await
        .assert_problem(400, "invalid_parameter");
    assert_eq!(
        read(&app, anna, game).await.body["text"],
        "Bert hoards horseshoes.\nBid high."
    );
    // A list naming the current tag matches; so does `*`.
    let listed = save(
        &app,
        anna,
        game,
        Some(&format!("\"note-0000000000000000\", {second}")),
        "listed",
    )
    .await;
    assert_eq!(listed.assert_ok()["text"], "listed");
    let forced = save(&app, anna, game, Some("*"), "  indented\n\n").await;
    assert_eq!(forced.assert_ok()["text"], "  indented\n\n");

    // Bert's note is his own: he sees none of Anna's.
    let his = read(&app, bert, game).await;
    assert_eq!(his.assert_ok()["text"], "");
    let his = save(&app, bert, game, Some(&etag(&his)), "Anna bluffs.").await;
    assert_eq!(his.assert_ok()["text"], "Anna bluffs.");
    assert_eq!(read(&app, anna, game).await.body["text"], "  indented\n\n");

    // Saving a note changes nothing of the game: not its version, not its tag.
    let after = app
        .get(&format!("/games/{game}"))
        .as_user(anna)
        .send()
        .await;
    assert_eq!(etag(&after), game_tag);

    // An empty text clears the note: no row is left.
    let current = etag(&read(&app, anna, game).await);
    let cleared = save(&app, anna, game, Some(&current), "").await;
    assert_eq!(cleared.assert_ok()["text"], "");
    assert_eq!(cleared.body["updated_at"], Value::Null);
    assert_eq!(
        etag(&cleared),
        first,
        "an empty note has the empty note's tag"
    );
    assert_eq!(stored_notes(&app, anna).await, 0);
    assert_eq!(stored_notes(&app, bert).await, 1);
}

#[tokio::test]
async fn a_note_is_plain_text_within_its_limit() {
    let app = spawn_app().await;
    let (players, game) = three_players(&app).await;
    let anna = &players[0];
    // A tab is refused here; other control characters by every body's text check.
    for (bad, code) in [
        ("a\ttab", "invalid_note"),
        ("an\u{1b}[31mescape", "invalid_field"),
        ("c1 \u{85}", "invalid_field"),
        ("nul\0", "invalid_field"),
    ] {
        let refused = save(&app, anna, game, Some("*"), bad).await;
        assert_eq!(refused.assert_problem(422, code)["field"], "text");
    }
    let too_long = "é".repeat(10_001);
    let refused = save(&app, anna, game, Some("*"), &too_long).await;
    assert!(
        refused.assert_problem(422, "invalid_note")["detail"]
            .as_str()
            .unwrap()
            .contains("10000"),
        "{}",
        refused.text
    );
    // The limit counts characters (not bytes), a CR LF as one.
    let full = format!("{}\r\n", "日".repeat(9_999));
    let saved = save(&app, anna, game, Some("*"), &full).await;
    assert_eq!(
        saved.assert_ok()["text"].as_str().unwrap().chars().count(),
        10_000
    );
    save(&app, anna, game, Some("*"), "{\"x\": 1}")
        .await
        .assert_ok();
    app.put(&format!("/games/{game}/notes"))
        .as_user(anna)
        .header("If-Match", "*")
        .json(&json!({"text": "x", "extra": 1}))
        .send()
        .await
        .assert_problem(400, "invalid_body");
}

#[tokio::test]
async fn only_the_players_of_a_game_have_notes() {
    let app = spawn_app().await;
    let (players, game) = three_players(&app).await;
    let dora = app.register("dora").await;
    // A spectator may read the game but has no note there.
    app.get(&format!("/games/{game}"))
        .as_user(&dora)
        .send()
        .await
        .assert_ok();
    read(&app, &dora, game)
        .await
        .assert_problem(403, "not_a_player");
    save(&app, &dora, game, Some("*"), "mine")
        .await
        .assert_problem(403, "not_a_player");
    // A game the caller may not read, or none at all, is not found.
    let closed = app
        .start_game_with(
            json!({"kind": "flying-dutchman", "options": {"spectators": "players"}}),
            &players,
        )
        .await;
    for game in [closed, Uuid::now_v7()] {
        read(&app, &dora, game)
            .await
            .assert_problem(404, "game_not_found");
        save(&app, &dora, game, Some("*"), "mine")
            .await
            .assert_problem(404, "game_not_found");
    }
    assert_eq!(stored_notes(&app, &dora).await, 0);
    // Without credentials, nothing.
    let anonymous = app.get(&format!("/games/{game}/notes")).send().await;
    assert_eq!(anonymous.status, 401);

    // API tokens: reading needs game:read, saving game:play.
    let anna = &players[0];
    let reader = app.api_token(&anna.token, &["game:read"]).await;
    let player = app.api_token(&anna.token, &["game:play"]).await;
    app.get(&format!("/games/{game}/notes"))
        .token(&reader)
        .send()
        .await
        .assert_ok();
    app.put(&format!("/games/{game}/notes"))
        .token(&reader)
        .header("If-Match", "*")
        .json(&json!({"text": "by a reader"}))
        .send()
        .await
        .assert_problem(403, "insufficient_scope");
    app.get(&format!("/games/{game}/notes"))
        .token(&player)
        .send()
        .await
        .assert_problem(403, "insufficient_scope");
    app.put(&format!("/games/{game}/notes"))
        .token(&player)
        .header("If-Match", "*")
        .json(&json!({"text": "by a bot"}))
        .send()
        .await
        .assert_ok();
}

#[tokio::test]
async fn two_tabs_saving_over_the_same_note_cannot_both_win() {
    let app = spawn_app().await;
    let (players, game) = three_players(&app).await;
    let anna = &players[0];
    for round in 0..5 {
        let tag = etag(&read(&app, anna, game).await);
        let (text_a, text_b) = (format!("tab A {round}"), format!("tab B {round}"));
        let (a, b) = tokio::join!(
            save(&app, anna, game, Some(&tag), &text_a),
            save(&app, anna, game, Some(&tag), &text_b),
        );
        let mut statuses = [a.status.as_u16(), b.status.as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 412], "{} / {}", a.text, b.text);
        let winner = if a.status == 200 { &a } else { &b };
        assert_eq!(
            read(&app, anna, game).await.body["text"],
            winner.body["text"]
        );
    }
}

#[tokio::test]
async fn a_compressed_answers_tag_saves_too() {
    let app = spawn_app().await;
    let (players, game) = three_players(&app).await;
    let anna = &players[0];
    let response = app
        .client
        .get(app.url(&format!("/games/{game}/notes")))
        .bearer_auth(&anna.token)
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-encoding"], "gzip");
    let tag = response.headers()["etag"].to_str().unwrap().to_string();
    assert!(tag.ends_with("-gzip\""), "{tag}");
    let saved = save(&app, anna, game, Some(&tag), "packed").await;
    assert_eq!(saved.assert_ok()["text"], "packed");
    // The old tag names the old note; any coding of the new one's names the new one.
    save(&app, anna, game, Some(&tag), "stale")
        .await
        .assert_problem(412, "precondition_failed");
    let fresh = etag(&saved);
    let as_brotli = format!("{}-br\"", fresh.trim_end_matches('"'));
    save(&app, anna, game, Some(&as_brotli), "br")
        .await
        .assert_ok();
}

#[tokio::test]
async fn notes_are_in_their_owners_export_and_go_with_the_account() {
    let app = spawn_app().await;
    let (players, game) = three_players(&app).await;
    let (anna, bert) = (&players[0], &players[1]);
    save(&app, anna, game, Some("*"), "anna-private-note")
        .await
        .assert_ok();
    save(&app, bert, game, Some("*"), "bert-private-note")
        .await
        .assert_ok();
    let export = app.get("/me/export").as_user(anna).send().await;
    let notes = export.assert_ok()["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{}", export.text);
    assert_eq!(notes[0]["game_id"], game.to_string());
    assert_eq!(notes[0]["text"], "anna-private-note");
    assert!(notes[0]["updated_at"].is_string());
    assert!(!export.text.contains("bert-private-note"));

    app.post("/me/delete")
        .as_user(anna)
        .json(&json!({"password": password_of("anna")}))
        .send()
        .await
        .assert_ok();
    assert_eq!(stored_notes(&app, anna).await, 0);
    // Other players' notes stay.
    assert_eq!(
        read(&app, bert, game).await.assert_ok()["text"],
        "bert-private-note"
    );
}

/// A saved note is told on the game's stream to its owner alone (their other tabs read it
/// again); the other players' and spectators' streams hear nothing of it.
#[tokio::test]
async fn a_save_is_told_to_the_owners_streams_only() {
    use crate::live::Stream;
    use std::time::Duration;
    let app = spawn_app().await;
    let (players, game) = three_players(&app).await;
    let watcher = app.register("dora").await;
    let path = format!("/games/{game}/stream");
    let wait = Duration::from_secs(10);
    let mut streams = Vec::new();
    for user in [&players[0], &players[1], &watcher] {
        let mut stream = Stream::open(&app.address, &path, &user.token, None).await;
        assert_eq!(stream.next(wait).await.unwrap().event, "snapshot");
        streams.push(stream);
    }
    save(&app, &players[0], game, Some("*"), "mine alone")
        .await
        .assert_ok();
    let told = streams[0].next(wait).await.expect("the owner is told");
    assert_eq!(told.event, "note");
    assert_eq!(told.data, json!({"game_id": game}));
    assert_eq!(told.id, None);
    assert!(!told.data.to_string().contains("mine alone"));
    for other in &mut streams[1..] {
        let heard = other.drain(Duration::from_millis(1500)).await;
        assert!(heard.is_empty(), "{heard:?}");
    }
}

#[tokio::test]
async fn a_save_retried_after_a_lost_answer_is_answered_as_saved() {
    let app = spawn_app().await;
    let (players, game) = three_players(&app).await;
    let anna = &players[0];
    let tag = etag(&read(&app, anna, game).await);
    let saved = save(&app, anna, game, Some(&tag), "Cleo bluffs.\r\n").await;
    let saved_at = saved.assert_ok()["updated_at"].clone();
    // The answer was lost; the client sends the same save again, with the tag it had.
    let retried = save(&app, anna, game, Some(&tag), "Cleo bluffs.\r\n").await;
    assert_eq!(retried.assert_ok()["text"], "Cleo bluffs.\n");
    assert_eq!(
        retried.body["updated_at"], saved_at,
        "nothing was written again"
    );
    assert_eq!(etag(&retried), etag(&saved));
    // Another text over the stale tag is still refused: a save is never lost unseen.
    save(&app, anna, game, Some(&tag), "Cleo never bluffs.")
        .await
        .assert_problem(412, "precondition_failed");
    assert_eq!(read(&app, anna, game).await.body["text"], "Cleo bluffs.\n");
}
