//! Server-Sent Events: a stream per game and one per user.

use super::event_stream::{self, EventStream, Frames};
use crate::audit::log;
use crate::auth::Scope;
use crate::http::error::{ApiError, ErrorCode, Problem, Unauthenticated};
use crate::http::extract::caller::{Caller, authenticate, bearer_token};
use crate::http::extract::text::Query;
use crate::http::middleware::forwarded::client_address;
use crate::http::state::AppState;
use crate::live::{Refused, Signal, StreamLimits, StreamSlot, Topic};
use crate::service::play::lobby::{self, ListQuery, ListView};
use crate::service::play::{actions, table};
use crate::service::social::chat;
use crate::service::streams::game::{Feed, Position, Reading, Redacted, Want};
use crate::store::games::Status;
use crate::store::presence;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, Responder, get, web};
use bytes::{Bytes, BytesMut};
use serde::Deserialize;
use serde_json::json;
use std::future::Future;
use std::time::Duration;
use tokio::sync::broadcast;
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
    /// Resume after this id, like the `Last-Event-ID` header: a version `V`, or `V.C` (and
    /// chat message `C`) as the stream sent it.
    pub last_event_id: Option<String>,
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

/// A resume point: the game's version and the last chat message the client received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResumeId {
    pub version: i64,
    pub chat: i64,
}

impl ResumeId {
    /// `V` (a version, as before chat existed: no chat message received yet) or `V.C` (and
    /// chat message C).
    pub fn parse(text: &str) -> Option<Self> {
        let number = |s: &str| {
            let digits = s.strip_prefix('-').unwrap_or(s);
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<i64>().ok())
                .flatten()
        };
        let text = text.trim();
        match text.split_once('.') {
            None => Some(Self {
                version: number(text)?,
                chat: 0,
            }),
            Some((v, c)) => Some(Self {
                version: number(v)?,
                chat: number(c)?,
            }),
        }
    }

    /// The SSE id: `V` until a chat message was covered, then `V.C`.
    pub fn id(self) -> String {
        if self.chat == 0 {
            self.version.to_string()
        } else {
            format!("{}.{}", self.version, self.chat)
        }
    }
}

/// The resume point a client sent, if any; whether it lies within the log is checked later.
fn last_event_id(req: &HttpRequest, query: &StreamQuery) -> Result<Option<ResumeId>, ApiError> {
    let given = match req.headers().get("Last-Event-ID") {
        Some(value) => Some(value.to_str().ok().unwrap_or("\u{0}").to_string()),
        None => query.last_event_id.clone(),
    };
    let Some(given) = given else { return Ok(None) };
    ResumeId::parse(&given).map(Some).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::InvalidParameter,
            "Last-Event-ID must be a version number, or version.chat as the stream sent it",
        )
    })
}

