//! The delivery worker.
//!
//! 1. **Claim** a batch of due mails in one short transaction (`FOR UPDATE SKIP LOCKED`):
//!    status `sending`, a fresh claim id, a lease, one more attempt. Mails whose lease has
//!    expired (their worker died) are due again.
//! 2. For each claimed mail (up to `KONTOR_MAIL_CONCURRENCY` at once, over pooled SMTP
//!    connections): **renew the lease** under the same claim id (a mail another
//!    worker has taken over meanwhile is left alone), check the preference, live presence
//!    and whether the turn it announces is still the current one (the player must act, and
//!    no turn of theirs has begun since), **hand it over** (recorded, with the lease renewed
//!    again), **send** it (bounded by half the lease), and **mark** it `sent` at once. A
//!    failure goes back to `pending` with exponential backoff, or to `failed` after the last
//!    attempt or on a permanent refusal.
//!
//! So a mail marked `sent` is never sent again, and a mail whose sending started but was not
//! marked (the worker died in between) is sent again once its lease expires, if it is still
//! worth sending: at least once. Mails carry `Message-ID: <outbox id@domain>`, the same on
//! every attempt, so a receiver can recognise such a repeat. One that is no longer worth
//! sending (the turn it announced has passed meanwhile) is not sent again; if the dead
//! worker had handed it over, it is recorded as sent then (it may well have arrived), else
//! as skipped (it never left).

use super::mailer::{Mailer, SendError};
use super::unsubscribe::{self, UnsubscribeScope};
use crate::auth;
use crate::config::Config;
use crate::config::mail::NotifySettings;
use crate::service::delivery::render::account::{self, AccountContext};
use crate::service::delivery::render::{self, GameInfo, Links, NoticeContext, Player};
use crate::service::notices::digest::DigestData;
use crate::service::notices::preferences::Delivery;
use crate::service::notices::{CHANNEL, MailKind, NoticeKind, preferences};
use crate::store::games;
use crate::store::outbox;
use crate::time::Clock;
use crate::words::language::Language;
use anyhow::Context;
use chrono::{DateTime, Utc};
use futures_util::stream::{self, StreamExt};
use lettre::Message;
use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use sqlx::PgPool;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Mails claimed at once by one worker.
pub const BATCH: usize = 20;

/// What one [`Notifier::deliver_due`] run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeliveryReport {
    /// Mails claimed.
    pub claimed: usize,
    pub sent: usize,
    /// Not mailed on purpose: preference off, player watching, turn over, no address, a
    /// mentioning chat message hidden or no longer readable by its recipient.
    pub skipped: usize,
    /// Moved to the digest because the preference became `digest` after they were queued.
    pub held: usize,
    /// Failed this time; will be tried again.
    pub retrying: usize,
    /// Failed for good.
    pub failed: usize,
    /// Taken over by another worker after our lease expired; left alone.
    pub lost: usize,
    /// Handed to the mail server by an earlier attempt whose worker died before hearing
    /// back, and no longer worth sending: recorded as sent at that hand-over.
    pub sent_before: usize,
}

/// Delivers the outbox: the state a worker needs, cheap to share.
pub struct Notifier {
    pool: PgPool,
    /// Where the worker listens for new mail: a session of its own (`LISTEN`), which may be
    /// another pool than `pool` (see `KONTOR_SESSION_DATABASE_URL`).
    session: PgPool,
    mailer: Mailer,
    settings: NotifySettings,
    from: Mailbox,
    base_url: String,
    unsubscribe_key: [u8; 32],
    /// Names this worker in `claimed_by`.
    worker: String,
    /// The instance's clock: when a mail is due, its lease and its retry (see [`crate::time`]).
    clock: Clock,
}

/// A claimed mail.
type Claimed = outbox::ClaimedMail;

