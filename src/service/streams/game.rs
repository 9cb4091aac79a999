//! The live feed of a game: what this instance's streams of one game read, once per change.
//!
//! Every stream of a game used to read on every note of its game: the game and its reader's
//! place, its redacted page of the log, the new chat messages (three statements a stream a
//! change). Now each instance keeps one [`Feed`] per game with open streams (held by them
//! alone: gone with the last one). On a note, the first stream that needs a newer reading
//! makes it (the head, the seats, the events after the feed's version, the new chat messages
//! of every channel, the rewinds that mark undone events, the undo's inputs), while the
//! others wait for it; each stream then takes what its reader may see, in memory: the events
//! redacted by the rules engine for its viewer, the chat of the channels it may read. What is
//! the same for every stream of a viewer class (a seat, the spectators, everyone once the game
//! is over) is computed and serialized once: the redacted events, the `view` event's
//! `GameUpdate`, and the bytes a delivery sends (the events after a version and the `view`,
//! as one frame), which the class's streams share. The state is folded forward in memory from
//! the previous reading by the rules engine.
//!
//! A feed keeps the latest [`WINDOW`] versions and [`CHAT_WINDOW`] chat messages; a stream
//! further behind (a resume after a long absence) reads its pages itself, as before.

use crate::games::{Rules, Seat, Viewer};
use crate::live::Hub;
use crate::service::play::actions::{GameUpdate, kind_of};
use crate::service::play::error::Error;
use crate::service::play::log::{decode_rules_events, mark_undone, name_seats, present, state_at};
use crate::service::play::undo::Skip;
use crate::service::play::undo_views::{self as undo, UndoInputs};
use crate::service::social::chat::ChatMessage;
use crate::store::chat::{self as chat_store, MessageRow};
use crate::store::events::{self, EventRow};
use crate::store::games::{self, GameHead, SeatRow, Status};
use crate::with_rules;
use bytes::Bytes;
use sqlx::PgPool;
use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use uuid::Uuid;

/// How many of the latest versions a feed keeps.
pub const WINDOW: usize = 256;
/// How many of the latest chat messages a feed keeps.
pub const CHAT_WINDOW: usize = 256;
/// The most chat pages one reading takes (a flood is read on at the next change).
const CHAT_PAGES: usize = 4;
/// The most delivery frames a reading keeps: the streams that stand where the last change
/// left them share a few (one per class); streams resuming from scattered places (each
/// `Last-Event-ID` is a place of its own) make theirs beyond that without keeping them, so
/// that reconnects cannot pile frames up in memory.
const SHARED_DELIVERIES: usize = 64;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The feeds of this instance, one per game with open streams.
pub struct Feeds {
    hub: Arc<Hub>,
    feeds: Mutex<FeedMap>,
}

struct FeedMap {
    by_game: HashMap<Uuid, Weak<Feed>>,
    /// The size at which entries of closed feeds are swept out.
    sweep_at: usize,
}

impl Feeds {
    pub fn new(hub: Arc<Hub>) -> Self {
        Self {
            hub,
            feeds: Mutex::new(FeedMap {
                by_game: HashMap::new(),
                sweep_at: 64,
            }),
        }
    }

    /// The feed of `game_id`, shared with the game's other streams on this instance.
    pub fn of(&self, pool: &PgPool, game_id: Uuid) -> Arc<Feed> {
        let mut map = lock(&self.feeds);
        if let Some(feed) = map.by_game.get(&game_id).and_then(Weak::upgrade) {
            return feed;
        }
        if map.by_game.len() >= map.sweep_at {
            map.by_game.retain(|_, feed| feed.strong_count() > 0);
            map.sweep_at = (map.by_game.len() * 2).max(64);
        }
        let feed = Arc::new(Feed {
            game_id,
            pool: pool.clone(),
            hub: self.hub.clone(),
            turn: tokio::sync::Mutex::new(()),
            current: Mutex::new(None),
            forget_chat: AtomicBool::new(false),
            memo: Mutex::new(EventMemo::default()),
        });
        map.by_game.insert(game_id, Arc::downgrade(&feed));
        feed
    }
}

