//! Server-Sent Events: a stream per game and one per user.

use super::caller::{Caller, authenticate, bearer_token};
use super::error::{ApiError, ErrorCode, Problem};
use super::{AppState, Query, client_address};
use crate::audit::log::{self, Reader};
use crate::auth::Scope;
use crate::live::{Refused, Signal, StreamLimits, StreamSlot};
use crate::service::lobby::{self, ListQuery, ListView};
use crate::service::{play, watch};
use crate::store::games::Status;
use crate::store::presence;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, Responder, get, web};
use actix_web_lab::sse::{self, Sse};
use serde::Deserialize;
use serde_json::json;
use std::future::Future;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

/// How often a watcher's presence is refreshed (it counts for 60 s).
const PRESENCE_EVERY: Duration = Duration::from_secs(30);

/// `Retry-After` when a user has every stream slot taken: a slot frees as soon as one of
/// their streams closes, which the server cannot foresee.
const STREAM_RETRY_AFTER: u64 = 10;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct StreamQuery {
    /// The access token, for clients that cannot set headers (browsers' EventSource).
    pub access_token: Option<String>,
    /// Resume after this version, like the `Last-Event-ID` header.
    pub last_event_id: Option<i64>,
}

/// The query of the user's stream, which has no resume point: its notices carry no ids (a
/// reconnect begins with a new snapshot).
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct UserStreamQuery {
    /// The access token, for clients that cannot set headers (browsers' EventSource).
    pub access_token: Option<String>,
}

/// The caller of a stream: a bearer token in the header, or `access_token` in the query.
pub(super) async fn stream_caller(
    state: &AppState,
    req: &HttpRequest,
    access_token: &Option<String>,
) -> Result<Caller, ApiError> {
    let token = match (bearer_token(req), access_token) {
        (Ok(token), _) => token.to_string(),
        (Err(_), Some(token)) => token.clone(),
        (Err(error), None) => return Err(error),
    };
    let caller = authenticate(state, &token).await?;
    caller.require(Scope::GameRead)?;
    Ok(caller)
}

/// Takes one of the caller's live stream slots on this instance
/// (`KONTOR_LIVE_MAX_STREAMS_PER_USER`, all kinds of streams together, and
/// `KONTOR_LIVE_MAX_STREAMS_PER_ADDRESS` from the client's address, whoever signs in), or
/// answers 429.
pub(super) fn stream_slot(
    state: &AppState,
    req: &HttpRequest,
    user: uuid::Uuid,
    kind: &'static str,
) -> Result<StreamSlot, ApiError> {
    let limits = StreamLimits {
        per_user: state.config.live_max_streams_per_user,
        per_address: state.config.live_max_streams_per_address,
    };
    let refused = match state
        .hub
        .open_stream(user, client_address(req), limits, kind)
    {
        Ok(slot) => return Ok(slot),
        Err(refused) => refused,
    };
    let (code, max, message) = match refused {
        Refused::User => (
            ErrorCode::TooManyStreams,
            limits.per_user,
            format!(
                "at most {} live streams may be open per user; close one and retry",
                limits.per_user
            ),
        ),
        Refused::Address => (
            ErrorCode::TooManyStreamsFromAddress,
            limits.per_address,
            format!(
                "at most {} live streams may be open from one address; close one and retry",
                limits.per_address
            ),
        ),
    };
    let mut error = ApiError::new(StatusCode::TOO_MANY_REQUESTS, code, message)
        .with("retry_after", STREAM_RETRY_AFTER)
        .with("max_streams", max);
    error.retry_after = Some(STREAM_RETRY_AFTER);
    Err(error)
}

/// The resume point a client sent, if any; whether it lies within the log is checked later.
fn last_event_id(req: &HttpRequest, query: &StreamQuery) -> Result<Option<i64>, ApiError> {
    match req.headers().get("Last-Event-ID") {
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| v.trim().parse::<i64>().ok())
            .map(Some)
            .ok_or_else(|| {
                ApiError::bad_request(
                    ErrorCode::InvalidParameter,
                    "Last-Event-ID must be a version number",
                )
            }),
        None => Ok(query.last_event_id),
    }
}

