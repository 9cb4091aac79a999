//! Email notifications against a real SMTP receiver, the real server and PostgreSQL: the
//! outbox and its transaction, delivery, retries and leases, preferences, presence, the
//! digest, one-click unsubscribe, the admin tools and the `.eml` fallback.

use crate::smtp::{Received, SinkTls, SmtpSink, Verdict, links};
use crate::support::*;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as STANDARD_B64;
use chrono::{TimeZone, Utc};
use kontor::service::delivery::mail::unsubscribe::UnsubscribeScope;
use kontor::service::delivery::mail::worker::Notifier;
use kontor::service::notices::{self, Notice, NoticeKind};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;
use uuid::Uuid;

const FROM: &str = "Kontor <kontor@kontor.test>";

type Fixture = MailedApp;

fn settings(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A server whose mail goes to a fresh SMTP sink, and a notifier to drive delivery by hand.
async fn fixture(extra: &[(&str, &str)]) -> Fixture {
    let mut all = vec![
        ("KONTOR_MAIL_FROM", FROM),
        ("KONTOR_MAIL_RETRY_BASE", "0.2"),
        ("KONTOR_MAIL_LEASE", "30"),
    ];
    all.extend_from_slice(extra);
    spawn_mailed_app(&all).await
}

/// Enqueues in a transaction of its own and commits.
async fn enqueue(app: &TestApp, notices: &[Notice]) {
    let mut tx = app.pool.begin().await.unwrap();
    notices::enqueue(&mut tx, notices).await.unwrap();
    tx.commit().await.unwrap();
}

fn notice(user: &User, kind: NoticeKind, key: &str, data: Value) -> Notice {
    Notice {
        user_id: user.id,
        kind,
        game_id: None,
        dedupe_key: key.to_string(),
        data,
    }
}

/// A started three-player Flying Dutchman game, its players and the index of the one to act.
async fn game(app: &TestApp, names: [&str; 3]) -> (Uuid, Vec<User>, usize) {
    let mut players = Vec::new();
    for name in names {
        players.push(app.register(name).await);
    }
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    // These tests look at the notices they queue themselves; the start's own mail (game
    // started, your turn) is tested with the game flow in tests/api/clocks.rs.
    sqlx::query("DELETE FROM mail_outbox WHERE game_id = $1")
        .bind(game)
        .execute(&app.pool)
        .await
        .unwrap();
    let pending: Vec<Uuid> = sqlx::query_scalar(
        "SELECT s.user_id FROM games g JOIN game_seats s ON s.game_id = g.id
          WHERE g.id = $1 AND s.seat = ANY(g.pending_seats)",
    )
    .bind(game)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(pending.len(), 1, "one player acts first");
    let first = players.iter().position(|p| p.id == pending[0]).unwrap();
    (game, players, first)
}

async fn seat_of(app: &TestApp, game: Uuid, user: &User) -> i16 {
    sqlx::query_scalar("SELECT seat FROM game_seats WHERE game_id = $1 AND user_id = $2")
        .bind(game)
        .bind(user.id)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// (kind, status, skip_reason) of every outbox row of a user, oldest first.
async fn outbox(app: &TestApp, user: &User) -> Vec<(String, String, Option<String>)> {
    sqlx::query_as(
        "SELECT kind, status, skip_reason FROM mail_outbox WHERE user_id = $1 ORDER BY id",
    )
    .bind(user.id)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

/// The mail preferences (the push choice, tested in tests/api/push.rs, left out).
async fn preferences(app: &TestApp, user: &User) -> Value {
    let mut all = app
        .get("/me/notifications")
        .as_user(user)
        .send()
        .await
        .assert_ok()
        .clone();
    assert!(all["push"].is_object(), "{all}");
    all.as_object_mut().unwrap().remove("push");
    all
}

fn message_id(received: &Received) -> String {
    received
        .mail()
        .header("Message-ID")
        .expect("every mail has a Message-ID")
        .to_string()
}

/// The URL of the List-Unsubscribe header.
fn unsubscribe_url(received: &Received) -> String {
    let mail = received.mail();
    let header = mail.header("List-Unsubscribe").expect("List-Unsubscribe");
    header
        .trim()
        .strip_prefix('<')
        .and_then(|h| h.strip_suffix('>'))
        .expect("List-Unsubscribe is <url>")
        .to_string()
}

async fn one_click(app: &TestApp, url: &str) -> Reply {
    let response = app
        .client
        .post(url)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .unwrap();
    read(response).await
}

async fn plain_get(app: &TestApp, url: &str) -> Reply {
    read(app.client.get(url).send().await.unwrap()).await
}

#[tokio::test]
async fn a_committed_notice_is_mailed_once_with_text_html_game_link_and_working_unsubscribe() {
    let f = fixture(&[]).await;
    let (game, players, first) = game(&f.app, ["anna", "bert", "cleo"]).await;
    let player = &players[first];
    let seat = seat_of(&f.app, game, player).await;
    let deadline = Utc::now() + chrono::Duration::days(2);
    enqueue(
        &f.app,
        &[Notice::your_turn(
            player.id,
            game,
            seat,
            1,
            json!({"deadline": deadline.to_rfc3339()}),
        )],
    )
    .await;

    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.claimed, report.sent), (1, 1), "{report:?}");
    let received = f.sink.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].to, [format!("{}@example.org", player.name)]);
    assert_eq!(received[0].from, "kontor@kontor.test");
    let mail = received[0].mail();
    assert!(
        mail.content_type.starts_with("multipart/alternative"),
        "{}",
        mail.content_type
    );
    let subject = mail.header("Subject").unwrap();
    assert!(
        subject.starts_with("Your turn in The Flying Dutchman with "),
        "{subject}"
    );
    for other in players.iter().filter(|p| p.id != player.id) {
        assert!(subject.contains(&other.name), "{subject}");
        assert!(mail.text().contains(&other.name));
        assert!(mail.html().contains(&other.name));
    }
    assert!(mail.text().contains(&format!("Hello {},", player.name)));
    assert!(mail.text().contains("in 2 days"), "{}", mail.text());
    assert_eq!(mail.header("Auto-Submitted"), Some("auto-generated"));
    assert_eq!(
        mail.header("List-Unsubscribe-Post"),
        Some("List-Unsubscribe=One-Click")
    );

    // The link is the game's page in the web client (which asks a signed-out reader to sign
    // in, then shows the game through the API).
    let game_link = f.notifier.game_link(game);
    assert_eq!(game_link, format!("{}/games/{game}", f.app.address));
    assert!(links(mail.text()).contains(&game_link), "{}", mail.text());
    assert!(links(mail.html()).contains(&game_link), "{}", mail.html());
    let opened = f.app.client.get(&game_link).send().await.unwrap();
    assert_eq!(opened.status(), 200, "is the web client built?");
    assert!(
        opened.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let game_api = format!("{}/api/v1/games/{game}", f.app.address);
    let fetched = f
        .app
        .client
        .get(&game_api)
        .bearer_auth(&player.token)
        .send()
        .await
        .unwrap();
    let fetched = read(fetched).await;
    assert_eq!(fetched.assert_ok()["id"], game.to_string());

    // The unsubscribe link: in the header and in both bodies, without a login.
    let url = unsubscribe_url(&received[0]);
    assert!(
        url.starts_with(&format!("{}/api/v1/unsubscribe?token=", f.app.address)),
        "{url}"
    );
    assert!(links(mail.text()).contains(&url));
    assert!(links(mail.html()).contains(&url));
    let page = plain_get(&f.app, &url).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(
        page.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(page.text.contains("<form method=\"post\""), "{}", page.text);
    assert!(
        page.text.contains("&quot;your turn&quot; mails"),
        "{}",
        page.text
    );
    // Opening the page changed nothing.
    assert_eq!(
        preferences(&f.app, player).await["your_turn"],
        "immediately"
    );

    let done = one_click(&f.app, &url).await;
    assert_eq!(done.status, 200, "{}", done.text);
    assert!(done.text.contains("gets no more"), "{}", done.text);
    let after = preferences(&f.app, player).await;
    assert_eq!(after["your_turn"], "off");
    for kind in ["reminder", "invited", "game_started", "game_over"] {
        assert_eq!(after[kind], "immediately", "only your_turn changed");
    }
    // Unsubscribing twice is harmless.
    assert_eq!(one_click(&f.app, &url).await.status, 200);

    // The next turn sends nothing; the first mail is never sent again.
    enqueue(
        &f.app,
        &[Notice::your_turn(player.id, game, seat, 7, json!({}))],
    )
    .await;
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!(report.claimed, 0, "{report:?}");
    assert_eq!(f.sink.received().len(), 1);
    // The turned-off notice is recorded (for Web Push and webhooks), never mailed.
    assert_eq!(
        outbox(&f.app, player).await,
        [
            ("your_turn".to_string(), "sent".to_string(), None),
            (
                "your_turn".to_string(),
                "skipped".to_string(),
                Some("off".to_string())
            ),
        ]
    );
    // Other kinds still arrive.
    enqueue(
        &f.app,
        &[Notice::game_over(
            player.id,
            game,
            json!({"result": "anna won"}),
        )],
    )
    .await;
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().sent, 1);
    assert_eq!(f.sink.received().len(), 2);
}

