//! The `webhooks` worker: plans the outbox's notices into deliveries, then sends the due
//! deliveries, several at once, through the SSRF-safe outbound client.
//!
//! Planning walks `mail_outbox` by its `hooks_planned` mark: a batch of unplanned rows is
//! locked (`FOR UPDATE SKIP LOCKED`), each notice becomes one delivery per enabled endpoint of
//! its owner subscribed to its type, and the rows are marked planned in the same transaction,
//! so a notice is planned exactly once across instances and crashes. Webhooks are an event
//! record: every notice is delivered as it happened, except a chat mention whose message a
//! moderator has hid, or whose author and recipient block each other, by planning time.
//!
//! Sending claims due deliveries with a lease (a worker that dies leaves them to be claimed
//! again when it runs out: at least once, same `webhook-id`), fairly: a fixed number in flight,
//! a slot refilled as each request ends, at most a few per owner and per host
//! ([`crate::service::delivery::fair`]). An endpoint that does not answer (or answers 429) is
//! tried again by the delivery that found it so; its other pending deliveries wait as long.

use super::{body_for, notice_data, retry_after, retry_wait, signature};
use crate::config::Config;
use crate::service::delivery::fair::{self, Candidate, Channel, Limits, Until};
use crate::service::delivery::outbound::{Outbound, OutboundError};
use crate::service::delivery::render::{self, Locale};
use crate::service::notices::account::AccountMail;
use crate::service::notices::{NoticeKind, mention};
use crate::store::users;
use crate::store::webhooks::{self as store, Attempt, ClaimedDelivery, NewDelivery};
use crate::time::Clock;
use crate::words::language::Language;
use rand::RngExt;
use reqwest::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use serde_json::Value;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// How often the worker looks for work.
const POLL: Duration = Duration::from_millis(500);
/// Outbox rows planned in one transaction.
const PLAN_BATCH: i64 = 200;
/// A claimed delivery's lease: longer than a request may take.
const LEASE_SECS: f64 = 60.0;
/// How much of an answer the delivery log keeps.
const EXCERPT_CHARS: usize = 1000;

/// What the worker needs.
#[derive(Clone)]
pub struct Webhooks {
    pub pool: PgPool,
    pub outbound: Outbound,
    pub clock: Clock,
    base_url: String,
    notify: crate::config::NotifySettings,
    limits: Limits,
}

impl Webhooks {
    pub fn new(pool: PgPool, config: &Config) -> anyhow::Result<Self> {
        Ok(Self {
            pool,
            outbound: Outbound::new(config.outbound_allow_insecure)?,
            clock: config.clock.clone(),
            base_url: config.public_base_url(),
            notify: config.notify.clone(),
            limits: fair::limits(&config.delivery),
        })
    }

    /// Plans and sends until `stop`; what is in flight then is abandoned after
    /// [`fair::STOP_GRACE`] (sent again later).
    pub async fn run(self, stop: CancellationToken) {
        let limits = self.limits;
        fair::run(Arc::new(self), limits, POLL, stop, "webhooks").await;
    }

    /// One pass: plans every unplanned notice, then sends what is due until nothing is; how
    /// many deliveries were attempted.
    pub async fn pass(&self) -> anyhow::Result<usize> {
        fair::drive(Arc::new(self.clone()), self.limits, POLL, Until::Idle).await
    }

    /// Plans the whole outbox.
    async fn plan_all(&self) -> anyhow::Result<()> {
        while self.plan_batch().await? == PLAN_BATCH as usize {}
        Ok(())
    }

