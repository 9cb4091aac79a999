//! The account's profile (display name, language, time zone), the export of everything
//! stored about the user, blocking other players, and the entry to deleting the account (what
//! a deletion does to the games is [`accounts`](super::accounts)).

use super::error::AccountError;
use super::security::{check_own_password, own_account};
use super::signin::{Accounts, ApiTokenInfo};
use crate::service::notices::preferences;
use crate::service::notices::preferences::Preferences;
use crate::store::seats::SeatState;
use crate::store::{
    blocks, invitations, mail_tokens, outbox, seats, sessions, tokens, users, vacations,
};
use crate::text::identity;
use crate::words::language::Language;
use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d", "username": "anna", "email": "anna@example.org", "created_at": "2026-11-29T12:00:00Z", "email_verified": true, "display_name": "Anna K.", "language": "en", "time_zone": "Europe/Berlin", "admin": false}))]
pub struct UserProfile {
    pub id: Uuid,
    pub username: String,
    pub email: String,
    pub created_at: DateTime<Utc>,
    /// Whether the address is verified (its link was used). Game notices are mailed only to
    /// a verified address. A new account gets a verification link by mail.
    pub email_verified: bool,
    /// A new address waiting for its verification link (`POST /me/email`); it replaces
    /// `email` once the link is used. Absent when no change waits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_email: Option<String>,
    /// Shown beside the username at the table; `null` if none.
    pub display_name: Option<String>,
    /// The language of the mails.
    pub language: Language,
    /// The IANA time zone of the dates in mails and of the digest hour.
    pub time_zone: String,
    /// Whether the account has the admin role (`kontor admin grant`): the page then offers
    /// the moderators' actions. Only ever in the account's own profile.
    pub admin: bool,
}

/// The profile of the caller's account ([`AccountError::AccountGone`] if it no longer
/// exists).
pub async fn profile_of(accounts: Accounts<'_>, user: Uuid) -> Result<UserProfile, AccountError> {
    let account = own_account(accounts.pool, user).await?;
    let now = accounts.config.clock.now();
    let pending_email = mail_tokens::open_verification(accounts.pool, user, now)
        .await?
        .filter(|address| identity::key(address) != identity::key(&account.email));
    Ok(UserProfile {
        id: account.id,
        username: account.username,
        email: account.email,
        created_at: account.created_at,
        email_verified: account.email_verified_at.is_some(),
        pending_email,
        display_name: account.display_name,
        language: Language::parse(&account.language).unwrap_or_default(),
        time_zone: account.time_zone,
        admin: account.is_admin,
    })
}

/// Changes the profile (each member checked; `None` keeps its value) and answers it anew.
pub async fn update_profile(
    accounts: Accounts<'_>,
    user: Uuid,
    change: &users::ProfileChange<'_>,
) -> Result<UserProfile, AccountError> {
    if !users::update_profile(accounts.pool, user, change).await? {
        return Err(AccountError::AccountGone);
    }
    profile_of(accounts, user).await
}

/// Deletes the asker's account for good, once `password` is found to be its own (a wrong
/// one counts as a failed login from `address`).
pub async fn delete_account(
    accounts: Accounts<'_>,
    user: Uuid,
    address: Option<&str>,
    password: String,
) -> Result<(), AccountError> {
    check_own_password(accounts, address, user, "password", password).await?;
    let deleted = crate::service::accounts::deletion::delete_account(
        accounts.pool,
        &accounts.config.clock,
        user,
    )
    .await?;
    if deleted.is_none() {
        return Err(AccountError::AccountGone);
    }
    accounts.known_users.forget(user);
    Ok(())
}

