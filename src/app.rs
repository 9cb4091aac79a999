//! Building and running the server.

use crate::auth::{self, JwtKeys};
use crate::config::{Config, Database};
use crate::embedded_pg::{Durability, EmbeddedPostgres};
use crate::http::{self, AppState};
use crate::store;
use actix_web::dev::{Server, ServerHandle};
use actix_web::middleware::{Compress, ErrorHandlers, from_fn};
use actix_web::{App, HttpServer, web};
use sqlx::PgPool;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing_actix_web::TracingLogger;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

/// The database of a configuration, and the embedded cluster behind it if there is one.
pub struct DatabaseHandle {
    pub pool: PgPool,
    pub embedded: Option<EmbeddedPostgres>,
}

/// Opens the configured database (starting the embedded cluster if that is the default)
/// and applies the migrations.
pub async fn open_database(config: &Config) -> anyhow::Result<DatabaseHandle> {
    let (pool, embedded) = match &config.database {
        Database::Url(url) => {
            let options: sqlx::postgres::PgConnectOptions = url.parse()?;
            let pool = store::connect_with_timeout(
                options,
                config.db_pool_size,
                config.db_acquire_timeout,
            )
            .await?;
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
            (pool, Some(pg))
        }
    };
    store::migrate(&pool).await?;
    Ok(DatabaseHandle { pool, embedded })
}

/// A server bound to its port, ready to run.
pub struct Application {
    port: u16,
    server: Server,
    pub state: web::Data<AppState>,
    workers: Workers,
}

/// The background workers (mail, deadlines, housekeeping): cancelled, each finishes its item and ends.
#[derive(Clone, Default)]
struct Workers {
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl Workers {
    async fn stop(&self) {
        self.stop.cancel();
        self.tasks.close();
        self.tasks.wait().await;
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
    hub: Arc<crate::live::Hub>,
    workers: Workers,
}

impl StopHandle {
    /// Ends every live stream and worker, then stops the HTTP server (`graceful`: requests
    /// under way are answered first); `run_until_stopped` returns after that.
    pub async fn stop(&self, graceful: bool) {
        self.hub.close_streams();
        let deadline = tokio::time::Instant::now() + STREAMS_GRACE;
        while self.hub.open_streams_total() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.workers.stop().await;
        self.server.stop(graceful).await;
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
        let secret = auth::load_or_create_secret(config.jwt_secret.as_deref(), &config.data_dir)?;
        let jwt = JwtKeys::new(&secret, config.access_token_ttl)?;
        let port = listener.local_addr()?.port();
        // With port 0 the default base URL (links in mails) needs the port actually bound.
        config.bind.set_port(port);
        let committer = crate::service::committer::Committer::start(
            pool.clone(),
            crate::live::Publisher::start(pool.clone()),
            config.clock.clone(),
        );
        let workers = Workers::default();
        if config.workers {
            workers.tasks.spawn(crate::notify::mail_worker(
                pool.clone(),
                &config,
                workers.stop.clone(),
            )?);
            workers.tasks.spawn(crate::service::deadlines::run(
                pool.clone(),
                committer.clone(),
                config.deadline_poll,
                workers.stop.clone(),
            ));
            workers.tasks.spawn(crate::service::housekeeping::run(
                pool.clone(),
                config.keep_sent_mail_days,
                config.housekeeping_every,
                config.clock.clone(),
                workers.stop.clone(),
            ));
        }
        let hub = std::sync::Arc::new(crate::live::Hub::new());
        tokio::spawn(hub.clone().listen(pool.clone()));
        let state = web::Data::new(AppState {
            pool,
            jwt,
            config,
            openapi: crate::http::openapi::build(),
            cache: Default::default(),
            hub,
            committer,
            known_users: Default::default(),
        });
        let server_state = state.clone();
        let server = HttpServer::new(move || {
            let (app, _) = App::new()
                .into_utoipa_app()
                .app_data(server_state.clone())
                .app_data(http::json_config())
                .app_data(http::query_config())
                .app_data(http::path_config())
                .app_data(web::PayloadConfig::new(http::audit::MAX_EXPORT_BODY))
                .service(utoipa_actix_web::scope("/api/v1").configure(http::configure))
                .configure(http::configure_root)
                .split_for_parts();
            app.wrap(from_fn(http::body_deadline::body_deadline))
                // Gzip or brotli for clients that accept it. Live streams are never
                // compressed (their `Content-Encoding: identity` makes it pass them by), so
                // each event is flushed as it comes. Inside the error handlers: its own 406
                // (no acceptable encoding) becomes a problem too.
                .wrap(Compress::default())
                .wrap(ErrorHandlers::new().default_handler(http::problem_fallback))
                // Outside the error handlers: the problems they make get CORS headers too.
                .wrap(from_fn(http::cors::cors))
                // Outside the error handlers, so that the problems they make get them too.
                .wrap(from_fn(http::headers::security_headers))
                .wrap(from_fn(http::methods::head_as_get))
                .wrap(TracingLogger::<http::request_log::MaskedRootSpan>::new())
                .service(
                    SwaggerUi::new("/docs/{_:.*}")
                        .config(utoipa_swagger_ui::Config::from("/api/v1/openapi.json")),
                )
                .service(web::redirect("/docs", "/docs/"))
                .default_service(web::to(http::methods::unrouted))
        })
        // A client that closes its side of the connection is gone: without this, a live
        // stream would only notice at its next write (the keep-alive, seconds later).
        .h1_allow_half_closed(false)
        // Signals are handled in `run_until_stopped`, which ends the live streams first.
        .disable_signals()
        .listen(listener)?
        .run();
        Ok(Self {
            port,
            server,
            state,
            workers,
        })
    }

    /// A handle that stops the running server cleanly (see [`StopHandle`]).
    pub fn stop_handle(&self) -> StopHandle {
        StopHandle {
            server: self.server.handle(),
            hub: self.state.hub.clone(),
            workers: self.workers.clone(),
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs until the server is stopped (Ctrl-C, SIGTERM or a [`StopHandle`]); the workers
    /// have finished by then. The pool stays open for the caller to close.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let handle = self.stop_handle();
        let signals = tokio::spawn(async move {
            let signal = stop_signal().await;
            tracing::info!("{signal} received: stopping");
            handle.stop(true).await;
        });
        let result = self.server.await;
        signals.abort();
        // Stopped some other way (the actix handle, a failure): the workers still finish.
        self.workers.stop().await;
        result
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
