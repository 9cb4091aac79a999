//! Web Push against a loopback push service that checks what a real one checks, with
//! implementations independent of the server's (tests/push_service/server.py: py-vapid for the
//! VAPID token, http-ece for the aes128gcm body): subscriptions and their checks, the per-kind
//! choice, delivery and its language, 410 and 429, logout everywhere, and no hidden
//! information in any payload over a whole Flying Dutchman game.

use crate::bots;
use crate::support::*;
use kontor::service::delivery::push::deliver::Pusher;
use kontor::service::delivery::push::vapid::Vapid;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::AsyncBufReadExt;
use uuid::Uuid;

/// The running loopback push service; stopped when dropped.
struct PushService {
    _child: tokio::process::Child,
    base: String,
    client: reqwest::Client,
}

impl PushService {
    async fn start() -> Self {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let python = root.join("target/push-service/bin/python");
        assert!(
            python.exists(),
            "{} is missing: run deploy/setup-tests.sh",
            python.display()
        );
        let mut child = tokio::process::Command::new(python)
            .arg(root.join("tests/push_service/server.py"))
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next_line().await.unwrap().unwrap();
        let port = first.strip_prefix("PORT ").unwrap().to_string();
        Self {
            _child: child,
            base: format!("http://127.0.0.1:{port}"),
            client: reqwest::Client::new(),
        }
    }

