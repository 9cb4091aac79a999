//! The mail settings (`KONTOR_MAIL_*`, `KONTOR_DIGEST_HOUR`, `KONTOR_GAME_URL`), read with the
//! rest of the configuration. `KONTOR_SMTP_URL` and `KONTOR_MAIL_FROM` live in [`Config`]
//! itself but are checked here, so a typo stops the server at start and not at the first mail.
//!
//! [`Config`]: crate::config::Config

use super::Values;
use anyhow::{Context, bail};
use lettre::message::Mailbox;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct NotifySettings {
    /// Attempts before a mail is marked `failed`.
    pub max_attempts: u32,
    /// The wait after the first failed attempt; it doubles with each further failure.
    pub retry_base: Duration,
    /// The longest wait between two attempts.
    pub retry_max: Duration,
    /// How long a claimed mail belongs to one worker. A worker that dies leaves its claimed
    /// mails to others once the lease has expired; one send is given at most half of it.
    pub lease: Duration,
    /// How often an idle worker looks for due mails (it is also woken by NOTIFY).
    pub poll_interval: Duration,
    /// Hour of the day (UTC) from which the daily digests are sent.
    pub digest_hour: u32,
    /// The link to a game in mails; `{base}` and `{id}` are replaced.
    pub game_url: String,
    /// Mails one worker sends at once (and SMTP connections it keeps open for them): the
    /// throughput is about this many mails per SMTP round trip.
    pub concurrency: usize,
    /// Whether `KONTOR_SMTP_URL`'s credentials may be sent without TLS
    /// (`KONTOR_SMTP_ALLOW_PLAINTEXT`); otherwise such a URL is refused.
    pub smtp_allow_plaintext: bool,
    /// Certificates to trust for the SMTP server's TLS besides the public roots.
    pub smtp_ca_file: Option<PathBuf>,
}

/// The defaults, from the settings table (`config::SETTINGS`).
impl Default for NotifySettings {
    fn default() -> Self {
        Self::from_map(&HashMap::new()).expect("the table's mail defaults are valid")
    }
}

impl NotifySettings {
    /// Reads the settings from `KEY -> value` pairs (absent or empty keys take their defaults).
    pub fn from_map(values: &HashMap<String, String>) -> anyhow::Result<Self> {
        Self::from_values(&Values::new(values))
    }

