//! Undo through the service: asking, answering, withdrawing, lapsing, and the rewind itself,
//! each written as platform events of the game's log under the game's row lock (like a
//! return to a seat), so an undo and a move never both apply: a move's compare-and-set finds
//! the version moved on, and an undo that waited for the lock finds its `at_version` stale.
//!
//! The pure core ([`super::timeline`], [`super::plan`]) decides; these modules load the log,
//! write what was decided, and keep beside it the projection of the open request
//! (`store::undo`), the clocks, the state cache, the mail and the live notes. This one asks
//! and rewinds, and holds what every undo command shares (locking the game, reading its
//! timeline, appending); answers and withdrawals are in [`super::undo_answers`], lapses in
//! [`super::undo_lapses`], what the API shows in [`super::undo_views`].
//!
//! Decisions where the design is silent:
//! - A retry never applies twice: an undo names the version it was asked at, so a repeat
//!   finds the game moved on by its own first answer, recognises it in the log (the events
//!   right after `at_version` are this seat's rewind or request) and answers the same again.
//!   An answer or a withdrawal already in the log is answered again likewise.
//! - Answers to a request past its deadline that the worker has not lapsed yet lapse it at
//!   once (and are refused as `undo_no_request`).
//! - A seat's return (`kontor.seat_returned`) or departure (`kontor.seat_left`) does not lapse
//!   an open request (the log has no batch a lapse could begin there); both are barriers, so
//!   such a request can no longer be carried out: its last acceptance is refused and it
//!   lapses at its deadline.

use super::actions::kind_of;
use super::auto::{Books, News};
use super::error::Error;
use super::events::PlatformEvent;
use super::lobby::seat_clocks;
use super::undo::{Line, Plan, Policy, Refusal, Timeline};
use super::undo_views::{UndoBody, UndoOutcome, UndoRequestOut, UndoStatus, seats16};
use crate::games::{Actor, Reason, Rules, Seat, Viewer};
use crate::live::Note;
use crate::service::notices::{self, Notice};
use crate::service::play::{clock, step};
use crate::store::games::{self, GameHead, SeatRow, Status};
use crate::store::undo::{self as store, LineRow, OpenRow};
use crate::store::{append, events, orders};
use crate::time::Clock;
use crate::with_rules;
use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::{PgConnection, PgPool};
use std::time::Duration;
use uuid::Uuid;
/// The service's error for a refusal of the core.
pub(super) fn refused(refusal: Refusal) -> Error {
    match refusal {
        Refusal::Disabled => Error::UndoDisabled(
            "moves cannot be taken back in this game: its table allows no undo, or it is not being played",
        ),
        Refusal::NothingToUndo => Error::UndoNothingToUndo,
        Refusal::NotOwnMoves { to_version } => Error::UndoNotOwnMoves { to_version },
        Refusal::Declined { declined_at } => Error::UndoDeclined { declined_at },
        Refusal::Barrier {
            barrier_version,
            barrier,
        } => Error::UndoBarrier {
            barrier_version,
            barrier: barrier.to_string(),
        },
        Refusal::Stale { current_version } => Error::UndoStale {
            current_version,
            sent: current_version,
        },
        Refusal::NeedsConsent { needs } => Error::UndoNeedsConsent {
            seats: seats16(&needs),
        },
        Refusal::RequestOpen { request } => Error::UndoRequestOpen { request },
        Refusal::NoRequest => Error::UndoNoRequest(0),
        Refusal::NotYourRequest => Error::UndoNotYourRequest,
        Refusal::NotAsked => Error::UndoNotAsked(
            "your seat is not asked to answer this undo request, or it answered already",
        ),
        Refusal::Invalid { detail } => Error::InvalidUndo(detail),
        Refusal::NoTarget {
            version,
            why,
            before,
        } => Error::UndoNoTarget {
            version,
            why,
            before,
        },
    }
}

/// The log's lines as the timeline reads them.
fn lines(rows: &[LineRow]) -> Vec<Line<'_>> {
    rows.iter()
        .map(|row| Line {
            seq: row.seq,
            kind: &row.kind,
            payload: &row.payload,
            command: row.begins_command.then_some(match row.command_seat {
                Some(seat) => Actor::Seat(seat as Seat),
                None => Actor::System,
            }),
        })
        .collect()
}

