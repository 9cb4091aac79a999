//! **The one rule** of which reads may be answered by a read replica (`KONTOR_REPLICA_URLS`).
//!
//! Only the reads named by [`LateRead`] may (a game list and a game's view only in the cases
//! [`LateRead::of_game_list`] and [`LateRead::of_game_view`] name); every other read and every
//! write goes to the primary (handlers use `state.pool`). Each of these reads is of something that is settled
//! once written or that nobody expects to see change within a second: a game's log export and
//! verification, a game at a past version (`?at=`), public profiles and rating histories,
//! leaderboards, tournament lists, finished games lists. A replica answers one only if
//! (`store::replica::Replicas::route`):
//! - it answers, and lags at most `KONTOR_REPLICA_MAX_LAG_MS`;
//! - it holds the reader's own last write (read-your-writes: it is caught up to an instant
//!   after the reader's last write on this server ended);
//! - and its answer is not an error: a server error (the replica failed) and a refusal (a 4xx:
//!   the replica may not yet have the game or the version the reader saw elsewhere) are both
//!   asked again of the primary, whose answer is the one given.
//!
//! The read itself is the same code on either pool, so it redacts exactly as on the primary.

use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::service::play::lobby::{ListQuery, ListView};
use crate::store::replica::Fallback;
use sqlx::PgPool;
use std::future::Future;
use uuid::Uuid;

/// The reads that may be a little late (the label of `kontor_replica_reads_total`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LateRead {
    /// `GET /games/{id}/export` and `/verification`.
    Export,
    /// `GET /games/{id}?at=…`: a past version.
    History,
    /// `GET /players/{name}` and its rating histories.
    Profile,
    /// `GET /leaderboards/{kind}`.
    Leaderboard,
    /// `GET /tournaments`.
    TournamentList,
    /// `GET /games?view=finished` (or `status=finished`).
    FinishedGames,
}

impl LateRead {
    /// A game list may be late when it lists finished games only: `view=finished`, or
    /// `status=finished`, or a `result` (which implies it).
    pub fn of_game_list(query: &ListQuery) -> Option<LateRead> {
        let finished = matches!(query.view, Some(ListView::Finished))
            || query.status.as_deref() == Some("finished")
            || query.result.is_some();
        finished.then_some(LateRead::FinishedGames)
    }

    /// A game's view may be late at a past version (`?at=`), settled once played; a version
    /// not yet on the replica is refused there and asked of the primary. Now, never.
    pub fn of_game_view(at: Option<i64>) -> Option<LateRead> {
        at.map(|_| LateRead::History)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LateRead::Export => "export",
            LateRead::History => "history",
            LateRead::Profile => "profile",
            LateRead::Leaderboard => "leaderboard",
            LateRead::TournamentList => "tournament_list",
            LateRead::FinishedGames => "finished_games",
        }
    }
}

/// Answers `read` on behalf of `reader` (`None`: a visitor) by running `run` on a replica
/// when the rule lets it, else (or when the replica's answer is an error) on the primary.
/// `None` for `read`: a read that may not be late, on the primary.
pub async fn answer<T, F, Fut>(
    state: &AppState,
    read: impl Into<Option<LateRead>>,
    reader: Option<Uuid>,
    run: F,
) -> Result<T, ApiError>
where
    F: Fn(PgPool) -> Fut,
    Fut: Future<Output = Result<T, ApiError>>,
{
    let Some(read) = read.into() else {
        return run(state.pool.clone()).await;
    };
    if let Ok(Some((at, pool))) = state.replicas.route(reader) {
        match run(pool).await {
            Ok(answer) => {
                state.replicas.served(read.as_str());
                return Ok(answer);
            }
            Err(error) if error.status.is_server_error() => state.replicas.failed(at, &error),
            Err(_) => state.replicas.fell_back(Fallback::Refused),
        }
    }
    run(state.pool.clone()).await
}
