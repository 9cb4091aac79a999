//! Uploaded exports (`POST /verify`, `POST /games/import`): how many are checked at once, per
//! user and on the server (429 `uploads_busy` beyond, until a slot frees), and how many
//! games a user imports within a day (429 `import_limit_reached`).

use crate::support::*;
use std::collections::HashMap;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn golden() -> String {
    std::fs::read_to_string(format!(
        "{}/tests/golden/flying-dutchman-4p.ndjson",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn settings(pairs: &[(&str, &str)]) -> AppOptions {
    AppOptions {
        settings: pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
    }
}

async fn upload(app: &TestApp, path: &str, token: &str, export: &str) -> Reply {
    let response = app
        .client
        .post(app.url(path))
        .bearer_auth(token)
        .header("content-type", "application/x-ndjson")
        .body(export.to_string())
        .send()
        .await
        .unwrap();
    read(response).await
}

/// An upload whose body comes slowly: the head and the first half are sent, the rest when
/// the test says so (or never, when it is dropped).
struct SlowUpload {
    stream: TcpStream,
    rest: String,
}

impl SlowUpload {
    async fn start(app: &TestApp, token: &str, export: &str) -> Self {
        let address = app.address.strip_prefix("http://").unwrap();
        let mut stream = TcpStream::connect(address).await.unwrap();
        let (first, rest) = export.split_at(export.len() / 2);
        let head = format!(
            "POST /api/v1/verify HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/x-ndjson\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            export.len()
        );
        let held_before = app.uploads.in_progress();
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(first.as_bytes()).await.unwrap();
        // Its handler holds a slot from now on. Without the wait a quick upload sent next
        // could be handled first (on another of the server's threads), take the user's one
        // slot, and have this one refused.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while app.uploads.in_progress() <= held_before {
            assert!(
                std::time::Instant::now() < deadline,
                "the slow upload never took a slot"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Self {
            stream,
            rest: rest.to_string(),
        }
    }

    /// Sends the rest of the body; returns the answer's status line.
    async fn finish(mut self) -> String {
        self.stream.write_all(self.rest.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        self.stream.read_to_end(&mut answer).await.unwrap();
        let answer = String::from_utf8_lossy(&answer);
        answer.lines().next().unwrap_or_default().to_string()
    }
}

/// Uploads `export` until the answer is 429 (a slow upload's handler may not hold its slot
/// yet when the first tries go out); returns that answer.
async fn until_busy(app: &TestApp, token: &str, export: &str) -> Reply {
    // Bounded by time, not tries: on a loaded machine (the whole suite at once) the slow
    // upload's handler may start seconds after its head was sent.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        let reply = upload(app, "/verify", token, export).await;
        if reply.status == 429 {
            return reply;
        }
        reply.assert_ok();
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the uploads never filled the limit");
}

/// Uploads `export` until it is accepted (a freed slot may take a moment to be noticed).
async fn until_accepted(app: &TestApp, token: &str, export: &str) -> Reply {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        let reply = upload(app, "/verify", token, export).await;
        if reply.status != 429 {
            return reply;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the upload slot never freed");
}

fn assert_busy(reply: &Reply, says: &str) {
    let problem = reply.assert_problem(429, "uploads_busy");
    assert_eq!(reply.headers["retry-after"], "1", "{}", reply.text);
    assert_eq!(problem["retry_after"], 1);
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains(says), "{detail}");
}

#[tokio::test]
async fn uploads_beyond_the_caps_are_refused_until_a_slot_frees() {
    let app = spawn_app_with(settings(&[
        ("KONTOR_UPLOADS_MAX", "2"),
        ("KONTOR_UPLOADS_MAX_PER_USER", "1"),
        // The slow bodies are held for the whole test.
        ("KONTOR_BODY_TIMEOUT", "120"),
    ]))
    .await;
    let export = golden();
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;

    // Anna's slow upload holds her one slot: her next is refused, others' pass.
    let anna_slow = SlowUpload::start(&app, &anna.token, &export).await;
    let refused = until_busy(&app, &anna.token, &export).await;
    assert_busy(&refused, "per user");
    let verified = upload(&app, "/verify", &cleo.token, &export).await;
    assert_eq!(verified.assert_ok()["verified"], true, "{}", verified.text);

    // With Bert's, the server's two are held: Cleo, who has none, is refused too.
    let bert_slow = SlowUpload::start(&app, &bert.token, &export).await;
    let refused = until_busy(&app, &cleo.token, &export).await;
    assert_busy(&refused, "the server");
    // An import waits for the same slots.
    let import = upload(&app, "/games/import", &cleo.token, &export).await;
    assert_busy(&import, "the server");

    // Anna's body arrives: her upload is answered and its slot frees.
    let status = anna_slow.finish().await;
    assert!(status.contains("200"), "{status}");
    let verified = until_accepted(&app, &cleo.token, &export).await;
    assert_eq!(verified.assert_ok()["verified"], true, "{}", verified.text);

    // An abandoned upload frees its slot too.
    let anna_slow = SlowUpload::start(&app, &anna.token, &export).await;
    until_busy(&app, &cleo.token, &export).await;
    drop(bert_slow);
    until_accepted(&app, &cleo.token, &export).await.assert_ok();
    drop(anna_slow);
    until_accepted(&app, &anna.token, &export).await.assert_ok();
}

#[tokio::test]
async fn imports_per_user_and_day_are_limited_until_the_first_is_a_day_old() {
    let app = spawn_app_with(settings(&[("KONTOR_IMPORTS_PER_DAY", "2")])).await;
    let export = golden();
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    for _ in 0..2 {
        let imported = upload(&app, "/games/import", &anna.token, &export).await;
        assert_eq!(imported.status, 201, "{}", imported.text);
    }
    app.clock.advance(Duration::from_secs(3600));

    let before = app.fingerprint().await;
    let refused = upload(&app, "/games/import", &anna.token, &export).await;
    let problem = refused.assert_problem(429, "import_limit_reached");
    assert_eq!(problem["limit"], 2);
    // The first import is a day old in 23 hours.
    let wait: u64 = refused.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((23 * 3600 - 60..=23 * 3600).contains(&wait), "{wait}");
    assert_eq!(problem["retry_after"], wait);
    assert!(
        problem["detail"].as_str().unwrap().contains("23 hours"),
        "{}",
        refused.text
    );
    assert_eq!(
        app.fingerprint().await,
        before,
        "a refused import stored something"
    );
    // Verifying is not importing, and others import as before.
    upload(&app, "/verify", &anna.token, &export)
        .await
        .assert_ok();
    let imported = upload(&app, "/games/import", &bert.token, &export).await;
    assert_eq!(imported.status, 201, "{}", imported.text);

    // A day after the first two, two more may come in.
    app.clock.advance(Duration::from_secs(23 * 3600));
    for _ in 0..2 {
        let imported = upload(&app, "/games/import", &anna.token, &export).await;
        assert_eq!(imported.status, 201, "{}", imported.text);
    }
    upload(&app, "/games/import", &anna.token, &export)
        .await
        .assert_problem(429, "import_limit_reached");
}
