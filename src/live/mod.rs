//! Live updates. Every change a stream may care about is announced by a small note on the
//! `kontor_live` channel: an append's note by the `Publisher` once the append has committed,
//! the lobby's (invitations, starts, returns to a seat) by `pg_notify` in their own rarer
//! transactions. Each instance keeps one LISTEN connection and fans the notes out to its open
//! streams in process, so an action through one instance reaches streams held by another. A
//! note only says that something changed; streams read what changed from the log, and look
//! again now and then on their own, so a lost or coalesced note costs nothing but a resync.

use crate::store::channels;
use crate::store::games::Status;
use serde::{Deserialize, Serialize};
use sqlx::postgres::PgListener;
use sqlx::{ConnectOptions, PgConnection, PgPool};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// The channel live notes travel on.
pub const LIVE_CHANNEL: &str = "kontor_live";

/// The payload (not a note) that tells every hub notes were lost: each stream resynchronises.
const RESYNC: &str = "resync";

/// How the publisher's connection names itself to PostgreSQL (`pg_stat_activity`).
pub const PUBLISHER_APPLICATION_NAME: &str = "kontor-live-publisher";

/// What a note says. Notes are built here only, by the constructors below (an append's by
/// `service::play::step`, the lobby's by `service::play::lobby` and `service::play::absence`); what a note leaves
/// at its default is not sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub game_id: Uuid,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub version: i64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub status: String,
    /// Users whose turn began with this change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub your_turn: Vec<Uuid>,
    /// Every player of the game.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub users: Vec<Uuid>,
    /// Users just invited, and by whom.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invited: Vec<Uuid>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The game has just started.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub started: bool,
    /// The seat whose player deleted their account (`kontor.seat_left`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_seat: Option<i16>,
    /// A seat of the open game was taken or given up: no event of the log says so.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seats_changed: bool,
    /// The game was just created (for the lobby's live stream).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub opened: bool,
    /// A chat message was written with this id (`users`: players whose unread count may
    /// have changed).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub chat: i64,
    /// A moderator hid the chat message with this id.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub chat_hidden: i64,
    /// The rematch offer with this id changed (made, answered, ended); `users` are the
    /// players of the finished game.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rematch: i64,
    /// `users`' unread chat counts in the game changed (a read marker moved).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub chat_read: bool,
    /// The private note of `users` (its one owner) on the game was saved: only the owner's
    /// own streams of the game are told.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub note_saved: bool,
    /// Users whose standing orders in the game changed, or what the server did with them:
    /// only their own streams of the game are told (`orders`), never anyone else's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub orders: Vec<Uuid>,
    /// The undo request with this number (the sequence number of its
    /// `kontor.undo_requested`) was made or ended.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub undo_request: i64,
    /// Users whose consent the new request asks (their user streams are told).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undo_asked: Vec<Uuid>,
    /// How the request ended (`rewound`, `declined`, `withdrawn`, `lapsed`), told to
    /// `undo_concerned`: the requester and the seats it asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_closed: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undo_concerned: Vec<Uuid>,
    /// `users` (two) blocked one another (one of them the other): their game streams look
    /// again at once whether they may still watch. Such a note's `game_id` is nil.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blocked: bool,
    /// A tournament event for `users`' own streams. Such a note's `game_id` is nil, so no
    /// game's stream and no lobby reacts to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentNote>,
}

/// What happened in a tournament, told on the user streams of the players concerned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentNote {
    pub tournament_id: Uuid,
    /// `started` (round 1 seated), `round` (a later round seated), `finished`,
    /// `cancelled` (too few entered when entry closed; round 0), or `entrants` (a player
    /// entered or took their entry back; round 0).
    pub event: String,
    /// The round seated, or the last round when finished.
    pub round: i16,
    /// The game the player sits in this round (absent when finished).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<Uuid>,
}

