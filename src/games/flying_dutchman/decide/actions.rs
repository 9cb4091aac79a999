//! The actions of a round (Kontor, smith, bids) and what follows the last of them: the
//! reveal of the bids, and the dice.

use super::super::board::Colour;
use super::super::protocol::{
    ActionTaken, BidHorseshoe, DiceRoll, Event, RevealResult, RevealedBid, bid_value,
};
use super::super::state::{DIE_A, DIE_B, State};
use super::errors::err;
use crate::games::{GameRng, RuleError, Seat};

pub(super) fn roll(rng: &mut GameRng) -> (u8, u8) {
    (DIE_A[rng.index(6)], DIE_B[rng.index(6)])
}

pub(super) fn use_kontor(state: &State, seat: Seat, out: &mut Vec<Event>) -> Result<(), RuleError> {
    if state.players[usize::from(seat)].kontor_cards == 0 {
        return Err(err("no_kontor_card", "You have no Kontor card left."));
    }
    if state.share_stack.len() < 2 {
        return Err(err(
            "share_stack_too_small",
            "The share stack has fewer than two cards.",
        ));
    }
    out.push(Event::KontorUsed {
        seat,
        drawn: Some(state.share_stack.iter().take(2).copied().collect()),
    });
    Ok(())
}

pub(super) fn return_shares(
    state: &State,
    seat: Seat,
    cards: &[Colour],
    rng: &mut GameRng,
    out: &mut Vec<Event>,
) -> Result<(), RuleError> {
    if cards.len() != 2 {
        return Err(err(
            "must_return_two",
            format!("Return exactly two share cards, not {}.", cards.len()),
        ));
    }
    let hand = &state.players[usize::from(seat)].shares;
    for &c in cards {
        let wanted = cards.iter().filter(|&&x| x == c).count();
        let held = hand.iter().filter(|&&x| x == c).count();
        if wanted > held {
            return Err(err(
                "unknown_share_card",
                format!("You hold {held} {} share card(s).", c.name()),
            ));
        }
    }
    out.push(Event::SharesReturned {
        seat,
        cards: Some(cards.to_vec()),
    });
    after_action(state, seat, Latest::Nothing, rng, out);
    Ok(())
}

/// The action just decided (not yet in the state).
pub(super) enum Latest<'a> {
    Nothing,
    Smith,
    Bid(&'a [BidHorseshoe]),
}

/// After `seat`'s action: if everybody has acted, the smith split, the reveal and what
/// follows from it.
pub(super) fn after_action(
    state: &State,
    seat: Seat,
    latest: Latest<'_>,
    rng: &mut GameRng,
    out: &mut Vec<Event>,
) {
    if state.next_active(seat) != state.start_player {
        return;
    }
    // Smith split: the smith players in action order take ⌊P/k⌋ each from the top.
    let is_smith = |s: Seat| {
        if s == seat {
            matches!(latest, Latest::Smith)
        } else {
            state.players[usize::from(s)].action == Some(ActionTaken::Smith)
        }
    };
    let smiths: Vec<Seat> = state.order_from_start().filter(|&s| is_smith(s)).collect();
    if !smiths.is_empty() {
        let pool = &state.pool;
        let each = pool.len() / smiths.len();
        out.push(Event::SmithSplit {
            seats: smiths.clone(),
            each: each as u8,
            left_in_pool: (pool.len() - each * smiths.len()) as u8,
        });
        let mut top = pool.len();
        for &s in &smiths {
            let drawn = pool[top - each..top].to_vec();
            top -= each;
            out.push(Event::HorseshoesDrawn {
                seat: s,
                count: each as u8,
                horseshoes: Some(drawn),
            });
        }
    }
    // Reveal.
    let bids: Vec<RevealedBid> = state
        .order_from_start()
        .filter_map(|s| {
            let horseshoes: &[BidHorseshoe] = if s == seat {
                match latest {
                    Latest::Bid(b) => b,
                    _ => return None,
                }
            } else {
                state.players[usize::from(s)].bid.as_deref()?
            };
            Some(reveal(state, s, horseshoes))
        })
        .collect();
    let result = result_of(&bids);
    let no_valid = result == RevealResult::NoValidBid;
    out.push(Event::BidsRevealed {
        extra_round: false,
        bids,
        dropped_out: Vec::new(),
        result,
    });
    if no_valid {
        let everybody: Vec<Seat> = state.order_from_start().collect();
        out.push(dice_off(everybody, rng));
    }
}

pub(super) fn reveal(state: &State, seat: Seat, horseshoes: &[BidHorseshoe]) -> RevealedBid {
    let value = bid_value(horseshoes);
    RevealedBid {
        seat,
        horseshoes: horseshoes.to_vec(),
        value,
        valid: value <= i32::from(state.lucky_number),
    }
}

/// The best valid bid decides (bids are in seat order from the start player).
pub(super) fn result_of(bids: &[RevealedBid]) -> RevealResult {
    let Some(best) = bids.iter().filter(|b| b.valid).map(|b| b.value).max() else {
        return RevealResult::NoValidBid;
    };
    let seats: Vec<Seat> = bids
        .iter()
        .filter(|b| b.valid && b.value == best)
        .map(|b| b.seat)
        .collect();
    if seats.len() == 1 {
        RevealResult::SoleMover { seat: seats[0] }
    } else {
        RevealResult::Tie { seats }
    }
}

/// Everybody in `seats` rolls both dice; ties re-roll among the tied until one is highest.
pub(super) fn dice_off(seats: Vec<Seat>, rng: &mut GameRng) -> Event {
    let mut contenders = seats.clone();
    let mut rolls = Vec::new();
    loop {
        let this: Vec<DiceRoll> = contenders
            .iter()
            .map(|&seat| {
                let (die_a, die_b) = roll(rng);
                DiceRoll {
                    seat,
                    die_a,
                    die_b,
                    total: die_a + die_b,
                }
            })
            .collect();
        let best = this.iter().map(|r| r.total).max().unwrap_or(0);
        contenders = this
            .iter()
            .filter(|r| r.total == best)
            .map(|r| r.seat)
            .collect();
        rolls.push(this);
        if contenders.len() <= 1 {
            break;
        }
    }
    Event::DiceOff {
        seats,
        rolls,
        winner: contenders[0],
    }
}
