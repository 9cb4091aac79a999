//! Table talk (issue 22): who reads and writes which channel in each phase, sending once per
//! key under the rate limits, read markers and unread counts, moderation, account deletion.

use crate::bots;
use crate::support::*;
use serde_json::{Value, json};
use std::collections::HashMap;
use uuid::Uuid;

async fn send(app: &TestApp, user: &User, game: Uuid, channel: &str, text: &str) -> Reply {
    app.post(&format!("/games/{game}/chat/{channel}/messages"))
        .as_user(user)
        .key(&Uuid::new_v4().to_string())
        .json(&json!({"text": text}))
        .send()
        .await
}

async fn page(app: &TestApp, user: &User, game: Uuid, channel: &str) -> Reply {
    app.get(&format!("/games/{game}/chat/{channel}/messages"))
        .as_user(user)
        .send()
        .await
}

fn texts(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap_or("<hidden>").to_string())
        .collect()
}

async fn channels(app: &TestApp, user: &User, game: Uuid) -> Vec<String> {
    let overview = app
        .get(&format!("/games/{game}/chat"))
        .as_user(user)
        .send()
        .await;
    overview.assert_ok()["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["channel"].as_str().unwrap().to_string())
        .collect()
}

const ALL: [&str; 5] = [
    "table",
    "private:0-1",
    "private:0-2",
    "private:1-2",
    "spectators",
];

/// For each user, which of [`ALL`] they may read (by the page) and write (by sending).
async fn matrix(
    app: &TestApp,
    game: Uuid,
    users: &[&User],
) -> HashMap<String, (Vec<u16>, Vec<u16>)> {
    let mut out = HashMap::new();
    for user in users {
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for channel in ALL {
            let page = page(app, user, game, channel).await;
            if page.status == 404 {
                assert_eq!(page.body["code"], "chat_channel_not_found", "{}", page.body);
            }
            reads.push(page.status.as_u16());
            let sent = send(
                app,
                user,
                game,
                channel,
                &format!("{} in {channel}", user.name),
            )
            .await;
            writes.push(sent.status.as_u16());
        }
        out.insert(user.name.clone(), (reads, writes));
    }
    out
}

#[tokio::test]
async fn every_reader_class_reads_and_writes_what_the_phase_allows() {
    let app = spawn_app_with(AppOptions {
        settings: HashMap::from([("KONTOR_CHAT_BURST".into(), "100".into())]),
    })
    .await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let spec = app.register("spec").await;
    let created = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "flying-dutchman", "seats": 3}))
        .send()
        .await;
    assert_eq!(created.assert_ok()["options"]["chat"], "full");
    let game: Uuid = created.body["id"].as_str().unwrap().parse().unwrap();
    // Open: only the table, for the seated.
    let open = matrix(&app, game, &[&anna, &spec]).await;
    assert_eq!(
        open["anna"],
        (vec![200, 404, 404, 404, 404], vec![201, 404, 404, 404, 404])
    );
    assert_eq!(open["spec"], (vec![404; 5], vec![404; 5]));
    for p in [&bert, &cleo] {
        app.post(&format!("/games/{game}/join"))
            .as_user(p)
            .json(&json!({}))
            .send()
            .await
            .assert_ok();
    }
    // Running.
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&anna)
        .send()
        .await;
    let version = detail.assert_ok()["version"].clone();
    let etag = detail.headers["etag"].clone();
    let running = matrix(&app, game, &[&anna, &bert, &cleo, &spec]).await;
    assert_eq!(
        running["anna"],
        (vec![200, 200, 200, 404, 404], vec![201, 201, 201, 404, 404])
    );
    assert_eq!(
        running["bert"],
        (vec![200, 200, 404, 200, 404], vec![201, 201, 404, 201, 404])
    );
    assert_eq!(
        running["cleo"],
        (vec![200, 404, 200, 200, 404], vec![201, 404, 201, 201, 404])
    );
    assert_eq!(
        running["spec"],
        (vec![404, 404, 404, 404, 200], vec![404, 404, 404, 404, 201])
    );
    // Messages change neither the version nor the ETag of the game.
    let after = app
        .get(&format!("/games/{game}"))
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(after.assert_ok()["version"], version);
    assert_eq!(after.headers["etag"], etag);
    // Who sees what: a private channel's text only its two seats.
    assert_eq!(
        texts(page(&app, &bert, game, "private:0-1").await.assert_ok()),
        vec!["anna in private:0-1", "bert in private:0-1"]
    );
    assert_eq!(
        channels(&app, &anna, game).await,
        vec!["table", "private:0-1", "private:0-2"]
    );
    assert_eq!(channels(&app, &spec, game).await, vec!["spectators"]);
    // Unread: bert has not read anything; his own messages do not count.
    let bert_view = app
        .get(&format!("/games/{game}"))
        .as_user(&bert)
        .send()
        .await;
    // table: anna's two (open + running) and cleo's; private:0-1 anna's; private:1-2 cleo's.
    assert_eq!(bert_view.assert_ok()["chat_unread"], 5);
    let mine = app.get("/games?view=mine").as_user(&bert).send().await;
    assert_eq!(mine.assert_ok()["items"][0]["chat_unread"], 5);
    let table = page(&app, &bert, game, "table").await;
    let last = table.body["items"].as_array().unwrap().last().unwrap()["id"]
        .as_i64()
        .unwrap();
    app.put(&format!("/games/{game}/chat/table/read"))
        .as_user(&bert)
        .json(&json!({"up_to": last}))
        .send()
        .await;
    // Markers only move forward.
    let back = app
        .put(&format!("/games/{game}/chat/table/read"))
        .as_user(&bert)
        .json(&json!({"up_to": 1}))
        .send()
        .await;
    assert_eq!(back.status, 204);
    let bert_view = app
        .get(&format!("/games/{game}"))
        .as_user(&bert)
        .send()
        .await;
    assert_eq!(bert_view.assert_ok()["chat_unread"], 2);
    // The creator closes the spectators channel: read only.
    app.put(&format!("/games/{game}/chat/spectators"))
        .as_user(&bert)
        .json(&json!({"open": false}))
        .send()
        .await
        .assert_problem(403, "not_the_creator");
    let closed = app
        .put(&format!("/games/{game}/chat/spectators"))
        .as_user(&anna)
        .json(&json!({"open": false}))
        .send()
        .await;
    assert_eq!(closed.assert_ok()["spectators_open"], false);
    send(&app, &spec, game, "spectators", "hello?")
        .await
        .assert_problem(403, "chat_channel_closed");
    page(&app, &spec, game, "spectators").await.assert_ok();
    app.put(&format!("/games/{game}/chat/spectators"))
        .as_user(&anna)
        .json(&json!({"open": true}))
        .send()
        .await
        .assert_ok();
    // Finished: the table is everyone's to read, private channels stay their seats'.
    bots::play_to_end(
        &app,
        game,
        &[anna.clone(), bert.clone(), cleo.clone()],
        bots::flying_dutchman,
        7,
    )
    .await;
    let finished = matrix(&app, game, &[&anna, &spec]).await;
    assert_eq!(
        finished["anna"],
        (vec![200, 200, 200, 404, 200], vec![201, 201, 201, 404, 201])
    );
    assert_eq!(
        finished["spec"],
        (vec![200, 404, 404, 404, 200], vec![403, 404, 404, 404, 201])
    );
    assert!(!texts(page(&app, &spec, game, "table").await.assert_ok()).is_empty());
    // No chat: nothing for anyone; unknown settings are refused.
    let quiet = app
        .start_game(
            "steel-driver",
            json!({"chat": "none"}),
            &[anna.clone(), bert.clone(), cleo.clone()],
        )
        .await;
    send(&app, &anna, quiet, "table", "hi")
        .await
        .assert_problem(404, "chat_channel_not_found");
    assert!(channels(&app, &anna, quiet).await.is_empty());
    let bad = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "steel-driver", "seats": 3, "options": {"chat": "loud"}}))
        .send()
        .await;
    assert_eq!(bad.assert_problem(422, "invalid_options")["field"], "chat");
    // Steel Driver's default is the table only, shown in the export header.
    let sd = app
        .start_game(
            "steel-driver",
            json!({}),
            &[anna.clone(), bert.clone(), cleo.clone()],
        )
        .await;
    send(&app, &anna, sd, "private:0-1", "psst")
        .await
        .assert_problem(404, "chat_channel_not_found");
    let export = app.export(sd, &anna).await;
    let header: Value = serde_json::from_str(export.lines().next().unwrap()).unwrap();
    assert_eq!(header["options"]["chat"], "table");
    assert!(!export.contains("in table"), "the export carries no chat");
}