impl TournamentNote {
    /// The event's name on `/me/stream`.
    pub fn stream_event(&self) -> &'static str {
        match self.event.as_str() {
            "started" => "tournament_started",
            "round" => "tournament_round",
            "cancelled" => "tournament_cancelled",
            "entrants" => "tournament_entrants",
            _ => "tournament_finished",
        }
    }
}

fn is_zero(version: &i64) -> bool {
    *version == 0
}

impl Note {
    /// Every user the note may tell something on their user stream (`/me/stream`, and the
    /// lobby stream's own games): those whose turn began, those invited, asked or concerned,
    /// and the players when it tells every player something. A plain move tells nobody but
    /// the next to play, so the other players' user streams do not wake for it.
    fn addressees(&self) -> impl Iterator<Item = &Uuid> {
        let players = if self.tells_players() {
            &self.users[..]
        } else {
            &[]
        };
        players
            .iter()
            .chain(&self.your_turn)
            .chain(&self.invited)
            .chain(&self.undo_asked)
            .chain(&self.undo_concerned)
    }

    /// Whether every player (`users`) is told something on their user streams: the game
    /// started or ended, a player left, a rematch offer or a tournament event, unread chat.
    /// What the user and lobby streams tell `users` must be named here, or it never reaches
    /// them (the API tests of each notice hold it).
    fn tells_players(&self) -> bool {
        self.started
            || self.status == Status::Finished.as_str()
            || self.left_seat.is_some()
            || self.rematch != 0
            || self.tournament.is_some()
            || self.chat != 0
            || self.chat_hidden != 0
            || self.chat_read
    }

    /// A game moved on to `version` (`status`: `active` or `finished`): `your_turn` are the
    /// users whose turn began, `users` every player.
    pub fn moved(
        game_id: Uuid,
        version: i64,
        status: &str,
        your_turn: Vec<Uuid>,
        users: Vec<Uuid>,
    ) -> Self {
        Self {
            game_id,
            version,
            status: status.to_string(),
            your_turn,
            users,
            ..Self::default()
        }
    }

    /// A game started: it is at `version` after its setup.
    pub fn started(game_id: Uuid, version: i64, your_turn: Vec<Uuid>, users: Vec<Uuid>) -> Self {
        Self {
            started: true,
            ..Self::moved(game_id, version, "active", your_turn, users)
        }
    }

    /// `user` was invited to an open game by `by`.
    pub fn invited(game_id: Uuid, user: Uuid, by: String) -> Self {
        Self {
            game_id,
            status: "open".to_string(),
            invited: vec![user],
            by: Some(by),
            ..Self::default()
        }
    }

    /// The player of `seat` deleted their account: the game (active) is at `version`;
    /// `users` are the other players, whose user streams are told.
    pub fn left(game_id: Uuid, version: i64, seat: i16, users: Vec<Uuid>) -> Self {
        Self {
            left_seat: Some(seat),
            ..Self::moved(game_id, version, "active", Vec::new(), users)
        }
    }

    /// Chat message `id` was written in the game; `users` are the players who may read its
    /// channel (their unread counts changed).
    pub fn chat(game_id: Uuid, id: i64, users: Vec<Uuid>) -> Self {
        Self {
            game_id,
            chat: id,
            users,
            ..Self::default()
        }
    }

    /// A moderator hid chat message `id` of the game.
    pub fn chat_hidden(game_id: Uuid, id: i64, users: Vec<Uuid>) -> Self {
        Self {
            game_id,
            chat_hidden: id,
            users,
            ..Self::default()
        }
    }

    /// Rematch offer `offer` of the finished game changed; `users` are its players.
    pub fn rematch(game_id: Uuid, offer: i64, users: Vec<Uuid>) -> Self {
        Self {
            game_id,
            rematch: offer,
            users,
            ..Self::default()
        }
    }

