//! Whether a notice is still worth delivering, checked just before each channel that may
//! deliver it late (mail, Web Push) hands it over.
//!
//! * "your turn" and reminders: only while the turn they announce is the current one (the
//!   player must act, and no later turn of theirs has been queued since);
//! * chat mentions: only while the message is there to read for the recipient (not hidden by a
//!   moderator, no block between the two, the channel still readable); the author's name is
//!   read again;
//! * undo requests: only while the request still waits for the recipient's answer.

use super::render::GameInfo;
use crate::service::notices::NoticeKind;
use crate::store::outbox;
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

/// One notice as the check needs it.
pub struct NoticeRef<'a> {
    /// Its outbox row.
    pub outbox_id: Uuid,
    pub user_id: Uuid,
    pub kind: NoticeKind,
    pub game_id: Option<Uuid>,
    pub data: &'a Value,
    /// The game as it is now, when the notice is about one.
    pub game: Option<&'a GameInfo>,
}

/// Still relevant: `Ok(Some(author))` for a mention (its author's name as shown now),
/// `Ok(None)` otherwise; not any more: `Err(reason)` (`stale`, `hidden`, `blocked`,
/// `unreadable`).
pub async fn check(
    pool: &PgPool,
    notice: &NoticeRef<'_>,
) -> anyhow::Result<Result<Option<String>, &'static str>> {
    match notice.kind {
        NoticeKind::ChatMention => {
            let mut conn = pool.acquire().await?;
            Ok(
                crate::service::notices::mention::recheck(&mut conn, notice.data, notice.user_id)
                    .await?
                    .map(Some),
            )
        }
        NoticeKind::UndoRequested => {
            let request = notice.data.get("request").and_then(|r| r.as_i64());
            let asks = match (notice.game_id, request) {
                (Some(game), Some(request)) => {
                    crate::store::undo::still_asks(pool, game, request, notice.user_id).await?
                }
                _ => false,
            };
            Ok(if asks { Ok(None) } else { Err("stale") })
        }
        NoticeKind::YourTurn | NoticeKind::Reminder => {
            let stale = notice.game.is_some_and(|g| !g.is_pending(notice.user_id))
                || outbox::later_turn_queued(pool, notice.outbox_id).await?;
            Ok(if stale { Err("stale") } else { Ok(None) })
        }
        _ => Ok(Ok(None)),
    }
}
