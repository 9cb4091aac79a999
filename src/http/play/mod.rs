//! The games: the lobby and play (`games`), standing orders (`orders`), undo, absent players, the audit trail (logs,
//! exports, verification) and imported uploads.

pub mod absence;
pub mod audit;
pub mod games;
pub mod orders;
pub mod undo;
