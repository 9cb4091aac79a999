//! Playing: a seat's view of a game and the submission of actions.

use super::Error;
use super::cache::ContextCache;
use super::clock::{self, SeatClock, TimeControl};
use super::committer::Committer;
use super::lobby::GameSummary;
use super::{EventOut, PlatformEvent, new_event, present, readable_by, state_at, viewer_for};
use crate::games::rng::GameRng;
use crate::games::{Actor, GameKind, Outcome, Rules, Seat, Viewer};
use crate::notify::Notice;
use crate::store::append::{Append, CommandRecord, Mail, SeatUpdate};
use crate::store::events::{self, NewEvent};
use crate::store::games::{self, GameHead, Status};
use crate::store::seats::SeatState;
use crate::with_rules;
use actix_web::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use sqlx::pool::PoolConnection;
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool, Postgres};
use std::sync::Arc;
use utoipa::ToSchema;
use uuid::Uuid;

/// A game as one caller sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameDetail {
    #[serde(flatten)]
    pub summary: GameSummary,
    /// The version this view shows (the current one unless `at` was given).
    pub at_version: i64,
    /// The position as the caller may see it (the rules engine's view), `null` before the start.
    #[schema(value_type = Option<Object>)]
    pub view: Option<Value>,
    /// What the caller may do now (the current version only); `null` if they do not play.
    #[schema(value_type = Option<Object>)]
    pub legal: Option<Value>,
    /// The seed, hex, once the game has ended (before: only its commitment is public).
    pub seed: Option<String>,
}

pub fn kind_of(head: &GameHead) -> Result<GameKind, Error> {
    GameKind::parse(&head.kind)
        .ok_or_else(|| Error::internal(anyhow::anyhow!("unregistered kind {}", head.kind)))
}

/// The caller's view of a game, now or at version `at`.
pub async fn detail(
    pool: &PgPool,
    caller: Uuid,
    game_id: Uuid,
    at: Option<i64>,
) -> Result<GameDetail, Error> {
    let mut conn = pool.acquire().await?;
    let head = games::head(&mut *conn, game_id)
        .await?
        .filter(|head| readable_by(head, caller))
        .ok_or(Error::GameNotFound)?;
    let seats = games::seats(&mut *conn, game_id).await?;
    let summary = GameSummary::new(&head, &seats, caller);
    let viewer = viewer_for(&head, caller, summary.your_seat);
    let at_version = match at {
        None => head.version,
        Some(v) if (0..=head.version).contains(&v) => v,
        Some(v) => {
            return Err(Error::InvalidParameter(format!(
                "at must be between 0 and the game's version {}, not {v}",
                head.version
            )));
        }
    };
    let kind = kind_of(&head)?;
    let (view, legal) = if matches!(head.status(), Status::Open | Status::Cancelled)
        || at_version == 0
    {
        (None, None)
    } else {
        with_rules!(kind, R => {
            let state = state_at::<R>(&mut conn, &head, at_version).await?;
            let view = serde_json::to_value(R::view(&state, viewer)).map_err(anyhow::Error::from)?;
            let legal = match (summary.your_seat, at_version == head.version) {
                (Some(seat), true) if head.status() == Status::Active => Some(
                    serde_json::to_value(R::legal(&state, seat as Seat)).map_err(anyhow::Error::from)?,
                ),
                _ => None,
            };
            (Some(view), legal)
        })
    };
    let seed = (head.status() == Status::Finished).then(|| hex::encode(&head.seed));
    Ok(GameDetail {
        summary,
        at_version,
        view,
        legal,
        seed,
    })
}

/// The game's current version, for a caller who may read it (else `game_not_found`): what an
/// action with `If-Match: *` (or a list of tags) is checked against.
pub async fn current_version(pool: &PgPool, caller: Uuid, game_id: Uuid) -> Result<i64, Error> {
    let mut conn = pool.acquire().await?;
    let head = games::head(&mut *conn, game_id)
        .await?
        .filter(|head| readable_by(head, caller))
        .ok_or(Error::GameNotFound)?;
    Ok(head.version)
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"version": 12, "action": {"type": "pass"}}))]
pub struct ActionRequest {
    /// The game version the client saw (or send it as `If-Match`).
    pub version: Option<i64>,
    /// The seat you act for; optional (a user holds one seat per game).
    pub seat: Option<i16>,
    /// The action, as the game defines it (see each game's command schema).
    #[schema(value_type = Object)]
    pub action: Value,
}