/// Follow a game as it happens (Server-Sent Events).
///
/// First the caller's snapshot (`event: snapshot`, the same document as
/// `GET /games/{id}`), then every event as the caller may see it (`event: event`), and every
/// chat message of the channels the caller may read at that moment (`event: chat`, a
/// `ChatMessage`); `event: chat_hidden` (`{"id", "channel"}`, no id) when a moderator hides
/// one. Before the start, a new snapshot whenever a seat is taken or given up (no event of
/// the log says so). After the end, `event: rematch` (`{"game_id", "offer_id"}`, no id)
/// whenever a rematch offer of the game is made, answered or ends: read it at
/// `GET /games/{id}/rematch` (spectators too). `event: note` (`{"game_id"}`, no id) to the
/// player alone whenever their private note on the game is saved (from another tab or
/// device too): read it again at `GET /games/{id}/notes`. `event: orders` (`{"game_id"}`, no
/// id) to the player alone whenever their standing orders change (set, edited or cancelled
/// from any tab or device, played, dropped) or the server played a move for their seat:
/// read them again at `GET /games/{id}/orders`.
///
/// After the `event` events of a catch-up that moved the game's version (once, after the last
/// of them, without an id of its own, so a client's last event id stays that event's; also
/// when every event of it was hidden from the caller; not
/// after the events a resumed stream missed: read the game again after a reconnect),
/// `event: view`: a `GameUpdate`, everything of `GET /games/{id}` a move can change, for the
/// caller at that version (status, pending seats, whose turn, seats with their states and
/// deadlines, outcome, the caller's view, their legal actions if they hold a seat, the undo
/// state, the seed once finished); the same values as `GET /games/{id}` would answer then.
/// A client may merge it into the `GameDetail` it holds instead of reading the game again.
/// Nothing of the kind before the start, nor for a change of seats (a new `snapshot` says
/// that).
///
/// Ids: `V` (the version reached), or `V.C` once a chat message is covered (C: the last
/// chat message sent, or, on a snapshot, the newest message of the game when it was taken:
/// the history before it is the chat's pages). Reconnect with `Last-Event-ID` (or
/// `?last_event_id=`) set to the last id received to get what was missed, without a
/// snapshot: the events after V and the chat messages after C, none twice. A plain version
/// `V` works as before chat existed (and means no chat message was received: the chat
/// follows from the first message). V must be a version of the game (0 to its current
/// version) and C at most its newest message, else `invalid_resume_id`.
///
/// Keep-alive comments every 15 s (configurable). While a player watches, no "your turn"
/// mail is sent to them for this game (unless they chose always_email). A user may hold a
/// limited number of streams at once on one server (`too_many_streams`, game and user
/// streams together). The stream ends when its credential is taken away (a logout, a
/// revoked API token, a deleted account), not when an access token merely expires; and when
/// the caller may no longer watch: at once when a players-only table starts, or when they
/// block a seated player or are blocked by one (should the server miss that, at its next
/// presence check, at most 30 seconds later).
#[utoipa::path(
    tag = "live",
    security(("bearer" = [])),
    params(
        ("game_id" = Uuid, Path, description = "The game."),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this id: `V` or `V.C` as the stream sent it."),
        StreamQuery,
    ),
    responses(
        (status = 200, description = "An event stream.", content_type = "text/event-stream", body = String),
        (status = 400, description = "`invalid_resume_id`: the resume id is not a version of the game (or its chat part names no message of it); `invalid_parameter`: it is not `V` or `V.C`.", body = Problem, content_type = "application/problem+json"),
        Unauthenticated,
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
    if let Some(id) = &query.last_event_id {
        if id.trim().starts_with('-') {
            return Err(ApiError::bad_request(
                ErrorCode::InvalidResumeId,
                "the resume id (last_event_id) is a version of the game: 0 or more",
            ));
        }
        if ResumeId::parse(id).is_none() {
            return Err(ApiError::bad_request(
                ErrorCode::InvalidParameter,
                "last_event_id must be a version number, or version.chat as the stream sent it",
            ));
        }
    }
    let caller = stream_caller(&state, &req, &query.access_token).await?;
    let game_id = path.into_inner();
    let resume = last_event_id(&req, &query)?;
    // Checked before anything is sent, also when resuming (which skips the snapshot).
    let head =
        table::readable_head(&mut *state.pool.acquire().await?, game_id, caller.user_id).await?;
    // A resume id beyond the log (or below it) names nothing the client can have seen, and
    // catching up from it would page through versions that do not exist.
    if resume.is_some_and(|id| !(0..=head.version).contains(&id.version)) {
        return Err(ApiError::bad_request(
            ErrorCode::InvalidResumeId,
            format!(
                "the resume id (Last-Event-ID or last_event_id) must be a version between 0 and the game's current version {}",
                head.version
            ),
        )
        .with("version", head.version));
    }
    let chat_last = crate::store::chat::last_id(&state.pool, game_id).await?;
    if resume.is_some_and(|id| !(0..=chat_last).contains(&id.chat)) {
        return Err(ApiError::bad_request(
            ErrorCode::InvalidResumeId,
            format!(
                "the resume id's chat part names no message of this game (its newest is {chat_last})"
            ),
        ));
    }
    let slot = stream_slot(&state, &req, caller.user_id, "game")?;
    // Subscribe before reading, so nothing between the read and the first note is missed.
    let signals = Signals {
        game: state.hub.subscribe_to(Topic::Game(game_id)),
        blocks: state.hub.subscribe_to(Topic::Blocks(caller.user_id)),
    };
    let (sender, receiver) = event_stream::channel();
    let watcher = Watcher {
        game_id,
        instance: state.hub.instance_id.clone(),
        state: state.clone(),
        caller,
        resumed: resume.is_some(),
    };
    let last = match resume {
        Some(id) => id,
        None => watcher.snapshot(&sender, chat_last).await?,
    };
    // Watching counts from the moment the stream is answered.
    watcher.present(true).await?;
    actix_web::rt::spawn(watcher.run(signals, sender, last, state.hub.closed(), slot));
    Ok(EventStream::new(receiver, state.config.live_keep_alive))
}

