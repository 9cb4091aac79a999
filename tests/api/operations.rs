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

    /// The log file of the server on `port` (its standard output and error).
    fn server_log(&self, port: u16) -> PathBuf {
        self.dir.join(format!("server-{port}.log"))
    }

    /// Starts `kontor serve` on `port` with these extra settings, its output written to
    /// [`Scratch::server_log`], and waits (bounded) until it answers: the first start creates
    /// the cluster and migrates. The server is `self.servers`' last.
    async fn serve(&mut self, port: u16, env: &[(&str, &str)]) {
        let log = std::fs::File::create(self.server_log(port)).unwrap();
        let server = self
            .kontor(port, &["serve"])
            .envs(env.iter().copied())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.servers.push(server);
        let client = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            if let Ok(response) = client
                .get(format!("http://127.0.0.1:{port}/api/v1/kinds"))
                .send()
                .await
                && response.status().is_success()
            {
                return;
            }
            let exited = self.servers.last_mut().unwrap().try_wait().unwrap();
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "the server did not come up ({exited:?}): {}",
                std::fs::read_to_string(self.server_log(port)).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Sends `signal` to the last server started and waits for it to exit.
    fn signal_last(&mut self, signal: libc::c_int) -> std::process::ExitStatus {
        let server = self.servers.last_mut().unwrap();
        // SAFETY: kill on the id of a child process this test started and has not reaped.
        unsafe { libc::kill(server.id() as libc::pid_t, signal) };
        wait_exit(server, "the server")
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
pub(crate) fn pg_ctl(data: &Path, args: &[&str]) -> Output {
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

pub(crate) fn free_port() -> u16 {
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
    scratch.serve(port, &[]).await;
    let client = reqwest::Client::new();
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
    let status = scratch.signal_last(libc::SIGTERM);
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

    // A value that neither started nor adopted it never stops it, by stop() or by drop.
    assert!(!second.owns(), "the first, alive, owned it then");
    // The starter gone, the next user adopts the cluster, and still does not stop it while
    // another uses it.
    let third = EmbeddedPostgres::start(&scratch.dir, Durability::Fast).unwrap();
    assert!(!third.started_here());
    assert!(third.owns(), "a cluster whose owner is gone is adopted");
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
async fn a_server_adopts_and_stops_the_cluster_a_killed_server_left_running() {
    let mut scratch = Scratch::new("orphan");
    let first = free_port();
    scratch.serve(first, &[]).await;
    let status = scratch.signal_last(libc::SIGKILL);
    assert!(!status.success());
    assert!(
        scratch.cluster_running(),
        "a killed server cannot stop its cluster"
    );

    // The next server finds the cluster running with no owner: it uses it, owns it, and
    // stops it at its clean shutdown.
    let second = free_port();
    scratch.serve(second, &[("RUST_LOG", "info")]).await;
    let status = scratch.signal_last(libc::SIGTERM);
    assert!(status.success(), "a clean shutdown: {status:?}");
    let log = std::fs::read_to_string(scratch.server_log(second)).unwrap();
    assert!(log.contains("owns it now"), "{log}");
    assert!(
        !scratch.cluster_running(),
        "the server that adopted the orphaned cluster stopped it: {log}"
    );
}

/// Runs the real binary to its end with `stdin` as its standard input; its status, standard
/// output and standard error, kept apart.
fn run_apart(mut command: Command, stdin: &[u8]) -> (std::process::ExitStatus, String, String) {
    use std::io::Write;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status,
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn every_data_command_writes_only_its_data_to_standard_output() {
    let mut scratch = Scratch::new("stdout");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}/api/v1");
    // The log at info, as a default installation has it: a server running on the cluster
    // makes every command log that it uses the running cluster.
    let info = [("RUST_LOG", "info")];
    scratch.serve(port, &info).await;
    let client = reqwest::Client::new();
    let anna = register(&client, &base, "anna").await;
    // A finished game in the store: the golden export, imported as anna's sandbox.
    let golden = include_str!("../golden/steel-driver-3p.ndjson");
    let imported = client
        .post(format!("{base}/games/import"))
        .bearer_auth(&anna)
        .header("content-type", "application/x-ndjson")
        .body(golden)
        .send()
        .await
        .unwrap();
    let imported = read(imported).await;
    assert_eq!(imported.status, 201, "{}", imported.text);
    let game = imported.body["id"].as_str().unwrap().to_string();

    let command = |args: &[&str]| {
        let mut command = scratch.kontor(port, args);
        command.envs(info);
        command
    };
    let data = |args: &[&str], stdin: &[u8]| {
        let (status, stdout, stderr) = run_apart(command(args), stdin);
        assert!(status.success(), "kontor {args:?}: {stdout}{stderr}");
        assert!(
            !stdout.contains('\x1b') && !stdout.contains(" INFO ") && !stdout.contains(" WARN "),
            "kontor {args:?} wrote a log line to standard output:\n{stdout}"
        );
        (stdout, stderr)
    };
    let ndjson = |stdout: &str| {
        for line in stdout.lines() {
            serde_json::from_str::<serde_json::Value>(line)
                .unwrap_or_else(|e| panic!("not an ndjson line ({e}): {line}"));
        }
    };

    // The export is exactly the log, and `kontor verify` accepts it piped in.
    let (export, logged) = data(&["export", &game], b"");
    assert!(
        logged.contains("already running"),
        "the log goes to standard error: {logged}"
    );
    ndjson(&export);
    assert!(export.starts_with("{"), "{export}");
    let (verified, _) = data(&["verify", "-"], export.as_bytes());
    let verified: serde_json::Value = serde_json::from_str(&verified).unwrap();
    assert_eq!(verified["verified"], true, "{verified}");
    let (view, _) = data(&["export", &game, "--as", "anna"], b"");
    ndjson(&view);
    let (description, _) = data(&["openapi"], b"");
    let description: serde_json::Value = serde_json::from_str(&description).unwrap();
    assert!(description["paths"].is_object());
    let (report, _) = data(
        &["simulate", "steel-driver", "--players", "3", "--games", "2"],
        b"",
    );
    assert!(report.starts_with("steel-driver with bots"), "{report}");
    let (replay, _) = data(&["replay", "--check"], b"");
    assert_eq!(
        replay,
        "replay --check: every game folds to its cached state\n"
    );
    let (failed, _) = data(&["mail", "failed"], b"");
    assert_eq!(failed, "no failed mails\n");
    let (admins, _) = data(&["admin", "list"], b"");
    assert!(admins.starts_with("no admins"), "{admins}");
    let (migrated, _) = data(&["migrate"], b"");
    assert_eq!(migrated, "migrations applied\n");
    let (swept, _) = data(&["housekeeping"], b"");
    assert!(swept.starts_with("deleted "), "{swept}");
    let (health, said) = data(&["health"], b"");
    assert_eq!(health, "", "the health check speaks on standard error only");
    assert!(said.contains("200"), "{said}");

    // The server's own log, written to a file, carries no colour codes.
    let status = scratch.signal_last(libc::SIGTERM);
    assert!(status.success(), "a clean shutdown: {status:?}");
    let log = std::fs::read(scratch.server_log(port)).unwrap();
    assert!(log.len() > 100, "the server logged");
    assert!(
        !log.contains(&0x1b),
        "an ESC byte in a log file: {}",
        String::from_utf8_lossy(&log)
    );

    // With the server gone, the health check says so and fails.
    let (status, stdout, stderr) = run_apart(scratch.kontor(port, &["health"]), b"");
    assert!(!status.success());
    assert_eq!(stdout, "");
    assert!(stderr.starts_with("not ready: "), "{stderr}");
    assert!(stderr.contains("cannot be reached"), "{stderr}");
}

#[tokio::test]
async fn the_health_check_reports_what_the_server_answers() {
    let app = spawn_app().await;
    let url = |path: &str| format!("{}{path}", app.address);
    // Off the test's thread, which serves the in-process server the check asks.
    let check = |url: String| {
        let mut command = Command::new(KONTOR);
        command
            .args(["health", "--url", &url])
            .env_remove("KONTOR_CONFIG");
        tokio::task::spawn_blocking(move || run_apart(command, b""))
    };
    let (status, _, said) = check(url("/readyz")).await.unwrap();
    assert!(status.success(), "{said}");
    // A URL without a path asks /readyz.
    let (status, _, said) = check(url("")).await.unwrap();
    assert!(status.success(), "{said}");
    assert!(said.contains("/readyz"), "{said}");
    // Anything but 200 fails, with the status and what the server said.
    let (status, _, said) = check(url("/api/v1/me")).await.unwrap();
    assert_eq!(status.code(), Some(1));
    assert!(
        said.starts_with("not ready: ") && said.contains("401") && said.contains("unauthenticated"),
        "{said}"
    );
    let (status, _, said) = check("https://127.0.0.1:1/readyz".into()).await.unwrap();
    assert_eq!(status.code(), Some(1));
    assert!(said.contains("only http://"), "{said}");
}

#[tokio::test]
async fn the_data_folder_and_its_secrets_are_private() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o7777;
    let mut scratch = Scratch::new("private");
    // A folder as an older release left it: open to everyone, a secret and a mail in it.
    let open = std::fs::Permissions::from_mode(0o644);
    std::fs::create_dir_all(scratch.dir.join("mail")).unwrap();
    let secret = scratch.dir.join("jwt-secret");
    std::fs::write(&secret, "an-older-secret-of-more-than-32-characters").unwrap();
    let old_mail = scratch.dir.join("mail").join("old-verify_email.eml");
    std::fs::write(&old_mail, "a live link").unwrap();
    for file in [&secret, &old_mail] {
        std::fs::set_permissions(file, open.clone()).unwrap();
    }
    for folder in [&scratch.dir, &scratch.dir.join("mail")] {
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    // A server with its workers and no SMTP server writes the verification mail as a file.
    let port = free_port();
    scratch.serve(port, &[("KONTOR_WORKERS", "true")]).await;
    let client = reqwest::Client::new();
    register(&client, &format!("http://127.0.0.1:{port}/api/v1"), "anna").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    let new_mail = loop {
        let found = std::fs::read_dir(scratch.dir.join("mail"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|path| {
                path.to_string_lossy().ends_with("-verify_email.eml") && *path != old_mail
            });
        if let Some(path) = found {
            break path;
        }
        assert!(
            Instant::now() < deadline,
            "no verification mail was written"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };

    let folder = std::fs::metadata(&scratch.dir).unwrap();
    match kontor::embedded_pg::cluster_user() {
        // As root the cluster runs as `postgres`, which passes through to its own folder and
        // can do nothing else in the data folder.
        Some(user) => {
            assert_eq!(mode(&scratch.dir), 0o710);
            let group = Command::new("id").args(["-g", user]).output().unwrap();
            let gid: u32 = String::from_utf8_lossy(&group.stdout)
                .trim()
                .parse()
                .unwrap();
            assert_eq!(folder.gid(), gid);
        }
        None => assert_eq!(mode(&scratch.dir), 0o700),
    }
    assert_eq!(mode(&scratch.dir.join("mail")), 0o700);
    for file in [&secret, &old_mail, &new_mail] {
        assert_eq!(mode(file), 0o600, "{}", file.display());
    }
    let status = scratch.signal_last(libc::SIGTERM);
    assert!(status.success(), "a clean shutdown: {status:?}");
    assert!(!scratch.cluster_running());
}

/// A server in this process (built, not yet running) on `pg`'s database `kontor`, migrated
/// here, with a pool of 4 connections and a 300 ms acquire timeout; `settings` are applied last.
async fn build_on_cluster(
    scratch: &Scratch,
    pg: &EmbeddedPostgres,
    settings: &[(&str, &str)],
) -> (TestApp, Application) {
    prepare_process();
    let settings: HashMap<String, String> = [
        ("KONTOR_BIND", "127.0.0.1:0"),
        ("KONTOR_JWT_SECRET", JWT_SECRET),
        ("KONTOR_WORKERS", "false"),
        ("KONTOR_DB_ACQUIRE_TIMEOUT_MS", "300"),
    ]
    .into_iter()
    .chain(settings.iter().copied())
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
    let app = TestApp::in_process(&server, pool, "kontor", clock);
    (app, server)
}

#[tokio::test]
async fn an_unreachable_database_is_answered_503_and_recovers() {
    let scratch = Scratch::new("database-down");
    let pg = EmbeddedPostgres::start(&scratch.dir, Durability::Fast).unwrap();
    pg.ensure_database("kontor").await.unwrap();
    let (app, server) = build_on_cluster(&scratch, &pg, &[]).await;
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

#[tokio::test]
async fn a_busy_pool_is_answered_overloaded_not_as_an_outage() {
    let app = spawn_app().await;
    let anna = app.register("anna").await;
    // A second server on the same database, its pool one connection (the live listener on a
    // session pool of its own), waiting 300 ms at most for it.
    let mut config = app.config.clone();
    config.bind = "127.0.0.1:0".parse().unwrap();
    config.db_acquire_timeout = Duration::from_millis(300);
    config.session_database_url = Some(app.database_url());
    let pool = kontor::store::connect_with_timeout(
        pg().connect_options(&app.database),
        1,
        config.db_acquire_timeout,
    )
    .await
    .unwrap();
    let server = Application::build(config, pool.clone()).unwrap();
    let address = format!("http://127.0.0.1:{}/api/v1", server.port());
    let stopper = server.stop_handle();
    let running = tokio::spawn(server.run_until_stopped());
    let mine = || async {
        read(
            app.client
                .get(format!("{address}/games?view=mine"))
                .bearer_auth(&anna.token)
                .send()
                .await
                .unwrap(),
        )
        .await
    };
    mine().await.assert_ok();

    // Its one connection held busy: the database answers, the server is busy.
    let held = pool.acquire().await.unwrap();
    let reply = mine().await;
    let body = reply.assert_problem(503, "overloaded");
    assert_eq!(reply.headers["retry-after"], "1");
    assert_eq!(body["retry_after"], 1);
    drop(held);
    mine().await.assert_ok();

    stopper.stop(true).await;
    running.await.unwrap().unwrap();
    pool.close().await;
}

/// Kills the postmaster of the cluster in `data` with SIGKILL, as the out-of-memory killer
/// would (its pid from `postmaster.pid`).
pub(crate) fn kill_postmaster(data: &Path) {
    let text = std::fs::read_to_string(data.join("postmaster.pid")).unwrap();
    let pid: libc::pid_t = text.lines().next().unwrap().trim().parse().unwrap();
    // SAFETY: kill on the pid of the test's own cluster's postmaster.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
}

/// Plays one action of `game` once the server takes actions again: waits (bounded) while it
/// answers 503 `database_unavailable`, and retries with the same idempotency key, so a retry
/// never applies twice. The version the action was played at.
pub(crate) async fn act_once_back(
    app: &TestApp,
    game: uuid::Uuid,
    players: &[User],
    key: &str,
) -> i64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut rng = kontor::games::GameRng::from_u64(11);
    loop {
        assert!(
            Instant::now() < deadline,
            "the server did not take actions again"
        );
        let detail = app
            .get(&format!("/games/{game}"))
            .as_user(&players[0])
            .send()
            .await;
        if detail.status == 503 {
            detail.assert_problem(503, "database_unavailable");
            assert!(detail.headers.contains_key("retry-after"), "{detail:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        let seat = detail.assert_ok()["pending"][0].as_u64().unwrap() as usize;
        let mine = app
            .get(&format!("/games/{game}"))
            .as_user(&players[seat])
            .send()
            .await;
        if mine.status == 503 {
            continue;
        }
        let mine = mine.assert_ok().clone();
        let action = crate::bots::flying_dutchman(&mine["legal"], &mine, &mut rng);
        let version = mine["version"].as_i64().unwrap();
        let reply = app
            .act(&players[seat], game)
            .version(version)
            .key(key)
            .send(&action)
            .await;
        match reply.status.as_u16() {
            200 => return version,
            503 => {
                reply.assert_problem(503, "database_unavailable");
                assert!(reply.headers.contains_key("retry-after"), "{reply:?}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            _ => panic!("{action} refused: {}", reply.text),
        }
    }
}

/// Four players in a Flying Dutchman game in which `actions` actions were played (by the
/// bots, from `seed`), and the game's version after them.
pub(crate) async fn a_game_under_way(
    app: &TestApp,
    seed: u64,
    actions: usize,
) -> (uuid::Uuid, Vec<User>, i64) {
    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo", "dora"] {
        players.push(app.register(name).await);
    }
    let game = app.start_game("flying-dutchman", json!({}), &players).await;
    crate::bots::play(
        app,
        game,
        &players,
        crate::bots::flying_dutchman,
        seed,
        actions,
    )
    .await;
    let version = game_version(app, game, &players[0]).await;
    (game, players, version)
}

pub(crate) async fn game_version(app: &TestApp, game: uuid::Uuid, user: &User) -> i64 {
    app.get(&format!("/games/{game}"))
        .as_user(user)
        .send()
        .await
        .assert_ok()["version"]
        .as_i64()
        .unwrap()
}

async fn healthz(app: &TestApp) -> Reply {
    read(
        app.client
            .get(format!("{}/healthz", app.address))
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// Waits (bounded) until `/healthz` answers `status`.
async fn wait_for_liveness(app: &TestApp, status: u16) -> Reply {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let reply = healthz(app).await;
        if reply.status == status {
            return reply;
        }
        assert!(Instant::now() < deadline, "/healthz stayed {reply:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_killed_embedded_cluster_is_started_again_and_play_resumes() {
    let scratch = Scratch::new("killed-postmaster");
    // Durable, as `kontor serve` runs it: what was acknowledged survives the kill.
    let pg =
        std::sync::Arc::new(EmbeddedPostgres::start(&scratch.dir, Durability::Durable).unwrap());
    pg.ensure_database("kontor").await.unwrap();
    // A limit of 0: the first failed restart is already giving up (for /healthz below).
    let (app, server) =
        build_on_cluster(&scratch, &pg, &[("KONTOR_DB_RECOVERY_LIMIT_SECS", "0")]).await;
    server.watch_embedded(pg.clone());
    let recovery = server.state.recovery.clone();
    let stopper = server.stop_handle();
    let running = tokio::spawn(server.run_until_stopped());
    let (game, players, acknowledged) = a_game_under_way(&app, 3, 6).await;

    // The postmaster killed: the server starts it again and takes actions, unrestarted.
    let killed = Instant::now();
    kill_postmaster(&scratch.cluster_data());
    let played_at = act_once_back(&app, game, &players, "after-the-kill").await;
    eprintln!(
        "an action was accepted {:?} after the postmaster's kill",
        killed.elapsed()
    );
    assert_eq!(played_at, acknowledged, "every acknowledged action is kept");
    // Counted once `pg_ctl start` has returned, which may be after the pool reconnected.
    let deadline = Instant::now() + Duration::from_secs(60);
    while recovery.restarts() == 0 {
        assert!(Instant::now() < deadline, "the restart was not counted");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    crate::bots::play(&app, game, &players, crate::bots::flying_dutchman, 4, 3).await;
    assert!(game_version(&app, game, &players[0]).await > acknowledged);
    wait_for_liveness(&app, 200).await;

    // A cluster that cannot start again: the server says it gave up, for a supervisor.
    let settings = scratch.cluster_data().join("postgresql.auto.conf");
    let kept = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(
        &settings,
        format!("{kept}\nnot_a_setting_of_postgresql = 1\n"),
    )
    .unwrap();
    let acknowledged = game_version(&app, game, &players[0]).await;
    kill_postmaster(&scratch.cluster_data());
    let reply = wait_for_liveness(&app, 503).await;
    let body = reply.assert_problem(503, "database_lost");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("restart the server"),
        "{body}"
    );
    // Mended by hand: it starts again by itself, and /healthz is well again.
    std::fs::write(&settings, kept).unwrap();
    let played_at = act_once_back(&app, game, &players, "after-the-mend").await;
    assert_eq!(played_at, acknowledged);
    wait_for_liveness(&app, 200).await;

    // A stop after the postmaster died says it was already stopped, and is no failure.
    stopper.stop(true).await;
    running.await.unwrap().unwrap();
    app.pool.close().await;
    kill_postmaster(&scratch.cluster_data());
    let deadline = Instant::now() + Duration::from_secs(30);
    while pg.postmaster_alive() {
        assert!(Instant::now() < deadline, "the postmaster did not die");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    pg.stop().unwrap();
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
            "autoctl",
            "failover",
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

#[tokio::test]
async fn a_stop_gives_up_slow_deliveries_soon_and_stops_the_cluster() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut scratch = Scratch::new("slow-stop");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}/api/v1");
    scratch
        .serve(
            port,
            &[
                ("KONTOR_WORKERS", "true"),
                ("KONTOR_OUTBOUND_ALLOW_INSECURE", "true"),
                ("KONTOR_TEST_SENDS_PER_HOUR", "100"),
                ("RUST_LOG", "info"),
            ],
        )
        .await;
    // A receiver that holds every request for two minutes.
    let slow = crate::support::SlowReceiver::start("127.0.0.2", Duration::from_secs(120)).await;
    let client = reqwest::Client::new();
    let anna = register(&client, &base, "anna").await;
    let mut hooks = Vec::new();
    for i in 0..10 {
        let created = client
            .post(format!("{base}/me/webhooks"))
            .bearer_auth(&anna)
            .json(&json!({"url": format!("{}/hook/{i}", slow.base), "event_types": ["notice.your_turn"]}))
            .send()
            .await
            .unwrap();
        hooks.push(
            read(created).await.assert_ok()["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    for n in 0..30 {
        let queued = client
            .post(format!(
                "{base}/me/webhooks/{}/test",
                hooks[n % hooks.len()]
            ))
            .bearer_auth(&anna)
            .send()
            .await
            .unwrap();
        assert_eq!(queued.status(), 202);
    }
    slow.wait_for(1, Duration::from_secs(30)).await;
    assert!(scratch.cluster_running());

    let server = scratch.servers.last_mut().unwrap();
    // SAFETY: kill on the id of a child process this test started and has not reaped.
    unsafe { libc::kill(server.id() as libc::pid_t, libc::SIGTERM) };
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break Some(status);
        }
        if signalled.elapsed() > Duration::from_secs(15) {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let log = std::fs::read_to_string(scratch.server_log(port)).unwrap_or_default();
    let status = status.unwrap_or_else(|| {
        panic!("still running 15 s after SIGTERM, with deliveries in flight: {log}")
    });
    assert!(status.success(), "a clean stop: {status:?}: {log}");
    assert!(log.contains("abandoned"), "{log}");
    assert!(
        !scratch.cluster_running(),
        "the server stops the cluster it started: {log}"
    );
}
