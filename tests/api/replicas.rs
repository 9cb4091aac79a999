//! Read replicas: a primary and a streaming (asynchronous) replica on loopback, made with
//! `initdb` and `pg_basebackup -R`, the server given the replica in `KONTOR_REPLICA_URLS`.
//! The reads that may be late are answered by the replica (seen stale while its replay is
//! paused), a player's own write is read back at once all the same, a replica lagging beyond
//! the bound or stopped sends its reads to the primary, and no read fails meanwhile.

use crate::failover::{Follower, primary_and_streaming_standby, superuser, tool};
use crate::operations::{a_game_under_way, game_version};
use crate::support::*;
use kontor::store::replica::Replicas;
use std::time::{Duration, Instant};

/// The bound on the replica's lag in this test.
const MAX_LAG: Duration = Duration::from_secs(3);
/// The longest any wait here may take.
const WAIT: Duration = Duration::from_secs(30);

/// The seq of the last event in an ndjson export (0 when it has none).
fn last_seq(export: &str) -> i64 {
    export
        .lines()
        .skip(1)
        .last()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["seq"]
                .as_i64()
                .unwrap()
        })
        .unwrap_or(0)
}

/// A late read's answer, comparable between two reads of an unchanged game: an export without
/// the instant it was made, else the JSON body.
fn comparable(path: &str, reply: &Reply) -> Vec<serde_json::Value> {
    assert_eq!(reply.status, 200, "{path}: {}", reply.text);
    match path.ends_with("/export") {
        true => without_export_time(&reply.text),
        false => vec![reply.body.clone()],
    }
}

/// An export without the instant it was made (`exported_at`), which differs every time.
fn without_export_time(export: &str) -> Vec<serde_json::Value> {
    let mut lines: Vec<serde_json::Value> = export
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let header = lines[0].as_object_mut().unwrap();
    assert!(header.remove("exported_at").is_some());
    lines
}

async fn export(app: &TestApp, game: uuid::Uuid, user: &User) -> String {
    let reply = app
        .get(&format!("/games/{game}/export"))
        .as_user(user)
        .send()
        .await;
    reply.assert_ok();
    reply.text
}

