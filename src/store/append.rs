//! Appending a command's outcome: one statement that moves the head row on only if the game
//! is still at the version the command was decided on, and with it appends the events and
//! writes the command record, the clocks, the seats, the mail and, now and then, a snapshot
//! of the state. A statement is
//! atomic, so either all of it happens or none; `write` says which.

use super::deadlines::DeadlineKind;
use super::events::{Batch, EVENT_SCHEMA_VERSION};
use super::outbox::NewMail;
use super::seats::SeatState;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgConnection;
use std::sync::LazyLock;
use uuid::Uuid;

/// A deadline to arm (or re-arm) for a seat (`seat` -1: a rules timer).
#[derive(Clone, Debug, PartialEq)]
pub struct Deadline {
    pub seat: i16,
    pub kind: DeadlineKind,
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

/// The record of a command that caused events: the submitted one, or one the server played
/// on its own after it (`auto`), each with its own events.
pub struct CommandRecord<'a> {
    pub id: Uuid,
    pub user_id: Option<Uuid>,
    pub idempotency_key: Option<&'a str>,
    pub request_hash: Option<&'a [u8]>,
    pub seat: Option<i16>,
    pub command: Value,
    /// The answer, as JSON text (replayed as is to a retry within the idempotency window; not
    /// stored for a command without a key, which no retry can ask for).
    pub response: String,
    /// Its events: `first_seq..=last_seq`.
    pub first_seq: i64,
    pub last_seq: i64,
    /// Why the server played it (`{"kind": "forced", ...}`), `None` for a submitted one.
    pub auto: Option<Value>,
}

/// A change to a seat's row; `None` leaves a column as it is.
#[derive(Clone, Debug, Default)]
pub struct SeatUpdate {
    pub seat: i16,
    pub bank_secs: Option<i64>,
    pub timeouts: Option<i32>,
    pub state: Option<SeatState>,
}

/// Everything one command writes.
pub struct Append<'a, S: Serialize> {
    pub game_id: Uuid,
    /// The version the command was decided on: the write happens only if the head is there.
    pub expected_version: i64,
    pub version: i64,
    /// `games.undone_events` after the append (see `service::play::undo::timeline`).
    pub undone_events: i64,
    pub status: &'a str,
    pub pending: &'a [i16],
    pub outcome: Option<Value>,
    pub at: DateTime<Utc>,
    pub first_seq: i64,
    pub events: Batch<'a>,
    pub rules_version: i32,
    /// The states to keep as snapshots, by version in order, at versions among those of the
    /// events (see `events::snapshot_versions`); the last one is where commands start folding.
    pub snapshots: &'a [(i64, S)],
    /// The commands, in order: they cover the events, each its own range.
    pub commands: Vec<CommandRecord<'a>>,
    /// The game's orders revision the commands were decided with: the append is written only
    /// if it is still that (`None`: not checked, the caller holds the game's row lock).
    pub orders_revision: Option<i64>,
    /// The standing-order rows of seats that changed (see `store::orders`).
    pub orders: &'a [super::orders::OrderRow],
    pub clocks: Clocks<'a>,
    pub seats: &'a [SeatUpdate],
    /// Mail to queue in the outbox (`mail_outbox`), through its one door
    /// ([`super::outbox::queue_sql`]): each recipient's preferences apply as they do to every
    /// other mail, and a mail due now wakes the delivery workers on commit. The game's id is
    /// each mail's, whatever its `game_id` says.
    pub mail: &'a [NewMail<'a>],
    /// The batch lapses the game's open undo request (`kontor.undo_lapsed` as its preface):
    /// its projection (`undo_requests`) is removed with it.
    pub closes_undo: bool,
}

