//! Competition: ratings ([`ratings`]), a player's public standing and the leaderboards
//! ([`standing`]), and correspondence tournaments ([`tournaments`]).

pub mod ratings;
pub mod standing;
pub mod tournaments;
