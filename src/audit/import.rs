//! Importing an exported log into a new sandbox game, to analyse a position or reproduce a bug.
//!
//! A sandbox game is private to the importer (anyone else is told there is no such game),
//! flagged `sandbox` with the id of the game it came from, never rated, and has no seats:
//! nobody plays in it, but every position of it can be viewed (`?at=N`) by the importer, who
//! sees everything.
//!
//! Only a complete export of a *finished* game is imported, and only if it verifies exactly
//! as `kontor verify` checks it (seed against commitment, the setup re-run, every command
//! re-decided). What is stored is the log as verification re-derived it, never the uploaded
//! lines, so nothing reaches the rules engine's `evolve` that its own `setup` or `decide` did
//! not produce; the re-decided commands are kept with it, so that the sandbox's own export
//! is complete and verifies again. An unfinished game's export carries no seed, so its random draws cannot be
//! checked; it is refused (`export_unfinished`).

use super::Error;
use super::verify::{Derived, DerivedCommand, rederive};
use super::{ExportEvent, ExportHeader};
use crate::games::{GameKind, Rules};
use crate::service::play::lobby::{GameSummary, summary};
use crate::service::play::undo::Skip;
use crate::store::events;
use crate::store::games::{self, NewSandbox};
use crate::with_rules;
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// How long an import counts against the daily limit (`KONTOR_IMPORTS_PER_DAY`).
const LIMIT_WINDOW: chrono::TimeDelta = chrono::TimeDelta::hours(24);

/// A parsed export that verified, with what importing it stores (see [`check`]).
pub struct Checked {
    header: ExportHeader,
    prepared: Prepared,
}

/// Checks a parsed export for import: complete, finished, of a known kind and rules
/// version, and verifying exactly. All CPU work and no I/O (up to thousands of commands
/// re-decided), so the server runs it off its request threads.
pub fn check(header: ExportHeader, lines: &[ExportEvent]) -> Result<Checked, Error> {
    if !header.complete {
        return Err(Error::ExportIncomplete);
    }
    if header.seed.is_none() {
        return Err(Error::ExportUnfinished);
    }
    let kind =
        GameKind::parse(&header.kind).ok_or_else(|| Error::UnknownGameKind(header.kind.clone()))?;
    let prepared = with_rules!(kind, R => prepare::<R>(&header, lines)?);
    Ok(Checked { header, prepared })
}

/// Refuses (`ImportLimitReached`) when `user` imported `limit` games within the day before
/// `now`; cheap, so that an upload can be refused before it is read.
pub async fn within_daily_limit(
    pool: &PgPool,
    user: Uuid,
    now: DateTime<Utc>,
    limit: u32,
) -> Result<(), Error> {
    let (count, first) = games::imports_since(pool, user, now - LIMIT_WINDOW).await?;
    daily_limit(count, first, now, limit)
}

/// The daily limit's verdict on `count` imports within the window, the first at `first`.
fn daily_limit(
    count: i64,
    first: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    limit: u32,
) -> Result<(), Error> {
    if count < i64::from(limit) {
        return Ok(());
    }
    // The window frees a place when its first import leaves it.
    let frees_at = first.unwrap_or(now) + LIMIT_WINDOW;
    let wait = (frees_at - now).num_milliseconds().max(0) as u64;
    Err(Error::ImportLimitReached {
        limit,
        retry_after: wait.div_ceil(1000).max(1),
    })
}

