//! Notification preferences: per kind of notice `immediately`, `digest` or `off`, and the
//! `always_email` switch. A user without a row has every default.

use super::NoticeKind;
use crate::store::preferences::{self, PrefsRow};
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

/// How one kind of notice reaches the user.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// A mail as soon as it happens.
    #[default]
    Immediately,
    /// Gathered in one mail a day.
    Digest,
    /// No mail.
    Off,
}

impl Delivery {
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Immediately => "immediately",
            Delivery::Digest => "digest",
            Delivery::Off => "off",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Delivery::Immediately, Delivery::Digest, Delivery::Off]
            .into_iter()
            .find(|d| d.as_str() == text)
    }
}

/// A user's notification preferences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "your_turn": "immediately",
    "reminder": "immediately",
    "invited": "immediately",
    "game_started": "digest",
    "game_over": "off",
    "player_left": "immediately",
    "chat_mention": "immediately",
    "rematch_offered": "immediately",
    "undo_requested": "immediately",
    "tournament_started": "immediately",
    "tournament_round": "immediately",
    "tournament_finished": "immediately",
    "tournament_cancelled": "immediately",
    "always_email": false
}))]
pub struct Preferences {
    /// It is your turn in a game.
    pub your_turn: Delivery,
    /// Your deadline in a game is near.
    pub reminder: Delivery,
    /// Someone invited you to a game.
    pub invited: Delivery,
    /// A game you sit in has started.
    pub game_started: Delivery,
    /// A game you played has ended, with the result.
    pub game_over: Delivery,
    /// Another player of a running game deleted their account.
    pub player_left: Delivery,
    /// Someone mentioned you (`@username`) in a game's chat.
    pub chat_mention: Delivery,
    /// Another player of a finished game offered a rematch.
    pub rematch_offered: Delivery,
    /// Another player of a running game asks to take moves back, with your consent.
    pub undo_requested: Delivery,
    /// A tournament you entered has started (with your first game).
    pub tournament_started: Delivery,
    /// Your next round of a tournament is seated (with your game).
    pub tournament_round: Delivery,
    /// A tournament you entered is over: the final standings.
    pub tournament_finished: Delivery,
    /// A tournament you entered or organised was cancelled: too few entered.
    pub tournament_cancelled: Delivery,
    /// Mail "your turn" even while you watch the game's live stream (by default no such
    /// mail is sent while you are watching).
    pub always_email: bool,
}

impl Preferences {
    pub fn of(&self, kind: NoticeKind) -> Delivery {
        match kind {
            NoticeKind::YourTurn => self.your_turn,
            NoticeKind::Reminder => self.reminder,
            NoticeKind::Invited => self.invited,
            NoticeKind::GameStarted => self.game_started,
            NoticeKind::GameOver => self.game_over,
            NoticeKind::PlayerLeft => self.player_left,
            NoticeKind::ChatMention => self.chat_mention,
            NoticeKind::RematchOffered => self.rematch_offered,
            NoticeKind::UndoRequested => self.undo_requested,
            NoticeKind::TournamentStarted => self.tournament_started,
            NoticeKind::TournamentRound => self.tournament_round,
            NoticeKind::TournamentFinished => self.tournament_finished,
            NoticeKind::TournamentCancelled => self.tournament_cancelled,
        }
    }

    pub fn set(&mut self, kind: NoticeKind, delivery: Delivery) {
        let slot = match kind {
            NoticeKind::YourTurn => &mut self.your_turn,
            NoticeKind::Reminder => &mut self.reminder,
            NoticeKind::Invited => &mut self.invited,
            NoticeKind::GameStarted => &mut self.game_started,
            NoticeKind::GameOver => &mut self.game_over,
            NoticeKind::PlayerLeft => &mut self.player_left,
            NoticeKind::ChatMention => &mut self.chat_mention,
            NoticeKind::RematchOffered => &mut self.rematch_offered,
            NoticeKind::UndoRequested => &mut self.undo_requested,
            NoticeKind::TournamentStarted => &mut self.tournament_started,
            NoticeKind::TournamentRound => &mut self.tournament_round,
            NoticeKind::TournamentFinished => &mut self.tournament_finished,
            NoticeKind::TournamentCancelled => &mut self.tournament_cancelled,
        };
        *slot = delivery;
    }
}

impl Preferences {
    /// From the stored row (a value the column domain does not allow reads as the default).
    pub fn from_row(row: &PrefsRow) -> Self {
        let parse = |text: &str| Delivery::parse(text).unwrap_or_default();
        Self {
            your_turn: parse(&row.your_turn),
            reminder: parse(&row.reminder),
            invited: parse(&row.invited),
            game_started: parse(&row.game_started),
            game_over: parse(&row.game_over),
            player_left: parse(&row.player_left),
            chat_mention: parse(&row.chat_mention),
            rematch_offered: parse(&row.rematch_offered),
            undo_requested: parse(&row.undo_requested),
            tournament_started: parse(&row.tournament_started),
            tournament_round: parse(&row.tournament_round),
            tournament_finished: parse(&row.tournament_finished),
            tournament_cancelled: parse(&row.tournament_cancelled),
            always_email: row.always_email,
        }
    }

    /// As the stored row of `user`.
    pub fn to_row(&self, user: Uuid) -> PrefsRow {
        PrefsRow {
            user_id: user,
            your_turn: self.your_turn.as_str().to_string(),
            reminder: self.reminder.as_str().to_string(),
            invited: self.invited.as_str().to_string(),
            game_started: self.game_started.as_str().to_string(),
            game_over: self.game_over.as_str().to_string(),
            player_left: self.player_left.as_str().to_string(),
            chat_mention: self.chat_mention.as_str().to_string(),
            rematch_offered: self.rematch_offered.as_str().to_string(),
            undo_requested: self.undo_requested.as_str().to_string(),
            tournament_started: self.tournament_started.as_str().to_string(),
            tournament_round: self.tournament_round.as_str().to_string(),
            tournament_finished: self.tournament_finished.as_str().to_string(),
            tournament_cancelled: self.tournament_cancelled.as_str().to_string(),
            always_email: self.always_email,
        }
    }
}

/// The preferences of these users; users without a row are absent (they have the defaults).
pub async fn load_many(
    conn: &mut PgConnection,
    users: &[Uuid],
) -> sqlx::Result<HashMap<Uuid, Preferences>> {
    let rows = preferences::load_many(conn, users).await?;
    Ok(rows
        .iter()
        .map(|row| (row.user_id, Preferences::from_row(row)))
        .collect())
}

/// One user's preferences (the defaults when they never changed any).
pub async fn load(conn: &mut PgConnection, user: Uuid) -> sqlx::Result<Preferences> {
    Ok(load_many(conn, &[user])
        .await?
        .remove(&user)
        .unwrap_or_default())
}

/// The same, locked for update (the row is created with the defaults first if needed), so
/// that read-modify-write changes of one user's preferences never lose each other.
pub async fn load_for_update(conn: &mut PgConnection, user: Uuid) -> sqlx::Result<Preferences> {
    Ok(Preferences::from_row(&preferences::lock(conn, user).await?))
}

/// Stores a user's preferences.
pub async fn save(conn: &mut PgConnection, user: Uuid, prefs: &Preferences) -> sqlx::Result<()> {
    preferences::save(conn, &prefs.to_row(user)).await
}
