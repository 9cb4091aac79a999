//! Validating commands and deciding the events they cause, including the automatic steps
//! that follow (passes of companies nobody controls, dividends, the end of a round, the goods
//! phase, the final scoring).
//!
//! `decide` never clones the state: the automatic steps read the state as it was before the
//! command, plus a small `Flow` overlay tracking what the events decided so far changed in
//! turn order and control.

use super::map::{LinkId, MAP};
use super::protocol::{Command, Company, CompanyAmount, Event, FinalProfit, Payment};
use super::state::{CompanyState, Phase, ROUNDS, State, Turns, cubes_per_round};
use super::transcontinental;
use crate::games::{Actor, RuleError, Seat};

pub const ERROR_CODES: &[(&str, &str)] = &[
    ("not_your_turn", "Another seat (or nobody) must act now."),
    (
        "wrong_step",
        "This command does not fit the current step of the game.",
    ),
    (
        "no_opening_bid",
        "An auction must be opened with a bid of at least 1 cube.",
    ),
    (
        "not_enough_cubes",
        "The bid is more cubes than the player holds.",
    ),
    (
        "bid_too_low",
        "A bid must be strictly higher than the current bid.",
    ),
    (
        "company_not_available",
        "That company's control marker is not in its box.",
    ),
    ("link_taken", "A company has already built that link."),
    (
        "no_track_left",
        "The company has used all 17 of its track pieces.",
    ),
    (
        "not_from_start_city",
        "A company's first link must start from a start city.",
    ),
    (
        "not_connected",
        "The link must touch a city on the company's network.",
    ),
    (
        "cost_exceeds_box",
        "The company's box holds fewer cubes than the link costs.",
    ),
    (
        "must_build",
        "The company can build a link, so it may not pass.",
    ),
    (
        "no_such_path",
        "There is no transcontinental path with that index.",
    ),
    (
        "city_not_on_network",
        "The city is not on the company's network.",
    ),
    ("no_goods_there", "That city holds no goods cube."),
    (
        "must_take_goods",
        "The company can take a goods cube, so it may not pass.",
    ),
    (
        "order_not_now",
        "A standing order for a round or phase that is over, or for a company another seat \
         controls.",
    ),
    (
        "invalid_order",
        "A standing order that could never play (a proxy bid with a limit of 0).",
    ),
];

fn error(code: &'static str, message: impl Into<String>) -> RuleError {
    debug_assert!(ERROR_CODES.iter().any(|(c, _)| *c == code));
    RuleError::new(code, message)
}

/// Values of a goods set by its number of colours.
pub const SET_VALUES: [u32; 6] = [0, 10, 30, 50, 100, 150];

/// The best split of goods into sets without repeated colours: set k holds every colour held
/// at least k times. Returns the set sizes (largest first) and their total value.
pub fn score_goods(goods: &[u8; 5]) -> (Vec<u8>, u32) {
    let most = goods.iter().copied().max().unwrap_or(0);
    let sets: Vec<u8> = (1..=most)
        .map(|k| goods.iter().filter(|&&g| g >= k).count() as u8)
        .collect();
    let value = sets.iter().map(|&s| SET_VALUES[usize::from(s)]).sum();
    (sets, value)
}

// ---------------------------------------------------------------------------------------
// Legality helpers shared by `decide`, `legal` and the bots.

/// Companies whose control marker is in its box (bit per company).
pub fn markers_in_boxes(state: &State) -> u8 {
    Company::ALL
        .into_iter()
        .filter(|&c| state.company(c).controller.is_none())
        .fold(0, |m, c| m | c.bit())
}

/// Every link `company` may build now.
pub fn buildable(state: &State, company: Company) -> u64 {
    let c = state.company(company);
    if c.track_left() == 0 {
        return 0;
    }
    let touching = if c.links == 0 {
        MAP.start_links
    } else {
        MAP.links_touching(c.cities)
    };
    touching & !state.built() & MAP.cost_at_most[c.cubes.min(6) as usize]
}

