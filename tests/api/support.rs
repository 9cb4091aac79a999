//! Test support: one private PostgreSQL cluster per test run, a fresh migrated database and a
//! real HTTP server (on a free port) per test, and a small HTTP client.

use kontor::app::Application;
use kontor::config::Config;
use kontor::embedded_pg::{Durability, EmbeddedPostgres};
use kontor::service::deadlines::{Pass, process_due};
use kontor::service::play::committer::Committer;
use kontor::time::TestClock;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use tokio::sync::OnceCell;
use uuid::Uuid;

/// The JWT secret of every test server (tests forge tokens with it).
pub const JWT_SECRET: &str = "test-secret-test-secret-test-secret-0123456789";

struct Cluster {
    pg: EmbeddedPostgres,
    dir: PathBuf,
}

static CLUSTER: OnceLock<Cluster> = OnceLock::new();
static TEMPLATE: OnceCell<()> = OnceCell::const_new();
static NEXT_DB: AtomicU32 = AtomicU32::new(0);

extern "C" fn stop_cluster() {
    if let Some(cluster) = CLUSTER.get() {
        let _ = cluster.pg.stop();
        let _ = std::fs::remove_dir_all(&cluster.dir);
    }
}

/// The cluster of this test run, started on first use and stopped when the process exits.
pub fn pg() -> &'static EmbeddedPostgres {
    &CLUSTER
        .get_or_init(|| {
            let dir = std::env::temp_dir().join(format!("kontor-test-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let pg = EmbeddedPostgres::start(&dir, Durability::Fast).expect(
                "starting the test PostgreSQL cluster (is PostgreSQL installed? see deploy/setup.sh)",
            );
            // SAFETY: registers a plain extern "C" function to run at process exit.
            unsafe { libc::atexit(stop_cluster) };
            Cluster { pg, dir }
        })
        .pg
}

/// A folder for one server's data (secrets, mail files), removed with the cluster at exit.
pub fn scratch_dir(name: &str) -> PathBuf {
    pg();
    CLUSTER
        .get()
        .expect("the cluster is running")
        .dir
        .join(name)
}

/// A migrated template database; each test database is a copy of it.
async fn template() {
    TEMPLATE
        .get_or_init(|| async {
            pg().ensure_database("kontor_template").await.unwrap();
            let pool = kontor::store::connect(pg().connect_options("kontor_template"), 2)
                .await
                .unwrap();
            kontor::store::migrate(&pool).await.unwrap();
            pool.close().await;
        })
        .await;
}

/// A fresh database copied from the migrated template.
async fn fresh_database() -> (String, PgPool) {
    template().await;
    let name = format!(
        "test_{}_{}",
        std::process::id(),
        NEXT_DB.fetch_add(1, Ordering::SeqCst)
    );
    let admin = kontor::store::connect(pg().superuser_options("postgres"), 1)
        .await
        .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE DATABASE {name} OWNER kontor TEMPLATE kontor_template"
    )))
    .execute(&admin)
    .await
    .unwrap();
    admin.close().await;
    let pool = kontor::store::connect(pg().connect_options(&name), 12)
        .await
        .unwrap();
    (name, pool)
}

/// A running server on its own database.
pub struct TestApp {
    pub address: String,
    pub pool: PgPool,
    pub client: reqwest::Client,
    /// The test's own database.
    pub database: String,
    /// The server's configuration (with the port it actually listens on).
    pub config: Config,
    /// The server's committer, for workers a test runs by hand.
    pub committer: Committer,
    /// The in-process server; `None` when the address is another process's.
    pub server: Option<RunningServer>,
    /// The server's clock (its workers', its requests' and the notifiers made from `config`):
    /// the system's time until a test moves it on with `advance`, instead of sleeping.
    pub clock: TestClock,
    /// The uploads the server is reading and checking (a test waits for its slow upload to
    /// hold its slot before it counts on it).
    pub uploads: kontor::http::uploads::UploadSlots,
}

/// A server running in this process.
pub struct RunningServer {
    /// Stops the server cleanly, as a signal would.
    pub stopper: kontor::app::StopHandle,
    /// The running server: ends once stopped.
    pub running: tokio::task::JoinHandle<anyhow::Result<()>>,
    /// Its background tasks (see `app::Supervisor`).
    pub supervisor: kontor::app::Supervisor,
}

