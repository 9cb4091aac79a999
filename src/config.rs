//! Server configuration: environment variables, optionally preceded by a file of the same
//! `KEY=value` lines (`KONTOR_CONFIG=/etc/kontor.env`). The environment wins over the file.

use anyhow::{Context, bail};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Where the database comes from.
#[derive(Clone)]
pub enum Database {
    /// A server given by URL (`KONTOR_DATABASE_URL`).
    Url(String),
    /// The embedded default: a private cluster in `<data_dir>/postgres`, created and started
    /// by Kontor itself.
    Embedded,
}

/// The limits of uploaded exports (`KONTOR_UPLOADS_MAX`, `KONTOR_UPLOADS_MAX_PER_USER`,
/// `KONTOR_IMPORTS_PER_DAY`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UploadLimits {
    /// Uploads read and checked at once on this server.
    pub at_once: usize,
    /// Uploads of one user read and checked at once on this server.
    pub at_once_per_user: usize,
    /// Games one user may import within 24 hours.
    pub imports_per_day: u32,
}

impl UploadLimits {
    fn from_values(values: &Values) -> anyhow::Result<Self> {
        let at_once: u32 = values.number("KONTOR_UPLOADS_MAX")?;
        let at_once_per_user: u32 = values.number("KONTOR_UPLOADS_MAX_PER_USER")?;
        if at_once == 0 || at_once_per_user == 0 {
            bail!("KONTOR_UPLOADS_MAX and KONTOR_UPLOADS_MAX_PER_USER must be at least 1");
        }
        Ok(Self {
            at_once: at_once as usize,
            at_once_per_user: at_once_per_user as usize,
            imports_per_day: values.number("KONTOR_IMPORTS_PER_DAY")?,
        })
    }
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
    pub data_dir: PathBuf,
    /// HMAC key for access tokens; `None` = generate one and keep it in the data folder.
    pub jwt_secret: Option<String>,
    /// The public address of this server, used for links in mails.
    pub base_url: Option<String>,
    pub access_token_ttl: Duration,
    pub refresh_token_ttl: Duration,
    pub db_pool_size: u32,
    /// How long a request waits for a database connection before it is answered 503
    /// `database_unavailable` (the database is down or every connection is busy).
    pub db_acquire_timeout: Duration,
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
    pub tournament_organisers: crate::service::tournaments::Organisers,
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
    pub notify: crate::notify::NotifySettings,
    /// Web Push: the VAPID key (`None` = generate one into the data folder) and subject.
    pub push: crate::notify::push::PushSettings,
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

/// Shows the URL without its password.
impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Url(url) => f
                .debug_tuple("Url")
                .field(&crate::redact::mask_url(url))
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
            data_dir,
            jwt_secret,
            base_url,
            access_token_ttl,
            refresh_token_ttl,
            db_pool_size,
            db_acquire_timeout,
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
            limits,
            min_seconds_per_move,
            deadline_poll,
            vacation_days_per_year,
            rematch_deadline,
            undo_deadline,
            tournament_organisers,
            live_keep_alive,
            live_max_streams_per_user,
            live_max_streams_per_address,
            body_timeout,
            keep_sent_mail_days,
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
            .field("limits", limits)
            .field("min_seconds_per_move", min_seconds_per_move)
            .field("deadline_poll", deadline_poll)
            .field("vacation_days_per_year", vacation_days_per_year)
            .field("rematch_deadline", rematch_deadline)
            .field("undo_deadline", undo_deadline)
            .field("tournament_organisers", tournament_organisers)
            .field("live_keep_alive", live_keep_alive)
            .field("live_max_streams_per_user", live_max_streams_per_user)
            .field("live_max_streams_per_address", live_max_streams_per_address)
            .field("body_timeout", body_timeout)
            .field("keep_sent_mail_days", keep_sent_mail_days)
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

/// Volume limits against abuse (each a setting; beyond one, 429 with `Retry-After`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VolumeLimits {
    /// Accounts registered from one client address per hour (each mails the typed address).
    pub registrations_per_address_hour: u32,
    /// Games one user created that wait for players (open) at once.
    pub open_games_per_user: u32,
    /// Verification and change-of-address links mailed to one address per day, whichever
    /// accounts ask.
    pub verify_mails_per_address_day: u32,
    /// Invitations one user makes per day.
    pub invitations_per_user_day: u32,
    /// Invitation mails to one invitee per day (beyond, the invitation stands, unmailed).
    pub invitation_mails_per_invitee_day: u32,
    /// Chat messages one user may send in one game in a burst (`KONTOR_CHAT_BURST`).
    pub chat_burst: u32,
    /// Seconds after which one more chat message is allowed (token bucket refill).
    pub chat_interval_secs: u32,
    /// Chat messages one user may send in one game within 24 hours.
    pub chat_daily_max: u32,
}