/// The rows of one or more appends (of different games), as the columns the statement
/// `unnest`s: each row carries its game's id, and each part joins the head rows that moved, so
/// every game's append is written or not on its own compare-and-set.
#[derive(Default)]
pub struct Rows {
    // One per game.
    game_ids: Vec<Uuid>,
    expected_versions: Vec<i64>,
    versions: Vec<i64>,
    undone_events: Vec<i64>,
    statuses: Vec<String>,
    /// Postgres array literals (`{0,2}`): arrays of arrays must be rectangular.
    pendings: Vec<String>,
    outcomes: Vec<Option<Value>>,
    ats: Vec<DateTime<Utc>>,
    orders_revisions: Vec<Option<i64>>,
    // One per event.
    event_games: Vec<Uuid>,
    event_seqs: Vec<i64>,
    event_kinds: Vec<String>,
    event_payloads: Vec<Value>,
    event_audiences: Vec<Option<String>>,
    event_actors: Vec<Option<i16>>,
    event_commands: Vec<Uuid>,
    event_ats: Vec<DateTime<Utc>>,
    // One per command.
    command_games: Vec<Uuid>,
    command_ids: Vec<Uuid>,
    command_users: Vec<Option<Uuid>>,
    command_keys: Vec<Option<String>>,
    command_hashes: Vec<Option<Vec<u8>>>,
    command_seats: Vec<Option<i16>>,
    commands: Vec<Value>,
    command_first_seqs: Vec<i64>,
    command_last_seqs: Vec<i64>,
    command_responses: Vec<Option<String>>,
    command_autos: Vec<Option<Value>>,
    // One per state snapshot.
    snapshot_games: Vec<Uuid>,
    snapshot_rules_versions: Vec<i32>,
    snapshot_states: Vec<String>,
    snapshot_versions: Vec<i64>,
    // One per clock to disarm, and per clock to arm.
    disarm_games: Vec<Uuid>,
    disarm_seats: Vec<i16>,
    arm_games: Vec<Uuid>,
    arm_seats: Vec<i16>,
    arm_kinds: Vec<DeadlineKind>,
    arm_started: Vec<DateTime<Utc>>,
    arm_due: Vec<DateTime<Utc>>,
    arm_remind: Vec<Option<DateTime<Utc>>>,
    arm_keys: Vec<Option<String>>,
    // One per seat update.
    seat_games: Vec<Uuid>,
    seat_numbers: Vec<i16>,
    seat_banks: Vec<Option<i64>>,
    seat_timeouts: Vec<Option<i32>>,
    seat_states: Vec<Option<SeatState>>,
    // One per mail.
    mail_ids: Vec<Uuid>,
    mail_games: Vec<Uuid>,
    mail_users: Vec<Uuid>,
    mail_kinds: Vec<String>,
    mail_keys: Vec<String>,
    mail_data: Vec<Value>,
    // One per game whose open undo request the append lapses.
    undo_closed_games: Vec<Uuid>,
    // One per seat whose standing orders changed.
    order_games: Vec<Uuid>,
    order_seats: Vec<i16>,
    order_users: Vec<Uuid>,
    order_lists: Vec<Value>,
    order_next_ids: Vec<i64>,
    order_news: Vec<Value>,
    order_mailed: Vec<i64>,
}