#[tokio::test]
async fn a_message_is_sent_once_per_key_within_the_limits() {
    let app = spawn_app_with(AppOptions {
        settings: HashMap::from([
            ("KONTOR_CHAT_BURST".into(), "2".into()),
            ("KONTOR_CHAT_INTERVAL_SECS".into(), "10".into()),
            ("KONTOR_CHAT_DAILY_MAX".into(), "4".into()),
        ]),
    })
    .await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let game = app
        .start_game(
            "flying-dutchman",
            json!({}),
            &[anna.clone(), bert.clone(), cleo.clone()],
        )
        .await;
    let path = format!("/games/{game}/chat/table/messages");
    let first = app
        .post(&path)
        .as_user(&anna)
        .key("k1")
        .json(&json!({"text": "  e\u{301}\r\nhi  "}))
        .send()
        .await;
    assert_eq!(first.status, 201, "{}", first.body);
    assert_eq!(first.body["text"], "\u{e9}\nhi");
    assert_eq!(first.body["author"]["seat"], 0);
    assert_eq!(first.body["author"]["username"], "anna");
    let retry = app
        .post(&path)
        .as_user(&anna)
        .key("k1")
        .json(&json!({"text": "  e\u{301}\r\nhi  "}))
        .send()
        .await;
    assert_eq!(retry.status, 200);
    assert_eq!(retry.headers["idempotent-replayed"], "true");
    assert_eq!(retry.body["id"], first.body["id"]);
    app.post(&path)
        .as_user(&anna)
        .key("k1")
        .json(&json!({"text": "something else"}))
        .send()
        .await
        .assert_problem(422, "idempotency_key_reused");
    app.post(&path)
        .as_user(&anna)
        .json(&json!({"text": "no key"}))
        .send()
        .await
        .assert_problem(400, "idempotency_key_required");
    for bad in ["", "   ", "tab\there", "x\u{202E}y", &"x".repeat(501)] {
        let refused = app
            .post(&path)
            .as_user(&anna)
            .key(&Uuid::new_v4().to_string())
            .json(&json!({"text": bad}))
            .send()
            .await;
        assert_eq!(
            refused.assert_problem(422, "invalid_chat_message")["field"],
            "text"
        );
    }
    // Other control characters are refused in any JSON body, as everywhere.
    let bell = app
        .post(&path)
        .as_user(&anna)
        .key("bell")
        .json(&json!({"text": "bell\u{7}"}))
        .send()
        .await;
    assert_eq!(bell.assert_problem(422, "invalid_field")["field"], "text");
    assert_eq!(
        texts(page(&app, &bert, game, "table").await.assert_ok()),
        vec!["\u{e9}\nhi"]
    );
    // Burst 2: the second passes, the third waits about an interval.
    send(&app, &anna, game, "table", "two").await.assert_ok();
    let limited = send(&app, &anna, game, "table", "three").await;
    limited.assert_problem(429, "chat_rate_limited");
    let wait: u64 = limited.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=10).contains(&wait), "{wait}");
    // Another player's bucket is their own.
    send(&app, &bert, game, "table", "mine").await.assert_ok();
    app.clock.advance(std::time::Duration::from_secs(20));
    send(&app, &anna, game, "table", "three").await.assert_ok();
    app.clock.advance(std::time::Duration::from_secs(20));
    send(&app, &anna, game, "table", "four").await.assert_ok();
    app.clock.advance(std::time::Duration::from_secs(20));
    let daily = send(&app, &anna, game, "table", "five").await;
    daily.assert_problem(429, "chat_daily_limit");
    let wait: u64 = daily.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(wait > 23 * 3600, "{wait}");
    app.clock.advance(std::time::Duration::from_secs(24 * 3600));
    send(&app, &anna, game, "table", "five").await.assert_ok();
}

