//! Everything that leaves the server: mail ([`mail`]), Web Push ([`push`]), signed webhooks
//! ([`webhooks`]) and the deadline calendar ([`calendar`]); what their texts say
//! ([`render`]); whether a late notice is still worth sending ([`relevance`]); and the
//! SSRF-safe client that every request to a user-given address goes through ([`outbound`]),
//! and how those requests share their slots fairly ([`fair`]).

pub mod calendar;
pub mod fair;
pub mod mail;
pub mod outbound;
pub mod push;
pub mod relevance;
pub mod render;
pub mod webhooks;