impl VolumeLimits {
    fn from_values(values: &Values<'_>) -> anyhow::Result<Self> {
        let at_least_one = |key: &str| -> anyhow::Result<u32> {
            let n: u32 = values.number(key)?;
            if n == 0 {
                bail!("{key} must be at least 1");
            }
            Ok(n)
        };
        Ok(Self {
            registrations_per_address_hour: at_least_one("KONTOR_REGISTRATIONS_PER_ADDRESS")?,
            open_games_per_user: at_least_one("KONTOR_OPEN_GAMES_PER_USER")?,
            verify_mails_per_address_day: at_least_one("KONTOR_VERIFY_MAILS_PER_ADDRESS")?,
            invitations_per_user_day: at_least_one("KONTOR_INVITATIONS_PER_DAY")?,
            invitation_mails_per_invitee_day: at_least_one("KONTOR_INVITATION_MAILS_PER_INVITEE")?,
            chat_burst: at_least_one("KONTOR_CHAT_BURST")?,
            chat_interval_secs: values.number("KONTOR_CHAT_INTERVAL_SECS")?,
            chat_daily_max: at_least_one("KONTOR_CHAT_DAILY_MAX")?,
        })
    }
}

/// Named admin usernames until admin became a stored role; refused when still set.
const RETIRED_ADMIN_USERS: &str = "KONTOR_ADMIN_USERS";

/// One setting, as the configuration reference (docs/operations.md) shows it.
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    pub name: &'static str,
    /// The default as docs/operations.md shows it.
    pub default: &'static str,
    /// Whether [`Setting::default`] is the value itself, which the configuration parses
    /// when the setting is absent; otherwise it describes what happens then (`(none)`,
    /// `http://<bind>`, a value derived from another setting).
    pub literal: bool,
    pub meaning: &'static str,
}

impl Setting {
    /// A setting whose default is a value (parsed like a given one).
    const fn value(name: &'static str, default: &'static str, meaning: &'static str) -> Self {
        Self {
            name,
            default,
            literal: true,
            meaning,
        }
    }

    /// A setting whose default is a behaviour, described in words.
    const fn described(name: &'static str, default: &'static str, meaning: &'static str) -> Self {
        Self {
            name,
            default,
            literal: false,
            meaning,
        }
    }
}

