//! The services: everything that decides or orchestrates, between the HTTP layer above and the
//! store and the rules engines below. One folder per capability, each importing only the
//! rooms listed before it (the architecture test in `tests/api/architecture.rs` checks):
//!
//! - [`notices`]: the notices' data, the kinds, preferences, and the one door into the outbox;
//! - [`play`]: the command core (lobby, commands and their pure step, the group committer,
//!   the cache, clocks, deadlines, absence, the table's settings, the log, undo);
//! - [`social`]: the table's social side (chat with its moderation, notes, rematch);
//! - [`accounts`]: registration, sign-in, keeping an account, one's own profile, deletion;
//! - [`competition`]: ratings, standings and tournaments;
//! - [`streams`]: what the live streams of a game and of the lobby read;
//! - [`delivery`]: everything that leaves the server (mail, Web Push, webhooks, the
//!   calendar feed) and the outbound client it goes through;
//! - [`housekeeping`]: deleting what nobody needs any more.

pub mod accounts;
pub mod competition;
pub mod deadlines;
pub mod delivery;
pub mod housekeeping;
pub mod notices;
pub mod play;
pub mod social;
pub mod streams;