/// What became of one claimed mail.
#[derive(Debug)]
enum Outcome {
    Sent,
    Skipped(&'static str),
    Held,
    Failed(SendError),
    Lost,
}

impl Notifier {
    /// A notifier for this configuration: its mailer, sender, links and the unsubscribe key
    /// (derived from the JWT secret, as the HTTP server derives it).
    pub fn new(pool: PgPool, config: &Config) -> anyhow::Result<Self> {
        let settings = config.notify.clone();
        let smtp_timeout = settings.send_timeout().min(Duration::from_secs(30));
        let mailer = Mailer::from_config(config, smtp_timeout)?;
        let secret = auth::load_or_create_secret(config.jwt_secret.as_deref(), &config.data_dir)?;
        let from: Mailbox = config
            .mail_from
            .parse()
            .with_context(|| format!("KONTOR_MAIL_FROM is not an address: {}", config.mail_from))?;
        Ok(Self {
            session: pool.clone(),
            pool,
            mailer,
            settings,
            from,
            base_url: config.public_base_url(),
            unsubscribe_key: auth::derive_key(&secret, unsubscribe::PURPOSE),
            worker: format!(
                "pid {} {}",
                std::process::id(),
                &Uuid::new_v4().simple().to_string()[..8]
            ),
            clock: config.clock.clone(),
        })
    }

