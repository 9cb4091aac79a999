//! Notices: what a person is told of (a turn begins, a game ends, an invitation, a mention…),
//! as data. Each kind ([`NoticeKind`]) and its notice's data ([`Notice`]) are decided where the
//! change is, and written into the outbox in the same transaction ([`enqueue`]); delivery
//! (`service::delivery`) reads the outbox and tells people by mail, Web Push and webhooks,
//! as their preferences ([`preferences`]) say.

pub mod account;
pub mod digest;
pub mod mention;
pub mod preferences;

use crate::service::notices::preferences::Delivery;
use crate::store::{channels, outbox};
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use utoipa::ToSchema;
use uuid::Uuid;

/// The channel delivery workers listen on; [`enqueue`] notifies it when a mail is due now.
pub const CHANNEL: &str = "kontor_mail";

/// What a notice is about. Each kind has its own preference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// The player must act in a game.
    YourTurn,
    /// The player's deadline in a game is near.
    Reminder,
    /// Someone invited the user to a game.
    Invited,
    /// A game the user sits in has started.
    GameStarted,
    /// A game the user played has ended.
    GameOver,
    /// Another player of a running game deleted their account; the game's abandonment
    /// policy plays their seat.
    PlayerLeft,
    /// Someone mentioned the user (`@username`) in a game's chat.
    ChatMention,
    /// Another player of a finished game offered a rematch.
    RematchOffered,
    /// Another player of a running game asks to take moves back, and the user's consent is
    /// needed.
    UndoRequested,
    /// A tournament the user entered has started; their first round is seated.
    TournamentStarted,
    /// The user's next round of a tournament is seated.
    TournamentRound,
    /// A tournament the user entered is over: the final standings.
    TournamentFinished,
    /// A tournament the user entered (or organised) was cancelled when entry closed: too few
    /// entered to fill a table.
    TournamentCancelled,
}

impl NoticeKind {
    pub const ALL: [NoticeKind; 13] = [
        NoticeKind::YourTurn,
        NoticeKind::Reminder,
        NoticeKind::Invited,
        NoticeKind::GameStarted,
        NoticeKind::GameOver,
        NoticeKind::PlayerLeft,
        NoticeKind::ChatMention,
        NoticeKind::RematchOffered,
        NoticeKind::UndoRequested,
        NoticeKind::TournamentStarted,
        NoticeKind::TournamentRound,
        NoticeKind::TournamentFinished,
        NoticeKind::TournamentCancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::YourTurn => "your_turn",
            NoticeKind::Reminder => "reminder",
            NoticeKind::Invited => "invited",
            NoticeKind::GameStarted => "game_started",
            NoticeKind::GameOver => "game_over",
            NoticeKind::PlayerLeft => "player_left",
            NoticeKind::ChatMention => "chat_mention",
            NoticeKind::RematchOffered => "rematch_offered",
            NoticeKind::UndoRequested => "undo_requested",
            NoticeKind::TournamentStarted => "tournament_started",
            NoticeKind::TournamentRound => "tournament_round",
            NoticeKind::TournamentFinished => "tournament_finished",
            NoticeKind::TournamentCancelled => "tournament_cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// How a person calls these mails ("your-turn mails").
    pub fn label(self) -> &'static str {
        match self {
            NoticeKind::YourTurn => "\"your turn\" mails",
            NoticeKind::Reminder => "deadline reminders",
            NoticeKind::Invited => "invitations",
            NoticeKind::GameStarted => "\"game started\" mails",
            NoticeKind::GameOver => "game results",
            NoticeKind::PlayerLeft => "\"a player left\" mails",
            NoticeKind::ChatMention => "chat mentions",
            NoticeKind::RematchOffered => "rematch offers",
            NoticeKind::UndoRequested => "undo requests",
            NoticeKind::TournamentStarted => "\"tournament started\" mails",
            NoticeKind::TournamentRound => "\"next round\" mails",
            NoticeKind::TournamentFinished => "final tournament standings",
            NoticeKind::TournamentCancelled => "\"tournament cancelled\" mails",
        }
    }
}

/// What a row of the outbox is: a notice, the daily digest built from held notices, or a
/// mail of the account itself (see [`account`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MailKind {
    Notice(NoticeKind),
    Digest,
    Account(account::AccountMailKind),
}

