//! Answers to an undo request (consent, or a decline that ends it) and its withdrawal by the
//! requester, under the game's row lock like every undo command ([`super::undo_commands`]);
//! a retry finds its first answer in the log and gets the same again.

use super::actions::kind_of;
use super::error::Error;
use super::events::{PlatformEvent, UndoLapse};
use super::undo::{Answer, Refusal};
use super::undo_commands::{Locked, append_events, lock, platform, refused, rewind, timeline};
use super::undo_lapses::lapse;
use super::undo_views::{UndoOutcome, UndoRequestOut, UndoStatus, seats16};
use crate::games::{Rules, Seat};
use crate::live::Note;
use crate::store::undo::{self as store, LineRow};
use crate::time::Clock;
use crate::with_rules;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// Answers the open request `request` (`POST /games/{id}/undo/{request}/answer`).
pub async fn answer(
    pool: &PgPool,
    time: &Clock,
    caller: Uuid,
    game_id: Uuid,
    request: i64,
    accept: bool,
) -> Result<UndoOutcome, Error> {
    let mut tx = pool.begin().await?;
    let game = lock(&mut tx, caller, game_id).await?;
    if let Some(outcome) = replay_answer(&game, request, accept)? {
        return Ok(outcome);
    }
    let kind = kind_of(&game.head)?;
    let now = time.now();
    let answered =
        with_rules!(kind, R => answer_in::<R>(&mut tx, &game, request, accept, now).await?);
    tx.commit().await?;
    answered
}

/// The request `request` as the log states it now (`None`: no such request).
fn request_in_log(rows: &[LineRow], request: i64) -> Option<UndoRequestOut> {
    let row = rows.get((request - 1).max(0) as usize)?;
    let Some(PlatformEvent::UndoRequested {
        by_seat,
        at_version,
        to_version,
        needs,
        deadline,
    }) = platform(row)
    else {
        return None;
    };
    let accepted = rows[row.seq as usize..]
        .iter()
        .filter_map(|r| match platform(r) {
            Some(PlatformEvent::UndoAnswered {
                request: answered,
                seat,
                accept: true,
            }) if answered == request => Some(i16::from(seat)),
            _ => None,
        })
        .collect();
    Some(UndoRequestOut {
        seq: request,
        by_seat: i16::from(by_seat),
        at_version,
        to_version,
        needs: seats16(&needs),
        accepted,
        deadline,
    })
}

/// How request `request` ended, if it did, by the log.
fn ending(rows: &[LineRow], request: i64) -> Option<UndoStatus> {
    rows.iter()
        .skip(request.max(0) as usize)
        .find_map(|r| match platform(r)? {
            PlatformEvent::Rewound {
                request: Some(of), ..
            } if of == request => Some(UndoStatus::Rewound),
            PlatformEvent::UndoAnswered {
                request: of,
                accept: false,
                ..
            } if of == request => Some(UndoStatus::Declined),
            PlatformEvent::UndoWithdrawn { request: of, .. } if of == request => {
                Some(UndoStatus::Withdrawn)
            }
            _ => None,
        })
}

/// The same answer again, if the caller's seat gave it already.
fn replay_answer(game: &Locked, request: i64, accept: bool) -> Result<Option<UndoOutcome>, Error> {
    let given = game
        .rows
        .iter()
        .skip(request.max(0) as usize)
        .find_map(|r| match platform(r)? {
            PlatformEvent::UndoAnswered {
                request: of,
                seat,
                accept,
            } if of == request && i16::from(seat) == game.seat => Some(accept),
            _ => None,
        });
    match given {
        None => Ok(None),
        Some(given) if given != accept => Err(Error::UndoNotAsked(
            "you answered this undo request already; answers are final",
        )),
        Some(_) => Ok(Some(UndoOutcome {
            status: ending(&game.rows, request).unwrap_or(UndoStatus::Asked),
            version: game.head.version,
            request: request_in_log(&game.rows, request),
        })),
    }
}