    /// Listens for new mail over `session` instead of the main pool.
    pub fn listening_on(self, session: PgPool) -> Self {
        Self { session, ..self }
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    pub fn settings(&self) -> &NotifySettings {
        &self.settings
    }

    pub fn mailer(&self) -> &Mailer {
        &self.mailer
    }

    /// The one-click unsubscribe link for `user` and `scope`.
    pub fn unsubscribe_url(&self, user: Uuid, scope: UnsubscribeScope) -> String {
        format!(
            "{}/api/v1/unsubscribe?token={}",
            self.base_url,
            unsubscribe::sign(&self.unsubscribe_key, user, scope)
        )
    }

    pub fn game_link(&self, game_id: Uuid) -> String {
        self.settings.game_link(&self.base_url, game_id)
    }

    /// Claims up to `limit` due mails and delivers them. Safe to run in many workers and
    /// instances at once.
    pub async fn deliver_due(&self, limit: usize) -> anyhow::Result<DeliveryReport> {
        let claim = Uuid::new_v4();
        let claimed = outbox::claim_due(
            &self.pool,
            limit as i64,
            claim,
            &self.worker,
            self.settings.lease.as_secs_f64(),
            self.clock.now(),
        )
        .await
        .context("claiming due mails")?;
        let mut report = DeliveryReport {
            claimed: claimed.len(),
            ..Default::default()
        };
        // Up to `concurrency` at once: a send waits mostly on the SMTP server's answers, so
        // one at a time would cap a worker at one mail per round trip. Each mail is still
        // renewed, sent and marked on its own claim, so the at-least-once guarantee holds
        // whatever order they finish in; an error ends the run once every mail under way has
        // been recorded (those not reached are sent again when their lease expires).
        let recorded: Vec<anyhow::Result<Recorded>> = stream::iter(claimed)
            .map(|mail| async move {
                let outcome = self.deliver_one(claim, &mail).await?;
                self.record(claim, &mail, outcome).await
            })
            .buffer_unordered(self.settings.concurrency.max(1))
            .collect()
            .await;
        for recorded in recorded {
            match recorded? {
                Recorded::Sent => report.sent += 1,
                Recorded::Skipped => report.skipped += 1,
                Recorded::Held => report.held += 1,
                Recorded::Retrying => report.retrying += 1,
                Recorded::Failed => report.failed += 1,
                Recorded::Lost => report.lost += 1,
                Recorded::SentBefore => report.sent_before += 1,
            }
        }
        Ok(report)
    }

    /// Renews the lease, decides whether to send, and sends.
    async fn deliver_one(&self, claim: Uuid, mail: &Claimed) -> anyhow::Result<Outcome> {
        let lease = self.settings.lease.as_secs_f64();
        if !outbox::renew_lease(&self.pool, mail.id, claim, lease, self.clock.now()).await? {
            return Ok(Outcome::Lost);
        }
        let recipient = outbox::recipient(&self.pool, mail.user_id, mail.game_id).await?;
        let Some(recipient) = recipient else {
            return Ok(Outcome::Skipped("no_address"));
        };
        let kind = MailKind::parse(&mail.kind);
        // An account mail may go to another address than the account's (the verification
        // link of a new address); every other mail goes to the account's own.
        let to = match kind {
            Some(MailKind::Account(_)) => {
                account::recipient_override(&mail.data).unwrap_or(&recipient.email)
            }
            _ => &recipient.email,
        };
        let address = match to.trim().parse::<lettre::Address>() {
            Ok(address) => address,
            Err(_) if to.trim().is_empty() => {
                return Ok(Outcome::Skipped("no_address"));
            }
            Err(e) => {
                return Ok(Outcome::Failed(SendError {
                    permanent: true,
                    message: format!("the address {to:?} is not usable: {e}"),
                }));
            }
        };
        // Until its owner has shown that an address is theirs, it gets only the account's own
        // mail, never game notices: Kontor must not be a way to mail strangers.
        if !matches!(kind, Some(MailKind::Account(_))) && !recipient.email_verified {
            return Ok(Outcome::Skipped("unverified"));
        }
        if let Some(MailKind::Account(kind)) = kind {
            let rendered = account::render(
                kind,
                Language::parse(&recipient.language).unwrap_or_default(),
                &AccountContext {
                    recipient_name: &recipient.username,
                    data: &mail.data,
                    base_url: &self.base_url,
                    zone: crate::service::delivery::render::zone(&recipient.time_zone),
                },
            );
            let rendered = match rendered {
                Ok(rendered) => rendered,
                Err(message) => {
                    return Ok(Outcome::Failed(SendError {
                        permanent: true,
                        message,
                    }));
                }
            };
            return self
                .send(claim, mail, &recipient.username, address, rendered, None)
                .await;
        }
        let now = self.clock.now();
        let links = Links {
            unsubscribe: self.unsubscribe_url(
                mail.user_id,
                match MailKind::parse(&mail.kind) {
                    Some(MailKind::Notice(kind)) => UnsubscribeScope::Kind(kind),
                    _ => UnsubscribeScope::Digest,
                },
            ),
            unsubscribe_all: self.unsubscribe_url(mail.user_id, UnsubscribeScope::All),
            preferences: format!("{}/settings", self.base_url),
        };
        let rendered = match kind {
            Some(MailKind::Notice(kind)) => {
                match preferences::Choices::from_stored(recipient.stored(), recipient.always_email)
                    .mail
                    .of(kind)
                {
                    Delivery::Off => return Ok(Outcome::Skipped("off")),
                    Delivery::Digest => return Ok(Outcome::Held),
                    Delivery::Immediately => {}
                }
                if kind == NoticeKind::YourTurn && recipient.watching && !recipient.always_email {
                    return Ok(Outcome::Skipped("watching"));
                }
                let game = match mail.game_id {
                    Some(id) => load_games(&self.pool, &[id]).await?.pop(),
                    None => None,
                };
                // Still worth sending (the same checks as Web Push): the turn it announces is
                // the current one, a mention's message is still there to read, an undo request
                // still waits for the recipient's answer.
                let mut data = std::borrow::Cow::Borrowed(&mail.data);
                let notice = crate::service::delivery::relevance::NoticeRef {
                    outbox_id: mail.id,
                    user_id: mail.user_id,
                    kind,
                    game_id: mail.game_id,
                    data: &mail.data,
                    game: game.as_ref(),
                };
                match crate::service::delivery::relevance::check(&self.pool, &notice).await? {
                    Ok(Some(author)) => data.to_mut()["author"] = author.into(),
                    Ok(None) => {}
                    Err(reason) => return Ok(Outcome::Skipped(reason)),
                }
                // A tournament's notice links its page.
                if let Some(tournament) = mail.data.get("tournament_id").and_then(|v| v.as_str()) {
                    data.to_mut()["tournament_link"] =
                        format!("{}/tournaments/{tournament}", self.base_url).into();
                }
                render::notice(&NoticeContext {
                    recipient_id: mail.user_id,
                    recipient_name: &recipient.username,
                    kind,
                    data: &data,
                    game_id: mail.game_id,
                    game: game.as_ref(),
                    game_link: mail.game_id.map(|id| self.game_link(id)),
                    links: &links,
                    now,
                    language: Language::parse(&recipient.language).unwrap_or_default(),
                    zone: render::zone(&recipient.time_zone),
                })
            }
            Some(MailKind::Digest) => match serde_json::from_value::<DigestData>(mail.data.clone())
            {
                Ok(data) => render::digest(
                    &recipient.username,
                    &data,
                    &|id| self.game_link(id),
                    &links,
                    render::Locale {
                        language: Language::parse(&recipient.language).unwrap_or_default(),
                        zone: render::zone(&recipient.time_zone),
                    },
                ),
                Err(e) => {
                    return Ok(Outcome::Failed(SendError {
                        permanent: true,
                        message: format!("unreadable digest data: {e}"),
                    }));
                }
            },
            Some(MailKind::Account(_)) => unreachable!("account mails were sent above"),
            None => {
                return Ok(Outcome::Failed(SendError {
                    permanent: true,
                    message: format!("unknown mail kind {:?}", mail.kind),
                }));
            }
        };
        self.send(
            claim,
            mail,
            &recipient.username,
            address,
            rendered,
            Some(&links),
        )
        .await
    }

    /// Builds the message, records its hand-over and sends it, within half the lease.
    async fn send(
        &self,
        claim: Uuid,
        mail: &Claimed,
        username: &str,
        address: lettre::Address,
        rendered: render::Rendered,
        links: Option<&Links>,
    ) -> anyhow::Result<Outcome> {
        let message = match self.message(mail, username, address, rendered, links) {
            Ok(message) => message,
            Err(e) => {
                return Ok(Outcome::Failed(SendError {
                    permanent: true,
                    message: format!("building the message: {e}"),
                }));
            }
        };
        let lease = self.settings.lease.as_secs_f64();
        if !outbox::hand_over(&self.pool, mail.id, claim, lease, self.clock.now()).await? {
            return Ok(Outcome::Lost);
        }
        let name = format!("{}-{}", mail.id, mail.kind);
        let sent = tokio::time::timeout(
            self.settings.send_timeout(),
            self.mailer.send(&message, &name),
        )
        .await;
        Ok(match sent {
            Ok(Ok(())) => Outcome::Sent,
            Ok(Err(e)) => Outcome::Failed(e),
            Err(_) => Outcome::Failed(SendError {
                permanent: false,
                message: format!(
                    "sending took longer than {:?} (half the lease)",
                    self.settings.send_timeout()
                ),
            }),
        })
    }

    fn message(
        &self,
        mail: &Claimed,
        username: &str,
        address: lettre::Address,
        rendered: render::Rendered,
        links: Option<&Links>,
    ) -> anyhow::Result<Message> {
        let domain = self.from.email.domain().to_string();
        let mut message = Message::builder()
            .from(self.from.clone())
            .to(Mailbox::new(Some(username.to_string()), address))
            .subject(rendered.subject)
            .message_id(Some(format!("<{}@{domain}>", mail.id)))
            .multipart(MultiPart::alternative_plain_html(
                rendered.text,
                rendered.html,
            ))?;
        let headers = message.headers_mut();
        let mut raw = |name: &'static str, value: String| {
            headers.insert_raw(HeaderValue::new(
                HeaderName::new_from_ascii_str(name),
                value,
            ));
        };
        // RFC 2369 and RFC 8058: mail clients show an unsubscribe button that POSTs here.
        // Account mails have none: they are transactional, not a subscription.
        if let Some(links) = links {
            raw("List-Unsubscribe", format!("<{}>", links.unsubscribe));
            raw(
                "List-Unsubscribe-Post",
                "List-Unsubscribe=One-Click".to_string(),
            );
        }
        // RFC 3834: a machine wrote this; no vacation replies, please.
        raw("Auto-Submitted", "auto-generated".to_string());
        raw("X-Kontor-Notice", mail.kind.clone());
        Ok(message)
    }

