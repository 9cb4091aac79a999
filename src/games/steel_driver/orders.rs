//! Moves the server plays on its own (`RULES.md`, "Standing orders and forced moves"):
//! forced moves, where the rules leave the seat to act exactly one command, and the standing
//! orders a seat sets ahead, matched on that seat's view.

use super::decide::{buildable, score_goods, takeable};
use super::map::{CityId, LinkId, bits};
use super::protocol::{Colour, Command, Company, Order};
use super::state::{Phase, State};
use super::view::View;
use crate::games::{Forced, OrderMatch, Reason, RuleError, Seat};
use std::cmp::Reverse;

/// Every reason code of a forced move or a dropped order, with its meaning.
pub const AUTO_CODES: &[(&str, &str)] = &[
    (
        "no_cubes",
        "Forced: the pawn holder holds no cubes, so cannot open an auction and passes the pawn.",
    ),
    (
        "cannot_outbid",
        "Forced: the bidder holds no more cubes than the high bid (`high_bid`, `cubes`, \
         `company`), so passes.",
    ),
    (
        "cannot_build",
        "Forced: `company` has no link it may build (its box holds `cubes`, `track_left` pieces \
         left), so passes.",
    ),
    (
        "only_link",
        "Forced: `link` is the one link `company` may build, and it must build.",
    ),
    (
        "only_path",
        "Forced: one transcontinental path is left to choose (`index`).",
    ),
    (
        "no_goods",
        "Forced: `company` can take no goods cube, so passes for good.",
    ),
    (
        "only_goods",
        "Forced: the goods cube of `city` is the one `company` may take, and it must take one.",
    ),
    (
        "outbid",
        "Dropped: the high bid for `company` (`high_bid`) reached the proxy bid's `limit` (or \
         the cubes held, `cubes`); the player decides.",
    ),
];

fn forced(command: Command, reason: Reason) -> Option<Forced<Command>> {
    Some(Forced { command, reason })
}

/// The one command `seat` may play, when it is to act and the rules leave it no other.
/// Everything in Steel Driver is public, so every forced move is seen to be forced by all.
pub fn forced_move(state: &State, seat: Seat) -> Option<Forced<Command>> {
    if state.to_act() != Some(seat) {
        return None;
    }
    let cubes = state.players[usize::from(seat)].cubes;
    match state.phase {
        Phase::Auction => match &state.auction {
            None if cubes == 0 => forced(Command::PassPawn, Reason::new("no_cubes")),
            None => None,
            Some(a) if cubes <= a.high_bid => forced(
                Command::PassBid,
                Reason::new("cannot_outbid")
                    .with("company", a.company)
                    .with("high_bid", a.high_bid)
                    .with("cubes", cubes),
            ),
            Some(_) => None,
        },
        Phase::Building => {
            if let Some(choice) = &state.bonus_choice {
                return (choice.options.len() == 1).then(|| Forced {
                    command: Command::ChoosePath { index: 0 },
                    reason: Reason::new("only_path").with("index", 0),
                });
            }
            let company = state.turns.current()?;
            let links = buildable(state, company);
            match links.count_ones() {
                0 => {
                    let c = state.company(company);
                    forced(
                        Command::PassBuild,
                        Reason::new("cannot_build")
                            .with("company", company)
                            .with("cubes", c.cubes)
                            .with("track_left", c.track_left()),
                    )
                }
                1 => {
                    let link = LinkId(bits(links).next()?);
                    forced(
                        Command::Build { link },
                        Reason::new("only_link")
                            .with("company", company)
                            .with("link", link),
                    )
                }
                _ => None,
            }
        }
        Phase::Delivery => {
            let company = state.turns.current()?;
            let goods = takeable(state, company);
            match goods.count_ones() {
                0 => forced(
                    Command::PassDelivery,
                    Reason::new("no_goods").with("company", company),
                ),
                1 => {
                    let city = CityId(bits(goods).next()?);
                    forced(
                        Command::TakeGoods { city },
                        Reason::new("only_goods")
                            .with("company", company)
                            .with("city", city),
                    )
                }
                _ => None,
            }
        }
        Phase::Setup | Phase::Finished => None,
    }
}

