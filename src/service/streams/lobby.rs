//! The lobby's live feed: what a live note means for one user's lobby.
//!
//! A stream of it begins with a snapshot (the first page of the open games and of the games
//! waiting for the user) and then tells each change as it happens, with the game as the
//! user's lobby shows it. It has no resume point: the lobby is the state of many games, not a
//! log, and notes are not kept, so what a reconnecting client missed cannot be replayed; a new
//! snapshot says exactly what holds now, and is as cheap as a page of the list.
//!
//! Others' games are told exactly as the open list (`GET /games?view=open`) holds them:
//! private games only to the invited, never a game where a player sits whom the user blocked
//! or who blocked the user.

use crate::live::Note;
use crate::service::play::error::Error;
use crate::service::play::lobby::{self, GameSummary, ListQuery, ListView};
use crate::store::games::Status;
use serde::Serialize;
use serde_json::Value;
use sqlx::PgPool;
use std::collections::HashSet;
use utoipa::ToSchema;
use uuid::Uuid;

/// Games a snapshot lists of each kind at most; page the rest with `GET /games`.
pub const SNAPSHOT_GAMES: u32 = 100;

/// The lobby when a stream (re)connects.
#[derive(Debug, Serialize, ToSchema)]
pub struct LobbySnapshot {
    /// The first page of the open games the user may join (`GET /games?view=open`), theirs
    /// included.
    pub open: Vec<GameSummary>,
    /// The first page of the games waiting for the user (`GET /games?view=my_turn`).
    pub my_turn: Vec<GameSummary>,
}

/// A game that left the user's lobby: it started or was cancelled without them, or a player
/// joined whom they blocked or who blocked them.
#[derive(Debug, Serialize, ToSchema)]
pub struct LobbyGameRemoved {
    pub game_id: Uuid,
}

/// One change of a user's lobby.
#[derive(Debug)]
pub enum LobbyEvent {
    /// A game appeared: created, or the user was invited to it.
    Opened(GameSummary),
    /// A seat of an open game was taken or given up.
    SeatsChanged(GameSummary),
    /// A game the user plays started.
    Started(GameSummary),
    /// An open game the user sat in was cancelled.
    Cancelled(GameSummary),
    /// It is the user's turn.
    YourTurn(GameSummary),
    /// A game the user plays ended.
    GameOver(GameSummary),
    /// The user's unread chat count in a game they play changed (a message in a channel
    /// they read, a moderator hid one, their own read marker moved).
    ChatUnread(GameSummary),
    Removed(LobbyGameRemoved),
}

impl LobbyEvent {
    /// The event's name on the stream.
    pub fn name(&self) -> &'static str {
        match self {
            LobbyEvent::Opened(_) => "game_opened",
            LobbyEvent::SeatsChanged(_) => "seats_changed",
            LobbyEvent::Started(_) => "game_started",
            LobbyEvent::Cancelled(_) => "game_cancelled",
            LobbyEvent::YourTurn(_) => "your_turn",
            LobbyEvent::GameOver(_) => "game_over",
            LobbyEvent::ChatUnread(_) => "chat_unread",
            LobbyEvent::Removed(_) => "game_removed",
        }
    }

    /// The event's data.
    pub fn data(&self) -> Result<Value, serde_json::Error> {
        match self {
            LobbyEvent::Opened(game)
            | LobbyEvent::SeatsChanged(game)
            | LobbyEvent::Started(game)
            | LobbyEvent::Cancelled(game)
            | LobbyEvent::YourTurn(game)
            | LobbyEvent::GameOver(game)
            | LobbyEvent::ChatUnread(game) => serde_json::to_value(game),
            LobbyEvent::Removed(gone) => serde_json::to_value(gone),
        }
    }
}

/// One stream's feed: it remembers which of others' open games it has shown, so that it
/// tells of their leaving only those (and never names a game the user could not see).
#[derive(Debug)]
pub struct Feed {
    user: Uuid,
    shown: HashSet<Uuid>,
}

impl Feed {
    pub fn new(user: Uuid) -> Self {
        Self {
            user,
            shown: HashSet::new(),
        }
    }

    /// The lobby now; what it shows of others' games is remembered as shown.
    pub async fn snapshot(&mut self, pool: &PgPool) -> Result<LobbySnapshot, Error> {
        let first_page = |view| ListQuery {
            view: Some(view),
            kind: None,
            status: None,
            result: None,
            tournament_games: None,
            limit: Some(SNAPSHOT_GAMES),
            cursor: None,
        };
        let open = lobby::list(pool, self.user, first_page(ListView::Open)).await?;
        let my_turn = lobby::list(pool, self.user, first_page(ListView::MyTurn)).await?;
        self.shown = open
            .items
            .iter()
            .filter(|g| g.your_seat.is_none())
            .map(|g| g.id)
            .collect();
        Ok(LobbySnapshot {
            open: open.items,
            my_turn: my_turn.items,
        })
    }

    /// What `note` changes in the user's lobby (often nothing: most notes are moves in
    /// others' games, which cost no query here).
    pub async fn react(&mut self, pool: &PgPool, note: &Note) -> Result<Vec<LobbyEvent>, Error> {
        let me = self.user;
        let cancelled = note.status == Status::Cancelled.as_str();
        let lobby_change = note.opened
            || note.seats_changed
            || note.started
            || cancelled
            || note.invited.contains(&me);
        let your_turn = note.your_turn.contains(&me);
        let over = note.status == Status::Finished.as_str() && note.users.contains(&me);
        // A chat note names in `users` only the players who read the message's channel (or
        // whose marker moved): nobody else learns that a private channel spoke.
        let chat =
            (note.chat != 0 || note.chat_hidden != 0 || note.chat_read) && note.users.contains(&me);
        if !(lobby_change || your_turn || over || chat) {
            return Ok(Vec::new());
        }
        // The game as the user sees it (their seat, their turn); told only if they sit in
        // it or their open list holds it.
        let game = lobby::summary(pool, note.game_id, me).await?;
        let mut events = Vec::new();
        if game.your_seat.is_some() {
            if note.opened {
                events.push(LobbyEvent::Opened(game.clone()));
            } else if note.seats_changed {
                events.push(LobbyEvent::SeatsChanged(game.clone()));
            }
            if note.started {
                events.push(LobbyEvent::Started(game.clone()));
            }
            if cancelled {
                events.push(LobbyEvent::Cancelled(game.clone()));
            }
            if your_turn {
                events.push(LobbyEvent::YourTurn(game.clone()));
            }
            if over {
                events.push(LobbyEvent::GameOver(game.clone()));
            }
            if chat {
                events.push(LobbyEvent::ChatUnread(game));
            }
            return Ok(events);
        }
        if lobby_change {
            let listed = match game.status.as_str() {
                "open" => lobby::listed(pool, me, ListView::Open, note.game_id).await?,
                _ => None,
            };
            match listed {
                Some(game) if self.shown.insert(game.id) => events.push(LobbyEvent::Opened(game)),
                Some(game) => events.push(LobbyEvent::SeatsChanged(game)),
                None if self.shown.remove(&note.game_id) => {
                    events.push(LobbyEvent::Removed(LobbyGameRemoved {
                        game_id: note.game_id,
                    }))
                }
                None => {}
            }
        }
        Ok(events)
    }
}