#[tokio::test]
async fn a_rolled_back_transaction_sends_nothing() {
    let f = fixture(&[]).await;
    let anna = f.app.register("anna").await;
    let mut tx = f.app.pool.begin().await.unwrap();
    notices::enqueue(
        &mut tx,
        &[notice(
            &anna,
            NoticeKind::Invited,
            "invited:x",
            json!({"inviter": "bert"}),
        )],
    )
    .await
    .unwrap();
    tx.rollback().await.unwrap();
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!(report.claimed, 0);
    assert!(outbox(&f.app, &anna).await.is_empty());
    assert!(f.sink.received().is_empty());
    assert_eq!(f.sink.attempts(), 0);
}

#[tokio::test]
async fn one_dedupe_key_sends_one_mail() {
    let f = fixture(&[]).await;
    let anna = f.app.register("anna").await;
    let bert = f.app.register("bert").await;
    let key = "your_turn:game:2:17";
    // Twice in one call, again in another transaction, and once for another recipient.
    enqueue(
        &f.app,
        &[
            notice(&anna, NoticeKind::GameStarted, key, json!({"n": 1})),
            notice(&anna, NoticeKind::GameStarted, key, json!({"n": 2})),
        ],
    )
    .await;
    enqueue(
        &f.app,
        &[notice(&anna, NoticeKind::GameStarted, key, json!({"n": 3}))],
    )
    .await;
    enqueue(
        &f.app,
        &[notice(&bert, NoticeKind::GameStarted, key, json!({}))],
    )
    .await;
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!(report.sent, 2, "{report:?}");
    // And once more after it was sent.
    enqueue(
        &f.app,
        &[notice(&anna, NoticeKind::GameStarted, key, json!({"n": 4}))],
    )
    .await;
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().claimed, 0);
    let received = f.sink.received();
    let mut to: Vec<String> = received.iter().map(|r| r.to[0].clone()).collect();
    to.sort();
    assert_eq!(to, ["anna@example.org", "bert@example.org"]);
    let data: Value = sqlx::query_scalar("SELECT data FROM mail_outbox WHERE user_id = $1")
        .bind(anna.id)
        .fetch_one(&f.app.pool)
        .await
        .unwrap();
    assert_eq!(data, json!({"n": 1}), "the first enqueue wins");
}

#[tokio::test]
async fn preferences_are_validated_and_off_digest_immediately_are_honoured() {
    let f = fixture(&[]).await;
    let anna = f.app.register("anna").await;
    let defaults = preferences(&f.app, &anna).await;
    assert_eq!(
        defaults,
        json!({"your_turn": "immediately", "reminder": "immediately", "invited": "immediately",
               "game_started": "immediately", "game_over": "immediately",
               "player_left": "immediately", "chat_mention": "immediately",
               "rematch_offered": "immediately", "undo_requested": "immediately",
               "tournament_started": "immediately", "tournament_round": "immediately",
               "tournament_finished": "immediately", "tournament_cancelled": "immediately",
               "always_email": false})
    );

    // Bad input changes nothing.
    for (body, code) in [
        (json!({"invited": "sometimes"}), "invalid_body"),
        (json!({"invited": "off", "colour": "blue"}), "invalid_body"),
        (json!({"always_email": "yes"}), "invalid_body"),
        (json!("off"), "invalid_body"),
    ] {
        let reply = f
            .app
            .put("/me/notifications")
            .as_user(&anna)
            .json(&body)
            .send()
            .await;
        reply.assert_problem(400, code);
    }
    let malformed = f
        .app
        .client
        .put(f.app.url("/me/notifications"))
        .bearer_auth(&anna.token)
        .header("Content-Type", "application/json")
        .body("{\"invited\": ")
        .send()
        .await
        .unwrap();
    read(malformed).await.assert_problem(400, "malformed_json");
    f.app
        .put("/me/notifications")
        .json(&json!({}))
        .send()
        .await
        .assert_problem(401, "unauthenticated");
    let api_token = f
        .app
        .api_token(&anna.token, &["game:read", "game:play"])
        .await;
    f.app
        .get("/me/notifications")
        .token(&api_token)
        .send()
        .await
        .assert_problem(403, "session_required");
    assert_eq!(preferences(&f.app, &anna).await, defaults);

    // A partial update keeps the rest.
    let changed = f
        .app
        .put("/me/notifications")
        .as_user(&anna)
        .json(&json!({"invited": "off", "game_over": "digest"}))
        .send()
        .await;
    assert_eq!(changed.assert_ok()["invited"], "off");
    let now = preferences(&f.app, &anna).await;
    assert_eq!(now["invited"], "off");
    assert_eq!(now["game_over"], "digest");
    assert_eq!(now["game_started"], "immediately");

    enqueue(
        &f.app,
        &[
            notice(&anna, NoticeKind::Invited, "i", json!({"inviter": "bert"})),
            notice(
                &anna,
                NoticeKind::GameOver,
                "o",
                json!({"result": "bert won by 3 ducats", "game_kind": "flying-dutchman"}),
            ),
            notice(
                &anna,
                NoticeKind::GameStarted,
                "s",
                json!({"game_kind": "steel-driver"}),
            ),
        ],
    )
    .await;
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.claimed, report.sent), (1, 1), "{report:?}");
    let received = f.sink.received();
    assert_eq!(
        received[0].mail().header("Subject"),
        Some("Steel Driver has started")
    );
    // off → recorded as skipped, never mailed; digest → held.
    assert_eq!(
        outbox(&f.app, &anna).await,
        [
            (
                "invited".to_string(),
                "skipped".to_string(),
                Some("off".to_string())
            ),
            ("game_over".to_string(), "held".to_string(), None),
            ("game_started".to_string(), "sent".to_string(), None),
        ]
    );

    // The digest: not before the hour, then once that day.
    let early = Utc.with_ymd_and_hms(2026, 11, 30, 6, 59, 0).unwrap();
    assert_eq!(f.notifier.queue_digests(early).await.unwrap(), 0);
    let morning = Utc.with_ymd_and_hms(2026, 11, 30, 7, 0, 0).unwrap();
    assert_eq!(f.notifier.queue_digests(morning).await.unwrap(), 1);
    assert_eq!(f.notifier.queue_digests(morning).await.unwrap(), 0);
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!(report.sent, 1, "{report:?}");
    let digest = f.sink.received()[1].mail();
    assert_eq!(
        digest.header("Subject"),
        Some("Your Kontor digest for 2026-11-30")
    );
    assert!(
        digest
            .text()
            .contains("The Flying Dutchman is over: bert won by 3 ducats"),
        "{}",
        digest.text()
    );
    assert!(digest.text().contains("no game is waiting for your move"));
    assert!(unsubscribe_url(&f.sink.received()[1]).contains(".digest."));
    assert_eq!(
        outbox(&f.app, &anna).await[1],
        ("game_over".to_string(), "digested".to_string(), None)
    );
    // Nothing more to tell the next day: no mail.
    let next_day = Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap();
    assert_eq!(f.notifier.queue_digests(next_day).await.unwrap(), 0);

    // Back to immediately: mailed at once again.
    f.app
        .put("/me/notifications")
        .as_user(&anna)
        .json(&json!({"game_over": "immediately"}))
        .send()
        .await
        .assert_ok();
    enqueue(
        &f.app,
        &[notice(&anna, NoticeKind::GameOver, "o2", json!({}))],
    )
    .await;
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().sent, 1);
}