/// Options for a test server.
#[derive(Default)]
pub struct AppOptions {
    pub settings: HashMap<String, String>,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(AppOptions::default()).await
}

/// A test server whose mail goes to a fresh real SMTP receiver, and a notifier to deliver it
/// on demand. Mail comes from `kontor@kontor.test` unless `extra` (settings, applied last)
/// says otherwise.
pub struct MailedApp {
    pub app: TestApp,
    pub sink: crate::smtp::SmtpSink,
    pub notifier: kontor::service::delivery::mail::worker::Notifier,
}

impl MailedApp {
    /// Resets `login`'s password to `password` as its owner would: asks for the mail, follows
    /// its link's token.
    pub async fn reset_password_by_mail(&self, login: &str, password: &str) {
        self.app
            .post("/auth/password/forgot")
            .json(&json!({ "login": login }))
            .send()
            .await;
        self.notifier.deliver_due(50).await.unwrap();
        let mail = self
            .sink
            .received()
            .into_iter()
            .rev()
            .find(|m| m.mail().header("X-Kontor-Notice") == Some("password_reset"))
            .expect("a reset mail");
        let text = mail.mail().text().to_string();
        let start = text.find("kontor_pw_").expect("a reset link");
        let token: String = text[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        self.app
            .post("/auth/password/reset")
            .json(&json!({ "token": token, "password": password }))
            .send()
            .await
            .assert_ok();
    }
}

pub async fn spawn_mailed_app(extra: &[(&str, &str)]) -> MailedApp {
    let sink = crate::smtp::SmtpSink::start().await;
    let mut settings: HashMap<String, String> = HashMap::from([
        ("KONTOR_SMTP_URL".to_string(), sink.url()),
        (
            "KONTOR_MAIL_FROM".to_string(),
            "kontor@kontor.test".to_string(),
        ),
    ]);
    settings.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let app = spawn_app_with(AppOptions { settings }).await;
    let notifier =
        kontor::service::delivery::mail::worker::Notifier::new(app.pool.clone(), &app.config)
            .unwrap();
    MailedApp {
        app,
        sink,
        notifier,
    }
}

/// What every test server needs of the test process, done once whoever asks first.
pub fn prepare_process() {
    // The tests' own reqwest clients (reqwest without a TLS provider of its own) use ring, as
    // the server's outbound client does.
    let _ = rustls::crypto::ring::default_provider().install_default();
    // KONTOR_TEST_LOG=info (or any filter) shows the servers' logs while debugging a test.
    if let Ok(filter) = std::env::var("KONTOR_TEST_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_test_writer()
            .try_init();
    }
}

pub async fn spawn_app_with(options: AppOptions) -> TestApp {
    spawn_app_configured(options, |_| {}).await
}

/// A server whose configuration `configure` changes after it is read from the settings: for
/// what no setting may ask for (a worker that wakes every few milliseconds, say).
pub async fn spawn_app_configured(
    options: AppOptions,
    configure: impl FnOnce(&mut Config),
) -> TestApp {
    // The metrics recorder is the process's, and every test server counts into it. Installed
    // before the first server, it sees every stream open and close: installed later (by the
    // first test that serves metrics), it would count the closing of streams opened before it
    // and the open-streams gauge of a test would be off by the others' streams.
    kontor::telemetry::install(&kontor::ops::metrics::known_labels());
    prepare_process();
    let (database, pool) = fresh_database().await;
    let mut settings: HashMap<String, String> = [
        ("KONTOR_BIND", "127.0.0.1:0"),
        ("KONTOR_JWT_SECRET", JWT_SECRET),
        ("KONTOR_WORKERS", "false"),
        ("KONTOR_LIVE_KEEP_ALIVE", "1"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    settings.insert(
        "KONTOR_DATA_DIR".into(),
        scratch_dir(&format!("app-{database}"))
            .display()
            .to_string(),
    );
    settings.extend(options.settings);
    let mut config = Config::from_map(&settings).unwrap();
    // Not a setting: only the library lets a program hand the server a clock it can move.
    let clock = TestClock::new();
    config.clock = clock.clock();
    configure(&mut config);
    let app = Application::build(config, pool.clone()).expect("building the app");
    let address = format!("http://127.0.0.1:{}", app.port());
    let config = app.state.config.clone();
    let committer = app.state.committer.clone();
    let uploads = app.state.uploads.clone();
    let stopper = app.stop_handle();
    let supervisor = app.supervisor();
    let running = tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        pool,
        client: http_client(),
        database,
        config,
        committer,
        server: Some(RunningServer {
            stopper,
            running,
            supervisor,
        }),
        clock,
        uploads,
    }
}

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Reply {
    /// Asserts a problem+json error with this status and code; returns the body.
    pub fn assert_problem(&self, status: u16, code: &str) -> &Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "expected {status} {code}, got {}: {}",
            self.status,
            self.text
        );
        assert_eq!(
            self.headers
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
            Some("application/problem+json"),
            "errors are problem+json: {}",
            self.text
        );
        assert_eq!(self.body["code"], code, "{}", self.text);
        assert_eq!(self.body["status"], status);
        assert!(
            self.body["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "a person-readable detail: {}",
            self.text
        );
        &self.body
    }

    pub fn assert_ok(&self) -> &Value {
        assert!(
            self.status.is_success(),
            "expected success, got {}: {}",
            self.status,
            self.text
        );
        &self.body
    }
}

/// The password [`TestApp::register`] gives `name`: strong enough for the password rules.
pub fn password_of(name: &str) -> String {
    format!("{name}-sails-the-dutchman")
}

/// A registered, logged-in user.
#[derive(Clone, Debug)]
pub struct User {
    pub id: Uuid,
    pub name: String,
    pub token: String,
    pub refresh: String,
}

impl TestApp {
    /// A test's view of a server it built in this process (not yet running: the test runs
    /// it) on the database `database`, reached through `pool`, its clock `clock`.
    pub fn in_process(
        server: &Application,
        pool: PgPool,
        database: &str,
        clock: TestClock,
    ) -> Self {
        Self {
            address: format!("http://127.0.0.1:{}", server.port()),
            pool,
            client: http_client(),
            database: database.into(),
            config: server.state.config.clone(),
            committer: server.state.committer.clone(),
            server: None,
            clock,
            uploads: server.state.uploads.clone(),
        }
    }

