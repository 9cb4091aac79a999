//! Email notifications: an outbox written in the caller's transaction, delivery workers that
//! share it through `FOR UPDATE SKIP LOCKED`, per-kind preferences with a daily digest, and
//! one-click unsubscribe links.
//!
//! The game code calls [`enqueue`](crate::service::notices::enqueue) inside its command transaction; nothing else is needed.
//! The workers ([`spawn_workers`](worker::spawn_workers), or [`Notifier::deliver_due`](worker::Notifier::deliver_due) driven by hand) do the rest:
//!
//! * a notice whose preference is `immediately` becomes a `pending` mail; `digest` holds it
//!   for the daily digest; `off` writes nothing;
//! * delivery claims due mails with a lease, sends each (SMTP, or `.eml` files when no SMTP
//!   server is configured) and marks it `sent`; a mail whose lease expires before it was
//!   marked is sent again (at least once), a mail marked `sent` never is;
//! * failures are retried with exponential backoff and end as `failed` after
//!   `KONTOR_MAIL_MAX_ATTEMPTS`; an admin can retry them ([`admin`]);
//! * just before sending, the preference is checked again (an unsubscribe applies to mails
//!   already queued), "your turn" mails are skipped while the player watches the game live
//!   (unless `always_email`), and "your turn" and reminders are skipped once the player no
//!   longer has to act in that game.

pub mod admin;
pub mod digest;
pub mod mailer;
pub mod unsubscribe;
pub mod worker;
