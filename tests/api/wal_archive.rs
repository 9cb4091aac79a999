//! Continuous archiving, and the restore to the latest committed action after losing the
//! database server and everything on it. A private cluster on loopback streams its WAL to an
//! archive folder (`deploy/wal-archive.sh receive`: pg_receivewal with a replication slot,
//! named in `synchronous_standby_names`, so a commit is acknowledged only once the archive
//! has flushed it) and has a base backup there (`deploy/wal-archive.sh base-backup`), taken
//! before Kontor ever ran on it. The real server plays games, table chat and an undo over
//! HTTP; a client keeps playing while the cluster's postmaster is killed (`kill -9`) and its
//! data folder deleted, retrying each 503 with the same `Idempotency-Key`. Then
//! `deploy/wal-archive.sh restore` makes a new folder from the base backup and the archive,
//! the operator's steps follow (start it, a new archive of it), and the client's retries are
//! answered. Every acknowledged action, chat message and undo is in the log exactly once,
//! nothing else is, the finished game verifies on a new server, and play goes on. These are
//! the manual's commands (docs/operations.md, "Continuous archiving"), run as written.

use crate::failover::{
    Follower, cluster_scratch, initdb, kontor_database, superuser, tool, wait_on,
};
use crate::operations::{free_port, kill_postmaster};
use crate::support::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// The slot and application name `deploy/wal-archive.sh` uses unless told otherwise.
const ARCHIVE_NAME: &str = "kontor_archive";

/// The longest the test waits for anything: a sanity bound, the times are printed.
const BOUND: Duration = Duration::from_secs(60);

/// `deploy/wal-archive.sh <args>` as the clusters' user, with the PostgreSQL the tests use.
fn wal_archive(args: &[&Path]) -> Command {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/wal-archive.sh");
    let bin = kontor::embedded_pg::find_binaries().unwrap();
    let mut command = match kontor::embedded_pg::cluster_user() {
        Some(user) => {
            let mut c = Command::new("runuser");
            c.args(["-u", user, "--", "env"]);
            c
        }
        None => Command::new("env"),
    };
    command
        .arg(format!("KONTOR_PG_BIN={}", bin.display()))
        .arg(script)
        .args(args)
        .current_dir("/");
    command
}

/// Runs `deploy/wal-archive.sh` to its end off the runtime's threads (the server in this
/// process answers meanwhile); its output.
async fn run_wal_archive(args: &[&Path], what: &'static str) -> String {
    let mut command = wal_archive(args);
    tokio::task::spawn_blocking(move || {
        let output = command.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "{what}: {text}");
        text
    })
    .await
    .unwrap()
}

/// The archive's receiver (`deploy/wal-archive.sh receive`), in a process group of its own.
struct Receiver(Option<Child>);

impl Receiver {
    fn start(archive: &Path, conninfo: &str, log: &Path) -> Self {
        let log = std::fs::File::create(log).unwrap();
        let child = wal_archive(&[Path::new("receive"), archive, Path::new(conninfo)])
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap();
        Self(Some(child))
    }

    /// Stops it as an operator would (SIGTERM: pg_receivewal ends cleanly).
    fn stop(&mut self) {
        self.signal(libc::SIGTERM);
    }

