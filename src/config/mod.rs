//! Server configuration: environment variables, optionally preceded by a file of the same
//! `KEY=value` lines (`KONTOR_CONFIG=/etc/kontor.env`). The environment wins over the file.

pub mod delivery;
pub mod limits;
pub mod mail;
pub mod push;
pub mod settings;
pub mod tournaments;

pub use delivery::DeliveryLimits;
pub use limits::{UploadLimits, VolumeLimits};
pub use mail::NotifySettings;
pub use push::PushSettings;
pub use settings::{SETTINGS, Setting, Values, default_of};
pub use tournaments::Organisers;

use anyhow::{Context, bail};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Where the database comes from.
#[derive(Clone)]
pub enum Database {
    /// A server given by URL (`KONTOR_DATABASE_URL`), or several: a primary and its standbys,
    /// separated by commas (see [`Database::addresses`]).
    Url(String),
    /// The embedded default: a private cluster in `<data_dir>/postgres`, created and started
    /// by Kontor itself.
    Embedded,
}

/// `Debug` is written by hand below: it never shows the JWT secret or a password in a URL.
#[derive(Clone)]
pub struct Config {
    pub bind: SocketAddr,
    pub database: Database,
    /// A URL for what needs a session of its own (`LISTEN`, the migrations' advisory lock,
    /// the live publisher's session setting) when `database` goes through a transaction
    /// pooler such as PgBouncer; `None` = the same database as everything else.
    pub session_database_url: Option<String>,
    /// Read replicas (`KONTOR_REPLICA_URLS`) for the reads that may be a little late; empty =
    /// every read on the primary.
    pub replica_urls: Vec<String>,
    /// The most a replica may lag for a read to go to it (`KONTOR_REPLICA_MAX_LAG_MS`).
    pub replica_max_lag: Duration,
    pub data_dir: PathBuf,
    /// HMAC key for access tokens; `None` = generate one and keep it in the data folder.
    pub jwt_secret: Option<String>,
    /// The public address of this server, used for links in mails.
    pub base_url: Option<String>,
    pub access_token_ttl: Duration,
    pub refresh_token_ttl: Duration,
    pub db_pool_size: u32,
    /// How long a request waits for a database connection before it is answered 503
    /// `overloaded` (every connection is busy) or `database_unavailable` (the database is down).
    pub db_acquire_timeout: Duration,
    /// How long the embedded cluster may fail to start again before `/healthz` answers 503.
    pub db_recovery_limit: Duration,
    /// SMTP server URL (`smtp://user:pass@host:port`, `smtps://…`); `None` = write `.eml` files.
    pub smtp_url: Option<String>,
    pub mail_from: String,
    /// Run the background workers (mail delivery, deadlines) in this process.
    pub workers: bool,
    /// Let outbound HTTP (webhooks, Web Push) use `http://` and loopback targets: tests and
    /// development only (`KONTOR_OUTBOUND_ALLOW_INSECURE`).
    pub outbound_allow_insecure: bool,
    /// Failed logins allowed per account within `login_window` before 429.
    pub login_max_failures: u32,
    /// Failed logins allowed per client address within `login_window` before 429.
    pub login_max_failures_per_address: u32,
    pub login_window: Duration,
    /// How long a password reset link works.
    pub reset_token_ttl: Duration,
    /// How long an address verification link works.
    pub verify_token_ttl: Duration,
    /// Whether an account whose address is not verified may create, join and act in games.
    pub unverified_may_play: bool,
    /// Whether such an account may create or join rated games and tournaments.
    pub unverified_may_play_rated: bool,
    /// How much one client, user or address may ask for: registrations, open games,
    /// invitations, verification mails.
    pub limits: VolumeLimits,
    /// The shortest time per move a game may have (seconds).
    pub min_seconds_per_move: i64,
    /// How often the deadline worker looks for due clocks when nothing wakes it.
    pub deadline_poll: Duration,
    /// Days of vacation a user may take per calendar year.
    pub vacation_days_per_year: i64,
    /// How long the players of a finished game have to answer a rematch offer.
    pub rematch_deadline: Duration,
    /// How long the seats asked to consent to an undo have to answer.
    pub undo_deadline: Duration,
    /// Who may organise tournaments (`KONTOR_TOURNAMENT_ORGANISERS`).
    pub tournament_organisers: tournaments::Organisers,
    /// Tournaments one organiser may have open or running at once.
    pub tournaments_per_organiser: u32,
    /// Requests to user-given addresses in flight, per owner and host; test sends.
    pub delivery: DeliveryLimits,
    /// How often an idle live stream sends a keep-alive comment (a closed connection is
    /// noticed then at the latest).
    pub live_keep_alive: Duration,
    /// Live streams (game and user streams together) one user may hold open on this instance.
    pub live_max_streams_per_user: usize,
    /// Live streams one client address may hold open on this instance, whatever the users.
    pub live_max_streams_per_address: usize,
    /// How long a client may take to send a request's body, from the end of its head.
    pub body_timeout: Duration,
    /// Days finished (sent or skipped) mail is kept before housekeeping deletes it; 0: forever.
    pub keep_sent_mail_days: u32,
    /// How long the answer to an action is kept for a retry with its `Idempotency-Key`
    /// before housekeeping trims it (the key and the request's digest stay).
    pub idempotency_window: Duration,
    /// How often the workers' housekeeping runs.
    pub housekeeping_every: Duration,
    /// How often the rating worker looks for finished games when nothing wakes it (a game's
    /// end wakes it at once: this is the safety net).
    pub ratings_poll: Duration,
    /// Web origins (`https://app.example`) whose pages may call the API from a browser
    /// (CORS); empty = no CORS headers at all.
    pub cors_origins: Vec<String>,
    /// A folder to serve the web client from instead of the files built into the binary.
    pub web_dir: Option<PathBuf>,
    /// Mail delivery: retries, leases, digest hour, game links.
    pub notify: mail::NotifySettings,
    /// Web Push: the VAPID key (`None` = generate one into the data folder) and subject.
    pub push: push::PushSettings,
    /// How many uploaded exports are checked at once, and how many games a user imports a day.
    pub uploads: UploadLimits,
    /// The names in the retired `KONTOR_ADMIN_USERS`, if an operator still sets it: the
    /// server refuses to start with them (see [`Config::refuse_retired_settings`]) rather than
    /// silently dropping or keeping anyone's admin rights. Not a setting any more.
    pub retired_admin_users: Vec<String>,
    /// Where "now" comes from (see [`crate::time`]): always the system clock when read from
    /// the environment; only a program using the library (the tests) puts another here.
    pub clock: crate::time::Clock,
    /// Reverse proxies (addresses and CIDR ranges) whose `X-Forwarded-For` is believed; from
    /// anyone else it is ignored (see `http::forwarded`). Empty: the peer is the client.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// How the log is written (`main` reads it before anything is logged).
    pub log_format: LogFormat,
    /// A second address that serves only `/metrics` (no token: keep it on a private network).
    pub metrics_bind: Option<SocketAddr>,
    /// When set, `/metrics` on the main address answers to `Authorization: Bearer <token>`;
    /// unset, it is not served there.
    pub metrics_token: Option<String>,
}