#[tokio::test]
async fn the_daily_digest_lists_the_games_waiting_once_a_day() {
    let f = fixture(&[]).await;
    let (game, players, first) = game(&f.app, ["anna", "bert", "cleo"]).await;
    let player = &players[first];
    let seat = seat_of(&f.app, game, player).await;
    f.app
        .put("/me/notifications")
        .as_user(player)
        .json(&json!({"your_turn": "digest"}))
        .send()
        .await
        .assert_ok();
    enqueue(
        &f.app,
        &[Notice::your_turn(player.id, game, seat, 1, json!({}))],
    )
    .await;
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().claimed, 0);
    assert_eq!(outbox(&f.app, player).await[0].1, "held");

    let day = Utc.with_ymd_and_hms(2026, 11, 30, 10, 0, 0).unwrap();
    assert_eq!(f.notifier.queue_digests(day).await.unwrap(), 1);
    assert_eq!(f.notifier.queue_digests(day).await.unwrap(), 0);
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().sent, 1);
    let received = f.sink.received();
    assert_eq!(received.len(), 1);
    let mail = received[0].mail();
    assert_eq!(
        mail.header("Subject"),
        Some("Kontor: 1 game is waiting for you")
    );
    assert!(links(mail.text()).contains(&f.notifier.game_link(game)));
    assert!(links(mail.html()).contains(&f.notifier.game_link(game)));
    assert!(
        mail.text().contains("The Flying Dutchman with"),
        "{}",
        mail.text()
    );

    // Still waiting the next day: one more digest, then none until the day after.
    let next = Utc.with_ymd_and_hms(2026, 12, 1, 10, 0, 0).unwrap();
    assert_eq!(f.notifier.queue_digests(next).await.unwrap(), 1);
    assert_eq!(f.notifier.queue_digests(next).await.unwrap(), 0);
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().sent, 1);
    // The other players chose no digest: none for them.
    for other in players.iter().filter(|p| p.id != player.id) {
        assert!(outbox(&f.app, other).await.is_empty());
    }
}

#[tokio::test]
async fn a_player_watching_live_gets_no_your_turn_mail_unless_always_email() {
    let f = fixture(&[]).await;
    let (game, players, first) = game(&f.app, ["anna", "bert", "cleo"]).await;
    let player = &players[first];
    let seat = seat_of(&f.app, game, player).await;
    let watch = |seen: &'static str| {
        let pool = f.app.pool.clone();
        let user = player.id;
        async move {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "INSERT INTO live_presence (user_id, game_id, instance_id, seen_at)
                 VALUES ($1, $2, 'instance-1', {seen})
                 ON CONFLICT (user_id, game_id, instance_id) DO UPDATE SET seen_at = EXCLUDED.seen_at"
            )))
            .bind(user)
            .bind(game)
            .execute(&pool)
            .await
            .unwrap();
        }
    };

    watch("now()").await;
    enqueue(
        &f.app,
        &[Notice::your_turn(player.id, game, seat, 1, json!({}))],
    )
    .await;
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.skipped, report.sent), (1, 0), "{report:?}");
    assert_eq!(
        outbox(&f.app, player).await[0],
        (
            "your_turn".to_string(),
            "skipped".to_string(),
            Some("watching".to_string())
        )
    );
    // Other kinds are mailed while watching.
    enqueue(&f.app, &[Notice::game_started(player.id, game, json!({}))]).await;
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().sent, 1);

    // Seen more than 60 s ago: not watching any more.
    watch("now() - interval '61 seconds'").await;
    enqueue(
        &f.app,
        &[Notice::your_turn(player.id, game, seat, 2, json!({}))],
    )
    .await;
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().sent, 1);

    // always_email: mailed even while watching.
    f.app
        .put("/me/notifications")
        .as_user(player)
        .json(&json!({"always_email": true}))
        .send()
        .await
        .assert_ok();
    watch("now()").await;
    enqueue(
        &f.app,
        &[Notice::your_turn(player.id, game, seat, 3, json!({}))],
    )
    .await;
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().sent, 1);
    assert_eq!(f.sink.received().len(), 3);

    // A your-turn notice for a player who no longer has to act is outdated: skipped.
    let other = players.iter().find(|p| p.id != player.id).unwrap();
    let other_seat = seat_of(&f.app, game, other).await;
    enqueue(
        &f.app,
        &[Notice::your_turn(other.id, game, other_seat, 1, json!({}))],
    )
    .await;
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!(report.skipped, 1, "{report:?}");
    assert_eq!(outbox(&f.app, other).await[0].2.as_deref(), Some("stale"));
    assert_eq!(f.sink.received().len(), 3);
}

/// The (status, attempts, seconds between the last failure and the next attempt,
/// last_error) of one mail.
async fn attempt_state(app: &TestApp, user: &User) -> (String, i32, f64, Option<String>) {
    sqlx::query_as(
        "SELECT status, attempts,
                EXTRACT(EPOCH FROM next_attempt_at - updated_at)::float8, last_error
           FROM mail_outbox WHERE user_id = $1 ORDER BY id DESC LIMIT 1",
    )
    .bind(user.id)
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

/// The statuses of a user's mails.
async fn statuses(app: &TestApp, user: &User) -> Vec<String> {
    sqlx::query_scalar("SELECT status FROM mail_outbox WHERE user_id = $1 ORDER BY id")
        .bind(user.id)
        .fetch_all(&app.pool)
        .await
        .unwrap()
}

/// `kontor` itself, pointed at the test's database.
async fn kontor(app: &TestApp, args: &[&str]) -> (bool, String) {
    app.kontor(args).await
}

#[tokio::test]
async fn smtp_failures_back_off_then_fail_and_an_admin_retry_delivers() {
    let f = fixture(&[
        ("KONTOR_MAIL_MAX_ATTEMPTS", "3"),
        ("KONTOR_MAIL_RETRY_BASE", "60"),
    ])
    .await;
    let anna = f.app.register("anna").await;
    let root = f.app.register("root").await;
    f.sink.script([Verdict::Reject(451); 3]);
    enqueue(
        &f.app,
        &[notice(
            &anna,
            NoticeKind::Invited,
            "inv-1",
            json!({"inviter": "root"}),
        )],
    )
    .await;

    // Deliver as a worker would, with the server's clock moved on instead of waiting: an
    // attempt at once, then nothing while the backoff lasts (a minute, then two), then the
    // next attempt as soon as it has passed; failed after the third.
    let mut report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!(report.claimed, 1, "the first attempt is due at once");
    let mut waits = Vec::new();
    loop {
        let (status, attempts, wait, error) = attempt_state(&f.app, &anna).await;
        assert!(error.unwrap().contains("451"));
        assert_eq!(attempts as usize, waits.len() + 1);
        if status == "failed" {
            assert_eq!(report.failed, 1, "{report:?}");
            break;
        }
        assert_eq!((status.as_str(), report.retrying), ("pending", 1));
        waits.push(wait);
        f.app
            .clock
            .advance(Duration::from_secs_f64(wait) - Duration::from_secs(5));
        assert_eq!(
            f.notifier.deliver_due(10).await.unwrap().claimed,
            0,
            "an attempt came before its backoff had passed"
        );
        f.app.clock.advance(Duration::from_secs(5));
        let next = f.notifier.deliver_due(10).await.unwrap();
        assert_eq!(
            next.claimed, 1,
            "the next attempt once the backoff has passed"
        );
        report = next;
    }
    assert_eq!(waits.len(), 2);
    assert!((waits[0] - 60.0).abs() < 0.01, "first wait {}", waits[0]);
    assert!((waits[1] - 120.0).abs() < 0.01, "second wait {}", waits[1]);
    assert_eq!(f.sink.attempts(), 3);
    assert!(f.sink.received().is_empty());
    // Failed stays failed, however long one waits.
    f.app.clock.advance(Duration::from_secs(7 * 24 * 3600));
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().claimed, 0);

    // The admin endpoints: admins only (the role the operator grants; any letter case).
    let (ok, output) = kontor(&f.app, &["admin", "grant", "Root"]).await;
    assert!(ok, "{output}");
    f.app
        .get("/admin/mail/failed")
        .as_user(&anna)
        .send()
        .await
        .assert_problem(403, "admin_required");
    f.app
        .post("/admin/mail/retry-failed")
        .as_user(&anna)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(403, "admin_required");
    f.app
        .get("/admin/mail/failed?limit=0")
        .as_user(&root)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
    let failed = f.app.get("/admin/mail/failed").as_user(&root).send().await;
    let items = failed.assert_ok()["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["email"], "anna@example.org");
    assert_eq!(items[0]["attempts"], 3);
    assert_eq!(items[0]["kind"], "invited");
    let id = items[0]["id"].as_str().unwrap().to_string();
    f.app
        .post(&format!("/admin/mail/{}/retry", Uuid::new_v4()))
        .as_user(&root)
        .json(&json!({}))
        .send()
        .await
        .assert_problem(404, "mail_not_found");
    let retried = f
        .app
        .post(&format!("/admin/mail/{id}/retry"))
        .as_user(&root)
        .json(&json!({}))
        .send()
        .await;
    assert_eq!(retried.assert_ok()["retried"], 1);
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().sent, 1);
    let received = f.sink.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].to, ["anna@example.org"]);
    assert!(message_id(&received[0]).contains(&id));

    // A permanent refusal fails at once; the command line lists it and retries it.
    f.sink.script([Verdict::Reject(550)]);
    enqueue(
        &f.app,
        &[notice(&anna, NoticeKind::GameOver, "over-1", json!({}))],
    )
    .await;
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().failed, 1);
    let (status, attempts, _, error) = attempt_state(&f.app, &anna).await;
    assert_eq!((status.as_str(), attempts), ("failed", 1));
    assert!(error.unwrap().contains("550"));
    let failed_id: Uuid = sqlx::query_scalar("SELECT id FROM mail_outbox WHERE status = 'failed'")
        .fetch_one(&f.app.pool)
        .await
        .unwrap();
    let (ok, listing) = kontor(&f.app, &["mail", "failed"]).await;
    assert!(ok, "{listing}");
    assert!(listing.contains(&failed_id.to_string()), "{listing}");
    assert!(listing.contains("anna@example.org"), "{listing}");
    let (ok, output) = kontor(&f.app, &["mail", "retry", &Uuid::new_v4().to_string()]).await;
    assert!(!ok, "an unknown id is an error: {output}");
    let (ok, output) = kontor(&f.app, &["mail", "retry", "--all"]).await;
    assert!(ok && output.contains("1 mail(s) are due again"), "{output}");
    assert_eq!(f.notifier.deliver_due(10).await.unwrap().sent, 1);
    assert_eq!(f.sink.received().len(), 2);
    let (ok, listing) = kontor(&f.app, &["mail", "failed"]).await;
    assert!(ok && listing.contains("no failed mails"), "{listing}");
}

