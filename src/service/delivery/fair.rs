//! Fair sending to user-given addresses (webhooks, Web Push): one owner's slow endpoints must
//! not hold anyone else's deliveries.
//!
//! A worker keeps a fixed number of requests in flight ([`Limits::at_once`]) and refills a slot
//! as soon as a request finishes, instead of taking a batch and waiting for its slowest member.
//! At most [`Limits::per_owner`] of them are one owner's and at most [`Limits::per_host`] go to
//! one host: a filled slot is refilled from the due deliveries of owners and hosts below their
//! bound, each owner's oldest first, round-robin across owners ([`InFlight::pick`]). So an owner
//! whose endpoints never answer ties up their own share only, for as long as the outbound
//! client's timeouts allow, and every other owner's deliveries go on at once.
//!
//! The bounds are this instance's: several instances share the rows (`SKIP LOCKED`), each with
//! its own slots. When the worker is told to stop, requests still in flight after
//! [`STOP_GRACE`] are abandoned and their claims released (due again at once, the attempt not
//! counted): they are sent again, with the same id, by whichever worker runs next.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// How long a stopping worker waits for the requests in flight before it abandons them.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// How many requests a worker keeps in flight, and how many of them one owner or host may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub at_once: usize,
    pub per_owner: usize,
    pub per_host: usize,
}

/// The window of the test-send limit.
pub const TEST_SEND_WINDOW: Duration = Duration::from_secs(3600);

/// Counts one test send (a webhook test event, a push test notification) of `user` against
/// `per_hour` (`KONTOR_TEST_SENDS_PER_HOUR`): `Err(seconds)` to wait when the hour's are used up.
/// Test sends go out at once whatever the queue, so they are what an account could flood a
/// slow receiver with.
pub async fn take_test_send(
    pool: &sqlx::PgPool,
    user: Uuid,
    per_hour: u32,
) -> sqlx::Result<Result<(), u64>> {
    let mut conn = pool.acquire().await?;
    crate::auth::throttle::take(
        &mut conn,
        &[crate::auth::throttle::Limit {
            subject: format!("{}test-sends:{user}", crate::auth::throttle::VOLUME_PREFIX),
            limit: per_hour,
            window: TEST_SEND_WINDOW,
        }],
    )
    .await
}

/// The limits of the settings (`KONTOR_DELIVERY_*`).
pub fn limits(settings: &crate::config::DeliveryLimits) -> Limits {
    Limits {
        at_once: settings.at_once,
        per_owner: settings.per_owner,
        per_host: settings.per_host,
    }
}

/// The claimed jobs with the candidates they were picked as (`id_of` names a job's delivery);
/// a pick another worker took meanwhile has no job and is left out.
pub fn pair<K: PartialEq + Clone, J>(
    picked: &[Candidate<K>],
    claimed: Vec<J>,
    id_of: impl Fn(&J) -> &K,
) -> Vec<(Candidate<K>, J)> {
    claimed
        .into_iter()
        .filter_map(|job| {
            let candidate = picked.iter().find(|c| c.id == *id_of(&job))?.clone();
            Some((candidate, job))
        })
        .collect()
}

/// A due delivery as seen before it is claimed: its id, whose it is and where it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate<K> {
    pub id: K,
    pub owner: Uuid,
    /// The destination's host name, lower case (see `store::…::due`).
    pub host: String,
}

/// What is in flight, by owner and host.
#[derive(Debug, Default)]
pub struct InFlight {
    owners: HashMap<Uuid, usize>,
    hosts: HashMap<String, usize>,
    total: usize,
}

impl InFlight {
    /// Slots free.
    pub fn free(&self, limits: &Limits) -> usize {
        limits.at_once.saturating_sub(self.total)
    }

    /// Owners with all their slots in use.
    pub fn busy_owners(&self, limits: &Limits) -> Vec<Uuid> {
        self.owners
            .iter()
            .filter(|(_, n)| **n >= limits.per_owner)
            .map(|(owner, _)| *owner)
            .collect()
    }