/// The log's format (`KONTOR_LOG_FORMAT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// Lines for people (tracing-subscriber's default).
    Text,
    /// One JSON object per line, with the fields of the spans it happened in.
    Json,
}

impl LogFormat {
    fn parse(value: &str) -> anyhow::Result<Self> {
        match value {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            other => bail!("KONTOR_LOG_FORMAT must be text or json, not {other:?}"),
        }
    }

    /// The format the environment (and the file `KONTOR_CONFIG` names) asks for, read before
    /// the rest of the configuration, so that even its errors are logged in that format.
    pub fn from_env() -> anyhow::Result<Self> {
        let values = env_values()?;
        Self::parse(Values::new(&values).value("KONTOR_LOG_FORMAT"))
    }
}

impl Config {
    /// Whether metrics are recorded at all: only when something serves them.
    pub fn metrics_enabled(&self) -> bool {
        self.metrics_bind.is_some() || self.metrics_token.is_some()
    }
}

impl Database {
    /// The servers a `KONTOR_DATABASE_URL` names: one URL, or several separated by commas (a
    /// primary and its standbys, in any order: the server connects to whichever takes writes
    /// and follows it when it moves). A comma not followed by `postgres://` or
    /// `postgresql://` belongs to the URL it is in.
    pub fn addresses(url: &str) -> Vec<String> {
        let mut addresses: Vec<String> = Vec::new();
        for piece in url.split(',') {
            let starts = piece.trim_start();
            match addresses.last_mut() {
                Some(last)
                    if !(starts.starts_with("postgres://")
                        || starts.starts_with("postgresql://")) =>
                {
                    last.push(',');
                    last.push_str(piece);
                }
                _ => addresses.push(starts.to_string()),
            }
        }
        for address in &mut addresses {
            *address = address.trim_end().to_string();
        }
        addresses
    }
}

