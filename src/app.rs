//! Building and running the server.

use crate::auth::{self, JwtKeys};
use crate::config::{Config, Database};
use crate::embedded_pg::{Durability, EmbeddedPostgres};
use crate::http::{self, AppState};
use crate::store;
use actix_web::dev::Server;
use actix_web::middleware::{ErrorHandlers, from_fn};
use actix_web::{App, HttpServer, web};
use sqlx::PgPool;
use std::net::{SocketAddr, TcpListener};
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
        );
        if config.workers {
            crate::notify::spawn_workers(pool.clone(), config.clone())?;
            tokio::spawn(crate::service::deadlines::run(
                pool.clone(),
                committer.clone(),
                config.deadline_poll,
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
                .split_for_parts();
            app.wrap(ErrorHandlers::new().default_handler(http::problem_fallback))
                // Outside the error handlers, so that the problems they make get them too.
                .wrap(from_fn(http::headers::security_headers))
                .wrap(TracingLogger::<http::request_log::MaskedRootSpan>::new())
                .service(
                    SwaggerUi::new("/docs/{_:.*}")
                        .config(utoipa_swagger_ui::Config::from("/api/v1/openapi.json")),
                )
                .service(web::redirect("/docs", "/docs/"))
                .default_service(web::to(http::not_found))
        })
        .listen(listener)?
        .run();
        Ok(Self {
            port,
            server,
            state,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs until the server is stopped (Ctrl-C or SIGTERM).
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}