#[tokio::test]
async fn a_worker_killed_mid_batch_sends_the_rest_after_a_restart_and_resends_nothing_marked_sent()
{
    // A send may take half the lease (30 s) before it counts as failed: time enough to kill
    // the worker while it waits. One mail at a time, so that which mails are done when the
    // worker dies is known (mails sent at once are each marked on their own claim all the
    // same).
    let f = fixture(&[
        ("KONTOR_MAIL_LEASE", "60"),
        ("KONTOR_MAIL_CONCURRENCY", "1"),
    ])
    .await;
    let anna = f.app.register("anna").await;
    let notices: Vec<Notice> = (0..6)
        .map(|i| {
            notice(
                &anna,
                NoticeKind::GameStarted,
                &format!("start-{i}"),
                json!({}),
            )
        })
        .collect();
    enqueue(&f.app, &notices).await;
    // The third message arrives, but the worker never hears so: it dies waiting.
    f.sink
        .script([Verdict::Accept, Verdict::Accept, Verdict::AcceptThenHang]);
    let worker = Notifier::new(f.app.pool.clone(), &f.app.config).unwrap();
    let task = tokio::spawn(async move { worker.deliver_due(10).await });
    f.sink.wait_for(3, Duration::from_secs(5)).await;
    // The first two were marked sent before the third was sent (one at a time); a bounded
    // wait all the same, rather than trusting the order.
    for _ in 0..100 {
        if statuses(&f.app, &anna)
            .await
            .iter()
            .filter(|s| *s == "sent")
            .count()
            == 2
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    f.sink.release_hangs();

    let marked: Vec<(Uuid, String)> =
        sqlx::query_as("SELECT id, status FROM mail_outbox WHERE user_id = $1 ORDER BY id")
            .bind(anna.id)
            .fetch_all(&f.app.pool)
            .await
            .unwrap();
    let sent: Vec<Uuid> = marked
        .iter()
        .filter(|(_, s)| s == "sent")
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(sent.len(), 2, "{marked:?}");
    assert_eq!(
        marked.iter().filter(|(_, s)| s == "sending").count(),
        4,
        "{marked:?}"
    );
    let before = f.sink.received();
    let unmarked = before
        .iter()
        .map(message_id)
        .find(|m| !sent.iter().any(|id| m.contains(&id.to_string())))
        .expect("one message arrived that is not marked sent");

    // A fresh worker: nothing while the dead worker's leases last, then the rest.
    let fresh = Notifier::new(f.app.pool.clone(), &f.app.config).unwrap();
    assert_eq!(fresh.deliver_due(10).await.unwrap().claimed, 0);
    f.app.clock.advance(Duration::from_secs(50));
    assert_eq!(
        fresh.deliver_due(10).await.unwrap().claimed,
        0,
        "still leased"
    );
    f.app.clock.advance(Duration::from_secs(11));
    let report = fresh.deliver_due(10).await.unwrap();
    assert_eq!((report.claimed, report.sent), (4, 4), "{report:?}");
    assert_eq!(fresh.deliver_due(10).await.unwrap().claimed, 0);

    let mut count: HashMap<String, usize> = HashMap::new();
    for received in f.sink.received() {
        *count.entry(message_id(&received)).or_default() += 1;
    }
    assert_eq!(count.len(), 6, "every mail arrived: {count:?}");
    for (message, n) in &count {
        if sent.iter().any(|id| message.contains(&id.to_string())) {
            assert_eq!(*n, 1, "{message} was marked sent and must not come again");
        } else if *message == unmarked {
            assert_eq!(*n, 2, "sent but not marked: sent again (at least once)");
        } else {
            assert_eq!(*n, 1, "{message}");
        }
    }
    let statuses = statuses(&f.app, &anna).await;
    assert!(statuses.iter().all(|s| s == "sent"), "{statuses:?}");
}

/// A started three-player Steel Driver game whose start mail has been delivered, and its
/// players in seat order.
async fn delivered_game(f: &Fixture) -> (Uuid, Vec<User>) {
    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo"] {
        players.push(f.app.register(name).await);
    }
    let game = f.app.start_game("steel-driver", json!({}), &players).await;
    f.notifier.deliver_due(50).await.unwrap();
    (game, players)
}