/// What a stream needs of a reading: taken after the hub had received `notes` notes (so it
/// shows every change they announced), at `version` or later.
#[derive(Clone, Copy, Debug, Default)]
pub struct Want {
    pub notes: u64,
    pub version: i64,
}

/// An event as a viewer class may see it: its version and its JSON.
pub type Redacted = (i64, Bytes);

/// One game's shared reading, see the module's doc.
pub struct Feed {
    game_id: Uuid,
    pool: PgPool,
    hub: Arc<Hub>,
    /// One reading at a time: the streams that need a newer one wait for it.
    turn: tokio::sync::Mutex<()>,
    current: Mutex<Option<Arc<Reading>>>,
    /// A moderator hid a message (or notes were lost): the next reading keeps no older chat
    /// message, whose `hidden` may have changed since it was read.
    forget_chat: AtomicBool,
    memo: Mutex<EventMemo>,
}

/// The events as each viewer class sees them, serialized once (`None`: hidden from it).
#[derive(Default)]
struct EventMemo {
    /// The rewinds and seat names the marks were made with: new ones redo the marks.
    rewinds: usize,
    names: Arc<HashMap<Uuid, String>>,
    by_class: HashMap<Class, BTreeMap<i64, Option<Bytes>>>,
}

/// A viewer class and the seat of its reader (which decides `your_turn`, `legal`, `undo`):
/// everything that decides what a stream is sent of a reading (what the rules engine
/// redacts for the viewer, and the seat's own part of the `view`). A seat's player sees
/// their seat, a spectator the spectators' view, everyone everything once the game is over
/// (and the importer of a sandbox always): see `log::viewer_for`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Class(u8, i16, Option<i16>);

/// Where a stream stands: the version and the chat message it sent last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub version: i64,
    pub chat: i64,
}

/// One delivery as a class's streams send it: the events after `after` (each with an id
/// that holds `after`'s chat message), and the `view` if `view`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Delivery {
    class: Class,
    after: Position,
    view: bool,
}

impl Class {
    fn of(viewer: Viewer, seat: Option<i16>) -> Self {
        match viewer {
            Viewer::Omniscient => Class(0, -1, seat),
            Viewer::Spectator => Class(1, -1, seat),
            Viewer::Seat(s) => Class(2, i16::from(s), seat),
        }
    }
}

/// A game as the feed read it once for all its streams.
pub struct Reading {
    /// The hub's count of notes received when this reading began.
    taken: u64,
    pub head: GameHead,
    pub seats: Vec<SeatRow>,
    /// The events after `events_from`, up to the head's version (at most [`WINDOW`]).
    events: Vec<Arc<EventRow>>,
    events_from: i64,
    /// The chat messages after `chat_from`, up to `chat_newest` (at most [`CHAT_WINDOW`]).
    chat: Vec<Arc<MessageRow>>,
    chat_from: i64,
    chat_newest: i64,
    /// What marks events undone, if the game has rewinds.
    skip: Option<Arc<Skip>>,
    rewinds: usize,
    /// The current username of each seated account.
    names: Arc<HashMap<Uuid, String>>,
    /// The rules state at the head's version (a game that has started).
    state: Option<Arc<dyn Any + Send + Sync>>,
    undo: Arc<UndoInputs>,
    /// The `view` events' data per class, serialized once.
    updates: Mutex<HashMap<Class, Bytes>>,
    /// The frames of the deliveries made of this reading, encoded once per class.
    deliveries: Mutex<HashMap<Delivery, Bytes>>,
}

impl Reading {
    fn serves(&self, want: Want) -> bool {
        self.taken >= want.notes && self.head.version >= want.version
    }
}

