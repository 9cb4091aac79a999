//! Why an account flow (registration, login, tokens, verification, reset, changes of password
//! and address, logins, profile, blocks, deletion) refused or failed. As with the command
//! service's [`Error`](super::Error), the message is written for a person and becomes the
//! problem's `detail`; the status, the stable code and the extra members are `http::error`'s.

use crate::store::health::database_unreachable;

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// A field of the request is well-formed but not acceptable.
    #[error("{detail}")]
    InvalidField { field: String, detail: String },
    /// Too many attempts (wrong passwords, mails): retry after `wait` seconds.
    #[error("{detail}")]
    RateLimited { wait: u64, detail: String },
    /// The client's address registered as many accounts this hour as
    /// `KONTOR_REGISTRATIONS_PER_ADDRESS` allows.
    #[error(
        "{limit} accounts were registered from your address in the last hour, the most allowed; try again in {}",
        crate::service::play::error::wait_in_words(*.wait)
    )]
    TooManyRegistrations { limit: u32, wait: u64 },
    /// The address was mailed as many verification links today as
    /// `KONTOR_VERIFY_MAILS_PER_ADDRESS` allows, whichever accounts asked.
    #[error(
        "this address was sent {limit} verification links today, the most a day; nothing was changed or mailed; try again in {}",
        crate::service::play::error::wait_in_words(*.wait)
    )]
    TooManyMailsToAddress { limit: u32, wait: u64 },
    #[error("the username or password is wrong")]
    InvalidCredentials,
    /// The password confirming a change is not the account's; `field` names the member.
    #[error("the {} is wrong", .field.replace('_', " "))]
    WrongPassword { field: String },
    /// The caller's account no longer exists (deleted since the token was issued).
    #[error("the token's account does not exist")]
    AccountGone,
    #[error(
        "the username {0:?} is taken, or one that looks like it (names are compared regardless of letter case and of letters that look alike)"
    )]
    UsernameTaken(String),
    #[error("an account with this email address exists already")]
    EmailTaken,
    /// Another account took the new address between the link's mail and its use.
    #[error("another account has this address now; the address was not changed")]
    EmailTakenSince,
    /// The token of a mailed link is not one of this server's `what` links.
    #[error("this is not a {what} link of this server (unknown or damaged token)")]
    MailTokenInvalid { what: &'static str },
    #[error("this {what} link was used already; each link works once")]
    MailTokenUsed { what: &'static str },
    #[error("a newer {what} link replaced this one; use the latest mail")]
    MailTokenReplaced { what: &'static str },
    #[error("this {what} link has expired; ask for a new one")]
    MailTokenExpired { what: &'static str },
    #[error("your address is verified and no change of address waits for a link")]
    EmailAlreadyVerified,
    #[error(
        "verify your email address first (the link in the mail, or POST /api/v1/me/email/verification for a new one)"
    )]
    EmailNotVerified,
    #[error("you have no active login with this id")]
    SessionNotFound,
    #[error("you have no active API token with this id")]
    TokenNotFound,
    #[error("this is not a refresh token (they start with kontor_rt_)")]
    NotARefreshToken,
    #[error("this refresh token is unknown, expired or already used; log in again")]
    InvalidRefreshToken,
    /// A block names a name no live account has (as the client typed it).
    #[error("there is no user {0:?}")]
    UserNotFound(String),
    #[error("you have not blocked this player")]
    NotBlocked,
    /// A refusal or failure of the command service (deleting an account settles its games).
    #[error(transparent)]
    Service(crate::service::play::error::Error),
    /// The database cannot be reached (transient: retry later).
    #[error("the database cannot be reached: {0}")]
    Unavailable(anyhow::Error),
    /// A failure of the server; the cause is for the log.
    #[error(transparent)]
    Internal(anyhow::Error),
}

impl AccountError {
    pub fn invalid_field(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::InvalidField {
            field: field.into(),
            detail: detail.into(),
        }
    }

    /// Too many attempts at `what`, said with the wait in words a person reads at a glance.
    pub fn rate_limited(wait: u64, what: &str) -> Self {
        Self::RateLimited {
            wait,
            detail: format!(
                "{what}; try again in {}",
                crate::service::play::error::wait_in_words(wait)
            ),
        }
    }

    /// A failure of the server, told apart from a database that cannot be reached.
    pub fn internal(cause: impl Into<anyhow::Error>) -> Self {
        let cause = cause.into();
        if database_unreachable(&cause) {
            Self::Unavailable(cause)
        } else {
            Self::Internal(cause)
        }
    }
}

impl From<sqlx::Error> for AccountError {
    fn from(cause: sqlx::Error) -> Self {
        Self::internal(cause)
    }
}

impl From<anyhow::Error> for AccountError {
    fn from(cause: anyhow::Error) -> Self {
        Self::internal(cause)
    }
}

impl From<tokio::task::JoinError> for AccountError {
    fn from(cause: tokio::task::JoinError) -> Self {
        Self::internal(cause)
    }
}

impl From<crate::service::play::error::Error> for AccountError {
    fn from(error: crate::service::play::error::Error) -> Self {
        Self::Service(error)
    }
}
