//! What the server plays on its own in a step (issue 37), as the platform stores it: the
//! standing orders of a game's seats as rows (`store::orders`) decoded into the engine's
//! [`OrderBook`], the marker a command the server played carries in its record, and the news
//! its seat is told. Pure: the step (`service::play::step`) plays the moves
//! (`games::auto::next`), this keeps the books.

use crate::games::auto::{Cause, Notice, OrderBook};
use crate::games::{Reason, Rules, Seat};
use crate::store::orders::{NEWS_KEPT, NEWS_TOLD_KEPT, OrderRow};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use uuid::Uuid;

/// An order as stored: its id and the game's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stored {
    pub id: u64,
    pub order: Value,
}

/// What happened to a seat's orders, or was played for it, told to its owner (on the page,
/// and in the next "your turn" mail).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"version": 57, "kind": "dropped", "order_id": 3,
    "order": {"type": "proxy_bid", "company": "red", "round": 2, "limit": 6},
    "reason": {"code": "outbid", "params": {"company": "red", "high_bid": 6, "limit": 6}}}))]
pub struct News {
    /// The game's version after it (for a move: the version its last event reached).
    pub version: i64,
    pub kind: NewsKind,
    /// The move played (`played`, `forced`): the command, as the game defines it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = super::game_schemas::command_or_null)]
    pub command: Option<Value>,
    /// The order that played (`played`, as it stood then) or was dropped (`dropped`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = super::game_schemas::order_or_null)]
    pub order: Option<Value>,
    /// Why: the forced move's reason (`forced`), or why the order was dropped (`dropped`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
}

impl News {
    /// An order of the seat's dropped at `version`, for `reason`.
    pub fn dropped<O: Serialize>(version: i64, id: u64, order: &O, reason: Reason) -> Self {
        News {
            version,
            kind: NewsKind::Dropped,
            command: None,
            order_id: Some(id),
            order: serde_json::to_value(order).ok(),
            reason: Some(reason),
        }
    }
}

/// What a piece of news is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NewsKind {
    /// A standing order played a move ("played by your order").
    Played,
    /// The rules left the seat one move, and the server played it ("you had to pass").
    Forced,
    /// An order no longer fitted and was dropped; the seat decides by hand.
    Dropped,
}

/// How a command the server played on its own is marked, in its record (`game_commands.auto`)
/// and as served: `"auto": "forced"` (with the reason, public) or `"auto": "order"` (seen by
/// its seat alone until the game ends).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AutoKind {
    Forced,
    Order,
}

/// A seat's row as the step keeps it: who holds the seat, its news and where its mail is.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatBook {
    pub user_id: Option<Uuid>,
    pub news: Vec<News>,
    pub mailed_through: i64,
    pub changed: bool,
}

impl SeatBook {
    /// Keeps the news not yet told in a notice (the latest [`NEWS_KEPT`]) and the latest
    /// [`NEWS_TOLD_KEPT`] of those told. The row is read and written with every command of
    /// its game, and Steel Driver forces a pass on some seat every other action or so: with
    /// a hundred told entries kept, each seat's row grew to about 15 KB of JSON.
    fn trim(&mut self) {
        let told = self
            .news
            .iter()
            .take_while(|n| n.version <= self.mailed_through)
            .count();
        let excess = told
            .saturating_sub(NEWS_TOLD_KEPT)
            .max(self.news.len().saturating_sub(NEWS_KEPT as usize));
        self.news.drain(..excess);
    }
}

/// A game's orders and news, decoded for the rules `R`.
pub struct Books<R: Rules> {
    pub book: OrderBook<R::Order>,
    pub seats: Vec<SeatBook>,
    /// The book as read, to tell which seats' orders changed.
    read: OrderBook<R::Order>,
}

impl<R: Rules> Books<R> {
    /// The books of a game of `seat_count` seats from its stored rows; an order that no longer
    /// decodes (a game's order type changed) is left out, and its seat's row rewritten.
    pub fn read(rows: &[OrderRow], seat_count: u8) -> Self {
        let mut book = OrderBook::new(seat_count);
        let mut seats = vec![
            SeatBook {
                user_id: None,
                news: Vec::new(),
                mailed_through: 0,
                changed: false,
            };
            usize::from(seat_count)
        ];
        for row in rows {
            let Some(seat) = seats.get_mut(row.seat as usize) else {
                continue;
            };
            seat.user_id = Some(row.user_id);
            // Decoded from the rows in place (read for every command): no copy of them first.
            seat.news = Vec::<News>::deserialize(&row.news).unwrap_or_default();
            seat.mailed_through = row.mailed_through;
            let stored = Vec::<Stored>::deserialize(&row.orders).unwrap_or_default();
            for entry in stored {
                match R::Order::deserialize(&entry.order) {
                    Ok(order) => book.push(row.seat as Seat, entry.id, order),
                    Err(_) => seat.changed = true,
                }
            }
            book.next_id = book.next_id.max(row.next_id.max(1) as u64);
        }
        Books {
            read: book.clone(),
            book,
            seats,
        }
    }

    /// Adds `news` for `seat`.
    pub fn tell(&mut self, seat: Seat, news: News) {
        if let Some(book) = self.seats.get_mut(usize::from(seat)) {
            book.news.push(news);
            book.trim();
            book.changed = true;
        }
    }