impl Feed {
    /// A reading that serves `want`: the current one, or a new one (made by this stream, or
    /// by another while this one waits). The reading itself is awaited boxed: every stream
    /// asks on every wake-up and nearly always finds the current reading, so the future
    /// it awaits is small rather than the size of the queries.
    pub async fn reading(&self, want: Want) -> Result<Arc<Reading>, Error> {
        if let Some(reading) = self.current().filter(|r| r.serves(want)) {
            return Ok(reading);
        }
        let _turn = self.turn.lock().await;
        let previous = self.current();
        if let Some(reading) = previous.clone().filter(|r| r.serves(want)) {
            return Ok(reading);
        }
        let taken = self.hub.received();
        let reading = Arc::new(Box::pin(self.read(previous.as_deref(), taken)).await?);
        *lock(&self.current) = Some(reading.clone());
        Ok(reading)
    }

    fn current(&self) -> Option<Arc<Reading>> {
        lock(&self.current).clone()
    }

    /// The next reading keeps no chat message read before it (see `forget_chat`).
    pub fn forget_chat(&self) {
        self.forget_chat.store(true, Ordering::Relaxed);
    }

    async fn read(&self, previous: Option<&Reading>, taken: u64) -> Result<Reading, Error> {
        let game_id = self.game_id;
        let mut conn = self.pool.acquire().await?;
        let head = games::head(&mut *conn, game_id)
            .await?
            .ok_or(Error::GameNotFound)?;
        let seats = games::seats(&mut *conn, game_id).await?;
        let version = head.version;

        // The events: the window of the previous reading, and those after it.
        let known = previous.map_or(version, |p| p.head.version.min(version));
        let first_new = (known + 1).max(version - WINDOW as i64 + 1).max(1);
        let new_rows = if first_new <= version {
            events::load_presented(&mut *conn, game_id, first_new, version).await?
        } else {
            Vec::new()
        };
        // All the events after the previous reading are in `new_rows` (none skipped).
        let contiguous = first_new == known + 1;
        let mut window: Vec<Arc<EventRow>> = match previous {
            Some(p) if contiguous => p.events.clone(),
            _ => Vec::new(),
        };
        window.extend(new_rows.iter().cloned().map(Arc::new));
        if window.len() > WINDOW {
            window.drain(..window.len() - WINDOW);
        }
        let events_from = window.first().map_or(version, |e| e.seq - 1);
        let rewound = new_rows.iter().any(|r| r.kind == "kontor.rewound");

        // The marks of undone events: read again only when a rewind came.
        let (skip, rewinds) = match previous {
            _ if head.undone_events == 0 => (None, 0),
            Some(p) if contiguous && !rewound && p.skip.is_some() => (p.skip.clone(), p.rewinds),
            _ => {
                let rows = events::rewinds(&mut *conn, game_id, version).await?;
                let skip = Skip::of(
                    rows.iter()
                        .map(|(seq, kind, payload)| (*seq, kind.as_str(), payload)),
                )
                .map_err(anyhow::Error::from)?;
                (Some(Arc::new(skip)), rows.len())
            }
        };

        let names: HashMap<Uuid, String> = seats
            .iter()
            .map(|s| (s.user_id, s.username.clone()))
            .collect();
        let names = match previous {
            Some(p) if *p.names == names => p.names.clone(),
            _ => Arc::new(names),
        };

        // The chat: the messages after the newest one read.
        let forget = self.forget_chat.swap(false, Ordering::Relaxed);
        let (mut chat, mut chat_from, mut chat_newest) = match previous {
            Some(p) if forget => (Vec::new(), p.chat_newest, p.chat_newest),
            Some(p) => (p.chat.clone(), p.chat_from, p.chat_newest),
            None => {
                let newest = chat_store::last_id(&mut *conn, game_id).await?;
                (Vec::new(), newest, newest)
            }
        };
        if previous.is_some() {
            for _ in 0..CHAT_PAGES {
                let page = chat_store::since_in_game(
                    &mut *conn,
                    game_id,
                    chat_newest,
                    crate::service::social::chat::MAX_PAGE,
                )
                .await?;
                let full = page.len() as i64 == crate::service::social::chat::MAX_PAGE;
                if let Some(last) = page.last() {
                    chat_newest = last.id;
                }
                chat.extend(page.into_iter().map(Arc::new));
                if !full {
                    break;
                }
            }
        }
        if chat.len() > CHAT_WINDOW {
            let dropped: Vec<_> = chat.drain(..chat.len() - CHAT_WINDOW).collect();
            chat_from = dropped.last().map_or(chat_from, |m| m.id);
        }

        // The state at the head's version, folded on from the previous one where it can be.
        let started = matches!(head.status(), Status::Active | Status::Finished) && version > 0;
        let state = if !started {
            None
        } else {
            let kind = kind_of(&head)?;
            let state: Arc<dyn Any + Send + Sync> = with_rules!(kind, R => {
                let before = previous
                    .filter(|p| contiguous && !rewound && p.head.version <= version)
                    .and_then(|p| p.state.clone())
                    .and_then(|s| s.downcast_ref::<<R as Rules>::State>().cloned());
                let state = match before {
                    Some(mut state) => {
                        for event in &decode_rules_events::<R>(&new_rows)? {
                            R::evolve(&mut state, event);
                        }
                        state
                    }
                    None => state_at::<R>(&mut conn, &head, version).await?,
                };
                Arc::new(state)
            });
            Some(state)
        };

        let undo = match previous {
            Some(p) if p.head.version == version && p.head.status == head.status => p.undo.clone(),
            _ => Arc::new(undo::read_inputs(&mut conn, &head, true).await?),
        };
        metrics::counter!(crate::telemetry::names::LIVE_FEED_READS).increment(1);
        Ok(Reading {
            taken,
            head,
            seats,
            events: window,
            events_from,
            chat,
            chat_from,
            chat_newest,
            skip,
            rewinds,
            names,
            state,
            undo,
            updates: Mutex::new(HashMap::new()),
            deliveries: Mutex::new(HashMap::new()),
        })
    }

