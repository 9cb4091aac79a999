//! Undo barriers: which events no undo may take back (section "Undo barriers" of `RULES.md`).
//!
//! A barrier is an event after which the game cannot honestly go back: something hidden was
//! shown to someone (a hand dealt, cards or horseshoes drawn, bids revealed, cards shown on
//! paying or on bankruptcy), something was drawn at random (a die roll, a shuffle, the start
//! player), coins changed hands (an agreement's payments, a ship's dues, island income), or
//! the game was scored. Everything else is a player's own open choice and may be taken back
//! under the table's undo policy: a sealed bid before the reveal, a pass, a smith card, the
//! cards returned after a Kontor draw, a move of the ghost ship before its landing is paid, a
//! declaration, an offer and the answers to it, an extra-round choice before the reveal.
//!
//! The match below is the table; it names every event, so a new event cannot be added
//! without deciding its row.

use super::protocol::Event;

/// The kind of undo barrier `event` is, if any.
pub fn barrier(event: &Event) -> Option<&'static str> {
    match event {
        // The start player is drawn at random.
        Event::GameStarted { .. } => Some(DRAW),
        // A hidden hand is dealt.
        Event::Dealt { .. } => Some(DEAL),
        // The share stack, the pool and the unused horseshoes are shuffled.
        Event::HiddenPilesFormed { .. } => Some(SHUFFLE),
        // The start player's dice give the lucky number.
        Event::RoundStarted { .. } => Some(ROLL),
        // The top two share cards are shown to the player.
        Event::KontorUsed { .. } => Some(DRAW),
        // The smith players take horseshoes from the hidden pool.
        Event::SmithSplit { .. } | Event::HorseshoesDrawn { .. } => Some(DRAW),
        // The sealed bids (or extra-round choices) are shown to everyone.
        Event::BidsRevealed { .. } => Some(REVEAL),
        // Everybody rolls the dice.
        Event::DiceOff { .. } => Some(ROLL),
        // The accepted payments of an agreement are made.
        Event::AgreementReached { .. } => Some(PAYMENT),
        // The holders of the hit colour show their cards and pay.
        Event::ShipHit { .. } => Some(PAYMENT),
        // A bankrupt player's cards and horseshoes are shown.
        Event::Bankrupt { .. } => Some(REVEAL),
        // A mover shows a share card and takes its value from the bank.
        Event::IncomeTaken { .. } => Some(PAYMENT),
        // The clean-up shuffles the pool.
        Event::PoolRefilled { .. } => Some(SHUFFLE),
        // Every hand is shown and scored.
        Event::GameEnded { .. } => Some(SCORING),
        // A player's own choices, seen by nobody else or public and not yet settled.
        Event::SharesReturned { .. }
        | Event::SmithUsed { .. }
        | Event::BidPlaced { .. }
        | Event::Passed { .. }
        | Event::Declared { .. }
        | Event::NegotiationStarted { .. }
        | Event::OfferMade { .. }
        | Event::OfferAccepted { .. }
        | Event::OfferRejected { .. }
        | Event::OfferWithdrawn { .. }
        | Event::NoAgreement { .. }
        | Event::ExtraRoundStarted { .. }
        | Event::ExtraChoiceMade { .. }
        | Event::GhostShipMoved { .. }
        | Event::IncomeDeclined { .. } => None,
    }
}

/// Something was drawn: from a hidden pile, or chosen at random.
pub const DRAW: &str = "draw";
/// A hidden hand was dealt.
pub const DEAL: &str = "deal";
/// A hidden pile was shuffled.
pub const SHUFFLE: &str = "shuffle";
/// Dice were rolled.
pub const ROLL: &str = "roll";
/// Hidden cards, horseshoes or bids were shown.
pub const REVEAL: &str = "reveal";
/// Coins changed hands.
pub const PAYMENT: &str = "payment";
/// The game was scored.
pub const SCORING: &str = "scoring";

/// Every barrier kind of this game, for the docs and the tests.
pub const KINDS: [&str; 7] = [DRAW, DEAL, SHUFFLE, ROLL, REVEAL, PAYMENT, SCORING];
