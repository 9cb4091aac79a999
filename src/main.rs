//! The `kontor` command line: serve, migrate, simulate and the audit tools.

use anyhow::Context;
use clap::{Parser, Subcommand};
use kontor::app::{Application, open_database};
use kontor::audit::log::Reader;
use kontor::config::Config;
use kontor::games::simulate::{Autoplay, ResponseModel, simulate_with};
use kontor::games::{BotLevel, GameKind};
use kontor::with_rules;

/// mimalloc rather than glibc's allocator: an action allocates and frees many small values
/// (JSON, events, rows), and with glibc's malloc that was about 40% of the server's CPU per
/// action under load (`perf record` during `deploy/bench.sh`; see docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Run the HTTP server (configuration from the environment; see docs/operations.md).
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
        /// What the server plays on its own: off (every move waits for its player), forced
        /// (moves without a choice are played at once), orders (forced moves, and the
        /// standing orders the sensible bots set as experienced players, also when told of an
        /// occasion to answer ahead) or orders-own-turn (orders set only on their own turns)
        #[arg(long, default_value = "off")]
        autoplay: String,
        /// Median hours a person takes to answer (the calendar estimate)
        #[arg(long, default_value_t = 6.0)]
        median_hours: f64,
        /// Spread of the answer times: the sigma of their logarithm
        #[arg(long, default_value_t = 1.0)]
        sigma: f64,
    },
    /// Print the OpenAPI description.
    Openapi,
    /// Print the game kinds as `GET /kinds` answers (the web client's `src/games/kinds.json`).
    Kinds,
    /// Write a game's log as ndjson: the complete log, or one user's redacted view with --as.
    Export {
        game_id: uuid::Uuid,
        /// Export what this user may see instead of the complete log.
        #[arg(long = "as")]
        as_user: Option<String>,
        /// Write to this file instead of standard output.
        #[arg(long, short)]
        out: Option<std::path::PathBuf>,
    },
    /// Verify a finished game's export: re-derive every random draw from the revealed seed.
    /// Exits with status 1 when verification fails.
    Verify {
        /// The export file (ndjson), or - for standard input.
        export: String,
    },
    /// Refold every stored game from its log and compare with its kept snapshots.
    Replay {
        /// Compare only (the default and only mode): report mismatches by game id.
        #[arg(long, default_value_t = true)]
        check: bool,
    },
    /// Drop the snapshots and rebuild them from the logs.
    Rebuild,
    /// Delete what is no longer needed (mail finished over KONTOR_KEEP_SENT_MAIL_DAYS days
    /// ago, stale live presence, the answers of actions past KONTOR_IDEMPOTENCY_WINDOW), as the
    /// workers do every KONTOR_HOUSEKEEPING_EVERY seconds.
    Housekeeping,
    /// Ratings: `rebuild` recomputes every rating from the logs in the order the games were
    /// judged, compares with the stored ones and writes the recomputed ones where they differ
    /// (`--check`: compare only, exit 1 on any difference).
    Ratings {
        #[command(subcommand)]
        command: RatingsCommand,
    },
    /// Notification mails that failed for good: list them, send them again.
    Mail {
        #[command(subcommand)]
        command: MailCommand,
    },
    /// The admin role (the admin endpoints): grant it, revoke it, list who holds it.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
    /// Back up the database (a pg_dump archive) and the data folder's secret into a new
    /// folder, while servers run or not.
    Backup {
        /// The folder to write; it must not exist yet.
        folder: std::path::PathBuf,
    },
    /// Restore a backup folder into the configured database and data folder (stop the
    /// servers that use them first).
    Restore {
        /// A folder written by `kontor backup`.
        folder: std::path::PathBuf,
        /// Replace an embedded database that holds games, and a data folder's different
        /// jwt-secret.
        #[arg(long)]
        overwrite: bool,
    },
    /// Ask a running server whether it is ready (GET /readyz): exit status 0 if it answers
    /// 200, else 1, with the reason on standard error.
    Health {
        /// The URL to ask (default: /readyz on KONTOR_BIND, through loopback when it binds
        /// every interface).
        #[arg(long)]
        url: Option<String>,
    },
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Make an existing account an admin.
    Grant {
        /// The account's username (any letter case).
        user: String,
    },
    /// Take the admin role away from an account.
    Revoke {
        /// The account's username (any letter case).
        user: String,
    },
    /// List the accounts with the admin role.
    List,
    /// List the chat's reports, the oldest first: the open ones, or all with --all.
    ChatReports {
        /// Every report, resolved ones too.
        #[arg(long)]
        all: bool,
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
    /// Hide a chat message from everyone but admins (kept for the record), resolving its
    /// reports.
    ChatHide {
        /// The message's id, as `kontor admin chat-reports` shows it.
        message_id: i64,
        /// Why (1 to 500 characters, one line); kept with the message.
        #[arg(long)]
        reason: String,
    },
    /// Dismiss a chat report: the message stays as it is, the report leaves the open list.
    ChatDismiss {
        /// The report's id, as `kontor admin chat-reports` shows it.
        report_id: i64,
        /// Why (1 to 500 characters, one line); kept with the report.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Mute an account from every chat for a time.
    ChatMute {
        /// The account's username (any letter case).
        user: String,
        /// 1 to 525600 (a year).
        #[arg(long, allow_negative_numbers = true)]
        minutes: i64,
        /// Why (1 to 500 characters, one line); kept with the mute.
        #[arg(long)]
        reason: String,
    },
    /// Lift an account's running chat mutes.
    ChatUnmute {
        /// The account's username (any letter case).
        user: String,
    },
}

#[derive(Subcommand)]
enum RatingsCommand {
    /// Recompute every rating from the logs and compare (and write, without --check).
    Rebuild {
        /// Only compare: exit 1 if anything differs, write nothing.
        #[arg(long)]
        check: bool,
    },
}

#[derive(Subcommand)]
enum MailCommand {
    /// List the mails that failed for good, the most recent first.
    Failed {
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
    /// Make failed mails due again (a running server's worker sends them).
    Retry {
        /// The mail's id, as `kontor mail failed` shows it.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<uuid::Uuid>,
        /// Every failed mail.
        #[arg(long)]
        all: bool,
    },
}

/// The log: lines for people, or JSON objects (`KONTOR_LOG_FORMAT=json`), one a line, each
/// with the fields of the span it happened in: a request's lines carry its id, route and
/// masked target, its access line also the status and the latency.
///
/// Always on standard error, for every command: standard output carries only what a command
/// produces (an export, the description, a report), so that `kontor export ID > file`
/// writes the export and nothing else. Coloured only for a person: when standard error is a
/// terminal and `NO_COLOR` is not set (<https://no-color.org>).
fn init_log() {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| kontor::config::default_of("RUST_LOG").into());
    let colour = colour_wanted(
        std::io::stderr().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    );
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour);
    // A configuration that cannot be read is reported by the commands that read it (with
    // the log in the default format); the others (`openapi`, `simulate`, `verify`) run.
    let format = kontor::config::LogFormat::from_env().unwrap_or(kontor::config::LogFormat::Text);
    match format {
        kontor::config::LogFormat::Text => builder.init(),
        kontor::config::LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
}

/// Whether the text log is coloured: only on a terminal, and not when `NO_COLOR` is set to
/// anything but the empty string.
fn colour_wanted(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    terminal && no_color.is_none_or(|value| value.is_empty())
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    // What this process creates (mails written as files, the generated secret, exports,
    // backups) is private from the start; see `ops::data_dir`.
    kontor::ops::data_dir::private_umask();
    init_log();
    match cli.command {
        Command::Simulate {
            kind,
            players,
            games,
            bots,
            seed,
            autoplay,
            median_hours,
            sigma,
        } => {
            let model = ResponseModel {
                median_hours,
                sigma,
            };
            run_simulation(&kind, players, games, &bots, seed, &autoplay, model)
        }
        Command::Openapi => {
            println!(
                "{}",
                serde_json::to_string_pretty(&kontor::http::openapi::build())?
            );
            Ok(())
        }
        Command::Kinds => {
            println!(
                "{}",
                serde_json::to_string_pretty(&kontor::http::play::games::kind_list())?
            );
            Ok(())
        }
        Command::Verify { export } => verify(&export),
        Command::Health { url } => health(url),
        command => actix_web::rt::System::new().block_on(run_async(command)),
    }
}

/// How long a stopping server waits for its database connections to be given back.
const POOL_CLOSE_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

async fn run_async(command: Command) -> anyhow::Result<()> {
    let config = Config::from_env()?;
    match command {
        Command::Serve => {
            config.refuse_retired_settings()?;
            // Bind first: a server that cannot listen must not touch the database.
            let listener = kontor::app::bind(config.bind)?;
            make_data_dir_private(&config)?;
            let database = open_database(&config).await?;
            let app = Application::build_on(config.clone(), database.pool.clone(), listener)?;
            if let Some(pg) = &database.embedded {
                app.watch_embedded(pg.clone());
            }
            tracing::info!(
                address = %config.bind, port = app.port(),
                "Kontor is listening; API docs at http://{}:{}/docs/", config.bind.ip(), app.port()
            );
            if let Some(metrics) = app.state.config.metrics_bind {
                tracing::info!(address = %metrics, "metrics at http://{metrics}/metrics");
            }
            let result = app.run_until_stopped().await;
            // Bounded: a connection something still holds must not keep the cluster running.
            if tokio::time::timeout(POOL_CLOSE_GRACE, database.pool.close())
                .await
                .is_err()
            {
                tracing::warn!(
                    "database connections were still in use at the stop; closing anyway"
                );
            }
            if let Some(pg) = &database.embedded {
                pg.stop()?;
            }
            // A worker that stopped (see `app::Supervisor`) ends the process with status 1,
            // after the clean stop above, for whatever runs it to restart it.
            result.context("the server stopped")
        }
        Command::Migrate => {
            make_data_dir_private(&config)?;
            let database = open_database(&config).await?;
            database.pool.close().await;
            println!("migrations applied");
            Ok(())
        }
        Command::Export {
            game_id,
            as_user,
            out,
        } => {
            let database = open_database(&config).await?;
            let reader = match as_user {
                None => Reader::Operator,
                Some(name) => {
                    let (id, _) = kontor::store::users::find_by_username(&database.pool, &name)
                        .await?
                        .with_context(|| format!("there is no user {name:?}"))?;
                    Reader::User(id)
                }
            };
            let (header, events) = kontor::audit::log::export(&database.pool, game_id, reader)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let text = kontor::audit::to_ndjson(&header, &events);
            match out {
                Some(path) => std::fs::write(&path, text)
                    .with_context(|| format!("writing {}", path.display()))?,
                None => print!("{text}"),
            }
            database.pool.close().await;
            Ok(())
        }
        Command::Replay { .. } => {
            let database = open_database(&config).await?;
            let mismatches = kontor::audit::replay::check(&database.pool, report_progress).await?;
            database.pool.close().await;
            report_mismatches("replay --check", &mismatches)
        }
        Command::Rebuild => {
            let database = open_database(&config).await?;
            let failures = kontor::audit::replay::rebuild(&database.pool, report_progress).await?;
            database.pool.close().await;
            report_mismatches("rebuild", &failures)
        }
        Command::Housekeeping => {
            let database = open_database(&config).await?;
            let swept = kontor::service::housekeeping::sweep(
                &database.pool,
                config.keep_sent_mail_days,
                config.login_window,
                config.idempotency_window,
                config.clock.now(),
            )
            .await;
            database.pool.close().await;
            let swept = swept?;
            println!(
                "deleted {} finished mail(s) and {} stale live presence row(s), {} expired refresh token(s) and {} failed-login counter(s) whose window ended; trimmed {} stored answer(s) of actions past the idempotency window",
                swept.mails,
                swept.presence,
                swept.refresh_tokens,
                swept.login_failures,
                swept.answers
            );
            Ok(())
        }
        Command::Ratings {
            command: RatingsCommand::Rebuild { check },
        } => {
            let database = open_database(&config).await?;
            let rebuilt = kontor::service::competition::ratings::rebuild(
                &database.pool,
                !check,
                config.clock.now(),
            )
            .await;
            database.pool.close().await;
            let rebuilt = rebuilt?;
            println!(
                "ratings rebuild{}: {} judged game(s); {} game(s) and {} current rating(s) differed{}",
                if check { " --check" } else { "" },
                rebuilt.games,
                rebuilt.games_differing,
                rebuilt.ratings_differing,
                if check || rebuilt.games_differing + rebuilt.ratings_differing == 0 {
                    ""
                } else {
                    " (rewritten from the logs)"
                }
            );
            if check && rebuilt.games_differing + rebuilt.ratings_differing > 0 {
                anyhow::bail!("the stored ratings differ from the logs");
            }
            Ok(())
        }
        Command::Mail { command } => {
            let database = open_database(&config).await?;
            let result = mail_command(&database.pool, command).await;
            database.pool.close().await;
            result
        }
        Command::Admin { command } => {
            let database = open_database(&config).await?;
            let result = admin_command(&database.pool, &config.clock, command).await;
            database.pool.close().await;
            result
        }
        Command::Backup { folder } => {
            println!("{}", kontor::ops::backup::backup(&config, &folder).await?);
            Ok(())
        }
        Command::Restore { folder, overwrite } => {
            let done = kontor::ops::backup::restore(&config, &folder, overwrite).await?;
            println!("{done}");
            Ok(())
        }
        Command::Simulate { .. }
        | Command::Openapi
        | Command::Kinds
        | Command::Verify { .. }
        | Command::Health { .. } => {
            unreachable!("handled synchronously")
        }
    }
}

/// The data folder and its files private (see `ops::data_dir`), with the embedded cluster's
/// user let through to the cluster's folder when it is not ours.
fn make_data_dir_private(config: &Config) -> anyhow::Result<()> {
    let cluster_user = match config.database {
        kontor::config::Database::Embedded => kontor::embedded_pg::cluster_user(),
        kontor::config::Database::Url(_) => None,
    };
    kontor::ops::data_dir::make_private(&config.data_dir, cluster_user)?;
    Ok(())
}

/// `kontor health`: exit status 0 if the server is ready, else 1 with the reason.
fn health(url: Option<String>) -> anyhow::Result<()> {
    let url = match url {
        Some(url) => url,
        None => kontor::ops::health::default_url(Config::from_env()?.bind),
    };
    match kontor::ops::health::check(&url) {
        Ok(ready) => {
            eprintln!("{ready}");
            Ok(())
        }
        // One line for a container's health log, not an error report with a backtrace.
        Err(why) => {
            eprintln!("not ready: {why:#}");
            std::process::exit(1)
        }
    }
}

async fn mail_command(pool: &sqlx::PgPool, command: MailCommand) -> anyhow::Result<()> {
    use kontor::service::delivery::mail::admin;
    match command {
        MailCommand::Failed { limit } => {
            let failed = admin::list_failed(pool, limit).await?;
            if failed.is_empty() {
                println!("no failed mails");
            }
            for mail in failed {
                println!(
                    "{}\t{}\t{} <{}>\t{} attempts\tfailed {}\t{}",
                    mail.id,
                    mail.kind,
                    mail.username,
                    mail.email,
                    mail.attempts,
                    mail.failed_at.format("%Y-%m-%d %H:%M:%S UTC"),
                    mail.last_error.unwrap_or_default()
                );
            }
        }
        MailCommand::Retry { id: Some(id), .. } => {
            anyhow::ensure!(
                admin::retry(pool, id).await?,
                "no failed mail has the id {id}"
            );
            println!("1 mail is due again");
        }
        MailCommand::Retry { id: None, .. } => {
            let n = admin::retry_all(pool).await?;
            println!("{n} mail(s) are due again");
        }
    }
    Ok(())
}

async fn admin_command(
    pool: &sqlx::PgPool,
    clock: &kontor::time::Clock,
    command: AdminCommand,
) -> anyhow::Result<()> {
    use kontor::service::social::chat;
    use kontor::store::users;
    match command {
        AdminCommand::Grant { user } => {
            let change = users::set_admin(pool, &user, true)
                .await?
                .with_context(|| format!("there is no user {user:?}; nothing was granted"))?;
            if change.was_admin {
                println!("{} was an admin already", change.username);
            } else {
                println!("{} is an admin now", change.username);
            }
        }
        AdminCommand::Revoke { user } => {
            let change = users::set_admin(pool, &user, false)
                .await?
                .with_context(|| format!("there is no user {user:?}; nothing was revoked"))?;
            if change.was_admin {
                println!("{} is no longer an admin", change.username);
            } else {
                println!("{} was not an admin", change.username);
            }
        }
        AdminCommand::List => {
            let admins = users::admins(pool).await?;
            if admins.is_empty() {
                println!("no admins (grant the role with `kontor admin grant <user>`)");
            }
            for admin in admins {
                println!(
                    "{}\t{}\t{}\tregistered {}",
                    admin.username,
                    admin.email,
                    admin.id,
                    admin.created_at.format("%Y-%m-%d %H:%M:%S UTC")
                );
            }
        }
        AdminCommand::ChatReports { all, limit } => {
            anyhow::ensure!(
                (1..=1000).contains(&limit),
                "--limit is between 1 and 1000, not {limit}"
            );
            let reports = chat::moderation::reports(pool, !all, limit)
                .await
                .map_err(chat_error)?;
            if reports.is_empty() {
                println!("{}", if all { "no reports" } else { "no open reports" });
            }
            for report in reports {
                let message = &report.message;
                let state = match (&report.resolution, message.hidden) {
                    (Some(resolution), _) => resolution.clone(),
                    (None, true) => "open (message hidden)".to_string(),
                    (None, false) => "open".to_string(),
                };
                println!(
                    "report {}\tmessage {}\tgame {}\t{}\tby {}\treported by {}\t{}\t{}\tnote: {}\treported {}\ttext: {}",
                    report.id,
                    message.id,
                    message.game_id,
                    message.channel,
                    message.author.username,
                    report.reporter,
                    report.reason,
                    state,
                    one_line(report.note.as_deref().unwrap_or("-")),
                    report.created_at.format("%Y-%m-%d %H:%M:%S UTC"),
                    one_line(message.text.as_deref().unwrap_or_default()),
                );
            }
        }
        AdminCommand::ChatHide { message_id, reason } => {
            let message = chat::moderation::hide(pool, message_id, None, &reason)
                .await
                .map_err(|e| match e {
                    chat::ChatError::MessageNotFound => {
                        anyhow::anyhow!("there is no chat message {message_id}; nothing was hidden")
                    }
                    e => chat_error(e),
                })?;
            println!(
                "message {} by {} is hidden (reason: {})",
                message.id,
                message.author.username,
                message.hidden_reason.unwrap_or_default()
            );
        }
        AdminCommand::ChatDismiss { report_id, reason } => {
            let (report, dismissed) =
                chat::moderation::dismiss(pool, clock, report_id, None, reason.as_deref())
                    .await
                    .map_err(|e| match e {
                        chat::ChatError::ReportNotFound(_) => {
                            anyhow::anyhow!(
                                "there is no chat report {report_id}; nothing was dismissed"
                            )
                        }
                        e => chat_error(e),
                    })?;
            if dismissed {
                println!("report {} is dismissed", report.id);
            } else {
                println!(
                    "report {} was resolved before ({}); nothing changed",
                    report.id,
                    report.resolution.as_deref().unwrap_or("-")
                );
            }
        }
        AdminCommand::ChatMute {
            user,
            minutes,
            reason,
        } => {
            let request = chat::moderation::MuteRequest {
                username: user,
                minutes,
                reason,
            };
            let mute = chat::moderation::mute(pool, clock, None, &request)
                .await
                .map_err(chat_error)?;
            println!(
                "{} is muted in the chat until {} (reason: {})",
                mute.username,
                mute.until.format("%Y-%m-%d %H:%M:%S UTC"),
                mute.reason
            );
        }
        AdminCommand::ChatUnmute { user } => {
            let (id, username) = users::find_by_username(pool, &user)
                .await?
                .with_context(|| format!("there is no user {user:?}; nothing was lifted"))?;
            if chat::moderation::unmute(pool, clock, id)
                .await
                .map_err(chat_error)?
            {
                println!("{username} may write in the chat again");
            } else {
                println!("{username} was not muted");
            }
        }
    }
    Ok(())
}

/// A chat error as the operator reads it: its message (and its cause, when there is one).
fn chat_error(error: kontor::service::social::chat::ChatError) -> anyhow::Error {
    anyhow::Error::new(error)
}

/// `text` on one line of a listing: line breaks and tabs shown as `\n` and `\t`.
fn one_line(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\t', "\\t")
}

fn report_progress(done: usize, total: usize) {
    if done == total || done.is_multiple_of(100) {
        eprintln!("{done}/{total} games");
    }
}

fn report_mismatches(
    what: &str,
    mismatches: &[kontor::audit::replay::Mismatch],
) -> anyhow::Result<()> {
    for mismatch in mismatches {
        println!("{}: {}", mismatch.game_id, mismatch.reason);
    }
    if mismatches.is_empty() {
        println!("{what}: every game folds to its cached state");
        Ok(())
    } else {
        anyhow::bail!("{what}: {} game(s) do not match", mismatches.len())
    }
}

fn verify(path: &str) -> anyhow::Result<()> {
    let text = if path == "-" {
        std::io::read_to_string(std::io::stdin())?
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?
    };
    let (header, events) = kontor::audit::parse_ndjson(&text)?;
    let verification = kontor::audit::verify::verify_export(&header, &events);
    println!("{}", serde_json::to_string_pretty(&verification)?);
    if !verification.verified {
        std::process::exit(1);
    }
    Ok(())
}

fn run_simulation(
    kind: &str,
    players: u8,
    games: usize,
    bots: &str,
    seed: u64,
    autoplay: &str,
    model: ResponseModel,
) -> anyhow::Result<()> {
    let autoplay = match autoplay {
        "off" => Autoplay::Off,
        "forced" => Autoplay::Forced,
        "orders" => Autoplay::Orders,
        "orders-own-turn" => Autoplay::OrdersOwnTurn,
        other => {
            anyhow::bail!("unknown autoplay {other:?}; use off, forced, orders or orders-own-turn")
        }
    };
    anyhow::ensure!(
        model.median_hours > 0.0 && model.sigma >= 0.0,
        "the median must be positive and the sigma not negative"
    );
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
        let report = simulate_with::<R>(&options, &bots, games, seed, autoplay, model)?;
        println!("{} with bots {bots:?}\n{report}", R::KIND);
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::colour_wanted;
    use std::ffi::OsStr;

    #[test]
    fn colour_only_on_a_terminal_and_without_no_color() {
        assert!(colour_wanted(true, None));
        assert!(
            colour_wanted(true, Some(OsStr::new(""))),
            "an empty NO_COLOR is unset"
        );
        assert!(!colour_wanted(true, Some(OsStr::new("1"))));
        assert!(
            !colour_wanted(false, None),
            "a file or a pipe gets no colour"
        );
    }
}
