//! Keeping an account: verified addresses, password reset by mail, changing the password and
//! the address, and the list of logins (sessions).
//!
//! Links by mail carry single-use tokens (`kontor_ve_…` verifies an address, `kontor_pw_…`
//! resets a password), stored only as their SHA-256 (`store::mail_tokens`) and judged by the
//! instance's clock. A token that is unknown or damaged, used or replaced, or expired is
//! refused with its own code and changes nothing.

use super::error::AccountError;
use super::signin::{Accounts, new_password_hash};
use crate::auth::{self, RESET_PASSWORD_PREFIX, VERIFY_EMAIL_PREFIX, password, throttle};
use crate::config::Config;
use crate::service::notices::account::{self as mail, AccountMail, PasswordChange};
use crate::store::mail_tokens::{self, MailToken, NewMailToken};
use crate::store::{calendar as calendar_feeds, channels, sessions, tokens, users};
use crate::text::identity;
use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{PgConnection, PgPool};
use std::time::Duration;
use utoipa::ToSchema;
use uuid::Uuid;

/// Verification mails per account: one a minute, five a day (resends and changes of address
/// together), so that no one can use Kontor to flood an address.
const VERIFY_MAILS: [(u32, u64); 2] = [(1, 60), (5, 86_400)];
/// Reset mails per account: three an hour. Beyond it nothing is mailed, silently (an answer
/// that differed would tell that the account exists).
const RESET_MAILS_PER_ACCOUNT: (u32, u64) = (3, 3_600);
/// Reset requests per client address: ten an hour, then 429.
const RESET_REQUESTS_PER_ADDRESS: (u32, u64) = (10, 3_600);
// Housekeeping forgets mail counters after the longest window it knows of.
const _: () = assert!(
    VERIFY_MAILS[0].1 <= throttle::LONGEST_MAIL_WINDOW.as_secs()
        && VERIFY_MAILS[1].1 <= throttle::LONGEST_MAIL_WINDOW.as_secs()
        && RESET_MAILS_PER_ACCOUNT.1 <= throttle::LONGEST_MAIL_WINDOW.as_secs()
        && RESET_REQUESTS_PER_ADDRESS.1 <= throttle::LONGEST_MAIL_WINDOW.as_secs()
);

fn limit(subject: String, (limit, secs): (u32, u64)) -> throttle::Limit {
    throttle::Limit {
        subject,
        limit,
        window: Duration::from_secs(secs),
    }
}

fn expiry(now: DateTime<Utc>, ttl: Duration) -> DateTime<Utc> {
    // Bounded, so that no setting can overflow the time.
    let secs = ttl.as_secs().min(10 * 366 * 86_400) as i64;
    now + chrono::TimeDelta::seconds(secs)
}

/// The caller's account ([`AccountError::AccountGone`] if it no longer exists).
pub(super) async fn own_account(pool: &PgPool, user: Uuid) -> Result<users::Account, AccountError> {
    users::account(pool, user)
        .await?
        .ok_or(AccountError::AccountGone)
}

/// Issues a verification link for `email` and queues its mail, in the caller's transaction;
/// returns the token's id. `change`: `email` is a new address for the account.
///
/// Refused once `email` was mailed `KONTOR_VERIFY_MAILS_PER_ADDRESS` such links today,
/// whichever accounts asked: otherwise fresh accounts, each within its own limits, could
/// take turns mailing a stranger. Counted in the caller's transaction, so a refusal (which
/// rolls it back) counts nothing and changes nothing.
pub(super) async fn mail_verification_link(
    config: &Config,
    conn: &mut PgConnection,
    user_id: Uuid,
    email: &str,
    change: bool,
) -> Result<(Uuid, DateTime<Utc>), AccountError> {
    let per_address = config.limits.verify_mails_per_address_day;
    let subject = format!("mail:to:{}", identity::key(email));
    let per_day = [limit(subject, (per_address, VERIFY_MAILS[1].1))];
    if let Err(wait) = throttle::take(&mut *conn, &per_day).await? {
        return Err(AccountError::TooManyMailsToAddress {
            limit: per_address,
            wait,
        });
    }
    let token = auth::random_token(VERIFY_EMAIL_PREFIX);
    let id = Uuid::now_v7();
    let now = config.clock.now();
    let expires_at = expiry(now, config.verify_token_ttl);
    let stored = NewMailToken {
        id,
        user_id,
        purpose: mail_tokens::VERIFY_EMAIL,
        email,
        token_hash: &auth::token_hash(&token),
        now,
        expires_at,
    };
    mail_tokens::issue(&mut *conn, &stored).await?;
    let link = AccountMail::verify_email(user_id, id, email, &token, expires_at, change);
    mail::enqueue(&mut *conn, &[link]).await?;
    Ok((id, expires_at))
}