    /// The game moved on to `version` by an undo event: request `request` was made (asking
    /// `asked`), answered, or ended as `closed` (telling `concerned`); `your_turn` are the
    /// users whose turn began (again) with a rewind, `users` every player.
    pub fn undo(
        moved: Self,
        request: i64,
        asked: Vec<Uuid>,
        closed: Option<&str>,
        concerned: Vec<Uuid>,
    ) -> Self {
        Self {
            undo_request: request,
            undo_asked: asked,
            undo_closed: closed.map(str::to_string),
            undo_concerned: concerned,
            ..moved
        }
    }

    /// `user`'s read marker in the game moved.
    pub fn chat_read(game_id: Uuid, user: Uuid) -> Self {
        Self {
            game_id,
            chat_read: true,
            users: vec![user],
            ..Self::default()
        }
    }

    /// `user` saved their private note on the game.
    pub fn note_saved(game_id: Uuid, user: Uuid) -> Self {
        Self {
            game_id,
            note_saved: true,
            users: vec![user],
            ..Self::default()
        }
    }

    /// The standing orders of `users` in the game changed (or what the server did with
    /// them): only their own game streams are told.
    pub fn orders_changed(game_id: Uuid, users: Vec<Uuid>) -> Self {
        Self {
            game_id,
            orders: users,
            ..Self::default()
        }
    }

    /// A player took back their seat: the game (active) is at `version`.
    pub fn returned(game_id: Uuid, version: i64) -> Self {
        Self::moved(game_id, version, "active", Vec::new(), Vec::new())
    }

    /// A tournament event for `users` (see [`TournamentNote`]).
    pub fn tournament(event: TournamentNote, users: Vec<Uuid>) -> Self {
        Self {
            game_id: Uuid::nil(),
            users,
            tournament: Some(event),
            ..Self::default()
        }
    }

    /// Whether the note may change what any lobby lists: a game opened, a seat of an open game
    /// taken or given up, a game started or cancelled (the lobby streams' own users' notes
    /// come on their user topics).
    pub fn changes_lobbies(&self) -> bool {
        self.opened
            || self.seats_changed
            || self.started
            || self.status == Status::Cancelled.as_str()
    }

    /// `user` blocked `other`: the game streams of both look again whether they may watch.
    pub fn blocked(user: Uuid, other: Uuid) -> Self {
        Self {
            game_id: Uuid::nil(),
            users: vec![user, other],
            blocked: true,
            ..Self::default()
        }
    }

    /// A seat of the open game was taken or given up.
    pub fn seats_changed(game_id: Uuid) -> Self {
        Self {
            game_id,
            status: "open".to_string(),
            seats_changed: true,
            ..Self::default()
        }
    }
}

impl Note {
    /// An open game was created (its creator sits at seat 0).
    pub fn opened(game_id: Uuid) -> Self {
        Self {
            game_id,
            status: "open".to_string(),
            opened: true,
            ..Self::default()
        }
    }

    /// An open game was cancelled.
    pub fn cancelled(game_id: Uuid) -> Self {
        Self {
            game_id,
            status: "cancelled".to_string(),
            ..Self::default()
        }
    }
}

/// Announces `note` to every instance's streams when the caller's transaction commits
/// (`pg_notify` on [`LIVE_CHANNEL`]): the lobby's changes, chat, notes, undo, rematches and
/// tournaments, written in their own transactions. (An append's note goes through the
/// group committer's [`Publisher`] instead, once the append has committed.)
pub async fn announce(conn: &mut PgConnection, note: &Note) -> sqlx::Result<()> {
    let text = serde_json::to_string(note).expect("a note is plain data and serialises");
    channels::notify(conn, LIVE_CHANNEL, &text).await
}

/// What the hub passes to streams.
#[derive(Clone, Debug)]
pub enum Signal {
    Changed(Arc<Note>),
    /// Notes may have been lost (the LISTEN connection dropped, or a publisher gave some up
    /// during an outage): every stream resynchronises.
    Resync,
}

