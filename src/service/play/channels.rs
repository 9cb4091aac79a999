//! A table's chat channels: which exist, who may read and write each (one pure function,
//! [`access`]), and the unread counts of those a reader may read (the game summaries show
//! them). A rule of the table, like who may watch ([`super::table`]); the chat itself
//! (`service::social::chat`) sends and pages messages within it.
//!
//! Channels: `table` (the seats), `private:A-B` (seats A < B, only with `chat = full`) and
//! `spectators` (those who may read the game and hold no seat; the seats once the game has
//! ended).

use super::error::Error;
use super::table::Chat;
use crate::store::chat as store;
use crate::store::games::{GameHead, Status};
use sqlx::PgPool;
use uuid::Uuid;

/// A channel of a game's chat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    Table,
    Spectators,
    /// Between two seats, the lower first.
    Private(i16, i16),
}

impl Channel {
    /// `table`, `spectators` or `private:A-B` with seats 0 ≤ A < B ≤ 5.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "table" => Some(Channel::Table),
            "spectators" => Some(Channel::Spectators),
            _ => {
                let (a, b) = text.strip_prefix("private:")?.split_once('-')?;
                let single =
                    |s: &str| -> Option<i16> { (s.len() == 1).then(|| s.parse().ok()).flatten() };
                let (a, b) = (single(a)?, single(b)?);
                (a < b && b <= 5).then_some(Channel::Private(a, b))
            }
        }
    }

    pub fn private(x: i16, y: i16) -> Self {
        Channel::Private(x.min(y), x.max(y))
    }

    pub fn name(self) -> String {
        match self {
            Channel::Table => "table".to_string(),
            Channel::Spectators => "spectators".to_string(),
            Channel::Private(a, b) => format!("private:{a}-{b}"),
        }
    }
}

/// What a caller may do with a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Nothing: to them the channel does not exist.
    Hidden,
    /// Read; writing is over (a cancelled game, or a finished game's table for a non-seat).
    ReadOnly,
    /// Read; the creator closed the spectators channel.
    Closed,
    /// Read; one of the private channel's seats blocked the other.
    Blocked,
    /// Read and write.
    Write,
}

impl Access {
    pub fn can_read(self) -> bool {
        self != Access::Hidden
    }
}

/// Where the caller stands towards a game's chat: everything [`access`] decides on.
#[derive(Clone, Copy, Debug)]
pub struct Standing {
    pub status: Status,
    /// The caller's seat, if any.
    pub seat: Option<i16>,
    /// Seats the game has (a private channel names two of them).
    pub seat_count: i16,
    /// Whether the caller may read the game at all (`table::may_read`).
    pub may_read_game: bool,
    pub chat: Chat,
    pub spectators_open: bool,
}

/// Who may read and write `channel`. `blocked`: a block lies between the private channel's
/// two seats (either way); it matters for private channels only.
pub fn access(s: &Standing, blocked: bool, channel: Channel) -> Access {
    use Access::*;
    if s.chat == Chat::None || !s.may_read_game {
        return Hidden;
    }
    let seated = s.seat.is_some();
    match channel {
        Channel::Table => match (s.status, seated) {
            (Status::Cancelled, true) => ReadOnly,
            (_, true) => Write,
            // After the end the table's talk is the game's, as its log is.
            (Status::Finished, false) => ReadOnly,
            (_, false) => Hidden,
        },
        Channel::Private(a, b) => {
            let mine = s.seat.is_some_and(|seat| seat == a || seat == b);
            let started = matches!(s.status, Status::Active | Status::Finished);
            if s.chat != Chat::Full || !mine || !started || b >= s.seat_count {
                Hidden
            } else if blocked {
                Blocked
            } else {
                Write
            }
        }
        Channel::Spectators => {
            let readable = match s.status {
                Status::Active => !seated,
                Status::Finished => true,
                Status::Open | Status::Cancelled => false,
            };
            if !readable {
                Hidden
            } else if s.spectators_open {
                Write
            } else {
                Closed
            }
        }
    }
}

/// The channels a caller might read in a game of `seat_count` seats, in the order they are
/// listed: the table, the caller's private channels, the spectators'.
pub fn candidates(seat: Option<i16>, seat_count: i16) -> Vec<Channel> {
    let mut channels = vec![Channel::Table];
    if let Some(seat) = seat {
        channels.extend(
            (0..seat_count)
                .filter(|&other| other != seat)
                .map(|other| Channel::private(seat, other)),
        );
    }
    channels.push(Channel::Spectators);
    channels
}

/// The channels of `head`'s game that a reader at `seat` (or none) may read, once it is
/// known that they may read the game: decided from the head row alone. Closing the
/// spectators' channel and blocks stop writing, not reading.
pub fn readable_in(head: &GameHead, seat: Option<i16>) -> Vec<Channel> {
    let standing = Standing {
        status: head.status(),
        seat,
        seat_count: head.seat_count,
        may_read_game: true,
        chat: if head.sandbox {
            Chat::None
        } else {
            Chat::of(&head.kind, &head.options)
        },
        spectators_open: true,
    };
    candidates(seat, head.seat_count)
        .into_iter()
        .filter(|&channel| access(&standing, false, channel).can_read())
        .collect()
}

/// The caller's unread messages in each of `heads`' games (the lobby's lists, the game's
/// detail): over the channels they may read, in one statement. For a non-seat a channel
/// counts once they have a read marker there (they opened it).
pub async fn unread_of_games(
    pool: &PgPool,
    caller: Uuid,
    heads: &[(&GameHead, Option<i16>)],
) -> Result<std::collections::HashMap<Uuid, i64>, Error> {
    let mut games = Vec::new();
    let mut channels = Vec::new();
    let mut counted = Vec::new();
    for (head, seat) in heads {
        for channel in readable_in(head, *seat) {
            games.push(head.id);
            channels.push(channel.name());
            counted.push(seat.is_some());
        }
    }
    if games.is_empty() {
        return Ok(Default::default());
    }
    Ok(
        store::unread_of_games(pool, caller, &games, &channels, &counted)
            .await?
            .into_iter()
            .collect(),
    )
}

