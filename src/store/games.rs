//! Game head rows: creating, reading, starting, cancelling and listing games.

pub use super::seats::{SeatRow, seat_of, seats};

use super::audience::{PLAYERS_ONLY, blocked_with_seated};
use super::seats;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// The lifecycle of a game (`games.status`, stored as text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum Status {
    Open,
    Active,
    Finished,
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Active => "active",
            Status::Finished => "finished",
            Status::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Open, Self::Active, Self::Finished, Self::Cancelled]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// A game's head row.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct GameHead {
    pub id: Uuid,
    pub kind: String,
    pub rules_version: i32,
    pub options: Value,
    pub seat_count: i16,
    pub visibility: String,
    pub status: Status,
    pub version: i64,
    pub created_by: Uuid,
    pub seed: Vec<u8>,
    pub seed_commitment: String,
    pub nonces: Option<Vec<String>>,
    pub pending_seats: Vec<i16>,
    pub outcome: Option<Value>,
    pub sandbox: bool,
    pub imported_from: Option<Uuid>,
    /// The time control (`service::clock::TimeControl`), if the game has one.
    pub time_control: Option<Value>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    pub turn_started_at: Option<DateTime<Utc>>,
    /// The events of the log that do not count (undone by a rewind, and the undo events
    /// themselves): a command's RNG step is `first_seq - undone_events` (see
    /// `service::play::undo::timeline`).
    pub undone_events: i64,
}

impl GameHead {
    pub fn status(&self) -> Status {
        self.status
    }

    /// The secret seed as the fixed-size key of the game RNG.
    pub fn seed_bytes(&self) -> [u8; 32] {
        let mut seed = [0u8; 32];
        let n = self.seed.len().min(32);
        seed[..n].copy_from_slice(&self.seed[..n]);
        seed
    }
}

/// The columns of a head row (as [`GameHead`] reads them) from `games g`: the one list every
/// query reading head rows uses.
pub const HEAD_COLUMNS: &str = "g.id, g.kind, g.rules_version, g.options, g.seat_count, g.visibility, \
     g.status, g.version, g.created_by, g.seed, g.seed_commitment, g.nonces, g.pending_seats, \
     g.outcome, g.sandbox, g.imported_from, g.time_control, g.created_at, g.started_at, \
     g.finished_at, g.turn_started_at, g.undone_events";

/// Reads a head row without locking.
pub async fn head<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Option<GameHead>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {HEAD_COLUMNS} FROM games g WHERE g.id = $1"
    )))
    .bind(game_id)
    .fetch_optional(executor)
    .await
}

/// Reads and locks a head row: every change to a game happens under this lock.
pub async fn lock_head(
    conn: &mut PgConnection,
    game_id: Uuid,
) -> Result<Option<GameHead>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {HEAD_COLUMNS} FROM games g WHERE g.id = $1 FOR UPDATE"
    )))
    .bind(game_id)
    .fetch_optional(conn)
    .await
}

/// Reads everything a command on a game needs in one statement (one consistent snapshot):
/// the head row, the seats with their clocks (`seat_clocks`, see [`seats::clocks_sql`]), the
/// armed rules timer (`armed_timer`), the state cache at the head's version or before
/// (`cached_version`, `cached_state`), the open undo request (`open_undo`, its number) and
/// what is stored for `caller`'s
/// `idempotency_key` (`stored_hash`, `stored_status`, `stored_response`, the first and last
/// versions of its events `stored_first_seq` and `stored_version`, its seat `stored_seat`,
/// when it was recorded `stored_at`;
/// `stored_response` is gone once housekeeping trimmed it), and the standing
/// orders of every seat (`orders`, see [`super::orders`]) with their revision
/// (`orders_revision`).
pub async fn read_for_command<T>(
    conn: &mut PgConnection,
    game_id: Uuid,
    caller: Uuid,
    idempotency_key: &str,
) -> Result<Option<T>, sqlx::Error>
where
    T: for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin,
{
    let seat_clocks = seats::clocks_sql("g.id");
    let orders = super::orders::orders_sql("g.id");
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {HEAD_COLUMNS},
           c.request_hash AS stored_hash, c.response_status AS stored_status,
           c.response AS stored_response, c.last_seq AS stored_version,
           c.first_seq AS stored_first_seq, c.seat AS stored_seat, c.created_at AS stored_at,
           s.version AS cached_version, s.state AS cached_state,
           {seat_clocks} AS seat_clocks,
           g.orders_revision, {orders} AS orders,
           (SELECT timer_key FROM deadlines WHERE game_id = g.id AND seat = -1) AS armed_timer,
           (SELECT request_seq FROM undo_requests WHERE game_id = g.id) AS open_undo
         FROM games g
         LEFT JOIN game_commands c
           ON c.game_id = g.id AND c.user_id = $2 AND c.idempotency_key = $3
         LEFT JOIN LATERAL (
           SELECT version, state FROM game_snapshots
            WHERE game_id = g.id AND version <= g.version AND rules_version = g.rules_version
            ORDER BY version DESC LIMIT 1) s ON true
         WHERE g.id = $1"
    )))
    .bind(game_id)
    .bind(caller)
    .bind(idempotency_key)
    .fetch_optional(conn)
    .await
}

