//! What clients see: the whole public position ([`View`]) and what a seat may do ([`Legal`]).

use super::decide::{buildable, markers_in_boxes, scoring_cities, takeable};
use super::map::{CityId, LinkId, MAP, MAP_ID, bits};
use super::protocol::{Colour, Command, Company, TranscontinentalPath};
use super::state::{Phase, ROUNDS, SHARES, State};
use super::transcontinental::Sides;
use crate::games::{Outcome, Seat};
use serde::Serialize;
use utoipa::ToSchema;

/// The whole position: everything in Steel Driver is public, so every viewer sees this.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SteelDriverView)]
pub struct View {
    pub map: MapView,
    pub seats: u8,
    /// The current round, 1 to `rounds` (0 before the start).
    pub round: u8,
    pub rounds: u8,
    pub phase: Phase,
    /// The seats that must act now.
    pub pending: Vec<Seat>,
    pub players: Vec<PlayerView>,
    /// The six companies in box order.
    pub companies: Vec<CompanyView>,
    /// This round's company order (building, or the delivery after round 5).
    pub order: Vec<Company>,
    /// The companies that have passed this phase, in the order they passed.
    pub pass_order: Vec<Company>,
    /// The company to act in the building or delivery phase.
    pub active_company: Option<Company>,
    /// Holder of the active-player pawn.
    pub pawn: Seat,
    /// Consecutive pawn passes without an auction (the auctions end at `seats`).
    pub pawn_passes: u8,
    pub auction: Option<AuctionView>,
    /// The path that earned the transcontinental bonus, once paid.
    pub transcontinental: Option<TranscontinentalPath>,
    /// Tied transcontinental paths waiting for the completing company's controller.
    pub transcontinental_choice: Option<PathChoiceView>,
    /// Final scores and ranks once the game is over.
    pub outcome: Option<Outcome>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SteelDriverMapView)]
pub struct MapView {
    pub id: String,
    pub cities: Vec<CityView>,
    pub links: Vec<LinkView>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SteelDriverCityView)]
pub struct CityView {
    pub id: CityId,
    pub name: String,
    pub colour: Colour,
    pub value: u32,
    /// A hexagonal start city.
    pub start: bool,
    pub lon: f64,
    pub lat: f64,
    /// A goods cube lies here (goods phase only).
    pub goods: bool,
    /// Companies whose network reaches this city.
    pub companies: Vec<Company>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SteelDriverLinkView)]
pub struct LinkView {
    pub id: LinkId,
    pub from: CityId,
    pub to: CityId,
    pub cost: u32,
    /// The company that built it.
    pub company: Option<Company>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SteelDriverPlayerView)]
pub struct PlayerView {
    pub seat: Seat,
    pub cubes: u32,
    pub money: u32,
    /// Shares held per company, in box order.
    pub shares: Vec<u8>,
    /// Companies whose control marker this player holds.
    pub controls: Vec<Company>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SteelDriverCompanyView)]
pub struct CompanyView {
    pub company: Company,
    /// Holder of the control marker (`null`: the marker is in the box).
    pub controller: Option<Seat>,
    pub last_controller: Option<Seat>,
    /// Controller for the delivery (goods phase).
    pub delivery_controller: Option<Seat>,
    /// Investment cubes in the box.
    pub cubes: u32,
    /// This round's profit.
    pub profit: u32,
    pub shares_sold: u8,
    pub shares_in_box: u8,
    pub track_left: u32,
    pub links: Vec<LinkId>,
    pub cities: Vec<CityId>,
    /// Goods cubes per colour: pink, orange, green, white, black.
    pub goods: Vec<u8>,
    pub final_profit: u32,
    /// Passed in the current building or delivery phase.
    pub passed: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SteelDriverAuctionView)]
pub struct AuctionView {
    pub company: Company,
    pub opener: Seat,
    pub high_bid: u32,
    pub high_bidder: Seat,
    pub to_act: Seat,
    /// Seats that passed out of this auction.
    pub out: Vec<Seat>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SteelDriverPathChoiceView)]
pub struct PathChoiceView {
    pub company: Company,
    pub options: Vec<TranscontinentalPath>,
}

