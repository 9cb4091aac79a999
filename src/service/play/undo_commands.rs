//! Undo through the service: asking, answering, withdrawing, lapsing, and the rewind itself,
//! each written as platform events of the game's log under the game's row lock (like a
//! return to a seat), so an undo and a move never both apply: a move's compare-and-set finds
//! the version moved on, and an undo that waited for the lock finds its `at_version` stale.
//!
//! The pure core ([`super::timeline`], [`super::plan`]) decides; this module loads the log,
//! writes what was decided, and keeps beside it the projection of the open request
//! (`store::undo`), the clocks, the state cache, the mail and the live notes.
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
use super::auto::{Books, News, NewsKind};
use super::error::Error;
use super::events::{PlatformEvent, UndoLapse};
use super::lobby::seat_clocks;
use super::undo::{Answer, Line, Plan, Policy, Refusal, Timeline};
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
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::{PgConnection, PgPool};
use std::time::Duration;
use utoipa::ToSchema;
use uuid::Uuid;

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
#[schema(example = json!({"policy": "consent", "request": null, "can_undo_to": 38, "needs": [2]}))]
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
}

fn seats16(seats: &[Seat]) -> Vec<i16> {
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

/// The service's error for a refusal of the core.
fn refused(refusal: Refusal) -> Error {
    match refusal {
        Refusal::Disabled => Error::UndoDisabled(
            "moves cannot be taken back in this game: its table allows no undo, or it is not being played",
        ),
        Refusal::NothingToUndo => Error::UndoNothingToUndo,
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

fn timeline<R: Rules>(rows: &[LineRow]) -> Result<Timeline, Error> {
    Timeline::of::<R>(&lines(rows))
        .map_err(|e| Error::internal(anyhow::anyhow!("the log does not read for undo: {e}")))
}

fn platform(row: &LineRow) -> Option<PlatformEvent> {
    serde_json::from_value(row.payload.clone()).ok()
}

/// A game locked for an undo, with its seats, the caller's seat and its log.
struct Locked {
    head: GameHead,
    seats: Vec<SeatRow>,
    seat: i16,
    rows: Vec<LineRow>,
}

impl Locked {
    fn bots(&self) -> Vec<Seat> {
        self.seats
            .iter()
            .filter(|s| s.state.played_by_bot())
            .map(|s| s.seat as Seat)
            .collect()
    }

    fn user_of(&self, seat: i16) -> Option<Uuid> {
        self.seats
            .iter()
            .find(|s| s.seat == seat)
            .map(|s| s.user_id)
    }

    fn users(&self) -> Vec<Uuid> {
        self.seats.iter().map(|s| s.user_id).collect()
    }

    /// The requester and the seats asked: whom the end of a request is told.
    fn concerned(&self, by_seat: i16, needs: &[i16]) -> Vec<Uuid> {
        std::iter::once(by_seat)
            .chain(needs.iter().copied())
            .filter_map(|seat| self.user_of(seat))
            .collect()
    }
}

/// Locks the game and reads what an undo of `caller` needs: 404 for a game they may not
/// reach, 403 for one they hold no seat in.
async fn lock(conn: &mut PgConnection, caller: Uuid, game_id: Uuid) -> Result<Locked, Error> {
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
async fn append_events(
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
async fn rewind<R: Rules>(
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
    events::save_state(
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
            let mail: Vec<append::Mail> = decision.notices.iter().map(Notice::as_mail).collect();
            let written = append::write_rows(
                &mut *conn,
                &append::Rows::of(&decision.append(Default::default(), &mail))?,
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
                books.tell(
                    seat,
                    News {
                        version,
                        kind: NewsKind::Dropped,
                        command: None,
                        order_id: Some(id),
                        order: serde_json::to_value(&order).ok(),
                        reason: Some(reason),
                    },
                );
            }
        }
    }
}

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

/// Appends the lapse of the game's open request (locked, read as `timeline`) for `reason`.
async fn lapse(
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
    let planned = with_rules!(kind, R => {
        let timeline = timeline::<R>(rows)?;
        crate::service::play::undo::plan(&timeline, policy, seat as Seat, head.version, None, &bots)
    });
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
