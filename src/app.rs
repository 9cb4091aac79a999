//! Building and running the server.

use crate::auth::{self, JwtKeys};
use crate::config::{Config, Database};
use crate::embedded_pg::{Durability, EmbeddedPostgres};
use crate::http;
use crate::http::state::AppState;
use crate::store;
use actix_web::dev::{Server, ServerHandle};
use actix_web::middleware::{Compress, ErrorHandlers, from_fn};
use actix_web::{App, HttpServer, web};
use sqlx::PgPool;
use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing_actix_web::TracingLogger;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

/// How often the tournament worker looks for tournaments to move on (a round whose games
/// all ended is seated at most this long after).
const TOURNAMENT_POLL: std::time::Duration = std::time::Duration::from_secs(10);

/// The database of a configuration, and the embedded cluster behind it if there is one.
pub struct DatabaseHandle {
    pub pool: PgPool,
    /// Shared with the server's watchdog, which starts it again if it dies (see
    /// [`Application::watch_embedded`]).
    pub embedded: Option<Arc<EmbeddedPostgres>>,
}

/// Opens the configured database (starting the embedded cluster if that is the default)
/// and applies the migrations.
pub async fn open_database(config: &Config) -> anyhow::Result<DatabaseHandle> {
    let (pool, embedded) = match &config.database {
        Database::Url(url) => {
            let addresses = Database::addresses(url);
            let pool = if addresses.len() > 1 {
                let candidates = store::primary::parse(&addresses, "KONTOR_DATABASE_URL")?;
                let (pool, primary) = store::primary::connect(
                    &candidates,
                    config.db_pool_size,
                    config.db_acquire_timeout,
                )
                .await?;
                tracing::info!(
                    servers = candidates.len(),
                    primary = primary + 1,
                    "following the primary among the listed database servers"
                );
                pool
            } else {
                let options: sqlx::postgres::PgConnectOptions = url.parse()?;
                store::connect_with_timeout(options, config.db_pool_size, config.db_acquire_timeout)
                    .await?
            };
            (pool, None)
        }
        Database::Embedded => {
            let pg = EmbeddedPostgres::start(&config.data_dir, Durability::Durable)?;
            pg.ensure_database("kontor").await?;
            let pool = store::connect_with_timeout(
                pg.connect_options("kontor"),
                config.db_pool_size,
                config.db_acquire_timeout,
            )
            .await?;
            (pool, Some(Arc::new(pg)))
        }
    };
    match &config.session_database_url {
        Some(url) => {
            let session = store::session_pool(url, config.db_acquire_timeout)?;
            let migrated = store::migrate_over(&pool, &session).await;
            session.close().await;
            migrated?;
        }
        None => store::migrate(&pool).await?,
    }
    Ok(DatabaseHandle { pool, embedded })
}

/// The pool for `LISTEN` and the live publisher (see [`store::session_pool`]): its own when
/// `KONTOR_SESSION_DATABASE_URL` is set, else `None`: the main pool serves.
fn session_pool(config: &Config) -> anyhow::Result<Option<PgPool>> {
    config
        .session_database_url
        .as_deref()
        .map(|url| store::session_pool(url, config.db_acquire_timeout))
        .transpose()
}

/// A server bound to its port, ready to run.
pub struct Application {
    port: u16,
    server: Server,
    /// The separate metrics address's server (`KONTOR_METRICS_BIND`), if any.
    metrics_server: Option<Server>,
    pub state: web::Data<AppState>,
    workers: Supervisor,
    failures: mpsc::UnboundedReceiver<WorkerFailure>,
    /// The session pool when it is not the main pool (`KONTOR_SESSION_DATABASE_URL`): the
    /// server's own, closed once it has stopped.
    own_session: Option<PgPool>,
}

/// A background task that stopped while the server ran: it returned, panicked or was aborted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerFailure {
    /// The task's name (`mail`, `deadlines`, `housekeeping`, `live-listener`, `committer`,
    /// `live-publisher`, `metrics`, `database-monitor`, `database-watchdog`).
    pub worker: &'static str,
    /// How it stopped, for the log.
    pub how: String,
}