/// Shows the URL without its password.
impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Url(url) => f
                .debug_tuple("Url")
                .field(
                    &Database::addresses(url)
                        .iter()
                        .map(|address| crate::redact::mask_url(address))
                        .collect::<Vec<_>>()
                        .join(","),
                )
                .finish(),
            Database::Embedded => f.write_str("Embedded"),
        }
    }
}

/// Redacts the JWT secret and the SMTP URL's password, so that a configuration can be logged
/// or shown in an error. The fields are listed exhaustively on purpose: a new field does not
/// compile until someone has decided whether it is a secret.
impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Config {
            bind,
            database,
            session_database_url,
            replica_urls,
            replica_max_lag,
            data_dir,
            jwt_secret,
            base_url,
            access_token_ttl,
            refresh_token_ttl,
            db_pool_size,
            db_acquire_timeout,
            db_recovery_limit,
            smtp_url,
            mail_from,
            workers,
            outbound_allow_insecure,
            login_max_failures,
            login_max_failures_per_address,
            login_window,
            reset_token_ttl,
            verify_token_ttl,
            unverified_may_play,
            unverified_may_play_rated,
            limits,
            min_seconds_per_move,
            deadline_poll,
            vacation_days_per_year,
            rematch_deadline,
            undo_deadline,
            tournament_organisers,
            tournaments_per_organiser,
            delivery,
            live_keep_alive,
            live_max_streams_per_user,
            live_max_streams_per_address,
            body_timeout,
            keep_sent_mail_days,
            idempotency_window,
            housekeeping_every,
            ratings_poll,
            cors_origins,
            web_dir,
            notify,
            push,
            uploads,
            retired_admin_users,
            clock,
            trusted_proxies,
            log_format,
            metrics_bind,
            metrics_token,
        } = self;
        f.debug_struct("Config")
            .field("bind", bind)
            .field("database", database)
            .field(
                "session_database_url",
                &session_database_url.as_deref().map(crate::redact::mask_url),
            )
            .field(
                "replica_urls",
                &replica_urls
                    .iter()
                    .map(|url| crate::redact::mask_url(url))
                    .collect::<Vec<_>>(),
            )
            .field("replica_max_lag", replica_max_lag)
            .field("data_dir", data_dir)
            .field(
                "jwt_secret",
                &jwt_secret.as_ref().map(|_| crate::redact::MASK),
            )
            .field("base_url", base_url)
            .field("access_token_ttl", access_token_ttl)
            .field("refresh_token_ttl", refresh_token_ttl)
            .field("db_pool_size", db_pool_size)
            .field("db_acquire_timeout", db_acquire_timeout)
            .field("db_recovery_limit", db_recovery_limit)
            .field(
                "smtp_url",
                &smtp_url.as_deref().map(crate::redact::mask_url),
            )
            .field("mail_from", mail_from)
            .field("workers", workers)
            .field("outbound_allow_insecure", outbound_allow_insecure)
            .field("login_max_failures", login_max_failures)
            .field(
                "login_max_failures_per_address",
                login_max_failures_per_address,
            )
            .field("login_window", login_window)
            .field("reset_token_ttl", reset_token_ttl)
            .field("verify_token_ttl", verify_token_ttl)
            .field("unverified_may_play", unverified_may_play)
            .field("unverified_may_play_rated", unverified_may_play_rated)
            .field("limits", limits)
            .field("min_seconds_per_move", min_seconds_per_move)
            .field("deadline_poll", deadline_poll)
            .field("vacation_days_per_year", vacation_days_per_year)
            .field("rematch_deadline", rematch_deadline)
            .field("undo_deadline", undo_deadline)
            .field("tournament_organisers", tournament_organisers)
            .field("tournaments_per_organiser", tournaments_per_organiser)
            .field("delivery", delivery)
            .field("live_keep_alive", live_keep_alive)
            .field("live_max_streams_per_user", live_max_streams_per_user)
            .field("live_max_streams_per_address", live_max_streams_per_address)
            .field("body_timeout", body_timeout)
            .field("keep_sent_mail_days", keep_sent_mail_days)
            .field("idempotency_window", idempotency_window)
            .field("housekeeping_every", housekeeping_every)
            .field("ratings_poll", ratings_poll)
            .field("cors_origins", cors_origins)
            .field("web_dir", web_dir)
            .field("notify", notify)
            .field("push", push)
            .field("uploads", uploads)
            .field("retired_admin_users", retired_admin_users)
            .field("clock", clock)
            .field("trusted_proxies", trusted_proxies)
            .field("log_format", log_format)
            .field("metrics_bind", metrics_bind)
            .field(
                "metrics_token",
                &metrics_token.as_ref().map(|_| crate::redact::MASK),
            )
            .finish()
    }
}

