//! `/healthz` while uploads are checked: the latency of a cheap request with no upload load,
//! then with clients looping the heaviest upload the API accepts.
//!
//! ```text
//! cargo bench --bench uploads -- --url http://127.0.0.1:8080 --seconds 10 --clients 0,1,4
//! ```
//!
//! The upload is what an attacker sent: a complete export (the Flying Dutchman golden game)
//! grown to 5,000 events (the most an upload may have) with copies of one event, about
//! 1 MB; `POST /verify` parses all of it and then finds the first copy wrong. For each
//! number of clients, each client (a user of its own) posts it in a loop while a probe asks
//! `GET /healthz` every 20 ms; the report gives the probe's latency (p50, p99, max), the
//! uploads answered per second, and how many were refused with 429 `uploads_busy` (more
//! clients than `KONTOR_UPLOADS_MAX` allows). `deploy/bench-uploads.sh` runs this against a
//! release build.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

struct Args {
    url: String,
    seconds: u64,
    clients: Vec<usize>,
}

fn parse_args() -> Args {
    let mut args = Args {
        url: "http://127.0.0.1:8080".into(),
        seconds: 10,
        clients: vec![0, 1, 4],
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--url" => args.url = it.next().expect("--url needs a value"),
            "--seconds" => {
                args.seconds = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--seconds needs a number")
            }
            "--clients" => {
                args.clients = it
                    .next()
                    .expect("--clients needs a list")
                    .split(',')
                    .map(|n| n.trim().parse().expect("--clients: numbers"))
                    .collect()
            }
            // cargo bench passes --bench; ignore what is not ours.
            _ => {}
        }
    }
    args
}

/// The golden export grown to 5,000 events with copies of its tenth.
fn heavy_export() -> String {
    let golden = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/flying-dutchman-4p.ndjson"
    ))
    .expect("the golden export");
    let mut lines: Vec<Value> = golden
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events = lines.len() - 1;
    let copy = lines[10].clone();
    for seq in events + 1..=kontor::http::play::audit::MAX_EXPORT_EVENTS {
        let mut event = copy.clone();
        event["seq"] = json!(seq);
        lines.push(event);
    }
    lines[0]["version"] = json!(kontor::http::play::audit::MAX_EXPORT_EVENTS);
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

async fn user(http: &reqwest::Client, base: &str, name: &str) -> String {
    let password = "bench-uploads-password-123";
    let register =
        json!({"username": name, "email": format!("{name}@bench.invalid"), "password": password});
    http.post(format!("{base}/api/v1/auth/register"))
        .json(&register)
        .send()
        .await
        .expect("the server answers");
    let login: Value = http
        .post(format!("{base}/api/v1/auth/login"))
        .json(&json!({"username": name, "password": password}))
        .send()
        .await
        .expect("the server answers")
        .json()
        .await
        .expect("a login answer");
    login["access_token"]
        .as_str()
        .expect("an access token")
        .to_string()
}

/// Milliseconds at the percentiles of `samples`.
fn percentiles(samples: &mut [Duration]) -> Value {
    samples.sort();
    let ms = |d: &Duration| (d.as_secs_f64() * 10_000.0).round() / 10.0;
    let at = |p: f64| {
        samples
            .get(((samples.len() as f64 * p) as usize).min(samples.len().saturating_sub(1)))
            .map(ms)
    };
    json!({"samples": samples.len(), "p50_ms": at(0.5), "p99_ms": at(0.99), "max_ms": samples.last().map(ms)})
}

/// One phase: `tokens.len()` upload loops and the probe, for `seconds`.
async fn phase(
    http: &reqwest::Client,
    base: &str,
    tokens: &[String],
    export: &Arc<String>,
    seconds: u64,
) -> Value {
    let stop = Arc::new(AtomicBool::new(false));
    let answered = Arc::new(AtomicUsize::new(0));
    let busy = Arc::new(AtomicUsize::new(0));
    let mut loops = Vec::new();
    for token in tokens {
        let (http, url, token, export) = (
            http.clone(),
            format!("{base}/api/v1/verify"),
            token.clone(),
            export.clone(),
        );
        let (stop, answered, busy) = (stop.clone(), answered.clone(), busy.clone());
        loops.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let response = http
                    .post(&url)
                    .bearer_auth(&token)
                    .header("content-type", "application/x-ndjson")
                    .body(export.as_bytes().to_vec())
                    .send()
                    .await
                    .expect("the server answers");
                let status = response.status().as_u16();
                let _ = response.bytes().await;
                match status {
                    200 => answered.fetch_add(1, Ordering::Relaxed),
                    429 => busy.fetch_add(1, Ordering::Relaxed),
                    other => panic!("an upload was answered {other}"),
                };
            }
        }));
    }
    // Let the loops get going before the probe starts.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let started = Instant::now();
    let mut probes = Vec::new();
    while started.elapsed() < Duration::from_secs(seconds) {
        let sent = Instant::now();
        let response = http
            .get(format!("{base}/healthz"))
            .send()
            .await
            .expect("the server answers");
        assert!(response.status().is_success(), "/healthz failed");
        let _ = response.bytes().await;
        probes.push(sent.elapsed());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for task in loops {
        task.await.expect("an upload loop failed");
    }
    json!({
        "upload_clients": tokens.len(),
        "healthz": percentiles(&mut probes),
        "uploads_answered_per_s": ((answered.load(Ordering::Relaxed) as f64 / elapsed) * 10.0).round() / 10.0,
        "uploads_refused_busy": busy.load(Ordering::Relaxed),
    })
}

#[tokio::main]
async fn main() {
    let args = parse_args();
    let base = args.url.trim_end_matches('/').to_string();
    // reqwest's TLS brings no crypto provider of its own: the server's (ring) serves.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::new();
    let export = Arc::new(heavy_export());
    let most = args.clients.iter().copied().max().unwrap_or(0);
    let run = format!("{:x}", std::process::id());
    let mut tokens = Vec::new();
    for n in 0..most {
        tokens.push(user(&http, &base, &format!("up{run}x{n}")).await);
    }
    let mut phases = Vec::new();
    for clients in &args.clients {
        phases.push(phase(&http, &base, &tokens[..*clients], &export, args.seconds).await);
    }
    let report = json!({
        "upload_bytes": export.len(),
        "upload_events": kontor::http::play::audit::MAX_EXPORT_EVENTS,
        "seconds_per_phase": args.seconds,
        "phases": phases,
    });
    println!("{report}");
}