impl std::fmt::Display for WorkerFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the {} worker {}", self.worker, self.how)
    }
}

impl std::error::Error for WorkerFailure {}

/// Runs the server's background tasks and notices any that stops while the server runs.
///
/// Two kinds: *workers* (mail, deadlines, housekeeping, the live listener) end when told to
/// stop, each after the item at hand, and a stop waits for them; *services* (the group
/// committer and the live publisher) serve requests until the very end and stop by
/// themselves once the server's state is dropped, so nobody waits for them.
///
/// A task that ends before the stop began is a failure, whatever the cause: each worker
/// already retries what can fail on the way (a lost connection, an SMTP error), so one that
/// returns or panics has met a bug or a state it cannot handle. The failure is logged with the
/// task's name, the server stops the clean way, and `run_until_stopped` returns it, so that
/// `kontor serve` exits with a non-zero status. A restart in place was not chosen: the
/// committer's and publisher's handles are held by every request and cannot be swapped, a
/// restarted loop that panics again would hide the fault behind a log line, and whatever runs
/// `kontor serve` (systemd, a container platform) restarts a process that exits, with backoff,
/// while `/healthz` — which would go on answering 200 — could not tell it that a worker died.
#[derive(Clone)]
pub struct Supervisor {
    /// Tells the workers to finish (see [`Supervisor::stop_workers`]).
    stop: CancellationToken,
    /// Set once a stop has begun: from then on a task that ends is no failure.
    stopping: CancellationToken,
    workers: TaskTracker,
    failures: mpsc::UnboundedSender<WorkerFailure>,
    /// Each task's abort handle, by name, for [`Supervisor::abort`].
    running: Arc<Mutex<HashMap<&'static str, AbortHandle>>>,
}

impl Supervisor {
    fn new() -> (Self, mpsc::UnboundedReceiver<WorkerFailure>) {
        let (failures, receiver) = mpsc::unbounded_channel();
        let supervisor = Self {
            stop: CancellationToken::new(),
            stopping: CancellationToken::new(),
            workers: TaskTracker::new(),
            failures,
            running: Default::default(),
        };
        (supervisor, receiver)
    }

    /// The token a worker watches: once it is cancelled, the worker finishes its item and
    /// returns.
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Runs a worker under supervision: it must run until [`Supervisor::stop_token`] is
    /// cancelled, and a stop waits for it.
    pub fn spawn_worker(
        &self,
        name: &'static str,
        task: impl Future<Output = ()> + Send + 'static,
    ) {
        let watcher = self.watch(name, task);
        self.workers.spawn(watcher);
    }

    /// Runs a service under supervision: it must run until the server has stopped; a stop
    /// does not wait for it.
    fn spawn_service(&self, name: &'static str, task: impl Future<Output = ()> + Send + 'static) {
        tokio::spawn(self.watch(name, task));
    }

    /// Ends a task at once, as a crash would (it does not finish its item), which the
    /// supervision then reports like any other failure. For tests and for diagnosing a
    /// running server; `false` if no task has this name.
    pub fn abort(&self, name: &str) -> bool {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        match running.get(name) {
            Some(task) => {
                task.abort();
                true
            }
            None => false,
        }
    }

