//! Every setting with its default and meaning, and reading the values given for them.

use anyhow::Context;
use std::collections::HashMap;
use std::time::Duration;

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
        "PostgreSQL URL, or several separated by commas (a primary and its standbys: Kontor connects only to the one that takes writes and follows it when a standby is promoted). Unset: a private cluster in the data folder, created and started by Kontor.",
    ),
    Setting::described(
        "KONTOR_SESSION_DATABASE_URL",
        "(KONTOR_DATABASE_URL)",
        "PostgreSQL URL for what needs a session of its own (LISTEN, the migrations' lock): set it to the database itself when KONTOR_DATABASE_URL goes through PgBouncer in transaction mode.",
    ),
    Setting::described(
        "KONTOR_REPLICA_URLS",
        "(none)",
        "PostgreSQL URLs of read replicas (streaming standbys), separated by commas, for the reads that may be a little late: game exports and verifications, a game at a past version (?at=), public profiles and rating histories, leaderboards, tournament lists, finished games lists. A reader's own writes are always read back (see docs/operations.md); a replica stopped, unreachable or lagging sends its reads to the primary. Unset: every read on the primary.",
    ),
    Setting::value(
        "KONTOR_REPLICA_MAX_LAG_MS",
        "5000",
        "The most a read replica may lag behind the primary, in milliseconds, for reads to go to it; beyond it they go to the primary.",
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
        "How long a request waits for a database connection, in milliseconds: the bound on a request's time in the pool's queue. Beyond it the request is answered 503 overloaded when every connection is busy, 503 database_unavailable when the database cannot be reached (both with Retry-After).",
    ),
    Setting::value(
        "KONTOR_DB_RECOVERY_LIMIT_SECS",
        "60",
        "With the embedded database: how long the server keeps starting a cluster whose postmaster died before it gives up and /healthz answers 503 database_lost (for a supervisor to restart the server), in seconds.",
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
        "KONTOR_TOURNAMENTS_PER_ORGANISER",
        "5",
        "Tournaments one organiser may have open for entry or running at once; another is refused with 429 too_many_tournaments.",
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
        "KONTOR_DELIVERY_CONCURRENCY",
        "16",
        "Requests to user-given addresses the webhooks worker, and the Web Push worker, each keep in flight (1 to 256); a finished one is replaced at once.",
    ),
    Setting::value(
        "KONTOR_DELIVERY_PER_OWNER",
        "2",
        "Of those, the most one account's deliveries may hold: one account's slow endpoints never hold anyone else's.",
    ),
    Setting::value(
        "KONTOR_DELIVERY_PER_HOST",
        "8",
        "Of those, the most that go to one host name.",
    ),
    Setting::value(
        "KONTOR_TEST_SENDS_PER_HOUR",
        "10",
        "Test sends (webhook test events and push test notifications together) one account may ask for per hour; more are refused with 429 too_many_test_sends.",
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
        "KONTOR_UNVERIFIED_MAY_PLAY_RATED",
        "false",
        "Whether an account whose email address is not verified may create or join rated games and tournaments (false: 403 email_not_verified), so that a rating cannot be raised with throwaway accounts.",
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
        "KONTOR_IDEMPOTENCY_WINDOW",
        "86400",
        "Seconds the answer to a game action is kept for a retry with the same Idempotency-Key (24 hours by default); after that housekeeping trims it, keeping the key, and a late retry gets 409 idempotency_key_expired instead of the answer. At least 1.",
    ),
    Setting::value(
        "KONTOR_HOUSEKEEPING_EVERY",
        "3600",
        "Seconds between the workers' housekeeping passes (old mail, stale live presence, expired refresh tokens, ended login-failure windows, answers of actions past KONTOR_IDEMPOTENCY_WINDOW).",
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
