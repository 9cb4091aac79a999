//! Following the primary: a server given a primary and its streaming standby (two clusters
//! on loopback, made with PostgreSQL's own tools) goes on taking actions once the primary is
//! killed and the standby promoted, without a restart, and loses no acknowledged action (the
//! standby is synchronous: a commit is acknowledged once the standby has it).

use crate::live::Stream;
use crate::operations::{
    a_game_under_way, act_once_back, free_port, game_version, kill_postmaster, pg_ctl,
};
use crate::support::*;
use kontor::app::{Application, open_database};
use kontor::config::Config;
use sqlx::postgres::PgConnectOptions;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The longest wait for an event of a live stream.
const WAIT: Duration = Duration::from_secs(20);

/// A primary and its standby in a scratch folder; both stopped and the folder removed on drop.
pub(crate) struct Pair {
    pub(crate) dir: PathBuf,
    pub(crate) primary: PathBuf,
    pub(crate) standby: PathBuf,
    pub(crate) primary_port: u16,
    pub(crate) standby_port: u16,
}

impl Drop for Pair {
    fn drop(&mut self) {
        for data in [&self.primary, &self.standby] {
            if data.join("postmaster.pid").exists() {
                let _ = pg_ctl(data, &["-m", "immediate", "-w", "stop"]);
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A PostgreSQL tool, run as the clusters' user (`postgres` when the tests run as root).
pub(crate) fn tool(name: &str) -> Command {
    let bin = kontor::embedded_pg::find_binaries().unwrap().join(name);
    let mut command = match kontor::embedded_pg::cluster_user() {
        Some(user) => {
            let mut c = Command::new("runuser");
            c.args(["-u", user, "--"]).arg(bin);
            c
        }
        None => Command::new(bin),
    };
    command.current_dir("/");
    command
}

pub(crate) fn succeed(command: &mut Command, what: &str) {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

pub(crate) fn append(file: &Path, lines: &str) {
    let kept = std::fs::read_to_string(file).unwrap();
    std::fs::write(file, format!("{kept}\n{lines}\n")).unwrap();
}

pub(crate) fn superuser(port: u16) -> PgConnectOptions {
    PgConnectOptions::new()
        .host("127.0.0.1")
        .port(port)
        .username("postgres")
        .database("postgres")
}

/// A fresh folder `kontor-<name>-<pid>` under the temporary folder, which the clusters' user
/// owns.
pub(crate) fn cluster_scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kontor-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    if let Some(user) = kontor::embedded_pg::cluster_user() {
        succeed(
            Command::new("chown").arg(format!("{user}:")).arg(&dir),
            "chown",
        );
    }
    dir
}

/// A new cluster in `data` (superuser `postgres` trusted, UTF-8, no locale), listening on
/// 127.0.0.1 only with a small `shared_buffers`, and `settings` (lines of
/// `postgresql.auto.conf`).
pub(crate) fn initdb(data: &Path, settings: &str) {
    succeed(
        tool("initdb")
            .arg("-D")
            .arg(data)
            .args(["-U", "postgres", "--auth=trust", "--encoding=UTF8"])
            .args(["--no-locale", "--no-sync", "--no-instructions"]),
        "initdb",
    );
    append(
        &data.join("postgresql.auto.conf"),
        &format!("listen_addresses = '127.0.0.1'\nshared_buffers = '16MB'\n{settings}"),
    );
}

/// Polls `question` on the primary (bounded) until it answers true.
pub(crate) async fn wait_on(admin: &sqlx::PgPool, question: &str, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let yes: bool = sqlx::query_scalar(sqlx::AssertSqlSafe(question.to_string()))
            .fetch_one(admin)
            .await
            .unwrap();
        if yes {
            return;
        }
        assert!(Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Makes the role and database `kontor` (owned by it) in the cluster on `port`; a superuser's
/// connection to it.
pub(crate) async fn kontor_database(port: u16) -> sqlx::PgPool {
    let admin = kontor::store::connect(superuser(port), 1).await.unwrap();
    kontor::store::cluster::ensure_role(&admin, "kontor")
        .await
        .unwrap();
    kontor::store::cluster::ensure_database(&admin, "kontor", "kontor")
        .await
        .unwrap();
    admin
}

/// A primary with the role and database `kontor`, and a standby streaming from it
/// synchronously (`synchronous_standby_names = '*'`, `synchronous_commit` on).
async fn primary_and_standby() -> Pair {
    primary_and_streaming_standby("failover", true).await
}

/// A primary with the role and database `kontor`, and a standby streaming from it, made with
/// `initdb` and `pg_basebackup -R` in a scratch folder named after `name`; `synchronous`: a
/// commit waits for the standby.
pub(crate) async fn primary_and_streaming_standby(name: &str, synchronous: bool) -> Pair {
    let dir = cluster_scratch(name);
    let pair = Pair {
        primary: dir.join("primary"),
        standby: dir.join("standby"),
        primary_port: free_port(),
        standby_port: free_port(),
        dir,
    };
    initdb(
        &pair.primary,
        &format!(
            "port = {}\nunix_socket_directories = '{}'\nmax_connections = 60",
            pair.primary_port,
            pair.dir.display()
        ),
    );
    succeed(
        tool("pg_ctl")
            .arg("-D")
            .arg(&pair.primary)
            .arg("-l")
            .arg(pair.dir.join("primary.log"))
            .args(["-w", "start"]),
        "starting the primary",
    );
    let admin = kontor_database(pair.primary_port).await;
    succeed(
        tool("pg_basebackup")
            .args(["-h", "127.0.0.1", "-p", &pair.primary_port.to_string()])
            .args(["-U", "postgres", "-R", "-X", "stream", "-c", "fast", "-D"])
            .arg(&pair.standby),
        "pg_basebackup",
    );
    append(
        &pair.standby.join("postgresql.auto.conf"),
        &format!("port = {}", pair.standby_port),
    );
    succeed(
        tool("pg_ctl")
            .arg("-D")
            .arg(&pair.standby)
            .arg("-l")
            .arg(pair.dir.join("standby.log"))
            .args(["-w", "start"]),
        "starting the standby",
    );
    wait_on(
        &admin,
        "SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'",
        "the standby did not stream",
    )
    .await;
    if !synchronous {
        admin.close().await;
        return pair;
    }
    // Only now: before the standby streams, every commit would wait for it.
    sqlx::query("ALTER SYSTEM SET synchronous_standby_names = '*'")
        .execute(&admin)
        .await
        .unwrap();
    sqlx::query("SELECT pg_reload_conf()")
        .execute(&admin)
        .await
        .unwrap();
    wait_on(
        &admin,
        "SELECT count(*) = 1 FROM pg_stat_replication WHERE sync_state = 'sync'",
        "the standby did not become synchronous",
    )
    .await;
    admin.close().await;
    pair
}

/// A server running in the test's process that follows the primary among `addresses`
/// (comma-separated), its data folder `dir`, without workers; `settings` come last.
pub(crate) struct Follower {
    pub app: std::sync::Arc<TestApp>,
    pub pool: sqlx::PgPool,
    pub status: std::sync::Arc<kontor::store::monitor::DatabaseStatus>,
    pub state: actix_web::web::Data<kontor::http::state::AppState>,
    stopper: kontor::app::StopHandle,
    running: tokio::task::JoinHandle<anyhow::Result<()>>,
}

impl Follower {
    pub(crate) async fn start(addresses: &str, dir: &Path, settings: &[(&str, &str)]) -> Self {
        let settings: HashMap<String, String> = [
            ("KONTOR_BIND", "127.0.0.1:0"),
            ("KONTOR_JWT_SECRET", JWT_SECRET),
            ("KONTOR_WORKERS", "false"),
            ("KONTOR_DATABASE_URL", addresses),
        ]
        .into_iter()
        .chain(settings.iter().copied())
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain([(
            "KONTOR_DATA_DIR".to_string(),
            dir.join("app").display().to_string(),
        )])
        .collect();
        let mut config = Config::from_map(&settings).unwrap();
        let clock = kontor::time::TestClock::new();
        config.clock = clock.clock();
        let database = open_database(&config).await.unwrap();
        let pool = database.pool.clone();
        let server = Application::build(config, pool.clone()).unwrap();
        let status = server.state.database.clone();
        let state = server.state.clone();
        let app = std::sync::Arc::new(TestApp::in_process(&server, pool.clone(), "kontor", clock));
        let stopper = server.stop_handle();
        let running = tokio::spawn(server.run_until_stopped());
        Self {
            app,
            pool,
            status,
            state,
            stopper,
            running,
        }
    }

    /// Stops the server cleanly and closes its pool.
    pub(crate) async fn stop(self) {
        self.stopper.stop(true).await;
        self.running.await.unwrap().unwrap();
        self.pool.close().await;
    }
}

#[tokio::test]
async fn the_server_follows_a_promoted_standby_and_keeps_every_acknowledged_action() {
    prepare_process();
    let pair = primary_and_standby().await;
    let url = |port: u16| format!("postgres://kontor@127.0.0.1:{port}/kontor");
    // The standby first: the server must find the primary itself.
    let addresses = format!("{},{}", url(pair.standby_port), url(pair.primary_port));
    let follower = Follower::start(
        &addresses,
        &pair.dir,
        &[
            ("KONTOR_DB_POOL_SIZE", "4"),
            ("KONTOR_DB_ACQUIRE_TIMEOUT_MS", "500"),
        ],
    )
    .await;
    let (app, status) = (&follower.app, follower.status.clone());
    let (game, players, acknowledged) = a_game_under_way(app, 5, 8).await;
    let path = format!("/games/{game}/stream");
    let mut stream = Stream::open(&app.address, &path, &players[0].token, None).await;
    assert_eq!(stream.next(WAIT).await.unwrap().id, Some(acknowledged));

    // The primary killed: no server takes writes, and the server says so (503 with
    // Retry-After, never 500) until one does.
    let killed = Instant::now();
    kill_postmaster(&pair.primary);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let reply = app
            .get(&format!("/games/{game}"))
            .as_user(&players[0])
            .send()
            .await;
        if reply.status == 503 {
            reply.assert_problem(503, "database_unavailable");
            assert!(reply.headers.contains_key("retry-after"), "{reply:?}");
            break;
        }
        reply.assert_ok();
        assert!(Instant::now() < deadline, "the lost primary went unnoticed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The standby promoted: the same server plays on, on the new primary.
    let promoted = Instant::now();
    let standby = pair.standby.clone();
    // Off the test's thread: the server's tasks share its runtime and must run meanwhile.
    tokio::task::spawn_blocking(move || {
        succeed(
            tool("pg_ctl")
                .arg("-D")
                .arg(&standby)
                .args(["-w", "promote"]),
            "promoting the standby",
        )
    })
    .await
    .unwrap();
    let played_at = act_once_back(app, game, &players, "after-the-failover").await;
    eprintln!(
        "an action was accepted {:?} after the promotion ({:?} after the primary's kill)",
        promoted.elapsed(),
        killed.elapsed()
    );
    assert_eq!(played_at, acknowledged, "every acknowledged action is kept");
    assert!(status.failovers() >= 1, "the failover is counted");
    crate::bots::play(app, game, &players, crate::bots::flying_dutchman, 6, 4).await;
    let now = game_version(app, game, &players[0]).await;
    assert!(now > acknowledged);

    // The stream open across the failover catches up (resumed with Last-Event-ID, as clients
    // do, if the server ended it), and then gets the next action live: the live listener and
    // the publisher follow the primary too.
    let mut seen = acknowledged;
    while seen < now {
        match stream.next(WAIT).await {
            Some(event) => seen = event.id.unwrap_or(seen).max(seen),
            None => {
                stream = Stream::open(&app.address, &path, &players[0].token, Some(seen)).await;
            }
        }
    }
    crate::bots::play(app, game, &players, crate::bots::flying_dutchman, 7, 1).await;
    let next = game_version(app, game, &players[0]).await;
    while seen < next {
        let event = stream
            .next(WAIT)
            .await
            .expect("the next action arrives live");
        seen = event.id.unwrap_or(seen).max(seen);
    }
    let ready = app
        .client
        .get(format!("{}/readyz", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(ready.status(), 200);

    follower.stop().await;
}
