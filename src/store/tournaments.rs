//! Tournaments (see `migrations/0020_tournaments.sql`): the settings, the entrants, the rounds
//! and their tables. Platform records beside the games; the points and standings are derived.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TournamentRow {
    pub id: Uuid,
    pub name: String,
    pub kind: String,
    pub format: String,
    pub seats_per_table: i16,
    pub rounds: i16,
    pub rated: bool,
    pub options: Value,
    pub time_control: Option<Value>,
    pub round_hours: i32,
    pub entry_closes_at: DateTime<Utc>,
    pub max_players: i32,
    pub organiser: Uuid,
    pub organiser_name: String,
    pub seed: Vec<u8>,
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    pub player_count: i64,
}

const COLUMNS: &str = "t.id, t.name, t.kind, t.format, t.seats_per_table, t.rounds, t.rated, \
     t.options, t.time_control, t.round_hours, t.entry_closes_at, t.max_players, t.organiser, \
     u.username AS organiser_name, t.seed, t.status, t.created_at, t.started_at, t.ended_at, \
     (SELECT count(*) FROM tournament_players p WHERE p.tournament_id = t.id) AS player_count";

/// A new tournament as created.
pub struct NewTournament<'a> {
    pub id: Uuid,
    pub name: &'a str,
    pub kind: &'a str,
    pub format: &'a str,
    pub seats_per_table: i16,
    pub rounds: i16,
    pub rated: bool,
    pub options: &'a Value,
    pub time_control: Option<Value>,
    pub round_hours: i32,
    pub entry_closes_at: DateTime<Utc>,
    pub max_players: i32,
    pub organiser: Uuid,
    pub seed: &'a [u8],
    pub created_at: DateTime<Utc>,
}

/// Locks the organiser's account row (so that two creations at once count each other) and
/// counts their tournaments open for entry or running.
pub async fn lock_and_count_open(
    conn: &mut PgConnection,
    organiser: Uuid,
) -> Result<i64, sqlx::Error> {
    sqlx::query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE")
        .bind(organiser)
        .execute(&mut *conn)
        .await?;
    sqlx::query_scalar(
        "SELECT count(*) FROM tournaments
          WHERE organiser = $1 AND status IN ('entry', 'running')",
    )
    .bind(organiser)
    .fetch_one(conn)
    .await
}

pub async fn insert(conn: &mut PgConnection, new: &NewTournament<'_>) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO tournaments (id, name, kind, format, seats_per_table, rounds, rated, options,
                time_control, round_hours, entry_closes_at, max_players, organiser, seed, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
    )
    .bind(new.id)
    .bind(new.name)
    .bind(new.kind)
    .bind(new.format)
    .bind(new.seats_per_table)
    .bind(new.rounds)
    .bind(new.rated)
    .bind(new.options)
    .bind(&new.time_control)
    .bind(new.round_hours)
    .bind(new.entry_closes_at)
    .bind(new.max_players)
    .bind(new.organiser)
    .bind(new.seed)
    .bind(new.created_at)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn get<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> Result<Option<TournamentRow>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM tournaments t JOIN users u ON u.id = t.organiser WHERE t.id = $1"
    )))
    .bind(id)
    .fetch_optional(executor)
    .await
}

/// The tournament, locked for the caller's transaction (every change to a tournament, its
/// players and rounds takes this lock first).
pub async fn lock(conn: &mut PgConnection, id: Uuid) -> Result<Option<TournamentRow>, sqlx::Error> {
    let found: Option<Uuid> =
        sqlx::query_scalar("SELECT id FROM tournaments WHERE id = $1 FOR UPDATE")
            .bind(id)
            .fetch_optional(&mut *conn)
            .await?;
    match found {
        Some(id) => get(conn, id).await,
        None => Ok(None),
    }
}