/// Whether a stored token may be used now for `purpose`.
fn judge(
    token: Option<&MailToken>,
    purpose: &str,
    what: &'static str,
    now: DateTime<Utc>,
) -> Result<(), AccountError> {
    let Some(token) = token.filter(|t| t.purpose == purpose) else {
        return Err(AccountError::MailTokenInvalid { what });
    };
    if token.used_at.is_some() {
        return Err(AccountError::MailTokenUsed { what });
    }
    if token.superseded_at.is_some() {
        return Err(AccountError::MailTokenReplaced { what });
    }
    if token.expires_at <= now {
        return Err(AccountError::MailTokenExpired { what });
    }
    Ok(())
}

/// Checks the caller's own password, as a login would: throttled per account and client
/// `address`, and a wrong one counts as a failed login. `field` names the member it came in
/// (`current_password`, `password`), in the refusal's `field` and its words.
pub async fn check_own_password(
    accounts: Accounts<'_>,
    address: Option<&str>,
    user_id: Uuid,
    field: &str,
    given: String,
) -> Result<(), AccountError> {
    if given.len() > password::MAX_PASSWORD_BYTES {
        return Err(AccountError::invalid_field(
            field,
            format!(
                "a password has at most {} bytes",
                password::MAX_PASSWORD_BYTES
            ),
        ));
    }
    let (pool, config) = (accounts.pool, accounts.config);
    let subjects = throttle::subjects(
        &throttle::Account::Known(user_id),
        address,
        config.login_max_failures,
        config.login_max_failures_per_address,
    );
    if let Err(wait) = throttle::check(pool, &subjects, config.login_window).await? {
        return Err(AccountError::rate_limited(wait, "too many wrong passwords"));
    }
    let hash = users::password_hash(pool, user_id)
        .await?
        .unwrap_or_else(|| auth::DUMMY_PASSWORD_HASH.clone());
    let ok = tokio::task::spawn_blocking(move || auth::verify_password(&hash, &given)).await?;
    if !ok {
        throttle::record_failure(pool, &subjects, config.login_window).await?;
        return Err(AccountError::WrongPassword {
            field: field.to_string(),
        });
    }
    throttle::clear(pool, &subjects[0].0).await?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Verification

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"email": "anna@example.org", "changed": false}))]
pub struct VerifiedEmail {
    /// The account's address, now verified.
    pub email: String,
    /// Whether the link was for a new address, which has now replaced the old one.
    pub changed: bool,
}

