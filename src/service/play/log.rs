//! The game's log as the platform reads it: the events as one viewer may see them, and the
//! folds that turn a log (with its undone ranges skipped) into a state.

use super::auto::{AutoKind, read_marker};
use super::events::is_platform_event;
use super::undo;
use crate::games::{Reason, Rules, Seat, Viewer};
use crate::store::events::{self, EventRow, NewEvent};
use crate::store::games::{GameHead, Status};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::PgConnection;
use utoipa::ToSchema;
use uuid::Uuid;

/// An event as served to one viewer.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"seq": 7, "type": "bid_placed", "actor": 2, "at": "2026-11-29T12:00:00Z", "data": {"type": "bid_placed", "seat": 2, "size": 3}}))]
pub struct EventOut {
    pub seq: i64,
    #[serde(rename = "type")]
    #[schema(schema_with = super::game_schemas::event_type)]
    pub kind: String,
    /// The seat whose action caused the event; `null` for the platform and rules timers.
    pub actor: Option<i16>,
    pub at: DateTime<Utc>,
    /// The event as this viewer may see it (redacted by the game's rules).
    #[schema(schema_with = super::game_schemas::event)]
    pub data: Value,
    /// True when a later `kontor.rewound` took this event back: it stays in the log, but no
    /// longer counts for the game (history views show it struck through). Absent: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undone: bool,
    /// On the first event of a move the server played on its own for `actor`: `forced` (the
    /// rules left the seat this one move; everyone sees it, with `reason`) or `order` (one
    /// of the seat's standing orders played it; only that seat sees this until the game
    /// ends; everyone else sees the move as if clicked). Absent: a move as submitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<AutoKind>,
    /// Why a forced move was forced: a code of the game's (see the game's `AUTO_CODES` in
    /// its `RULES.md`) and its parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
}

/// Marks the events of `events` that the rewinds of `skip` took back as of version `as_of`
/// (see [`EventOut::undone`]).
pub fn mark_undone(events: &mut [EventOut], skip: &undo::Skip, as_of: i64) {
    if skip.is_empty() {
        return;
    }
    for event in events {
        event.undone = !undo::is_undo_event(&event.kind) && skip.undone(event.seq, as_of);
    }
}

/// Names the seats of `kontor.game_started` events by the current names of their accounts.
///
/// The stored start event keeps the username each seat had when the game began (the log is
/// never rewritten), but a name belongs to its account: after an account is deleted its seat
/// must be shown under the placeholder, and nothing served may carry the old name. So every
/// event served or exported takes the names from `names` (user id → current username); a
/// seat whose account is not listed keeps the stored text. Verification compares seats by id
/// and seat number only, so an export named this way verifies.
pub fn name_seats(events: &mut [EventOut], names: &std::collections::HashMap<Uuid, String>) {
    for event in events
        .iter_mut()
        .filter(|e| e.kind == "kontor.game_started")
    {
        let Some(seats) = event.data.get_mut("seats").and_then(Value::as_array_mut) else {
            continue;
        };
        for seat in seats {
            let name = seat
                .get("user_id")
                .and_then(Value::as_str)
                .and_then(|id| id.parse::<Uuid>().ok())
                .and_then(|id| names.get(&id));
            if let (Some(name), Some(slot)) = (name, seat.get_mut("username")) {
                *slot = Value::String(name.clone());
            }
        }
    }
}

/// Whether `caller` may reach the game at all: anyone may, except a sandbox (an imported game),
/// which only its importer may. To everyone else a sandbox does not exist: they get the same
/// 404 as for an unknown id, so the id is not even confirmed. The lobby's and play's commands
/// check this; reads also follow who may watch (`table::readable_head`).
pub fn readable_by(head: &GameHead, caller: Uuid) -> bool {
    !head.sandbox || head.created_by == caller
}

/// Who a caller is to a game: the finished game is open to everyone, and the importer of a
/// sandbox sees all of it. Check [`readable_by`] first.
pub fn viewer_for(head: &GameHead, caller: Uuid, seat: Option<i16>) -> Viewer {
    if head.status() == Status::Finished || (head.sandbox && head.created_by == caller) {
        return Viewer::Omniscient;
    }
    match seat {
        Some(seat) => Viewer::Seat(seat as Seat),
        None => Viewer::Spectator,
    }
}