    /// Reads the settings (absent ones take the defaults of `config::SETTINGS`).
    pub fn from_values(values: &Values<'_>) -> anyhow::Result<Self> {
        let seconds = |key: &str| -> anyhow::Result<Duration> {
            let v = values.value(key);
            v.parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= 0.0 && *s <= 1e9)
                .map(Duration::from_secs_f64)
                .with_context(|| {
                    format!("{key} must be a number of seconds (fractions allowed), not {v:?}")
                })
        };
        let v = values.value("KONTOR_MAIL_MAX_ATTEMPTS");
        let max_attempts = v
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=100).contains(n))
            .with_context(|| {
                format!("KONTOR_MAIL_MAX_ATTEMPTS must be a whole number from 1 to 100, not {v:?}")
            })?;
        let v = values.value("KONTOR_DIGEST_HOUR");
        let digest_hour = v.parse::<u32>().ok().filter(|h| *h < 24).with_context(|| {
            format!("KONTOR_DIGEST_HOUR must be an hour from 0 to 23, not {v:?}")
        })?;
        let v = values.value("KONTOR_MAIL_CONCURRENCY");
        let concurrency = v
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=64).contains(n))
            .with_context(|| {
                format!("KONTOR_MAIL_CONCURRENCY must be a whole number from 1 to 64, not {v:?}")
            })?;
        let lease = seconds("KONTOR_MAIL_LEASE")?;
        if lease < Duration::from_millis(200) {
            bail!("KONTOR_MAIL_LEASE must be at least 0.2 seconds");
        }
        let poll_interval = seconds("KONTOR_MAIL_POLL")?;
        if poll_interval < Duration::from_millis(10) {
            bail!("KONTOR_MAIL_POLL must be at least 0.01 seconds");
        }
        let game_url = values.value("KONTOR_GAME_URL").to_string();
        if !game_url.contains("{id}") {
            bail!(
                "KONTOR_GAME_URL must contain {{id}}, e.g. https://play.example.org/games/{{id}}"
            );
        }
        let from = values.value("KONTOR_MAIL_FROM");
        from.parse::<Mailbox>()
            .with_context(|| format!("KONTOR_MAIL_FROM is not a mail address: {from:?}"))?;
        let smtp_allow_plaintext = match values.value("KONTOR_SMTP_ALLOW_PLAINTEXT") {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            other => bail!("KONTOR_SMTP_ALLOW_PLAINTEXT must be true or false, not {other:?}"),
        };
        if let Some(url) = values.given("KONTOR_SMTP_URL") {
            lettre::AsyncSmtpTransport::<lettre::Tokio1Executor>::from_url(url).with_context(
                || "KONTOR_SMTP_URL must look like smtp://user:pass@host:587?tls=required, smtps://user:pass@host:465 or smtp://host:25",
            )?;
            SmtpTarget::parse(url)?.check(smtp_allow_plaintext)?;
        }
        let smtp_ca_file = values.given("KONTOR_SMTP_CA_FILE").map(PathBuf::from);
        if let Some(path) = &smtp_ca_file {
            read_certificates(path)?;
        }
        Ok(Self {
            max_attempts,
            retry_base: seconds("KONTOR_MAIL_RETRY_BASE")?,
            retry_max: seconds("KONTOR_MAIL_RETRY_MAX")?,
            lease,
            poll_interval,
            digest_hour,
            game_url,
            concurrency,
            smtp_allow_plaintext,
            smtp_ca_file,
        })
    }

    /// The wait before the next attempt after `attempts` failed ones (1, 2, …):
    /// `retry_base · 2^(attempts-1)`, at most `retry_max`.
    pub fn backoff(&self, attempts: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempts.saturating_sub(1).min(30));
        self.retry_base
            .checked_mul(factor)
            .unwrap_or(self.retry_max)
            .min(self.retry_max)
    }

    /// The longest one send may take before it counts as failed: half the lease, so that no
    /// other worker takes the mail over while it is still being sent.
    pub fn send_timeout(&self) -> Duration {
        self.lease / 2
    }

    /// The link to a game.
    pub fn game_link(&self, base: &str, game_id: uuid::Uuid) -> String {
        self.game_url
            .replace("{base}", base)
            .replace("{id}", &game_id.to_string())
    }
}

/// How the connection to the SMTP server is protected, as `KONTOR_SMTP_URL` says (lettre's
/// reading of it: the scheme and the `tls` parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmtpSecurity {
    /// `smtp://host` without `tls`: no TLS at all.
    None,
    /// `smtp://host?tls=opportunistic`: STARTTLS if the server offers it, else plain text (so
    /// anyone between can strip the offer).
    Opportunistic,
    /// `smtp://host?tls=required`: STARTTLS, or nothing is sent.
    StartTls,
    /// `smtps://host`: TLS from the first byte.
    Implicit,
}

impl SmtpSecurity {
    /// Whether nothing (no password, no mail) can cross in clear text.
    pub fn always_encrypted(self) -> bool {
        matches!(self, SmtpSecurity::StartTls | SmtpSecurity::Implicit)
    }

    pub fn tls(self, parameters: TlsParameters) -> Tls {
        match self {
            SmtpSecurity::None => Tls::None,
            SmtpSecurity::Opportunistic => Tls::Opportunistic(parameters),
            SmtpSecurity::StartTls => Tls::Required(parameters),
            SmtpSecurity::Implicit => Tls::Wrapper(parameters),
        }
    }
}

/// What `KONTOR_SMTP_URL` asks for, as far as its safety goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmtpTarget {
    pub host: String,
    pub security: SmtpSecurity,
    /// Whether it carries a user name or password (lettre then logs in with `AUTH`).
    pub credentials: bool,
}

impl SmtpTarget {
    pub fn parse(url: &str) -> anyhow::Result<Self> {
        let parsed = url::Url::parse(url).context("KONTOR_SMTP_URL is not a URL")?;
        let tls = parsed
            .query_pairs()
            .find(|(key, _)| key == "tls")
            .map(|(_, value)| value.into_owned());
        let security = match (parsed.scheme(), tls.as_deref()) {
            ("smtps", _) => SmtpSecurity::Implicit,
            ("smtp", None) => SmtpSecurity::None,
            ("smtp", Some("required")) => SmtpSecurity::StartTls,
            ("smtp", Some("opportunistic")) => SmtpSecurity::Opportunistic,
            (scheme, tls) => bail!(
                "KONTOR_SMTP_URL: unknown scheme {scheme:?} or tls={tls:?} (smtp://, smtp://…?tls=required or smtps://)"
            ),
        };
        Ok(Self {
            host: parsed.host_str().unwrap_or_default().to_string(),
            security,
            credentials: !parsed.username().is_empty() || parsed.password().is_some(),
        })
    }

