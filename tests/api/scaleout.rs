//! Scale-out: two `kontor serve` processes on one database behind nginx (Debian's package,
//! run with the shipped `deploy/nginx.conf`), and the same again with the database behind
//! PgBouncer: in transaction mode (PgBouncer 1.21 or later, tracking prepared statements) with
//! `KONTOR_SESSION_DATABASE_URL` going around it, and in session mode with no second URL (see
//! [`start_pgbouncer`]). A whole game is played through the proxy while a live
//! stream follows it from whichever instance serves it, and one instance is killed and
//! started again mid-game: every action either succeeds or is sent again with the same
//! `Idempotency-Key` until it does, and in the end the log holds each action exactly once.
//!
//! nginx and PgBouncer are test tools (`deploy/setup-tests.sh` installs nginx, and PgBouncer 1.21
//! or later: Debian's where it is new enough, else built from Debian trixie's source; it links
//! `target/pgbouncer` to the one to run); the server itself needs neither.

use crate::support::*;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use uuid::Uuid;

const KONTOR: &str = env!("CARGO_BIN_EXE_kontor");

/// The shipped proxy configuration, as an operator installs it.
const NGINX_CONF: &str = include_str!("../../deploy/nginx.conf");

/// The instances' addresses in the shipped configuration, replaced by the test's.
const SHIPPED_UPSTREAMS: [&str; 2] = ["127.0.0.1:8081", "127.0.0.1:8082"];

/// Whether this process runs as root (then PgBouncer, which refuses root, runs as the
/// cluster's user, and nginx's workers as nginx's default user).
fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn tool(path: &str) -> &str {
    assert!(
        Path::new(path).exists(),
        "{path} is missing: run deploy/setup-tests.sh (it installs nginx)"
    );
    path
}

/// A folder for one test's processes and their logs. On drop every process still running
/// is killed and the folder removed, so a failing test leaves nothing behind.
struct Stack {
    dir: PathBuf,
    processes: Vec<(String, Child)>,
}