    /// A pool of the test's own on its database, for reads after the server has stopped: the
    /// shared `pool` may hand out a connection the server opened on one of its worker threads,
    /// whose runtime ends with the server, and such a connection fails ("a Tokio context …
    /// being shutdown").
    pub async fn own_pool(&self) -> PgPool {
        kontor::store::connect(pg().connect_options(&self.database), 1)
            .await
            .unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}/api/v1{path}", self.address)
    }

    /// A request to `path` (under `/api/v1`), sent with [`Call::send`].
    pub fn request(&self, method: Method, path: &str) -> Call<'_> {
        Call {
            app: self,
            method,
            path: path.to_string(),
            token: None,
            body: None,
            headers: Vec::new(),
        }
    }

    pub fn get(&self, path: &str) -> Call<'_> {
        self.request(Method::GET, path)
    }

    pub fn post(&self, path: &str) -> Call<'_> {
        self.request(Method::POST, path)
    }

    pub fn put(&self, path: &str) -> Call<'_> {
        self.request(Method::PUT, path)
    }

    pub fn delete(&self, path: &str) -> Call<'_> {
        self.request(Method::DELETE, path)
    }

    /// An action by `user` in `game`, sent with [`Act::send`]: a fresh idempotency key
    /// unless [`Act::key`] names one, and no version unless [`Act::version`] gives one.
    pub fn act(&self, user: &User, game: Uuid) -> Act<'_> {
        Act {
            call: self.post(&format!("/games/{game}/actions")).as_user(user),
            version: None,
            key: Some(Uuid::new_v4().to_string()),
        }
    }

    /// Registers `name` (address `name@example.org`) and logs in. The address counts as
    /// verified, as every account's did before verification existed, and its verification
    /// mail is dropped: tests of other things see only the mail they are about.
    /// [`TestApp::register_unverified`] keeps both as a real registration leaves them.
    pub async fn register(&self, name: &str) -> User {
        let user = self.register_unverified(name).await;
        sqlx::query("UPDATE users SET email_verified_at = created_at WHERE id = $1")
            .bind(user.id)
            .execute(&self.pool)
            .await
            .unwrap();
        sqlx::query("DELETE FROM mail_outbox WHERE user_id = $1 AND kind = 'verify_email'")
            .bind(user.id)
            .execute(&self.pool)
            .await
            .unwrap();
        user
    }

    /// Registers `name` and logs in, as a client would: the address not verified yet, its
    /// verification mail queued.
    pub async fn register_unverified(&self, name: &str) -> User {
        let password = password_of(name);
        self.post("/auth/register").json(&json!({"username": name, "email": format!("{name}@example.org"), "password": password})).send()
        .await
        .assert_ok();
        let login = self
            .post("/auth/login")
            .json(&json!({"username": name, "password": password}))
            .send()
            .await;
        let body = login.assert_ok();
        let me = self
            .get("/me")
            .token(body["access_token"].as_str().unwrap())
            .send()
            .await;
        User {
            id: me.body["id"].as_str().unwrap().parse().unwrap(),
            name: name.to_string(),
            token: body["access_token"].as_str().unwrap().to_string(),
            refresh: body["refresh_token"].as_str().unwrap().to_string(),
        }
    }

    /// A new API token named "bot" with `scopes`, made with the access token `by`: the token.
    pub async fn api_token(&self, by: &str, scopes: &[&str]) -> String {
        self.post("/me/tokens")
            .token(by)
            .json(&json!({"name": "bot", "scopes": scopes}))
            .send()
            .await
            .assert_ok()["token"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// A new open three-seat game of The Flying Dutchman created by `creator`: its id.
    pub async fn open_game(&self, creator: &User) -> String {
        self.post("/games")
            .as_user(creator)
            .json(&json!({"kind": "flying-dutchman", "seats": 3}))
            .send()
            .await
            .assert_ok()["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Creates a game of `kind` with `options` for `players` and starts it (see
    /// [`TestApp::start_game_with`]). Returns the game id.
    pub async fn start_game(&self, kind: &str, options: Value, players: &[User]) -> Uuid {
        self.start_game_with(json!({"kind": kind, "options": options}), players)
            .await
    }

    /// Creates a game from `create` (a `POST /games` body; `seats` is the number of players)
    /// for `players` (the first creates it) and seats them all; the game starts when the last
    /// one joins. Returns the game id.
    pub async fn start_game_with(&self, mut create: Value, players: &[User]) -> Uuid {
        create["seats"] = json!(players.len());
        let created = self
            .post("/games")
            .as_user(&players[0])
            .json(&create)
            .send()
            .await;
        let id: Uuid = created.assert_ok()["id"].as_str().unwrap().parse().unwrap();
        for player in &players[1..] {
            self.post(&format!("/games/{id}/join"))
                .as_user(player)
                .json(&json!({}))
                .send()
                .await
                .assert_ok();
        }
        id
    }

    /// A game's ndjson export as `user` may see it.
    pub async fn export(&self, game: Uuid, user: &User) -> String {
        let response = self
            .client
            .get(self.url(&format!("/games/{game}/export")))
            .bearer_auth(&user.token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        response.text().await.unwrap()
    }

    /// Asks the server to verify `game` (its seed commitment, every die and shuffle) as
    /// `user`, and fails the test unless it says `verified`.
    pub async fn assert_verified(&self, game: Uuid, user: &User) {
        self.assert_verified_with(game, &user.token).await;
    }

    /// [`TestApp::assert_verified`], asked with a bearer token.
    pub async fn assert_verified_with(&self, game: Uuid, token: &str) {
        let verification = self
            .get(&format!("/games/{game}/verification"))
            .token(token)
            .send()
            .await;
        assert_eq!(
            verification.assert_ok()["verified"],
            true,
            "{}",
            verification.text
        );
    }

    /// Runs the deadline worker's pass by hand (test servers run no workers).
    pub async fn run_deadlines(&self) -> Pass {
        process_due(&self.pool, &self.committer, 10).await.unwrap()
    }

    /// The sequence numbers in a game's log, in order.
    pub async fn event_seqs(&self, game: Uuid) -> Vec<i64> {
        sqlx::query_scalar("SELECT seq FROM game_events WHERE game_id = $1 ORDER BY seq")
            .bind(game)
            .fetch_all(&self.pool)
            .await
            .unwrap()
    }

    /// A URL of the test's database for another process (the `kontor` binary).
    pub fn database_url(&self) -> String {
        pg().url(&self.database)
    }

    /// Runs the `kontor` binary on the test's database and data folder, with these extra
    /// environment variables; returns whether it succeeded and its stdout and stderr.
    pub async fn kontor_with(&self, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
        let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_kontor"))
            .args(args)
            .env("KONTOR_DATABASE_URL", self.database_url())
            .env("KONTOR_DATA_DIR", &self.config.data_dir)
            .env("KONTOR_BIND", "127.0.0.1:0")
            .env("RUST_LOG", "warn")
            .env_remove("KONTOR_CONFIG")
            .envs(env.iter().copied())
            .kill_on_drop(true)
            .output();
        // A bound, not a timing check: a command that should have ended (say, a server that
        // ought to refuse to start) fails the test instead of hanging it.
        let output = tokio::time::timeout(std::time::Duration::from_secs(120), run)
            .await
            .unwrap_or_else(|_| panic!("kontor {args:?} did not finish"))
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        (output.status.success(), text)
    }

    /// Runs the `kontor` binary on the test's database.
    pub async fn kontor(&self, args: &[&str]) -> (bool, String) {
        self.kontor_with(args, &[]).await
    }

    /// A digest of every table: equal digests mean nothing changed. The tables are read from
    /// the catalogue, so a table a new migration adds is covered without anyone listing it.
    pub async fn fingerprint(&self) -> String {
        self.fingerprint_except(&[]).await
    }

    /// [`TestApp::fingerprint`] without the tables `skip` (bookkeeping that a refused request
    /// may rightly change, such as the login throttle's counters).
    pub async fn fingerprint_except(&self, skip: &[&str]) -> String {
        let tables: Vec<String> = sqlx::query_scalar(
            "SELECT table_name::text FROM information_schema.tables
              WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
                AND table_name <> '_sqlx_migrations'
              ORDER BY table_name",
        )
        .fetch_all(&self.pool)
        .await
        .unwrap();
        assert!(
            tables.iter().any(|t| t == "game_events"),
            "the catalogue lists the tables: {tables:?}"
        );
        let mut digest = String::new();
        for table in tables.iter().filter(|t| !skip.contains(&t.as_str())) {
            let part: Option<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) FROM \"{table}\" t"
            )))
            .fetch_one(&self.pool)
            .await
            .unwrap();
            digest.push_str(&format!("{table}:{}\n", part.unwrap_or_default()));
        }
        digest
    }
}