// ---------------------------------------------------------------------------------------
// Standing orders.

fn refuse(code: &'static str, message: impl Into<String>) -> Result<(), RuleError> {
    Err(RuleError::new(code, message))
}

/// Whether `seat` may set `order` now: auction orders for the current round's auction
/// phase and a company still in its box; delivery orders any time before the goods phase
/// ends.
pub fn check_order(view: &View, seat: Seat, order: &Order) -> Result<(), RuleError> {
    if usize::from(seat) >= view.players.len() || view.phase == Phase::Finished {
        return refuse("order_not_now", "the game is over");
    }
    let auction_round = |round: u8| {
        if round != view.round || view.phase != Phase::Auction {
            return refuse(
                "order_not_now",
                format!(
                    "auction orders are for the auction phase of this round ({})",
                    view.round
                ),
            );
        }
        Ok(())
    };
    let in_box = |company: Company| {
        if view.companies[company.index()].controller.is_some() {
            return refuse(
                "company_not_available",
                format!("the control marker of {company:?} is not in its box"),
            );
        }
        Ok(())
    };
    match *order {
        Order::PassPawn { round } => auction_round(round),
        Order::ProxyBid {
            round,
            company,
            limit,
            ..
        } => {
            auction_round(round)?;
            in_box(company)?;
            if limit == 0 {
                return refuse(
                    "invalid_order",
                    "a proxy bid needs a limit of 1 cube or more",
                );
            }
            Ok(())
        }
        Order::PassAuction { round, company } => {
            auction_round(round)?;
            in_box(company)
        }
        Order::Deliver { company } => match view.companies[company.index()].delivery_controller {
            Some(s) if view.phase == Phase::Delivery && s != seat => refuse(
                "order_not_now",
                format!("seat {s} controls {company:?} for the delivery"),
            ),
            _ => Ok(()),
        },
    }
}

/// What `order` plays for `seat` in the position `view` shows (the whole position: all of
/// Steel Driver is public).
pub fn match_order(view: &View, seat: Seat, order: &Order) -> OrderMatch<Command, Order> {
    let to_act = view.pending.first() == Some(&seat);
    // Auction orders end with their round's auction phase.
    let auction_over = |round: u8| view.round != round || view.phase != Phase::Auction;
    match *order {
        Order::PassPawn { round } => {
            if auction_over(round) {
                OrderMatch::Done
            } else if to_act && view.auction.is_none() {
                OrderMatch::Play {
                    command: Command::PassPawn,
                    then: Some(order.clone()),
                }
            } else {
                OrderMatch::Wait
            }
        }
        Order::ProxyBid {
            round,
            company,
            limit,
            pass_when_outbid,
        } => {
            if auction_over(round) || view.companies[company.index()].controller.is_some() {
                return OrderMatch::Done;
            }
            let Some(auction) = view.auction.as_ref().filter(|a| a.company == company) else {
                return OrderMatch::Wait;
            };
            if !to_act {
                return OrderMatch::Wait;
            }
            let cubes = view.players[usize::from(seat)].cubes;
            if auction.high_bid < limit.min(cubes) {
                OrderMatch::Play {
                    command: Command::Bid {
                        bid: auction.high_bid + 1,
                    },
                    then: Some(order.clone()),
                }
            } else if pass_when_outbid {
                OrderMatch::Play {
                    command: Command::PassBid,
                    then: None,
                }
            } else {
                OrderMatch::Drop(
                    Reason::new("outbid")
                        .with("company", company)
                        .with("high_bid", auction.high_bid)
                        .with("limit", limit)
                        .with("cubes", cubes),
                )
            }
        }
        Order::PassAuction { round, company } => {
            if auction_over(round) || view.companies[company.index()].controller.is_some() {
                OrderMatch::Done
            } else if to_act && view.auction.as_ref().is_some_and(|a| a.company == company) {
                OrderMatch::Play {
                    command: Command::PassBid,
                    then: None,
                }
            } else {
                OrderMatch::Wait
            }
        }
        Order::Deliver { company } => {
            let c = &view.companies[company.index()];
            let delivering = view.phase == Phase::Delivery;
            if view.phase == Phase::Finished || (delivering && c.passed) {
                return OrderMatch::Done;
            }
            if !(delivering && to_act && view.active_company == Some(company)) {
                return OrderMatch::Wait;
            }
            let held: [u8; 5] = std::array::from_fn(|i| c.goods.get(i).copied().unwrap_or(0));
            let rivals: Vec<Company> = view
                .companies
                .iter()
                .filter(|o| o.company != company && !o.passed && o.delivery_controller.is_some())
                .map(|o| o.company)
                .collect();
            let options = view
                .map
                .cities
                .iter()
                .filter(|city| city.goods && city.companies.contains(&company))
                .map(|city| {
                    let contested = city.companies.iter().any(|o| rivals.contains(o));
                    (city.id, city.colour, contested)
                });
            match best_goods(&held, options) {
                Some(city) => OrderMatch::Play {
                    command: Command::TakeGoods { city },
                    then: Some(order.clone()),
                },
                // Nothing to take: the pass is forced, and the server plays it as such.
                None => OrderMatch::Wait,
            }
        }
    }
}

