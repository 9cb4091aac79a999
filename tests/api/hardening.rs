//! Hardening: security headers on every answer, and client errors kept out of the
//! warning and error logs.

use crate::support::*;
use kontor::http::middleware::headers::{API_CSP, DOCS_CSP};
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn assert_headers(what: &str, headers: &reqwest::header::HeaderMap, csp: &str) {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    assert_eq!(get("x-content-type-options"), Some("nosniff"), "{what}");
    assert_eq!(get("referrer-policy"), Some("no-referrer"), "{what}");
    assert_eq!(get("content-security-policy"), Some(csp), "{what}");
}

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let app = spawn_app().await;
    let user = app.register("anna").await;
    let ok = app.get("/me").as_user(&user).send().await;
    ok.assert_ok();
    assert_headers("an API answer", &ok.headers, API_CSP);
    let missing = app
        .get(&format!("/games/{}", uuid::Uuid::now_v7()))
        .as_user(&user)
        .send()
        .await;
    missing.assert_problem(404, "game_not_found");
    assert_headers("a 404 problem", &missing.headers, API_CSP);
    // A problem made by the fallback (no route), and one made before any handler (no token).
    let nowhere = app.get("/nowhere").as_user(&user).send().await;
    nowhere.assert_problem(404, "not_found");
    assert_headers("an unrouted 404", &nowhere.headers, API_CSP);
    let anonymous = app.post("/games").json(&json!({})).send().await;
    assert_eq!(anonymous.status, 401);
    assert_headers("a 401", &anonymous.headers, API_CSP);
    for path in ["/docs/", "/docs/swagger-initializer.js"] {
        let docs = app
            .client
            .get(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(docs.status(), 200, "{path}");
        assert_headers(path, docs.headers(), DOCS_CSP);
    }
}

/// A `kontor serve` process whose log lines are collected; killed when dropped.
struct Logged {
    child: Child,
    base: String,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Logged {
    /// Waits (bounded) for a log line that `find` accepts; returns its index.
    async fn wait_for(&self, find: impl Fn(&str) -> bool) -> usize {
        for _ in 0..400 {
            if let Some(at) = self.lines.lock().unwrap().iter().position(|l| find(l)) {
                return at;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!(
            "no such log line in:\n{}",
            self.lines.lock().unwrap().join("\n")
        );
    }
}

// The child is owned by `Logged` at once, and its `Drop` kills and reaps it.
#[allow(clippy::zombie_processes)]
async fn serve_logged(database: &str) -> Logged {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kontor"))
        .arg("serve")
        .env("KONTOR_DATABASE_URL", pg().url(database))
        .env("KONTOR_BIND", format!("127.0.0.1:{port}"))
        .env("KONTOR_JWT_SECRET", JWT_SECRET)
        .env("KONTOR_WORKERS", "false")
        .env("KONTOR_DATA_DIR", scratch_dir(&format!("logs-{database}")))
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    for pipe in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let lines = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
    }
    let base = format!("http://127.0.0.1:{port}");
    for _ in 0..200 {
        if reqwest::get(format!("{base}/api/v1/kinds"))
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            return Logged { child, base, lines };
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("kontor serve did not come up on {base}");
}

fn is_loud(line: &str) -> bool {
    line.contains(" WARN ") || line.contains(" ERROR ")
}

#[tokio::test]
async fn client_errors_are_not_logged_as_warnings_and_server_errors_are() {
    let app = spawn_app().await;
    let user = app.register("anna").await;
    let server = serve_logged(&app.database).await;
    let client = reqwest::Client::new();
    let url = |path: &str| format!("{}/api/v1{path}", server.base);

    // A 404, a 409 and a 422.
    let missing = client
        .get(url(&format!("/games/{}", uuid::Uuid::now_v7())))
        .bearer_auth(&user.token)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let again =
        json!({"username": "anna", "email": "other@example.org", "password": "secret-anna-123"});
    let taken = client
        .post(url("/auth/register"))
        .json(&again)
        .send()
        .await
        .unwrap();
    assert_eq!(taken.status(), 409);
    let garbage = client
        .post(url("/games/import"))
        .bearer_auth(&user.token)
        .header("content-type", "application/x-ndjson")
        .body("{\"hello\": 1}\n")
        .send()
        .await
        .unwrap();
    assert_eq!(garbage.status(), 422);

    // Then a 500: API tokens are looked up in a table that is gone.
    sqlx::query("ALTER TABLE api_tokens RENAME TO api_tokens_gone")
        .execute(&app.pool)
        .await
        .unwrap();
    let failed = client
        .get(url("/me"))
        .bearer_auth("kontor_pat_0000000000000000")
        .send()
        .await
        .unwrap();
    assert_eq!(failed.status(), 500);

    // The log is in order: everything before the 500's ERROR line is quiet.
    let at = server.wait_for(|l| l.contains(" ERROR ")).await;
    let lines = server.lines.lock().unwrap();
    let loud: Vec<&String> = lines[..at].iter().filter(|l| is_loud(l)).collect();
    assert!(
        loud.is_empty(),
        "client errors were logged loudly: {loud:#?}"
    );
    assert!(lines[at].contains("api_tokens"), "{}", lines[at]);
}