/// What a stream listens to, so that a note wakes only the streams it concerns: with one
/// channel for all, every open stream woke for every note, and a wave of actions with
/// 10,000 streams open cost each stream a wake-up per action of every game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Topic {
    /// The notes of one game (its game streams).
    Game(Uuid),
    /// The notes that may tell one user something (their user streams).
    User(Uuid),
    /// The blocks one user makes or is the object of (their game streams).
    Blocks(Uuid),
    /// The notes that may change any lobby (see `Note::changes_lobbies`): the lobby streams,
    /// beside their user's topic.
    Lobby,
    /// The notes of a game's end: the rating worker.
    Finished,
}

impl Topic {
    /// How many signals the topic's channel holds for a receiver that is behind: one further
    /// behind has lagged and resynchronises (a look, or a snapshot), as after lost notes.
    /// Small, because a channel's slots (about 48 bytes each) are allocated when it is made,
    /// one channel per game and user with streams open. A block's signal only makes a game
    /// stream look again, and a game's end only wakes the rating worker, which a lag does too,
    /// so one slot is enough there. The lobby's one channel is shared by all lobby streams.
    fn capacity(self) -> usize {
        match self {
            Topic::Game(_) | Topic::User(_) => 64,
            Topic::Blocks(_) | Topic::Finished => 1,
            Topic::Lobby => 1024,
        }
    }
}

/// The topics' channels, each made by its first subscriber.
#[derive(Default)]
struct Topics {
    channels: HashMap<Topic, broadcast::Sender<Signal>>,
    /// How many channels had receivers at the last sweep: channels whose receivers all went
    /// are dropped when a note finds them so, or when the map has doubled since.
    live_at_sweep: usize,
}

/// The in-process fan-out of live notes.
pub struct Hub {
    /// The signals by topic: every receiver is woken only by the notes its topic concerns.
    topics: Mutex<Topics>,
    /// Names this instance in `live_presence`.
    pub instance_id: String,
    /// Open streams per user on this instance (see `open_stream`).
    streams: Mutex<HashMap<Uuid, usize>>,
    /// Open streams per client address on this instance.
    addresses: Mutex<HashMap<String, usize>>,
    /// Set once the server stops: every stream ends (see `close_streams`).
    closing: CancellationToken,
    /// How many signals (notes and resyncs) this hub has received: a reading of a game taken
    /// after the count reached N shows every change the first N announced.
    received: AtomicU64,
}

/// One open stream of a user from a client address, counted against the per-user and
/// per-address limits until it is dropped.
pub struct StreamSlot {
    hub: Arc<Hub>,
    user: Uuid,
    address: Option<String>,
    /// `game` or `user`, for the open-streams gauge.
    kind: &'static str,
}

/// Why a stream slot was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The user holds the most streams allowed.
    User,
    /// The client address holds the most streams allowed (whoever the users are).
    Address,
}

/// The stream limits of one instance.
#[derive(Clone, Copy, Debug)]
pub struct StreamLimits {
    pub per_user: usize,
    pub per_address: usize,
}

