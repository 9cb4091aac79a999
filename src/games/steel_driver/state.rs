//! The position: players, companies, the auction, turn order (all of it public).

use super::map::{CityId, bits};
use super::protocol::{Company, TranscontinentalPath};
use crate::games::{Outcome, Seat};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Track pieces per company.
pub const TRACK_PIECES: u32 = 17;
/// Shares per company.
pub const SHARES: u8 = 5;
pub const ROUNDS: u8 = 5;

/// Investment cubes each player receives per round, by player count.
pub fn cubes_per_round(seats: u8) -> u32 {
    match seats {
        3 => 10,
        4 => 8,
        5 => 7,
        _ => 6,
    }
}

/// Where the game is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = SteelDriverPhase)]
pub enum Phase {
    /// Before the opening events.
    #[default]
    Setup,
    /// Phase 2 of a round: the pawn goes round, auctions are held.
    Auction,
    /// Phase 3 of a round: companies build in company order.
    Building,
    /// After round 5: companies take goods in company order.
    Delivery,
    Finished,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub cubes: u32,
    pub money: u32,
    /// Shares held, per company in box order.
    pub shares: [u8; 6],
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompanyState {
    /// Holder of the control marker this round.
    pub controller: Option<Seat>,
    /// The player who last won the control marker (for the final control tie).
    pub last_controller: Option<Seat>,
    /// Controller for the delivery after round 5.
    pub delivery_controller: Option<Seat>,
    /// Investment cubes in the company's box.
    pub cubes: u32,
    /// This round's profit.
    pub profit: u32,
    pub shares_sold: u8,
    /// Bitset of the links built (by `LinkId`).
    pub links: u64,
    /// Bitset of the cities on the network (by `CityId`).
    pub cities: u64,
    /// Goods cubes taken, per colour (pink, orange, green, white, black).
    pub goods: [u8; 5],
    pub final_profit: u32,
}

impl CompanyState {
    pub fn track_left(&self) -> u32 {
        TRACK_PIECES.saturating_sub(self.links.count_ones())
    }
}

/// Turn order of the companies in the building and delivery phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turns {
    /// This round's company order.
    pub order: [Company; 6],
    /// Companies that have passed (bit per company).
    pub passed: u8,
    /// The first `passes` entries are the pass order so far.
    pub pass_order: [Company; 6],
    pub passes: u8,
    /// Index into `order` of the company to act; `None` when all have passed or outside the
    /// company phases.
    pub active: Option<u8>,
}

impl Default for Turns {
    fn default() -> Self {
        Turns {
            order: Company::ALL,
            passed: 0,
            pass_order: Company::ALL,
            passes: 0,
            active: None,
        }
    }
}

impl Turns {
    /// The first company in order acts; nobody has passed.
    pub fn start(&mut self) {
        self.passed = 0;
        self.passes = 0;
        self.active = Some(0);
    }

    pub fn current(&self) -> Option<Company> {
        self.active.map(|i| self.order[usize::from(i)])
    }

    pub fn has_passed(&self, company: Company) -> bool {
        self.passed & company.bit() != 0
    }

    pub fn pass_order(&self) -> &[Company] {
        &self.pass_order[..usize::from(self.passes)]
    }

    /// The acting company took its turn: the next company that has not passed acts.
    pub fn advance(&mut self) {
        let Some(i) = self.active else { return };
        self.active = (1..=6u8)
            .map(|k| (i + k) % 6)
            .find(|&j| !self.has_passed(self.order[usize::from(j)]));
    }

    /// `company` (the acting one) passes: it takes the next place of the pass order.
    pub fn pass(&mut self, company: Company) {
        if self.has_passed(company) {
            return;
        }
        self.passed |= company.bit();
        self.pass_order[usize::from(self.passes)] = company;
        self.passes += 1;
        self.advance();
    }

    /// The end of the round: the pass order becomes the company order.
    pub fn next_round(&mut self, order: &[Company]) {
        if order.len() == 6 {
            self.order.copy_from_slice(order);
        }
        self.passed = 0;
        self.passes = 0;
        self.active = None;
    }
}

/// A running auction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Auction {
    pub company: Company,
    pub opener: Seat,
    pub high_bid: u32,
    pub high_bidder: Seat,
    /// The seat whose turn it is to bid or pass.
    pub to_act: Seat,
    /// Seats that passed out of this auction (bit per seat).
    pub out: u8,
}

/// A transcontinental tie waiting for the completing company's controller.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BonusChoice {
    pub company: Company,
    pub options: Vec<TranscontinentalPath>,
}

/// The whole position. All of it is public.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub seats: u8,
    pub map: String,
    pub round: u8,
    pub phase: Phase,
    pub players: Vec<Player>,
    pub companies: [CompanyState; 6],
    pub turns: Turns,
    /// Holder of the active-player pawn.
    pub pawn: Seat,
    /// Consecutive pawn passes without an auction.
    pub pawn_passes: u8,
    pub auction: Option<Auction>,
    pub bonus_choice: Option<BonusChoice>,
    /// The transcontinental path once the bonus was paid.
    pub transcontinental: Option<TranscontinentalPath>,
    /// How many times the bonus was paid (the rules allow once).
    pub bonuses_paid: u8,
    /// Cities still holding a goods cube (bitset).
    pub goods: u64,
    /// Cubes ever given to players.
    pub cubes_handed_out: u32,
    /// Cubes paid for track.
    pub cubes_spent: u32,
    /// Cubes removed from the boxes after round 5.
    pub cubes_removed: u32,
    pub outcome: Option<Outcome>,
}

impl State {
    pub fn company(&self, company: Company) -> &CompanyState {
        &self.companies[company.index()]
    }

    pub(super) fn company_mut(&mut self, company: Company) -> &mut CompanyState {
        &mut self.companies[company.index()]
    }

    /// Every link built by any company.
    pub fn built(&self) -> u64 {
        self.companies.iter().fold(0, |m, c| m | c.links)
    }

    /// Every city on any company's network.
    pub fn cities_with_track(&self) -> u64 {
        self.companies.iter().fold(0, |m, c| m | c.cities)
    }

    /// The seat to the left (clockwise) of `seat`.
    pub fn left_of(&self, seat: Seat) -> Seat {
        (seat + 1) % self.seats.max(1)
    }

    /// The seats still in the running auction other than the high bidder.
    pub fn bidders_left(&self) -> u8 {
        match &self.auction {
            Some(a) => (0..self.seats)
                .filter(|&s| a.out & (1 << s) == 0 && s != a.high_bidder)
                .count() as u8,
            None => 0,
        }
    }

    /// Who must act now.
    pub fn to_act(&self) -> Option<Seat> {
        match self.phase {
            Phase::Auction => Some(match &self.auction {
                Some(a) => a.to_act,
                None => self.pawn,
            }),
            Phase::Building => match &self.bonus_choice {
                Some(choice) => self.company(choice.company).controller,
                None => self
                    .turns
                    .current()
                    .and_then(|c| self.company(c).controller),
            },
            Phase::Delivery => self
                .turns
                .current()
                .and_then(|c| self.company(c).delivery_controller),
            Phase::Setup | Phase::Finished => None,
        }
    }

    /// The cities of `cities` listed as ids, for events and views.
    pub fn city_list(cities: u64) -> Vec<CityId> {
        bits(cities).map(CityId).collect()
    }
}
