//! Table talk (`chat_*` tables, migration 0013): messages beside each game's log, moderators'
//! hiding, reports, mutes, read markers and the spectators channel's setting. Nothing here
//! touches a game's head row, its version or its state cache. Who may read or write which
//! channel is `service::social::chat`'s to decide.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor};
use uuid::Uuid;

/// A message with its author's current name and whether a moderator hid it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct MessageRow {
    pub id: i64,
    pub game_id: Uuid,
    pub channel: String,
    pub author_id: Uuid,
    pub author_seat: Option<i16>,
    /// The author's username now (after account deletion: the placeholder the seats show).
    pub username: String,
    pub display_name: Option<String>,
    pub body: String,
    pub at_version: i64,
    pub created_at: DateTime<Utc>,
    pub hidden: bool,
    pub hidden_reason: Option<String>,
}

/// The columns of a [`MessageRow`] from `chat_messages m`.
const MESSAGE_FROM: &str = "SELECT m.id, m.game_id, m.channel, m.author_id, m.author_seat,
        u.username, u.display_name, m.body, m.at_version, m.created_at,
        (h.message_id IS NOT NULL) AS hidden, h.reason AS hidden_reason
   FROM chat_messages m JOIN users u ON u.id = m.author_id
   LEFT JOIN chat_hidden h ON h.message_id = m.id";

/// Up to `limit` messages of a channel after id `after`, ascending.
pub async fn page<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    channel: &str,
    after: i64,
    limit: i64,
) -> sqlx::Result<Vec<MessageRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{MESSAGE_FROM} WHERE m.game_id = $1 AND m.channel = $2 AND m.id > $3
          ORDER BY m.id LIMIT $4"
    )))
    .bind(game_id)
    .bind(channel)
    .bind(after)
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// Up to `limit` messages of a game in any of `channels` after id `after`, ascending (what a
/// stream sends).
pub async fn since<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    channels: &[String],
    after: i64,
    limit: i64,
) -> sqlx::Result<Vec<MessageRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{MESSAGE_FROM} WHERE m.game_id = $1 AND m.channel = ANY($2) AND m.id > $3
          ORDER BY m.id LIMIT $4"
    )))
    .bind(game_id)
    .bind(channels)
    .bind(after)
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// Up to `limit` messages of a game after id `after` in every channel, ascending: what a
/// live feed reads once for all the game's streams (each keeps those it may read).
pub async fn since_in_game<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    after: i64,
    limit: i64,
) -> sqlx::Result<Vec<MessageRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{MESSAGE_FROM} WHERE m.game_id = $1 AND m.id > $2 ORDER BY m.id LIMIT $3"
    )))
    .bind(game_id)
    .bind(after)
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// The newest message id of a game (0: none yet).
pub async fn last_id<'e>(executor: impl PgExecutor<'e>, game_id: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT coalesce(max(id), 0) FROM chat_messages WHERE game_id = $1")
        .bind(game_id)
        .fetch_one(executor)
        .await
}

/// One message.
pub async fn message<'e>(
    executor: impl PgExecutor<'e>,
    id: i64,
) -> sqlx::Result<Option<MessageRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{MESSAGE_FROM} WHERE m.id = $1"
    )))
    .bind(id)
    .fetch_optional(executor)
    .await
}

/// The message `author` sent in the game with `key`, and the digest of what was sent.
pub async fn by_key(
    conn: &mut PgConnection,
    author: Uuid,
    game_id: Uuid,
    key: &str,
) -> sqlx::Result<Option<(i64, Vec<u8>)>> {
    sqlx::query_as(
        "SELECT id, request_hash FROM chat_messages
          WHERE author_id = $1 AND game_id = $2 AND idempotency_key = $3",
    )
    .bind(author)
    .bind(game_id)
    .bind(key)
    .fetch_optional(conn)
    .await
}

