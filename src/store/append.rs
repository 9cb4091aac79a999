//! Appending a command's outcome: one statement that moves the head row on only if the game
//! is still at the version the command was decided on, and with it appends the events and
//! writes the command record, the clocks, the seats, the mail and, now and then, the state
//! cache. A statement is
//! atomic, so either all of it happens or none; `write` says which.

use super::events::{Batch, EVENT_SCHEMA_VERSION};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgConnection;
use uuid::Uuid;

/// A deadline to arm (or re-arm) for a seat (`seat` -1: a rules timer).
#[derive(Clone, Debug, PartialEq)]
pub struct Deadline {
    pub seat: i16,
    /// `turn` (a player's clock), `bot` (the bot plays the seat now) or `timer`.
    pub kind: &'static str,
    pub turn_started_at: DateTime<Utc>,
    pub due_at: DateTime<Utc>,
    pub remind_at: Option<DateTime<Utc>>,
    pub timer_key: Option<String>,
}

/// The clocks one write arms and disarms (disjoint seats).
#[derive(Clone, Copy, Debug)]
pub struct Clocks<'a> {
    pub arm: &'a [Deadline],
    pub disarm: &'a [i16],
}

/// The record of the command that caused the events.
pub struct CommandRecord<'a> {
    pub id: Uuid,
    pub user_id: Option<Uuid>,
    pub idempotency_key: Option<&'a str>,
    pub request_hash: Option<&'a [u8]>,
    pub seat: Option<i16>,
    pub command: Value,
    /// The answer, as JSON text (replayed as is to a retry).
    pub response: String,
}

/// A change to a seat's row; `None` leaves a column as it is.
#[derive(Clone, Debug, Default)]
pub struct SeatUpdate {
    pub seat: i16,
    pub bank_secs: Option<i64>,
    pub timeouts: Option<i32>,
    pub state: Option<&'static str>,
}

/// Everything one command writes.
pub struct Append<'a, S: Serialize> {
    pub game_id: Uuid,
    /// The version the command was decided on: the write happens only if the head is there.
    pub expected_version: i64,
    pub version: i64,
    pub status: &'a str,
    pub pending: &'a [i16],
    pub outcome: Option<Value>,
    pub at: DateTime<Utc>,
    pub first_seq: i64,
    pub events: Batch<'a>,
    pub rules_version: i32,
    /// The state after the events, to cache (see `events::SNAPSHOT_EVERY`).
    pub snapshot: Option<&'a S>,
    pub command: CommandRecord<'a>,
    pub clocks: Clocks<'a>,
    pub seats: &'a [SeatUpdate],
    /// Mail to queue in the outbox (`mail_outbox`); delivery applies the preferences.
    pub mail: &'a [Mail<'a>],
}

/// A notice for the outbox, queued with the events that cause it.
pub struct Mail<'a> {
    pub user_id: Uuid,
    pub kind: &'a str,
    pub dedupe_key: &'a str,
    pub data: &'a Value,
}

/// The head row, the events and the command record: every append has them.
const CORE: &str = "moved AS (
       UPDATE games SET version = $3, status = $4, pending_seats = $5, outcome = $6,
                        finished_at = CASE WHEN $4 = 'finished' THEN $7 END,
                        turn_started_at = CASE WHEN pending_seats = $5 THEN turn_started_at
                                               ELSE $7 END
        WHERE id = $1 AND version = $2
       RETURNING id
     ), appended AS (
       INSERT INTO game_events (game_id, seq, type, schema_version, payload, audience, actor,
                                command_id, created_at)
       SELECT moved.id, e.seq, e.type, $8, e.payload, e.audience::smallint[], e.actor, $9, $7
         FROM moved, unnest($10::bigint[], $11::text[], $12::jsonb[], $13::text[], $14::smallint[])
              AS e(seq, type, payload, audience, actor)
     ), recorded AS (
       INSERT INTO game_commands (id, game_id, user_id, idempotency_key, request_hash, seat,
                                  command, first_seq, last_seq, response_status, response)
       SELECT $9, moved.id, $17, $18, $19, $20, $21, $22, $3, 200, $23 FROM moved
     )";

