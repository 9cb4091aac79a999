//! Armed clocks (`deadlines`): one per pending seat, and one (seat -1) per rules timer.

use serde::{Deserialize, Serialize};

/// What an armed clock is for (`deadlines.kind`, stored as text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, sqlx::Type)]
#[serde(rename_all = "snake_case")]
#[sqlx(type_name = "text", rename_all = "snake_case")]
pub enum DeadlineKind {
    /// A player's turn clock: when it passes, the game's policy plays for the seat.
    Turn,
    /// The bot plays the seat (abandoned or forfeited) as soon as it is due.
    Bot,
    /// A rules timer, such as a negotiation deadline.
    Timer,
}
