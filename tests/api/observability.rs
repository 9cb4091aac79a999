//! Observability: client addresses behind trusted proxies, request ids (echoed, in problems
//! and in the log), JSON logs, and the Prometheus metrics with their real values.

use crate::secrets::LoggedServer;
use crate::support::*;
use serde_json::{Value, json};
use std::collections::HashMap;

fn settings(pairs: &[(&str, &str)]) -> AppOptions {
    AppOptions {
        settings: pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

/// A failed login from whatever `X-Forwarded-For` says (if anything); each a new account,
/// so only the per-address limit can bite.
async fn login_from(app: &TestApp, forwarded_for: Option<&str>, account: &str) -> Reply {
    let call = app
        .post("/auth/login")
        .json(&json!({"username": account, "password": "guess guess"}));
    match forwarded_for {
        Some(xff) => call.header("X-Forwarded-For", xff).send().await,
        None => call.send().await,
    }
}

#[tokio::test]
async fn a_trusted_proxy_names_the_client_the_login_throttle_counts() {
    let app = spawn_app_with(settings(&[
        ("KONTOR_TRUSTED_PROXIES", "127.0.0.1/32"),
        ("KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS", "2"),
    ]))
    .await;
    // Two failures from one forwarded client...
    login_from(&app, Some("198.51.100.7"), "ghost1")
        .await
        .assert_problem(401, "invalid_credentials");
    // ...the second with something the client prepended itself, which changes nothing: the
    // right-most address that is not a trusted proxy is the client.
    login_from(&app, Some("203.0.113.1, 198.51.100.7"), "ghost2")
        .await
        .assert_problem(401, "invalid_credentials");
    login_from(&app, Some("203.0.113.2, 198.51.100.7"), "ghost3")
        .await
        .assert_problem(429, "rate_limited");
    // Another client behind the same proxy has its own count, and so has the proxy itself.
    login_from(&app, Some("198.51.100.8"), "ghost4")
        .await
        .assert_problem(401, "invalid_credentials");
    login_from(&app, None, "ghost5")
        .await
        .assert_problem(401, "invalid_credentials");
    // What was counted, by address: the forwarded clients and the proxy, nothing prepended.
    let counted: Vec<(String, i32)> = sqlx::query_as(
        "SELECT subject, failures FROM login_failures WHERE subject LIKE 'ip:%' ORDER BY subject",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    let counted: Vec<(&str, i32)> = counted.iter().map(|(s, n)| (s.as_str(), *n)).collect();
    assert_eq!(
        counted,
        [
            ("ip:127.0.0.1", 1),
            ("ip:198.51.100.7", 2),
            ("ip:198.51.100.8", 1)
        ]
    );
}

#[tokio::test]
async fn a_forwarded_address_from_an_untrusted_peer_is_ignored() {
    let app = spawn_app_with(settings(&[
        // A proxy is trusted, but not the address the test connects from.
        ("KONTOR_TRUSTED_PROXIES", "10.0.0.0/8"),
        ("KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS", "2"),
    ]))
    .await;
    // Each attempt claims another client: all of them are 127.0.0.1 all the same.
    login_from(&app, Some("198.51.100.1"), "ghost1")
        .await
        .assert_problem(401, "invalid_credentials");
    login_from(&app, Some("198.51.100.2"), "ghost2")
        .await
        .assert_problem(401, "invalid_credentials");
    login_from(&app, Some("198.51.100.3"), "ghost3")
        .await
        .assert_problem(429, "rate_limited");
    login_from(&app, None, "ghost4")
        .await
        .assert_problem(429, "rate_limited");
}

fn request_id(reply: &Reply) -> String {
    reply
        .headers
        .get("x-request-id")
        .unwrap_or_else(|| panic!("no X-Request-Id: {reply:?}"))
        .to_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn request_ids_are_echoed_and_put_in_every_problem() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    // A sane id is kept and echoed, on success...
    let ok = app
        .get("/kinds")
        .header("X-Request-Id", "abc-123")
        .send()
        .await;
    ok.assert_ok();
    assert_eq!(request_id(&ok), "abc-123");
    // ...and on problems of every origin: a handler's, the method check's, the query policy's,
    // the fallback's for an unknown path, the authentication's.
    let game = uuid::Uuid::now_v7();
    let problems = [
        (
            app.get(&format!("/games/{game}")).as_user(&anna),
            404,
            "game_not_found",
        ),
        (app.delete("/kinds"), 405, "method_not_allowed"),
        (app.get("/kinds?limt=5"), 400, "invalid_parameter"),
        (app.get("/no/such/thing"), 404, "not_found"),
        (app.get("/me"), 401, "unauthenticated"),
        (
            app.post("/games").as_user(&anna).json(&json!({"kind": 1})),
            400,
            "invalid_body",
        ),
    ];
    for (i, (call, status, code)) in problems.into_iter().enumerate() {
        let id = format!("req-{i}");
        let reply = call.header("X-Request-Id", &id).send().await;
        let body = reply.assert_problem(status, code);
        assert_eq!(body["request_id"], id.as_str(), "{}", reply.text);
        assert_eq!(request_id(&reply), id);
    }
    // Without one, or with one that is not sane, the server makes one, used the same way.
    for bad in [None, Some("x".repeat(129)), Some("two words".to_string())] {
        let call = app.get("/me");
        let reply = match &bad {
            Some(bad) => call.header("X-Request-Id", bad).send().await,
            None => call.send().await,
        };
        let body = reply.assert_problem(401, "unauthenticated").clone();
        let made = request_id(&reply);
        assert!(Some(&made) != bad.as_ref() && !made.is_empty());
        assert_eq!(body["request_id"], made.as_str());
    }
    // Two requests, two ids.
    let (a, b) = (
        app.get("/kinds").send().await,
        app.get("/kinds").send().await,
    );
    assert_ne!(request_id(&a), request_id(&b));
}

#[tokio::test]
async fn json_logs_carry_the_request_id_and_keep_the_password_out() {
    let app = spawn_app().await;
    let (server, base) = LoggedServer::start(
        &app,
        &[
            ("KONTOR_LOG_FORMAT", "json"),
            ("RUST_LOG", "info"),
            ("KONTOR_WORKERS", "false"),
            ("KONTOR_TRUSTED_PROXIES", "127.0.0.1"),
        ],
    )
    .await;
    let client = reqwest::Client::new();
    let kinds = client
        .get(format!("{base}/api/v1/kinds"))
        .header("X-Request-Id", "abc-123")
        .header("X-Forwarded-For", "203.0.113.5, 198.51.100.9")
        .header("X-Forwarded-Proto", "https")
        .header("X-Forwarded-Host", "kontor.example")
        .send()
        .await
        .unwrap();
    assert_eq!(kinds.status(), 200);
    assert_eq!(kinds.headers()["x-request-id"], "abc-123");
    let password = "Wrong-Horse-Battery-4711";
    let login = client
        .post(format!("{base}/api/v1/auth/login"))
        .header("X-Request-Id", "login-1")
        .json(&json!({"username": "nobody", "password": password}))
        .send()
        .await
        .unwrap();
    assert_eq!(login.status(), 401);

    let access_line = |id: &'static str| {
        move |log: &str| {
            log.lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .find(|line| line["target"] == "kontor::access" && line["span"]["request_id"] == id)
        }
    };
    let line = server.wait_for(access_line("abc-123")).await;
    assert_eq!(line["status"], 200, "{line}");
    assert_eq!(line["level"], "INFO", "{line}");
    assert_eq!(line["span"]["http.route"], "/api/v1/kinds", "{line}");
    assert_eq!(line["span"]["http.method"], "GET", "{line}");
    // The client behind the trusted proxy (this test), not what it claimed before that.
    assert_eq!(line["span"]["http.client_ip"], "198.51.100.9", "{line}");
    // And the scheme and host the trusted proxy was asked for.
    assert_eq!(line["span"]["http.scheme"], "https", "{line}");
    assert_eq!(line["span"]["http.host"], "kontor.example", "{line}");
    assert!(
        line["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
        "{line}"
    );
    assert!(line["timestamp"].is_string(), "{line}");
    let line = server.wait_for(access_line("login-1")).await;
    assert_eq!(line["status"], 401, "{line}");

    let log = server.text();
    assert!(!log.contains(password), "the password was logged:\n{log}");
    drop(server);

    // From a peer that is no trusted proxy, the forwarded headers are not believed.
    let (untrusting, base) = LoggedServer::start(
        &app,
        &[
            ("KONTOR_LOG_FORMAT", "json"),
            ("RUST_LOG", "info"),
            ("KONTOR_WORKERS", "false"),
        ],
    )
    .await;
    let kinds = client
        .get(format!("{base}/api/v1/kinds"))
        .header("X-Request-Id", "spoofed-1")
        .header("X-Forwarded-For", "203.0.113.5")
        .header("X-Forwarded-Proto", "https")
        .header("X-Forwarded-Host", "kontor.example")
        .header(
            "Forwarded",
            "for=203.0.113.5;proto=https;host=kontor.example",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(kinds.status(), 200);
    let line = untrusting.wait_for(access_line("spoofed-1")).await;
    assert_eq!(line["span"]["http.client_ip"], "127.0.0.1", "{line}");
    assert_eq!(line["span"]["http.scheme"], "http", "{line}");
    let host = base.strip_prefix("http://").unwrap();
    assert_eq!(line["span"]["http.host"], host, "{line}");
    // One JSON object per line, every line.
    for line in log.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            serde_json::from_str::<Value>(line).is_ok_and(|v| v.is_object()),
            "not a JSON line: {line}"
        );
    }
}

/// The samples of a Prometheus text exposition: `name{labels}` → value.
fn samples(text: &str) -> HashMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            Some((series.to_string(), value.parse().ok()?))
        })
        .collect()
}