    /// A new subscription's JSON, as a browser's `PushSubscription` gives it.
    async fn subscription(&self, name: &str) -> Value {
        self.client
            .post(format!("{}/subscriptions", self.base))
            .json(&json!({"name": name}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    async fn behave(&self, name: &str, status: u16, times: u32, retry_after: Option<u64>) {
        self.client
            .post(format!("{}/behaviour/{name}", self.base))
            .json(&json!({"status": status, "times": times, "retry_after": retry_after}))
            .send()
            .await
            .unwrap();
    }

    async fn received(&self) -> Value {
        self.client
            .get(format!("{}/received", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// The payloads accepted for `name`.
    async fn accepted(&self, name: &str) -> Vec<Value> {
        let received = self.received().await;
        assert_eq!(
            received["rejected"],
            json!([]),
            "the push service refused requests"
        );
        received["accepted"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["name"] == name)
            .cloned()
            .collect()
    }
}

async fn fixture() -> (TestApp, PushService, Pusher) {
    let app = spawn_app_with(AppOptions {
        settings: [(
            "KONTOR_OUTBOUND_ALLOW_INSECURE".to_string(),
            "true".to_string(),
        )]
        .into(),
    })
    .await;
    let service = PushService::start().await;
    let vapid = Vapid::load_or_create(
        None,
        &app.config.data_dir,
        app.config.push.subject(&app.config.mail_from),
    )
    .unwrap();
    let pusher = Pusher::new(app.pool.clone(), &app.config, Arc::new(vapid)).unwrap();
    (app, service, pusher)
}

async fn subscribe(app: &TestApp, service: &PushService, user: &User, name: &str) -> Uuid {
    let subscription = service.subscription(name).await;
    let reply = app
        .post("/me/push-subscriptions")
        .as_user(user)
        .json(&subscription)
        .send()
        .await;
    assert_eq!(reply.status, 201, "{:?}", reply.body);
    reply.body["id"].as_str().unwrap().parse().unwrap()
}

async fn subscriptions(app: &TestApp, user: &User) -> Vec<Value> {
    app.get("/me/push-subscriptions")
        .as_user(user)
        .send()
        .await
        .assert_ok()
        .as_array()
        .unwrap()
        .clone()
}

/// The user who must act first in `game`.
async fn pending_player<'a>(app: &TestApp, game: Uuid, players: &'a [User]) -> &'a User {
    let pending: Uuid = sqlx::query_scalar(
        "SELECT s.user_id FROM games g JOIN game_seats s ON s.game_id = g.id
          WHERE g.id = $1 AND s.seat = ANY(g.pending_seats) LIMIT 1",
    )
    .bind(game)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    players.iter().find(|p| p.id == pending).unwrap()
}

#[tokio::test]
async fn push_subscriptions_are_checked_listed_limited_and_removed() {
    let (app, service, _) = fixture().await;
    let anna = app.register("anna").await;
    let key = app.get("/push/vapid-public-key").send().await;
    let key = key.assert_ok()["public_key"].as_str().unwrap().to_string();
    use base64::Engine;
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(&key)
        .unwrap();
    assert_eq!((raw.len(), raw[0]), (65, 4), "an uncompressed P-256 point");

    let subscription = service.subscription("anna-1").await;
    let id = subscribe(&app, &service, &anna, "anna-0").await;
    // The same endpoint again: the same row, 200.
    let first = app
        .post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&subscription)
        .send()
        .await;
    assert_eq!(first.status, 201);
    let again = app
        .post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&subscription)
        .send()
        .await;
    assert_eq!(again.status, 200);
    assert_eq!(again.body["id"], first.body["id"]);
    let listed = subscriptions(&app, &anna).await;
    assert_eq!(listed.len(), 2);
    for s in &listed {
        assert!(
            s.get("keys").is_none() && s.get("p256dh").is_none() && s.get("auth").is_none(),
            "{s}"
        );
    }

    // Bad input changes nothing.
    let mut bad = subscription.clone();
    bad["endpoint"] = json!("ftp://push.example/x");
    app.post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&bad)
        .send()
        .await
        .assert_problem(422, "invalid_push_endpoint");
    let mut bad = subscription.clone();
    bad["keys"]["p256dh"] = json!("AAAA");
    app.post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&bad)
        .send()
        .await
        .assert_problem(422, "invalid_push_keys");
    let mut bad = subscription.clone();
    bad["keys"]["auth"] = json!("not base64!");
    app.post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&bad)
        .send()
        .await
        .assert_problem(422, "invalid_push_keys");
    app.post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&json!({"endpoint": 3}))
        .send()
        .await
        .assert_problem(400, "invalid_body");
    app.post("/me/push-subscriptions")
        .json(&subscription)
        .send()
        .await
        .assert_problem(401, "unauthenticated");
    assert_eq!(subscriptions(&app, &anna).await.len(), 2);

    // At most 10.
    for n in 2..10 {
        subscribe(&app, &service, &anna, &format!("anna-{n}")).await;
    }
    let eleventh = service.subscription("anna-10").await;
    app.post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&eleventh)
        .send()
        .await
        .assert_problem(409, "too_many_push_subscriptions");

    // Removal: own ones only.
    let bert = app.register("bert").await;
    app.delete(&format!("/me/push-subscriptions/{id}"))
        .as_user(&bert)
        .send()
        .await
        .assert_problem(404, "push_subscription_not_found");
    let gone = app
        .delete(&format!("/me/push-subscriptions/{id}"))
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(gone.status, 204);
    app.delete(&format!("/me/push-subscriptions/{id}"))
        .as_user(&anna)
        .send()
        .await
        .assert_problem(404, "push_subscription_not_found");
    assert_eq!(subscriptions(&app, &anna).await.len(), 9);

    // Logout everywhere takes every subscription with it.
    let ended = app.delete("/me/sessions").as_user(&anna).send().await;
    ended.assert_ok();
    assert!(subscriptions(&app, &anna).await.is_empty());
}

