//! The wire format of the game: options, commands and events (all stored and documented).

use super::board::{Colour, SpaceId};
use crate::games::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Which rules edition: only the starting money differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = FdEdition)]
pub enum Edition {
    /// The 1992 rules: 25 ducats each.
    #[serde(rename = "1992")]
    E1992,
    /// The 2016 Japanese edition: 35 ducats each (the default).
    #[default]
    #[serde(rename = "2016")]
    E2016,
}

impl Edition {
    pub fn starting_ducats(self) -> i64 {
        match self {
            Edition::E1992 => 25,
            Edition::E2016 => 35,
        }
    }
}

/// The chests of the value track: `[0, 2, 3, …, 18]` (default) or `[0, 1, 2, …, 18]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = FdValueTrack)]
pub enum ValueTrack {
    #[default]
    WithoutOne,
    WithOne,
}

const TRACK_WITHOUT_ONE: [u8; 18] = [
    0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
];
const TRACK_WITH_ONE: [u8; 19] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
];

impl ValueTrack {
    /// The chest values, index = chest position.
    pub fn chests(self) -> &'static [u8] {
        match self {
            ValueTrack::WithoutOne => &TRACK_WITHOUT_ONE,
            ValueTrack::WithOne => &TRACK_WITH_ONE,
        }
    }

    /// The position of chest 2, where every marker starts.
    pub fn start(self) -> u8 {
        match self {
            ValueTrack::WithoutOne => 1,
            ValueTrack::WithOne => 2,
        }
    }

    /// The position of chest 18: the round marker there ends the game.
    pub fn last(self) -> u8 {
        (self.chests().len() - 1) as u8
    }
}

/// The board to play on; only the built-in one exists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = FdBoardId)]
pub enum BoardId {
    /// The proposed stand-in for the printed board (24 spaces, 40 lines).
    #[default]
    Standard,
}

pub const DEFAULT_NEGOTIATION_DEADLINE_SECS: u32 = 86_400;
pub const MIN_NEGOTIATION_DEADLINE_SECS: u32 = 60;
pub const MAX_NEGOTIATION_DEADLINE_SECS: u32 = 1_209_600;

/// Game options, stored with every default filled in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = FdOptions)]
pub struct Options {
    /// `"1992"` (25 ducats) or `"2016"` (35 ducats, the default).
    pub edition: Edition,
    /// `"without_one"` (default) or `"with_one"`: whether the value track has a "1" chest.
    pub value_track: ValueTrack,
    /// The board: only `"standard"`.
    pub board: BoardId,
    /// Seconds a tie's negotiation may last before it counts as "no agreement"
    /// (60..=1209600; default 86400).
    pub negotiation_deadline_secs: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            edition: Edition::E2016,
            value_track: ValueTrack::WithoutOne,
            board: BoardId::Standard,
            negotiation_deadline_secs: DEFAULT_NEGOTIATION_DEADLINE_SECS,
        }
    }
}

/// Why a ghost-ship move was made by these movers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = FdMoveReason)]
pub enum MoveReason {
    /// The one best valid bid.
    SoleBid,
    /// No valid bid: the highest dice roll.
    DiceOff,
    /// All tied players declared the same destination.
    Declaration,
    /// The tied players agreed in a negotiation.
    Agreement,
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = FdEndReason)]
pub enum EndReason {
    /// The round marker reached chest 18 (the 16th ship landing).
    RoundMarkerAt18,
    /// Everybody else went bankrupt.
    LastPlayerStanding,
    /// The last players went bankrupt in the same landing (a decision of ours: they share the win).
    AllBankrupt,
}

/// Plus or minus, fixed when a silver horseshoe is bid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = FdSign)]
pub enum Sign {
    #[default]
    Plus,
    Minus,
}

/// One horseshoe of a bid. A horseshoe is named by its face (`value`): silver 1, 2, 10 or
/// 20, gold 21..=48; equal faces are interchangeable. Gold always counts plus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = FdBidHorseshoe)]
pub struct BidHorseshoe {
    pub value: u8,
    /// Default `plus`.
    #[serde(default)]
    pub sign: Sign,
}

