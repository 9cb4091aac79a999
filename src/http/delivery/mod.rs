//! What leaves the server: notification preferences and unsubscribing, Web Push, webhooks,
//! the deadline calendar.

pub mod calendar;
pub mod notifications;
pub mod push;
pub mod webhooks;