async fn admin(app: &TestApp, name: &str) -> User {
    let user = app.register(name).await;
    let (ok, output) = app.kontor(&["admin", "grant", name]).await;
    assert!(ok, "{output}");
    user
}

#[tokio::test]
async fn readers_report_moderators_hide_and_mute() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let spec = app.register("spec").await;
    let root = admin(&app, "root").await;
    let game = app
        .start_game(
            "flying-dutchman",
            json!({}),
            &[anna.clone(), bert.clone(), cleo.clone()],
        )
        .await;
    let rude = send(&app, &bert, game, "table", "rude words").await;
    let id = rude.assert_ok()["id"].as_i64().unwrap();
    let secret = send(&app, &anna, game, "private:0-1", "a secret deal").await;
    let secret_id = secret.assert_ok()["id"].as_i64().unwrap();
    // Only a reader may report; others are told the message does not exist.
    let report = |user: &User, id: i64| {
        app.post(&format!("/chat/messages/{id}/report"))
            .as_user(user)
            .json(&json!({"reason": "abuse", "note": "please look"}))
            .send()
    };
    report(&spec, id)
        .await
        .assert_problem(404, "chat_message_not_found");
    report(&cleo, secret_id)
        .await
        .assert_problem(404, "chat_message_not_found");
    let first = report(&anna, id).await;
    assert_eq!(first.status, 201);
    let again = report(&anna, id).await;
    assert_eq!(again.status, 200);
    assert_eq!(again.body["id"], first.body["id"]);
    // The channel's pages say who reported what, to each reader of their own reports only.
    let by_anna = page(&app, &anna, game, "table").await;
    assert_eq!(by_anna.assert_ok()["items"][0]["reported_by_you"], true);
    let by_cleo = page(&app, &cleo, game, "table").await;
    assert_eq!(by_cleo.assert_ok()["items"][0]["reported_by_you"], false);
    // Moderators only.
    app.get("/admin/chat/reports")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(403, "admin_required");
    let reports = app.get("/admin/chat/reports").as_user(&root).send().await;
    let items = reports.assert_ok()["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["message"]["text"], "rude words");
    assert_eq!(items[0]["reporter"], "anna");
    assert_eq!(items[0]["note"], "please look");
    // Hidden: kept, shown without text to everyone but admins; the report is resolved.
    let hidden = app
        .post(&format!("/admin/chat/messages/{id}/hide"))
        .as_user(&root)
        .json(&json!({"reason": "insults"}))
        .send()
        .await;
    assert_eq!(hidden.assert_ok()["hidden"], true);
    assert_eq!(hidden.body["text"], "rude words");
    assert_eq!(hidden.body["hidden_reason"], "insults");
    let seen = page(&app, &cleo, game, "table").await;
    let message = &seen.assert_ok()["items"][0];
    assert_eq!(message["hidden"], true);
    assert_eq!(message["text"], Value::Null);
    assert!(message.get("hidden_reason").is_none());
    assert!(!seen.text.contains("rude words"));
    let open = app.get("/admin/chat/reports").as_user(&root).send().await;
    assert!(open.assert_ok()["items"].as_array().unwrap().is_empty());
    let all = app
        .get("/admin/chat/reports?status=all")
        .as_user(&root)
        .send()
        .await;
    assert_eq!(all.assert_ok()["items"][0]["resolution"], "hidden");
    // Muted: 403 with the time left, until lifted.
    let muted = app
        .post("/admin/chat/mutes")
        .as_user(&root)
        .json(&json!({"username": "bert", "minutes": 60, "reason": "insults"}))
        .send()
        .await;
    assert_eq!(muted.status, 201, "{}", muted.body);
    let refused = send(&app, &bert, game, "table", "let me talk").await;
    let problem = refused.assert_problem(403, "chat_muted");
    assert!(problem["muted_until"].is_string());
    assert!(problem["seconds_left"].as_i64().unwrap() > 3500);
    let bert_id = muted.body["user_id"].as_str().unwrap();
    let lifted = app
        .delete(&format!("/admin/chat/mutes/{bert_id}"))
        .as_user(&root)
        .send()
        .await;
    assert_eq!(lifted.status, 204);
    send(&app, &bert, game, "table", "sorry").await.assert_ok();
    // A block silences the private channel between the two (still readable).
    app.put("/me/blocks/anna")
        .as_user(&bert)
        .send()
        .await
        .assert_ok();
    send(&app, &anna, game, "private:0-1", "hello?")
        .await
        .assert_problem(403, "chat_blocked");
    send(&app, &bert, game, "private:0-1", "hello?")
        .await
        .assert_problem(403, "chat_blocked");
    assert_eq!(
        texts(page(&app, &bert, game, "private:0-1").await.assert_ok()),
        vec!["a secret deal"]
    );
    send(&app, &anna, game, "private:0-2", "still fine")
        .await
        .assert_ok();
}

