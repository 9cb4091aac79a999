//! Where mails go: an SMTP server (`KONTOR_SMTP_URL`), or, with none configured, `.eml`
//! files in `<data>/mail/` that a person trying Kontor locally can open.

use crate::config::Config;
use crate::config::mail::{SmtpTarget, read_certificates};
use anyhow::Context;
use lettre::transport::smtp::PoolConfig;
use lettre::transport::smtp::client::TlsParameters;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::path::{Path, PathBuf};
use std::time::Duration;

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
