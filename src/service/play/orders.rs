//! Standing orders (programmed moves, issue 37) as a player sets them: listed, set, edited and
//! cancelled by the seat's own player, private like notes. An order is checked on the seat's
//! own view when it is set (`Rules::check_order`); from then on the step plays it the moment
//! it matches (`service::play::step`), as that seat's command. If it matches already when it
//! is set, it plays at once, in the transaction that sets it.
//!
//! Who may: a seated player of a game they may read (a spectator is refused `not_a_player`, a
//! game they may not read is `game_not_found`), while the game runs. A seat the bot plays
//! after timeouts keeps and may change its orders (they still play first); a forfeited seat
//! may not. Changes never move the game's version: only the seat's player's own streams of
//! the game are told (`orders`), nothing else: no view, log, export, mail or other reader.

use super::actions::{Context, kind_of, log_warnings, read_context};
use super::auto::{Books, News};
use super::cache::ContextCache;
use super::error::Error;
use super::log::{readable_by, state_at};
use super::step;
use crate::games::{GameKind, Rules, Seat};
use crate::live::Note;
use crate::service::notices::Notice;
use crate::store::append::{Rows, write_rows};
use crate::store::games::{self, GameHead, Status};
use crate::store::orders::{self as store, OrderRow};
use crate::store::outbox::NewMail;
use crate::store::seats::SeatState;
use crate::time::Clock;
use crate::with_rules;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{PgConnection, PgPool};
use utoipa::ToSchema;
use uuid::Uuid;

/// The most standing orders a seat may have at once.
pub const MAX_ORDERS: usize = 32;

/// A seat's standing orders, as its player sees them.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"game_id": "0191f3a4-6f0e-7c5e-9d43-2f0c8a1b2c3d",
    "kind": "steel-driver", "seat": 1, "version": 57,
    "orders": [{"id": 3, "order": {"type": "proxy_bid", "company": "red", "round": 2, "limit": 6}}],
    "news": [{"version": 55, "kind": "forced", "command": {"type": "pass_bid"},
              "reason": {"code": "cannot_outbid", "params": {"company": "blue", "high_bid": 4, "cubes": 4}}}],
    "occasion": "round/2/auctions", "max_orders": 32}))]
pub struct Orders {
    pub game_id: Uuid,
    /// The game's kind: the type of `order` in each standing order.
    pub kind: String,
    /// The caller's seat.
    pub seat: i16,
    /// The game's version as these orders stand. A change of orders does not move it; an
    /// order that plays at once when set does (as the click it stands for would).
    pub version: i64,
    /// In the order set; the first that fits plays first.
    pub orders: Vec<StandingOrder>,
    /// What the server played for the seat and what became of its orders, the latest last
    /// (those no notice has told yet, at most 100, and the latest 10 told).
    pub news: Vec<News>,
    /// An occasion to answer a coming decision ahead now (the seat is not to act), named by
    /// the game (`round/3/action`: the lucky number is rolled, set your action), or `null`.
    pub occasion: Option<String>,
    pub max_orders: usize,
}

/// One standing order.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct StandingOrder {
    /// Names the order while it stands (also after a proxy bid raised).
    pub id: u64,
    /// The order, as the game defines it (see the game's `Order` schema).
    #[schema(schema_with = super::game_schemas::order)]
    pub order: Value,
}

/// An order to set, or to put in place of one.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"order": {"type": "proxy_bid", "company": "red", "round": 2, "limit": 6}}))]
pub struct OrderRequest {
    /// The order, as the game defines it (see the game's `Order` schema).
    #[schema(schema_with = super::game_schemas::order)]
    pub order: Value,
}

/// The seat `caller` holds in the game read as `context`, if they may change its orders.
fn seat_for_orders(context: &Context, caller: Uuid) -> Result<i16, Error> {
    if !readable_by(&context.head, caller) {
        return Err(Error::GameNotFound);
    }
    let seat = context.seat_of(caller).ok_or(Error::NotAPlayer)?;
    if context
        .seat_clocks
        .iter()
        .any(|c| c.seat == seat && c.state == SeatState::Forfeited)
    {
        return Err(Error::SeatForfeited);
    }
    if context.head.status() != Status::Active {
        return Err(Error::GameNotActive {
            status: context.head.status(),
        });
    }
    Ok(seat)
}

/// `caller`'s standing orders in `game_id`.
pub async fn list(pool: &PgPool, caller: Uuid, game_id: Uuid) -> Result<Orders, Error> {
    let mut conn = pool.acquire().await?;
    let head = super::table::readable_head(&mut conn, game_id, caller).await?;
    let seat = games::seat_of(&mut *conn, game_id, caller)
        .await?
        .ok_or(Error::NotAPlayer)?;
    let rows = store::of_game(&mut *conn, game_id).await?;
    let kind = kind_of(&head)?;
    let occasion = match head.status() {
        Status::Active => with_rules!(kind, R => {
            let state = state_at::<R>(&mut conn, &head, head.version).await?;
            R::order_window(&state, seat as Seat)
        }),
        _ => None,
    };
    Ok(out(kind, &head, seat, &rows, occasion))
}