pub(super) fn timeline<R: Rules>(rows: &[LineRow]) -> Result<Timeline, Error> {
    Timeline::of::<R>(&lines(rows))
        .map_err(|e| Error::internal(anyhow::anyhow!("the log does not read for undo: {e}")))
}

pub(super) fn platform(row: &LineRow) -> Option<PlatformEvent> {
    serde_json::from_value(row.payload.clone()).ok()
}

/// A game locked for an undo, with its seats, the caller's seat and its log.
pub(super) struct Locked {
    pub(super) head: GameHead,
    pub(super) seats: Vec<SeatRow>,
    pub(super) seat: i16,
    pub(super) rows: Vec<LineRow>,
}

impl Locked {
    pub(super) fn bots(&self) -> Vec<Seat> {
        self.seats
            .iter()
            .filter(|s| s.state.played_by_bot())
            .map(|s| s.seat as Seat)
            .collect()
    }

    pub(super) fn user_of(&self, seat: i16) -> Option<Uuid> {
        self.seats
            .iter()
            .find(|s| s.seat == seat)
            .map(|s| s.user_id)
    }

    pub(super) fn users(&self) -> Vec<Uuid> {
        self.seats.iter().map(|s| s.user_id).collect()
    }

    /// The requester and the seats asked: whom the end of a request is told.
    pub(super) fn concerned(&self, by_seat: i16, needs: &[i16]) -> Vec<Uuid> {
        std::iter::once(by_seat)
            .chain(needs.iter().copied())
            .filter_map(|seat| self.user_of(seat))
            .collect()
    }
}

/// Locks the game and reads what an undo of `caller` needs: 404 for a game they may not
/// reach, 403 for one they hold no seat in.
pub(super) async fn lock(
    conn: &mut PgConnection,
    caller: Uuid,
    game_id: Uuid,
) -> Result<Locked, Error> {
    let head = games::lock_head(conn, game_id)
        .await?
        .filter(|head| crate::service::play::log::readable_by(head, caller))
        .ok_or(Error::GameNotFound)?;
    let seats = games::seats(&mut *conn, game_id).await?;
    let seat = seats
        .iter()
        .find(|s| s.user_id == caller)
        .map(|s| s.seat)
        .ok_or(Error::NotAPlayer)?;
    let rows = store::lines(&mut *conn, game_id, head.version).await?;
    Ok(Locked {
        head,
        seats,
        seat,
        rows,
    })
}

/// Appends undo events after the game's version (no rewind among them) and moves the head
/// on, counting them among the events that do not count; returns the new version.
pub(super) async fn append_events(
    conn: &mut PgConnection,
    head: &GameHead,
    events: &[PlatformEvent],
) -> Result<i64, Error> {
    let new: Vec<_> = events.iter().map(PlatformEvent::to_new_event).collect();
    events::append(&mut *conn, head.id, head.version + 1, None, &new).await?;
    let version = head.version + new.len() as i64;
    games::set_version_undone(
        &mut *conn,
        head.id,
        version,
        head.undone_events + new.len() as i64,
    )
    .await?;
    Ok(version)
}

/// Asks to take moves back (`POST /games/{id}/undo`): at once when only the caller's own
/// moves are in range (or, under `consent`, only bots' besides), else a request.
pub async fn request(
    pool: &PgPool,
    time: &Clock,
    deadline: Duration,
    caller: Uuid,
    game_id: Uuid,
    body: &UndoBody,
) -> Result<UndoOutcome, Error> {
    let mut tx = pool.begin().await?;
    let game = lock(&mut tx, caller, game_id).await?;
    if let Some(outcome) = replay_request(&game, body) {
        return Ok(outcome);
    }
    let kind = kind_of(&game.head)?;
    let now = time.now();
    let outcome =
        with_rules!(kind, R => request_in::<R>(&mut tx, &game, body, now, deadline).await?);
    tx.commit().await?;
    Ok(outcome)
}

