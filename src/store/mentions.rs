//! What mention mails check just before they are sent (or listed in a digest): the message
//! they quote as it stands now, and whether their recipient may still read it.

use sqlx::PgExecutor;
use uuid::Uuid;

/// A chat message as a mention mail to `recipient` sees it at delivery.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct MentionCheck {
    pub game_id: Uuid,
    pub channel: String,
    pub author_id: Uuid,
    /// The author's name now (after a rename or an account deletion, the new one).
    pub author_username: String,
    pub author_display_name: Option<String>,
    /// A moderator has hidden the message.
    pub hidden: bool,
    /// The author and the recipient block each other (either way).
    pub blocked: bool,
    /// The recipient's seat in the message's game, if they sit in it.
    pub recipient_seat: Option<i16>,
    /// The game's status: `open`, `active`, `finished` or `cancelled`.
    pub game_status: String,
}

/// The message `message_id` as a mail to `recipient` sees it, if it exists.
pub async fn check<'e>(
    executor: impl PgExecutor<'e>,
    message_id: i64,
    recipient: Uuid,
) -> Result<Option<MentionCheck>, sqlx::Error> {
    sqlx::query_as(
        "SELECT m.game_id, m.channel, m.author_id,
                a.username AS author_username, a.display_name AS author_display_name,
                EXISTS (SELECT 1 FROM chat_hidden h WHERE h.message_id = m.id) AS hidden,
                EXISTS (SELECT 1 FROM user_blocks b
                         WHERE (b.blocker_id = m.author_id AND b.blocked_id = $2)
                            OR (b.blocker_id = $2 AND b.blocked_id = m.author_id)) AS blocked,
                (SELECT s.seat FROM game_seats s
                  WHERE s.game_id = m.game_id AND s.user_id = $2) AS recipient_seat,
                g.status AS game_status
           FROM chat_messages m
           JOIN users a ON a.id = m.author_id
           JOIN games g ON g.id = m.game_id
          WHERE m.id = $1",
    )
    .bind(message_id)
    .bind(recipient)
    .fetch_optional(executor)
    .await
}
