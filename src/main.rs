//! The `kontor` command line: serve, migrate, simulate and the audit tools.

use anyhow::Context;
use clap::{Parser, Subcommand};
use kontor::app::{Application, open_database};
use kontor::config::Config;
use kontor::games::simulate::simulate;
use kontor::games::{BotLevel, GameKind};
use kontor::with_rules;

#[derive(Parser)]
#[command(
    name = "kontor",
    version,
    about = "Asynchronous board games over a documented REST API"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP server (configuration from the environment; see the README).
    Serve,
    /// Apply the database migrations and exit.
    Migrate,
    /// Play bot games in-process and print outcome statistics.
    Simulate {
        /// flying-dutchman or steel-driver
        kind: String,
        #[arg(long, default_value_t = 4)]
        players: u8,
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// random or sensible; one for every seat, or a comma-separated list per seat
        #[arg(long, default_value = "sensible")]
        bots: String,
        /// Seed of the first game (game i uses seed + i)
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Print the OpenAPI description.
    Openapi,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,sqlx=warn".into()),
        )
        .init();
    match cli.command {
        Command::Simulate {
            kind,
            players,
            games,
            bots,
            seed,
        } => run_simulation(&kind, players, games, &bots, seed),
        Command::Openapi => {
            println!(
                "{}",
                serde_json::to_string_pretty(&kontor::http::openapi::build())?
            );
            Ok(())
        }
        command => actix_web::rt::System::new().block_on(run_async(command)),
    }
}

async fn run_async(command: Command) -> anyhow::Result<()> {
    let config = Config::from_env()?;
    match command {
        Command::Serve => {
            let database = open_database(&config).await?;
            let app = Application::build(config.clone(), database.pool.clone())?;
            tracing::info!(
                address = %config.bind, port = app.port(),
                "Kontor is listening; API docs at http://{}:{}/docs/", config.bind.ip(), app.port()
            );
            let result = app.run_until_stopped().await;
            database.pool.close().await;
            if let Some(pg) = &database.embedded {
                pg.stop()?;
            }
            result.context("the HTTP server failed")
        }
        Command::Migrate => {
            let database = open_database(&config).await?;
            database.pool.close().await;
            println!("migrations applied");
            Ok(())
        }
        Command::Simulate { .. } | Command::Openapi => unreachable!("handled synchronously"),
    }
}

fn run_simulation(
    kind: &str,
    players: u8,
    games: usize,
    bots: &str,
    seed: u64,
) -> anyhow::Result<()> {
    let kind = GameKind::parse(kind).with_context(|| {
        format!("unknown game kind {kind:?}; known: flying-dutchman, steel-driver")
    })?;
    let levels: Vec<BotLevel> = bots
        .split(',')
        .map(|b| match b.trim() {
            "random" => Ok(BotLevel::Random),
            "sensible" => Ok(BotLevel::Sensible),
            other => anyhow::bail!("unknown bot {other:?}; use random or sensible"),
        })
        .collect::<anyhow::Result<_>>()?;
    let bots: Vec<BotLevel> = match levels.len() {
        1 => vec![levels[0]; usize::from(players)],
        n if n == usize::from(players) => levels,
        n => anyhow::bail!("{n} bots named for {players} players"),
    };
    with_rules!(kind, R => {
        let options = R::parse_options(&serde_json::json!({}), players)
            .map_err(|e| anyhow::anyhow!("{}: {}", e.field, e.message))?;
        let report = simulate::<R>(&options, &bots, games, seed)?;
        println!("{} with bots {bots:?}\n{report}", R::KIND);
    });
    Ok(())
}
