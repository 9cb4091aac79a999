//! Private notes: each player may keep one plain-text note per game, for their own eyes.
//!
//! Only a seated player of a game they may read has a note there (a spectator is refused
//! `not_a_player`; a game they may not read is `game_not_found`, as everywhere). A note is
//! read and written here and nowhere else: no view, stream, log, export, mail or admin list
//! carries it; the my-data export lists the owner's own notes, and deleting the account
//! deletes them (`store::users::erase`).
//!
//! Writes are compare-and-set on the note's text: the client names the note as it last read
//! it (its [`digest`], sent by the HTTP layer as an entity tag), so a save from a second tab
//! or device that did not see the first one's is refused instead of overwriting it. A save of
//! the text the note already holds is answered as saved whatever it names (a retry whose first
//! answer was lost succeeded). An empty text clears the note.

use crate::service::play::error::Error;
use crate::service::play::table;
use crate::store::notes::{self as store, NoteRow};
use crate::store::{audience, games};
use crate::time::Clock;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sqlx::{PgConnection, PgPool};
use utoipa::ToSchema;
use uuid::Uuid;

/// The most characters (Unicode scalar values, line breaks counted as one) a note may have.
pub const MAX_CHARS: usize = 10_000;

/// A player's note on a game, as its owner sees it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"game_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d",
    "text": "Bert hoards horseshoes.\nBid high on the red company.",
    "updated_at": "2026-12-02T10:00:00Z", "max_chars": 10000}))]
pub struct Note {
    pub game_id: Uuid,
    /// Plain text (never HTML or Markdown), LF line breaks; empty when there is no note.
    pub text: String,
    /// When the note was last saved; `null` when there is none.
    pub updated_at: Option<DateTime<Utc>>,
    /// The most characters a note may have.
    pub max_chars: usize,
}

impl Note {
    fn of(game_id: Uuid, row: Option<NoteRow>) -> Self {
        let (text, updated_at) =
            row.map_or((String::new(), None), |r| (r.body, Some(r.updated_at)));
        Self {
            game_id,
            text,
            updated_at,
            max_chars: MAX_CHARS,
        }
    }

    /// The digest the note is named by in a compare-and-set (see [`digest`]).
    pub fn digest(&self) -> String {
        digest(&self.text)
    }
}

/// A note to save.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "Bert hoards horseshoes."}))]
pub struct NoteRequest {
    /// The whole note: plain text with line breaks (CR LF and CR are stored as LF), at most
    /// 10000 characters counted after that, no other control character. An empty text
    /// clears the note.
    pub text: String,
}

/// A note in the owner's my-data export.
#[derive(Debug, Serialize, ToSchema)]
pub struct MyNote {
    pub game_id: Uuid,
    pub text: String,
    pub updated_at: DateTime<Utc>,
}

/// Why a notes request was refused.
#[derive(Debug, thiserror::Error)]
pub enum NoteError {
    #[error(transparent)]
    Service(#[from] Error),
    #[error("notes are for the game's players, and you hold no seat in this game")]
    NotASeat,
    #[error("{0}")]
    InvalidNote(String),
    /// The note is no longer the one the client named (another tab or device saved it).
    #[error(
        "your note was changed elsewhere (another tab or device) since you read it: read it again, then save"
    )]
    Changed { current: String },
}

impl From<sqlx::Error> for NoteError {
    fn from(cause: sqlx::Error) -> Self {
        NoteError::Service(Error::internal(cause))
    }
}

/// A short digest of a note's text (16 hex digits of its SHA-256): the same text, the same
/// digest, so a compare-and-set on it loses no save (two texts that are equal are the same
/// note, however they came about). The empty text names "no note".
pub fn digest(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..8])
}

/// A note's text as stored: line breaks as LF, at most [`MAX_CHARS`] characters, no control
/// characters but LF. Nothing else changes (no trimming: what the owner typed is kept,
/// spaces and all, so the client's text and the stored one stay equal).
pub fn normalise(text: &str) -> Result<String, NoteError> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    if let Some(c) = text.chars().find(|&c| c.is_control() && c != '\n') {
        return Err(NoteError::InvalidNote(format!(
            "a note is plain text with line breaks; U+{:04X} (a control character) is not allowed",
            c as u32
        )));
    }
    let count = text.chars().count();
    if count > MAX_CHARS {
        return Err(NoteError::InvalidNote(format!(
            "a note has at most {MAX_CHARS} characters, this one {count}"
        )));
    }
    Ok(text)
}

/// Checks that `caller` may keep a note on `game_id`: `game_not_found` when they may not read
/// the game, `not_a_player` when they hold no seat in it.
async fn check_seat(conn: &mut PgConnection, game_id: Uuid, caller: Uuid) -> Result<(), NoteError> {
    let head = games::head(&mut *conn, game_id)
        .await?
        .ok_or(Error::GameNotFound)?;
    let standing = audience::standing(&mut *conn, game_id, caller).await?;
    if !table::may_read(&head, caller, standing) {
        return Err(Error::GameNotFound.into());
    }
    if !standing.seated {
        return Err(NoteError::NotASeat);
    }
    Ok(())
}

