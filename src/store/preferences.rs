//! Notification preferences (`notification_prefs`): one row per user who changed one; a user
//! without a row has every default.

use sqlx::PgConnection;
use uuid::Uuid;

/// A user's preferences as stored: each kind's delivery as text (`immediately`, `digest` or
/// `off`; the column domain `notice_delivery` keeps them so) and `always_email`.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct PrefsRow {
    pub user_id: Uuid,
    pub your_turn: String,
    pub reminder: String,
    pub invited: String,
    pub game_started: String,
    pub game_over: String,
    pub player_left: String,
    pub chat_mention: String,
    pub rematch_offered: String,
    pub undo_requested: String,
    pub tournament_started: String,
    pub tournament_round: String,
    pub tournament_finished: String,
    pub tournament_cancelled: String,
    pub always_email: bool,
}

const COLUMNS: &str = "user_id, your_turn::text, reminder::text, invited::text, \
     game_started::text, game_over::text, player_left::text, chat_mention::text, rematch_offered::text, \
     undo_requested::text, tournament_started::text, tournament_round::text, \
     tournament_finished::text, tournament_cancelled::text, always_email";

/// The rows of these users (users without one are absent).
pub async fn load_many(
    conn: &mut PgConnection,
    users: &[Uuid],
) -> Result<Vec<PrefsRow>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM notification_prefs WHERE user_id = ANY($1)"
    )))
    .bind(users)
    .fetch_all(conn)
    .await
}

/// The user's row, locked until the transaction ends (created with the defaults first if
/// needed), so that read-modify-write changes of one user's preferences never lose each other.
pub async fn lock(conn: &mut PgConnection, user: Uuid) -> Result<PrefsRow, sqlx::Error> {
    sqlx::query("INSERT INTO notification_prefs (user_id) VALUES ($1) ON CONFLICT DO NOTHING")
        .bind(user)
        .execute(&mut *conn)
        .await?;
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM notification_prefs WHERE user_id = $1 FOR UPDATE"
    )))
    .bind(user)
    .fetch_one(conn)
    .await
}

/// Stores a user's preferences (`row.user_id`).
pub async fn save(conn: &mut PgConnection, row: &PrefsRow) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO notification_prefs
             (user_id, your_turn, reminder, invited, game_started, game_over, always_email,
              player_left, chat_mention, rematch_offered, undo_requested, tournament_started,
              tournament_round, tournament_finished, tournament_cancelled)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ON CONFLICT (user_id) DO UPDATE SET
             your_turn = EXCLUDED.your_turn, reminder = EXCLUDED.reminder,
             invited = EXCLUDED.invited, game_started = EXCLUDED.game_started,
             game_over = EXCLUDED.game_over, always_email = EXCLUDED.always_email,
             player_left = EXCLUDED.player_left, chat_mention = EXCLUDED.chat_mention,
             rematch_offered = EXCLUDED.rematch_offered,
             undo_requested = EXCLUDED.undo_requested,
             tournament_started = EXCLUDED.tournament_started,
             tournament_round = EXCLUDED.tournament_round,
             tournament_finished = EXCLUDED.tournament_finished,
             tournament_cancelled = EXCLUDED.tournament_cancelled,
             updated_at = now()",
    )
    .bind(row.user_id)
    .bind(&row.your_turn)
    .bind(&row.reminder)
    .bind(&row.invited)
    .bind(&row.game_started)
    .bind(&row.game_over)
    .bind(row.always_email)
    .bind(&row.player_left)
    .bind(&row.chat_mention)
    .bind(&row.rematch_offered)
    .bind(&row.undo_requested)
    .bind(&row.tournament_started)
    .bind(&row.tournament_round)
    .bind(&row.tournament_finished)
    .bind(&row.tournament_cancelled)
    .execute(conn)
    .await?;
    Ok(())
}
