//! The deadline worker: reminders before deadlines, timeouts, the bot playing abandoned seats,
//! rules timers (such as a negotiation deadline), and rematch offers and undo requests whose
//! deadline passed.
//!
//! Every instance may run it. A due row is leased (`leased_until`) with `SKIP LOCKED`, so two
//! workers never act on one clock at once; what a worker then plays goes through the same
//! compare-and-set append as a player's move, so a timeout that races a real move never applies
//! both: whichever is written first wins, and the other writes nothing.

use super::notices::{self, Notice};
use super::play::actions::{self, Context, Origin, Submission, kind_of, read_context};
use super::play::auto::Books;
use super::play::clock::AbandonPolicy;
use super::play::committer::Committer;
use super::play::events::{PlatformEvent, TimeoutPlay};
use super::play::step;
use crate::games::{Actor, BotLevel, GameRng, Rules, Seat};
use crate::store::append::SeatUpdate;
use crate::store::deadlines::{self, DeadlineKind, DueClock};
use crate::store::games::Status;
use crate::store::monitor::DatabaseStatus;
use crate::store::outbox::NewMail;
use crate::store::seats::SeatState;
use crate::with_rules;
use rand::RngExt;
use serde_json::json;
use sqlx::{PgConnection, PgPool};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// How long a worker may take over one clock before another may try again.
const LEASE_SECS: f64 = 60.0;

/// What one pass of the worker did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pass {
    pub reminders: usize,
    pub timeouts: usize,
    pub bot_moves: usize,
    pub timers: usize,
    /// Clocks that were no longer current (the game moved on first).
    pub stale: usize,
    /// Rematch offers whose deadline passed, recorded as expired.
    pub rematch_offers_expired: usize,
    /// Undo requests whose deadline passed, lapsed.
    pub undo_requests_lapsed: usize,
}

