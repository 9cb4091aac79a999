//! Importing an exported log into a new sandbox game, to analyse a position or reproduce a bug.
//!
//! A sandbox game is private to the importer, flagged `sandbox` with the id of the game it
//! came from, never rated, and has no seats: nobody plays in it, but every position of it can
//! be viewed (`?at=N`) by the importer, who sees everything.

use super::{ExportEvent, ExportHeader, parse_ndjson};
use crate::games::{GameKind, Rules};
use crate::http::error::ApiError;
use crate::service::lobby::{GameSummary, summary};
use crate::service::{EventOut, PlatformEvent, is_platform_event, new_event};
use crate::store::events::{self, NewEvent};
use crate::with_rules;
use rand::RngExt;
use sqlx::PgPool;
use std::panic::{AssertUnwindSafe, catch_unwind};
use uuid::Uuid;

fn invalid(code: &'static str, detail: impl Into<String>) -> ApiError {
    ApiError::unprocessable(code, detail)
}

/// Imports an ndjson export as a sandbox game of `caller`.
pub async fn import(pool: &PgPool, caller: Uuid, text: &str) -> Result<GameSummary, ApiError> {
    let (header, lines) =
        parse_ndjson(text).map_err(|e| invalid("invalid_export", e.to_string()))?;
    if !header.complete {
        return Err(invalid(
            "export_incomplete",
            "this export is redacted for one viewer and cannot be folded; import a complete \
             log (exported after the game ended, or with `kontor export` by the operator)",
        ));
    }
    let kind = GameKind::parse(&header.kind).ok_or_else(|| {
        invalid(
            "unknown_game_kind",
            format!("there is no game kind {:?}", header.kind),
        )
    })?;
    let prepared = with_rules!(kind, R => prepare::<R>(&header, &lines)?);
    let id = Uuid::now_v7();
    let seed = match header.seed.as_deref().map(hex::decode) {
        Some(Ok(seed)) if seed.len() == 32 => seed,
        // Unrevealed: the sandbox never draws, so any seed will do.
        _ => rand::rng().random::<[u8; 32]>().to_vec(),
    };
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO games (id, kind, rules_version, options, seat_count, visibility, status,
                            version, created_by, seed, seed_commitment, nonces, pending_seats,
                            outcome, sandbox, imported_from, started_at, finished_at, turn_started_at)
         VALUES ($1, $2, $3, $4, $5, 'private', $6, $7, $8, $9, $10, $11, $12, $13, true, $14,
                 now(), CASE WHEN $6 = 'finished' THEN now() END, now())",
    )
    .bind(id)
    .bind(&header.kind)
    .bind(header.rules_version)
    .bind(&header.options)
    .bind(header.seats.len() as i16)
    .bind(if prepared.outcome.is_some() { "finished" } else { "active" })
    .bind(lines.len() as i64)
    .bind(caller)
    .bind(&seed)
    .bind(&header.seed_commitment)
    .bind(&header.nonces)
    .bind(&prepared.pending)
    .bind(&prepared.outcome)
    .bind(header.game_id)
    .execute(&mut *tx)
    .await?;
    events::append(&mut tx, id, 1, None, &prepared.events).await?;
    events::save_state(
        &mut *tx,
        id,
        lines.len() as i64,
        header.rules_version,
        &prepared.state.to_string(),
    )
    .await?;
    tx.commit().await?;
    summary(pool, id, caller).await
}

struct Prepared {
    events: Vec<NewEvent>,
    state: serde_json::Value,
    pending: Vec<i16>,
    outcome: Option<serde_json::Value>,
}

/// Decodes and folds the log; refuses anything that would not make a sound game.
fn prepare<R: Rules>(header: &ExportHeader, lines: &[ExportEvent]) -> Result<Prepared, ApiError> {
    if header.rules_version as u32 != R::RULES_VERSION {
        return Err(invalid(
            "unsupported_rules_version",
            format!(
                "the log was played under rules version {}; this server folds version {}",
                header.rules_version,
                R::RULES_VERSION
            ),
        ));
    }
    let seats = u8::try_from(header.seats.len())
        .ok()
        .filter(|n| (R::MIN_SEATS..=R::MAX_SEATS).contains(n))
        .ok_or_else(|| invalid("invalid_export", "the seat count is out of range"))?;
    let mut decoded = Vec::new();
    let mut new_events = Vec::with_capacity(lines.len());
    for (index, line) in lines.iter().enumerate() {
        let EventOut {
            seq,
            kind,
            actor,
            data,
            ..
        } = &line.event;
        if *seq != index as i64 + 1 {
            return Err(invalid(
                "invalid_export",
                format!("event {seq} is out of order: the log has a gap"),
            ));
        }
        if is_platform_event(kind) {
            serde_json::from_value::<PlatformEvent>(data.clone()).map_err(|e| {
                invalid(
                    "invalid_export",
                    format!("event {seq} does not decode: {e}"),
                )
            })?;
            new_events.push(NewEvent {
                kind: kind.clone(),
                payload: data.clone(),
                audience: None,
                actor: *actor,
            });
            continue;
        }
        let event: R::Event = serde_json::from_value(data.clone()).map_err(|e| {
            invalid(
                "invalid_export",
                format!("event {seq} does not decode: {e}"),
            )
        })?;
        let mut stored = new_event::<R>(&event, None, seats);
        stored.actor = *actor;
        new_events.push(stored);
        decoded.push(event);
    }
    // A hand-edited log may break the engine's assumptions; never let that take the server down.
    let state = catch_unwind(AssertUnwindSafe(|| R::fold(&decoded))).map_err(|_| {
        invalid(
            "invalid_export",
            "the events do not fold into a position of this game",
        )
    })?;
    let outcome = R::outcome(&state);
    Ok(Prepared {
        events: new_events,
        state: serde_json::to_value(&state).map_err(anyhow::Error::from)?,
        pending: R::pending(&state).into_iter().map(i16::from).collect(),
        outcome: outcome.map(|o| serde_json::to_value(o).expect("outcomes serialise")),
    })
}
