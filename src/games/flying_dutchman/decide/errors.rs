//! The rule errors `decide` returns: every code with its meaning, and the commands as
//! their messages name them.

use super::super::protocol::Command;
use crate::games::RuleError;

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

pub(super) fn err(code: &'static str, message: impl Into<String>) -> RuleError {
    debug_assert!(ERROR_CODES.iter().any(|(c, _)| *c == code), "{code}");
    RuleError::new(code, message)
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
