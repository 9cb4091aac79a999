//! `setup` and `decide`: validation and the events a command causes.
//!
//! `decide` never clones the state. A command that completes a step (the last action of a
//! round, the last extra-round choice, a move) also causes the automatic steps that follow
//! (smith split, reveal, dice-off, landing, clean-up, next round); those are computed from the
//! state plus a small [`Proj`] of the few numbers the earlier events of the same command change.

mod actions;
mod errors;
mod landing;
mod ties;
mod validation;

use super::board::{Colour, board};
use super::protocol::{Command, Event, ExtraChoice, MoveReason, Options};
use super::state::{ALL_HORSESHOES, HORSESHOES_DEALT, PASS_LIMIT, Phase, SHARES_DEALT, State};
use crate::games::{Actor, GameRng, RuleError, Seat};
use actions::{Latest, after_action, return_shares, roll, use_kontor};
use errors::{command_name, err};
use landing::{after_income, land};
use ties::{extra_choice, negotiate};
use validation::destination;
// Standing orders check a bid like the action (`orders.rs`).
pub(super) use validation::validate_bid;

pub use errors::ERROR_CODES;
pub(super) use landing::{Proj, scores};

pub(super) fn setup(options: &Options, seats: u8, rng: &mut GameRng) -> Vec<Event> {
    let n = usize::from(seats);
    let start_player = rng.index(n) as Seat;
    let mut horseshoes = ALL_HORSESHOES.to_vec();
    rng.shuffle(&mut horseshoes);
    let mut shares: Vec<Colour> = Colour::ALL
        .iter()
        .flat_map(|&c| std::iter::repeat_n(c, n - 1))
        .collect();
    rng.shuffle(&mut shares);

    let mut events = Vec::with_capacity(n + 3);
    events.push(Event::GameStarted {
        options: *options,
        seats,
        start_player,
        ducats: options.edition.starting_ducats(),
    });
    for seat in 0..n {
        let mut hand = horseshoes[seat * HORSESHOES_DEALT..(seat + 1) * HORSESHOES_DEALT].to_vec();
        hand.sort_unstable();
        events.push(Event::Dealt {
            seat: seat as Seat,
            share_count: SHARES_DEALT as u8,
            horseshoe_count: HORSESHOES_DEALT as u8,
            shares: Some(shares[seat * SHARES_DEALT..(seat + 1) * SHARES_DEALT].to_vec()),
            horseshoes: Some(hand),
        });
    }
    let dealt = n * HORSESHOES_DEALT;
    let pool = horseshoes[dealt..dealt + n].to_vec();
    let unused = horseshoes[dealt + n..].to_vec();
    let stack = shares[n * SHARES_DEALT..].to_vec();
    events.push(Event::HiddenPilesFormed {
        share_stack_size: stack.len() as u8,
        pool_size: pool.len() as u8,
        unused_size: unused.len() as u8,
        share_stack: Some(stack),
        pool: Some(pool),
        unused: Some(unused),
    });
    let (die_a, die_b) = roll(rng);
    events.push(Event::RoundStarted {
        round: 1,
        start_player,
        die_a,
        die_b,
        lucky_number: die_a + die_b,
    });
    events
}

/// Whether `seat` is among those who must (or may) act now.
pub(super) fn is_pending(state: &State, seat: Seat) -> bool {
    if !state.active(seat) {
        return false;
    }
    match &state.phase {
        Phase::Action { seat: s }
        | Phase::KontorReturn { seat: s }
        | Phase::Move { seat: s, .. } => *s == seat,
        Phase::Declaration { tie, declared } => tie.get(declared.len()) == Some(&seat),
        Phase::Negotiation { tie, .. } => tie.contains(&seat),
        Phase::ExtraRound { tie, choices } => tie
            .iter()
            .zip(choices)
            .any(|(&s, c)| s == seat && c.is_none()),
        Phase::IslandIncome { movers, decided } => {
            movers.iter().zip(decided).any(|(&s, &d)| s == seat && !d)
        }
        Phase::NotStarted | Phase::Resolving | Phase::Finished { .. } => false,
    }
}

