//! The live streams: a game's, a user's, and the lobby's (Server-Sent Events).

pub mod event_stream;
pub mod live;
pub mod lobby;
