//! What the load benchmarks share (`load`, `streams`, `chat`): a client of a running Kontor
//! server's HTTP API, Steel Driver games played by local random bots (the game has no hidden
//! information, so a client folds it from the events it is sent), Server-Sent-Event parsing
//! and percentiles. Each benchmark includes it with `mod support;`; not every one uses all of it.
#![allow(dead_code)]

use kontor::games::steel_driver::SteelDriver;
use kontor::games::{BotLevel, GameRng, Rules};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The value after `--name` on the command line, parsed; panics with the name if unparsable.
pub fn number<T: std::str::FromStr>(it: &mut dyn Iterator<Item = String>, name: &str) -> T {
    it.next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{name} needs a number"))
}

/// Runs a hook of the caller's and waits for it; a failing hook ends the run.
pub fn run_hook(hook: &Option<String>) {
    if let Some(command) = hook {
        let status = std::process::Command::new("sh")
            .args(["-c", command])
            .status()
            .expect("run a hook");
        assert!(status.success(), "the hook `{command}` failed: {status}");
    }
}

pub struct Client {
    pub http: reqwest::Client,
    pub base: String,
}

impl Client {
    /// A client of the server at `url` keeping up to `idle` connections open.
    pub fn new(url: &str, idle: usize) -> Self {
        // reqwest's TLS brings no crypto provider of its own: the server's (ring) serves.
        let _ = rustls::crypto::ring::default_provider().install_default();
        Self {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(idle)
                .build()
                .unwrap(),
            base: url.trim_end_matches('/').to_string(),
        }
    }

