//! Server-Sent Events: the lobby as it changes.

use super::event_stream::{self, EventStream};
use super::live::{UserStreamQuery, stream_caller, stream_slot};
use crate::http::error::{ApiError, Problem, Unauthenticated};
use crate::http::extract::text::Query;
use crate::http::state::AppState;
use crate::live::{Signal, Topic};
use crate::service::streams::lobby::{Feed, LobbyEvent};
use actix_web::{HttpRequest, Responder, get, web};
use bytes::Bytes;
use std::time::Duration;
use tokio::sync::broadcast;

/// How often the stream looks whether its credential still stands without a change to tell.
const CHECK_EVERY: Duration = Duration::from_secs(30);

/// Follow the lobby as it changes (Server-Sent Events).
///
/// First `event: snapshot`: the first 100 open games the caller may join (`open`, as
/// `GET /games?view=open` lists them, the caller's own included) and the first 100 games
/// waiting for the caller (`my_turn`). Then each change, with the game as the caller's lobby
/// shows it (a `GameSummary`): `game_opened` (created, or the caller was invited),
/// `seats_changed` (a seat of an open game taken or given up), `game_started`,
/// `game_cancelled` (games the caller sits in), `your_turn`, `game_over`, `chat_unread`
/// (the caller's unread chat count in a game they sit in changed: a message in a channel
/// they read, a hidden one, their read marker moved; its `chat_unread` is the new count),
/// and `game_removed` (`{game_id}`: an open game this stream showed started or was
/// cancelled without the caller, or a player joined it whom the caller blocked or who
/// blocked the caller). Others' games follow the open list's rules: private ones only to the invited,
/// none where a blocked or blocking player sits.
///
/// The events carry no ids and a reconnect is not resumed from one: it begins with a new
/// snapshot, which says exactly what holds then (the lobby is the state of many games, not a
/// log). Keep-alive comments every 15 s. Counts against the per-user limit of open streams
/// (`too_many_streams`), and ends when its credential is taken away.
#[utoipa::path(
    tag = "live",
    security(("bearer" = [])),
    params(UserStreamQuery),
    responses(
        (status = 200, description = "An event stream.", content_type = "text/event-stream", body = String),
        Unauthenticated,
        (status = 429, description = "`too_many_streams`: the caller holds the most streams allowed; `too_many_streams_from_address`: so does the client's address; see `Retry-After`.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/lobby/stream")]
pub async fn lobby_stream(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: Query<UserStreamQuery>,
) -> Result<impl Responder, ApiError> {
    let caller = stream_caller(&state, &req, &query.access_token).await?;
    let slot = stream_slot(&state, &req, caller.user_id, "lobby")?;
    let closed = state.hub.closed();
    // Subscribe before the snapshot, so nothing between the two is missed: to the notes that
    // may change any lobby, and to those of the caller's own games (their turn, a game's end,
    // unread chat, an invitation), not to every note of every game.
    let mut lobbies = state.hub.subscribe_to(Topic::Lobby);
    let mut own = state.hub.subscribe_to(Topic::User(caller.user_id));
    let mut feed = Feed::new(caller.user_id);
    let (sender, receiver) = event_stream::channel();
    let _ = sender.send(snapshot(&state, &mut feed).await?).await;
    let keep_alive = state.config.live_keep_alive;
    // What a change needs of the database is awaited boxed, as in the game streams: the idle
    // task stays small.
    actix_web::rt::spawn(async move {
        // The stream holds its slot until the task ends.
        let _slot = slot;
        tokio::pin!(closed);
        let mut check =
            tokio::time::interval_at(tokio::time::Instant::now() + CHECK_EVERY, CHECK_EVERY);
        loop {
            let signal = tokio::select! {
                signal = lobbies.recv() => signal,
                // A note that changes lobbies comes on the lobby's topic, and on this one too
                // when it concerns the caller (a resync on both): read it once.
                signal = own.recv() => match signal {
                    Ok(Signal::Changed(note)) if note.changes_lobbies() => continue,
                    Ok(Signal::Resync) => continue,
                    signal => signal,
                },
                // It ends when the caller's credential no longer stands: looked at now and
                // then, and before anything is sent.
                _ = check.tick() => {
                    if !caller.still_stands(&state).await {
                        return;
                    }
                    continue;
                }
                _ = sender.closed() => return,
                _ = &mut closed => return,
            };
            let out = match signal {
                Ok(Signal::Changed(note)) => Box::pin(feed.react(&state.pool, &note))
                    .await
                    .map(to_frames)
                    .map_err(ApiError::from),
                // Notes may have been lost: what holds now, anew.
                Ok(Signal::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    Box::pin(snapshot(&state, &mut feed)).await.map(|s| vec![s])
                }
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let out = out.unwrap_or_else(|error| {
                tracing::warn!(%error, "the lobby stream could not read a game");
                Vec::new()
            });
            if out.is_empty() {
                continue;
            }
            if !caller.still_stands(&state).await {
                return;
            }
            for event in out {
                if sender.send(event).await.is_err() {
                    return;
                }
            }
        }
    });
    Ok(EventStream::new(receiver, keep_alive))
}

/// The feed's events as the stream sends them.
fn to_frames(events: Vec<LobbyEvent>) -> Vec<Bytes> {
    events
        .iter()
        .filter_map(|event| event_stream::json(event.name(), None, &event.data().ok()?).ok())
        .collect()
}

/// The `snapshot` event: the lobby now.
async fn snapshot(state: &AppState, feed: &mut Feed) -> Result<Bytes, ApiError> {
    let snapshot = feed.snapshot(&state.pool).await?;
    Ok(event_stream::json("snapshot", None, &snapshot).map_err(anyhow::Error::from)?)
}