/// What a seat may do now.
#[derive(Debug, Serialize, ToSchema)]
#[serde(tag = "step", rename_all = "snake_case")]
#[schema(as = SteelDriverLegal)]
pub enum Legal {
    /// Nothing: another seat must act, or the game is over.
    Wait,
    /// The seat holds the pawn: open an auction for one of `companies` with a bid from
    /// `min_bid` to `max_bid` (its cubes), or pass the pawn.
    OpenAuction {
        companies: Vec<Company>,
        min_bid: u32,
        max_bid: u32,
        cubes: u32,
        can_pass: bool,
    },
    /// The seat is to bid in the running auction: from `min_bid` to its `cubes`
    /// (`can_bid` false when it holds too few), or pass.
    Bid {
        company: Company,
        high_bid: u32,
        high_bidder: Seat,
        min_bid: u32,
        cubes: u32,
        can_bid: bool,
        can_pass: bool,
    },
    /// The seat builds for `company`: one of `links`, or pass only when there is none.
    Build {
        company: Company,
        cubes: u32,
        track_left: u32,
        links: Vec<BuildOption>,
        can_pass: bool,
    },
    /// The seat chooses which tied path earns the transcontinental bonus.
    ChoosePath {
        company: Company,
        options: Vec<TranscontinentalPath>,
    },
    /// The seat takes goods for `company`: one of `goods`, or pass only when there is none.
    TakeGoods {
        company: Company,
        goods: Vec<GoodsOption>,
        can_pass: bool,
    },
}

/// A link the company may build and what it would bring.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SteelDriverBuildOption)]
pub struct BuildOption {
    pub link: LinkId,
    pub cost: u32,
    /// Cities it newly connects that score.
    pub new_cities: Vec<CityId>,
    /// Profit gained (the value of `new_cities`), before any transcontinental bonus.
    pub profit: u32,
    /// Whether it first joins New York and San Francisco (bonus +$50 to this company).
    pub transcontinental: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = SteelDriverGoodsOption)]
pub struct GoodsOption {
    pub city: CityId,
    pub colour: Colour,
}

pub fn view(state: &State) -> View {
    let built_by = |link: u8| {
        Company::ALL
            .into_iter()
            .find(|c| state.company(*c).links & (1u64 << link) != 0)
    };
    let map = MapView {
        id: MAP_ID.to_string(),
        cities: MAP
            .cities
            .iter()
            .enumerate()
            .map(|(i, c)| CityView {
                id: CityId(i as u8),
                name: c.name.clone(),
                colour: c.colour,
                value: c.value,
                start: c.start,
                lon: c.lon,
                lat: c.lat,
                goods: state.goods & (1u64 << i) != 0,
                companies: Company::ALL
                    .into_iter()
                    .filter(|co| state.company(*co).cities & (1u64 << i) != 0)
                    .collect(),
            })
            .collect(),
        links: MAP
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| LinkView {
                id: LinkId(i as u8),
                from: l.ends[0],
                to: l.ends[1],
                cost: l.cost,
                company: built_by(i as u8),
            })
            .collect(),
    };
    let in_company_phase = matches!(state.phase, Phase::Building | Phase::Delivery);
    View {
        map,
        seats: state.seats,
        round: state.round,
        rounds: ROUNDS,
        phase: state.phase,
        pending: state.to_act().into_iter().collect(),
        players: state
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| PlayerView {
                seat: i as Seat,
                cubes: p.cubes,
                money: p.money,
                shares: p.shares.to_vec(),
                controls: Company::ALL
                    .into_iter()
                    .filter(|c| state.company(*c).controller == Some(i as Seat))
                    .collect(),
            })
            .collect(),
        companies: Company::ALL
            .into_iter()
            .map(|company| {
                let c = state.company(company);
                CompanyView {
                    company,
                    controller: c.controller,
                    last_controller: c.last_controller,
                    delivery_controller: c.delivery_controller,
                    cubes: c.cubes,
                    profit: c.profit,
                    shares_sold: c.shares_sold,
                    shares_in_box: SHARES - c.shares_sold,
                    track_left: c.track_left(),
                    links: bits(c.links).map(LinkId).collect(),
                    cities: State::city_list(c.cities),
                    goods: c.goods.to_vec(),
                    final_profit: c.final_profit,
                    passed: in_company_phase && state.turns.has_passed(company),
                }
            })
            .collect(),
        order: state.turns.order.to_vec(),
        pass_order: state.turns.pass_order().to_vec(),
        active_company: state.turns.current(),
        pawn: state.pawn,
        pawn_passes: state.pawn_passes,
        auction: state.auction.map(|a| AuctionView {
            company: a.company,
            opener: a.opener,
            high_bid: a.high_bid,
            high_bidder: a.high_bidder,
            to_act: a.to_act,
            out: (0..state.seats).filter(|s| a.out & (1 << s) != 0).collect(),
        }),
        transcontinental: state.transcontinental.clone(),
        transcontinental_choice: state.bonus_choice.as_ref().map(|b| PathChoiceView {
            company: b.company,
            options: b.options.clone(),
        }),
        outcome: state.outcome.clone(),
    }
}