/// A game to create, open for players.
pub struct NewGame<'a> {
    pub id: Uuid,
    pub kind: &'a str,
    pub rules_version: i32,
    pub options: &'a Value,
    pub seat_count: i16,
    pub visibility: &'a str,
    pub created_by: Uuid,
    pub seed: &'a [u8],
    pub seed_commitment: &'a str,
    pub time_control: Option<Value>,
    /// The creator's `Idempotency-Key` and the fingerprint of the request it came with.
    pub create_key: Option<(&'a str, &'a [u8])>,
}

/// The game `creator` created with the `Idempotency-Key` `key`, and the fingerprint of that
/// request.
pub async fn created_with_key<'e>(
    executor: impl PgExecutor<'e>,
    creator: Uuid,
    key: &str,
) -> Result<Option<(Uuid, Vec<u8>)>, sqlx::Error> {
    sqlx::query_as("SELECT id, create_request FROM games WHERE created_by = $1 AND create_key = $2")
        .bind(creator)
        .bind(key)
        .fetch_optional(executor)
        .await
}

/// Creates an open game's head row (no seats yet).
pub async fn insert(conn: &mut PgConnection, game: &NewGame<'_>) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO games (id, kind, rules_version, options, seat_count, visibility, status,
                            created_by, seed, seed_commitment, time_control, create_key,
                            create_request)
         VALUES ($1, $2, $3, $4, $5, $6, 'open', $7, $8, $9, $10, $11, $12)",
    )
    .bind(game.id)
    .bind(game.kind)
    .bind(game.rules_version)
    .bind(game.options)
    .bind(game.seat_count)
    .bind(game.visibility)
    .bind(game.created_by)
    .bind(game.seed)
    .bind(game.seed_commitment)
    .bind(&game.time_control)
    .bind(game.create_key.map(|(key, _)| key))
    .bind(game.create_key.map(|(_, request)| request))
    .execute(conn)
    .await?;
    Ok(())
}

/// Cancels a game (the caller holds its row lock and checked that it is open).
pub async fn cancel(conn: &mut PgConnection, game_id: Uuid) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE games SET status = 'cancelled' WHERE id = $1")
        .bind(game_id)
        .execute(conn)
        .await?;
    Ok(())
}

/// Marks a locked open game started at `version` (after its first events), with its final
/// seat count, the seat nonces and the seats that must act first.
pub async fn mark_started(
    conn: &mut PgConnection,
    game_id: Uuid,
    version: i64,
    seat_count: i16,
    nonces: &[String],
    pending: &[i16],
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE games SET status = 'active', version = $2, seat_count = $3, nonces = $4,
                          pending_seats = $5, started_at = now(), turn_started_at = now()
          WHERE id = $1",
    )
    .bind(game_id)
    .bind(version)
    .bind(seat_count)
    .bind(nonces)
    .bind(pending)
    .execute(conn)
    .await?;
    Ok(())
}

/// Moves a locked game's version on (after appending events that change nothing else).
pub async fn set_version(
    conn: &mut PgConnection,
    game_id: Uuid,
    version: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE games SET version = $2 WHERE id = $1")
        .bind(game_id)
        .bind(version)
        .execute(conn)
        .await?;
    Ok(())
}

/// Moves a locked game's version on after appending undo events (or a rewind), with the
/// count of its events that no longer count (`Timeline::undone_count`).
pub async fn set_version_undone(
    conn: &mut PgConnection,
    game_id: Uuid,
    version: i64,
    undone_events: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE games SET version = $2, undone_events = $3 WHERE id = $1")
        .bind(game_id)
        .bind(version)
        .bind(undone_events)
        .execute(conn)
        .await?;
    Ok(())
}