impl Rows {
    /// The rows of one append.
    pub fn of<S: Serialize>(append: &Append<'_, S>) -> Result<Self, sqlx::Error> {
        let mut rows = Self::default();
        let game = append.game_id;
        rows.game_ids.push(game);
        rows.expected_versions.push(append.expected_version);
        rows.versions.push(append.version);
        rows.undone_events.push(append.undone_events);
        rows.statuses.push(append.status.to_string());
        rows.pendings.push(super::array_literal(append.pending));
        rows.outcomes.push(append.outcome.clone());
        rows.ats.push(append.at);
        rows.orders_revisions.push(append.orders_revision);
        let events = &append.events;
        for i in 0..events.seqs.len() {
            let seq = events.seqs[i];
            // An event belongs to the last command that begins at or before it.
            let command = append
                .commands
                .iter()
                .rev()
                .find(|c| c.first_seq <= seq)
                .or(append.commands.first())
                .ok_or_else(|| sqlx::Error::Protocol("an append without a command".into()))?;
            rows.event_games.push(game);
            rows.event_seqs.push(seq);
            rows.event_kinds.push(events.kinds[i].to_string());
            rows.event_payloads.push(events.payloads[i].clone());
            rows.event_audiences.push(events.audiences[i].clone());
            rows.event_actors.push(events.actors[i]);
            rows.event_commands.push(command.id);
            rows.event_ats.push(append.at);
        }
        for command in &append.commands {
            rows.command_games.push(game);
            rows.command_ids.push(command.id);
            rows.command_users.push(command.user_id);
            rows.command_keys
                .push(command.idempotency_key.map(str::to_string));
            rows.command_hashes
                .push(command.request_hash.map(<[u8]>::to_vec));
            rows.command_seats.push(command.seat);
            rows.commands.push(command.command.clone());
            rows.command_first_seqs.push(command.first_seq);
            rows.command_last_seqs.push(command.last_seq);
            rows.command_responses.push(
                command
                    .idempotency_key
                    .is_some()
                    .then(|| command.response.clone()),
            );
            rows.command_autos.push(command.auto.clone());
        }
        for row in append.orders {
            rows.order_games.push(game);
            rows.order_seats.push(row.seat);
            rows.order_users.push(row.user_id);
            rows.order_lists.push(row.orders.clone());
            rows.order_next_ids.push(row.next_id);
            rows.order_news.push(row.news.clone());
            rows.order_mailed.push(row.mailed_through);
        }
        for (version, state) in append.snapshots {
            rows.snapshot_games.push(game);
            rows.snapshot_versions.push(*version);
            rows.snapshot_rules_versions.push(append.rules_version);
            rows.snapshot_states
                .push(serde_json::to_string(state).map_err(|e| sqlx::Error::Encode(Box::new(e)))?);
        }
        for &seat in append.clocks.disarm {
            rows.disarm_games.push(game);
            rows.disarm_seats.push(seat);
        }
        for deadline in append.clocks.arm {
            rows.arm_games.push(game);
            rows.arm_seats.push(deadline.seat);
            rows.arm_kinds.push(deadline.kind);
            rows.arm_started.push(deadline.turn_started_at);
            rows.arm_due.push(deadline.due_at);
            rows.arm_remind.push(deadline.remind_at);
            rows.arm_keys.push(deadline.timer_key.clone());
        }
        for update in append.seats {
            rows.seat_games.push(game);
            rows.seat_numbers.push(update.seat);
            rows.seat_banks.push(update.bank_secs);
            rows.seat_timeouts.push(update.timeouts);
            rows.seat_states.push(update.state);
        }
        if append.closes_undo {
            rows.undo_closed_games.push(game);
        }
        for mail in append.mail {
            rows.mail_ids.push(Uuid::now_v7());
            rows.mail_games.push(game);
            rows.mail_users.push(mail.user_id);
            rows.mail_kinds.push(mail.kind.to_string());
            rows.mail_keys.push(mail.dedupe_key.to_string());
            rows.mail_data.push(mail.data.clone());
        }
        Ok(rows)
    }

    /// The games these rows append to, one per append.
    pub fn game_ids(&self) -> &[Uuid] {
        &self.game_ids
    }