/// Every setting with its default and meaning: the one place each default is written.
/// [`Config::from_map`] (and `NotifySettings::from_map`, `main`'s log filter) read the
/// literal defaults from here; the configuration reference in docs/operations.md mirrors it
/// (a contract test checks).
pub const SETTINGS: &[Setting] = &[
    Setting::described(
        "KONTOR_CONFIG",
        "(none)",
        "A file of KEY=value lines read before the environment.",
    ),
    Setting::value(
        "KONTOR_BIND",
        "127.0.0.1:8080",
        "Address and port the HTTP server listens on.",
    ),
    Setting::described(
        "KONTOR_DATABASE_URL",
        "(embedded)",
        "PostgreSQL URL. Unset: a private cluster in the data folder, created and started by Kontor.",
    ),
    Setting::described(
        "KONTOR_SESSION_DATABASE_URL",
        "(KONTOR_DATABASE_URL)",
        "PostgreSQL URL for what needs a session of its own (LISTEN, the migrations' lock): set it to the database itself when KONTOR_DATABASE_URL goes through PgBouncer in transaction mode.",
    ),
    Setting::value(
        "KONTOR_DATA_DIR",
        "./data",
        "Data folder: embedded cluster, generated secrets, mail files.",
    ),
    Setting::described(
        "KONTOR_PG_BIN",
        "(found)",
        "Folder of PostgreSQL's server binaries for the embedded cluster (default: the newest in /usr/lib/postgresql).",
    ),
    Setting::described(
        "KONTOR_JWT_SECRET",
        "(generated)",
        "HMAC key for access tokens. Unset: generated once and kept in the data folder.",
    ),
    Setting::described(
        "KONTOR_BASE_URL",
        "http://<bind>",
        "Public address of the server, used in links in mails.",
    ),
    Setting::value(
        "KONTOR_ACCESS_TOKEN_TTL",
        "900",
        "Lifetime of access tokens, in seconds.",
    ),
    Setting::value(
        "KONTOR_REFRESH_TOKEN_TTL",
        "2592000",
        "Lifetime of refresh tokens, in seconds.",
    ),
    Setting::value(
        "KONTOR_DB_POOL_SIZE",
        "16",
        "Database connections in the pool.",
    ),
    Setting::value(
        "KONTOR_DB_ACQUIRE_TIMEOUT_MS",
        "2000",
        "How long a request waits for a database connection before it is answered 503 database_unavailable, in milliseconds.",
    ),
    Setting::value(
        "KONTOR_MIN_SECONDS_PER_MOVE",
        "60",
        "The shortest time per move a game may be created with, in seconds.",
    ),
    Setting::value(
        "KONTOR_DEADLINE_POLL_MS",
        "1000",
        "How often the deadline worker looks for due clocks, in milliseconds.",
    ),
    Setting::value(
        "KONTOR_VACATION_DAYS",
        "30",
        "Days of vacation a user may take per calendar year (clocks stand still meanwhile).",
    ),
    Setting::value(
        "KONTOR_REMATCH_DEADLINE_HOURS",
        "72",
        "Hours the other players of a finished game have to answer a rematch offer (1 to 720).",
    ),
    Setting::value(
        "KONTOR_TOURNAMENT_ORGANISERS",
        "verified",
        "Who may organise tournaments: `verified` (any player whose address is verified) or `admins`.",
    ),
    Setting::value(
        "KONTOR_UNDO_DEADLINE_HOURS",
        "24",
        "Hours the players asked to consent to an undo have to answer it (1 to 720).",
    ),
    Setting::value(
        "KONTOR_LIVE_KEEP_ALIVE",
        "15",
        "Seconds between keep-alive comments on idle live streams.",
    ),
    Setting::value(
        "KONTOR_LIVE_MAX_STREAMS_PER_USER",
        "8",
        "Live streams (game and user streams together) one user may hold open on one server; more are refused with 429.",
    ),
    Setting::value(
        "KONTOR_LIVE_MAX_STREAMS_PER_ADDRESS",
        "64",
        "Live streams one client address may hold open on one server, whatever the accounts; more are refused with 429. Behind a proxy, set KONTOR_TRUSTED_PROXIES, or every client shares the proxy's address.",
    ),
    Setting::value(
        "KONTOR_BODY_TIMEOUT",
        "10",
        "Seconds a client may take to send a request body; a slower one is answered 408 and disconnected.",
    ),
    Setting::value(
        "KONTOR_UPLOADS_MAX",
        "4",
        "Uploaded exports (POST /verify, POST /games/import) one server reads and checks at once; more are refused with 429 uploads_busy.",
    ),
    Setting::value(
        "KONTOR_UPLOADS_MAX_PER_USER",
        "2",
        "Uploaded exports one user may have read and checked at once on one server; more are refused with 429 uploads_busy.",
    ),
    Setting::value(
        "KONTOR_IMPORTS_PER_DAY",
        "20",
        "Games one user may import (POST /games/import) within 24 hours; more are refused with 429 import_limit_reached until the oldest of them is a day old.",
    ),
    Setting::described(
        "KONTOR_CORS_ORIGINS",
        "(none)",
        "Comma-separated web origins (https://app.example) whose pages may call the API from a browser (CORS). Unset: no CORS headers.",
    ),
    Setting::described(
        "KONTOR_WEB_DIR",
        "(none)",
        "Serve the web client from this folder (a `npm run build` output) instead of the copy built into the binary.",
    ),
    Setting::described(
        "KONTOR_SMTP_URL",
        "(none)",
        "SMTP server: smtp://user:pass@host:587?tls=required (STARTTLS), smtps://user:pass@host:465 (implicit TLS), or smtp://localhost:25 (no TLS: a relay on this machine). Unset: mails are written as .eml files in <data>/mail.",
    ),
    Setting::value(
        "KONTOR_SMTP_ALLOW_PLAINTEXT",
        "false",
        "Allow a KONTOR_SMTP_URL with a user and password but without TLS (they and the mail then cross in clear text); otherwise the server refuses to start with one.",
    ),
    Setting::described(
        "KONTOR_SMTP_CA_FILE",
        "(none)",
        "A PEM file of certificates to trust for the SMTP server's TLS besides the public roots (a relay with a private CA).",
    ),
    Setting::value(
        "KONTOR_MAIL_FROM",
        "Kontor <kontor@localhost>",
        "Sender of notification mails.",
    ),
    Setting::described(
        "KONTOR_VAPID_PRIVATE_KEY",
        "(generated)",
        "The server's VAPID key for Web Push (a PKCS#8 PEM, or the raw P-256 private key in base64url). Unset: generated once and kept in the data folder (vapid_private_key.pem).",
    ),
    Setting::described(
        "KONTOR_VAPID_SUBJECT",
        "mailto:<KONTOR_MAIL_FROM>",
        "The contact the push services see in the VAPID token (a mailto: or https: URL).",
    ),
    Setting::value(
        "KONTOR_OUTBOUND_ALLOW_INSECURE",
        "false",
        "Let webhooks and Web Push reach http:// URLs and loopback addresses (tests and development only; never in production: it opens the server to requests against itself).",
    ),
    Setting::value(
        "KONTOR_WORKERS",
        "true",
        "Run the mail, deadline and housekeeping workers in this process.",
    ),
    Setting::value(
        "KONTOR_LOGIN_MAX_FAILURES",
        "5",
        "Failed logins per account (by username and email address together) within the window before 429.",
    ),
    Setting::described(
        "KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS",
        "20",
        "Failed logins per client address within the window before 429; unset: 4 × KONTOR_LOGIN_MAX_FAILURES. Everyone behind one NAT or proxy shares it.",
    ),
    Setting::value(
        "KONTOR_LOGIN_WINDOW",
        "900",
        "Window for counting failed logins, in seconds.",
    ),
    Setting::value(
        "KONTOR_RESET_TOKEN_TTL",
        "3600",
        "How long a password reset link works, in seconds.",
    ),
    Setting::value(
        "KONTOR_VERIFY_TOKEN_TTL",
        "172800",
        "How long an address verification link works, in seconds.",
    ),
    Setting::value(
        "KONTOR_UNVERIFIED_MAY_PLAY",
        "true",
        "Whether an account whose email address is not verified yet may create, join and act in games (false: 403 email_not_verified; it may still sign in and read).",
    ),
    Setting::value(
        "KONTOR_REGISTRATIONS_PER_ADDRESS",
        "20",
        "Accounts registered from one client address per hour; more are refused with 429 too_many_registrations. Everyone behind one NAT or proxy shares it.",
    ),
    Setting::value(
        "KONTOR_OPEN_GAMES_PER_USER",
        "10",
        "Games one user created that wait for players at once; another is refused with 429 too_many_open_games.",
    ),
    Setting::value(
        "KONTOR_VERIFY_MAILS_PER_ADDRESS",
        "5",
        "Verification and change-of-address links mailed to one address per day, whichever accounts ask; more are refused with 429 too_many_mails_to_address.",
    ),
    Setting::value(
        "KONTOR_INVITATIONS_PER_DAY",
        "20",
        "Invitations one user makes per day; more are refused with 429 too_many_invitations.",
    ),
    Setting::value(
        "KONTOR_INVITATION_MAILS_PER_INVITEE",
        "5",
        "Invitation mails to one player per day; further invitations still count, unmailed.",
    ),
    Setting::value(
        "KONTOR_CHAT_BURST",
        "3",
        "Chat messages one user may send in one game at once (a token bucket's size); more are refused with 429 chat_rate_limited.",
    ),
    Setting::value(
        "KONTOR_CHAT_INTERVAL_SECS",
        "2",
        "Seconds after which the chat's token bucket allows one more message (0: no rate limit besides the daily cap).",
    ),
    Setting::value(
        "KONTOR_CHAT_DAILY_MAX",
        "300",
        "Chat messages one user may send in one game within 24 hours; more are refused with 429 chat_daily_limit.",
    ),
    Setting::value(
        "KONTOR_MAIL_MAX_ATTEMPTS",
        "8",
        "Attempts to deliver a mail before it is marked failed (then `kontor mail retry`).",
    ),
    Setting::value(
        "KONTOR_MAIL_RETRY_BASE",
        "60",
        "Seconds to wait after a mail's first failed attempt; doubled after each further one.",
    ),
    Setting::value(
        "KONTOR_MAIL_RETRY_MAX",
        "21600",
        "Longest wait between two attempts to deliver a mail, in seconds.",
    ),
    Setting::value(
        "KONTOR_MAIL_LEASE",
        "300",
        "Seconds a claimed mail belongs to one worker; after a crash others send it once this expires.",
    ),
    Setting::value(
        "KONTOR_MAIL_POLL",
        "5",
        "Seconds between looks for due mails when no notification arrives.",
    ),
    Setting::value(
        "KONTOR_MAIL_CONCURRENCY",
        "4",
        "Mails one worker sends at once, over as many pooled SMTP connections (1 to 64).",
    ),
    Setting::value(
        "KONTOR_DIGEST_HOUR",
        "7",
        "Hour of the day, in each recipient's own time zone (their profile's; UTC unless they chose one), from which their daily digest is sent.",
    ),
    Setting::value(
        "KONTOR_KEEP_SENT_MAIL_DAYS",
        "30",
        "Days sent (or skipped) notification mails are kept before housekeeping deletes them; 0 keeps them forever.",
    ),
    Setting::value(
        "KONTOR_HOUSEKEEPING_EVERY",
        "3600",
        "Seconds between the workers' housekeeping passes (old mail, stale live presence, expired refresh tokens, ended login-failure windows).",
    ),
    Setting::value(
        "KONTOR_RATINGS_POLL",
        "60",
        "Seconds between the rating worker's looks for finished games to judge when nothing wakes it (a game's end wakes it at once; this is the safety net).",
    ),
    Setting::value(
        "KONTOR_GAME_URL",
        "{base}/games/{id}",
        "Link to a game in mails (default: its page in the web client); {base} is KONTOR_BASE_URL, {id} the game id.",
    ),
    Setting::value(
        "RUST_LOG",
        "info,sqlx=warn",
        "Log filter (tracing-subscriber syntax).",
    ),
    Setting::value(
        "KONTOR_LOG_FORMAT",
        "text",
        "`text` (lines for people) or `json` (one JSON object per line, with each request's id, route, status and latency).",
    ),
    Setting::described(
        "KONTOR_TRUSTED_PROXIES",
        "(none)",
        "Comma-separated addresses and CIDR ranges (10.0.0.5, 10.1.0.0/16) of reverse proxies whose X-Forwarded-For names the client. Unset: the peer is the client.",
    ),
    Setting::described(
        "KONTOR_METRICS_BIND",
        "(none)",
        "A second address and port that serves only /metrics (Prometheus), without a token. Unset: not served there.",
    ),
    Setting::described(
        "KONTOR_METRICS_TOKEN",
        "(none)",
        "Serves /metrics on the main address to requests with Authorization: Bearer <token>. Unset: not served there.",
    ),
];