/// Follow a game as it happens (Server-Sent Events).
///
/// First the caller's snapshot (`event: snapshot`, the same document as
/// `GET /games/{id}`), then every event as the caller may see it (`event: event`), each with
/// `id` = its version. Before the start, a new snapshot whenever a seat is taken or given up
/// (no event of the log says so). Reconnect with `Last-Event-ID` (or `?last_event_id=`) to
/// receive what was missed, without a snapshot; the id must be a version of the game (0 to
/// its current version), else `invalid_resume_id`. Keep-alive comments every 15 s
/// (configurable). While a player watches, no "your turn" mail is sent to them for this game
/// (unless they chose always_email). A user may hold a limited number of streams at once on
/// one server (`too_many_streams`, game and user streams together). The stream ends when its
/// credential is taken away (a logout, a revoked API token, a deleted account), not when an
/// access token merely expires.
#[utoipa::path(
    tag = "live",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this version."),
        StreamQuery,
    ),
    responses(
        (status = 200, description = "An event stream.", content_type = "text/event-stream", body = String),
        (status = 400, description = "`invalid_resume_id`: the resume id is not a version of the game; `invalid_parameter`: it is not a number.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No or bad credentials.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_streams`: the caller holds the most streams allowed; `too_many_streams_from_address`: so does the client's address; see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{game_id}/stream")]
pub async fn game_stream(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<Uuid>,
    query: Query<StreamQuery>,
) -> Result<impl Responder, ApiError> {
    // Checked whether or not a Last-Event-ID header overrides it: a request is refused for
    // what it holds, not only for what is used.
    if query.last_event_id.is_some_and(|id| id < 0) {
        return Err(ApiError::bad_request(
            ErrorCode::InvalidResumeId,
            "the resume id (last_event_id) is a version of the game: 0 or more",
        ));
    }
    let caller = stream_caller(&state, &req, &query.access_token).await?;
    let game_id = path.into_inner();
    let resume = last_event_id(&req, &query)?;
    // Checked before anything is sent, also when resuming (which skips the snapshot).
    let head =
        watch::readable_head(&mut *state.pool.acquire().await?, game_id, caller.user_id).await?;
    // A resume id beyond the log (or below it) names nothing the client can have seen, and
    // catching up from it would page through versions that do not exist.
    if resume.is_some_and(|id| !(0..=head.version).contains(&id)) {
        return Err(ApiError::bad_request(
            ErrorCode::InvalidResumeId,
            format!(
                "the resume id (Last-Event-ID or last_event_id) must be a version between 0 and the game's current version {}",
                head.version
            ),
        )
        .with("version", head.version));
    }
    let slot = stream_slot(&state, &req, caller.user_id, "game")?;
    // Subscribe before reading, so nothing between the read and the first note is missed.
    let signals = state.hub.subscribe();
    let (sender, receiver) = mpsc::channel(64);
    let watcher = Watcher {
        game_id,
        instance: state.hub.instance_id.clone(),
        state: state.clone(),
        caller,
    };
    let last = match resume {
        Some(version) => version,
        None => watcher.snapshot(&sender).await?,
    };
    // Watching counts from the moment the stream is answered.
    watcher.present(true).await?;
    actix_web::rt::spawn(watcher.run(signals, sender, last, state.hub.closed(), slot));
    Ok(Sse::from_infallible_receiver(receiver).with_keep_alive(state.config.live_keep_alive))
}

struct Watcher {
    game_id: Uuid,
    instance: String,
    state: web::Data<AppState>,
    /// Who opened the stream (the user watching): it ends when their credential no longer
    /// stands.
    caller: Caller,
}