/// The stored event rows of `R` as `viewer` may see them; hidden events are left out.
pub fn present<R: Rules>(rows: &[EventRow], viewer: Viewer) -> anyhow::Result<Vec<EventOut>> {
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let visible_as_stored = match (&row.audience, viewer) {
            (None, _) | (_, Viewer::Omniscient) => true,
            (Some(seats), Viewer::Seat(seat)) => seats.contains(&i16::from(seat)),
            (Some(_), Viewer::Spectator) => false,
        };
        let data = if visible_as_stored || is_platform_event(&row.kind) {
            row.payload.clone()
        } else {
            let event: R::Event = serde_json::from_value(row.payload.clone())?;
            match R::redact(&event, viewer) {
                Some(redacted) => serde_json::to_value(redacted)?,
                None => continue,
            }
        };
        // A forced move is forced for all to see; a standing order is its seat's secret
        // until the game ends.
        let (auto, reason) = match row.auto.as_ref().and_then(read_marker) {
            Some((AutoKind::Forced, reason)) => (Some(AutoKind::Forced), reason),
            Some((AutoKind::Order, _))
                if viewer == Viewer::Omniscient
                    || row.actor.is_some_and(|a| viewer == Viewer::Seat(a as Seat)) =>
            {
                (Some(AutoKind::Order), None)
            }
            _ => (None, None),
        };
        out.push(EventOut {
            seq: row.seq,
            kind: row.kind.clone(),
            actor: row.actor,
            at: row.created_at,
            data,
            undone: false,
            auto,
            reason,
        });
    }
    Ok(out)
}

/// A rules event ready to append, with the audience that sees it unredacted.
pub fn new_event<R: Rules>(event: &R::Event, actor: Option<Seat>, seats: u8) -> NewEvent {
    let payload = serde_json::to_value(event).expect("rules events serialise");
    let kind = payload
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string();
    let public = R::redact(event, Viewer::Spectator).as_ref() == Some(event);
    let audience = (!public).then(|| {
        (0..seats)
            .filter(|&s| R::redact(event, Viewer::Seat(s)).as_ref() == Some(event))
            .map(i16::from)
            .collect()
    });
    NewEvent {
        kind,
        payload,
        audience,
        actor: actor.map(i16::from),
    }
}

/// Decodes the rules events of a log (skipping platform events) up to `version`.
pub fn decode_rules_events<R: Rules>(rows: &[EventRow]) -> anyhow::Result<Vec<R::Event>> {
    rows.iter()
        .filter(|row| !is_platform_event(&row.kind))
        .map(decode_row::<R>)
        .collect()
}

fn decode_row<R: Rules>(row: &EventRow) -> anyhow::Result<R::Event> {
    serde_json::from_value(row.payload.clone())
        .map_err(|e| anyhow::anyhow!("event {} ({}) does not decode: {e}", row.seq, row.kind))
}

/// The rewinds among `rows` (see `undo::Skip`).
fn skip_of(rows: &[EventRow]) -> anyhow::Result<undo::Skip> {
    Ok(undo::Skip::of(
        rows.iter().map(|r| (r.seq, r.kind.as_str(), &r.payload)),
    )?)
}

/// The state at version `as_of` of a log whose first rows (`seq` 1, 2, … up to `as_of` at
/// least) are `rows`: the fold of the rules events that are effective as of `as_of` (not
/// taken back by a rewind at or before it). Pure: the state a rewind to `as_of` restores,
/// and what every fold of the service agrees with.
pub fn fold_effective<R: Rules>(rows: &[EventRow], as_of: i64) -> anyhow::Result<R::State> {
    let rows = &rows[..rows.partition_point(|r| r.seq <= as_of)];
    anyhow::ensure!(
        rows.len() as i64 == as_of,
        "the log has {} events up to version {as_of}",
        rows.len()
    );
    let skip = skip_of(rows)?;
    let mut state = R::State::default();
    for row in rows {
        if !is_platform_event(&row.kind) && skip.keeps(row.seq, &row.kind, as_of) {
            R::evolve(&mut state, &decode_row::<R>(row)?);
        }
    }
    Ok(state)
}