/// A request being built: `app.get(path).as_user(&anna).header("If-None-Match", tag).send()`.
#[must_use = "a request is made only when it is sent"]
pub struct Call<'a> {
    app: &'a TestApp,
    method: Method,
    path: String,
    token: Option<String>,
    body: Option<Value>,
    headers: Vec<(String, String)>,
}

impl Call<'_> {
    /// Sent with this user's access token. (A builder step, not a conversion: it reads as
    /// "sent as this user", whatever clippy's naming rule for `as_` expects.)
    #[allow(clippy::wrong_self_convention)]
    pub fn as_user(self, user: &User) -> Self {
        self.token(&user.token)
    }

    /// Sent with this bearer token (an access token or an API token).
    pub fn token(mut self, token: &str) -> Self {
        self.token = Some(token.to_string());
        self
    }

    /// Sent with this bearer token if there is one, else without authentication.
    pub fn maybe_token(mut self, token: Option<&str>) -> Self {
        self.token = token.map(str::to_string);
        self
    }

    /// A JSON body.
    pub fn json(mut self, body: &Value) -> Self {
        self.body = Some(body.clone());
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn headers(self, headers: &[(&str, &str)]) -> Self {
        headers
            .iter()
            .fold(self, |call, (name, value)| call.header(name, value))
    }

    /// An `Idempotency-Key`.
    pub fn key(self, key: &str) -> Self {
        self.header("Idempotency-Key", key)
    }

    pub async fn send(self) -> Reply {
        let mut request = self
            .app
            .client
            .request(self.method, self.app.url(&self.path));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = &self.body {
            request = request.json(body);
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        read(request.send().await.expect("the server answers")).await
    }
}

/// The tests' HTTP client. It gives up a connection idle for 2 s, before the server closes it
/// (actix-web's keep-alive, 5 s): a request sent on a connection just as the server closes it
/// gets no answer at all (`IncompleteMessage`), which the pg_auto_failover test's clients, idle
/// for seconds while a standby took over, once met in CI.
fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .expect("an HTTP client")
}

