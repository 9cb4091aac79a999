//! Playing: a seat's view of a game and the submission of actions.

use super::lobby::{GameSummary, game_not_found};
use super::{EventOut, PlatformEvent, load_state, new_event, present, viewer_for};
use crate::games::rng::GameRng;
use crate::games::{Actor, GameKind, Rules, Seat, Viewer};
use crate::http::error::ApiError;
use crate::store::events::{self, NewEvent};
use crate::store::games::{self, GameHead, Status};
use crate::with_rules;
use actix_web::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::{PgConnection, PgPool};
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

pub fn kind_of(head: &GameHead) -> Result<GameKind, ApiError> {
    GameKind::parse(&head.kind)
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("unregistered kind {}", head.kind)))
}

/// The caller's view of a game, now or at version `at`.
pub async fn detail(
    pool: &PgPool,
    caller: Uuid,
    game_id: Uuid,
    at: Option<i64>,
) -> Result<GameDetail, ApiError> {
    let mut conn = pool.acquire().await?;
    let head = games::head(&mut *conn, game_id)
        .await?
        .ok_or_else(game_not_found)?;
    let seats = games::seats(&mut *conn, game_id).await?;
    let summary = GameSummary::new(&head, &seats, caller);
    let viewer = viewer_for(&head, caller, summary.your_seat);
    let at_version = match at {
        None => head.version,
        Some(v) if (0..=head.version).contains(&v) => v,
        Some(v) => {
            return Err(ApiError::bad_request(
                "invalid_parameter",
                format!(
                    "at must be between 0 and the game's version {}, not {v}",
                    head.version
                ),
            ));
        }
    };
    let kind = kind_of(&head)?;
    let (view, legal) = if matches!(head.status(), Status::Open | Status::Cancelled)
        || at_version == 0
    {
        (None, None)
    } else {
        with_rules!(kind, R => {
            let state = if at_version == head.version {
                load_state::<R>(&mut conn, &head).await?
            } else {
                super::fold_to::<R>(&mut conn, game_id, at_version).await?
            };
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
    Replayed(StatusCode, Value),
}

/// Applies one action: the whole command service in one transaction.
pub async fn submit(
    pool: &PgPool,
    caller: Uuid,
    game_id: Uuid,
    idempotency_key: &str,
    expected_version: i64,
    request: &ActionRequest,
) -> Result<Submitted, ApiError> {
    let request_hash = Sha256::digest(
        serde_json::to_vec(&(expected_version, request.seat, &request.action)).expect("json"),
    )
    .to_vec();
    let mut tx = pool.begin().await?;
    let head = games::lock_head(&mut tx, game_id)
        .await?
        .ok_or_else(game_not_found)?;

    // A retry of an accepted request gets the stored answer and changes nothing.
    let stored: Option<(Vec<u8>, i16, Value)> = sqlx::query_as(
        "SELECT request_hash, response_status, response FROM game_commands
          WHERE game_id = $1 AND user_id = $2 AND idempotency_key = $3",
    )
    .bind(game_id)
    .bind(caller)
    .bind(idempotency_key)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some((hash, status, response)) = stored {
        if hash != request_hash {
            return Err(ApiError::unprocessable(
                "idempotency_key_reused",
                "this Idempotency-Key was already used for a different request",
            ));
        }
        let status = StatusCode::from_u16(status as u16).unwrap_or(StatusCode::OK);
        return Ok(Submitted::Replayed(status, response));
    }

    let seat = games::seat_of(&mut *tx, game_id, caller)
        .await?
        .ok_or_else(|| ApiError::forbidden("not_a_player", "you have no seat in this game"))?;
    if let Some(requested) = request.seat
        && requested != seat
    {
        return Err(ApiError::forbidden(
            "not_a_player",
            format!("you hold seat {seat}, not seat {requested}"),
        ));
    }
    if head.status() != Status::Active {
        return Err(ApiError::conflict(
            "game_not_active",
            format!(
                "the game is {}; actions are taken in active games",
                head.status().as_str()
            ),
        )
        .with("game_status", head.status().as_str()));
    }
    if expected_version != head.version {
        return Err(ApiError::conflict(
            "version_conflict",
            format!(
                "the game is at version {}, not {expected_version}: reload it and decide again",
                head.version
            ),
        )
        .with("current_version", head.version));
    }
    let kind = kind_of(&head)?;
    let origin = Origin {
        user_id: Some(caller),
        idempotency_key: Some(idempotency_key),
        request_hash: Some(&request_hash),
    };
    let result = with_rules!(kind, R => {
        let command: <R as Rules>::Command = serde_json::from_value(request.action.clone()).map_err(|e| {
            ApiError::unprocessable("invalid_command", format!("this is not a {} action: {e}", R::KIND))
        })?;
        apply::<R>(&mut tx, &head, Actor::Seat(seat as Seat), &command, origin).await?
    });
    tx.commit().await?;
    Ok(Submitted::Applied(result))
}

/// Who submitted a command, for the command record.
#[derive(Clone, Copy, Default)]
pub struct Origin<'a> {
    pub user_id: Option<Uuid>,
    pub idempotency_key: Option<&'a str>,
    pub request_hash: Option<&'a [u8]>,
}

/// Decides `command` for `actor` on a locked, active game and appends the outcome together
/// with the command record (which the export and the fairness check read). Used for players'
/// actions and for the platform's own (timeouts, rules timers).
pub async fn apply<R: Rules>(
    conn: &mut PgConnection,
    head: &GameHead,
    actor: Actor,
    command: &R::Command,
    origin: Origin<'_>,
) -> Result<ActionResult, ApiError> {
    let mut state = load_state::<R>(conn, head).await?;
    let nonces = head.nonces.clone().unwrap_or_default();
    let first_seq = head.version + 1;
    let mut rng = GameRng::for_step(&head.seed_bytes(), &nonces, first_seq as u64);
    let decided = R::decide(&state, actor, command, &mut rng)
        .map_err(|e| ApiError::unprocessable(e.code, e.message))?;
    let seats = head.seat_count as u8;
    let actor_seat = match actor {
        Actor::Seat(seat) => Some(seat),
        Actor::System => None,
    };
    let mut new_events: Vec<NewEvent> = Vec::with_capacity(decided.len() + 1);
    for event in &decided {
        R::evolve(&mut state, event);
        new_events.push(new_event::<R>(event, actor_seat, seats));
    }
    let outcome = R::outcome(&state);
    if let Some(outcome) = &outcome {
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
    let command_id = Uuid::now_v7();
    events::append(
        &mut *conn,
        head.id,
        first_seq,
        Some(command_id),
        &new_events,
    )
    .await?;
    let state_json = serde_json::to_value(&state).map_err(anyhow::Error::from)?;
    events::save_state(
        &mut *conn,
        head.id,
        version,
        head.rules_version,
        &state_json,
    )
    .await?;
    let status = if outcome.is_some() {
        Status::Finished
    } else {
        Status::Active
    };
    sqlx::query(
        "UPDATE games SET version = $2, status = $3, pending_seats = $4, outcome = $5,
                          finished_at = CASE WHEN $3 = 'finished' THEN now() END,
                          turn_started_at = CASE WHEN pending_seats = $4 THEN turn_started_at ELSE now() END
          WHERE id = $1",
    )
    .bind(head.id)
    .bind(version)
    .bind(status.as_str())
    .bind(&pending)
    .bind(outcome.as_ref().map(|o| serde_json::to_value(o).expect("outcome serialises")))
    .execute(&mut *conn)
    .await?;
    // The answer shows the new events as the acting seat may see them (everything once the
    // game is over).
    let viewer = match (status, actor_seat) {
        (Status::Finished, _) => Viewer::Omniscient,
        (_, Some(seat)) => Viewer::Seat(seat),
        (_, None) => Viewer::Spectator,
    };
    let rows = events::load(&mut *conn, head.id, first_seq, version).await?;
    let events = present::<R>(&rows, viewer)?;
    let result = ActionResult {
        version,
        status: status.as_str().to_string(),
        pending,
        events,
    };
    sqlx::query(
        "INSERT INTO game_commands (id, game_id, user_id, idempotency_key, request_hash, seat,
                                    command, first_seq, last_seq, response_status, response)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 200, $10)",
    )
    .bind(command_id)
    .bind(head.id)
    .bind(origin.user_id)
    .bind(origin.idempotency_key)
    .bind(origin.request_hash)
    .bind(actor_seat.map(i16::from))
    .bind(serde_json::to_value(command).map_err(anyhow::Error::from)?)
    .bind(first_seq)
    .bind(version)
    .bind(serde_json::to_value(&result).map_err(anyhow::Error::from)?)
    .execute(&mut *conn)
    .await?;
    Ok(result)
}