#[tokio::test]
async fn a_your_turn_reaches_the_push_service_encrypted_signed_and_in_the_players_language() {
    let (app, service, pusher) = fixture().await;
    let players = vec![
        app.register("anna").await,
        app.register("bert").await,
        app.register("cleo").await,
    ];
    for p in &players {
        app.put("/me/profile")
            .as_user(p)
            .json(&json!({"language": "ja", "time_zone": "Asia/Tokyo"}))
            .send()
            .await
            .assert_ok();
        subscribe(&app, &service, p, &p.name).await;
    }
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    let first = pending_player(&app, game, &players).await;
    let report = pusher.run_once().await.unwrap();
    assert!(report.sent >= 1, "{report:?}");
    let pushes = service.accepted(&first.name).await;
    let turn = pushes
        .iter()
        .find(|p| p["payload"]["kind"] == "your_turn")
        .unwrap_or_else(|| panic!("no your_turn push: {pushes:?}"));
    let payload = &turn["payload"];
    assert!(
        payload["title"]
            .as_str()
            .unwrap()
            .contains("あなたの番です"),
        "{payload}"
    );
    assert_eq!(
        payload["url"],
        format!("{}/games/{game}", app.config.public_base_url())
    );
    assert_eq!(payload["game_id"], game.to_string());
    assert_eq!(payload["tag"], format!("your_turn-{}", game.simple()));
    let keys: Vec<&String> = payload.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["body", "game_id", "kind", "tag", "title", "url"]);
    assert_eq!(turn["urgency"], "high");
    let ttl: i64 = turn["ttl"].as_str().unwrap().parse().unwrap();
    assert!((60..=86_400).contains(&ttl), "{ttl}");
    assert!(turn["topic"].as_str().unwrap().len() <= 32);
    assert_eq!(turn["aud"], service.base);
    assert_eq!(turn["sub"], "mailto:kontor@localhost");
    // Planned once: another pass sends nothing again.
    let again = pusher.run_once().await.unwrap();
    assert_eq!((again.planned, again.sent), (0, 0), "{again:?}");
}

#[tokio::test]
async fn a_gone_subscription_is_deleted_and_a_busy_service_is_tried_again() {
    let (app, service, pusher) = fixture().await;
    let players = vec![
        app.register("anna").await,
        app.register("bert").await,
        app.register("cleo").await,
    ];
    for p in &players {
        subscribe(&app, &service, p, &p.name).await;
    }
    // The first player's push service is busy twice (429), everyone else's forgot them (410).
    let game_players = players.clone();
    let game = {
        // Which seat acts first is only known after the start: behaviours are set for all.
        for p in &players {
            service.behave(&p.name, 410, 1, None).await;
        }
        app.start_game("flying-dutchman", json!({}), &game_players)
            .await
    };
    let first = pending_player(&app, game, &players).await.clone();
    service.behave(&first.name, 429, 2, Some(0)).await;
    let report = pusher.run_once().await.unwrap();
    assert!(report.gone >= 2 && report.retrying >= 1, "{report:?}");
    for p in players.iter().filter(|p| p.id != first.id) {
        assert!(
            subscriptions(&app, p).await.is_empty(),
            "{}'s subscription stays",
            p.name
        );
    }
    assert_eq!(subscriptions(&app, &first).await.len(), 1);
    // Retry-After: 0, so due again at once (within the same pass, which runs until nothing is
    // due); the service takes them then.
    let mut sent = report.sent;
    for _ in 0..3 {
        sent += pusher.run_once().await.unwrap().sent;
    }
    assert!(sent >= 1, "nothing was sent after the retries");
    let pushes = service.accepted(&first.name).await;
    assert!(
        pushes.iter().any(|p| p["payload"]["kind"] == "your_turn"),
        "{pushes:?}"
    );
    let answered = service.received().await["answered"].clone();
    let statuses: Vec<u64> = answered
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["name"] == first.name.as_str())
        .map(|a| a["status"].as_u64().unwrap())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 429).count(),
        2,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        pushes.len(),
        "{statuses:?}"
    );
}