/// Serialises one author's sends in one game until the transaction ends (the rate limits and
/// the idempotency key are checked under it).
pub async fn lock_sender(conn: &mut PgConnection, author: Uuid, game_id: Uuid) -> sqlx::Result<()> {
    sqlx::query(
        "SELECT pg_advisory_xact_lock(hashtextextended('chat:' || $1::text || $2::text, 0))",
    )
    .bind(author)
    .bind(game_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// When `author` sent their newest `n` messages in the game since `since`, newest first,
/// and how many they sent since `since` in all.
pub async fn recent_sends(
    conn: &mut PgConnection,
    author: Uuid,
    game_id: Uuid,
    since: DateTime<Utc>,
    n: i64,
) -> sqlx::Result<(Vec<DateTime<Utc>>, i64)> {
    let times: Vec<DateTime<Utc>> = sqlx::query_scalar(
        "SELECT created_at FROM chat_messages
          WHERE author_id = $1 AND game_id = $2 AND created_at > $3
          ORDER BY created_at DESC LIMIT $4",
    )
    .bind(author)
    .bind(game_id)
    .bind(since)
    .bind(n)
    .fetch_all(&mut *conn)
    .await?;
    let count: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM chat_messages
          WHERE author_id = $1 AND game_id = $2 AND created_at > $3",
    )
    .bind(author)
    .bind(game_id)
    .bind(since)
    .fetch_one(&mut *conn)
    .await?;
    Ok((times, count))
}

/// The oldest of `author`'s messages in the game since `since` (when the daily cap frees a
/// message).
pub async fn oldest_send_since(
    conn: &mut PgConnection,
    author: Uuid,
    game_id: Uuid,
    since: DateTime<Utc>,
) -> sqlx::Result<Option<DateTime<Utc>>> {
    sqlx::query_scalar(
        "SELECT min(created_at) FROM chat_messages
          WHERE author_id = $1 AND game_id = $2 AND created_at > $3",
    )
    .bind(author)
    .bind(game_id)
    .bind(since)
    .fetch_one(conn)
    .await
}

/// A message to write.
pub struct NewMessage<'a> {
    pub game_id: Uuid,
    pub channel: &'a str,
    pub author_id: Uuid,
    pub author_seat: Option<i16>,
    pub body: &'a str,
    pub at_version: i64,
    pub created_at: DateTime<Utc>,
    pub idempotency_key: &'a str,
    pub request_hash: &'a [u8],
}

/// Writes a message; its id.
pub async fn insert(conn: &mut PgConnection, m: &NewMessage<'_>) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO chat_messages (game_id, channel, author_id, author_seat, body, at_version,
                                    created_at, idempotency_key, request_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
    )
    .bind(m.game_id)
    .bind(m.channel)
    .bind(m.author_id)
    .bind(m.author_seat)
    .bind(m.body)
    .bind(m.at_version)
    .bind(m.created_at)
    .bind(m.idempotency_key)
    .bind(m.request_hash)
    .fetch_one(conn)
    .await
}

/// Per channel of the game: its newest message id.
pub async fn channel_heads<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as("SELECT channel, max(id) FROM chat_messages WHERE game_id = $1 GROUP BY channel")
        .bind(game_id)
        .fetch_all(executor)
        .await
}

/// Per channel of the game: how far `user` has read.
pub async fn markers<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    game_id: Uuid,
) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as(
        "SELECT channel, up_to FROM chat_read_markers WHERE user_id = $1 AND game_id = $2",
    )
    .bind(user)
    .bind(game_id)
    .fetch_all(executor)
    .await
}

