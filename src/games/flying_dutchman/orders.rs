//! Moves the server plays on its own (`RULES.md`, "Standing orders and forced moves"):
//! forced moves, where the rules leave a pending seat exactly one command and everybody can
//! see that they do, and the standing orders a seat sets ahead, matched on that seat's own
//! view (so an order can use nothing the seat may not see).

use super::board::{Colour, SpaceId, board};
use super::decide::{is_pending, validate_bid};
use super::protocol::{ActionTaken, Command, ExtraChoice, IncomeRule, Order, PaymentTerm};
use super::state::{PASS_LIMIT, Phase, State};
use super::view::{PlayerView, StepView, View};
use crate::games::{Forced, OrderMatch, Reason, RuleError, Seat};

/// Every reason code of a forced move or a dropped order, with its meaning.
pub const AUTO_CODES: &[(&str, &str)] = &[
    (
        "only_pass",
        "Forced: the player holds no horseshoe, no smith card and no usable Kontor card \
         (`kontor_cards`, `share_stack`), so passes.",
    ),
    (
        "only_destination",
        "Forced: `to` is the one space the ghost ship may move to (moving or declaring).",
    ),
    (
        "no_horseshoes",
        "Forced: in an extra round the player holds no horseshoe, so drops out.",
    ),
    (
        "no_shares",
        "Forced: a mover on an island holds no share card, so takes no income.",
    ),
    (
        "bids_before",
        "Dropped: `count` players before me this round bid, more than the action order's \
         `max_bids_before`; the player decides.",
    ),
];

fn forced(command: Command, reason: Reason) -> Option<Forced<Command>> {
    Some(Forced { command, reason })
}

/// The one command `seat` may play now, when it is pending and the rules leave it no other.
///
/// Only public facts decide it (counts of cards and horseshoes, the share stack's size, the
/// board), so a move played at once tells nobody anything. That is why a Kontor return is
/// never forced here: five cards of one colour leave one return, but playing it at once
/// would show the hand.
pub fn forced_move(state: &State, seat: Seat) -> Option<Forced<Command>> {
    if usize::from(seat) >= state.players.len() || !is_pending(state, seat) {
        return None;
    }
    let p = &state.players[usize::from(seat)];
    let only_destination = |declare: bool| {
        let mut destinations = state.destinations();
        let to = destinations.next()?;
        if destinations.next().is_some() {
            return None;
        }
        let name = to.name().to_string();
        let command = if declare {
            Command::Declare { to: name.clone() }
        } else {
            Command::Move { to: name.clone() }
        };
        forced(command, Reason::new("only_destination").with("to", name))
    };
    match &state.phase {
        Phase::Action { .. } => {
            let kontor = p.kontor_cards > 0 && state.share_stack.len() >= 2;
            let none = !kontor && p.smith_cards == 0 && p.horseshoes.is_empty();
            debug_assert!(!none || p.horseshoes.len() <= PASS_LIMIT);
            none.then(|| Forced {
                command: Command::Pass,
                reason: Reason::new("only_pass")
                    .with("kontor_cards", p.kontor_cards)
                    .with("share_stack", state.share_stack.len()),
            })
        }
        Phase::Move { .. } => only_destination(false),
        Phase::Declaration { .. } => only_destination(true),
        Phase::ExtraRound { .. } if p.horseshoes.is_empty() => {
            forced(Command::DropOut, Reason::new("no_horseshoes"))
        }
        Phase::IslandIncome { .. } if p.shares.is_empty() => {
            forced(Command::DeclineIncome, Reason::new("no_shares"))
        }
        Phase::KontorReturn { .. }
        | Phase::Negotiation { .. }
        | Phase::ExtraRound { .. }
        | Phase::IslandIncome { .. }
        | Phase::NotStarted
        | Phase::Resolving
        | Phase::Finished { .. } => None,
    }
}

// ---------------------------------------------------------------- standing orders

