//! The platform's own events in a game's log, beside the rules engine's: their types start
//! with `kontor.` (the start and end of a game, timeouts and absent seats, undo).

use crate::games::{Outcome, Seat};
use crate::store::events::NewEvent;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// Events the platform itself writes into a game's log, beside the rules engine's events.
/// Their types start with `kontor.`.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type")]
pub enum PlatformEvent {
    /// The first event of every game: who plays, under which rules, and the commitment to
    /// the secret seed that, with the seat nonces, keys all of the game's randomness.
    #[serde(rename = "kontor.game_started")]
    GameStarted {
        kind: String,
        rules_version: i32,
        options: Value,
        seats: Vec<SeatInfo>,
        /// Lowercase hex SHA-256 of the 32-byte seed.
        seed_commitment: String,
        /// One per seat, in seat order.
        nonces: Vec<String>,
    },
    /// The last event: the result, and the seed, so anyone can verify every random draw.
    #[serde(rename = "kontor.game_ended")]
    GameEnded {
        outcome: Outcome,
        /// Lowercase hex of the 32-byte seed; its SHA-256 is the commitment.
        seed: String,
    },
    /// A seat's time ran out; the events that follow are what the game's policy played for it.
    #[serde(rename = "kontor.turn_timed_out")]
    TurnTimedOut {
        seat: Seat,
        /// Consecutive timeouts of this seat, this one included.
        consecutive: i32,
        /// `pass` (the rules allowed a plain pass) or `bot` (the sensible bot moved).
        played: TimeoutPlay,
    },
    /// After too many timeouts the seat is played by the bot: until its player returns
    /// (`bot`), or to the end with the seat ranked last (`forfeit`).
    #[serde(rename = "kontor.seat_abandoned")]
    SeatAbandoned { seat: Seat, policy: String },
    /// The player of an abandoned seat took it back.
    #[serde(rename = "kontor.seat_returned")]
    SeatReturned { seat: Seat },
    /// The seat's player deleted their account. The seat goes to the game's abandonment
    /// policy for good: the bot plays it to the end (`bot`), or plays it out with the seat
    /// ranked last (`forfeit`). Nobody can return to it. It begins no command (like
    /// `kontor.seat_returned`); nothing is drawn.
    #[serde(rename = "kontor.seat_left")]
    SeatLeft { seat: Seat, policy: String },
    /// A seat asks to take back every move after `to_version` of the game at `at_version`;
    /// each seat of `needs` (the others whose moves would be undone) must accept by
    /// `deadline`. The request is named by this event's sequence number.
    #[serde(rename = "kontor.undo_requested")]
    UndoRequested {
        by_seat: Seat,
        at_version: i64,
        to_version: i64,
        needs: Vec<Seat>,
        deadline: DateTime<Utc>,
    },
    /// A seat of the request's `needs` answers it; a `false` ends the request.
    #[serde(rename = "kontor.undo_answered")]
    UndoAnswered {
        request: i64,
        seat: Seat,
        accept: bool,
    },
    /// The requesting seat takes its request back.
    #[serde(rename = "kontor.undo_withdrawn")]
    UndoWithdrawn { request: i64, by_seat: Seat },
    /// The request ended unanswered: its deadline passed, or someone acted first.
    #[serde(rename = "kontor.undo_lapsed")]
    UndoLapsed { request: i64, reason: UndoLapse },
    /// Every event after `to_version`, up to this one, is undone: the game is again exactly
    /// as it was at `to_version`. The undone events stay in the log, marked as undone.
    /// `request` names the consented request; absent when a seat took back its own moves.
    #[serde(rename = "kontor.rewound")]
    Rewound {
        from_version: i64,
        to_version: i64,
        by_seat: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request: Option<i64>,
    },
}

/// Why an undo request ended unanswered (`kontor.undo_lapsed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum UndoLapse {
    /// Its deadline passed before every seat accepted.
    Deadline,
    /// A seat acted in the game: the request no longer names the current position.
    Moved,
    /// A seat changed hands first (its player returned to it, or left the game): a barrier
    /// the request could never reach back across. Appended just before that event.
    Seat,
}

impl PlatformEvent {
    pub fn type_name(&self) -> &'static str {
        match self {
            PlatformEvent::GameStarted { .. } => "kontor.game_started",
            PlatformEvent::GameEnded { .. } => "kontor.game_ended",
            PlatformEvent::TurnTimedOut { .. } => "kontor.turn_timed_out",
            PlatformEvent::SeatAbandoned { .. } => "kontor.seat_abandoned",
            PlatformEvent::SeatReturned { .. } => "kontor.seat_returned",
            PlatformEvent::SeatLeft { .. } => "kontor.seat_left",
            PlatformEvent::UndoRequested { .. } => "kontor.undo_requested",
            PlatformEvent::UndoAnswered { .. } => "kontor.undo_answered",
            PlatformEvent::UndoWithdrawn { .. } => "kontor.undo_withdrawn",
            PlatformEvent::UndoLapsed { .. } => "kontor.undo_lapsed",
            PlatformEvent::Rewound { .. } => "kontor.rewound",
        }
    }

    pub fn to_new_event(&self) -> NewEvent {
        NewEvent {
            kind: self.type_name().to_string(),
            payload: serde_json::to_value(self).expect("platform events serialise"),
            audience: None,
            actor: None,
        }
    }
}

/// What was played for a seat whose time ran out (`kontor.turn_timed_out`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutPlay {
    /// The rules allowed a plain pass.
    Pass,
    /// The sensible bot moved.
    Bot,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct SeatInfo {
    pub seat: Seat,
    pub user_id: Uuid,
    pub username: String,
    /// The bot plays this seat from the start, as if abandoned to it (a rematch's seat that
    /// the bot played at the end of the earlier game); its player may take it back. Absent:
    /// `false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

pub fn is_platform_event(kind: &str) -> bool {
    kind.starts_with("kontor.")
}