    fn signal(&mut self, signal: libc::c_int) {
        if let Some(mut child) = self.0.take() {
            // SAFETY: killpg on the process group this test made for its own child.
            unsafe { libc::killpg(child.id() as libc::pid_t, signal) };
            let _ = child.wait();
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.signal(libc::SIGKILL);
    }
}

/// The scratch folder and the clusters in it: stopped and removed on drop.
struct Scratch {
    dir: PathBuf,
    clusters: Vec<PathBuf>,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for data in &self.clusters {
            if data.join("postmaster.pid").exists() {
                let _ = crate::operations::pg_ctl(data, &["-m", "immediate", "-w", "stop"]);
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts the cluster in `data`; if it does not start, fails with what its log says (pg_ctl
/// itself only says to look there).
fn pg_ctl_start(data: &Path, log: &Path) {
    let output = tool("pg_ctl")
        .arg("-D")
        .arg(data)
        .arg("-l")
        .arg(log)
        .args(["-w", "start"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "pg_ctl start: {}{}\n{}:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        log.display(),
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// Waits until the archive's receiver streams from the cluster on `port`, and if
/// `synchronous`, as its synchronous standby: from then on a commit is acknowledged only once
/// the archive flushed it.
async fn archive_streams(port: u16, synchronous: bool) {
    let admin = kontor::store::connect(superuser(port), 1).await.unwrap();
    let state = match synchronous {
        true => "sync_state = 'sync'",
        false => "state = 'streaming'",
    };
    wait_on(
        &admin,
        &format!(
            "SELECT count(*) = 1 FROM pg_stat_replication \
             WHERE application_name = '{ARCHIVE_NAME}' AND {state}"
        ),
        &format!("the archive's receiver: not {state}"),
    )
    .await;
    admin.close().await;
}

/// What the clients were told: per game, the events of every acknowledged action and undo
/// (seq → type) and the version the first was played at; per chat, the messages (id, text).
#[derive(Default)]
struct Told {
    events: BTreeMap<i64, String>,
    first_at: Option<i64>,
    actions: usize,
    undos: usize,
    chat: Vec<(i64, String)>,
}

impl Told {
    fn answered(&mut self, at: i64, events: &Value) {
        self.first_at.get_or_insert(at);
        for event in events.as_array().unwrap() {
            let seq = event["seq"].as_i64().unwrap();
            let kind = event["type"].as_str().unwrap().to_string();
            assert!(self.events.insert(seq, kind).is_none(), "seq {seq} twice");
        }
    }
}

/// Sends `request` until it is answered with anything but a 503 (which must carry
/// Retry-After and say the database is away or busy), counting the retries: what clients do.
/// The answer, which must be a success.
async fn acknowledged<F, Fut>(what: &str, retries: &AtomicUsize, request: F) -> Reply
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Reply>,
{
    let deadline = Instant::now() + 2 * BOUND;
    loop {
        let reply = request().await;
        if reply.status != 503 {
            assert!(reply.status.is_success(), "{what}: {}", reply.text);
            return reply;
        }
        assert!(
            reply.headers.contains_key("retry-after"),
            "{what}: {reply:?}"
        );
        assert!(
            matches!(
                reply.body["code"].as_str(),
                Some("database_unavailable" | "overloaded")
            ),
            "{what}: {}",
            reply.text
        );
        assert!(Instant::now() < deadline, "{what}: never answered");
        retries.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A client at one table: its players, what it was told, its retries.
struct Table {
    app: Arc<TestApp>,
    game: Uuid,
    players: Vec<User>,
    rng: kontor::games::GameRng,
    told: Told,
    retries: Arc<AtomicUsize>,
}

impl Table {
    async fn detail(&self, user: &User) -> Value {
        let path = format!("/games/{}", self.game);
        acknowledged(&path, &self.retries, || {
            self.app.get(&path).as_user(user).send()
        })
        .await
        .body
    }

    /// One action by a pending seat (chosen by the bots), sent with an Idempotency-Key made
    /// of the version it is played at, again after each 503; the seat, or `None` when the
    /// game is over.
    async fn act(&mut self) -> Option<usize> {
        let detail = self.detail(&self.players[0]).await;
        if detail["status"] != "active" {
            return None;
        }
        let pending = detail["pending"].as_array().unwrap();
        let seat = pending[self.rng.index(pending.len())].as_u64().unwrap() as usize;
        let mine = self.detail(&self.players[seat]).await;
        let action = crate::bots::flying_dutchman(&mine["legal"], &mine, &mut self.rng);
        let at = mine["version"].as_i64().unwrap();
        let key = format!("action-at-{at}");
        let (app, player, game) = (&self.app, &self.players[seat], self.game);
        let reply = acknowledged("an action", &self.retries, || {
            app.act(player, game).version(at).key(&key).send(&action)
        })
        .await;
        self.told.answered(at, &reply.body["events"]);
        self.told.actions += 1;
        Some(seat)
    }

    /// A message at the table, sent again after each 503 with the same key.
    async fn say(&mut self, n: usize) {
        let text = format!("message {n}");
        let key = format!("chat-{n}");
        let body = json!({ "text": text });
        let path = format!("/games/{}/chat/table/messages", self.game);
        let player = &self.players[n % self.players.len()];
        let app = &self.app;
        let reply = acknowledged("a chat message", &self.retries, || {
            app.post(&path).as_user(player).key(&key).json(&body).send()
        })
        .await;
        assert_eq!(reply.body["text"], text.as_str());
        self.told
            .chat
            .push((reply.body["id"].as_i64().unwrap(), text));
    }

    /// Plays until a seat can take its own last move back at once, and does.
    async fn undo_once(&mut self) {
        for _ in 0..100 {
            let seat = self.act().await.expect("the game runs");
            let mine = self.detail(&self.players[seat]).await;
            let undo = &mine["undo"];
            let alone = undo["needs"].as_array().is_none_or(|n| n.is_empty());
            if !undo["can_undo_to"].is_i64() || !alone {
                continue;
            }
            let at = mine["version"].as_i64().unwrap();
            let path = format!("/games/{}/undo", self.game);
            let body = json!({ "at_version": at });
            let (app, player) = (&self.app, &self.players[seat]);
            let reply = acknowledged("an undo", &self.retries, || {
                app.post(&path).as_user(player).json(&body).send()
            })
            .await;
            assert_eq!(reply.body["status"], "rewound", "{}", reply.text);
            let version = reply.body["version"].as_i64().unwrap();
            assert_eq!(version, at + 1);
            self.told
                .answered(at, &json!([{ "seq": version, "type": "kontor.rewound" }]));
            self.told.undos += 1;
            return;
        }
        panic!("no seat could take a move back");
    }

    /// Checks the log and the chat of this table against what was told, in `pool`: every
    /// acknowledged event at its seq, nothing after the first acknowledged action that nobody
    /// was told of, every message once and no other.
    async fn check(&self, pool: &sqlx::PgPool) {
        let log: Vec<(i64, String)> =
            sqlx::query_as("SELECT seq, type FROM game_events WHERE game_id = $1 ORDER BY seq")
                .bind(self.game)
                .fetch_all(pool)
                .await
                .unwrap();
        let first = self.told.first_at.unwrap();
        let kept: BTreeMap<i64, String> = log.into_iter().filter(|(s, _)| *s > first).collect();
        assert!(
            kept == self.told.events,
            "game {}: the log after version {first} is not what was acknowledged:\n \
             kept {kept:?}\n told {:?}",
            self.game,
            self.told.events
        );
        let mut messages: Vec<(i64, String)> = sqlx::query_as(
            "SELECT id, body FROM chat_messages WHERE game_id = $1 AND channel = 'table' \
             ORDER BY id",
        )
        .bind(self.game)
        .fetch_all(pool)
        .await
        .unwrap();
        let mut told = self.told.chat.clone();
        messages.sort();
        told.sort();
        assert_eq!(messages, told, "game {}: the table's chat", self.game);
    }
}

async fn table(app: &Arc<TestApp>, names: &[&str], options: Value, seed: u64) -> Table {
    let mut players = Vec::new();
    for name in names {
        players.push(app.register(name).await);
    }
    let game = app.start_game("flying-dutchman", options, &players).await;
    Table {
        app: app.clone(),
        game,
        players,
        rng: kontor::games::GameRng::from_u64(seed),
        told: Told::default(),
        retries: Arc::new(AtomicUsize::new(0)),
    }
}

/// Plays `table` (and talks at it now and then) until `stop`, counting acknowledged actions
/// in `done`; gives the table back with what it was told.
async fn keep_playing(mut table: Table, stop: Arc<AtomicBool>, done: Arc<AtomicUsize>) -> Table {
    let mut n = table.told.chat.len();
    while !stop.load(Ordering::Relaxed) {
        if table.act().await.is_none() {
            break;
        }
        if n.is_multiple_of(3) {
            table.say(n + 1000).await;
        }
        n += 1;
        done.fetch_add(1, Ordering::Relaxed);
    }
    table
}

async fn until(what: &str, count: &AtomicUsize, at_least: usize) {
    let deadline = Instant::now() + BOUND;
    while count.load(Ordering::Relaxed) < at_least {
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lost_database_server_is_restored_from_its_wal_archive_to_the_last_acknowledged_action() {
    prepare_process();
    let began = Instant::now();
    let dir = cluster_scratch("wal-archive");
    let lost = dir.join("primary");
    let restored = dir.join("restored");
    let scratch = Scratch {
        dir: dir.clone(),
        clusters: vec![lost.clone(), restored.clone()],
    };
    let port = free_port();
    initdb(
        &lost,
        &format!(
            "port = {port}\nunix_socket_directories = '{}'\nmax_connections = 60",
            dir.display()
        ),
    );
    pg_ctl_start(&lost, &dir.join("primary.log"));
    let admin = kontor_database(port).await;

    // The archive, as the manual sets it up: the receiver (with its slot) first, then the
    // server told to wait for it, then a base backup. The receiver comes in over the Unix
    // socket, as it reaches the embedded cluster (through ssh) in production.
    let conninfo = format!("host={} port={port} user=postgres", dir.display());
    let archive = dir.join("archive");
    let mut receiver = Receiver::start(&archive, &conninfo, &dir.join("receiver.log"));
    archive_streams(port, false).await;
    for statement in [
        format!("ALTER SYSTEM SET synchronous_standby_names = '{ARCHIVE_NAME}'"),
        "SELECT pg_reload_conf()".to_string(),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(statement))
            .execute(&admin)
            .await
            .unwrap();
    }
    admin.close().await;
    archive_streams(port, true).await;
    let conn = Path::new(&conninfo);
    run_wal_archive(&[Path::new("base-backup"), &archive, conn], "base backup").await;

    // Kontor on it (migrations and all, after the base backup: recovery replays them from
    // the archive), played over HTTP.
    let url = format!("postgres://kontor@127.0.0.1:{port}/kontor");
    let settings = [
        ("KONTOR_DB_POOL_SIZE", "4"),
        ("KONTOR_DB_ACQUIRE_TIMEOUT_MS", "1000"),
        ("KONTOR_CHAT_BURST", "100000"),
        ("KONTOR_CHAT_DAILY_MAX", "100000"),
    ];
    let first = Follower::start(&url, &dir, &settings).await;
    let app = first.app.clone();
    // A finished game (to verify), and a running one with chat and an undo (taking
    // moves back is allowed at once for one's own).
    let mut finished = table(&app, &["anna", "bert", "cleo"], json!({}), 1).await;
    while finished.act().await.is_some() {}
    let mut running = table(&app, &["dora", "emil", "fina"], json!({"undo": "own"}), 2).await;
    for n in 0..3 {
        running.act().await.unwrap();
        running.say(n).await;
    }
    running.undo_once().await;

    // A client keeps playing and talking while the server is lost: its postmaster killed
    // and its data folder deleted, as with a lost machine.
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicUsize::new(0));
    let retries = running.retries.clone();
    let playing = tokio::spawn(keep_playing(running, stop.clone(), done.clone()));
    until("the client plays", &done, 10).await;
    let killed = Instant::now();
    kill_postmaster(&lost);
    std::fs::remove_dir_all(&lost).unwrap();
    // Its socket and the socket's lock file go with it, as with a lost machine's. Left here,
    // the lock names the killed postmaster's pid, and the restored server (same socket folder
    // and port) refuses to start if another process got that pid meanwhile (this machine's
    // pid_max is 32,768, and the suite starts processes by the thousand).
    for file in [format!(".s.PGSQL.{port}"), format!(".s.PGSQL.{port}.lock")] {
        let _ = std::fs::remove_file(dir.join(file));
    }
    let played_before = done.load(Ordering::Relaxed);
    until("the client sees the outage", &retries, 1).await;

    // The restore, on the archive's side: the receiver stopped, a new folder from the base
    // backup and the archive, recovered to the end of what was received. Then the
    // operator's steps: start it (its settings came with the base backup: the same port,
    // and commits waiting for the archive), and archive it anew.
    receiver.stop();
    let restoring = Instant::now();
    let report = run_wal_archive(&[Path::new("restore"), &archive, &restored], "restore").await;
    let restore_took = restoring.elapsed();
    eprintln!("{report}");
    assert!(report.contains("selected new timeline"), "{report}");
    let start = restored.clone();
    let log = dir.join("restored.log");
    tokio::task::spawn_blocking(move || pg_ctl_start(&start, &log))
        .await
        .unwrap();
    let started = killed.elapsed();
    let archive2 = dir.join("archive-after-restore");
    let mut receiver2 = Receiver::start(&archive2, &conninfo, &dir.join("receiver-2.log"));
    archive_streams(port, true).await;
    run_wal_archive(
        &[Path::new("base-backup"), &archive2, conn],
        "new base backup",
    )
    .await;
    let back = killed.elapsed();

    // The client's retries are answered; it plays on, then stops.
    until(
        "the client plays on the restored database",
        &done,
        played_before + 10,
    )
    .await;
    stop.store(true, Ordering::Relaxed);
    let running = playing.await.unwrap();
    first.stop().await;

    // A new server on the restored database: exactly what was acknowledged, the finished game
    // verifies, play goes on.
    let second = Follower::start(&url, &dir, &settings).await;
    finished.check(&second.pool).await;
    running.check(&second.pool).await;
    second
        .app
        .assert_verified(finished.game, &finished.players[0])
        .await;
    let mut running = Table {
        app: second.app.clone(),
        ..running
    };
    for n in 0..3 {
        running.act().await.unwrap();
        running.say(2000 + n).await;
    }
    running.check(&second.pool).await;
    eprintln!(
        "acknowledged: {} + {} actions, {} undo, {} chat messages; requests sent again \
         {}; restore {restore_took:?}; the restored server started {started:?} after the \
         kill, archived anew {back:?} after it; the test {:?}",
        finished.told.actions,
        running.told.actions,
        running.told.undos,
        running.told.chat.len(),
        running.retries.load(Ordering::Relaxed),
        began.elapsed()
    );
    assert!(running.told.undos == 1 && finished.told.actions > 0);
    second.stop().await;
    receiver2.stop();
    drop(scratch);
}
