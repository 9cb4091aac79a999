//! Playing: a seat's view of a game and the submission of actions.

use super::cache::{CachedState, ContextCache};
use super::clock::{self, SeatClock};
use super::committer::Committer;
use super::error::Error;
use super::events::PlatformEvent;
use super::lobby::GameSummary;
use super::log::{EventOut, present, readable_by, state_at, viewer_for};
use super::step;
use crate::games::{Actor, GameKind, Rules, Seat, Viewer};
use crate::service::notices::Notice;
use crate::store::append::SeatUpdate;
use crate::store::events;
use crate::store::games::{self, GameHead, Status};
use crate::store::orders::OrderRow;
use crate::store::outbox::NewMail;
use crate::store::seats::SeatState;
use crate::with_rules;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::pool::PoolConnection;
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool, Postgres};
use std::sync::Arc;
use std::time::Duration;
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
    #[schema(schema_with = super::game_schemas::view)]
    pub view: Option<Value>,
    /// What the caller may do now (the current version only); `null` if they do not play.
    #[schema(schema_with = super::game_schemas::legal)]
    pub legal: Option<Value>,
    /// The seed, hex, once the game has ended (before: only its commitment is public).
    pub seed: Option<String>,
    /// The game this one is the rematch of (see `GET /games/{id}/rematch`).
    pub rematch_of: Option<Uuid>,
    /// This game's rematch, once it started.
    pub rematch: Option<Uuid>,
    /// Taking moves back: the table's setting, the open request, what the caller could take
    /// back now (see `POST /games/{id}/undo`).
    pub undo: crate::service::play::undo_views::UndoState,
}

/// What a move can change of a game, for one caller at one version: the data of a game
/// stream's `view` event. Each field is what `GET /games/{id}` answers for that caller at
/// that version; what a move never changes (the options, the seed's commitment, the chat's
/// unread count, the rematch links) is left out.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameUpdate {
    pub id: Uuid,
    /// The game's kind, as in `GameDetail` (the types of `view`, `legal` and `outcome`).
    pub kind: String,
    /// The version reached (the SSE id's `V`).
    pub version: i64,
    /// The version this update shows: `version`.
    pub at_version: i64,
    /// `active` or `finished`.
    pub status: String,
    /// Seats that must act now.
    pub pending: Vec<i16>,
    /// Whether the caller must act now.
    pub your_turn: bool,
    pub turn_started_at: Option<chrono::DateTime<chrono::Utc>>,
    pub finished_at: Option<chrono::DateTime<chrono::Utc>>,
    #[schema(value_type = Option<Object>)]
    pub outcome: Option<Value>,
    /// The seats with their states and deadlines.
    pub seats: Vec<super::lobby::SeatSummary>,
    /// The position as the caller may see it (the rules engine's view).
    #[schema(value_type = Option<Object>)]
    pub view: Option<Value>,
    /// What the caller may do now; `null` if they hold no seat (or the game is over).
    #[schema(value_type = Option<Object>)]
    pub legal: Option<Value>,
    /// Taking moves back, as the caller sees it now.
    pub undo: crate::service::play::undo_views::UndoState,
    /// The seed, hex, once the game has ended.
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
    // Who may watch: the table's setting and blocks (see `watch`).
    let head = crate::service::play::table::readable_head(&mut conn, game_id, caller).await?;
    let seats = games::seats(&mut *conn, game_id).await?;
    let mut summary = GameSummary::new(&head, &seats, caller);
    summary.chat_unread =
        crate::service::play::channels::unread_in(pool, caller, &head, summary.your_seat).await?;
    super::lobby::attach_tournaments(&mut *conn, std::slice::from_mut(&mut summary)).await?;
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
        let legal_for = match summary.your_seat {
            Some(seat) if at_version == head.version && head.status() == Status::Active => {
                Some(seat as Seat)
            }
            _ => None,
        };
        with_rules!(kind, R => view_of::<R>(&mut conn, &head, at_version, viewer, legal_for).await?)
    };
    let seed = (head.status() == Status::Finished).then(|| hex::encode(&head.seed));
    // What the caller could take back is for the current version only.
    let undo_seat = summary.your_seat.filter(|_| at_version == head.version);
    let undo =
        crate::service::play::undo_views::state_for(&mut conn, &head, &seats, undo_seat).await?;
    // The links of a rematch (platform records beside the log; see `rematch`).
    let (rematch_of, rematch) = match head.status() {
        Status::Active => (
            crate::store::rematch::rematch_of(&mut *conn, game_id).await?,
            None,
        ),
        Status::Finished => (
            crate::store::rematch::rematch_of(&mut *conn, game_id).await?,
            crate::store::rematch::rematch(&mut *conn, game_id).await?,
        ),
        Status::Open | Status::Cancelled => (None, None),
    };
    Ok(GameDetail {
        summary,
        at_version,
        view,
        legal,
        seed,
        rematch_of,
        rematch,
        undo,
    })
}