/// An action being built (see [`TestApp::act`]).
#[must_use = "an action is submitted only when it is sent"]
pub struct Act<'a> {
    call: Call<'a>,
    version: Option<i64>,
    key: Option<String>,
}

impl Act<'_> {
    /// The version the action is for (else the request names none, as with `If-Match`).
    pub fn version(mut self, version: i64) -> Self {
        self.version = Some(version);
        self
    }

    /// This idempotency key instead of a fresh one.
    pub fn key(mut self, key: &str) -> Self {
        self.key = Some(key.to_string());
        self
    }

    /// No idempotency key at all.
    pub fn without_key(mut self) -> Self {
        self.key = None;
        self
    }

    /// Sent by nobody: no token.
    pub fn anonymous(mut self) -> Self {
        self.call.token = None;
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.call = self.call.header(name, value);
        self
    }

    /// Submits `action`.
    pub async fn send(self, action: &Value) -> Reply {
        let mut body = json!({ "action": action });
        if let Some(version) = self.version {
            body["version"] = json!(version);
        }
        self.send_body(&body).await
    }

    /// Submits a whole request body as given (`version`, `action` and whatever else).
    pub async fn send_body(self, body: &Value) -> Reply {
        let call = match &self.key {
            Some(key) => self.call.key(key),
            None => self.call,
        };
        call.json(body).send().await
    }
}