#[tokio::test]
async fn a_deleted_account_s_lines_stay_under_its_placeholder_name() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let game = app
        .start_game(
            "flying-dutchman",
            json!({}),
            &[anna.clone(), bert.clone(), cleo.clone()],
        )
        .await;
    send(&app, &bert, game, "table", "bye all")
        .await
        .assert_ok();
    app.post("/me/delete")
        .as_user(&bert)
        .json(&json!({"password": password_of("bert")}))
        .send()
        .await
        .assert_ok();
    let table = page(&app, &anna, game, "table").await;
    let message = &table.assert_ok()["items"][0];
    assert_eq!(message["text"], "bye all");
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(&anna)
        .send()
        .await;
    let seat = &detail.assert_ok()["seats"][1];
    assert_eq!(message["author"]["username"], seat["username"]);
    assert_eq!(message["author"]["user_id"], seat["user_id"]);
    assert_ne!(message["author"]["username"], "bert");
}

#[tokio::test]
async fn messages_arrive_live_to_their_readers_only_and_resume_by_id() {
    use crate::live::Stream;
    use std::time::Duration;
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let spec = app.register("spec").await;
    let game = app
        .start_game(
            "flying-dutchman",
            json!({}),
            &[anna.clone(), bert.clone(), cleo.clone()],
        )
        .await;
    let path = format!("/games/{game}/stream");
    let mut streams = Vec::new();
    for user in [&bert, &cleo, &spec] {
        let mut stream = Stream::open(&app.address, &path, &user.token, None).await;
        let snapshot = stream.next(Duration::from_secs(10)).await.unwrap();
        assert_eq!(snapshot.event, "snapshot");
        streams.push(stream);
    }
    let mut me = Stream::open(&app.address, "/me/stream", &bert.token, None).await;
    assert_eq!(
        me.next(Duration::from_secs(10)).await.unwrap().event,
        "snapshot"
    );
    send(&app, &anna, game, "table", "hello table")
        .await
        .assert_ok();
    send(&app, &anna, game, "private:0-1", "psst bert")
        .await
        .assert_ok();
    send(&app, &spec, game, "spectators", "watching")
        .await
        .assert_ok();
    let quiet = Duration::from_millis(1500);
    let mut seen = Vec::new();
    for stream in &mut streams {
        let events = stream.drain(quiet).await;
        seen.push(
            events
                .iter()
                .filter(|e| e.event == "chat")
                .map(|e| e.data["text"].as_str().unwrap().to_string())
                .collect::<Vec<_>>(),
        );
        // No stream carries a channel its reader may not read.
        let all: String = events.iter().map(|e| e.data.to_string()).collect();
        if !seen.last().unwrap().contains(&"psst bert".to_string()) {
            assert!(!all.contains("psst bert"), "{all}");
        }
    }
    assert_eq!(seen[0], vec!["hello table", "psst bert"]);
    assert_eq!(seen[1], vec!["hello table"]);
    assert_eq!(seen[2], vec!["watching"]);
    // Bert's unread count arrives on his user stream.
    let unread: Vec<i64> = me
        .drain(quiet)
        .await
        .iter()
        .filter(|e| e.event == "chat_unread")
        .map(|e| e.data["unread"].as_i64().unwrap())
        .collect();
    assert_eq!(unread.last(), Some(&2), "{unread:?}");
    // Resumed from the last id received: what came after, none twice.
    let mut bert_stream = Stream::open(&app.address, &path, &bert.token, None).await;
    let snapshot = bert_stream.next(Duration::from_secs(10)).await.unwrap();
    let id = snapshot.raw_id.clone().unwrap();
    assert!(id.contains('.'), "the snapshot covers the chat: {id}");
    drop(bert_stream);
    send(&app, &anna, game, "table", "after the snapshot")
        .await
        .assert_ok();
    let mut resumed = Stream::open_from(&app.address, &path, &bert.token, Some(&id)).await;
    let events = resumed.drain(quiet).await;
    let texts: Vec<&str> = events
        .iter()
        .filter(|e| e.event == "chat")
        .map(|e| e.data["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, vec!["after the snapshot"]);
    // A plain version resumes the log as before and the chat from its start.
    let mut plain = Stream::open(&app.address, &path, &cleo.token, Some(0)).await;
    let events = plain.drain(quiet).await;
    assert!(events.iter().any(|e| e.event == "event"));
    let texts: Vec<&str> = events
        .iter()
        .filter(|e| e.event == "chat")
        .map(|e| e.data["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, vec!["hello table", "after the snapshot"]);
    // A chat part beyond the game's messages is refused.
    let refused = app
        .client
        .get(app.url(&path))
        .bearer_auth(&bert.token)
        .header("Last-Event-ID", "1.999999")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
}

#[tokio::test]
async fn the_operator_lists_reports_hides_mutes_and_unmutes_at_the_command_line() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let game = app
        .start_game(
            "flying-dutchman",
            json!({}),
            &[anna.clone(), bert.clone(), cleo.clone()],
        )
        .await;
    let (ok, output) = app.kontor(&["admin", "chat-reports"]).await;
    assert!(ok && output.contains("no open reports"), "{output}");

    let rude = send(&app, &bert, game, "table", "rude\nwords").await;
    let id = rude.assert_ok()["id"].as_i64().unwrap();
    let report = app
        .post(&format!("/chat/messages/{id}/report"))
        .as_user(&anna)
        .json(&json!({"reason": "abuse", "note": "please look"}))
        .send()
        .await;
    assert_eq!(report.status, 201, "{}", report.body);
    let report_id = report.body["id"].as_i64().unwrap();

    // The listing: one line per report with the message's whole text on it.
    let (ok, output) = app.kontor(&["admin", "chat-reports"]).await;
    assert!(ok, "{output}");
    let line = output
        .lines()
        .find(|l| l.starts_with(&format!("report {report_id}\t")))
        .unwrap_or_else(|| panic!("no line for report {report_id}: {output}"));
    for part in [
        format!("message {id}"),
        format!("game {game}"),
        "table".to_string(),
        "by bert".to_string(),
        "reported by anna".to_string(),
        "abuse".to_string(),
        "note: please look".to_string(),
        "text: rude\\nwords".to_string(),
    ] {
        assert!(line.contains(&part), "{part:?} missing from {line:?}");
    }

    // Hide: readers see it removed, without its text; the report is resolved; the operator
    // is recorded as nobody.
    let (ok, output) = app
        .kontor(&["admin", "chat-hide", &id.to_string(), "--reason", "insults"])
        .await;
    assert!(ok && output.contains("is hidden"), "{output}");
    let seen = page(&app, &cleo, game, "table").await;
    let message = &seen.assert_ok()["items"][0];
    assert_eq!(message["id"], id);
    assert_eq!(message["hidden"], true);
    assert_eq!(message["text"], Value::Null);
    assert!(!seen.text.contains("rude"));
    let (hidden_by, reason): (Option<Uuid>, Option<String>) =
        sqlx::query_as("SELECT hidden_by, reason FROM chat_hidden WHERE message_id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!((hidden_by, reason.as_deref()), (None, Some("insults")));
    let (ok, output) = app.kontor(&["admin", "chat-reports"]).await;
    assert!(ok && output.contains("no open reports"), "{output}");
    let (ok, output) = app.kontor(&["admin", "chat-reports", "--all"]).await;
    assert!(
        ok && output.contains(&format!("report {report_id}\t")),
        "{output}"
    );
    assert!(output.contains("\thidden\t"), "{output}");

    // Mute: a send is refused until the operator lifts it.
    let (ok, output) = app
        .kontor(&[
            "admin",
            "chat-mute",
            "BERT",
            "--minutes",
            "60",
            "--reason",
            "insults",
        ])
        .await;
    assert!(ok && output.contains("bert is muted"), "{output}");
    let muted_by: Option<Uuid> = sqlx::query_scalar(
        "SELECT muted_by FROM chat_mutes WHERE user_id = $1 AND lifted_at IS NULL",
    )
    .bind(bert.id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(muted_by, None);
    let refused = send(&app, &bert, game, "table", "let me talk").await;
    assert!(
        refused.assert_problem(403, "chat_muted")["seconds_left"]
            .as_i64()
            .unwrap()
            > 3500
    );
    let (ok, output) = app.kontor(&["admin", "chat-unmute", "bert"]).await;
    assert!(
        ok && output.contains("bert may write in the chat again"),
        "{output}"
    );
    send(&app, &bert, game, "table", "sorry").await.assert_ok();
    let (ok, output) = app.kontor(&["admin", "chat-unmute", "bert"]).await;
    assert!(ok && output.contains("bert was not muted"), "{output}");

    // Bad input: a message a person understands, a failing status, nothing changed.
    let before = app.fingerprint().await;
    for (args, says) in [
        (
            vec!["chat-hide", "999999", "--reason", "spam"],
            "there is no chat message 999999",
        ),
        (
            vec!["chat-hide", &*id.to_string(), "--reason", "  "],
            "reason has 1 to 500 characters, not 0",
        ),
        (
            vec!["chat-hide", "nine", "--reason", "spam"],
            "invalid value",
        ),
        (
            vec!["chat-mute", "nobody", "--minutes", "5", "--reason", "spam"],
            "there is no user \"nobody\"",
        ),
        (
            vec!["chat-mute", "bert", "--minutes", "0", "--reason", "spam"],
            "minutes is 1 to 525600, not 0",
        ),
        (
            vec!["chat-mute", "bert", "--minutes", "-5", "--reason", "spam"],
            "minutes is 1 to 525600, not -5",
        ),
        (
            vec![
                "chat-mute",
                "bert",
                "--minutes",
                "525601",
                "--reason",
                "spam",
            ],
            "minutes is 1 to 525600",
        ),
        (
            vec!["chat-mute", "bert", "--minutes", "5", "--reason", ""],
            "reason has 1 to 500 characters, not 0",
        ),
        (vec!["chat-mute", "bert", "--minutes", "5"], "--reason"),
        (vec!["chat-unmute", "nobody"], "there is no user \"nobody\""),
        (
            vec!["chat-reports", "--limit", "0"],
            "--limit is between 1 and 1000",
        ),
    ] {
        let args: Vec<&str> = std::iter::once("admin").chain(args).collect();
        let (ok, output) = app.kontor(&args).await;
        assert!(!ok, "kontor {args:?} succeeded: {output}");
        assert!(
            output.contains(says),
            "kontor {args:?}: {says:?} missing from {output}"
        );
        assert!(!output.contains("panicked"), "kontor {args:?}: {output}");
    }
    assert_eq!(app.fingerprint().await, before);
}

#[tokio::test]
async fn admins_dismiss_reports_and_the_page_knows_who_is_an_admin() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let root = admin(&app, "root").await;
    // Only the caller's own profile says whether they are an admin.
    assert_eq!(
        app.get("/me").as_user(&root).send().await.assert_ok()["admin"],
        true
    );
    assert_eq!(
        app.get("/me").as_user(&anna).send().await.assert_ok()["admin"],
        false
    );
    let game = app
        .start_game(
            "flying-dutchman",
            json!({}),
            &[anna.clone(), bert.clone(), cleo.clone()],
        )
        .await;
    let banter = send(&app, &bert, game, "table", "you will sink, captain").await;
    let id = banter.assert_ok()["id"].as_i64().unwrap();
    let report = app
        .post(&format!("/chat/messages/{id}/report"))
        .as_user(&anna)
        .json(&json!({"reason": "abuse"}))
        .send()
        .await;
    assert_eq!(report.status, 201, "{}", report.body);
    let report_id = report.body["id"].as_i64().unwrap();
    let dismiss = |user: &User, report: i64, body: Value| {
        app.post(&format!("/admin/chat/reports/{report}/dismiss"))
            .as_user(user)
            .json(&body)
            .send()
    };

    // Admins only; an unknown report is 404; a bad reason 422; none of it changes anything.
    let before = app.fingerprint().await;
    dismiss(&anna, report_id, json!({}))
        .await
        .assert_problem(403, "admin_required");
    dismiss(&root, 999_999, json!({}))
        .await
        .assert_problem(404, "chat_report_not_found");
    dismiss(&root, report_id, json!({"reason": "two\nlines"}))
        .await
        .assert_problem(422, "invalid_field");
    dismiss(&root, report_id, json!({"reason": ""}))
        .await
        .assert_problem(422, "invalid_field");
    assert_eq!(
        dismiss(&root, report_id, json!({"why": "x"})).await.status,
        400
    );
    assert_eq!(app.fingerprint().await, before);

    // Dismissed: recorded with who, when and why; gone from the open list; the message
    // stays readable as it was.
    let dismissed = dismiss(&root, report_id, json!({"reason": "banter"})).await;
    let body = dismissed.assert_ok().clone();
    assert_eq!(body["id"], report_id);
    assert_eq!(body["resolution"], "dismissed");
    assert_eq!(body["resolved_by"], root.id.to_string());
    assert_eq!(body["resolution_note"], "banter");
    assert!(body["resolved_at"].is_string());
    assert_eq!(body["message"]["hidden"], false);
    let open = app.get("/admin/chat/reports").as_user(&root).send().await;
    assert!(open.assert_ok()["items"].as_array().unwrap().is_empty());
    let all = app
        .get("/admin/chat/reports?status=all")
        .as_user(&root)
        .send()
        .await;
    assert_eq!(all.assert_ok()["items"][0]["resolution"], "dismissed");
    assert_eq!(all.body["items"][0]["resolution_note"], "banter");
    assert_eq!(
        texts(page(&app, &cleo, game, "table").await.assert_ok()),
        vec!["you will sink, captain"]
    );

    // Again, with another reason or without a body: idempotent, the first dismissal stays
    // the one recorded.
    app.clock.advance(std::time::Duration::from_secs(60));
    let again = dismiss(&root, report_id, json!({"reason": "another word"})).await;
    assert_eq!(again.assert_ok()["resolved_at"], body["resolved_at"]);
    assert_eq!(again.body["resolution_note"], "banter");
    let bare = app
        .post(&format!("/admin/chat/reports/{report_id}/dismiss"))
        .as_user(&root)
        .send()
        .await;
    assert_eq!(bare.assert_ok()["resolution_note"], "banter");

    // A report whose message a moderator hid is resolved as hidden; dismissing it later
    // changes nothing.
    let rude = send(&app, &bert, game, "table", "rude words").await;
    let rude_id = rude.assert_ok()["id"].as_i64().unwrap();
    let second = app
        .post(&format!("/chat/messages/{rude_id}/report"))
        .as_user(&cleo)
        .json(&json!({"reason": "abuse"}))
        .send()
        .await;
    let second_id = second.body["id"].as_i64().unwrap();
    app.post(&format!("/admin/chat/messages/{rude_id}/hide"))
        .as_user(&root)
        .json(&json!({"reason": "insults"}))
        .send()
        .await
        .assert_ok();
    let late = dismiss(&root, second_id, json!({})).await;
    assert_eq!(late.assert_ok()["resolution"], "hidden");
    assert_eq!(late.body["resolved_by"], root.id.to_string());
    assert_eq!(late.body["resolution_note"], Value::Null);

    // The operator at the command line: recorded as nobody.
    let third = app
        .post(&format!("/chat/messages/{id}/report"))
        .as_user(&cleo)
        .json(&json!({"reason": "spam", "note": "again?"}))
        .send()
        .await;
    let third_id = third.body["id"].as_i64().unwrap();
    let (ok, output) = app
        .kontor(&[
            "admin",
            "chat-dismiss",
            &third_id.to_string(),
            "--reason",
            "not spam",
        ])
        .await;
    assert!(
        ok && output.contains(&format!("report {third_id} is dismissed")),
        "{output}"
    );
    let (by, note): (Option<Uuid>, Option<String>) = sqlx::query_as(
        "SELECT resolved_by, resolution_note FROM chat_reports
          WHERE id = $1 AND resolution = 'dismissed'",
    )
    .bind(third_id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!((by, note.as_deref()), (None, Some("not spam")));
    let (ok, output) = app
        .kontor(&["admin", "chat-dismiss", &third_id.to_string()])
        .await;
    assert!(
        ok && output.contains("was resolved before (dismissed); nothing changed"),
        "{output}"
    );
    let (ok, output) = app.kontor(&["admin", "chat-dismiss", "999999"]).await;
    assert!(
        !ok && output.contains("there is no chat report 999999"),
        "{output}"
    );
}
