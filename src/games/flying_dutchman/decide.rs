//! `setup` and `decide`: validation and the events a command causes.
//!
//! `decide` never clones the state. A command that completes a step (the last action of a
//! round, the last extra-round choice, a move) also causes the automatic steps that follow
//! (smith split, reveal, dice-off, landing, clean-up, next round); those are computed from the
//! state plus a small [`Proj`] of the few numbers the earlier events of the same command change.

use super::board::{Colour, SpaceId, SpaceKind, board};
use super::protocol::{
    ActionTaken, BidHorseshoe, Command, DiceRoll, EndReason, Event, ExtraChoice, MoveReason, Offer,
    Options, PaymentTerm, RevealResult, RevealedBid, ShipPayment, Sign, Transfer, bid_value,
};
use super::state::{
    ALL_HORSESHOES, DIE_A, DIE_B, HORSESHOES_DEALT, MAX_STANDING_OFFERS, PASS_LIMIT, Phase,
    SHARES_DEALT, State, is_gold, is_horseshoe,
};
use crate::games::{Actor, GameRng, RuleError, Seat};

/// Every error code `decide` can return, with its meaning.
pub const ERROR_CODES: &[(&str, &str)] = &[
    ("game_not_started", "The game has not been set up yet."),
    ("game_over", "The game has ended; no more commands."),
    ("unknown_seat", "There is no such seat at this table."),
    (
        "not_your_turn",
        "This seat may not act now (another seat's turn, already chosen, or out of the game); \
         the platform may only end a negotiation.",
    ),
    (
        "wrong_step",
        "This command does not fit the current step of the round.",
    ),
    (
        "too_many_horseshoes_to_pass",
        "Passing is allowed only with 4 or fewer horseshoes.",
    ),
    ("no_kontor_card", "A Kontor exchange needs a Kontor card."),
    ("no_smith_card", "The smith action needs a smith card."),
    (
        "share_stack_too_small",
        "The share stack has fewer than two cards to draw.",
    ),
    (
        "must_return_two",
        "A Kontor exchange returns exactly two share cards.",
    ),
    (
        "unknown_share_card",
        "The seat does not hold that share card.",
    ),
    ("empty_bid", "A bid needs at least one horseshoe."),
    (
        "two_gold_horseshoes",
        "A bid may contain at most one gold horseshoe.",
    ),
    ("negative_gold", "A gold horseshoe always counts plus."),
    (
        "unknown_horseshoe",
        "The seat does not hold that horseshoe (or not that many of that face).",
    ),
    (
        "unknown_space",
        "There is no space with that id on the board.",
    ),
    (
        "not_adjacent",
        "The ghost ship moves one line: the destination is not adjacent.",
    ),
    (
        "backtrack_not_allowed",
        "The ghost ship may not return to the space it just came from.",
    ),
    (
        "payee_not_in_tie",
        "Offers may pay only other players of the tie.",
    ),
    ("payment_to_self", "An offer cannot pay its own maker."),
    ("duplicate_payee", "An offer names each payee at most once."),
    ("invalid_amount", "A payment must be at least one ducat."),
    (
        "offer_exceeds_coins",
        "Nobody may promise more than they hold (over all their offers for that destination).",
    ),
    (
        "too_many_offers",
        "A player may have at most 5 standing offers; withdraw one first.",
    ),
    ("unknown_offer", "No standing offer has that number."),
    ("own_offer", "The maker of an offer already accepts it."),
    ("not_your_offer", "Only the maker may withdraw an offer."),
    (
        "already_accepted",
        "The seat has already accepted that offer.",
    ),
    (
        "already_rejected",
        "The seat has already rejected that offer.",
    ),
    (
        "order_not_now",
        "A standing order for another round, for a decision already taken, or from a seat \
         out of the game.",
    ),
    (
        "invalid_order",
        "A standing order that could never play (an action order for a command that is no \
         action, a Kontor ranking that is not all six colours, an empty income list).",
    ),
];

fn err(code: &'static str, message: impl Into<String>) -> RuleError {
    debug_assert!(ERROR_CODES.iter().any(|(c, _)| *c == code), "{code}");
    RuleError::new(code, message)
}

fn roll(rng: &mut GameRng) -> (u8, u8) {
    (DIE_A[rng.index(6)], DIE_B[rng.index(6)])
}

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