fn refuse(code: &'static str, message: impl Into<String>) -> Result<(), RuleError> {
    Err(RuleError::new(code, message))
}

/// The round an order is for (`None`: a standing order for the whole game).
fn round_of(order: &Order) -> Option<u32> {
    match order {
        Order::Action { round, .. }
        | Order::KontorReturn { round, .. }
        | Order::Move { round, .. }
        | Order::Declare { round, .. }
        | Order::Offer { round, .. }
        | Order::Accept { round, .. }
        | Order::ExtraRound { round, .. } => Some(*round),
        Order::Income { .. } => None,
    }
}

/// Where the ghost ship may go, as the view shows it.
fn destinations(view: &View) -> impl Iterator<Item = SpaceId> + '_ {
    let here = view.ghost_ship.unwrap_or_else(|| board().start());
    board()
        .adjacent(here)
        .iter()
        .copied()
        .filter(move |&s| Some(s) != view.previous_space)
}

/// Checks a destination named in an order, as `decide` would a move.
fn destination(view: &View, name: &str) -> Result<SpaceId, RuleError> {
    let to = board()
        .find(name)
        .ok_or_else(|| RuleError::new("unknown_space", format!("There is no space {name}.")))?;
    if destinations(view).any(|d| d == to) {
        return Ok(to);
    }
    if Some(to) == view.previous_space {
        return Err(RuleError::new(
            "backtrack_not_allowed",
            format!("The ghost ship just came from {name}; it may not go back."),
        ));
    }
    Err(RuleError::new(
        "not_adjacent",
        format!("{name} is not one line away from the ghost ship."),
    ))
}

/// Whether `seat` may set `order` now, judged on its own view: the round must be the current
/// one, its decision still to come, and its move one the rules could accept.
pub fn check_order(view: &View, seat: Seat, order: &Order) -> Result<(), RuleError> {
    let Some(me) = view.players.get(usize::from(seat)) else {
        return refuse("unknown_seat", format!("There is no seat {seat}."));
    };
    if me.bankrupt || matches!(view.step, StepView::Finished { .. }) {
        return refuse("order_not_now", "The game is over for this seat.");
    }
    if let Some(round) = round_of(order)
        && round != view.round
    {
        return refuse(
            "order_not_now",
            format!("Orders are for this round ({}), not {round}.", view.round),
        );
    }
    let hand = me.horseshoes.as_deref().unwrap_or_default();
    match order {
        Order::Action { action, .. } => {
            if me.action.is_some() {
                return refuse("order_not_now", "You have acted this round.");
            }
            match action {
                Command::UseKontor if me.kontor_cards == 0 => {
                    refuse("no_kontor_card", "You have no Kontor card left.")
                }
                Command::UseSmith if me.smith_cards == 0 => {
                    refuse("no_smith_card", "You have no smith card left.")
                }
                Command::Bid { horseshoes } => validate_bid(hand, horseshoes),
                Command::Pass if hand.len() > PASS_LIMIT => refuse(
                    "too_many_horseshoes_to_pass",
                    format!(
                        "You hold {} horseshoes; passing needs {PASS_LIMIT} or fewer.",
                        hand.len()
                    ),
                ),
                Command::UseKontor | Command::UseSmith | Command::Pass => Ok(()),
                _ => refuse(
                    "invalid_order",
                    "An action order plays use_kontor, use_smith, bid or pass.",
                ),
            }
        }
        Order::KontorReturn { keep, .. } => {
            if keep.len() != Colour::ALL.len() || Colour::ALL.iter().any(|c| !keep.contains(c)) {
                return refuse("invalid_order", "Rank all six colours, each once.");
            }
            Ok(())
        }
        Order::Move { to, .. } | Order::Declare { to, .. } => destination(view, to).map(|_| ()),
        Order::Offer { to, each, .. } => {
            destination(view, to)?;
            if *each < 0 {
                return refuse("invalid_amount", "A payment cannot be negative.");
            }
            if *each > me.coins {
                return refuse(
                    "offer_exceeds_coins",
                    format!("You hold {} ducats.", me.coins),
                );
            }
            Ok(())
        }
        Order::Accept {
            to, min_payment, ..
        } => {
            destination(view, to)?;
            if *min_payment < 0 {
                return refuse("invalid_amount", "A payment cannot be negative.");
            }
            Ok(())
        }
        Order::ExtraRound { choice, .. } => match choice {
            ExtraChoice::Bid { horseshoes } => validate_bid(hand, horseshoes),
            ExtraChoice::DropOut => Ok(()),
        },
        Order::Income { rule } => match rule {
            IncomeRule::Prefer { colours }
                if colours.is_empty()
                    || colours
                        .iter()
                        .enumerate()
                        .any(|(i, c)| colours[..i].contains(c)) =>
            {
                refuse("invalid_order", "Name one or more colours, each once.")
            }
            _ => Ok(()),
        },
    }
}

