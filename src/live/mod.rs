//! Live updates. Every append (and invitation, and return to a seat) sends a small note with
//! `pg_notify` on the `kontor_live` channel, in the transaction that writes it. Each instance
//! keeps one LISTEN connection and fans the notes out to its open streams in process, so an
//! action through one instance reaches streams held by another. A note only says that
//! something changed; streams read what changed from the log, so a lost or coalesced note
//! costs nothing but a resync.

use crate::store::append::LIVE_CHANNEL;
use serde::Deserialize;
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;
use uuid::Uuid;

/// What a note says; see `service::play::apply` and `service::lobby::invite`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Note {
    pub game_id: Uuid,
    #[serde(default)]
    pub version: i64,
    #[serde(default)]
    pub status: String,
    /// Users whose turn began with this change.
    #[serde(default)]
    pub your_turn: Vec<Uuid>,
    /// Every player of the game.
    #[serde(default)]
    pub users: Vec<Uuid>,
    /// Users just invited, and by whom.
    #[serde(default)]
    pub invited: Vec<Uuid>,
    #[serde(default)]
    pub by: Option<String>,
    /// The game has just started.
    #[serde(default)]
    pub started: bool,
}

/// What the hub passes to streams.
#[derive(Clone, Debug)]
pub enum Signal {
    Changed(Arc<Note>),
    /// Notes may have been lost (the LISTEN connection dropped): every stream looks again.
    Resync,
}

/// The in-process fan-out of live notes.
pub struct Hub {
    sender: broadcast::Sender<Signal>,
    /// Names this instance in `live_presence`.
    pub instance_id: String,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    pub fn new() -> Self {
        let (sender, _) = broadcast::channel(1024);
        Self {
            sender,
            instance_id: Uuid::new_v4().to_string(),
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Signal> {
        self.sender.subscribe()
    }

    /// Listens on the database until the pool closes, reconnecting after failures.
    pub async fn listen(self: Arc<Self>, pool: PgPool) {
        let mut backoff = Duration::from_millis(100);
        while !pool.is_closed() {
            match self.listen_once(&pool).await {
                Ok(()) => return,
                Err(error) if pool.is_closed() => {
                    tracing::debug!(%error, "live listener stops with its pool");
                    return;
                }
                Err(error) => {
                    tracing::warn!(%error, "live listener lost its connection; reconnecting");
                    let _ = self.sender.send(Signal::Resync);
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                }
            }
        }
    }

    async fn listen_once(&self, pool: &PgPool) -> Result<(), sqlx::Error> {
        let mut listener = PgListener::connect_with(pool).await?;
        listener.listen(LIVE_CHANNEL).await?;
        // Whatever happened before we listened is read from the log by each stream.
        let _ = self.sender.send(Signal::Resync);
        loop {
            match listener.try_recv().await? {
                Some(notification) => match serde_json::from_str::<Note>(notification.payload()) {
                    Ok(note) => {
                        let _ = self.sender.send(Signal::Changed(Arc::new(note)));
                    }
                    Err(error) => tracing::warn!(%error, "an unreadable live note"),
                },
                // The connection dropped and will be re-established: notes may be lost.
                None => {
                    let _ = self.sender.send(Signal::Resync);
                }
            }
        }
    }
}
