//! The push worker: **plans** each notice of the outbox once (in one transaction: take the rows
//! not yet `push_planned` with `FOR UPDATE SKIP LOCKED`, write one `push_deliveries` row per
//! subscription whose owner wants that kind by push, mark the rows planned), then **delivers**
//! the due rows fairly (a fixed number in flight, a slot refilled as each request ends, at most
//! a few per owner and per push service host: [`crate::service::delivery::fair`]), each under a
//! claim with a lease: the
//! preference and the staleness checks again (as mail: [`crate::service::delivery::relevance`]), the
//! payload encrypted for the subscription (RFC 8291, aes128gcm), VAPID, `TTL`, `Urgency` and
//! `Topic` headers, and the push service's answer recorded:
//!
//! * 2xx: `sent`;
//! * 404/410: the subscription is gone: deleted (`gone`);
//! * 413: the payload is too large: `failed` for good (logged);
//! * 429 and 5xx, or no answer: retried, honouring `Retry-After`, else with exponential
//!   backoff, at most [`MAX_ATTEMPTS`] times; after no answer or a 429 the subscription's other
//!   pending deliveries wait as long (one delivery finds out whether it is back, not all);
//! * any other 4xx: `failed` for good.

use super::payload::{self, Source};
use super::vapid::Vapid;
use crate::config::Config;
use crate::config::mail::NotifySettings;
use crate::service::delivery::fair::{self, Candidate, Channel, Limits, Until};
use crate::service::delivery::outbound::Outbound;
use crate::service::delivery::relevance::{self, NoticeRef};
use crate::service::delivery::render;
use crate::service::notices::NoticeKind;
use crate::service::notices::preferences::Choices;
use crate::store::outbox;
use crate::store::push::{self as store, Claimed};
use crate::time::Clock;
use crate::words::language::Language;
use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use reqwest::header::{HeaderName, HeaderValue};
use sqlx::PgPool;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Outbox rows planned in one transaction.
pub const BATCH: i64 = 64;
/// Attempts before a delivery fails for good.
pub const MAX_ATTEMPTS: i32 = 5;
/// How long a claimed delivery is the worker's before another may take it.
pub const LEASE: Duration = Duration::from_secs(60);
/// How often the worker looks for work.
pub const POLL: Duration = Duration::from_millis(500);
/// The longest TTL asked of a push service, and the TTL of kinds without a deadline.
pub const DAY_SECS: i64 = 24 * 60 * 60;
/// The longest wait before a retry.
const MAX_BACKOFF_SECS: i64 = 60 * 60;

/// What a push service answered, as the worker needs it.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    /// `Retry-After` in seconds, when given as seconds.
    pub retry_after: Option<u64>,
}