/// The view of `viewer` at `at_version`, and what `legal_for` may do there.
async fn view_of<R: Rules>(
    conn: &mut PgConnection,
    head: &GameHead,
    at_version: i64,
    viewer: Viewer,
    legal_for: Option<Seat>,
) -> Result<(Option<Value>, Option<Value>), Error> {
    let state = state_at::<R>(conn, head, at_version).await?;
    let view = serde_json::to_value(R::view(&state, viewer))?;
    let legal = legal_for
        .map(|seat| serde_json::to_value(R::legal(&state, seat)))
        .transpose()?;
    Ok((Some(view), legal))
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
    #[schema(schema_with = super::game_schemas::action)]
    pub action: Value,
}

/// The answer to an accepted action; a retried request gets the same answer again.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"version": 14, "status": "active", "pending": [3], "events": [
    {"seq": 13, "type": "passed", "actor": 2, "at": "2026-11-29T12:00:00Z", "data": {"type": "passed", "seat": 2}}
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

/// What an action's command record keeps for a retry with its `Idempotency-Key`: the
/// answer without its events. A retry reads the events again from the log and presents them
/// to the same viewer, which gives the very answer first sent (the events are the truth;
/// storing their presented copy beside them cost each action about 480 bytes more).
#[derive(Serialize, Deserialize)]
struct StoredAnswer {
    version: i64,
    status: String,
    pending: Vec<i16>,
    /// Present in the answers stored whole before this was so: replayed as stored.
    #[serde(default, skip_serializing)]
    events: Option<serde::de::IgnoredAny>,
}

impl ActionResult {
    /// The JSON text stored for a retry (see [`StoredAnswer`]).
    pub fn stored(&self) -> String {
        serde_json::to_string(&StoredAnswer {
            version: self.version,
            status: self.status.clone(),
            pending: self.pending.clone(),
            events: None,
        })
        .expect("an answer serialises")
    }
}

/// Why an action submission was answered from the store rather than decided.
pub enum Submitted {
    Applied(ActionResult),
    /// The stored answer: its status and the JSON text first sent.
    Replayed(u16, String),
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
    /// The game's open undo request (the sequence number of its `kontor.undo_requested`):
    /// the next command's batch lapses it.
    pub open_undo: Option<i64>,
    /// The standing orders of the game's seats, and their revision (see `store::orders`).
    pub orders_revision: i64,
    pub orders: Json<Vec<OrderRow>>,
    /// The state cache's version and JSON text, if it is at the head's version or before.
    pub cached_version: Option<i64>,
    pub cached_state: Option<String>,
    stored_hash: Option<Vec<u8>>,
    stored_status: Option<i16>,
    stored_response: Option<String>,
    stored_version: Option<i64>,
    stored_first_seq: Option<i64>,
    stored_seat: Option<i16>,
    stored_at: Option<DateTime<Utc>>,
}

impl Context {
    /// The seat `user` holds, if any.
    pub fn seat_of(&self, user: Uuid) -> Option<i16> {
        self.seat_clocks
            .iter()
            .find(|c| c.user_id == user)
            .map(|c| c.seat)
    }