    /// Plans a batch of the outbox; how many rows it took.
    async fn plan_batch(&self) -> anyhow::Result<usize> {
        let mut tx = self.pool.begin().await?;
        let notices = store::claim_unplanned(&mut tx, PLAN_BATCH).await?;
        let now = self.clock.now();
        for notice in &notices {
            // Account mails and digests are not notices: nothing to deliver.
            let Some(kind) = NoticeKind::parse(&notice.kind) else {
                continue;
            };
            let event_type = super::event_type(kind);
            let endpoints = store::subscribed(&mut *tx, notice.user_id, &event_type).await?;
            if endpoints.is_empty() {
                continue;
            }
            let mut data = notice.data.clone();
            if kind == NoticeKind::ChatMention {
                match mention::recheck(&mut tx, &notice.data, notice.user_id).await? {
                    Ok(author) => {
                        if let Some(fields) = data.as_object_mut() {
                            fields.insert("author".into(), author.into());
                        }
                    }
                    Err(_) => continue,
                }
            }
            let game_kind = match (notice.data.get("game_kind"), notice.game_id) {
                (Some(Value::String(kind)), _) => Some(kind.clone()),
                (_, Some(game)) => store::game_kind(&mut *tx, game).await?,
                _ => None,
            };
            let link = notice
                .game_id
                .map(|game| self.notify.game_link(&self.base_url, game));
            let mut thin = notice_data(notice.game_id, game_kind.as_deref(), link, &data);
            if kind == NoticeKind::ChatMention
                && let Some(fields) = thin.as_object_mut()
            {
                for name in ["author", "text"] {
                    if let Some(value) = data.get(name) {
                        fields.insert(name.into(), value.clone());
                    }
                }
            }
            let locale = users::mail_locale(&mut *tx, notice.user_id).await?;
            let (owner, language, zone) = locale.unwrap_or_default();
            let summary = super::summary(
                kind,
                &data,
                game_kind.as_deref(),
                (notice.user_id, &owner),
                Locale {
                    language: Language::parse(&language).unwrap_or_default(),
                    zone: render::zone(&zone),
                },
                notice.created_at,
            );
            if let Some(fields) = thin.as_object_mut() {
                fields.insert("summary".into(), summary.into());
            }
            let body = super::standard_body(&event_type, notice.created_at, &thin);
            for endpoint in &endpoints {
                store::insert_delivery(
                    &mut *tx,
                    &NewDelivery {
                        id: &super::new_message_id(),
                        endpoint_id: endpoint.id,
                        notice_id: Some(notice.id),
                        event_type: &event_type,
                        body: &body,
                        now,
                    },
                )
                .await?;
            }
        }
        let ids: Vec<_> = notices.iter().map(|n| n.id).collect();
        store::mark_planned(&mut tx, &ids).await?;
        tx.commit().await?;
        Ok(notices.len())
    }