/// The first answer to the same undo, if the log shows one right after `at_version`.
fn replay_request(game: &Locked, body: &UndoBody) -> Option<UndoOutcome> {
    let seat = game.seat;
    let next = game.rows.get(body.at_version.max(0) as usize)?;
    match platform(next)? {
        PlatformEvent::Rewound {
            by_seat,
            to_version,
            request: None,
            ..
        } if i16::from(by_seat) == seat && body.to_version.is_none_or(|t| t == to_version) => {
            Some(UndoOutcome {
                status: UndoStatus::Rewound,
                version: next.seq,
                request: None,
            })
        }
        PlatformEvent::UndoRequested {
            by_seat,
            at_version,
            to_version,
            needs,
            deadline,
        } if i16::from(by_seat) == seat
            && at_version == body.at_version
            && body.to_version.is_none_or(|t| t == to_version) =>
        {
            // The events appended with it (the bots' acceptances, perhaps the rewind).
            let batch: Vec<&LineRow> = game.rows[next.seq as usize - 1..]
                .iter()
                .take_while(|r| r.created_at == next.created_at)
                .collect();
            let accepted: Vec<i16> = batch
                .iter()
                .filter_map(|r| match platform(r) {
                    Some(PlatformEvent::UndoAnswered {
                        seat, accept: true, ..
                    }) => Some(i16::from(seat)),
                    _ => None,
                })
                .collect();
            let rewound = batch.iter().any(|r| r.kind == "kontor.rewound");
            Some(UndoOutcome {
                status: if rewound {
                    UndoStatus::Rewound
                } else {
                    UndoStatus::Asked
                },
                version: batch.last().map_or(next.seq, |r| r.seq),
                request: Some(UndoRequestOut {
                    seq: next.seq,
                    by_seat: seat,
                    at_version,
                    to_version,
                    needs: seats16(&needs),
                    accepted,
                    deadline,
                }),
            })
        }
        _ => None,
    }
}

async fn request_in<R: Rules>(
    conn: &mut PgConnection,
    game: &Locked,
    body: &UndoBody,
    now: DateTime<Utc>,
    deadline: Duration,
) -> Result<UndoOutcome, Error> {
    let head = &game.head;
    let policy = Policy::of(&head.options);
    if head.status() != Status::Active {
        return Err(refused(Refusal::Disabled));
    }
    if body.at_version != head.version {
        return Err(Error::UndoStale {
            current_version: head.version,
            sent: body.at_version,
        });
    }
    let timeline = timeline::<R>(&game.rows)?;
    let by_seat = game.seat as Seat;
    let plan = crate::service::play::undo::plan(
        &timeline,
        policy,
        by_seat,
        body.at_version,
        body.to_version,
        &game.bots(),
    )
    .map_err(refused)?;
    let version = head.version;
    match plan {
        Plan::Rewind { to_version } => {
            let events = vec![PlatformEvent::Rewound {
                from_version: version,
                to_version,
                by_seat,
                request: None,
            }];
            let version =
                rewind::<R>(conn, game, &timeline, &events, to_version, now, None).await?;
            Ok(UndoOutcome {
                status: UndoStatus::Rewound,
                version,
                request: None,
            })
        }
        Plan::Ask {
            to_version,
            needs,
            bots,
        } => {
            let request = version + 1;
            let deadline_at = now
                + chrono::Duration::from_std(deadline)
                    .map_err(|e| Error::internal(anyhow::anyhow!(e)))?;
            let mut events = vec![PlatformEvent::UndoRequested {
                by_seat,
                at_version: version,
                to_version,
                needs: needs.clone(),
                deadline: deadline_at,
            }];
            // A bot-played seat accepts at once (no game is rated yet).
            events.extend(needs.iter().filter(|s| bots.contains(s)).map(|&seat| {
                PlatformEvent::UndoAnswered {
                    request,
                    seat,
                    accept: true,
                }
            }));
            let out = UndoRequestOut {
                seq: request,
                by_seat: game.seat,
                at_version: version,
                to_version,
                needs: seats16(&needs),
                accepted: seats16(&bots),
                deadline: deadline_at,
            };
            if needs.iter().all(|s| bots.contains(s)) {
                events.push(PlatformEvent::Rewound {
                    from_version: version + events.len() as i64,
                    to_version,
                    by_seat,
                    request: Some(request),
                });
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
                return Ok(UndoOutcome {
                    status: UndoStatus::Rewound,
                    version,
                    request: Some(out),
                });
            }
            let version = append_events(conn, head, &events).await?;
            store::insert(
                &mut *conn,
                &OpenRow {
                    game_id: head.id,
                    request_seq: request,
                    by_seat: game.seat,
                    at_version: head.version,
                    to_version,
                    needs: out.needs.clone(),
                    accepted: out.accepted.clone(),
                    deadline_at,
                },
            )
            .await?;
            // Mail to the seats asked (never the moves themselves: only how many).
            let by = game
                .seats
                .iter()
                .find(|s| s.seat == game.seat)
                .map(|s| crate::words::player_name(&s.username, s.display_name.as_deref()))
                .unwrap_or_default();
            let range: Vec<&crate::service::play::undo::Batch> = timeline
                .effective_batches()
                .filter(|b| b.last > to_version && b.seat().is_some())
                .collect();
            let asked: Vec<i16> = out
                .needs
                .iter()
                .copied()
                .filter(|s| !out.accepted.contains(s))
                .collect();
            let notices: Vec<Notice> = asked
                .iter()
                .filter_map(|&seat| {
                    let user = game.user_of(seat)?;
                    let yours = range
                        .iter()
                        .filter(|b| b.seat() == Some(seat as Seat))
                        .count();
                    Some(Notice::undo_requested(
                        user,
                        head.id,
                        request,
                        json!({
                            "by": by, "moves": range.len(), "yours": yours,
                            "to_version": to_version, "at_version": head.version,
                            "deadline": deadline_at,
                        }),
                    ))
                })
                .collect();
            notices::enqueue(&mut *conn, &notices).await?;
            let note = Note::undo(
                Note::moved(head.id, version, "active", Vec::new(), game.users()),
                request,
                asked.iter().filter_map(|&s| game.user_of(s)).collect(),
                None,
                Vec::new(),
            );
            crate::live::announce(&mut *conn, &note).await?;
            Ok(UndoOutcome {
                status: UndoStatus::Asked,
                version,
                request: Some(out),
            })
        }
    }
}

