//! Signed webhooks against a real loopback receiver: signatures verified by the Standard
//! Webhooks reference library (PyPI `standardwebhooks`, tests/webhook_receiver/verify.py),
//! the test event, rotation (both signatures), retries then success, 410 and the last failure
//! disabling the endpoint, redelivery, the SSRF refusals, scopes and limits.

use crate::support::*;
use kontor::service::delivery::webhooks::worker::Webhooks;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A request the receiver got.
#[derive(Clone, Debug)]
struct Received {
    headers: HashMap<String, String>,
    body: String,
}

/// An HTTP/1.1 receiver on 127.0.0.1 that records each request and answers with the next
/// queued status (200 when none is queued).
#[derive(Clone)]
struct Receiver {
    url: String,
    received: Arc<Mutex<Vec<Received>>>,
    answers: Arc<Mutex<VecDeque<u16>>>,
}

impl Receiver {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!(
            "http://127.0.0.1:{}/hook",
            listener.local_addr().unwrap().port()
        );
        let receiver = Receiver {
            url,
            received: Default::default(),
            answers: Default::default(),
        };
        let serving = receiver.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let serving = serving.clone();
                tokio::spawn(async move {
                    let mut data = Vec::new();
                    let mut buf = [0u8; 8192];
                    let (head_end, length) = loop {
                        let n = socket.read(&mut buf).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        data.extend_from_slice(&buf[..n]);
                        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&data[..end]).to_lowercase();
                            let length = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:"))
                                .map_or(0, |v| v.trim().parse::<usize>().unwrap());
                            break (end + 4, length);
                        }
                    };
                    while data.len() < head_end + length {
                        let n = socket.read(&mut buf).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        data.extend_from_slice(&buf[..n]);
                    }
                    let head = String::from_utf8_lossy(&data[..head_end - 4]).to_string();
                    let headers = head
                        .lines()
                        .skip(1)
                        .filter_map(|l| l.split_once(':'))
                        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
                        .collect();
                    let body =
                        String::from_utf8_lossy(&data[head_end..head_end + length]).to_string();
                    serving
                        .received
                        .lock()
                        .unwrap()
                        .push(Received { headers, body });
                    let status = serving.answers.lock().unwrap().pop_front().unwrap_or(200);
                    let answer = format!(
                        "HTTP/1.1 {status} X\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"
                    );
                    let _ = socket.write_all(answer.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        receiver
    }

    fn answer(&self, statuses: &[u16]) {
        self.answers.lock().unwrap().extend(statuses);
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// Verifies a received request with `secret` by the reference library; its parsed payload.
async fn verify(secret: &str, request: &Received) -> Result<Value, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("target/webhook-verifier/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run deploy/setup-tests.sh",
        python.display()
    );
    let mut child = tokio::process::Command::new(python)
        .arg(root.join("tests/webhook_receiver/verify.py"))
        .arg(secret)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input = json!({"headers": request.headers, "body": request.body}).to_string();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).await.unwrap();
    drop(stdin);
    let output = child.wait_with_output().await.unwrap();
    if output.status.success() {
        Ok(serde_json::from_slice(&output.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).to_string())
    }
}

async fn insecure_app() -> TestApp {
    spawn_app_with(AppOptions {
        settings: HashMap::from([(
            "KONTOR_OUTBOUND_ALLOW_INSECURE".to_string(),
            "true".to_string(),
        )]),
    })
    .await
}

async fn create(app: &TestApp, user: &User, url: &str, events: &[&str]) -> Value {
    let reply = app
        .post("/me/webhooks")
        .as_user(user)
        .json(&json!({"url": url, "event_types": events}))
        .send()
        .await;
    assert_eq!(reply.status.as_u16(), 201, "{}", reply.text);
    reply.body
}

async fn run_worker(app: &TestApp) -> usize {
    Webhooks::new(app.pool.clone(), &app.config)
        .unwrap()
        .pass()
        .await
        .unwrap()
}