impl Stack {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("kontor-scale-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // nginx's workers and PgBouncer may run as other users (see `root`): they enter it.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        Self {
            dir,
            processes: Vec::new(),
        }
    }

    /// Starts `command` with its output in `<name>.log`, remembered under `name`.
    fn start(&mut self, name: &str, mut command: Command) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(format!("{name}.log")))
            .unwrap();
        let child = command
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        self.processes.push((name.to_string(), child));
    }

    /// Takes the process `name` out of the stack's care (to be killed elsewhere).
    fn take(&mut self, name: &str) -> Child {
        let index = self
            .processes
            .iter()
            .position(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no process {name}"));
        self.processes.remove(index).1
    }

    /// Panics, with its log, if a process has exited.
    fn assert_running(&mut self) {
        let dir = self.dir.clone();
        for (name, child) in &mut self.processes {
            if let Some(status) = child.try_wait().unwrap() {
                let log = std::fs::read_to_string(dir.join(format!("{name}.log")));
                panic!("{name} exited ({status}):\n{}", log.unwrap_or_default());
            }
        }
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default()
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        for (name, child) in &mut self.processes {
            if name == "nginx" {
                stop_nginx(child);
            } else {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        if std::thread::panicking() {
            // What the processes said, for the failure's report.
            for name in [
                "kontor-a",
                "kontor-b",
                "nginx",
                "nginx-error",
                "pgbouncer-own",
            ] {
                let log = self.log(name);
                let tail: Vec<&str> = log.lines().rev().take(40).collect();
                eprintln!("--- {name}.log (last lines) ---");
                for line in tail.iter().rev() {
                    eprintln!("{line}");
                }
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One `kontor serve` instance's command.
fn kontor(stack: &Stack, name: &str, port: u16, database: &Database, workers: bool) -> Command {
    let data = stack.dir.join(name);
    std::fs::create_dir_all(&data).unwrap();
    let mut command = Command::new(KONTOR);
    command
        .arg("serve")
        .current_dir(&data)
        .env_remove("KONTOR_CONFIG")
        .env_remove("DATABASE_URL")
        .env_remove("KONTOR_SESSION_DATABASE_URL")
        .env("KONTOR_DATABASE_URL", &database.url)
        .env("KONTOR_DATA_DIR", &data)
        .env("KONTOR_BIND", format!("127.0.0.1:{port}"))
        .env("KONTOR_JWT_SECRET", JWT_SECRET)
        .env("KONTOR_WORKERS", if workers { "true" } else { "false" })
        .env("KONTOR_DB_POOL_SIZE", "6")
        .env("KONTOR_LIVE_KEEP_ALIVE", "1")
        .env("RUST_LOG", "warn");
    if let Some(session) = &database.session_url {
        command.env("KONTOR_SESSION_DATABASE_URL", session);
    }
    command
}

/// How the instances reach the database.
struct Database {
    url: String,
    session_url: Option<String>,
}

/// The shipped nginx configuration for this test: the instances' addresses swapped in and
/// the listening addresses moved to loopback ports. `tls`: the TLS server as shipped, with
/// a self-signed certificate (for `nginx -t`); otherwise it speaks plain HTTP (the test's
/// client has no TLS), and the rest is left exactly as shipped.
fn site_conf(
    upstreams: [u16; 2],
    https_port: u16,
    http_port: u16,
    tls: Option<(&Path, &Path)>,
) -> String {
    let mut conf = NGINX_CONF.to_string();
    for (shipped, port) in SHIPPED_UPSTREAMS.iter().zip(upstreams) {
        assert!(conf.contains(shipped), "deploy/nginx.conf lists {shipped}");
        conf = conf.replace(shipped, &format!("127.0.0.1:{port}"));
    }
    let mut out = String::new();
    for line in conf.lines() {
        let trimmed = line.trim_start();
        let replaced = if trimmed.starts_with("listen [::]:") {
            // IPv6 may be missing on a test machine; the IPv4 line stands for both.
            None
        } else if trimmed.starts_with("listen 80;") {
            Some(format!("    listen 127.0.0.1:{http_port};"))
        } else if trimmed.starts_with("listen 443 ssl") {
            Some(match tls {
                Some(_) => line.replace("listen 443", &format!("listen 127.0.0.1:{https_port}")),
                None => format!("    listen 127.0.0.1:{https_port};"),
            })
        } else if trimmed.starts_with("ssl_certificate ") {
            tls.map(|(cert, _)| format!("    ssl_certificate {};", cert.display()))
        } else if trimmed.starts_with("ssl_certificate_key ") {
            tls.map(|(_, key)| format!("    ssl_certificate_key {};", key.display()))
        } else if trimmed.starts_with("ssl_") || trimmed.starts_with("add_header Strict-Transport")
        {
            tls.map(|_| line.to_string())
        } else {
            Some(line.to_string())
        };
        if let Some(line) = replaced {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// nginx's main configuration around a site file: everything in the test's folder. Each
/// answer names the instance that gave it (`X-Upstream`), for the test to see where requests
/// went; the site file sets no headers of its own in plain HTTP, so its locations inherit it.
fn main_conf(dir: &Path, site: &Path) -> String {
    let d = dir.display();
    format!(
        "worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/nginx-error.log info;
events {{ worker_connections 512; }}
http {{
    access_log {d}/nginx-access.log;
    client_body_temp_path {d}/nginx-body;
    proxy_temp_path {d}/nginx-proxy;
    fastcgi_temp_path {d}/nginx-fastcgi;
    uwsgi_temp_path {d}/nginx-uwsgi;
    scgi_temp_path {d}/nginx-scgi;
    add_header X-Upstream $upstream_addr always;
    include {};
}}
",
        site.display()
    )
}

/// Checks the shipped configuration, TLS included, with `nginx -t`.
fn check_shipped_conf(stack: &Stack, upstreams: [u16; 2]) {
    let cert = stack.dir.join("cert.pem");
    let key = stack.dir.join("key.pem");
    let made = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=kontor.example.org", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl makes a test certificate");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let site = stack.dir.join("kontor-tls.conf");
    std::fs::write(
        &site,
        site_conf(upstreams, free_port(), free_port(), Some((&cert, &key))),
    )
    .unwrap();
    let main = stack.dir.join("nginx-tls.conf");
    std::fs::write(&main, main_conf(&stack.dir, &site)).unwrap();
    let checked = Command::new(tool("/usr/sbin/nginx"))
        .arg("-t")
        .arg("-p")
        .arg(&stack.dir)
        .arg("-e")
        .arg(stack.dir.join("nginx-check.log"))
        .arg("-c")
        .arg(&main)
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "nginx -t refuses deploy/nginx.conf: {}",
        String::from_utf8_lossy(&checked.stderr)
    );
}

/// Stops nginx as it is meant to be stopped: SIGTERM to the master, which stops its workers
/// and waits for them before it exits; if it has not within ten seconds, SIGKILL to its
/// process group (`start_nginx` gives it one of its own). SIGKILL to the master alone, as
/// for the other processes, left its workers running after the suite, listening on loopback.
fn stop_nginx(master: &mut Child) {
    let pid = master.id() as libc::pid_t;
    // SAFETY: signals to our own child, not yet reaped (so its pid, which names its process
    // group too, cannot have been reused).
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !exited_unreaped(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: as above; the group is empty after a clean stop, and this does nothing then.
    unsafe { libc::killpg(pid, libc::SIGKILL) };
    let _ = master.wait();
}

/// Whether our child `pid` has exited, leaving it to be reaped (so its pid stays taken).
fn exited_unreaped(pid: libc::pid_t) -> bool {
    // SAFETY: waitid writes only into the zeroed siginfo it is given.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let waited = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        waited != 0 || info.si_pid() != 0
    }
}

fn start_nginx(stack: &mut Stack, upstreams: [u16; 2]) -> (u16, u16) {
    let (https_port, http_port) = (free_port(), free_port());
    let site = stack.dir.join("kontor.conf");
    std::fs::write(&site, site_conf(upstreams, https_port, http_port, None)).unwrap();
    let main = stack.dir.join("nginx.conf");
    std::fs::write(&main, main_conf(&stack.dir, &site)).unwrap();
    let mut command = Command::new(tool("/usr/sbin/nginx"));
    command
        .arg("-p")
        .arg(&stack.dir)
        .arg("-e")
        .arg(stack.dir.join("nginx-error.log"))
        .arg("-c")
        .arg(&main)
        .args(["-g", "daemon off;"])
        // A process group of its own, which its workers share, for `stop_nginx`.
        .process_group(0);
    stack.start("nginx", command);
    (https_port, http_port)
}

/// How PgBouncer pools.
#[derive(Clone, Copy, Debug, PartialEq)]
enum PoolMode {
    /// A server connection per transaction, with prepared statements tracked: PgBouncer 1.21
    /// or later.
    Transaction,
    /// A server connection per client connection.
    Session,
}

/// The PgBouncer `deploy/setup-tests.sh` chose (a link to it).
fn pgbouncer_binary() -> PathBuf {
    let link = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/pgbouncer");
    assert!(
        link.exists(),
        "{} is missing: run deploy/setup-tests.sh (it provides PgBouncer 1.21 or later)",
        link.display()
    );
    link
}

/// PgBouncer in front of the test cluster (its Unix socket), trusting the one role on
/// loopback, pooling as `mode` says.
///
/// Transaction mode needs PgBouncer 1.21 or later, which tracks protocol-level prepared
/// statements (`max_prepared_statements`): sqlx 0.9 always uses them, parsing each query with
/// parameters in one round trip and binding it in the next, each ending with a Sync, between
/// which an older PgBouncer in transaction mode hands the server connection to another
/// client. Tried with Debian bookworm's 1.18: "prepared statement \"sqlx_s_1\" already
/// exists" at once, and "incorrect binary data format in bind parameter 1" (one client's
/// parameters bound to another's statement); `statement-cache-capacity=0` does not help, since
/// sqlx still names each statement. So an older PgBouncer fails the test here, rather than
/// the test quietly falling back to session mode. Without the session URL, in transaction mode,
/// the test failed too (the migration lock released elsewhere, a notification delivered into
/// another client's query). See PgBouncer in docs/operations.md.
fn start_pgbouncer(stack: &mut Stack, mode: PoolMode) -> u16 {
    let binary = pgbouncer_binary();
    let version = pgbouncer_version(&binary);
    let mode = match mode {
        PoolMode::Transaction => {
            assert!(
                version.as_slice() >= [1, 21].as_slice(),
                "{} is PgBouncer {version:?}: transaction mode needs 1.21 or later (run deploy/setup-tests.sh)",
                binary.display()
            );
            "pool_mode = transaction\nmax_prepared_statements = 200"
        }
        PoolMode::Session => "pool_mode = session",
    };
    let port = free_port();
    let dir = &stack.dir;
    std::fs::write(dir.join("userlist.txt"), "\"kontor\" \"\"\n").unwrap();
    let ini = dir.join("pgbouncer.ini");
    std::fs::write(
        &ini,
        format!(
            "[databases]
* = host={socket} port=5432

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {d}/userlist.txt
{mode}
default_pool_size = 20
max_client_conn = 200
logfile = {d}/pgbouncer-own.log
pidfile = {d}/pgbouncer.pid
ignore_startup_parameters = extra_float_digits
",
            socket = pg().socket_dir().display(),
            d = dir.display(),
        ),
    )
    .unwrap();
    let mut command = Command::new(&binary);
    if root() {
        // PgBouncer refuses to run as root; the cluster's user may reach its socket.
        command.arg("-u").arg("postgres");
        let chown = Command::new("chown")
            .arg("-R")
            .arg("postgres")
            .arg(dir)
            .status()
            .unwrap();
        assert!(chown.success());
    }
    command.arg(&ini);
    stack.start("pgbouncer", command);
    port
}

/// PgBouncer's version, from `--version` ("PgBouncer 1.24.1").
fn pgbouncer_version(binary: &Path) -> Vec<u32> {
    let output = Command::new(binary).arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace()
        .nth(1)
        .unwrap_or("0")
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// A client's view of one answer.
struct Answer {
    status: StatusCode,
    body: Value,
    upstream: String,
}

/// Whether a failure is one a client retries: the request may not have reached an instance
/// (a refused or broken connection, nginx's 502 and 504) or the instance asked to come back
/// (503 with Retry-After).
fn retryable(status: StatusCode) -> bool {
    matches!(status.as_u16(), 502..=504)
}

/// A client of the proxy that sends each request again, unchanged, after a failure that
/// says nothing about whether it was done.
#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    base: String,
    /// Requests that had to be sent again, and why.
    retries: Arc<Mutex<Vec<String>>>,
}

impl Client {
    async fn send(&self, build: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder) -> Answer {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let why = match build(&self.http).send().await {
                Ok(response) if !retryable(response.status()) => {
                    let status = response.status();
                    let upstream = response
                        .headers()
                        .get("x-upstream")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string();
                    let text = response.text().await.unwrap_or_default();
                    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
                    return Answer {
                        status,
                        body,
                        upstream,
                    };
                }
                Ok(response) => format!("{}", response.status()),
                Err(error) => format!("{error}"),
            };
            self.retries.lock().unwrap().push(why.clone());
            assert!(
                Instant::now() < deadline,
                "no answer within a minute: {why}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/api/v1{path}", self.base)
    }

    async fn get(&self, path: &str, token: &str) -> Answer {
        let url = self.url(path);
        self.send(|c| c.get(&url).bearer_auth(token)).await
    }

    async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Answer {
        let url = self.url(path);
        self.send(|c| {
            let request = c.post(&url).json(body);
            match token {
                Some(token) => request.bearer_auth(token),
                None => request,
            }
        })
        .await
    }

    async fn register(&self, name: &str) -> (Uuid, String) {
        let password = password_of(name);
        let registered = self
            .post(
                "/auth/register",
                None,
                &json!({"username": name, "email": format!("{name}@example.org"), "password": password}),
            )
            .await;
        assert!(registered.status.is_success(), "{}", registered.body);
        let login = self
            .post(
                "/auth/login",
                None,
                &json!({"username": name, "password": password}),
            )
            .await;
        assert!(login.status.is_success(), "{}", login.body);
        let token = login.body["access_token"].as_str().unwrap().to_string();
        let me = self.get("/me", &token).await;
        (me.body["id"].as_str().unwrap().parse().unwrap(), token)
    }
}

/// What a live stream's follower has seen: every event id, and the instance of each
/// connection (it reconnects with `Last-Event-ID` when its instance goes away).
#[derive(Default)]
struct Followed {
    ids: Vec<i64>,
    upstreams: Vec<String>,
}

/// Follows a game's live stream through the proxy until `stop`, reconnecting (with the last
/// id seen) whenever the connection ends.
async fn follow(client: Client, game: Uuid, token: String, seen: Arc<Mutex<Followed>>) {
    let url = client.url(&format!("/games/{game}/stream"));
    loop {
        let last = seen.lock().unwrap().ids.last().copied();
        let mut request = client
            .http
            .get(&url)
            .bearer_auth(&token)
            .header("accept", "text/event-stream");
        if let Some(last) = last {
            request = request.header("last-event-id", last.to_string());
        }
        let mut response = match request.send().await {
            Ok(response) if response.status() == StatusCode::OK => response,
            _ => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let upstream = response
            .headers()
            .get("x-upstream")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        seen.lock().unwrap().upstreams.push(upstream);
        let mut pending = String::new();
        while let Ok(Some(chunk)) = response.chunk().await {
            pending.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = pending.find("\n\n") {
                let frame: String = pending.drain(..end + 2).collect();
                for line in frame.lines() {
                    if let Some(id) = line.strip_prefix("id:") {
                        let id: i64 = id.trim().parse().unwrap();
                        seen.lock().unwrap().ids.push(id);
                    }
                }
            }
        }
    }
}

/// Two instances (`a` runs the workers) on one database reached as `database`, nginx in
/// front; a whole Steel Driver game through the proxy with a stream following it, instance
/// `b` killed and restarted mid-game. Checks that every action is in the log exactly once.
async fn play_through_the_proxy(stack: &mut Stack, app: &TestApp, database: Database) {
    let ports = [free_port(), free_port()];
    stack.start("kontor-a", kontor(stack, "a", ports[0], &database, true));
    stack.start("kontor-b", kontor(stack, "b", ports[1], &database, false));
    let direct = reqwest::Client::new();
    for port in ports {
        wait_ready(stack, &direct, &format!("http://127.0.0.1:{port}")).await;
    }
    check_shipped_conf(stack, ports);
    let (https_port, http_port) = start_nginx(stack, ports);
    let client = Client {
        http: reqwest::Client::new(),
        base: format!("http://127.0.0.1:{https_port}"),
        retries: Default::default(),
    };
    wait_ready(stack, &direct, &client.base).await;

    // Plain HTTP only redirects to HTTPS.
    let redirect = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(format!("http://127.0.0.1:{http_port}/api/v1/kinds"))
        .send()
        .await
        .unwrap();
    assert_eq!(redirect.status(), StatusCode::MOVED_PERMANENTLY);
    assert!(
        redirect.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("https://"),
        "{:?}",
        redirect.headers()
    );

    let mut players = Vec::new();
    for name in ["anna", "bert", "cleo"] {
        players.push(client.register(name).await);
    }
    let created = client
        .post(
            "/games",
            Some(&players[0].1),
            &json!({"kind": "steel-driver", "seats": 3}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let game: Uuid = created.body["id"].as_str().unwrap().parse().unwrap();
    for (_, token) in &players[1..] {
        let joined = client
            .post(&format!("/games/{game}/join"), Some(token), &json!({}))
            .await;
        assert!(joined.status.is_success(), "{}", joined.body);
    }

    let followed: Arc<Mutex<Followed>> = Default::default();
    let follower = tokio::spawn(follow(
        client.clone(),
        game,
        players[0].1.clone(),
        followed.clone(),
    ));
    let first_version = wait_for(|| followed.lock().unwrap().ids.first().copied()).await;

    // Play to the end; instance b hangs (SIGSTOP) with the 21st action and is killed
    // (SIGKILL, as a crash) a moment later with it under way, and started again before the
    // 51st, while the client goes on.
    let mut rng = kontor::games::GameRng::from_u64(15);
    let mut keys = BTreeSet::new();
    let mut served_by: HashMap<String, usize> = HashMap::new();
    let mut final_version = 0;
    let mut killer: Option<std::thread::JoinHandle<()>> = None;
    for action_number in 0..5_000 {
        if action_number == 50 {
            killer.take().unwrap().join().unwrap();
            stack.start("kontor-b", kontor(stack, "b", ports[1], &database, false));
        }
        let detail = client.get(&format!("/games/{game}"), &players[0].1).await;
        assert_eq!(detail.status, StatusCode::OK, "{}", detail.body);
        if detail.body["status"] == "finished" {
            final_version = detail.body["version"].as_i64().unwrap();
            break;
        }
        let seat = detail.body["pending"][0].as_u64().unwrap() as usize;
        let token = &players[seat].1;
        let mine = client.get(&format!("/games/{game}"), token).await;
        let action = crate::bots::steel_driver(&mine.body["legal"], &mine.body, &mut rng);
        let version = mine.body["version"].as_i64().unwrap();
        let key = Uuid::new_v4().to_string();
        let url = client.url(&format!("/games/{game}/actions"));
        let body = json!({"version": version, "action": action});
        let resent_before = client.retries.lock().unwrap().len();
        if action_number == 20 {
            // This action goes to b, which hangs with it and dies: nginx alternates between
            // the instances (one worker process), so once a request was served by a, the next
            // goes to b.
            let a = format!("127.0.0.1:{}", ports[0]);
            while client.get("/kinds", token).await.upstream != a {}
            let mut victim = stack.take("kontor-b");
            // SAFETY: a signal to our own child, which has not been waited for yet.
            assert_eq!(unsafe { libc::kill(victim.id() as i32, libc::SIGSTOP) }, 0);
            killer = Some(std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                victim.kill().unwrap();
                victim.wait().unwrap();
            }));
        }
        // Sent again, unchanged, until it is answered: the key makes that safe.
        let answer = client
            .send(|c| {
                c.post(&url)
                    .bearer_auth(token)
                    .header("idempotency-key", &key)
                    .json(&body)
            })
            .await;
        assert_eq!(
            answer.status,
            StatusCode::OK,
            "action {action_number} ({action}): {}",
            answer.body
        );
        if action_number == 20 {
            // nginx never resends a POST that reached an instance: the client had to.
            let resent = client.retries.lock().unwrap()[resent_before..].to_vec();
            assert!(
                !resent.is_empty(),
                "the action under way on the dying instance was answered 502 and sent again"
            );
        }
        *served_by.entry(answer.upstream).or_default() += 1;
        keys.insert(key);
    }
    assert!(final_version > 0, "the game ended");
    stack.assert_running();

    // The stream saw every event to the end, across instances and reconnections.
    wait_for(|| {
        let seen = followed.lock().unwrap();
        (seen.ids.last() == Some(&final_version)).then_some(())
    })
    .await;
    follower.abort();
    let (ids, streams) = {
        let seen = followed.lock().unwrap();
        (seen.ids.clone(), seen.upstreams.clone())
    };
    let expected: Vec<i64> = (first_version..=final_version).collect();
    assert_eq!(ids, expected, "each event once, in order");
    // The first connection's instance is one address (a retried one lists each it tried).
    let stream_instance = &streams[0];
    assert!(
        served_by.len() == 2
            && served_by
                .keys()
                .any(|up| !stream_instance.is_empty() && up != stream_instance),
        "actions went to both instances, not only to the stream's ({streams:?}): {served_by:?}"
    );

    // Exactly one command record per intended action: none lost, none twice.
    let recorded: Vec<String> = sqlx::query_scalar(
        "SELECT idempotency_key FROM game_commands WHERE game_id = $1 AND idempotency_key IS NOT NULL",
    )
    .bind(game)
    .fetch_all(&app.pool)
    .await
    .unwrap();
    assert_eq!(recorded.len(), keys.len(), "one command per action");
    assert_eq!(recorded.into_iter().collect::<BTreeSet<_>>(), keys);
    let verification = client
        .get(&format!("/games/{game}/verification"), &players[0].1)
        .await;
    assert_eq!(verification.body["verified"], true, "{}", verification.body);
    let (checked, output) = app.kontor(&["replay", "--check"]).await;
    assert!(checked, "kontor replay --check: {output}");

    // The restarted instance serves again, and nginx sends it requests once more (after its
    // fail_timeout).
    wait_ready(stack, &direct, &format!("http://127.0.0.1:{}", ports[1])).await;
    let b = format!("127.0.0.1:{}", ports[1]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while client.get("/kinds", &players[0].1).await.upstream != b {
        assert!(Instant::now() < deadline, "nginx never went back to b");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stack.assert_running();
    let retries = client.retries.lock().unwrap().clone();
    eprintln!(
        "{} actions, served by {served_by:?}, stream connections {streams:?}, {} requests sent again: {retries:?}",
        keys.len(),
        retries.len()
    );
}

/// Waits (bounded) until `probe` gives a value.
async fn wait_for<T>(mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(Instant::now() < deadline, "not reached within a minute");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits (bounded) until `base` answers `/readyz` with 200; fails with the logs if a
/// process of the stack exits meanwhile.
async fn wait_ready(stack: &mut Stack, client: &reqwest::Client, base: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(response) = client.get(format!("{base}/readyz")).send().await
            && response.status() == StatusCode::OK
        {
            return;
        }
        stack.assert_running();
        assert!(Instant::now() < deadline, "{base} is not ready");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn two_instances_behind_nginx_play_a_game_through_a_restart() {
    let app = spawn_app().await;
    let mut stack = Stack::new("nginx");
    let database = Database {
        url: app.database_url(),
        session_url: None,
    };
    play_through_the_proxy(&mut stack, &app, database).await;
}

#[tokio::test]
async fn the_same_through_pgbouncer_in_transaction_mode() {
    let app = spawn_app().await;
    let mut stack = Stack::new("pgbouncer-transaction");
    let port = start_pgbouncer(&mut stack, PoolMode::Transaction);
    let database = Database {
        url: format!("postgres://kontor@127.0.0.1:{port}/{}", app.database),
        // LISTEN, the migrations' lock and the live publisher's session setting go straight
        // to PostgreSQL, as they must behind a transaction pooler.
        session_url: Some(app.database_url()),
    };
    play_through_the_proxy(&mut stack, &app, database).await;
}

#[tokio::test]
async fn the_same_through_pgbouncer_in_session_mode() {
    let app = spawn_app().await;
    let mut stack = Stack::new("pgbouncer-session");
    let port = start_pgbouncer(&mut stack, PoolMode::Session);
    let database = Database {
        url: format!("postgres://kontor@127.0.0.1:{port}/{}", app.database),
        // A session pooler keeps a session per connection: nothing needs to go around it.
        session_url: None,
    };
    play_through_the_proxy(&mut stack, &app, database).await;
}

/// The processes of `pgid`'s process group, from /proc.
fn process_group(pgid: libc::pid_t) -> Vec<String> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, fields)) = stat.rsplit_once(')') else {
            continue;
        };
        if fields.split_whitespace().nth(2) == Some(pgid.to_string().as_str()) {
            members.push(stat);
        }
    }
    members
}

/// A stack stops nginx with its workers: after it, no process of nginx's remains and nothing
/// listens on its ports (SIGKILL to the master alone left the workers running and listening).
#[test]
fn a_stopped_stack_leaves_no_nginx_process_behind() {
    let mut stack = Stack::new("nginx-stop");
    let (https_port, http_port) = start_nginx(&mut stack, [free_port(), free_port()]);
    let listening = |port: u16| std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(listening(http_port) && listening(https_port)) {
        stack.assert_running();
        assert!(Instant::now() < deadline, "nginx does not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (_, master) = stack.processes.iter().find(|(n, _)| n == "nginx").unwrap();
    let group = master.id() as libc::pid_t;
    let members = process_group(group);
    assert!(
        members.len() >= 2,
        "nginx's master and a worker: {members:?}"
    );

    drop(stack);
    assert_eq!(
        process_group(group),
        Vec::<String>::new(),
        "nginx's processes remain"
    );
    assert!(
        !listening(http_port),
        "something still listens on nginx's port"
    );
    assert!(
        !listening(https_port),
        "something still listens on nginx's port"
    );
}

/// The deploy kit keeps what docs/operations.md says of it (read as text; the image is built
/// and run in tests/api/image.rs, the unit is not run: no systemd).
#[test]
fn the_deploy_kit_keeps_its_promises() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &str| std::fs::read_to_string(root.join(path)).unwrap();
    let unit = read("deploy/kontor.service");
    for directive in [
        "ExecStart=/usr/local/bin/kontor serve",
        "DynamicUser=yes",
        "StateDirectory=kontor",
        "ProtectSystem=strict",
        "ProtectHome=yes",
        "PrivateTmp=yes",
        "NoNewPrivileges=yes",
        "Restart=on-failure",
        "RestartSec=",
        "EnvironmentFile=/etc/kontor/kontor.env",
    ] {
        assert!(
            unit.lines().any(|l| l.starts_with(directive)),
            "deploy/kontor.service lacks {directive}"
        );
    }
    let image = read("deploy/Dockerfile");
    assert!(image.matches("\nFROM ").count() >= 3, "a multi-stage build");
    assert!(
        image.contains("FROM debian:bookworm-slim"),
        "a small runtime"
    );
    assert!(image.contains("\nUSER kontor"), "not root");
    // The image tested (prebuilt) and the full build share the runtime's lines; the full
    // build is the default target, the last.
    let finals: Vec<&str> = image
        .lines()
        .filter(|l| l.starts_with("FROM runtime-base AS "))
        .collect();
    assert_eq!(
        finals,
        [
            "FROM runtime-base AS prebuilt",
            "FROM runtime-base AS runtime"
        ]
    );
    let last = image.rsplit("\nFROM ").next().unwrap();
    assert!(last.starts_with("runtime-base AS runtime"), "{last}");
    let entry = read("deploy/docker-entrypoint.sh");
    assert!(entry.contains("KONTOR_DATABASE_URL"), "the URL is required");
    let compose = read("deploy/compose.yaml");
    for part in [
        "kontor-a:",
        "kontor-b:",
        "postgres:",
        "mailpit",
        "./nginx.conf:/etc/nginx/conf.d/",
        "KONTOR_JWT_SECRET",
    ] {
        assert!(compose.contains(part), "deploy/compose.yaml lacks {part}");
    }
    let ignore = read(".dockerignore");
    for heavy in ["target/", "web/node_modules/", ".git/"] {
        assert!(
            ignore.lines().any(|l| l == heavy),
            ".dockerignore lacks {heavy}"
        );
    }
    // The streams' location is unbuffered with a long read timeout.
    let stream = NGINX_CONF
        .split("location ~ ^/api/v1/(games/[^/]+|me)/stream$")
        .nth(1)
        .expect("deploy/nginx.conf has a location for the live streams");
    let stream = &stream[..stream.find('}').unwrap()];
    assert!(stream.contains("proxy_buffering off;"), "{stream}");
    assert!(stream.contains("proxy_read_timeout 1h;"), "{stream}");
    // The proxy lets through the largest body Kontor takes (an uploaded export).
    let limit = kontor::http::play::audit::MAX_EXPORT_BODY;
    assert_eq!(limit % (1024 * 1024), 0);
    let directive = format!("client_max_body_size {}m;", limit / (1024 * 1024));
    assert!(
        NGINX_CONF.contains(&directive),
        "deploy/nginx.conf lacks {directive}"
    );
}
