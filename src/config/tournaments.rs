//! Tournaments: who may organise them, and how many one organiser may run at once.

/// Who may organise tournaments (`KONTOR_TOURNAMENT_ORGANISERS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Organisers {
    /// Any player whose address is verified.
    Verified,
    /// Administrators only.
    Admins,
}
