//! Players' public profiles and leaderboards, and tournaments.

pub mod players;
pub mod tournaments;