async fn answer_in<R: Rules>(
    conn: &mut PgConnection,
    game: &Locked,
    request: i64,
    accept: bool,
    now: DateTime<Utc>,
) -> Result<Result<UndoOutcome, Error>, Error> {
    let head = &game.head;
    let timeline = timeline::<R>(&game.rows)?;
    let Some(open) = timeline.open_request().filter(|o| o.seq == request) else {
        return Ok(Err(Error::UndoNoRequest(request)));
    };
    let out = UndoRequestOut::from(open);
    if open.deadline <= now {
        // Past its deadline: it lapses now, whatever the answer.
        lapse(conn, game, &timeline, UndoLapse::Deadline).await?;
        return Ok(Err(Error::UndoNoRequest(request)));
    }
    let seat = game.seat as Seat;
    let decided = crate::service::play::undo::answer(&timeline, seat, request, accept).map_err(
        |r| match r {
            Refusal::NoRequest => Error::UndoNoRequest(request),
            other => refused(other),
        },
    )?;
    let answered = PlatformEvent::UndoAnswered {
        request,
        seat,
        accept,
    };
    let outcome = match decided {
        Answer::Declined => {
            let version = append_events(conn, head, &[answered]).await?;
            store::close(&mut *conn, head.id).await?;
            crate::live::announce(
                &mut *conn,
                &Note::undo(
                    Note::moved(head.id, version, "active", Vec::new(), game.users()),
                    request,
                    Vec::new(),
                    Some("declined"),
                    game.concerned(out.by_seat, &out.needs),
                ),
            )
            .await?;
            UndoOutcome {
                status: UndoStatus::Declined,
                version,
                request: Some(out),
            }
        }
        Answer::Accepted { .. } => {
            let version = append_events(conn, head, &[answered]).await?;
            let mut out = out;
            out.accepted.push(game.seat);
            store::set_accepted(&mut *conn, head.id, &out.accepted).await?;
            crate::live::announce(
                &mut *conn,
                &Note::undo(
                    Note::moved(head.id, version, "active", Vec::new(), game.users()),
                    request,
                    Vec::new(),
                    None,
                    Vec::new(),
                ),
            )
            .await?;
            UndoOutcome {
                status: UndoStatus::Asked,
                version,
                request: Some(out),
            }
        }
        Answer::Rewind {
            to_version,
            by_seat,
            request,
        } => {
            // A return or departure since the request is a barrier it cannot cross.
            let (barrier_version, barrier) = timeline.last_barrier();
            if to_version < barrier_version {
                return Ok(Err(Error::UndoBarrier {
                    barrier_version,
                    barrier: barrier.to_string(),
                }));
            }
            let events = [
                answered,
                PlatformEvent::Rewound {
                    from_version: head.version + 1,
                    to_version,
                    by_seat,
                    request: Some(request),
                },
            ];
            let version = rewind::<R>(
                conn,
                game,
                &timeline,
                &events,
                to_version,
                now,
                Some((request, &out.needs)),
            )
            .await?;
            let mut out = out;
            out.accepted.push(game.seat);
            UndoOutcome {
                status: UndoStatus::Rewound,
                version,
                request: Some(out),
            }
        }
    };
    Ok(Ok(outcome))
}

/// The requester withdraws the open request `request` (`DELETE /games/{id}/undo/{request}`).
pub async fn withdraw(
    pool: &PgPool,
    caller: Uuid,
    game_id: Uuid,
    request: i64,
) -> Result<UndoOutcome, Error> {
    let mut tx = pool.begin().await?;
    let game = lock(&mut tx, caller, game_id).await?;
    let head = &game.head;
    // A withdrawal already in the log: the same answer again.
    let withdrawn = game.rows.iter().skip(request.max(0) as usize).any(|r| {
        matches!(platform(r), Some(PlatformEvent::UndoWithdrawn { request: of, by_seat })
            if of == request && i16::from(by_seat) == game.seat)
    });
    if withdrawn {
        return Ok(UndoOutcome {
            status: UndoStatus::Withdrawn,
            version: head.version,
            request: request_in_log(&game.rows, request),
        });
    }
    let open = store::open(&mut *tx, head.id)
        .await?
        .filter(|o| o.request_seq == request)
        .ok_or(Error::UndoNoRequest(request))?;
    if open.by_seat != game.seat {
        return Err(refused(Refusal::NotYourRequest));
    }
    let event = PlatformEvent::UndoWithdrawn {
        request,
        by_seat: game.seat as Seat,
    };
    let version = append_events(&mut tx, head, &[event]).await?;
    store::close(&mut tx, head.id).await?;
    crate::live::announce(
        &mut tx,
        &Note::undo(
            Note::moved(head.id, version, "active", Vec::new(), game.users()),
            request,
            Vec::new(),
            Some("withdrawn"),
            game.concerned(open.by_seat, &open.needs),
        ),
    )
    .await?;
    tx.commit().await?;
    Ok(UndoOutcome {
        status: UndoStatus::Withdrawn,
        version,
        request: Some(UndoRequestOut::from(&open)),
    })
}