/// The "your turn" mails queued for `user` about `game`, oldest first: (id, status,
/// skip_reason, sent_at).
#[allow(clippy::type_complexity)]
async fn turn_mails(
    app: &TestApp,
    game: Uuid,
    user: &User,
) -> Vec<(Uuid, String, Option<String>, Option<chrono::DateTime<Utc>>)> {
    sqlx::query_as(
        "SELECT id, status, skip_reason, sent_at FROM mail_outbox
          WHERE user_id = $1 AND game_id = $2 AND kind = 'your_turn' ORDER BY created_at, id",
    )
    .bind(user.id)
    .bind(game)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

/// Plays on (a bot moves for whoever must act), delivering each step's mail, until a new turn
/// of `user` begins: that step's mail is queued, not delivered. Returns its id.
async fn play_until_turn_of(f: &Fixture, game: Uuid, players: &[User], user: &User) -> Uuid {
    let before = turn_mails(&f.app, game, user).await.len();
    for step in 0..200 {
        crate::bots::play(&f.app, game, players, crate::bots::steel_driver, step, 1).await;
        let queued = turn_mails(&f.app, game, user).await;
        if queued.len() > before {
            return queued.last().unwrap().0;
        }
        f.notifier.deliver_due(50).await.unwrap();
    }
    panic!("no new turn of {} in 200 moves", user.name);
}

/// How often the mail with outbox id `id` reached the receiver.
fn arrivals(sink: &SmtpSink, id: Uuid) -> usize {
    sink.received()
        .iter()
        .filter(|r| message_id(r).contains(&id.to_string()))
        .count()
}

/// A worker that claims every due mail and dies at once, before sending any.
async fn claim_and_die(f: &Fixture) -> usize {
    let lease = f.app.config.notify.lease.as_secs_f64();
    let now = f.app.config.clock.now();
    kontor::store::outbox::claim_due(&f.app.pool, 50, Uuid::new_v4(), "dead", lease, now)
        .await
        .unwrap()
        .len()
}

#[tokio::test]
async fn a_turn_mail_a_dead_worker_claimed_is_sent_once_while_its_turn_lasts_and_never_after() {
    let f = fixture(&[]).await; // a lease of 30 s
    let (game, players) = delivered_game(&f).await;
    let bert = &players[1];

    // Bert's turn begins; a worker claims its mail and dies before sending it.
    let current = play_until_turn_of(&f, game, &players, bert).await;
    assert_eq!(claim_and_die(&f).await, 1);
    assert_eq!(
        f.notifier.deliver_due(50).await.unwrap().claimed,
        0,
        "leased"
    );
    // Once the lease has run out, the turn is still his: the mail goes, once.
    f.app.clock.advance(Duration::from_secs(31));
    let report = f.notifier.deliver_due(50).await.unwrap();
    assert_eq!((report.claimed, report.sent), (1, 1), "{report:?}");
    assert_eq!(arrivals(&f.sink, current), 1);
    assert_eq!(f.notifier.deliver_due(50).await.unwrap().claimed, 0);

    // His next turn's mail is claimed by a worker that dies; the game goes on, the turn passes
    // and comes back to him (a third mail, delivered at once).
    let passed = play_until_turn_of(&f, game, &players, bert).await;
    assert_eq!(claim_and_die(&f).await, 1);
    let again = play_until_turn_of(&f, game, &players, bert).await;
    assert_eq!(f.notifier.deliver_due(50).await.unwrap().sent, 1);
    assert_eq!(arrivals(&f.sink, again), 1);
    // The dead worker's mail, due again: its turn has passed (though it is his turn again),
    // so it is not sent (a second "your turn" for this one), but recorded as stale.
    f.app.clock.advance(Duration::from_secs(31));
    let report = f.notifier.deliver_due(50).await.unwrap();
    assert_eq!(
        (report.claimed, report.skipped, report.sent),
        (1, 1, 0),
        "{report:?}"
    );
    assert_eq!(arrivals(&f.sink, passed), 0);
    let mails = turn_mails(&f.app, game, bert).await;
    let row = mails.iter().find(|m| m.0 == passed).unwrap();
    assert_eq!(
        (row.1.as_str(), row.2.as_deref()),
        ("skipped", Some("stale"))
    );
}

#[tokio::test]
async fn a_turn_mail_handed_over_before_its_worker_died_is_recorded_as_sent_not_skipped() {
    let f = fixture(&[]).await;
    let (game, players) = delivered_game(&f).await;
    let bert = &players[1];
    let handed = play_until_turn_of(&f, game, &players, bert).await;
    // The mail arrives, but its worker dies before hearing so.
    f.sink.script([Verdict::AcceptThenHang]);
    let worker = Notifier::new(f.app.pool.clone(), &f.app.config).unwrap();
    let task = tokio::spawn(async move { worker.deliver_due(50).await });
    f.sink
        .wait_for(f.sink.received().len() + 1, Duration::from_secs(5))
        .await;
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    f.sink.release_hangs();
    assert_eq!(arrivals(&f.sink, handed), 1);

    // Bert plays his turn (having read the mail); the turn comes back to him.
    let next = play_until_turn_of(&f, game, &players, bert).await;
    assert_eq!(f.notifier.deliver_due(50).await.unwrap().sent, 1);
    f.app.clock.advance(Duration::from_secs(31));
    let report = f.notifier.deliver_due(50).await.unwrap();
    assert_eq!((report.claimed, report.sent_before), (1, 1), "{report:?}");
    // Not sent again, and recorded as what it was: sent (when it was handed over).
    assert_eq!((arrivals(&f.sink, handed), arrivals(&f.sink, next)), (1, 1));
    let mails = turn_mails(&f.app, game, bert).await;
    let row = mails.iter().find(|m| m.0 == handed).unwrap();
    assert_eq!((row.1.as_str(), row.2.as_deref()), ("sent", None));
    assert!(row.3.is_some(), "sent at the hand-over: {row:?}");
}

#[tokio::test]
async fn a_worker_sends_several_mails_at_once_over_reused_connections() {
    let f = fixture(&[("KONTOR_MAIL_CONCURRENCY", "3")]).await;
    let anna = f.app.register("anna").await;
    let notices: Vec<Notice> = (0..9)
        .map(|i| {
            notice(
                &anna,
                NoticeKind::GameStarted,
                &format!("start-{i}"),
                json!({}),
            )
        })
        .collect();
    enqueue(&f.app, &notices).await;
    // The first three are answered only once all three are in: one at a time, the first
    // would wait until its send timed out.
    f.sink.script([Verdict::AcceptWhenJoinedBy(3); 3]);
    let report = f.notifier.deliver_due(20).await.unwrap();
    assert_eq!((report.claimed, report.sent), (9, 9), "{report:?}");
    assert_eq!(f.sink.received().len(), 9);
    // The connections are reused: without a pool every mail opens its own. (Not exactly
    // three: a connection goes back to the pool in a task of its own, so a send may start
    // before it is back and open another.)
    let sessions = f.sink.sessions();
    assert!(
        (3..9).contains(&sessions),
        "{sessions} connections for 9 mails"
    );
}

#[tokio::test]
async fn two_workers_at_once_never_send_a_mail_twice() {
    let f = fixture(&[]).await;
    let mut users = Vec::new();
    for name in ["anna", "bert", "cleo", "dora"] {
        users.push(f.app.register(name).await);
    }
    let notices: Vec<Notice> = (0..40)
        .map(|i| {
            notice(
                &users[i % 4],
                NoticeKind::Invited,
                &format!("invite-{i}"),
                json!({"inviter": "eve"}),
            )
        })
        .collect();
    enqueue(&f.app, &notices).await;
    let one = Notifier::new(f.app.pool.clone(), &f.app.config).unwrap();
    let two = Notifier::new(f.app.pool.clone(), &f.app.config).unwrap();
    let drain = |worker: Notifier| async move {
        let mut sent = 0;
        loop {
            let report = worker.deliver_due(3).await.unwrap();
            if report.claimed == 0 {
                return sent;
            }
            sent += report.sent;
        }
    };
    let (a, b) = tokio::join!(tokio::spawn(drain(one)), tokio::spawn(drain(two)));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a + b, 40);
    assert!(a > 0 && b > 0, "both workers took part: {a} and {b}");
    let received = f.sink.received();
    assert_eq!(received.len(), 40);
    let mut ids: Vec<String> = received.iter().map(message_id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 40, "no mail twice");
}

