//! Table talk: who reads and writes which channel of a game, the messages' text, sending
//! (idempotent, rate-limited, muted authors refused), paging, read markers and unread counts,
//! reports and the moderators' hiding and muting.
//!
//! A game's chat is a stream beside its log: writing a message never touches the game's head
//! row, its version, its ETag or its state cache, so it cannot conflict with a move.
//!
//! Channels: `table` (the seats), `private:A-B` (seats A < B, only with `chat = full`) and
//! `spectators` (those who may read the game and hold no seat; the seats once the game has
//! ended). Who may do what is the table's rule (`service::play::channels`).

pub mod moderation;

use crate::live::Note;
use crate::service::notices::mention::{self, MentionNotice};
use crate::service::play::channels::{Access, Channel, Standing, access, candidates, readable_in};
use crate::service::play::error::Error;
use crate::service::play::table::{self, Chat};
use crate::store::chat::{self as store, MessageRow};
use crate::store::games::{self, GameHead};
use crate::store::{audience, users};
use crate::text::identity;
use crate::time::Clock;
use crate::words::player_name;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sqlx::{PgConnection, PgPool};
use unicode_normalization::UnicodeNormalization;
use utoipa::ToSchema;
use uuid::Uuid;

/// The most characters (Unicode scalar values) a message may have.
pub const MAX_CHARS: usize = 500;
/// The largest page of messages.
pub const MAX_PAGE: i64 = 200;
/// The page size when none is asked for.
pub const DEFAULT_PAGE: i64 = 50;

/// Why a chat request was refused.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error(transparent)]
    Service(#[from] Error),
    /// The channel does not exist, or the caller may not read it (the same answer).
    #[error("there is no such chat channel in this game, or you may not read it")]
    ChannelNotFound,
    #[error("there is no such chat message, or you may not read it")]
    MessageNotFound,
    #[error("there is no chat report {0}")]
    ReportNotFound(i64),
    #[error("you may read this channel but not write to it (the game is over for it)")]
    ReadOnly,
    #[error("the game's creator closed the spectators' channel")]
    Closed,
    #[error("one of you blocked the other: this private channel is silent")]
    Blocked,
    /// A moderator muted the caller.
    #[error("a moderator muted you in the chat for {} more", crate::service::play::error::wait_in_words(.left_secs.max(&1).unsigned_abs()))]
    Muted {
        until: DateTime<Utc>,
        left_secs: i64,
    },
    #[error("{0}")]
    InvalidMessage(String),
    #[error("you are sending messages too fast; wait {retry_after} seconds")]
    RateLimited { retry_after: u64 },
    #[error("you sent {limit} messages in this game within 24 hours, the most allowed; try again in {}", crate::service::play::error::wait_in_words(*.retry_after))]
    DailyLimit { limit: u32, retry_after: u64 },
    #[error("this Idempotency-Key was already used for a different message")]
    IdempotencyKeyReused,
}

impl From<sqlx::Error> for ChatError {
    fn from(cause: sqlx::Error) -> Self {
        ChatError::Service(Error::internal(cause))
    }
}

impl From<anyhow::Error> for ChatError {
    fn from(cause: anyhow::Error) -> Self {
        ChatError::Service(Error::internal(cause))
    }
}

/// A message's text as stored: NFC, line breaks as LF, trimmed, 1 to 500 characters, no
/// control characters but LF, and no invisible character the text policy refuses where it
/// stands (`text::visible`: bidirectional controls, zero-width spaces, fillers, …); a message
/// with nothing to see is empty.
pub fn normalise(text: &str) -> Result<String, ChatError> {
    let text: String = text
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .nfc()
        .collect();
    let text = text.trim();
    if let Some(c) = text
        .chars()
        .find(|&c| (c.is_control() && c != '\n') || matches!(c, '\u{2028}' | '\u{2029}'))
    {
        return Err(ChatError::InvalidMessage(format!(
            "a message is plain text with line breaks; U+{:04X} is not allowed",
            c as u32
        )));
    }
    if let Some(misplaced) = crate::text::visible::misplaced(text) {
        return Err(ChatError::InvalidMessage(format!(
            "a message is plain text with line breaks; U+{:04X} ({}) is not allowed",
            misplaced.c as u32, misplaced.what
        )));
    }
    let count = text.chars().count();
    if count == 0 || crate::text::visible::is_blank(text) {
        return Err(ChatError::InvalidMessage(
            "the message is empty (after trimming spaces)".to_string(),
        ));
    }
    if count > MAX_CHARS {
        return Err(ChatError::InvalidMessage(format!(
            "a message has at most {MAX_CHARS} characters, this one {count}"
        )));
    }
    Ok(text.to_string())
}

