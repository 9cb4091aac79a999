//! Reading a game's log: pages of events for a caller, and the export.

use super::Error;
use super::{CommandRecord, EXPORT_FORMAT, EXPORT_FORMAT_VERSION, ExportEvent, ExportHeader};
use crate::games::{Actor, Seat, Viewer};
use crate::service::play::actions::kind_of;
use crate::service::play::events::SeatInfo;
use crate::service::play::log::{EventOut, mark_undone, name_seats, present, viewer_for};
use crate::service::play::table;
use crate::service::play::undo::{Skip, is_undo_event};
use crate::store::events;
use crate::store::games::{self, Status};
use crate::with_rules;
use serde::Serialize;
use sqlx::PgPool;
use std::collections::HashMap;
use utoipa::ToSchema;
use uuid::Uuid;

/// One page of a game's log.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventPage {
    /// Events after `after`, as the caller may see them (hidden ones are left out).
    pub items: Vec<EventOut>,
    /// The game's current version.
    pub version: i64,
    /// Pass as `after` for the next page; `null` when the page reached the current version.
    pub next_after: Option<i64>,
}

/// Who is reading a log.
#[derive(Clone, Copy, Debug)]
pub enum Reader {
    /// A user: their own view (everything once the game is over).
    User(Uuid),
    /// The operator at the command line: the complete log.
    Operator,
}

/// The largest page of events (`limit`).
pub const MAX_PAGE: i64 = 1000;

/// Events with `after < seq <= after + limit`, redacted for `reader`.
///
/// `after` must lie in `0..=version` (a cursor beyond the log is a client's mistake, and
/// paging from it would never reach the end) and `limit` in `1..=MAX_PAGE`; anything else is
/// refused with `invalid_parameter`. Every page that is not the last moves the cursor forward
/// by at least one, so following `next_after` always ends.
pub async fn page(
    pool: &PgPool,
    game_id: Uuid,
    reader: Reader,
    after: i64,
    limit: i64,
) -> Result<EventPage, Error> {
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(Error::LimitOutOfRange {
            limit,
            max: MAX_PAGE,
        });
    }
    let head = readable_head(pool, game_id, reader).await?;
    let viewer = viewer_of(pool, &head, reader).await?;
    page_of(pool, &head, viewer, after, limit).await
}

/// [`page`] of the game `head` for a `viewer` already known to may read it (a live stream
/// looked at the game and its reader in one statement: `table::look`).
pub async fn page_of(
    pool: &PgPool,
    head: &games::GameHead,
    viewer: Viewer,
    after: i64,
    limit: i64,
) -> Result<EventPage, Error> {
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(Error::LimitOutOfRange {
            limit,
            max: MAX_PAGE,
        });
    }
    let game_id = head.id;
    if !(0..=head.version).contains(&after) {
        return Err(Error::AfterOutOfRange {
            after,
            version: head.version,
        });
    }
    // `after <= version` and `limit >= 1`: no overflow below, and `to > after` unless the
    // page is empty because the log ends at `after`.
    let to = after
        .checked_add(limit)
        .map_or(head.version, |end| end.min(head.version));
    let rows = if to > after {
        events::load_presented(pool, game_id, after + 1, to).await?
    } else {
        Vec::new()
    };
    let kind = kind_of(head)?;
    let mut items = with_rules!(kind, R => present::<R>(&rows, viewer)?);
    mark_taken_back(pool, head, &mut items).await?;
    if items.iter().any(|e| e.kind == "kontor.game_started") {
        name_seats(&mut items, &current_names(pool, game_id).await?);
    }
    Ok(EventPage {
        items,
        version: head.version,
        next_after: (to < head.version).then_some(to),
    })
}

/// Marks the events a rewind took back (`EventOut::undone`); one more statement only for a
/// game with undo events (`games.undone_events` > 0).
async fn mark_taken_back(
    pool: &PgPool,
    head: &games::GameHead,
    items: &mut [EventOut],
) -> Result<(), Error> {
    if head.undone_events == 0 || items.is_empty() {
        return Ok(());
    }
    let rewinds = events::rewinds(pool, head.id, head.version).await?;
    let skip = Skip::of(
        rewinds
            .iter()
            .map(|(seq, kind, payload)| (*seq, kind.as_str(), payload)),
    )
    .map_err(anyhow::Error::from)?;
    mark_undone(items, &skip, head.version);
    Ok(())
}