/// The links `company` may build, with what each would bring.
pub fn build_options(state: &State, company: Company) -> Vec<BuildOption> {
    let c = state.company(company);
    let sides = (state.transcontinental.is_none()).then(|| Sides::new(&MAP, state.built()));
    bits(buildable(state, company))
        .map(|l| {
            let link = LinkId(l);
            let new = scoring_cities(c, link);
            BuildOption {
                link,
                cost: MAP.links[link.index()].cost,
                new_cities: State::city_list(new),
                profit: MAP.value_of(new),
                transcontinental: sides.as_ref().is_some_and(|s| s.completes(&MAP, link)),
            }
        })
        .collect()
}

pub fn legal(state: &State, seat: Seat) -> Legal {
    if state.to_act() != Some(seat) {
        return Legal::Wait;
    }
    let cubes = state.players[usize::from(seat)].cubes;
    match state.phase {
        Phase::Auction => match &state.auction {
            None => Legal::OpenAuction {
                companies: if cubes > 0 {
                    Company::ALL
                        .into_iter()
                        .filter(|c| markers_in_boxes(state) & c.bit() != 0)
                        .collect()
                } else {
                    Vec::new()
                },
                min_bid: 1,
                max_bid: cubes,
                cubes,
                can_pass: true,
            },
            Some(a) => Legal::Bid {
                company: a.company,
                high_bid: a.high_bid,
                high_bidder: a.high_bidder,
                min_bid: a.high_bid + 1,
                cubes,
                can_bid: cubes > a.high_bid,
                can_pass: true,
            },
        },
        Phase::Building => match &state.bonus_choice {
            Some(choice) => Legal::ChoosePath {
                company: choice.company,
                options: choice.options.clone(),
            },
            None => match state.turns.current() {
                Some(company) => {
                    let links = build_options(state, company);
                    let c = state.company(company);
                    Legal::Build {
                        company,
                        cubes: c.cubes,
                        track_left: c.track_left(),
                        can_pass: links.is_empty(),
                        links,
                    }
                }
                None => Legal::Wait,
            },
        },
        Phase::Delivery => match state.turns.current() {
            Some(company) => {
                let goods: Vec<GoodsOption> = bits(takeable(state, company))
                    .map(|c| GoodsOption {
                        city: CityId(c),
                        colour: MAP.cities[usize::from(c)].colour,
                    })
                    .collect();
                Legal::TakeGoods {
                    company,
                    can_pass: goods.is_empty(),
                    goods,
                }
            }
            None => Legal::Wait,
        },
        Phase::Setup | Phase::Finished => Legal::Wait,
    }
}

/// The plain pass, where the rules allow one.
pub fn pass_command(state: &State, seat: Seat) -> Option<Command> {
    if state.to_act() != Some(seat) {
        return None;
    }
    match state.phase {
        Phase::Auction if state.auction.is_none() => Some(Command::PassPawn),
        Phase::Auction => Some(Command::PassBid),
        Phase::Building if state.bonus_choice.is_none() => {
            let company = state.turns.current()?;
            (buildable(state, company) == 0).then_some(Command::PassBuild)
        }
        Phase::Delivery => {
            let company = state.turns.current()?;
            (takeable(state, company) == 0).then_some(Command::PassDelivery)
        }
        _ => None,
    }
}
