//! Notification preferences: the choices (`notice_choices`, a row per user, kind of notice
//! and channel the user chose for; a kind without a row has its default, which the code's
//! list of kinds holds) and the per-user switch `always_email` (`notification_prefs`, one row
//! per user who changed a preference, which also orders one user's changes).

use sqlx::PgConnection;
use uuid::Uuid;

/// One stored choice: the kind's name, the channel (`mail` or `push`) and the choice
/// (`immediately`, `digest`, `off` for mail; `on`, `off` for push).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredChoice<'a> {
    pub kind: &'a str,
    pub channel: &'a str,
    pub choice: &'a str,
}

/// A user's stored preferences: their choices as three parallel arrays, and `always_email`.
#[derive(Clone, Debug, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct Stored {
    pub user_id: Uuid,
    pub kinds: Vec<String>,
    pub channels: Vec<String>,
    pub choices: Vec<String>,
    pub always_email: bool,
}

impl Stored {
    pub fn choices(&self) -> impl Iterator<Item = StoredChoice<'_>> {
        zip(&self.kinds, &self.channels, &self.choices)
    }
}

/// Choices read as three parallel arrays (see [`CHOICES`]).
pub fn zip<'a>(
    kinds: &'a [String],
    channels: &'a [String],
    choices: &'a [String],
) -> impl Iterator<Item = StoredChoice<'a>> {
    kinds
        .iter()
        .zip(channels)
        .zip(choices)
        .map(|((kind, channel), choice)| StoredChoice {
            kind,
            channel,
            choice,
        })
}

/// A user's choices as arrays `kinds`, `channels`, `choices`, from `notice_choices c` joined
/// on the user (empty arrays when none): the select list of every query that reads them.
pub(super) const CHOICES: &str =
    "coalesce(array_agg(c.kind ORDER BY c.kind, c.channel) FILTER (WHERE c.kind IS NOT NULL), '{}') AS kinds,
     coalesce(array_agg(c.channel ORDER BY c.kind, c.channel) FILTER (WHERE c.kind IS NOT NULL), '{}') AS channels,
     coalesce(array_agg(c.choice ORDER BY c.kind, c.channel) FILTER (WHERE c.kind IS NOT NULL), '{}') AS choices";

/// The stored preferences of these users (users who never chose are absent).
pub async fn load_many(
    conn: &mut PgConnection,
    users: &[Uuid],
) -> Result<Vec<Stored>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT u.user_id, {CHOICES}, coalesce(bool_or(p.always_email), false) AS always_email
           FROM unnest($1::uuid[]) AS u(user_id)
           LEFT JOIN notice_choices c ON c.user_id = u.user_id
           LEFT JOIN notification_prefs p ON p.user_id = u.user_id
          GROUP BY u.user_id
         HAVING count(c.kind) > 0 OR count(p.user_id) > 0"
    )))
    .bind(users)
    .fetch_all(conn)
    .await
}

/// Locks the user's preferences until the transaction ends (their row is created first if
/// needed), so that read-modify-write changes of one user's preferences never lose each other.
pub async fn lock(conn: &mut PgConnection, user: Uuid) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO notification_prefs (user_id) VALUES ($1) ON CONFLICT DO NOTHING")
        .bind(user)
        .execute(&mut *conn)
        .await?;
    sqlx::query("SELECT 1 FROM notification_prefs WHERE user_id = $1 FOR UPDATE")
        .bind(user)
        .execute(conn)
        .await?;
    Ok(())
}

/// Stores choices of `user` (one row each, replacing the same kind and channel's) and, if
/// given, `always_email`.
pub async fn save(
    conn: &mut PgConnection,
    user: Uuid,
    choices: &[StoredChoice<'_>],
    always_email: Option<bool>,
) -> Result<(), sqlx::Error> {
    if !choices.is_empty() {
        let kinds: Vec<&str> = choices.iter().map(|c| c.kind).collect();
        let channels: Vec<&str> = choices.iter().map(|c| c.channel).collect();
        let values: Vec<&str> = choices.iter().map(|c| c.choice).collect();
        sqlx::query(
            "INSERT INTO notice_choices (user_id, kind, channel, choice)
             SELECT $1, c.kind, c.channel, c.choice
               FROM unnest($2::text[], $3::text[], $4::text[]) AS c(kind, channel, choice)
             ON CONFLICT (user_id, kind, channel) DO UPDATE
                SET choice = EXCLUDED.choice, updated_at = now()",
        )
        .bind(user)
        .bind(&kinds)
        .bind(&channels)
        .bind(&values)
        .execute(&mut *conn)
        .await?;
    }
    if let Some(always_email) = always_email {
        sqlx::query(
            "INSERT INTO notification_prefs (user_id, always_email) VALUES ($1, $2)
             ON CONFLICT (user_id) DO UPDATE
                SET always_email = EXCLUDED.always_email, updated_at = now()",
        )
        .bind(user)
        .bind(always_email)
        .execute(conn)
        .await?;
    }
    Ok(())
}