/// The per-address limit of failed logins, unless given: this many times the per-account one.
const ADDRESS_FAILURES_PER_ACCOUNT_FAILURE: u32 = 4;

/// The default of a setting whose default is a value, from [`SETTINGS`].
///
/// Panics for a name that is not in the table with a literal default: that is a mistake in
/// the code (a typo, a setting added without its row), and every such lookup runs when a
/// configuration is built with no settings at all, which the unit tests do.
pub fn default_of(name: &str) -> &'static str {
    match SETTINGS.iter().find(|s| s.name == name) {
        Some(setting) if setting.literal => setting.default,
        Some(_) => panic!("{name} has no literal default in config::SETTINGS"),
        None => panic!("{name} is not in config::SETTINGS"),
    }
}

/// Settings as given (`KEY -> value`), read with the defaults of [`SETTINGS`].
pub struct Values<'a> {
    map: &'a HashMap<String, String>,
}

impl<'a> Values<'a> {
    pub fn new(map: &'a HashMap<String, String>) -> Self {
        Self { map }
    }

    /// The value given for `key`, trimmed; `None` when absent or empty.
    pub fn given(&self, key: &str) -> Option<&'a str> {
        self.map
            .get(key)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }

    /// The value given for `key`, else its default.
    pub fn value(&self, key: &str) -> &'a str {
        self.given(key).unwrap_or_else(|| default_of(key))
    }

    /// A whole number.
    pub fn number<T: std::str::FromStr>(&self, key: &str) -> anyhow::Result<T>
    where
        T::Err: std::error::Error + Send + Sync + 'static,
    {
        let v = self.value(key);
        v.parse()
            .with_context(|| format!("{key} must be a whole number, not {v:?}"))
    }

    /// A whole number of seconds.
    pub fn seconds(&self, key: &str) -> anyhow::Result<Duration> {
        let v = self.value(key);
        v.parse::<u64>()
            .map(Duration::from_secs)
            .with_context(|| format!("{key} must be a whole number of seconds, not {v:?}"))
    }
}

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
            "verified" => crate::service::tournaments::Organisers::Verified,
            "admins" => crate::service::tournaments::Organisers::Admins,
            other => {
                bail!("KONTOR_TOURNAMENT_ORGANISERS must be verified or admins, not {other:?}")
            }
        };
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
            data_dir: PathBuf::from(values.value("KONTOR_DATA_DIR")),
            jwt_secret: values.given("KONTOR_JWT_SECRET").map(str::to_string),
            base_url: values
                .given("KONTOR_BASE_URL")
                .map(|u| u.trim_end_matches('/').to_string()),
            access_token_ttl: values.seconds("KONTOR_ACCESS_TOKEN_TTL")?,
            refresh_token_ttl: values.seconds("KONTOR_REFRESH_TOKEN_TTL")?,
            db_pool_size,
            db_acquire_timeout: Duration::from_millis(u64::from(db_acquire_timeout_ms)),
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
            limits: VolumeLimits::from_values(&values)?,
            min_seconds_per_move: i64::from(values.number::<u32>("KONTOR_MIN_SECONDS_PER_MOVE")?),
            deadline_poll: Duration::from_millis(u64::from(
                values.number::<u32>("KONTOR_DEADLINE_POLL_MS")?,
            )),
            vacation_days_per_year: i64::from(values.number::<u32>("KONTOR_VACATION_DAYS")?),
            rematch_deadline,
            undo_deadline,
            tournament_organisers,
            live_keep_alive: values.seconds("KONTOR_LIVE_KEEP_ALIVE")?,
            live_max_streams_per_user: live_max_streams_per_user as usize,
            live_max_streams_per_address: live_max_streams_per_address as usize,
            body_timeout,
            keep_sent_mail_days: values.number("KONTOR_KEEP_SENT_MAIL_DAYS")?,
            housekeeping_every,
            ratings_poll,
            cors_origins,
            web_dir: values.given("KONTOR_WEB_DIR").map(PathBuf::from),
            notify: crate::notify::NotifySettings::from_values(&values)?,
            push: crate::notify::push::PushSettings::from_values(&values),
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
mod tests {
    use super::*;

