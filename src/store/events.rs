//! The append-only event log and the state cache.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// Schema version of stored event payloads (of the envelope, not of a game's rules).
pub const EVENT_SCHEMA_VERSION: i32 = 1;

/// A stored event.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct EventRow {
    pub seq: i64,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub payload: Value,
    /// `None`: public; otherwise the seats that see the stored payload unredacted.
    pub audience: Option<Vec<i16>>,
    pub actor: Option<i16>,
    pub created_at: DateTime<Utc>,
    /// On the first event of a command the server played on its own: its marker
    /// (`game_commands.auto`); read only by [`load_presented`].
    #[sqlx(default)]
    pub auto: Option<Value>,
}

/// An event about to be appended.
pub struct NewEvent {
    pub kind: String,
    pub payload: Value,
    pub audience: Option<Vec<i16>>,
    pub actor: Option<i16>,
}

/// The columns of a batch of new events, as arrays for `unnest`.
pub struct Batch<'a> {
    pub seqs: Vec<i64>,
    pub kinds: Vec<&'a str>,
    pub payloads: Vec<&'a Value>,
    /// Postgres array literals (`{0,2}`) or NULL for public events.
    pub audiences: Vec<Option<String>>,
    pub actors: Vec<Option<i16>>,
}

impl<'a> Batch<'a> {
    pub fn new(events: &'a [NewEvent], first_seq: i64) -> Self {
        Self {
            seqs: (first_seq..first_seq + events.len() as i64).collect(),
            kinds: events.iter().map(|e| e.kind.as_str()).collect(),
            payloads: events.iter().map(|e| &e.payload).collect(),
            audiences: events
                .iter()
                .map(|e| e.audience.as_deref().map(super::array_literal))
                .collect(),
            actors: events.iter().map(|e| e.actor).collect(),
        }
    }
}

/// The current time at the database's precision (microseconds), so that what is answered
/// equals what is stored.
pub fn now_micros() -> DateTime<Utc> {
    let now = Utc::now();
    DateTime::from_timestamp_micros(now.timestamp_micros()).unwrap_or(now)
}

/// New events as the rows they become.
pub fn rows_of(events: &[NewEvent], first_seq: i64, at: DateTime<Utc>) -> Vec<EventRow> {
    events
        .iter()
        .zip(first_seq..)
        .map(|(e, seq)| EventRow {
            seq,
            kind: e.kind.clone(),
            payload: e.payload.clone(),
            audience: e.audience.clone(),
            actor: e.actor,
            created_at: at,
            auto: None,
        })
        .collect()
}

/// Appends `events` with sequence numbers `first_seq..`. The primary key `(game_id, seq)` is
/// the backstop against two writers; the caller holds the game's row lock.
pub async fn append(
    conn: &mut PgConnection,
    game_id: Uuid,
    first_seq: i64,
    command_id: Option<Uuid>,
    events: &[NewEvent],
) -> Result<(), sqlx::Error> {
    if events.is_empty() {
        return Ok(());
    }
    let batch = Batch::new(events, first_seq);
    sqlx::query(
        "INSERT INTO game_events (game_id, seq, type, schema_version, payload, audience, actor, command_id)
         SELECT $1, e.seq, e.type, $2, e.payload, e.audience::smallint[], e.actor, $3
           FROM unnest($4::bigint[], $5::text[], $6::jsonb[], $7::text[], $8::smallint[])
                AS e(seq, type, payload, audience, actor)",
    )
    .bind(game_id)
    .bind(EVENT_SCHEMA_VERSION)
    .bind(command_id)
    .bind(&batch.seqs)
    .bind(&batch.kinds)
    .bind(&batch.payloads)
    .bind(&batch.audiences)
    .bind(&batch.actors)
    .execute(conn)
    .await?;
    Ok(())
}

/// Events with `from <= seq <= to`, in order.
pub async fn load<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    from: i64,
    to: i64,
) -> Result<Vec<EventRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT seq, type, payload, audience, actor, created_at FROM game_events
          WHERE game_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq",
    )
    .bind(game_id)
    .bind(from)
    .bind(to)
    .fetch_all(executor)
    .await
}

/// Events with `from <= seq <= to`, in order, each first event of a command the server
/// played on its own with its marker (`EventRow::auto`): the log as it is served.
pub async fn load_presented<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    from: i64,
    to: i64,
) -> Result<Vec<EventRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT e.seq, e.type, e.payload, e.audience, e.actor, e.created_at, c.auto
           FROM game_events e
           LEFT JOIN game_commands c
             ON c.game_id = e.game_id AND c.first_seq = e.seq AND c.auto IS NOT NULL
          WHERE e.game_id = $1 AND e.seq BETWEEN $2 AND $3 ORDER BY e.seq",
    )
    .bind(game_id)
    .bind(from)
    .bind(to)
    .fetch_all(executor)
    .await
}

/// How often a snapshot is kept: at every version that is a multiple of this (and at a
/// game's start and end, and after an undo). Any version folds from the greatest snapshot at
/// or below it (`game_snapshots`), fewer than `SNAPSHOT_EVERY` versions away: a command from
/// the latest, folding the few events after it, which costs microseconds, where writing the
/// state with every action would cost each action a second row of a few kilobytes; a view of
/// a past version from the one below it. (The latest was also written to a one-row cache,
/// `game_state`: the same state twice. Nothing reads it now; older instances still write it
/// during a rolling upgrade, and `kontor rebuild` clears it.)
pub const SNAPSHOT_EVERY: i64 = 32;

