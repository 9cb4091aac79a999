//! Notices: what a person is told of (a turn begins, a game ends, an invitation, a mention…),
//! as data. Each kind ([`NoticeKind`]) is one entry of one list ([`notice_kinds!`]), with its
//! defaults per channel and its place in the digest, from which the preferences' API schema,
//! the webhooks' event types, the push choices, the metrics' labels and the digest are all
//! derived. A notice's data ([`Notice`]) is decided where the change is, and written into the
//! outbox in the same transaction through one door ([`queue`]); delivery
//! (`service::delivery`) reads the outbox and tells people by mail, Web Push and webhooks, as
//! their preferences ([`preferences`]) say.

pub mod account;
pub mod digest;
pub mod mention;
pub mod preferences;
pub mod queue;

pub use queue::enqueue;

use crate::service::notices::preferences::Delivery;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The channel delivery workers listen on; the door into the outbox ([`queue`]) notifies it,
/// in the transaction that queues them, when mails are due now.
pub const CHANNEL: &str = crate::store::outbox::CHANNEL;

/// The list of notice kinds: everything about a kind that is not its words, one entry each.
/// Expands `$callback! { entries }`; each piece of code that needs an item per kind (the
/// [`NoticeKind`] enum itself, the preferences' fields in the API) is such a callback, so a
/// new kind is one entry here, and its words (its mail, push and webhook texts, and
/// [`NoticeKind::label`]), which the compiler asks for.
///
/// An entry: the kind's documentation, its variant and its name (the wire name, the field of
/// the preferences, `notice.<name>` for webhooks), then
/// - `preference`: the preference's description in the API;
/// - `mail`: its [`Delivery`] for a user who never chose;
/// - `push`: whether it is pushed to a user who never chose;
/// - `digest`: how the daily digest tells of it ([`InDigest`]).
macro_rules! notice_kinds {
    ($callback:ident) => {
        $callback! {
            /// The player must act in a game.
            YourTurn = your_turn {
                preference: "It is your turn in a game.",
                mail: Immediately, push: true, digest: Waiting,
            },
            /// The player's deadline in a game is near.
            Reminder = reminder {
                preference: "Your deadline in a game is near.",
                mail: Immediately, push: true, digest: Waiting,
            },
            /// Someone invited the user to a game.
            Invited = invited {
                preference: "Someone invited you to a game.",
                mail: Immediately, push: true, digest: News,
            },
            /// A game the user sits in has started.
            GameStarted = game_started {
                preference: "A game you sit in has started.",
                mail: Immediately, push: true, digest: News,
            },
            /// A game the user played has ended.
            GameOver = game_over {
                preference: "A game you played has ended, with the result.",
                mail: Immediately, push: true, digest: News,
            },
            /// Another player of a running game deleted their account; the game's abandonment
            /// policy plays their seat. News, not a call to act: not pushed unless asked for.
            PlayerLeft = player_left {
                preference: "Another player of a running game deleted their account.",
                mail: Immediately, push: false, digest: News,
            },
            /// Someone mentioned the user (`@username`) in a game's chat.
            ChatMention = chat_mention {
                preference: "Someone mentioned you (`@username`) in a game's chat.",
                mail: Immediately, push: true, digest: News,
            },
            /// Another player of a finished game offered a rematch.
            RematchOffered = rematch_offered {
                preference: "Another player of a finished game offered a rematch.",
                mail: Immediately, push: true, digest: News,
            },
            /// Another player of a running game asks to take moves back, and the user's
            /// consent is needed.
            UndoRequested = undo_requested {
                preference: "Another player of a running game asks to take moves back, with your consent.",
                mail: Immediately, push: true, digest: News,
            },
            /// A tournament the user entered has started; their first round is seated.
            TournamentStarted = tournament_started {
                preference: "A tournament you entered has started (with your first game).",
                mail: Immediately, push: true, digest: News,
            },
            /// The user's next round of a tournament is seated.
            TournamentRound = tournament_round {
                preference: "Your next round of a tournament is seated (with your game).",
                mail: Immediately, push: true, digest: News,
            },
            /// A tournament the user entered is over: the final standings.
            TournamentFinished = tournament_finished {
                preference: "A tournament you entered is over: the final standings.",
                mail: Immediately, push: true, digest: News,
            },
            /// A tournament the user entered (or organised) was cancelled when entry closed:
            /// too few entered to fill a table.
            TournamentCancelled = tournament_cancelled {
                preference: "A tournament you entered or organised was cancelled: too few entered.",
                mail: Immediately, push: true, digest: News,
            },
        }
    };
}
pub(crate) use notice_kinds;

