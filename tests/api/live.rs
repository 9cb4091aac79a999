//! Live updates: Server-Sent Events per game and per user, across server processes.

use crate::support::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uuid::Uuid;

/// One server-sent event.
#[derive(Debug, Clone)]
pub struct Sse {
    pub event: String,
    pub id: Option<i64>,
    /// The id as sent (`V`, or `V.C` once chat is covered).
    pub raw_id: Option<String>,
    pub data: Value,
}

/// An open event stream, read as it arrives.
pub struct Stream {
    response: reqwest::Response,
    buffer: String,
}

impl Stream {
    pub async fn open(base: &str, path: &str, token: &str, last_event_id: Option<i64>) -> Stream {
        let id = last_event_id.map(|id| id.to_string());
        Stream::open_from(base, path, token, id.as_deref()).await
    }

    /// A stream resumed from an id as the server sent it (`V` or `V.C`).
    pub async fn open_from(
        base: &str,
        path: &str,
        token: &str,
        last_event_id: Option<&str>,
    ) -> Stream {
        let opened = Stream::try_open_from(base, path, token, last_event_id).await;
        opened.unwrap_or_else(|status| panic!("the stream was answered {status}"))
    }

    /// A stream resumed from an id as the server sent it, or the status it was refused with.
    pub async fn try_open_from(
        base: &str,
        path: &str,
        token: &str,
        last_event_id: Option<&str>,
    ) -> Result<Stream, reqwest::StatusCode> {
        let client = reqwest::Client::new();
        let mut request = client
            .get(format!("{base}/api/v1{path}"))
            .bearer_auth(token);
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        let response = request.send().await.unwrap();
        if response.status() != 200 {
            return Err(response.status());
        }
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream")
        );
        Ok(Stream {
            response,
            buffer: String::new(),
        })
    }

    /// The next event (comments skipped), or `None` if nothing comes within `wait`.
    pub async fn next(&mut self, wait: Duration) -> Option<Sse> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = Sse {
                    event: "message".into(),
                    id: None,
                    raw_id: None,
                    data: Value::Null,
                };
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        event.event = v.trim().to_string();
                    } else if let Some(v) = line.strip_prefix("id:") {
                        event.id = v.trim().parse().ok();
                        event.raw_id = Some(v.trim().to_string());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim_start());
                    }
                }
                if data.is_empty() {
                    continue; // a comment (keep-alive)
                }
                event.data = serde_json::from_str(&data).unwrap();
                return Some(event);
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .ok()?;
            self.buffer
                .push_str(&String::from_utf8_lossy(&chunk.unwrap()?));
        }
    }

    /// Events until nothing more comes for `quiet`.
    pub async fn drain(&mut self, quiet: Duration) -> Vec<Sse> {
        let mut events = Vec::new();
        while let Some(event) = self.next(quiet).await {
            events.push(event);
        }
        events
    }
}

const WAIT: Duration = Duration::from_secs(10);

async fn three(app: &TestApp) -> (Uuid, Vec<User>) {
    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo"] {
        players.push(app.register(name).await);
    }
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    (game, players)
}

async fn pending_seat(app: &TestApp, game: Uuid, user: &User) -> (usize, i64) {
    let detail = app
        .get(&format!("/games/{game}"))
        .as_user(user)
        .send()
        .await;
    (
        detail.body["pending"][0].as_u64().unwrap() as usize,
        detail.body["version"].as_i64().unwrap(),
    )
}

#[tokio::test]
async fn a_game_stream_sends_the_snapshot_then_the_events_redacted_for_the_watcher() {
    let app = spawn_app().await;
    let (game, players) = three(&app).await;
    let (mover, version) = pending_seat(&app, game, &players[0]).await;
    let watcher = &players[(mover + 1) % 3];
    let mut stream = Stream::open(
        &app.address,
        &format!("/games/{game}/stream"),
        &watcher.token,
        None,
    )
    .await;
    let snapshot = stream.next(WAIT).await.unwrap();
    assert_eq!(snapshot.event, "snapshot");
    assert_eq!(snapshot.id, Some(version));
    assert_eq!(snapshot.data["version"], version);
    assert_eq!(
        snapshot.data["your_seat"].as_u64().unwrap() as usize,
        (mover + 1) % 3
    );

    // The mover draws two share cards: the mover sees which, the watcher only that they drew.
    let reply = app
        .act(&players[mover], game)
        .version(version)
        .send(&json!({"type": "use_kontor"}))
        .await;
    let own = reply.assert_ok()["events"][0].clone();
    assert!(own["data"]["drawn"].is_array(), "{own}");
    let seen = stream.next(WAIT).await.expect("the event arrives live");
    assert_eq!(seen.event, "event");
    assert_eq!(seen.id, Some(version + 1));
    assert_eq!(seen.data["type"], "kontor_used");
    assert!(
        seen.data["data"].get("drawn").is_none(),
        "the watcher must not see the cards: {:?}",
        seen.data
    );
}