    /// The game as a command is decided on it.
    pub fn game(&self) -> step::Game<'_> {
        step::Game {
            head: &self.head,
            seats: &self.seat_clocks,
            armed_timer: self.armed_timer.as_deref(),
            orders: &self.orders,
            orders_revision: Some(self.orders_revision),
        }
    }

    /// The context after an append this instance wrote: what the next command on the game
    /// would read (see `service::play::cache`).
    fn after<S>(&self, decision: &step::Decision<S>) -> Self {
        let step::Decision {
            version,
            undone_events,
            at,
            ref pending,
            ref plan,
            seat_updates: ref seats,
            ..
        } = *decision;
        // Built field by field: the rows the decision rewrote are taken from it, not copied
        // first, and the state's text and the stored answer are not copied only to be dropped.
        let orders = self
            .orders
            .iter()
            .filter(|r| !decision.orders.iter().any(|d| d.seat == r.seat))
            .chain(&decision.orders)
            .cloned()
            .collect::<Vec<_>>();
        let mut next = Context {
            head: self.head.clone(),
            seat_clocks: self.seat_clocks.clone(),
            armed_timer: self.armed_timer.clone(),
            // Every append lapses an open request (see `Context::undo_preface`).
            open_undo: None,
            orders_revision: self.orders_revision,
            orders: Json(orders),
            cached_version: None,
            cached_state: None,
            stored_hash: None,
            stored_status: None,
            stored_response: None,
            stored_version: None,
            stored_first_seq: None,
            stored_seat: None,
            stored_at: None,
        };
        next.orders.0.sort_by_key(|r| r.seat);
        next.head.version = version;
        next.head.undone_events = undone_events;
        if next.head.pending_seats != *pending {
            next.head.turn_started_at = Some(at);
        }
        next.head.pending_seats = pending.clone();
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

    /// What a command's batch begins with while an undo request is open: the request lapses
    /// (any action in the game does; the request no longer names the current position).
    pub fn undo_preface(&self) -> Vec<PlatformEvent> {
        self.open_undo
            .map(|request| PlatformEvent::UndoLapsed {
                request,
                reason: crate::service::play::events::UndoLapse::Moved,
            })
            .into_iter()
            .collect()
    }

    /// The current state: the cache and the events after it, else the folded log.
    pub async fn state<R: Rules>(&self, conn: &mut PgConnection) -> anyhow::Result<R::State> {
        let cached = self.cached_version.zip(self.cached_state.as_deref());
        crate::service::play::log::state_from::<R>(conn, self.head.id, self.head.version, cached)
            .await
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

/// A member of the command as sent that the command parsed from it does not have. The
/// commands refuse unknown members (`deny_unknown_fields`), but serde ignores every member of
/// a variant without fields (`{"type": "pass", "extra": 1}`); what such a command does not
/// write out again was not one of its members. (A member sent as `null` is left alone: an
/// absent optional member may not be written out either.)
fn unknown_member(sent: &Value, command: &impl Serialize) -> Option<String> {
    let written = serde_json::to_value(command).ok()?;
    let (sent, written) = (sent.as_object()?, written.as_object()?);
    sent.iter()
        .find(|(name, value)| !value.is_null() && !written.contains_key(*name))
        .map(|(name, _)| name.clone())
}

/// An action as a client submitted it.
pub struct Attempt<'a> {
    pub caller: Uuid,
    pub game_id: Uuid,
    pub idempotency_key: &'a str,
    /// The version the action is decided at.
    pub expected_version: Expected,
    pub request: &'a ActionRequest,
    /// How long a retry with the same key gets the first answer (`KONTOR_IDEMPOTENCY_WINDOW`).
    pub idempotency_window: Duration,
}

/// How the client said which version it acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// It named the version it saw (the body's `version`, or one version in `If-Match`).
    Named(i64),
    /// It left the version to the server: whatever it is (`If-Match: *`), or the current one
    /// if it is `among` those listed (tags of several versions). `current` is what the server
    /// read. A retry of such a request is the same request whatever the version is by then.
    Current {
        among: Option<Vec<i64>>,
        current: i64,
    },
}

impl Expected {
    pub fn version(&self) -> i64 {
        match self {
            Self::Named(version)
            | Self::Current {
                current: version, ..
            } => *version,
        }
    }
}