    fn redacted(
        &self,
        reading: &Reading,
        viewer: Viewer,
        after: i64,
    ) -> anyhow::Result<Vec<Redacted>> {
        let wanted: Vec<&Arc<EventRow>> = reading.events.iter().filter(|e| e.seq > after).collect();
        let mut memo = lock(&self.memo);
        if memo.rewinds != reading.rewinds || !Arc::ptr_eq(&memo.names, &reading.names) {
            memo.by_class.clear();
            memo.rewinds = reading.rewinds;
            memo.names = reading.names.clone();
        }
        let seen = memo.by_class.entry(Class::of(viewer, None)).or_default();
        let missing: Vec<EventRow> = wanted
            .iter()
            .filter(|e| !seen.contains_key(&e.seq))
            .map(|e| EventRow::clone(e))
            .collect();
        if !missing.is_empty() {
            let kind = kind_of(&reading.head).map_err(|e| anyhow::anyhow!("{e}"))?;
            let mut items = with_rules!(kind, R => present::<R>(&missing, viewer)?);
            if let Some(skip) = &reading.skip {
                mark_undone(&mut items, skip, reading.head.version);
            }
            name_seats(&mut items, &reading.names);
            for row in &missing {
                seen.insert(row.seq, None);
            }
            for item in items {
                seen.insert(item.seq, Some(serde_json::to_vec(&item)?.into()));
            }
        }
        // What left the window is not needed again.
        seen.retain(|&seq, _| seq > reading.events_from);
        Ok(wanted
            .iter()
            .filter_map(|e| Some((e.seq, seen.get(&e.seq)?.clone()?)))
            .collect())
    }