/// The answer to an accepted action; a retried request gets the same answer again.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"version": 14, "status": "active", "pending": [3], "events": [
    {"seq": 13, "type": "action_taken", "actor": 2, "at": "2026-11-29T12:00:00Z", "data": {"type": "action_taken", "seat": 2, "action": "pass"}}
]}))]
pub struct ActionResult {
    /// The game's version after the action.
    pub version: i64,
    /// `active`, or `finished` if this action ended the game.
    pub status: String,
    /// Seats that must act now.
    pub pending: Vec<i16>,
    /// The events the action caused, as the caller may see them.
    pub events: Vec<EventOut>,
}

/// Why an action submission was answered from the store rather than decided.
pub enum Submitted {
    Applied(ActionResult),
    /// The stored answer, as the JSON text first sent.
    Replayed(StatusCode, String),
}

/// Everything the command service reads, in one statement (one consistent snapshot).
#[derive(Clone, sqlx::FromRow)]
pub struct Context {
    #[sqlx(flatten)]
    pub head: GameHead,
    /// The seats with their clocks and states.
    pub seat_clocks: Json<Vec<SeatClock>>,
    /// The key of the armed rules timer, if any.
    pub armed_timer: Option<String>,
    /// The state cache's version and JSON text, if it is at the head's version or before.
    pub cached_version: Option<i64>,
    pub cached_state: Option<String>,
    stored_hash: Option<Vec<u8>>,
    stored_status: Option<i16>,
    stored_response: Option<String>,
}

impl Context {
    /// The seat `user` holds, if any.
    pub fn seat_of(&self, user: Uuid) -> Option<i16> {
        self.seat_clocks
            .iter()
            .find(|c| c.user_id == user)
            .map(|c| c.seat)
    }

    /// The context after an append this instance wrote: what the next command on the game
    /// would read (see `service::cache`).
    fn after(
        &self,
        version: i64,
        at: chrono::DateTime<chrono::Utc>,
        pending: &[i16],
        plan: &clock::Plan,
        seats: &[SeatUpdate],
    ) -> Self {
        let mut next = self.clone();
        next.head.version = version;
        if next.head.pending_seats != pending {
            next.head.turn_started_at = Some(at);
        }
        next.head.pending_seats = pending.to_vec();
        next.cached_version = None;
        next.cached_state = None;
        next.stored_hash = None;
        next.stored_status = None;
        next.stored_response = None;
        for clock in next.seat_clocks.0.iter_mut() {
            if plan.disarm.contains(&clock.seat) {
                clock.turn_started_at = None;
            }
            if let Some(armed) = plan.arm.iter().find(|d| d.seat == clock.seat) {
                clock.turn_started_at = Some(armed.turn_started_at);
            }
            if let Some(update) = seats.iter().find(|u| u.seat == clock.seat) {
                clock.bank_secs = update.bank_secs.or(clock.bank_secs);
                clock.timeouts = update.timeouts.unwrap_or(clock.timeouts);
                if let Some(state) = update.state {
                    clock.state = state;
                }
            }
        }
        if plan.disarm.contains(&clock::TIMER_SEAT) {
            next.armed_timer = None;
        }
        if let Some(timer) = plan.arm.iter().find(|d| d.seat == clock::TIMER_SEAT) {
            next.armed_timer = timer.timer_key.clone();
        }
        next
    }

    /// The current state: the cache and the events after it, else the folded log.
    pub async fn state<R: Rules>(&self, conn: &mut PgConnection) -> anyhow::Result<R::State> {
        let cached = self.cached_version.zip(self.cached_state.as_deref());
        super::state_from::<R>(conn, self.head.id, self.head.version, cached).await
    }
}

/// Reads a game for a command of `caller` with `idempotency_key` (`Uuid::nil()` and `""` for
/// the platform's own commands).
pub async fn read_context(
    conn: &mut PgConnection,
    game_id: Uuid,
    caller: Uuid,
    idempotency_key: &str,
) -> Result<Context, Error> {
    games::read_for_command(conn, game_id, caller, idempotency_key)
        .await?
        .ok_or(Error::GameNotFound)
}

/// An action as a client submitted it.
pub struct Attempt<'a> {
    pub caller: Uuid,
    pub game_id: Uuid,
    pub idempotency_key: &'a str,
    /// The version the client saw.
    pub expected_version: i64,
    pub request: &'a ActionRequest,
}