/// Runs the worker until the pool closes or `stop` is cancelled; a pass under way is
/// finished first (a move half made would only wait for its lease to expire).
pub async fn run(
    pool: PgPool,
    database: Arc<DatabaseStatus>,
    committer: Committer,
    poll: Duration,
    stop: CancellationToken,
) {
    loop {
        if pool.is_closed() || stop.is_cancelled() {
            return;
        }
        match process_due(&pool, &committer, 50).await {
            // Work found: look again at once, there may be more.
            Ok(pass) if pass != Pass::default() => continue,
            Ok(_) => {}
            Err(error) if pool.is_closed() => {
                tracing::debug!(%error, "deadline worker stops with its pool");
                return;
            }
            Err(error) => {
                crate::store::health::log_worker_failure("deadlines", &error, &pool, &database)
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(poll) => {}
            _ = stop.cancelled() => return,
        }
    }
}

/// Handles up to `limit` due reminders and up to `limit` due clocks; `committer` writes
/// the moves made.
pub async fn process_due(pool: &PgPool, committer: &Committer, limit: i64) -> anyhow::Result<Pass> {
    // What is due is decided by the instance's clock, the one the clocks were armed by.
    let now = committer.clock().now();
    let mut pass = Pass {
        reminders: send_reminders(pool, limit, now).await?,
        rematch_offers_expired: crate::service::social::rematch::expire_lapsed(pool, now, limit)
            .await?,
        undo_requests_lapsed: crate::service::play::undo_lapses::lapse_due(pool, now, limit)
            .await?,
        ..Pass::default()
    };
    let due = deadlines::lease_due(pool, limit, LEASE_SECS, now).await?;
    for DueClock {
        game_id,
        seat,
        kind,
        timer_key,
    } in due
    {
        let mut conn = pool.acquire().await?;
        match handle(
            &mut conn,
            committer,
            game_id,
            seat,
            kind,
            timer_key.as_deref(),
        )
        .await
        {
            Ok(Outcome::Played) => match kind {
                DeadlineKind::Turn => {
                    pass.timeouts += 1;
                    metrics::counter!(crate::telemetry::names::TIMEOUTS_APPLIED).increment(1);
                }
                DeadlineKind::Bot => pass.bot_moves += 1,
                DeadlineKind::Timer => pass.timers += 1,
            },
            Ok(Outcome::Postponed) => pass.stale += 1,
            Ok(Outcome::Stale) => {
                pass.stale += 1;
                // Whatever moved the game on re-armed or removed the clock; if it did not
                // (another seat moved), let it be looked at afresh.
                deadlines::release(&mut conn, game_id, seat).await?;
            }
            Ok(Outcome::Gone) => {
                pass.stale += 1;
                deadlines::remove(&mut conn, game_id, seat).await?;
            }
            // Keep the lease: the clock is tried again when it expires, not in a hot loop.
            Err(error) => tracing::error!(%game_id, seat, error = ?error, "a due clock failed"),
        }
    }
    Ok(pass)
}

enum Outcome {
    /// The policy's move (or the timer's command) was appended.
    Played,
    /// The seat's player is on vacation: the clock starts again when they are back.
    Postponed,
    /// The game moved on between reading and writing; nothing was written.
    Stale,
    /// The clock no longer applies (the seat is not pending, the game is over, the timer is
    /// gone): it is removed.
    Gone,
}

async fn handle(
    conn: &mut PgConnection,
    committer: &Committer,
    game_id: Uuid,
    seat: i16,
    kind: DeadlineKind,
    timer_key: Option<&str>,
) -> anyhow::Result<Outcome> {
    let mut context = read_context(conn, game_id, Uuid::nil(), "").await?;
    if context.head.status() != Status::Active {
        return Ok(Outcome::Gone);
    }
    // Nobody times out on vacation. Starting a vacation moves the clocks that run then; a
    // turn armed in the same instant from an older read is caught here instead.
    if kind == DeadlineKind::Turn
        && let Some(until) = context
            .seat_clocks
            .iter()
            .find(|c| c.seat == seat)
            .and_then(|c| c.vacation_until)
    {
        // The clock starts again when they are back, with the whole allowance.
        deadlines::restart_at(conn, game_id, seat, until).await?;
        return Ok(Outcome::Postponed);
    }
    let game_kind = kind_of(&context.head)?;
    let due = Due {
        seat,
        kind,
        timer_key,
    };
    let applied =
        with_rules!(game_kind, R => play_due::<R>(conn, committer, &mut context, due).await?);
    Ok(match applied {
        None => Outcome::Gone,
        Some(true) => Outcome::Played,
        Some(false) => Outcome::Stale,
    })
}

/// Queues a reminder for every clock 80% used, once per turn.
async fn send_reminders(
    pool: &PgPool,
    limit: i64,
    now: chrono::DateTime<chrono::Utc>,
) -> anyhow::Result<usize> {
    let mut tx = pool.begin().await?;
    let due = deadlines::take_due_reminders(&mut tx, limit, now).await?;
    let notices: Vec<Notice> = due
        .iter()
        .map(|r| {
            Notice::reminder(
                r.user_id,
                r.game_id,
                r.seat,
                r.version,
                json!({"deadline": r.due_at}),
            )
        })
        .collect();
    notices::enqueue(&mut tx, &notices).await?;
    tx.commit().await?;
    Ok(due.len())
}

/// A clock that is due: whose, of which kind, and the key of a rules timer.
#[derive(Clone, Copy)]
struct Due<'a> {
    seat: i16,
    kind: DeadlineKind,
    timer_key: Option<&'a str>,
}

