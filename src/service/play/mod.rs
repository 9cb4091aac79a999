//! The command core: the one place where games change. A command reads the game, lets the
//! rules engine decide ([`step`], pure), and appends the events with the head row's
//! compare-and-set ([`actions`]), group-committed with other games ([`committer`]); the
//! lobby's changes ([`lobby`]) run under the game's row lock. Around it: what each instance
//! remembers ([`cache`]), time controls ([`clock`]) and the deadline worker ([`deadlines`]),
//! absent players ([`absence`]), the table's settings ([`table`]), the log as the platform
//! reads it ([`log`]), undo ([`undo`]), what the server plays on its own ([`auto`], standing
//! orders in [`orders`]), the errors ([`error`]) and how the platform's types refer to the
//! games' own in the API description ([`game_schemas`]).

pub mod absence;
pub mod actions;
pub mod auto;
pub mod cache;
pub mod channels;
pub mod clock;
pub mod committer;
pub mod error;
pub mod events;
pub mod game_schemas;
pub mod lobby;
pub mod log;
pub mod orders;
pub mod step;
pub mod table;
pub mod undo;
pub mod undo_answers;
pub mod undo_commands;
pub mod undo_lapses;
pub mod undo_views;