/// Verifies an address with the token of a mailed link (`raw`, checked to be one line); a
/// link mailed to a new address makes it the account's address now.
pub async fn verify_email(
    accounts: Accounts<'_>,
    raw: &str,
) -> Result<VerifiedEmail, AccountError> {
    const WHAT: &str = "verification";
    if !raw.starts_with(VERIFY_EMAIL_PREFIX) {
        return Err(AccountError::MailTokenInvalid { what: WHAT });
    }
    let now = accounts.config.clock.now();
    let mut tx = accounts.pool.begin().await?;
    let token = mail_tokens::lock(&mut tx, &auth::token_hash(raw)).await?;
    judge(token.as_ref(), mail_tokens::VERIFY_EMAIL, WHAT, now)?;
    let token = token.expect("judged above");
    let before = users::account(&mut *tx, token.user_id).await?;
    let changed = match users::verify_email(&mut *tx, token.user_id, &token.email, now).await? {
        users::Verified::Address => false,
        users::Verified::Changed => true,
        users::Verified::EmailTaken => return Err(AccountError::EmailTakenSince),
    };
    mail_tokens::mark_used(&mut *tx, token.id, now).await?;
    if changed {
        // Reset links went to the old address: they stop working with it.
        mail_tokens::supersede(&mut *tx, token.user_id, mail_tokens::RESET_PASSWORD, now).await?;
        // And the old address is told that the change took effect.
        if let Some(old) = before.as_ref().map(|account| account.email.as_str()) {
            let notice = AccountMail::email_replaced(token.user_id, token.id, old, &token.email);
            mail::enqueue(&mut tx, &[notice]).await?;
        }
    }
    tx.commit().await?;
    Ok(VerifiedEmail {
        email: token.email,
        changed,
    })
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"sent_to": "anna@example.org", "expires_at": "2026-12-03T12:00:00Z"}))]
pub struct LinkSent {
    /// The address the link was mailed to.
    pub sent_to: String,
    /// When the link stops working.
    pub expires_at: DateTime<Utc>,
}

/// Mails the verification link again: to the address a change waits for if there is one,
/// else to the account's address while it is not verified.
pub async fn resend_verification(
    accounts: Accounts<'_>,
    user: Uuid,
) -> Result<LinkSent, AccountError> {
    let account = own_account(accounts.pool, user).await?;
    let now = accounts.config.clock.now();
    let pending = mail_tokens::open_verification(accounts.pool, user, now)
        .await?
        .filter(|address| identity::key(address) != identity::key(&account.email));
    let (target, change) = match pending {
        Some(address) => (address, true),
        None if account.email_verified_at.is_none() => (account.email.clone(), false),
        None => return Err(AccountError::EmailAlreadyVerified),
    };
    let mut tx = accounts.pool.begin().await?;
    take_verify_mail(&mut tx, user).await?;
    let (_, expires_at) =
        mail_verification_link(accounts.config, &mut tx, user, &target, change).await?;
    tx.commit().await?;
    Ok(LinkSent {
        sent_to: target,
        expires_at,
    })
}

/// Counts a verification mail of the account against its limits, in the caller's
/// transaction (with the mail it allows).
async fn take_verify_mail(conn: &mut PgConnection, user_id: Uuid) -> Result<(), AccountError> {
    let limits = VERIFY_MAILS.map(|l| limit(format!("mail:verify:{}:{user_id}", l.1), l));
    if let Err(wait) = throttle::take(conn, &limits).await? {
        let (per_minute, per_day) = (VERIFY_MAILS[0], VERIFY_MAILS[1]);
        let what = if wait <= per_minute.1 {
            "a verification link was mailed just now".to_string()
        } else {
            format!(
                "{} verification links were mailed today, the most a day",
                per_day.0
            )
        };
        return Err(AccountError::rate_limited(wait, &what));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Password reset

/// Mails a reset link to the account `login` names (its username or address, checked to be
/// one line), if there is one; the caller answers the same either way. `address`: the
/// client's, whose requests are limited.
pub async fn forgot_password(
    accounts: Accounts<'_>,
    login: &str,
    address: Option<&str>,
) -> Result<(), AccountError> {
    let (pool, config) = (accounts.pool, accounts.config);
    if let Some(address) = address {
        let per_address = [limit(
            format!("mail:reset:ip:{address}"),
            RESET_REQUESTS_PER_ADDRESS,
        )];
        if let Err(wait) = throttle::take(&mut *pool.acquire().await?, &per_address).await? {
            return Err(AccountError::rate_limited(
                wait,
                "too many password reset requests",
            ));
        }
    }
    // The same work whether or not the account exists, so that the time of the answer does
    // not tell: the lookup, a new token and its hash, and one transaction that counts the
    // request against the account (an unknown name is counted as typed), replaces older
    // links and commits. Committing is what costs (the write-ahead log is flushed): both
    // commit once, with their count. Only for an account is a link kept and its mail queued
    // (sent later by the mail worker, not in this request).
    let account = users::find_for_reset(pool, login).await?;
    let subject = match &account {
        Some((id, _)) => format!("mail:reset:account:{id}"),
        None => format!("mail:reset:name:{}", identity::key(login)),
    };
    let token = auth::random_token(RESET_PASSWORD_PREFIX);
    let hash = auth::token_hash(&token);
    let now = config.clock.now();
    let mut tx = pool.begin().await?;
    let allowed = throttle::take(&mut tx, &[limit(subject, RESET_MAILS_PER_ACCOUNT)])
        .await?
        .is_ok();
    match account.filter(|_| allowed) {
        Some((user_id, email)) => {
            let id = Uuid::now_v7();
            let expires_at = expiry(now, config.reset_token_ttl);
            let stored = NewMailToken {
                id,
                user_id,
                purpose: mail_tokens::RESET_PASSWORD,
                email: &email,
                token_hash: &hash,
                now,
                expires_at,
            };
            mail_tokens::issue(&mut tx, &stored).await?;
            let link = AccountMail::password_reset(user_id, id, &token, expires_at);
            mail::enqueue(&mut tx, &[link]).await?;
        }
        None => {
            mail_tokens::supersede(&mut *tx, Uuid::nil(), mail_tokens::RESET_PASSWORD, now).await?;
            // As the queued mail would: the mail worker wakes, and finds nothing new.
            channels::notify(&mut *tx, crate::service::notices::CHANNEL, "").await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"sessions": 3, "api_tokens": 2}))]
pub struct RevokedCounts {
    /// Logins (refresh-token families) ended: their refresh tokens stop working at once,
    /// their access tokens within `KONTOR_ACCESS_TOKEN_TTL`.
    pub sessions: i64,
    /// API tokens revoked (they stop working at once).
    pub api_tokens: u64,
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"revoked": {"sessions": 3, "api_tokens": 2}}))]
pub struct PasswordChanged {
    /// What the new password ended.
    pub revoked: RevokedCounts,
}

