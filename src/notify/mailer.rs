//! Where mails go: an SMTP server (`KONTOR_SMTP_URL`), or, with none configured, `.eml`
//! files in `<data>/mail/` that a person trying Kontor locally can open.

use crate::config::Config;
use anyhow::{Context, bail};
use lettre::transport::smtp::PoolConfig;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::path::{Path, PathBuf};
use std::time::Duration;

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

    fn tls(self, parameters: TlsParameters) -> Tls {
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

/// How a send failed.
#[derive(Debug)]
pub struct SendError {
    /// A permanent refusal (an SMTP 5xx): retrying will not help.
    pub permanent: bool,
    pub message: String,
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Sends finished messages.
#[derive(Clone)]
pub enum Mailer {
    Smtp {
        transport: AsyncSmtpTransport<Tokio1Executor>,
        /// The server, without credentials, for the log.
        server: String,
    },
    /// Writes each mail as `<id>-<kind>.eml` into this folder.
    Folder(PathBuf),
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mailer::Smtp { server, .. } => write!(f, "Mailer::Smtp({server})"),
            Mailer::Folder(dir) => write!(f, "Mailer::Folder({})", dir.display()),
        }
    }
}

impl Mailer {
    /// The mailer of a configuration. `timeout` bounds each SMTP command. SMTP connections
    /// are pooled and reused, as many as mails are sent at once (`KONTOR_MAIL_CONCURRENCY`):
    /// a connection and its TLS handshake cost several round trips per mail otherwise.
    pub fn from_config(config: &Config, timeout: Duration) -> anyhow::Result<Self> {
        match &config.smtp_url {
            Some(url) => {
                let target = SmtpTarget::parse(url)?;
                // Checked with the settings already; again here, where the transport is made.
                target.check(config.notify.smtp_allow_plaintext)?;
                let mut builder = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    .context("KONTOR_SMTP_URL is not a usable SMTP URL")?;
                // A private CA: the same TLS as the URL asks for, trusting its certificates
                // besides the public roots.
                if let Some(path) = &config.notify.smtp_ca_file {
                    let parameters = TlsParameters::builder(target.host.clone())
                        .add_root_certificate(read_certificates(path)?)
                        .build_rustls()
                        .context("KONTOR_SMTP_CA_FILE: setting up TLS")?;
                    builder = builder.tls(target.security.tls(parameters));
                }
                let transport = builder
                    .timeout(Some(timeout))
                    .pool_config(
                        PoolConfig::new().max_size(config.notify.concurrency.max(1) as u32),
                    )
                    .build();
                let server = url
                    .rsplit_once('@')
                    .map(|(scheme_and_user, host)| {
                        let scheme = scheme_and_user.split("://").next().unwrap_or("smtp");
                        format!("{scheme}://{host}")
                    })
                    .unwrap_or_else(|| url.clone());
                Ok(Mailer::Smtp { transport, server })
            }
            None => Ok(Mailer::Folder(config.data_dir.join("mail"))),
        }
    }

    /// Sends one message; `name` names its file in the folder mode (the same name for the
    /// same outbox row, so a resend overwrites instead of duplicating).
    pub async fn send(&self, message: &Message, name: &str) -> Result<(), SendError> {
        match self {
            Mailer::Smtp { transport, .. } => match transport.send(message.clone()).await {
                Ok(_) => Ok(()),
                Err(e) => Err(SendError {
                    permanent: e.is_permanent(),
                    message: format!("SMTP: {}", error_chain(&e)),
                }),
            },
            Mailer::Folder(dir) => {
                let path = dir.join(format!("{name}.eml"));
                write_file(dir, &path, &message.formatted())
                    .await
                    .map_err(|e| SendError {
                        permanent: false,
                        message: format!("writing {}: {e}", path.display()),
                    })?;
                let headers = message.headers();
                tracing::info!(
                    path = %path.display(),
                    to = headers.get_raw("To").unwrap_or(""),
                    subject = headers.get_raw("Subject").unwrap_or(""),
                    "mail written as a file (no SMTP server is configured)"
                );
                Ok(())
            }
        }
    }
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Writes through a temporary file and a rename, so a reader never sees half a mail.
async fn write_file(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    tokio::fs::create_dir_all(dir).await?;
    let temporary = path.with_extension("eml.tmp");
    tokio::fs::write(&temporary, bytes).await?;
    tokio::fs::rename(&temporary, path).await
}
