//! Seats: who sits where in a game, and in what state.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Who plays a seat: its user, or the bot (stored as text in `game_seats.state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum SeatState {
    /// The user plays the seat.
    Active,
    /// After too many timeouts the sensible bot plays the seat until the user returns.
    Abandoned,
    /// The bot plays the seat out and it ranks last.
    Forfeited,
}

impl SeatState {
    /// Whether the bot plays the seat rather than its user.
    pub fn played_by_bot(self) -> bool {
        self != SeatState::Active
    }
}
