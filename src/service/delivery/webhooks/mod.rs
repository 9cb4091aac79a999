//! Signed webhooks (the Standard Webhooks specification): endpoints a user registers, with
//! their own secrets; every notice of the outbox the owner subscribed to becomes a delivery
//! per endpoint, sent with retries by the `webhooks` worker ([`worker`]).
//!
//! The pure parts live here: the signature, the bodies, the retry schedule.

pub mod endpoints;
pub mod worker;

use crate::service::delivery::render::{self, Links, Locale, NoticeContext};
use crate::service::notices::NoticeKind;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use rand::RngExt;
use serde_json::{Value, json};
use sha2::Sha256;
use std::time::Duration;
use uuid::Uuid;

/// The event type of "send a test event".
pub const TEST_EVENT: &str = "webhook.test";
/// How many endpoints one user may have.
pub const MAX_ENDPOINTS: i64 = 10;
/// How long a rotated-out secret keeps signing.
pub const SECRET_OVERLAP: chrono::TimeDelta = chrono::TimeDelta::hours(24);

/// The event type of a notice kind (`notice.your_turn`).
pub fn event_type(kind: NoticeKind) -> String {
    format!("notice.{}", kind.as_str())
}

/// Every event type an endpoint may subscribe to, from the notice kinds.
pub fn event_types() -> Vec<String> {
    NoticeKind::ALL.into_iter().map(event_type).collect()
}

/// A new secret: `whsec_` and the base64 of 32 random bytes.
pub fn new_secret() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    format!("whsec_{}", STANDARD.encode(bytes))
}

/// A new delivery id (`webhook-id`): `msg_` and a time-ordered UUID's hex.
pub fn new_message_id() -> String {
    format!("msg_{}", uuid::Uuid::now_v7().simple())
}

