//! Why reading a log or importing an export was refused. The message (`Display`) is the
//! problem's `detail`; `http::error` maps each variant to its status and code.

use super::verify::Failure;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// What the command service says (no such game, a failure of the server, …).
    #[error(transparent)]
    Service(#[from] crate::service::play::error::Error),
    #[error("limit must be between 1 and {max}, not {limit}")]
    LimitOutOfRange { limit: i64, max: i64 },
    /// A paging cursor beyond the log (or before its start).
    #[error(
        "after must be a version between 0 and the game's current version {version}, not {after}"
    )]
    AfterOutOfRange { after: i64, version: i64 },
    #[error(
        "this export is redacted for one viewer and cannot be folded; import a complete \
         log (exported after the game ended, or with `kontor export` by the operator)"
    )]
    ExportIncomplete,
    #[error(
        "this is the log of a game that has not ended: its seed is still secret, so its \
         random draws cannot be verified, and only verified logs are imported; import it \
         once the game has ended"
    )]
    ExportUnfinished,
    /// An export of a kind this server does not know.
    #[error("there is no game kind {0:?}")]
    UnknownGameKind(String),
    #[error(
        "the log was played under rules version {found}; this server folds version {supported}"
    )]
    UnsupportedRulesVersion { found: i32, supported: u32 },
    /// The caller imported `limit` games within the last 24 hours; the oldest of them is a
    /// day old in `retry_after` seconds.
    #[error(
        "you imported {limit} games within 24 hours, as many as a user may; the next import \
         is accepted in {}", in_words(*.retry_after)
    )]
    ImportLimitReached { limit: u32, retry_after: u64 },
    /// The export does not verify: the first event that differs, and why.
    #[error("{}", match .0.seq {
        Some(seq) => format!("the export does not verify at event {seq}: {}", .0.reason),
        None => format!("the export does not verify: {}", .0.reason),
    })]
    NotVerified(Failure),
}

/// A wait in words: minutes under two hours, hours above.
fn in_words(seconds: u64) -> String {
    match seconds.div_ceil(60) {
        1 => "a minute".to_string(),
        minutes @ ..=120 => format!("{minutes} minutes"),
        minutes => format!("{} hours", minutes.div_ceil(60)),
    }
}

impl Error {
    /// A failure of the server (or an unreachable database).
    pub fn internal(cause: impl Into<anyhow::Error>) -> Self {
        Self::Service(crate::service::play::error::Error::internal(cause))
    }
}

impl From<anyhow::Error> for Error {
    fn from(cause: anyhow::Error) -> Self {
        Self::internal(cause)
    }
}

impl From<sqlx::Error> for Error {
    fn from(cause: sqlx::Error) -> Self {
        Self::internal(cause)
    }
}

impl From<serde_json::Error> for Error {
    fn from(cause: serde_json::Error) -> Self {
        Self::internal(cause)
    }
}