    /// Stores what became of a mail.
    async fn record(
        &self,
        claim: Uuid,
        mail: &Claimed,
        outcome: Outcome,
    ) -> anyhow::Result<Recorded> {
        let done = match outcome {
            Outcome::Lost => return Ok(Recorded::Lost),
            // Not to be sent now, but an earlier attempt handed it over and died before the
            // answer: it has most likely arrived, so "skipped" would say what did not happen.
            Outcome::Skipped(_) | Outcome::Held if mail.handed_at.is_some() => {
                outbox::mark_sent_at_hand_over(&self.pool, mail.id, claim).await?;
                tracing::info!(mail = %mail.id, kind = %mail.kind, handed_at = ?mail.handed_at,
                    not_sent_again = ?outcome,
                    "a mail handed over before its worker died is recorded as sent then");
                return Ok(Recorded::SentBefore);
            }
            Outcome::Sent => {
                outbox::mark_sent(&self.pool, mail.id).await?;
                tracing::debug!(mail = %mail.id, kind = %mail.kind, "mail sent");
                metrics::counter!(crate::telemetry::names::MAILS_SENT, "kind" => mail.kind.clone())
                    .increment(1);
                return Ok(Recorded::Sent);
            }
            Outcome::Skipped(reason) => {
                outbox::mark_skipped(&self.pool, mail.id, claim, reason).await?;
                Recorded::Skipped
            }
            Outcome::Held => {
                outbox::mark_held(&self.pool, mail.id, claim).await?;
                Recorded::Held
            }
            Outcome::Failed(error) => {
                let attempts = u32::try_from(mail.attempts).unwrap_or(u32::MAX);
                let give_up = error.permanent || attempts >= self.settings.max_attempts;
                let wait = self.settings.backoff(attempts);
                outbox::mark_failed(
                    &self.pool,
                    mail.id,
                    claim,
                    give_up,
                    wait.as_secs_f64(),
                    &error.message,
                    self.clock.now(),
                )
                .await?;
                metrics::counter!(
                    crate::telemetry::names::MAILS_FAILED,
                    "kind" => mail.kind.clone(),
                    "final" => if give_up { "true" } else { "false" },
                )
                .increment(1);
                if give_up {
                    tracing::warn!(mail = %mail.id, kind = %mail.kind, attempts, error = %error,
                        "mail failed for good; `kontor mail retry` sends it again");
                    Recorded::Failed
                } else {
                    tracing::info!(mail = %mail.id, kind = %mail.kind, attempts, error = %error,
                        retry_in = ?wait, "mail not delivered; will retry");
                    Recorded::Retrying
                }
            }
        };
        Ok(done)
    }