    /// Hosts with all their slots in use.
    pub fn busy_hosts(&self, limits: &Limits) -> Vec<String> {
        self.hosts
            .iter()
            .filter(|(_, n)| **n >= limits.per_host)
            .map(|(host, _)| host.clone())
            .collect()
    }

    /// The candidates to claim now, from `candidates` (oldest first): each owner's oldest before
    /// anyone's second (round-robin across owners), within the free slots and each owner's and
    /// host's bound.
    pub fn pick<K>(&self, candidates: Vec<Candidate<K>>, limits: &Limits) -> Vec<Candidate<K>> {
        let mut free = self.free(limits);
        let mut owners = self.owners.clone();
        let mut hosts = self.hosts.clone();
        // The candidates by owner, owners in the order of their oldest.
        let mut queues: Vec<(Uuid, Vec<Candidate<K>>)> = Vec::new();
        for candidate in candidates {
            match queues
                .iter_mut()
                .find(|(owner, _)| *owner == candidate.owner)
            {
                Some((_, queue)) => queue.push(candidate),
                None => queues.push((candidate.owner, vec![candidate])),
            }
        }
        let mut picked = Vec::new();
        // Rounds: each owner takes its oldest candidate whose host has room, while it has room.
        loop {
            let mut took = false;
            for (owner, queue) in &mut queues {
                if free == 0 {
                    return picked;
                }
                if owners.get(owner).copied().unwrap_or(0) >= limits.per_owner {
                    continue;
                }
                let Some(at) = queue
                    .iter()
                    .position(|c| hosts.get(&c.host).copied().unwrap_or(0) < limits.per_host)
                else {
                    continue;
                };
                let candidate = queue.remove(at);
                *owners.entry(*owner).or_default() += 1;
                *hosts.entry(candidate.host.clone()).or_default() += 1;
                free -= 1;
                took = true;
                picked.push(candidate);
            }
            if !took {
                return picked;
            }
        }
    }

    fn start(&mut self, owner: Uuid, host: &str) {
        *self.owners.entry(owner).or_default() += 1;
        *self.hosts.entry(host.to_string()).or_default() += 1;
        self.total += 1;
    }

    fn finish(&mut self, owner: Uuid, host: &str) {
        if let Some(n) = self.owners.get_mut(&owner) {
            *n -= 1;
            if *n == 0 {
                self.owners.remove(&owner);
            }
        }
        if let Some(n) = self.hosts.get_mut(host) {
            *n -= 1;
            if *n == 0 {
                self.hosts.remove(host);
            }
        }
        self.total = self.total.saturating_sub(1);
    }
}

/// Claimed deliveries, each with the candidate it was picked as.
pub type Claimed<K, J> = Vec<(Candidate<K>, J)>;

/// What a worker's channel (webhooks, Web Push) does for the [`drive`] loop.
pub trait Channel: Send + Sync + 'static {
    /// A delivery's id.
    type Id: Clone + Send + Sync + 'static;
    /// A claimed delivery, ready to send.
    type Job: Send + 'static;

    /// Turns new notices into deliveries (planning); called every `poll`.
    fn plan(&self) -> impl Future<Output = anyhow::Result<()>> + Send;

    /// Up to `limit` due deliveries, oldest first, of owners and to hosts other than these.
    fn due(
        &self,
        busy_owners: &[Uuid],
        busy_hosts: &[String],
        limit: usize,
    ) -> impl Future<Output = anyhow::Result<Vec<Candidate<Self::Id>>>> + Send;

    /// Claims the picked deliveries that are still due and not another worker's (`SKIP
    /// LOCKED`): each with its job.
    fn claim(
        &self,
        picked: &[Candidate<Self::Id>],
    ) -> impl Future<Output = anyhow::Result<Claimed<Self::Id, Self::Job>>> + Send;

    /// Sends one claimed delivery and records what became of it.
    fn send(self: Arc<Self>, job: Self::Job) -> impl Future<Output = ()> + Send;

    /// Gives back the claims of deliveries abandoned at a stop: due again, the attempt not
    /// counted.
    fn release(&self, ids: &[Self::Id]) -> impl Future<Output = anyhow::Result<()>> + Send;

    /// Whether the database is gone (the server is stopping): then the worker ends.
    fn closed(&self) -> bool;
}