impl MailKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MailKind::Notice(kind) => kind.as_str(),
            MailKind::Digest => "digest",
            MailKind::Account(kind) => kind.as_str(),
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "digest" => Some(MailKind::Digest),
            other => NoticeKind::parse(other)
                .map(MailKind::Notice)
                .or_else(|| account::AccountMailKind::parse(other).map(MailKind::Account)),
        }
    }
}

/// One notice to one user.
///
/// `data` is free-form JSON for the template. Every field is optional; the delivery worker
/// fills in the game's kind and players from the database when `game_id` is set, so an
/// empty object still gives a good mail. Fields the templates use:
///
/// | field | kinds | meaning |
/// |---|---|---|
/// | `game_kind` | all | e.g. `flying-dutchman` (looked up when absent) |
/// | `opponents` | all | the other players' names (looked up when absent) |
/// | `deadline` | your_turn, reminder | RFC 3339 time by which the player must act |
/// | `inviter` | invited | the name of who invited |
/// | `result` | game_over | a one-line result, e.g. "anna won with 41 ducats" |
/// | `standings` | game_over | `[{"name", "score", "rank"}]` (built from the game's outcome when absent) |
/// | `channel`, `author`, `text`, `message_id`, `at` | chat_mention | see [`Notice::chat_mention`] |
/// | `offered_by`, `expires_at` | rematch_offered | who offered, and until when answers are taken |
/// | `by`, `request`, `moves`, `yours`, `to_version`, `at_version`, `deadline` | undo_requested | see [`Notice::undo_requested`] |
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Notice {
    pub user_id: Uuid,
    pub kind: NoticeKind,
    pub game_id: Option<Uuid>,
    /// One mail per key (and recipient): e.g.
    /// `your_turn:{game}:{seat}:{version-at-which-turn-began}`. A second enqueue with the same
    /// key is a no-op.
    pub dedupe_key: String,
    /// What the template needs: game kind, opponents' names, deadline, result, inviter…
    pub data: serde_json::Value,
}

impl Notice {
    /// "It is your turn": one per seat and turn (`turn_version` = the game version at which
    /// the seat became pending).
    pub fn your_turn(
        user_id: Uuid,
        game_id: Uuid,
        seat: i16,
        turn_version: i64,
        data: serde_json::Value,
    ) -> Self {
        Self {
            user_id,
            kind: NoticeKind::YourTurn,
            game_id: Some(game_id),
            dedupe_key: format!("your_turn:{game_id}:{seat}:{turn_version}"),
            data,
        }
    }

    /// "Your deadline is near": one per seat and turn. `data` should carry `deadline`.
    pub fn reminder(
        user_id: Uuid,
        game_id: Uuid,
        seat: i16,
        turn_version: i64,
        data: serde_json::Value,
    ) -> Self {
        Self {
            user_id,
            kind: NoticeKind::Reminder,
            game_id: Some(game_id),
            dedupe_key: format!("reminder:{game_id}:{seat}:{turn_version}"),
            data,
        }
    }

    /// "You are invited": one per game and invitee. `data` should carry `inviter`.
    pub fn invited(user_id: Uuid, game_id: Uuid, data: serde_json::Value) -> Self {
        Self {
            user_id,
            kind: NoticeKind::Invited,
            game_id: Some(game_id),
            dedupe_key: format!("invited:{game_id}"),
            data,
        }
    }

    /// "The game has started": one per game and player.
    pub fn game_started(user_id: Uuid, game_id: Uuid, data: serde_json::Value) -> Self {
        Self {
            user_id,
            kind: NoticeKind::GameStarted,
            game_id: Some(game_id),
            dedupe_key: format!("game_started:{game_id}"),
            data,
        }
    }

    /// "A player left": one per game, seat and recipient. `data` carries `seat`, `player`
    /// (the placeholder name of the deleted account) and `policy` (`bot` or `forfeit`).
    pub fn player_left(user_id: Uuid, game_id: Uuid, seat: i16, data: serde_json::Value) -> Self {
        Self {
            user_id,
            kind: NoticeKind::PlayerLeft,
            game_id: Some(game_id),
            dedupe_key: format!("player_left:{game_id}:{seat}"),
            data,
        }
    }