// ---------------------------------------------------------------------------------------
// What clients see

/// Who wrote a message.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChatAuthor {
    /// The author's seat; `null` for a spectator.
    pub seat: Option<i16>,
    pub user_id: Uuid,
    /// The username (after account deletion: the placeholder the game's seats show).
    pub username: String,
    pub display_name: Option<String>,
}

/// A chat message as the caller may see it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": 1234, "game_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d",
    "channel": "table", "author": {"seat": 2, "user_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3e",
    "username": "anna", "display_name": null}, "text": "hello\nthere", "at_version": 12,
    "created_at": "2026-12-02T10:00:00Z", "hidden": false}))]
pub struct ChatMessage {
    /// Global, increasing, stable: pages and streams resume by it.
    pub id: i64,
    pub game_id: Uuid,
    /// `table`, `spectators` or `private:A-B`.
    pub channel: String,
    pub author: ChatAuthor,
    /// Plain text (never HTML or Markdown), LF line breaks. `null` when a moderator hid the
    /// message (except for admins).
    pub text: Option<String>,
    /// The game's version when the message was written (writing never changes it).
    pub at_version: i64,
    pub created_at: DateTime<Utc>,
    /// A moderator hid the message ("removed by a moderator").
    pub hidden: bool,
    /// Why it was hidden: for admins only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden_reason: Option<String>,
    /// In a channel's pages (`GET …/chat/{channel}/messages`): whether the caller reported
    /// the message already (a report is taken once per reader and message). Absent
    /// elsewhere (streams, moderation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reported_by_you: Option<bool>,
}

impl ChatMessage {
    /// `row` as a reader sees it: an admin sees hidden text and the reason, others neither.
    pub fn of(row: MessageRow, admin: bool) -> Self {
        let text = (!row.hidden || admin).then_some(row.body);
        Self {
            id: row.id,
            game_id: row.game_id,
            channel: row.channel,
            author: ChatAuthor {
                seat: row.author_seat,
                user_id: row.author_id,
                username: row.username,
                display_name: row.display_name,
            },
            text,
            at_version: row.at_version,
            created_at: row.created_at,
            hidden: row.hidden,
            hidden_reason: if admin { row.hidden_reason } else { None },
            reported_by_you: None,
        }
    }
}

/// A channel the caller may read, with their place in it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChannelInfo {
    pub channel: String,
    pub can_read: bool,
    pub can_write: bool,
    /// Why the caller may not write, if they may not: `read_only`, `closed` or `blocked`.
    pub write_refused: Option<String>,
    /// The newest message's id; 0 when the channel is empty.
    pub last_id: i64,
    /// The caller's read marker; 0 when they have read nothing.
    pub read_up_to: i64,
    /// Messages of others after the marker (hidden ones not counted).
    pub unread: i64,
}

/// The chat of a game as the caller may see it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"chat": "full", "spectators_open": true, "channels": [
    {"channel": "table", "can_read": true, "can_write": true, "write_refused": null, "last_id": 17, "read_up_to": 14, "unread": 3},
    {"channel": "private:0-1", "can_read": true, "can_write": true, "write_refused": null, "last_id": 0, "read_up_to": 0, "unread": 0}]}))]
pub struct ChatOverview {
    pub chat: Chat,
    pub spectators_open: bool,
    /// The channels the caller may read now.
    pub channels: Vec<ChannelInfo>,
}

/// One page of a channel.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ChatPage {
    pub items: Vec<ChatMessage>,
    /// Pass as `after` for the next page; `null` when there are no more messages now.
    pub next_after: Option<i64>,
}

/// A message to send.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "3 ducats for the island?"}))]
pub struct SendRequest {
    /// 1–500 characters after trimming; line breaks kept (CRLF and CR become LF).
    pub text: String,
}

/// Moves a read marker.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadRequest {
    /// The id of the newest message read (markers only move forward).
    #[schema(minimum = 0)]
    pub up_to: i64,
}

/// Opens or closes the spectators' channel.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SpectatorsRequest {
    pub open: bool,
}