async fn log(app: &TestApp, user: &User, endpoint: &str) -> Vec<Value> {
    app.get(&format!("/me/webhooks/{endpoint}/deliveries"))
        .as_user(user)
        .send()
        .await
        .assert_ok()["items"]
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn notices_arrive_signed_thin_and_verified_by_the_reference_library() {
    let app = insecure_app().await;
    let receiver = Receiver::start().await;
    let players = [
        app.register("hook_anna").await,
        app.register("hook_bert").await,
        app.register("hook_cleo").await,
    ];
    let created = create(
        &app,
        &players[0],
        &receiver.url,
        &["notice.game_started", "notice.your_turn"],
    )
    .await;
    let secret = created["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));
    let endpoint = created["id"].as_str().unwrap().to_string();
    // The secret is shown once: not in the list.
    let list = app.get("/me/webhooks").as_user(&players[0]).send().await;
    assert!(!list.text.contains(&secret));
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    run_worker(&app).await;
    let received = receiver.received();
    assert!(
        !received.is_empty(),
        "the game's start reached the receiver"
    );
    for request in &received {
        let payload = verify(&secret, request).await.expect("verifies");
        let kind = payload["type"].as_str().unwrap();
        assert!(
            ["notice.game_started", "notice.your_turn"].contains(&kind),
            "{kind}"
        );
        assert_eq!(payload["data"]["game_id"], game.to_string());
        assert_eq!(payload["data"]["game_kind"], "flying-dutchman");
        assert!(
            payload["data"]["link"]
                .as_str()
                .unwrap()
                .ends_with(&format!("/games/{game}"))
        );
        // Thin: only fields the owner's own mail shows.
        for field in payload["data"].as_object().unwrap().keys() {
            assert!(
                ["game_id", "game_kind", "link", "deadline", "summary"].contains(&field.as_str()),
                "unexpected field {field}"
            );
        }
        // A wrong secret does not verify.
        assert!(
            verify("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", request)
                .await
                .is_err()
        );
    }
    // The other players' notices went nowhere: anna's endpoint has only anna's.
    let started = received
        .iter()
        .filter(|r| r.body.contains("notice.game_started"))
        .count();
    assert_eq!(started, 1);
    let lines = log(&app, &players[0], &endpoint).await;
    assert_eq!(lines.len(), received.len());
    assert!(
        lines
            .iter()
            .all(|l| l["status"] == "succeeded" && l["last_status"] == 200)
    );

    // The test event.
    let queued = app
        .post(&format!("/me/webhooks/{endpoint}/test"))
        .as_user(&players[0])
        .send()
        .await;
    assert_eq!(queued.status.as_u16(), 202);
    run_worker(&app).await;
    let test = receiver.received().last().unwrap().clone();
    assert_eq!(test.headers["webhook-id"], queued.body["delivery_id"]);
    assert_eq!(
        verify(&secret, &test).await.unwrap()["type"],
        "webhook.test"
    );

    // Rotation: both signatures while the old secret overlaps; each secret verifies.
    let rotated = app
        .post(&format!("/me/webhooks/{endpoint}/rotate"))
        .as_user(&players[0])
        .send()
        .await;
    let new_secret = rotated.assert_ok()["secret"].as_str().unwrap().to_string();
    assert_ne!(new_secret, secret);
    app.post(&format!("/me/webhooks/{endpoint}/test"))
        .as_user(&players[0])
        .send()
        .await;
    run_worker(&app).await;
    let both = receiver.received().last().unwrap().clone();
    assert_eq!(both.headers["webhook-signature"].split(' ').count(), 2);
    verify(&secret, &both)
        .await
        .expect("the old secret still verifies");
    verify(&new_secret, &both)
        .await
        .expect("the new secret verifies");

    // Redelivery: the same id and body again.
    let first = &lines[0];
    let again = app
        .post(&format!(
            "/me/webhooks/{endpoint}/deliveries/{}/redeliver",
            first["id"].as_str().unwrap()
        ))
        .as_user(&players[0])
        .send()
        .await;
    assert_eq!(again.status.as_u16(), 202, "{}", again.text);
    run_worker(&app).await;
    let redelivered = receiver.received().last().unwrap().clone();
    assert_eq!(redelivered.headers["webhook-id"], first["id"]);
    verify(&new_secret, &redelivered).await.unwrap();
}

#[tokio::test]
async fn summaries_are_written_in_the_owners_language() {
    let app = insecure_app().await;
    let receiver = Receiver::start().await;
    let players = [
        app.register("sum_anna").await,
        app.register("sum_bert").await,
        app.register("sum_cleo").await,
    ];
    app.put("/me/profile")
        .as_user(&players[1])
        .json(&json!({"language": "ja", "time_zone": "Asia/Tokyo"}))
        .send()
        .await
        .assert_ok();
    let reply = app
        .post("/me/webhooks")
        .as_user(&players[1])
        .json(&json!({"url": receiver.url, "event_types": ["notice.game_started"], "format": "discord"}))
        .send()
        .await;
    assert_eq!(reply.status.as_u16(), 201, "{}", reply.text);
    create(&app, &players[0], &receiver.url, &["notice.game_started"]).await;
    app.start_game("steel-driver", json!({}), &players).await;
    run_worker(&app).await;
    let received = receiver.received();
    let bodies: Vec<Value> = received
        .iter()
        .map(|r| serde_json::from_str(&r.body).unwrap())
        .collect();
    // bert's (Japanese) Discord endpoint: one line, his mail's subject and the game's page.
    let discord = bodies
        .iter()
        .find_map(|b| b["content"].as_str())
        .expect("the Discord body");
    assert!(
        discord.starts_with("スチールドライバー") && discord.contains("が始まりました http"),
        "{discord}"
    );
    // anna's (English) standard endpoint: the summary among the data.
    let standard = bodies
        .iter()
        .find(|b| b["type"] == "notice.game_started")
        .expect("the standard body");
    let summary = standard["data"]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("Steel Driver") && summary.ends_with(" has started"),
        "{summary}"
    );
}

#[tokio::test]
async fn retries_then_success_and_410_and_the_last_failure_disable() {
    let f = spawn_mailed_app(&[("KONTOR_OUTBOUND_ALLOW_INSECURE", "true")]).await;
    let app = &f.app;
    let receiver = Receiver::start().await;
    let anna = app.register("retry_anna").await;
    let endpoint = create(app, &anna, &receiver.url, &["notice.your_turn"]).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    receiver.answer(&[500, 503]);
    app.post(&format!("/me/webhooks/{endpoint}/test"))
        .as_user(&anna)
        .send()
        .await;
    run_worker(app).await;
    let line = &log(app, &anna, &endpoint).await[0];
    assert_eq!(
        (line["status"].as_str(), line["attempts"].as_i64()),
        (Some("pending"), Some(1))
    );
    assert_eq!(line["last_status"], 500);
    // Not due before its wait (5 s and jitter).
    run_worker(app).await;
    assert_eq!(receiver.received().len(), 1);
    app.clock.advance(Duration::from_secs(7));
    run_worker(app).await;
    app.clock.advance(Duration::from_secs(400));
    run_worker(app).await;
    let line = &log(app, &anna, &endpoint).await[0];
    assert_eq!(line["status"], "succeeded", "{line}");
    assert_eq!(line["attempts"], 3);
    assert_eq!(receiver.received().len(), 3);
    // Every attempt carried the same id.
    let ids: Vec<_> = receiver
        .received()
        .iter()
        .map(|r| r.headers["webhook-id"].clone())
        .collect();
    assert!(ids.iter().all(|id| id == &ids[0]));

    // 410: disabled at once.
    receiver.answer(&[410]);
    app.post(&format!("/me/webhooks/{endpoint}/test"))
        .as_user(&anna)
        .send()
        .await;
    run_worker(app).await;
    let webhook = app
        .get(&format!("/me/webhooks/{endpoint}"))
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(webhook.body["enabled"], false);
    assert_eq!(webhook.body["disabled_reason"], "gone");
    // Its owner is told, in their mail, why and where to switch it on again.
    let told = disabled_mails(&f).await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains(&receiver.url), "{}", told[0]);
    assert!(told[0].contains("410 Gone"), "{}", told[0]);
    assert!(told[0].contains("/settings"), "{}", told[0]);

    // Enabled again; a delivery whose last retry fails disables it (`failing`).
    let enabled = app
        .request(Method::PATCH, &format!("/me/webhooks/{endpoint}"))
        .as_user(&anna)
        .json(&json!({"enabled": true}))
        .send()
        .await;
    assert_eq!(enabled.assert_ok()["disabled_reason"], Value::Null);
    app.post(&format!("/me/webhooks/{endpoint}/test"))
        .as_user(&anna)
        .send()
        .await;
    sqlx::query("UPDATE webhook_deliveries SET attempts = 8 WHERE status = 'pending'")
        .execute(&app.pool)
        .await
        .unwrap();
    receiver.answer(&[500]);
    run_worker(app).await;
    let webhook = app
        .get(&format!("/me/webhooks/{endpoint}"))
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(webhook.body["enabled"], false);
    assert_eq!(webhook.body["disabled_reason"], "failing");
    assert_eq!(log(app, &anna, &endpoint).await[0]["status"], "failed");
    let told = disabled_mails(&f).await;
    assert_eq!(
        told.len(),
        2,
        "one mail each time it is switched off: {told:?}"
    );
    assert!(told[1].contains("kept failing"), "{}", told[1]);
}