/// The current username of each seated account (see `service::name_seats`).
async fn current_names(pool: &PgPool, game_id: Uuid) -> Result<HashMap<Uuid, String>, Error> {
    Ok(games::seats(pool, game_id)
        .await?
        .into_iter()
        .map(|s| (s.user_id, s.username))
        .collect())
}

/// The head row of a game `reader` may read (see `service::play::table`), else 404.
async fn readable_head(
    pool: &PgPool,
    game_id: Uuid,
    reader: Reader,
) -> Result<games::GameHead, Error> {
    match reader {
        Reader::Operator => games::head(pool, game_id).await?.ok_or(Error::Service(
            crate::service::play::error::Error::GameNotFound,
        )),
        // Who may watch: the table's setting and blocks.
        Reader::User(user) => {
            Ok(table::readable_head(&mut *pool.acquire().await?, game_id, user).await?)
        }
    }
}

async fn viewer_of(pool: &PgPool, head: &games::GameHead, reader: Reader) -> Result<Viewer, Error> {
    Ok(match reader {
        Reader::Operator => Viewer::Omniscient,
        Reader::User(user) => viewer_for(head, user, games::seat_of(pool, head.id, user).await?),
    })
}

/// The export of a game for `reader`.
pub async fn export(
    pool: &PgPool,
    game_id: Uuid,
    reader: Reader,
) -> Result<(ExportHeader, Vec<ExportEvent>), Error> {
    let head = readable_head(pool, game_id, reader).await?;
    let viewer = viewer_of(pool, &head, reader).await?;
    let complete = viewer == Viewer::Omniscient;
    let rows = events::load_presented(pool, game_id, 1, head.version).await?;
    let kind = kind_of(&head)?;
    let mut visible = with_rules!(kind, R => present::<R>(&rows, viewer)?);
    // The raw log, with the events a rewind took back marked (verification ignores it).
    mark_taken_back(pool, &head, &mut visible).await?;
    let mut commands: HashMap<i64, CommandRecord> = HashMap::new();
    if complete {
        let recorded = games::recorded_commands(pool, game_id).await?;
        for (first_seq, seat, action, marker) in recorded {
            let actor = match seat {
                Some(seat) => Actor::Seat(seat as Seat),
                None => Actor::System,
            };
            commands.insert(
                first_seq,
                CommandRecord::new(actor, action, marker.as_ref()),
            );
        }
    }
    let seat_rows = games::seats(pool, game_id).await?;
    let names = seat_rows
        .iter()
        .map(|s| (s.user_id, s.username.clone()))
        .collect();
    name_seats(&mut visible, &names);
    let seats = seat_rows
        .into_iter()
        .map(|s| SeatInfo {
            seat: s.seat as Seat,
            user_id: s.user_id,
            username: s.username,
            bot: false,
        })
        .collect();
    let finished = head.status() == Status::Finished;
    let header = ExportHeader {
        format: EXPORT_FORMAT.to_string(),
        format_version: EXPORT_FORMAT_VERSION,
        game_id,
        kind: head.kind.clone(),
        rules_version: head.rules_version,
        status: head.status().as_str().to_string(),
        seats,
        options: head.options.clone(),
        seed_commitment: head.seed_commitment.clone(),
        nonces: head.nonces.clone(),
        seed: finished.then(|| hex::encode(&head.seed)),
        viewer,
        complete,
        version: head.version,
        sandbox: head.sandbox,
        exported_at: chrono::Utc::now(),
    };
    let events = visible
        .into_iter()
        .map(|event| ExportEvent {
            // A command begins a batch of events; of the undo events, only the lapse of a
            // request by a move does (it is that command's first event).
            command: commands
                .remove(&event.seq)
                .filter(|_| !is_undo_event(&event.kind) || event.kind == "kontor.undo_lapsed"),
            event,
        })
        .collect();
    Ok((header, events))
}
