//! Who may watch a game: the table's `spectators` setting, and blocks; and the table's `chat`
//! `undo` and `rated` settings, the other platform settings among a game's options.
//!
//! The setting is chosen at creation and stored with the game's options (so the lobby, the
//! export header and the log's start event all show it), but it is the platform's, not the
//! rules': the rules engines never see it (see [`rules_options`]).
//!
//! A game someone may not read does not exist to them: every read (view, `?at=`, events,
//! export, verification, stream) answers 404 `game_not_found`, as for an unknown id or
//! another user's sandbox, so neither a players-only table nor a block is confirmed to
//! anyone who has only the id.

use super::error::Error;
use super::undo::Policy;
use crate::games::GameKind;
use crate::store::audience::{self, Standing};
use crate::store::games::{self, GameHead, Status};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use utoipa::ToSchema;
use uuid::Uuid;

/// The name of the setting among the game's options.
pub const SPECTATORS: &str = "spectators";

/// Who besides the seated players may watch a game (its view, log, export and stream).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Spectators {
    /// Anyone with the game's id or link (the default).
    #[default]
    Anyone,
    /// Only the seated players (and, while it waits for players, whoever may join it).
    Players,
}

impl Spectators {
    /// The setting of a stored game (games created before it existed: `anyone`).
    pub fn of(options: &Value) -> Self {
        options
            .get(SPECTATORS)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }

    fn as_str(self) -> &'static str {
        match self {
            Spectators::Anyone => "anyone",
            Spectators::Players => "players",
        }
    }
}

/// The name of the chat setting among the game's options.
pub const CHAT: &str = "chat";

pub use crate::games::Chat;

impl Chat {
    /// The default of a game kind, as its rules declare it ([`crate::games::Rules::CHAT`]);
    /// `table` for a kind this server does not know.
    pub fn default_for(kind: &str) -> Self {
        GameKind::parse(kind).map_or(Chat::Table, GameKind::chat)
    }

    /// The setting of a stored game (games created before it existed: their kind's default).
    pub fn of(kind: &str, options: &Value) -> Self {
        options
            .get(CHAT)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_else(|| Self::default_for(kind))
    }
}

/// Takes the `chat` setting out of a create request's options (the rest as they were): the
/// setting (default: the kind's) and the rest.
pub fn split_chat(kind: &str, raw: &Value) -> Result<(Chat, Value), Error> {
    let mut rest = raw.clone();
    let Some(value) = rest.as_object_mut().and_then(|o| o.remove(CHAT)) else {
        return Ok((Chat::default_for(kind), rest));
    };
    let chat = serde_json::from_value(value.clone()).map_err(|_| Error::InvalidOptions {
        field: CHAT.to_string(),
        detail: format!("chat is \"full\", \"table\" or \"none\", not {value}"),
    })?;
    Ok((chat, rest))
}

/// The stored options (`options`, an object) completed with the chat setting.
pub fn with_chat(mut options: Value, chat: Chat) -> Value {
    if let Some(fields) = options.as_object_mut() {
        fields.insert(CHAT.to_string(), chat.as_str().into());
    }
    options
}

/// The name of the undo setting among the game's options.
pub const UNDO: &str = Policy::SETTING;

/// Whether and how players may take moves back: the undo core's [`Policy`].
pub use super::undo::Policy as UndoPolicy;

/// Takes the `undo` setting out of a create request's options (the rest as they were): the
/// setting (default `own`) and the rest.
pub fn split_undo(raw: &Value) -> Result<(UndoPolicy, Value), Error> {
    let mut rest = raw.clone();
    let Some(value) = rest.as_object_mut().and_then(|o| o.remove(UNDO)) else {
        return Ok((UndoPolicy::FOR_NEW_GAMES, rest));
    };
    let undo = serde_json::from_value(value.clone()).map_err(|_| Error::InvalidOptions {
        field: UNDO.to_string(),
        detail: format!("undo is \"none\", \"own\" or \"consent\", not {value}"),
    })?;
    Ok((undo, rest))
}

/// The stored options (`options`, an object) completed with the undo setting.
pub fn with_undo(mut options: Value, undo: UndoPolicy) -> Value {
    if let Some(fields) = options.as_object_mut() {
        fields.insert(UNDO.to_string(), undo.as_str().into());
    }
    options
}

/// The name of the rated setting among the game's options.
pub const RATED: &str = "rated";

/// Whether a stored game (or its start event's options) was created rated: `false` when
/// absent (games created before the setting existed).
pub fn is_rated(options: &Value) -> bool {
    options.get(RATED).and_then(Value::as_bool).unwrap_or(false)
}

