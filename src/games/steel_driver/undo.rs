//! Undo barriers: which events no undo may take back (section "Undo barriers" of `RULES.md`).
//!
//! Everything in Steel Driver is public and only the first player is drawn at random, so the
//! barriers are the points where something is settled between the players: an auction won
//! (the winner pays the bid into the company's box and takes its control marker and a
//! share), dividends paid, the end of a round (the cubes of the next one handed out, the
//! company order fixed; after round 5 the boxes emptied, the goods placed, the delivery
//! controllers named) and the final scoring. A player's moves in between — opening an
//! auction, bidding, passing the pawn or a bid, building a link (its cost goes from the
//! company's box to the supply, nobody else's holdings change), choosing a transcontinental
//! path, taking goods — may be taken back under the table's undo policy.
//!
//! The match below is the table; it names every event, so a new event cannot be added
//! without deciding its row.

use super::protocol::Event;

/// The kind of undo barrier `event` is, if any.
pub fn barrier(event: &Event) -> Option<&'static str> {
    match event {
        // The first player is drawn at random.
        Event::GameStarted { .. } => Some(DRAW),
        // The winner pays the bid and takes the control marker and a share.
        Event::AuctionWon { .. } => Some(PAYMENT),
        // The controllers receive the round's profits.
        Event::DividendsPaid { .. } => Some(PAYMENT),
        // A round ends and the next begins (cubes handed out); after round 5 the boxes are
        // emptied, the goods placed and the delivery controllers named.
        Event::RoundEnded { .. }
        | Event::RoundStarted { .. }
        | Event::BoxesEmptied { .. }
        | Event::GoodsPlaced { .. }
        | Event::DeliveryControl { .. } => Some(ROUND),
        // The final profits, the final dividends and the result.
        Event::FinalProfits { .. } | Event::FinalDividendsPaid { .. } | Event::GameEnded { .. } => {
            Some(SCORING)
        }
        // A player's own moves, public and not yet settled.
        Event::PawnPassed { .. }
        | Event::AuctionOpened { .. }
        | Event::BidPlaced { .. }
        | Event::BidPassed { .. }
        | Event::AuctionPhaseEnded { .. }
        | Event::LinkBuilt { .. }
        | Event::TranscontinentalTie { .. }
        | Event::TranscontinentalBonus { .. }
        | Event::CompanyPassed { .. }
        | Event::GoodsTaken { .. }
        | Event::DeliveryPassed { .. } => None,
    }
}

/// Something was chosen at random.
pub const DRAW: &str = "draw";
/// Cubes or money changed hands.
pub const PAYMENT: &str = "payment";
/// A round ended or began.
pub const ROUND: &str = "round";
/// The game was scored.
pub const SCORING: &str = "scoring";

/// Every barrier kind of this game, for the docs and the tests.
pub const KINDS: [&str; 4] = [DRAW, PAYMENT, ROUND, SCORING];
