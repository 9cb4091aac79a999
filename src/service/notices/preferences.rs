//! Notification preferences: per kind of notice and channel, what the user chose (mail:
//! `immediately`, `digest` or `off`; Web Push: on or off), and the `always_email` switch.
//! They are stored as rows (`store::preferences`), one per user, kind and channel the user
//! chose for; a user without a row has the kind's default from the list
//! ([`super::notice_kinds!`]). Reading the rows into choices and applying them is pure.

use super::{NoticeKind, notice_kinds};
use crate::store::preferences::{self as store, StoredChoice};
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use std::collections::{BTreeMap, HashMap};
use utoipa::ToSchema;
use uuid::Uuid;

/// How one kind of notice reaches the user.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// A mail as soon as it happens.
    #[default]
    Immediately,
    /// Gathered in one mail a day.
    Digest,
    /// No mail.
    Off,
}

impl Delivery {
    pub const ALL: [Delivery; 3] = [Delivery::Immediately, Delivery::Digest, Delivery::Off];

    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Immediately => "immediately",
            Delivery::Digest => "digest",
            Delivery::Off => "off",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.as_str() == text)
    }
}

/// The ways a notice reaches a person that each have a choice per kind. (Webhooks are
/// subscribed per endpoint, with the endpoint.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    Mail,
    Push,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Mail => "mail",
            Channel::Push => "push",
        }
    }
}

/// One choice for one kind, as a change of preferences makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Mail(Delivery),
    Push(bool),
}

impl Choice {
    pub fn channel(self) -> Channel {
        match self {
            Choice::Mail(_) => Channel::Mail,
            Choice::Push(_) => Channel::Push,
        }
    }

    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Choice::Mail(delivery) => delivery.as_str(),
            Choice::Push(true) => "on",
            Choice::Push(false) => "off",
        }
    }
}

/// `Preferences`: one field per kind of the list, then `always_email`; each field's
/// description is the list's `preference`.
macro_rules! define_preferences {
    ($(
        $(#[doc = $doc:tt])*
        $kind:ident = $name:ident { preference: $preference:tt, $($spec:tt)* }
    ),* $(,)?) => {
        /// A user's notification preferences.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
        #[schema(example = Preferences::example)]
        pub struct Preferences {
            $( #[doc = $preference] pub $name: Delivery, )*
            /// Mail "your turn" even while you watch the game's live stream (by default no such
            /// mail is sent while you are watching).
            pub always_email: bool,
        }

        impl Preferences {
            /// The mail choice for a kind.
            pub fn of(&self, kind: NoticeKind) -> Delivery {
                match kind {
                    $( NoticeKind::$kind => self.$name, )*
                }
            }

            pub fn set(&mut self, kind: NoticeKind, delivery: Delivery) {
                match kind {
                    $( NoticeKind::$kind => self.$name = delivery, )*
                }
            }
        }

        impl Default for Preferences {
            /// The list's defaults.
            fn default() -> Self {
                Self {
                    $( $name: NoticeKind::$kind.spec().mail, )*
                    always_email: false,
                }
            }
        }
    };
}
notice_kinds!(define_preferences);

impl Preferences {
    /// The example of the API description.
    fn example() -> Self {
        let mut example = Self::default();
        example.set(NoticeKind::GameStarted, Delivery::Digest);
        example.set(NoticeKind::GameOver, Delivery::Off);
        example
    }
}

/// Everything a user chose: the mail preferences and the push choice per kind, the list's
/// defaults where they never chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choices {
    pub mail: Preferences,
    push: [bool; NoticeKind::ALL.len()],
}

impl Default for Choices {
    fn default() -> Self {
        Self {
            mail: Preferences::default(),
            push: NoticeKind::ALL.map(|kind| kind.spec().push),
        }
    }
}

impl Choices {
    /// From the stored rows of one user; a row of an unknown kind, channel or value (none
    /// the code writes) reads as no choice.
    pub fn from_stored<'a>(
        rows: impl IntoIterator<Item = StoredChoice<'a>>,
        always_email: bool,
    ) -> Self {
        let mut choices = Self::default();
        choices.mail.always_email = always_email;
        for row in rows {
            let Some(kind) = NoticeKind::parse(row.kind) else {
                continue;
            };
            match (row.channel, row.choice) {
                ("mail", choice) => {
                    if let Some(delivery) = Delivery::parse(choice) {
                        choices.mail.set(kind, delivery);
                    }
                }
                ("push", "on") => choices.push[kind.index()] = true,
                ("push", "off") => choices.push[kind.index()] = false,
                _ => {}
            }
        }
        choices
    }

    /// Whether a kind is pushed.
    pub fn push(&self, kind: NoticeKind) -> bool {
        self.push[kind.index()]
    }

    /// The push choice of every kind, by name (as the API shows it).
    pub fn push_by_name(&self) -> BTreeMap<String, bool> {
        NoticeKind::ALL
            .into_iter()
            .map(|kind| (kind.as_str().to_string(), self.push(kind)))
            .collect()
    }

    /// Makes a choice.
    pub fn set(&mut self, kind: NoticeKind, choice: Choice) {
        match choice {
            Choice::Mail(delivery) => self.mail.set(kind, delivery),
            Choice::Push(on) => self.push[kind.index()] = on,
        }
    }
}