/// `user`'s export of `game`, read again (bounded) until the replica answers it with the
/// game at `version`.
async fn export_from_replica_at(
    app: &TestApp,
    replicas: &Replicas,
    game: uuid::Uuid,
    user: &User,
    version: i64,
) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let served = replicas.reads_served();
        let text = export(app, game, user).await;
        if replicas.reads_served() > served && last_seq(&text) == version {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "the replica did not answer {}'s export at version {version}",
            user.name
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn late_reads_go_to_the_replica_own_writes_and_a_lost_or_lagging_replica_to_the_primary() {
    prepare_process();
    let pair = primary_and_streaming_standby("replicas", false).await;
    let url = |port: u16| format!("postgres://kontor@127.0.0.1:{port}/kontor");
    let (primary, replica) = (url(pair.primary_port), url(pair.standby_port));
    let server = Follower::start(
        &primary,
        &pair.dir,
        &[
            ("KONTOR_DB_POOL_SIZE", "4"),
            ("KONTOR_REPLICA_URLS", &replica),
            ("KONTOR_REPLICA_MAX_LAG_MS", "3000"),
        ],
    )
    .await;
    let (app, replicas) = (&server.app, server.state.replicas.clone());
    let (game, players, version) = a_game_under_way(app, 5, 8).await;

    // Caught up: the replica answers every player's export, with the game as it is.
    for player in &players {
        export_from_replica_at(app, &replicas, game, player, version).await;
    }
    // Each kind of late read is answered by the replica (none of them writes).
    for path in [
        format!("/games/{game}?at=1"),
        "/players/anna".to_string(),
        "/players/anna/ratings/flying-dutchman".to_string(),
        "/leaderboards/flying-dutchman".to_string(),
        "/tournaments".to_string(),
        "/games?view=finished".to_string(),
        format!("/games/{game}/export"),
    ] {
        let served = replicas.reads_served();
        app.get(&path).as_user(&players[1]).send().await.assert_ok();
        assert_eq!(
            replicas.reads_served(),
            served + 1,
            "{path} was answered by the replica"
        );
    }

    // Replay paused: the replica stays at `version` while the game moves on.
    let replica_admin = kontor::store::connect(superuser(pair.standby_port), 1)
        .await
        .unwrap();
    sqlx::query("SELECT pg_wal_replay_pause()")
        .execute(&replica_admin)
        .await
        .unwrap();
    let acted = Instant::now();
    let seen = crate::bots::play(app, game, &players, crate::bots::flying_dutchman, 21, 1).await;
    let actor = seen.action_events[0].0;
    let other = &players[(actor + 1) % players.len()];
    let moved = game_version(app, game, &players[0]).await;
    assert!(moved > version);
    // The player who acted reads their own write at once (from the primary)...
    let fallbacks = replicas.fallbacks();
    assert_eq!(last_seq(&export(app, game, &players[actor]).await), moved);
    assert!(replicas.fallbacks() > fallbacks, "counted as a fallback");
    // ...while another player's export, a read that may be late, is the replica's: stale.
    let served = replicas.reads_served();
    let stale = export(app, game, other).await;
    assert_eq!(replicas.reads_served(), served + 1);
    assert_eq!(last_seq(&stale), version, "the paused replica answered");
    // A version the replica does not have yet is refused there and asked of the primary.
    let fallbacks = replicas.fallbacks();
    let at = app
        .get(&format!("/games/{game}?at={moved}"))
        .as_user(other)
        .send()
        .await;
    assert_eq!(at.assert_ok()["at_version"], moved);
    assert!(replicas.fallbacks() > fallbacks);

    // Beyond the bound: the lagging replica is passed over, reads come from the primary.
    eprintln!(
        "the paused replica lags {:?} (the action was accepted {:?} ago)",
        replicas.lag(),
        acted.elapsed()
    );
    let deadline = Instant::now() + WAIT;
    while replicas.lag().is_none_or(|lag| lag <= MAX_LAG) {
        assert!(
            Instant::now() < deadline,
            "the paused replica's lag never grew"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (served, fallbacks) = (replicas.reads_served(), replicas.fallbacks());
    assert_eq!(last_seq(&export(app, game, other).await), moved);
    assert_eq!(replicas.reads_served(), served, "not the replica's answer");
    assert_eq!(replicas.fallbacks(), fallbacks + 1);

    // Replay resumed: the replica catches up and answers again, exactly as the primary does.
    sqlx::query("SELECT pg_wal_replay_resume()")
        .execute(&replica_admin)
        .await
        .unwrap();
    replica_admin.close().await;
    let from_replica = export_from_replica_at(app, &replicas, game, other, moved).await;
    // What the replica answers each player, to be compared with the primary's answers below.
    let late_reads = [
        format!("/games/{game}?at={moved}"),
        format!("/games/{game}?at={version}"),
        format!("/games/{game}/export"),
    ];
    let mut replica_answers = Vec::new();
    for player in &players {
        export_from_replica_at(app, &replicas, game, player, moved).await;
        for path in &late_reads {
            let served = replicas.reads_served();
            let reply = app.get(path).as_user(player).send().await;
            reply.assert_ok();
            assert_eq!(
                replicas.reads_served(),
                served + 1,
                "{path} from the replica"
            );
            replica_answers.push(comparable(path, &reply));
        }
    }

    // The replica stopped: every read is answered (by the primary), never an error.
    let standby = pair.standby.clone();
    tokio::task::spawn_blocking(move || {
        crate::failover::succeed(
            tool("pg_ctl")
                .arg("-D")
                .arg(&standby)
                .args(["-m", "immediate", "-w", "stop"]),
            "stopping the replica",
        )
    })
    .await
    .unwrap();
    let fallbacks = replicas.fallbacks();
    let served = replicas.reads_served();
    let first = Instant::now();
    export(app, game, other).await;
    eprintln!(
        "the first export after the replica's stop took {:?}",
        first.elapsed()
    );
    for _ in 0..3 {
        assert_eq!(
            without_export_time(&export(app, game, other).await),
            without_export_time(&from_replica),
            "the primary's answer is the replica's: the same redaction"
        );
        for path in [
            format!("/games/{game}?at={moved}"),
            "/players/anna".to_string(),
            "/leaderboards/flying-dutchman".to_string(),
            "/tournaments".to_string(),
            "/games?view=finished".to_string(),
        ] {
            app.get(&path).as_user(other).send().await.assert_ok();
        }
    }
    assert_eq!(
        replicas.reads_served(),
        served,
        "none from the stopped replica"
    );
    assert!(replicas.fallbacks() >= fallbacks + 19, "each counted");
    // Each player's late reads, answered by the primary now, are exactly what the replica
    // answered: the same code, the same redaction of what that seat may not see.
    let mut primary_answers = Vec::new();
    for player in &players {
        for path in &late_reads {
            let reply = app.get(path).as_user(player).send().await;
            primary_answers.push(comparable(path, &reply));
        }
    }
    assert_eq!(primary_answers, replica_answers);
    assert_eq!(
        replicas.reads_served(),
        served,
        "none from the stopped replica"
    );
    let deadline = Instant::now() + WAIT;
    while replicas.lag().is_some() {
        assert!(
            Instant::now() < deadline,
            "the stopped replica went unnoticed"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    server.stop().await;
}
