//! Group commit: the appends of concurrent commands on different games are written together,
//! in one statement and one transaction, and announced to live streams once they commit.
//!
//! Why: with durable commits, most of what PostgreSQL spends on an action is per statement and
//! per transaction (executor set-up for each table the append writes, the commit record and
//! waiting for its flush, waking the backend), not per row. While some batches are being
//! written, the appends that arrive queue up and go together in the next one, so under load a
//! statement carries many actions, and an action alone is written at once.
//!
//! Each game's append still stands on its own compare-and-set (see `store::append`): a batch
//! holds a game at most once, and a game is never in two batches at the same time, so two
//! batches never wait on each other's head rows. A batch that fails as a whole (a reused
//! idempotency key among its appends) is written again one append at a time, so each gets its
//! own answer.

use crate::live::Publisher;
use crate::store::append::{self, Append, Rows};
use crate::time::Clock;
use serde::Serialize;
use sqlx::PgPool;
use std::collections::{HashSet, VecDeque};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

/// Batches written at the same time; while all are busy, appends queue for the next ones.
const IN_FLIGHT: usize = 3;
/// The most appends in one statement.
const MAX_BATCH: usize = 64;

/// A handle on the instance's group committer.
#[derive(Clone)]
pub struct Committer {
    jobs: mpsc::UnboundedSender<Job>,
    /// The instance's clock: whatever appends through the committer (a player's move, the
    /// deadline worker's) stamps its events and arms its clocks by it.
    clock: Clock,
}

struct Job {
    game_id: Uuid,
    rows: Rows,
    note: String,
    written: oneshot::Sender<Result<bool, sqlx::Error>>,
}

impl Committer {
    /// A committer and its task, for the caller to run (under supervision, see `app`); the
    /// task ends when every handle is dropped. While it does not run, appends wait.
    pub fn new(
        pool: PgPool,
        publisher: Publisher,
        clock: Clock,
    ) -> (Self, impl Future<Output = ()> + Send + 'static) {
        let (jobs, receiver) = mpsc::unbounded_channel();
        (Self { jobs, clock }, dispatch(pool, publisher, receiver))
    }

    /// The instance's clock (see [`crate::time`]).
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Writes an append (in a batch with others); `Ok(false)` if the game had moved on or the
    /// idempotency key was used meanwhile, and nothing was written. Once written, `note` goes
    /// to live streams.
    pub async fn append<S: Serialize, N: Serialize>(
        &self,
        append: &Append<'_, S>,
        note: &N,
    ) -> Result<bool, sqlx::Error> {
        let (written, answer) = oneshot::channel();
        let job = Job {
            game_id: append.game_id,
            rows: Rows::of(append)?,
            note: serde_json::to_string(note).map_err(|e| sqlx::Error::Encode(e.into()))?,
            written,
        };
        self.jobs.send(job).map_err(|_| sqlx::Error::PoolClosed)?;
        answer.await.map_err(|_| sqlx::Error::PoolClosed)?
    }
}

async fn dispatch(pool: PgPool, publisher: Publisher, mut jobs: mpsc::UnboundedReceiver<Job>) {
    let (done_sender, mut done) = mpsc::unbounded_channel::<Vec<Uuid>>();
    let mut queued: VecDeque<Job> = VecDeque::new();
    let mut busy: HashSet<Uuid> = HashSet::new();
    let mut batches_in_flight = 0;
    let mut open = true;
    loop {
        while let Ok(job) = jobs.try_recv() {
            queued.push_back(job);
        }
        if batches_in_flight < IN_FLIGHT {
            let batch = take_batch(&mut queued, &mut busy);
            if !batch.is_empty() {
                batches_in_flight += 1;
                let (pool, publisher, done) =
                    (pool.clone(), publisher.clone(), done_sender.clone());
                tokio::spawn(async move {
                    let _finished = Finished {
                        games: batch.iter().map(|job| job.game_id).collect(),
                        done,
                    };
                    commit(&pool, &publisher, batch).await;
                });
                continue;
            }
        }
        if !open && queued.is_empty() && batches_in_flight == 0 {
            return;
        }
        tokio::select! {
            job = jobs.recv(), if open => match job {
                Some(job) => queued.push_back(job),
                None => open = false,
            },
            Some(games) = done.recv() => {
                batches_in_flight -= 1;
                for game in games {
                    busy.remove(&game);
                }
            }
        }
    }
}

/// Tells the dispatcher that a batch is over when dropped: after it was written, and also if
/// writing it panicked, so its games are never left marked busy.
struct Finished {
    games: Vec<Uuid>,
    done: mpsc::UnboundedSender<Vec<Uuid>>,
}