/// Named admin usernames until admin became a stored role; refused when still set.
const RETIRED_ADMIN_USERS: &str = "KONTOR_ADMIN_USERS";

/// The per-address limit of failed logins, unless given: this many times the per-account one.
const ADDRESS_FAILURES_PER_ACCOUNT_FAILURE: u32 = 4;

/// The settings of the process environment, after those of the file `KONTOR_CONFIG` names.
fn env_values() -> anyhow::Result<HashMap<String, String>> {
    let env: HashMap<String, String> = std::env::vars().collect();
    let mut values = HashMap::new();
    if let Some(path) = env.get("KONTOR_CONFIG") {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the configuration file {path}"))?;
        values.extend(parse_env_file(&text).with_context(|| format!("in {path}"))?);
    }
    values.extend(env);
    Ok(values)
}

impl Config {
    /// Reads the process environment (and the file it may name).
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_map(&env_values()?)
    }

    /// Builds a configuration from `KEY -> value` pairs; absent keys take their defaults
    /// (from [`SETTINGS`]).
    pub fn from_map(values: &HashMap<String, String>) -> anyhow::Result<Self> {
        let values = Values::new(values);
        let bind: SocketAddr = values
            .value("KONTOR_BIND")
            .parse()
            .context("KONTOR_BIND must be an address and port such as 127.0.0.1:8080")?;
        let database = match values
            .given("KONTOR_DATABASE_URL")
            .or(values.given("DATABASE_URL"))
        {
            Some(url) => Database::Url(url.to_string()),
            None => Database::Embedded,
        };
        let session_database_url = values
            .given("KONTOR_SESSION_DATABASE_URL")
            .map(str::to_string);
        if session_database_url.is_some() && matches!(database, Database::Embedded) {
            // The embedded cluster is reached directly; a second URL could only name another
            // database, whose notes and locks the server would then miss.
            bail!(
                "KONTOR_SESSION_DATABASE_URL needs KONTOR_DATABASE_URL (the embedded cluster needs no session URL)"
            );
        }
        if let Database::Url(url) = &database
            && Database::addresses(url).len() > 1
            && session_database_url.is_some()
        {
            // A list names the servers themselves, to follow the primary among them; a session
            // URL is for a pooler in front, which would have to follow it instead.
            bail!(
                "KONTOR_SESSION_DATABASE_URL cannot be used with a list of servers in KONTOR_DATABASE_URL (put the pooler in front of the primary, or list the servers and no session URL)"
            );
        }
        let replica_urls = values
            .given("KONTOR_REPLICA_URLS")
            .map(Database::addresses)
            .unwrap_or_default();
        if !replica_urls.is_empty() && matches!(database, Database::Embedded) {
            bail!(
                "KONTOR_REPLICA_URLS needs KONTOR_DATABASE_URL (the embedded cluster has no replicas)"
            );
        }
        let replica_max_lag_ms: u64 = values.number("KONTOR_REPLICA_MAX_LAG_MS")?;
        if replica_max_lag_ms == 0 {
            bail!("KONTOR_REPLICA_MAX_LAG_MS must be at least 1");
        }
        let replica_max_lag = Duration::from_millis(replica_max_lag_ms);
        let workers = match values.value("KONTOR_WORKERS") {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            other => bail!("KONTOR_WORKERS must be true or false, not {other:?}"),
        };
        let outbound_allow_insecure = match values.value("KONTOR_OUTBOUND_ALLOW_INSECURE") {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            other => bail!("KONTOR_OUTBOUND_ALLOW_INSECURE must be true or false, not {other:?}"),
        };
        let unverified_may_play = match values.value("KONTOR_UNVERIFIED_MAY_PLAY") {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            other => bail!("KONTOR_UNVERIFIED_MAY_PLAY must be true or false, not {other:?}"),
        };
        let unverified_may_play_rated = match values.value("KONTOR_UNVERIFIED_MAY_PLAY_RATED") {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            other => {
                bail!("KONTOR_UNVERIFIED_MAY_PLAY_RATED must be true or false, not {other:?}")
            }
        };
        let tournaments_per_organiser: u32 = values.number("KONTOR_TOURNAMENTS_PER_ORGANISER")?;
        if tournaments_per_organiser == 0 {
            bail!("KONTOR_TOURNAMENTS_PER_ORGANISER must be at least 1");
        }
        let reset_token_ttl = values.seconds("KONTOR_RESET_TOKEN_TTL")?;
        let verify_token_ttl = values.seconds("KONTOR_VERIFY_TOKEN_TTL")?;
        if reset_token_ttl.is_zero() || verify_token_ttl.is_zero() {
            bail!("KONTOR_RESET_TOKEN_TTL and KONTOR_VERIFY_TOKEN_TTL must be at least 1 second");
        }
        let db_pool_size: u32 = values.number("KONTOR_DB_POOL_SIZE")?;
        let login_max_failures: u32 = values.number("KONTOR_LOGIN_MAX_FAILURES")?;
        if db_pool_size == 0 {
            bail!("KONTOR_DB_POOL_SIZE must be at least 1");
        }
        let db_acquire_timeout_ms: u32 = values.number("KONTOR_DB_ACQUIRE_TIMEOUT_MS")?;
        if db_acquire_timeout_ms == 0 {
            bail!("KONTOR_DB_ACQUIRE_TIMEOUT_MS must be at least 1");
        }
        let db_recovery_limit = values.seconds("KONTOR_DB_RECOVERY_LIMIT_SECS")?;
        let live_max_streams_per_user: u32 = values.number("KONTOR_LIVE_MAX_STREAMS_PER_USER")?;
        if live_max_streams_per_user == 0 {
            bail!("KONTOR_LIVE_MAX_STREAMS_PER_USER must be at least 1");
        }
        let live_max_streams_per_address: u32 =
            values.number("KONTOR_LIVE_MAX_STREAMS_PER_ADDRESS")?;
        if live_max_streams_per_address == 0 {
            bail!("KONTOR_LIVE_MAX_STREAMS_PER_ADDRESS must be at least 1");
        }
        let body_timeout = values.seconds("KONTOR_BODY_TIMEOUT")?;
        let housekeeping_every = values.seconds("KONTOR_HOUSEKEEPING_EVERY")?;
        let ratings_poll = values.seconds("KONTOR_RATINGS_POLL")?;
        let rematch_hours: u64 = values.number("KONTOR_REMATCH_DEADLINE_HOURS")?;
        if !(1..=720).contains(&rematch_hours) {
            bail!("KONTOR_REMATCH_DEADLINE_HOURS must be between 1 and 720");
        }
        let rematch_deadline = Duration::from_secs(rematch_hours * 3600);
        let undo_hours: u64 = values.number("KONTOR_UNDO_DEADLINE_HOURS")?;
        if !(1..=720).contains(&undo_hours) {
            bail!("KONTOR_UNDO_DEADLINE_HOURS must be between 1 and 720");
        }
        let undo_deadline = Duration::from_secs(undo_hours * 3600);
        let tournament_organisers = match values.value("KONTOR_TOURNAMENT_ORGANISERS") {
            "verified" => tournaments::Organisers::Verified,
            "admins" => tournaments::Organisers::Admins,
            other => {
                bail!("KONTOR_TOURNAMENT_ORGANISERS must be verified or admins, not {other:?}")
            }
        };
        let idempotency_window = values.seconds("KONTOR_IDEMPOTENCY_WINDOW")?;
        if idempotency_window.is_zero() {
            bail!("KONTOR_IDEMPOTENCY_WINDOW must be at least 1 second");
        }
        if housekeeping_every.is_zero() {
            bail!("KONTOR_HOUSEKEEPING_EVERY must be at least 1 second");
        }
        if ratings_poll.is_zero() {
            bail!("KONTOR_RATINGS_POLL must be at least 1 second");
        }
        if body_timeout.is_zero() {
            bail!("KONTOR_BODY_TIMEOUT must be at least 1 second");
        }
        let cors_origins = values
            .given("KONTOR_CORS_ORIGINS")
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .map(parse_origin)
            .collect::<anyhow::Result<Vec<_>>>()?;
        // Derived from the per-account limit unless given (the table says so in words).
        let login_max_failures_per_address =
            match values.given("KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS") {
                Some(_) => values.number("KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS")?,
                None => login_max_failures.saturating_mul(ADDRESS_FAILURES_PER_ACCOUNT_FAILURE),
            };
        Ok(Self {
            bind,
            database,
            session_database_url,
            replica_urls,
            replica_max_lag,
            data_dir: PathBuf::from(values.value("KONTOR_DATA_DIR")),
            jwt_secret: values.given("KONTOR_JWT_SECRET").map(str::to_string),
            base_url: values
                .given("KONTOR_BASE_URL")
                .map(|u| u.trim_end_matches('/').to_string()),
            access_token_ttl: values.seconds("KONTOR_ACCESS_TOKEN_TTL")?,
            refresh_token_ttl: values.seconds("KONTOR_REFRESH_TOKEN_TTL")?,
            db_pool_size,
            db_acquire_timeout: Duration::from_millis(u64::from(db_acquire_timeout_ms)),
            db_recovery_limit,
            smtp_url: values.given("KONTOR_SMTP_URL").map(str::to_string),
            mail_from: values.value("KONTOR_MAIL_FROM").to_string(),
            workers,
            outbound_allow_insecure,
            login_max_failures,
            login_max_failures_per_address,
            login_window: values.seconds("KONTOR_LOGIN_WINDOW")?,
            reset_token_ttl,
            verify_token_ttl,
            unverified_may_play,
            unverified_may_play_rated,
            limits: VolumeLimits::from_values(&values)?,
            min_seconds_per_move: i64::from(values.number::<u32>("KONTOR_MIN_SECONDS_PER_MOVE")?),
            deadline_poll: Duration::from_millis(u64::from(
                values.number::<u32>("KONTOR_DEADLINE_POLL_MS")?,
            )),
            vacation_days_per_year: i64::from(values.number::<u32>("KONTOR_VACATION_DAYS")?),
            rematch_deadline,
            undo_deadline,
            tournament_organisers,
            tournaments_per_organiser,
            delivery: DeliveryLimits::from_values(&values)?,
            live_keep_alive: values.seconds("KONTOR_LIVE_KEEP_ALIVE")?,
            live_max_streams_per_user: live_max_streams_per_user as usize,
            live_max_streams_per_address: live_max_streams_per_address as usize,
            body_timeout,
            keep_sent_mail_days: values.number("KONTOR_KEEP_SENT_MAIL_DAYS")?,
            idempotency_window,
            housekeeping_every,
            ratings_poll,
            cors_origins,
            web_dir: values.given("KONTOR_WEB_DIR").map(PathBuf::from),
            notify: mail::NotifySettings::from_values(&values)?,
            push: push::PushSettings::from_values(&values),
            uploads: UploadLimits::from_values(&values)?,
            retired_admin_users: values
                .given(RETIRED_ADMIN_USERS)
                .unwrap_or("")
                .split(',')
                .map(|name| name.trim().to_string())
                .filter(|name| !name.is_empty())
                .collect(),
            clock: crate::time::Clock::system(),
            trusted_proxies: values
                .given("KONTOR_TRUSTED_PROXIES")
                .unwrap_or("")
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(parse_proxy)
                .collect::<anyhow::Result<Vec<_>>>()?,
            log_format: LogFormat::parse(values.value("KONTOR_LOG_FORMAT"))?,
            metrics_bind: values
                .given("KONTOR_METRICS_BIND")
                .map(|a| {
                    a.parse().with_context(|| {
                        format!("KONTOR_METRICS_BIND must be an address and port such as 127.0.0.1:9090, not {a:?}")
                    })
                })
                .transpose()?,
            metrics_token: values.given("KONTOR_METRICS_TOKEN").map(str::to_string),
        })
    }

    /// Fails, saying what to do instead, when a retired setting is still given. The server
    /// calls it before it starts; the command line's other tools (`kontor admin grant` above
    /// all) still run, so the operator can follow the advice with the old file in place.
    pub fn refuse_retired_settings(&self) -> anyhow::Result<()> {
        if self.retired_admin_users.is_empty() {
            return Ok(());
        }
        let grants: Vec<String> = self
            .retired_admin_users
            .iter()
            .map(|name| format!("`kontor admin grant {name}`"))
            .collect();
        bail!(
            "{RETIRED_ADMIN_USERS} is no longer supported: admin rights are now a role stored \
             with the account, so that registering a listed name can make nobody an admin. \
             Grant the role with {} (check with `kontor admin list`), then remove \
             {RETIRED_ADMIN_USERS} from the configuration",
            grants.join(", ")
        )
    }

    /// The public base URL, defaulting to the bind address.
    pub fn public_base_url(&self) -> String {
        self.base_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.bind))
    }
}