/// Appends `events` (ending with the `kontor.rewound` back to `to_version`) and sets the game
/// as it was there: its state cache and a snapshot at the rewind's version, the pending seats
/// and their clocks (a fresh turn for each seat whose turn begins again, from now; banks are
/// not refunded; a rules timer armed anew), "your turn" mail, the live note, and the request
/// (`request`: its number and needs) closed. Returns the new version.
pub(super) async fn rewind<R: Rules>(
    conn: &mut PgConnection,
    game: &Locked,
    timeline: &Timeline,
    events: &[PlatformEvent],
    to_version: i64,
    now: DateTime<Utc>,
    request: Option<(i64, &[i16])>,
) -> Result<i64, Error> {
    let head = &game.head;
    let lines = lines(&game.rows);
    // The state at the target: the fold of the effective rules events up to it.
    let mut state = R::State::default();
    for line in timeline
        .effective_rules(&lines)
        .into_iter()
        .filter(|l| l.seq <= to_version)
    {
        let event: R::Event = serde_json::from_value(line.payload.clone()).map_err(|e| {
            Error::internal(anyhow::anyhow!("event {} does not decode: {e}", line.seq))
        })?;
        R::evolve(&mut state, &event);
    }
    let version = head.version + events.len() as i64;
    // Besides the undo events themselves, every effective event after the target.
    let taken_back = (to_version + 1..=head.version)
        .filter(|&seq| timeline.effective(seq))
        .count() as i64;
    let undone_events = timeline.undone_count() + events.len() as i64 + taken_back;
    let new: Vec<_> = events.iter().map(PlatformEvent::to_new_event).collect();
    events::append(&mut *conn, head.id, head.version + 1, None, &new).await?;
    let pending: Vec<i16> = R::pending(&state).into_iter().map(i16::from).collect();
    store::rewind_head(&mut *conn, head.id, version, &pending, undone_events, now).await?;
    events::save_snapshot(
        &mut *conn,
        head.id,
        version,
        head.rules_version,
        &serde_json::to_string(&state)?,
    )
    .await?;
    let clocks = seat_clocks(&mut *conn, head.id).await?;
    let timer = R::timer(&state);
    // The standing orders after the rewind (see `RULES.md`, "Standing orders and forced
    // moves"), and what the server then plays on its own (a forced move taken back is
    // forced again), written with the rewind: the clocks and the mail are those after it.
    let rows = orders::of_game(&mut *conn, head.id).await?;
    let mut books = Books::<R>::read(&rows, head.seat_count as u8);
    review_orders::<R>(
        &mut books, &state, &game.rows, timeline, to_version, version,
    );
    let after = GameHead {
        version,
        undone_events,
        ..head.clone()
    };
    let settled = step::settle::<R>(
        step::Game {
            head: &after,
            seats: &clocks,
            armed_timer: None,
            orders: &[],
            orders_revision: None,
        },
        state,
        books,
        now,
    )?;
    let mut reached = version;
    let moved = match settled {
        Ok(mut decision) => {
            super::actions::log_warnings(head.id, &decision.warnings);
            if R::timer(&decision.state).is_none() {
                decision.plan.disarm.push(clock::TIMER_SEAT);
            }
            let mail: Vec<crate::store::outbox::NewMail> =
                decision.notices.iter().map(Notice::as_mail).collect();
            let written = append::write_rows(
                &mut *conn,
                &append::Rows::of(&decision.append(Default::default(), &mail))?,
                crate::service::notices::queue::routes(),
            )
            .await?;
            if written.is_empty() {
                return Err(Error::internal(anyhow::anyhow!(
                    "a locked game moved on while it was rewound"
                )));
            }
            orders::bump_revision(&mut *conn, head.id).await?;
            reached = decision.version;
            decision.note
        }
        Err(rows) => {
            if !rows.is_empty() {
                orders::save(&mut *conn, head.id, &rows, now).await?;
            }
            // The clocks, as after a step of the platform's own.
            let mut plan = clock::plan(
                step::time_control(head).as_ref(),
                &clocks,
                &head.pending_seats,
                &pending,
                None,
                timer.as_ref().map(|t| (t.key.as_str(), t.after_secs)),
                None,
                now,
            );
            if timer.is_none() {
                plan.disarm.push(clock::TIMER_SEAT);
            }
            append::arm(&mut *conn, head.id, plan.clocks()).await?;
            let turns = step::turns_begun(head.id, version, &plan, &clocks);
            notices::enqueue(&mut *conn, &turns.notices).await?;
            let mut moved = Note::moved(head.id, version, "active", turns.users, game.users());
            moved.orders = rows.iter().map(|r| r.user_id).collect();
            moved
        }
    };
    let note = match request {
        Some((seq, needs)) => {
            store::close(&mut *conn, head.id).await?;
            let by_seat = events
                .iter()
                .find_map(|e| match e {
                    PlatformEvent::Rewound { by_seat, .. } => Some(i16::from(*by_seat)),
                    _ => None,
                })
                .unwrap_or(game.seat);
            Note::undo(
                moved,
                seq,
                Vec::new(),
                Some("rewound"),
                game.concerned(by_seat, needs),
            )
        }
        None => moved,
    };
    crate::live::announce(&mut *conn, &note).await?;
    Ok(reached)
}