/// Per channel among `channels` of the game: the messages after `user`'s read marker that
/// others wrote and no moderator hid.
pub async fn unread<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    game_id: Uuid,
    channels: &[String],
) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as(
        "SELECT m.channel, count(*)
           FROM chat_messages m
           LEFT JOIN chat_read_markers k
             ON k.user_id = $1 AND k.game_id = m.game_id AND k.channel = m.channel
          WHERE m.game_id = $2 AND m.channel = ANY($3) AND m.id > coalesce(k.up_to, 0)
            AND m.author_id <> $1
            AND NOT EXISTS (SELECT 1 FROM chat_hidden h WHERE h.message_id = m.id)
          GROUP BY m.channel",
    )
    .bind(user)
    .bind(game_id)
    .bind(channels)
    .fetch_all(executor)
    .await
}

/// Unread messages of `user` per game, over the (game, channel) pairs given (two arrays of
/// one length): one statement for a page of games. A pair with `counted[i]` false counts
/// only once the user has a read marker there (a spectator who opened the channel).
pub async fn unread_of_games<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    games: &[Uuid],
    channels: &[String],
    counted: &[bool],
) -> sqlx::Result<Vec<(Uuid, i64)>> {
    sqlx::query_as(
        "SELECT r.game_id, count(m.id)
           FROM unnest($2::uuid[], $3::text[], $4::bool[]) AS r(game_id, channel, counted)
           LEFT JOIN chat_read_markers k
             ON k.user_id = $1 AND k.game_id = r.game_id AND k.channel = r.channel
           JOIN chat_messages m
             ON m.game_id = r.game_id AND m.channel = r.channel AND m.id > coalesce(k.up_to, 0)
          WHERE (r.counted OR k.up_to IS NOT NULL) AND m.author_id <> $1
            AND NOT EXISTS (SELECT 1 FROM chat_hidden h WHERE h.message_id = m.id)
          GROUP BY r.game_id",
    )
    .bind(user)
    .bind(games)
    .bind(channels)
    .bind(counted)
    .fetch_all(executor)
    .await
}

/// Moves `user`'s marker of a channel forward to `up_to` (never back); whether it moved.
pub async fn mark_read<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    game_id: Uuid,
    channel: &str,
    up_to: i64,
) -> sqlx::Result<bool> {
    let moved = sqlx::query(
        "INSERT INTO chat_read_markers (user_id, game_id, channel, up_to) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_id, game_id, channel)
         DO UPDATE SET up_to = excluded.up_to WHERE chat_read_markers.up_to < excluded.up_to",
    )
    .bind(user)
    .bind(game_id)
    .bind(channel)
    .bind(up_to)
    .execute(executor)
    .await?
    .rows_affected();
    Ok(moved == 1)
}

/// Whether the game's spectators channel is open (no row: open).
pub async fn spectators_open<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
) -> sqlx::Result<bool> {
    let open: Option<bool> =
        sqlx::query_scalar("SELECT spectators_open FROM chat_channel_settings WHERE game_id = $1")
            .bind(game_id)
            .fetch_optional(executor)
            .await?;
    Ok(open.unwrap_or(true))
}

/// Opens or closes the game's spectators channel.
pub async fn set_spectators_open<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    open: bool,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO chat_channel_settings (game_id, spectators_open) VALUES ($1, $2)
         ON CONFLICT (game_id) DO UPDATE SET spectators_open = $2, changed_at = now()",
    )
    .bind(game_id)
    .bind(open)
    .execute(executor)
    .await?;
    Ok(())
}

/// The seats of the game whose players and `user` blocked one another, either way.
pub async fn blocked_seats<'e>(
    executor: impl PgExecutor<'e>,
    game_id: Uuid,
    user: Uuid,
) -> sqlx::Result<Vec<i16>> {
    sqlx::query_scalar(
        "SELECT s.seat FROM game_seats s JOIN user_blocks b
            ON (b.blocker_id = s.user_id AND b.blocked_id = $2)
            OR (b.blocker_id = $2 AND b.blocked_id = s.user_id)
         WHERE s.game_id = $1",
    )
    .bind(game_id)
    .bind(user)
    .fetch_all(executor)
    .await
}

