//! Tie resolution: the negotiation between tied seats, its agreements, and the extra round.

use super::super::board::{SpaceId, board};
use super::super::protocol::{
    Command, Event, ExtraChoice, MoveReason, Offer, PaymentTerm, RevealResult, Transfer,
};
use super::super::state::{MAX_STANDING_OFFERS, Phase, State};
use super::actions::{dice_off, result_of, reveal};
use super::errors::{command_name, err};
use super::landing::{Proj, land};
use super::validation::destination;
use crate::games::{GameRng, RuleError, Seat};

pub(super) fn negotiate(
    state: &State,
    seat: Seat,
    command: &Command,
    rng: &mut GameRng,
    out: &mut Vec<Event>,
) -> Result<(), RuleError> {
    let Phase::Negotiation {
        tie,
        offers,
        next_offer,
        ..
    } = &state.phase
    else {
        unreachable!("negotiate is called in a negotiation");
    };
    let find = |id: u32| {
        offers
            .iter()
            .find(|o| o.id == id)
            .ok_or_else(|| err("unknown_offer", format!("There is no standing offer {id}.")))
    };
    match command {
        Command::MakeOffer { to, payments } => {
            let to = destination(state, to)?;
            check_payments(state, seat, tie, payments)?;
            let mine = offers.iter().filter(|o| o.by == seat).count();
            if mine >= MAX_STANDING_OFFERS {
                return Err(err(
                    "too_many_offers",
                    format!("You already have {mine} standing offers; withdraw one first."),
                ));
            }
            // Saturating: amounts come from the client, and a wrapped sum must never pass
            // for a small one (coins are never negative, so a saturated sum is refused).
            let promised: i64 = offers
                .iter()
                .filter(|o| o.by == seat && o.to == to)
                .flat_map(|o| o.payments.iter())
                .chain(payments.iter())
                .fold(0i64, |sum, p| sum.saturating_add(p.amount));
            let coins = state.players[usize::from(seat)].coins;
            if promised > coins {
                return Err(err(
                    "offer_exceeds_coins",
                    format!(
                        "Your offers for {} would promise {promised} ducats; you hold {coins}.",
                        to.name()
                    ),
                ));
            }
            let offer = Offer {
                id: *next_offer,
                by: seat,
                to,
                payments: payments.clone(),
                accepted_by: vec![seat],
                rejected_by: Vec::new(),
            };
            let agreed = agreement(tie, offers, to, Change::New(&offer));
            out.push(Event::OfferMade { offer });
            if let Some(transfers) = agreed {
                agree(state, tie, to, transfers, rng, out);
            }
        }
        Command::AcceptOffer { offer } => {
            let o = find(*offer)?;
            if o.by == seat {
                return Err(err(
                    "own_offer",
                    "You made this offer; it is yours already.",
                ));
            }
            if o.accepted_by.contains(&seat) {
                return Err(err(
                    "already_accepted",
                    "You have accepted this offer already.",
                ));
            }
            let agreed = agreement(tie, offers, o.to, Change::Accept { offer: o.id, seat });
            out.push(Event::OfferAccepted {
                seat,
                offer: *offer,
            });
            if let Some(transfers) = agreed {
                agree(state, tie, o.to, transfers, rng, out);
            }
        }
        Command::RejectOffer { offer } => {
            let o = find(*offer)?;
            if o.by == seat {
                return Err(err(
                    "own_offer",
                    "You made this offer; withdraw it instead.",
                ));
            }
            if o.rejected_by.contains(&seat) {
                return Err(err(
                    "already_rejected",
                    "You have rejected this offer already.",
                ));
            }
            out.push(Event::OfferRejected {
                seat,
                offer: *offer,
            });
        }
        Command::WithdrawOffer { offer } => {
            let o = find(*offer)?;
            if o.by != seat {
                return Err(err(
                    "not_your_offer",
                    format!("Offer {} was made by seat {}.", o.id, o.by),
                ));
            }
            out.push(Event::OfferWithdrawn {
                seat,
                offer: *offer,
            });
        }
        Command::NoAgreement => {
            out.push(Event::NoAgreement { seat: Some(seat) });
            out.push(Event::ExtraRoundStarted { seats: tie.clone() });
        }
        other => {
            return Err(err(
                "wrong_step",
                format!(
                    "{} is not possible now: the tied players negotiate (make_offer, \
                     accept_offer, reject_offer, withdraw_offer, no_agreement).",
                    command_name(other)
                ),
            ));
        }
    }
    Ok(())
}

