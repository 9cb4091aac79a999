//! Validation helpers: a bid against a hand, a declared destination.

use super::super::board::{SpaceId, board};
use super::super::protocol::{BidHorseshoe, Sign};
use super::super::state::{State, is_gold, is_horseshoe};
use super::errors::err;
use crate::games::RuleError;

/// Checks a bid against a hand (sorted faces).
pub(crate) fn validate_bid(hand: &[u8], bid: &[BidHorseshoe]) -> Result<(), RuleError> {
    if bid.is_empty() {
        return Err(err("empty_bid", "A bid needs at least one horseshoe."));
    }
    if let Some(h) = bid.iter().find(|h| !is_horseshoe(h.value)) {
        return Err(err(
            "unknown_horseshoe",
            format!(
                "There is no horseshoe {} (silver 1, 2, 10, 20; gold 21 to 48).",
                h.value
            ),
        ));
    }
    if bid.iter().filter(|h| is_gold(h.value)).count() > 1 {
        return Err(err(
            "two_gold_horseshoes",
            "A bid may contain at most one gold horseshoe.",
        ));
    }
    if bid
        .iter()
        .any(|h| is_gold(h.value) && h.sign == Sign::Minus)
    {
        return Err(err("negative_gold", "A gold horseshoe always counts plus."));
    }
    for h in bid {
        let wanted = bid.iter().filter(|x| x.value == h.value).count();
        let held = hand.iter().filter(|&&x| x == h.value).count();
        if wanted > held {
            return Err(err(
                "unknown_horseshoe",
                format!(
                    "You hold {held} horseshoe(s) of {} but bid {wanted}.",
                    h.value
                ),
            ));
        }
    }
    Ok(())
}

/// Parses and checks a destination of the ghost ship.
pub(super) fn destination(state: &State, name: &str) -> Result<SpaceId, RuleError> {
    let to = board()
        .find(name)
        .ok_or_else(|| err("unknown_space", format!("There is no space {name}.")))?;
    let here = state.ghost.unwrap_or_else(|| board().start());
    if !board().adjacent(here).contains(&to) {
        return Err(err(
            "not_adjacent",
            format!("{name} is not one line away from {}.", here.name()),
        ));
    }
    if Some(to) == state.previous {
        return Err(err(
            "backtrack_not_allowed",
            format!("The ghost ship just came from {name}; it may not go back."),
        ));
    }
    Ok(to)
}