impl Drop for Finished {
    fn drop(&mut self) {
        let _ = self.done.send(std::mem::take(&mut self.games));
    }
}

/// The next batch: queued appends in arrival order, each game once and none that is being
/// written; the rest stay queued. Sorted by game, so batches lock head rows in one order.
fn take_batch(queued: &mut VecDeque<Job>, busy: &mut HashSet<Uuid>) -> Vec<Job> {
    let mut batch = Vec::new();
    let mut rest = VecDeque::new();
    while let Some(job) = queued.pop_front() {
        if batch.len() < MAX_BATCH && busy.insert(job.game_id) {
            batch.push(job);
        } else {
            rest.push_back(job);
        }
    }
    *queued = rest;
    batch.sort_by_key(|job| job.game_id);
    batch
}

async fn commit(pool: &PgPool, publisher: &Publisher, batch: Vec<Job>) {
    use crate::telemetry::names;
    metrics::histogram!(names::BATCH_SIZE).record(batch.len() as f64);
    // The one place a connection is awaited on every action's path: its wait is the pool's.
    // The acquisition's and the writes' futures are boxed: they are large (the acquisition
    // holds a whole connection attempt), and inline they made this task's future large too,
    // which tokio copies whole three times as it spawns the task (callgrind: about 60,000
    // instructions a batch).
    let waiting = std::time::Instant::now();
    let acquired = Box::pin(pool.acquire()).await;
    metrics::histogram!(names::POOL_ACQUIRE_WAIT).record(waiting.elapsed().as_secs_f64());
    let mut conn = match acquired {
        Ok(conn) => conn,
        Err(error) => {
            for job in batch {
                let _ = job.written.send(Err(copy_error(&error)));
            }
            return;
        }
    };
    // Every append's mail goes through the outbox's one door, under its rules.
    let routes = crate::service::notices::queue::routes();
    let together = match batch.as_slice() {
        [job] => Box::pin(append::write_rows(&mut conn, &job.rows, routes)).await,
        _ => {
            let mut rows = Rows::default();
            for job in &batch {
                rows.extend(&job.rows);
            }
            Box::pin(append::write_rows(&mut conn, &rows, routes)).await
        }
    };
    let answers: Vec<Result<bool, sqlx::Error>> = match together {
        Ok(moved) => batch
            .iter()
            .map(|job| Ok(moved.contains(&job.game_id)))
            .collect(),
        Err(error) if batch.len() > 1 => {
            tracing::debug!(%error, appends = batch.len(), "a batch failed; writing it one by one");
            let mut answers = Vec::with_capacity(batch.len());
            for job in &batch {
                answers.push(written(
                    Box::pin(append::write_rows(&mut conn, &job.rows, routes)).await,
                ));
            }
            answers
        }
        Err(error) => vec![written(Err(error))],
    };
    for (job, answer) in batch.into_iter().zip(answers) {
        if matches!(answer, Ok(true)) {
            publisher.publish_text(job.note);
        }
        let _ = job.written.send(answer);
    }
}

/// The same failure to get a connection for each append of a batch (`sqlx::Error` is not
/// `Clone`), keeping its kind: the HTTP layer answers an unreachable database with 503.
fn copy_error(error: &sqlx::Error) -> sqlx::Error {
    match error {
        sqlx::Error::PoolTimedOut => sqlx::Error::PoolTimedOut,
        sqlx::Error::PoolClosed => sqlx::Error::PoolClosed,
        sqlx::Error::Io(io) => sqlx::Error::Io(std::io::Error::new(io.kind(), io.to_string())),
        other => sqlx::Error::Protocol(other.to_string()),
    }
}

/// Whether one append was written: a reused idempotency key means it lost to the first use.
fn written(result: Result<Vec<Uuid>, sqlx::Error>) -> Result<bool, sqlx::Error> {
    match result {
        Ok(moved) => Ok(!moved.is_empty()),
        Err(e) if append::is_reused_key(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::copy_error;

    #[test]
    fn a_lost_connection_keeps_its_kind_for_every_append_of_a_batch() {
        assert!(matches!(
            copy_error(&sqlx::Error::PoolTimedOut),
            sqlx::Error::PoolTimedOut
        ));
        let refused = sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert!(matches!(
            copy_error(&refused),
            sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused
        ));
        assert!(matches!(
            copy_error(&sqlx::Error::RowNotFound),
            sqlx::Error::Protocol(_)
        ));
    }
}
