//! Live-stream fan-out: many concurrent Server-Sent-Event streams on one running Kontor server,
//! the server's memory per idle stream, and the time from an action to its event on every
//! stream that should receive it.
//!
//! ```text
//! cargo bench --bench streams -- --url http://127.0.0.1:8080 --server-pid PID \
//!     --streams 10000 --games 50 --actions 40 --waves 5
//! ```
//!
//! `--games` Steel Driver games are started among `3 × games` users. Half the streams are
//! game streams (`GET /games/{id}/stream`, spread evenly over the games and over all users as
//! players or spectators), half user streams (`GET /me/stream`, spread over the users); the
//! server must allow that many per user and per address (`KONTOR_LIVE_MAX_STREAMS_PER_USER`,
//! `KONTOR_LIVE_MAX_STREAMS_PER_ADDRESS`). The server's
//! resident memory (`VmRSS` of `/proc/<pid>/status`) is read before the streams open, with a
//! tenth of them open, and with all open and idle; the memory per idle stream is the growth
//! over the last nine tenths divided by their number. Then:
//! * `--actions` single actions, one game at a time: each event's time to reach every stream
//!   of its game (and the `your_turn` notice on the next player's user streams);
//! * `--waves` waves of one action in every game at once: the same, with every game stream
//!   receiving an event in the same moment.
//!
//! During the waves the CPU time of the server, of this client and of the whole machine is
//! read from `/proc` (`wave_cpu`): on a machine they share, it says whose work the waves wait
//! for.
//!
//! `--on-start CMD` and `--on-stop CMD` are run (`sh -c`, waited for) just before the first
//! wave and just after the last one was delivered everywhere: `deploy/bench-streams.sh` counts
//! the server's instructions there (`BENCH_INSTRUCTIONS=1`), so that what it divides by the
//! deliveries is the waves' work alone.
//!
//! Times are measured from the moment the action's answer arrived (its acceptance); an event
//! can reach a stream before the answer reaches its client (the note goes out as the append
//! commits), which counts as 0. `deploy/bench-streams.sh` runs this against a release build.

mod support;

use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{Client, Game, new_game, percentiles, read_events};
use tokio::sync::Semaphore;

struct Args {
    url: String,
    server_pid: Option<u32>,
    streams: usize,
    games: usize,
    actions: usize,
    waves: usize,
    open_concurrency: usize,
    on_start: Option<String>,
    on_stop: Option<String>,
}

fn parse_args() -> Args {
    let mut args = Args {
        url: "http://127.0.0.1:8080".into(),
        server_pid: None,
        streams: 10_000,
        games: 50,
        actions: 40,
        waves: 5,
        open_concurrency: 32,
        on_start: None,
        on_stop: None,
    };
    let mut it = std::env::args().skip(1);
    let number = support::number::<usize>;
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--url" => args.url = it.next().expect("--url needs a value"),
            "--server-pid" => args.server_pid = Some(number(&mut it, "--server-pid") as u32),
            "--streams" => args.streams = number(&mut it, "--streams"),
            "--games" => args.games = number(&mut it, "--games"),
            "--actions" => args.actions = number(&mut it, "--actions"),
            "--waves" => args.waves = number(&mut it, "--waves"),
            "--open-concurrency" => args.open_concurrency = number(&mut it, "--open-concurrency"),
            "--on-start" => args.on_start = it.next(),
            "--on-stop" => args.on_stop = it.next(),
            // cargo bench passes --bench; ignore what is not ours.
            _ => {}
        }
    }
    assert!(
        args.games > 0 && args.streams >= 2,
        "at least one game and two streams"
    );
    args
}

/// The server's resident memory in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// CPU time used so far, in clock ticks (`USER_HZ`, 100 a second on Linux): a process's
/// (`utime` + `stime` of `/proc/<pid>/stat`), or the whole machine's busy time (`/proc/stat`,
/// every state but idle and iowait, over all cores).
fn process_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

fn machine_busy_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal ...
    Some(ticks.iter().take(8).sum::<u64>() - ticks.get(3)? - ticks.get(4)?)
}

/// CPU used during the waves: the server's, this client's, and the rest of the machine's
/// (PostgreSQL, and whatever else runs), in milliseconds, beside the wall time they took.
#[derive(Default)]
struct CpuUse {
    waves: usize,
    wall: Duration,
    server: u64,
    client: u64,
    machine: u64,
}