/// The versions in `(after, to]` at which a snapshot is kept, in order: the multiples of
/// [`SNAPSHOT_EVERY`], and `to` itself if the game ends there.
pub fn snapshot_versions(after: i64, to: i64, ends: bool) -> Vec<i64> {
    let first = (after / SNAPSHOT_EVERY + 1) * SNAPSHOT_EVERY;
    let mut versions: Vec<i64> = (first..=to).step_by(SNAPSHOT_EVERY as usize).collect();
    if ends && versions.last() != Some(&to) && to > after {
        versions.push(to);
    }
    versions
}

/// The sequence numbers of a game's `kontor.rewound` events, in order: a snapshot is kept at
/// each (a fold from the nearest snapshot never crosses a rewind).
pub async fn rewind_seqs<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Vec<i64>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT seq FROM game_events WHERE game_id = $1 AND type = 'kontor.rewound' ORDER BY seq",
    )
    .bind(game_id)
    .fetch_all(executor)
    .await
}

/// A game's `kontor.rewound` events at `up_to` or before: (seq, type, payload) rows for
/// `service::play::undo::Skip`.
pub async fn rewinds<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    up_to: i64,
) -> Result<Vec<(i64, String, Value)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT seq, type, payload FROM game_events
          WHERE game_id = $1 AND type = 'kontor.rewound' AND seq <= $2 ORDER BY seq",
    )
    .bind(game_id)
    .bind(up_to)
    .fetch_all(executor)
    .await
}

/// The versions at which a game of version `version` keeps snapshots when its log is
/// folded whole (`kontor rebuild`, an import): [`snapshot_versions`] and every rewind.
pub fn ladder(version: i64, rewinds: &[i64]) -> Vec<i64> {
    let mut versions = snapshot_versions(0, version, true);
    versions.extend(rewinds.iter().copied().filter(|&r| r <= version));
    versions.sort_unstable();
    versions.dedup();
    versions
}

/// A state cache: the state (JSON text) at `version`.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Snapshot {
    pub version: i64,
    pub state: String,
}

/// The snapshot a fold to `version` starts from: the greatest one at `version` or before that
/// was folded by `rules_version`.
pub async fn cached_state<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    version: i64,
    rules_version: i32,
) -> Result<Option<Snapshot>, sqlx::Error> {
    sqlx::query_as(
        "SELECT version, state FROM game_snapshots
          WHERE game_id = $1 AND version <= $2 AND rules_version = $3
          ORDER BY version DESC LIMIT 1",
    )
    .bind(game_id)
    .bind(version)
    .bind(rules_version)
    .fetch_optional(executor)
    .await
}

/// The version of the snapshot a fold to `version` would start from (see [`cached_state`]).
pub async fn snapshot_below<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    version: i64,
    rules_version: i32,
) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT max(version) FROM game_snapshots
          WHERE game_id = $1 AND version <= $2 AND rules_version = $3",
    )
    .bind(game_id)
    .bind(version)
    .bind(rules_version)
    .fetch_one(executor)
    .await
}

/// A kept snapshot, as `kontor replay --check` reads it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct StoredSnapshot {
    pub version: i64,
    pub rules_version: i32,
    pub state: Value,
}

/// Every snapshot kept of a game, by version.
pub async fn snapshots<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Vec<StoredSnapshot>, sqlx::Error> {
    sqlx::query_as(
        "SELECT version, rules_version, state::jsonb AS state FROM game_snapshots
          WHERE game_id = $1 ORDER BY version",
    )
    .bind(game_id)
    .fetch_all(executor)
    .await
}

/// Drops every snapshot (`kontor rebuild` writes them anew), and the state caches that
/// earlier versions wrote (see [`SNAPSHOT_EVERY`]).
pub async fn delete_all_states<'e>(executor: impl PgExecutor<'e>) -> Result<(), sqlx::Error> {
    sqlx::query("WITH gone AS (DELETE FROM game_snapshots) DELETE FROM game_state")
        .execute(executor)
        .await?;
    Ok(())
}

/// Keeps the snapshot of `version` (replacing one there).
pub async fn save_snapshot<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    version: i64,
    rules_version: i32,
    state: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO game_snapshots (game_id, version, rules_version, state)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (game_id, version) DO UPDATE
            SET rules_version = EXCLUDED.rules_version, state = EXCLUDED.state",
    )
    .bind(game_id)
    .bind(version)
    .bind(rules_version)
    .bind(state)
    .execute(executor)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{SNAPSHOT_EVERY, snapshot_versions};

    #[test]
    fn snapshots_are_kept_at_every_multiple_passed_and_at_the_end() {
        assert_eq!(snapshot_versions(0, 31, false), Vec::<i64>::new());
        assert_eq!(snapshot_versions(31, 32, false), vec![32]);
        assert_eq!(snapshot_versions(32, 33, false), Vec::<i64>::new());
        // One command with many events passes several multiples.
        assert_eq!(snapshot_versions(30, 100, false), vec![32, 64, 96]);
        assert_eq!(snapshot_versions(30, 100, true), vec![32, 64, 96, 100]);
        // An end on a multiple is kept once.
        assert_eq!(snapshot_versions(60, 64, true), vec![64]);
        assert_eq!(snapshot_versions(64, 64, true), Vec::<i64>::new());
        // Every version from 1 on has one fewer than SNAPSHOT_EVERY versions above it.
        let ladder = snapshot_versions(0, 1000, true);
        for version in 1..=1000 {
            let from = ladder
                .iter()
                .rev()
                .find(|&&v| v <= version)
                .copied()
                .unwrap_or(0);
            assert!(version - from < SNAPSHOT_EVERY, "{version} from {from}");
        }
    }
}
