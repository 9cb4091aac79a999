//! The vocabulary of the game on the wire: companies, colours, options, commands and events.

use super::map::{CityId, LinkId};
use crate::games::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A railway company, in box order (the first round's company order).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = SteelDriverCompany)]
pub enum Company {
    Red,
    Yellow,
    Green,
    Blue,
    Grey,
    Brown,
}

impl Company {
    /// Box order.
    pub const ALL: [Company; 6] = [
        Company::Red,
        Company::Yellow,
        Company::Green,
        Company::Blue,
        Company::Grey,
        Company::Brown,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A goods colour (the colour of a city and of its goods cube).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = SteelDriverColour)]
pub enum Colour {
    Pink,
    Orange,
    Green,
    White,
    Black,
}

impl Colour {
    pub const ALL: [Colour; 5] = [
        Colour::Pink,
        Colour::Orange,
        Colour::Green,
        Colour::White,
        Colour::Black,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Colour::Pink => "pink",
            Colour::Orange => "orange",
            Colour::Green => "green",
            Colour::White => "white",
            Colour::Black => "black",
        }
    }

    pub fn from_name(name: &str) -> Option<Colour> {
        Colour::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Game options, stored fully explicit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = SteelDriverOptions)]
pub struct Options {
    /// The map; only the built-in `usa` map exists.
    pub map: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            map: super::map::MAP_ID.to_string(),
        }
    }
}

/// What a player asks to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
// Unknown members are refused: a misspelt optional member (`payment` for `payments`)
// must not pass as a command without it.
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = SteelDriverCommand)]
pub enum Command {
    /// The pawn holder puts a company's control marker up for auction with an opening bid.
    OpenAuction { company: Company, bid: u32 },
    /// The pawn holder passes the pawn to the left instead of opening an auction.
    PassPawn,
    /// The bidder to act bids strictly more cubes than the current bid.
    Bid { bid: u32 },
    /// The bidder to act drops out of this auction.
    PassBid,
    /// The controller of the acting company builds this link for it.
    Build { link: LinkId },
    /// The controller passes for the acting company (only when it cannot build).
    PassBuild,
    /// The completing company's controller picks one of the tied transcontinental paths
    /// (an index into `options` of the pending choice).
    ChoosePath { index: u8 },
    /// The delivery controller takes the goods cube of this city for the acting company.
    TakeGoods { city: CityId },
    /// The delivery controller passes for good (only when no goods can be taken).
    PassDelivery,
}

/// Cubes or dollars for one company.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = SteelDriverCompanyAmount)]
pub struct CompanyAmount {
    pub company: Company,
    pub amount: u32,
}

/// Money paid to a player for a company.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = SteelDriverPayment)]
pub struct Payment {
    pub seat: Seat,
    pub company: Company,
    /// Final dividends: the shares the player holds (1 for round dividends to the controller).
    pub shares: u8,
    pub amount: u32,
}

/// A path of track joining New York and San Francisco.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = SteelDriverTranscontinentalPath)]
pub struct TranscontinentalPath {
    /// The companies with track on the path, in box order.
    pub companies: Vec<Company>,
    /// The links of the path, from New York to San Francisco.
    pub links: Vec<LinkId>,
}

/// The goods a company holds at the end, and what they score.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = SteelDriverFinalProfit)]
pub struct FinalProfit {
    pub company: Company,
    /// Goods cubes per colour, in the order pink, orange, green, white, black.
    pub goods: [u8; 5],
    /// Size (number of colours) of each set, largest first.
    pub sets: Vec<u8>,
    pub profit: u32,
}