pub(super) fn check_payments(
    state: &State,
    seat: Seat,
    tie: &[Seat],
    payments: &[PaymentTerm],
) -> Result<(), RuleError> {
    for (i, p) in payments.iter().enumerate() {
        if p.seat == seat {
            return Err(err("payment_to_self", "An offer cannot pay its own maker."));
        }
        if !tie.contains(&p.seat) {
            return Err(err(
                "payee_not_in_tie",
                format!("Seat {} is not in the tie.", p.seat),
            ));
        }
        if p.amount < 1 {
            return Err(err(
                "invalid_amount",
                format!("A payment must be at least 1 ducat, not {}.", p.amount),
            ));
        }
        if payments[..i].iter().any(|q| q.seat == p.seat) {
            return Err(err(
                "duplicate_payee",
                format!("Seat {} is named twice.", p.seat),
            ));
        }
    }
    let _ = state;
    Ok(())
}

/// A change to the offers about to happen (not yet in the state).
pub(super) enum Change<'a> {
    New(&'a Offer),
    Accept { offer: u32, seat: Seat },
}

/// Agreement on `to`: every member of the tie accepts some standing offer for `to`. Then the
/// payments of those offers are made to the payees who accepted them.
pub(super) fn agreement(
    tie: &[Seat],
    offers: &[Offer],
    to: SpaceId,
    change: Change<'_>,
) -> Option<Vec<Transfer>> {
    let extra = match change {
        Change::New(o) => Some(o),
        Change::Accept { .. } => None,
    };
    let accepts = |o: &Offer, s: Seat| {
        o.accepted_by.contains(&s)
            || matches!(change, Change::Accept { offer, seat } if offer == o.id && seat == s)
    };
    let for_to = || offers.iter().chain(extra).filter(|o| o.to == to);
    if !tie.iter().all(|&m| for_to().any(|o| accepts(o, m))) {
        return None;
    }
    Some(
        for_to()
            .flat_map(|o| {
                o.payments
                    .iter()
                    .filter(|p| accepts(o, p.seat))
                    .map(|p| Transfer {
                        from: o.by,
                        to: p.seat,
                        amount: p.amount,
                    })
            })
            .collect(),
    )
}

pub(super) fn agree(
    state: &State,
    tie: &[Seat],
    to: SpaceId,
    transfers: Vec<Transfer>,
    rng: &mut GameRng,
    out: &mut Vec<Event>,
) {
    let mut proj = Proj::of(state);
    for t in &transfers {
        proj.coins[usize::from(t.from)] -= t.amount;
        proj.coins[usize::from(t.to)] += t.amount;
    }
    out.push(Event::AgreementReached { to, transfers });
    let from = state.ghost.unwrap_or_else(|| board().start());
    out.push(Event::GhostShipMoved {
        from,
        to,
        movers: tie.to_vec(),
        reason: MoveReason::Agreement,
    });
    land(state, to, tie, proj, rng, out);
}

pub(super) fn extra_choice(
    state: &State,
    seat: Seat,
    choice: ExtraChoice,
    rng: &mut GameRng,
    out: &mut Vec<Event>,
) {
    let Phase::ExtraRound { tie, choices } = &state.phase else {
        unreachable!("extra_choice is called in an extra round");
    };
    let last = choices
        .iter()
        .zip(tie)
        .all(|(c, &s)| c.is_some() || s == seat);
    if !last {
        out.push(Event::ExtraChoiceMade {
            seat,
            choice: Some(choice),
        });
        return;
    }
    // The last choice: reveal in seat order from the start player.
    let mut order = tie.clone();
    state.sort_from_start(&mut order);
    let mut bids = Vec::new();
    let mut dropped_out = Vec::new();
    for &s in &order {
        let c = if s == seat {
            &choice
        } else {
            let i = tie
                .iter()
                .position(|&t| t == s)
                .expect("a member of the tie");
            choices[i].as_ref().expect("everybody else has chosen")
        };
        match c {
            ExtraChoice::DropOut => dropped_out.push(s),
            ExtraChoice::Bid { horseshoes } => bids.push(reveal(state, s, horseshoes)),
        }
    }
    out.push(Event::ExtraChoiceMade {
        seat,
        choice: Some(choice),
    });
    let result = result_of(&bids);
    let no_valid = result == RevealResult::NoValidBid;
    out.push(Event::BidsRevealed {
        extra_round: true,
        bids,
        dropped_out,
        result,
    });
    if no_valid {
        out.push(dice_off(order, rng));
    }
}
