//! The JSON a push carries, built from the recipient's own view: what the mail of that kind
//! says in its subject line, in the recipient's language, and a link to the game. Never a
//! card, a hand, a hidden count or another seat's private chat: only the headline the mail
//! already shows that seat (`render::headline`) and, for a mention, the message the recipient
//! may read (re-checked just before, as for mail).

use crate::key;
use crate::service::delivery::render::{self, GameInfo, Links, NoticeContext};
use crate::service::notices::NoticeKind;
use crate::words::catalogue::{Args, say};
use crate::words::language::Language;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

/// Longest chat text quoted in a push body (characters).
pub const MAX_QUOTE_CHARS: usize = 140;

/// What the service worker shows: `title` and `body`, `tag` to replace an older notification
/// of the same game and kind, `url` to open on a click.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Payload {
    pub kind: &'static str,
    pub title: String,
    pub body: String,
    pub url: String,
    pub game_id: Option<Uuid>,
    pub tag: String,
}

/// Everything a payload is made from.
pub struct Source<'a> {
    pub recipient_id: Uuid,
    pub recipient_name: &'a str,
    pub kind: NoticeKind,
    pub data: &'a Value,
    pub game_id: Option<Uuid>,
    pub game: Option<&'a GameInfo>,
    /// The game's page (`{base_url}/games/{id}`), or the base URL for a notice without a game.
    pub url: String,
    pub now: DateTime<Utc>,
    pub language: Language,
    pub zone: chrono_tz::Tz,
}

/// The tag (and the push `Topic`, see [`topic`]): one per game and kind, so a newer "your
/// turn" replaces an older one.
pub fn tag(kind: NoticeKind, game_id: Option<Uuid>) -> String {
    match game_id {
        Some(game) => format!("{}-{}", kind.as_str(), game.simple()),
        None => kind.as_str().to_string(),
    }
}

/// The push `Topic` header: at most 32 characters of the URL-safe base64 alphabet (RFC 8030
/// 5.4). The kind's first letters and the game id's first 24 hex digits.
pub fn topic(kind: NoticeKind, game_id: Option<Uuid>) -> String {
    let kind: String = kind
        .as_str()
        .chars()
        .filter(|c| *c != '_')
        .take(8)
        .collect();
    match game_id {
        Some(game) => format!("{kind}{}", &game.simple().to_string()[..24]),
        None => kind,
    }
}

pub fn build(source: &Source) -> Payload {
    let links = Links {
        unsubscribe: String::new(),
        unsubscribe_all: String::new(),
        preferences: String::new(),
    };
    let ctx = NoticeContext {
        recipient_id: source.recipient_id,
        recipient_name: source.recipient_name,
        kind: source.kind,
        data: source.data,
        game_id: source.game_id,
        game: source.game,
        game_link: Some(source.url.clone()),
        links: &links,
        now: source.now,
        language: source.language,
        zone: source.zone,
    };
    let title = render::headline(&ctx);
    let body = match source.kind {
        NoticeKind::ChatMention => source
            .data
            .get("text")
            .and_then(Value::as_str)
            .map(quote)
            .unwrap_or_default(),
        _ => say(source.language, key!("push-open-game"), &Args::new()),
    };
    Payload {
        kind: source.kind.as_str(),
        title,
        body,
        url: source.url.clone(),
        game_id: source.game_id,
        tag: tag(source.kind, source.game_id),
    }
}

/// The start of a chat message on one line.
fn quote(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= MAX_QUOTE_CHARS {
        return line;
    }
    let mut cut: String = line.chars().take(MAX_QUOTE_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_are_short_and_url_safe() {
        let game = Uuid::now_v7();
        for kind in NoticeKind::ALL {
            let topic = topic(kind, Some(game));
            assert!(topic.len() <= 32, "{topic}");
            assert!(topic.chars().all(|c| c.is_ascii_alphanumeric()), "{topic}");
        }
    }

    #[test]
    fn a_long_chat_message_is_cut() {
        let long = "word ".repeat(100);
        assert_eq!(quote(&long).chars().count(), MAX_QUOTE_CHARS);
        assert_eq!(quote("a\nb"), "a b");
    }
}