fn release<K: std::hash::Hash + Eq>(counts: &Mutex<HashMap<K, usize>>, key: &K) {
    let mut counts = counts.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(open) = counts.get_mut(key) {
        *open -= 1;
        if *open == 0 {
            counts.remove(key);
        }
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        metrics::gauge!(crate::telemetry::names::LIVE_STREAMS, "kind" => self.kind).decrement(1);
        release(&self.hub.streams, &self.user);
        if let Some(address) = &self.address {
            release(&self.hub.addresses, address);
        }
    }
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    pub fn new() -> Self {
        Self {
            topics: Mutex::new(Topics::default()),
            instance_id: Uuid::new_v4().to_string(),
            streams: Mutex::new(HashMap::new()),
            addresses: Mutex::new(HashMap::new()),
            closing: CancellationToken::new(),
            received: AtomicU64::new(0),
        }
    }

    /// The signals of `topic`: the notes it concerns, and every resync.
    pub fn subscribe_to(&self, topic: Topic) -> broadcast::Receiver<Signal> {
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        if topics.channels.len() >= 2 * topics.live_at_sweep + 64 {
            topics
                .channels
                .retain(|_, channel| channel.receiver_count() > 0);
            topics.live_at_sweep = topics.channels.len();
        }
        topics
            .channels
            .entry(topic)
            .or_insert_with(|| broadcast::channel(topic.capacity()).0)
            .subscribe()
    }

    /// How many signals this hub has received so far (counted before they are passed on).
    pub fn received(&self) -> u64 {
        self.received.load(Ordering::SeqCst)
    }

    fn pass_on(&self, signal: Signal) {
        self.received.fetch_add(1, Ordering::SeqCst);
        let mut topics = self.topics.lock().unwrap_or_else(|e| e.into_inner());
        let channels = &mut topics.channels;
        match &signal {
            Signal::Changed(note) => {
                let mut concerned = vec![Topic::Game(note.game_id)];
                concerned.extend(note.addressees().map(|&user| Topic::User(user)));
                if note.blocked {
                    concerned.extend(note.users.iter().map(|&user| Topic::Blocks(user)));
                }
                if note.changes_lobbies() {
                    concerned.push(Topic::Lobby);
                }
                if note.status == Status::Finished.as_str() {
                    concerned.push(Topic::Finished);
                }
                // A player whose turn began is among the players too: told once.
                concerned.sort_unstable();
                concerned.dedup();
                for topic in concerned {
                    // A channel nobody listens to any more is dropped.
                    if let Some(channel) = channels.get(&topic)
                        && channel.send(signal.clone()).is_err()
                    {
                        channels.remove(&topic);
                    }
                }
            }
            Signal::Resync => {
                channels.retain(|_, channel| channel.send(Signal::Resync).is_ok());
            }
        }
    }

    /// Takes one of `user`'s stream slots on this instance, from the client `address` (the
    /// caller's, if known): refused when the user or the address holds `limits` already. The
    /// slot is free again when the returned guard is dropped, which the stream's task does
    /// when its client has gone (or the server stops). `kind` (`game` or `user`) labels the
    /// stream in the metrics.
    pub fn open_stream(
        self: &Arc<Self>,
        user: Uuid,
        address: Option<String>,
        limits: StreamLimits,
        kind: &'static str,
    ) -> Result<StreamSlot, Refused> {
        // One lock order everywhere (users, then addresses), so two opens never deadlock.
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        let mut addresses = self.addresses.lock().unwrap_or_else(|e| e.into_inner());
        if streams.get(&user).copied().unwrap_or(0) >= limits.per_user {
            return Err(Refused::User);
        }
        if let Some(address) = &address
            && addresses.get(address).copied().unwrap_or(0) >= limits.per_address
        {
            return Err(Refused::Address);
        }
        *streams.entry(user).or_insert(0) += 1;
        if let Some(address) = &address {
            *addresses.entry(address.clone()).or_insert(0) += 1;
        }
        metrics::gauge!(crate::telemetry::names::LIVE_STREAMS, "kind" => kind).increment(1);
        Ok(StreamSlot {
            hub: self.clone(),
            user,
            address,
            kind,
        })
    }

    /// How many streams `user` has open on this instance.
    pub fn open_streams(&self, user: Uuid) -> usize {
        let streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        streams.get(&user).copied().unwrap_or(0)
    }

    /// How many streams are open on this instance (each a task until it has cleaned up).
    pub fn open_streams_total(&self) -> usize {
        let streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        streams.values().sum()
    }

    /// Ends every stream of this instance, now and from now on: each stream's task stops
    /// after the query it is in (releasing its database connection while the runtime is still
    /// alive) and its response ends, so a graceful stop of the HTTP server need not wait.
    pub fn close_streams(&self) {
        self.closing.cancel();
    }

    /// Resolves once `close_streams` has been called.
    pub fn closed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        self.closing.clone().cancelled_owned()
    }

    /// Listens on the database until the pool closes or the streams are closed (the server
    /// stops), reconnecting after failures.
    pub async fn listen(self: Arc<Self>, pool: PgPool) {
        let mut backoff = Duration::from_millis(100);
        while !pool.is_closed() && !self.closing.is_cancelled() {
            let listened = tokio::select! {
                listened = self.listen_once(&pool) => listened,
                _ = self.closing.cancelled() => return,
            };
            match listened {
                Ok(()) => return,
                Err(error) if pool.is_closed() => {
                    tracing::debug!(%error, "live listener stops with its pool");
                    return;
                }
                Err(error) => {
                    // Streams resynchronise once it listens again (see `listen_once`): looking
                    // while the database does not answer would only fail.
                    tracing::warn!(%error, "live listener lost its connection; reconnecting");
                    tokio::select! {
                        _ = tokio::time::sleep(backoff) => {}
                        _ = self.closing.cancelled() => return,
                    }
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                }
            }
        }
    }

    async fn listen_once(&self, pool: &PgPool) -> Result<(), sqlx::Error> {
        let mut listener = PgListener::connect_with(pool).await?;
        listener.listen(LIVE_CHANNEL).await?;
        // Whatever happened before we listened is read from the log by each stream.
        self.pass_on(Signal::Resync);
        loop {
            match listener.try_recv().await? {
                // Notes were lost on their way (the publisher gave some up): look again.
                Some(notification) if notification.payload() == RESYNC => {
                    self.pass_on(Signal::Resync);
                }
                Some(notification) => match serde_json::from_str::<Note>(notification.payload()) {
                    Ok(note) => {
                        self.pass_on(Signal::Changed(Arc::new(note)));
                    }
                    Err(error) => tracing::warn!(%error, "an unreadable live note"),
                },
                // The connection dropped: notes may be lost. Reconnect as after any failure,
                // and resynchronise once listening again.
                None => {
                    return Err(sqlx::Error::Io(std::io::Error::other(
                        "the LISTEN connection dropped",
                    )));
                }
            }
        }
    }
}

