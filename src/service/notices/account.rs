//! The mails of the account itself: the address verification link, the password reset link,
//! the notice to the old address of a change of address, and the notice that the password
//! was changed.
//!
//! They are transactional, unlike game notices: queued straight as due (never held for the
//! digest), not subject to notification preferences, without unsubscribe links, and sent to
//! addresses that are not verified yet (a verification link must reach one). A link's
//! single-use token stays in the outbox row's `data.token` only until the mail is sent (or
//! skipped, or failed for good); then it is blanked (`store::outbox::mark_sent`), so the
//! database keeps nothing but its hash (`store::mail_tokens`).

use super::MailKind;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

/// What an account mail is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccountMailKind {
    /// A link that verifies an address (at registration, on request, or a new address).
    VerifyEmail,
    /// A link to choose a new password.
    PasswordReset,
    /// To the old address: the account's address is being changed.
    EmailChanged,
    /// The account's password was changed or reset.
    PasswordChanged,
    /// The server switched off one of the account's webhook endpoints (it answered 410, or
    /// a delivery's last retry failed).
    WebhookDisabled,
}

impl AccountMailKind {
    pub const ALL: [AccountMailKind; 5] = [
        AccountMailKind::VerifyEmail,
        AccountMailKind::PasswordReset,
        AccountMailKind::EmailChanged,
        AccountMailKind::PasswordChanged,
        AccountMailKind::WebhookDisabled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AccountMailKind::VerifyEmail => "verify_email",
            AccountMailKind::PasswordReset => "password_reset",
            AccountMailKind::EmailChanged => "email_changed",
            AccountMailKind::PasswordChanged => "password_changed",
            AccountMailKind::WebhookDisabled => "webhook_disabled",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

/// How a password came to change, for [`AccountMail::password_changed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PasswordChange {
    /// With a reset link: every login and API token was revoked.
    Reset,
    /// By the signed-in owner: every other login was ended.
    Changed,
}

/// One account mail to one user.
#[derive(Clone, Debug)]
pub struct AccountMail {
    pub user_id: Uuid,
    pub kind: AccountMailKind,
    /// One mail per key and recipient.
    pub dedupe_key: String,
    /// For the template: `token`, `expires_at`, `to` (the address, when not the account's
    /// own), `change`, `new_address` (masked), `how`.
    pub data: Value,
}

impl AccountMail {
    /// The verification link of token `token_id` (the raw `token`), mailed to `to`; `change`:
    /// `to` is a new address that replaces the account's when the link is used.
    pub fn verify_email(
        user_id: Uuid,
        token_id: Uuid,
        to: &str,
        token: &str,
        expires_at: DateTime<Utc>,
        change: bool,
    ) -> Self {
        Self {
            user_id,
            kind: AccountMailKind::VerifyEmail,
            dedupe_key: format!("verify_email:{token_id}"),
            data: json!({"to": to, "token": token, "expires_at": expires_at, "change": change}),
        }
    }

    /// The password reset link of token `token_id`.
    pub fn password_reset(
        user_id: Uuid,
        token_id: Uuid,
        token: &str,
        expires_at: DateTime<Utc>,
    ) -> Self {
        Self {
            user_id,
            kind: AccountMailKind::PasswordReset,
            dedupe_key: format!("password_reset:{token_id}"),
            data: json!({"token": token, "expires_at": expires_at}),
        }
    }

    /// To the account's (old) address: its address is being changed to `new_address`
    /// (shown masked); `token_id` is the new address's verification token.
    pub fn email_changed(user_id: Uuid, token_id: Uuid, new_address: &str) -> Self {
        Self {
            user_id,
            kind: AccountMailKind::EmailChanged,
            dedupe_key: format!("email_changed:{token_id}"),
            data: json!({"new_address": mask_address(new_address)}),
        }
    }

    /// To the old address `old`: the change to `new_address` took effect (its link was used,
    /// token `token_id`).
    pub fn email_replaced(user_id: Uuid, token_id: Uuid, old: &str, new_address: &str) -> Self {
        Self {
            user_id,
            kind: AccountMailKind::EmailChanged,
            dedupe_key: format!("email_replaced:{token_id}"),
            data: json!({"to": old, "new_address": mask_address(new_address), "done": true}),
        }
    }

    /// The server switched off webhook endpoint `endpoint` (`url`) for `reason` (`gone`: the
    /// receiver answered 410; `failing`: a delivery's last retry failed); `event` names this
    /// switching off (one mail each time).
    pub fn webhook_disabled(
        user_id: Uuid,
        endpoint: Uuid,
        event: Uuid,
        url: &str,
        reason: &str,
    ) -> Self {
        Self {
            user_id,
            kind: AccountMailKind::WebhookDisabled,
            dedupe_key: format!("webhook_disabled:{endpoint}:{event}"),
            data: json!({"url": url, "reason": reason}),
        }
    }

    /// The password was changed or reset (`event` names the change: one mail per change).
    pub fn password_changed(user_id: Uuid, event: Uuid, how: PasswordChange) -> Self {
        Self {
            user_id,
            kind: AccountMailKind::PasswordChanged,
            dedupe_key: format!("password_changed:{event}"),
            data: json!({"how": match how {
                PasswordChange::Reset => "reset",
                PasswordChange::Changed => "changed",
            }}),
        }
    }
}

/// `nora@example.org` → `n***@example.org`: enough for the owner to recognise, too little
/// for anyone else to learn the address.
pub fn mask_address(address: &str) -> String {
    match address.rsplit_once('@') {
        Some((local, domain)) => {
            let first: String = local.chars().take(1).collect();
            format!("{first}***@{domain}")
        }
        None => "***".to_string(),
    }
}

/// Queues account mails inside the caller's transaction, due at once (no preferences apply).
pub use super::queue::enqueue_account as enqueue;

impl From<AccountMailKind> for MailKind {
    fn from(kind: AccountMailKind) -> Self {
        MailKind::Account(kind)
    }
}
