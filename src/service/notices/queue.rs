//! The one door into the outbox. Every mail (a notice decided with a command and written by
//! its append, a notice queued by [`enqueue`] in the transaction of its change, an account's
//! own mail) goes in the same way: as `store::outbox::NewMail` rows, by the same SQL
//! (`store::outbox::queue_sql`), under the same rules ([`routes`]: the recipient's mail
//! choice decides whether a notice is due now, held for the digest or recorded as skipped),
//! with the same wake-up (one `NOTIFY` of [`super::CHANNEL`] in the same transaction when
//! any mail it queues is due now, so a committed mail is picked up at once, not at the
//! workers' next poll; none on rollback).
//!
//! The rules are a table made here, from the list of kinds, by a pure decision ([`status`]);
//! the SQL only looks them up beside the recipient's stored choice, so that an append of
//! many games at once applies them in its one statement, without a query more.
//!
//! Every notice gets its row, even one whose mail is off: Web Push and webhooks read their
//! notices from the outbox too. Dedupe keys are scoped per recipient: the same key for two
//! users gives two mails. A key seen before (in this call or an earlier committed one) is
//! skipped without error; a concurrent transaction inserting the same key makes this one
//! wait for it, as any unique index does.

use super::account::AccountMail;
use super::preferences::Delivery;
use super::{MailKind, Notice};
use crate::store::outbox::{self, NewMail};
use serde_json::{Map, Value};
use sqlx::PgConnection;
use std::sync::LazyLock;

/// What becomes of a mail when it is queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Due now: the delivery workers are woken for it.
    Pending,
    /// Held for the daily digest.
    Held,
    /// Not mailed (the recipient turned the kind off); the row records the notice for the
    /// other channels.
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Held => "held",
            Status::Skipped => "skipped",
        }
    }
}

/// What becomes of a mail of `kind` to a recipient whose stored mail choice for it is
/// `stored` (`None`: they never chose, the kind's default applies). A notice follows the
/// choice; an account's own mail is due at once whatever the preferences (it is not a
/// subscription); the digest is not queued through this door (`None`).
pub fn status(kind: MailKind, stored: Option<Delivery>) -> Option<Status> {
    match kind {
        MailKind::Notice(kind) => Some(match stored.unwrap_or(kind.spec().mail) {
            Delivery::Immediately => Status::Pending,
            Delivery::Digest => Status::Held,
            Delivery::Off => Status::Skipped,
        }),
        MailKind::Account(_) => Some(Status::Pending),
        MailKind::Digest => None,
    }
}

/// The rules as the outbox's SQL looks them up: for each kind of mail this door takes, the
/// [`status`] under each stored mail choice (`""`: none).
pub fn routes() -> &'static Value {
    static ROUTES: LazyLock<Value> = LazyLock::new(|| {
        let choices = [None]
            .into_iter()
            .chain(Delivery::ALL.map(Some))
            .collect::<Vec<_>>();
        let mut routes = Map::new();
        for kind in MailKind::all() {
            let mut by_choice = Map::new();
            for stored in &choices {
                if let Some(status) = status(kind, *stored) {
                    let key = stored.map_or("", Delivery::as_str);
                    by_choice.insert(key.to_string(), status.as_str().into());
                }
            }
            if !by_choice.is_empty() {
                routes.insert(kind.as_str().to_string(), Value::Object(by_choice));
            }
        }
        Value::Object(routes)
    });
    &ROUTES
}

impl Notice {
    /// The notice as the outbox takes it.
    pub fn as_mail(&self) -> NewMail<'_> {
        NewMail {
            user_id: self.user_id,
            kind: self.kind.as_str(),
            game_id: self.game_id,
            dedupe_key: &self.dedupe_key,
            data: &self.data,
        }
    }
}

impl AccountMail {
    /// The mail as the outbox takes it.
    pub fn as_mail(&self) -> NewMail<'_> {
        NewMail {
            user_id: self.user_id,
            kind: self.kind.as_str(),
            game_id: None,
            dedupe_key: &self.dedupe_key,
            data: &self.data,
        }
    }
}

/// Writes notices into the outbox inside the caller's transaction, so a committed change
/// always notifies and a rolled-back one never does (see the module's documentation).
pub async fn enqueue(conn: &mut PgConnection, notices: &[Notice]) -> sqlx::Result<()> {
    let mails: Vec<NewMail> = notices.iter().map(Notice::as_mail).collect();
    outbox::insert(conn, &mails, routes()).await
}

/// Writes account mails into the outbox inside the caller's transaction: due at once.
pub async fn enqueue_account(conn: &mut PgConnection, mails: &[AccountMail]) -> sqlx::Result<()> {
    let mails: Vec<NewMail> = mails.iter().map(AccountMail::as_mail).collect();
    outbox::insert(conn, &mails, routes()).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::notices::NoticeKind;
    use crate::service::notices::account::AccountMailKind;

    #[test]
    fn the_routes_say_what_the_preferences_say_for_every_kind_and_choice() {
        let routes = routes();
        for kind in NoticeKind::ALL {
            let route = &routes[kind.as_str()];
            let default = kind.spec().mail;
            assert_eq!(route[""], route[default.as_str()], "{kind:?}");
            for (choice, expected) in [
                (Delivery::Immediately, "pending"),
                (Delivery::Digest, "held"),
                (Delivery::Off, "skipped"),
            ] {
                assert_eq!(route[choice.as_str()], expected, "{kind:?}, {choice:?}");
            }
        }
        // An account's mail is due whatever the recipient chose for notices; the digest is
        // not queued here.
        for kind in AccountMailKind::ALL {
            assert_eq!(
                routes[kind.as_str()],
                serde_json::json!({"": "pending", "immediately": "pending", "digest": "pending", "off": "pending"})
            );
        }
        assert!(routes.get("digest").is_none());
        assert_eq!(
            routes.as_object().unwrap().len(),
            NoticeKind::ALL.len() + AccountMailKind::ALL.len()
        );
    }
}