/// The sum of every series of `name` whose labels include each of `labels` (`k="v"`).
fn total(samples: &HashMap<String, f64>, name: &str, labels: &[&str]) -> f64 {
    samples
        .iter()
        .filter(|(series, _)| {
            let (series_name, rest) = series.split_once('{').unwrap_or((series, ""));
            series_name == name && labels.iter().all(|l| rest.contains(l))
        })
        .map(|(_, v)| v)
        .sum()
}

async fn scrape(app: &TestApp, token: Option<&str>) -> reqwest::Response {
    let call = app.client.get(format!("{}/metrics", app.address));
    match token {
        Some(token) => call.bearer_auth(token),
        None => call,
    }
    .send()
    .await
    .unwrap()
}

#[tokio::test]
async fn metrics_count_the_real_work_and_are_served_only_as_configured() {
    const TOKEN: &str = "metrics-token-for-tests";
    let app = spawn_app_with(settings(&[
        ("KONTOR_METRICS_TOKEN", TOKEN),
        ("KONTOR_METRICS_BIND", "127.0.0.1:0"),
    ]))
    .await;
    let players = vec![
        app.register("anna").await,
        app.register("bert").await,
        app.register("cleo").await,
    ];
    let game = app.start_game("steel-driver", json!({}), &players).await;
    const MOVES: usize = 6;
    crate::bots::play(&app, game, &players, crate::bots::steel_driver, 3, MOVES).await;
    // A live stream open while scraping.
    let stream = app
        .client
        .get(app.url(&format!("/games/{game}/stream")))
        .bearer_auth(&players[0].token)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);

    // Without the token, or with another: 401, as a problem.
    for token in [None, Some("not-the-token"), Some(players[0].token.as_str())] {
        let refused = read(scrape(&app, token).await).await;
        let code = if token.is_some() {
            "invalid_token"
        } else {
            "unauthenticated"
        };
        refused.assert_problem(401, code);
    }
    // The scheme's name is case-insensitive (RFC 9110): `bearer` is Bearer too.
    for scheme in ["bearer", "BEARER"] {
        let scraped = app
            .client
            .get(format!("{}/metrics", app.address))
            .header("authorization", format!("{scheme} {TOKEN}"))
            .send()
            .await
            .unwrap();
        assert_eq!(scraped.status(), 200, "{scheme}");
    }
    let scraped = scrape(&app, Some(TOKEN)).await;
    assert_eq!(scraped.status(), 200);
    assert!(
        scraped.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let text = scraped.text().await.unwrap();
    let all = samples(&text);
    let at_least = |name: &str, labels: &[&str], min: f64| {
        let value = total(&all, name, labels);
        assert!(value >= min, "{name}{labels:?} = {value} < {min}:\n{text}");
    };
    // The metrics are the process's (every test server in it counts into them): at least
    // what this test did.
    let moves = MOVES as f64;
    at_least(
        "kontor_actions_appended_total",
        &["kind=\"steel-driver\""],
        moves,
    );
    at_least(
        "kontor_http_requests_total",
        &[
            "route=\"/api/v1/games/{game_id}/actions\"",
            "method=\"POST\"",
            "status=\"200\"",
        ],
        moves,
    );
    at_least(
        "kontor_http_requests_total",
        &["route=\"/api/v1/auth/register\"", "status=\"201\""],
        3.0,
    );
    at_least(
        "kontor_http_request_duration_seconds_count",
        &["route=\"/api/v1/games/{game_id}/actions\""],
        moves,
    );
    at_least(
        "kontor_http_request_duration_seconds_bucket",
        &["route=\"/api/v1/games/{game_id}/actions\"", "le=\"+Inf\""],
        moves,
    );
    at_least("kontor_group_commit_batch_size_count", &[], moves);
    at_least("kontor_db_pool_acquire_wait_seconds_count", &[], moves);
    at_least("kontor_live_streams_open", &["kind=\"game\""], 1.0);
    at_least("kontor_db_pool_connections", &["state=\"idle\""], 0.0);
    assert!(
        all.keys()
            .any(|k| k.starts_with("kontor_db_pool_connections{state=\"used\"")),
        "{text}"
    );
    // The start and the turns queued mail (no worker runs here to send it).
    let queued: i64 = sqlx::query_scalar("SELECT count(*) FROM mail_outbox")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(queued > 0);
    at_least("kontor_mail_outbox_due", &[], 1.0);
    assert!(
        all.contains_key("kontor_mail_oldest_due_age_seconds"),
        "{text}"
    );
    assert!(all.contains_key("kontor_deadlines_due"), "{text}");
    // No raw path becomes a label.
    assert!(!text.contains(&game.to_string()), "{text}");
    drop(stream);

    // The separate address serves it without a token, and nothing else.
    let bind = app.config.metrics_bind.expect("a metrics address");
    assert_ne!(bind.port(), 0);
    let separate = reqwest::get(format!("http://{bind}/metrics"))
        .await
        .unwrap();
    assert_eq!(separate.status(), 200);
    assert!(separate.headers().contains_key("x-request-id"));
    let text = separate.text().await.unwrap();
    assert!(
        total(&samples(&text), "kontor_actions_appended_total", &[]) >= moves,
        "{text}"
    );
    let other = read(
        reqwest::get(format!("http://{bind}/api/v1/kinds"))
            .await
            .unwrap(),
    )
    .await;
    other.assert_problem(404, "not_found");
}

