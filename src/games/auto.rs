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

/// Reason codes of every game, besides each game's own `AUTO_CODES`.
pub const COMMON_CODES: &[(&str, &str)] = &[(
    "refused",
    "Dropped: the rules refused the move the order played (`rule`: the refusal's code, \
     `message`).",
)];

/// The standing orders of every seat of one game, in the order each seat set them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderBook<O> {
    pub seats: Vec<Vec<O>>,
}

impl<O: Clone> OrderBook<O> {
    pub fn new(seats: u8) -> Self {
        OrderBook {
            seats: vec![Vec::new(); usize::from(seats)],
        }
    }

    /// The standing orders of `seat`.
    pub fn of(&self, seat: Seat) -> &[O] {
        self.seats.get(usize::from(seat)).map_or(&[], Vec::as_slice)
    }

    /// Sets `order` for `seat` when the game accepts it (`Rules::check_order` on the seat's
    /// view); it replaces the orders it answers for (`Rules::replaces`).
    pub fn set<R: Rules<Order = O>>(
        &mut self,
        state: &R::State,
        seat: Seat,
        order: O,
    ) -> Result<(), RuleError> {
        R::check_order(&R::view(state, Viewer::Seat(seat)), seat, &order)?;
        let list = self
            .seats
            .get_mut(usize::from(seat))
            .ok_or_else(|| RuleError::new("unknown_seat", format!("there is no seat {seat}")))?;
        list.retain(|old| !R::replaces(&order, old));
        list.push(order);
        Ok(())
    }
}

/// Why the server played a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause<O> {
    /// The rules left the seat this one move (`"auto": "forced"`).
    Forced(Reason),
    /// The seat's standing order number `index` played it (`"auto": "order"`); if the move is
    /// accepted, the order stands as `then` (`None`: it is used up).
    Order { index: usize, then: Option<O> },
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
        order: O,
        reason: Reason,
    },
    /// The order's occasion has passed: removed, nothing to tell but that.
    Done { seat: Seat, order: O },
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
    for (seat, orders) in book.seats.iter_mut().enumerate() {
        if orders.is_empty() {
            continue;
        }
        let seat = seat as Seat;
        let view = R::view(state, Viewer::Seat(seat));
        let mut kept = Vec::with_capacity(orders.len());
        for order in orders.drain(..) {
            match R::match_order(&view, seat, &order) {
                OrderMatch::Wait => kept.push(order),
                OrderMatch::Done => notices.push(Notice::Done { seat, order }),
                OrderMatch::Drop(reason) => notices.push(Notice::Dropped {
                    seat,
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
                                then,
                            },
                        });
                    }
                    kept.push(order);
                }
            }
        }
        *orders = kept;
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
    let Cause::Order { index, then } = &played.cause else {
        return;
    };
    let Some(orders) = book.seats.get_mut(usize::from(played.seat)) else {
        return;
    };
    if *index >= orders.len() {
        return;
    }
    match (result, then) {
        (Ok(()), Some(then)) => orders[*index] = then.clone(),
        (Ok(()), None) => {
            orders.remove(*index);
        }
        (Err(error), _) => {
            let order = orders.remove(*index);
            notices.push(Notice::Dropped {
                seat: played.seat,
                order,
                reason: Reason::new("refused")
                    .with("rule", error.code)
                    .with("message", &error.message),
            });
        }
    }
}