/// Sets a new password with the token of a reset link (`raw`, checked to be one line):
/// every login and API token of the account ends, and the address the link went to counts
/// as verified.
pub async fn reset_password(
    accounts: Accounts<'_>,
    raw: &str,
    new_password: String,
) -> Result<PasswordChanged, AccountError> {
    const WHAT: &str = "password reset";
    if !raw.starts_with(RESET_PASSWORD_PREFIX) {
        return Err(AccountError::MailTokenInvalid { what: WHAT });
    }
    let pool = accounts.pool;
    let hash = auth::token_hash(raw);
    let now = accounts.config.clock.now();
    let found = mail_tokens::find(pool, &hash).await?;
    judge(found.as_ref(), mail_tokens::RESET_PASSWORD, WHAT, now)?;
    let found = found.expect("judged above");
    let account = own_account(pool, found.user_id).await?;
    let names = [account.username.clone(), account.email.clone()];
    let password_hash = new_password_hash("password", new_password, names).await?;
    let mut tx = pool.begin().await?;
    // Judged again under the lock: two resets with one link cannot both pass.
    let token = mail_tokens::lock(&mut tx, &hash).await?;
    judge(token.as_ref(), mail_tokens::RESET_PASSWORD, WHAT, now)?;
    let token = token.expect("judged above");
    users::set_password(&mut *tx, token.user_id, &password_hash).await?;
    mail_tokens::mark_used(&mut *tx, token.id, now).await?;
    let sessions = sessions::revoke_all_except(&mut *tx, token.user_id, None).await?;
    let api_tokens = tokens::revoke_all_api_tokens(&mut *tx, token.user_id).await?;
    // The calendar feed's URL is a credential too: whoever reset the password may not be the
    // only one who had it.
    calendar_feeds::revoke(&mut *tx, token.user_id).await?;
    // A device someone else signed in on must stop getting this account's notices.
    crate::store::push::delete_all(&mut *tx, token.user_id).await?;
    // A change of address someone else began (with a stolen session) must not outlive the
    // reset its notice advised: its link stops working.
    mail_tokens::supersede_address_changes(&mut *tx, token.user_id, &account.email, now).await?;
    if identity::key(&token.email) == identity::key(&account.email) {
        users::verify_email(&mut *tx, token.user_id, &token.email, now).await?;
    }
    let notice = AccountMail::password_changed(token.user_id, token.id, PasswordChange::Reset);
    mail::enqueue(&mut tx, &[notice]).await?;
    tx.commit().await?;
    accounts.known_users.forget(token.user_id);
    // The owner is back: earlier failed logins no longer count against the account.
    throttle::clear(pool, &format!("account:{}", token.user_id)).await?;
    Ok(PasswordChanged {
        revoked: RevokedCounts {
            sessions,
            api_tokens,
        },
    })
}