/// Why `company` may not build `link`, if it may not.
pub fn build_error(state: &State, company: Company, link: LinkId) -> Option<RuleError> {
    let c = state.company(company);
    let data = &MAP.links[link.index()];
    let name = &data.id;
    if let Some(owner) = Company::ALL
        .into_iter()
        .find(|&o| state.company(o).links & link.bit() != 0)
    {
        return Some(error(
            "link_taken",
            format!("{name} is already built by {owner:?}"),
        ));
    }
    if c.track_left() == 0 {
        return Some(error(
            "no_track_left",
            format!("{company:?} has no track pieces left"),
        ));
    }
    if c.links == 0 {
        if data.ends_mask() & MAP.start_cities == 0 {
            return Some(error(
                "not_from_start_city",
                format!("{company:?} has no track yet; its first link must touch a start city"),
            ));
        }
    } else if data.ends_mask() & c.cities == 0 {
        return Some(error(
            "not_connected",
            format!("{name} does not touch the network of {company:?}"),
        ));
    }
    if data.cost > c.cubes {
        return Some(error(
            "cost_exceeds_box",
            format!(
                "{name} costs {} cubes; the box of {company:?} holds {}",
                data.cost, c.cubes
            ),
        ));
    }
    None
}

/// The cities that building `link` newly connects to `company` and that score: every end not
/// yet on its network, except the start city of its very first link. When both ends of a
/// first link are start cities, the company starts from the one of lower value (ties: the
/// link's first end), the choice that scores more.
pub fn scoring_cities(company: &CompanyState, link: LinkId) -> u64 {
    let [a, b] = MAP.links[link.index()].ends;
    if company.links == 0 {
        let (ca, cb) = (&MAP.cities[a.index()], &MAP.cities[b.index()]);
        let start = match (ca.start, cb.start) {
            (true, true) if cb.value < ca.value => b,
            (true, _) => a,
            _ => b,
        };
        (a.bit() | b.bit()) & !start.bit()
    } else {
        (a.bit() | b.bit()) & !company.cities
    }
}

/// Goods cubes `company` may take now.
pub fn takeable(state: &State, company: Company) -> u64 {
    state.goods & state.company(company).cities
}

/// Who controls each company for the delivery: most shares; a tie goes to the tied player
/// nearest clockwise from the last controller (that player first); nobody without shares.
pub fn delivery_controllers(state: &State) -> [Option<Seat>; 6] {
    let mut result = [None; 6];
    for company in Company::ALL {
        let i = company.index();
        let most = state.players.iter().map(|p| p.shares[i]).max().unwrap_or(0);
        if most == 0 {
            continue;
        }
        let from = state.company(company).last_controller.unwrap_or(0);
        result[i] = (0..state.seats)
            .map(|k| (from + k) % state.seats)
            .find(|&s| state.players[usize::from(s)].shares[i] == most);
    }
    result
}

// ---------------------------------------------------------------------------------------
// The automatic steps.

/// What the events decided so far in this `decide` changed in control and turn order.
struct Flow {
    controllers: [Option<Seat>; 6],
    delivery: [Option<Seat>; 6],
    turns: Turns,
}