    #[test]
    fn defaults_use_the_embedded_database() {
        let config = Config::from_map(&HashMap::new()).unwrap();
        assert!(matches!(config.database, Database::Embedded));
        assert_eq!(config.bind.to_string(), "127.0.0.1:8080");
        assert_eq!(config.access_token_ttl, Duration::from_secs(900));
        assert_eq!(config.public_base_url(), "http://127.0.0.1:8080");
        assert_eq!(config.login_max_failures, 5);
        assert_eq!(config.login_max_failures_per_address, 20);
    }

    #[test]
    fn each_default_is_the_tables_and_giving_it_changes_nothing() {
        let absent = Config::from_map(&HashMap::new()).unwrap();
        let given: HashMap<String, String> = SETTINGS
            .iter()
            .filter(|s| s.literal)
            .map(|s| (s.name.to_string(), s.default.to_string()))
            .collect();
        assert!(given.len() > 25, "most defaults are values");
        let explicit = Config::from_map(&given).unwrap();
        assert_eq!(format!("{absent:?}"), format!("{explicit:?}"));
        // The table's words for the derived default say what the code derives.
        let per_address = SETTINGS
            .iter()
            .find(|s| s.name == "KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS")
            .unwrap();
        assert_eq!(
            per_address.default,
            absent.login_max_failures_per_address.to_string()
        );
        assert_eq!(absent.notify.max_attempts, 8);
        assert_eq!(absent.notify.retry_max, Duration::from_secs(21600));
        assert_eq!(absent.deadline_poll, Duration::from_millis(1000));
    }

