//! Undo requests lapsing: at their deadline (the deadline worker), or before a seat changes
//! hands (a return or a departure is a barrier, so the request could never be granted).

use super::actions::kind_of;
use super::error::Error;
use super::events::{PlatformEvent, UndoLapse};
use super::undo::Timeline;
use super::undo_commands::{Locked, append_events, timeline};
use super::undo_views::seats16;
use crate::live::Note;
use crate::store::games::{self, GameHead};
use crate::store::undo as store;
use crate::with_rules;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};

/// Appends the lapse of the game's open request (locked, read as `timeline`) for `reason`.
pub(super) async fn lapse(
    conn: &mut PgConnection,
    game: &Locked,
    timeline: &Timeline,
    reason: UndoLapse,
) -> Result<(), Error> {
    let head = &game.head;
    let Some(open) = timeline.open_request() else {
        return Ok(());
    };
    let event = PlatformEvent::UndoLapsed {
        request: open.seq,
        reason,
    };
    let version = append_events(conn, head, &[event]).await?;
    store::close(&mut *conn, head.id).await?;
    crate::live::announce(
        &mut *conn,
        &Note::undo(
            Note::moved(head.id, version, "active", Vec::new(), game.users()),
            open.seq,
            Vec::new(),
            Some("lapsed"),
            game.concerned(i16::from(open.by_seat), &seats16(&open.needs)),
        ),
    )
    .await?;
    Ok(())
}

/// Lapses the game's open request, if there is one, before a seat changes hands (its player
/// returns to it, or leaves the game): both are barriers, so the request could never be
/// granted. Run under the game's row lock, before that event is appended; returns the game's
/// version after the lapse (the head's when nothing was open).
pub async fn lapse_before_seat_change(
    conn: &mut PgConnection,
    head: &GameHead,
) -> Result<i64, Error> {
    let Some(open) = store::open(&mut *conn, head.id).await? else {
        return Ok(head.version);
    };
    let lapsed = lapse_open(conn, head.clone(), open.by_seat, UndoLapse::Seat).await?;
    Ok(head.version + i64::from(lapsed))
}

/// Lapses the request the log of the locked game `head` holds open (asked by `by_seat`) for
/// `reason`; returns whether there was one. A projection that outlived its request (nothing
/// in the log is open) is dropped.
async fn lapse_open(
    conn: &mut PgConnection,
    head: GameHead,
    by_seat: i16,
    reason: UndoLapse,
) -> Result<bool, Error> {
    let seats = games::seats(&mut *conn, head.id).await?;
    let rows = store::lines(&mut *conn, head.id, head.version).await?;
    let game = Locked {
        seat: by_seat,
        head,
        seats,
        rows,
    };
    let kind = kind_of(&game.head)?;
    let timeline = with_rules!(kind, R => timeline::<R>(&game.rows)?);
    if timeline.open_request().is_none() {
        store::close(&mut *conn, game.head.id).await?;
        return Ok(false);
    }
    lapse(conn, &game, &timeline, reason).await?;
    Ok(true)
}

/// Lapses the requests whose deadline has passed (at most `limit`), for the deadline worker;
/// returns how many.
pub async fn lapse_due(pool: &PgPool, now: DateTime<Utc>, limit: i64) -> Result<usize, Error> {
    let due = store::due(pool, now, limit).await?;
    let mut lapsed = 0;
    for game_id in due {
        let mut tx = pool.begin().await?;
        let Some(head) = games::lock_head(&mut tx, game_id).await? else {
            continue;
        };
        let Some(open) = store::open(&mut *tx, game_id).await? else {
            continue;
        };
        if open.deadline_at > now {
            continue;
        }
        if lapse_open(&mut tx, head, open.by_seat, UndoLapse::Deadline).await? {
            lapsed += 1;
        }
        tx.commit().await?;
    }
    Ok(lapsed)
}