    /// Adds (a copy of) another append's rows, of another game: a batch holds each game once.
    pub fn extend(&mut self, other: &Rows) {
        macro_rules! extend {
            ($($field:ident),*) => { $(self.$field.extend_from_slice(&other.$field);)* };
        }
        extend!(
            game_ids,
            expected_versions,
            versions,
            undone_events,
            statuses,
            pendings,
            outcomes,
            ats,
            orders_revisions,
            event_games,
            event_seqs,
            event_kinds,
            event_payloads,
            event_audiences,
            event_actors,
            event_commands,
            event_ats,
            command_games,
            command_ids,
            command_users,
            command_keys,
            command_hashes,
            command_seats,
            commands,
            command_first_seqs,
            command_last_seqs,
            command_responses,
            command_autos,
            snapshot_games,
            snapshot_rules_versions,
            snapshot_states,
            snapshot_versions,
            disarm_games,
            disarm_seats,
            arm_games,
            arm_seats,
            arm_kinds,
            arm_started,
            arm_due,
            arm_remind,
            arm_keys,
            seat_games,
            seat_numbers,
            seat_banks,
            seat_timeouts,
            seat_states,
            mail_ids,
            mail_games,
            mail_users,
            mail_kinds,
            mail_keys,
            mail_data,
            undo_closed_games,
            order_games,
            order_seats,
            order_users,
            order_lists,
            order_next_ids,
            order_news,
            order_mailed
        );
    }
}

/// The head rows, the events and the command records: every append has them.
const CORE: &str = "moved AS (
       UPDATE games g
          SET version = i.version, status = i.status, pending_seats = i.pending::smallint[],
              outcome = i.outcome, undone_events = i.undone,
              finished_at = CASE WHEN i.status = 'finished' THEN i.at END,
              turn_started_at = CASE WHEN g.pending_seats = i.pending::smallint[]
                                     THEN g.turn_started_at ELSE i.at END
         FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::text[],
                     $6::jsonb[], $7::timestamptz[], $50::bigint[], $52::bigint[])
              AS i(id, expected, version, status, pending, outcome, at, undone, orders)
        WHERE g.id = i.id AND g.version = i.expected
          AND (i.orders IS NULL OR g.orders_revision = i.orders)
       RETURNING g.id, i.version
     ), appended AS (
       INSERT INTO game_events (game_id, seq, type, schema_version, payload, audience, actor,
                                command_id, created_at)
       SELECT e.game_id, e.seq, e.type, $8, e.payload, e.audience::smallint[], e.actor,
              e.command_id, e.at
         FROM unnest($9::uuid[], $10::bigint[], $11::text[], $12::jsonb[], $13::text[],
                     $14::smallint[], $15::uuid[], $16::timestamptz[])
              AS e(game_id, seq, type, payload, audience, actor, command_id, at)
         JOIN moved ON moved.id = e.game_id
     ), recorded AS (
       INSERT INTO game_commands (id, game_id, user_id, idempotency_key, request_hash, seat,
                                  command, first_seq, last_seq, response_status, response
                                  , auto)
       SELECT c.id, c.game_id, c.user_id, c.key, c.hash, c.seat, c.command, c.first_seq,
              c.last_seq, 200, c.response, c.auto
         FROM unnest($17::uuid[], $18::uuid[], $19::uuid[], $20::text[], $21::bytea[],
                     $22::smallint[], $23::jsonb[], $24::bigint[], $25::text[], $53::bigint[],
                     $54::jsonb[])
              AS c(id, game_id, user_id, key, hash, seat, command, first_seq, response, last_seq,
                   auto)
         JOIN moved ON moved.id = c.game_id
     )";

const SNAPSHOT: &str = "snapshots AS (
       SELECT s.game_id, s.version, s.rules_version, s.state
         FROM unnest($26::uuid[], $49::bigint[], $27::int[], $28::text[])
              AS s(game_id, version, rules_version, state)
         JOIN moved ON moved.id = s.game_id
     ), kept AS (
       -- Written already only if a rebuild got there first: it folded the same state.
       INSERT INTO game_snapshots (game_id, version, rules_version, state)
       SELECT game_id, version, rules_version, state FROM snapshots
       ON CONFLICT (game_id, version) DO NOTHING
     )";

const DISARM: &str = "disarmed AS (
       DELETE FROM deadlines d
        USING unnest($29::uuid[], $30::smallint[]) AS x(game_id, seat)
         JOIN moved ON moved.id = x.game_id
        WHERE d.game_id = x.game_id AND d.seat = x.seat
     )";

