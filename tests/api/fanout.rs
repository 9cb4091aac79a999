//! Live fan-out: a game's streams share one read per change (issue 26), and each gets a
//! `view` event (`GameUpdate`) that says what `GET /games/{id}` would say at that version.

use crate::bots;
use crate::live::{Sse, Stream};
use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

/// The fields of `GameDetail` a `view` event carries.
const UPDATE_FIELDS: [&str; 15] = [
    "id",
    "kind",
    "version",
    "at_version",
    "status",
    "pending",
    "your_turn",
    "turn_started_at",
    "finished_at",
    "outcome",
    "seats",
    "view",
    "legal",
    "undo",
    "seed",
];

/// Reads `stream` until its `view` event for `version`; every event before it is kept.
async fn view_at(stream: &mut Stream, version: i64, who: &str) -> (Sse, Vec<Sse>) {
    let mut before = Vec::new();
    loop {
        let event = stream
            .next(WAIT)
            .await
            .unwrap_or_else(|| panic!("{who}'s stream sent no view of version {version}"));
        if event.event == "view" {
            assert!(
                event.data["version"].as_i64().unwrap() <= version,
                "{who}'s view is ahead of the game: {}",
                event.data
            );
            if event.data["version"] == version {
                return (event, before);
            }
        }
        before.push(event);
    }
}

#[tokio::test]
async fn every_view_event_says_what_get_game_says_for_each_seat_and_a_spectator() {
    let app = spawn_app().await;
    let mut table = Vec::new();
    for name in ["anna", "bert", "cleo"] {
        table.push(app.register(name).await);
    }
    let spectator = app.register("dora").await;
    let game = app.start_game("flying-dutchman", json!({}), &table).await;
    let watchers: Vec<&User> = table.iter().chain([&spectator]).collect();
    let mut streams = Vec::new();
    for user in &watchers {
        let mut stream = Stream::open(
            &app.address,
            &format!("/games/{game}/stream"),
            &user.token,
            None,
        )
        .await;
        assert_eq!(stream.next(WAIT).await.unwrap().event, "snapshot");
        streams.push(stream);
    }
    let get = async |user: &User| -> Value {
        app.get(&format!("/games/{game}"))
            .as_user(user)
            .send()
            .await
            .assert_ok()
            .clone()
    };
    let mut rng = kontor::games::GameRng::from_u64(26);
    let (mut views, mut undos) = (0, 0);
    for step in 0..5_000u64 {
        let played = bots::play(&app, game, &table, bots::flying_dutchman, step, 1).await;
        let Some((mover, ended, _)) = played.action_events.last().cloned() else {
            break; // the game was over
        };
        // Now and then the mover takes the move back (`own`: at once): the log's undone
        // events and the state before them must come out right too.
        if !ended && rng.chance(1, 8) {
            let mine = get(&table[mover]).await;
            if mine["undo"]["can_undo_to"].is_i64() {
                app.post(&format!("/games/{game}/undo"))
                    .as_user(&table[mover])
                    .json(&json!({"at_version": mine["version"]}))
                    .send()
                    .await
                    .assert_ok();
                undos += 1;
            }
        }
        let version = get(&table[0]).await["version"].as_i64().unwrap();
        for (stream, user) in streams.iter_mut().zip(&watchers) {
            let (view, before) = view_at(stream, version, &user.name).await;
            assert_eq!(view.raw_id, None, "the view has no id of its own");
            let last_event = before.iter().rev().find(|e| e.event == "event");
            assert!(
                last_event.is_none_or(|e| e.id == Some(version)),
                "the view comes after the last event, with its id"
            );
            let detail = get(user).await;
            assert_eq!(detail["version"], version, "nothing moved meanwhile");
            for field in UPDATE_FIELDS {
                assert_eq!(
                    view.data[field], detail[field],
                    "{}'s view event differs from GET /games/{{id}} in `{field}` at version {version}",
                    user.name
                );
            }
            let keys = view.data.as_object().unwrap().len();
            assert_eq!(keys, UPDATE_FIELDS.len(), "no more: {}", view.data);
            views += 1;
        }
        if ended {
            break;
        }
    }
    assert_eq!(
        get(&table[0]).await["status"],
        "finished",
        "the game was played out"
    );
    assert!(undos > 0, "some moves were taken back");
    assert!(views > 100, "{views} views compared");
}

/// How often the log and the chat were read on the test's database (index and sequential
/// scans of `game_events` and `chat_messages`), once the server's backends have reported
/// their counts (an idle backend reports within 10 s). Presence ticks and credential checks
/// read neither, so the count is what following the game's changes costs.
async fn log_and_chat_reads(app: &TestApp) -> i64 {
    tokio::time::sleep(Duration::from_secs(12)).await;
    sqlx::query_scalar(
        "SELECT sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::bigint
           FROM pg_stat_user_tables WHERE relname IN ('game_events', 'chat_messages')",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

/// The log and chat reads of `changes` actions in a game followed by `streams` streams (of
/// the three seats and a spectator in turn), each stream having received every change.
async fn reads_per_game_followed_by(streams: usize, changes: usize) -> i64 {
    let app = spawn_app_with(AppOptions {
        settings: [
            ("KONTOR_LIVE_MAX_STREAMS_PER_USER", "64"),
            ("KONTOR_LIVE_MAX_STREAMS_PER_ADDRESS", "256"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    })
    .await;
    let mut table = Vec::new();
    for name in ["anna", "bert", "cleo"] {
        table.push(app.register(name).await);
    }
    let spectator = app.register("dora").await;
    let game = app.start_game("flying-dutchman", json!({}), &table).await;
    let watchers = [&table[0], &spectator, &table[1], &table[2]];
    let mut open = Vec::new();
    for i in 0..streams {
        let user = watchers[i % watchers.len()];
        let mut stream = Stream::open(
            &app.address,
            &format!("/games/{game}/stream"),
            &user.token,
            None,
        )
        .await;
        assert_eq!(stream.next(WAIT).await.unwrap().event, "snapshot");
        open.push(stream);
    }
    let before = log_and_chat_reads(&app).await;
    for step in 0..changes as u64 {
        bots::play(&app, game, &table, bots::flying_dutchman, step, 1).await;
        let detail = app
            .get(&format!("/games/{game}"))
            .as_user(&table[0])
            .send()
            .await;
        let version = detail.assert_ok()["version"].as_i64().unwrap();
        for stream in &mut open {
            view_at(stream, version, "a watcher").await;
        }
    }
    log_and_chat_reads(&app).await - before
}

#[tokio::test]
async fn twenty_streams_on_a_game_cost_the_database_no_more_reads_per_change_than_two() {
    let changes = 10;
    let (two, twenty) = tokio::join!(
        reads_per_game_followed_by(2, changes),
        reads_per_game_followed_by(20, changes)
    );
    eprintln!("log and chat reads for {changes} changes: 2 streams {two}, 20 streams {twenty}");
    // Each stream reading its own page of the log and of the chat would cost 18 streams × 2
    // reads × 10 changes = 360 more; one reading per game and change costs nothing more.
    // (A little slack: the actions themselves read the log too, at their own pace.)
    assert!(
        twenty <= two + changes as i64,
        "20 streams cost {twenty} reads of the log and chat for {changes} changes, 2 streams {two}"
    );
    assert!(two > 0, "the reads are counted at all");
}