/// Why a message is reported.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReportReason {
    Spam,
    Abuse,
    Cheating,
    Other,
}

impl ReportReason {
    fn as_str(self) -> &'static str {
        match self {
            ReportReason::Spam => "spam",
            ReportReason::Abuse => "abuse",
            ReportReason::Cheating => "cheating",
            ReportReason::Other => "other",
        }
    }
}

/// A report of a message to the moderators.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportRequest {
    pub reason: ReportReason,
    /// At most 500 characters.
    pub note: Option<String>,
}

/// A report, as its author gets it back.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportCreated {
    pub id: i64,
}

// ---------------------------------------------------------------------------------------
// The game as the chat sees it

/// A game with the caller's standing in its chat.
pub struct Game {
    pub head: GameHead,
    pub standing: Standing,
    /// Seats blocked with the caller, either way.
    pub blocked_seats: Vec<i16>,
    /// The seated players: (seat, user).
    pub seats: Vec<(i16, Uuid)>,
    /// The seated players' usernames: (user, username).
    pub usernames: Vec<(Uuid, String)>,
    pub caller: Uuid,
    pub admin: bool,
}

impl Game {
    pub fn access(&self, channel: Channel) -> Access {
        let blocked = match channel {
            Channel::Private(a, b) => {
                let other = if self.standing.seat == Some(a) { b } else { a };
                self.blocked_seats.contains(&other)
            }
            _ => false,
        };
        access(&self.standing, blocked, channel)
    }

    /// The channels the caller may read now.
    pub fn readable(&self) -> Vec<Channel> {
        candidates(self.standing.seat, self.standing.seat_count)
            .into_iter()
            .filter(|&c| self.access(c).can_read())
            .collect()
    }

    /// A channel named by the client that the caller may read, else `chat_channel_not_found`.
    fn readable_channel(&self, name: &str) -> Result<(Channel, Access), ChatError> {
        let channel = Channel::parse(name).ok_or(ChatError::ChannelNotFound)?;
        match self.access(channel) {
            Access::Hidden => Err(ChatError::ChannelNotFound),
            access => Ok((channel, access)),
        }
    }

    /// The players who may read `channel` (whose unread counts it changes).
    pub fn seated_readers(&self, channel: Channel) -> Vec<Uuid> {
        self.seats
            .iter()
            .filter(|(seat, _)| {
                let standing = Standing {
                    seat: Some(*seat),
                    ..self.standing
                };
                access(&standing, false, channel).can_read()
            })
            .map(|(_, user)| *user)
            .collect()
    }

    /// The players `author`'s message `text` in `channel` mentions who get a mail of it:
    /// seated players named by an `@username` (see [`mentioned`]) who may read the channel,
    /// not the author, and not seated at `blocked` (the seats blocked with the author, either
    /// way).
    pub fn mention_recipients(
        &self,
        channel: Channel,
        author: Uuid,
        blocked: &[i16],
        text: &str,
    ) -> Vec<Uuid> {
        let keys = mentioned(text);
        if keys.is_empty() {
            return Vec::new();
        }
        let readers = self.seated_readers(channel);
        let mut recipients: Vec<Uuid> = self
            .seats
            .iter()
            .filter(|(seat, user)| {
                *user != author && !blocked.contains(seat) && readers.contains(user)
            })
            .map(|(_, user)| *user)
            .filter(|user| {
                self.usernames
                    .iter()
                    .any(|(u, name)| u == user && keys.contains(&identity::key(name)))
            })
            .collect();
        recipients.dedup();
        recipients
    }
}

/// The usernames a message mentions, as comparison keys ([`identity::key`], as logins and
/// name look-ups compare them, so `@Anna` names `anna`): each `@` not inside a word (the
/// character before it is not one a username may hold, so `a@anna` mentions nobody) followed
/// by the longest run of characters a username may hold (so `@anna,` and `(@anna)` name
/// `anna`, while `@annabelle` does not).
pub fn mentioned(text: &str) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    let mut previous: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == '@' && !previous.is_some_and(identity::username_char) {
            let start = at + c.len_utf8();
            let mut end = start;
            while let Some(&(i, n)) = chars.peek() {
                if !identity::username_char(n) {
                    break;
                }
                end = i + n.len_utf8();
                previous = Some(n);
                chars.next();
            }
            if end > start {
                let key = identity::key(&text[start..end]);
                if !keys.contains(&key) {
                    keys.push(key);
                }
                continue;
            }
        }
        previous = Some(c);
    }
    keys
}