// ---------------------------------------------------------------------------------------
// Changing the password and the address

/// Who asks for a change of their own account: the user, the login (session) they ask from,
/// and the client's address (for the password throttle).
#[derive(Clone, Copy)]
pub struct Asker<'a> {
    pub user: Uuid,
    pub session: Option<Uuid>,
    pub address: Option<&'a str>,
}

/// Changes the password (the current one is needed); every other login ends, the asker's
/// stays, and API tokens are kept.
pub async fn change_password(
    accounts: Accounts<'_>,
    asker: Asker<'_>,
    current: String,
    new: String,
) -> Result<PasswordChanged, AccountError> {
    let unchanged = new == current;
    check_own_password(
        accounts,
        asker.address,
        asker.user,
        "current_password",
        current,
    )
    .await?;
    // Checked once the current password is known to be right: the answer tells nothing else.
    if unchanged {
        return Err(AccountError::invalid_field(
            "new_password",
            "the new password is the current one; choose another",
        ));
    }
    let user = asker.user;
    let account = own_account(accounts.pool, user).await?;
    let names = [account.username.clone(), account.email.clone()];
    let hash = new_password_hash("new_password", new, names).await?;
    let mut tx = accounts.pool.begin().await?;
    users::set_password(&mut *tx, user, &hash).await?;
    let sessions = sessions::revoke_all_except(&mut *tx, user, asker.session).await?;
    // As after a reset, a pending change of address is called off: whoever changes the
    // password owns the account now, and asks again if the change was theirs.
    let now = accounts.config.clock.now();
    mail_tokens::supersede_address_changes(&mut *tx, user, &account.email, now).await?;
    // A reset link mailed before the change would undo it: it stops working (whoever asked
    // for it, the owner now knows the password, and may ask again).
    mail_tokens::supersede(&mut *tx, user, mail_tokens::RESET_PASSWORD, now).await?;
    let notice = AccountMail::password_changed(user, Uuid::now_v7(), PasswordChange::Changed);
    mail::enqueue(&mut tx, &[notice]).await?;
    tx.commit().await?;
    accounts.known_users.forget(user);
    Ok(PasswordChanged {
        revoked: RevokedCounts {
            sessions,
            api_tokens: 0,
        },
    })
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"pending_email": "anna@new.example", "expires_at": "2026-12-03T12:00:00Z"}))]
pub struct EmailChangePending {
    /// The new address, waiting for its link; `GET /me` shows it as `pending_email`.
    pub pending_email: String,
    /// When the link stops working (the change is then dropped).
    pub expires_at: DateTime<Utc>,
}

/// Begins a change of address to `email` (checked to be an address; the password is
/// needed): a link goes to the new address, a notice to the old one.
pub async fn change_email(
    accounts: Accounts<'_>,
    asker: Asker<'_>,
    password: String,
    email: String,
) -> Result<EmailChangePending, AccountError> {
    let user = asker.user;
    check_own_password(accounts, asker.address, user, "password", password).await?;
    let account = own_account(accounts.pool, user).await?;
    if identity::key(&email) == identity::key(&account.email) {
        return Err(AccountError::invalid_field(
            "email",
            "this is the account's address already",
        ));
    }
    // Checked before a mail is counted: a refused change mails nothing.
    if users::email_taken(accounts.pool, &email, user).await? {
        return Err(AccountError::EmailTaken);
    }
    let mut tx = accounts.pool.begin().await?;
    take_verify_mail(&mut tx, user).await?;
    let (token_id, expires_at) =
        mail_verification_link(accounts.config, &mut tx, user, &email, true).await?;
    let notice = AccountMail::email_changed(user, token_id, &email);
    mail::enqueue(&mut tx, &[notice]).await?;
    tx.commit().await?;
    Ok(EmailChangePending {
        pending_email: email,
        expires_at,
    })
}