/// Takes the `rated` setting out of a create request's options (the rest as they were): the
/// setting (default `false`) and the rest. A rated table may not let players take moves back
/// with the others' consent (`undo: consent`): a rating must rest on moves that stood.
pub fn split_rated(raw: &Value, undo: UndoPolicy) -> Result<(bool, Value), Error> {
    let mut rest = raw.clone();
    let Some(value) = rest.as_object_mut().and_then(|o| o.remove(RATED)) else {
        return Ok((false, rest));
    };
    let Some(rated) = value.as_bool() else {
        return Err(Error::InvalidOptions {
            field: RATED.to_string(),
            detail: format!("rated is true or false, not {value}"),
        });
    };
    if rated && undo == UndoPolicy::Consent {
        return Err(Error::InvalidOptions {
            field: RATED.to_string(),
            detail: "a rated game cannot take moves back by consent: choose undo \"own\" or \"none\", or an unrated game".to_string(),
        });
    }
    Ok((rated, rest))
}

/// The stored options (`options`, an object) completed with the rated setting, explicit even
/// when `false` (the start event records it, and ratings are recomputed from the logs).
pub fn with_rated(mut options: Value, rated: bool) -> Value {
    if let Some(fields) = options.as_object_mut() {
        fields.insert(RATED.to_string(), rated.into());
    }
    options
}

/// Takes the `spectators` setting out of a create request's options: the setting (default
/// `anyone`) and the rest, for the rules engine to judge.
pub fn split_options(raw: &Value) -> Result<(Spectators, Value), Error> {
    let mut rest = raw.clone();
    let Some(value) = rest.as_object_mut().and_then(|o| o.remove(SPECTATORS)) else {
        return Ok((Spectators::default(), rest));
    };
    let spectators = serde_json::from_value(value.clone()).map_err(|_| Error::InvalidOptions {
        field: SPECTATORS.to_string(),
        detail: format!("spectators is \"anyone\" or \"players\", not {value}"),
    })?;
    Ok((spectators, rest))
}

/// The rules' options completed (`options`, an object) with the setting, as stored.
pub fn with_setting(mut options: Value, spectators: Spectators) -> Value {
    if let Some(fields) = options.as_object_mut() {
        fields.insert(SPECTATORS.to_string(), spectators.as_str().into());
    }
    options
}

/// A stored game's options as its rules engine knows them: without the setting.
pub fn rules_options(options: &Value) -> Value {
    let mut rules = options.clone();
    if let Some(fields) = rules.as_object_mut() {
        fields.remove(SPECTATORS);
        fields.remove(CHAT);
        fields.remove(UNDO);
        fields.remove(RATED);
    }
    rules
}

/// Whether `standing` lets a user read the game `head`: its players always; nobody who
/// blocked a seated player or was blocked by one; others as the table's setting says (a
/// players-only table is readable before the start by whoever may join it: anyone if it is
/// public, the invited if it is private). A sandbox is its importer's alone.
pub fn may_read(head: &GameHead, caller: Uuid, standing: Standing) -> bool {
    if head.sandbox {
        return head.created_by == caller;
    }
    if standing.seated {
        return true;
    }
    if standing.blocked {
        return false;
    }
    match Spectators::of(&head.options) {
        Spectators::Anyone => true,
        Spectators::Players => {
            head.status() == Status::Open && (head.visibility == "public" || standing.invited)
        }
    }
}

/// A game as a live stream's reader may read it at one look.
#[derive(Clone, Debug)]
pub struct Look {
    pub head: GameHead,
    /// The reader's seat, if any.
    pub seat: Option<i16>,
    /// Whether the reader is an admin (who sees hidden chat text).
    pub admin: bool,
    /// Where the reader stands (seated, blocked, invited): with another head of the same
    /// game, `may_read` decides again without a look.
    pub standing: Standing,
}

/// The game `game_id` as `caller` may read it now (what a live stream looks at on each
/// wake-up), in one statement; `game_not_found` when they may not.
pub async fn look(pool: &PgPool, game_id: Uuid, caller: Uuid) -> Result<Look, Error> {
    let found = audience::head_for(pool, game_id, caller)
        .await?
        .ok_or(Error::GameNotFound)?;
    if !may_read(&found.head, caller, found.standing) {
        return Err(Error::GameNotFound);
    }
    Ok(Look {
        head: found.head,
        seat: found.seat,
        admin: found.admin,
        standing: found.standing,
    })
}

/// The head row of a game `caller` may read, else `game_not_found`.
pub async fn readable_head(
    conn: &mut PgConnection,
    game_id: Uuid,
    caller: Uuid,
) -> Result<GameHead, Error> {
    let head = games::head(&mut *conn, game_id)
        .await?
        .ok_or(Error::GameNotFound)?;
    let standing = audience::standing(&mut *conn, game_id, caller).await?;
    if may_read(&head, caller, standing) {
        Ok(head)
    } else {
        Err(Error::GameNotFound)
    }
}
