//! No password, token, refresh token, unsubscribe signature or SMTP password reaches the
//! log, even at `RUST_LOG=debug` and on failing requests, while the requests are logged.

use crate::support::*;
use kontor::service::delivery::mail::unsubscribe::UnsubscribeScope;
use serde_json::json;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use uuid::Uuid;

/// A `kontor serve` process on the test's database whose stdout and stderr are collected.
pub(crate) struct LoggedServer {
    child: tokio::process::Child,
    log: Arc<Mutex<String>>,
}

impl LoggedServer {
    pub(crate) async fn start(app: &TestApp, env: &[(&str, &str)]) -> (Self, String) {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_kontor"))
            .arg("serve")
            .env("KONTOR_DATABASE_URL", app.database_url())
            .env("KONTOR_BIND", "127.0.0.1:0")
            .env("KONTOR_JWT_SECRET", JWT_SECRET)
            .env("KONTOR_DATA_DIR", &app.config.data_dir)
            .env("RUST_LOG", "debug")
            .env("NO_COLOR", "1")
            .env_remove("KONTOR_CONFIG")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        // Drain both pipes all along: a full pipe would stall the server's logging.
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        for mut pipe in [
            Box::new(stdout) as Box<dyn tokio::io::AsyncRead + Unpin + Send>,
            Box::new(stderr),
        ] {
            let log = log.clone();
            tokio::spawn(async move {
                let mut buffer = vec![0u8; 16 * 1024];
                while let Ok(n) = pipe.read(&mut buffer).await {
                    if n == 0 {
                        break;
                    }
                    log.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buffer[..n]));
                }
            });
        }
        let server = LoggedServer { child, log };
        // The server says where it listens (it was given port 0).
        let needle = "API docs at http://127.0.0.1:";
        let port = server
            .wait_for(|log| {
                let rest = &log[log.find(needle)? + needle.len()..];
                let end = rest.find('/')?;
                rest[..end].parse::<u16>().ok()
            })
            .await;
        (server, format!("http://127.0.0.1:{port}"))
    }

    pub(crate) fn text(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Polls the log until `found` finds something in it (bounded; panics with the log).
    pub(crate) async fn wait_for<T>(&self, found: impl Fn(&str) -> Option<T>) -> T {
        for _ in 0..600 {
            if let Some(value) = found(&self.text()) {
                return value;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("not found in the server's log:\n{}", self.text());
    }
}

#[tokio::test]
async fn secrets_never_reach_the_log_but_the_requests_do() {
    let app = spawn_app().await;
    let smtp_password = "smtp-Pass-3141592";
    let smtp_url = format!("smtp://mailer:{smtp_password}@127.0.0.1:9?tls=required");
    let (mut server, base) = LoggedServer::start(
        &app,
        &[("KONTOR_WORKERS", "true"), ("KONTOR_SMTP_URL", &smtp_url)],
    )
    .await;
    let logged = TestApp {
        address: base,
        pool: app.pool.clone(),
        client: reqwest::Client::new(),
        database: app.database.clone(),
        config: app.config.clone(),
        committer: app.committer.clone(),
        server: None,
        // Not that server's clock: another process runs on the system clock. Never moved.
        clock: kontor::time::TestClock::new(),
        uploads: Default::default(),
    };

    // A login with a password, a failed one, a refresh (and, at the end, a reused one).
    let anna = logged.register("anna").await;
    let password = format!("{}-password", anna.name);
    let wrong_password = "Wrong-Password-2718281";
    logged
        .post("/auth/login")
        .json(&json!({"username": "anna", "password": wrong_password}))
        .send()
        .await
        .assert_problem(401, "invalid_credentials");
    let refreshed = logged
        .post("/auth/refresh")
        .json(&json!({"refresh_token": anna.refresh}))
        .send()
        .await;
    let new_refresh = refreshed.assert_ok()["refresh_token"]
        .as_str()
        .unwrap()
        .to_string();
    let api_token = logged.api_token(&anna.token, &["game:read"]).await;

    // Failing requests with tokens in the query (as browsers' EventSource sends them) and in
    // the Authorization header.
    let missing = Uuid::new_v4();
    let forged = format!("{}x", anna.token);
    for token in [&anna.token, &api_token, &forged] {
        let reply = logged
            .client
            .get(logged.url(&format!(
                "/games/{missing}/stream?access_token={token}&last_event_id=x"
            )))
            .send()
            .await
            .unwrap();
        assert!(reply.status().is_client_error(), "{}", reply.status());
    }
    logged
        .get(&format!("/games/{missing}"))
        .as_user(&anna)
        .send()
        .await
        .assert_problem(404, "game_not_found");
    logged
        .get(&format!("/games/{missing}"))
        .token(&forged)
        .send()
        .await
        .assert_problem(401, "invalid_token");

    // Unsubscribe links: a genuine one (its page, then a bad one-click body) and a forged one.
    let key = kontor::auth::derive_key(
        JWT_SECRET.as_bytes(),
        kontor::service::delivery::mail::unsubscribe::PURPOSE,
    );
    let genuine =
        kontor::service::delivery::mail::unsubscribe::sign(&key, anna.id, UnsubscribeScope::All);
    let signature = genuine.rsplit_once('.').unwrap().1.to_string();
    let bad = format!("{}.all.{}", anna.id.simple(), "A".repeat(signature.len()));
    let page = logged
        .client
        .get(logged.url(&format!("/unsubscribe?token={genuine}")))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let refused = logged
        .client
        .post(logged.url(&format!("/unsubscribe?token={genuine}")))
        .body("List-Unsubscribe=No")
        .send()
        .await
        .unwrap();
    read(refused).await.assert_problem(400, "invalid_body");
    let forged_link = logged
        .client
        .get(logged.url(&format!("/unsubscribe?token={bad}")))
        .send()
        .await
        .unwrap();
    read(forged_link)
        .await
        .assert_problem(400, "invalid_unsubscribe_token");
    logged.get("/me").token(&api_token).send().await.assert_ok();
    // The spent refresh token, reused past the grace (last: that ends anna's login and its
    // access token).
    crate::accounts::age_rotations(&logged, "1 minute").await;
    logged
        .post("/auth/refresh")
        .json(&json!({"refresh_token": anna.refresh}))
        .send()
        .await
        .assert_problem(401, "invalid_token");

    // The failing requests are logged (their paths appear), with the secrets masked.
    server
        .wait_for(|log| {
            (log.contains("/api/v1/unsubscribe?token=***")
                && log.contains(&format!(
                    "/api/v1/games/{missing}/stream?access_token=***&last_event_id=x"
                ))
                && log.contains("/api/v1/auth/refresh"))
            .then_some(())
        })
        .await;
    server.child.start_kill().unwrap();
    let _ = server.child.wait().await;
    let log = server.text();
    let jwt_signature = anna.token.rsplit_once('.').unwrap().1;
    for (what, secret) in [
        ("the password", password.as_str()),
        ("a wrong password", wrong_password),
        ("the access token's signature", jwt_signature),
        ("the refresh token", anna.refresh.as_str()),
        ("the new refresh token", new_refresh.as_str()),
        ("the API token", api_token.as_str()),
        ("the unsubscribe signature", signature.as_str()),
        ("the forged unsubscribe link", bad.as_str()),
        ("the SMTP password", smtp_password),
        ("the JWT secret", JWT_SECRET),
    ] {
        assert!(
            !log.contains(secret),
            "{what} ({secret}) is in the server's log:\n{log}"
        );
    }
    // The SMTP server is still named, without its credentials.
    assert!(log.contains("smtp://127.0.0.1:9"), "{log}");
}
