//! Undo as the API shows it: what a caller sends (an undo, an answer), what a command answers
//! (its outcome, the request concerned), and a game's undo as one caller sees it
//! (`GameDetail.undo`), decided in memory from what [`read_inputs`] read.

use super::actions::kind_of;
use super::error::Error;
use super::undo::{Plan, Policy};
use super::undo_commands::timeline;
use crate::games::Seat;
use crate::store::games::{GameHead, SeatRow, Status};
use crate::store::undo::{self as store, LineRow, OpenRow};
use crate::with_rules;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use utoipa::ToSchema;

/// Asking to take moves back.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"at_version": 42}))]
pub struct UndoBody {
    /// The game's version the caller saw: the undo applies only if the game is still there.
    pub at_version: i64,
    /// The version to go back to: the end of a move (or of the start) after the game's last
    /// barrier. Absent: just before the caller's latest move.
    pub to_version: Option<i64>,
}

/// An answer to an undo request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"accept": true}))]
pub struct UndoAnswerBody {
    /// `true`: consent; `false`: decline (which ends the request).
    pub accept: bool,
}

/// Where an undo stands after a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum UndoStatus {
    /// The game went back (`kontor.rewound`).
    Rewound,
    /// A request is open and waits for the consent of other seats.
    Asked,
    /// A seat declined: the request ended and nothing was taken back.
    Declined,
    /// The requester withdrew the request.
    Withdrawn,
}

/// An undo request (`kontor.undo_requested` and the answers since).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"seq": 43, "by_seat": 1, "at_version": 42, "to_version": 38, "needs": [0, 2], "accepted": [2], "deadline": "2026-12-03T09:00:00Z"}))]
pub struct UndoRequestOut {
    /// Its sequence number in the log: the request's name in the URLs.
    pub seq: i64,
    pub by_seat: i16,
    /// The game's version when it was asked.
    pub at_version: i64,
    /// The version the game would go back to.
    pub to_version: i64,
    /// The seats whose consent it needs (the others with moves in the range).
    pub needs: Vec<i16>,
    /// Those of `needs` that accepted so far (a bot-played seat accepts at once).
    pub accepted: Vec<i16>,
    /// Answers are taken until then; then it lapses.
    pub deadline: DateTime<Utc>,
}

/// The answer to an undo, an answer or a withdrawal; a retry gets the same.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"status": "rewound", "version": 43, "request": null}))]
pub struct UndoOutcome {
    pub status: UndoStatus,
    /// The game's version after it.
    pub version: i64,
    /// The request concerned (`null` for an undo of one's own moves without asking).
    pub request: Option<UndoRequestOut>,
}

/// A game's undo as one caller sees it (`GameDetail.undo`).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"policy": "consent", "request": null, "can_undo_to": 38, "needs": [2], "declined_at": null}))]
pub struct UndoState {
    /// The table's setting.
    pub policy: Policy,
    /// The open request, if any.
    pub request: Option<UndoRequestOut>,
    /// What the caller could take back now: the version `POST /games/{id}/undo` without
    /// `to_version` would go back to (`null`: nothing, or not allowed).
    pub can_undo_to: Option<i64>,
    /// The seats whose consent that undo would need (empty: it applies at once).
    pub needs: Vec<i16>,
    /// The version at which another seat declined the caller's last request, while nothing
    /// has moved since: until something does, the caller may not ask again
    /// (`undo_declined`), though taking back only their own moves stays open. `null`
    /// otherwise.
    pub declined_at: Option<i64>,
}

pub(super) fn seats16(seats: &[Seat]) -> Vec<i16> {
    seats.iter().map(|&s| i16::from(s)).collect()
}

impl From<&OpenRow> for UndoRequestOut {
    fn from(row: &OpenRow) -> Self {
        Self {
            seq: row.request_seq,
            by_seat: row.by_seat,
            at_version: row.at_version,
            to_version: row.to_version,
            needs: row.needs.clone(),
            accepted: row.accepted.clone(),
            deadline: row.deadline_at,
        }
    }
}

impl From<&crate::service::play::undo::OpenRequest> for UndoRequestOut {
    fn from(open: &crate::service::play::undo::OpenRequest) -> Self {
        Self {
            seq: open.seq,
            by_seat: i16::from(open.by_seat),
            at_version: open.at_version,
            to_version: open.to_version,
            needs: seats16(&open.needs),
            accepted: seats16(&open.accepted),
            deadline: open.deadline,
        }
    }
}

/// The undo of a game as `seat` (the caller's, if they play) sees it at the game's current
/// version: the policy, the open request, what they could take back now.
pub async fn state_for(
    conn: &mut PgConnection,
    head: &GameHead,
    seats: &[SeatRow],
    seat: Option<i16>,
) -> Result<UndoState, Error> {
    let inputs = read_inputs(conn, head, seat.is_some()).await?;
    state_of(head, seats, seat, &inputs)
}

/// What the undo state of a game at its current version is decided from: the open request,
/// and the log's lines when a seat could take something back (no open request).
#[derive(Clone, Debug, Default)]
pub struct UndoInputs {
    request: Option<UndoRequestOut>,
    lines: Vec<LineRow>,
}

/// Reads what [`state_of`] needs (nothing when the table allows no undo or the game does not
/// run); the lines only if `for_seats` (someone holding a seat will ask). A live feed reads
/// them once per version for all the game's streams.
pub async fn read_inputs(
    conn: &mut PgConnection,
    head: &GameHead,
    for_seats: bool,
) -> Result<UndoInputs, Error> {
    let mut inputs = UndoInputs::default();
    if Policy::of(&head.options) == Policy::None || head.status() != Status::Active {
        return Ok(inputs);
    }
    inputs.request = store::open(&mut *conn, head.id)
        .await?
        .as_ref()
        .map(UndoRequestOut::from);
    if for_seats && inputs.request.is_none() {
        inputs.lines = store::lines(&mut *conn, head.id, head.version).await?;
    }
    Ok(inputs)
}

/// The undo of a game as `seat` sees it at the game's current version, from `inputs` read at
/// that version (with the lines if `seat` is one): decided in memory.
pub fn state_of(
    head: &GameHead,
    seats: &[SeatRow],
    seat: Option<i16>,
    inputs: &UndoInputs,
) -> Result<UndoState, Error> {
    let policy = Policy::of(&head.options);
    let mut state = UndoState {
        policy,
        request: None,
        can_undo_to: None,
        needs: Vec::new(),
        declined_at: None,
    };
    if policy == Policy::None || head.status() != Status::Active {
        return Ok(state);
    }
    state.request = inputs.request.clone();
    let Some(seat) = seat.filter(|_| state.request.is_none()) else {
        return Ok(state);
    };
    let rows = &inputs.lines;
    let bots: Vec<Seat> = seats
        .iter()
        .filter(|s| s.state.played_by_bot())
        .map(|s| s.seat as Seat)
        .collect();
    let kind = kind_of(head)?;
    let (planned, declined) = with_rules!(kind, R => {
        let timeline = timeline::<R>(rows)?;
        (
            crate::service::play::undo::plan(&timeline, policy, seat as Seat, head.version, None, &bots),
            timeline.declined_here(seat as Seat),
        )
    });
    state.declined_at = declined.map(|d| d.seq);
    if let Ok(plan) = planned {
        state.can_undo_to = Some(plan.to_version());
        if let Plan::Ask { needs, bots, .. } = plan {
            state.needs = seats16(
                &needs
                    .into_iter()
                    .filter(|s| !bots.contains(s))
                    .collect::<Vec<_>>(),
            );
        }
    }
    Ok(state)
}
