//! What the command service last knew of each game, kept in memory by each instance: the
//! context it reads before deciding (head row, seats and clocks) and the decoded state, at the
//! version its own last write produced.
//!
//! A submission for exactly that version decides on the cached copy instead of reading the
//! database. That is safe because every write is a compare-and-set on the head's version: if
//! anything moved the game on meanwhile (another instance, the deadline worker, a player
//! returning), the write finds another version, writes nothing, and the submission falls back
//! to a fresh read. The few facts that change without a new version are harmless here: a
//! vacation is honoured by the deadline worker at the deadline, and entries expire after a
//! while so time-bank accounting never works from an old turn start for long.

use super::actions::Context;
use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How many games an instance remembers.
const CAPACITY: usize = 10_000;
/// How long an entry is trusted.
const TTL: Duration = Duration::from_secs(30);

/// A decoded state of some game kind.
pub type CachedState = Arc<dyn Any + Send + Sync>;

struct Entry {
    context: Arc<Context>,
    state: CachedState,
    stored: Instant,
}

#[derive(Default)]
pub struct ContextCache {
    entries: Mutex<HashMap<Uuid, Entry>>,
}

impl ContextCache {
    /// The cached context and state of `game` if they are at `version`. The state is the
    /// rules' `State` of the game's kind (downcast it).
    pub fn get(&self, game: Uuid, version: i64) -> Option<(Arc<Context>, CachedState)> {
        let entries = self
            .entries
            .lock()
            .expect("the cache lock is never poisoned");
        let entry = entries.get(&game)?;
        if entry.context.head.version != version || entry.stored.elapsed() > TTL {
            return None;
        }
        Some((entry.context.clone(), entry.state.clone()))
    }

    /// Remembers a game after a write of this instance.
    pub fn put<S: Send + Sync + 'static>(&self, game: Uuid, context: Context, state: S) {
        let mut entries = self
            .entries
            .lock()
            .expect("the cache lock is never poisoned");
        if entries.len() >= CAPACITY && !entries.contains_key(&game) {
            entries.retain(|_, e| e.stored.elapsed() <= TTL);
            if entries.len() >= CAPACITY {
                entries.clear();
            }
        }
        entries.insert(
            game,
            Entry {
                context: Arc::new(context),
                state: Arc::new(state),
                stored: Instant::now(),
            },
        );
    }

    pub fn forget(&self, game: Uuid) {
        self.entries
            .lock()
            .expect("the cache lock is never poisoned")
            .remove(&game);
    }
}