impl BidHorseshoe {
    pub fn signed(self) -> i32 {
        match self.sign {
            Sign::Plus => i32::from(self.value),
            Sign::Minus => -i32::from(self.value),
        }
    }
}

/// The value of a bid: the gold face (or 0) plus the signed silver faces.
pub fn bid_value(horseshoes: &[BidHorseshoe]) -> i32 {
    horseshoes.iter().map(|h| h.signed()).sum()
}

/// A coin payment promised in an offer: `amount` ducats from the offer's maker to `seat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = FdPaymentTerm)]
pub struct PaymentTerm {
    pub seat: Seat,
    pub amount: i64,
}

/// A standing offer in a tie's negotiation (public).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = FdOffer)]
pub struct Offer {
    /// Number of the offer within its negotiation.
    pub id: u32,
    /// The member who made it (and who pays).
    pub by: Seat,
    /// The destination proposed.
    pub to: SpaceId,
    /// Payments the maker makes if this destination is agreed. Each is paid only to a payee
    /// who accepted this offer.
    pub payments: Vec<PaymentTerm>,
    /// Members who accept it (the maker always does).
    pub accepted_by: Vec<Seat>,
    /// Members who rejected it.
    pub rejected_by: Vec<Seat>,
}

/// The action a player took this round (public; a bid shows only its size).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = FdActionTaken)]
pub enum ActionTaken {
    Kontor,
    Smith,
    Bid { size: u8 },
    Pass,
}

/// A secret choice in an extra round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = FdExtraChoice)]
pub enum ExtraChoice {
    DropOut,
    Bid { horseshoes: Vec<BidHorseshoe> },
}

/// A bid as revealed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = FdRevealedBid)]
pub struct RevealedBid {
    pub seat: Seat,
    pub horseshoes: Vec<BidHorseshoe>,
    pub value: i32,
    /// Valid only if its value is at most the lucky number.
    pub valid: bool,
}

/// What a reveal decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = FdRevealResult)]
pub enum RevealResult {
    /// One best valid bid: this seat moves the ghost ship.
    SoleMover { seat: Seat },
    /// Several seats tied on the best valid value: tie resolution among them.
    Tie { seats: Vec<Seat> },
    /// No valid bid: a dice-off decides.
    NoValidBid,
}

/// One roll of both dice in a dice-off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = FdDiceRoll)]
pub struct DiceRoll {
    pub seat: Seat,
    pub die_a: u8,
    pub die_b: u8,
    pub total: u8,
}

/// Coins moved between two players by an agreement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = FdTransfer)]
pub struct Transfer {
    pub from: Seat,
    pub to: Seat,
    pub amount: i64,
}

/// What one holder of the hit colour owes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = FdShipPayment)]
pub struct ShipPayment {
    pub seat: Seat,
    /// Cards of the colour revealed.
    pub cards: u8,
    /// Cards × the colour's value.
    pub due: i64,
    /// Could not pay in full: bankrupt (see the `bankrupt` event).
    pub bankrupt: bool,
}

/// A command a player (or the platform, for a deadline) submits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
// Unknown members are refused: a misspelt optional member (`payment` for `payments`)
// must not pass as a command without it.
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = FdCommand)]
pub enum Command {
    /// Action: spend a Kontor card and draw the top two share cards of the stack.
    UseKontor,
    /// Completes a Kontor exchange: put exactly two of the five cards in hand back at the
    /// bottom of the stack, in the order listed (the last listed becomes the bottom card).
    ReturnShares {
        cards: Vec<Colour>,
    },
    /// Action: spend a smith card; horseshoes from the pool follow once everyone has acted.
    UseSmith,
    /// Action (or an extra-round choice): a sealed bid of one or more horseshoes from hand,
    /// at most one gold, each silver with a sign.
    Bid {
        horseshoes: Vec<BidHorseshoe>,
    },
    /// Action: do nothing (only with 4 or fewer horseshoes).
    Pass,
    /// The sole mover moves the ghost ship to an adjacent space (by id).
    Move {
        to: String,
    },
    /// A tied player names the destination they want (by id).
    Declare {
        to: String,
    },
    /// A tied player offers a destination plus payments to other tied players, payable only if
    /// that destination is agreed. The maker accepts their own offer.
    MakeOffer {
        to: String,
        #[serde(default)]
        payments: Vec<PaymentTerm>,
    },
    AcceptOffer {
        offer: u32,
    },
    RejectOffer {
        offer: u32,
    },
    /// The maker takes back one of their offers.
    WithdrawOffer {
        offer: u32,
    },
    /// Ends the negotiation without agreement: an extra round follows. The platform submits it
    /// when the negotiation deadline passes.
    NoAgreement,
    /// In an extra round: give up the contest.
    DropOut,
    /// On an island: reveal one share card and take its colour's current value.
    TakeIncome {
        colour: Colour,
    },
    /// On an island: take no income.
    DeclineIncome,
}