/// Stores a checked export as a sandbox game of `caller`, imported at `now`, unless the
/// caller reached the daily limit meanwhile (counted under a lock, so that imports of one
/// user at once cannot both pass it).
pub async fn store(
    pool: &PgPool,
    caller: Uuid,
    checked: Checked,
    now: DateTime<Utc>,
    limit: u32,
) -> Result<GameSummary, Error> {
    let Checked { header, prepared } = checked;
    let seed = header
        .seed
        .as_deref()
        .and_then(|s| hex::decode(s).ok())
        .ok_or_else(|| anyhow::anyhow!("a verified export has a hex seed"))?;
    let id = Uuid::now_v7();
    let version = prepared.events.len() as i64;
    let mut tx = pool.begin().await?;
    games::lock_imports_of(&mut tx, caller).await?;
    let (count, first) = games::imports_since(&mut *tx, caller, now - LIMIT_WINDOW).await?;
    daily_limit(count, first, now, limit)?;
    games::insert_sandbox(
        &mut tx,
        &NewSandbox {
            id,
            kind: &header.kind,
            rules_version: header.rules_version,
            options: &prepared.options,
            seat_count: prepared.seat_count,
            version,
            created_by: caller,
            seed: &seed,
            seed_commitment: &header.seed_commitment,
            nonces: &prepared.nonces,
            outcome: &prepared.outcome,
            imported_from: header.game_id,
            undone_events: prepared.undone_events,
            at: now,
        },
    )
    .await?;
    events::append(&mut tx, id, 1, None, &prepared.events).await?;
    // The commands too, so that the sandbox's own export is complete and verifies.
    let commands: Vec<_> = prepared
        .commands
        .iter()
        .map(|c| games::ImportedCommand {
            first_seq: c.first_seq,
            last_seq: c.last_seq,
            seat: c.seat.map(i16::from),
            command: &c.action,
            auto: c.auto.as_ref(),
        })
        .collect();
    games::insert_imported_commands(&mut tx, id, &commands).await?;
    // Every snapshot, as for a game played here, so that its past versions read as quickly.
    super::replay::snapshot_log(&mut tx, id, version).await?;
    tx.commit().await?;
    Ok(summary(pool, id, caller).await?)
}

struct Prepared {
    events: Vec<events::NewEvent>,
    commands: Vec<DerivedCommand>,
    outcome: serde_json::Value,
    options: serde_json::Value,
    seat_count: i16,
    nonces: Vec<String>,
    /// The events that do not count (undone ones and the undo events).
    undone_events: i64,
}

/// Verifies the log and returns it as re-derived; refuses anything that does not verify.
fn prepare<R: Rules>(header: &ExportHeader, lines: &[ExportEvent]) -> Result<Prepared, Error> {
    if header.rules_version != R::RULES_VERSION as i32 {
        return Err(Error::UnsupportedRulesVersion {
            found: header.rules_version,
            supported: R::RULES_VERSION,
        });
    }
    let Derived {
        events,
        commands,
        state: _,
        outcome,
        options,
        seats,
        nonces,
    } = rederive::<R>(header, lines).map_err(Error::NotVerified)?;
    let version = events.len() as i64;
    let skip = Skip::of(
        (1..)
            .zip(&events)
            .map(|(seq, e)| (seq, e.kind.as_str(), &e.payload)),
    )
    .map_err(anyhow::Error::from)?;
    let undone_events = (1..)
        .zip(&events)
        .filter(|(seq, e)| !skip.keeps(*seq, &e.kind, version))
        .count() as i64;
    Ok(Prepared {
        undone_events,
        events,
        commands,
        outcome: serde_json::to_value(&outcome).map_err(anyhow::Error::from)?,
        options,
        seat_count: seats.len() as i16,
        nonces,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_daily_limit_frees_a_place_when_the_first_import_is_a_day_old() {
        let now = Utc::now();
        assert!(daily_limit(0, None, now, 3).is_ok());
        assert!(daily_limit(2, Some(now), now, 3).is_ok());
        let first = now - chrono::TimeDelta::hours(20);
        match daily_limit(3, Some(first), now, 3) {
            Err(Error::ImportLimitReached { limit, retry_after }) => {
                assert_eq!(limit, 3);
                assert_eq!(retry_after, 4 * 3600);
            }
            other => panic!("{other:?}"),
        }
        // A limit of 0 refuses every import, and still says when to ask again.
        assert!(matches!(
            daily_limit(0, None, now, 0),
            Err(Error::ImportLimitReached { retry_after, .. }) if retry_after == 24 * 3600
        ));
    }
}