#[tokio::test]
async fn a_reconnect_with_last_event_id_misses_nothing() {
    let app = spawn_app().await;
    let (game, players) = three(&app).await;
    let watcher = &players[0];
    let mut stream = Stream::open(
        &app.address,
        &format!("/games/{game}/stream"),
        &watcher.token,
        None,
    )
    .await;
    let since = stream.next(WAIT).await.unwrap().id.unwrap();
    drop(stream);
    // The game goes on while the watcher is away.
    crate::bots::play(&app, game, &players, crate::bots::flying_dutchman, 3, 6).await;
    let mut stream = Stream::open(
        &app.address,
        &format!("/games/{game}/stream"),
        &watcher.token,
        Some(since),
    )
    .await;
    let missed = stream.drain(Duration::from_millis(1500)).await;
    assert!(
        missed.iter().all(|e| e.event == "event"),
        "no snapshot on resume: {missed:?}"
    );
    let ids: Vec<i64> = missed.iter().map(|e| e.id.unwrap()).collect();
    let log = app
        .get(&format!("/games/{game}/events?after={since}&limit=1000"))
        .as_user(watcher)
        .send()
        .await;
    let expected: Vec<i64> = log.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(ids, expected, "every event after {since}, in order, once");
    for (sent, logged) in missed.iter().zip(log.body["items"].as_array().unwrap()) {
        assert_eq!(&sent.data, logged);
    }
    // And it goes on live from there.
    let (mover, version) = pending_seat(&app, game, watcher).await;
    crate::bots::play(&app, game, &players, crate::bots::flying_dutchman, 4, 1).await;
    let next = stream.next(WAIT).await.unwrap();
    assert_eq!(next.id, Some(version + 1), "after seat {mover} moved");
}