const SNAPSHOT: &str = "cached AS (
       -- The start writes the cache row. Were it missing (a rebuild under way), the state is
       -- folded from the log when next read, and the rebuild writes it anew.
       UPDATE game_state c SET version = $3, rules_version = $15, state = $16, updated_at = $7
         FROM moved WHERE c.game_id = moved.id
     )";

const DISARM: &str = "disarmed AS (
       DELETE FROM deadlines d USING moved WHERE d.game_id = moved.id AND d.seat = ANY($24)
     )";

const ARM: &str = "armed AS (
       INSERT INTO deadlines (game_id, seat, kind, turn_started_at, due_at, remind_at, timer_key)
       SELECT moved.id, a.seat, a.kind, a.started, a.due, a.remind, a.key
         FROM moved, unnest($25::smallint[], $26::text[], $27::timestamptz[],
                            $28::timestamptz[], $29::timestamptz[], $30::text[])
              AS a(seat, kind, started, due, remind, key)
       ON CONFLICT (game_id, seat) DO UPDATE
          SET kind = EXCLUDED.kind, turn_started_at = EXCLUDED.turn_started_at,
              due_at = EXCLUDED.due_at, remind_at = EXCLUDED.remind_at, reminded = false,
              timer_key = EXCLUDED.timer_key, leased_until = NULL
     )";

const SEATS: &str = "seated AS (
       UPDATE game_seats s
          SET bank_secs = COALESCE(u.bank, s.bank_secs),
              timeouts = COALESCE(u.timeouts, s.timeouts),
              state = COALESCE(u.state, s.state)
         FROM moved, unnest($31::smallint[], $32::bigint[], $33::int[], $34::text[])
              AS u(seat, bank, timeouts, state)
        WHERE s.game_id = moved.id AND s.seat = u.seat
     )";

const MAIL: &str = "mailed AS (
       INSERT INTO mail_outbox (id, user_id, kind, game_id, dedupe_key, data, status)
       SELECT m.id, m.user_id, m.kind, moved.id, m.key, m.data, 'pending'
         FROM moved, unnest($35::uuid[], $36::uuid[], $37::text[], $38::text[], $39::jsonb[])
              AS m(id, user_id, kind, key, data)
       ON CONFLICT (user_id, dedupe_key) DO NOTHING
     )";

