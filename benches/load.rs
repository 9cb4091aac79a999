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
//!
//! `--on-start CMD` and `--on-stop CMD` are run (`sh -c`, waited for) when the players are
//! registered and the first games made, just before the timed play, and when every game's task
//! has stopped: `deploy/bench.sh` reads PostgreSQL's counters there, so that what it divides
//! by the accepted actions is the timed play's work alone.

mod support;

use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use support::{Client, new_game};
use tokio::sync::Mutex;

struct Args {
    url: String,
    games: usize,
    seconds: u64,
    on_start: Option<String>,
    on_stop: Option<String>,
}

fn parse_args() -> Args {
    let mut args = Args {
        url: "http://127.0.0.1:8080".into(),
        games: 32,
        seconds: 20,
        on_start: None,
        on_stop: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--url" => args.url = it.next().expect("--url needs a value"),
            "--games" => args.games = support::number(&mut it, "--games"),
            "--seconds" => args.seconds = support::number(&mut it, "--seconds"),
            "--on-start" => args.on_start = it.next(),
            "--on-stop" => args.on_stop = it.next(),
            // cargo bench passes --bench; ignore what is not ours.
            _ => {}
        }
    }
    args
}

#[tokio::main]
async fn main() {
    let args = parse_args();
    let client = Arc::new(Client::new(&args.url, args.games * 2));
    let run = format!(
        "{:x}",
        std::process::id() ^ (Instant::now().elapsed().as_nanos() as u32)
    );
    eprintln!("registering {} players...", args.games * 3);
    let mut tables = Vec::new();
    for game in 0..args.games {
        let mut tokens = Vec::new();
        for seat in 0..3 {
            tokens.push(client.user(&format!("b{run}g{game}s{seat}")).await.0);
        }
        let first = new_game(&client, tokens.clone(), game as u64).await;
        tables.push((tokens, first));
    }
    support::run_hook(&args.on_start);
    let latencies = Arc::new(Mutex::new(Vec::<Duration>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (index, (tokens, first)) in tables.into_iter().enumerate() {
        let (client, latencies, stop) = (client.clone(), latencies.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            let (mut conflicts, mut busy) = (0u64, 0u64);
            let mut game = first;
            while !stop.load(Ordering::Relaxed) {
                let Some(acted) = support::act(&client, &mut game).await else {
                    game = new_game(&client, tokens.clone(), index as u64).await;
                    continue;
                };
                match acted.status {
                    200 => mine.push(acted.took),
                    409 => conflicts += 1,
                    // A pool smaller than the load (`BENCH_POOL`): refused before any work,
                    // sent again after the server's Retry-After, as a client would.
                    503 if acted.answer["code"] == "overloaded" => {
                        busy += 1;
                        tokio::time::sleep(Duration::from_secs(1)).await;
                    }
                    status => panic!("action refused ({status}): {}", acted.answer),
                }
            }
            latencies.lock().await.extend(mine);
            (conflicts, busy)
        }));
    }
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let (mut conflicts, mut overloaded) = (0, 0);
    for task in tasks {
        let (lost_races, busy) = task.await.unwrap();
        conflicts += lost_races;
        overloaded += busy;
    }
    let elapsed = started.elapsed().as_secs_f64();
    support::run_hook(&args.on_stop);
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
        "overloaded": overloaded,
    });
    println!("{report}");
}