pub(super) fn decide(
    state: &State,
    actor: Actor,
    command: &Command,
    rng: &mut GameRng,
) -> Result<Vec<Event>, RuleError> {
    match state.phase {
        Phase::NotStarted => return Err(err("game_not_started", "The game has not started.")),
        Phase::Finished { .. } => return Err(err("game_over", "The game has ended.")),
        _ => {}
    }
    let seat = match actor {
        Actor::System => return decide_system(state, command),
        Actor::Seat(seat) => seat,
    };
    if usize::from(seat) >= state.players.len() {
        return Err(err("unknown_seat", format!("There is no seat {seat}.")));
    }
    if !state.active(seat) {
        return Err(err(
            "not_your_turn",
            format!("Seat {seat} went bankrupt and has left the game."),
        ));
    }
    if !is_pending(state, seat) {
        return Err(err(
            "not_your_turn",
            format!("It is not seat {seat}'s turn to act."),
        ));
    }
    let mut out = Vec::new();
    match (&state.phase, command) {
        (Phase::Action { .. }, Command::UseKontor) => use_kontor(state, seat, &mut out)?,
        (Phase::Action { .. }, Command::UseSmith) => {
            if state.players[usize::from(seat)].smith_cards == 0 {
                return Err(err("no_smith_card", "You have no smith card left."));
            }
            out.push(Event::SmithUsed { seat });
            after_action(state, seat, Latest::Smith, rng, &mut out);
        }
        (Phase::Action { .. }, Command::Bid { horseshoes }) => {
            validate_bid(&state.players[usize::from(seat)].horseshoes, horseshoes)?;
            out.push(Event::BidPlaced {
                seat,
                size: horseshoes.len() as u8,
                horseshoes: Some(horseshoes.clone()),
            });
            after_action(state, seat, Latest::Bid(horseshoes), rng, &mut out);
        }
        (Phase::Action { .. }, Command::Pass) => {
            let held = state.players[usize::from(seat)].horseshoes.len();
            if held > PASS_LIMIT {
                return Err(err(
                    "too_many_horseshoes_to_pass",
                    format!("You hold {held} horseshoes; passing needs {PASS_LIMIT} or fewer."),
                ));
            }
            out.push(Event::Passed { seat });
            after_action(state, seat, Latest::Nothing, rng, &mut out);
        }
        (Phase::KontorReturn { .. }, Command::ReturnShares { cards }) => {
            return_shares(state, seat, cards, rng, &mut out)?;
        }
        (Phase::Move { reason, .. }, Command::Move { to }) => {
            let to = destination(state, to)?;
            let from = state.ghost.unwrap_or_else(|| board().start());
            out.push(Event::GhostShipMoved {
                from,
                to,
                movers: vec![seat],
                reason: *reason,
            });
            land(state, to, &[seat], Proj::of(state), rng, &mut out);
        }
        (Phase::Declaration { tie, declared }, Command::Declare { to }) => {
            let to = destination(state, to)?;
            out.push(Event::Declared { seat, to });
            if declared.len() + 1 == tie.len() {
                if declared.iter().all(|&d| d == to) {
                    let from = state.ghost.unwrap_or_else(|| board().start());
                    out.push(Event::GhostShipMoved {
                        from,
                        to,
                        movers: tie.clone(),
                        reason: MoveReason::Declaration,
                    });
                    land(state, to, tie, Proj::of(state), rng, &mut out);
                } else {
                    out.push(Event::NegotiationStarted {
                        seats: tie.clone(),
                        deadline_secs: state.options.negotiation_deadline_secs,
                    });
                }
            }
        }
        (Phase::Negotiation { .. }, _) => negotiate(state, seat, command, rng, &mut out)?,
        (Phase::ExtraRound { .. }, Command::Bid { horseshoes }) => {
            validate_bid(&state.players[usize::from(seat)].horseshoes, horseshoes)?;
            let choice = ExtraChoice::Bid {
                horseshoes: horseshoes.clone(),
            };
            extra_choice(state, seat, choice, rng, &mut out);
        }
        (Phase::ExtraRound { .. }, Command::DropOut) => {
            extra_choice(state, seat, ExtraChoice::DropOut, rng, &mut out);
        }
        (Phase::IslandIncome { .. }, Command::TakeIncome { colour }) => {
            if state.players[usize::from(seat)].count(*colour) == 0 {
                return Err(err(
                    "unknown_share_card",
                    format!("You hold no {} share card.", colour.name()),
                ));
            }
            let amount = state.value(*colour);
            out.push(Event::IncomeTaken {
                seat,
                colour: *colour,
                amount,
            });
            let mut proj = Proj::of(state);
            proj.coins[usize::from(seat)] += amount;
            after_income(state, seat, proj, rng, &mut out);
        }
        (Phase::IslandIncome { .. }, Command::DeclineIncome) => {
            out.push(Event::IncomeDeclined { seat });
            after_income(state, seat, Proj::of(state), rng, &mut out);
        }
        (phase, command) => {
            return Err(err(
                "wrong_step",
                format!(
                    "{} is not possible now: {}.",
                    command_name(command),
                    step_description(phase)
                ),
            ));
        }
    }
    Ok(out)
}

fn decide_system(state: &State, command: &Command) -> Result<Vec<Event>, RuleError> {
    match (&state.phase, command) {
        (Phase::Negotiation { tie, .. }, Command::NoAgreement) => Ok(vec![
            Event::NoAgreement { seat: None },
            Event::ExtraRoundStarted { seats: tie.clone() },
        ]),
        _ => Err(err(
            "not_your_turn",
            "The platform may only end a negotiation whose deadline passed.",
        )),
    }
}

fn step_description(phase: &Phase) -> &'static str {
    match phase {
        Phase::Action { .. } => "choose an action (use_kontor, use_smith, bid or pass)",
        Phase::KontorReturn { .. } => "return two share cards (return_shares)",
        Phase::Move { .. } => "move the ghost ship (move)",
        Phase::Declaration { .. } => "declare a destination (declare)",
        Phase::Negotiation { .. } => "negotiate",
        Phase::ExtraRound { .. } => "bid again or drop out (bid, drop_out)",
        Phase::IslandIncome { .. } => "take island income or decline it",
        Phase::NotStarted | Phase::Resolving | Phase::Finished { .. } => "nothing to do",
    }
}