/// Writes an append; `Ok(false)` if the game was no longer at `expected_version` (nothing
/// was written).
pub async fn write<S: Serialize + Sync>(
    conn: &mut PgConnection,
    append: &Append<'_, S>,
) -> Result<bool, sqlx::Error> {
    let arm = append.clocks.arm;
    let arm_seats: Vec<i16> = arm.iter().map(|d| d.seat).collect();
    let arm_kinds: Vec<&str> = arm.iter().map(|d| d.kind).collect();
    let arm_started: Vec<DateTime<Utc>> = arm.iter().map(|d| d.turn_started_at).collect();
    let arm_due: Vec<DateTime<Utc>> = arm.iter().map(|d| d.due_at).collect();
    let arm_remind: Vec<Option<DateTime<Utc>>> = arm.iter().map(|d| d.remind_at).collect();
    let arm_keys: Vec<Option<&str>> = arm.iter().map(|d| d.timer_key.as_deref()).collect();
    let seat_numbers: Vec<i16> = append.seats.iter().map(|s| s.seat).collect();
    let seat_banks: Vec<Option<i64>> = append.seats.iter().map(|s| s.bank_secs).collect();
    let seat_timeouts: Vec<Option<i32>> = append.seats.iter().map(|s| s.timeouts).collect();
    let seat_states: Vec<Option<&str>> = append.seats.iter().map(|s| s.state).collect();
    let command = &append.command;
    let mail_ids: Vec<Uuid> = append.mail.iter().map(|_| Uuid::now_v7()).collect();
    let mail_users: Vec<Uuid> = append.mail.iter().map(|m| m.user_id).collect();
    let mail_kinds: Vec<&str> = append.mail.iter().map(|m| m.kind).collect();
    let mail_keys: Vec<&str> = append.mail.iter().map(|m| m.dedupe_key).collect();
    let mail_data: Vec<&Value> = append.mail.iter().map(|m| m.data).collect();
    // Only the parts that have something to write are in the statement: every table a
    // statement touches costs locks and executor set-up, whether it writes a row or not.
    let mut parts = vec![CORE];
    let snapshot = match append.snapshot {
        Some(state) => {
            parts.push(SNAPSHOT);
            Some(serde_json::to_string(state).map_err(|e| sqlx::Error::Encode(Box::new(e)))?)
        }
        None => None,
    };
    if !append.clocks.disarm.is_empty() {
        parts.push(DISARM);
    }
    if !arm.is_empty() {
        parts.push(ARM);
    }
    if !append.seats.is_empty() {
        parts.push(SEATS);
    }
    if !append.mail.is_empty() {
        parts.push(MAIL);
    }
    let sql = format!("WITH {} SELECT count(*) FROM moved", parts.join(", "));
    let written: Result<i64, sqlx::Error> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(append.game_id)
        .bind(append.expected_version)
        .bind(append.version)
        .bind(append.status)
        .bind(append.pending)
        .bind(&append.outcome)
        .bind(append.at)
        .bind(EVENT_SCHEMA_VERSION)
        .bind(command.id)
        .bind(&append.events.seqs)
        .bind(&append.events.kinds)
        .bind(&append.events.payloads)
        .bind(&append.events.audiences)
        .bind(&append.events.actors)
        .bind(append.rules_version)
        .bind(snapshot)
        .bind(command.user_id)
        .bind(command.idempotency_key)
        .bind(command.request_hash)
        .bind(command.seat)
        .bind(&command.command)
        .bind(append.first_seq)
        .bind(&command.response)
        .bind(append.clocks.disarm)
        .bind(&arm_seats)
        .bind(&arm_kinds)
        .bind(&arm_started)
        .bind(&arm_due)
        .bind(&arm_remind)
        .bind(&arm_keys)
        .bind(&seat_numbers)
        .bind(&seat_banks)
        .bind(&seat_timeouts)
        .bind(&seat_states)
        .bind(&mail_ids)
        .bind(&mail_users)
        .bind(&mail_kinds)
        .bind(&mail_keys)
        .bind(&mail_data)
        .fetch_one(conn)
        .await;
    match written {
        Ok(written) => Ok(written >= 1),
        // The key was used before: nothing was written; the caller reads the stored answer.
        Err(sqlx::Error::Database(e))
            if e.constraint() == Some("game_commands_game_id_user_id_idempotency_key_key") =>
        {
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// Arms and disarms clocks outside an append (at the start of a game, when a player returns,
/// on vacations). The caller holds the game's row lock.
pub async fn arm(
    conn: &mut PgConnection,
    game_id: Uuid,
    clocks: Clocks<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM deadlines WHERE game_id = $1 AND seat = ANY($2)")
        .bind(game_id)
        .bind(clocks.disarm)
        .execute(&mut *conn)
        .await?;
    for deadline in clocks.arm {
        sqlx::query(
            "INSERT INTO deadlines (game_id, seat, kind, turn_started_at, due_at, remind_at, timer_key)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (game_id, seat) DO UPDATE
                SET kind = EXCLUDED.kind, turn_started_at = EXCLUDED.turn_started_at,
                    due_at = EXCLUDED.due_at, remind_at = EXCLUDED.remind_at, reminded = false,
                    timer_key = EXCLUDED.timer_key, leased_until = NULL",
        )
        .bind(game_id)
        .bind(deadline.seat)
        .bind(deadline.kind)
        .bind(deadline.turn_started_at)
        .bind(deadline.due_at)
        .bind(deadline.remind_at)
        .bind(&deadline.timer_key)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}
