//! Reports and moderation: a reader reports a message; moderators read the open reports,
//! dismiss them, hide messages and mute authors.

use super::*;

/// Reports message `id` for the moderators; the report and whether it is new.
pub async fn report(
    pool: &PgPool,
    id: i64,
    caller: Uuid,
    request: &ReportRequest,
) -> Result<(ReportCreated, bool), ChatError> {
    let note = match request.note.as_deref() {
        None => None,
        Some(note) => {
            let note = note.trim();
            if note.chars().count() > MAX_CHARS {
                return Err(
                    Error::invalid_field("note", "a note has at most 500 characters").into(),
                );
            }
            crate::text::check_str("note", note).map_err(Error::from)?;
            (!note.is_empty()).then_some(note)
        }
    };
    let mut conn = pool.acquire().await?;
    readable_message(&mut conn, id, caller).await?;
    let (report, new) =
        store::report(&mut *conn, id, caller, request.reason.as_str(), note).await?;
    Ok((ReportCreated { id: report }, new))
}

// ---------------------------------------------------------------------------------------
// Moderation (admins through the API, the operator through `kontor admin`)

/// A report as moderators see it: with the whole message.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportView {
    pub id: i64,
    /// The message, with its text even when hidden, and the reason it was hidden.
    pub message: ChatMessage,
    pub reporter_id: Uuid,
    pub reporter: String,
    pub reason: String,
    pub note: Option<String>,
    pub created_at: DateTime<Utc>,
    pub resolved_at: Option<DateTime<Utc>>,
    /// `hidden` or `dismissed`, once resolved.
    pub resolution: Option<String>,
    /// The admin who resolved it; `null` while open, or when the operator did at the
    /// command line.
    pub resolved_by: Option<Uuid>,
    /// The moderator's word on a dismissal, if they gave one.
    pub resolution_note: Option<String>,
}

/// `r` with its message as admins see it.
async fn report_view<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    r: store::ReportRow,
) -> Result<ReportView, ChatError> {
    let message = store::message(executor, r.message_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("reported message {} vanished", r.message_id))?;
    Ok(ReportView {
        id: r.id,
        message: ChatMessage::of(message, true),
        reporter_id: r.reporter_id,
        reporter: r.reporter,
        reason: r.reason,
        note: r.note,
        created_at: r.created_at,
        resolved_at: r.resolved_at,
        resolution: r.resolution,
        resolved_by: r.resolved_by,
        resolution_note: r.resolution_note,
    })
}

/// Reports for moderators, the oldest first: the open ones, or all.
pub async fn reports(
    pool: &PgPool,
    open_only: bool,
    limit: i64,
) -> Result<Vec<ReportView>, ChatError> {
    let rows = store::reports(pool, open_only, limit).await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        out.push(report_view(pool, r).await?);
    }
    Ok(out)
}

/// Dismisses report `id` (`by`: the admin; `None`: the operator), with an optional word on
/// why; it leaves the open reports, the message stays as it is. A report resolved before
/// (dismissed, or its message hidden) is answered as it stands, unchanged: dismissing is
/// idempotent and the first resolution is the one recorded. The report, and whether this
/// call dismissed it.
pub async fn dismiss(
    pool: &PgPool,
    clock: &Clock,
    id: i64,
    by: Option<Uuid>,
    why: Option<&str>,
) -> Result<(ReportView, bool), ChatError> {
    let why = why.map(reason).transpose()?;
    let mut conn = pool.acquire().await?;
    let dismissed = store::dismiss(&mut *conn, id, by, why.as_deref(), clock.now()).await?;
    let row = store::report_by_id(&mut *conn, id)
        .await?
        .ok_or(ChatError::ReportNotFound(id))?;
    Ok((report_view(&mut *conn, row).await?, dismissed))
}

/// A moderator's reason: 1 to 500 characters of one line.
fn reason(text: &str) -> Result<String, ChatError> {
    Ok(crate::text::line("reason", text, 1..=MAX_CHARS)
        .map_err(Error::from)?
        .to_string())
}

/// Hides message `id` (`by`: the admin; `None`: the operator), resolving its reports; the
/// message as admins see it.
pub async fn hide(
    pool: &PgPool,
    id: i64,
    by: Option<Uuid>,
    why: &str,
) -> Result<ChatMessage, ChatError> {
    let why = reason(why)?;
    let mut tx = pool.begin().await?;
    let row = store::message(&mut *tx, id)
        .await?
        .ok_or(ChatError::MessageNotFound)?;
    if store::hide(&mut tx, id, by, &why).await? {
        let readers = match Channel::parse(&row.channel) {
            Some(channel) => match game(&mut tx, row.game_id, row.author_id).await {
                Ok(g) => g.seated_readers(channel),
                Err(_) => Vec::new(),
            },
            None => Vec::new(),
        };
        crate::live::announce(&mut tx, &Note::chat_hidden(row.game_id, id, readers)).await?;
    }
    let row = store::message(&mut *tx, id)
        .await?
        .ok_or(ChatError::MessageNotFound)?;
    tx.commit().await?;
    Ok(ChatMessage::of(row, true))
}

/// A mute as moderators see it.
#[derive(Debug, Serialize, ToSchema)]
pub struct MuteView {
    pub id: i64,
    pub user_id: Uuid,
    pub username: String,
    pub until: DateTime<Utc>,
    pub reason: String,
    /// The admin who muted; `null`: the operator at the command line.
    pub muted_by: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub lifted_at: Option<DateTime<Utc>>,
}

impl From<store::MuteRow> for MuteView {
    fn from(m: store::MuteRow) -> Self {
        Self {
            id: m.id,
            user_id: m.user_id,
            username: m.username,
            until: m.until,
            reason: m.reason,
            muted_by: m.muted_by,
            created_at: m.created_at,
            lifted_at: m.lifted_at,
        }
    }
}

/// Who to mute, for how long and why.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"username": "spammer", "minutes": 1440, "reason": "spam in three games"}))]
pub struct MuteRequest {
    /// The account's username (any letter case).
    #[schema(min_length = 1, max_length = 254)]
    pub username: String,
    /// 1 to 525600 (a year).
    pub minutes: i64,
    #[schema(min_length = 1, max_length = 500)]
    pub reason: String,
}

/// The most minutes of one mute (a year).
pub const MAX_MUTE_MINUTES: i64 = 525_600;

/// The account a moderator names by its username.
async fn named_user(pool: &PgPool, name: &str) -> Result<Uuid, ChatError> {
    users::find_by_username(pool, name)
        .await?
        .map(|(id, _)| id)
        .ok_or_else(|| Error::UserNotFound(name.to_string()).into())
}

/// Mutes an account from every chat for `minutes`.
pub async fn mute(
    pool: &PgPool,
    clock: &Clock,
    by: Option<Uuid>,
    request: &MuteRequest,
) -> Result<MuteView, ChatError> {
    if !(1..=MAX_MUTE_MINUTES).contains(&request.minutes) {
        return Err(Error::invalid_field(
            "minutes",
            format!(
                "minutes is 1 to {MAX_MUTE_MINUTES}, not {}",
                request.minutes
            ),
        )
        .into());
    }
    let why = reason(&request.reason)?;
    let user = named_user(pool, &request.username).await?;
    let until = clock.now() + Duration::minutes(request.minutes);
    Ok(store::mute(pool, user, until, &why, by).await?.into())
}

/// Lifts an account's running mutes; whether there was one.
pub async fn unmute(pool: &PgPool, clock: &Clock, user: Uuid) -> Result<bool, ChatError> {
    Ok(store::unmute(pool, user, clock.now()).await? > 0)
}