impl Flow {
    fn of(state: &State) -> Flow {
        Flow {
            controllers: state.companies.each_ref().map(|c| c.controller),
            delivery: state.companies.each_ref().map(|c| c.delivery_controller),
            turns: state.turns,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CompanyPhase {
    Building,
    Delivery,
}

/// Runs the company turns until a company someone controls is to act; passes the companies
/// nobody controls; ends the phase when all have passed.
fn run_turns(state: &State, flow: &mut Flow, events: &mut Vec<Event>, phase: CompanyPhase) {
    loop {
        let Some(company) = flow.turns.current() else {
            match phase {
                CompanyPhase::Building => end_round(state, flow, events),
                CompanyPhase::Delivery => end_game(state, flow, events),
            }
            return;
        };
        let controlled = match phase {
            CompanyPhase::Building => flow.controllers[company.index()].is_some(),
            CompanyPhase::Delivery => flow.delivery[company.index()].is_some(),
        };
        if controlled {
            return;
        }
        events.push(match phase {
            CompanyPhase::Building => Event::CompanyPassed {
                company,
                place: flow.turns.passes,
                automatic: true,
            },
            CompanyPhase::Delivery => Event::DeliveryPassed {
                company,
                automatic: true,
            },
        });
        flow.turns.pass(company);
    }
}

fn end_auctions(state: &State, flow: &mut Flow, events: &mut Vec<Event>, all_sold: bool) {
    events.push(Event::AuctionPhaseEnded { all_sold });
    flow.turns.start();
    run_turns(state, flow, events, CompanyPhase::Building);
}

/// Dividends, the end of the round, and the next round or the goods phase. Only reached
/// after a pass, so the state's profits and boxes are current.
fn end_round(state: &State, flow: &mut Flow, events: &mut Vec<Event>) {
    let payments = Company::ALL
        .into_iter()
        .filter_map(|company| {
            let seat = flow.controllers[company.index()]?;
            let amount = state.company(company).profit;
            (amount > 0).then_some(Payment {
                seat,
                company,
                shares: 1,
                amount,
            })
        })
        .collect();
    events.push(Event::DividendsPaid {
        round: state.round,
        payments,
    });
    let order = flow.turns.pass_order().to_vec();
    flow.turns.next_round(&order);
    events.push(Event::RoundEnded {
        round: state.round,
        order,
    });
    if state.round < ROUNDS {
        events.push(Event::RoundStarted {
            round: state.round + 1,
            cubes: cubes_per_round(state.seats),
        });
    } else {
        start_delivery(state, flow, events);
    }
}

fn start_delivery(state: &State, flow: &mut Flow, events: &mut Vec<Event>) {
    let cubes = Company::ALL
        .into_iter()
        .map(|company| CompanyAmount {
            company,
            amount: state.company(company).cubes,
        })
        .filter(|c| c.amount > 0)
        .collect();
    events.push(Event::BoxesEmptied { cubes });
    events.push(Event::GoodsPlaced {
        cities: State::city_list(state.cities_with_track()),
    });
    flow.delivery = delivery_controllers(state);
    events.push(Event::DeliveryControl {
        controllers: flow.delivery.to_vec(),
    });
    flow.turns.start();
    run_turns(state, flow, events, CompanyPhase::Delivery);
}

/// Final profits, final dividends and the result. Only reached after a pass, so the state's
/// goods are current.
fn end_game(state: &State, flow: &Flow, events: &mut Vec<Event>) {
    let profits: Vec<FinalProfit> = Company::ALL
        .into_iter()
        .map(|company| {
            let goods = state.company(company).goods;
            let (sets, profit) = score_goods(&goods);
            FinalProfit {
                company,
                goods,
                sets,
                profit,
            }
        })
        .collect();
    let mut scores: Vec<u32> = state.players.iter().map(|p| p.money).collect();
    let mut payments = Vec::new();
    for (seat, player) in state.players.iter().enumerate() {
        for p in &profits {
            let shares = player.shares[p.company.index()];
            if shares > 0 && p.profit > 0 {
                let amount = p.profit * u32::from(shares);
                scores[seat] += amount;
                payments.push(Payment {
                    seat: seat as Seat,
                    company: p.company,
                    shares,
                    amount,
                });
            }
        }
    }
    let goods: Vec<u32> = (0..state.seats)
        .map(|seat| {
            Company::ALL
                .into_iter()
                .filter(|c| flow.delivery[c.index()] == Some(seat))
                .map(|c| {
                    state
                        .company(c)
                        .goods
                        .iter()
                        .map(|&g| u32::from(g))
                        .sum::<u32>()
                })
                .sum()
        })
        .collect();
    let key = |s: usize| (scores[s], goods[s]);
    let ranks: Vec<u8> = (0..scores.len())
        .map(|s| 1 + (0..scores.len()).filter(|&t| key(t) > key(s)).count() as u8)
        .collect();
    let winners = (0..state.seats)
        .filter(|&s| ranks[usize::from(s)] == 1)
        .collect();
    events.push(Event::FinalProfits { profits });
    events.push(Event::FinalDividendsPaid { payments });
    events.push(Event::GameEnded {
        scores,
        goods,
        ranks,
        winners,
    });
}

// ---------------------------------------------------------------------------------------
// Commands.

pub fn decide(state: &State, actor: Actor, command: &Command) -> Result<Vec<Event>, RuleError> {
    if matches!(state.phase, Phase::Setup | Phase::Finished) {
        return Err(error(
            "wrong_step",
            if state.phase == Phase::Setup {
                "the game has not started"
            } else {
                "the game is over"
            },
        ));
    }
    let Actor::Seat(seat) = actor else {
        return Err(error(
            "not_your_turn",
            "Steel Driver has no system commands",
        ));
    };
    let expect = |ok: bool, what: &str| {
        if ok {
            Ok(())
        } else {
            Err(error("wrong_step", format!("{what} is not possible now")))
        }
    };
    let check_turn = || match state.to_act() {
        Some(s) if s == seat => Ok(()),
        Some(s) => Err(error("not_your_turn", format!("seat {s} must act now"))),
        None => Err(error("not_your_turn", "nobody may act now")),
    };
    let mut flow = Flow::of(state);
    let mut events = Vec::with_capacity(4);
    match *command {
        Command::OpenAuction { company, bid } => {
            expect(
                state.phase == Phase::Auction && state.auction.is_none(),
                "opening an auction",
            )?;
            check_turn()?;
            if state.company(company).controller.is_some() {
                return Err(error(
                    "company_not_available",
                    format!("the control marker of {company:?} is not in its box"),
                ));
            }
            if bid == 0 {
                return Err(error(
                    "no_opening_bid",
                    "an auction opens with a bid of at least 1 cube",
                ));
            }
            check_cubes(state, seat, bid)?;
            events.push(Event::AuctionOpened { seat, company, bid });
        }
        Command::PassPawn => {
            expect(
                state.phase == Phase::Auction && state.auction.is_none(),
                "passing the pawn",
            )?;
            check_turn()?;
            let to = state.left_of(seat);
            events.push(Event::PawnPassed { seat, to });
            if state.pawn_passes + 1 >= state.seats {
                end_auctions(state, &mut flow, &mut events, false);
            }
        }
        Command::Bid { bid } => {
            let Some(auction) = state.auction.filter(|_| state.phase == Phase::Auction) else {
                return Err(error("wrong_step", "no auction is running"));
            };
            check_turn()?;
            if bid <= auction.high_bid {
                return Err(error(
                    "bid_too_low",
                    format!("the bid must be more than {}", auction.high_bid),
                ));
            }
            check_cubes(state, seat, bid)?;
            events.push(Event::BidPlaced { seat, bid });
        }
        Command::PassBid => {
            let Some(auction) = state.auction.filter(|_| state.phase == Phase::Auction) else {
                return Err(error("wrong_step", "no auction is running"));
            };
            check_turn()?;
            events.push(Event::BidPassed { seat });
            if state.bidders_left() <= 1 {
                let company = auction.company;
                let winner = auction.high_bidder;
                events.push(Event::AuctionWon {
                    seat: winner,
                    company,
                    price: auction.high_bid,
                    pawn_to: state.left_of(auction.opener),
                });
                flow.controllers[company.index()] = Some(winner);
                if flow.controllers.iter().all(Option::is_some) {
                    end_auctions(state, &mut flow, &mut events, true);
                }
            }
        }
        Command::Build { link } => {
            let company = building_company(state, "building")?;
            check_turn()?;
            if let Some(e) = build_error(state, company, link) {
                return Err(e);
            }
            let c = state.company(company);
            let new = scoring_cities(c, link);
            events.push(Event::LinkBuilt {
                company,
                link,
                cost: MAP.links[link.index()].cost,
                new_cities: State::city_list(new),
                profit: MAP.value_of(new),
            });
            flow.turns.advance();
            if state.transcontinental.is_none()
                && transcontinental::joined(&MAP, state.built() | link.bit())
            {
                let mut links = state.companies.each_ref().map(|c| c.links);
                links[company.index()] |= link.bit();
                let mut options = transcontinental::best_paths(&MAP, &links);
                if options.len() > 1 {
                    events.push(Event::TranscontinentalTie { company, options });
                    return Ok(events);
                }
                events.push(bonus_event(company, options.remove(0)));
            }
            run_turns(state, &mut flow, &mut events, CompanyPhase::Building);
        }
        Command::PassBuild => {
            let company = building_company(state, "passing")?;
            check_turn()?;
            if buildable(state, company) != 0 {
                return Err(error(
                    "must_build",
                    format!("{company:?} can build and so must build"),
                ));
            }
            events.push(Event::CompanyPassed {
                company,
                place: flow.turns.passes,
                automatic: false,
            });
            flow.turns.pass(company);
            run_turns(state, &mut flow, &mut events, CompanyPhase::Building);
        }
        Command::ChoosePath { index } => {
            let Some(choice) = state.bonus_choice.as_ref() else {
                return Err(error(
                    "wrong_step",
                    "no transcontinental path is to be chosen",
                ));
            };
            check_turn()?;
            let Some(path) = choice.options.get(usize::from(index)) else {
                return Err(error(
                    "no_such_path",
                    format!("choose a path from 0 to {}", choice.options.len() - 1),
                ));
            };
            events.push(bonus_event(choice.company, path.clone()));
            run_turns(state, &mut flow, &mut events, CompanyPhase::Building);
        }
        Command::TakeGoods { city } => {
            let company = delivering_company(state)?;
            check_turn()?;
            if state.company(company).cities & city.bit() == 0 {
                return Err(error(
                    "city_not_on_network",
                    format!("{} is not on the network of {company:?}", city.city().name),
                ));
            }
            if state.goods & city.bit() == 0 {
                return Err(error(
                    "no_goods_there",
                    format!("{} holds no goods cube", city.city().name),
                ));
            }
            events.push(Event::GoodsTaken {
                company,
                city,
                colour: city.city().colour,
            });
            flow.turns.advance();
            run_turns(state, &mut flow, &mut events, CompanyPhase::Delivery);
        }
        Command::PassDelivery => {
            let company = delivering_company(state)?;
            check_turn()?;
            if takeable(state, company) != 0 {
                return Err(error(
                    "must_take_goods",
                    format!("{company:?} can take goods and so must take one"),
                ));
            }
            events.push(Event::DeliveryPassed {
                company,
                automatic: false,
            });
            flow.turns.pass(company);
            run_turns(state, &mut flow, &mut events, CompanyPhase::Delivery);
        }
    }
    Ok(events)
}

fn check_cubes(state: &State, seat: Seat, bid: u32) -> Result<(), RuleError> {
    let held = state.players[usize::from(seat)].cubes;
    if bid > held {
        return Err(error(
            "not_enough_cubes",
            format!("a bid of {bid} cubes, but seat {seat} holds {held}"),
        ));
    }
    Ok(())
}

/// The company to act in the building phase, when no path choice is pending.
fn building_company(state: &State, what: &str) -> Result<Company, RuleError> {
    match state.turns.current() {
        Some(company) if state.phase == Phase::Building && state.bonus_choice.is_none() => {
            Ok(company)
        }
        _ => Err(error("wrong_step", format!("{what} is not possible now"))),
    }
}

fn delivering_company(state: &State) -> Result<Company, RuleError> {
    match state.turns.current() {
        Some(company) if state.phase == Phase::Delivery => Ok(company),
        _ => Err(error("wrong_step", "the goods are not being delivered now")),
    }
}

/// The bonus for `path`, completed by `company`: $50 to it, $30 to each other company on it.
fn bonus_event(company: Company, path: super::protocol::TranscontinentalPath) -> Event {
    let mut bonuses = vec![CompanyAmount {
        company,
        amount: 50,
    }];
    bonuses.extend(
        path.companies
            .iter()
            .filter(|&&c| c != company)
            .map(|&c| CompanyAmount {
                company: c,
                amount: 30,
            }),
    );
    Event::TranscontinentalBonus {
        company,
        path,
        bonuses,
    }
}