/// A vacation, as the export lists it.
#[derive(Serialize, ToSchema)]
pub struct VacationPeriod {
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

/// A login (the browser session or a token login) that can still be refreshed.
#[derive(Serialize, ToSchema)]
pub struct LoginInfo {
    pub id: Uuid,
    pub started_at: DateTime<Utc>,
    pub last_refreshed_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// The client's `User-Agent` as the login recorded it (as `GET /me/sessions` shows it).
    pub client: Option<String>,
}

/// A game the caller sits in.
#[derive(Serialize, ToSchema)]
pub struct MyGame {
    pub game_id: Uuid,
    pub kind: String,
    /// `open`, `active`, `finished` or `cancelled`.
    pub status: String,
    pub seat: i16,
    /// `active`, `abandoned` or `forfeited`.
    pub seat_state: SeatState,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// A player the caller blocked.
#[derive(Serialize, ToSchema)]
pub struct BlockedUser {
    pub user_id: Uuid,
    pub username: String,
    pub blocked_at: DateTime<Utc>,
}

/// Everything Kontor stores about the caller (no secrets: no password hash, no token).
#[derive(Serialize, ToSchema)]
pub struct MyData {
    pub exported_at: DateTime<Utc>,
    pub account: UserProfile,
    pub notification_preferences: Preferences,
    pub vacations: Vec<VacationPeriod>,
    /// API tokens that are not revoked: what is shown of them, never the tokens.
    pub api_tokens: Vec<ApiTokenInfo>,
    /// Logins that can still be refreshed.
    pub logins: Vec<LoginInfo>,
    /// Every game the caller sits in, with its id (its log: `GET /games/{id}/export`).
    pub games: Vec<MyGame>,
    pub blocked_users: Vec<BlockedUser>,
    /// Invitations to private games the caller received or made.
    pub invitations: Vec<MyInvitation>,
    /// The mails kept for the caller (sent ones for `KONTOR_KEEP_SENT_MAIL_DAYS`): their kind,
    /// game and fate, not their text (which may hold a link's secret while unsent).
    pub mails: Vec<MyMail>,
    /// The chat messages the caller wrote, with their text (also those a moderator hid).
    pub chat_messages: Vec<crate::service::social::chat::ChatMessage>,
    /// The chat messages the caller reported, and what became of the reports.
    pub chat_reports: Vec<MyChatReport>,
    /// The times moderators muted the caller in the chat, with their reasons.
    pub chat_mutes: Vec<MyChatMute>,
    /// The caller's private notes on games, with their text.
    pub notes: Vec<crate::service::social::notes::MyNote>,
    /// The account's standing orders in every game (its own; nobody else's).
    pub orders: Vec<crate::service::play::orders::MyOrders>,
    /// The rematch offers the caller made and their answers to others' offers.
    pub rematch_answers: Vec<MyRematchAnswer>,
    /// Whether the caller has a calendar feed, and since when (never its URL: only a hash of
    /// its token is kept).
    pub calendar_feed: crate::service::accounts::calendar_feed::CalendarFeedStatus,
}

/// The caller's answer to a rematch offer of a finished game (an offer counts as accepting).
#[derive(Serialize, ToSchema)]
pub struct MyRematchAnswer {
    pub offer_id: i64,
    /// The finished game the rematch was offered after.
    pub game_id: Uuid,
    /// `true`: the caller made the offer.
    pub offered: bool,
    pub accept: bool,
    pub answered_at: DateTime<Utc>,
    /// What became of the offer: `open`, `accepted`, `declined`, `expired` or `cancelled`.
    pub status: String,
    /// The rematch, once every seat accepted.
    pub new_game_id: Option<Uuid>,
}

#[derive(Serialize, ToSchema)]
pub struct MyChatReport {
    pub id: i64,
    pub message_id: i64,
    pub reason: String,
    pub note: Option<String>,
    pub created_at: DateTime<Utc>,
    pub resolved_at: Option<DateTime<Utc>>,
    pub resolution: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct MyChatMute {
    pub until: DateTime<Utc>,
    pub reason: String,
    pub created_at: DateTime<Utc>,
    pub lifted_at: Option<DateTime<Utc>>,
}

#[derive(Serialize, ToSchema)]
pub struct MyInvitation {
    pub game_id: Uuid,
    /// `true`: the caller was invited by `username`; `false`: the caller invited them.
    pub received: bool,
    pub username: String,
    pub created_at: DateTime<Utc>,
}

#[derive(Serialize, ToSchema)]
pub struct MyMail {
    /// The kind of notice (`your_turn`, `verify_email`…).
    pub kind: String,
    pub game_id: Option<Uuid>,
    /// `pending`, `sending`, `sent`, `failed`, `skipped`, `held` or `digested`.
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
}

/// Everything stored about `user`.
pub async fn export(accounts: Accounts<'_>, user: Uuid) -> Result<MyData, AccountError> {
    let pool = accounts.pool;
    let account = profile_of(accounts, user).await?;
    // A login's id is its refresh-token family's.
    let clients: std::collections::HashMap<Uuid, Option<String>> = sessions::active(pool, user)
        .await?
        .into_iter()
        .map(|s| (s.id, s.user_agent))
        .collect();
    let mut conn = pool.acquire().await?;
    let notification_preferences = preferences::load(&mut conn, user).await?.mail;
    drop(conn);
    Ok(MyData {
        exported_at: Utc::now(),
        account,
        notification_preferences,
        vacations: vacations::all_of(pool, user)
            .await?
            .into_iter()
            .map(|(starts_at, ends_at)| VacationPeriod { starts_at, ends_at })
            .collect(),
        api_tokens: tokens::list_api_tokens(pool, user)
            .await?
            .into_iter()
            .map(ApiTokenInfo::from)
            .collect(),
        logins: tokens::logins_of(pool, user)
            .await?
            .into_iter()
            .map(|l| LoginInfo {
                id: l.family_id,
                started_at: l.started_at,
                last_refreshed_at: l.refreshed_at,
                expires_at: l.expires_at,
                client: clients.get(&l.family_id).cloned().flatten(),
            })
            .collect(),
        games: seats::games_of_user(pool, user)
            .await?
            .into_iter()
            .map(|g| MyGame {
                game_id: g.game_id,
                kind: g.kind,
                status: g.status,
                seat: g.seat,
                seat_state: g.state,
                created_at: g.created_at,
                started_at: g.started_at,
                finished_at: g.finished_at,
            })
            .collect(),
        blocked_users: blocked_users(pool, user).await?.items,
        invitations: invitations::of_user(pool, user)
            .await?
            .into_iter()
            .map(|i| MyInvitation {
                game_id: i.game_id,
                received: i.received,
                username: i.other,
                created_at: i.created_at,
            })
            .collect(),
        chat_messages: crate::store::chat::messages_by(pool, user)
            .await?
            .into_iter()
            .map(|m| {
                let mut message = crate::service::social::chat::ChatMessage::of(m.clone(), false);
                message.text = Some(m.body);
                message
            })
            .collect(),
        chat_reports: crate::store::chat::reports_by(pool, user)
            .await?
            .into_iter()
            .map(|r| MyChatReport {
                id: r.id,
                message_id: r.message_id,
                reason: r.reason,
                note: r.note,
                created_at: r.created_at,
                resolved_at: r.resolved_at,
                resolution: r.resolution,
            })
            .collect(),
        chat_mutes: crate::store::chat::mutes_of(pool, user)
            .await?
            .into_iter()
            .map(|m| MyChatMute {
                until: m.until,
                reason: m.reason,
                created_at: m.created_at,
                lifted_at: m.lifted_at,
            })
            .collect(),
        notes: crate::service::social::notes::of_user(pool, user).await?,
        orders: crate::service::play::orders::of_user(pool, user).await?,
        calendar_feed: crate::service::accounts::calendar_feed::status(pool, user).await?,
        rematch_answers: crate::store::rematch::answers_of_user(pool, user)
            .await?
            .into_iter()
            .map(|a| MyRematchAnswer {
                offer_id: a.offer_id,
                game_id: a.game_id,
                offered: a.offered,
                accept: a.accept,
                answered_at: a.answered_at,
                status: a.status,
                new_game_id: a.new_game_id,
            })
            .collect(),
        mails: outbox::kept_for(pool, user)
            .await?
            .into_iter()
            .map(|m| MyMail {
                kind: m.kind,
                game_id: m.game_id,
                status: m.status,
                created_at: m.created_at,
                sent_at: m.sent_at,
            })
            .collect(),
    })
}

#[derive(Serialize, ToSchema)]
pub struct BlockList {
    pub items: Vec<BlockedUser>,
}

/// The players `user` blocked.
pub async fn blocked_users(pool: &PgPool, user: Uuid) -> Result<BlockList, AccountError> {
    let items = blocks::list(pool, user)
        .await?
        .into_iter()
        .map(|b| BlockedUser {
            user_id: b.user_id,
            username: b.username,
            blocked_at: b.created_at,
        })
        .collect();
    Ok(BlockList { items })
}

/// The account a block names (`name`, checked to be one line); refused for no (live)
/// account, and for the asker.
async fn block_target(pool: &PgPool, asker: Uuid, name: &str) -> Result<Uuid, AccountError> {
    let Some((id, _)) = users::find_by_username(pool, name).await? else {
        return Err(AccountError::UserNotFound(name.to_string()));
    };
    if id == asker {
        return Err(AccountError::invalid_field(
            "username",
            "you cannot block yourself",
        ));
    }
    Ok(id)
}

/// Blocks the player `name` (again: nothing changes).
pub async fn block(pool: &PgPool, user: Uuid, name: &str) -> Result<(), AccountError> {
    let target = block_target(pool, user, name).await?;
    blocks::block(pool, user, target).await?;
    // Once committed: a stream of either that may no longer watch ends at once.
    crate::live::announce(
        &mut *pool.acquire().await?,
        &crate::live::Note::blocked(user, target),
    )
    .await?;
    Ok(())
}

/// Lifts the block of the player `name`.
pub async fn unblock(pool: &PgPool, user: Uuid, name: &str) -> Result<(), AccountError> {
    let target = block_target(pool, user, name).await?;
    if !blocks::unblock(pool, user, target).await? {
        return Err(AccountError::NotBlocked);
    }
    Ok(())
}