    #[test]
    #[should_panic(expected = "KONTOR_NO_SUCH_SETTING is not in config::SETTINGS")]
    fn a_default_not_in_the_table_is_a_mistake_caught_at_once() {
        default_of("KONTOR_NO_SUCH_SETTING");
    }

    #[test]
    fn the_address_limit_follows_the_account_limit_unless_set() {
        let map = |pairs: &[(&str, &str)]| -> HashMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let config = Config::from_map(&map(&[("KONTOR_LOGIN_MAX_FAILURES", "10")])).unwrap();
        assert_eq!(config.login_max_failures_per_address, 40);
        let config = Config::from_map(&map(&[
            ("KONTOR_LOGIN_MAX_FAILURES", "10"),
            ("KONTOR_LOGIN_MAX_FAILURES_PER_ADDRESS", "3"),
        ]))
        .unwrap();
        assert_eq!(config.login_max_failures_per_address, 3);
    }

    #[test]
    fn a_session_url_is_for_a_database_given_by_url() {
        let map = |pairs: &[(&str, &str)]| -> HashMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            Config::from_map(&HashMap::new())
                .unwrap()
                .session_database_url,
            None
        );
        let direct = "postgres://kontor@db.example:5432/kontor";
        let config = Config::from_map(&map(&[
            (
                "KONTOR_DATABASE_URL",
                "postgres://kontor@db.example:6432/kontor",
            ),
            ("KONTOR_SESSION_DATABASE_URL", direct),
        ]))
        .unwrap();
        assert_eq!(config.session_database_url.as_deref(), Some(direct));
        let error = Config::from_map(&map(&[("KONTOR_SESSION_DATABASE_URL", direct)]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("KONTOR_DATABASE_URL"), "{error}");
    }

