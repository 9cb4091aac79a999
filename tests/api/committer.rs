//! Group commit and the state snapshot: appends to many games written together, each on its
//! own compare-and-set, and states read from a snapshot plus the events after it.

use crate::bots;
use crate::support::*;
use chrono::Utc;
use futures_util::future::join_all;
use kontor::games::steel_driver::SteelDriver;
use kontor::games::{Rules, Viewer};
use kontor::service::play::log::fold_to;
use kontor::store::append::{Append, Clocks, CommandRecord};
use kontor::store::events::{Batch, NewEvent, SNAPSHOT_EVERY};
use serde_json::json;
use uuid::Uuid;

async fn head_version(app: &TestApp, game: Uuid) -> i64 {
    sqlx::query_scalar("SELECT version FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// One marker event for `game`, decided on version `at`, under `key`.
struct Marker {
    game: Uuid,
    at: i64,
    key: &'static str,
    events: Vec<NewEvent>,
}

impl Marker {
    fn new(game: Uuid, at: i64, key: &'static str) -> Self {
        let event = NewEvent {
            kind: "kontor.test_marker".into(),
            payload: json!({"type": "kontor.test_marker", "key": key}),
            audience: None,
            actor: None,
        };
        Self {
            game,
            at,
            key,
            events: vec![event],
        }
    }

    fn append(&self, user: Uuid) -> Append<'_, ()> {
        Append {
            game_id: self.game,
            expected_version: self.at,
            version: self.at + 1,
            undone_events: 0,
            status: "active",
            pending: &[0],
            outcome: None,
            at: Utc::now(),
            first_seq: self.at + 1,
            events: Batch::new(&self.events, self.at + 1),
            rules_version: 1,
            snapshots: &[],
            commands: vec![CommandRecord {
                id: Uuid::now_v7(),
                user_id: Some(user),
                idempotency_key: Some(self.key),
                request_hash: Some(b"marker"),
                seat: Some(0),
                command: json!({"type": "marker"}),
                response: "{}".into(),
                first_seq: self.at + 1,
                last_seq: self.at + 1,
                auto: None,
            }],
            orders_revision: None,
            orders: &[],
            closes_undo: false,
            clocks: Clocks {
                arm: &[],
                disarm: &[],
            },
            seats: &[],
            mail: &[],
        }
    }
}

#[tokio::test]
async fn appends_to_many_games_go_together_and_each_stands_on_its_own_version() {
    let app = spawn_app().await;
    let players = vec![
        app.register("ines").await,
        app.register("jon").await,
        app.register("kai").await,
    ];
    let mut games = Vec::new();
    for _ in 0..4 {
        games.push(app.start_game("steel-driver", json!({}), &players).await);
    }
    let user = players[0].id;
    let mut at = Vec::new();
    for &game in &games {
        at.push(head_version(&app, game).await);
    }
    // The third game has used the key "taken" already.
    let first_use = Marker::new(games[2], at[2], "taken");
    assert!(
        app.committer
            .append(&first_use.append(user), &json!({}))
            .await
            .unwrap()
    );
    // Submitted at once, these form one batch: a fresh append, a stale one, a reused key
    // (which fails the batch as a whole, so it is written again one by one) and a fresh one.
    let markers = [
        Marker::new(games[0], at[0], "a"),
        Marker::new(games[1], at[1] - 1, "b"),
        Marker::new(games[2], at[2] + 1, "taken"),
        Marker::new(games[3], at[3], "d"),
    ];
    let appends: Vec<_> = markers.iter().map(|m| m.append(user)).collect();
    let note = json!({});
    let written: Vec<bool> = join_all(appends.iter().map(|a| app.committer.append(a, &note)))
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(written, [true, false, false, true]);
    let expected_heads = [at[0] + 1, at[1], at[2] + 1, at[3] + 1];
    for (i, &game) in games.iter().enumerate() {
        assert_eq!(
            head_version(&app, game).await,
            expected_heads[i],
            "game {i}"
        );
        let expected: Vec<i64> = (1..=expected_heads[i]).collect();
        assert_eq!(
            app.event_seqs(game).await,
            expected,
            "game {i}: no gap, no duplicate"
        );
    }
}

#[tokio::test]
async fn actions_on_many_games_at_once_each_get_their_own_answer() {
    let app = spawn_app().await;
    let players = vec![
        app.register("lea").await,
        app.register("max").await,
        app.register("nia").await,
    ];
    let mut games = Vec::new();
    for _ in 0..6 {
        games.push(app.start_game("steel-driver", json!({}), &players).await);
    }
    // Everyone who may act in every game, at once, twice: once at the version they saw and
    // once at the version before it.
    let mut moves = Vec::new();
    for &game in &games {
        let detail = app
            .get(&format!("/games/{game}"))
            .as_user(&players[0])
            .send()
            .await;
        let seat = detail.assert_ok()["pending"][0].as_u64().unwrap() as usize;
        let mine = app
            .get(&format!("/games/{game}"))
            .as_user(&players[seat])
            .send()
            .await;
        let mine = mine.assert_ok().clone();
        let mut rng = kontor::games::GameRng::from_u64(7);
        let action = bots::steel_driver(&mine["legal"], &mine, &mut rng);
        let version = mine["version"].as_i64().unwrap();
        moves.push((game, seat, version, action));
    }
    let replies = join_all(moves.iter().flat_map(|(game, seat, version, action)| {
        let app = &app;
        let player = &players[*seat];
        [
            app.act(player, *game).version(*version).send(action),
            app.act(player, *game).version(*version - 1).send(action),
        ]
    }))
    .await;
    for (i, (game, _, version, _)) in moves.iter().enumerate() {
        let (fresh, stale) = (&replies[2 * i], &replies[2 * i + 1]);
        let answer = fresh.assert_ok();
        stale.assert_problem(409, "version_conflict");
        let new_version = answer["version"].as_i64().unwrap();
        assert!(new_version > *version);
        assert_eq!(head_version(&app, *game).await, new_version);
        let expected: Vec<i64> = (1..=new_version).collect();
        assert_eq!(app.event_seqs(*game).await, expected);
    }
}

#[tokio::test]
async fn the_state_cache_is_a_snapshot_and_reads_fold_the_events_after_it() {
    let app = spawn_app().await;
    let players = vec![
        app.register("olga").await,
        app.register("paul").await,
        app.register("quin").await,
    ];
    let game = app.start_game("steel-driver", json!({}), &players).await;
    bots::play(&app, game, &players, bots::steel_driver, 11, 45).await;
    let head = head_version(&app, game).await;
    let (cached, state): (i64, String) = sqlx::query_as(
        "SELECT version, state FROM game_snapshots WHERE game_id = $1
              ORDER BY version DESC LIMIT 1",
    )
    .bind(game)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!(
        cached >= SNAPSHOT_EVERY && cached < head,
        "the snapshot ({cached}) was written at {SNAPSHOT_EVERY} and lags the head ({head})"
    );
    let mut conn = app.pool.acquire().await.unwrap();
    let at_snapshot = fold_to::<SteelDriver>(&mut conn, game, cached)
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&at_snapshot).unwrap(),
        serde_json::from_str::<serde_json::Value>(&state).unwrap(),
        "the snapshot is the log folded to its version"
    );
    // A reader that is not this instance's last writer: the view from snapshot + events.
    let watcher = app.register("rita").await;
    let seen = app
        .get(&format!("/games/{game}"))
        .as_user(&watcher)
        .send()
        .await;
    let now = fold_to::<SteelDriver>(&mut conn, game, head).await.unwrap();
    assert_eq!(
        seen.assert_ok()["view"],
        serde_json::to_value(SteelDriver::view(&now, Viewer::Spectator)).unwrap()
    );
}