/// Applies one action in at most two statements: one read (head, seats and clocks, a stored
/// answer for the key, the state cache) — skipped when this instance's own last write left the
/// game at the version the client sent (see `service::cache`) — then the rules engine decides,
/// then one write (shared with other games' appends, see `service::committer`) that appends
/// only if the game is still at the version decided on (compare-and-set on the head row). A
/// write that loses the race writes nothing; the caller then gets the stored answer (same key)
/// or 409. The primary key `(game_id, seq)` is the backstop.
pub async fn submit(
    pool: &PgPool,
    cache: &ContextCache,
    committer: &Committer,
    attempt: Attempt<'_>,
) -> Result<Submitted, Error> {
    let Attempt {
        caller,
        game_id,
        idempotency_key,
        expected_version,
        request,
    } = attempt;
    let request_hash = Sha256::digest(
        serde_json::to_vec(&(expected_version, request.seat, &request.action)).expect("json"),
    )
    .to_vec();
    // A connection for reading, acquired when first needed and given back before the append,
    // which the committer writes with its own (never wait for a connection while holding one).
    let mut conn = None;
    let (context, cached_state) = match cache.get(game_id, expected_version) {
        Some((context, state)) => (context, Some(state)),
        None => {
            let context = read_context(
                connection(pool, &mut conn).await?,
                game_id,
                caller,
                idempotency_key,
            )
            .await?;
            if let Some(replayed) = stored_answer(&context, &request_hash)? {
                return Ok(replayed);
            }
            (Arc::new(context), None)
        }
    };
    let head = &context.head;
    if !readable_by(head, caller) {
        return Err(Error::GameNotFound);
    }
    let seat = context.seat_of(caller).ok_or(Error::NotAPlayer)?;
    if let Some(requested) = request.seat
        && requested != seat
    {
        return Err(Error::NotYourSeat {
            held: seat,
            requested,
        });
    }
    match context
        .seat_clocks
        .iter()
        .find(|c| c.seat == seat)
        .map(|c| c.state)
    {
        Some(SeatState::Forfeited) => {
            return Err(Error::SeatForfeited);
        }
        Some(SeatState::Abandoned) => {
            return Err(Error::SeatAbandoned);
        }
        Some(SeatState::Active) | None => {}
    }
    if head.status() != Status::Active {
        return Err(Error::GameNotActive {
            status: head.status(),
        });
    }
    if expected_version != head.version {
        return Err(Error::VersionConflict {
            current: head.version,
            sent: expected_version,
        });
    }
    let kind = kind_of(head)?;
    let origin = Origin {
        user_id: Some(caller),
        idempotency_key: Some(idempotency_key),
        request_hash: Some(&request_hash),
    };
    let applied = with_rules!(kind, R => {
        let command: <R as Rules>::Command = serde_json::from_value(request.action.clone()).map_err(|e| {
            Error::InvalidCommand { kind: R::KIND, reason: e.to_string() }
        })?;
        let state = match cached_state.as_ref().and_then(|s| s.downcast_ref::<<R as Rules>::State>()) {
            Some(state) => state.clone(),
            None => context.state::<R>(connection(pool, &mut conn).await?).await?,
        };
        let submission = Submission {
            actor: Actor::Seat(seat as Seat),
            command: &command,
            origin,
            preface: Vec::new(),
            // A player who moves is no longer timing out.
            seat_updates: context
                .seat_clocks
                .iter()
                .filter(|c| c.seat == seat && c.timeouts > 0)
                .map(|_| SeatUpdate { seat, timeouts: Some(0), ..SeatUpdate::default() })
                .collect(),
        };
        // The committer writes with its own connections: give this one back first.
        drop(conn.take());
        apply::<R>(committer, &context, state, submission).await?.map(|applied| {
            if applied.result.status == Status::Active.as_str() {
                cache.put(game_id, applied.context, applied.state);
            } else {
                cache.forget(game_id);
            }
            applied.result
        })
    });
    match applied {
        Some(result) => Ok(Submitted::Applied(result)),
        // Someone else moved the game on first: perhaps a retry of this very request (or the
        // cached copy was old).
        None => {
            cache.forget(game_id);
            let now = read_context(
                connection(pool, &mut conn).await?,
                game_id,
                caller,
                idempotency_key,
            )
            .await?;
            match stored_answer(&now, &request_hash)? {
                Some(replayed) => Ok(replayed),
                None => Err(Error::VersionConflict {
                    current: now.head.version,
                    sent: expected_version,
                }),
            }
        }
    }
}

/// The submission's reading connection, acquired when first needed.
async fn connection<'c>(
    pool: &PgPool,
    slot: &'c mut Option<PoolConnection<Postgres>>,
) -> Result<&'c mut PgConnection, Error> {
    if slot.is_none() {
        *slot = Some(pool.acquire().await?);
    }
    Ok(slot.as_mut().expect("acquired above"))
}