/// A channel's worker: [`drive`]s it until `stop`, starting again after a failure (logged with
/// the worker's `name`) once `poll` has passed.
pub async fn run<C: Channel>(
    channel: Arc<C>,
    limits: Limits,
    poll: Duration,
    stop: CancellationToken,
    name: &'static str,
) {
    loop {
        if channel.closed() || stop.is_cancelled() {
            return;
        }
        match drive(channel.clone(), limits, poll, Until::Stopped(stop.clone())).await {
            Ok(_) => return,
            Err(_) if channel.closed() => return,
            // A pool timeout or a lost database is a state the worker waits out, not a bug.
            Err(error) if crate::store::health::database_unreachable(&error) => {
                tracing::warn!(worker = name, error = %format!("{error:#}"), "deliveries wait for the database; trying again");
            }
            Err(error) => {
                tracing::error!(worker = name, error = %format!("{error:#}"), "deliveries failed; trying again");
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(poll) => {}
            _ = stop.cancelled() => return,
        }
    }
}

/// How long [`drive`] goes on.
#[derive(Clone)]
pub enum Until {
    /// Until nothing is due or in flight (a pass: tests, and commands).
    Idle,
    /// Until the token is cancelled.
    Stopped(CancellationToken),
}

/// Runs a channel's deliveries with at most `limits` in flight: plans every `poll`, refills a
/// slot as soon as one is free, and (with [`Until::Stopped`]) abandons what is still in flight
/// [`STOP_GRACE`] after the stop. Returns how many deliveries it claimed.
pub async fn drive<C: Channel>(
    channel: Arc<C>,
    limits: Limits,
    poll: Duration,
    until: Until,
) -> anyhow::Result<usize> {
    let stop = match &until {
        Until::Idle => CancellationToken::new(),
        Until::Stopped(token) => token.clone(),
    };
    let mut in_flight = InFlight::default();
    let mut running: JoinSet<()> = JoinSet::new();
    // Each task's delivery, owner and host, by task id.
    let mut tasks: HashMap<tokio::task::Id, (C::Id, Uuid, String)> = HashMap::new();
    let mut claimed = 0;
    let mut planned_at: Option<tokio::time::Instant> = None;
    let mut idle_rounds = 0;
    let result: anyhow::Result<()> = async {
        loop {
            if stop.is_cancelled() {
                return Ok(());
            }
            if planned_at.is_none_or(|at| at.elapsed() >= poll) {
                channel.plan().await?;
                planned_at = Some(tokio::time::Instant::now());
            }
            let free = in_flight.free(&limits);
            if free > 0 {
                // More than the free slots, so that the pick can go round the owners.
                let window = (free * 8).clamp(16, 512);
                let due = channel
                    .due(
                        &in_flight.busy_owners(&limits),
                        &in_flight.busy_hosts(&limits),
                        window,
                    )
                    .await?;
                let picked = in_flight.pick(due, &limits);
                if !picked.is_empty() {
                    let jobs = channel.claim(&picked).await?;
                    let started = jobs.len();
                    for (candidate, job) in jobs {
                        in_flight.start(candidate.owner, &candidate.host);
                        let handle = running.spawn(channel.clone().send(job));
                        tasks.insert(handle.id(), (candidate.id, candidate.owner, candidate.host));
                    }
                    claimed += started;
                    if started > 0 {
                        idle_rounds = 0;
                        // Refill at once: there may be more, of owners not yet busy.
                        continue;
                    }
                }
            }
            if running.is_empty() {
                if matches!(until, Until::Idle) {
                    // Idle once a fresh plan brings nothing to claim either.
                    idle_rounds += 1;
                    if idle_rounds > 1 {
                        return Ok(());
                    }
                    planned_at = None;
                    continue;
                }
                tokio::select! {
                    _ = tokio::time::sleep(poll) => {}
                    _ = stop.cancelled() => return Ok(()),
                }
                continue;
            }
            tokio::select! {
                Some(done) = running.join_next_with_id() => {
                    let id = match done {
                        Ok((id, ())) => id,
                        Err(error) => {
                            if error.is_panic() {
                                tracing::error!(error = %error, "a delivery panicked");
                            }
                            error.id()
                        }
                    };
                    if let Some((_, owner, host)) = tasks.remove(&id) {
                        in_flight.finish(owner, &host);
                    }
                }
                _ = tokio::time::sleep(poll) => {}
                _ = stop.cancelled() => return Ok(()),
            }
        }
    }
    .await;
    // Stopping (or failing): what is in flight may finish within the grace, the rest is given
    // back.
    let deadline = tokio::time::Instant::now() + STOP_GRACE;
    while !running.is_empty() {
        match tokio::time::timeout_at(deadline, running.join_next_with_id()).await {
            Ok(Some(Ok((id, ())))) => {
                tasks.remove(&id);
            }
            Ok(Some(Err(error))) => {
                tasks.remove(&error.id());
            }
            Ok(None) => break,
            Err(_) => break,
        }
    }
    running.abort_all();
    while running.join_next().await.is_some() {}
    if !tasks.is_empty() {
        let ids: Vec<C::Id> = tasks.into_values().map(|(id, _, _)| id).collect();
        tracing::info!(
            abandoned = ids.len(),
            "deliveries abandoned at a stop; they are sent again later"
        );
        if let Err(error) = channel.release(&ids).await {
            tracing::warn!(error = %format!("{error:#}"), "releasing abandoned deliveries failed; their leases run out instead");
        }
    }
    result.map(|()| claimed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    fn candidate(id: u32, owner_n: u128, host: &str) -> Candidate<u32> {
        Candidate {
            id,
            owner: owner(owner_n),
            host: host.to_string(),
        }
    }

    const LIMITS: Limits = Limits {
        at_once: 6,
        per_owner: 2,
        per_host: 3,
    };

    #[test]
    fn each_owner_gets_a_turn_before_anyone_gets_a_second() {
        // Owner 1's many deliveries are the oldest; owners 2 and 3 still get theirs now.
        let mut due: Vec<_> = (0..10).map(|i| candidate(i, 1, &format!("h{i}"))).collect();
        due.push(candidate(10, 2, "x"));
        due.push(candidate(11, 3, "y"));
        due.push(candidate(12, 2, "x"));
        let picked: Vec<u32> = InFlight::default()
            .pick(due, &LIMITS)
            .into_iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(picked, vec![0, 10, 11, 1, 12]);
    }

    #[test]
    fn owners_and_hosts_keep_to_their_bounds_and_slots_are_shared() {
        let mut in_flight = InFlight::default();
        in_flight.start(owner(1), "slow.example");
        in_flight.start(owner(1), "slow.example");
        in_flight.start(owner(2), "slow.example");
        assert_eq!(in_flight.busy_owners(&LIMITS), vec![owner(1)]);
        assert_eq!(
            in_flight.busy_hosts(&LIMITS),
            vec!["slow.example".to_string()]
        );
        assert_eq!(in_flight.free(&LIMITS), 3);
        let due = vec![
            candidate(1, 1, "other.example"), // owner 1 is at its bound
            candidate(2, 3, "slow.example"),  // the host is at its bound
            candidate(3, 3, "fast.example"),
            candidate(4, 4, "fast.example"),
            candidate(5, 5, "fast.example"),
            candidate(6, 6, "b.example"),
        ];
        let picked: Vec<u32> = in_flight
            .pick(due, &LIMITS)
            .into_iter()
            .map(|c| c.id)
            .collect();
        // fast.example takes three, then the slots are full.
        assert_eq!(picked, vec![3, 4, 5]);
        in_flight.finish(owner(1), "slow.example");
        assert!(in_flight.busy_owners(&LIMITS).is_empty());
        assert!(in_flight.busy_hosts(&LIMITS).is_empty());
        assert_eq!(in_flight.free(&LIMITS), 4);
    }
}