/// Plays what is due in a game of `R`: the rules timer's command, the bot's move for a seat
/// it plays, or the game's policy for a seat whose time ran out (a pass where the rules allow
/// one, else the bot), abandoning the seat after too many timeouts. `None`: nothing is due
/// any more; `Some(false)`: the game moved on first and nothing was written.
async fn play_due<R: Rules>(
    conn: &mut PgConnection,
    committer: &Committer,
    context: &mut Context,
    due: Due<'_>,
) -> anyhow::Result<Option<bool>> {
    let Due {
        seat,
        kind,
        timer_key,
    } = due;
    let control = step::time_control(&context.head);
    // Bots choose with their own randomness, not the game's: their choice is recorded as a
    // command, so verification never needs it.
    let mut bot_rng = GameRng::from_u64(rand::rng().random());
    let state = context.state::<R>(conn).await?;
    let submission = if kind == DeadlineKind::Timer {
        match R::timer(&state) {
            Some(timer) if Some(timer.key.as_str()) == timer_key => {
                Some((Actor::System, timer.command, Vec::new(), Vec::new()))
            }
            _ => None,
        }
    } else if !R::pending(&state).contains(&(seat as Seat)) {
        None
    } else if let Some(written) = play_on_its_own::<R>(committer, context, &state).await? {
        // What the server plays on its own comes first: nobody times out on a move that was
        // forced or ordered (a game from before standing orders may still wait on one).
        return Ok(Some(written));
    } else {
        let clock = context.seat_clocks.iter().find(|c| c.seat == seat).cloned();
        let by_bot = kind == DeadlineKind::Bot || clock.as_ref().is_some_and(|c| c.played_by_bot());
        if by_bot {
            let command = R::bot_command(&state, seat as Seat, BotLevel::Sensible, &mut bot_rng);
            Some((Actor::Seat(seat as Seat), command, Vec::new(), Vec::new()))
        } else {
            let consecutive = clock.as_ref().map(|c| c.timeouts).unwrap_or(0) + 1;
            let (command, played) = match R::pass_command(&state, seat as Seat) {
                Some(pass) => (pass, TimeoutPlay::Pass),
                None => (
                    R::bot_command(&state, seat as Seat, BotLevel::Sensible, &mut bot_rng),
                    TimeoutPlay::Bot,
                ),
            };
            let mut preface = vec![PlatformEvent::TurnTimedOut {
                seat: seat as Seat,
                consecutive,
                played,
            }];
            let mut update = SeatUpdate {
                seat,
                timeouts: Some(consecutive),
                ..SeatUpdate::default()
            };
            if let Some(control) = &control
                && consecutive >= control.abandon_after
            {
                let (seat_state, policy) = match control.on_abandon {
                    AbandonPolicy::Bot => (SeatState::Abandoned, "bot"),
                    AbandonPolicy::Forfeit => (SeatState::Forfeited, "forfeit"),
                };
                preface.push(PlatformEvent::SeatAbandoned {
                    seat: seat as Seat,
                    policy: policy.to_string(),
                });
                update.state = Some(seat_state);
                // From now on the bot plays this seat: plan its next turns that way.
                for c in context.seat_clocks.0.iter_mut().filter(|c| c.seat == seat) {
                    c.state = seat_state;
                }
            }
            Some((Actor::Seat(seat as Seat), command, preface, vec![update]))
        }
    };
    let Some((actor, command, mut preface, seat_updates)) = submission else {
        return Ok(None);
    };
    // An open undo request lapses first (before a timeout's own preface).
    preface.splice(0..0, context.undo_preface());
    let submission = Submission {
        actor,
        command: &command,
        origin: Origin::default(),
        preface,
        seat_updates,
    };
    let written = actions::apply::<R>(committer, context, state, submission).await?;
    Ok(Some(written.is_some()))
}

/// Plays what the server would play on its own in the game now (a forced move, a standing
/// order that fits), if anything: `Some(written)`.
async fn play_on_its_own<R: Rules>(
    committer: &Committer,
    context: &Context,
    state: &R::State,
) -> anyhow::Result<Option<bool>> {
    let books = Books::<R>::read(&context.orders, context.head.seat_count as u8);
    let Ok(decision) = step::settle::<R>(
        context.game(),
        state.clone(),
        books,
        committer.clock().now(),
    )?
    else {
        return Ok(None);
    };
    actions::log_warnings(context.head.id, &decision.warnings);
    let mail: Vec<NewMail> = decision.notices.iter().map(Notice::as_mail).collect();
    let written = committer
        .append(&decision.append(Origin::default(), &mail), &decision.note)
        .await?;
    Ok(Some(written))
}
