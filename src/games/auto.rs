//! What the server plays on its own, in the transaction of the move that caused it (issue
//! 37): forced moves, and the standing orders the seats set ahead. Pure and generic over the
//! games, for the platform and for `kontor simulate` alike.
//!
//! After every accepted command the server asks [`next`] for a move to play on its own and
//! plays it like any command of that seat (through `decide`, in the same transaction),
//! then reports the result with [`settle`]; it repeats until `next` has nothing. Each move
//! is recorded as the seat's own, marked with its [`Cause`].

use super::{Forced, OrderMatch, Reason, RuleError, Rules, Seat, Viewer};
use serde::{Deserialize, Serialize};

/// Reason codes of every game, besides each game's own `AUTO_CODES`: the platform's own
/// reasons to drop an order.
pub const COMMON_CODES: &[(&str, &str)] = &[
    (
        "refused",
        "Dropped: the rules refused the move the order played (`rule`: the refusal's code, \
         `message`).",
    ),
    (
        "undone",
        "Dropped: an undo took back moves of this seat; the position the order was set for is \
         gone.",
    ),
    (
        "invalid_now",
        "Dropped: after an undo the order no longer passes the game's check (`rule`: the \
         refusal's code, `message`).",
    ),
    (
        "seat_left",
        "Dropped: the seat's player left the game for good (the account was deleted).",
    ),
];

/// The standing orders of every seat of one game, in the order each seat set them. Each
/// order has an id (`ids`, beside it), unique in the book, which names it while it stands,
/// also after it changed (a proxy bid that raised).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderBook<O> {
    pub seats: Vec<Vec<O>>,
    pub ids: Vec<Vec<u64>>,
    /// The id the next order set gets.
    pub next_id: u64,
}

impl<O: Clone> OrderBook<O> {
    pub fn new(seats: u8) -> Self {
        OrderBook {
            seats: vec![Vec::new(); usize::from(seats)],
            ids: vec![Vec::new(); usize::from(seats)],
            next_id: 1,
        }
    }

    /// The standing orders of `seat`.
    pub fn of(&self, seat: Seat) -> &[O] {
        self.seats.get(usize::from(seat)).map_or(&[], Vec::as_slice)
    }

    /// The ids of the standing orders of `seat`, in the order of [`OrderBook::of`].
    pub fn ids_of(&self, seat: Seat) -> &[u64] {
        self.ids.get(usize::from(seat)).map_or(&[], Vec::as_slice)
    }

    /// Puts `order` with id `id` at the end of `seat`'s list as it stands (no check): the
    /// book as stored.
    pub fn push(&mut self, seat: Seat, id: u64, order: O) {
        let seat = usize::from(seat);
        if seat >= self.seats.len() {
            self.seats.resize(seat + 1, Vec::new());
            self.ids.resize(seat + 1, Vec::new());
        }
        self.seats[seat].push(order);
        self.ids[seat].push(id);
        self.next_id = self.next_id.max(id + 1);
    }

    /// Replaces every order of `seat` by `orders` (with new ids).
    pub fn replace(&mut self, seat: Seat, orders: Vec<O>) {
        let seat_index = usize::from(seat);
        if let (Some(list), Some(ids)) =
            (self.seats.get_mut(seat_index), self.ids.get_mut(seat_index))
        {
            list.clear();
            ids.clear();
        }
        for order in orders {
            let id = self.next_id;
            self.push(seat, id, order);
        }
    }

    /// Removes the order `id` of `seat`, if it stood.
    pub fn remove(&mut self, seat: Seat, id: u64) -> Option<O> {
        let seat = usize::from(seat);
        let at = self.ids.get(seat)?.iter().position(|&i| i == id)?;
        self.ids[seat].remove(at);
        Some(self.seats[seat].remove(at))
    }

    /// Sets `order` for `seat` when the game accepts it (`Rules::check_order` on the seat's
    /// view); it replaces the orders it answers for (`Rules::replaces`). Returns its id.
    pub fn set<R: Rules<Order = O>>(
        &mut self,
        state: &R::State,
        seat: Seat,
        order: O,
    ) -> Result<u64, RuleError> {
        R::check_order(&R::view(state, Viewer::Seat(seat)), seat, &order)?;
        let index = usize::from(seat);
        if index >= self.seats.len() {
            return Err(RuleError::new(
                "unknown_seat",
                format!("there is no seat {seat}"),
            ));
        }
        let mut kept = Vec::new();
        let mut kept_ids = Vec::new();
        for (old, id) in self.seats[index].drain(..).zip(self.ids[index].drain(..)) {
            if !R::replaces(&order, &old) {
                kept.push(old);
                kept_ids.push(id);
            }
        }
        self.seats[index] = kept;
        self.ids[index] = kept_ids;
        let id = self.next_id;
        self.push(seat, id, order);
        Ok(id)
    }
}