/// The texts (unwrapped) of the "webhook switched off" mails delivered so far.
async fn disabled_mails(f: &MailedApp) -> Vec<String> {
    while f.notifier.deliver_due(50).await.unwrap().claimed > 0 {}
    f.sink
        .received()
        .iter()
        .map(|r| r.mail())
        .filter(|m| m.subject() == "Kontor stopped sending to your webhook")
        .map(|m| m.text().split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[tokio::test]
async fn every_blocked_address_class_is_refused_without_the_insecure_setting() {
    let app = spawn_app().await;
    let anna = app.register("ssrf_anna").await;
    for (url, reason) in [
        ("http://example.com/hook", "insecure_url"),
        ("https://127.0.0.1/hook", "blocked_address"),
        ("https://[::ffff:127.0.0.1]/hook", "blocked_address"),
        ("https://[::1]/hook", "blocked_address"),
        ("https://10.0.0.8/hook", "blocked_address"),
        ("https://169.254.169.254/latest", "blocked_address"),
        ("https://100.64.0.1/", "blocked_address"),
        ("https://[fd00::1]/", "blocked_address"),
        ("https://[64:ff9b::7f00:1]/", "blocked_address"),
        ("https://[2002:7f00:1::1]/", "blocked_address"),
        ("https://[2001:db8::1]/", "blocked_address"),
        ("https://224.0.0.1/", "blocked_address"),
        ("https://192.0.2.1/", "blocked_address"),
        ("ftp://example.com/", "invalid_url"),
        ("not a url", "invalid_url"),
    ] {
        let reply = app
            .post("/me/webhooks")
            .as_user(&anna)
            .json(&json!({"url": url, "event_types": ["notice.your_turn"]}))
            .send()
            .await;
        let problem = reply.assert_problem(422, "invalid_webhook_url");
        assert_eq!(problem["reason"], reason, "{url}");
    }
    // localhost is loopback by definition: refused when the endpoint is made, in any case.
    for url in [
        "https://localhost:9/hook",
        "https://LOCALHOST./hook",
        "https://a.localhost/",
    ] {
        let reply = app
            .post("/me/webhooks")
            .as_user(&anna)
            .json(&json!({"url": url, "event_types": ["notice.your_turn"]}))
            .send()
            .await;
        assert_eq!(
            reply.assert_problem(422, "invalid_webhook_url")["reason"],
            "blocked_address",
            "{url}"
        );
    }
    // Another name of this machine passes the form, but the resolver refuses it at the send,
    // and the log says so without saying what the name resolved to.
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string();
    let addresses: Vec<std::net::IpAddr> = tokio::net::lookup_host((name.as_str(), 0))
        .await
        .unwrap_or_else(|e| panic!("this test needs the host name {name} to resolve: {e}"))
        .map(|a| a.ip())
        .collect();
    assert!(
        addresses
            .iter()
            .all(|ip| !kontor::service::delivery::outbound::is_global(*ip)),
        "this test needs the host name {name} to resolve to this machine: {addresses:?}"
    );
    let endpoint = create(
        &app,
        &anna,
        &format!("https://{name}:9/hook"),
        &["notice.your_turn"],
    )
    .await;
    let id = endpoint["id"].as_str().unwrap();
    app.post(&format!("/me/webhooks/{id}/test"))
        .as_user(&anna)
        .send()
        .await;
    run_worker(&app).await;
    let line = &log(&app, &anna, id).await[0];
    let error = line["last_error"].as_str().unwrap();
    assert!(error.starts_with("blocked_address"), "{line}");
    assert!(error.contains(&name), "{error}");
    for ip in &addresses {
        assert!(!error.contains(&ip.to_string()), "{error} names {ip}");
    }
    assert_eq!(line["last_status"], Value::Null);
}

/// Refusals are written in the language the request asks for (the web client sends its own);
/// the code is the same in every language.
#[tokio::test]
async fn refusals_speak_the_language_asked_for() {
    let app = spawn_app().await;
    let anna = app.register("words_anna").await;
    let refuse = |language: &'static str, url: &'static str| {
        let request = app
            .post("/me/webhooks")
            .as_user(&anna)
            .header("Accept-Language", language)
            .json(&json!({"url": url, "event_types": ["notice.your_turn"]}));
        async move { request.send().await }
    };
    let english = refuse("en-GB,en;q=0.9", "https://127.0.0.1/hook").await;
    let problem = english.assert_problem(422, "invalid_webhook_url");
    assert_eq!(
        problem["detail"],
        "the URL cannot be used: 127.0.0.1 is not a public internet address"
    );
    let japanese = refuse("ja,en;q=0.5", "https://127.0.0.1/hook").await;
    let problem = japanese.assert_problem(422, "invalid_webhook_url");
    assert_eq!(problem["reason"], "blocked_address");
    assert_eq!(
        problem["detail"],
        "このURLは使えません: 127.0.0.1 は公開されたインターネットのアドレスではありません"
    );
    let japanese = refuse("ja", "http://example.com/hook").await;
    let problem = japanese.assert_problem(422, "invalid_webhook_url");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("https:// のURLだけが使えます"),
        "{problem}"
    );
    let missing = app
        .get("/me/webhooks/0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d")
        .as_user(&anna)
        .header("Accept-Language", "ja")
        .send()
        .await;
    let problem = missing.assert_problem(404, "webhook_not_found");
    assert_eq!(
        problem["detail"],
        "このIDのWebhookのエンドポイントまたは配信はありません"
    );
    // Push subscriptions too.
    let push = app
        .post("/me/push-subscriptions")
        .as_user(&anna)
        .header("Accept-Language", "ja")
        .json(&json!({"endpoint": "https://push.example/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}}))
        .send()
        .await;
    let problem = push.assert_problem(422, "invalid_push_keys");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("P-256の公開鍵ではありません"),
        "{problem}"
    );
    let push = app
        .post("/me/push-subscriptions")
        .as_user(&anna)
        .json(&json!({"endpoint": "ftp://push.example/x", "keys": {"p256dh": "AAAA", "auth": "AAAA"}}))
        .send()
        .await;
    let problem = push.assert_problem(422, "invalid_push_endpoint");
    assert_eq!(problem["detail"], "the endpoint must be an https:// URL");
}

#[tokio::test]
async fn scopes_limits_and_bad_input() {
    let app = insecure_app().await;
    let anna = app.register("scope_anna").await;
    let bert = app.register("scope_bert").await;
    let player_token = app.api_token(&anna.token, &["game:play"]).await;
    app.get("/me/webhooks")
        .token(&player_token)
        .send()
        .await
        .assert_problem(403, "insufficient_scope");
    let hooks_token = app.api_token(&anna.token, &["webhooks"]).await;
    app.get("/me/webhooks")
        .token(&hooks_token)
        .send()
        .await
        .assert_ok();
    app.post("/me/webhooks")
        .as_user(&anna)
        .json(&json!({"url": "http://127.0.0.1:9/", "event_types": ["notice.nothing"]}))
        .send()
        .await
        .assert_problem(422, "invalid_field");
    app.post("/me/webhooks")
        .as_user(&anna)
        .json(&json!({"url": "http://127.0.0.1:9/", "event_types": []}))
        .send()
        .await
        .assert_problem(422, "invalid_field");
    let mut first = String::new();
    for i in 0..10 {
        let created = create(
            &app,
            &anna,
            &format!("http://127.0.0.1:9/{i}"),
            &["notice.invited"],
        )
        .await;
        if i == 0 {
            first = created["id"].as_str().unwrap().to_string();
        }
    }
    app.post("/me/webhooks")
        .token(&hooks_token)
        .json(&json!({"url": "http://127.0.0.1:9/x", "event_types": ["notice.invited"]}))
        .send()
        .await
        .assert_problem(409, "too_many_webhooks");
    // Another account sees none of anna's.
    app.get(&format!("/me/webhooks/{first}"))
        .as_user(&bert)
        .send()
        .await
        .assert_problem(404, "webhook_not_found");
    app.delete(&format!("/me/webhooks/{first}"))
        .as_user(&bert)
        .send()
        .await
        .assert_problem(404, "webhook_not_found");
    let deleted = app
        .delete(&format!("/me/webhooks/{first}"))
        .as_user(&anna)
        .send()
        .await;
    assert_eq!(deleted.status.as_u16(), 204);
    app.get(&format!("/me/webhooks/{first}/deliveries?limit=0"))
        .as_user(&anna)
        .send()
        .await
        .assert_problem(400, "invalid_parameter");
}

#[tokio::test]
async fn a_deleted_account_takes_its_webhooks_and_their_secrets_with_it() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    create(
        &app,
        &anna,
        "https://hooks.example/anna",
        &["notice.your_turn"],
    )
    .await;
    create(
        &app,
        &bert,
        "https://hooks.example/bert",
        &["notice.your_turn"],
    )
    .await;
    app.post("/me/delete")
        .as_user(&anna)
        .json(&json!({"password": password_of("anna")}))
        .send()
        .await
        .assert_ok();
    let left: Vec<String> = sqlx::query_scalar("SELECT url FROM webhook_endpoints")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert_eq!(left, ["https://hooks.example/bert"]);
    let secrets: i64 = sqlx::query_scalar("SELECT count(*) FROM webhook_secrets")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(secrets, 1, "only the other's endpoint keeps a secret");
}

#[tokio::test]
async fn one_accounts_slow_endpoints_hold_no_one_elses_deliveries() {
    let app = insecure_app().await;
    // The attacker's receiver answers after 25 s; its host (127.0.0.2) is not the victim's.
    let slow = SlowReceiver::start("127.0.0.2", Duration::from_secs(25)).await;
    let fast = Receiver::start().await;
    let mallory = app.register("slow_mallory").await;
    let victim = app.register("slow_victim").await;
    // Every endpoint the attacker may have, every one of them on the slow receiver.
    let mut hooks = Vec::new();
    for i in 0..10 {
        let created = create(
            &app,
            &mallory,
            &format!("{}/hook/{i}", slow.base),
            &["notice.your_turn"],
        )
        .await;
        hooks.push(created["id"].as_str().unwrap().to_string());
    }
    app.post("/me/webhooks")
        .as_user(&mallory)
        .json(&json!({"url": format!("{}/hook/x", slow.base), "event_types": ["notice.your_turn"]}))
        .send()
        .await
        .assert_problem(409, "too_many_webhooks");
    // Test sends round the endpoints until the account is refused (the attack made 60).
    let mut queued = 0;
    let mut refused = None;
    for i in 0..60 {
        let reply = app
            .post(&format!("/me/webhooks/{}/test", hooks[i % hooks.len()]))
            .as_user(&mallory)
            .send()
            .await;
        if reply.status == 429 {
            refused = Some(reply);
            break;
        }
        assert_eq!(reply.status.as_u16(), 202, "{}", reply.text);
        queued += 1;
    }
    let refused = refused.expect("test sends are limited");
    refused.assert_problem(429, "too_many_test_sends");
    let wait: u64 = refused.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3600).contains(&wait), "{wait}");
    assert_eq!(queued, 10, "KONTOR_TEST_SENDS_PER_HOUR");

    let stop = tokio_util::sync::CancellationToken::new();
    let worker = tokio::spawn(
        Webhooks::new(app.pool.clone(), &app.config)
            .unwrap()
            .run(stop.clone()),
    );
    // The worker is busy with the attacker's requests…
    slow.wait_for(2, Duration::from_secs(10)).await;
    // …when another account's test event is asked for: it arrives at once all the same.
    let created = create(&app, &victim, &fast.url, &["notice.your_turn"]).await;
    let hook = created["id"].as_str().unwrap();
    let asked = std::time::Instant::now();
    let reply = app
        .post(&format!("/me/webhooks/{hook}/test"))
        .as_user(&victim)
        .send()
        .await;
    assert_eq!(reply.status.as_u16(), 202);
    while fast.received().is_empty() {
        assert!(
            asked.elapsed() < Duration::from_secs(30),
            "the other account's test event never arrived"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let took = asked.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "another account's delivery waited {took:?} behind the slow endpoints"
    );
    // The attacker never held more than its share of the worker at once.
    assert!(
        slow.most_at_once() <= app.config.delivery.per_owner,
        "{} of the attacker's requests at once",
        slow.most_at_once()
    );
    // A stop gives up what is in flight within its grace; the attacker's deliveries wait to
    // be sent again (none was lost, none counted an attempt it did not finish).
    let stopping = std::time::Instant::now();
    stop.cancel();
    worker.await.unwrap();
    assert!(
        stopping.elapsed() < Duration::from_secs(5),
        "the worker took {:?} to stop",
        stopping.elapsed()
    );
    let unfinished: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'sending')",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        unfinished, 10,
        "the attacker's test events wait to be sent again"
    );
}