    /// Tells each seat what became of its orders (`notices` of `games::auto`), at `version`:
    /// a dropped order is news, one whose occasion passed is not.
    pub fn tell_notices(&mut self, notices: Vec<Notice<R::Order>>, version: i64) {
        for notice in notices {
            if let Notice::Dropped {
                seat,
                id,
                order,
                reason,
            } = notice
            {
                self.tell(seat, News::dropped(version, id, &order, reason));
            }
        }
    }

    /// The news of `seat` not yet in a mail, and marks it mailed through `version`.
    pub fn take_unmailed(&mut self, seat: Seat, version: i64) -> Vec<News> {
        let Some(book) = self.seats.get_mut(usize::from(seat)) else {
            return Vec::new();
        };
        let unmailed: Vec<News> = book
            .news
            .iter()
            .filter(|n| n.version > book.mailed_through)
            .cloned()
            .collect();
        if !unmailed.is_empty() {
            book.mailed_through = version;
            book.trim();
            book.changed = true;
        }
        unmailed
    }

    /// The seats whose orders or news changed.
    pub fn changed_seats(&self) -> Vec<Seat> {
        (0..self.seats.len())
            .filter(|&s| {
                let seat = s as Seat;
                self.seats[s].changed
                    || self.book.of(seat) != self.read.of(seat)
                    || self.book.ids_of(seat) != self.read.ids_of(seat)
            })
            .map(|s| s as Seat)
            .collect()
    }

    /// The rows of the seats whose orders or news changed, for `users` (each seat's player
    /// now, by seat).
    pub fn rows(&self, users: &[(i16, Uuid)]) -> Vec<OrderRow> {
        self.changed_seats()
            .into_iter()
            .filter_map(|seat| {
                let book = &self.seats[usize::from(seat)];
                let user_id = users
                    .iter()
                    .find(|(s, _)| *s == i16::from(seat))
                    .map(|(_, u)| *u)
                    .or(book.user_id)?;
                Some(self.row(seat, user_id))
            })
            .collect()
    }

    /// The row of `seat` as it now stands.
    pub fn row(&self, seat: Seat, user_id: Uuid) -> OrderRow {
        let book = &self.seats[usize::from(seat)];
        let orders: Vec<Stored> = self
            .book
            .of(seat)
            .iter()
            .zip(self.book.ids_of(seat))
            .map(|(order, &id)| Stored {
                id,
                order: serde_json::to_value(order).expect("orders serialise"),
            })
            .collect();
        OrderRow {
            seat: i16::from(seat),
            user_id,
            orders: serde_json::to_value(orders).expect("orders serialise"),
            next_id: self.book.next_id as i64,
            news: serde_json::to_value(&book.news).expect("news serialises"),
            mailed_through: book.mailed_through,
        }
    }
}

/// The marker of a command the server played for `cause` (`game_commands.auto`).
pub fn marker<O: Serialize>(cause: &Cause<O>, order: Option<&O>) -> Value {
    match cause {
        Cause::Forced(reason) => json!({"kind": "forced", "reason": reason}),
        Cause::Order { .. } => json!({"kind": "order", "order": order}),
    }
}

/// A stored marker's kind and, for a forced move, its reason.
pub fn read_marker(marker: &Value) -> Option<(AutoKind, Option<Reason>)> {
    match marker.get("kind")?.as_str()? {
        "forced" => Some((
            AutoKind::Forced,
            marker
                .get("reason")
                .and_then(|r| serde_json::from_value(r.clone()).ok()),
        )),
        "order" => Some((AutoKind::Order, None)),
        _ => None,
    }
}

/// The news of a move played by the server for its seat.
pub fn played<O: Serialize>(
    cause: &Cause<O>,
    order: Option<&O>,
    command: Value,
    version: i64,
) -> News {
    match cause {
        Cause::Forced(reason) => News {
            version,
            kind: NewsKind::Forced,
            command: Some(command),
            order_id: None,
            order: None,
            reason: Some(reason.clone()),
        },
        Cause::Order { id, .. } => News {
            version,
            kind: NewsKind::Played,
            command: Some(command),
            order_id: Some(*id),
            order: order.and_then(|o| serde_json::to_value(o).ok()),
            reason: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forced(version: i64) -> News {
        News {
            version,
            kind: NewsKind::Forced,
            command: Some(json!({"type": "pass_bid"})),
            order_id: None,
            order: None,
            reason: None,
        }
    }

    fn versions(book: &SeatBook) -> Vec<i64> {
        book.news.iter().map(|n| n.version).collect()
    }

    #[test]
    fn a_seat_keeps_all_untold_news_and_the_latest_told() {
        let mut book = SeatBook {
            user_id: None,
            news: Vec::new(),
            mailed_through: 0,
            changed: false,
        };
        for version in 1..=30 {
            book.news.push(forced(version));
            book.trim();
        }
        // Nothing told yet: all thirty stay.
        assert_eq!(versions(&book), (1..=30).collect::<Vec<_>>());
        // A notice tells them: the latest ten stay, beside what comes after.
        book.mailed_through = 30;
        book.trim();
        book.news.push(forced(31));
        book.trim();
        assert_eq!(versions(&book), (21..=31).collect::<Vec<_>>());
        // Untold news never outgrows its own cap, whatever was told.
        for version in 32..=200 {
            book.news.push(forced(version));
            book.trim();
        }
        assert_eq!(book.news.len(), NEWS_KEPT as usize);
        assert_eq!(versions(&book).first(), Some(&101));
    }
}