/// The upsert that arms clocks, from `rows`: an SQL FROM item with the columns
/// `a(game_id, seat, kind, started, due, remind, key)`. Arming a seat that has a clock
/// replaces it with a fresh one (not reminded, not leased). Used by the append statement and
/// by [`arm`].
fn arm_sql(rows: &str) -> String {
    format!(
        "INSERT INTO deadlines (game_id, seat, kind, turn_started_at, due_at, remind_at, timer_key)
         SELECT a.game_id, a.seat, a.kind, a.started, a.due, a.remind, a.key
           FROM {rows}
         ON CONFLICT (game_id, seat) DO UPDATE
            SET kind = EXCLUDED.kind, turn_started_at = EXCLUDED.turn_started_at,
                due_at = EXCLUDED.due_at, remind_at = EXCLUDED.remind_at, reminded = false,
                timer_key = EXCLUDED.timer_key, leased_until = NULL"
    )
}

static ARM: LazyLock<String> = LazyLock::new(|| {
    format!(
        "armed AS ({})",
        arm_sql(
            "unnest($31::uuid[], $32::smallint[], $33::text[], $34::timestamptz[],
                    $35::timestamptz[], $36::timestamptz[], $37::text[])
                 AS a(game_id, seat, kind, started, due, remind, key)
            JOIN moved ON moved.id = a.game_id"
        )
    )
});

const SEATS: &str = "seated AS (
       UPDATE game_seats s
          SET bank_secs = COALESCE(u.bank, s.bank_secs),
              timeouts = COALESCE(u.timeouts, s.timeouts),
              state = COALESCE(u.state, s.state)
         FROM unnest($38::uuid[], $39::smallint[], $40::bigint[], $41::int[], $42::text[])
              AS u(game_id, seat, bank, timeouts, state)
         JOIN moved ON moved.id = u.game_id
        WHERE s.game_id = u.game_id AND s.seat = u.seat
     )";

static MAIL: LazyLock<String> = LazyLock::new(|| {
    super::outbox::queue_sql(
        "unnest($43::uuid[], $44::uuid[], $45::uuid[], $46::text[], $47::text[], $48::jsonb[])
             AS m(id, game_id, user_id, kind, key, data)
        JOIN moved ON moved.id = m.game_id",
        "$62::jsonb",
    )
});

static ORDERS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "ordered AS (
       INSERT INTO game_orders AS o (game_id, seat, user_id, orders, next_id, news,
                                     mailed_through, updated_at)
       SELECT x.game_id, x.seat, x.user_id, x.orders, x.next_id, x.news, x.mailed_through,
              moved_at.at
         FROM unnest($55::uuid[], $56::smallint[], $57::uuid[], $58::jsonb[], $59::bigint[],
                     $60::jsonb[], $61::bigint[])
              AS x(game_id, seat, user_id, orders, next_id, news, mailed_through)
         JOIN moved ON moved.id = x.game_id
         JOIN unnest($1::uuid[], $7::timestamptz[]) AS moved_at(id, at) ON moved_at.id = x.game_id
       {}
     )",
        super::orders::UPSERT
    )
});

const UNDO_CLOSED: &str = "undo_closed AS (
       DELETE FROM undo_requests u
        USING unnest($51::uuid[]) AS x(game_id)
         JOIN moved ON moved.id = x.game_id
        WHERE u.game_id = x.game_id
     )";

/// The constraint a reused idempotency key violates.
const IDEMPOTENCY_KEY: &str = "game_commands_game_id_user_id_idempotency_key_key";

/// Whether an error is a reused idempotency key: the append lost to the first use of it.
pub fn is_reused_key(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(e) if e.constraint() == Some(IDEMPOTENCY_KEY))
}