impl CpuUse {
    fn snapshot(server_pid: Option<u32>) -> [Option<u64>; 3] {
        [
            server_pid.and_then(|pid| process_ticks(&pid.to_string())),
            process_ticks("self"),
            machine_busy_ticks(),
        ]
    }

    fn add(&mut self, before: [Option<u64>; 3], after: [Option<u64>; 3], wall: Duration) {
        let spent = |i: usize| match (before[i], after[i]) {
            (Some(b), Some(a)) => a.saturating_sub(b) * 10,
            _ => 0,
        };
        self.waves += 1;
        self.wall += wall;
        self.server += spent(0);
        self.client += spent(1);
        self.machine += spent(2);
    }

    fn report(&self, actions: usize, streams_per_action: f64) -> Value {
        // The machine's cores, not this process's (it may be pinned to some: BENCH_CLIENT_CPUS).
        let cores = std::fs::read_to_string("/proc/stat").map_or(1, |stat| {
            stat.lines()
                .filter(|l| {
                    l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit)
                })
                .count()
                .max(1)
        }) as u64;
        let wall = self.wall.as_millis() as u64;
        json!({
            "wall_ms": wall,
            "capacity_ms": wall * cores,
            "machine_busy_ms": self.machine,
            "server_ms": self.server,
            "client_ms": self.client,
            "rest_ms": self.machine.saturating_sub(self.server + self.client),
            "server_us_per_action_and_stream": ((self.server * 1000) as f64 / (actions as f64 * streams_per_action)).round(),
            // The server's share of one wave: its CPU time per wave (an action in every game).
            "server_ms_per_wave": (self.server as f64 / self.waves.max(1) as f64).round(),
        })
    }
}

/// One action of the pending seat; `None` if the game has ended. Returns the new version and
/// when the answer arrived.
async fn act(client: &Client, game: &mut Game) -> Option<(i64, Instant)> {
    let acted = support::act(client, game).await?;
    assert_eq!(acted.status, 200, "action refused: {}", acted.answer);
    Some((game.version, acted.answered))
}

/// What the streams saw: for each (game, version), when each game stream received the event
/// with that id, and when user streams received a `your_turn` notice for it.
#[derive(Default)]
struct Seen {
    game_events: HashMap<(String, i64), Vec<Instant>>,
    your_turn: HashMap<(String, i64), Vec<Instant>>,
    /// The data of the game streams' messages by event name: how many, their bytes in all,
    /// the largest (what the server writes per stream).
    data_bytes: HashMap<String, (u64, u64, usize)>,
}

impl Seen {
    fn count(&mut self, event: &str, bytes: usize) {
        let (messages, total, largest) = self.data_bytes.entry(event.to_string()).or_default();
        *messages += 1;
        *total += bytes as u64;
        *largest = (*largest).max(bytes);
    }
}

/// Reads one SSE stream until the process ends, recording what it receives.
async fn read_stream(response: reqwest::Response, seen: Arc<Mutex<Seen>>, game: Option<String>) {
    read_events(response, |message| {
        if game.is_some() {
            seen.lock()
                .unwrap()
                .count(&message.event, message.data.len());
        }
        record(&seen, &game, message)
    })
    .await
}

/// Notes when a game event or a `your_turn` notice arrived.
fn record(seen: &Mutex<Seen>, game: &Option<String>, message: support::SseMessage) {
    match (message.event.as_str(), game) {
        ("event", Some(game)) => {
            // `V`, or `V.C` once a chat message is covered.
            let version = message
                .id
                .as_deref()
                .and_then(|id| id.split('.').next().and_then(|v| v.parse::<i64>().ok()));
            if let Some(version) = version {
                let mut seen = seen.lock().unwrap();
                seen.game_events
                    .entry((game.clone(), version))
                    .or_default()
                    .push(message.at);
            }
        }
        ("your_turn", None) => {
            let data: Value = serde_json::from_str(&message.data).unwrap_or(Value::Null);
            if let (Some(game), Some(version)) =
                (data["game_id"].as_str(), data["version"].as_i64())
            {
                let mut seen = seen.lock().unwrap();
                seen.your_turn
                    .entry((game.to_string(), version))
                    .or_default()
                    .push(message.at);
            }
        }
        _ => {}
    }
}

