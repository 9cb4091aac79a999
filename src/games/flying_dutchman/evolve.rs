//! `evolve`: applies one event to the state, in place. Never random, never fails.

use super::board::{SpaceKind, board};
use super::protocol::{ActionTaken, Event, ExtraChoice, RevealResult};
use super::state::{Phase, Player, START_KONTOR_CARDS, START_SMITH_CARDS, State};
use crate::games::Seat;

pub(super) fn evolve(state: &mut State, event: &Event) {
    match event {
        Event::GameStarted {
            options,
            seats,
            start_player,
            ducats,
        } => {
            let start = options.value_track.start();
            *state = State {
                options: *options,
                players: (0..*seats)
                    .map(|_| Player {
                        coins: *ducats,
                        smith_cards: START_SMITH_CARDS,
                        kontor_cards: START_KONTOR_CARDS,
                        ..Player::default()
                    })
                    .collect(),
                start_player: *start_player,
                markers: [start; 6],
                round_marker: start,
                ghost: Some(board().start()),
                phase: Phase::Resolving,
                ..State::default()
            };
        }
        Event::Dealt {
            seat,
            shares,
            horseshoes,
            ..
        } => {
            let p = player(state, *seat);
            p.shares = shares.clone().unwrap_or_default();
            p.horseshoes = horseshoes.clone().unwrap_or_default();
            p.horseshoes.sort_unstable();
        }
        Event::HiddenPilesFormed {
            share_stack,
            pool,
            unused,
            ..
        } => {
            state.share_stack = share_stack.iter().flatten().copied().collect();
            state.pool = pool.clone().unwrap_or_default();
            state.unused = unused.clone().unwrap_or_default();
        }
        Event::RoundStarted {
            round,
            start_player,
            die_a,
            die_b,
            lucky_number,
        } => {
            state.round = *round;
            state.start_player = *start_player;
            state.dice = [*die_a, *die_b];
            state.lucky_number = *lucky_number;
            for p in &mut state.players {
                p.action = None;
                p.bid = None;
            }
            state.last_reveal.clear();
            state.phase = Phase::Action {
                seat: *start_player,
            };
        }
        Event::KontorUsed { seat, drawn } => {
            let drawn = drawn.as_deref().unwrap_or_default();
            for _ in drawn {
                state.share_stack.pop_front();
            }
            let p = player(state, *seat);
            p.kontor_cards = p.kontor_cards.saturating_sub(1);
            p.shares.extend_from_slice(drawn);
            p.action = Some(ActionTaken::Kontor);
            state.phase = Phase::KontorReturn { seat: *seat };
        }
        Event::SharesReturned { seat, cards } => {
            let cards = cards.as_deref().unwrap_or_default();
            let p = player(state, *seat);
            for card in cards {
                if let Some(i) = p.shares.iter().position(|c| c == card) {
                    p.shares.remove(i);
                }
            }
            state.share_stack.extend(cards.iter().copied());
            advance_action(state, *seat);
        }
        Event::SmithUsed { seat } => {
            let p = player(state, *seat);
            p.smith_cards = p.smith_cards.saturating_sub(1);
            p.action = Some(ActionTaken::Smith);
            advance_action(state, *seat);
        }
        Event::BidPlaced {
            seat,
            size,
            horseshoes,
        } => {
            let p = player(state, *seat);
            if let Some(bid) = horseshoes {
                for h in bid {
                    take_horseshoe(&mut p.horseshoes, h.value);
                }
                p.bid = Some(bid.clone());
            }
            p.action = Some(ActionTaken::Bid { size: *size });
            advance_action(state, *seat);
        }
        Event::Passed { seat } => {
            player(state, *seat).action = Some(ActionTaken::Pass);
            advance_action(state, *seat);
        }
        Event::SmithSplit { .. } => {}
        Event::HorseshoesDrawn {
            seat, horseshoes, ..
        } => {
            let drawn = horseshoes.as_deref().unwrap_or_default();
            for &h in drawn {
                if let Some(i) = state.pool.iter().rposition(|&x| x == h) {
                    state.pool.remove(i);
                }
            }
            let p = player(state, *seat);
            p.horseshoes.extend_from_slice(drawn);
            p.horseshoes.sort_unstable();
        }
        Event::BidsRevealed { bids, result, .. } => {
            for bid in bids {
                state.spent.extend(bid.horseshoes.iter().map(|h| h.value));
            }
            for p in &mut state.players {
                p.bid = None;
            }
            state.last_reveal.clone_from(bids);
            state.phase = match result {
                RevealResult::SoleMover { seat } => Phase::Move {
                    seat: *seat,
                    reason: super::protocol::MoveReason::SoleBid,
                },
                RevealResult::Tie { seats } => Phase::Declaration {
                    tie: seats.clone(),
                    declared: Vec::with_capacity(seats.len()),
                },
                RevealResult::NoValidBid => Phase::Resolving,
            };
        }
        Event::DiceOff { winner, .. } => {
            state.phase = Phase::Move {
                seat: *winner,
                reason: super::protocol::MoveReason::DiceOff,
            };
        }
        Event::Declared { to, .. } => {
            if let Phase::Declaration { declared, .. } = &mut state.phase {
                declared.push(*to);
            }
        }
        Event::NegotiationStarted { seats, .. } => {
            let declared = match &mut state.phase {
                Phase::Declaration { declared, .. } => std::mem::take(declared),
                _ => Vec::new(),
            };
            state.negotiations += 1;
            state.phase = Phase::Negotiation {
                tie: seats.clone(),
                declared,
                offers: Vec::new(),
                next_offer: 1,
            };
        }
        Event::OfferMade { offer } => {
            if let Phase::Negotiation {
                offers, next_offer, ..
            } = &mut state.phase
            {
                *next_offer = offer.id + 1;
                offers.push(offer.clone());
            }
        }
        Event::OfferAccepted { seat, offer } => {
            if let Some(o) = offer_mut(state, *offer) {
                o.rejected_by.retain(|s| s != seat);
                if !o.accepted_by.contains(seat) {
                    o.accepted_by.push(*seat);
                }
            }
        }
        Event::OfferRejected { seat, offer } => {
            if let Some(o) = offer_mut(state, *offer) {
                o.accepted_by.retain(|s| s != seat);
                if !o.rejected_by.contains(seat) {
                    o.rejected_by.push(*seat);
                }
            }
        }
        Event::OfferWithdrawn { offer, .. } => {
            if let Phase::Negotiation { offers, .. } = &mut state.phase {
                offers.retain(|o| o.id != *offer);
            }
        }
        Event::AgreementReached { transfers, .. } => {
            for t in transfers {
                player(state, t.from).coins -= t.amount;
                player(state, t.to).coins += t.amount;
            }
            state.phase = Phase::Resolving;
        }
        Event::NoAgreement { .. } => {
            state.phase = Phase::Resolving;
        }
        Event::ExtraRoundStarted { seats } => {
            state.phase = Phase::ExtraRound {
                tie: seats.clone(),
                choices: vec![None; seats.len()],
            };
        }
        Event::ExtraChoiceMade { seat, choice } => {
            if let Some(ExtraChoice::Bid { horseshoes }) = choice {
                let p = player(state, *seat);
                for h in horseshoes {
                    take_horseshoe(&mut p.horseshoes, h.value);
                }
            }
            if let Phase::ExtraRound { tie, choices } = &mut state.phase
                && let Some(i) = tie.iter().position(|s| s == seat)
            {
                choices[i] = choice.clone();
            }
        }
        Event::GhostShipMoved {
            from, to, movers, ..
        } => {
            state.previous = Some(*from);
            state.ghost = Some(*to);
            state.phase = if board().kind(*to) == SpaceKind::Island {
                Phase::IslandIncome {
                    movers: movers.clone(),
                    decided: vec![false; movers.len()],
                }
            } else {
                Phase::Resolving
            };
        }
        Event::ShipHit {
            colour, payments, ..
        } => {
            for pay in payments {
                if !pay.bankrupt {
                    player(state, pay.seat).coins -= pay.due;
                    state.paid_to_bank += pay.due;
                }
            }
            state.markers[colour.index()] = 0;
            let last = state.options.value_track.last();
            for m in &mut state.markers {
                *m = (*m + 1).min(last);
            }
            state.round_marker = (state.round_marker + 1).min(last);
            state.ship_landings += 1;
        }
        Event::Bankrupt { seat, .. } => {
            let landings = state.ship_landings;
            let p = player(state, *seat);
            let lost = p.coins;
            p.coins = 0;
            p.smith_cards = 0;
            p.kontor_cards = 0;
            p.bankrupt_at = Some(landings);
            state.paid_to_bank += lost;
        }
        Event::IncomeTaken { seat, amount, .. } => {
            player(state, *seat).coins += amount;
            state.taken_from_bank += amount;
            mark_decided(state, *seat);
        }
        Event::IncomeDeclined { seat } => mark_decided(state, *seat),
        Event::PoolRefilled { pool, .. } => {
            state.pool = pool.clone().unwrap_or_default();
            state.spent.clear();
        }
        Event::GameEnded { reason, .. } => {
            state.phase = Phase::Finished { reason: *reason };
        }
    }
}

fn player(state: &mut State, seat: Seat) -> &mut Player {
    &mut state.players[usize::from(seat)]
}

fn take_horseshoe(hand: &mut Vec<u8>, value: u8) {
    if let Some(i) = hand.iter().position(|&h| h == value) {
        hand.remove(i);
    }
}

fn offer_mut(state: &mut State, id: u32) -> Option<&mut super::protocol::Offer> {
    match &mut state.phase {
        Phase::Negotiation { offers, .. } => offers.iter_mut().find(|o| o.id == id),
        _ => None,
    }
}

fn mark_decided(state: &mut State, seat: Seat) {
    if let Phase::IslandIncome { movers, decided } = &mut state.phase
        && let Some(i) = movers.iter().position(|&m| m == seat)
    {
        decided[i] = true;
    }
}

/// After `seat`'s action: the next active player clockwise, or (back at the start player)
/// the resolution, whose events follow.
fn advance_action(state: &mut State, seat: Seat) {
    let next = state.next_active(seat);
    state.phase = if next == state.start_player {
        Phase::Resolving
    } else {
        Phase::Action { seat: next }
    };
}
