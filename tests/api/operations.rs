//! Operating the server: several `kontor` processes on one embedded cluster, a database that
//! goes away and comes back, and what the deploy scripts install.

use crate::support::*;
use kontor::app::Application;
use kontor::config::Config;
use kontor::embedded_pg::{Durability, EmbeddedPostgres};
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const KONTOR: &str = env!("CARGO_BIN_EXE_kontor");

/// A scratch data folder for real `kontor` processes. On drop it kills a server still
/// running, stops any cluster left in the folder and removes it, so a failing test leaves
/// no PostgreSQL behind.
struct Scratch {
    dir: PathBuf,
    servers: Vec<Child>,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("kontor-ops-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Under /tmp with the default umask: the `postgres` user can enter it (as root the
        // cluster runs as that user).
        std::fs::create_dir_all(&dir).unwrap();
        Self {
            dir,
            servers: Vec::new(),
        }
    }

    /// `kontor <args>` on this data folder's embedded default cluster, listening on `port`.
    fn kontor(&self, port: u16, args: &[&str]) -> Command {
        let mut command = Command::new(KONTOR);
        command
            .args(args)
            .current_dir(&self.dir)
            .env_remove("KONTOR_DATABASE_URL")
            .env_remove("DATABASE_URL")
            .env_remove("KONTOR_CONFIG")
            .env("KONTOR_DATA_DIR", &self.dir)
            .env("KONTOR_BIND", format!("127.0.0.1:{port}"))
            .env("KONTOR_WORKERS", "false")
            .env("RUST_LOG", "warn");
        command
    }

    fn cluster_data(&self) -> PathBuf {
        self.dir.join("postgres").join("data")
    }