#[tokio::test]
async fn timeouts_and_due_deadlines_are_counted() {
    let app = spawn_app_with(settings(&[("KONTOR_METRICS_TOKEN", "t0ken")])).await;
    let players = vec![
        app.register("dora").await,
        app.register("emil").await,
        app.register("fred").await,
    ];
    let game = app
        .start_game_with(
            json!({"kind": "steel-driver", "time_control": {"seconds_per_move": 60}}),
            &players,
        )
        .await;
    let timeouts = |text: &str| total(&samples(text), "kontor_timeouts_applied_total", &[]);
    let before = scrape(&app, Some("t0ken")).await.text().await.unwrap();
    app.clock.advance(std::time::Duration::from_secs(61));
    let due = scrape(&app, Some("t0ken")).await.text().await.unwrap();
    assert!(
        total(&samples(&due), "kontor_deadlines_due", &[]) >= 1.0,
        "{game}: {due}"
    );
    assert_eq!(app.run_deadlines().await.timeouts, 1);
    let after = scrape(&app, Some("t0ken")).await.text().await.unwrap();
    assert!(timeouts(&after) > timeouts(&before), "{after}");
}

#[tokio::test]
async fn without_a_metrics_setting_there_are_no_metrics_here() {
    let app = spawn_app().await;
    let reply = read(scrape(&app, Some("anything")).await).await;
    reply.assert_problem(404, "metrics_not_served");
}