/// The game `game_id` as `caller` stands towards its chat; `game_not_found` when they may
/// not read the game.
pub async fn game(conn: &mut PgConnection, game_id: Uuid, caller: Uuid) -> Result<Game, ChatError> {
    let head = games::head(&mut *conn, game_id)
        .await?
        .ok_or(Error::GameNotFound)?;
    let standing = audience::standing(&mut *conn, game_id, caller).await?;
    if !table::may_read(&head, caller, standing) {
        return Err(Error::GameNotFound.into());
    }
    let seat_rows = games::seats(&mut *conn, game_id).await?;
    let seat = seat_rows
        .iter()
        .find(|s| s.user_id == caller)
        .map(|s| s.seat);
    let blocked_seats = if seat.is_some() {
        store::blocked_seats(&mut *conn, game_id, caller).await?
    } else {
        Vec::new()
    };
    let chat = if head.sandbox {
        Chat::None
    } else {
        Chat::of(&head.kind, &head.options)
    };
    let spectators_open = store::spectators_open(&mut *conn, game_id).await?;
    let admin = users::is_admin_conn(&mut *conn, caller).await?;
    Ok(Game {
        standing: Standing {
            status: head.status(),
            seat,
            seat_count: head.seat_count,
            may_read_game: true,
            chat,
            spectators_open,
        },
        blocked_seats,
        seats: seat_rows.iter().map(|s| (s.seat, s.user_id)).collect(),
        usernames: seat_rows
            .iter()
            .map(|s| (s.user_id, s.username.clone()))
            .collect(),
        caller,
        admin,
        head,
    })
}

/// The chat of a game as `caller` may see it.
pub async fn overview(
    pool: &PgPool,
    game_id: Uuid,
    caller: Uuid,
) -> Result<ChatOverview, ChatError> {
    let mut conn = pool.acquire().await?;
    let game = game(&mut conn, game_id, caller).await?;
    overview_of(&mut conn, &game).await
}

async fn overview_of(conn: &mut PgConnection, game: &Game) -> Result<ChatOverview, ChatError> {
    let channels = game.readable();
    let names: Vec<String> = channels.iter().map(|c| c.name()).collect();
    let heads = store::channel_heads(&mut *conn, game.head.id).await?;
    let markers = store::markers(&mut *conn, game.caller, game.head.id).await?;
    let unread = store::unread(&mut *conn, game.caller, game.head.id, &names).await?;
    let find = |list: &[(String, i64)], name: &str| {
        list.iter().find(|(c, _)| c == name).map_or(0, |(_, n)| *n)
    };
    Ok(ChatOverview {
        chat: game.standing.chat,
        spectators_open: game.standing.spectators_open,
        channels: channels
            .iter()
            .zip(&names)
            .map(|(&channel, name)| {
                let access = game.access(channel);
                ChannelInfo {
                    channel: name.clone(),
                    can_read: true,
                    can_write: access == Access::Write,
                    write_refused: match access {
                        Access::ReadOnly => Some("read_only".into()),
                        Access::Closed => Some("closed".into()),
                        Access::Blocked => Some("blocked".into()),
                        Access::Write | Access::Hidden => None,
                    },
                    last_id: find(&heads, name),
                    read_up_to: find(&markers, name),
                    unread: find(&unread, name),
                }
            })
            .collect(),
    })
}

/// A page of `channel`: messages after id `after`, at most `limit`.
pub async fn page(
    pool: &PgPool,
    game_id: Uuid,
    caller: Uuid,
    channel: &str,
    after: Option<i64>,
    limit: Option<i64>,
) -> Result<ChatPage, ChatError> {
    let limit = limit.unwrap_or(DEFAULT_PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(Error::InvalidParameter(format!(
            "limit is between 1 and {MAX_PAGE}, not {limit}"
        ))
        .into());
    }
    let after = after.unwrap_or(0);
    if after < 0 {
        return Err(Error::InvalidParameter(format!(
            "after is a message id (0 or more), not {after}"
        ))
        .into());
    }
    let mut conn = pool.acquire().await?;
    let game = game(&mut conn, game_id, caller).await?;
    let (channel, _) = game.readable_channel(channel)?;
    let mut rows = store::page(&mut *conn, game_id, &channel.name(), after, limit + 1).await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next_after = more.then(|| rows.last().map(|r| r.id)).flatten();
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let reported = store::reported_among(&mut *conn, caller, &ids).await?;
    Ok(ChatPage {
        items: rows
            .into_iter()
            .map(|r| {
                let id = r.id;
                let mut message = ChatMessage::of(r, game.admin);
                message.reported_by_you = Some(reported.contains(&id));
                message
            })
            .collect(),
        next_after,
    })
}