/// Sends appends' live notes after they commit, in batches, from one connection of its own.
///
/// Why not `pg_notify` in the append itself: PostgreSQL serialises committing transactions
/// that notify (a global lock held until the commit is on disk), so every action's commit
/// would wait for the one before it. Here a batch of notes is one statement, and its commit
/// need not wait for the disk (`synchronous_commit = off`): a note lost to a crash is no worse
/// than a crash just before publishing, and streams recover from either by looking again.
#[derive(Clone)]
pub struct Publisher {
    notes: mpsc::UnboundedSender<String>,
}

/// The most notes sent in one statement.
const MAX_BATCH: usize = 512;

impl Publisher {
    /// A publisher and its task, for the caller to run (under supervision, see `app`); the
    /// task ends when the pool closes or every handle is dropped.
    pub fn new(pool: PgPool) -> (Self, impl Future<Output = ()> + Send + 'static) {
        let (notes, receiver) = mpsc::unbounded_channel();
        (Self { notes }, publish(pool, receiver))
    }

    /// Queues a note (JSON text); call it once the change it announces has committed.
    pub fn publish_text(&self, note: String) {
        let _ = self.notes.send(note);
    }
}

/// Tries to send a batch before giving it up.
const TRIES: u32 = 3;

/// How long the publisher waits, at most, between attempts to tell the hubs that it gave
/// notes up (it starts at a tenth of a second and doubles).
const MAX_RESYNC_BACKOFF: Duration = Duration::from_secs(5);