/// The active games where the user must act, the longest-waiting first.
pub async fn waiting_for<'e>(
    executor: impl PgExecutor<'e>,
    user_id: Uuid,
) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT g.id FROM games g JOIN game_seats s ON s.game_id = g.id
          WHERE s.user_id = $1 AND g.status = 'active' AND s.seat = ANY(g.pending_seats)
          ORDER BY g.turn_started_at NULLS LAST, g.id",
    )
    .bind(user_id)
    .fetch_all(executor)
    .await
}

/// A game with its players in seat order, as the mail templates need it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct GameWithPlayers {
    pub id: Uuid,
    pub kind: String,
    pub status: String,
    pub pending_seats: Vec<i16>,
    pub outcome: Option<Value>,
    pub turn_started_at: Option<DateTime<Utc>>,
    pub seats: Vec<i16>,
    pub user_ids: Vec<Uuid>,
    pub usernames: Vec<String>,
    /// Their display names, `None` where they chose none.
    pub display_names: Vec<Option<String>>,
}

/// These games with their players (unknown ids are left out).
pub async fn with_players<'e>(
    executor: impl PgExecutor<'e>,
    ids: &[Uuid],
) -> Result<Vec<GameWithPlayers>, sqlx::Error> {
    sqlx::query_as(
        "SELECT g.id, g.kind, g.status, g.pending_seats, g.outcome, g.turn_started_at,
                coalesce(array_agg(s.seat ORDER BY s.seat) FILTER (WHERE s.seat IS NOT NULL), '{}') AS seats,
                coalesce(array_agg(s.user_id ORDER BY s.seat) FILTER (WHERE s.seat IS NOT NULL), '{}') AS user_ids,
                coalesce(array_agg(u.username ORDER BY s.seat) FILTER (WHERE s.seat IS NOT NULL), '{}') AS usernames,
                coalesce(array_agg(u.display_name ORDER BY s.seat) FILTER (WHERE s.seat IS NOT NULL), '{}') AS display_names
           FROM games g
           LEFT JOIN game_seats s ON s.game_id = g.id
           LEFT JOIN users u ON u.id = s.user_id
          WHERE g.id = ANY($1)
          GROUP BY g.id",
    )
    .bind(ids)
    .fetch_all(executor)
    .await
}

/// Which games a lobby list shows (see `service::play::lobby::ListView`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// Open games the caller may join (public, their own, or invited to), newest first.
    Open,
    /// The caller's games (seated, or their sandboxes), not cancelled ones, newest first.
    Mine,
    /// Active games where the caller must act: the nearest deadline first, then the
    /// longest-waiting.
    MyTurn,
    /// Finished games, the caller's and public ones the caller may watch, most recently
    /// finished first.
    Finished,
}

/// One page's worth of a lobby list.
pub struct ListFilter<'a> {
    pub listing: Listing,
    pub caller: Uuid,
    /// Only games of this kind.
    pub kind: Option<&'a str>,
    /// Only games in this status (any listing).
    pub status: Option<Status>,
    /// Only games where the caller's seat ranked first (`true`) or did not (`false`), by the
    /// outcome.
    pub won: Option<bool>,
    /// Rows to return at most.
    pub limit: i64,
    /// Only games after this one (its sort key and id) in the list's order.
    pub after: Option<(DateTime<Utc>, Uuid)>,
    /// Only this game: whether the list holds it (the lobby's live stream asks).
    pub only: Option<Uuid>,
    /// Which games of tournaments the list holds.
    pub tournament_games: TournamentGames,
}

/// Which games of tournaments a list holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TournamentGames {
    /// Every one the listing holds.
    #[default]
    All,
    /// Only those where the caller holds a seat.
    Mine,
    /// None.
    None,
}

impl TournamentGames {
    fn as_str(self) -> &'static str {
        match self {
            TournamentGames::All => "all",
            TournamentGames::Mine => "mine",
            TournamentGames::None => "none",
        }
    }
}

/// A listed game with the key it is sorted by (for the next page's cursor).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ListedGame {
    #[sqlx(flatten)]
    pub head: GameHead,
    pub sort_at: DateTime<Utc>,
}

