//! Bots: `Random` plays a uniformly random legal command; `Sensible` keeps its shares away
//! from the ghost ship. Both only read what their seat may know (own hand, public state).

use super::board::{Colour, SpaceId, SpaceKind, board};
use super::orders::{best_income, replaces};
use super::protocol::{
    ActionTaken, BidHorseshoe, Command, ExtraChoice, IncomeRule, Order, PaymentTerm, Sign,
    bid_value,
};
use super::state::{MAX_STANDING_OFFERS, PASS_LIMIT, Phase, State, is_gold};
use super::view::promised;
use crate::games::{BotLevel, GameRng, Seat};

pub(super) fn bot_command(
    state: &State,
    seat: Seat,
    level: BotLevel,
    rng: &mut GameRng,
) -> Command {
    match level {
        BotLevel::Random => random_command(state, seat, rng),
        BotLevel::Sensible => sensible_command(state, seat, rng),
    }
}

fn name(space: SpaceId) -> String {
    space.name().to_string()
}

// ---------------------------------------------------------------- random

fn random_command(state: &State, seat: Seat, rng: &mut GameRng) -> Command {
    let p = &state.players[usize::from(seat)];
    match &state.phase {
        Phase::Action { .. } => {
            let mut options: Vec<u8> = Vec::with_capacity(4);
            if p.kontor_cards > 0 && state.share_stack.len() >= 2 {
                options.push(0);
            }
            if p.smith_cards > 0 {
                options.push(1);
            }
            if !p.horseshoes.is_empty() {
                options.push(2);
            }
            if p.horseshoes.len() <= PASS_LIMIT {
                options.push(3);
            }
            match options[rng.index(options.len())] {
                0 => Command::UseKontor,
                1 => Command::UseSmith,
                2 => Command::Bid {
                    horseshoes: random_bid(&p.horseshoes, rng),
                },
                _ => Command::Pass,
            }
        }
        Phase::KontorReturn { .. } => {
            let mut hand = p.shares.clone();
            rng.shuffle(&mut hand);
            hand.truncate(2);
            Command::ReturnShares { cards: hand }
        }
        Phase::Move { .. } => Command::Move {
            to: name(random_destination(state, rng)),
        },
        Phase::Declaration { .. } => Command::Declare {
            to: name(random_destination(state, rng)),
        },
        Phase::Negotiation { tie, offers, .. } => {
            let mine: Vec<u32> = offers
                .iter()
                .filter(|o| o.by == seat)
                .map(|o| o.id)
                .collect();
            let acceptable: Vec<u32> = offers
                .iter()
                .filter(|o| o.by != seat && !o.accepted_by.contains(&seat))
                .map(|o| o.id)
                .collect();
            let rejectable: Vec<u32> = offers
                .iter()
                .filter(|o| o.by != seat && !o.rejected_by.contains(&seat))
                .map(|o| o.id)
                .collect();
            let mut options: Vec<u8> = vec![4];
            if mine.len() < MAX_STANDING_OFFERS {
                options.push(0);
            }
            if !acceptable.is_empty() {
                options.push(1);
            }
            if !rejectable.is_empty() {
                options.push(2);
            }
            if !mine.is_empty() {
                options.push(3);
            }
            match options[rng.index(options.len())] {
                0 => {
                    let to = random_destination(state, rng);
                    let mut budget = p.coins - promised(offers, seat, to);
                    let mut payments = Vec::new();
                    for &other in tie.iter().filter(|&&s| s != seat) {
                        if budget >= 1 && rng.chance(1, 2) {
                            let amount = 1 + i64::from(rng.below(budget.min(5) as u32));
                            budget -= amount;
                            payments.push(PaymentTerm {
                                seat: other,
                                amount,
                            });
                        }
                    }
                    Command::MakeOffer {
                        to: name(to),
                        payments,
                    }
                }
                1 => Command::AcceptOffer {
                    offer: acceptable[rng.index(acceptable.len())],
                },
                2 => Command::RejectOffer {
                    offer: rejectable[rng.index(rejectable.len())],
                },
                3 => Command::WithdrawOffer {
                    offer: mine[rng.index(mine.len())],
                },
                _ => Command::NoAgreement,
            }
        }
        Phase::ExtraRound { .. } => {
            if !p.horseshoes.is_empty() && rng.chance(1, 2) {
                Command::Bid {
                    horseshoes: random_bid(&p.horseshoes, rng),
                }
            } else {
                Command::DropOut
            }
        }
        Phase::IslandIncome { .. } => {
            let mut colours = p.shares.clone();
            colours.sort_unstable();
            colours.dedup();
            let i = rng.index(colours.len() + 1);
            match colours.get(i) {
                Some(&colour) => Command::TakeIncome { colour },
                None => Command::DeclineIncome,
            }
        }
        Phase::NotStarted | Phase::Resolving | Phase::Finished { .. } => Command::Pass,
    }
}