async fn publish(pool: PgPool, mut notes: mpsc::UnboundedReceiver<String>) {
    let mut connection: Option<PgConnection> = None;
    let mut batch = Vec::new();
    // Notes were given up: the hubs are owed a resync, sent ahead of the next batch or on its
    // own once the database answers again (whichever comes first).
    let mut owe_resync = false;
    let mut resync_backoff = Duration::from_millis(100);
    loop {
        tokio::select! {
            received = notes.recv_many(&mut batch, MAX_BATCH) => if received == 0 {
                return;
            },
            _ = tokio::time::sleep(resync_backoff), if owe_resync => {
                resync_backoff = (resync_backoff * 2).min(MAX_RESYNC_BACKOFF);
            }
        }
        if owe_resync {
            batch.insert(0, RESYNC.to_string());
        }
        match send_batch(&pool, &mut connection, &batch).await {
            Sent::Yes => {
                if owe_resync {
                    tracing::info!("live notes are sent again; every stream resynchronises");
                }
                owe_resync = false;
                resync_backoff = Duration::from_millis(100);
            }
            Sent::No(error) => {
                let given_up = batch.len() - usize::from(owe_resync);
                if given_up > 0 {
                    tracing::warn!(
                        %error,
                        notes = given_up,
                        tries = TRIES,
                        "live notes given up; streams will resynchronise once the database answers"
                    );
                }
                owe_resync = true;
            }
            Sent::Stopped => return,
        }
        batch.clear();
    }
}

enum Sent {
    Yes,
    No(sqlx::Error),
    /// The pool closed: the server stops.
    Stopped,
}

/// Sends `batch`, with up to `TRIES` tries a moment apart.
async fn send_batch(
    pool: &PgPool,
    connection: &mut Option<PgConnection>,
    batch: &[String],
) -> Sent {
    let mut attempt = 0;
    loop {
        if pool.is_closed() {
            return Sent::Stopped;
        }
        match send(pool, connection, batch).await {
            Ok(()) => return Sent::Yes,
            Err(error) => {
                tracing::debug!(%error, attempt, notes = batch.len(), "live notes not sent");
                *connection = None;
                attempt += 1;
                if attempt == TRIES {
                    return Sent::No(error);
                }
                tokio::time::sleep(Duration::from_millis(100 << (attempt - 1))).await;
            }
        }
    }
}