#[tokio::test]
async fn the_push_choice_per_kind_is_kept_and_honoured() {
    let (app, service, pusher) = fixture().await;
    let players = vec![
        app.register("anna").await,
        app.register("bert").await,
        app.register("cleo").await,
    ];
    let defaults = app
        .get("/me/notifications")
        .as_user(&players[0])
        .send()
        .await;
    let defaults = defaults.assert_ok();
    assert_eq!(defaults["push"]["your_turn"], true);
    assert_eq!(defaults["push"]["player_left"], false);
    assert_eq!(defaults["your_turn"], "immediately");
    for p in &players {
        // "Mail only" for every kind.
        let off: serde_json::Map<String, Value> = kontor::service::notices::NoticeKind::ALL
            .iter()
            .map(|k| (k.as_str().to_string(), json!(false)))
            .collect();
        let changed = app
            .put("/me/notifications")
            .as_user(p)
            .json(&json!({"push": off}))
            .send()
            .await;
        assert_eq!(changed.assert_ok()["push"]["your_turn"], false);
        assert_eq!(changed.body["your_turn"], "immediately");
        subscribe(&app, &service, p, &p.name).await;
    }
    app.put("/me/notifications")
        .as_user(&players[0])
        .json(&json!({"push": {"no_such_kind": true}}))
        .send()
        .await
        .assert_problem(400, "unknown_notice_kind");
    app.start_game("flying-dutchman", json!({}), &players).await;
    let report = pusher.run_once().await.unwrap();
    assert!(report.planned >= 1, "{report:?}");
    assert_eq!(report.sent, 0, "{report:?}");
    assert!(
        service.received().await["accepted"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn no_push_over_a_whole_flying_dutchman_game_carries_hidden_information() {
    let (app, service, pusher) = fixture().await;
    let players = vec![
        app.register("anna").await,
        app.register("bert").await,
        app.register("cleo").await,
    ];
    for p in &players {
        subscribe(&app, &service, p, &p.name).await;
    }
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    for (turn, seed) in (0..).zip(11..) {
        assert!(turn < 3000, "the game did not end");
        pusher.run_once().await.unwrap();
        let status: String = sqlx::query_scalar("SELECT status::text FROM games WHERE id = $1")
            .bind(game)
            .fetch_one(&app.pool)
            .await
            .unwrap();
        if status != "active" {
            break;
        }
        bots::play(&app, game, &players, bots::flying_dutchman, seed, 1).await;
    }
    pusher.run_once().await.unwrap();
    let received = service.received().await;
    assert_eq!(received["rejected"], json!([]));
    let accepted = received["accepted"].as_array().unwrap();
    assert!(
        accepted.iter().any(|a| a["payload"]["kind"] == "your_turn")
            && accepted.iter().any(|a| a["payload"]["kind"] == "game_over"),
        "{accepted:?}"
    );
    // A hidden value (shares, horseshoes) is a count: the text of a push during the game holds
    // no number at all, and the one after the end only the public result's scores. Only the
    // fixed six fields are there.
    let final_view = app
        .get(&format!("/games/{game}"))
        .as_user(&players[0])
        .send()
        .await;
    let final_view = final_view.assert_ok().to_string();
    for push in accepted {
        let payload = &push["payload"];
        let keys: Vec<&String> = payload.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["body", "game_id", "kind", "tag", "title", "url"],
            "{payload}"
        );
        let text = format!("{} {}", payload["title"], payload["body"]);
        let numbers: Vec<String> = text
            .split(|c: char| !c.is_ascii_digit())
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect();
        if payload["kind"] == "game_over" {
            for n in &numbers {
                assert!(
                    final_view.contains(n.as_str()),
                    "{n} in {payload} is not public"
                );
            }
        } else {
            assert!(
                numbers.is_empty(),
                "a number in a push during the game: {payload}"
            );
        }
        // "You share the win" is the public result of a tie; any other "share" would speak of
        // the share cards, which are private to their holders.
        let lower = text
            .to_lowercase()
            .replace("share the win", "")
            .replace("shares the win", "");
        assert!(
            !lower.contains("share") && !lower.contains("horseshoe"),
            "{payload}"
        );
    }
}

#[tokio::test]
async fn a_password_reset_and_a_deleted_account_take_the_push_subscriptions_with_them() {
    let w = spawn_mailed_app(&[("KONTOR_OUTBOUND_ALLOW_INSECURE", "true")]).await;
    let service = PushService::start().await;
    let anna = w.app.register("anna").await;
    let bert = w.app.register("bert").await;
    subscribe(&w.app, &service, &anna, "anna-phone").await;
    subscribe(&w.app, &service, &bert, "bert-phone").await;
    let count = |user: Uuid| {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM push_subscriptions WHERE user_id = $1")
            .bind(user)
            .fetch_one(&w.app.pool)
    };

    // Whoever reset the password may be someone who took over the mailbox, not the owner
    // of the devices: they stop receiving.
    w.reset_password_by_mail("anna", "a brand new horse battery")
        .await;
    assert_eq!(count(anna.id).await.unwrap(), 0);
    assert_eq!(count(bert.id).await.unwrap(), 1, "another's stay");

    w.app
        .post("/me/delete")
        .as_user(&bert)
        .json(&json!({"password": password_of("bert")}))
        .send()
        .await
        .assert_ok();
    assert_eq!(count(bert.id).await.unwrap(), 0);
}

#[tokio::test]
async fn one_accounts_slow_push_endpoints_hold_no_one_elses_pushes() {
    let app = spawn_app_with(AppOptions {
        settings: [
            ("KONTOR_OUTBOUND_ALLOW_INSECURE", "true"),
            ("KONTOR_CHAT_INTERVAL_SECS", "0"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    })
    .await;
    let service = PushService::start().await;
    let vapid = Vapid::load_or_create(
        None,
        &app.config.data_dir,
        app.config.push.subject(&app.config.mail_from),
    )
    .unwrap();
    let pusher = Pusher::new(app.pool.clone(), &app.config, Arc::new(vapid)).unwrap();
    // Ten subscriptions of one account on a push endpoint that answers after 25 s.
    let slow = SlowReceiver::start("127.0.0.2", std::time::Duration::from_secs(25)).await;
    let players = vec![
        app.register("mallory").await,
        app.register("trent").await,
        app.register("vera").await,
    ];
    let (mallory, trent, vera) = (&players[0], &players[1], &players[2]);
    for i in 0..10 {
        let reply = app
            .post("/me/push-subscriptions")
            .as_user(mallory)
            .json(&json!({"endpoint": format!("{}/push/{i}", slow.base),
                          "keys": {"p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", "auth": "BTBZMqHH6r4Tts7J_aSIgg"}}))
            .send()
            .await;
        assert_eq!(reply.status, 201, "{}", reply.text);
    }
    subscribe(&app, &service, vera, "vera").await;
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    // Twenty mentions of the attacker: 200 deliveries to the slow endpoint.
    for n in 0..20 {
        let reply = app
            .post(&format!("/games/{game}/chat/table/messages"))
            .as_user(trent)
            .key(&format!("m{n}"))
            .json(&json!({"text": format!("@mallory look {n}")}))
            .send()
            .await;
        assert_eq!(reply.status, 201, "{}", reply.text);
    }
    let stop = tokio_util::sync::CancellationToken::new();
    let worker = tokio::spawn(pusher.run(stop.clone()));
    slow.wait_for(2, std::time::Duration::from_secs(10)).await;
    let queued: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM push_deliveries WHERE user_id = $1 AND status = 'pending'",
    )
    .bind(mallory.id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!(queued >= 150, "the attacker's pushes wait: {queued}");
    // Meanwhile a third player is mentioned: her push arrives at once.
    let asked = std::time::Instant::now();
    let reply = app
        .post(&format!("/games/{game}/chat/table/messages"))
        .as_user(trent)
        .key("to-vera")
        .json(&json!({"text": "@vera your move?"}))
        .send()
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text);
    loop {
        let pushes = service.accepted("vera").await;
        if pushes
            .iter()
            .any(|p| p["payload"]["kind"] == "chat_mention")
        {
            break;
        }
        assert!(
            asked.elapsed() < std::time::Duration::from_secs(30),
            "the mention push never arrived"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let took = asked.elapsed();
    assert!(
        took < std::time::Duration::from_secs(2),
        "another player's push waited {took:?} behind the slow endpoints"
    );
    assert!(
        slow.most_at_once() <= app.config.delivery.per_owner,
        "{} of the attacker's requests at once",
        slow.most_at_once()
    );
    stop.cancel();
    worker.await.unwrap();
}

#[tokio::test]
async fn test_sends_are_limited_take_overs_start_afresh_and_refusals_name_no_address() {
    let (app, service, _) = fixture().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let subscription = service.subscription("shared").await;
    let first = app
        .post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&subscription)
        .send()
        .await;
    assert_eq!(first.status, 201);
    let anna_id = first.body["id"].as_str().unwrap().to_string();
    // Anna's device worked yesterday.
    sqlx::query(
        "UPDATE push_subscriptions SET created_at = now() - interval '30 days',
                last_success_at = now() - interval '1 day'",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    // Bert takes the device over: a new subscription of his, with nothing of anna's.
    let taken = app
        .post("/me/push-subscriptions")
        .as_user(&bert)
        .json(&subscription)
        .send()
        .await;
    assert_eq!(taken.status, 201, "{}", taken.text);
    assert_ne!(taken.body["id"], anna_id.as_str());
    assert_eq!(taken.body["last_success_at"], Value::Null);
    let created: chrono::DateTime<chrono::Utc> =
        taken.body["created_at"].as_str().unwrap().parse().unwrap();
    assert!(
        chrono::Utc::now() - created < chrono::Duration::minutes(5),
        "{created}"
    );
    assert!(subscriptions(&app, &anna).await.is_empty());
    let id = taken.body["id"].as_str().unwrap().to_string();

    // Test sends: the hour's ten, webhook tests counted with them, then 429.
    let hook = app
        .post("/me/webhooks")
        .as_user(&bert)
        .json(&json!({"url": "http://127.0.0.1:9/hook", "event_types": ["notice.your_turn"]}))
        .send()
        .await;
    assert_eq!(hook.status, 201, "{}", hook.text);
    let hook = hook.body["id"].as_str().unwrap().to_string();
    for n in 0..10 {
        let reply = if n % 2 == 0 {
            app.post(&format!("/me/push-subscriptions/{id}/test"))
                .as_user(&bert)
                .send()
                .await
        } else {
            app.post(&format!("/me/webhooks/{hook}/test"))
                .as_user(&bert)
                .send()
                .await
        };
        assert!(reply.status.is_success(), "{n}: {}", reply.text);
    }
    let refused = app
        .post(&format!("/me/push-subscriptions/{id}/test"))
        .as_user(&bert)
        .send()
        .await;
    refused.assert_problem(429, "too_many_test_sends");
    assert!(refused.headers.get("retry-after").is_some());
    // Another account's budget is its own.
    let own = service.subscription("anna-own").await;
    let anna_sub = app
        .post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&own)
        .send()
        .await;
    let anna_sub = anna_sub.body["id"].as_str().unwrap().to_string();
    let tested = app
        .post(&format!("/me/push-subscriptions/{anna_sub}/test"))
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(tested.assert_ok()["status"], 201);
}

#[tokio::test]
async fn push_endpoints_every_send_would_refuse_are_refused_and_no_answer_names_an_address() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let keys = json!({"p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", "auth": "BTBZMqHH6r4Tts7J_aSIgg"});
    for endpoint in [
        "https://[::127.0.0.1]/push",
        "https://[64:ff9b::7f00:1]/push",
        "https://[64:ff9b::a9fe:a9fe]/push",
        "https://[2002:7f00:1::1]/push",
        "https://LOCALHOST./push",
        "https://localhost/push",
    ] {
        app.post("/me/push-subscriptions")
            .as_user(&anna)
            .json(&json!({"endpoint": endpoint, "keys": keys}))
            .send()
            .await
            .assert_problem(422, "invalid_push_endpoint");
    }
    assert!(subscriptions(&app, &anna).await.is_empty());
    // A name only the resolver finds to be this machine: the test's answer says the name is
    // not public, not what it resolved to.
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string();
    let addresses: Vec<std::net::IpAddr> = tokio::net::lookup_host((name.as_str(), 0))
        .await
        .unwrap_or_else(|e| panic!("this test needs the host name {name} to resolve: {e}"))
        .map(|a| a.ip())
        .collect();
    let created = app
        .post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&json!({"endpoint": format!("https://{name}/push"), "keys": keys}))
        .send()
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let id = created.body["id"].as_str().unwrap();
    let tested = app
        .post(&format!("/me/push-subscriptions/{id}/test"))
        .as_user(&anna)
        .send()
        .await;
    let error = tested.assert_ok()["error"].as_str().unwrap().to_string();
    assert!(error.contains("not a public internet address"), "{error}");
    for ip in addresses {
        assert!(!error.contains(&ip.to_string()), "{error} names {ip}");
    }
}