/// Whether `new` replaces `old`: one pawn order a round, one auction order a company and
/// round (a proxy bid and a pass answer the same auction), one delivery order a company.
pub fn replaces(new: &Order, old: &Order) -> bool {
    match (new, old) {
        (Order::PassPawn { round: a }, Order::PassPawn { round: b }) => a == b,
        (
            Order::ProxyBid { round, company, .. } | Order::PassAuction { round, company },
            Order::ProxyBid {
                round: r,
                company: c,
                ..
            }
            | Order::PassAuction {
                round: r,
                company: c,
            },
        ) => round == r && company == c,
        (Order::Deliver { company }, Order::Deliver { company: c }) => company == c,
        _ => false,
    }
}

/// The occasion for `seat`, not to act now, to answer ahead: the auction phase of a round
/// (pawn and auction orders), a running auction it is still in (the high bidder too: it
/// may be outbid), the goods phase for a delivery controller.
pub fn order_window(state: &State, seat: Seat) -> Option<String> {
    if state.to_act() == Some(seat) || usize::from(seat) >= state.players.len() {
        return None;
    }
    match state.phase {
        Phase::Auction => Some(match &state.auction {
            Some(a) if a.out & (1 << seat) == 0 => {
                format!("round/{}/auction/{:?}", state.round, a.company)
            }
            _ => format!("round/{}/auctions", state.round),
        }),
        Phase::Delivery => state
            .companies
            .iter()
            .any(|c| c.delivery_controller == Some(seat))
            .then(|| "delivery".to_string()),
        Phase::Setup | Phase::Building | Phase::Finished => None,
    }
}

/// The goods cube the `Deliver` order (and the sensible bot) takes from `options` (city,
/// colour, whether a rival company still delivering could take it): the most gain in set
/// score, then a contested cube, then the city listed first on the map.
pub fn best_goods(
    held: &[u8; 5],
    options: impl IntoIterator<Item = (CityId, Colour, bool)>,
) -> Option<CityId> {
    let base = score_goods(held).1;
    options
        .into_iter()
        .max_by_key(|&(city, colour, contested)| {
            let mut more = *held;
            more[colour.index()] += 1;
            (score_goods(&more).1 - base, contested, Reverse(city.0))
        })
        .map(|(city, ..)| city)
}