    /// "You were mentioned in the chat": one per message and recipient (the dedupe key is
    /// `chat_mention:{message_id}`, scoped per recipient like every key).
    ///
    /// The chat service calls this in the transaction that stores the message, for each
    /// recipient it has already checked: a seated player of the game (not a spectator) who
    /// may read the channel, not the author, neither blocking nor blocked by the author.
    /// Delivery checks again just before sending: a message a moderator has hidden since, or
    /// a block made since between author and recipient, skips the mail.
    ///
    /// `data` carries (all strings unless said):
    ///
    /// | field | meaning |
    /// |---|---|
    /// | `game_kind` | e.g. `flying-dutchman` (looked up when absent) |
    /// | `channel` | `table`, `spectators` or `private:A-B` (seats A < B) |
    /// | `author` | the author as the seat shows them: `player_name(username, display_name)` |
    /// | `author_id` | the author's user id (optional; the delivery re-check reads it from the message) |
    /// | `text` | the message as written (plain text; the mail never interprets it as HTML) |
    /// | `message_id` | the message's id (a number; set from `message_id` here in any case) |
    /// | `at` | RFC 3339 time the message was written |
    pub fn chat_mention(
        user_id: Uuid,
        game_id: Uuid,
        message_id: i64,
        mut data: serde_json::Value,
    ) -> Self {
        // Delivery finds the message by this field: it is always there.
        if let Some(fields) = data.as_object_mut() {
            fields.insert("message_id".into(), message_id.into());
        } else {
            data = serde_json::json!({ "message_id": message_id });
        }
        Self {
            user_id,
            kind: NoticeKind::ChatMention,
            game_id: Some(game_id),
            dedupe_key: format!("chat_mention:{message_id}"),
            data,
        }
    }

    /// "A rematch was offered": one per offer and recipient.
    pub fn rematch_offered(
        user_id: Uuid,
        game_id: Uuid,
        offer_id: i64,
        data: serde_json::Value,
    ) -> Self {
        Self {
            user_id,
            kind: NoticeKind::RematchOffered,
            game_id: Some(game_id),
            dedupe_key: format!("rematch_offered:{offer_id}"),
            data,
        }
    }

    /// "A player asks to take moves back, and needs your consent": one per request and
    /// recipient (a seat of the request's `needs`). Never anything hidden: the mail says how
    /// many moves would be taken back, not what they were.
    ///
    /// `data` carries `by` (the requester as the seat shows them), `request` (the request's
    /// number, set here in any case: delivery skips the mail once the request has ended),
    /// `moves` (how many moves would be taken back), `yours` (how many of them are the
    /// recipient's), `to_version` and `at_version` (the game's version before the first of
    /// them, and when asked) and `deadline` (RFC 3339: answers are taken until then).
    pub fn undo_requested(
        user_id: Uuid,
        game_id: Uuid,
        request: i64,
        mut data: serde_json::Value,
    ) -> Self {
        if let Some(fields) = data.as_object_mut() {
            fields.insert("request".into(), request.into());
        } else {
            data = serde_json::json!({ "request": request });
        }
        Self {
            user_id,
            kind: NoticeKind::UndoRequested,
            game_id: Some(game_id),
            dedupe_key: format!("undo_requested:{game_id}:{request}"),
            data,
        }
    }

    /// "The tournament has started": one per tournament and player, about their first
    /// round's game (`game_id`). See [`Notice::tournament_round`] for `data`.
    pub fn tournament_started(
        user_id: Uuid,
        tournament_id: Uuid,
        game_id: Uuid,
        data: serde_json::Value,
    ) -> Self {
        Self {
            user_id,
            kind: NoticeKind::TournamentStarted,
            game_id: Some(game_id),
            dedupe_key: format!("tournament_started:{tournament_id}"),
            data: with_tournament(data, tournament_id),
        }
    }

    /// "Your next round is seated": one per tournament, round and player, about their game
    /// of the round (`game_id`). `data` carries `name` (the tournament's), `round`, `rounds`,
    /// `players` (how many entered), `round_deadline` (RFC 3339: unfinished games are
    /// adjudicated then) and, from the second round, `position` and `points` (the player's
    /// place in the standings so far); `tournament_id` is set here in any case.
    pub fn tournament_round(
        user_id: Uuid,
        tournament_id: Uuid,
        round: i16,
        game_id: Uuid,
        data: serde_json::Value,
    ) -> Self {
        Self {
            user_id,
            kind: NoticeKind::TournamentRound,
            game_id: Some(game_id),
            dedupe_key: format!("tournament_round:{tournament_id}:{round}"),
            data: with_tournament(data, tournament_id),
        }
    }