/// The state of a started game at `version`: from the cache when it is at that version or
/// before, else folded from the whole log.
pub async fn state_at<R: Rules>(
    conn: &mut PgConnection,
    head: &GameHead,
    version: i64,
) -> anyhow::Result<R::State> {
    let cached = events::cached_state(&mut *conn, head.id, version, head.rules_version).await?;
    let cached = cached.as_ref().map(|c| (c.version, c.state.as_str()));
    state_from::<R>(conn, head.id, version, cached).await
}

/// The state at `version`: a cached state (its version and JSON text) when there is one at
/// `version` or before that decodes, with the events after it; else the whole log folded.
pub async fn state_from<R: Rules>(
    conn: &mut PgConnection,
    game_id: Uuid,
    version: i64,
    cached: Option<(i64, &str)>,
) -> anyhow::Result<R::State> {
    if let Some((cached_version, cached)) = cached.filter(|&(v, _)| v <= version) {
        match serde_json::from_str::<R::State>(cached) {
            Ok(state) => {
                return fold_onto::<R>(conn, game_id, state, cached_version, version).await;
            }
            Err(error) => {
                tracing::warn!(game = %game_id, %error, "state cache does not decode; refolding")
            }
        }
    }
    fold_to::<R>(conn, game_id, version).await
}

/// Folds the log of a game up to `version`: its rules events effective as of `version`.
pub async fn fold_to<R: Rules>(
    conn: &mut PgConnection,
    game_id: Uuid,
    version: i64,
) -> anyhow::Result<R::State> {
    if version <= 0 {
        return Ok(R::State::default());
    }
    let rows = events::load(&mut *conn, game_id, 1, version).await?;
    fold_effective::<R>(&rows, version)
}

/// Folds the log of a game once up to the greatest of `versions` (ascending) and returns the
/// state at each of them, as JSON: the snapshots `kontor rebuild` writes and `kontor replay
/// --check` compares. The state at a version is the fold of the events effective as of it,
/// so a rewind's version has the state of its target, and a version inside a range undone
/// later has the state it had then.
pub async fn fold_through<R: Rules>(
    conn: &mut PgConnection,
    game_id: Uuid,
    versions: &[i64],
) -> anyhow::Result<Vec<Value>> {
    let mut states = Vec::with_capacity(versions.len());
    let Some(&last) = versions.last() else {
        return Ok(states);
    };
    let rows = events::load(&mut *conn, game_id, 1, last).await?;
    anyhow::ensure!(
        rows.len() as i64 == last,
        "the log has {} events up to version {last}",
        rows.len()
    );
    let mut state = R::State::default();
    let mut wanted = versions.iter().peekable();
    while wanted.next_if(|&&v| v <= 0).is_some() {
        states.push(serde_json::to_value(&state)?);
    }
    for row in &rows {
        if row.kind == "kontor.rewound" {
            // Rare: the state becomes the target's, folded anew.
            state = fold_effective::<R>(&rows, row.seq)?;
        } else if !is_platform_event(&row.kind) {
            R::evolve(&mut state, &decode_row::<R>(row)?);
        }
        while wanted.next_if(|&&v| v == row.seq).is_some() {
            states.push(serde_json::to_value(&state)?);
        }
    }
    Ok(states)
}

/// Folds the events after version `from` up to version `to` onto `state` (the state at
/// `from`). A rewind among them may reach before `from`: then the whole log is folded.
async fn fold_onto<R: Rules>(
    conn: &mut PgConnection,
    game_id: Uuid,
    mut state: R::State,
    from: i64,
    to: i64,
) -> anyhow::Result<R::State> {
    if from < to {
        let rows = events::load(&mut *conn, game_id, from + 1, to).await?;
        if rows.iter().any(|r| r.kind == "kontor.rewound") {
            return fold_to::<R>(conn, game_id, to).await;
        }
        for event in &decode_rules_events::<R>(&rows)? {
            R::evolve(&mut state, event);
        }
    }
    Ok(state)
}