    /// Queues today's digests (see [`super::digest`]).
    pub async fn queue_digests(&self, now: DateTime<Utc>) -> anyhow::Result<usize> {
        super::digest::queue(self, now).await
    }

    /// Runs the worker until the task is dropped or `stop` is cancelled: delivers due mails
    /// (woken by NOTIFY, or every poll interval), and queues the daily digests once a minute.
    /// Stopping lets the batch under way finish (a mail half sent would be sent again only
    /// when its lease expires).
    pub async fn run(self, stop: CancellationToken) {
        let mut listener = self.listen().await;
        let mut last_digest: Option<Instant> = None;
        loop {
            if self.pool.is_closed() {
                tracing::info!("mail delivery worker stopped: the database pool is closed");
                return;
            }
            if stop.is_cancelled() {
                tracing::info!("mail delivery worker stopped");
                return;
            }
            loop {
                match self.deliver_due(BATCH).await {
                    Ok(report) if report.claimed == BATCH => continue,
                    Ok(_) => break,
                    Err(_) if self.pool.is_closed() => break,
                    Err(e) => {
                        tracing::warn!(error = %format!("{e:#}"), "mail delivery failed; retrying later");
                        break;
                    }
                }
            }
            if last_digest.is_none_or(|at| at.elapsed() >= Duration::from_secs(60)) {
                last_digest = Some(Instant::now());
                match self.queue_digests(self.clock.now()).await {
                    Ok(0) => {}
                    Ok(n) => {
                        tracing::info!(digests = n, "daily digests queued");
                        continue;
                    }
                    Err(_) if self.pool.is_closed() => {}
                    Err(e) => tracing::warn!(error = %format!("{e:#}"), "queueing digests failed"),
                }
            }
            let poll = self.settings.poll_interval;
            match listener.as_mut() {
                Some(l) => {
                    tokio::select! {
                        received = l.recv() => if let Err(e) = received {
                            if !self.pool.is_closed() {
                                tracing::warn!(error = %e, "lost the mail channel; polling instead");
                            }
                            listener = None;
                        },
                        _ = tokio::time::sleep(poll) => {}
                        _ = stop.cancelled() => {}
                    }
                }
                None => {
                    tokio::select! {
                        _ = tokio::time::sleep(poll) => {}
                        _ = stop.cancelled() => continue,
                    }
                    listener = self.listen().await;
                }
            }
        }
    }

