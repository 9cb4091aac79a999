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

/// Whether a seated player (`seat`, `None` when not seated) may read `channel` of a game in
/// `status`: the table always; a private channel only its two seats; the spectators' channel
/// only once the game is finished (before, it is the spectators' own).
pub fn seat_may_read(channel: &str, seat: Option<i16>, status: &str) -> bool {
    let Some(seat) = seat else {
        return false;
    };
    match channel {
        "table" => true,
        "spectators" => status == "finished",
        other => other
            .strip_prefix("private:")
            .and_then(|pair| pair.split_once('-'))
            .and_then(|(a, b)| Some((a.parse::<i16>().ok()?, b.parse::<i16>().ok()?)))
            .is_some_and(|(a, b)| seat == a || seat == b),
    }
}

/// Checks a mention mail to `recipient` just before it is sent or listed in a digest: the
/// message must still exist and not be hidden by a moderator, the recipient must still be
/// able to read its channel, and neither of the two may block the other (a block made since
/// the message was written counts). Gives the author's name as seats show it now (a rename
/// or an account deletion since changes it), or the reason to skip the mail.
pub async fn recheck(
    conn: &mut PgConnection,
    data: &serde_json::Value,
    recipient: Uuid,
) -> sqlx::Result<Result<String, &'static str>> {
    let Some(message_id) = data.get("message_id").and_then(serde_json::Value::as_i64) else {
        return Ok(Err("message_gone"));
    };
    let Some(message) = crate::store::mentions::check(&mut *conn, message_id, recipient).await?
    else {
        return Ok(Err("message_gone"));
    };
    if message.hidden {
        return Ok(Err("hidden"));
    }
    if message.author_id == recipient {
        return Ok(Err("author"));
    }
    if message.blocked {
        return Ok(Err("blocked"));
    }
    if !seat_may_read(
        &message.channel,
        message.recipient_seat,
        &message.game_status,
    ) {
        return Ok(Err("unreadable"));
    }
    Ok(Ok(crate::words::player_name(
        &message.author_username,
        message.author_display_name.as_deref(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn who_of_the_seats_may_read_which_channel() {
        assert!(seat_may_read("table", Some(3), "active"));
        assert!(!seat_may_read("table", None, "active"));
        assert!(seat_may_read("private:0-2", Some(0), "active"));
        assert!(seat_may_read("private:0-2", Some(2), "finished"));
        assert!(!seat_may_read("private:0-2", Some(1), "finished"));
        assert!(!seat_may_read("private:x-2", Some(2), "active"));
        assert!(!seat_may_read("spectators", Some(1), "active"));
        assert!(seat_may_read("spectators", Some(1), "finished"));
        assert!(!seat_may_read("lobby", Some(1), "active"));
    }

    #[test]
    fn the_author_is_never_a_recipient_and_the_message_id_is_always_in_the_data() {
        let author = Uuid::now_v7();
        let other = Uuid::now_v7();
        let mention = MentionNotice {
            game_id: Uuid::now_v7(),
            game_kind: "flying-dutchman".into(),
            message_id: 42,
            channel: "table".into(),
            author_name: "anna".into(),
            author_id: author,
            text: "@bert hello".into(),
            at: chrono::Utc::now(),
            recipients: vec![author, other],
        };
        let notices = mention.notices();
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].user_id, other);
        assert_eq!(notices[0].dedupe_key, "chat_mention:42");
        assert_eq!(notices[0].data["message_id"], 42);
        let bare = Notice::chat_mention(other, Uuid::nil(), 7, serde_json::Value::Null);
        assert_eq!(bare.data["message_id"], 7);
    }
}