// ---------------------------------------------------------------------------------------
// Logins

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d", "created_at": "2026-11-29T12:00:00Z", "last_used_at": "2026-12-01T08:15:00Z", "client": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", "current": true}))]
pub struct SessionInfo {
    /// The login's id (its refresh-token family).
    pub id: Uuid,
    /// When the user logged in.
    pub created_at: DateTime<Utc>,
    /// When the login last got new tokens (a refresh).
    pub last_used_at: DateTime<Utc>,
    /// The client's `User-Agent` at login (at most 200 characters), if it sent one.
    pub client: Option<String>,
    /// Whether this is the login of the access token making the request.
    pub current: bool,
}

#[derive(Serialize, ToSchema)]
pub struct SessionList {
    pub items: Vec<SessionInfo>,
}

/// The active logins of `user`, the most recently used first; `current` is the asker's.
pub async fn sessions(
    pool: &PgPool,
    user: Uuid,
    current: Option<Uuid>,
) -> Result<SessionList, AccountError> {
    let items = sessions::active(pool, user)
        .await?
        .into_iter()
        .map(|s| SessionInfo {
            current: current == Some(s.id),
            id: s.id,
            created_at: s.created_at,
            last_used_at: s.last_used_at,
            client: s.user_agent,
        })
        .collect();
    Ok(SessionList { items })
}

/// Ends one login of `user`.
pub async fn end_session(
    accounts: Accounts<'_>,
    user: Uuid,
    login: Uuid,
) -> Result<(), AccountError> {
    if !sessions::revoke(accounts.pool, user, login).await? {
        return Err(AccountError::SessionNotFound);
    }
    accounts.known_users.forget_login(login);
    Ok(())
}

#[derive(Serialize, ToSchema)]
#[schema(example = json!({"revoked": 2}))]
pub struct SessionsRevoked {
    /// How many logins ended.
    pub revoked: i64,
}

/// Ends every login of `user` but `keep` (all of them when it is `None`), and revokes the
/// calendar feed (its URL is a credential, and this is what a player does who fears that
/// their credentials are out).
pub async fn end_other_sessions(
    accounts: Accounts<'_>,
    user: Uuid,
    keep: Option<Uuid>,
) -> Result<SessionsRevoked, AccountError> {
    let mut tx = accounts.pool.begin().await?;
    let revoked = sessions::revoke_all_except(&mut *tx, user, keep).await?;
    calendar_feeds::revoke(&mut *tx, user).await?;
    // The devices signed out stop getting pushes. Which subscription is the caller's own
    // browser is not known here: all go, and the page subscribes again when it is opened.
    crate::store::push::delete_all(&mut *tx, user).await?;
    tx.commit().await?;
    accounts.known_users.forget(user);
    Ok(SessionsRevoked { revoked })
}

/// Whether `user` may create or join rated games and tournaments: their address is verified,
/// or the operator lets unverified accounts play rated (`KONTOR_UNVERIFIED_MAY_PLAY_RATED`).
/// A verified address costs a throwaway account something, and a rating that such accounts
/// could move is worth less.
pub async fn may_play_rated(
    pool: &PgPool,
    config: &Config,
    user: Uuid,
) -> Result<bool, AccountError> {
    Ok(config.unverified_may_play_rated || users::is_verified(pool, user).await?)
}

/// Refuses to let an account whose address is not verified create, join or act in games,
/// where the operator asked for that (`KONTOR_UNVERIFIED_MAY_PLAY=false`).
pub async fn require_verified(
    pool: &PgPool,
    config: &Config,
    user: Uuid,
) -> Result<(), AccountError> {
    if config.unverified_may_play || users::is_verified(pool, user).await? {
        return Ok(());
    }
    Err(AccountError::EmailNotVerified)
}