#[tokio::test]
async fn background_workers_of_two_instances_deliver_each_mail_once() {
    // This server runs the worker itself; a second "instance" runs another one.
    let f = fixture(&[("KONTOR_WORKERS", "true"), ("KONTOR_MAIL_POLL", "0.2")]).await;
    let second = kontor::service::delivery::mail::worker::spawn_workers(
        f.app.pool.clone(),
        f.app.config.clone(),
    )
    .unwrap();
    let anna = f.app.register("anna").await;
    let notices: Vec<Notice> = (0..25)
        .map(|i| notice(&anna, NoticeKind::GameOver, &format!("over-{i}"), json!({})))
        .collect();
    enqueue(&f.app, &notices).await;
    f.sink.wait_for(25, Duration::from_secs(10)).await;
    // Once every mail is marked sent, none is claimed again (no lease expires: the clock is
    // not moved). Each was claimed once: a second claim would have counted a second attempt,
    // so no second copy can still be on its way either.
    for _ in 0..250 {
        if statuses(&f.app, &anna).await.iter().all(|s| s == "sent") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let attempts: Vec<(String, i32)> =
        sqlx::query_as("SELECT status, attempts FROM mail_outbox WHERE user_id = $1")
            .bind(anna.id)
            .fetch_all(&f.app.pool)
            .await
            .unwrap();
    assert_eq!(attempts.len(), 25);
    assert!(
        attempts.iter().all(|(s, n)| s == "sent" && *n == 1),
        "{attempts:?}"
    );
    // Only the notices: the worker may have mailed anna's verification link too before the
    // test helper dropped it.
    let received: Vec<Received> = f
        .sink
        .received()
        .into_iter()
        .filter(|m| m.mail().header("X-Kontor-Notice") == Some("game_over"))
        .collect();
    assert_eq!(received.len(), 25);
    let mut ids: Vec<String> = received.iter().map(message_id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 25);
    second.abort();
}

#[tokio::test]
async fn without_smtp_mails_are_written_as_readable_eml_files() {
    let app = spawn_app_with(AppOptions {
        settings: settings(&[("KONTOR_MAIL_FROM", FROM)]),
    })
    .await;
    let notifier = Notifier::new(app.pool.clone(), &app.config).unwrap();
    assert!(matches!(
        notifier.mailer(),
        kontor::service::delivery::mail::mailer::Mailer::Folder(_)
    ));
    let (game, players, _) = game(&app, ["anna", "bert", "cleo"]).await;
    enqueue(
        &app,
        &[Notice::invited(
            players[1].id,
            game,
            json!({"inviter": "anna"}),
        )],
    )
    .await;
    assert_eq!(notifier.deliver_due(10).await.unwrap().sent, 1);
    let folder = app.config.data_dir.join("mail");
    let files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].extension().unwrap(), "eml");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let mail = crate::smtp::parse(&text.replace("\r\n", "\n").replace('\n', "\r\n"));
    assert_eq!(
        mail.header("Subject"),
        Some("anna invited you to play The Flying Dutchman")
    );
    assert_eq!(mail.header("To"), Some("bert <bert@example.org>"));
    assert!(mail.header("List-Unsubscribe").is_some());
    assert!(mail.text().contains(&notifier.game_link(game)));
    assert!(mail.html().contains("<strong>anna</strong> invited you"));
}

#[tokio::test]
async fn tampered_or_incomplete_unsubscribe_requests_change_nothing() {
    let f = fixture(&[]).await;
    let anna = f.app.register("anna").await;
    let bert = f.app.register("bert").await;
    let url = f
        .notifier
        .unsubscribe_url(anna.id, UnsubscribeScope::Kind(NoticeKind::GameOver));
    let token = url.split_once("token=").unwrap().1.to_string();
    let (head, mac) = token.rsplit_once('.').unwrap();
    let flipped = {
        let mut bytes = mac.as_bytes().to_vec();
        bytes[5] = if bytes[5] == b'A' { b'B' } else { b'A' };
        format!("{head}.{}", String::from_utf8(bytes).unwrap())
    };
    let base = format!("{}/api/v1/unsubscribe", f.app.address);
    let tampered = [
        flipped,
        token.replace(".game_over.", ".all."),
        token.replace(&anna.id.simple().to_string(), &bert.id.simple().to_string()),
        "garbage".to_string(),
        format!("{token}x"),
        String::new(),
    ];
    for bad in &tampered {
        let target = format!("{base}?token={bad}");
        plain_get(&f.app, &target)
            .await
            .assert_problem(400, "invalid_unsubscribe_token");
        one_click(&f.app, &target)
            .await
            .assert_problem(400, "invalid_unsubscribe_token");
    }
    plain_get(&f.app, &base)
        .await
        .assert_problem(400, "invalid_parameter");
    one_click(&f.app, &base)
        .await
        .assert_problem(400, "invalid_parameter");
    // A genuine token, but not the RFC 8058 body.
    for body in ["", "List-Unsubscribe=Please", "hello"] {
        let reply = read(
            f.app
                .client
                .post(&url)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .body(body)
                .send()
                .await
                .unwrap(),
        )
        .await;
        reply.assert_problem(400, "invalid_body");
    }
    for user in [&anna, &bert] {
        assert_eq!(preferences(&f.app, user).await["game_over"], "immediately");
    }

    // A mail queued before the unsubscribe is not sent after it.
    enqueue(
        &f.app,
        &[notice(&anna, NoticeKind::GameOver, "over", json!({}))],
    )
    .await;
    // The multipart form of the one-click POST, with the "all" link from the mail body.
    let all = f.notifier.unsubscribe_url(anna.id, UnsubscribeScope::All);
    let body = "--b0undary\r\nContent-Disposition: form-data; name=\"List-Unsubscribe\"\r\n\r\nOne-Click\r\n--b0undary--\r\n";
    let reply = read(
        f.app
            .client
            .post(&all)
            .header("Content-Type", "multipart/form-data; boundary=b0undary")
            .body(body)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let prefs = preferences(&f.app, &anna).await;
    for kind in [
        "your_turn",
        "reminder",
        "invited",
        "game_started",
        "game_over",
        "player_left",
        "chat_mention",
        "rematch_offered",
        "undo_requested",
    ] {
        assert_eq!(prefs[kind], "off", "{kind}");
    }
    assert_eq!(preferences(&f.app, &bert).await["game_over"], "immediately");
    let report = f.notifier.deliver_due(10).await.unwrap();
    assert_eq!(report.skipped, 1, "{report:?}");
    assert_eq!(outbox(&f.app, &anna).await[0].2.as_deref(), Some("off"));
    assert!(f.sink.received().is_empty());
}

// ---------------------------------------------------------------------------------------
// The SMTP transport's security

/// A server whose mail goes to `url`, trusting the sink's CA when it has one, and a
/// notifier; also a mail queued for a new user `anna`. `extra` settings are applied last.
async fn smtp_app(sink: &SmtpSink, url: &str, extra: &[(&str, &str)]) -> (TestApp, Notifier, User) {
    let mut pairs = vec![("KONTOR_SMTP_URL", url), ("KONTOR_MAIL_FROM", FROM)];
    let ca_file = scratch_dir(&format!("smtp-ca-{}.pem", Uuid::new_v4()));
    if sink.has_tls() {
        std::fs::write(&ca_file, sink.ca_pem()).unwrap();
    }
    let ca_path = ca_file.display().to_string();
    if sink.has_tls() {
        pairs.push(("KONTOR_SMTP_CA_FILE", &ca_path));
    }
    pairs.extend_from_slice(extra);
    let app = spawn_app_with(AppOptions {
        settings: settings(&pairs),
    })
    .await;
    let notifier = Notifier::new(app.pool.clone(), &app.config).unwrap();
    let anna = app.register("anna").await;
    enqueue(
        &app,
        &[notice(
            &anna,
            NoticeKind::Reminder,
            "r",
            json!({"deadline": "2030-01-01T00:00:00Z"}),
        )],
    )
    .await;
    (app, notifier, anna)
}

/// Whether the password, in any form AUTH PLAIN or LOGIN would send it, is in `text`.
fn holds_password(text: &str, user: &str, password: &str) -> bool {
    let plain = STANDARD_B64.encode(format!("\0{user}\0{password}"));
    let login = STANDARD_B64.encode(password);
    text.contains(password) || text.contains(&plain) || text.contains(&login)
}

#[tokio::test]
async fn with_starttls_or_implicit_tls_the_credentials_and_the_mail_cross_only_encrypted() {
    for (mode, url) in [
        (
            SinkTls::StartTls,
            "smtp://mailer:s%3Acret@127.0.0.1:{port}?tls=required",
        ),
        (
            SinkTls::Implicit,
            "smtps://mailer:s%3Acret@127.0.0.1:{port}",
        ),
    ] {
        let sink = SmtpSink::start_with(mode).await;
        let url = url.replace("{port}", &sink.port.to_string());
        let (_app, notifier, _anna) = smtp_app(&sink, &url, &[]).await;
        let report = notifier.deliver_due(10).await.unwrap();
        assert_eq!(report.sent, 1, "{mode:?}: {report:?}");
        let received = sink.received();
        assert_eq!(received.len(), 1);
        assert!(received[0].tls, "{mode:?}: the mail came over TLS");
        assert_eq!(received[0].auth.as_deref(), Some("mailer:s:cret"));
        let subject = received[0].mail().header("Subject").unwrap().to_string();
        assert!(subject.starts_with("Reminder: your move in "), "{subject}");
        let logins = sink.logins();
        assert!(
            !logins.is_empty() && logins.iter().all(|l| l.tls),
            "{mode:?}: every login over TLS: {logins:?}"
        );
        let clear = sink.clear_text();
        assert!(
            !holds_password(&clear, "mailer", "s:cret"),
            "{mode:?}: the password crossed in clear text:\n{clear}"
        );
        assert!(
            !clear.contains("AUTH") && !clear.contains(&subject),
            "{clear}"
        );
        match mode {
            SinkTls::StartTls => assert!(clear.contains("STARTTLS"), "{clear}"),
            _ => assert!(clear.is_empty(), "implicit TLS: nothing in clear: {clear}"),
        }
    }
}

#[tokio::test]
async fn a_receiver_that_offers_no_starttls_or_an_untrusted_certificate_gets_no_credentials() {
    // A receiver without STARTTLS (or one that someone between has stripped of it).
    let plain = SmtpSink::start().await;
    let url = format!("smtp://mailer:s3cret@127.0.0.1:{}?tls=required", plain.port);
    let (app, notifier, anna) = smtp_app(&plain, &url, &[]).await;
    let report = notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.sent, report.retrying), (0, 1), "{report:?}");
    assert!(plain.received().is_empty() && plain.logins().is_empty());
    let clear = plain.clear_text();
    assert!(clear.contains("EHLO") && !clear.contains("AUTH"), "{clear}");
    assert!(!holds_password(&clear, "mailer", "s3cret"), "{clear}");
    let (status, _, _, error) = attempt_state(&app, &anna).await;
    assert_eq!(status, "pending", "tried again later");
    let error = error.unwrap_or_default();
    assert!(error.to_lowercase().contains("tls"), "{error}");

    // STARTTLS offered, but under a certificate Kontor was not told to trust.
    let untrusted = SmtpSink::start_with(SinkTls::StartTls).await;
    let url = format!(
        "smtp://mailer:s3cret@127.0.0.1:{}?tls=required",
        untrusted.port
    );
    let app = spawn_app_with(AppOptions {
        settings: settings(&[("KONTOR_SMTP_URL", &url), ("KONTOR_MAIL_FROM", FROM)]),
    })
    .await;
    let notifier = Notifier::new(app.pool.clone(), &app.config).unwrap();
    let bert = app.register("bert").await;
    enqueue(&app, &[notice(&bert, NoticeKind::Invited, "i", json!({}))]).await;
    let report = notifier.deliver_due(10).await.unwrap();
    assert_eq!((report.sent, report.retrying), (0, 1), "{report:?}");
    assert!(untrusted.received().is_empty() && untrusted.logins().is_empty());
    assert!(!holds_password(&untrusted.clear_text(), "mailer", "s3cret"));
}