async fn send(
    pool: &PgPool,
    connection: &mut Option<PgConnection>,
    batch: &[String],
) -> Result<(), sqlx::Error> {
    if connection.is_none() {
        let options = (*pool.connect_options()).clone();
        let mut fresh = options
            .application_name(PUBLISHER_APPLICATION_NAME)
            .connect()
            .await?;
        channels::commit_without_flush(&mut fresh).await?;
        *connection = Some(fresh);
    }
    let connection = connection.as_mut().expect("connected above");
    channels::notify_all(connection, LIVE_CHANNEL, batch).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_slots_are_counted_per_user_and_per_address_and_freed_when_dropped() {
        let hub = Arc::new(Hub::new());
        let limits = StreamLimits {
            per_user: 2,
            per_address: 3,
        };
        let (anna, bert, cleo) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let here = || Some("192.0.2.1".to_string());
        let first = hub
            .open_stream(anna, here(), limits, "game")
            .expect("a first slot");
        let second = hub
            .open_stream(anna, here(), limits, "game")
            .expect("a second");
        assert_eq!(
            hub.open_stream(anna, None, limits, "game").err(),
            Some(Refused::User),
            "no third for anna"
        );
        let other = hub
            .open_stream(bert, here(), limits, "user")
            .expect("bert's");
        // The address holds three now: cleo from there is refused, from elsewhere not.
        assert_eq!(
            hub.open_stream(cleo, here(), limits, "user").err(),
            Some(Refused::Address)
        );
        let elsewhere = hub
            .open_stream(cleo, Some("192.0.2.2".into()), limits, "user")
            .expect("another address");
        assert_eq!((hub.open_streams(anna), hub.open_streams_total()), (2, 4));
        drop(first);
        assert_eq!(hub.open_streams(anna), 1);
        let third = hub
            .open_stream(anna, here(), limits, "game")
            .expect("a freed slot is taken again");
        drop((second, third, other, elsewhere));
        assert_eq!(hub.open_streams_total(), 0);
        assert!(
            hub.streams.lock().unwrap().is_empty() && hub.addresses.lock().unwrap().is_empty(),
            "no entries are left behind"
        );
    }

    #[test]
    fn the_lobbies_and_the_rating_worker_hear_only_the_notes_of_their_topics() {
        let hub = Hub::new();
        let mut lobbies = hub.subscribe_to(Topic::Lobby);
        let mut finished = hub.subscribe_to(Topic::Finished);
        let (game, anna) = (Uuid::new_v4(), Uuid::new_v4());
        let note = |note: Note| Signal::Changed(Arc::new(note));
        // A move and a chat message change no lobby and end no game.
        hub.pass_on(note(Note::moved(game, 5, "active", vec![anna], vec![anna])));
        hub.pass_on(note(Note::chat(game, 3, vec![anna])));
        hub.pass_on(note(Note::invited(game, anna, "bert".into())));
        assert!(lobbies.try_recv().is_err() && finished.try_recv().is_err());
        let changes = [
            Note::opened(game),
            Note::seats_changed(game),
            Note::started(game, 1, vec![anna], vec![anna]),
            Note::cancelled(game),
        ];
        for change in &changes {
            hub.pass_on(note(change.clone()));
        }
        for change in &changes {
            match lobbies.try_recv() {
                Ok(Signal::Changed(heard)) => assert_eq!(*heard, *change),
                other => panic!("the lobbies heard {other:?}"),
            }
        }
        assert!(lobbies.try_recv().is_err() && finished.try_recv().is_err());
        let end = Note::moved(game, 9, "finished", Vec::new(), vec![anna]);
        hub.pass_on(note(end.clone()));
        assert!(matches!(finished.try_recv(), Ok(Signal::Changed(heard)) if *heard == end));
        assert!(lobbies.try_recv().is_err());
        // Lost notes reach everyone.
        hub.pass_on(Signal::Resync);
        assert!(matches!(lobbies.try_recv(), Ok(Signal::Resync)));
        assert!(matches!(finished.try_recv(), Ok(Signal::Resync)));
    }

    #[test]
    fn a_move_wakes_only_the_user_streams_of_those_it_tells_something() {
        let hub = Hub::new();
        let (game, anna, bert) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let (mut annas, mut berts) = (
            hub.subscribe_to(Topic::User(anna)),
            hub.subscribe_to(Topic::User(bert)),
        );
        let note = |note: Note| Signal::Changed(Arc::new(note));
        let players = vec![anna, bert];
        // Bert's turn begins: Anna, who just moved, is told nothing.
        hub.pass_on(note(Note::moved(
            game,
            5,
            "active",
            vec![bert],
            players.clone(),
        )));
        assert!(matches!(berts.try_recv(), Ok(Signal::Changed(heard)) if heard.version == 5));
        assert!(annas.try_recv().is_err(), "a move wakes no other player");
        // A start, an end and unread chat are for every player.
        let for_all = [
            Note::started(game, 1, vec![anna], players.clone()),
            Note::moved(game, 9, "finished", Vec::new(), players.clone()),
            Note::chat(game, 3, players.clone()),
        ];
        for change in &for_all {
            hub.pass_on(note(change.clone()));
            for (whose, stream) in [("anna", &mut annas), ("bert", &mut berts)] {
                match stream.try_recv() {
                    Ok(Signal::Changed(heard)) => assert_eq!(*heard, *change, "{whose}"),
                    other => panic!("{whose} heard {other:?} for {change:?}"),
                }
            }
        }
    }

    #[tokio::test]
    async fn closing_the_streams_wakes_those_waiting_and_those_to_come() {
        let hub = Hub::new();
        let waiting = tokio::spawn(hub.closed());
        hub.close_streams();
        waiting.await.unwrap();
        hub.closed().await;
    }
}
