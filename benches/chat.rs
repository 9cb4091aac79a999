//! Table talk under load, on one running Kontor server:
//!
//! 1. **Throughput**: `--games` Steel Driver games played by bots as `benches/load.rs` plays
//!    them, first alone for `--seconds`, then for as long again while in every game a chat
//!    client sends table messages one after another (closed loop, the sender's seat in turn).
//!    Reports the moves' throughput and latency in both halves, and the chat messages the
//!    server accepted per second with their latency. The server must not rate-limit the chat
//!    (`KONTOR_CHAT_INTERVAL_SECS=0`, a high `KONTOR_CHAT_DAILY_MAX`).
//! 2. **Delay to readers**: a new game among three more users, `--streams` game streams on it
//!    (spread over its three players: the per-user stream limit must allow that many), then
//!    `--messages` table messages one at a time (the seats in turn), each once every stream has
//!    the one before. Reports the time from sending a message (the POST leaving the client) to
//!    its `chat` event on each stream, and to the last stream, as percentiles, and the same from
//!    its acceptance (the POST's answer arriving).
//!
//! ```text
//! cargo bench --bench chat -- --url http://127.0.0.1:8080 --games 32 --seconds 20 \
//!     --streams 100 --messages 200
//! ```
//!
//! `deploy/bench-chat.sh` runs it against a release build on a private durable PostgreSQL.

mod support;

use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{Client, Game, new_game, percentiles, read_events};

struct Args {
    url: String,
    games: usize,
    seconds: u64,
    streams: usize,
    messages: usize,
}

fn parse_args() -> Args {
    let mut args = Args {
        url: "http://127.0.0.1:8080".into(),
        games: 32,
        seconds: 20,
        streams: 100,
        messages: 200,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--url" => args.url = it.next().expect("--url needs a value"),
            "--games" => args.games = support::number(&mut it, "--games"),
            "--seconds" => args.seconds = support::number(&mut it, "--seconds"),
            "--streams" => args.streams = support::number(&mut it, "--streams"),
            "--messages" => args.messages = support::number(&mut it, "--messages"),
            // cargo bench passes --bench; ignore what is not ours.
            _ => {}
        }
    }
    assert!(
        args.games > 0 && args.streams > 0,
        "at least a game and a stream"
    );
    args
}

/// Sends one table message in `game` as the player holding `token`; the status, the answer
/// and when it was sent and answered.
async fn say(
    client: &Client,
    game: &str,
    token: &str,
    text: &str,
) -> (u16, Value, Instant, Instant) {
    let key = uuid::Uuid::new_v4().to_string();
    let sent = Instant::now();
    let (status, answer) = client
        .post_keyed(
            &format!("/games/{game}/chat/table/messages"),
            Some(token),
            &json!({"text": text}),
            Some(&key),
        )
        .await;
    (status, answer, sent, Instant::now())
}

/// What one half of the throughput run measured.
#[derive(Default)]
struct Half {
    moves: Vec<Duration>,
    conflicts: u64,
    messages: Vec<Duration>,
    refused: HashMap<u16, u64>,
}