    /// POSTs `body` to `/api/v1{path}`; an action is sent with an `Idempotency-Key` of its
    /// path and version.
    pub async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
        let key = path
            .ends_with("/actions")
            .then(|| format!("{path}-{}", body["version"]));
        self.post_keyed(path, token, body, key.as_deref()).await
    }

    /// POSTs `body` to `/api/v1{path}` with `Idempotency-Key: key`, if given.
    pub async fn post_keyed(
        &self,
        path: &str,
        token: Option<&str>,
        body: &Value,
        key: Option<&str>,
    ) -> (u16, Value) {
        let mut request = self
            .http
            .post(format!("{}/api/v1{path}", self.base))
            .json(body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(key) = key {
            request = request.header("Idempotency-Key", key);
        }
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str, token: &str) -> Value {
        self.http
            .get(format!("{}/api/v1{path}", self.base))
            .bearer_auth(token)
            .send()
            .await
            .expect("the server answers")
            .json()
            .await
            .expect("json")
    }

    /// Registers and logs in a new user; returns the access token and the user's id.
    pub async fn user(&self, name: &str) -> (String, String) {
        let password = "bench-password-123";
        self.post(
            "/auth/register",
            None,
            &json!({"username": name, "email": format!("{name}@bench.invalid"), "password": password}),
        )
        .await;
        let (status, body) = self
            .post(
                "/auth/login",
                None,
                &json!({"username": name, "password": password}),
            )
            .await;
        assert_eq!(status, 200, "login failed: {body}");
        let token = body["access_token"].as_str().unwrap().to_string();
        let me = self.get("/me", &token).await;
        (token, me["id"].as_str().unwrap().to_string())
    }

    /// Opens one stream, retrying while the server is busy (503) for a while.
    pub async fn open(&self, path: &str, token: &str) -> reqwest::Response {
        for attempt in 0..50 {
            match self
                .http
                .get(format!("{}/api/v1{path}", self.base))
                .bearer_auth(token)
                .send()
                .await
            {
                Ok(response) if response.status() == 200 => return response,
                Ok(response) if response.status() == 503 => {}
                Ok(response) => panic!(
                    "{path}: {} {}",
                    response.status(),
                    response.text().await.unwrap_or_default()
                ),
                Err(error) if attempt < 49 => eprintln!("{path}: {error}; again"),
                Err(error) => panic!("{path}: {error}"),
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        panic!("{path} stayed unavailable")
    }
}

/// A game a benchmark plays: its players' tokens and its state folded from its log.
pub struct Game {
    pub id: String,
    pub tokens: Vec<String>,
    pub version: i64,
    pub state: <SteelDriver as Rules>::State,
    pub rng: GameRng,
}

/// Starts a Steel Driver game among `tokens` (the first creates it, the others join) and folds
/// its opening from the log; its bots choose with a random generator seeded with `seed`.
pub async fn new_game(client: &Client, tokens: Vec<String>, seed: u64) -> Game {
    let (status, game) = client
        .post(
            "/games",
            Some(&tokens[0]),
            &json!({"kind": "steel-driver", "seats": tokens.len()}),
        )
        .await;
    assert_eq!(status, 201, "create failed: {game}");
    let id = game["id"].as_str().unwrap().to_string();
    for token in &tokens[1..] {
        client
            .post(&format!("/games/{id}/join"), Some(token), &json!({}))
            .await;
    }
    let log = client
        .get(&format!("/games/{id}/events?limit=1000"), &tokens[0])
        .await;
    let mut state = <SteelDriver as Rules>::State::default();
    fold_into(&mut state, &log["items"]);
    Game {
        id,
        tokens,
        version: log["version"].as_i64().unwrap(),
        state,
        rng: GameRng::from_u64(seed),
    }
}

pub fn fold_into(state: &mut <SteelDriver as Rules>::State, events: &Value) {
    for event in events.as_array().unwrap() {
        if event["type"].as_str().unwrap().starts_with("kontor.") {
            continue;
        }
        let event: <SteelDriver as Rules>::Event =
            serde_json::from_value(event["data"].clone()).unwrap();
        SteelDriver::evolve(state, &event);
    }
}

/// What one action came to.
pub struct Acted {
    /// The answer's status; on 200 the game has moved on to its answer.
    pub status: u16,
    pub answer: Value,
    /// From sending the action to its answer.
    pub took: Duration,
    /// When the answer arrived.
    pub answered: Instant,
}

/// One action of the pending seat, chosen by the random bot; `None` if the game has ended.
pub async fn act(client: &Client, game: &mut Game) -> Option<Acted> {
    let seat = *SteelDriver::pending(&game.state).first()?;
    let command = SteelDriver::bot_command(&game.state, seat, BotLevel::Random, &mut game.rng);
    let sent = Instant::now();
    let (status, answer) = client
        .post(
            &format!("/games/{}/actions", game.id),
            Some(&game.tokens[usize::from(seat)]),
            &json!({"version": game.version, "action": command}),
        )
        .await;
    let answered = Instant::now();
    if status == 200 {
        fold_into(&mut game.state, &answer["events"]);
        game.version = answer["version"].as_i64().unwrap();
    }
    Some(Acted {
        status,
        answer,
        took: answered - sent,
        answered,
    })
}

/// One Server-Sent Event as received.
pub struct SseMessage {
    pub event: String,
    pub id: Option<String>,
    pub data: String,
    /// When its last chunk arrived.
    pub at: Instant,
}

/// Reads `response`, a stream of Server-Sent Events, until it or the process ends, handing
/// each event to `on` (keep-alive comments are skipped).
pub async fn read_events(mut response: reqwest::Response, mut on: impl FnMut(SseMessage)) {
    let mut buffer = String::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        let at = Instant::now();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let message: String = buffer.drain(..end + 2).collect();
            let mut event = String::new();
            let mut id = None;
            let mut data = String::new();
            for line in message.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    event = v.trim().to_string();
                } else if let Some(v) = line.strip_prefix("id:") {
                    id = Some(v.trim().to_string());
                } else if let Some(v) = line.strip_prefix("data:") {
                    data = v.trim().to_string();
                }
            }
            if !event.is_empty() {
                on(SseMessage {
                    event,
                    id,
                    data,
                    at,
                });
            }
        }
    }
}

/// Milliseconds (to a tenth) at the percentiles of `samples`.
pub fn percentiles(samples: &mut [Duration]) -> Value {
    samples.sort();
    let ms = |d: &Duration| (d.as_secs_f64() * 10_000.0).round() / 10.0;
    let at = |p: f64| {
        samples
            .get(((samples.len() as f64 * p) as usize).min(samples.len().saturating_sub(1)))
            .map(ms)
    };
    json!({"samples": samples.len(), "p50_ms": at(0.5), "p99_ms": at(0.99), "max_ms": samples.last().map(ms)})
}