/// The rate limits of sending.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub burst: u32,
    pub interval_secs: u32,
    pub daily_max: u32,
}

impl From<&crate::config::VolumeLimits> for Limits {
    fn from(limits: &crate::config::VolumeLimits) -> Self {
        Self {
            burst: limits.chat_burst,
            interval_secs: limits.chat_interval_secs,
            daily_max: limits.chat_daily_max,
        }
    }
}

/// The wait, in seconds (rounded up), before one more message is allowed by the token
/// bucket of `burst` messages refilled one per `interval`, given the author's recent sends
/// (newest first); 0 when one is allowed now.
pub fn bucket_wait(
    recent: &[DateTime<Utc>],
    now: DateTime<Utc>,
    burst: u32,
    interval_secs: u32,
) -> u64 {
    if interval_secs == 0 {
        return 0;
    }
    let interval = Duration::seconds(i64::from(interval_secs));
    // Generic cell rate: each message pushes the theoretical arrival time one interval on.
    let mut tat: Option<DateTime<Utc>> = None;
    for &at in recent.iter().rev() {
        let start = match tat {
            Some(t) if t > at => t,
            _ => at,
        };
        tat = Some(start + interval);
    }
    let Some(tat) = tat else { return 0 };
    let tolerance = interval * (burst.max(1) as i32 - 1);
    let allowed_at = tat - tolerance;
    if allowed_at <= now {
        0
    } else {
        let micros = (allowed_at - now).num_microseconds().unwrap_or(i64::MAX);
        (micros as u64).div_ceil(1_000_000)
    }
}

/// What [`send`] did.
pub enum Sent {
    /// A new message.
    Created(ChatMessage),
    /// The message an earlier request with the same key sent.
    Replayed(ChatMessage),
}

/// Who sends to which channel of which game, with which `Idempotency-Key`.
pub struct Sender<'a> {
    pub game_id: Uuid,
    pub caller: Uuid,
    pub channel: &'a str,
    pub key: &'a str,
}

