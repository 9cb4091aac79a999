//! Audit and replay: the ndjson export of a game's log, the fairness verification of a
//! finished game's export, and the refold check of the snapshots.
//!
//! ## Export format (`kontor-game-log`, version 1)
//! Line 1 is an [`ExportHeader`]; every further line is one [`ExportEvent`] in sequence
//! order, redacted for the viewer named in the header. A *complete* export (after the game
//! ended, or by the operator) carries every event unredacted, the seed, and on the first event
//! of each command the command itself, which is what verification re-decides.

pub mod error;
pub mod import;
pub mod log;
pub mod replay;
#[cfg(test)]
mod undo_tests;
pub mod verify;

pub use error::Error;

use crate::games::{Actor, Reason, Viewer};
use crate::service::play::auto::{AutoKind, read_marker};
use crate::service::play::events::SeatInfo;
use crate::service::play::log::EventOut;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

pub const EXPORT_FORMAT: &str = "kontor-game-log";
pub const EXPORT_FORMAT_VERSION: u32 = 1;

/// The first line of an export.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ExportHeader {
    /// Always `kontor-game-log`.
    pub format: String,
    pub format_version: u32,
    pub game_id: Uuid,
    pub kind: String,
    /// The rules version the game was created with (and is folded with).
    pub rules_version: i32,
    pub status: String,
    pub seats: Vec<SeatInfo>,
    #[schema(schema_with = crate::service::play::game_schemas::exported_options)]
    pub options: Value,
    /// SHA-256 (hex) of the secret seed, published at the creation of the game.
    pub seed_commitment: String,
    /// The seat nonces (known from the start of the game).
    pub nonces: Option<Vec<String>>,
    /// The seed (hex), once the game has ended.
    pub seed: Option<String>,
    /// Whose view the event lines are.
    #[schema(value_type = Object)]
    pub viewer: Viewer,
    /// Every event unredacted and every command present: verifiable and importable.
    pub complete: bool,
    /// The version (last sequence number) at the time of the export.
    pub version: i64,
    pub sandbox: bool,
    pub exported_at: DateTime<Utc>,
}

/// A command as recorded, on the first event it caused (complete exports only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CommandRecord {
    #[schema(value_type = Object)]
    pub actor: Actor,
    #[schema(value_type = Object)]
    pub action: Value,
    /// The server played this command on its own for its seat: `forced` (the rules left the
    /// seat this one move; `reason` says why) or `order` (the seat's standing order `order`
    /// played it). Verification checks that the rules force exactly this move, or that the
    /// order, matched on the seat's view, plays exactly it. Absent: submitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<AutoKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// The standing order (the game's `Order` type) as it stood when it played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::service::play::game_schemas::order_or_null)]
    pub order: Option<Value>,
}

impl CommandRecord {
    /// The record of a command of `actor`, with its stored marker (`game_commands.auto`).
    pub fn new(actor: Actor, action: Value, marker: Option<&Value>) -> Self {
        let (auto, reason) = match marker.and_then(read_marker) {
            Some((kind, reason)) => (Some(kind), reason),
            None => (None, None),
        };
        let order = match auto {
            Some(AutoKind::Order) => marker.and_then(|m| m.get("order")).cloned(),
            _ => None,
        };
        CommandRecord {
            actor,
            action,
            auto,
            reason,
            order,
        }
    }

    /// The marker to store for this record (`game_commands.auto`), if the server played it.
    pub fn marker(&self) -> Option<Value> {
        match self.auto? {
            AutoKind::Forced => Some(serde_json::json!({"kind": "forced", "reason": self.reason})),
            AutoKind::Order => Some(serde_json::json!({"kind": "order", "order": self.order})),
        }
    }
}

/// One event line of an export.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ExportEvent {
    #[serde(flatten)]
    pub event: EventOut,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandRecord>,
}

/// Writes an export as ndjson.
pub fn to_ndjson(header: &ExportHeader, events: &[ExportEvent]) -> String {
    let mut out = serde_json::to_string(header).expect("headers serialise");
    out.push('\n');
    for event in events {
        out.push_str(&serde_json::to_string(event).expect("events serialise"));
        out.push('\n');
    }
    out
}

/// Why an export could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("the export is empty")]
    Empty,
    #[error("line {line}: {message}")]
    Line { line: usize, message: String },
    #[error("this is not a Kontor game log (format {0:?})")]
    Format(String),
    #[error("format version {0} is not supported (this server reads version 1)")]
    Version(u32),
}

/// Reads an ndjson export.
pub fn parse_ndjson(text: &str) -> Result<(ExportHeader, Vec<ExportEvent>), ParseError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty());
    let (_, first) = lines.next().ok_or(ParseError::Empty)?;
    let header: ExportHeader = serde_json::from_str(first).map_err(|e| ParseError::Line {
        line: 1,
        message: format!("not an export header: {e}"),
    })?;
    if header.format != EXPORT_FORMAT {
        return Err(ParseError::Format(header.format));
    }
    if header.format_version != EXPORT_FORMAT_VERSION {
        return Err(ParseError::Version(header.format_version));
    }
    let events = lines
        .map(|(index, line)| {
            serde_json::from_str(line).map_err(|e| ParseError::Line {
                line: index + 1,
                message: format!("not an event: {e}"),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok((header, events))
}