#[tokio::test]
async fn credentials_without_tls_stop_the_server_at_start_unless_clear_text_is_allowed() {
    let sink = SmtpSink::start().await;
    let port = sink.port;
    let refused = [
        // The README's old example: lettre takes it as no TLS at all.
        format!("smtp://mailer:s3cret@127.0.0.1:{port}"),
        // STARTTLS only if offered: anyone between can strip the offer.
        format!("smtp://mailer:s3cret@127.0.0.1:{port}?tls=opportunistic"),
        format!("smtp://mailer@127.0.0.1:{port}"),
    ];
    for url in &refused {
        let values = settings(&[("KONTOR_SMTP_URL", url)]);
        let error = format!(
            "{:#}",
            kontor::config::Config::from_map(&values).unwrap_err()
        );
        assert!(
            error.contains("KONTOR_SMTP_URL")
                && error.contains("clear text")
                && error.contains("?tls=required")
                && error.contains("KONTOR_SMTP_ALLOW_PLAINTEXT")
                && !error.contains("s3cret"),
            "{url}: {error}"
        );
    }
    // The server itself refuses, saying why (before it listens or sends anything).
    let app = spawn_app().await;
    let (ok, output) = app
        .kontor_with(&["serve"], &[("KONTOR_SMTP_URL", &refused[0])])
        .await;
    assert!(!ok, "{output}");
    assert!(
        output.contains("does not require TLS") && !output.contains("s3cret"),
        "{output}"
    );
    assert!(sink.logins().is_empty() && sink.clear_text().is_empty());

    // Said explicitly: the credentials go in clear text, as asked.
    let (_app, notifier, _anna) = smtp_app(
        &sink,
        &format!("smtp://mailer:s%3Acret@127.0.0.1:{port}"),
        &[("KONTOR_SMTP_ALLOW_PLAINTEXT", "true")],
    )
    .await;
    assert_eq!(notifier.deliver_due(10).await.unwrap().sent, 1);
    let received = sink.received();
    assert_eq!(received[0].auth.as_deref(), Some("mailer:s:cret"));
    assert!(!received[0].tls);
    assert!(holds_password(&sink.clear_text(), "mailer", "s:cret"));
    // Without credentials, no TLS is needed (a relay on the same machine).
    let values = settings(&[("KONTOR_SMTP_URL", "smtp://127.0.0.1:25")]);
    assert!(kontor::config::Config::from_map(&values).is_ok());
}

// ---------------------------------------------------------------------------------------
// One door into the outbox: the same preferences and the same wake-up for every producer.

/// (kind, status, skip_reason) of a user's outbox rows of `kind`, oldest first.
async fn rows_of(app: &TestApp, user: &User, kind: &str) -> Vec<(String, Option<String>)> {
    sqlx::query_as(
        "SELECT status, skip_reason FROM mail_outbox
          WHERE user_id = $1 AND kind = $2 ORDER BY created_at, id",
    )
    .bind(user.id)
    .bind(kind)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

/// The player whose turn it is in `game`.
async fn to_act(app: &TestApp, game: Uuid, players: &[User]) -> User {
    let pending: Vec<i16> =
        sqlx::query_scalar("SELECT unnest(pending_seats) FROM games WHERE id = $1")
            .bind(game)
            .fetch_all(&app.pool)
            .await
            .unwrap();
    let user: Uuid =
        sqlx::query_scalar("SELECT user_id FROM game_seats WHERE game_id = $1 AND seat = $2")
            .bind(game)
            .bind(pending[0])
            .fetch_one(&app.pool)
            .await
            .unwrap();
    players.iter().find(|p| p.id == user).unwrap().clone()
}

/// Plays on (a bot moves for whoever must act) until a move's append queues a "your turn"
/// mail; returns its recipient and the mail's outbox id.
async fn move_until_a_turn_mail(
    app: &TestApp,
    game: Uuid,
    players: &[User],
    seed: u64,
) -> (User, Uuid) {
    let count = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM mail_outbox WHERE game_id = $1 AND kind = 'your_turn'",
        )
        .bind(game)
        .fetch_one(&app.pool)
        .await
        .unwrap()
    };
    let before = count().await;
    for step in 0..200 {
        crate::bots::play(
            app,
            game,
            players,
            crate::bots::steel_driver,
            seed * 1000 + step,
            1,
        )
        .await;
        if count().await > before {
            let (user, id): (Uuid, Uuid) = sqlx::query_as(
                "SELECT user_id, id FROM mail_outbox WHERE game_id = $1 AND kind = 'your_turn'
                  ORDER BY created_at DESC, id DESC LIMIT 1",
            )
            .bind(game)
            .fetch_one(&app.pool)
            .await
            .unwrap();
            return (players.iter().find(|p| p.id == user).unwrap().clone(), id);
        }
    }
    panic!("no move began a turn in 200 moves");
}