fn random_destination(state: &State, rng: &mut GameRng) -> SpaceId {
    let here = state.ghost.unwrap_or_else(|| board().start());
    let options: Vec<SpaceId> = state.destinations().collect();
    // Every space has at least two lines, so there is always a way forward.
    options
        .get(rng.index(options.len().max(1)))
        .copied()
        .unwrap_or(here)
}

/// A random non-empty bid: maybe one gold, each silver with probability 1/2 and a random sign.
fn random_bid(hand: &[u8], rng: &mut GameRng) -> Vec<BidHorseshoe> {
    let golds: Vec<u8> = hand.iter().copied().filter(|&h| is_gold(h)).collect();
    let mut bid = Vec::new();
    if !golds.is_empty() && rng.chance(1, 2) {
        bid.push(BidHorseshoe {
            value: golds[rng.index(golds.len())],
            sign: Sign::Plus,
        });
    }
    for &h in hand.iter().filter(|&&h| !is_gold(h)) {
        if rng.chance(1, 2) {
            let sign = if rng.chance(1, 2) {
                Sign::Plus
            } else {
                Sign::Minus
            };
            bid.push(BidHorseshoe { value: h, sign });
        }
    }
    if bid.is_empty() {
        bid.push(BidHorseshoe {
            value: hand[rng.index(hand.len())],
            sign: Sign::Plus,
        });
    }
    bid
}

// ---------------------------------------------------------------- sensible

/// How good a destination is for `seat`, in ducats of wealth (roughly).
fn score(state: &State, seat: Seat, to: SpaceId, mover: bool) -> i64 {
    let p = &state.players[usize::from(seat)];
    match board().colour(to) {
        Some(colour) => {
            let held = p.count(colour) as i64;
            let value = state.value(colour);
            if held > 0 && p.coins < held * value {
                return -1000;
            }
            // Pay now, and the shares fall to the bottom of the track; the others rise by one.
            let fall = value - i64::from(state.chest(1));
            -held * value - held * fall + (p.shares.len() as i64 - held)
        }
        None => {
            if mover {
                p.shares.iter().map(|&c| state.value(c)).max().unwrap_or(0)
            } else {
                0
            }
        }
    }
}

fn ranked_destinations(state: &State, seat: Seat) -> Vec<(SpaceId, i64)> {
    let mut list: Vec<(SpaceId, i64)> = state
        .destinations()
        .map(|d| (d, score(state, seat, d, true)))
        .collect();
    list.sort_by_key(|&(d, s)| (-s, d));
    list
}