#[tokio::test]
async fn discord_and_slack_bodies_ping_nobody_and_show_no_live_link() {
    let app = insecure_app().await;
    let receiver = Receiver::start().await;
    let players = [
        app.register("chat_anna").await,
        app.register("chat_bert").await,
        app.register("chat_cleo").await,
    ];
    let mut formats = Vec::new();
    for format in ["discord", "slack"] {
        let reply = app
            .post("/me/webhooks")
            .as_user(&players[0])
            .json(&json!({"url": format!("{}/{format}", receiver.url), "event_types": ["notice.chat_mention"], "format": format}))
            .send()
            .await;
        assert_eq!(reply.status.as_u16(), 201, "{}", reply.text);
        formats.push(format);
    }
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    app.post(&format!("/games/{game}/chat/table/messages"))
        .as_user(&players[1])
        .key("ping")
        .json(&json!({"text": "@chat_anna @everyone @here <@&123> <#456> <!channel> [your bank](https://evil.example/login) https://evil.example/x"}))
        .send()
        .await;
    run_worker(&app).await;
    let received = receiver.received();
    let body = |format: &str| -> Value {
        let request = received
            .iter()
            .find(|r| {
                let body: Value = serde_json::from_str(&r.body).unwrap();
                body.get(if format == "discord" {
                    "content"
                } else {
                    "text"
                })
                .is_some()
            })
            .unwrap_or_else(|| panic!("no {format} body: {received:?}"));
        serde_json::from_str(&request.body).unwrap()
    };
    let discord = body("discord");
    assert_eq!(discord["allowed_mentions"], json!({"parse": []}));
    assert_eq!(discord["flags"], 4, "embeds suppressed");
    let content = discord["content"].as_str().unwrap();
    let slack = body("slack");
    assert_eq!(slack["unfurl_links"], false);
    let text = slack["text"].as_str().unwrap();
    for line in [content, text] {
        assert!(line.contains("mentioned you"), "{line}");
        assert!(!line.contains("https://evil"), "a live link: {line}");
        assert!(line.contains("evil[.]example"), "{line}");
        // The game's own link is the only link.
        assert_eq!(line.matches("://").count(), 1, "{line}");
    }
    assert!(
        !content.contains("<@&123>") && !content.contains("](https"),
        "{content}"
    );
    assert!(
        !text.contains("<!channel>") && !text.contains("<#456>"),
        "{text}"
    );
    assert_eq!(formats.len(), 2);
}
