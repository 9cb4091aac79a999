//! Read replicas (`KONTOR_REPLICA_URLS`): their pools, how far behind the primary each one
//! is, and whether a read on behalf of a user may go to one. Which reads may is decided in one
//! place above (`http::replica_reads`); this is the mechanism.
//!
//! How far behind: every [`PROBE_EVERY`] the primary's WAL insert position is noted with the
//! instant it was asked (`pg_current_wal_insert_lsn()`, asked *after* the instant was taken),
//! and each replica's replay position (`pg_last_wal_replay_lsn()`). A replica whose replay
//! position has reached a noted position holds every transaction committed before that
//! position's instant: that instant is how far it is **caught up**. Its lag is the time since
//! (at most the true lag plus one probe interval: an upper bound, never an underestimate).
//!
//! Read-your-writes: each user's last write on this server ends at an instant (noted when the
//! request that wrote has been answered, so after its commit). A replica may answer a user
//! only if it is caught up to a later instant: it then holds everything the user wrote. No
//! query per write, no LSN per user: two instants compared.

use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// How often the positions are asked.
pub const PROBE_EVERY: Duration = Duration::from_millis(250);
/// How long asking one server may take before it counts as not answering.
const ASK_TIMEOUT: Duration = Duration::from_secs(1);
/// The longest a read waits for a connection of a replica's pool before it goes to the
/// primary instead (a replica that cannot be reached, or is busy, must not hold reads for long).
const REPLICA_ACQUIRE_TIMEOUT: Duration = Duration::from_millis(500);

/// Why a read that could have gone to a replica went to the primary (the label of
/// `kontor_replica_fallbacks_total`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// The reader wrote after the instant every replica is caught up to.
    OwnWrite,
    /// Every replica answering lags more than `KONTOR_REPLICA_MAX_LAG_MS`.
    Lagging,
    /// No replica answered the last probe (stopped, unreachable, or no longer in recovery).
    Unreachable,
    /// The replica failed the read itself (a server error): the primary answered it.
    Failed,
    /// The replica refused the read (a 4xx: it may not have what the reader saw yet): the
    /// primary answered it.
    Refused,
}

impl Fallback {
    pub const ALL: [Fallback; 5] = [
        Fallback::OwnWrite,
        Fallback::Lagging,
        Fallback::Unreachable,
        Fallback::Failed,
        Fallback::Refused,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Fallback::OwnWrite => "own_write",
            Fallback::Lagging => "lagging",
            Fallback::Unreachable => "unreachable",
            Fallback::Failed => "failed",
            Fallback::Refused => "refused",
        }
    }
}

/// One replica and what the probe last found of it.
struct Replica {
    pool: PgPool,
    /// Whether it answered the last probe as a server in recovery.
    answering: bool,
    /// The latest instant it is known to hold everything committed before.
    caught_up_to: Option<Instant>,
    /// Whether the last probe found it usable (for logging the changes only).
    usable: bool,
}

/// The replicas, the bound on their lag, and each user's last write on this server.
pub struct Replicas {
    replicas: Mutex<Vec<Replica>>,
    max_lag: Duration,
    /// When each user's last write ended; entries older than `max_lag` are dropped (a
    /// replica within the bound is caught up past them anyway).
    writes: Mutex<HashMap<Uuid, Instant>>,
    served: AtomicU64,
    fallbacks: AtomicU64,
}

impl std::fmt::Debug for Replicas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replicas")
            .field("replicas", &self.count())
            .field("max_lag", &self.max_lag)
            .finish()
    }
}

impl Replicas {
    /// No replica: every read on the primary.
    pub fn none() -> Self {
        Self::with_pools(Vec::new(), Duration::ZERO)
    }

    /// Pools on the replicas at `addresses`, opened lazily (a replica down at the start
    /// delays nothing: reads go to the primary until it answers).
    pub fn open(
        addresses: &[PgConnectOptions],
        size: u32,
        max_lag: Duration,
    ) -> anyhow::Result<Self> {
        let pools = addresses
            .iter()
            .map(|options| {
                PgPoolOptions::new()
                    .max_connections(size)
                    .acquire_timeout(REPLICA_ACQUIRE_TIMEOUT)
                    .connect_lazy_with(options.clone())
            })
            .collect();
        Ok(Self::with_pools(pools, max_lag))
    }

    fn with_pools(pools: Vec<PgPool>, max_lag: Duration) -> Self {
        Self {
            replicas: Mutex::new(
                pools
                    .into_iter()
                    .map(|pool| Replica {
                        pool,
                        answering: false,
                        caught_up_to: None,
                        usable: false,
                    })
                    .collect(),
            ),
            max_lag,
            writes: Mutex::new(HashMap::new()),
            served: AtomicU64::new(0),
            fallbacks: AtomicU64::new(0),
        }
    }