/// Until when `user` is muted at `now`, if they are (the latest of their running mutes).
pub async fn muted_until<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    now: DateTime<Utc>,
) -> sqlx::Result<Option<DateTime<Utc>>> {
    sqlx::query_scalar(
        "SELECT max(until) FROM chat_mutes WHERE user_id = $1 AND lifted_at IS NULL AND until > $2",
    )
    .bind(user)
    .bind(now)
    .fetch_one(executor)
    .await
}

/// A mute as listed.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct MuteRow {
    pub id: i64,
    pub user_id: Uuid,
    pub username: String,
    pub until: DateTime<Utc>,
    pub reason: String,
    pub muted_by: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub lifted_at: Option<DateTime<Utc>>,
}

/// Mutes `user` until `until`; the mute.
pub async fn mute<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    until: DateTime<Utc>,
    reason: &str,
    by: Option<Uuid>,
) -> sqlx::Result<MuteRow> {
    sqlx::query_as(
        "WITH m AS (INSERT INTO chat_mutes (user_id, until, reason, muted_by)
                    VALUES ($1, $2, $3, $4) RETURNING *)
         SELECT m.id, m.user_id, u.username, m.until, m.reason, m.muted_by, m.created_at,
                m.lifted_at
           FROM m JOIN users u ON u.id = m.user_id",
    )
    .bind(user)
    .bind(until)
    .bind(reason)
    .bind(by)
    .fetch_one(executor)
    .await
}

/// Lifts `user`'s running mutes at `now`; how many.
pub async fn unmute<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
    now: DateTime<Utc>,
) -> sqlx::Result<u64> {
    Ok(sqlx::query(
        "UPDATE chat_mutes SET lifted_at = $2 WHERE user_id = $1 AND lifted_at IS NULL AND until > $2",
    )
    .bind(user)
    .bind(now)
    .execute(executor)
    .await?
    .rows_affected())
}

/// The mutes of `user` (the my-data export).
pub async fn mutes_of<'e>(executor: impl PgExecutor<'e>, user: Uuid) -> sqlx::Result<Vec<MuteRow>> {
    sqlx::query_as(
        "SELECT m.id, m.user_id, u.username, m.until, m.reason, m.muted_by, m.created_at,
                m.lifted_at
           FROM chat_mutes m JOIN users u ON u.id = m.user_id
          WHERE m.user_id = $1 ORDER BY m.id",
    )
    .bind(user)
    .fetch_all(executor)
    .await
}

/// Reports `message` for `reporter`: the report's id and whether it is new (one per
/// reporter and message).
pub async fn report<'e>(
    executor: impl PgExecutor<'e>,
    message: i64,
    reporter: Uuid,
    reason: &str,
    note: Option<&str>,
) -> sqlx::Result<(i64, bool)> {
    sqlx::query_as(
        "WITH added AS (
             INSERT INTO chat_reports (message_id, reporter_id, reason, note)
             VALUES ($1, $2, $3, $4) ON CONFLICT (message_id, reporter_id) DO NOTHING
             RETURNING id
         )
         SELECT id, true FROM added
         UNION ALL
         SELECT id, false FROM chat_reports WHERE message_id = $1 AND reporter_id = $2
         LIMIT 1",
    )
    .bind(message)
    .bind(reporter)
    .bind(reason)
    .bind(note)
    .fetch_one(executor)
    .await
}

/// Those of `messages` that `reporter` reported.
pub async fn reported_among<'e>(
    executor: impl PgExecutor<'e>,
    reporter: Uuid,
    messages: &[i64],
) -> sqlx::Result<Vec<i64>> {
    if messages.is_empty() {
        return Ok(Vec::new());
    }
    sqlx::query_scalar(
        "SELECT message_id FROM chat_reports WHERE reporter_id = $1 AND message_id = ANY($2)",
    )
    .bind(reporter)
    .bind(messages)
    .fetch_all(executor)
    .await
}