#[tokio::test]
async fn preferences_apply_the_same_way_through_every_producer() {
    // No worker runs: every row stays as it was queued.
    let f = spawn_mailed_app(&[("KONTOR_CHAT_BURST", "100")]).await;
    let app = &f.app;
    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo"] {
        players.push(app.register(name).await);
    }
    let game = app.start_game("steel-driver", json!({}), &players).await;
    let mut password = password_of("anna");
    for (round, (choice, status, reason)) in [
        ("off", "skipped", Some("off")),
        ("digest", "held", None),
        ("immediately", "pending", None),
    ]
    .into_iter()
    .enumerate()
    {
        let every_kind: serde_json::Map<String, Value> = NoticeKind::ALL
            .iter()
            .map(|kind| (kind.as_str().to_string(), json!(choice)))
            .collect();
        for player in &players {
            app.put("/me/notifications")
                .as_user(player)
                .json(&Value::Object(every_kind.clone()))
                .send()
                .await
                .assert_ok();
        }
        let expected = (status.to_string(), reason.map(str::to_string));

        // The command path: the append of a move queues the next player's "your turn".
        let (next, _) = move_until_a_turn_mail(app, game, &players, round as u64).await;
        assert_eq!(
            rows_of(app, &next, "your_turn").await.last(),
            Some(&expected),
            "{choice}: a move's mail"
        );

        // The chat's send path (`notices::enqueue` through the mentions).
        let speaker = to_act(app, game, &players).await;
        let named: Vec<&User> = players.iter().filter(|p| p.id != speaker.id).collect();
        let reply = app
            .post(&format!("/games/{game}/chat/table/messages"))
            .as_user(&speaker)
            .key(&format!("mention-{round}"))
            .json(&json!({"text": format!("@{} @{} look", named[0].name, named[1].name)}))
            .send()
            .await;
        assert_eq!(reply.status, 201, "{}", reply.text);
        for user in &named {
            assert_eq!(
                rows_of(app, user, "chat_mention").await.last(),
                Some(&expected),
                "{choice}: a mention"
            );
        }

        // `notices::enqueue` as the tournaments call it.
        let tournament = Uuid::now_v7();
        enqueue(
            app,
            &[Notice::tournament_round(
                next.id,
                tournament,
                1,
                game,
                json!({"name": "Autumn cup"}),
            )],
        )
        .await;
        assert_eq!(
            rows_of(app, &next, "tournament_round").await.last(),
            Some(&expected),
            "{choice}: a tournament's notice"
        );

        // The account's own mail goes out whatever the notices' preferences say.
        let new_password = format!("a brand new horse battery {round}");
        app.post("/me/password")
            .as_user(&players[0])
            .json(&json!({"current_password": password, "new_password": new_password}))
            .send()
            .await
            .assert_ok();
        password = new_password;
        assert_eq!(
            rows_of(app, &players[0], "password_changed").await.last(),
            Some(&("pending".to_string(), None)),
            "{choice}: an account mail"
        );
    }
}

#[tokio::test]
async fn a_mail_queued_by_a_move_is_picked_up_at_once_not_at_the_next_poll() {
    // The server's own worker looks for due mail once an hour: only the notification that
    // comes with a queued mail wakes it sooner.
    let f = fixture(&[("KONTOR_WORKERS", "true"), ("KONTOR_MAIL_POLL", "3600")]).await;
    let app = &f.app;
    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo"] {
        players.push(app.register(name).await);
    }
    let game = app.start_game("steel-driver", json!({}), &players).await;
    let turn_mails_received = || {
        f.sink
            .received()
            .iter()
            .filter(|m| m.mail().header("X-Kontor-Notice") == Some("your_turn"))
            .count()
    };
    // The start's mail (queued by `notices::enqueue`) arrives: the worker is listening.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while turn_mails_received() == 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the start's mail never came"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before = turn_mails_received();

    // A move whose append queues the next player's turn mail: sent long before the poll.
    let (next, id) = move_until_a_turn_mail(app, game, &players, 7).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let status: String = sqlx::query_scalar("SELECT status FROM mail_outbox WHERE id = $1")
            .bind(id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
        if status == "sent" {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the move's mail to {} is still {status} 30 s later",
            next.name
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(turn_mails_received() > before);
    assert_eq!(arrivals(&f.sink, id), 1);
}

/// Applies the migrations before `version` to a new database of the test cluster.
async fn database_before(version: i64) -> sqlx::PgPool {
    let name = format!("before_{version}_{}", Uuid::new_v4().simple());
    pg().ensure_database(&name).await.unwrap();
    let pool = kontor::store::connect(pg().connect_options(&name), 2)
        .await
        .unwrap();
    let dir = scratch_dir(&format!("migrations-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for entry in std::fs::read_dir(source).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_string();
        let number: i64 = file.split('_').next().unwrap().parse().unwrap();
        if number < version {
            std::fs::copy(&path, dir.join(&file)).unwrap();
        }
    }
    sqlx::migrate::Migrator::new(dir.as_path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    pool
}

#[tokio::test]
async fn every_stored_choice_survives_the_move_to_rows() {
    let pool = database_before(27).await;
    let mut ids = HashMap::new();
    for name in ["anna", "bert", "cleo"] {
        let id = Uuid::now_v7();
        sqlx::query(
            "INSERT INTO users (id, username, username_key, email, email_key, password_hash)
             VALUES ($1, $2, $2, $2 || '@example.org', $2 || '@example.org', 'x')",
        )
        .bind(id)
        .bind(name)
        .execute(&pool)
        .await
        .unwrap();
        ids.insert(name, id);
    }
    // Preferences as the code before the rows stored them: anna changed some mail choices
    // (her row holds every kind, the others at their defaults); cleo turned chat mentions to
    // the digest and switched two kinds' push; bert never chose.
    sqlx::query(
        "INSERT INTO notification_prefs (user_id, your_turn, game_over, tournament_cancelled,
                                         undo_requested, always_email)
         VALUES ($1, 'digest', 'off', 'off', 'digest', true),
                ($2, 'immediately', 'immediately', 'immediately', 'immediately', false)",
    )
    .bind(ids["anna"])
    .bind(ids["cleo"])
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query("UPDATE notification_prefs SET chat_mention = 'digest' WHERE user_id = $1")
        .bind(ids["cleo"])
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO push_prefs (user_id, kind, enabled)
         VALUES ($1, 'player_left', true), ($1, 'your_turn', false)",
    )
    .bind(ids["cleo"])
    .execute(&pool)
    .await
    .unwrap();

    // What the server runs at start.
    kontor::store::migrate(&pool).await.unwrap();

    let mut conn = pool.acquire().await.unwrap();
    let mut choices = HashMap::new();
    for (name, id) in &ids {
        let loaded = notices::preferences::load(&mut conn, *id).await.unwrap();
        choices.insert(*name, loaded);
    }
    let (anna, bert, cleo) = (choices["anna"], choices["bert"], choices["cleo"]);
    let mail =
        |choices: &notices::preferences::Choices| serde_json::to_value(choices.mail).unwrap();
    let mut expected = mail(&bert);
    for (kind, choice) in [
        ("your_turn", "digest"),
        ("game_over", "off"),
        ("tournament_cancelled", "off"),
        ("undo_requested", "digest"),
    ] {
        expected[kind] = json!(choice);
    }
    expected["always_email"] = json!(true);
    assert_eq!(mail(&anna), expected);
    assert_eq!(bert, notices::preferences::Choices::default());
    let mut expected = mail(&bert);
    expected["chat_mention"] = json!("digest");
    assert_eq!(mail(&cleo), expected);
    let push = cleo.push_by_name();
    assert!(push["player_left"], "{push:?}");
    assert!(!push["your_turn"], "{push:?}");
    assert_eq!(
        push.iter().filter(|(_, on)| **on).count(),
        NoticeKind::ALL.len() - 1,
        "{push:?}"
    );
    // Every stored value became a row: anna's and cleo's thirteen mail choices each, and
    // cleo's two push choices.
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT channel, count(*) FROM notice_choices GROUP BY channel ORDER BY channel",
    )
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    assert_eq!(rows, [("mail".to_string(), 26), ("push".to_string(), 2)]);
}