/// Applies one action in at most two statements: one read (head, seats and clocks, a stored
/// answer for the key, the state cache) — skipped when this instance's own last write left the
/// game at the version the client sent (see `service::play::cache`) — then the rules engine decides,
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
        idempotency_window,
    } = attempt;
    let request_hash = Sha256::digest(
        match &expected_version {
            Expected::Named(version) => {
                serde_json::to_vec(&(version, request.seat, &request.action))
            }
            Expected::Current { among, .. } => {
                serde_json::to_vec(&(("current", among), request.seat, &request.action))
            }
        }
        .expect("json"),
    )
    .to_vec();
    let retry = Retry {
        request_hash,
        window: idempotency_window,
        // The record's age is judged on the clock that stamped it, the database's (its
        // `created_at` defaults to now()), not the server's settable game clock: the two part
        // when a test moves the game clock on by days.
        now: chrono::Utc::now(),
    };
    // A request that left the version to the server may be the retry of one already applied,
    // which left the game at the version it now names: the cache would skip the stored answer.
    let cached = match expected_version {
        Expected::Named(version) => cache.get(game_id, version),
        Expected::Current { .. } => None,
    };
    let expected_version = expected_version.version();
    // A connection for reading, acquired when first needed and given back before the append,
    // which the committer writes with its own (never wait for a connection while holding one).
    let mut conn = None;
    let (context, cached_state) = match cached {
        Some((context, state)) => (context, Some(state)),
        None => {
            let reading = connection(pool, &mut conn).await?;
            let context = read_context(reading, game_id, caller, idempotency_key).await?;
            if let Some(replayed) = stored_answer(reading, &context, &retry).await? {
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
        request_hash: Some(&retry.request_hash),
    };
    let mut context = context;
    let mut cached_state = cached_state;
    // A standing order changed while this action was decided (its version stands): it is
    // decided again with the orders as they are now, a few times at most.
    for _ in 0..ORDER_RETRIES {
        let action = Action {
            cache,
            committer,
            context: &context,
            cached_state: cached_state.as_ref(),
            seat,
            action: &request.action,
            origin,
        };
        let applied = with_rules!(kind, R => act::<R>(pool, &action, &mut conn).await?);
        if let Some(result) = applied {
            return Ok(Submitted::Applied(result));
        }
        // Someone else moved the game on first: perhaps a retry of this very request (or the
        // cached copy was old).
        cache.forget(game_id);
        let reading = connection(pool, &mut conn).await?;
        let now = read_context(reading, game_id, caller, idempotency_key).await?;
        if let Some(replayed) = stored_answer(reading, &now, &retry).await? {
            return Ok(replayed);
        }
        if now.head.version != expected_version || now.head.status() != Status::Active {
            return Err(Error::VersionConflict {
                current: now.head.version,
                sent: expected_version,
            });
        }
        context = Arc::new(now);
        cached_state = None;
    }
    Err(Error::VersionConflict {
        current: context.head.version,
        sent: expected_version,
    })
}

/// How often an action is decided again because the game's standing orders changed meanwhile.
const ORDER_RETRIES: usize = 4;

/// An action that passed every check of `submit`, to decide under the game's rules.
struct Action<'a> {
    cache: &'a ContextCache,
    committer: &'a Committer,
    context: &'a Context,
    /// This instance's copy of the state at the context's version, if it has one.
    cached_state: Option<&'a CachedState>,
    seat: i16,
    action: &'a Value,
    origin: Origin<'a>,
}