    /// Spawns `task` and returns what waits for it to end and reports how it did.
    fn watch(
        &self,
        name: &'static str,
        task: impl Future<Output = ()> + Send + 'static,
    ) -> impl Future<Output = ()> + Send + 'static {
        let handle = tokio::spawn(task);
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name, handle.abort_handle());
        let stopping = self.stopping.clone();
        let failures = self.failures.clone();
        async move {
            let how = match handle.await {
                Ok(()) if stopping.is_cancelled() => return,
                Ok(()) => "returned while the server was running".to_string(),
                Err(error) if error.is_panic() => {
                    format!("panicked: {}", panic_message(error.into_panic()))
                }
                Err(_) => "was aborted".to_string(),
            };
            let failure = WorkerFailure { worker: name, how };
            if stopping.is_cancelled() {
                // The server is stopping anyway; a panic on the way out is still a bug.
                tracing::error!(worker = name, "{failure} while the server was stopping");
            } else {
                tracing::error!(worker = name, "{failure}; stopping the server");
                let _ = failures.send(failure);
            }
        }
    }

    /// Marks the start of a stop: tasks that end from now on are expected to.
    fn begin_stop(&self) {
        self.stopping.cancel();
    }

    /// Tells the workers to finish and waits until they have.
    async fn stop_workers(&self) {
        self.begin_stop();
        self.stop.cancel();
        self.workers.close();
        self.workers.wait().await;
    }
}

/// The text of a panic's payload (`panic!` gives a `&str` or a `String`).
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(text) => *text,
        Err(payload) => match payload.downcast::<&'static str>() {
            Ok(text) => text.to_string(),
            Err(_) => "(no message)".to_string(),
        },
    }
}

/// The longest a stop waits for the live streams to wind down (each finishes one query).
const STREAMS_GRACE: Duration = Duration::from_secs(10);

/// Stops a running [`Application`] the clean way, as Ctrl-C and SIGTERM do.
///
/// Live streams never end on their own, so the HTTP server's graceful stop would wait for them
/// until its timeout and then drop their tasks mid-query, on worker runtimes that are going
/// away (sqlx then panics returning the connection). And once a worker runtime has gone, the
/// pool's connections opened on it are dead. So, in this order, while every runtime still
/// runs: the streams end (each task finishes the query it is in, cleans up its presence and
/// closes its response), the workers finish their current item, and then the HTTP server
/// stops.
#[derive(Clone)]
pub struct StopHandle {
    server: ServerHandle,
    metrics_server: Option<ServerHandle>,
    hub: Arc<crate::live::Hub>,
    workers: Supervisor,
}

impl StopHandle {
    /// Ends every live stream and worker, then stops the HTTP server (`graceful`: requests
    /// under way are answered first); `run_until_stopped` returns after that.
    pub async fn stop(&self, graceful: bool) {
        // First: the live listener ends with the streams, and that is no failure.
        self.workers.begin_stop();
        self.hub.close_streams();
        let deadline = tokio::time::Instant::now() + STREAMS_GRACE;
        while self.hub.open_streams_total() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.workers.stop_workers().await;
        self.server.stop(graceful).await;
        if let Some(metrics) = &self.metrics_server {
            metrics.stop(graceful).await;
        }
    }
}

/// Binds the HTTP address (port 0 picks a free one), with an error that names it.
/// `kontor serve` binds before it opens the database, so a second server that cannot listen
/// fails before it touches the database at all.
pub fn bind(address: SocketAddr) -> anyhow::Result<TcpListener> {
    TcpListener::bind(address).map_err(|error| {
        if error.kind() == std::io::ErrorKind::AddrInUse {
            anyhow::anyhow!(
                "cannot listen on {address}: address already in use (is another kontor running?)"
            )
        } else {
            anyhow::anyhow!("cannot listen on {address}: {error}")
        }
    })
}

impl Application {
    /// Binds the configured address (port 0 picks a free one) and builds the server around
    /// an open pool.
    pub fn build(config: Config, pool: PgPool) -> anyhow::Result<Self> {
        let listener = bind(config.bind)?;
        Self::build_on(config, pool, listener)
    }

