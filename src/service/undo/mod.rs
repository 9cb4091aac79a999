//! Undo: taking moves back by appending events, never by deleting them (issue 23).
//!
//! The log stays append-only. A `kontor.rewound` event at sequence `r` with `to_version = t`
//! undoes every event with `t < seq < r`: the game is again exactly as it was at `t`. The
//! undone events stay in the log, marked as undone in the history views.
//!
//! * [`timeline`]: the pure reading of a log as undo sees it: which events are *effective*
//!   (count for the game's state) and which are undone, the batches (the start, each command,
//!   each standalone platform event) with their actors, the last barrier, the open request,
//!   and the RNG key of the next step.
//! * [`plan`]: the pure decisions: may this seat take moves back now, to where, and who must
//!   consent; answering and withdrawing a request. The service writes what they decide.
//! * [`apply`]: the service: asking, answering, withdrawing, lapsing and rewinding under
//!   the game's row lock, with the open request's projection, clocks, mail and live notes.

pub mod apply;
pub mod plan;
pub mod timeline;

pub use plan::{Answer, Plan, Policy, Refusal, answer, plan, withdraw};
pub use timeline::{Batch, Line, OpenRequest, Rewind, Skip, Timeline, TimelineError};

/// Whether an event of type `kind` belongs to the undo family (`kontor.undo_*`,
/// `kontor.rewound`): these are never effective, they only say what is undone and who asked.
pub fn is_undo_event(kind: &str) -> bool {
    kind.starts_with("kontor.undo_") || kind == "kontor.rewound"
}
