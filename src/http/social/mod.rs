//! The table's social side: chat with its moderation, private notes, rematches.

pub mod chat;
pub mod notes;
pub mod rematch;