/// A page of a lobby list, in the list's order.
pub async fn list<'e>(
    executor: impl PgExecutor<'e>,
    filter: &ListFilter<'_>,
) -> Result<Vec<ListedGame>, sqlx::Error> {
    let blocked = blocked_with_seated("g.id", "$1");
    // Each list: its filter, its sort key and direction.
    let (condition, sort_key, ascending) = match filter.listing {
        // Not the games where someone the caller blocked, or who blocked the caller, sits:
        // the caller could not join them.
        Listing::Open => (
            format!(
                "g.status = 'open' AND (g.visibility = 'public' OR g.created_by = $1
                   OR EXISTS (SELECT 1 FROM game_invitations i WHERE i.game_id = g.id AND i.user_id = $1))
                   AND NOT {blocked}"
            ),
            "g.created_at",
            false,
        ),
        Listing::Mine => (
            "g.status <> 'cancelled'
               AND (EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id AND s.user_id = $1)
                    OR (g.sandbox AND g.created_by = $1))"
                .to_string(),
            "g.created_at",
            false,
        ),
        Listing::MyTurn => (
            "g.status = 'active' AND EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id
               AND s.user_id = $1 AND s.seat = ANY(g.pending_seats))"
                .to_string(),
            // Most urgent first: the nearest deadline of the caller's seat; games without a
            // clock after those with one, the longest-waiting first.
            "coalesce((SELECT d.due_at FROM deadlines d JOIN game_seats s
                          ON s.game_id = d.game_id AND s.seat = d.seat
                        WHERE d.game_id = g.id AND s.user_id = $1),
                      g.turn_started_at + interval '1000 years')",
            true,
        ),
        // Others' games only where the caller may watch them (see `service::play::table`).
        Listing::Finished => (
            format!(
                "g.status = 'finished' AND (EXISTS (SELECT 1 FROM game_seats s
                                                     WHERE s.game_id = g.id AND s.user_id = $1)
                   OR (g.visibility = 'public' AND NOT {PLAYERS_ONLY} AND NOT {blocked}))"
            ),
            "g.finished_at",
            false,
        ),
    };
    let (cmp, order) = if ascending {
        (">", "ASC")
    } else {
        ("<", "DESC")
    };
    let sql = format!(
        "SELECT {HEAD_COLUMNS}, {sort_key} AS sort_at
           FROM games g
          WHERE {condition} AND ($2::text IS NULL OR g.kind = $2)
            AND ($4::text IS NULL OR g.status = $4)
            AND ($5::timestamptz IS NULL OR ({sort_key}, g.id) {cmp} ($5, $6))
            AND ($7::uuid IS NULL OR g.id = $7)
            AND ($8::boolean IS NULL OR EXISTS (
                  SELECT 1 FROM game_seats ws WHERE ws.game_id = g.id AND ws.user_id = $1
                     AND ((g.outcome->'ranks'->>(ws.seat::int))::int = 1) = $8))
            AND ($9::text = 'all'
                 OR NOT EXISTS (SELECT 1 FROM tournament_tables tt WHERE tt.game_id = g.id)
                 OR ($9 = 'mine' AND EXISTS (SELECT 1 FROM game_seats ts
                                              WHERE ts.game_id = g.id AND ts.user_id = $1)))
          ORDER BY {sort_key} {order}, g.id {order}
          LIMIT $3"
    );
    sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(filter.caller)
        .bind(filter.kind)
        .bind(filter.limit)
        .bind(filter.status.map(Status::as_str))
        .bind(filter.after.map(|c| c.0))
        .bind(filter.after.map(|c| c.1))
        .bind(filter.only)
        .bind(filter.won)
        .bind(filter.tournament_games.as_str())
        .fetch_all(executor)
        .await
}

/// The head row of an imported game (see `audit::import`): finished, private, no seats.
pub struct NewSandbox<'a> {
    pub id: Uuid,
    pub kind: &'a str,
    pub rules_version: i32,
    pub options: &'a Value,
    pub seat_count: i16,
    pub version: i64,
    pub created_by: Uuid,
    pub seed: &'a [u8],
    pub seed_commitment: &'a str,
    pub nonces: &'a [String],
    pub outcome: &'a Value,
    pub imported_from: Uuid,
    /// The events of its log that do not count (see [`GameHead::undone_events`]).
    pub undone_events: i64,
    /// When it is imported (the instance's clock): its creation, start and end.
    pub at: DateTime<Utc>,
}

/// Inserts the head row of an imported game.
pub async fn insert_sandbox(
    conn: &mut PgConnection,
    game: &NewSandbox<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO games (id, kind, rules_version, options, seat_count, visibility, status,
                            version, created_by, seed, seed_commitment, nonces, pending_seats,
                            outcome, sandbox, imported_from, created_at, started_at, finished_at,
                            turn_started_at, undone_events)
         VALUES ($1, $2, $3, $4, $5, 'private', 'finished', $6, $7, $8, $9, $10, '{}', $11,
                 true, $12, $13, $13, $13, $13, $14)",
    )
    .bind(game.id)
    .bind(game.kind)
    .bind(game.rules_version)
    .bind(game.options)
    .bind(game.seat_count)
    .bind(game.version)
    .bind(game.created_by)
    .bind(game.seed)
    .bind(game.seed_commitment)
    .bind(game.nonces)
    .bind(game.outcome)
    .bind(game.imported_from)
    .bind(game.at)
    .bind(game.undone_events)
    .execute(conn)
    .await?;
    Ok(())
}