/// Plays every game for `seconds` (and chats in every game if `chat`); returns the games as
/// they were left and what was measured.
async fn run(
    client: &Arc<Client>,
    games: Vec<Game>,
    seconds: u64,
    chat: bool,
) -> (Vec<Game>, Half, f64) {
    let stop = Arc::new(AtomicBool::new(false));
    let half = Arc::new(Mutex::new(Half::default()));
    let started = Instant::now();
    let mut movers = Vec::new();
    let mut chatters = Vec::new();
    for (index, mut game) in games.into_iter().enumerate() {
        if chat {
            let (client, stop, half) = (client.clone(), stop.clone(), half.clone());
            let (id, tokens) = (game.id.clone(), game.tokens.clone());
            chatters.push(tokio::spawn(async move {
                let (mut took, mut refused) = (Vec::new(), HashMap::<u16, u64>::new());
                let mut n = 0usize;
                while !stop.load(Ordering::Relaxed) {
                    let token = &tokens[n % tokens.len()];
                    let text = format!("offer {n}: two shares of the red line for the coal link?");
                    let (status, _, sent, answered) = say(&client, &id, token, &text).await;
                    match status {
                        201 => took.push(answered - sent),
                        status => *refused.entry(status).or_default() += 1,
                    }
                    n += 1;
                }
                let mut half = half.lock().unwrap();
                half.messages.extend(took);
                for (status, count) in refused {
                    *half.refused.entry(status).or_default() += count;
                }
            }));
        }
        let (client, stop, half) = (client.clone(), stop.clone(), half.clone());
        movers.push(tokio::spawn(async move {
            let (mut took, mut conflicts) = (Vec::new(), 0u64);
            while !stop.load(Ordering::Relaxed) {
                let Some(acted) = support::act(&client, &mut game).await else {
                    game = new_game(&client, game.tokens.clone(), index as u64 + 1000).await;
                    continue;
                };
                match acted.status {
                    200 => took.push(acted.took),
                    409 => conflicts += 1,
                    status => panic!("action refused ({status}): {}", acted.answer),
                }
            }
            let mut half = half.lock().unwrap();
            half.moves.extend(took);
            half.conflicts += conflicts;
            game
        }));
    }
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let mut games = Vec::new();
    for mover in movers {
        games.push(mover.await.unwrap());
    }
    for chatter in chatters {
        chatter.await.unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let half = std::mem::take(&mut *half.lock().unwrap());
    (games, half, elapsed)
}

fn half_report(mut half: Half, seconds: f64) -> Value {
    let mut report = json!({
        "seconds": (seconds * 10.0).round() / 10.0,
        "accepted_actions": half.moves.len(),
        "actions_per_second": (half.moves.len() as f64 / seconds).round(),
        "action_latency": percentiles(&mut half.moves),
        "conflicts": half.conflicts,
    });
    if !half.messages.is_empty() || !half.refused.is_empty() {
        report["accepted_messages"] = json!(half.messages.len());
        report["messages_per_second"] = json!((half.messages.len() as f64 / seconds).round());
        report["message_latency"] = percentiles(&mut half.messages);
        report["refused_messages_by_status"] = json!(half.refused);
    }
    report
}

/// Each message's (by id) arrival times on the streams.
type Arrivals = Arc<Mutex<HashMap<i64, Vec<Instant>>>>;

/// Waits (bounded) until `expected` streams have message `id`; false on the bound.
async fn wait_for(arrivals: &Arrivals, id: i64, expected: usize) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if arrivals.lock().unwrap().get(&id).map_or(0, Vec::len) >= expected {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    false
}

/// Part 2: `streams` streams on one game, `messages` messages one at a time.
async fn delays(client: &Arc<Client>, run_id: &str, streams: usize, messages: usize) -> Value {
    let mut tokens = Vec::new();
    for seat in 0..3 {
        tokens.push(client.user(&format!("c{run_id}d{seat}")).await.0);
    }
    let game = new_game(client, tokens.clone(), 7).await;
    let arrivals: Arrivals = Arc::default();
    let snapshots = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let path = format!("/games/{}/stream", game.id);
    for index in 0..streams {
        let response = client.open(&path, &tokens[index % tokens.len()]).await;
        let (arrivals, snapshots) = (arrivals.clone(), snapshots.clone());
        tokio::spawn(read_events(response, move |message| {
            match message.event.as_str() {
                "snapshot" => {
                    snapshots.fetch_add(1, Ordering::Relaxed);
                }
                "chat" => {
                    let data: Value = serde_json::from_str(&message.data).unwrap_or(Value::Null);
                    if let Some(id) = data["id"].as_i64() {
                        arrivals
                            .lock()
                            .unwrap()
                            .entry(id)
                            .or_default()
                            .push(message.at);
                    }
                }
                _ => {}
            }
        }));
    }
    while snapshots.load(Ordering::Relaxed) < streams {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (mut from_send, mut from_accept, mut to_last, mut posts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut missing = 0;
    for n in 0..messages {
        let text = format!("message {n} to the table");
        let (status, answer, sent, answered) =
            say(client, &game.id, &tokens[n % tokens.len()], &text).await;
        assert_eq!(status, 201, "message refused: {answer}");
        let id = answer["id"].as_i64().expect("the message's id");
        wait_for(&arrivals, id, streams).await;
        let times = arrivals
            .lock()
            .unwrap()
            .get(&id)
            .cloned()
            .unwrap_or_default();
        missing += streams.saturating_sub(times.len());
        posts.push(answered - sent);
        from_send.extend(times.iter().map(|t| t.saturating_duration_since(sent)));
        from_accept.extend(times.iter().map(|t| t.saturating_duration_since(answered)));
        if let Some(last) = times.iter().max() {
            to_last.push(last.saturating_duration_since(sent));
        }
    }
    json!({
        "streams": streams,
        "messages": messages,
        "post_latency": percentiles(&mut posts),
        "send_to_each_stream": percentiles(&mut from_send),
        "send_to_last_stream": percentiles(&mut to_last),
        "acceptance_to_each_stream": percentiles(&mut from_accept),
        "missing": missing,
    })
}

#[tokio::main]
async fn main() {
    let args = parse_args();
    let client = Arc::new(Client::new(&args.url, args.games * 4));
    let run_id = format!("{:x}", std::process::id());
    eprintln!("registering {} players...", args.games * 3);
    let mut games = Vec::new();
    for index in 0..args.games {
        let mut tokens = Vec::new();
        for seat in 0..3 {
            tokens.push(client.user(&format!("c{run_id}g{index}s{seat}")).await.0);
        }
        games.push(new_game(&client, tokens, index as u64).await);
    }
    eprintln!(
        "{} games, moves alone for {} s...",
        args.games, args.seconds
    );
    let (games, alone, alone_secs) = run(&client, games, args.seconds, false).await;
    eprintln!("moves and chat for {} s...", args.seconds);
    let (_games, both, both_secs) = run(&client, games, args.seconds, true).await;
    let moves_alone = half_report(alone, alone_secs);
    let moves_and_chat = half_report(both, both_secs);
    eprintln!(
        "{} streams on one game, {} messages...",
        args.streams, args.messages
    );
    let delay = delays(&client, &run_id, args.streams, args.messages).await;
    let report = json!({
        "games": args.games,
        "moves_alone": moves_alone,
        "moves_and_chat": moves_and_chat,
        "delay_to_streams": delay,
    });
    println!("{report}");
    // The streams end with the process.
    std::process::exit(0);
}