    #[test]
    fn bad_values_are_explained() {
        let mut map = HashMap::new();
        map.insert("KONTOR_ACCESS_TOKEN_TTL".to_string(), "soon".to_string());
        let error = Config::from_map(&map).unwrap_err().to_string();
        assert!(error.contains("KONTOR_ACCESS_TOKEN_TTL"), "{error}");
    }

    #[test]
    fn debug_output_shows_no_secret() {
        let map: HashMap<String, String> = [
            ("KONTOR_JWT_SECRET", "jwt-secret-jwt-secret-jwt-secret-0123"),
            (
                "KONTOR_SMTP_URL",
                "smtps://mailer:smtp-pass@mail.example:465",
            ),
            (
                "KONTOR_DATABASE_URL",
                "postgres://kontor:db-pass@db.example/kontor?password=db-pass2",
            ),
            (
                "KONTOR_SESSION_DATABASE_URL",
                "postgres://kontor:session-pass@db.example:5432/kontor",
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let config = Config::from_map(&map).unwrap();
        for text in [format!("{config:?}"), format!("{config:#?}")] {
            for secret in ["jwt-secret", "smtp-pass", "db-pass", "session-pass"] {
                assert!(!text.contains(secret), "{secret} in {text}");
            }
            assert!(
                text.contains("smtps://mailer:***@mail.example:465"),
                "{text}"
            );
            assert!(text.contains("db.example/kontor"), "{text}");
            assert!(text.contains("mail_from"), "{text}");
        }
    }

    #[test]
    fn stream_limits_and_body_timeouts_must_be_positive() {
        let config = Config::from_map(&HashMap::new()).unwrap();
        assert_eq!(config.live_max_streams_per_user, 8);
        assert_eq!(config.body_timeout, Duration::from_secs(10));
        for key in ["KONTOR_LIVE_MAX_STREAMS_PER_USER", "KONTOR_BODY_TIMEOUT"] {
            let map = HashMap::from([(key.to_string(), "0".to_string())]);
            let error = Config::from_map(&map).unwrap_err().to_string();
            assert!(error.contains(key), "{error}");
        }
    }

    #[test]
    fn trusted_proxies_are_addresses_and_ranges() {
        let none = Config::from_map(&HashMap::new()).unwrap();
        assert!(none.trusted_proxies.is_empty());
        assert_eq!(none.log_format, LogFormat::Text);
        assert!(!none.metrics_enabled());
        let map = HashMap::from([(
            "KONTOR_TRUSTED_PROXIES".to_string(),
            " 10.0.0.5, 10.1.2.3/16 ,fd00::/8,::1".to_string(),
        )]);
        let nets: Vec<String> = Config::from_map(&map)
            .unwrap()
            .trusted_proxies
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(nets, ["10.0.0.5/32", "10.1.0.0/16", "fd00::/8", "::1/128"]);
        for bad in ["10.0.0", "10.0.0.0/33", "proxy.example", "*"] {
            let map = HashMap::from([("KONTOR_TRUSTED_PROXIES".to_string(), bad.to_string())]);
            let error = Config::from_map(&map).unwrap_err().to_string();
            assert!(error.contains("KONTOR_TRUSTED_PROXIES"), "{bad}: {error}");
        }
        let map = HashMap::from([("KONTOR_LOG_FORMAT".to_string(), "xml".to_string())]);
        assert!(Config::from_map(&map).is_err());
        let map = HashMap::from([("KONTOR_METRICS_TOKEN".to_string(), "s3cret".to_string())]);
        let config = Config::from_map(&map).unwrap();
        assert!(config.metrics_enabled());
        assert!(!format!("{config:?}").contains("s3cret"));
    }

    #[test]
    fn cors_origins_are_exact_origins() {
        assert!(
            Config::from_map(&HashMap::new())
                .unwrap()
                .cors_origins
                .is_empty()
        );
        let map = HashMap::from([(
            "KONTOR_CORS_ORIGINS".to_string(),
            " https://App.Example , http://localhost:5173,http://[::1]:8080".to_string(),
        )]);
        assert_eq!(
            Config::from_map(&map).unwrap().cors_origins,
            [
                "https://app.example",
                "http://localhost:5173",
                "http://[::1]:8080"
            ]
        );
        for bad in [
            "*",
            "app.example",
            "https://app.example/",
            "https://app.example/path",
            "ftp://app.example",
            "https://app.example:99999",
            "https://app.example:",
            "https://user@app.example",
            "https://",
        ] {
            let map = HashMap::from([("KONTOR_CORS_ORIGINS".to_string(), bad.to_string())]);
            let error = Config::from_map(&map).unwrap_err().to_string();
            assert!(error.contains("KONTOR_CORS_ORIGINS"), "{bad}: {error}");
        }
    }

    #[test]
    fn env_files_allow_comments_quotes_and_export() {
        let pairs =
            parse_env_file("# comment\nexport KONTOR_BIND=\"0.0.0.0:80\"\nKONTOR_DATA_DIR='/x'\n")
                .unwrap();
        assert_eq!(
            pairs,
            vec![
                ("KONTOR_BIND".to_string(), "0.0.0.0:80".to_string()),
                ("KONTOR_DATA_DIR".to_string(), "/x".to_string())
            ]
        );
        assert!(parse_env_file("nonsense").is_err());
    }
}