    /// Builds the server around an open pool on a listener bound with [`bind`].
    pub fn build_on(
        mut config: Config,
        pool: PgPool,
        listener: TcpListener,
    ) -> anyhow::Result<Self> {
        config.refuse_retired_settings()?;
        // Bound before anything is spawned: a taken port fails with nothing running.
        let metrics_listener = config.metrics_bind.map(bind).transpose()?;
        if let (Some(bind), Some(listener)) = (&mut config.metrics_bind, &metrics_listener) {
            bind.set_port(listener.local_addr()?.port());
        }
        let secret = auth::load_or_create_secret(config.jwt_secret.as_deref(), &config.data_dir)?;
        let jwt = JwtKeys::new(&secret, config.access_token_ttl)?;
        let vapid = std::sync::Arc::new(
            crate::service::delivery::push::vapid::Vapid::load_or_create(
                config.push.vapid_private_key.as_deref(),
                &config.data_dir,
                config.push.subject(&config.mail_from),
            )?,
        );
        let port = listener.local_addr()?.port();
        // With port 0 the default base URL (links in mails) needs the port actually bound.
        config.bind.set_port(port);
        let (workers, failures) = Supervisor::new();
        // Built before anything is spawned: an error here leaves nothing running.
        let own_session = session_pool(&config)?;
        // With several servers listed, the database monitor follows the primary among them.
        let candidates = match &config.database {
            Database::Url(url) if Database::addresses(url).len() > 1 => {
                store::primary::parse(&Database::addresses(url), "KONTOR_DATABASE_URL")?
            }
            _ => Vec::new(),
        };
        let replicas = Arc::new(match config.replica_urls.is_empty() {
            true => store::replica::Replicas::none(),
            false => store::replica::Replicas::open(
                &store::primary::parse(&config.replica_urls, "KONTOR_REPLICA_URLS")?,
                config.db_pool_size,
                config.replica_max_lag,
            )?,
        });
        let session = own_session.clone().unwrap_or_else(|| pool.clone());
        let mail = match config.workers {
            true => Some(crate::service::delivery::mail::worker::mail_worker(
                pool.clone(),
                session.clone(),
                &config,
                workers.stop_token(),
            )?),
            false => None,
        };
        let webhooks = match config.workers {
            true => Some(crate::service::delivery::webhooks::worker::Webhooks::new(
                pool.clone(),
                &config,
            )?),
            false => None,
        };
        let push = match config.workers {
            true => Some(crate::service::delivery::push::deliver::push_worker(
                pool.clone(),
                &config,
                vapid.clone(),
                workers.stop_token(),
            )?),
            false => None,
        };
        let (publisher, publishing) = crate::live::Publisher::new(session.clone());
        workers.spawn_service("live-publisher", publishing);
        let (committer, committing) = crate::service::play::committer::Committer::new(
            pool.clone(),
            publisher,
            config.clock.clone(),
        );
        workers.spawn_service("committer", committing);
        let hub = std::sync::Arc::new(crate::live::Hub::new());
        // What the database monitor last found, for requests and workers to tell a busy pool
        // from a lost database.
        let database = Arc::new(store::monitor::DatabaseStatus::default());
        if let Some(mail) = mail {
            workers.spawn_worker("mail", mail);
            if let Some(push) = push {
                workers.spawn_worker("push", push);
            }
            workers.spawn_worker(
                "deadlines",
                crate::service::deadlines::run(
                    pool.clone(),
                    database.clone(),
                    committer.clone(),
                    config.deadline_poll,
                    workers.stop_token(),
                ),
            );
            workers.spawn_worker(
                "housekeeping",
                crate::service::housekeeping::run(
                    pool.clone(),
                    database.clone(),
                    crate::service::housekeeping::Keep {
                        sent_mail_days: config.keep_sent_mail_days,
                        login_window: config.login_window,
                        idempotency_window: config.idempotency_window,
                    },
                    config.housekeeping_every,
                    config.clock.clone(),
                    workers.stop_token(),
                ),
            );
            // Ratings: woken by the live note of a game's end (from any instance), so a
            // finished game's rating moves at once; the poll is the safety net.
            workers.spawn_worker(
                "ratings",
                crate::service::competition::ratings::run(
                    pool.clone(),
                    database.clone(),
                    config.ratings_poll,
                    hub.subscribe_to(crate::live::Topic::Finished),
                    workers.stop_token(),
                ),
            );
            if let Some(webhooks) = webhooks {
                workers.spawn_worker("webhooks", webhooks.run(workers.stop_token()));
            }
            workers.spawn_worker(
                "tournaments",
                crate::service::competition::tournaments::run(
                    pool.clone(),
                    database.clone(),
                    config.clock.clone(),
                    TOURNAMENT_POLL,
                    workers.stop_token(),
                ),
            );
        }
        workers.spawn_worker("live-listener", hub.clone().listen(session));
        workers.spawn_worker(
            "database-monitor",
            store::monitor::watch(
                pool.clone(),
                database.clone(),
                candidates,
                workers.stop_token(),
            ),
        );
        if replicas.count() > 0 {
            workers.spawn_worker(
                "replica-monitor",
                store::replica::watch(pool.clone(), replicas.clone(), workers.stop_token()),
            );
        }
        if config.metrics_enabled() {
            crate::telemetry::install(&crate::ops::metrics::known_labels());
            workers.spawn_worker("metrics", crate::telemetry::upkeep(workers.stop_token()));
        }
        let db_recovery_limit = config.db_recovery_limit;
        let state = web::Data::new(AppState {
            pool,
            jwt,
            config,
            openapi: crate::http::openapi::build(),
            cache: Default::default(),
            feeds: std::sync::Arc::new(crate::service::streams::game::Feeds::new(hub.clone())),
            hub,
            committer,
            known_users: Default::default(),
            uploads: Default::default(),
            database,
            replicas,
            recovery: Arc::new(crate::ops::recovery::Recovery::new(db_recovery_limit)),
            vapid,
        });
        let server_state = state.clone();
        let server = HttpServer::new(move || {
            let (app, _) = App::new()
                .into_utoipa_app()
                .app_data(server_state.clone())
                .app_data(http::extract::malformed::json_config())
                .app_data(http::extract::malformed::query_config())
                .app_data(http::extract::malformed::path_config())
                .app_data(web::PayloadConfig::new(http::play::audit::MAX_EXPORT_BODY))
                .service(utoipa_actix_web::scope("/api/v1").configure(http::routes::configure))
                .configure(http::routes::configure_root)
                .split_for_parts();
            app.wrap(from_fn(
                http::middleware::query_policy::refuse_unknown_parameters,
            ))
            .wrap(from_fn(http::middleware::body_deadline::body_deadline))
            // Gzip or brotli for clients that accept it. Live streams are never
            // compressed (their `Content-Encoding: identity` makes it pass them by), so
            // each event is flushed as it comes. Inside the error handlers: its own 406
            // (no acceptable encoding) becomes a problem too.
            .wrap(Compress::default())
            .wrap(
                ErrorHandlers::new().default_handler(http::middleware::problems::problem_fallback),
            )
            // Outside the error handlers: the problems they make get CORS headers too.
            .wrap(from_fn(http::middleware::cors::cors))
            // Outside the error handlers, so that the problems they make get them too.
            .wrap(from_fn(http::middleware::headers::security_headers))
            .wrap(from_fn(http::middleware::methods::head_as_get))
            // Inside the request's span: the access line carries its fields.
            .wrap(from_fn(http::middleware::observe::observe))
            .wrap(TracingLogger::<http::middleware::request_log::MaskedRootSpan>::new())
            // Outermost: the span, every problem and every response get the request id.
            .wrap(from_fn(http::middleware::observe::request_id))
            .service(
                SwaggerUi::new("/docs/{_:.*}")
                    .config(utoipa_swagger_ui::Config::from("/api/v1/openapi.json")),
            )
            .service(web::redirect("/docs", "/docs/"))
            .default_service(web::to(http::page::page_or_unrouted))
        })
        // A client that closes its side of the connection is gone: without this, a live
        // stream would only notice at its next write (the keep-alive, seconds later).
        .h1_allow_half_closed(false)
        // Signals are handled in `run_until_stopped`, which ends the live streams first.
        .disable_signals()
        .listen(listener);
        let metrics_server = metrics_listener.map(|listener| {
            let state = state.clone();
            HttpServer::new(move || {
                App::new()
                    .app_data(state.clone())
                    .wrap(from_fn(http::middleware::observe::request_id))
                    .route(
                        "/metrics",
                        web::get().to(http::metrics::metrics_without_token),
                    )
                    .default_service(web::to(http::metrics::only_metrics))
            })
            .workers(1)
            .disable_signals()
            .listen(listener)
        });
        let servers = match metrics_server {
            None => server.map(|server| (server, None)),
            Some(metrics) => server.and_then(|server| Ok((server, Some(metrics?)))),
        };
        let (server, metrics_server) = match servers {
            Ok((server, metrics)) => (server.run(), metrics.map(|m| m.run())),
            Err(error) => {
                // Nothing will run: the tasks spawned above end now.
                workers.begin_stop();
                workers.stop.cancel();
                state.hub.close_streams();
                return Err(error.into());
            }
        };
        Ok(Self {
            port,
            server,
            metrics_server,
            state,
            workers,
            failures,
            own_session,
        })
    }