/// Tournaments by status (all but cancelled when `None`), newest first, at most `limit`,
/// those created before `before` (a `(created_at, id)` position of the order) only.
pub async fn list<'e>(
    executor: impl PgExecutor<'e>,
    status: Option<&str>,
    before: Option<(DateTime<Utc>, Uuid)>,
    limit: i64,
) -> Result<Vec<TournamentRow>, sqlx::Error> {
    let (before_at, before_id) = before.unzip();
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM tournaments t JOIN users u ON u.id = t.organiser
          WHERE (($1::text IS NULL AND t.status <> 'cancelled') OR t.status = $1)
            AND ($2::timestamptz IS NULL OR (t.created_at, t.id) < ($2, $3::uuid))
          ORDER BY t.created_at DESC, t.id DESC LIMIT $4"
    )))
    .bind(status)
    .bind(before_at)
    .bind(before_id)
    .bind(limit)
    .fetch_all(executor)
    .await
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlayerRow {
    pub user_id: Uuid,
    pub username: String,
    pub joined_at: DateTime<Utc>,
    pub withdrawn_round: Option<i16>,
}

/// The entrants in join order.
pub async fn players<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> Result<Vec<PlayerRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT p.user_id, u.username, p.joined_at, p.withdrawn_round
           FROM tournament_players p JOIN users u ON u.id = p.user_id
          WHERE p.tournament_id = $1 ORDER BY p.joined_seq",
    )
    .bind(id)
    .fetch_all(executor)
    .await
}

/// Enters `user`; `false` if they were entered already.
pub async fn join(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "INSERT INTO tournament_players (tournament_id, user_id, joined_at) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(user)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Removes `user`'s entry; `false` if they had none.
pub async fn leave(conn: &mut PgConnection, id: Uuid, user: Uuid) -> Result<bool, sqlx::Error> {
    let done =
        sqlx::query("DELETE FROM tournament_players WHERE tournament_id = $1 AND user_id = $2")
            .bind(id)
            .bind(user)
            .execute(conn)
            .await?;
    Ok(done.rows_affected() == 1)
}

pub async fn withdraw(
    conn: &mut PgConnection,
    id: Uuid,
    user: Uuid,
    round: i16,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE tournament_players SET withdrawn_at = $3, withdrawn_round = $4
          WHERE tournament_id = $1 AND user_id = $2",
    )
    .bind(id)
    .bind(user)
    .bind(now)
    .bind(round)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn set_status(
    conn: &mut PgConnection,
    id: Uuid,
    status: &str,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE tournaments SET status = $2,
                started_at = CASE WHEN $2 = 'running' THEN $3 ELSE started_at END,
                ended_at = CASE WHEN $2 IN ('finished', 'cancelled') THEN $3 ELSE ended_at END
          WHERE id = $1",
    )
    .bind(id)
    .bind(status)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RoundRow {
    pub number: i16,
    pub status: String,
    pub started_at: DateTime<Utc>,
    pub deadline: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
}

pub async fn rounds<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> Result<Vec<RoundRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT number, status, started_at, deadline, ended_at FROM tournament_rounds
          WHERE tournament_id = $1 ORDER BY number",
    )
    .bind(id)
    .fetch_all(executor)
    .await
}

/// A new round; `apart`: the pairs its seating kept apart, flattened (a1, b1, a2, b2, …).
pub async fn insert_round(
    conn: &mut PgConnection,
    id: Uuid,
    number: i16,
    now: DateTime<Utc>,
    deadline: DateTime<Utc>,
    apart: &[Uuid],
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO tournament_rounds (tournament_id, number, started_at, deadline, apart)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(number)
    .bind(now)
    .bind(deadline)
    .bind(apart)
    .execute(conn)
    .await?;
    Ok(())
}

/// Each round's recorded pairs kept apart, in round order, flattened (see [`insert_round`]).
pub async fn apart<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> Result<Vec<Vec<Uuid>>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT apart FROM tournament_rounds WHERE tournament_id = $1 ORDER BY number",
    )
    .bind(id)
    .fetch_all(executor)
    .await
}

