//! Chat mentions (`@username`) by mail: the notices the chat service queues when a message
//! mentions players, as the chat contract names them (see [`super::Notice::chat_mention`]
//! for the data of one notice, and `deliver` for the checks made again just before sending).

use super::{Notice, enqueue};
use serde_json::json;
use sqlx::PgConnection;
use uuid::Uuid;

/// A message that mentions players, with the recipients the chat service has already
/// filtered: seated players of the game who may read the channel, not the author, neither
/// blocking nor blocked by the author.
#[derive(Clone, Debug)]
pub struct MentionNotice {
    pub game_id: Uuid,
    /// e.g. `flying-dutchman` (looked up at delivery when empty).
    pub game_kind: String,
    pub message_id: i64,
    /// `table`, `spectators` or `private:A-B`.
    pub channel: String,
    /// The author as the seat shows them (`render::player_name`).
    pub author_name: String,
    pub author_id: Uuid,
    /// The message as stored.
    pub text: String,
    /// When it was written.
    pub at: chrono::DateTime<chrono::Utc>,
    pub recipients: Vec<Uuid>,
}

impl MentionNotice {
    /// One [`Notice::chat_mention`] per recipient (never the author).
    pub fn notices(&self) -> Vec<Notice> {
        let mut data = json!({
            "channel": self.channel,
            "author": self.author_name,
            "author_id": self.author_id,
            "text": self.text,
            "message_id": self.message_id,
            "at": self.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        });
        if !self.game_kind.is_empty() {
            data["game_kind"] = json!(self.game_kind);
        }
        self.recipients
            .iter()
            .filter(|r| **r != self.author_id)
            .map(|r| Notice::chat_mention(*r, self.game_id, self.message_id, data.clone()))
            .collect()
    }
}

/// Queues the mention mails of a message in the caller's transaction (the one that stores
/// the message), applying each recipient's `chat_mention` preference.
pub async fn queue(conn: &mut PgConnection, mention: &MentionNotice) -> sqlx::Result<()> {
    enqueue(conn, &mention.notices()).await
}