    /// Watches the embedded cluster the server runs on, and starts it again whenever its
    /// postmaster dies (see `ops::recovery`): a worker named `database-watchdog`.
    pub fn watch_embedded(&self, pg: Arc<EmbeddedPostgres>) {
        self.workers.spawn_worker(
            "database-watchdog",
            crate::ops::recovery::watch_embedded(
                pg,
                self.state.recovery.clone(),
                self.workers.stop_token(),
            ),
        );
    }

    /// The supervision of the server's background tasks (see [`Supervisor`]).
    pub fn supervisor(&self) -> Supervisor {
        self.workers.clone()
    }

    /// A handle that stops the running server cleanly (see [`StopHandle`]).
    pub fn stop_handle(&self) -> StopHandle {
        StopHandle {
            server: self.server.handle(),
            metrics_server: self.metrics_server.as_ref().map(Server::handle),
            hub: self.state.hub.clone(),
            workers: self.workers.clone(),
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs until the server is stopped (Ctrl-C, SIGTERM or a [`StopHandle`]) or one of its
    /// background tasks stops unexpectedly (see [`Supervisor`]); the workers have finished
    /// by then. A task's failure is the error returned. The pool stays open for the caller
    /// to close (a session pool of its own, see `KONTOR_SESSION_DATABASE_URL`, is closed).
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        let handle = self.stop_handle();
        let mut failures = self.failures;
        // Written before the stop it causes begins, so it is there once the server has stopped.
        let failed: Arc<Mutex<Option<WorkerFailure>>> = Default::default();
        let failed_slot = failed.clone();
        let stopper = tokio::spawn(async move {
            tokio::select! {
                signal = stop_signal() => tracing::info!("{signal} received: stopping"),
                Some(failure) = failures.recv() => {
                    *failed_slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(failure);
                }
            }
            handle.stop(true).await;
        });
        let metrics = self.metrics_server.map(|server| {
            let handle = server.handle();
            (handle, tokio::spawn(server))
        });
        let result = self.server.await;
        stopper.abort();
        if let Some((handle, running)) = metrics {
            handle.stop(true).await;
            let _ = running.await;
        }
        // Stopped some other way (the actix handle, a failure): the workers still finish.
        self.workers.stop_workers().await;
        if let Some(session) = &self.own_session {
            session.close().await;
        }
        let failure = failed.lock().unwrap_or_else(|e| e.into_inner()).take();
        match failure {
            Some(failure) => Err(failure.into()),
            None => Ok(result?),
        }
    }
}

/// Waits for Ctrl-C or SIGTERM; names the one that came.
async fn stop_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            return tokio::select! {
                _ = tokio::signal::ctrl_c() => "SIGINT",
                _ = term.recv() => "SIGTERM",
            };
        }
    }
    let _ = tokio::signal::ctrl_c().await;
    "SIGINT"
}