/// The bid closest to `target` without going over (fewest horseshoes on equal value), or
/// `None` when the hand is empty.
pub(super) fn best_bid(hand: &[u8], target: i32) -> Option<Vec<BidHorseshoe>> {
    const FACES: [u8; 4] = [1, 2, 10, 20];
    let counts: [i32; 4] = FACES.map(|f| hand.iter().filter(|&&h| h == f).count() as i32);
    // Best (fewest horseshoes) net counts per silver sum.
    let max_sum: i32 = FACES
        .iter()
        .zip(counts)
        .map(|(&f, c)| i32::from(f) * c)
        .sum();
    let width = (2 * max_sum + 1) as usize;
    let mut best: Vec<Option<(u8, [i8; 4])>> = vec![None; width];
    for n1 in -counts[0]..=counts[0] {
        for n2 in -counts[1]..=counts[1] {
            for n10 in -counts[2]..=counts[2] {
                for n20 in -counts[3]..=counts[3] {
                    let sum = n1 + 2 * n2 + 10 * n10 + 20 * n20;
                    let cost = (n1.abs() + n2.abs() + n10.abs() + n20.abs()) as u8;
                    let slot = &mut best[(sum + max_sum) as usize];
                    if slot.is_none_or(|(c, _)| cost < c) {
                        *slot = Some((cost, [n1 as i8, n2 as i8, n10 as i8, n20 as i8]));
                    }
                }
            }
        }
    }
    let mut golds: Vec<i32> = hand
        .iter()
        .filter(|&&h| is_gold(h))
        .map(|&h| i32::from(h))
        .collect();
    golds.insert(0, 0);
    let mut choice: Option<(i32, u8, i32, [i8; 4])> = None; // value, cost, gold, nets
    for &gold in &golds {
        for (i, slot) in best.iter().enumerate() {
            let Some((cost, nets)) = *slot else { continue };
            let sum = i as i32 - max_sum;
            let total = gold + sum;
            let cost = cost + u8::from(gold > 0);
            if cost == 0 || total > target {
                continue;
            }
            let better = match choice {
                None => true,
                Some((v, c, g, _)) => {
                    (total, std::cmp::Reverse(cost), std::cmp::Reverse(gold))
                        > (v, std::cmp::Reverse(c), std::cmp::Reverse(g))
                }
            };
            if better {
                choice = Some((total, cost, gold, nets));
            }
        }
    }
    let (_, _, gold, nets) = choice?;
    let mut bid = Vec::new();
    if gold > 0 {
        bid.push(BidHorseshoe {
            value: gold as u8,
            sign: Sign::Plus,
        });
    }
    for (k, &face) in FACES.iter().enumerate() {
        let n = nets[k];
        let sign = if n >= 0 { Sign::Plus } else { Sign::Minus };
        for _ in 0..n.unsigned_abs() {
            bid.push(BidHorseshoe { value: face, sign });
        }
    }
    debug_assert!(bid_value(&bid) <= target);
    Some(bid)
}