impl Watcher {
    /// Runs until the client is gone (`sender` closed), the server stops (`closed`) or the
    /// caller's credential no longer stands (a logout, a revoked API token, a deleted account:
    /// looked at before anything is sent and every presence tick); the stream holds `_slot`
    /// as long as it runs.
    async fn run(
        self,
        mut signals: broadcast::Receiver<Signal>,
        sender: mpsc::Sender<sse::Event>,
        mut last: i64,
        closed: impl Future<Output = ()>,
        _slot: StreamSlot,
    ) {
        tokio::pin!(closed);
        let mut presence = tokio::time::interval(PRESENCE_EVERY);
        presence.tick().await; // the first tick is immediate; presence was just recorded
        let mut look = true;
        // The seats of the open game changed: no event says so, a new snapshot does.
        let mut seats_changed = false;
        loop {
            if look {
                // Nor once the caller may no longer watch (a block since it began).
                if !self.caller.still_stands(&self.state).await || !self.may_watch().await {
                    break;
                }
                if std::mem::take(&mut seats_changed)
                    && let Err(error) = self.snapshot(&sender).await
                {
                    tracing::warn!(game = %self.game_id, %error, "a live stream could not read the game");
                }
                // A long catch-up stops as soon as nobody is left to read it.
                let caught = tokio::select! {
                    caught = self.catch_up(&sender, last) => caught,
                    _ = sender.closed() => break,
                    _ = &mut closed => break,
                };
                match caught {
                    Ok(seen) => last = seen,
                    Err(error) => {
                        tracing::warn!(game = %self.game_id, %error, "a live stream could not read the log")
                    }
                }
            }
            tokio::select! {
                signal = signals.recv() => {
                    look = match signal {
                        Ok(Signal::Changed(note)) if note.game_id == self.game_id => {
                            seats_changed |= note.seats_changed;
                            true
                        }
                        Ok(Signal::Changed(_)) => false,
                        Ok(Signal::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => true,
                        Err(broadcast::error::RecvError::Closed) => break,
                    };
                }
                _ = presence.tick() => {
                    let _ = self.present(true).await;
                    // A note can be lost (see `live`): now and then, look without one.
                    look = true;
                }
                _ = sender.closed() => break,
                _ = &mut closed => break,
            }
        }
        let _ = self.present(false).await;
    }

    /// Whether the caller may still read the game (see `service::watch`); a failed look
    /// keeps the stream, which looks again at the next note or tick.
    async fn may_watch(&self) -> bool {
        let Ok(mut conn) = self.state.pool.acquire().await else {
            return true;
        };
        !matches!(
            watch::readable_head(&mut conn, self.game_id, self.caller.user_id).await,
            Err(crate::service::Error::GameNotFound)
        )
    }

    /// Sends the game as this user sees it now (`event: snapshot`); returns its version.
    async fn snapshot(&self, sender: &mpsc::Sender<sse::Event>) -> Result<i64, ApiError> {
        let detail =
            play::detail(&self.state.pool, self.caller.user_id, self.game_id, None).await?;
        let version = detail.summary.version;
        let snapshot = sse::Data::new_json(&detail)
            .map_err(anyhow::Error::from)?
            .event("snapshot")
            .id(version.to_string());
        let _ = sender.send(snapshot.into()).await;
        Ok(version)
    }

    /// Sends the events after `last` as this user may see them; returns the version reached.
    async fn catch_up(
        &self,
        sender: &mpsc::Sender<sse::Event>,
        mut last: i64,
    ) -> anyhow::Result<i64> {
        // The same pages as GET /games/{id}/events, a page at a time after a long absence.
        loop {
            if sender.is_closed() {
                return Ok(last);
            }
            let page = log::page(
                &self.state.pool,
                self.game_id,
                Reader::User(self.caller.user_id),
                last,
                log::MAX_PAGE,
            )
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
            for event in page.items {
                let data = sse::Data::new_json(&event)?
                    .event("event")
                    .id(event.seq.to_string());
                if sender.send(data.into()).await.is_err() {
                    return Ok(last);
                }
            }
            match page.next_after {
                Some(next) => last = next,
                None => return Ok(page.version.max(last)),
            }
        }
    }

    /// Marks (or unmarks) the user as watching this game from this instance.
    async fn present(&self, watching: bool) -> Result<(), sqlx::Error> {
        let (pool, user) = (&self.state.pool, self.caller.user_id);
        if watching {
            presence::mark_watching(pool, user, self.game_id, &self.instance).await
        } else {
            presence::unmark_watching(pool, user, self.game_id, &self.instance).await
        }
    }
}

/// Follow the caller's notices as they happen (Server-Sent Events).
///
/// First `event: snapshot` with the games waiting for
/// them, then `your_turn`, `game_started`, `game_over`, `invited` and `player_left` (another
/// player of a running game deleted their account; with the seat) events, each with the
/// game's id. A new `snapshot` comes whenever notices may have been missed (the server lost
/// touch with the database for a while): it replaces the one before. Keep-alive comments
/// every 15 s. Counts against the same per-user limit of
/// open streams as the game streams (`too_many_streams`).
#[utoipa::path(
    tag = "live",
    security(("bearer" = [])),
    params(UserStreamQuery),
    responses(
        (status = 200, description = "An event stream.", content_type = "text/event-stream", body = String),
        (status = 401, description = "No or bad credentials.", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_streams`: the caller holds the most streams allowed; `too_many_streams_from_address`: so does the client's address; see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/stream")]
pub async fn user_stream(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: Query<UserStreamQuery>,
) -> Result<impl Responder, ApiError> {
    let caller = stream_caller(&state, &req, &query.access_token).await?;
    let me = caller.user_id;
    let slot = stream_slot(&state, &req, me, "user")?;
    let closed = state.hub.closed();
    let mut signals = state.hub.subscribe();
    let (sender, receiver) = mpsc::channel(64);
    let _ = sender.send(user_snapshot(&state, me).await?).await;
    let keep_alive = state.config.live_keep_alive;
    actix_web::rt::spawn(async move {
        // The stream holds its slot until the task ends.
        let _slot = slot;
        tokio::pin!(closed);
        // It ends when the caller's credential no longer stands: looked at before anything
        // is sent, and now and then.
        // (The first tick a period from now: awaiting an immediate one would put off noticing
        // a client already gone, such as a HEAD's, and so the freeing of its slot.)
        let mut check =
            tokio::time::interval_at(tokio::time::Instant::now() + PRESENCE_EVERY, PRESENCE_EVERY);
        loop {
            tokio::select! {
                signal = signals.recv() => match signal {
                    Ok(Signal::Changed(note)) => {
                        let mut out = Vec::new();
                        if note.started && note.users.contains(&me) {
                            out.push(("game_started", json!({"game_id": note.game_id, "version": note.version})));
                        }
                        if note.your_turn.contains(&me) {
                            out.push(("your_turn", json!({"game_id": note.game_id, "version": note.version})));
                        }
                        if note.invited.contains(&me) {
                            out.push(("invited", json!({"game_id": note.game_id, "by": note.by})));
                        }
                        if let Some(seat) = note.left_seat && note.users.contains(&me) {
                            out.push(("player_left", json!({"game_id": note.game_id, "version": note.version, "seat": seat})));
                        }
                        if note.users.contains(&me) && note.status == Status::Finished.as_str() {
                            out.push(("game_over", json!({"game_id": note.game_id, "version": note.version})));
                        }
                        if !out.is_empty() && !caller.still_stands(&state).await {
                            return;
                        }
                        for (event, data) in out {
                            if sender.send(sse::Data::new(data.to_string()).event(event).into()).await.is_err() {
                                return;
                            }
                        }
                    }
                    // Notices may have been missed: a new snapshot says what holds now.
                    Ok(Signal::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        match user_snapshot(&state, me).await {
                            Ok(snapshot) => {
                                if !caller.still_stands(&state).await || sender.send(snapshot).await.is_err() {
                                    return;
                                }
                            }
                            Err(error) => tracing::warn!(%error, "a user stream could not resynchronise"),
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = check.tick() => {
                    if !caller.still_stands(&state).await {
                        return;
                    }
                }
                _ = sender.closed() => return,
                _ = &mut closed => return,
            }
        }
    });
    Ok(Sse::from_infallible_receiver(receiver).with_keep_alive(keep_alive))
}

/// The user stream's `snapshot` event: the games waiting for `me` (the first 100).
async fn user_snapshot(state: &AppState, me: Uuid) -> Result<sse::Event, ApiError> {
    let waiting = lobby::list(
        &state.pool,
        me,
        ListQuery {
            view: Some(ListView::MyTurn),
            kind: None,
            status: None,
            limit: Some(100),
            cursor: None,
        },
    )
    .await?;
    let snapshot = json!({"your_turn": waiting.items.iter().map(|g| json!({"game_id": g.id, "kind": g.kind, "version": g.version})).collect::<Vec<_>>()});
    Ok(sse::Data::new(snapshot.to_string())
        .event("snapshot")
        .into())
}
