//! Notification preferences: per kind of notice `immediately`, `digest` or `off`, and the
//! `always_email` switch. A user without a row has every default.

use super::NoticeKind;
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

/// How one kind of notice reaches the user.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// A mail as soon as it happens.
    #[default]
    Immediately,
    /// Gathered in one mail a day.
    Digest,
    /// No mail.
    Off,
}

impl Delivery {
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Immediately => "immediately",
            Delivery::Digest => "digest",
            Delivery::Off => "off",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Delivery::Immediately, Delivery::Digest, Delivery::Off]
            .into_iter()
            .find(|d| d.as_str() == text)
    }
}

/// A user's notification preferences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "your_turn": "immediately",
    "reminder": "immediately",
    "invited": "immediately",
    "game_started": "digest",
    "game_over": "off",
    "always_email": false
}))]
pub struct Preferences {
    /// It is your turn in a game.
    pub your_turn: Delivery,
    /// Your deadline in a game is near.
    pub reminder: Delivery,
    /// Someone invited you to a game.
    pub invited: Delivery,
    /// A game you sit in has started.
    pub game_started: Delivery,
    /// A game you played has ended, with the result.
    pub game_over: Delivery,
    /// Mail "your turn" even while you watch the game's live stream (by default no such
    /// mail is sent while you are watching).
    pub always_email: bool,
}

impl Preferences {
    pub fn of(&self, kind: NoticeKind) -> Delivery {
        match kind {
            NoticeKind::YourTurn => self.your_turn,
            NoticeKind::Reminder => self.reminder,
            NoticeKind::Invited => self.invited,
            NoticeKind::GameStarted => self.game_started,
            NoticeKind::GameOver => self.game_over,
        }
    }

    pub fn set(&mut self, kind: NoticeKind, delivery: Delivery) {
        let slot = match kind {
            NoticeKind::YourTurn => &mut self.your_turn,
            NoticeKind::Reminder => &mut self.reminder,
            NoticeKind::Invited => &mut self.invited,
            NoticeKind::GameStarted => &mut self.game_started,
            NoticeKind::GameOver => &mut self.game_over,
        };
        *slot = delivery;
    }
}

type Row = (Uuid, String, String, String, String, String, bool);

fn from_row(row: &Row) -> Preferences {
    let parse = |text: &str| Delivery::parse(text).unwrap_or_default();
    Preferences {
        your_turn: parse(&row.1),
        reminder: parse(&row.2),
        invited: parse(&row.3),
        game_started: parse(&row.4),
        game_over: parse(&row.5),
        always_email: row.6,
    }
}

const COLUMNS: &str = "user_id, your_turn::text, reminder::text, invited::text, game_started::text, game_over::text, always_email";

/// The preferences of these users; users without a row are absent (they have the defaults).
pub async fn load_many(
    conn: &mut PgConnection,
    users: &[Uuid],
) -> sqlx::Result<HashMap<Uuid, Preferences>> {
    let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM notification_prefs WHERE user_id = ANY($1)"
    )))
    .bind(users)
    .fetch_all(conn)
    .await?;
    Ok(rows.iter().map(|row| (row.0, from_row(row))).collect())
}

/// One user's preferences (the defaults when they never changed any).
pub async fn load(conn: &mut PgConnection, user: Uuid) -> sqlx::Result<Preferences> {
    Ok(load_many(conn, &[user])
        .await?
        .remove(&user)
        .unwrap_or_default())
}

/// The same, locked for update (the row is created with the defaults first if needed), so
/// that read-modify-write changes of one user's preferences never lose each other.
pub async fn load_for_update(conn: &mut PgConnection, user: Uuid) -> sqlx::Result<Preferences> {
    sqlx::query("INSERT INTO notification_prefs (user_id) VALUES ($1) ON CONFLICT DO NOTHING")
        .bind(user)
        .execute(&mut *conn)
        .await?;
    let row: Row = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM notification_prefs WHERE user_id = $1 FOR UPDATE"
    )))
    .bind(user)
    .fetch_one(conn)
    .await?;
    Ok(from_row(&row))
}

/// Stores a user's preferences.
pub async fn save(conn: &mut PgConnection, user: Uuid, prefs: &Preferences) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO notification_prefs
             (user_id, your_turn, reminder, invited, game_started, game_over, always_email)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (user_id) DO UPDATE SET
             your_turn = EXCLUDED.your_turn, reminder = EXCLUDED.reminder,
             invited = EXCLUDED.invited, game_started = EXCLUDED.game_started,
             game_over = EXCLUDED.game_over, always_email = EXCLUDED.always_email,
             updated_at = now()",
    )
    .bind(user)
    .bind(prefs.your_turn.as_str())
    .bind(prefs.reminder.as_str())
    .bind(prefs.invited.as_str())
    .bind(prefs.game_started.as_str())
    .bind(prefs.game_over.as_str())
    .bind(prefs.always_email)
    .execute(conn)
    .await?;
    Ok(())
}