/// Why the server played a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause<O> {
    /// The rules left the seat this one move (`"auto": "forced"`).
    Forced(Reason),
    /// The seat's standing order number `index` played it (`"auto": "order"`); if the move is
    /// accepted, the order stands as `then` (`None`: it is used up).
    Order {
        index: usize,
        id: u64,
        then: Option<O>,
    },
}

/// A move the server plays on its own.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoMove<C, O> {
    pub seat: Seat,
    pub command: C,
    pub cause: Cause<O>,
}

/// What became of an order, to tell its seat.
#[derive(Clone, Debug, PartialEq)]
pub enum Notice<O> {
    /// The order no longer fits: removed, for `reason`.
    Dropped {
        seat: Seat,
        id: u64,
        order: O,
        reason: Reason,
    },
    /// The order's occasion has passed: removed, nothing to tell but that.
    Done { seat: Seat, id: u64, order: O },
}

/// The first pending seat (in `Rules::pending` order) whose move is forced, with that move.
pub fn next_forced<R: Rules>(state: &R::State) -> Option<(Seat, Forced<R::Command>)> {
    R::pending(state)
        .into_iter()
        .find_map(|seat| R::forced(state, seat).map(|forced| (seat, forced)))
}

/// The next move the server plays on its own in `state`: a forced move first, else the first
/// order that plays for a pending seat (seats in `pending` order, each seat's orders in the
/// order it set them). Every seat's orders are reviewed against its own view first: those
/// done or dropped are removed from `book` and reported in `notices`.
pub fn next<R: Rules>(
    state: &R::State,
    book: &mut OrderBook<R::Order>,
    notices: &mut Vec<Notice<R::Order>>,
) -> Option<AutoMove<R::Command, R::Order>> {
    let pending = R::pending(state);
    let mut plays: Vec<AutoMove<R::Command, R::Order>> = Vec::new();
    if book.ids.len() != book.seats.len() {
        book.ids.resize(book.seats.len(), Vec::new());
    }
    for (seat, (orders, ids)) in book.seats.iter_mut().zip(book.ids.iter_mut()).enumerate() {
        if orders.is_empty() {
            continue;
        }
        let seat = seat as Seat;
        let view = R::view(state, Viewer::Seat(seat));
        let mut kept = Vec::with_capacity(orders.len());
        let mut kept_ids = Vec::with_capacity(orders.len());
        // A list set without ids (by hand) gets them now.
        while ids.len() < orders.len() {
            ids.push(book.next_id);
            book.next_id += 1;
        }
        for (order, id) in orders.drain(..).zip(ids.drain(..)) {
            match R::match_order(&view, seat, &order) {
                OrderMatch::Wait => {
                    kept.push(order);
                    kept_ids.push(id);
                }
                OrderMatch::Done => notices.push(Notice::Done { seat, id, order }),
                OrderMatch::Drop(reason) => notices.push(Notice::Dropped {
                    seat,
                    id,
                    order,
                    reason,
                }),
                OrderMatch::Play { command, then } => {
                    if pending.contains(&seat) && !plays.iter().any(|p| p.seat == seat) {
                        plays.push(AutoMove {
                            seat,
                            command,
                            cause: Cause::Order {
                                index: kept.len(),
                                id,
                                then,
                            },
                        });
                    }
                    kept.push(order);
                    kept_ids.push(id);
                }
            }
        }
        *orders = kept;
        *ids = kept_ids;
    }
    if let Some((seat, forced)) = next_forced::<R>(state) {
        return Some(AutoMove {
            seat,
            command: forced.command,
            cause: Cause::Forced(forced.reason),
        });
    }
    pending
        .iter()
        .find_map(|&s| plays.iter().position(|p| p.seat == s))
        .map(|i| plays.swap_remove(i))
}

/// After the server submitted `played`: on acceptance, an order that played stands as its
/// `then`; on refusal, the order is dropped with the refusal as its reason (`refused`, with
/// the rule's code as `rule`). A refused forced move is an engine bug the caller reports.
pub fn settle<C, O: Clone>(
    book: &mut OrderBook<O>,
    played: &AutoMove<C, O>,
    result: Result<(), &RuleError>,
    notices: &mut Vec<Notice<O>>,
) {
    let Cause::Order { index, id, then } = &played.cause else {
        return;
    };
    let seat = usize::from(played.seat);
    let (Some(orders), Some(ids)) = (book.seats.get_mut(seat), book.ids.get_mut(seat)) else {
        return;
    };
    if *index >= orders.len() || ids.get(*index) != Some(id) {
        return;
    }
    match (result, then) {
        (Ok(()), Some(then)) => orders[*index] = then.clone(),
        (Ok(()), None) => {
            orders.remove(*index);
            ids.remove(*index);
        }
        (Err(error), _) => {
            let order = orders.remove(*index);
            ids.remove(*index);
            notices.push(Notice::Dropped {
                seat: played.seat,
                id: *id,
                order,
                reason: Reason::new("refused")
                    .with("rule", error.code)
                    .with("message", &error.message),
            });
        }
    }
}