/// Parses `KEY=value` lines; `#` starts a comment line; values may be quoted.
fn parse_env_file(text: &str) -> anyhow::Result<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((key, value)) = line.split_once('=') else {
            bail!("line {}: expected KEY=value, found {line:?}", index + 1);
        };
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value);
        pairs.push((key.trim().to_string(), value.to_string()));
    }
    Ok(pairs)
}

/// One entry of `KONTOR_TRUSTED_PROXIES`: a CIDR range, or one address (a range of one).
fn parse_proxy(entry: &str) -> anyhow::Result<ipnet::IpNet> {
    entry
        .parse::<ipnet::IpNet>()
        .map(|net| net.trunc())
        .or_else(|_| entry.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| {
            anyhow::anyhow!(
                "KONTOR_TRUSTED_PROXIES: {entry:?} is not an address or CIDR range such as \
                 10.0.0.5, 10.1.0.0/16 or fd00::/8"
            )
        })
}

/// One origin of `KONTOR_CORS_ORIGINS`, in the form a browser sends it in `Origin`
/// (`scheme://host[:port]`, lower case, no path and no trailing slash), so that requests can
/// be matched by plain string equality. `*` is refused: the list names the clients trusted.
fn parse_origin(origin: &str) -> anyhow::Result<String> {
    let bad = || {
        anyhow::anyhow!(
            "KONTOR_CORS_ORIGINS: {origin:?} is not an origin such as https://app.example or \
             http://localhost:5173 (scheme, host and optional port; no path, no wildcard)"
        )
    };
    let lower = origin.to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://").ok_or_else(bad)?;
    if !matches!(scheme, "http" | "https") || rest.is_empty() {
        return Err(bad());
    }
    // An IPv6 literal is bracketed; whatever follows the host is `:port` or nothing.
    let (host, after) = match rest.strip_prefix('[') {
        Some(inner) => {
            let end = inner.find(']').ok_or_else(bad)?;
            (&inner[..end], &inner[end + 1..])
        }
        None => rest.split_at(rest.find(':').unwrap_or(rest.len())),
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b':');
    let port_ok = after.is_empty()
        || after.strip_prefix(':').is_some_and(|p| {
            !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok()
        });
    if !host_ok || !port_ok || (!rest.starts_with('[') && host.contains(':')) {
        return Err(bad());
    }
    Ok(lower)
}

#[cfg(test)]
mod tests;