/// Writes the rows of one or more appends in one statement; returns the games whose appends
/// were written (their head was still at the expected version). A statement is atomic: an
/// error (a reused idempotency key among them) writes none of them. Their mail is queued as
/// `routes` says (see [`super::outbox::queue_sql`]); however many mails are due, the delivery
/// workers are notified once.
pub async fn write_rows(
    conn: &mut PgConnection,
    rows: &Rows,
    routes: &Value,
) -> Result<Vec<Uuid>, sqlx::Error> {
    // Only the parts that have something to write are in the statement: every table a
    // statement touches costs locks and executor set-up, whether it writes a row or not.
    let mut parts = vec![CORE];
    for (part, needed) in [
        (SNAPSHOT, !rows.snapshot_games.is_empty()),
        (DISARM, !rows.disarm_games.is_empty()),
        (ARM.as_str(), !rows.arm_games.is_empty()),
        (SEATS, !rows.seat_games.is_empty()),
        (MAIL.as_str(), !rows.mail_games.is_empty()),
        (UNDO_CLOSED, !rows.undo_closed_games.is_empty()),
        (ORDERS.as_str(), !rows.order_games.is_empty()),
    ] {
        if needed {
            parts.push(part);
        }
    }
    let mailed = !rows.mail_games.is_empty();
    let sql = format!(
        "WITH {} SELECT id{} FROM moved",
        parts.join(", "),
        if mailed {
            format!(", {}", super::outbox::WOKEN)
        } else {
            String::new()
        }
    );
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(&rows.game_ids)
        .bind(&rows.expected_versions)
        .bind(&rows.versions)
        .bind(&rows.statuses)
        .bind(&rows.pendings)
        .bind(&rows.outcomes)
        .bind(&rows.ats)
        .bind(EVENT_SCHEMA_VERSION)
        .bind(&rows.event_games)
        .bind(&rows.event_seqs)
        .bind(&rows.event_kinds)
        .bind(&rows.event_payloads)
        .bind(&rows.event_audiences)
        .bind(&rows.event_actors)
        .bind(&rows.event_commands)
        .bind(&rows.event_ats)
        .bind(&rows.command_ids)
        .bind(&rows.command_games)
        .bind(&rows.command_users)
        .bind(&rows.command_keys)
        .bind(&rows.command_hashes)
        .bind(&rows.command_seats)
        .bind(&rows.commands)
        .bind(&rows.command_first_seqs)
        .bind(&rows.command_responses)
        .bind(&rows.snapshot_games)
        .bind(&rows.snapshot_rules_versions)
        .bind(&rows.snapshot_states)
        .bind(&rows.disarm_games)
        .bind(&rows.disarm_seats)
        .bind(&rows.arm_games)
        .bind(&rows.arm_seats)
        .bind(&rows.arm_kinds)
        .bind(&rows.arm_started)
        .bind(&rows.arm_due)
        .bind(&rows.arm_remind)
        .bind(&rows.arm_keys)
        .bind(&rows.seat_games)
        .bind(&rows.seat_numbers)
        .bind(&rows.seat_banks)
        .bind(&rows.seat_timeouts)
        .bind(&rows.seat_states)
        .bind(&rows.mail_ids)
        .bind(&rows.mail_games)
        .bind(&rows.mail_users)
        .bind(&rows.mail_kinds)
        .bind(&rows.mail_keys)
        .bind(&rows.mail_data)
        .bind(&rows.snapshot_versions)
        .bind(&rows.undone_events)
        .bind(&rows.undo_closed_games)
        .bind(&rows.orders_revisions)
        .bind(&rows.command_last_seqs)
        .bind(&rows.command_autos)
        .bind(&rows.order_games)
        .bind(&rows.order_seats)
        .bind(&rows.order_users)
        .bind(&rows.order_lists)
        .bind(&rows.order_next_ids)
        .bind(&rows.order_news)
        .bind(&rows.order_mailed)
        .bind(routes)
        .fetch_all(conn)
        .await
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
        sqlx::query(sqlx::AssertSqlSafe(arm_sql(
            "(VALUES ($1::uuid, $2::smallint, $3::text, $4::timestamptz, $5::timestamptz,
                      $6::timestamptz, $7::text))
                 AS a(game_id, seat, kind, started, due, remind, key)",
        )))
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