/// Everything that happens, in order. Folding the events rebuilds the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[schema(as = SteelDriverEvent)]
pub enum Event {
    /// The game is set up; `first_player` (drawn at random) holds the active-player pawn.
    GameStarted {
        seats: u8,
        options: Options,
        first_player: Seat,
    },
    /// Phase 1 of a round: every player receives `cubes` investment cubes. The auction phase
    /// begins with the pawn where it is.
    RoundStarted {
        round: u8,
        cubes: u32,
    },
    /// The pawn holder passed the pawn to `to` without opening an auction.
    PawnPassed {
        seat: Seat,
        to: Seat,
    },
    /// The pawn holder opened an auction.
    AuctionOpened {
        seat: Seat,
        company: Company,
        bid: u32,
    },
    BidPlaced {
        seat: Seat,
        bid: u32,
    },
    /// `seat` dropped out of the running auction.
    BidPassed {
        seat: Seat,
    },
    /// The auction is won: `price` cubes go into the company's box, the winner takes the
    /// control marker and one share; the pawn goes to `pawn_to` (the opener's left).
    AuctionWon {
        seat: Seat,
        company: Company,
        price: u32,
        pawn_to: Seat,
    },
    /// No more auctions this round (`all_sold`: every control marker was sold).
    AuctionPhaseEnded {
        all_sold: bool,
    },
    /// `company` built `link`, paying `cost` cubes, and connected `new_cities`, adding their
    /// value (`profit`) to its round profit.
    LinkBuilt {
        company: Company,
        link: LinkId,
        cost: u32,
        new_cities: Vec<CityId>,
        profit: u32,
    },
    /// New York and San Francisco are joined and several paths tie for the bonus: the
    /// controller of `company` must choose one.
    TranscontinentalTie {
        company: Company,
        options: Vec<TranscontinentalPath>,
    },
    /// The transcontinental bonus: `company` completed `path`; the bonuses go to the round
    /// profits.
    TranscontinentalBonus {
        company: Company,
        path: TranscontinentalPath,
        bonuses: Vec<CompanyAmount>,
    },
    /// `company` passed in the building phase and takes place `place` (0-based) of the pass
    /// order; `automatic` when it had no controller.
    CompanyPassed {
        company: Company,
        place: u8,
        automatic: bool,
    },
    /// Phase 4: each controller receives their companies' round profit.
    DividendsPaid {
        round: u8,
        payments: Vec<Payment>,
    },
    /// Phase 5: `order` (the pass order) is the next company order; profits reset; control
    /// markers return to the boxes unless this was round 5.
    RoundEnded {
        round: u8,
        order: Vec<Company>,
    },
    /// After round 5: the cubes left in the company boxes are removed.
    BoxesEmptied {
        cubes: Vec<CompanyAmount>,
    },
    /// A goods cube is placed on every city with track.
    GoodsPlaced {
        cities: Vec<CityId>,
    },
    /// Who controls each company (box order) for the delivery: most shares, ties broken
    /// clockwise from the last controller; `null` when no share was sold.
    DeliveryControl {
        controllers: Vec<Option<Seat>>,
    },
    GoodsTaken {
        company: Company,
        city: CityId,
        colour: Colour,
    },
    /// `company` takes no more goods (`automatic` when nobody controls it for the delivery).
    DeliveryPassed {
        company: Company,
        automatic: bool,
    },
    /// Final profit of each company (box order) from its goods sets.
    FinalProfits {
        profits: Vec<FinalProfit>,
    },
    /// Each shareholder receives final profit × shares.
    FinalDividendsPaid {
        payments: Vec<Payment>,
    },
    /// The end: money per seat, the goods tie-break per seat, ranks and winners.
    GameEnded {
        scores: Vec<u32>,
        goods: Vec<u32>,
        ranks: Vec<u8>,
        winners: Vec<Seat>,
    },
}

/// A standing order: a seat's answer to a coming decision, set ahead and private to it
/// (`RULES.md`, "Standing orders and forced moves"). The server plays it as the seat's
/// own command when it fits, and drops it, saying why, when it no longer does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = SteelDriverOrder)]
pub enum Order {
    /// Pass the pawn whenever it comes to me in this round's auction phase.
    PassPawn { round: u8 },
    /// A proxy bid: in the auction for `company` this round, raise by the minimum (1 cube)
    /// whenever I am to bid, never past `limit` (nor past my cubes). Once the high bid has
    /// reached the limit, pass if `pass_when_outbid`, else drop the order and ask me.
    ProxyBid {
        round: u8,
        company: Company,
        limit: u32,
        #[serde(default)]
        pass_when_outbid: bool,
    },
    /// Pass in the auction for `company` this round.
    PassAuction { round: u8, company: Company },
    /// In the goods phase, take for `company` (when I control it for the delivery) the
    /// goods cube that raises its set score most; on equal gain a cube another company still
    /// delivering could take, then the city listed first on the map.
    Deliver { company: Company },
}
