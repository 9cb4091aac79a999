//! What the live streams read: a game's feed ([`game`]) and the lobby's ([`lobby`]).

pub mod game;
pub mod lobby;