/// The answer for `seat` from the game's rows.
fn out(
    kind: GameKind,
    head: &GameHead,
    seat: i16,
    rows: &[OrderRow],
    occasion: Option<String>,
) -> Orders {
    let row = rows.iter().find(|r| r.seat == seat);
    let orders: Vec<super::auto::Stored> = row
        .and_then(|r| serde_json::from_value(r.orders.clone()).ok())
        .unwrap_or_default();
    let news: Vec<News> = row
        .and_then(|r| serde_json::from_value(r.news.clone()).ok())
        .unwrap_or_default();
    Orders {
        game_id: head.id,
        kind: kind.as_str().to_string(),
        seat,
        version: head.version,
        orders: standing(orders),
        news,
        occasion,
        max_orders: MAX_ORDERS,
    }
}

/// Stored orders as their player reads them.
fn standing(stored: Vec<super::auto::Stored>) -> Vec<StandingOrder> {
    stored
        .into_iter()
        .map(|s| StandingOrder {
            id: s.id,
            order: s.order,
        })
        .collect()
}

/// What a change does to a seat's orders.
pub enum Change<'a> {
    /// Sets a new order (replacing those that answer the same decision).
    Set(&'a Value),
    /// Puts an order in place of order `id` (which keeps its id).
    Replace(u64, &'a Value),
    /// Cancels order `id`.
    Cancel(u64),
}

/// Changes `caller`'s orders in `game_id` and plays at once what then matches (in the same
/// transaction); returns the orders as they stand after.
pub async fn change(
    pool: &PgPool,
    cache: &ContextCache,
    time: &Clock,
    caller: Uuid,
    game_id: Uuid,
    change: Change<'_>,
) -> Result<Orders, Error> {
    let mut tx = pool.begin().await?;
    // Every change to a game happens under its row lock: a command decided meanwhile is
    // written only if the orders revision it read still stands (`store::append`).
    games::lock_head(&mut tx, game_id)
        .await?
        .ok_or(Error::GameNotFound)?;
    let context = read_context(&mut tx, game_id, caller, "").await?;
    let seat = seat_for_orders(&context, caller)?;
    let kind = kind_of(&context.head)?;
    let now = time.now();
    let (head, rows) =
        with_rules!(kind, R => apply::<R>(&mut tx, &context, seat, change, now).await?);
    tx.commit().await?;
    cache.forget(game_id);
    let occasion = match head.status() {
        Status::Active => with_rules!(kind, R => {
            let mut conn = pool.acquire().await?;
            let state = state_at::<R>(&mut conn, &head, head.version).await?;
            R::order_window(&state, seat as Seat)
        }),
        _ => None,
    };
    Ok(out(kind, &head, seat, &rows, occasion))
}

/// Decodes an order of `R` as sent: unknown members are refused, as for commands, and at
/// every depth.
fn parse<R: Rules>(sent: &Value) -> Result<R::Order, Error> {
    let order: R::Order =
        serde_json::from_value(sent.clone()).map_err(|e| Error::UnknownOrder {
            kind: R::KIND,
            reason: e.to_string(),
        })?;
    // An order is kept as it was read: what was sent must be what is kept, at every depth (a
    // member the order does not have, at the top or deeper, or a tag given as a number, which
    // serde reads as the variant of that index, would otherwise be dropped or reinterpreted
    // silently).
    let kept = serde_json::to_value(&order).unwrap_or(Value::Null);
    if let Some(path) = not_kept(sent, &kept) {
        return Err(Error::UnknownOrder {
            kind: R::KIND,
            reason: format!("`{path}` is not a member of this order, or not of its kind of value"),
        });
    }
    Ok(order)
}

/// The first place (a dotted path) where `sent` says something `kept` does not: a member
/// `kept` lacks (a null one aside) or a different value.
fn not_kept(sent: &Value, kept: &Value) -> Option<String> {
    let within = |name: String, inner: Option<String>| {
        inner.map(|rest| match rest.is_empty() {
            true => name.clone(),
            false => format!("{name}.{rest}"),
        })
    };
    match (sent, kept) {
        (Value::Null, _) => None,
        (Value::Object(sent), Value::Object(kept)) => sent.iter().find_map(|(name, value)| {
            let inner = match kept.get(name) {
                None if value.is_null() => None,
                None => Some(String::new()),
                Some(kept) => not_kept(value, kept),
            };
            within(name.clone(), inner)
        }),
        (Value::Array(sent), Value::Array(kept)) if sent.len() == kept.len() => sent
            .iter()
            .zip(kept)
            .enumerate()
            .find_map(|(i, (sent, kept))| within(i.to_string(), not_kept(sent, kept))),
        (Value::Number(a), Value::Number(b)) => (a.as_f64() != b.as_f64()).then(String::new),
        (sent, kept) => (sent != kept).then(String::new),
    }
}

/// Applies `change` to the books of the game read as `context` (locked), checks the new
/// order on the seat's view, and plays what then matches; returns the head and the order
/// rows as they then stand.
async fn apply<R: Rules>(
    conn: &mut PgConnection,
    context: &Context,
    seat: i16,
    change: Change<'_>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(GameHead, Vec<OrderRow>), Error> {
    let head = &context.head;
    let state = context.state::<R>(&mut *conn).await?;
    let mut books = Books::<R>::read(&context.orders, head.seat_count as u8);
    let s = seat as Seat;
    match change {
        Change::Set(sent) => {
            let order = parse::<R>(sent)?;
            books.book.set::<R>(&state, s, order)?;
        }
        Change::Replace(id, sent) => {
            let order = parse::<R>(sent)?;
            books.book.remove(s, id).ok_or(Error::OrderNotFound(id))?;
            let new = books.book.set::<R>(&state, s, order)?;
            let index = usize::from(s);
            if let Some(at) = books.book.ids[index].iter().position(|&i| i == new) {
                books.book.ids[index][at] = id;
            }
        }
        Change::Cancel(id) => {
            books.book.remove(s, id).ok_or(Error::OrderNotFound(id))?;
        }
    }
    if books.book.of(s).len() > MAX_ORDERS {
        return Err(Error::TooManyOrders { max: MAX_ORDERS });
    }
    // Nobody else decides while the row is locked: no revision to check.
    let game = step::Game {
        orders_revision: None,
        ..context.game()
    };
    // The seat's own row is written in any case (a change to an order equal to it is no
    // change, but the caller's other pages are told all the same).
    books.seats[usize::from(s)].changed = true;
    let mut head = head.clone();
    match step::settle::<R>(game, state, books, now)? {
        Ok(decision) => {
            log_warnings(head.id, &decision.warnings);
            let mail: Vec<NewMail> = decision.notices.iter().map(Notice::as_mail).collect();
            let append = decision.append(Default::default(), &mail);
            let written = write_rows(
                &mut *conn,
                &Rows::of(&append)?,
                crate::service::notices::queue::routes(),
            )
            .await?;
            if written.is_empty() {
                return Err(Error::internal(anyhow::anyhow!(
                    "a locked game moved on while its orders were played"
                )));
            }
            store::bump_revision(&mut *conn, head.id).await?;
            crate::live::announce(&mut *conn, &decision.note).await?;
            metrics::counter!(crate::telemetry::names::ACTIONS_APPENDED, "kind" => R::KIND)
                .increment(1);
            head.version = decision.version;
            head.pending_seats = decision.pending.clone();
            if decision.status == Status::Finished {
                head.status = Status::Finished;
            }
        }
        Err(rows) => {
            store::save(&mut *conn, head.id, &rows, now).await?;
            let note = Note::orders_changed(head.id, rows.iter().map(|r| r.user_id).collect());
            crate::live::announce(&mut *conn, &note).await?;
        }
    }
    let rows = store::of_game(&mut *conn, head.id).await?;
    Ok((head, rows))
}

/// The orders of `user` in every game, for their my-data export.
#[derive(Debug, Serialize, ToSchema)]
pub struct MyOrders {
    pub game_id: Uuid,
    pub seat: i16,
    pub orders: Vec<StandingOrder>,
    pub news: Vec<News>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

/// Every order row of `user` (their own), for the my-data export.
pub async fn of_user(pool: &PgPool, user: Uuid) -> Result<Vec<MyOrders>, sqlx::Error> {
    Ok(store::of_user(pool, user)
        .await?
        .into_iter()
        .map(|(game_id, row, updated_at)| {
            let orders: Vec<super::auto::Stored> =
                serde_json::from_value(row.orders).unwrap_or_default();
            MyOrders {
                game_id,
                seat: row.seat,
                orders: standing(orders),
                news: serde_json::from_value(row.news).unwrap_or_default(),
                updated_at,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::flying_dutchman::FlyingDutchman;
    use serde_json::json;

    #[test]
    fn an_order_is_refused_unless_kept_as_sent_at_every_depth() {
        let as_sent = json!({"type": "income", "rule": {"kind": "prefer", "colours": ["red"]}});
        assert!(parse::<FlyingDutchman>(&as_sent).is_ok());
        let top = json!({"type": "income", "rule": {"kind": "best"}, "extra": 1});
        let refused = parse::<FlyingDutchman>(&top).unwrap_err();
        assert!(refused.to_string().contains("`extra`"), "{refused}");
        // A tag as a number (serde would read variant 0) and a member the variant lacks.
        for sent in [
            json!({"type": "income", "rule": {"kind": 0}}),
            json!({"type": "income", "rule": {"kind": "best", "colours": []}}),
        ] {
            let refused = parse::<FlyingDutchman>(&sent).unwrap_err();
            assert!(refused.to_string().contains("`rule."), "{sent}: {refused}");
        }
        assert_eq!(
            not_kept(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})),
            None
        );
        assert_eq!(
            not_kept(&json!({"a": [1, {"b": 2}]}), &json!({"a": [1, {"b": 3}]})),
            Some("a.1.b".to_string())
        );
    }
}