    /// The `view` event's data (a `GameUpdate`) for a reader of `viewer` class at `seat`, at
    /// the reading's version: computed once per class and reading.
    pub fn update(
        &self,
        reading: &Reading,
        viewer: Viewer,
        seat: Option<i16>,
    ) -> Result<Bytes, Error> {
        let class = Class::of(viewer, seat);
        if let Some(done) = lock(&reading.updates).get(&class) {
            return Ok(done.clone());
        }
        let head = &reading.head;
        let (view, legal) = match &reading.state {
            None => (None, None),
            Some(state) => {
                let legal_for = seat
                    .filter(|_| head.status() == Status::Active)
                    .map(|s| s as Seat);
                let kind = kind_of(head)?;
                with_rules!(kind, R => {
                    let state = state
                        .downcast_ref::<<R as Rules>::State>()
                        .ok_or_else(|| Error::internal(anyhow::anyhow!("a feed's state of another kind")))?;
                    let view = serde_json::to_value(R::view(state, viewer))?;
                    let legal = legal_for
                        .map(|seat| serde_json::to_value(R::legal(state, seat)))
                        .transpose()?;
                    (Some(view), legal)
                })
            }
        };
        let summary =
            crate::service::play::lobby::GameSummary::new(head, &reading.seats, Uuid::nil());
        let update = GameUpdate {
            id: head.id,
            kind: head.kind.clone(),
            version: head.version,
            at_version: head.version,
            status: summary.status,
            pending: summary.pending,
            your_turn: seat.is_some_and(|s| head.pending_seats.contains(&s)),
            turn_started_at: summary.turn_started_at,
            finished_at: summary.finished_at,
            outcome: summary.outcome,
            seats: summary.seats,
            view,
            legal,
            undo: undo::state_of(head, &reading.seats, seat, &reading.undo)?,
            seed: (head.status() == Status::Finished).then(|| hex::encode(&head.seed)),
        };
        let text = Bytes::from(serde_json::to_vec(&update)?);
        lock(&reading.updates).insert(class, text.clone());
        Ok(text)
    }

    /// What a stream of `viewer` class at `seat` sends of `reading` when it stands `after`:
    /// the events after its version as the class sees them, then (if `view` and the version
    /// moved) the `view` event's data, as `encode` frames them; made once per class and
    /// reading, and the same bytes shared by every stream of the class. `None` when `after`
    /// lies before the feed's window (the stream pages the log itself).
    pub fn delivery(
        &self,
        reading: &Reading,
        viewer: Viewer,
        seat: Option<i16>,
        after: Position,
        view: bool,
        encode: impl FnOnce(&[Redacted], Option<&Bytes>) -> Bytes,
    ) -> Option<anyhow::Result<Bytes>> {
        if after.version < reading.events_from {
            return None;
        }
        let key = Delivery {
            class: Class::of(viewer, seat),
            after,
            view,
        };
        // Held while the frame is made, so that the class's other streams wait for it
        // rather than make it again.
        let mut deliveries = lock(&reading.deliveries);
        if let Some(frame) = deliveries.get(&key) {
            return Some(Ok(frame.clone()));
        }
        let made = (|| {
            let events = self.redacted(reading, viewer, after.version)?;
            let update = (view && reading.head.version > after.version)
                .then(|| self.update(reading, viewer, seat))
                .transpose()
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(encode(&events, update.as_ref()))
        })();
        Some(made.inspect(|frame| {
            if deliveries.len() < SHARED_DELIVERIES {
                deliveries.insert(key, frame.clone());
            }
        }))
    }

    /// The chat messages of `reading` after id `after` in the channels a reader at `seat`
    /// may read, as they may see them (`admin`: with hidden text); `None` when `after` lies
    /// before the feed's window (the stream reads them itself).
    pub fn chat_after(
        &self,
        reading: &Reading,
        seat: Option<i16>,
        admin: bool,
        after: i64,
    ) -> Option<Vec<ChatMessage>> {
        if after < reading.chat_from {
            return None;
        }
        // Most catch-ups bring no chat message: nothing to sort out then.
        if reading.chat.last().is_none_or(|m| m.id <= after) {
            return Some(Vec::new());
        }
        let channels: Vec<String> =
            crate::service::play::channels::readable_in(&reading.head, seat)
                .iter()
                .map(|c| c.name())
                .collect();
        Some(
            reading
                .chat
                .iter()
                .filter(|m| m.id > after && channels.contains(&m.channel))
                .map(|m| ChatMessage::of(MessageRow::clone(m), admin))
                .collect(),
        )
    }
}