/// The stored answer to an earlier request with the same key, if there is one.
fn stored_answer(context: &Context, request_hash: &[u8]) -> Result<Option<Submitted>, Error> {
    let (Some(hash), Some(status), Some(response)) = (
        &context.stored_hash,
        context.stored_status,
        &context.stored_response,
    ) else {
        return Ok(None);
    };
    if hash != request_hash {
        return Err(Error::IdempotencyKeyReused);
    }
    let status = StatusCode::from_u16(status as u16).unwrap_or(StatusCode::OK);
    Ok(Some(Submitted::Replayed(status, response.clone())))
}

/// Who submitted a command, for the command record.
#[derive(Clone, Copy, Default)]
pub struct Origin<'a> {
    pub user_id: Option<Uuid>,
    pub idempotency_key: Option<&'a str>,
    pub request_hash: Option<&'a [u8]>,
}

/// What an append wrote: the answer, and what the game now is.
pub struct Applied<S> {
    pub result: ActionResult,
    pub context: Context,
    pub state: S,
}

/// One command to decide and append.
pub struct Submission<'a, C> {
    pub actor: Actor,
    pub command: &'a C,
    pub origin: Origin<'a>,
    /// Platform events recorded before the rules' events (e.g. that a seat timed out).
    pub preface: Vec<PlatformEvent>,
    /// Changes to seat rows besides the clocks' (timeouts, abandonment).
    pub seat_updates: Vec<SeatUpdate>,
}