/// One request to a push service, through the SSRF-safe outbound client (the endpoint is
/// the browser's, so it may name any address: only public ones are reached, no redirects).
pub async fn post(
    client: &Outbound,
    endpoint: &url::Url,
    headers: &[(&'static str, String)],
    body: Vec<u8>,
) -> Result<Answer, String> {
    let mut pairs = Vec::with_capacity(headers.len());
    for (name, value) in headers {
        let value = HeaderValue::from_str(value).map_err(|e| e.to_string())?;
        pairs.push((HeaderName::from_static(name), value));
    }
    let answer = client
        .post(endpoint.as_str(), &pairs, body)
        .await
        .map_err(|e| e.to_string())?;
    let retry_after = answer
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    Ok(Answer {
        status: answer.status,
        retry_after,
    })
}

/// The client push requests go through.
pub fn client(config: &Config) -> anyhow::Result<Outbound> {
    Outbound::new(config.outbound_allow_insecure).context("the Web Push HTTP client")
}

/// Delivers Web Push: the state a worker needs.
#[derive(Clone)]
pub struct Pusher {
    pool: PgPool,
    vapid: Arc<Vapid>,
    client: Outbound,
    settings: NotifySettings,
    base_url: String,
    clock: Clock,
    limits: Limits,
    /// What the deliveries came to, since the pass began.
    tally: Arc<Mutex<PushReport>>,
}

/// What one [`Pusher::run_once`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PushReport {
    pub planned: usize,
    pub sent: usize,
    pub skipped: usize,
    pub retrying: usize,
    pub failed: usize,
    pub gone: usize,
}

enum Outcome {
    Sent,
    Skipped(&'static str),
    /// Why, the `Retry-After` seconds, and whether the push service itself is in trouble (no
    /// answer, or 429): then the subscription's other deliveries wait as long.
    Retry(String, Option<u64>, bool),
    Failed(String),
    Gone,
}

impl Pusher {
    pub fn new(pool: PgPool, config: &Config, vapid: Arc<Vapid>) -> anyhow::Result<Self> {
        Ok(Self {
            pool,
            vapid,
            client: client(config)?,
            settings: config.notify.clone(),
            base_url: config.public_base_url(),
            clock: config.clock.clone(),
            limits: fair::limits(&config.delivery),
            tally: Default::default(),
        })
    }

    /// Plans what the outbox holds, then delivers what is due until nothing is.
    pub async fn run_once(&self) -> anyhow::Result<PushReport> {
        let pass = Pusher {
            tally: Default::default(),
            ..self.clone()
        };
        let tally = pass.tally.clone();
        fair::drive(Arc::new(pass), self.limits, POLL, Until::Idle).await?;
        let report = *tally.lock().unwrap_or_else(|e| e.into_inner());
        Ok(report)
    }

    /// Plans the whole outbox.
    async fn plan_all(&self) -> anyhow::Result<()> {
        loop {
            let planned = self.plan().await?;
            self.count(|r| r.planned += planned);
            if planned < BATCH as usize {
                return Ok(());
            }
        }
    }

    fn count(&self, change: impl FnOnce(&mut PushReport)) {
        change(&mut self.tally.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// Delivers one claimed row and records it.
    async fn deliver_and_record(&self, claim: Uuid, delivery: &Claimed) -> anyhow::Result<()> {
        let outcome = self.deliver_one(delivery).await?;
        let outcome = self.record(claim, delivery, outcome).await?;
        metrics::counter!("kontor_push_deliveries_total", "outcome" => outcome).increment(1);
        self.count(|report| match outcome {
            "sent" => report.sent += 1,
            "skipped" => report.skipped += 1,
            "retrying" => report.retrying += 1,
            "gone" => report.gone += 1,
            _ => report.failed += 1,
        });
        Ok(())
    }

    /// Plans one batch of the outbox; returns how many rows it took.
    async fn plan(&self) -> anyhow::Result<usize> {
        let mut tx = self.pool.begin().await?;
        let rows = store::take_unplanned(&mut tx, BATCH).await?;
        if rows.is_empty() {
            return Ok(0);
        }
        let mut users: Vec<Uuid> = rows.iter().map(|r| r.user_id).collect();
        users.sort_unstable();
        users.dedup();
        let targets = store::targets(&mut tx, &users).await?;
        let mut deliveries = Vec::new();
        for row in &rows {
            // Account mails and digests are not notices: planned, never pushed.
            let Some(kind) = NoticeKind::parse(&row.kind) else {
                continue;
            };
            for target in targets.iter().filter(|t| t.user_id == row.user_id) {
                if Choices::from_stored(target.stored(), false).push(kind) {
                    deliveries.push((row.id, target.id, row.user_id));
                }
            }
        }
        let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        store::plan(&mut tx, &ids, &deliveries, self.clock.now()).await?;
        tx.commit().await?;
        Ok(rows.len())
    }

    async fn deliver_one(&self, delivery: &Claimed) -> anyhow::Result<Outcome> {
        let Some(kind) = NoticeKind::parse(&delivery.kind) else {
            return Ok(Outcome::Failed(format!("not a notice: {}", delivery.kind)));
        };
        let now = self.clock.now();
        let ttl = ttl_secs(kind, &delivery.data, now);
        if (now - delivery.created_at).num_seconds() > DAY_SECS {
            return Ok(Outcome::Skipped("expired"));
        }
        let recipient = outbox::recipient(&self.pool, delivery.user_id, delivery.game_id).await?;
        let Some(recipient) = recipient else {
            return Ok(Outcome::Skipped("no_user"));
        };
        // The choice applies to notices already planned, too (as an unsubscribe does for mail).
        if !Choices::from_stored(recipient.stored(), recipient.always_email).push(kind) {
            return Ok(Outcome::Skipped("off"));
        }
        // Like the mail: no "your turn" while the player watches the game live, unless they
        // asked for notices even then (`always_email`).
        if kind == NoticeKind::YourTurn && recipient.watching && !recipient.always_email {
            return Ok(Outcome::Skipped("watching"));
        }
        let game = match delivery.game_id {
            Some(id) => crate::service::delivery::mail::worker::load_games(&self.pool, &[id])
                .await?
                .pop(),
            None => None,
        };
        let notice = NoticeRef {
            outbox_id: delivery.outbox_id,
            user_id: delivery.user_id,
            kind,
            game_id: delivery.game_id,
            data: &delivery.data,
            game: game.as_ref(),
        };
        let mut data = std::borrow::Cow::Borrowed(&delivery.data);
        match relevance::check(&self.pool, &notice).await? {
            Ok(Some(author)) => data.to_mut()["author"] = author.into(),
            Ok(None) => {}
            Err(reason) => return Ok(Outcome::Skipped(reason)),
        }
        let url = match delivery.game_id {
            Some(id) => self.settings.game_link(&self.base_url, id),
            None => self.base_url.clone(),
        };
        let payload = payload::build(&Source {
            recipient_id: delivery.user_id,
            recipient_name: &recipient.username,
            kind,
            data: &data,
            game_id: delivery.game_id,
            game: game.as_ref(),
            url,
            now,
            language: Language::parse(&recipient.language).unwrap_or_default(),
            zone: render::zone(&recipient.time_zone),
        });
        let body = serde_json::to_vec(&payload)?;
        let encrypted = match encrypt(&body, &delivery.p256dh, &delivery.auth) {
            Ok(encrypted) => encrypted,
            Err(e) => return Ok(Outcome::Failed(e)),
        };
        let endpoint = match url::Url::parse(&delivery.endpoint) {
            Ok(endpoint) => endpoint,
            Err(e) => return Ok(Outcome::Failed(format!("the endpoint is not a URL: {e}"))),
        };
        let headers = vec![
            ("authorization", self.vapid.authorization(&endpoint, now)?),
            ("ttl", ttl.to_string()),
            ("urgency", urgency(kind).to_string()),
            ("topic", payload::topic(kind, delivery.game_id)),
            ("content-encoding", "aes128gcm".to_string()),
            ("content-type", "application/octet-stream".to_string()),
        ];
        Ok(
            match post(&self.client, &endpoint, &headers, encrypted).await {
                Err(e) => Outcome::Retry(format!("no answer: {e}"), None, true),
                Ok(answer) => match answer.status {
                    200..=299 => Outcome::Sent,
                    404 | 410 => Outcome::Gone,
                    413 => {
                        tracing::warn!(delivery = %delivery.id, size = body.len(), "a push payload was too large for its push service");
                        Outcome::Failed("413: the payload is too large".to_string())
                    }
                    429 | 500..=599 => Outcome::Retry(
                        format!("the push service answered {}", answer.status),
                        answer.retry_after,
                        answer.status == 429,
                    ),
                    status => Outcome::Failed(format!("the push service answered {status}")),
                },
            },
        )
    }

    async fn record(
        &self,
        claim: Uuid,
        delivery: &Claimed,
        outcome: Outcome,
    ) -> anyhow::Result<&'static str> {
        let now = self.clock.now();
        let pool = &self.pool;
        let id = delivery.id;
        Ok(match outcome {
            Outcome::Sent => {
                store::finish(pool, id, claim, "sent", None, None, now).await?;
                store::note_outcome(pool, delivery.subscription_id, true, now).await?;
                "sent"
            }
            Outcome::Skipped(reason) => {
                store::finish(pool, id, claim, "skipped", None, Some(reason), now).await?;
                "skipped"
            }
            Outcome::Gone => {
                store::finish(
                    pool,
                    id,
                    claim,
                    "gone",
                    Some("the push service no longer knows this subscription"),
                    None,
                    now,
                )
                .await?;
                store::delete_gone(pool, delivery.subscription_id).await?;
                "gone"
            }
            Outcome::Failed(error) => {
                store::finish(pool, id, claim, "failed", Some(&error), None, now).await?;
                store::note_outcome(pool, delivery.subscription_id, false, now).await?;
                "failed"
            }
            Outcome::Retry(error, retry_after, unwell) => {
                store::note_outcome(pool, delivery.subscription_id, false, now).await?;
                if delivery.attempts >= MAX_ATTEMPTS {
                    store::finish(pool, id, claim, "failed", Some(&error), None, now).await?;
                    "failed"
                } else {
                    let wait = retry_after
                        .map(|s| s.min(MAX_BACKOFF_SECS as u64) as i64)
                        .unwrap_or_else(|| backoff_secs(delivery.attempts));
                    let next = now + chrono::Duration::seconds(wait);
                    store::retry(pool, id, claim, &error, next, now).await?;
                    if unwell {
                        store::defer_subscription(pool, delivery.subscription_id, id, next).await?;
                    }
                    "retrying"
                }
            }
        })
    }

    /// Runs until `stop`; what is in flight then is abandoned after [`fair::STOP_GRACE`] (sent
    /// again later).
    pub async fn run(self, stop: CancellationToken) {
        let limits = self.limits;
        fair::run(Arc::new(self), limits, POLL, stop, "push").await;
    }
}

impl Channel for Pusher {
    type Id = Uuid;
    type Job = (Uuid, Claimed);

    async fn plan(&self) -> anyhow::Result<()> {
        self.plan_all().await
    }

    async fn due(
        &self,
        busy_owners: &[Uuid],
        busy_hosts: &[String],
        limit: usize,
    ) -> anyhow::Result<Vec<Candidate<Uuid>>> {
        let due = store::due(
            &self.pool,
            self.clock.now(),
            busy_owners,
            busy_hosts,
            limit as i64,
        )
        .await
        .context("finding due pushes")?;
        Ok(due
            .into_iter()
            .map(|d| Candidate {
                id: d.id,
                owner: d.owner,
                host: d.host,
            })
            .collect())
    }

    async fn claim(
        &self,
        picked: &[Candidate<Uuid>],
    ) -> anyhow::Result<Vec<(Candidate<Uuid>, (Uuid, Claimed))>> {
        let claim = Uuid::new_v4();
        let ids: Vec<Uuid> = picked.iter().map(|c| c.id).collect();
        let claimed = store::claim(
            &self.pool,
            &ids,
            claim,
            LEASE.as_secs_f64(),
            self.clock.now(),
        )
        .await
        .context("claiming due pushes")?;
        Ok(fair::pair(
            picked,
            claimed.into_iter().map(|c| (claim, c)).collect(),
            |(_, c)| &c.id,
        ))
    }

    async fn send(self: Arc<Self>, (claim, delivery): (Uuid, Claimed)) {
        if let Err(e) = self.deliver_and_record(claim, &delivery).await {
            tracing::warn!(error = %format!("{e:#}"), delivery = %delivery.id, "web push delivery failed");
        }
    }

    async fn release(&self, ids: &[Uuid]) -> anyhow::Result<()> {
        Ok(store::release(&self.pool, ids, self.clock.now()).await?)
    }

    fn closed(&self) -> bool {
        self.pool.is_closed()
    }
}

/// Encrypts `body` for the subscription's keys (RFC 8291, aes128gcm).
fn encrypt(body: &[u8], p256dh: &str, auth: &str) -> Result<Vec<u8>, String> {
    let key = URL_SAFE_NO_PAD
        .decode(p256dh)
        .map_err(|_| "the subscription's p256dh is not base64url".to_string())?;
    let key = p256::PublicKey::from_sec1_bytes(&key)
        .map_err(|_| "the subscription's p256dh is not a P-256 key".to_string())?;
    let auth = URL_SAFE_NO_PAD
        .decode(auth)
        .map_err(|_| "the subscription's auth is not base64url".to_string())?;
    let auth: [u8; 16] = auth
        .try_into()
        .map_err(|_| "the subscription's auth is not 16 bytes".to_string())?;
    let auth = web_push_native::Auth::from(auth);
    web_push_native::encrypt(body.to_vec(), &key, &auth).map_err(|e| e.to_string())
}

/// `your_turn` and reminders: until the deadline (at least a minute), at most a day; others a
/// day.
pub fn ttl_secs(kind: NoticeKind, data: &serde_json::Value, now: DateTime<Utc>) -> i64 {
    let deadline = data
        .get("deadline")
        .and_then(|d| d.as_str())
        .and_then(|d| DateTime::parse_from_rfc3339(d).ok());
    match (kind, deadline) {
        (NoticeKind::YourTurn | NoticeKind::Reminder, Some(deadline)) => {
            (deadline.with_timezone(&Utc) - now)
                .num_seconds()
                .clamp(60, DAY_SECS)
        }
        _ => DAY_SECS,
    }
}

/// RFC 8030 `Urgency`: `high` for what asks the player to act soon.
pub fn urgency(kind: NoticeKind) -> &'static str {
    match kind {
        NoticeKind::YourTurn | NoticeKind::Reminder | NoticeKind::UndoRequested => "high",
        _ => "normal",
    }
}

/// 30 s after the first failure, doubling, at most an hour.
fn backoff_secs(attempts: i32) -> i64 {
    (30i64 << attempts.clamp(1, 10).saturating_sub(1)).min(MAX_BACKOFF_SECS)
}

/// Sends a test notification to one subscription at once (not through the outbox). Returns
/// the push service's status.
pub async fn send_test(
    client: &Outbound,
    vapid: &Vapid,
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    payload: &payload::Payload,
    now: DateTime<Utc>,
) -> Result<u16, String> {
    let endpoint = url::Url::parse(endpoint).map_err(|e| e.to_string())?;
    let body = serde_json::to_vec(payload).map_err(|e| e.to_string())?;
    let encrypted = encrypt(&body, p256dh, auth)?;
    let headers = vec![
        (
            "authorization",
            vapid
                .authorization(&endpoint, now)
                .map_err(|e| e.to_string())?,
        ),
        ("ttl", "60".to_string()),
        ("urgency", "normal".to_string()),
        ("content-encoding", "aes128gcm".to_string()),
        ("content-type", "application/octet-stream".to_string()),
    ];
    post(client, &endpoint, &headers, encrypted)
        .await
        .map(|a| a.status)
}

/// The push worker for this configuration.
pub fn push_worker(
    pool: PgPool,
    config: &Config,
    vapid: Arc<Vapid>,
    stop: CancellationToken,
) -> anyhow::Result<impl Future<Output = ()> + Send + 'static> {
    let pusher = Pusher::new(pool, config, vapid)?;
    Ok(pusher.run(stop))
}