    /// "The tournament is over": one per tournament and player. `data` carries `name`,
    /// `game_kind`, `rounds`, `players`, the player's `position` and `points`, `withdrawn`,
    /// and `podium` (`[{"name", "points"}]`, the first three); `tournament_id` is set here.
    pub fn tournament_finished(
        user_id: Uuid,
        tournament_id: Uuid,
        data: serde_json::Value,
    ) -> Self {
        Self {
            user_id,
            kind: NoticeKind::TournamentFinished,
            game_id: None,
            dedupe_key: format!("tournament_finished:{tournament_id}"),
            data: with_tournament(data, tournament_id),
        }
    }

    /// "The tournament is cancelled" (too few entered when entry closed): one per tournament
    /// and entrant, and for its organiser. `data` carries `name`, `game_kind`, `players` (how
    /// many entered), `seats_per_table` (the fewest that could have started it) and
    /// `organiser` (`true` in the organiser's own notice); `tournament_id` is set here.
    pub fn tournament_cancelled(
        user_id: Uuid,
        tournament_id: Uuid,
        data: serde_json::Value,
    ) -> Self {
        Self {
            user_id,
            kind: NoticeKind::TournamentCancelled,
            game_id: None,
            dedupe_key: format!("tournament_cancelled:{tournament_id}"),
            data: with_tournament(data, tournament_id),
        }
    }

    /// "The game is over": one per game and player.
    pub fn game_over(user_id: Uuid, game_id: Uuid, data: serde_json::Value) -> Self {
        Self {
            user_id,
            kind: NoticeKind::GameOver,
            game_id: Some(game_id),
            dedupe_key: format!("game_over:{game_id}"),
            data,
        }
    }
}

/// `data` with `tournament_id` set (delivery links the tournament's page by it).
fn with_tournament(mut data: serde_json::Value, tournament_id: Uuid) -> serde_json::Value {
    if let Some(fields) = data.as_object_mut() {
        fields.insert("tournament_id".into(), tournament_id.to_string().into());
        data
    } else {
        serde_json::json!({ "tournament_id": tournament_id })
    }
}

/// Writes notices into the outbox inside the caller's transaction, so a committed move always
/// notifies and a rolled-back one never does. Applies the recipient's mail preferences (off →
/// recorded as `skipped`, never mailed; digest → held for the daily digest; immediately →
/// queued). Every notice gets its row, because the other channels (Web Push, webhooks) read
/// their notices from the outbox too.
///
/// Dedupe keys are scoped per recipient: the same key for two users gives two mails. A key
/// seen before (in this call or an earlier committed one) is skipped without error; a
/// concurrent transaction inserting the same key makes this one wait for it, as any unique
/// index does.
impl Notice {
    /// The notice as an outbox row queued by the append statement (`store::append`), where
    /// delivery applies the recipient's preferences.
    pub fn as_mail(&self) -> crate::store::append::Mail<'_> {
        crate::store::append::Mail {
            user_id: self.user_id,
            kind: self.kind.as_str(),
            dedupe_key: &self.dedupe_key,
            data: &self.data,
        }
    }
}

pub async fn enqueue(conn: &mut PgConnection, notices: &[Notice]) -> sqlx::Result<()> {
    if notices.is_empty() {
        return Ok(());
    }
    let mut users: Vec<Uuid> = notices.iter().map(|n| n.user_id).collect();
    users.sort_unstable();
    users.dedup();
    let preferences = preferences::load_many(&mut *conn, &users).await?;
    let mut mails = outbox::NewMails::default();
    let mut seen = std::collections::HashSet::new();
    let mut any_due = false;
    for notice in notices {
        if !seen.insert((notice.user_id, notice.dedupe_key.as_str())) {
            continue;
        }
        let status = match preferences
            .get(&notice.user_id)
            .copied()
            .unwrap_or_default()
            .of(notice.kind)
        {
            // Kept as a record that the notice happened: Web Push and webhooks read the
            // outbox for their own notices, whatever the mail preference.
            Delivery::Off => "skipped",
            Delivery::Digest => "held",
            Delivery::Immediately => {
                any_due = true;
                "pending"
            }
        };
        mails.ids.push(Uuid::now_v7());
        mails.user_ids.push(notice.user_id);
        mails.kinds.push(notice.kind.as_str());
        mails.game_ids.push(notice.game_id);
        mails.dedupe_keys.push(notice.dedupe_key.as_str());
        mails.data.push(notice.data.clone());
        mails.statuses.push(status);
    }
    if mails.ids.is_empty() {
        return Ok(());
    }
    outbox::insert(&mut *conn, &mails).await?;
    if any_due {
        // Delivered on commit only, and not at all on rollback.
        channels::notify(&mut *conn, CHANNEL, "").await?;
    }
    Ok(())
}