/// The caller's unread messages in one game.
pub async fn unread_in(
    pool: &PgPool,
    caller: Uuid,
    head: &GameHead,
    seat: Option<i16>,
) -> Result<i64, Error> {
    Ok(unread_of_games(pool, caller, &[(head, seat)])
        .await?
        .get(&head.id)
        .copied()
        .unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(status: Status, seat: Option<i16>, chat: Chat) -> Standing {
        Standing {
            status,
            seat,
            seat_count: 4,
            may_read_game: true,
            chat,
            spectators_open: true,
        }
    }

    /// The matrix: (status, seat, chat, channel) → access, for every reader class.
    #[test]
    fn who_reads_and_writes_which_channel() {
        use Access::*;
        use Status::*;
        let t = Channel::Table;
        let sp = Channel::Spectators;
        let p01 = Channel::Private(0, 1);
        let p23 = Channel::Private(2, 3);
        let me = Some(0);
        let none = None;
        #[rustfmt::skip]
        let cases: &[(Status, Option<i16>, Chat, Channel, Access)] = &[
            // Before the start: only the table, for the seated.
            (Open, me, Chat::Full, t, Write),
            (Open, me, Chat::Full, p01, Hidden),
            (Open, me, Chat::Full, sp, Hidden),
            (Open, none, Chat::Full, t, Hidden),
            (Open, none, Chat::Full, sp, Hidden),
            // Running.
            (Active, me, Chat::Full, t, Write),
            (Active, me, Chat::Full, p01, Write),
            (Active, me, Chat::Full, p23, Hidden),
            (Active, me, Chat::Full, sp, Hidden),
            (Active, none, Chat::Full, t, Hidden),
            (Active, none, Chat::Full, p01, Hidden),
            (Active, none, Chat::Full, sp, Write),
            (Active, me, Chat::Table, p01, Hidden),
            (Active, me, Chat::Table, t, Write),
            (Active, none, Chat::Table, sp, Write),
            // Finished: the table is everyone's to read; private channels stay their seats'.
            (Finished, me, Chat::Full, t, Write),
            (Finished, me, Chat::Full, p01, Write),
            (Finished, me, Chat::Full, p23, Hidden),
            (Finished, me, Chat::Full, sp, Write),
            (Finished, none, Chat::Full, t, ReadOnly),
            (Finished, none, Chat::Full, p01, Hidden),
            (Finished, none, Chat::Full, sp, Write),
            // Cancelled: read only.
            (Cancelled, me, Chat::Full, t, ReadOnly),
            (Cancelled, none, Chat::Full, t, Hidden),
            (Cancelled, me, Chat::Full, p01, Hidden),
            (Cancelled, none, Chat::Full, sp, Hidden),
        ];
        for &(status, seat, chat, channel, expected) in cases {
            assert_eq!(
                access(&standing(status, seat, chat), false, channel),
                expected,
                "{status:?} seat {seat:?} chat {chat:?} {channel:?}"
            );
        }
        // No chat: nothing for anyone.
        for status in [Open, Active, Finished, Cancelled] {
            for seat in [me, none] {
                for channel in [t, sp, p01] {
                    assert_eq!(
                        access(&standing(status, seat, Chat::None), false, channel),
                        Hidden
                    );
                }
            }
        }
        // Whoever may not read the game reads nothing.
        let outsider = Standing {
            may_read_game: false,
            ..standing(Finished, none, Chat::Full)
        };
        for channel in [t, sp, p01] {
            assert_eq!(access(&outsider, false, channel), Hidden);
        }
        // A block silences the private channel, which stays readable.
        assert_eq!(
            access(&standing(Active, me, Chat::Full), true, p01),
            Blocked
        );
        assert_eq!(access(&standing(Active, me, Chat::Full), true, t), Write);
        // A closed spectators channel is read only, for seats after the end too.
        let closed = Standing {
            spectators_open: false,
            ..standing(Active, none, Chat::Full)
        };
        assert_eq!(access(&closed, false, sp), Closed);
        let closed = Standing {
            spectators_open: false,
            ..standing(Finished, me, Chat::Full)
        };
        assert_eq!(access(&closed, false, sp), Closed);
        // A private channel naming a seat the game does not have does not exist.
        assert_eq!(
            access(
                &standing(Active, me, Chat::Full),
                false,
                Channel::Private(0, 5)
            ),
            Hidden
        );
    }

    #[test]
    fn channels_parse_only_in_their_one_spelling() {
        assert_eq!(Channel::parse("table"), Some(Channel::Table));
        assert_eq!(Channel::parse("spectators"), Some(Channel::Spectators));
        assert_eq!(Channel::parse("private:0-2"), Some(Channel::Private(0, 2)));
        for bad in [
            "private:2-0",
            "private:1-1",
            "private:0-6",
            "private:00-1",
            "private:0-",
            "Table",
            "private:+1-2",
            "",
        ] {
            assert_eq!(Channel::parse(bad), None, "{bad}");
        }
        assert_eq!(Channel::private(3, 1).name(), "private:1-3");
        assert_eq!(
            candidates(Some(1), 3),
            vec![
                Channel::Table,
                Channel::Private(0, 1),
                Channel::Private(1, 2),
                Channel::Spectators
            ]
        );
    }
}
