//! The table's social side: chat with its access policy and moderation ([`chat`]), private
//! notes ([`notes`]) and rematches ([`rematch`]).

pub mod chat;
pub mod notes;
pub mod rematch;