    /// Sends one claimed delivery and records what became of it.
    async fn deliver_one(&self, delivery: &ClaimedDelivery) -> anyhow::Result<()> {
        let now = self.clock.now();
        let secrets = store::signing_secrets(&self.pool, delivery.endpoint_id, now).await?;
        let body = serde_json::to_vec(&body_for(&delivery.format, &delivery.body))?;
        let timestamp = now.timestamp();
        let headers = [
            (
                HeaderName::from_static("webhook-id"),
                HeaderValue::from_str(&delivery.id)?,
            ),
            (
                HeaderName::from_static("webhook-timestamp"),
                HeaderValue::from_str(&timestamp.to_string())?,
            ),
            (
                HeaderName::from_static("webhook-signature"),
                HeaderValue::from_str(&signature(&secrets, &delivery.id, timestamp, &body))?,
            ),
            (CONTENT_TYPE, HeaderValue::from_static("application/json")),
        ];
        let answer = self.outbound.post(&delivery.url, &headers, body).await;
        let finished = self.clock.now();
        let (outcome, status, error, excerpt, wait) = match &answer {
            Ok(answer) => {
                let excerpt = String::from_utf8_lossy(&answer.body)
                    .chars()
                    .take(EXCERPT_CHARS)
                    .collect::<String>();
                let status = i32::from(answer.status);
                let hinted = if answer.status == 429 || answer.status >= 500 {
                    retry_after(
                        answer
                            .headers
                            .get(reqwest::header::RETRY_AFTER)
                            .and_then(|v| v.to_str().ok()),
                    )
                } else {
                    None
                };
                let outcome = match answer.status {
                    200..=299 => Outcome::Succeeded,
                    410 => Outcome::Gone,
                    _ => Outcome::Failed,
                };
                (outcome, Some(status), None, Some(excerpt), hinted)
            }
            Err(error) => (Outcome::Failed, None, Some(describe(error)), None, None),
        };
        // The endpoint itself is in trouble (no answer, or 429): its other deliveries wait too.
        let endpoint_unwell = match &answer {
            Ok(answer) => answer.status == 429,
            Err(_) => true,
        };
        let jitter: f64 = rand::rng().random();
        let (state, next) = match outcome {
            Outcome::Succeeded => ("succeeded", finished),
            Outcome::Gone => ("failed", finished),
            Outcome::Failed => match retry_wait(delivery.attempts, jitter) {
                Some(scheduled) => (
                    "pending",
                    finished + chrono::TimeDelta::from_std(wait.unwrap_or(scheduled))?,
                ),
                None => ("failed", finished),
            },
        };
        store::record_attempt(
            &self.pool,
            &Attempt {
                id: &delivery.id,
                status: state,
                next_attempt_at: next,
                last_status: status,
                last_error: error.as_deref(),
                response_excerpt: excerpt.as_deref(),
                now: finished,
            },
        )
        .await?;
        if state == "pending" && endpoint_unwell {
            store::defer_endpoint(&self.pool, delivery.endpoint_id, &delivery.id, next).await?;
        }
        metrics::counter!(
            "kontor_webhook_deliveries_total",
            "outcome" => match (outcome, state) {
                (Outcome::Succeeded, _) => "succeeded",
                (Outcome::Gone, _) => "gone",
                (_, "pending") => "retried",
                _ => "failed",
            }
        )
        .increment(1);
        let disabled_for = match (outcome, state) {
            (Outcome::Gone, _) => Some("gone"),
            (Outcome::Failed, "failed") => Some("failing"),
            _ => None,
        };
        if let Some(reason) = disabled_for {
            // Switched off and its owner told in one transaction: never one without the other.
            let mut tx = self.pool.begin().await?;
            if let Some((owner, url)) =
                store::disable(&mut *tx, delivery.endpoint_id, reason).await?
            {
                let mail = AccountMail::webhook_disabled(
                    owner,
                    delivery.endpoint_id,
                    Uuid::now_v7(),
                    &url,
                    reason,
                );
                crate::service::notices::account::enqueue(&mut tx, &[mail]).await?;
                tracing::info!(endpoint = %delivery.endpoint_id, reason, "webhook endpoint disabled");
            }
            tx.commit().await?;
        }
        Ok(())
    }
}

impl Channel for Webhooks {
    type Id = String;
    type Job = ClaimedDelivery;

    async fn plan(&self) -> anyhow::Result<()> {
        self.plan_all().await
    }

    async fn due(
        &self,
        busy_owners: &[Uuid],
        busy_hosts: &[String],
        limit: usize,
    ) -> anyhow::Result<Vec<Candidate<String>>> {
        let due = store::due(
            &self.pool,
            self.clock.now(),
            busy_owners,
            busy_hosts,
            limit as i64,
        )
        .await?;
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
        picked: &[Candidate<String>],
    ) -> anyhow::Result<Vec<(Candidate<String>, ClaimedDelivery)>> {
        let ids: Vec<String> = picked.iter().map(|c| c.id.clone()).collect();
        let claimed = store::claim(&self.pool, &ids, LEASE_SECS, self.clock.now()).await?;
        Ok(fair::pair(picked, claimed, |d| &d.id))
    }

    async fn send(self: Arc<Self>, delivery: ClaimedDelivery) {
        if let Err(error) = self.deliver_one(&delivery).await {
            tracing::error!(error = ?error, delivery = %delivery.id, "webhook delivery");
        }
    }

    async fn release(&self, ids: &[String]) -> anyhow::Result<()> {
        Ok(store::release(&self.pool, ids, self.clock.now()).await?)
    }

    fn closed(&self) -> bool {
        self.pool.is_closed()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Succeeded,
    /// 410: the receiver says the endpoint is gone for good.
    Gone,
    Failed,
}

fn describe(error: &OutboundError) -> String {
    format!("{}: {error}", error.code())
}
