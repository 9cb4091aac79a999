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
use std::net::TcpListener;
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
            (store::connect(options, config.db_pool_size).await?, None)
        }
        Database::Embedded => {
            let pg = EmbeddedPostgres::start(&config.data_dir, Durability::Durable)?;
            pg.ensure_database("kontor").await?;
            let pool = store::connect(pg.connect_options("kontor"), config.db_pool_size).await?;
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

impl Application {
    /// Binds the configured address (port 0 picks a free one) and builds the server around
    /// an open pool.
    pub fn build(mut config: Config, pool: PgPool) -> anyhow::Result<Self> {
        let secret = auth::load_or_create_secret(config.jwt_secret.as_deref(), &config.data_dir)?;
        let jwt = JwtKeys::new(&secret, config.access_token_ttl)?;
        let listener = TcpListener::bind(config.bind)?;
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
            app.wrap(from_fn(http::body_deadline::body_deadline))
                .wrap(ErrorHandlers::new().default_handler(http::problem_fallback))
                .wrap(TracingLogger::default())
                .service(
                    SwaggerUi::new("/docs/{_:.*}")
                        .config(utoipa_swagger_ui::Config::from("/api/v1/openapi.json")),
                )
                .service(web::redirect("/docs", "/docs/"))
                .default_service(web::to(http::not_found))
        })
        // A client that closes its side of the connection is gone: without this, a live
        // stream would only notice at its next write (the keep-alive, seconds later).
        .h1_allow_half_closed(false)
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