/// A report as moderators list it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ReportRow {
    pub id: i64,
    pub message_id: i64,
    pub reporter_id: Uuid,
    pub reporter: String,
    pub reason: String,
    pub note: Option<String>,
    pub created_at: DateTime<Utc>,
    pub resolved_at: Option<DateTime<Utc>>,
    pub resolution: Option<String>,
    /// The admin who resolved it; `None`: the operator at the command line (or still open).
    pub resolved_by: Option<Uuid>,
    /// The moderator's word on a dismissal, if they gave one.
    pub resolution_note: Option<String>,
}

const REPORT_FROM: &str = "SELECT r.id, r.message_id, r.reporter_id, u.username AS reporter,
        r.reason, r.note, r.created_at, r.resolved_at, r.resolution, r.resolved_by,
        r.resolution_note
   FROM chat_reports r JOIN users u ON u.id = r.reporter_id";

/// One report.
pub async fn report_by_id<'e>(
    executor: impl PgExecutor<'e>,
    id: i64,
) -> sqlx::Result<Option<ReportRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{REPORT_FROM} WHERE r.id = $1"
    )))
    .bind(id)
    .fetch_optional(executor)
    .await
}

/// Dismisses report `id` at `at` if it is still open (`by`: the admin; `None`: the operator);
/// whether it was open.
pub async fn dismiss<'e>(
    executor: impl PgExecutor<'e>,
    id: i64,
    by: Option<Uuid>,
    note: Option<&str>,
    at: DateTime<Utc>,
) -> sqlx::Result<bool> {
    let changed = sqlx::query(
        "UPDATE chat_reports
            SET resolved_at = $4, resolution = 'dismissed', resolved_by = $2, resolution_note = $3
          WHERE id = $1 AND resolved_at IS NULL",
    )
    .bind(id)
    .bind(by)
    .bind(note)
    .bind(at)
    .execute(executor)
    .await?
    .rows_affected();
    Ok(changed == 1)
}

/// Reports, the oldest first: open ones only, or all; at most `limit`.
pub async fn reports<'e>(
    executor: impl PgExecutor<'e>,
    open_only: bool,
    limit: i64,
) -> sqlx::Result<Vec<ReportRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{REPORT_FROM} WHERE (NOT $1 OR r.resolved_at IS NULL) ORDER BY r.id LIMIT $2"
    )))
    .bind(open_only)
    .bind(limit)
    .fetch_all(executor)
    .await
}

/// The reports `user` made (the my-data export).
pub async fn reports_by<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
) -> sqlx::Result<Vec<ReportRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{REPORT_FROM} WHERE r.reporter_id = $1 ORDER BY r.id"
    )))
    .bind(user)
    .fetch_all(executor)
    .await
}

/// Hides a message (and resolves its open reports as `hidden`); whether it was not hidden
/// before.
pub async fn hide(
    conn: &mut PgConnection,
    message: i64,
    by: Option<Uuid>,
    reason: &str,
) -> sqlx::Result<bool> {
    let added = sqlx::query(
        "INSERT INTO chat_hidden (message_id, hidden_by, reason) VALUES ($1, $2, $3)
         ON CONFLICT (message_id) DO NOTHING",
    )
    .bind(message)
    .bind(by)
    .bind(reason)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    sqlx::query(
        "UPDATE chat_reports SET resolved_at = now(), resolution = 'hidden', resolved_by = $2
          WHERE message_id = $1 AND resolved_at IS NULL",
    )
    .bind(message)
    .bind(by)
    .execute(&mut *conn)
    .await?;
    Ok(added == 1)
}

/// The messages `user` wrote, the oldest first (the my-data export).
pub async fn messages_by<'e>(
    executor: impl PgExecutor<'e>,
    user: Uuid,
) -> sqlx::Result<Vec<MessageRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{MESSAGE_FROM} WHERE m.author_id = $1 ORDER BY m.id"
    )))
    .bind(user)
    .fetch_all(executor)
    .await
}