#[tokio::test]
async fn a_taken_metrics_address_stops_the_server_from_starting() {
    let app = spawn_app().await;
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let settings: HashMap<String, String> = [
        ("KONTOR_BIND", "127.0.0.1:0"),
        ("KONTOR_JWT_SECRET", JWT_SECRET),
        ("KONTOR_WORKERS", "false"),
        ("KONTOR_METRICS_BIND", address.as_str()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .chain([(
        "KONTOR_DATA_DIR".to_string(),
        app.config.data_dir.display().to_string(),
    )])
    .collect();
    let config = kontor::config::Config::from_map(&settings).unwrap();
    let error = match kontor::app::Application::build(config, app.pool.clone()) {
        Ok(_) => panic!("a server started on a taken metrics address"),
        Err(error) => error.to_string(),
    };
    assert!(
        error.contains(&format!("cannot listen on {address}")),
        "{error}"
    );
}

#[tokio::test]
async fn a_fresh_server_shows_every_known_series_its_build_and_its_process() {
    // A process of its own: this one's recorder has counted the other tests' work.
    let app = spawn_app().await;
    let free_port = || {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    };
    let metrics = format!("127.0.0.1:{}", free_port());
    let _server = tokio::process::Command::new(env!("CARGO_BIN_EXE_kontor"))
        .arg("serve")
        .env("KONTOR_DATABASE_URL", app.database_url())
        .env("KONTOR_DATA_DIR", &app.config.data_dir)
        .env("KONTOR_BIND", format!("127.0.0.1:{}", free_port()))
        .env("KONTOR_WORKERS", "false")
        .env("KONTOR_METRICS_BIND", &metrics)
        .env("RUST_LOG", "warn")
        .env_remove("KONTOR_CONFIG")
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let text = loop {
        if let Ok(answer) = reqwest::get(format!("http://{metrics}/metrics")).await
            && answer.status() == 200
        {
            break answer.text().await.unwrap();
        }
        assert!(std::time::Instant::now() < deadline, "no metrics served");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let all = samples(&text);
    // Nothing happened yet, and every series an alert may name is there, at zero.
    for series in [
        "kontor_actions_appended_total{kind=\"steel-driver\"}",
        "kontor_actions_appended_total{kind=\"flying-dutchman\"}",
        "kontor_mails_sent_total{kind=\"your_turn\"}",
        "kontor_mails_sent_total{kind=\"verify_email\"}",
        "kontor_mails_failed_total{kind=\"digest\",final=\"true\"}",
        "kontor_mails_failed_total{kind=\"password_reset\",final=\"false\"}",
        "kontor_live_streams_open{kind=\"game\"}",
        "kontor_live_streams_open{kind=\"user\"}",
        "kontor_timeouts_applied_total",
        "kontor_db_unavailable_total",
        "kontor_replica_fallbacks_total{reason=\"lagging\"}",
        "kontor_replica_fallbacks_total{reason=\"unreachable\"}",
        "kontor_replica_fallbacks_total{reason=\"own_write\"}",
        "kontor_group_commit_batch_size_count",
        "kontor_db_pool_acquire_wait_seconds_count",
    ] {
        assert_eq!(all.get(series), Some(&0.0), "{series}:\n{text}");
    }
    // The build: this binary's version and commit.
    let build = format!(
        "kontor_build_info{{version=\"{}\",commit=\"{}\"}}",
        env!("CARGO_PKG_VERSION"),
        kontor::telemetry::COMMIT
    );
    assert_eq!(all.get(&build), Some(&1.0), "{build}:\n{text}");
    let head = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    if let Ok(head) = head
        && head.status.success()
    {
        let head = String::from_utf8_lossy(&head.stdout);
        assert!(
            head.starts_with(kontor::telemetry::COMMIT),
            "built from {head}, labelled {}",
            kontor::telemetry::COMMIT
        );
    }
    // The process's own metrics.
    for series in ["process_resident_memory_bytes", "process_threads"] {
        assert!(
            all.get(series).is_some_and(|v| *v > 0.0),
            "{series}:\n{text}"
        );
    }
    assert!(all.contains_key("process_cpu_seconds_total"), "{text}");
    // The gauges read from the database say how to aggregate them across instances.
    for gauge in ["kontor_mail_outbox_due", "kontor_deadlines_due"] {
        let help = text
            .lines()
            .find(|line| line.starts_with(&format!("# HELP {gauge} ")))
            .unwrap_or_else(|| panic!("no help for {gauge}"));
        assert!(help.contains("aggregate with max, not sum"), "{help}");
    }
}