pub(super) fn command_name(command: &Command) -> &'static str {
    match command {
        Command::UseKontor => "use_kontor",
        Command::ReturnShares { .. } => "return_shares",
        Command::UseSmith => "use_smith",
        Command::Bid { .. } => "bid",
        Command::Pass => "pass",
        Command::Move { .. } => "move",
        Command::Declare { .. } => "declare",
        Command::MakeOffer { .. } => "make_offer",
        Command::AcceptOffer { .. } => "accept_offer",
        Command::RejectOffer { .. } => "reject_offer",
        Command::WithdrawOffer { .. } => "withdraw_offer",
        Command::NoAgreement => "no_agreement",
        Command::DropOut => "drop_out",
        Command::TakeIncome { .. } => "take_income",
        Command::DeclineIncome => "decline_income",
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

// ---------------------------------------------------------------- validation helpers

/// Checks a bid against a hand (sorted faces).
pub(super) fn validate_bid(hand: &[u8], bid: &[BidHorseshoe]) -> Result<(), RuleError> {
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
fn destination(state: &State, name: &str) -> Result<SpaceId, RuleError> {
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

// ---------------------------------------------------------------- actions

fn use_kontor(state: &State, seat: Seat, out: &mut Vec<Event>) -> Result<(), RuleError> {
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

fn return_shares(
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
enum Latest<'a> {
    Nothing,
    Smith,
    Bid(&'a [BidHorseshoe]),
}

/// After `seat`'s action: if everybody has acted, the smith split, the reveal and what
/// follows from it.
fn after_action(
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

fn reveal(state: &State, seat: Seat, horseshoes: &[BidHorseshoe]) -> RevealedBid {
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
fn dice_off(seats: Vec<Seat>, rng: &mut GameRng) -> Event {
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

// ---------------------------------------------------------------- tie resolution

fn negotiate(
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

fn check_payments(
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
enum Change<'a> {
    New(&'a Offer),
    Accept { offer: u32, seat: Seat },
}

/// Agreement on `to`: every member of the tie accepts some standing offer for `to`. Then the
/// payments of those offers are made to the payees who accepted them.
fn agreement(
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

fn agree(
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

fn extra_choice(
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

// ---------------------------------------------------------------- landing and clean-up

/// The numbers the events of one command may change before the round's end is decided.
#[derive(Clone, Copy)]
pub(super) struct Proj {
    pub coins: [i64; 6],
    pub bankrupt_at: [Option<u8>; 6],
    pub markers: [u8; 6],
    pub round_marker: u8,
    pub ship_landings: u8,
}

impl Proj {
    pub fn of(state: &State) -> Proj {
        let mut coins = [0; 6];
        let mut bankrupt_at = [None; 6];
        for (i, p) in state.players.iter().enumerate() {
            coins[i] = p.coins;
            bankrupt_at[i] = p.bankrupt_at;
        }
        Proj {
            coins,
            bankrupt_at,
            markers: state.markers,
            round_marker: state.round_marker,
            ship_landings: state.ship_landings,
        }
    }

    fn active(&self, seat: Seat) -> bool {
        self.bankrupt_at[usize::from(seat)].is_none()
    }
}

/// The ghost ship has reached `to`.
fn land(
    state: &State,
    to: SpaceId,
    movers: &[Seat],
    mut proj: Proj,
    rng: &mut GameRng,
    out: &mut Vec<Event>,
) {
    let Some(colour) = board().colour(to) else {
        debug_assert_eq!(board().kind(to), SpaceKind::Island);
        // Island: the movers decide on income; the round goes on after their choices.
        let _ = movers;
        return;
    };
    let value = state.value(colour);
    let mut payments = Vec::new();
    let mut bankrupt = Vec::new();
    for seat in 0..state.seats() {
        if !proj.active(seat) {
            continue;
        }
        let cards = state.players[usize::from(seat)].count(colour);
        if cards == 0 {
            continue;
        }
        let due = cards as i64 * value;
        let broke = proj.coins[usize::from(seat)] < due;
        payments.push(ShipPayment {
            seat,
            cards: cards as u8,
            due,
            bankrupt: broke,
        });
        if broke {
            bankrupt.push(seat);
        } else {
            proj.coins[usize::from(seat)] -= due;
        }
    }
    out.push(Event::ShipHit {
        space: to,
        colour,
        value,
        payments,
    });
    let last = state.options.value_track.last();
    proj.markers[colour.index()] = 0;
    for m in &mut proj.markers {
        *m = (*m + 1).min(last);
    }
    proj.round_marker = (proj.round_marker + 1).min(last);
    proj.ship_landings += 1;
    for &seat in &bankrupt {
        let p = &state.players[usize::from(seat)];
        out.push(Event::Bankrupt {
            seat,
            coins_lost: proj.coins[usize::from(seat)],
            shares: p.shares.clone(),
            horseshoes: p.horseshoes.clone(),
        });
        proj.coins[usize::from(seat)] = 0;
        proj.bankrupt_at[usize::from(seat)] = Some(proj.ship_landings);
    }
    let left = (0..state.seats()).filter(|&s| proj.active(s)).count();
    if left <= 1 {
        let reason = if left == 1 {
            EndReason::LastPlayerStanding
        } else {
            EndReason::AllBankrupt
        };
        out.push(game_ended(state, &proj, reason));
        return;
    }
    clean_up_and_next(state, &proj, rng, out);
}

fn after_income(state: &State, seat: Seat, proj: Proj, rng: &mut GameRng, out: &mut Vec<Event>) {
    let Phase::IslandIncome { movers, decided } = &state.phase else {
        unreachable!("after_income is called on an island");
    };
    let all = movers.iter().zip(decided).all(|(&m, &d)| d || m == seat);
    if all {
        clean_up_and_next(state, &proj, rng, out);
    }
}

/// Clean-up (bid horseshoes into the pool, shuffled), the end check, the next round.
fn clean_up_and_next(state: &State, proj: &Proj, rng: &mut GameRng, out: &mut Vec<Event>) {
    if !state.spent.is_empty() {
        let mut pool = Vec::with_capacity(state.pool.len() + state.spent.len());
        pool.extend_from_slice(&state.pool);
        pool.extend_from_slice(&state.spent);
        rng.shuffle(&mut pool);
        out.push(Event::PoolRefilled {
            added: state.spent.len() as u8,
            size: pool.len() as u8,
            pool: Some(pool),
        });
    }
    if proj.round_marker >= state.options.value_track.last() {
        out.push(game_ended(state, proj, EndReason::RoundMarkerAt18));
        return;
    }
    let n = state.seats();
    let mut start = state.start_player;
    for _ in 0..n {
        start = (start + 1) % n;
        if proj.active(start) {
            break;
        }
    }
    let (die_a, die_b) = roll(rng);
    out.push(Event::RoundStarted {
        round: state.round + 1,
        start_player: start,
        die_a,
        die_b,
        lucky_number: die_a + die_b,
    });
}

/// Final scores: wealth = coins + current value of each held share; bankrupt seats none.
pub(super) struct Scores {
    pub scores: Vec<Option<i64>>,
    pub ranks: Vec<u8>,
    pub winners: Vec<Seat>,
}

pub(super) fn scores(state: &State, proj: &Proj) -> Scores {
    let n = state.players.len();
    let chests = state.options.value_track.chests();
    let scores: Vec<Option<i64>> = (0..n)
        .map(|i| {
            proj.bankrupt_at[i].is_none().then(|| {
                proj.coins[i]
                    + state.players[i]
                        .shares
                        .iter()
                        .map(|c| i64::from(chests[usize::from(proj.markers[c.index()])]))
                        .sum::<i64>()
            })
        })
        .collect();
    // Survivors by wealth; then the bankrupt, those who lasted longer first (same landing:
    // same rank). Ranks are competition ranks (1, 1, 3).
    let key = |i: usize| -> (u8, i64) {
        match (scores[i], proj.bankrupt_at[i]) {
            (Some(w), _) => (1, w),
            (None, Some(at)) => (0, i64::from(at)),
            (None, None) => (0, 0),
        }
    };
    let ranks: Vec<u8> = (0..n)
        .map(|i| 1 + (0..n).filter(|&j| key(j) > key(i)).count() as u8)
        .collect();
    let winners = (0..n)
        .filter(|&i| ranks[i] == 1)
        .map(|i| i as Seat)
        .collect();
    Scores {
        scores,
        ranks,
        winners,
    }
}

fn game_ended(state: &State, proj: &Proj, reason: EndReason) -> Event {
    let s = scores(state, proj);
    Event::GameEnded {
        reason,
        hands: state
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| proj.bankrupt_at[i].is_none().then(|| p.shares.clone()))
            .collect(),
        scores: s.scores,
        winners: s.winners,
    }
}