#[tokio::test]
async fn the_user_stream_tells_of_invitations_starts_turns_and_results() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let mut stream = Stream::open(&app.address, "/me/stream", &bert.token, None).await;
    let snapshot = stream.next(WAIT).await.unwrap();
    assert_eq!(snapshot.event, "snapshot");
    assert!(snapshot.data["your_turn"].as_array().unwrap().is_empty());

    let created = app
        .post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "steel-driver", "seats": 3}))
        .send()
        .await;
    let game = created.body["id"].as_str().unwrap().to_string();
    app.post(&format!("/games/{game}/invitations"))
        .as_user(&anna)
        .json(&json!({"username": "bert"}))
        .send()
        .await;
    let invited = stream.next(WAIT).await.unwrap();
    assert_eq!(invited.event, "invited");
    assert_eq!(invited.data["game_id"], game.as_str());
    assert_eq!(invited.data["by"], "anna");

    app.post(&format!("/games/{game}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    app.post(&format!("/games/{game}/join"))
        .as_user(&cleo)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    let started = stream.next(WAIT).await.unwrap();
    assert_eq!(started.event, "game_started");
    // Play until it is bert's turn: the stream says so.
    let players = [anna, bert.clone(), cleo];
    let game: Uuid = game.parse().unwrap();
    let mut told = 0;
    for step in 0..30 {
        let (seat, _) = pending_seat(&app, game, &players[0]).await;
        if seat == 1 {
            // Everything since the start: each notice once (a player is both among the
            // note's players and among those whose turn began).
            let events = stream.drain(Duration::from_millis(800)).await;
            told = events
                .iter()
                .filter(|e| e.event == "your_turn" && e.data["game_id"] == game.to_string())
                .count();
            let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
            assert!(
                !names.contains(&"game_started"),
                "told once of the start: {names:?}"
            );
            break;
        }
        crate::bots::play(&app, game, &players, crate::bots::steel_driver, step, 1).await;
    }
    assert_eq!(told, 1, "bert heard once that it was his turn");
}

#[tokio::test]
async fn watching_a_game_holds_back_its_turn_mail() {
    let app = spawn_app().await;
    let (game, players) = three(&app).await;
    let (mover, version) = pending_seat(&app, game, &players[0]).await;
    let next = (mover + 1) % 3;
    let mut stream = Stream::open(
        &app.address,
        &format!("/games/{game}/stream"),
        &players[next].token,
        None,
    )
    .await;
    stream.next(WAIT).await.unwrap();
    let watching: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM live_presence WHERE user_id = $1 AND game_id = $2",
    )
    .bind(players[next].id)
    .bind(game)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(watching, 1);
    app.act(&players[mover], game)
        .version(version)
        .send(&json!({"type": "use_smith"}))
        .await
        .assert_ok();
    let notifier =
        kontor::service::delivery::mail::worker::Notifier::new(app.pool.clone(), &app.config)
            .unwrap();
    notifier.deliver_due(50).await.unwrap();
    let (status, reason): (String, Option<String>) = sqlx::query_as(
        "SELECT status, skip_reason FROM mail_outbox WHERE user_id = $1 AND kind = 'your_turn'",
    )
    .bind(players[next].id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(
        (status.as_str(), reason.as_deref()),
        ("skipped", Some("watching"))
    );
    // Closing the stream ends the presence.
    drop(stream);
    for _ in 0..50 {
        let left: i64 = sqlx::query_scalar("SELECT count(*) FROM live_presence WHERE user_id = $1")
            .bind(players[next].id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
        if left == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the presence outlived the stream");
}

/// A `kontor serve` process on the test database; killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn serve(database: &str) -> Server {
    serve_with(database, &[], Stdio::null()).await
}

// The child is owned by `Server` at once, and its `Drop` kills and reaps it; clippy cannot
// see through the `Drop`.
#[allow(clippy::zombie_processes)]
async fn serve_with(database: &str, env: &[(&str, &str)], stderr: Stdio) -> Server {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let data = scratch_dir(&format!("live-{database}-{port}"));
    let child = Command::new(env!("CARGO_BIN_EXE_kontor"))
        .arg("serve")
        .env("KONTOR_DATABASE_URL", pg().url(database))
        .env("KONTOR_BIND", format!("127.0.0.1:{port}"))
        .env("KONTOR_JWT_SECRET", JWT_SECRET)
        .env("KONTOR_WORKERS", "false")
        .env("KONTOR_DATA_DIR", &data)
        .env("RUST_LOG", "warn")
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    for _ in 0..200 {
        if reqwest::get(format!("{base}/api/v1/kinds"))
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            return Server { child, base };
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("kontor serve did not come up on {base}");
}

#[tokio::test]
async fn an_action_through_one_server_process_reaches_a_stream_on_another() {
    let app = spawn_app().await;
    let (game, players) = three(&app).await;
    let one = serve(&app.database).await;
    let two = serve(&app.database).await;
    let (mover, version) = pending_seat(&app, game, &players[0]).await;
    let watcher = &players[(mover + 2) % 3];
    let mut stream = Stream::open(
        &two.base,
        &format!("/games/{game}/stream"),
        &watcher.token,
        None,
    )
    .await;
    assert_eq!(stream.next(WAIT).await.unwrap().id, Some(version));
    let reply = app
        .client
        .post(format!("{}/api/v1/games/{game}/actions", one.base))
        .bearer_auth(&players[mover].token)
        .header("Idempotency-Key", "across")
        .json(&json!({"version": version, "action": {"type": "use_smith"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let seen = stream
        .next(WAIT)
        .await
        .expect("the other process's stream hears of it");
    assert_eq!(seen.id, Some(version + 1));
    assert_eq!(seen.data["type"], "smith_used");
}

/// A test server with these settings (on top of the test defaults).
async fn spawn_with(settings: &[(&str, &str)]) -> TestApp {
    spawn_app_with(AppOptions {
        settings: settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    })
    .await
}

/// Opens a stream and returns the response whatever its status.
async fn try_open(base: &str, path: &str, token: &str, header: Option<&str>) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .get(format!("{base}/api/v1{path}"))
        .bearer_auth(token);
    if let Some(id) = header {
        request = request.header("Last-Event-ID", id);
    }
    request.send().await.unwrap()
}

/// The transactions committed in the test's database so far.
async fn commits(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT xact_commit FROM pg_stat_database WHERE datname = $1")
        .bind(&app.database)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// Waits (boundedly) until nobody watches `game` any more, i.e. every stream task has ended.
async fn wait_unwatched(pool: &sqlx::PgPool, game: Uuid) -> bool {
    for _ in 0..100 {
        let left: i64 = sqlx::query_scalar("SELECT count(*) FROM live_presence WHERE game_id = $1")
            .bind(game)
            .fetch_one(pool)
            .await
            .unwrap();
        if left == 0 {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Issue 10: a resume id past the log (or below it) started a catch-up that paged through
/// nonexistent versions forever, thousands of transactions a second, client or no client.
#[tokio::test]
async fn resume_ids_outside_the_log_are_refused() {
    let app = spawn_app().await;
    let (game, players) = three(&app).await;
    let watcher = &players[0];
    let (_, version) = pending_seat(&app, game, watcher).await;
    let path = format!("/games/{game}/stream");
    let before = app.fingerprint().await;
    let max = i64::MAX.to_string();
    let beyond = (version + 1).to_string();
    for header in [max.as_str(), "-1", beyond.as_str()] {
        let reply = read(try_open(&app.address, &path, &watcher.token, Some(header)).await).await;
        let body = reply.assert_problem(400, "invalid_resume_id");
        assert_eq!(body["version"], version, "{}", reply.text);
        assert!(
            body["detail"].as_str().unwrap().contains("between 0 and"),
            "{}",
            reply.text
        );
    }
    for query in [i64::MIN, -1, version + 1, i64::MAX] {
        let reply = read(
            try_open(
                &app.address,
                &format!("{path}?last_event_id={query}"),
                &watcher.token,
                None,
            )
            .await,
        )
        .await;
        reply.assert_problem(400, "invalid_resume_id");
    }
    let reply = read(try_open(&app.address, &path, &watcher.token, Some("soon")).await).await;
    reply.assert_problem(400, "invalid_parameter");
    // Refused streams leave nothing behind: no presence, no slot, no change.
    assert_eq!(app.fingerprint().await, before);
    assert!(wait_unwatched(&app.pool, game).await);
    // The ends of the range are fine.
    for id in [0, version] {
        let mut stream = Stream::open(&app.address, &path, &watcher.token, Some(id)).await;
        let events = stream.drain(Duration::from_millis(500)).await;
        let log = app
            .get(&format!("/games/{game}/events?after={id}&limit=1000"))
            .as_user(watcher)
            .send()
            .await;
        assert_eq!(
            events.len(),
            log.assert_ok()["items"].as_array().unwrap().len(),
            "{events:?}"
        );
    }
}

/// Issue 10: a stream's task went on querying after its client had gone. Now it stops as
/// soon as the connection closes (the keep-alive here is far away, so that cannot be what
/// notices), and the database goes quiet.
#[tokio::test]
async fn a_stream_stops_its_work_when_the_client_is_gone() {
    let app = spawn_with(&[("KONTOR_LIVE_KEEP_ALIVE", "600")]).await;
    let (game, players) = three(&app).await;
    crate::bots::play(&app, game, &players, crate::bots::flying_dutchman, 5, 4).await;
    let watcher = &players[1];
    let path = format!("/games/{game}/stream");
    // A legal resume id: the stream catches up and then idles.
    let mut legal = Stream::open(&app.address, &path, &watcher.token, Some(0)).await;
    assert!(legal.next(WAIT).await.is_some(), "the catch-up arrives");
    // Illegal ones, as the probe sent them (refused now; old servers looped on them).
    let huge = try_open(
        &app.address,
        &path,
        &watcher.token,
        Some(&i64::MAX.to_string()),
    )
    .await;
    let tiny = try_open(
        &app.address,
        &format!("{path}?last_event_id={}", i64::MIN),
        &watcher.token,
        None,
    )
    .await;
    drop((legal, huge, tiny));
    assert!(
        wait_unwatched(&app.pool, game).await,
        "the stream's task ended when its client closed the connection"
    );
    // Backends report their statistics lazily (up to ~10 s late when they go idle), so what
    // ran before may still trickle in: wait (boundedly) for a 3 s stretch in which no more
    // than a handful of transactions commit. A stream still querying commits thousands.
    let mut samples = std::collections::VecDeque::new();
    for _ in 0..60 {
        samples.push_back(commits(&app).await);
        if samples.len() > 7 {
            samples.pop_front();
        }
        if samples.len() == 7 && samples[6] - samples[0] <= 10 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    panic!("the database never went quiet after every client left: {samples:?}");
}

/// Issue 10: a user could open any number of streams, each a task with its own queries.
#[tokio::test]
async fn live_streams_per_user_are_limited_and_a_closed_one_frees_its_slot() {
    let app = spawn_with(&[("KONTOR_LIVE_MAX_STREAMS_PER_USER", "2")]).await;
    let (game, players) = three(&app).await;
    let anna = &players[0];
    let game_path = format!("/games/{game}/stream");
    // Game and user streams count together.
    let first = Stream::open(&app.address, &game_path, &anna.token, None).await;
    let _second = Stream::open(&app.address, "/me/stream", &anna.token, None).await;
    for path in [game_path.as_str(), "/me/stream"] {
        let refused = read(try_open(&app.address, path, &anna.token, None).await).await;
        let body = refused.assert_problem(429, "too_many_streams");
        assert_eq!(body["max_streams"], 2);
        let retry: u64 = refused.headers["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(retry > 0);
    }
    // Per user: bert is not affected.
    let _bert = Stream::open(&app.address, "/me/stream", &players[1].token, None).await;
    // Closing one frees its slot (as soon as the server sees the connection close).
    drop(first);
    for _ in 0..100 {
        let reply = try_open(&app.address, &game_path, &anna.token, None).await;
        if reply.status() == 200 {
            return;
        }
        assert_eq!(reply.status(), 429);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the closed stream's slot was not freed");
}

/// Reads a stream to its end; false if it has not ended within `WAIT`. Panics if the
/// connection broke instead of ending the response.
async fn ends_cleanly(stream: &mut Stream) -> bool {
    loop {
        match tokio::time::timeout(WAIT, stream.response.chunk()).await {
            Ok(Ok(None)) => return true,
            Ok(Ok(Some(_))) => continue,
            Ok(Err(error)) => panic!("the stream broke off instead of ending: {error}"),
            Err(_) => return false,
        }
    }
}

/// Issue 10: stopping the server while streams held database connections waited for the
/// shutdown timeout and then panicked ("requires a Tokio context") dropping their tasks.
#[tokio::test]
async fn stopping_the_server_ends_its_streams_and_finishes_cleanly() {
    let mut app = spawn_with(&[("KONTOR_LIVE_KEEP_ALIVE", "600")]).await;
    let (game, players) = three(&app).await;
    let watcher = &players[2];
    let mut game_stream = Stream::open(
        &app.address,
        &format!("/games/{game}/stream"),
        &watcher.token,
        None,
    )
    .await;
    assert!(game_stream.next(WAIT).await.is_some());
    let mut user_stream = Stream::open(&app.address, "/me/stream", &watcher.token, None).await;
    assert!(user_stream.next(WAIT).await.is_some());
    // Bounded: the server's own shutdown timeout is 30 s; a clean stop takes far less.
    let stopped = tokio::time::timeout(Duration::from_secs(20), async {
        let server = app.server.as_mut().expect("an in-process server");
        server.stopper.stop(true).await;
        (&mut server.running).await
    })
    .await
    .expect("the server stops without waiting for its streams to time out");
    stopped
        .expect("the server's task did not panic")
        .expect("the server stopped without an error");
    assert!(
        ends_cleanly(&mut game_stream).await,
        "the game stream ended"
    );
    assert!(
        ends_cleanly(&mut user_stream).await,
        "the user stream ended"
    );
    // Every connection was given back: the pool closes at once.
    tokio::time::timeout(Duration::from_secs(10), app.pool.close())
        .await
        .expect("the pool closes");
    // The stream's task ended by itself, cleaning up after itself on the way out (looked at
    // through a connection of our own: the server's pool is closed).
    let pool = kontor::store::connect(pg().connect_options(&app.database), 1)
        .await
        .unwrap();
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM live_presence")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        left, 0,
        "every watcher's presence was removed before the stop ended"
    );
    pool.close().await;
}

/// The same through `kontor serve` and SIGTERM, with the workers running: the process ends
/// on its own, without a panic, and its streams end.
#[tokio::test]
async fn kontor_serve_stops_cleanly_on_sigterm_with_streams_open() {
    let app = spawn_app().await;
    let (game, players) = three(&app).await;
    let log = scratch_dir(&format!("sigterm-{}.log", app.database));
    let mut server = serve_with(
        &app.database,
        &[("KONTOR_WORKERS", "true")],
        Stdio::from(std::fs::File::create(&log).unwrap()),
    )
    .await;
    let mut streams = Vec::new();
    for (player, path) in [
        (&players[0], format!("/games/{game}/stream")),
        (&players[1], format!("/games/{game}/stream")),
        (&players[1], "/me/stream".to_string()),
    ] {
        let mut stream = Stream::open(&server.base, &path, &player.token, None).await;
        assert!(stream.next(WAIT).await.is_some());
        streams.push(stream);
    }
    let pid = i32::try_from(server.child.id()).unwrap();
    // SAFETY: sends a signal to the child this test started (and still owns).
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let mut status = None;
    for _ in 0..200 {
        if let Some(exit) = server.child.try_wait().unwrap() {
            status = Some(exit);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let output = std::fs::read_to_string(&log).unwrap();
    let status =
        status.unwrap_or_else(|| panic!("kontor serve still runs 20 s after SIGTERM: {output}"));
    assert!(status.success(), "{status}: {output}");
    assert!(!output.contains("panicked"), "{output}");
    for stream in &mut streams {
        assert!(ends_cleanly(stream).await, "every stream ended");
    }
    assert!(
        wait_unwatched(&app.pool, game).await,
        "the streams cleaned up after themselves"
    );
}

/// A stream outlasts the request that opened it; when its credential is taken away (a
/// logout, a revoked API token) it must stop, before it sends anything more.
#[tokio::test]
async fn a_stream_ends_when_its_credential_is_taken_away() {
    let app = spawn_app().await;
    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo"] {
        players.push(app.register(name).await);
    }
    let game = app.start_game("steel-driver", json!({}), &players).await;
    // Copies: anna's entry in `players` gets a new token below.
    let (anna, bert, cleo) = (players[0].clone(), players[1].clone(), players[2].clone());
    let (anna, bert, cleo) = (&anna, &bert, &cleo);
    let bert_token = app
        .post("/me/tokens")
        .as_user(bert)
        .json(&json!({"name": "watcher", "scopes": ["game:read"]}))
        .send()
        .await;
    let bert_token_id = bert_token.assert_ok()["id"].as_str().unwrap().to_string();
    let bert_token = bert_token.body["token"].as_str().unwrap().to_string();
    let path = format!("/games/{game}/stream");
    let mut by_login = Stream::open(&app.address, &path, &anna.token, None).await;
    let mut notices = Stream::open(&app.address, "/me/stream", &anna.token, None).await;
    let mut by_token = Stream::open(&app.address, &path, &bert_token, None).await;
    let mut kept = Stream::open(&app.address, &path, &cleo.token, None).await;
    for stream in [&mut by_login, &mut notices, &mut by_token, &mut kept] {
        assert_eq!(stream.next(WAIT).await.unwrap().event, "snapshot");
    }

    app.post("/auth/logout")
        .json(&json!({"refresh_token": anna.refresh}))
        .send()
        .await;
    let revoked = app
        .delete(&format!("/me/tokens/{bert_token_id}"))
        .as_user(bert)
        .send()
        .await;
    assert_eq!(revoked.status.as_u16(), 204, "{}", revoked.text);
    // The game goes on (anna signs in again to play), and anna is invited elsewhere.
    let again = app
        .post("/auth/login")
        .json(&json!({"username": "anna", "password": password_of("anna")}))
        .send()
        .await;
    players[0].token = again.assert_ok()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    crate::bots::play(&app, game, &players, crate::bots::steel_driver, 5, 2).await;
    let other = app
        .post("/games")
        .as_user(cleo)
        .json(&json!({"kind": "steel-driver", "seats": 3}))
        .send()
        .await;
    let other = other.body["id"].as_str().unwrap().to_string();
    app.post(&format!("/games/{other}/invitations"))
        .as_user(cleo)
        .json(&json!({"username": "anna"}))
        .send()
        .await
        .assert_ok();

    // The stream whose credential stands gets the moves; the others end, having sent nothing.
    assert_eq!(kept.next(WAIT).await.unwrap().event, "event");
    for (what, stream) in [
        ("logged out", &mut by_login),
        ("logged out, notices", &mut notices),
        ("revoked token", &mut by_token),
    ] {
        assert!(
            stream.next(Duration::from_millis(500)).await.is_none(),
            "{what}: an event came after its credential was taken away"
        );
        assert!(ends_cleanly(stream).await, "{what}: the stream went on");
    }
}

/// Before the start, seats are taken and given up without an event in the log: the game's
/// stream sends a new snapshot each time, so a waiting room needs no polling.
#[tokio::test]
async fn an_open_games_stream_sends_a_snapshot_when_its_seats_change() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let cleo = app.register("cleo").await;
    let game = app.open_game(&anna).await;
    let path = format!("/games/{game}/stream");
    let mut stream = Stream::open(&app.address, &path, &anna.token, None).await;
    let seated = |event: &Sse| -> Vec<String> {
        assert_eq!(event.event, "snapshot", "{event:?}");
        event.data["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["username"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(seated(&stream.next(WAIT).await.unwrap()), ["anna"]);
    app.post(&format!("/games/{game}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    assert_eq!(seated(&stream.next(WAIT).await.unwrap()), ["anna", "bert"]);
    app.post(&format!("/games/{game}/leave"))
        .as_user(&bert)
        .send()
        .await
        .assert_ok();
    assert_eq!(seated(&stream.next(WAIT).await.unwrap()), ["anna"]);
    // Another game's seats are none of this stream's business.
    let other = app.open_game(&cleo).await;
    app.post(&format!("/games/{other}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    assert!(stream.next(Duration::from_millis(500)).await.is_none());
}

/// Issue 20, item 12: a deletion gives up the account's seats in open games, as a leave does,
/// and the watchers' snapshot says so (it kept showing the old name).
#[tokio::test]
async fn an_open_games_stream_sends_a_snapshot_when_a_seated_player_deletes_the_account() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    let bert = app.register("bert").await;
    let game = app.open_game(&anna).await;
    app.post(&format!("/games/{game}/join"))
        .as_user(&bert)
        .json(&json!({}))
        .send()
        .await
        .assert_ok();
    let mut stream = Stream::open(
        &app.address,
        &format!("/games/{game}/stream"),
        &anna.token,
        None,
    )
    .await;
    let first = stream.next(WAIT).await.unwrap();
    assert_eq!(
        first.data["seats"].as_array().unwrap().len(),
        2,
        "{first:?}"
    );
    app.post("/me/delete")
        .as_user(&bert)
        .json(&json!({"password": password_of("bert")}))
        .send()
        .await
        .assert_ok();
    let next = stream.next(WAIT).await.expect("a new snapshot");
    assert_eq!(next.event, "snapshot", "{next:?}");
    let names: Vec<&str> = next.data["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["anna"]);
}

/// Opens a user stream as if through a trusted proxy for the client `from`; the response,
/// whatever its status.
async fn open_from(app: &TestApp, token: &str, from: &str) -> reqwest::Response {
    reqwest::Client::new()
        .get(app.url("/me/stream"))
        .bearer_auth(token)
        .header("X-Forwarded-For", from)
        .send()
        .await
        .unwrap()
}

/// Issue 20, item 4: 25 unverified accounts held 200 streams from one address.
#[tokio::test]
async fn live_streams_per_client_address_are_limited_whichever_accounts_open_them() {
    let app = spawn_with(&[
        ("KONTOR_LIVE_MAX_STREAMS_PER_ADDRESS", "3"),
        ("KONTOR_TRUSTED_PROXIES", "127.0.0.1"),
    ])
    .await;
    let mut users = Vec::new();
    for name in ["anna", "bert", "cleo", "dora"] {
        users.push(app.register_unverified(name).await);
    }
    let mut open = Vec::new();
    for user in &users[..3] {
        let response = open_from(&app, &user.token, "198.51.100.7").await;
        assert_eq!(response.status(), 200);
        open.push(response);
    }
    // A fourth account from the same client is refused; the address is the proxy's
    // X-Forwarded-For, not the peer (every request here comes from 127.0.0.1).
    let refused = read(open_from(&app, &users[3].token, "198.51.100.7").await).await;
    let body = refused.assert_problem(429, "too_many_streams_from_address");
    assert_eq!(body["max_streams"], 3);
    assert!(
        refused.headers["retry-after"]
            .to_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            > 0
    );
    let elsewhere = open_from(&app, &users[3].token, "203.0.113.9").await;
    assert_eq!(elsewhere.status(), 200, "another client is not affected");
    // Closing one frees the address's slot (once the server sees the connection close).
    drop(open.pop());
    for _ in 0..100 {
        let reply = open_from(&app, &users[3].token, "198.51.100.7").await;
        if reply.status() == 200 {
            return;
        }
        assert_eq!(reply.status(), 429);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the closed stream's slot was not freed");
}

/// The lines a child process writes to `pipe`, collected as they come.
fn lines_of(pipe: impl std::io::Read + Send + 'static) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let collected = lines.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            collected.lock().unwrap().push(line);
        }
    });
    lines
}

#[tokio::test]
async fn notes_lost_in_a_database_outage_are_logged_and_the_user_streams_resynchronise() {
    let app = spawn_app().await;
    let (game, players) = three(&app).await;
    let mut server = serve_with(&app.database, &[], Stdio::piped()).await;
    let log = lines_of(server.child.stderr.take().unwrap());
    let (mover, version) = pending_seat(&app, game, &players[0]).await;
    let mut streams = Vec::new();
    for player in &players {
        let mut stream = Stream::open(&server.base, "/me/stream", &player.token, None).await;
        assert_eq!(stream.next(WAIT).await.unwrap().event, "snapshot");
        streams.push(stream);
    }
    let mut game_stream = Stream::open(
        &server.base,
        &format!("/games/{game}/stream"),
        &players[mover].token,
        None,
    )
    .await;
    assert_eq!(game_stream.next(WAIT).await.unwrap().id, Some(version));
    // The server's pool holds connections enough for the action during the outage, which
    // only refuses new ones (as a database that has just gone away would).
    let url = format!("{}/api/v1/games/{game}", server.base);
    futures_util::future::join_all(
        (0..4).map(|_| app.client.get(&url).bearer_auth(&players[0].token).send()),
    )
    .await;

    // The outage: the server's publisher loses its connection and cannot make another.
    let admin = kontor::store::connect(pg().superuser_options("postgres"), 1)
        .await
        .unwrap();
    let limit = |n: i32| format!("ALTER DATABASE {} CONNECTION LIMIT {n}", app.database);
    sqlx::query(sqlx::AssertSqlSafe(limit(0)))
        .execute(&admin)
        .await
        .unwrap();
    sqlx::query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = $1 AND application_name = $2",
    )
    .bind(&app.database)
    .bind(kontor::live::PUBLISHER_APPLICATION_NAME)
    .execute(&admin)
    .await
    .unwrap();
    let reply = app
        .client
        .post(format!("{}/api/v1/games/{game}/actions", server.base))
        .bearer_auth(&players[mover].token)
        .header("Idempotency-Key", "in-the-outage")
        .json(&json!({"version": version, "action": {"type": "use_smith"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200, "the action commits");
    let given_up = |log: &Mutex<Vec<String>>| {
        log.lock()
            .unwrap()
            .iter()
            .find(|line| line.contains(" WARN ") && line.contains("live notes given up"))
            .cloned()
    };
    let mut warned = None;
    for _ in 0..100 {
        warned = given_up(&log);
        if warned.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let warned = warned.unwrap_or_else(|| {
        panic!(
            "no WARN line for the notes given up: {:?}",
            log.lock().unwrap()
        )
    });
    assert!(warned.contains("notes=1"), "{warned}");

    // The database answers again: the stream of the player whose turn began, which missed
    // its `your_turn` notice, gets a new snapshot that lists the game.
    sqlx::query(sqlx::AssertSqlSafe(limit(-1)))
        .execute(&admin)
        .await
        .unwrap();
    admin.close().await;
    let (next, _) = pending_seat(&app, game, &players[0]).await;
    assert_ne!(next, mover, "the action handed the turn over");
    let snapshot = streams[next]
        .next(Duration::from_secs(30))
        .await
        .expect("the stream resynchronises");
    assert_eq!(snapshot.event, "snapshot", "{snapshot:?}");
    assert!(
        snapshot.data["your_turn"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["game_id"] == game.to_string()),
        "{snapshot:?}"
    );
    // A game's stream reads the log at once too, without waiting for its next look (30 s).
    let event = game_stream
        .next(Duration::from_secs(20))
        .await
        .expect("the game stream resynchronises");
    assert_eq!(event.id, Some(version + 1), "{event:?}");
}

#[tokio::test]
async fn a_user_stream_resynchronises_once_its_listener_has_reconnected() {
    let app = spawn_app().await;
    let (game, players) = three(&app).await;
    let (mover, _) = pending_seat(&app, game, &players[0]).await;
    let mut stream = Stream::open(&app.address, "/me/stream", &players[mover].token, None).await;
    assert_eq!(stream.next(WAIT).await.unwrap().event, "snapshot");
    // Notes sent while the listener reconnects are missed: a new snapshot says what holds.
    let admin = kontor::store::connect(pg().superuser_options("postgres"), 1)
        .await
        .unwrap();
    let listener = crate::supervision::live_listener(&admin, &app.database, None).await;
    sqlx::query("SELECT pg_terminate_backend($1)")
        .bind(listener)
        .execute(&admin)
        .await
        .unwrap();
    admin.close().await;
    let snapshot = stream.next(WAIT).await.expect("the stream resynchronises");
    assert_eq!(snapshot.event, "snapshot", "{snapshot:?}");
    assert_eq!(
        snapshot.data["your_turn"][0]["game_id"],
        game.to_string(),
        "{snapshot:?}"
    );
}