/// Waits (bounded) until every game stream of `game` saw `version`; false on the bound.
async fn wait_for(seen: &Mutex<Seen>, game: &str, version: i64, expected: usize) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    let key = (game.to_string(), version);
    while Instant::now() < deadline {
        let got = seen
            .lock()
            .unwrap()
            .game_events
            .get(&key)
            .map_or(0, Vec::len);
        if got >= expected {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    false
}

/// The delivery times of the actions `done` ((game, version, answered)): per stream event,
/// and per action the time until the last expected stream had it.
fn delivery_report(
    seen: &Seen,
    done: &[(String, i64, Instant)],
    expected: &HashMap<String, usize>,
) -> Value {
    let (mut each, mut every, mut turn) = (Vec::new(), Vec::new(), Vec::new());
    let mut missing = 0;
    for (game, version, answered) in done {
        let key = (game.clone(), *version);
        let times = seen.game_events.get(&key).cloned().unwrap_or_default();
        missing += expected[game].saturating_sub(times.len());
        let lag = |t: &Instant| t.saturating_duration_since(*answered);
        each.extend(times.iter().map(lag));
        if let Some(last) = times.iter().max() {
            every.push(lag(last));
        }
        if let Some(times) = seen.your_turn.get(&key) {
            turn.extend(times.iter().map(lag));
        }
    }
    json!({
        "actions": done.len(),
        // Deliveries: the actions' events received on game streams, and the notices on user
        // streams.
        "game_stream_events": each.len(),
        "your_turn_notices": turn.len(),
        "to_each_game_stream": percentiles(&mut each),
        "to_every_game_stream_of_the_action": percentiles(&mut every),
        "your_turn_to_user_streams": percentiles(&mut turn),
        "missing": missing,
    })
}

#[tokio::main]
async fn main() {
    let args = parse_args();
    let client = Arc::new(Client::new(&args.url, 64));
    let run = format!("{:x}", std::process::id());
    eprintln!("registering {} players...", args.games * 3);
    let mut users = Vec::new();
    for index in 0..args.games * 3 {
        users.push(client.user(&format!("s{run}u{index}")).await);
    }
    let mut games = Vec::new();
    for (index, table) in users.chunks(3).enumerate() {
        let tokens = table.iter().map(|(token, _)| token.clone()).collect();
        games.push(new_game(&client, tokens, index as u64).await);
    }
    let rss = |what: &str| {
        let kib = args.server_pid.and_then(rss_kib);
        eprintln!("server RSS {what}: {kib:?} KiB");
        kib
    };
    // Idle a moment so that what the set-up allocated has settled.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = rss("before the streams");

    eprintln!("opening {} streams...", args.streams);
    let seen = Arc::new(Mutex::new(Seen::default()));
    let game_streams = args.streams / 2;
    let mut expected: HashMap<String, usize> = HashMap::new();
    let gate = Arc::new(Semaphore::new(args.open_concurrency));
    let opened = Arc::new(AtomicUsize::new(0));
    let opening = Instant::now();
    // In two steps, a tenth and the rest: the memory the first tenth adds includes what the
    // set-up left for the allocator to reuse (argon2's buffers, say), so the memory per
    // stream is the growth over the rest.
    let first = (args.streams / 10).max(1);
    let mut first_rss = None;
    for range in [0..first, first..args.streams] {
        let mut openers = Vec::new();
        for index in range.clone() {
            // Even: a game stream (games round-robin); odd: a user stream. Users round-robin.
            let (token, _) = &users[index % users.len()];
            let game = (index % 2 == 0).then(|| games[(index / 2) % games.len()].id.clone());
            if let Some(game) = &game {
                *expected.entry(game.clone()).or_default() += 1;
            }
            let path = match &game {
                Some(game) => format!("/games/{game}/stream"),
                None => "/me/stream".to_string(),
            };
            let (client, seen, gate, opened, token) = (
                client.clone(),
                seen.clone(),
                gate.clone(),
                opened.clone(),
                token.clone(),
            );
            openers.push(tokio::spawn(async move {
                let permit = gate.acquire_owned().await.unwrap();
                let response = client.open(&path, &token).await;
                drop(permit);
                opened.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(read_stream(response, seen, game));
            }));
        }
        for opener in openers {
            opener.await.unwrap();
        }
        if range.start == 0 {
            tokio::time::sleep(Duration::from_secs(2)).await;
            first_rss = rss(&format!("with {first} streams open"));
        }
    }
    let open_seconds = opening.elapsed().as_secs_f64();
    eprintln!(
        "{} streams open in {open_seconds:.1} s",
        opened.load(Ordering::Relaxed)
    );
    // The snapshots are in; let the streams settle into idleness (a presence beat included).
    tokio::time::sleep(Duration::from_secs(5)).await;
    let after = rss("with the streams open");
    let per_stream = match (first_rss, after) {
        (Some(b), Some(a)) if args.streams > first => {
            json!((a.saturating_sub(b) as f64 * 1024.0 / (args.streams - first) as f64).round())
        }
        _ => Value::Null,
    };

    // Single actions, one game at a time.
    eprintln!("{} single actions...", args.actions);
    let mut single = Vec::new();
    for index in 0..args.actions {
        let game = &mut games[index % args.games];
        let Some((version, answered)) = act(&client, game).await else {
            continue;
        };
        let id = game.id.clone();
        wait_for(&seen, &id, version, expected[&id]).await;
        single.push((id, version, answered));
        // Let the your_turn notices in before the next action.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Waves: one action in every game at once.
    eprintln!("{} waves of {} actions at once...", args.waves, args.games);
    let mut waves = Vec::new();
    let mut wave_every = Vec::new();
    let mut wave_cpu = CpuUse::default();
    support::run_hook(&args.on_start);
    for wave in 0..args.waves {
        let started = Instant::now();
        let cpu_before = CpuUse::snapshot(args.server_pid);
        let tasks: Vec<_> = games
            .drain(..)
            .map(|mut game| {
                let client = client.clone();
                tokio::spawn(async move {
                    let done = act(&client, &mut game).await;
                    (game, done)
                })
            })
            .collect();
        let mut this_wave = Vec::new();
        for task in tasks {
            let (game, done) = task.await.unwrap();
            if let Some((version, answered)) = done {
                this_wave.push((game.id.clone(), version, answered));
            }
            games.push(game);
        }
        for (id, version, _) in &this_wave {
            wait_for(&seen, id, *version, expected[id]).await;
        }
        wave_cpu.add(
            cpu_before,
            CpuUse::snapshot(args.server_pid),
            started.elapsed(),
        );
        // From the first action sent to the last stream served, for the whole wave.
        let last = {
            let seen = seen.lock().unwrap();
            this_wave
                .iter()
                .filter_map(|(id, v, _)| {
                    seen.game_events
                        .get(&(id.clone(), *v))?
                        .iter()
                        .max()
                        .copied()
                })
                .max()
        };
        if let Some(last) = last {
            wave_every.push(last.saturating_duration_since(started));
        }
        waves.extend(this_wave);
        if wave + 1 < args.waves {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    support::run_hook(&args.on_stop);
    let seen = seen.lock().unwrap();
    let report = json!({
        "streams": args.streams,
        "game_streams": game_streams,
        "user_streams": args.streams - game_streams,
        "games": args.games,
        "users": users.len(),
        "open_seconds": (open_seconds * 10.0).round() / 10.0,
        "server_rss_kib_before": before,
        "server_rss_kib_with_a_tenth": first_rss,
        "server_rss_kib_after": after,
        "server_bytes_per_idle_stream": per_stream,
        "single_actions": delivery_report(&seen, &single, &expected),
        "waves": delivery_report(&seen, &waves, &expected),
        "wave_first_send_to_last_stream": percentiles(&mut wave_every),
        "wave_cpu": wave_cpu.report(waves.len(), game_streams as f64 / args.games as f64),
        "game_stream_data_bytes": seen.data_bytes.iter().map(|(event, (count, total, max))| {
            (event.clone(), json!({"messages": count, "mean": total / (*count).max(1), "max": max}))
        }).collect::<serde_json::Map<_, _>>(),
    });
    println!("{report}");
    // The streams end with the process.
    std::process::exit(0);
}