/// Sends `request`'s text as `sender` says, once per key.
pub async fn send(
    pool: &PgPool,
    clock: &Clock,
    limits: Limits,
    sender: Sender<'_>,
    request: &SendRequest,
) -> Result<Sent, ChatError> {
    let Sender {
        game_id,
        caller,
        channel,
        key,
    } = sender;
    let mut tx = pool.begin().await?;
    let game = game(&mut tx, game_id, caller).await?;
    let (channel, access) = game.readable_channel(channel)?;
    let text = normalise(&request.text)?;
    let name = channel.name();
    let hash = Sha256::digest(format!("{name}\n{text}").as_bytes()).to_vec();
    store::lock_sender(&mut tx, caller, game_id).await?;
    if let Some((id, stored)) = store::by_key(&mut tx, caller, game_id, key).await? {
        if stored != hash {
            return Err(ChatError::IdempotencyKeyReused);
        }
        let row = store::message(&mut *tx, id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("message {id} vanished"))?;
        return Ok(Sent::Replayed(ChatMessage::of(row, game.admin)));
    }
    match access {
        Access::Write => {}
        Access::ReadOnly => return Err(ChatError::ReadOnly),
        Access::Closed => return Err(ChatError::Closed),
        Access::Blocked => return Err(ChatError::Blocked),
        Access::Hidden => return Err(ChatError::ChannelNotFound),
    }
    let now = clock.now();
    if let Some(until) = store::muted_until(&mut *tx, caller, now).await? {
        return Err(ChatError::Muted {
            until,
            left_secs: (until - now).num_seconds().max(1),
        });
    }
    let day_ago = now - Duration::hours(24);
    let (recent, today) = store::recent_sends(
        &mut tx,
        caller,
        game_id,
        day_ago,
        i64::from(limits.burst) * 2 + 2,
    )
    .await?;
    if today >= i64::from(limits.daily_max) {
        let oldest = store::oldest_send_since(&mut tx, caller, game_id, day_ago)
            .await?
            .unwrap_or(now);
        let wait = (oldest + Duration::hours(24) - now).num_seconds().max(1) as u64;
        return Err(ChatError::DailyLimit {
            limit: limits.daily_max,
            retry_after: wait,
        });
    }
    let wait = bucket_wait(&recent, now, limits.burst, limits.interval_secs);
    if wait > 0 {
        return Err(ChatError::RateLimited { retry_after: wait });
    }
    let id = store::insert(
        &mut tx,
        &store::NewMessage {
            game_id,
            channel: &name,
            author_id: caller,
            author_seat: game.standing.seat,
            body: &text,
            at_version: game.head.version,
            created_at: now,
            idempotency_key: key,
            request_hash: &hash,
        },
    )
    .await?;
    let readers: Vec<Uuid> = game
        .seated_readers(channel)
        .into_iter()
        .filter(|&u| u != caller)
        .collect();
    let row = store::message(&mut *tx, id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("message {id} vanished"))?;
    // Mentions are mailed from here only, once per new message (a replay returned above).
    if !mentioned(&text).is_empty() {
        let blocked = store::blocked_seats(&mut *tx, game_id, caller).await?;
        let recipients = game.mention_recipients(channel, caller, &blocked, &text);
        if !recipients.is_empty() {
            mention::queue(
                &mut tx,
                &MentionNotice {
                    game_id,
                    game_kind: game.head.kind.clone(),
                    message_id: id,
                    channel: name.clone(),
                    author_name: player_name(&row.username, row.display_name.as_deref()),
                    author_id: caller,
                    text: text.clone(),
                    at: row.created_at,
                    recipients,
                },
            )
            .await?;
        }
    }
    crate::live::announce(&mut tx, &Note::chat(game_id, id, readers)).await?;
    tx.commit().await?;
    Ok(Sent::Created(ChatMessage::of(row, game.admin)))
}

/// Up to a page ([`MAX_PAGE`]) of the messages after id `after` in the channels `look`'s
/// reader may read now, ascending, as they may see them: what a live stream sends, in one
/// statement (who reads what is decided from the look, in memory).
pub async fn stream_since(
    pool: &PgPool,
    look: &table::Look,
    after: i64,
) -> Result<Vec<ChatMessage>, Error> {
    let channels: Vec<String> = readable_in(&look.head, look.seat)
        .iter()
        .map(|c| c.name())
        .collect();
    if channels.is_empty() {
        return Ok(Vec::new());
    }
    let rows = store::since(pool, look.head.id, &channels, after, MAX_PAGE).await?;
    Ok(rows
        .into_iter()
        .map(|row| ChatMessage::of(row, look.admin))
        .collect())
}

/// The channel of the game's message `id`, which a moderator hid, if `look`'s reader may
/// read it (what a live stream tells them).
pub async fn hidden_in(
    pool: &PgPool,
    look: &table::Look,
    id: i64,
) -> Result<Option<String>, Error> {
    let Some(row) = store::message(pool, id).await? else {
        return Ok(None);
    };
    let readable = row.game_id == look.head.id
        && Channel::parse(&row.channel)
            .is_some_and(|c| readable_in(&look.head, look.seat).contains(&c));
    Ok(readable.then_some(row.channel))
}