    /// Whether the folder's cluster is running, asked of `pg_ctl status`.
    fn cluster_running(&self) -> bool {
        pg_ctl(&self.cluster_data(), &["status"]).status.success()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for server in &mut self.servers {
            let _ = server.kill();
            let _ = server.wait();
        }
        if self.cluster_data().join("postmaster.pid").exists() {
            let _ = pg_ctl(&self.cluster_data(), &["-m", "immediate", "-w", "stop"]);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs `pg_ctl -D <data> <args>` as the cluster's user.
fn pg_ctl(data: &Path, args: &[&str]) -> Output {
    let bin = kontor::embedded_pg::find_binaries().unwrap().join("pg_ctl");
    // SAFETY: geteuid has no preconditions.
    let mut command = if unsafe { libc::geteuid() } == 0 {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    command
        .arg("-D")
        .arg(data)
        .args(args)
        .current_dir("/")
        .output()
        .unwrap()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits (bounded) for a process to exit.
fn wait_exit(child: &mut Child, what: &str) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "{what} did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Registers `name` and logs in; the access token.
async fn register(client: &reqwest::Client, base: &str, name: &str) -> String {
    let password = password_of(name);
    let registered = client
        .post(format!("{base}/auth/register"))
        .json(&json!({"username": name, "email": format!("{name}@example.org"), "password": password}))
        .send()
        .await
        .unwrap();
    read(registered).await.assert_ok();
    let login = client
        .post(format!("{base}/auth/login"))
        .json(&json!({"username": name, "password": password}))
        .send()
        .await
        .unwrap();
    read(login).await.assert_ok()["access_token"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn my_games(client: &reqwest::Client, base: &str, token: &str) -> Reply {
    read(
        client
            .get(format!("{base}/games?view=mine"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap(),
    )
    .await
}

#[tokio::test]
async fn other_kontor_processes_never_stop_the_servers_embedded_cluster() {
    let mut scratch = Scratch::new("shared-cluster");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}/api/v1");
    let log = std::fs::File::create(scratch.dir.join("server.log")).unwrap();
    let server = scratch
        .kontor(port, &["serve"])
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    scratch.servers.push(server);
    let client = reqwest::Client::new();

    // Wait (bounded) until it answers: the first start creates the cluster and migrates.
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if let Ok(response) = client.get(format!("{base}/kinds")).send().await
            && response.status().is_success()
        {
            break;
        }
        let exited = scratch.servers[0].try_wait().unwrap();
        assert!(
            exited.is_none() && Instant::now() < deadline,
            "the server did not come up ({exited:?}): {}",
            std::fs::read_to_string(scratch.dir.join("server.log")).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(scratch.cluster_running());

    let anna = register(&client, &base, "anna").await;
    let created = client
        .post(format!("{base}/games"))
        .bearer_auth(&anna)
        .json(&json!({"kind": "steel-driver", "seats": 3}))
        .send()
        .await
        .unwrap();
    let game = read(created).await.assert_ok()["id"]
        .as_str()
        .unwrap()
        .to_string();

    // The audit tools use the server's running cluster and leave it running.
    let replay = run(
        scratch.kontor(port, &["replay", "--check"]),
        "replay --check",
    );
    assert!(
        String::from_utf8_lossy(&replay.stdout).contains("every game folds"),
        "{replay:?}"
    );
    my_games(&client, &base, &anna).await.assert_ok();
    let export = run(scratch.kontor(port, &["export", &game]), "export");
    assert!(
        String::from_utf8_lossy(&export.stdout).contains(&game),
        "the export names its game: {export:?}"
    );
    my_games(&client, &base, &anna).await.assert_ok();

    // A second server on the same port fails, names the address, and stops nothing.
    let mut second = scratch
        .kontor(port, &["serve"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_exit(&mut second, "the second server");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut second.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success(), "a second server on a used port fails");
    assert!(
        stderr.contains(&format!(
            "cannot listen on 127.0.0.1:{port}: address already in use"
        )),
        "the error names the address: {stderr}"
    );

    // The first server still has its database: new accounts, logins and reads work.
    let bert = register(&client, &base, "bert").await;
    my_games(&client, &base, &bert).await.assert_ok();
    let games = my_games(&client, &base, &anna).await;
    assert_eq!(games.assert_ok()["items"][0]["id"], game.as_str());
    assert!(scratch.cluster_running());

    // The server started the cluster, so it stops it when it shuts down.
    // SAFETY: kill on the id of a child process this test started and has not reaped.
    unsafe { libc::kill(scratch.servers[0].id() as libc::pid_t, libc::SIGTERM) };
    let status = wait_exit(&mut scratch.servers[0], "the server");
    assert!(status.success(), "a clean shutdown: {status:?}");
    assert!(
        !scratch.cluster_running(),
        "the server stops the cluster it started"
    );
}

#[tokio::test]
async fn only_the_starter_stops_the_cluster_and_not_while_another_uses_it() {
    let scratch = Scratch::new("ownership");
    let first = EmbeddedPostgres::start(&scratch.dir, Durability::Fast).unwrap();
    assert!(first.started_here());
    let second = EmbeddedPostgres::start(&scratch.dir, Durability::Fast).unwrap();
    assert!(!second.started_here(), "the second found it running");

    // The starter does not stop it while another user holds it.
    first.stop().unwrap();
    drop(first);
    assert!(scratch.cluster_running());
    second.ensure_database("kontor").await.unwrap();

    // A value that did not start it never stops it, by stop() or by drop.
    let third = EmbeddedPostgres::start(&scratch.dir, Durability::Fast).unwrap();
    assert!(!third.started_here());
    third.stop().unwrap();
    drop(third);
    drop(second);
    assert!(scratch.cluster_running());

    // Stopped by hand, the next user starts it, owns it, and stops it when alone.
    pg_ctl(&scratch.cluster_data(), &["-m", "fast", "-w", "stop"]);
    let fourth = EmbeddedPostgres::start(&scratch.dir, Durability::Fast).unwrap();
    assert!(fourth.started_here());
    drop(fourth);
    assert!(!scratch.cluster_running());
}

#[tokio::test]
async fn an_unreachable_database_is_answered_503_and_recovers() {
    let scratch = Scratch::new("database-down");
    let pg = EmbeddedPostgres::start(&scratch.dir, Durability::Fast).unwrap();
    pg.ensure_database("kontor").await.unwrap();
    let settings: HashMap<String, String> = [
        ("KONTOR_BIND", "127.0.0.1:0"),
        ("KONTOR_JWT_SECRET", JWT_SECRET),
        ("KONTOR_WORKERS", "false"),
        ("KONTOR_DB_ACQUIRE_TIMEOUT_MS", "300"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .chain([(
        "KONTOR_DATA_DIR".to_string(),
        scratch.dir.join("app").display().to_string(),
    )])
    .collect();
    let mut config = Config::from_map(&settings).unwrap();
    let clock = kontor::time::TestClock::new();
    config.clock = clock.clock();
    let pool = kontor::store::connect_with_timeout(
        pg.connect_options("kontor"),
        4,
        config.db_acquire_timeout,
    )
    .await
    .unwrap();
    kontor::store::migrate(&pool).await.unwrap();
    let server = Application::build(config, pool.clone()).unwrap();
    let app = TestApp {
        address: format!("http://127.0.0.1:{}", server.port()),
        pool,
        client: reqwest::Client::new(),
        database: "kontor".into(),
        config: server.state.config.clone(),
        committer: server.state.committer.clone(),
        server: None,
        clock,
    };
    tokio::spawn(server.run_until_stopped());
    let anna = app.register("anna").await;
    app.get("/games?view=mine")
        .as_user(&anna)
        .send()
        .await
        .assert_ok();
    let ready = || async {
        read(
            app.client
                .get(format!("{}/readyz", app.address))
                .send()
                .await
                .unwrap(),
        )
        .await
    };
    assert_eq!(ready().await.status, 200);

    pg.stop().unwrap();
    assert!(!scratch.cluster_running());
    // Not ready while the database is away; alive all the same.
    let reply = ready().await;
    reply.assert_problem(503, "not_ready");
    assert_eq!(reply.headers["retry-after"], "2");
    let alive = app
        .client
        .get(format!("{}/healthz", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(alive.status(), 200);
    let down = [
        app.get("/games?view=mine").as_user(&anna).send().await,
        app.post("/auth/login")
            .json(&json!({"username": "anna", "password": "anna-password"}))
            .send()
            .await,
        app.post("/games")
            .as_user(&anna)
            .json(&json!({"kind": "steel-driver", "seats": 3}))
            .send()
            .await,
    ];
    for reply in &down {
        reply.assert_problem(503, "database_unavailable");
        let retry_after: u64 = reply.headers["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(retry_after >= 1, "{reply:?}");
        assert_eq!(reply.body["retry_after"], retry_after);
    }

    // Back up: the same server answers again without a restart.
    let pg = EmbeddedPostgres::start(&scratch.dir, Durability::Fast).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let reply = app.get("/games?view=mine").as_user(&anna).send().await;
        if reply.status.is_success() {
            break;
        }
        reply.assert_problem(503, "database_unavailable");
        assert!(Instant::now() < deadline, "the server did not recover");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        ready().await.status,
        200,
        "ready again once the database is back"
    );
    app.register("bert").await;
    app.post("/games")
        .as_user(&anna)
        .json(&json!({"kind": "steel-driver", "seats": 3}))
        .send()
        .await
        .assert_ok();
    app.pool.close().await;
    drop(pg);
}

/// npm is allowed: it builds the web client the server serves (from its locked
/// dependencies); the browser and the API tooling are test tools.
#[test]
fn serving_installs_no_test_tools() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for script in ["deploy/serve.sh", "deploy/setup.sh"] {
        let text = std::fs::read_to_string(root.join(script)).unwrap();
        let lower = text.to_lowercase();
        // Whole words: `set -o pipefail` is no installer.
        let words: Vec<&str> = lower.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        for word in [
            "pip",
            "pip3",
            "pipx",
            "pypi",
            "venv",
            "virtualenv",
            "validator",
            "chromium",
            "playwright",
            "schemathesis",
            "nginx",
            "pgbouncer",
        ] {
            assert!(
                !words.contains(&word),
                "{script} mentions {word:?}: running the server must not need test tools"
            );
        }
    }
    let tests = std::fs::read_to_string(root.join("deploy/test.sh")).unwrap();
    assert!(
        tests.contains("deploy/setup-tests.sh"),
        "deploy/test.sh installs the test tools"
    );
}