/// Decides and appends an action of `R`; `Ok(None)`: the game moved on first. What this
/// instance wrote is remembered for the next action on the game (see `service::play::cache`).
async fn act<R: Rules>(
    pool: &PgPool,
    action: &Action<'_>,
    conn: &mut Option<PoolConnection<Postgres>>,
) -> Result<Option<ActionResult>, Error> {
    let Action {
        cache,
        committer,
        context,
        cached_state,
        seat,
        origin,
        ..
    } = *action;
    let command: R::Command =
        serde_json::from_value(action.action.clone()).map_err(|e| Error::InvalidCommand {
            kind: R::KIND,
            reason: e.to_string(),
        })?;
    if let Some(member) = unknown_member(action.action, &command) {
        return Err(Error::InvalidCommand {
            kind: R::KIND,
            reason: format!("unknown field `{member}`: this command has no such member"),
        });
    }
    let state = match cached_state.and_then(|s| s.downcast_ref::<R::State>()) {
        Some(state) => state.clone(),
        None => context.state::<R>(connection(pool, conn).await?).await?,
    };
    let submission = Submission {
        actor: Actor::Seat(seat as Seat),
        command: &command,
        origin,
        preface: context.undo_preface(),
        // A player who moves is no longer timing out.
        seat_updates: context
            .seat_clocks
            .iter()
            .filter(|c| c.seat == seat && c.timeouts > 0)
            .map(|_| SeatUpdate {
                seat,
                timeouts: Some(0),
                ..SeatUpdate::default()
            })
            .collect(),
    };
    // The committer writes with its own connections: give this one back first.
    drop(conn.take());
    let game_id = context.head.id;
    Ok(apply::<R>(committer, context, state, submission)
        .await?
        .map(|applied| {
            if applied.result.status == Status::Active.as_str() {
                cache.put(game_id, applied.context, applied.state);
            } else {
                cache.forget(game_id);
            }
            applied.result
        }))
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

/// A request as its retries are recognised and answered.
struct Retry {
    /// The digest of the request (see `submit`).
    request_hash: Vec<u8>,
    /// How long after its record a retry gets the first answer.
    window: Duration,
    /// Now, on the clock that stamped the record.
    now: DateTime<Utc>,
}

/// The stored answer to an earlier request with the same key, if there is one. Past the
/// idempotency window (by the record's age; housekeeping may also have emptied an answer
/// stored whole) the key and the request's digest are still there: the same request is
/// refused as `IdempotencyKeyExpired` (it was applied; it is never decided again, which would
/// append it twice or, losing to the key's unique constraint, be taken for a game that moved
/// on), another one still as `IdempotencyKeyReused`.
async fn stored_answer(
    conn: &mut PgConnection,
    context: &Context,
    retry: &Retry,
) -> Result<Option<Submitted>, Error> {
    let Some(hash) = &context.stored_hash else {
        return Ok(None);
    };
    if *hash != retry.request_hash {
        return Err(Error::IdempotencyKeyReused);
    }
    let within = context.stored_at.is_some_and(|at| {
        chrono::Duration::from_std(retry.window).is_ok_and(|window| retry.now - at <= window)
    });
    match (context.stored_status, &context.stored_response) {
        (Some(status), Some(response)) if within => Ok(Some(Submitted::Replayed(
            status as u16,
            replay(conn, context, response).await?,
        ))),
        _ => Err(Error::IdempotencyKeyExpired {
            applied_at: context.stored_version.unwrap_or_default(),
            current: context.head.version,
        }),
    }
}

/// The answer first sent to the request whose command record `context` read, from what the
/// record stored (see [`StoredAnswer`]): its events read again from the log and presented to
/// the viewer the answer was for (the acting seat, or everyone once the action ended the
/// game), as `step::decide` presented them.
async fn replay(conn: &mut PgConnection, context: &Context, stored: &str) -> Result<String, Error> {
    let answer: StoredAnswer =
        serde_json::from_str(stored).map_err(|e| Error::internal(anyhow::Error::new(e)))?;
    if answer.events.is_some() {
        return Ok(stored.to_string());
    }
    let first = context
        .stored_first_seq
        .ok_or_else(|| Error::internal(anyhow::anyhow!("a stored answer without its record")))?;
    let rows = events::load_presented(conn, context.head.id, first, answer.version).await?;
    let viewer = match (
        answer.status == Status::Finished.as_str(),
        context.stored_seat,
    ) {
        (true, _) => Viewer::Omniscient,
        (false, Some(seat)) => Viewer::Seat(seat as Seat),
        (false, None) => Viewer::Spectator,
    };
    let kind = kind_of(&context.head)?;
    let events = with_rules!(kind, R => present::<R>(&rows, viewer)).map_err(Error::internal)?;
    let result = ActionResult {
        version: answer.version,
        status: answer.status,
        pending: answer.pending,
        events,
    };
    serde_json::to_string(&result).map_err(|e| Error::internal(anyhow::Error::new(e)))
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

/// Decides a submission on an active game read as `context`, whose state is `state` (see
/// `step::decide`), and appends the outcome in one statement (see `store::append`): only if
/// the game is still at the version read, by `committer`, which also announces it to live
/// streams. `Ok(None)`: the game moved on meanwhile and nothing was written. Used for
/// players' actions and for the platform's own (timeouts, bots, rules timers).
pub async fn apply<R: Rules>(
    committer: &Committer,
    context: &Context,
    state: R::State,
    submission: Submission<'_, R::Command>,
) -> Result<Option<Applied<R::State>>, Error> {
    let origin = submission.origin;
    let decision = step::decide::<R>(context.game(), state, submission, committer.clock().now())?;
    log_warnings(context.head.id, &decision.warnings);
    let mail: Vec<NewMail> = decision.notices.iter().map(Notice::as_mail).collect();
    let written = committer
        .append(&decision.append(origin, &mail), &decision.note)
        .await?;
    if !written {
        return Ok(None);
    }
    metrics::counter!(crate::telemetry::names::ACTIONS_APPENDED, "kind" => R::KIND).increment(1);
    Ok(Some(Applied {
        context: context.after(&decision),
        result: decision.result,
        state: decision.state,
    }))
}

/// Logs what a step found wrong that should never be (see `step::Decision::warnings`).
pub fn log_warnings(game_id: Uuid, warnings: &[String]) {
    for warning in warnings {
        tracing::error!(game = %game_id, warning, "the server stopped playing on its own");
    }
}