/// Waits until no other transaction is importing a game for `user`, and holds that until
/// the caller's transaction ends: imports of one user are counted and stored one at a time,
/// so that two at once cannot both pass the daily limit.
pub async fn lock_imports_of(conn: &mut PgConnection, user: Uuid) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('kontor-import:' || $1::text, 0))")
        .bind(user)
        .execute(conn)
        .await?;
    Ok(())
}

/// How many games `user` imported after `since`, and when the first of those was.
pub async fn imports_since<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    since: DateTime<Utc>,
) -> Result<(i64, Option<DateTime<Utc>>), sqlx::Error> {
    sqlx::query_as(
        "SELECT count(*), min(created_at) FROM games
          WHERE created_by = $1 AND sandbox AND created_at > $2",
    )
    .bind(user)
    .bind(since)
    .fetch_one(executor)
    .await
}

/// A command of an imported game: its events, seat, command and marker (`auto`).
pub struct ImportedCommand<'a> {
    pub first_seq: i64,
    pub last_seq: i64,
    pub seat: Option<i16>,
    pub command: &'a Value,
    pub auto: Option<&'a Value>,
}

/// Records the commands of an imported game (first and last event, seat, command), by no
/// user and under no idempotency key: they only serve its export.
pub async fn insert_imported_commands(
    conn: &mut PgConnection,
    game_id: Uuid,
    commands: &[ImportedCommand<'_>],
) -> Result<(), sqlx::Error> {
    let ids: Vec<Uuid> = commands.iter().map(|_| Uuid::now_v7()).collect();
    let first: Vec<i64> = commands.iter().map(|c| c.first_seq).collect();
    let last: Vec<i64> = commands.iter().map(|c| c.last_seq).collect();
    let seats: Vec<Option<i16>> = commands.iter().map(|c| c.seat).collect();
    let actions: Vec<&Value> = commands.iter().map(|c| c.command).collect();
    let autos: Vec<Option<&Value>> = commands.iter().map(|c| c.auto).collect();
    sqlx::query(
        "INSERT INTO game_commands (id, game_id, seat, command, first_seq, last_seq,
                                    response_status, response, auto)
         SELECT c.id, $1, c.seat, c.command, c.first_seq, c.last_seq, 200, '{}'::jsonb, c.auto
           FROM unnest($2::uuid[], $3::smallint[], $4::jsonb[], $5::bigint[], $6::bigint[],
                       $7::jsonb[])
                AS c(id, seat, command, first_seq, last_seq, auto)",
    )
    .bind(game_id)
    .bind(&ids)
    .bind(&seats)
    .bind(&actions)
    .bind(&first)
    .bind(&last)
    .bind(&autos)
    .execute(conn)
    .await?;
    Ok(())
}

/// A game's recorded commands (with the events they produced from `first_seq` on), in the
/// order of the log: the seat that acted (`None`: the system), the command as submitted, and
/// the marker of one the server played on its own (`game_commands.auto`).
#[allow(clippy::type_complexity)]
pub async fn recorded_commands<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Vec<(i64, Option<i16>, Value, Option<Value>)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT first_seq, seat, command, auto FROM game_commands WHERE game_id = $1
          ORDER BY first_seq",
    )
    .bind(game_id)
    .fetch_all(executor)
    .await
}

/// The games that have a log (started ones: active or finished), in id order.
pub async fn started_ids<'e>(executor: impl PgExecutor<'e>) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar("SELECT id FROM games WHERE status IN ('active', 'finished') ORDER BY id")
        .fetch_all(executor)
        .await
}

/// How many games `user` created that wait for players (open). The user's row is locked
/// until the caller's transaction ends, so that two creations at once cannot both pass a
/// limit on this count (`FOR NO KEY UPDATE`: seats may still be taken meanwhile).
pub async fn lock_and_count_open_created_by(
    conn: &mut PgConnection,
    user: Uuid,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "WITH me AS (SELECT id FROM users WHERE id = $1 FOR NO KEY UPDATE)
         SELECT count(*) FROM games WHERE created_by = (SELECT id FROM me) AND status = 'open'",
    )
    .bind(user)
    .fetch_one(conn)
    .await
}