pub async fn read(response: reqwest::Response) -> Reply {
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap_or_default();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Reply {
        status,
        headers,
        body,
        text,
    }
}

/// Runs a command to its end and returns what it printed; fails the test, with its output, if
/// it does not succeed.
pub fn run(mut command: std::process::Command, what: &str) -> std::process::Output {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{what} failed ({}): {}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A slow HTTP receiver on a loopback address of its own (`127.0.0.2`, say, so that its host
/// is not the other receivers' `127.0.0.1`): it reads each request whole, notes it, and
/// answers only after `hold` (200), as an attacker's endpoint that never lets go would (a
/// request whose client gave up no longer counts as held).
#[derive(Clone)]
pub struct SlowReceiver {
    /// `http://<ip>:<port>` (no path).
    pub base: String,
    state: std::sync::Arc<std::sync::Mutex<SlowState>>,
}

#[derive(Default)]
struct SlowState {
    /// The paths of the requests read, in arrival order.
    paths: Vec<String>,
    /// Requests read and not yet answered.
    open: usize,
    /// The most there were at once.
    most_open: usize,
}

impl SlowReceiver {
    pub async fn start(ip: &str, hold: std::time::Duration) -> Self {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind((ip, 0)).await.unwrap();
        let base = format!("http://{ip}:{}", listener.local_addr().unwrap().port());
        let receiver = SlowReceiver {
            base,
            state: Default::default(),
        };
        let state = receiver.state.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let state = state.clone();
                tokio::spawn(async move {
                    let mut data = Vec::new();
                    let mut buf = [0u8; 8192];
                    loop {
                        let n = socket.read(&mut buf).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        data.extend_from_slice(&buf[..n]);
                        let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") else {
                            continue;
                        };
                        let head = String::from_utf8_lossy(&data[..end]).to_lowercase();
                        let length = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .map_or(0, |v| v.trim().parse::<usize>().unwrap_or(0));
                        if data.len() >= end + 4 + length {
                            let path = head.split(' ').nth(1).unwrap_or("").to_string();
                            let mut s = state.lock().unwrap();
                            s.paths.push(path);
                            s.open += 1;
                            s.most_open = s.most_open.max(s.open);
                            break;
                        }
                    }
                    // Held until `hold` has passed or the client gives up (closes).
                    tokio::select! {
                        _ = tokio::time::sleep(hold) => {}
                        _ = socket.read(&mut buf) => {}
                    }
                    state.lock().unwrap().open -= 1;
                    let _ = socket
                        .write_all(
                            b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                        )
                        .await;
                });
            }
        });
        receiver
    }

    /// The paths of the requests read so far.
    pub fn paths(&self) -> Vec<String> {
        self.state.lock().unwrap().paths.clone()
    }

    /// The most requests it held at once.
    pub fn most_at_once(&self) -> usize {
        self.state.lock().unwrap().most_open
    }

    /// Waits (at most `within`) until it has read `count` requests.
    pub async fn wait_for(&self, count: usize, within: std::time::Duration) {
        let deadline = tokio::time::Instant::now() + within;
        while self.paths().len() < count {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the slow receiver got {} requests, not {count}",
                self.paths().len()
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}