/// What happened. Stored in full; `redact` gives each viewer what they may see.
/// Fields that hold secrets are absent in redacted copies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[schema(as = FdEvent)]
pub enum Event {
    /// The table is set: every player gets the starting ducats, 3 smith and 3 Kontor cards;
    /// the ghost ship is on Holland, every marker on chest 2.
    GameStarted {
        options: Options,
        seats: u8,
        start_player: Seat,
        ducats: i64,
    },
    /// A player's hidden hand: share cards and horseshoes (contents for that player only).
    Dealt {
        seat: Seat,
        share_count: u8,
        horseshoe_count: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shares: Option<Vec<Colour>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        horseshoes: Option<Vec<u8>>,
    },
    /// The face-down piles: share stack (top first), horseshoe pool and the unused
    /// horseshoes (contents seen by nobody until the game ends).
    HiddenPilesFormed {
        share_stack_size: u8,
        pool_size: u8,
        unused_size: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        share_stack: Option<Vec<Colour>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pool: Option<Vec<u8>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unused: Option<Vec<u8>>,
    },
    /// A round begins: the start player's dice give the lucky number.
    RoundStarted {
        round: u32,
        start_player: Seat,
        die_a: u8,
        die_b: u8,
        lucky_number: u8,
    },
    /// Action: a Kontor card spent; two cards drawn (which: for that player only).
    KontorUsed {
        seat: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        drawn: Option<Vec<Colour>>,
    },
    /// Two cards put back at the bottom of the stack (which: for that player only).
    SharesReturned {
        seat: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cards: Option<Vec<Colour>>,
    },
    /// Action: a smith card spent.
    SmithUsed {
        seat: Seat,
    },
    /// Action: a sealed bid of `size` horseshoes (which: for that player only, until revealed).
    BidPlaced {
        seat: Seat,
        size: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        horseshoes: Option<Vec<BidHorseshoe>>,
    },
    /// Action: pass.
    Passed {
        seat: Seat,
    },
    /// The smith players split the pool: `each` horseshoes apiece, `left_in_pool` stay.
    SmithSplit {
        seats: Vec<Seat>,
        each: u8,
        left_in_pool: u8,
    },
    /// Horseshoes from the pool (which: for that player only).
    HorseshoesDrawn {
        seat: Seat,
        count: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        horseshoes: Option<Vec<u8>>,
    },
    /// The sealed bids are shown (after the action step, or after an extra round).
    BidsRevealed {
        extra_round: bool,
        bids: Vec<RevealedBid>,
        /// Extra round only: members who dropped out.
        dropped_out: Vec<Seat>,
        result: RevealResult,
    },
    /// No valid bid: the players roll both dice; ties re-roll among the tied.
    DiceOff {
        seats: Vec<Seat>,
        /// Each roll-off in turn; the last has one highest total.
        rolls: Vec<Vec<DiceRoll>>,
        winner: Seat,
    },
    /// A tied player names a destination.
    Declared {
        seat: Seat,
        to: SpaceId,
    },
    /// The declarations differ: the tied players negotiate.
    NegotiationStarted {
        seats: Vec<Seat>,
        deadline_secs: u32,
    },
    OfferMade {
        offer: Offer,
    },
    OfferAccepted {
        seat: Seat,
        offer: u32,
    },
    OfferRejected {
        seat: Seat,
        offer: u32,
    },
    OfferWithdrawn {
        seat: Seat,
        offer: u32,
    },
    /// Every tied player accepted this destination; the accepted payments are made.
    AgreementReached {
        to: SpaceId,
        transfers: Vec<Transfer>,
    },
    /// The negotiation failed: by a player's word, or (`seat` absent) by the deadline.
    NoAgreement {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
    },
    /// The tied players each secretly drop out or bid again.
    ExtraRoundStarted {
        seats: Vec<Seat>,
    },
    /// A tied player made their secret extra-round choice (which: for that player only).
    ExtraChoiceMade {
        seat: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        choice: Option<ExtraChoice>,
    },
    GhostShipMoved {
        from: SpaceId,
        to: SpaceId,
        movers: Vec<Seat>,
        reason: MoveReason,
    },
    /// The ghost ship met a ship: holders pay cards × value; the colour drops to chest 0, then
    /// every marker and the round marker move one chest on.
    ShipHit {
        space: SpaceId,
        colour: Colour,
        value: i64,
        payments: Vec<ShipPayment>,
    },
    /// A player could not pay and leaves the game; their coins go to the bank, their cards and
    /// horseshoes are shown and stay out of play.
    Bankrupt {
        seat: Seat,
        coins_lost: i64,
        shares: Vec<Colour>,
        horseshoes: Vec<u8>,
    },
    /// A mover on an island shows a share card and takes its colour's value.
    IncomeTaken {
        seat: Seat,
        colour: Colour,
        amount: i64,
    },
    IncomeDeclined {
        seat: Seat,
    },
    /// Clean-up: the horseshoes bid this round go into the pool, which is shuffled
    /// (its order: seen by nobody until the game ends).
    PoolRefilled {
        added: u8,
        size: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pool: Option<Vec<u8>>,
    },
    /// The end: every remaining player's shares are shown and scored.
    GameEnded {
        reason: EndReason,
        /// Share cards of each seat (absent for bankrupt seats, whose cards were shown then).
        hands: Vec<Option<Vec<Colour>>>,
        /// Wealth of each seat (coins + share values); absent for bankrupt seats.
        scores: Vec<Option<i64>>,
        winners: Vec<Seat>,
    },
}