/// The choices of these users; users without any row are absent (they have the defaults).
pub async fn load_many(
    conn: &mut PgConnection,
    users: &[Uuid],
) -> sqlx::Result<HashMap<Uuid, Choices>> {
    let rows = store::load_many(conn, users).await?;
    Ok(rows
        .iter()
        .map(|row| {
            (
                row.user_id,
                Choices::from_stored(row.choices(), row.always_email),
            )
        })
        .collect())
}

/// One user's choices (the defaults when they never chose).
pub async fn load(conn: &mut PgConnection, user: Uuid) -> sqlx::Result<Choices> {
    Ok(load_many(conn, &[user])
        .await?
        .remove(&user)
        .unwrap_or_default())
}

/// The same, with the user's preferences locked until the transaction ends, so that
/// read-modify-write changes of one user's preferences never lose each other.
pub async fn load_for_update(conn: &mut PgConnection, user: Uuid) -> sqlx::Result<Choices> {
    store::lock(&mut *conn, user).await?;
    load(conn, user).await
}

/// Stores choices of `user` (each a row of its own: the kinds not named keep theirs) and,
/// if given, `always_email`.
pub async fn choose(
    conn: &mut PgConnection,
    user: Uuid,
    choices: &[(NoticeKind, Choice)],
    always_email: Option<bool>,
) -> sqlx::Result<()> {
    let rows: Vec<StoredChoice> = choices
        .iter()
        .map(|(kind, choice)| StoredChoice {
            kind: kind.as_str(),
            channel: choice.channel().as_str(),
            choice: choice.as_str(),
        })
        .collect();
    store::save(conn, user, &rows, always_email).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_rows_override_the_lists_defaults_and_nothing_else() {
        let defaults = Choices::default();
        assert_eq!(defaults.mail, Preferences::default());
        assert!(defaults.push(NoticeKind::YourTurn));
        assert!(!defaults.push(NoticeKind::PlayerLeft));
        let row = |kind, channel, choice| StoredChoice {
            kind,
            channel,
            choice,
        };
        let choices = Choices::from_stored(
            [
                row("game_over", "mail", "off"),
                row("reminder", "mail", "digest"),
                row("player_left", "push", "on"),
                row("your_turn", "push", "off"),
                // Nothing the code writes: read as no choice.
                row("no_such_kind", "mail", "off"),
                row("invited", "mail", "sometimes"),
                row("invited", "pigeon", "off"),
            ],
            true,
        );
        let mut expected = Choices::default();
        expected.set(NoticeKind::GameOver, Choice::Mail(Delivery::Off));
        expected.set(NoticeKind::Reminder, Choice::Mail(Delivery::Digest));
        expected.set(NoticeKind::PlayerLeft, Choice::Push(true));
        expected.set(NoticeKind::YourTurn, Choice::Push(false));
        expected.mail.always_email = true;
        assert_eq!(choices, expected);
        assert_eq!(choices.mail.of(NoticeKind::Invited), Delivery::Immediately);
        assert_eq!(choices.push_by_name().len(), NoticeKind::ALL.len());
    }

    #[test]
    fn the_preferences_json_has_one_field_per_kind_then_always_email() {
        let json = serde_json::to_value(Preferences::default()).unwrap();
        let fields = json.as_object().unwrap();
        assert_eq!(fields.len(), NoticeKind::ALL.len() + 1);
        for kind in NoticeKind::ALL {
            assert_eq!(fields[kind.as_str()], kind.spec().mail.as_str());
        }
        assert_eq!(fields["always_email"], false);
    }
}