/// Decides a submission on an active game read as `context`, whose state is `state`, and
/// appends the outcome in one statement (see `store::append`): only if the game is still at
/// the version read, by `committer`, which also announces it to live streams. `Ok(None)`: the game moved on meanwhile and nothing was written. Used for
/// players' actions and for the platform's own (timeouts, bots, rules timers).
pub async fn apply<R: Rules>(
    committer: &Committer,
    context: &Context,
    mut state: R::State,
    submission: Submission<'_, R::Command>,
) -> Result<Option<Applied<R::State>>, Error> {
    let head = &context.head;
    let Submission {
        actor,
        command,
        origin,
        preface,
        mut seat_updates,
    } = submission;
    let nonces = head.nonces.clone().unwrap_or_default();
    let first_seq = head.version + 1;
    let mut rng = GameRng::for_step(&head.seed_bytes(), &nonces, first_seq as u64);
    let decided = R::decide(&state, actor, command, &mut rng).map_err(Error::Rule)?;
    let seats = head.seat_count as u8;
    let actor_seat = match actor {
        Actor::Seat(seat) => Some(seat),
        Actor::System => None,
    };
    let mut new_events: Vec<NewEvent> = preface.iter().map(PlatformEvent::to_new_event).collect();
    // The states to keep as snapshots, at each multiple of SNAPSHOT_EVERY the events pass (the
    // platform's events leave the rules' state as it is), so that every past version folds
    // from a snapshot fewer than SNAPSHOT_EVERY versions below it.
    let decided_from = first_seq + new_events.len() as i64;
    let mut snapshots: Vec<(i64, R::State)> =
        events::snapshot_versions(head.version, decided_from - 1, false)
            .into_iter()
            .map(|v| (v, state.clone()))
            .collect();
    for (i, event) in decided.iter().enumerate() {
        R::evolve(&mut state, event);
        new_events.push(new_event::<R>(event, actor_seat, seats));
        let seq = decided_from + i as i64;
        if seq % events::SNAPSHOT_EVERY == 0 {
            snapshots.push((seq, state.clone()));
        }
    }
    let rules_events_end = first_seq + new_events.len() as i64 - 1;
    let mut outcome = R::outcome(&state);
    if let Some(outcome) = &mut outcome {
        let forfeited: Vec<Seat> = context
            .seat_clocks
            .iter()
            .filter(|s| s.state == SeatState::Forfeited)
            .map(|s| s.seat as Seat)
            .collect();
        rank_forfeits_last(outcome, &forfeited);
        new_events.push(
            PlatformEvent::GameEnded {
                outcome: outcome.clone(),
                seed: hex::encode(&head.seed),
            }
            .to_new_event(),
        );
    }
    let version = head.version + new_events.len() as i64;
    let pending: Vec<i16> = R::pending(&state).into_iter().map(i16::from).collect();
    let status = if outcome.is_some() {
        Status::Finished
    } else {
        Status::Active
    };
    // After the rules' events (the end of the game), and the last state of a finished game.
    for v in events::snapshot_versions(rules_events_end, version, status == Status::Finished) {
        snapshots.push((v, state.clone()));
    }
    let now = events::now_micros();
    let control: Option<TimeControl> = head
        .time_control
        .clone()
        .and_then(|c| serde_json::from_value(c).ok());
    let timer = R::timer(&state);
    let plan = clock::plan(
        control.as_ref(),
        &context.seat_clocks,
        &head.pending_seats,
        &pending,
        actor_seat.map(i16::from),
        timer.as_ref().map(|t| (t.key.as_str(), t.after_secs)),
        context.armed_timer.as_deref(),
        now,
    );
    for &(seat, bank) in &plan.banks {
        match seat_updates.iter_mut().find(|u| u.seat == seat) {
            Some(update) => update.bank_secs = Some(bank),
            None => seat_updates.push(SeatUpdate {
                seat,
                bank_secs: Some(bank),
                ..SeatUpdate::default()
            }),
        }
    }
    // The answer shows the new events as the acting seat may see them (everything once the
    // game is over).
    let viewer = match (status, actor_seat) {
        (Status::Finished, _) => Viewer::Omniscient,
        (_, Some(seat)) => Viewer::Seat(seat),
        (_, None) => Viewer::Spectator,
    };
    let rows = events::rows_of(&new_events, first_seq, now);
    let result = ActionResult {
        version,
        status: status.as_str().to_string(),
        pending: pending.clone(),
        events: present::<R>(&rows, viewer)?,
    };
    let user_of = |seat: i16| {
        context
            .seat_clocks
            .iter()
            .find(|s| s.seat == seat)
            .map(|s| s.user_id)
    };
    let live = json!({
        "game_id": head.id,
        "version": version,
        "status": status.as_str(),
        "your_turn": plan.new_turns.iter().filter_map(|&s| user_of(s)).collect::<Vec<_>>(),
        "users": context.seat_clocks.iter().map(|s| s.user_id).collect::<Vec<_>>(),
    });
    // Mail: "your turn" to the seats whose turn begins (with their deadline), the result to
    // everyone once the game is over.
    let mut notices: Vec<Notice> = Vec::new();
    for &seat in &plan.new_turns {
        if let Some(user) = user_of(seat) {
            let deadline = plan.arm.iter().find(|d| d.seat == seat).map(|d| d.due_at);
            notices.push(Notice::your_turn(
                user,
                head.id,
                seat,
                version,
                json!({"deadline": deadline}),
            ));
        }
    }
    if status == Status::Finished {
        for clock in context.seat_clocks.iter() {
            notices.push(Notice::game_over(clock.user_id, head.id, json!({})));
        }
    }
    let mail: Vec<Mail> = notices.iter().map(Notice::as_mail).collect();
    let written = committer
        .append(
            &Append {
                game_id: head.id,
                expected_version: head.version,
                version,
                status: status.as_str(),
                pending: &pending,
                outcome: outcome
                    .as_ref()
                    .map(|o| serde_json::to_value(o).expect("outcomes serialise")),
                at: now,
                first_seq,
                events: events::Batch::new(&new_events, first_seq),
                rules_version: head.rules_version,
                snapshots: &snapshots,
                command: CommandRecord {
                    id: Uuid::now_v7(),
                    user_id: origin.user_id,
                    idempotency_key: origin.idempotency_key,
                    request_hash: origin.request_hash,
                    seat: actor_seat.map(i16::from),
                    command: serde_json::to_value(command).map_err(anyhow::Error::from)?,
                    response: serde_json::to_string(&result).map_err(anyhow::Error::from)?,
                },
                clocks: plan.clocks(),
                seats: &seat_updates,
                mail: &mail,
            },
            &live,
        )
        .await?;
    if !written {
        return Ok(None);
    }
    Ok(Some(Applied {
        context: context.after(version, now, &pending, &plan, &seat_updates),
        result,
        state,
    }))
}

/// A forfeited seat ranks after every other and cannot win; the others keep their order.
pub fn rank_forfeits_last(outcome: &mut Outcome, forfeited: &[Seat]) {
    if forfeited.is_empty() {
        return;
    }
    let mut order: Vec<usize> = (0..outcome.ranks.len()).collect();
    let key = |i: usize| (forfeited.contains(&(i as Seat)), outcome.ranks[i]);
    order.sort_by_key(|&i| key(i));
    let mut ranks = vec![0u8; outcome.ranks.len()];
    for (position, &seat) in order.iter().enumerate() {
        ranks[seat] = if position > 0 && key(order[position - 1]) == key(seat) {
            ranks[order[position - 1]]
        } else {
            position as u8 + 1
        };
    }
    outcome.ranks = ranks;
    outcome.winners = (0..outcome.ranks.len())
        .filter(|&i| outcome.ranks[i] == 1)
        .map(|i| i as Seat)
        .collect();
}