    /// How many replicas are configured.
    pub fn count(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Replica>> {
        self.replicas.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes that `user`'s write has just ended (committed and answered).
    pub fn wrote(&self, user: Uuid) {
        if self.count() == 0 {
            return;
        }
        let mut writes = self.writes.lock().unwrap_or_else(|e| e.into_inner());
        writes.insert(user, Instant::now());
    }

    /// The replica a read on behalf of `reader` (`None`: a visitor) may go to, by its index
    /// and pool: the most caught-up replica that answers, lags at most the bound, and holds
    /// the reader's last write. `Ok(None)` without replicas; the reason when one could have
    /// been used but none may (counted and the caller reads on the primary).
    pub fn route(&self, reader: Option<Uuid>) -> Result<Option<(usize, PgPool)>, Fallback> {
        let replicas = self.lock();
        if replicas.is_empty() {
            return Ok(None);
        }
        let now = Instant::now();
        let freshest = replicas
            .iter()
            .enumerate()
            .filter(|(_, r)| r.answering)
            .filter_map(|(at, r)| r.caught_up_to.map(|to| (at, to)))
            .max_by_key(|(_, to)| *to);
        let chosen = match freshest {
            None => Err(Fallback::Unreachable),
            Some((_, to)) if now.saturating_duration_since(to) > self.max_lag => {
                Err(Fallback::Lagging)
            }
            Some((at, to)) => {
                let wrote = reader.and_then(|user| {
                    let writes = self.writes.lock().unwrap_or_else(|e| e.into_inner());
                    writes.get(&user).copied()
                });
                match wrote {
                    Some(wrote) if wrote >= to => Err(Fallback::OwnWrite),
                    _ => Ok(Some((at, replicas[at].pool.clone()))),
                }
            }
        };
        if let Err(why) = chosen {
            self.fell_back(why);
        }
        chosen
    }

    /// Counts a read answered by a replica.
    pub fn served(&self, read: &'static str) {
        self.served.fetch_add(1, Ordering::Relaxed);
        metrics::counter!(crate::telemetry::names::REPLICA_READS, "read" => read).increment(1);
    }

    /// Counts a read that went to the primary for `why`.
    pub fn fell_back(&self, why: Fallback) {
        self.fallbacks.fetch_add(1, Ordering::Relaxed);
        metrics::counter!(crate::telemetry::names::REPLICA_FALLBACKS, "reason" => why.as_str())
            .increment(1);
    }

    /// A replica failed a read: it counts as not answering until the next probe finds it
    /// answering again.
    pub fn failed(&self, at: usize, cause: &dyn std::fmt::Display) {
        if let Some(replica) = self.lock().get_mut(at) {
            replica.answering = false;
        }
        tracing::warn!(
            replica = at + 1,
            error = %cause,
            "a read replica failed a read; the primary answered it"
        );
        self.fell_back(Fallback::Failed);
    }

    /// Reads answered by a replica since the start.
    pub fn reads_served(&self) -> u64 {
        self.served.load(Ordering::Relaxed)
    }

    /// Reads that could have gone to a replica and went to the primary, since the start.
    pub fn fallbacks(&self) -> u64 {
        self.fallbacks.load(Ordering::Relaxed)
    }

    /// How far behind the freshest answering replica is, if one answers and was ever seen
    /// caught up.
    pub fn lag(&self) -> Option<Duration> {
        self.lock()
            .iter()
            .filter(|r| r.answering)
            .filter_map(|r| r.caught_up_to)
            .max()
            .map(|to| to.elapsed())
    }

    /// Records one probe of replica `at`: its replay position (`None`: it did not answer as
    /// a replica), against the primary's noted positions.
    fn record(&self, at: usize, replayed: Option<i64>, noted: &VecDeque<(Instant, i64)>) {
        let mut replicas = self.lock();
        let Some(replica) = replicas.get_mut(at) else {
            return;
        };
        replica.answering = replayed.is_some();
        if let Some(replayed) = replayed {
            let reached = noted
                .iter()
                .filter(|(_, lsn)| *lsn <= replayed)
                .map(|(when, _)| *when)
                .max();
            if let Some(reached) = reached {
                replica.caught_up_to =
                    Some(replica.caught_up_to.map_or(reached, |t| t.max(reached)));
            }
        }
        let lag = replica.caught_up_to.map(|to| to.elapsed());
        if let Some(lag) = lag {
            metrics::gauge!(crate::telemetry::names::REPLICA_LAG, "replica" => (at + 1).to_string())
                .set(lag.as_secs_f64());
        }
        let usable = replica.answering && lag.is_some_and(|lag| lag <= self.max_lag);
        if usable != replica.usable {
            replica.usable = usable;
            if usable {
                tracing::info!(
                    replica = at + 1,
                    "a read replica is caught up: late reads go to it"
                );
            } else if !replica.answering {
                tracing::warn!(
                    replica = at + 1,
                    "a read replica does not answer as a replica: its reads go to the primary"
                );
            } else {
                tracing::warn!(
                    replica = at + 1,
                    lag_ms = lag.map_or(0, |lag| lag.as_millis() as u64),
                    max_lag_ms = self.max_lag.as_millis() as u64,
                    "a read replica lags beyond KONTOR_REPLICA_MAX_LAG_MS: its reads go to the primary"
                );
            }
        }
    }

    fn forget_old_writes(&self) {
        let mut writes = self.writes.lock().unwrap_or_else(|e| e.into_inner());
        let bound = self.max_lag;
        writes.retain(|_, at| at.elapsed() <= bound);
    }

    /// Where each replica's pool connects.
    fn addresses(&self) -> Vec<PgConnectOptions> {
        self.lock()
            .iter()
            .map(|r| (*r.pool.connect_options()).clone())
            .collect()
    }
}

/// The primary's WAL insert position, in bytes.
const INSERT_POSITION: &str = "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint";
/// A replica's replay position, in bytes; null when it is not in recovery (promoted: its
/// replay position then stays where recovery ended, and it is no replica of the primary).
const REPLAY_POSITION: &str = "SELECT CASE WHEN pg_is_in_recovery() \
     THEN (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint END";

/// Asks the primary (at wherever the pool `primary` points now: it follows a failover) and
/// every replica every [`PROBE_EVERY`] until `stop`, each over a connection of its own (a
/// stopped server is then seen at once, not after a pool's acquire timeout), and records how
/// far each replica is caught up.
pub async fn watch(primary: PgPool, replicas: std::sync::Arc<Replicas>, stop: CancellationToken) {
    let addresses = replicas.addresses();
    // Enough noted positions to cover the bound, and a few more.
    let keep = (replicas.max_lag.as_millis() / PROBE_EVERY.as_millis()).max(1) as usize + 8;
    let mut noted: VecDeque<(Instant, i64)> = VecDeque::with_capacity(keep);
    let mut to_primary: Option<PgConnection> = None;
    let mut to_replicas: Vec<Option<PgConnection>> = addresses.iter().map(|_| None).collect();
    loop {
        let probe = async {
            let when = Instant::now();
            let options = primary.connect_options();
            if let Some(position) = ask(&options, &mut to_primary, INSERT_POSITION).await {
                if noted.len() == keep {
                    noted.pop_front();
                }
                noted.push_back((when, position));
            }
            let answers = futures_util::future::join_all(
                addresses
                    .iter()
                    .zip(to_replicas.iter_mut())
                    .map(|(options, connection)| ask(options, connection, REPLAY_POSITION)),
            )
            .await;
            for (at, replayed) in answers.into_iter().enumerate() {
                replicas.record(at, replayed, &noted);
            }
            replicas.forget_old_writes();
        };
        tokio::select! {
            _ = probe => {}
            _ = stop.cancelled() => return,
        }
        tokio::select! {
            _ = tokio::time::sleep(PROBE_EVERY) => {}
            _ = stop.cancelled() => return,
        }
    }
}

/// A position asked over `connection` (opened on `options` if need be, see
/// [`super::monitor::ask_kept`]); `None` when the server does not answer within
/// [`ASK_TIMEOUT`] or answers null.
async fn ask(
    options: &PgConnectOptions,
    connection: &mut Option<PgConnection>,
    question: &'static str,
) -> Option<i64> {
    super::monitor::ask_kept::<Option<i64>>(options, connection, question, ASK_TIMEOUT)
        .await
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_replica(max_lag: Duration) -> Replicas {
        let options: PgConnectOptions = "postgres://k@127.0.0.1:1/k".parse().unwrap();
        let pool = PgPoolOptions::new().connect_lazy_with(options);
        Replicas::with_pools(vec![pool], max_lag)
    }

    #[tokio::test]
    async fn a_replica_is_used_once_caught_up_past_the_readers_last_write() {
        let replicas = one_replica(Duration::from_secs(60));
        let anna = Uuid::new_v4();
        assert_eq!(replicas.route(None).unwrap_err(), Fallback::Unreachable);
        let mut noted = VecDeque::new();
        noted.push_back((Instant::now(), 100));
        replicas.record(0, Some(50), &noted);
        assert_eq!(
            replicas.route(None).unwrap_err(),
            Fallback::Unreachable,
            "never caught up yet"
        );
        replicas.record(0, Some(100), &noted);
        assert!(replicas.route(None).unwrap().is_some());
        replicas.wrote(anna);
        assert_eq!(replicas.route(Some(anna)).unwrap_err(), Fallback::OwnWrite);
        assert!(replicas.route(Some(Uuid::new_v4())).unwrap().is_some());
        noted.push_back((Instant::now(), 200));
        replicas.record(0, Some(150), &noted);
        assert_eq!(replicas.route(Some(anna)).unwrap_err(), Fallback::OwnWrite);
        replicas.record(0, Some(200), &noted);
        assert!(replicas.route(Some(anna)).unwrap().is_some());
        replicas.record(0, None, &noted);
        assert_eq!(replicas.route(None).unwrap_err(), Fallback::Unreachable);
    }

    #[tokio::test]
    async fn a_replica_beyond_the_bound_is_passed_over() {
        let replicas = one_replica(Duration::ZERO);
        let mut noted = VecDeque::new();
        noted.push_back((Instant::now() - Duration::from_millis(5), 100));
        replicas.record(0, Some(100), &noted);
        assert_eq!(replicas.route(None).unwrap_err(), Fallback::Lagging);
        assert!(Replicas::none().route(None).unwrap().is_none());
    }
}