/// What wakes a game stream: its game's notes, and the blocks of its reader.
struct Signals {
    game: broadcast::Receiver<Signal>,
    blocks: broadcast::Receiver<Signal>,
}

/// Where a stream's reader stands in its game, as last looked at (see `table::look`).
#[derive(Clone, Copy)]
struct Place {
    seat: Option<i16>,
    admin: bool,
    standing: crate::store::audience::Standing,
}

impl Place {
    /// The game as of `reading`, as this reader may read it.
    fn at(self, reading: &Reading) -> table::Look {
        table::Look {
            head: reading.head.clone(),
            seat: self.seat,
            admin: self.admin,
            standing: self.standing,
        }
    }
}

struct Watcher {
    game_id: Uuid,
    instance: String,
    state: web::Data<AppState>,
    /// Who opened the stream (the user watching): it ends when their credential no longer
    /// stands.
    caller: Caller,
    /// The client resumed from an id (and holds what it had before).
    resumed: bool,
}

/// Where paging the log left a stream: still open, or its client gone.
enum Paged {
    Open(ResumeId),
    Closed(ResumeId),
}

impl Watcher {
    /// Runs until the client is gone (`sender` closed), the server stops (`closed`) or the
    /// caller's credential no longer stands (a logout, a revoked API token, a deleted account:
    /// looked at before anything is sent and every presence tick); the stream holds `_slot`
    /// as long as it runs.
    ///
    /// What changed is read once for all the game's streams on this instance (the game's
    /// `feed`); this stream looks at its own place (its seat, a block) only when it starts,
    /// at every presence tick, when the game's seats change or it starts, when its user blocks
    /// or is blocked, and after notes were lost. Its credential is checked before each
    /// catch-up.
    ///
    /// Its queries and catch-ups are awaited boxed: a task keeps the room of its largest
    /// state for as long as it lives, and a stream is idle most of its life, so what only a
    /// wake-up needs is allocated for the wake-up, not kept for the stream's life (see the
    /// idle memory in docs/benchmarks.md).
    async fn run(
        self,
        mut signals: Signals,
        sender: Frames,
        mut last: ResumeId,
        closed: impl Future<Output = ()>,
        _slot: StreamSlot,
    ) {
        tokio::pin!(closed);
        let hub = self.state.hub.clone();
        let feed = self.state.feeds.of(&self.state.pool, self.game_id);
        let mut presence = tokio::time::interval(PRESENCE_EVERY);
        presence.tick().await; // the first tick is immediate; presence was just recorded
        // Look at the caller's place in the game (one statement of its own).
        let mut look = true;
        // The reader's place as last looked at.
        let mut place: Option<Place> = None;
        // Read what changed (from the feed), as of `want`.
        let mut read = true;
        let mut want = Want {
            notes: hub.received(),
            version: last.version,
        };
        // The seats of the open game changed: no event says so, a new snapshot does.
        let mut seats_changed = false;
        // Chat messages a moderator hid since the last look.
        let mut hidden: Vec<i64> = Vec::new();
        // Rematch offers of the finished game that changed since the last look.
        let mut rematches: Vec<i64> = Vec::new();
        // A resumed stream's first catch-up sends what was missed as it was sent then: its
        // events, no `view` (the client reads the game again after a reconnect).
        let mut view = !self.resumed;
        loop {
            if std::mem::take(&mut look) {
                if !self.caller.still_stands(&self.state).await {
                    break;
                }
                // Whether they may still watch (not after a block since it began) and what
                // of the log and which chat channels they see. A failed look keeps the stream
                // and its last place, and looks again at the next tick.
                match Box::pin(table::look(
                    &self.state.pool,
                    self.game_id,
                    self.caller.user_id,
                ))
                .await
                {
                    Ok(seen) => {
                        // The game may be further than the feed's reading.
                        want.version = want.version.max(seen.head.version);
                        place = Some(Place {
                            seat: seen.seat,
                            admin: seen.admin,
                            standing: seen.standing,
                        });
                    }
                    Err(crate::service::play::error::Error::GameNotFound) => break,
                    Err(error) => {
                        tracing::warn!(game = %self.game_id, %error, "a live stream could not read the game")
                    }
                }
            }
            if let Some(place) = place.filter(|_| std::mem::take(&mut read)) {
                // Nothing more once the credential was taken away (a login's standing is
                // known in memory; an API token's is one statement).
                if !self.caller.still_stands(&self.state).await {
                    break;
                }
                // A failed reading sends nothing now: the stream resumes from `last` at the
                // next note or tick.
                let reading = match feed.reading(want).await {
                    Ok(reading) => Some(reading),
                    Err(crate::service::play::error::Error::GameNotFound) => break,
                    Err(error) => {
                        tracing::warn!(game = %self.game_id, %error, "a live stream could not read the game");
                        None
                    }
                };
                if let Some(reading) = reading {
                    // Their place as last looked at, against the game as it is now: a
                    // players-only table closes to spectators when it starts.
                    if !table::may_read(&reading.head, self.caller.user_id, place.standing) {
                        break;
                    }
                    if std::mem::take(&mut seats_changed) {
                        match Box::pin(self.snapshot(&sender, last.chat)).await {
                            Ok(seen) => last = seen,
                            Err(error) => {
                                tracing::warn!(game = %self.game_id, %error, "a live stream could not read the game")
                            }
                        }
                    }
                    // Anyone who may watch the game may read its rematch offers.
                    for offer in std::mem::take(&mut rematches) {
                        let data = json!({"game_id": self.game_id, "offer_id": offer});
                        let _ = sender
                            .send(event_stream::message(
                                "rematch",
                                None,
                                data.to_string().as_bytes(),
                            ))
                            .await;
                    }
                    for id in std::mem::take(&mut hidden) {
                        let seen = place.at(&reading);
                        if let Err(error) = Box::pin(self.hidden(&sender, &seen, id)).await {
                            tracing::warn!(game = %self.game_id, %error, "a live stream could not read a hidden message");
                        }
                    }
                    // A long catch-up stops as soon as nobody is left to read it.
                    let caught = tokio::select! {
                        caught = Box::pin(self.catch_up(&sender, &feed, &reading, place, last, view)) => caught,
                        _ = sender.closed() => break,
                        _ = &mut closed => break,
                    };
                    match caught {
                        Ok(seen) => (last, view) = (seen, true),
                        Err(error) => {
                            tracing::warn!(game = %self.game_id, %error, "a live stream could not read the log")
                        }
                    }
                }
            }
            tokio::select! {
                signal = signals.game.recv() => {
                    match signal {
                        // Only the owner of a saved note is told, and nothing need be read.
                        Ok(Signal::Changed(note)) if note.game_id == self.game_id && note.note_saved => {
                            if note.users.contains(&self.caller.user_id) {
                                let data = json!({"game_id": self.game_id}).to_string();
                                if sender.send(event_stream::message("note", None, data.as_bytes())).await.is_err() {
                                    break;
                                }
                            }
                        }
                        // A change of orders alone: only their owner is told, nothing read.
                        Ok(Signal::Changed(note)) if note.game_id == self.game_id && note.version == 0 && !note.orders.is_empty() => {
                            if note.orders.contains(&self.caller.user_id) {
                                let data = json!({"game_id": self.game_id}).to_string();
                                if sender.send(event_stream::message("orders", None, data.as_bytes())).await.is_err() {
                                    break;
                                }
                            }
                        }
                        Ok(Signal::Changed(note)) if note.game_id == self.game_id => {
                            if note.orders.contains(&self.caller.user_id) {
                                let data = json!({"game_id": self.game_id}).to_string();
                                if sender.send(event_stream::message("orders", None, data.as_bytes())).await.is_err() {
                                    break;
                                }
                            }
                            seats_changed |= note.seats_changed;
                            // Who sits where is settled by then: the reader's seat decides
                            // what they see.
                            look |= note.seats_changed || note.started;
                            if note.chat_hidden != 0 {
                                hidden.push(note.chat_hidden);
                                feed.forget_chat();
                            }
                            if note.rematch != 0 {
                                rematches.push(note.rematch);
                            }
                            // A marker moved: nothing for the game's stream.
                            if !note.chat_read {
                                read = true;
                                want.notes = hub.received();
                            }
                        }
                        Ok(Signal::Changed(_)) => {}
                        Ok(Signal::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => {
                            feed.forget_chat();
                            (look, read) = (true, true);
                            want.notes = hub.received();
                        }
                        Err(broadcast::error::RecvError::Closed) => break,
                    }
                }
                // A block of the caller's, or of them (or notes lost): may they still watch?
                signal = signals.blocks.recv() => {
                    if let Err(broadcast::error::RecvError::Closed) = signal {
                        break;
                    }
                    (look, read) = (true, true);
                }
                _ = presence.tick() => {
                    let _ = Box::pin(self.present(true)).await;
                    // A note can be lost (see `live`), and a block since the stream began
                    // ends it: now and then, look without one.
                    (look, read) = (true, true);
                }
                _ = sender.closed() => break,
                _ = &mut closed => break,
            }
        }
        let _ = Box::pin(self.present(false)).await;
    }

    /// Sends the game as this user sees it now (`event: snapshot`), its id covering chat
    /// messages up to `chat` (the history is the chat's pages); returns where it left off.
    async fn snapshot(&self, sender: &Frames, chat: i64) -> Result<ResumeId, ApiError> {
        let detail =
            actions::detail(&self.state.pool, self.caller.user_id, self.game_id, None).await?;
        let at = ResumeId {
            version: detail.summary.version,
            chat,
        };
        let snapshot =
            event_stream::json("snapshot", Some(&at.id()), &detail).map_err(anyhow::Error::from)?;
        let _ = sender.send(snapshot).await;
        Ok(at)
    }

    /// Tells the client that a moderator hid chat message `id` (`event: chat_hidden`), if
    /// they may read its channel.
    async fn hidden(&self, sender: &Frames, seen: &table::Look, id: i64) -> anyhow::Result<()> {
        if let Some(channel) = chat::hidden_in(&self.state.pool, seen, id).await? {
            let data = json!({"id": id, "channel": channel}).to_string();
            let _ = sender
                .send(event_stream::message("chat_hidden", None, data.as_bytes()))
                .await;
        }
        Ok(())
    }

    /// Sends the chat messages after `last` in the channels the caller may read now
    /// (`event: chat`), a query a page; returns the last one sent.
    async fn chat_up(
        &self,
        sender: &Frames,
        seen: &table::Look,
        mut last: ResumeId,
    ) -> anyhow::Result<ResumeId> {
        loop {
            let messages = chat::stream_since(&self.state.pool, seen, last.chat).await?;
            let full = messages.len() as i64 == chat::MAX_PAGE;
            let (sent, open) = send_chat(sender, messages, last).await?;
            last = sent;
            if !open || !full {
                return Ok(last);
            }
        }
    }

    /// Sends the events after `last` as this user may see them, then (if the version moved,
    /// and `view`) the game as they see it now (`event: view`), then the chat messages after
    /// it; returns where it left off. From the feed's `reading`, the events and the `view` go
    /// as one frame, made once for the reader's viewer class (see `Feed::delivery`) and so
    /// one write; if `last` lies before the feed's window, a page at a time (`page_up`).
    ///
    /// What only a stream far behind needs (paging the log, reading the chat) is awaited
    /// boxed, so that a delivery's future is small: every stream of the game makes one per
    /// change, and a larger one is a larger copy each time.
    async fn catch_up(
        &self,
        sender: &Frames,
        feed: &Feed,
        reading: &Reading,
        place: Place,
        mut last: ResumeId,
        view: bool,
    ) -> anyhow::Result<ResumeId> {
        let head = &reading.head;
        let viewer = crate::service::play::log::viewer_for(head, self.caller.user_id, place.seat);
        let from = Position {
            version: last.version,
            chat: last.chat,
        };
        let shared = feed.delivery(reading, viewer, place.seat, from, view, |events, update| {
            delivery_frame(events, update, from.chat)
        });
        match shared {
            Some(frame) => {
                let frame = frame?;
                if !frame.is_empty() && sender.send(frame).await.is_err() {
                    return Ok(last);
                }
                last.version = last.version.max(head.version);
            }
            None => {
                let paged = Box::pin(self.page_up(sender, feed, reading, place, last, view));
                match paged.await? {
                    Paged::Open(at) => last = at,
                    Paged::Closed(at) => return Ok(at),
                }
            }
        }
        match feed.chat_after(reading, place.seat, place.admin, last.chat) {
            Some(messages) => Ok(send_chat(sender, messages, last).await?.0),
            None => Box::pin(self.chat_up(sender, &place.at(reading), last)).await,
        }
    }

    /// Sends the events after `last` up to the reading's version a page at a time, as
    /// `GET /games/{id}/events`, then (if the version moved, and `view`) the `view`: for a
    /// stream behind the feed's window (a resume after a long absence).
    async fn page_up(
        &self,
        sender: &Frames,
        feed: &Feed,
        reading: &Reading,
        place: Place,
        mut last: ResumeId,
        view: bool,
    ) -> anyhow::Result<Paged> {
        let (head, from) = (&reading.head, last.version);
        let viewer = crate::service::play::log::viewer_for(head, self.caller.user_id, place.seat);
        while last.version < head.version {
            if sender.is_closed() {
                return Ok(Paged::Closed(last));
            }
            let page = log::page_of(&self.state.pool, head, viewer, last.version, log::MAX_PAGE)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            for event in page.items {
                let at = ResumeId {
                    version: event.seq,
                    chat: last.chat,
                };
                let data = event_stream::json("event", Some(&at.id()), &event)?;
                if sender.send(data).await.is_err() {
                    return Ok(Paged::Closed(last));
                }
                last = at;
            }
            match page.next_after {
                Some(next) => last.version = next,
                None => {
                    last.version = page.version.max(last.version);
                    break;
                }
            }
        }
        if view && last.version > from && last.version == head.version {
            let update = feed
                .update(reading, viewer, place.seat)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let data = event_stream::message("view", None, &update);
            if sender.send(data).await.is_err() {
                return Ok(Paged::Closed(last));
            }
        }
        Ok(Paged::Open(last))
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
/// game's id; `chat_unread` (`{"game_id", "unread"}`) when the caller's unread chat count in
/// a game they play changed (a message in a channel they read, a hidden one, their own read
/// marker moved); `rematch` (`{"game_id", "offer_id"}`) when a rematch offer of a finished
/// game they played was made, answered or ended (read it at `GET /games/{id}/rematch`; the
/// rematch itself comes as `game_started`); `undo_requested` (`{"game_id", "request",
/// "version"}`) when another player asks to take moves back and the caller's consent is
/// needed, and `undo_closed` (`{"game_id", "request", "version", "outcome"}`: `rewound`,
/// `declined`, `withdrawn` or `lapsed`) when a request the caller made or was asked ends
/// (see `GET /games/{id}`'s `undo`); `tournament_started` and `tournament_round`
/// (`{"tournament_id", "event", "round", "game_id"}`: the caller's game of the round just
/// seated), `tournament_finished` (`{"tournament_id", "event", "round"}`) for a tournament
/// the caller entered, and `tournament_cancelled` (the same, `round` 0) for one the caller
/// entered or organised that too few entered (read it at `GET /tournaments/{id}`);
/// `tournament_entrants` (`{"tournament_id", "event": "entrants", "round": 0}`) while entry
/// is open, when a player enters a tournament the caller entered or organises, or takes the
/// entry back (the caller's own entering and leaving too). A new `snapshot` comes whenever notices may have been missed (the server lost
/// touch with the database for a while): it replaces the one before. Keep-alive comments
/// every 15 s. Counts against the same per-user limit of
/// open streams as the game streams (`too_many_streams`).
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
    let mut signals = state.hub.subscribe_to(Topic::User(me));
    let (sender, receiver) = event_stream::channel();
    let _ = sender.send(user_snapshot(&state, me).await?).await;
    let keep_alive = state.config.live_keep_alive;
    // What a notice needs of the database is awaited boxed, as in `Watcher::run`.
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
                        if note.rematch != 0 && note.users.contains(&me) {
                            out.push(("rematch", json!({"game_id": note.game_id, "offer_id": note.rematch})));
                        }
                        if note.undo_request != 0 && note.undo_asked.contains(&me) {
                            out.push(("undo_requested", json!({"game_id": note.game_id, "request": note.undo_request, "version": note.version})));
                        }
                        if let Some(outcome) = &note.undo_closed && note.undo_concerned.contains(&me) {
                            out.push(("undo_closed", json!({"game_id": note.game_id, "request": note.undo_request, "version": note.version, "outcome": outcome})));
                        }
                        if let Some(tournament) = &note.tournament && note.users.contains(&me) {
                            out.push((tournament.stream_event(), json!(tournament)));
                        }
                        let chat_changed = note.chat != 0 || note.chat_hidden != 0 || note.chat_read;
                        if chat_changed && note.users.contains(&me) {
                            match Box::pin(lobby::summary(&state.pool, note.game_id, me)).await {
                                Ok(game) => out.push(("chat_unread", json!({"game_id": note.game_id, "unread": game.chat_unread}))),
                                Err(error) => tracing::warn!(%error, "a user stream could not count unread chat"),
                            }
                        }
                        if !out.is_empty() && !caller.still_stands(&state).await {
                            return;
                        }
                        for (event, data) in out {
                            if sender.send(event_stream::message(event, None, data.to_string().as_bytes())).await.is_err() {
                                return;
                            }
                        }
                    }
                    // Notices may have been missed: a new snapshot says what holds now.
                    Ok(Signal::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        match Box::pin(user_snapshot(&state, me)).await {
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
    Ok(EventStream::new(receiver, keep_alive))
}

/// The user stream's `snapshot` event: the games waiting for `me` (the first 100).
async fn user_snapshot(state: &AppState, me: Uuid) -> Result<Bytes, ApiError> {
    let waiting = lobby::list(
        &state.pool,
        me,
        ListQuery {
            view: Some(ListView::MyTurn),
            kind: None,
            status: None,
            result: None,
            tournament_games: None,
            limit: Some(100),
            cursor: None,
        },
    )
    .await?;
    let snapshot = json!({"your_turn": waiting.items.iter().map(|g| json!({"game_id": g.id, "kind": g.kind, "version": g.version})).collect::<Vec<_>>()});
    Ok(event_stream::message(
        "snapshot",
        None,
        snapshot.to_string().as_bytes(),
    ))
}

/// Sends chat `messages` (`event: chat`, each with its id) after `last`; returns where it
/// left off, and `false` once the client is gone.
async fn send_chat(
    sender: &Frames,
    messages: Vec<chat::ChatMessage>,
    mut last: ResumeId,
) -> anyhow::Result<(ResumeId, bool)> {
    for message in messages {
        let at = ResumeId {
            version: last.version,
            chat: message.id,
        };
        let data = event_stream::json("chat", Some(&at.id()), &message)?;
        if sender.send(data).await.is_err() {
            return Ok((last, false));
        }
        last = at;
    }
    Ok((last, true))
}

/// The frame of a delivery: the events (`event`, each with its id: its version, and the
/// stream's last chat message `chat`), then the `view` if any (no id of its own: it belongs
/// to the last event, as an EventSource's `lastEventId` stays that event's, and a stream's
/// ids stay one per version or message).
fn delivery_frame(events: &[Redacted], update: Option<&Bytes>, chat: i64) -> Bytes {
    let size: usize = events
        .iter()
        .map(|(_, data)| data.len() + 48)
        .sum::<usize>()
        + update.map_or(0, |update| update.len() + 24);
    let mut out = BytesMut::with_capacity(size);
    for (seq, data) in events {
        let id = ResumeId {
            version: *seq,
            chat,
        }
        .id();
        event_stream::push(&mut out, "event", Some(&id), data);
    }
    if let Some(update) = update {
        event_stream::push(&mut out, "view", None, update);
    }
    out.freeze()
}
