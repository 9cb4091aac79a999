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

/// How often the state cache is written: when an append reaches a multiple of this version
/// (and when a game ends). Between two, a read folds the few events after the cached version,
/// which costs microseconds, where writing the state with every action would cost each
/// action a second row of a few kilobytes.
pub const SNAPSHOT_EVERY: i64 = 32;

/// A state cache: the state (JSON text) at `version`.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Snapshot {
    pub version: i64,
    pub state: String,
}

/// The cached state, if it was folded by `rules_version` at `version` or before.
pub async fn cached_state<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    version: i64,
    rules_version: i32,
) -> Result<Option<Snapshot>, sqlx::Error> {
    sqlx::query_as(
        "SELECT version, state FROM game_state
          WHERE game_id = $1 AND version <= $2 AND rules_version = $3",
    )
    .bind(game_id)
    .bind(version)
    .bind(rules_version)
    .fetch_optional(executor)
    .await
}

/// Writes the state cache for `version`.
pub async fn save_state<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    version: i64,
    rules_version: i32,
    state: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO game_state (game_id, version, rules_version, state) VALUES ($1, $2, $3, $4)
         ON CONFLICT (game_id) DO UPDATE
            SET version = EXCLUDED.version, rules_version = EXCLUDED.rules_version,
                state = EXCLUDED.state, updated_at = now()",
    )
    .bind(game_id)
    .bind(version)
    .bind(rules_version)
    .bind(state)
    .execute(executor)
    .await?;
    Ok(())
}