/// `caller`'s note on `game_id` (an empty one when they have written none).
pub async fn get(pool: &PgPool, game_id: Uuid, caller: Uuid) -> Result<Note, NoteError> {
    let mut conn = pool.acquire().await?;
    check_seat(&mut conn, game_id, caller).await?;
    let row = store::get(&mut *conn, game_id, caller).await?;
    Ok(Note::of(game_id, row))
}

/// What a save expects the note to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// Whatever it is (overwrite).
    Any,
    /// One of these digests (see [`digest`]); an empty list matches nothing.
    OneOf(Vec<String>),
}

/// Saves `caller`'s note on `game_id` if it is still as `expected` (else `Changed`, with the
/// current note's digest); an empty text clears it. Returns the note as saved.
pub async fn put(
    pool: &PgPool,
    time: &Clock,
    game_id: Uuid,
    caller: Uuid,
    expected: &Expected,
    request: &NoteRequest,
) -> Result<Note, NoteError> {
    let text = normalise(&request.text)?;
    // Twice at most: a first note inserted by a concurrent request between our read and our
    // insert is compared again (then it is there, and locked).
    for _ in 0..2 {
        let mut tx = pool.begin().await?;
        check_seat(&mut tx, game_id, caller).await?;
        let row = store::lock(&mut tx, game_id, caller).await?;
        let current = digest(row.as_ref().map_or("", |r| r.body.as_str()));
        if let Expected::OneOf(digests) = expected
            && !digests.contains(&current)
        {
            // The note is already this text: a save retried after its answer was lost (or
            // the same text saved from two places). It is saved; nothing is lost by saying so.
            if current == digest(&text) {
                return Ok(Note::of(game_id, row));
            }
            return Err(NoteError::Changed { current });
        }
        let now = time.now();
        let saved = match (&row, text.is_empty()) {
            (None, true) => None,
            (Some(_), true) => {
                store::delete(&mut tx, game_id, caller).await?;
                None
            }
            (Some(_), false) => {
                store::update(&mut tx, game_id, caller, &text, now).await?;
                Some(now)
            }
            (None, false) => {
                if !store::insert(&mut tx, game_id, caller, &text, now).await? {
                    tx.rollback().await?;
                    continue;
                }
                Some(now)
            }
        };
        // The owner's other pages of the game (another tab, another device) read it again.
        if row.is_some() || saved.is_some() {
            crate::live::announce(&mut tx, &crate::live::Note::note_saved(game_id, caller)).await?;
        }
        tx.commit().await?;
        return Ok(Note {
            game_id,
            text,
            updated_at: saved,
            max_chars: MAX_CHARS,
        });
    }
    Err(NoteError::Service(Error::internal(anyhow::anyhow!(
        "a note kept appearing and vanishing while it was saved"
    ))))
}

/// Every note of `user`, for the my-data export.
pub async fn of_user(pool: &PgPool, user: Uuid) -> Result<Vec<MyNote>, sqlx::Error> {
    Ok(store::of_user(pool, user)
        .await?
        .into_iter()
        .map(|r| MyNote {
            game_id: r.game_id,
            text: r.body,
            updated_at: r.updated_at,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_keeps_its_shape_with_line_breaks_as_lf() {
        assert_eq!(normalise("a\r\nb\rc\n").unwrap(), "a\nb\nc\n");
        assert_eq!(normalise("  indented\n\n").unwrap(), "  indented\n\n");
        assert_eq!(normalise("").unwrap(), "");
        assert_eq!(normalise("日本語 ✓ 🎲").unwrap(), "日本語 ✓ 🎲");
        for bad in [
            "tab\there",
            "nul\0",
            "bell\u{7}",
            "c1\u{85}",
            "esc\u{1b}[31m",
        ] {
            assert!(
                matches!(normalise(bad), Err(NoteError::InvalidNote(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_limit_counts_characters_after_normalising_line_breaks() {
        let full = "é".repeat(MAX_CHARS);
        assert_eq!(normalise(&full).unwrap().chars().count(), MAX_CHARS);
        assert!(normalise(&format!("{full}x")).is_err());
        // CR LF counts as one character.
        let crlf = format!("{}\r\n", "a".repeat(MAX_CHARS - 1));
        assert_eq!(normalise(&crlf).unwrap().chars().count(), MAX_CHARS);
    }

    #[test]
    fn equal_texts_have_equal_digests() {
        assert_eq!(digest("x"), digest("x"));
        assert_ne!(digest("x"), digest("y"));
        assert_ne!(digest(""), digest(" "));
        assert_eq!(digest("").len(), 16);
    }
}