/// The `webhook-signature` header: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`
/// for each secret (the key is the base64 part after `whsec_`, decoded), separated by spaces.
pub fn signature(secrets: &[String], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .filter_map(|secret| {
            let key = STANDARD
                .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
                .ok()?;
            let mut mac = Hmac::<Sha256>::new_from_slice(&key).ok()?;
            mac.update(id.as_bytes());
            mac.update(b".");
            mac.update(timestamp.to_string().as_bytes());
            mac.update(b".");
            mac.update(body);
            Some(format!(
                "v1,{}",
                STANDARD.encode(mac.finalize().into_bytes())
            ))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The standard body: `{type, timestamp, data}`.
pub fn standard_body(event_type: &str, at: DateTime<Utc>, data: &Value) -> Value {
    json!({
        "type": event_type,
        "timestamp": at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "data": data,
    })
}

/// The one line a chat channel's hook gets: the event's summary, in its owner's language
/// (written when the delivery was planned: [`summary`]), and the game's page. An event
/// without one (planned before summaries were written) says its type.
pub fn line(event_type: &str, data: &Value) -> String {
    let field = |name: &str| data.get(name).and_then(Value::as_str).unwrap_or("");
    let text = match field("summary") {
        "" => format!("Kontor: {event_type}"),
        summary => summary.to_string(),
    };
    match field("link") {
        "" => text,
        link => format!("{} {link}", text.trim_end()),
    }
}

/// A notice's summary for its owner's webhooks (`data.summary`): the subject of the owner's
/// mail of it (for a mention with the start of the message), in their language and time zone,
/// from the notice's data, which `game_kind` completes.
pub fn summary(
    kind: NoticeKind,
    data: &Value,
    game_kind: Option<&str>,
    owner: (Uuid, &str),
    locale: Locale,
    at: DateTime<Utc>,
) -> String {
    let mut data = data.clone();
    if let (Some(kind), Some(fields)) = (game_kind, data.as_object_mut()) {
        fields.insert("game_kind".into(), kind.into());
    }
    let links = Links {
        unsubscribe: String::new(),
        unsubscribe_all: String::new(),
        preferences: String::new(),
    };
    render::news_line(&NoticeContext {
        recipient_id: owner.0,
        recipient_name: owner.1,
        kind,
        data: &data,
        game_id: None,
        game: None,
        game_link: None,
        links: &links,
        now: at,
        language: locale.language,
        zone: locale.zone,
    })
}

/// The body an endpoint of `format` gets for an event whose standard body is `standard`.
///
/// A chat service would act on what players wrote (a message, a name): mention `@everyone`, a
/// role or a channel, or show a link under a label it does not go to. So what players wrote
/// is made inert in each service's own way ([`inert_data`]), and the bodies say so too:
/// Discord's `allowed_mentions` with nothing to parse and its embeds suppressed, Slack's link
/// previews off.
pub fn body_for(format: &str, standard: &Value) -> Value {
    let event_type = standard["type"].as_str().unwrap_or("");
    match format {
        "discord" => json!({
            "content": line(event_type, &inert_data(&standard["data"], Chat::Discord)),
            "allowed_mentions": { "parse": [] },
            "flags": DISCORD_SUPPRESS_EMBEDS,
        }),
        "slack" => json!({
            "text": line(event_type, &inert_data(&standard["data"], Chat::Slack)),
            "unfurl_links": false,
            "unfurl_media": false,
        }),
        _ => standard.clone(),
    }
}

/// Discord's message flag `SUPPRESS_EMBEDS` (1 << 2): no previews of links.
pub const DISCORD_SUPPRESS_EMBEDS: u64 = 1 << 2;

/// The fields of a notice's data that players wrote (a chat message, names), or that quote
/// them (the summary, which names players and starts a mention's message).
const WRITTEN_BY_PLAYERS: &[&str] = &[
    "summary",
    "author",
    "text",
    "inviter",
    "offered_by",
    "by",
    "player",
    "result",
];

/// A chat service a body is written for.
#[derive(Clone, Copy)]
enum Chat {
    Discord,
    Slack,
}

/// The data with what players wrote made inert for `chat`: its markup escaped (Discord's
/// Markdown with a backslash, Slack's `&`, `<` and `>` as entities: no `<@U1>`, `<!here>` or
/// `<https://a|label>`, no `[label](https://a)`), and every URL in it defanged (`https[:]//a[.]b`:
/// still readable, no longer a link). The server's own fields (the game's link) are kept.
fn inert_data(data: &Value, chat: Chat) -> Value {
    let mut data = data.clone();
    if let Some(fields) = data.as_object_mut() {
        for name in WRITTEN_BY_PLAYERS {
            if let Some(Value::String(text)) = fields.get_mut(*name) {
                *text = defang(&escape(text, chat));
            }
        }
    }
    data
}

/// `text` with the markup `chat` would read escaped.
fn escape(text: &str, chat: Chat) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match (chat, c) {
            (Chat::Slack, '&') => out.push_str("&amp;"),
            (Chat::Slack, '<') => out.push_str("&lt;"),
            (Chat::Slack, '>') => out.push_str("&gt;"),
            (
                Chat::Discord,
                '\\' | '*' | '_' | '~' | '`' | '|' | '<' | '>' | '[' | ']' | '(' | ')' | '@' | '#',
            ) => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every `scheme://host` in `text` defanged: `scheme[:]//host` with the host's dots as `[.]`, so
/// that no chat service makes a link of it (or of its host name).
fn defang(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        out.push_str(&rest[..at]);
        out.push_str("[:]//");
        rest = &rest[at + 3..];
        let host_end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '/' | '?' | '#' | '\\'))
            .unwrap_or(rest.len());
        out.push_str(&rest[..host_end].replace('.', "[.]"));
        rest = &rest[host_end..];
    }
    out.push_str(rest);
    out
}

/// The fields of a notice's data that its owner's mail shows and a webhook may carry; the
/// rest (anything that could be another seat's) is left out.
pub const DATA_FIELDS: &[&str] = &[
    "deadline",
    "inviter",
    "result",
    "offered_by",
    "expires_at",
    "by",
    "moves",
    "to_version",
    "at_version",
    "channel",
    "at",
    "seat",
    "player",
    "policy",
];

/// The thin data of a notice: the game, its kind and link, and the fields of [`DATA_FIELDS`].
pub fn notice_data(
    game_id: Option<Uuid>,
    game_kind: Option<&str>,
    link: Option<String>,
    data: &Value,
) -> Value {
    let mut out = serde_json::Map::new();
    if let Some(game_id) = game_id {
        out.insert("game_id".into(), json!(game_id));
    }
    if let Some(kind) = game_kind {
        out.insert("game_kind".into(), json!(kind));
    }
    if let Some(link) = link {
        out.insert("link".into(), json!(link));
    }
    for &name in DATA_FIELDS {
        if let Some(value) = data.get(name) {
            out.insert(name.into(), value.clone());
        }
    }
    Value::Object(out)
}

/// The waits after each failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h (about
/// 2 days and 3 hours in all, plus jitter); after the 9th attempt fails the delivery fails
/// for good.
pub const RETRY_WAITS_SECS: [u64; 8] = [
    5,
    5 * 60,
    30 * 60,
    2 * 3600,
    5 * 3600,
    10 * 3600,
    14 * 3600,
    20 * 3600,
];

/// The wait after failed attempt number `attempts` (1 = the first), or `None` when it was
/// the last. `jitter` in [0, 1) adds up to a fifth of the wait.
pub fn retry_wait(attempts: i32, jitter: f64) -> Option<Duration> {
    let index = usize::try_from(attempts).ok()?.checked_sub(1)?;
    let base = *RETRY_WAITS_SECS.get(index)?;
    Some(Duration::from_secs_f64(
        base as f64 * (1.0 + jitter.clamp(0.0, 1.0) / 5.0),
    ))
}

/// The most a receiver's `Retry-After` may push a retry back.
pub const RETRY_AFTER_MAX: Duration = Duration::from_secs(24 * 3600);

/// A `Retry-After` in seconds (the HTTP-date form is not honoured), bounded: at least a
/// second (a receiver cannot make the worker spin), at most [`RETRY_AFTER_MAX`].
pub fn retry_after(header: Option<&str>) -> Option<Duration> {
    let secs: u64 = header?.trim().parse().ok()?;
    Some(Duration::from_secs(secs.max(1)).min(RETRY_AFTER_MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_matches_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification's reference libraries.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".to_string();
        let id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
        let timestamp = 1614265330;
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            signature(&[secret], id, timestamp, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn two_secrets_give_two_signatures() {
        let (a, b) = (new_secret(), new_secret());
        let both = signature(&[a.clone(), b.clone()], "msg_1", 1, b"{}");
        let parts: Vec<&str> = both.split(' ').collect();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0], signature(&[a], "msg_1", 1, b"{}"));
        assert_eq!(parts[1], signature(&[b], "msg_1", 1, b"{}"));
    }

    #[test]
    fn the_schedule_spans_two_to_three_days_then_gives_up() {
        let total: u64 = RETRY_WAITS_SECS.iter().sum();
        assert!((2 * 86400..3 * 86400).contains(&total), "{total}");
        assert_eq!(retry_wait(1, 0.0), Some(Duration::from_secs(5)));
        assert_eq!(retry_wait(1, 0.5), Some(Duration::from_millis(5500)));
        assert_eq!(retry_wait(8, 0.0), Some(Duration::from_secs(20 * 3600)));
        assert_eq!(retry_wait(9, 0.0), None);
        assert_eq!(retry_wait(0, 0.0), None);
    }

    #[test]
    fn retry_after_is_bounded_and_only_seconds() {
        assert_eq!(retry_after(Some("120")), Some(Duration::from_secs(120)));
        assert_eq!(retry_after(Some("99999999")), Some(RETRY_AFTER_MAX));
        assert_eq!(retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(retry_after(None), None);
        assert_eq!(retry_after(Some("0")), Some(Duration::from_secs(1)));
    }

    #[test]
    fn notice_data_keeps_only_what_the_owner_is_shown() {
        let data = json!({"deadline": "2026-12-01T12:00:00Z", "hand": [1, 2], "opponents": ["x"]});
        let thin = notice_data(None, Some("steel-driver"), None, &data);
        assert_eq!(
            thin,
            json!({"game_kind": "steel-driver", "deadline": "2026-12-01T12:00:00Z"})
        );
    }

    #[test]
    fn chat_formats_carry_one_line() {
        let standard = standard_body(
            "notice.your_turn",
            Utc::now(),
            &json!({"game_kind": "flying-dutchman", "link": "https://k.example/games/1",
                "summary": "Your turn in The Flying Dutchman"}),
        );
        assert_eq!(
            body_for("discord", &standard),
            json!({"content": "Your turn in The Flying Dutchman https://k.example/games/1",
                   "allowed_mentions": {"parse": []}, "flags": 4})
        );
        assert_eq!(
            body_for("slack", &standard)["text"],
            body_for("discord", &standard)["content"]
        );
        assert_eq!(body_for("slack", &standard)["unfurl_links"], false);
        assert_eq!(body_for("standard", &standard), standard);
    }

    #[test]
    fn what_players_wrote_pings_nobody_and_links_nowhere() {
        let standard = standard_body(
            "notice.chat_mention",
            Utc::now(),
            &json!({"game_kind": "steel-driver", "link": "https://k.example/games/1",
                    "summary": "evil_*bot* mentioned you in Steel Driver: @everyone @here <@123> <@&456> <#789> <!channel> <https://evil.example|bank> [bank](https://evil.example/x) see http://a.evil.example/p?q=1 & more"}),
        );
        let discord = body_for("discord", &standard);
        assert_eq!(discord["allowed_mentions"], json!({"parse": []}));
        let content = discord["content"].as_str().unwrap();
        assert_eq!(
            content,
            "evil\\_\\*bot\\* mentioned you in Steel Driver: \\@everyone \\@here \\<\\@123\\> \\<\\@&456\\> \\<\\#789\\> \\<!channel\\> \\<https[:]//evil[.]example\\|bank\\> \\[bank\\]\\(https[:]//evil[.]example/x\\) see http[:]//a[.]evil[.]example/p?q=1 & more https://k.example/games/1"
        );
        let slack = body_for("slack", &standard);
        let text = slack["text"].as_str().unwrap();
        assert_eq!(
            text,
            "evil_*bot* mentioned you in Steel Driver: @everyone @here &lt;@123&gt; &lt;@&amp;456&gt; &lt;#789&gt; &lt;!channel&gt; &lt;https[:]//evil[.]example|bank&gt; [bank](https[:]//evil[.]example/x) see http[:]//a[.]evil[.]example/p?q=1 &amp; more https://k.example/games/1"
        );
        // Only the server's own link is a link.
        for body in [content, text] {
            assert_eq!(body.matches("://").count(), 1, "{body}");
        }
    }
}