/// How the daily digest tells of a kind's notices held for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InDigest {
    /// As the games waiting for the user's move at the time of the digest (the truth then,
    /// not a replay of turn notices already outdated). The digest goes to a user who chose
    /// `digest` for such a kind on every day a game waits for them.
    Waiting,
    /// One line each.
    News,
}

/// What the list says of a kind besides its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindSpec {
    /// The mail choice of a user who never chose.
    pub mail: Delivery,
    /// The push choice of a user who never chose.
    pub push: bool,
    pub digest: InDigest,
}

/// The [`NoticeKind`] enum and what is read off the list per kind.
macro_rules! define_notice_kinds {
    ($(
        $(#[doc = $doc:tt])*
        $kind:ident = $name:ident {
            preference: $preference:tt,
            mail: $mail:ident, push: $push:tt, digest: $digest:ident $(,)?
        }
    ),* $(,)?) => {
        /// What a notice is about: one entry of [`notice_kinds!`] each. Each kind has its own
        /// preferences.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum NoticeKind {
            $( $(#[doc = $doc])* $kind, )*
        }

        impl NoticeKind {
            /// Every kind, in the list's order.
            pub const ALL: [NoticeKind; [$(stringify!($name)),*].len()] = [$(NoticeKind::$kind),*];

            /// The kind's name: on the wire, in the outbox, in the preferences.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( NoticeKind::$kind => stringify!($name), )*
                }
            }

            /// Its defaults and its place in the digest.
            pub const fn spec(self) -> KindSpec {
                match self {
                    $( NoticeKind::$kind => KindSpec {
                        mail: Delivery::$mail,
                        push: $push,
                        digest: InDigest::$digest,
                    }, )*
                }
            }
        }
    };
}
notice_kinds!(define_notice_kinds);

impl NoticeKind {
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// Its place in [`Self::ALL`] (and in anything kept per kind in that order).
    pub fn index(self) -> usize {
        self as usize
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

    /// Every kind of mail the outbox holds: the notices, the digest, the account's mails.
    pub fn all() -> impl Iterator<Item = MailKind> {
        NoticeKind::ALL
            .into_iter()
            .map(MailKind::Notice)
            .chain([MailKind::Digest])
            .chain(account::AccountMailKind::ALL.map(MailKind::Account))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_listed_once_in_order_with_its_serde_name() {
        for (i, kind) in NoticeKind::ALL.into_iter().enumerate() {
            assert_eq!(kind.index(), i);
            assert_eq!(NoticeKind::parse(kind.as_str()), Some(kind));
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.as_str())
            );
        }
        let mut names: Vec<&str> = MailKind::all().map(MailKind::as_str).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a mail kind's name is used twice");
        for kind in MailKind::all() {
            assert_eq!(MailKind::parse(kind.as_str()), Some(kind));
        }
    }

    #[test]
    fn a_kind_the_digest_lists_as_waiting_games_is_not_in_the_digest_by_default() {
        // The digest looks for the users who chose it for such a kind among the stored
        // choices (`store::outbox::digest_candidates`); a default of `digest` would make
        // every player with a game waiting a candidate, which that query does not look for.
        for kind in NoticeKind::ALL {
            if kind.spec().digest == InDigest::Waiting {
                assert_ne!(kind.spec().mail, Delivery::Digest, "{kind:?}");
            }
        }
    }
}
