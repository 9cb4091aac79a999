//! Load generator: many concurrent Steel Driver games played through the HTTP API of a running
//! Kontor server. Reports accepted actions per second and the latency of accepted actions.
//!
//! ```text
//! cargo bench --bench load -- --url http://127.0.0.1:8080 --games 32 --seconds 20
//! ```
//!
//! Each game is one task acting for whichever seat is pending, one action at a time, like a
//! table of bots. Steel Driver has no hidden information, so a client can fold the game from
//! the events it is sent and choose with the random bot locally: every request measured is an
//! action POST. `deploy/bench.sh` runs this beside pgbench on the same PostgreSQL.

use kontor::games::steel_driver::SteelDriver;
use kontor::games::{Actor, BotLevel, GameRng, Rules};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

struct Args {
    url: String,
    games: usize,
    seconds: u64,
}

fn parse_args() -> Args {
    let mut args = Args {
        url: "http://127.0.0.1:8080".into(),
        games: 32,
        seconds: 20,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--url" => args.url = it.next().expect("--url needs a value"),
            "--games" => args.games = it.next().and_then(|v| v.parse().ok()).expect("--games N"),
            "--seconds" => {
                args.seconds = it.next().and_then(|v| v.parse().ok()).expect("--seconds N")
            }
            // cargo bench passes --bench; ignore what is not ours.
            _ => {}
        }
    }
    args
}

struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    async fn post(
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

    async fn get(&self, path: &str, token: &str) -> Value {
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

    /// Registers and logs in a new user; returns the access token.
    async fn user(&self, name: &str) -> String {
        let password = "bench-password-123";
        self.post(
            "/auth/register",
            None,
            &json!({"username": name, "email": format!("{name}@bench.invalid"), "password": password}),
            None,
        )
        .await;
        let (status, body) = self
            .post(
                "/auth/login",
                None,
                &json!({"username": name, "password": password}),
                None,
            )
            .await;
        assert_eq!(status, 200, "login failed: {body}");
        body["access_token"].as_str().unwrap().to_string()
    }
}

/// Starts a 3-seat game among `tokens` and folds its opening from the log.
async fn new_game(
    client: &Client,
    tokens: &[String],
) -> (String, i64, <SteelDriver as Rules>::State) {
    let (status, game) = client
        .post(
            "/games",
            Some(&tokens[0]),
            &json!({"kind": "steel-driver", "seats": 3}),
            None,
        )
        .await;
    assert_eq!(status, 201, "create failed: {game}");
    let id = game["id"].as_str().unwrap().to_string();
    for token in &tokens[1..] {
        client
            .post(&format!("/games/{id}/join"), Some(token), &json!({}), None)
            .await;
    }
    let log = client
        .get(&format!("/games/{id}/events?limit=1000"), &tokens[0])
        .await;
    let mut state = <SteelDriver as Rules>::State::default();
    fold_into(&mut state, &log["items"]);
    (id, log["version"].as_i64().unwrap(), state)
}

fn fold_into(state: &mut <SteelDriver as Rules>::State, events: &Value) {
    for event in events.as_array().unwrap() {
        if event["type"].as_str().unwrap().starts_with("kontor.") {
            continue;
        }
        let event: <SteelDriver as Rules>::Event =
            serde_json::from_value(event["data"].clone()).unwrap();
        SteelDriver::evolve(state, &event);
    }
}

#[tokio::main]
async fn main() {
    let args = parse_args();
    let client = Arc::new(Client {
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(args.games * 2)
            .build()
            .unwrap(),
        base: args.url.trim_end_matches('/').to_string(),
    });
    let run = format!(
        "{:x}",
        std::process::id() ^ (Instant::now().elapsed().as_nanos() as u32)
    );
    eprintln!("registering {} players...", args.games * 3);
    let mut tables = Vec::new();
    for game in 0..args.games {
        let mut tokens = Vec::new();
        for seat in 0..3 {
            tokens.push(client.user(&format!("b{run}g{game}s{seat}")).await);
        }
        tables.push(tokens);
    }
    let latencies = Arc::new(Mutex::new(Vec::<Duration>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (index, tokens) in tables.into_iter().enumerate() {
        let (client, latencies, stop) = (client.clone(), latencies.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            let mut rng = GameRng::from_u64(index as u64);
            let mut mine = Vec::new();
            let mut conflicts = 0u64;
            let (mut id, mut version, mut state) = new_game(&client, &tokens).await;
            while !stop.load(Ordering::Relaxed) {
                let Some(&seat) = SteelDriver::pending(&state).first() else {
                    (id, version, state) = new_game(&client, &tokens).await;
                    continue;
                };
                let command = SteelDriver::bot_command(&state, seat, BotLevel::Random, &mut rng);
                debug_assert!(
                    SteelDriver::decide(&state, Actor::Seat(seat), &command, &mut rng).is_ok()
                );
                let key = format!("{id}-{version}");
                let body = json!({"version": version, "action": command});
                let sent = Instant::now();
                let (status, answer) = client
                    .post(
                        &format!("/games/{id}/actions"),
                        Some(&tokens[usize::from(seat)]),
                        &body,
                        Some(&key),
                    )
                    .await;
                let took = sent.elapsed();
                match status {
                    200 => {
                        mine.push(took);
                        fold_into(&mut state, &answer["events"]);
                        version = answer["version"].as_i64().unwrap();
                    }
                    409 => conflicts += 1,
                    _ => panic!("action refused ({status}): {answer}"),
                }
            }
            latencies.lock().await.extend(mine);
            conflicts
        }));
    }
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let mut conflicts = 0;
    for task in tasks {
        conflicts += task.await.unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let mut latencies = latencies.lock().await.clone();
    latencies.sort();
    let percentile = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(f64::NAN)
    };
    let report = json!({
        "games": args.games,
        "seconds": elapsed,
        "accepted_actions": latencies.len(),
        "actions_per_second": latencies.len() as f64 / elapsed,
        "p50_ms": percentile(0.50),
        "p99_ms": percentile(0.99),
        "conflicts": conflicts,
    });
    println!("{report}");
}