fn play(command: Command, then: Option<Order>) -> OrderMatch<Command, Order> {
    OrderMatch::Play { command, then }
}

/// What `order` plays for `seat` in the position its own view shows.
pub fn match_order(view: &View, seat: Seat, order: &Order) -> OrderMatch<Command, Order> {
    let Some(me) = view.players.get(usize::from(seat)) else {
        return OrderMatch::Done;
    };
    if me.bankrupt || matches!(view.step, StepView::Finished { .. }) {
        return OrderMatch::Done;
    }
    match round_of(order) {
        Some(round) if round < view.round => return OrderMatch::Done,
        Some(round) if round > view.round => return OrderMatch::Wait,
        _ => {}
    }
    let here = |s: &Seat| *s == seat;
    match (order, &view.step) {
        (
            Order::Action {
                action,
                max_bids_before,
                ..
            },
            StepView::Action { seat: s },
        ) if here(s) => {
            let bids = view
                .players
                .iter()
                .filter(|p| matches!(p.action, Some(ActionTaken::Bid { .. })))
                .count();
            match max_bids_before {
                Some(max) if bids > usize::from(*max) => OrderMatch::Drop(
                    Reason::new("bids_before")
                        .with("count", bids)
                        .with("max_bids_before", max),
                ),
                _ => play(action.clone(), None),
            }
        }
        (Order::Action { .. }, _) if me.action.is_some() => OrderMatch::Done,
        (Order::KontorReturn { keep, .. }, StepView::KontorExchange { seat: s }) if here(s) => {
            play(
                Command::ReturnShares {
                    cards: least_wanted(me, keep),
                },
                None,
            )
        }
        (Order::KontorReturn { .. }, _)
            if me.action.is_some() && me.action != Some(ActionTaken::Kontor) =>
        {
            OrderMatch::Done
        }
        (Order::Move { to, .. }, StepView::Move { seat: s, .. }) if here(s) => {
            play(Command::Move { to: to.clone() }, None)
        }
        (Order::Declare { to, .. }, StepView::Declaration { next, .. }) if here(next) => {
            play(Command::Declare { to: to.clone() }, Some(order.clone()))
        }
        (Order::Offer { to, each, .. }, StepView::Negotiation { tie, offers, .. })
            if tie.contains(&seat) && !offers.iter().any(|o| o.by == seat) =>
        {
            let payments = if *each > 0 {
                tie.iter()
                    .filter(|&&s| s != seat)
                    .map(|&s| PaymentTerm {
                        seat: s,
                        amount: *each,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            play(
                Command::MakeOffer {
                    to: to.clone(),
                    payments,
                },
                Some(order.clone()),
            )
        }
        (
            Order::Accept {
                to, min_payment, ..
            },
            StepView::Negotiation { tie, offers, .. },
        ) if tie.contains(&seat) => {
            let pays_me = |o: &super::protocol::Offer| -> i64 {
                o.payments
                    .iter()
                    .filter(|p| p.seat == seat)
                    .map(|p| p.amount)
                    .sum()
            };
            let best = offers
                .iter()
                .filter(|o| o.to.name() == to && o.by != seat && !o.accepted_by.contains(&seat))
                .filter(|o| pays_me(o) >= *min_payment)
                .max_by_key(|o| (pays_me(o), std::cmp::Reverse(o.id)));
            match best {
                Some(o) => play(Command::AcceptOffer { offer: o.id }, Some(order.clone())),
                None => OrderMatch::Wait,
            }
        }
        (Order::ExtraRound { choice, .. }, StepView::ExtraRound { tie, chosen })
            if tie.contains(&seat) && !chosen.contains(&seat) =>
        {
            let command = match choice {
                ExtraChoice::DropOut => Command::DropOut,
                ExtraChoice::Bid { horseshoes } => Command::Bid {
                    horseshoes: horseshoes.clone(),
                },
            };
            play(command, None)
        }
        (Order::Income { rule }, StepView::IslandIncome { movers, decided })
            if movers.contains(&seat) && !decided.contains(&seat) =>
        {
            let shares = me.shares.as_deref().unwrap_or_default();
            let value = |c: Colour| {
                view.markers
                    .iter()
                    .find(|m| m.colour == c)
                    .map_or(0, |m| m.value)
            };
            let colour = match rule {
                IncomeRule::Best => best_income(shares, value),
                IncomeRule::Decline => None,
                IncomeRule::Prefer { colours } => {
                    colours.iter().copied().find(|c| shares.contains(c))
                }
            };
            let command = match colour {
                Some(colour) => Command::TakeIncome { colour },
                None => Command::DeclineIncome,
            };
            play(command, Some(order.clone()))
        }
        _ => OrderMatch::Wait,
    }
}

/// The two cards of `me`'s hand lowest in `keep` (most wanted first), the least wanted first.
fn least_wanted(me: &PlayerView, keep: &[Colour]) -> Vec<Colour> {
    let rank = |c: &Colour| keep.iter().position(|k| k == c).unwrap_or(keep.len());
    let mut hand = me.shares.clone().unwrap_or_default();
    hand.sort_by_key(|c| std::cmp::Reverse(rank(c)));
    hand.truncate(2);
    hand
}

/// The share card of the highest value among `shares` (equal values: the colour later in
/// the order of the rules): the `best` income rule, and the sensible bot's choice.
pub fn best_income(shares: &[Colour], value: impl Fn(Colour) -> u8) -> Option<Colour> {
    shares.iter().copied().max_by_key(|&c| (value(c), c))
}

/// Whether `new` replaces `old`: one order per kind and round (per destination for
/// `accept`), one income rule.
pub fn replaces(new: &Order, old: &Order) -> bool {
    match (new, old) {
        (
            Order::Accept { round, to, .. },
            Order::Accept {
                round: r, to: t, ..
            },
        ) => round == r && to == t,
        (Order::Income { .. }, Order::Income { .. }) => true,
        _ => {
            std::mem::discriminant(new) == std::mem::discriminant(old)
                && round_of(new) == round_of(old)
        }
    }
}

/// The occasion for `seat`, not to act now, to answer ahead: the action step of a round
/// (once the lucky number is known) before its turn, a tie's declarations before its turn.
pub fn order_window(state: &State, seat: Seat) -> Option<String> {
    if !state.active(seat) || is_pending(state, seat) {
        return None;
    }
    match &state.phase {
        Phase::Action { .. } if state.players[usize::from(seat)].action.is_none() => {
            Some(format!("round/{}/action", state.round))
        }
        Phase::Declaration { tie, declared } if tie[declared.len()..].contains(&seat) => Some(
            format!("round/{}/declaration/{}", state.round, state.negotiations),
        ),
        _ => None,
    }
}