/// Moves the caller's read marker of a channel forward to `up_to`.
pub async fn mark_read(
    pool: &PgPool,
    game_id: Uuid,
    caller: Uuid,
    channel: &str,
    up_to: i64,
) -> Result<(), ChatError> {
    if up_to < 0 {
        return Err(Error::invalid_field("up_to", "up_to is a message id (0 or more)").into());
    }
    let mut tx = pool.begin().await?;
    let game = game(&mut tx, game_id, caller).await?;
    let (channel, _) = game.readable_channel(channel)?;
    if store::mark_read(&mut *tx, caller, game_id, &channel.name(), up_to).await? {
        crate::live::announce(&mut tx, &Note::chat_read(game_id, caller)).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Opens or closes the spectators channel (the game's creator only).
pub async fn set_spectators(
    pool: &PgPool,
    game_id: Uuid,
    caller: Uuid,
    open: bool,
) -> Result<ChatOverview, ChatError> {
    let mut conn = pool.acquire().await?;
    let mut game = game(&mut conn, game_id, caller).await?;
    if game.head.created_by != caller {
        return Err(Error::NotTheCreator {
            action: "open or close the spectators' chat of",
        }
        .into());
    }
    store::set_spectators_open(&mut *conn, game_id, open).await?;
    game.standing.spectators_open = open;
    overview_of(&mut conn, &game).await
}

/// Whether `caller` may read the message `id`; the message and its game as the caller
/// stands towards it.
async fn readable_message(
    conn: &mut PgConnection,
    id: i64,
    caller: Uuid,
) -> Result<(MessageRow, Game), ChatError> {
    let row = store::message(&mut *conn, id)
        .await?
        .ok_or(ChatError::MessageNotFound)?;
    let game = match game(&mut *conn, row.game_id, caller).await {
        Ok(game) => game,
        Err(ChatError::Service(Error::GameNotFound)) => return Err(ChatError::MessageNotFound),
        Err(e) => return Err(e),
    };
    let channel = Channel::parse(&row.channel).ok_or(ChatError::MessageNotFound)?;
    if !game.access(channel).can_read() {
        return Err(ChatError::MessageNotFound);
    }
    Ok((row, game))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn mentions_are_at_usernames_outside_words_compared_by_key() {
        assert_eq!(mentioned("@anna, look"), ["anna"]);
        assert_eq!(mentioned("(@Anna) and @BERT."), ["anna", "bert"]);
        // Inside a longer word, or an address: no mention.
        assert!(mentioned("a@anna mail@example.org").is_empty());
        assert!(mentioned("@ alone, @, @@").is_empty());
        // The whole name: `@annabelle` is not `anna`; `_` and `-` belong to names.
        assert_eq!(
            mentioned("@annabelle @an_na @an-na"),
            ["annabelle", "an_na", "an-na"]
        );
        // Folded as usernames are (full case folding): `STRASSE` and `straße` are one name.
        assert_eq!(mentioned("@STRASSE @straße"), [identity::key("straße")]);
        assert_eq!(mentioned("@@yuki\n@ユキ"), ["yuki", "ユキ"]);
        // Once each.
        assert_eq!(mentioned("@anna @ANNA @anna"), ["anna"]);
    }

    #[test]
    fn text_is_normalised_and_checked() {
        assert_eq!(normalise("  hi\r\nthere\r ").unwrap(), "hi\nthere");
        // NFC: e + combining acute becomes é (one character).
        assert_eq!(normalise("e\u{301}").unwrap(), "\u{e9}");
        assert_eq!(normalise(&"あ".repeat(500)).unwrap().chars().count(), 500);
        for bad in [
            "",
            "   \n ",
            "a\u{7}b",
            "tab\there",
            "x\u{202E}y",
            "a\u{2028}b",
        ] {
            assert!(
                matches!(normalise(bad), Err(ChatError::InvalidMessage(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(
            normalise(&"a".repeat(501)),
            Err(ChatError::InvalidMessage(_))
        ));
    }

    #[test]
    fn the_bucket_allows_a_burst_then_one_per_interval() {
        let t0 = Utc.with_ymd_and_hms(2026, 12, 2, 10, 0, 0).unwrap();
        let s = |secs: i64| t0 + Duration::seconds(secs);
        // Nothing sent: allowed.
        assert_eq!(bucket_wait(&[], t0, 3, 2), 0);
        // Two at once: a third is allowed (burst 3).
        assert_eq!(bucket_wait(&[t0, t0], t0, 3, 2), 0);
        // Three at once: the fourth waits one interval.
        assert_eq!(bucket_wait(&[t0, t0, t0], t0, 3, 2), 2);
        assert_eq!(bucket_wait(&[t0, t0, t0], s(1), 3, 2), 1);
        assert_eq!(bucket_wait(&[t0, t0, t0], s(2), 3, 2), 0);
        // Spaced by the interval: never waits.
        assert_eq!(bucket_wait(&[s(4), s(2), s(0)], s(6), 3, 2), 0);
        // Burst 1: one per interval.
        assert_eq!(bucket_wait(&[t0], s(1), 1, 2), 1);
        // Interval 0: no limit.
        assert_eq!(bucket_wait(&[t0, t0, t0, t0], t0, 1, 0), 0);
    }
}