fn sensible_command(state: &State, seat: Seat, rng: &mut GameRng) -> Command {
    let p = &state.players[usize::from(seat)];
    let ln = i32::from(state.lucky_number);
    match &state.phase {
        Phase::Action { .. } => {
            let ranked = ranked_destinations(state, seat);
            let best = ranked.first().map_or(0, |r| r.1);
            let worst = ranked.last().map_or(0, |r| r.1);
            let stake = best - worst;
            let bid = best_bid(&p.horseshoes, ln);
            let bid_value_ = bid.as_deref().map_or(i32::MIN, bid_value);
            let endangered = worst <= -4
                && ranked
                    .iter()
                    .any(|&(d, s)| s <= -4 && board().kind(d) == SpaceKind::Ship);
            let can_kontor = p.kontor_cards > 0 && state.share_stack.len() >= 2;
            let can_smith = p.smith_cards > 0 && !state.pool.is_empty();
            if stake >= 4 && bid_value_ >= ln - 3 {
                return Command::Bid {
                    horseshoes: bid.expect("a value means a bid"),
                };
            }
            if endangered && can_kontor {
                return Command::UseKontor;
            }
            if p.horseshoes.len() <= PASS_LIMIT && can_smith {
                return Command::UseSmith;
            }
            if stake >= 2 && bid_value_ >= ln - 10 {
                return Command::Bid {
                    horseshoes: bid.expect("a value means a bid"),
                };
            }
            if p.horseshoes.len() <= PASS_LIMIT {
                return Command::Pass;
            }
            match bid {
                Some(horseshoes) => Command::Bid { horseshoes },
                // Unreachable: 5+ horseshoes always give a bid. Keep a legal fallback.
                None => random_command(state, seat, rng),
            }
        }
        Phase::KontorReturn { .. } => {
            let keep_score = keep_scores(state);
            let mut hand = p.shares.clone();
            hand.sort_by_key(|&c| (keep_score[c.index()], c));
            hand.truncate(2);
            Command::ReturnShares { cards: hand }
        }
        Phase::Move { .. } => Command::Move {
            to: name(ranked_destinations(state, seat)[0].0),
        },
        Phase::Declaration { .. } => Command::Declare {
            to: name(ranked_destinations(state, seat)[0].0),
        },
        Phase::Negotiation { tie, offers, .. } => {
            let ranked = ranked_destinations(state, seat);
            let (my_best, best_score) = ranked[0];
            // Accept the most attractive offer that is close enough to my best.
            let offer_gain = |o: &super::protocol::Offer| {
                let pay: i64 = o
                    .payments
                    .iter()
                    .filter(|t| t.seat == seat)
                    .map(|t| t.amount)
                    .sum();
                score(state, seat, o.to, true) + pay
            };
            if let Some(o) = offers
                .iter()
                .filter(|o| o.by != seat && !o.accepted_by.contains(&seat))
                .filter(|o| offer_gain(o) >= best_score - 2)
                .max_by_key(|o| (offer_gain(o), std::cmp::Reverse(o.id)))
            {
                return Command::AcceptOffer { offer: o.id };
            }
            if !offers.iter().any(|o| o.by == seat) {
                let others: Vec<Seat> = tie.iter().copied().filter(|&s| s != seat).collect();
                let per = offer_each(state, seat, &ranked, others.len());
                let payments = if per >= 1 {
                    others
                        .iter()
                        .map(|&s| PaymentTerm {
                            seat: s,
                            amount: per,
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                return Command::MakeOffer {
                    to: name(my_best),
                    payments,
                };
            }
            Command::NoAgreement
        }
        Phase::ExtraRound { .. } => match best_bid(&p.horseshoes, ln) {
            Some(horseshoes) if bid_value(&horseshoes) >= ln - 5 => Command::Bid { horseshoes },
            _ => Command::DropOut,
        },
        Phase::IslandIncome { .. } => {
            match best_income(&p.shares, |c| state.chest(state.markers[c.index()])) {
                Some(colour) => Command::TakeIncome { colour },
                None => Command::DeclineIncome,
            }
        }
        Phase::NotStarted | Phase::Resolving | Phase::Finished { .. } => Command::Pass,
    }
}

/// How much the sensible bot wants to keep each colour (by `Colour::index`) in a Kontor
/// exchange: its value, or less than nothing when the ghost ship can reach its ship next.
fn keep_scores(state: &State) -> [i64; 6] {
    let threatened: Vec<Colour> = state
        .destinations()
        .filter_map(|d| board().colour(d))
        .collect();
    Colour::ALL.map(|c| {
        let v = state.value(c);
        if threatened.contains(&c) {
            -2 * v - 1
        } else {
            v
        }
    })
}

/// What the sensible bot offers each other member of a tie of `others + 1`: a quarter of
/// how much it cares (best against worst destination), as far as its coins reach.
fn offer_each(state: &State, seat: Seat, ranked: &[(SpaceId, i64)], others: usize) -> i64 {
    let best = ranked.first().map_or(0, |r| r.1);
    let worst = ranked.last().map_or(0, |r| r.1);
    let care = (best - worst).max(0);
    let coins = state.players[usize::from(seat)].coins;
    (care / 4).min(coins / others.max(1) as i64).max(0)
}

/// The standing orders of an experienced player, played by the sensible bot (for `kontor
/// simulate`). Whenever it looks at the game (its turn, or an occasion to answer ahead), it
/// answers ahead every decision of the round it can decide from its own hand, the lucky
/// number and the board, exactly as it would decide it when asked:
///
/// * its action, once the lucky number is known and before its turn (no condition on the
///   actions before it: the sensible bot's action does not depend on them);
/// * with a Kontor action, the colours to keep; with a bid, where to move the ghost ship,
///   what to declare in a tie, what to offer and which offers to accept in a negotiation,
///   and its extra-round choice (from the hand its bid leaves); with any action, where to
///   move when it wins a dice-off;
/// * once for the game, island income by the `best` rule.
///
/// Nothing else: no order looks at another seat's secret, and the sensible bot reads only
/// what its seat may know.
pub(super) fn sensible_orders(
    state: &State,
    seat: Seat,
    orders: &[Order],
    rng: &mut GameRng,
) -> Vec<Order> {
    let mut next: Vec<Order> = orders.to_vec();
    let mut set = |order: Order| {
        if !next.contains(&order) {
            next.retain(|old| !replaces(&order, old));
            next.push(order);
        }
    };
    let p = &state.players[usize::from(seat)];
    if !p.active() || state.finished() || matches!(state.phase, Phase::NotStarted) {
        return next;
    }
    set(Order::Income {
        rule: IncomeRule::Best,
    });
    let round = state.round;
    // The action: taken, or to be answered ahead now.
    let action = match (p.action, &state.phase) {
        (Some(taken), _) => Some(match taken {
            ActionTaken::Kontor => Command::UseKontor,
            ActionTaken::Smith => Command::UseSmith,
            ActionTaken::Pass => Command::Pass,
            ActionTaken::Bid { .. } => Command::Bid {
                horseshoes: p.bid.clone().unwrap_or_default(),
            },
        }),
        (None, Phase::Action { seat: s }) if *s != seat => {
            let action = sensible_command(state, seat, rng);
            set(Order::Action {
                round,
                action: action.clone(),
                max_bids_before: None,
            });
            Some(action)
        }
        _ => None,
    };
    let Some(action) = action else {
        return next;
    };
    let ranked = ranked_destinations(state, seat);
    let best = name(ranked[0].0);
    set(Order::Move {
        round,
        to: best.clone(),
    });
    match &action {
        Command::UseKontor => {
            let score = keep_scores(state);
            let mut keep = Colour::ALL.to_vec();
            keep.sort_by_key(|&c| std::cmp::Reverse((score[c.index()], c)));
            set(Order::KontorReturn { round, keep });
        }
        Command::Bid { horseshoes } => {
            set(Order::Declare {
                round,
                to: best.clone(),
            });
            // The hand the bid leaves (a bid already placed is out of the hand).
            let mut hand = p.horseshoes.clone();
            if p.action.is_none() {
                for h in horseshoes {
                    if let Some(i) = hand.iter().position(|&x| x == h.value) {
                        hand.remove(i);
                    }
                }
            }
            let ln = i32::from(state.lucky_number);
            let choice = match best_bid(&hand, ln) {
                Some(horseshoes) if bid_value(&horseshoes) >= ln - 5 => {
                    ExtraChoice::Bid { horseshoes }
                }
                _ => ExtraChoice::DropOut,
            };
            set(Order::ExtraRound { round, choice });
            // Offers close enough to its best are accepted (its own acceptance rule: the
            // destination's score plus the payment at least its best score less 2), the
            // most attractive destination first, never one that would bankrupt it; then
            // its own offer, paying each other member what its coins cover even if every
            // player were in the tie.
            let best_score = ranked[0].1;
            for &(to, score) in &ranked {
                let min_payment = best_score - 2 - score;
                if score > -1000 {
                    set(Order::Accept {
                        round,
                        to: name(to),
                        min_payment: min_payment.max(0),
                    });
                }
            }
            set(Order::Offer {
                round,
                to: best,
                each: offer_each(state, seat, &ranked, state.active_count() - 1),
            });
        }
        _ => {}
    }
    next
}