    async fn listen(&self) -> Option<sqlx::postgres::PgListener> {
        if self.pool.is_closed() || self.session.is_closed() {
            return None;
        }
        let mut listener = match sqlx::postgres::PgListener::connect_with(&self.session).await {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for new mail; polling");
                return None;
            }
        };
        match listener.listen(CHANNEL).await {
            Ok(()) => Some(listener),
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for new mail; polling");
                None
            }
        }
    }
}

enum Recorded {
    Sent,
    Skipped,
    Held,
    Retrying,
    Failed,
    Lost,
    SentBefore,
}

/// Starts the delivery worker of this process (see [`Notifier::run`]). Several processes may
/// run one each against the same database.
pub fn spawn_workers(pool: PgPool, config: Config) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    Ok(tokio::spawn(mail_worker(
        pool.clone(),
        pool,
        &config,
        CancellationToken::new(),
    )?))
}

/// The mail delivery worker, to be spawned; it ends (after the batch under way) when `stop` is
/// cancelled.
pub fn mail_worker(
    pool: PgPool,
    session: PgPool,
    config: &Config,
    stop: CancellationToken,
) -> anyhow::Result<impl Future<Output = ()> + Send + 'static> {
    let notifier = Notifier::new(pool, config)?.listening_on(session);
    tracing::info!(mailer = ?notifier.mailer, "mail delivery worker started");
    Ok(notifier.run(stop))
}

/// Games with their players, as the templates need them.
pub(crate) async fn load_games(pool: &PgPool, ids: &[Uuid]) -> sqlx::Result<Vec<GameInfo>> {
    let rows = games::with_players(pool, ids).await?;
    Ok(rows
        .into_iter()
        .map(|g| GameInfo {
            id: g.id,
            kind: g.kind,
            status: g.status,
            pending_seats: g.pending_seats,
            outcome: g.outcome,
            turn_started_at: g.turn_started_at,
            players: g
                .seats
                .into_iter()
                .zip(g.user_ids)
                .zip(g.usernames.into_iter().zip(g.display_names))
                .map(|((seat, user_id), (username, display_name))| Player {
                    seat,
                    user_id,
                    name: crate::words::player_name(&username, display_name.as_deref()),
                })
                .collect(),
        })
        .collect())
}