/// How a standing order takes island income.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = FdIncomeRule)]
pub enum IncomeRule {
    /// Show the share card of the highest current value (on equal values, the colour later
    /// in the order blue, yellow, green, orange, red, violet).
    Best,
    /// Take no income.
    Decline,
    /// Show the first of these colours held; none held: take no income.
    Prefer { colours: Vec<Colour> },
}

/// A standing order: a seat's answer to a coming decision, set ahead and private to it, as
/// secret as the move it plays (`RULES.md`, "Standing orders and forced moves"). The server
/// plays it as the seat's own command when it fits, and drops it, saying why, when it no
/// longer does. `round` names the round an order is for: it ends with that round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = FdOrder)]
pub enum Order {
    /// My action this round (`use_kontor`, `use_smith`, `bid` or `pass`), played when my
    /// turn comes; a bid stays sealed as if clicked. With `max_bids_before`, the order asks
    /// me instead when more players before me this round have bid.
    Action {
        round: u32,
        action: Command,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_bids_before: Option<u8>,
    },
    /// My Kontor exchange this round: return the two cards lowest in `keep` (all six
    /// colours, the most wanted first), the least wanted listed first.
    KontorReturn { round: u32, keep: Vec<Colour> },
    /// If I move the ghost ship alone this round (my bid, or a dice-off): move it to `to`.
    Move { round: u32, to: String },
    /// Whenever I tie this round: declare `to`.
    Declare { round: u32, to: String },
    /// Whenever I tie and we negotiate this round: offer `to`, paying `each` ducats to every
    /// other member of the tie (nothing when 0), unless I have an offer standing.
    Offer { round: u32, to: String, each: i64 },
    /// If we negotiate this round: accept every standing offer for `to` that pays me at
    /// least `min_payment`.
    Accept {
        round: u32,
        to: String,
        min_payment: i64,
    },
    /// If I tie and an extra round follows this round: this secret choice (sealed like a
    /// bid).
    ExtraRound { round: u32, choice: ExtraChoice },
    /// Whenever I land on an island as a mover: take income by this rule.
    Income { rule: IncomeRule },
}