/// The standing orders after a rewind to `to_version` of the log `rows` (whose effective
/// events `timeline` tells), in the position `state` it restores, at `version`: the seats
/// whose own moves it takes back (played by hand or by an order; a forced move was nobody's
/// choice) lose theirs (`undone`): the position they were set for is gone. The others' stand
/// if they still pass the game's check on the seat's view (else `invalid_now`).
fn review_orders<R: Rules>(
    books: &mut Books<R>,
    state: &R::State,
    rows: &[LineRow],
    timeline: &Timeline,
    to_version: i64,
    version: i64,
) {
    let taken: Vec<Seat> = rows
        .iter()
        .filter(|r| r.seq > to_version && r.begins_command && timeline.effective(r.seq))
        .filter(|r| r.command_auto.as_deref() != Some("forced"))
        .filter_map(|r| r.command_seat.map(|s| s as Seat))
        .collect();
    for seat in 0..books.book.seats.len() as Seat {
        let ids = books.book.ids_of(seat).to_vec();
        if ids.is_empty() {
            continue;
        }
        let view = R::view(state, Viewer::Seat(seat));
        for id in ids {
            let index = books.book.ids_of(seat).iter().position(|&i| i == id);
            let Some(order) = index.map(|i| books.book.of(seat)[i].clone()) else {
                continue;
            };
            let reason = if taken.contains(&seat) {
                Some(Reason::new("undone"))
            } else {
                R::check_order(&view, seat, &order).err().map(|refusal| {
                    Reason::new("invalid_now")
                        .with("rule", refusal.code)
                        .with("message", &refusal.message)
                })
            };
            if let Some(reason) = reason {
                books.book.remove(seat, id);
                books.tell(seat, News::dropped(version, id, &order, reason));
            }
        }
    }
}