pub async fn end_round(
    conn: &mut PgConnection,
    id: Uuid,
    number: i16,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE tournament_rounds SET status = 'finished', ended_at = $3
          WHERE tournament_id = $1 AND number = $2",
    )
    .bind(id)
    .bind(number)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TableRow {
    pub round: i16,
    pub table_no: i16,
    pub game_id: Uuid,
    pub seats: Vec<Uuid>,
    pub ranks: Option<Vec<i16>>,
    pub adjudicated: bool,
    /// The game's status and outcome now.
    pub game_status: String,
    pub outcome: Option<Value>,
}

pub async fn tables<'e>(
    executor: impl PgExecutor<'e>,
    id: Uuid,
) -> Result<Vec<TableRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT t.round, t.table_no, t.game_id, t.seats, t.ranks, t.adjudicated,
                g.status AS game_status, g.outcome
           FROM tournament_tables t JOIN games g ON g.id = t.game_id
          WHERE t.tournament_id = $1 ORDER BY t.round, t.table_no",
    )
    .bind(id)
    .fetch_all(executor)
    .await
}

pub async fn insert_table(
    conn: &mut PgConnection,
    id: Uuid,
    round: i16,
    table_no: i16,
    game_id: Uuid,
    seats: &[Uuid],
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO tournament_tables (tournament_id, round, table_no, game_id, seats)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(round)
    .bind(table_no)
    .bind(game_id)
    .bind(seats)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records a table's result at its round's end (`ranks` `None`: adjudicated).
pub async fn record_result(
    conn: &mut PgConnection,
    id: Uuid,
    round: i16,
    table_no: i16,
    ranks: Option<&[i16]>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE tournament_tables SET ranks = $4, adjudicated = $4 IS NULL
          WHERE tournament_id = $1 AND round = $2 AND table_no = $3",
    )
    .bind(id)
    .bind(round)
    .bind(table_no)
    .bind(ranks)
    .execute(conn)
    .await?;
    Ok(())
}

/// Tournaments the worker has something to do for at `now`: entry closed, or the running
/// round's games all over, or its deadline passed. Oldest first.
pub async fn due<'e>(
    executor: impl PgExecutor<'e>,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT t.id FROM tournaments t
          WHERE (t.status = 'entry' AND t.entry_closes_at <= $1)
             OR (t.status = 'running' AND EXISTS (
                   SELECT 1 FROM tournament_rounds r
                    WHERE r.tournament_id = t.id AND r.status = 'running'
                      AND (r.deadline <= $1 OR NOT EXISTS (
                            SELECT 1 FROM tournament_tables tt JOIN games g ON g.id = tt.game_id
                             WHERE tt.tournament_id = t.id AND tt.round = r.number
                               AND g.status <> 'finished'))))
          ORDER BY t.created_at, t.id LIMIT $2",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// The tournament (and round) a game was played for.
pub async fn of_game<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> Result<Option<(Uuid, i16)>, sqlx::Error> {
    sqlx::query_as("SELECT tournament_id, round FROM tournament_tables WHERE game_id = $1")
        .bind(game_id)
        .fetch_optional(executor)
        .await
}

/// A game's place in a tournament, as game lists show it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct GameTournamentRow {
    pub game_id: Uuid,
    pub tournament_id: Uuid,
    pub name: String,
    pub round: i16,
}

/// The tournaments (with their names and rounds) that `games` were played for; games of no
/// tournament are left out.
pub async fn of_games<'e>(
    executor: impl PgExecutor<'e>,
    games: &[Uuid],
) -> Result<Vec<GameTournamentRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT tt.game_id, tt.tournament_id, t.name, tt.round
           FROM tournament_tables tt JOIN tournaments t ON t.id = tt.tournament_id
          WHERE tt.game_id = ANY($1)",
    )
    .bind(games)
    .fetch_all(executor)
    .await
}