    /// Refuses credentials that could cross in clear text unless `allow_plaintext`: lettre
    /// sends `AUTH` (and then the mail) over whatever connection the URL asks for, and a
    /// plain `smtp://user:pass@host:587` asks for none, even from a server offering STARTTLS.
    pub fn check(&self, allow_plaintext: bool) -> anyhow::Result<()> {
        if self.credentials && !self.security.always_encrypted() && !allow_plaintext {
            bail!(
                "KONTOR_SMTP_URL has a user and password but does not require TLS, so they (and \
                 every mail, reset links included) would cross in clear text. Use \
                 smtp://user:pass@{host}:587?tls=required (STARTTLS) or \
                 smtps://user:pass@{host}:465 (implicit TLS); only for a relay on this machine or \
                 a network you trust, set KONTOR_SMTP_ALLOW_PLAINTEXT=true",
                host = self.host
            );
        }
        Ok(())
    }
}

/// The certificates of a PEM file (`KONTOR_SMTP_CA_FILE`), as lettre takes them.
pub fn read_certificates(path: &Path) -> anyhow::Result<Certificate> {
    let pem = std::fs::read(path)
        .with_context(|| format!("KONTOR_SMTP_CA_FILE: reading {}", path.display()))?;
    if !String::from_utf8_lossy(&pem).contains("-----BEGIN CERTIFICATE-----") {
        bail!(
            "KONTOR_SMTP_CA_FILE: {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
            path.display()
        );
    }
    Certificate::from_pem(&pem).with_context(|| {
        format!(
            "KONTOR_SMTP_CA_FILE: {} is not readable PEM",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn mail_concurrency_is_bounded() {
        assert_eq!(NotifySettings::from_map(&map(&[])).unwrap().concurrency, 4);
        let eight = NotifySettings::from_map(&map(&[("KONTOR_MAIL_CONCURRENCY", "8")])).unwrap();
        assert_eq!(eight.concurrency, 8);
        for bad in ["0", "65", "-1", "many"] {
            let error = NotifySettings::from_map(&map(&[("KONTOR_MAIL_CONCURRENCY", bad)]))
                .unwrap_err()
                .to_string();
            assert!(error.contains("KONTOR_MAIL_CONCURRENCY"), "{error}");
        }
    }

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let settings = NotifySettings {
            retry_base: Duration::from_secs(60),
            retry_max: Duration::from_secs(600),
            ..Default::default()
        };
        let waits: Vec<u64> = (1..=6).map(|n| settings.backoff(n).as_secs()).collect();
        assert_eq!(waits, [60, 120, 240, 480, 600, 600]);
        assert_eq!(settings.backoff(1000).as_secs(), 600);
    }

    #[test]
    fn settings_are_checked() {
        let parsed = NotifySettings::from_map(&map(&[
            ("KONTOR_MAIL_RETRY_BASE", "0.25"),
            ("KONTOR_MAIL_MAX_ATTEMPTS", "3"),
        ]))
        .unwrap();
        assert_eq!(parsed.retry_base, Duration::from_millis(250));
        assert_eq!(parsed.max_attempts, 3);
        for (key, value) in [
            ("KONTOR_MAIL_MAX_ATTEMPTS", "0"),
            ("KONTOR_MAIL_RETRY_BASE", "soon"),
            ("KONTOR_MAIL_RETRY_BASE", "-1"),
            ("KONTOR_DIGEST_HOUR", "24"),
            ("KONTOR_MAIL_FROM", "not an address"),
            ("KONTOR_SMTP_URL", "http://example.org"),
            ("KONTOR_GAME_URL", "https://example.org/games"),
        ] {
            let error = NotifySettings::from_map(&map(&[(key, value)]))
                .unwrap_err()
                .to_string();
            assert!(error.contains(key), "{key}={value}: {error}");
        }
    }

    #[test]
    fn game_links_fill_in_base_and_id() {
        let settings = NotifySettings::default();
        let id = uuid::Uuid::nil();
        assert_eq!(
            settings.game_link("https://k.example", id),
            format!("https://k.example/games/{id}")
        );
    }
}
