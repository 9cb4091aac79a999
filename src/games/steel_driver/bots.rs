//! The bots. Both only ever return a legal command for the seat to act (the helpers below
//! rely on that seat being the one `State::to_act` names).
//!
//! * `Random` picks uniformly among the legal choices (pass the pawn or open one of the
//!   companies; bid or pass; one of the buildable links; one of the goods), with a uniformly
//!   random bid size within the limits.
//! * `Sensible` values a company by the profit its box (plus a bid) could earn this round
//!   with a greedy build plan, bids while that beats what the cubes are worth, builds toward
//!   valuable cities and new colours, and takes the goods that raise its set score most.
//!
//! The sensible bot's standing orders ([`sensible_orders`]) are those of an experienced
//! player who answers ahead whatever it can: see there.

use super::decide::{buildable, markers_in_boxes, scoring_cities, takeable};
use super::map::{CityId, LinkId, MAP, bits};
use super::orders::best_goods;
use super::protocol::{Command, Company, Order};
use super::state::{Phase, ROUNDS, State};
use super::transcontinental::Sides;
use crate::games::{BotLevel, GameRng, Seat};

pub fn bot_command(state: &State, seat: Seat, level: BotLevel, rng: &mut GameRng) -> Command {
    if state.to_act() != Some(seat) {
        // Asked for a seat that is not to act (a caller bug): answer something `decide`
        // refuses rather than panic.
        return Command::PassPawn;
    }
    match level {
        BotLevel::Random => random(state, seat, rng),
        BotLevel::Sensible => sensible(state, seat, rng),
    }
}

fn pick_bit(set: u64, rng: &mut GameRng) -> u8 {
    let n = set.count_ones();
    let k = rng.below(n);
    bits(set).nth(k as usize).expect("k < number of bits")
}

fn random(state: &State, seat: Seat, rng: &mut GameRng) -> Command {
    let cubes = state.players[usize::from(seat)].cubes;
    match state.phase {
        Phase::Auction => match &state.auction {
            None => {
                let open = if cubes > 0 {
                    markers_in_boxes(state)
                } else {
                    0
                };
                let k = rng.below(open.count_ones() + 1);
                if k == 0 {
                    Command::PassPawn
                } else {
                    let company = Company::ALL
                        .into_iter()
                        .filter(|c| open & c.bit() != 0)
                        .nth(k as usize - 1)
                        .expect("k - 1 < number of open companies");
                    Command::OpenAuction {
                        company,
                        bid: 1 + rng.below(cubes),
                    }
                }
            }
            Some(a) => {
                if cubes > a.high_bid && rng.chance(1, 2) {
                    Command::Bid {
                        bid: a.high_bid + 1 + rng.below(cubes - a.high_bid),
                    }
                } else {
                    Command::PassBid
                }
            }
        },
        Phase::Building => {
            if let Some(choice) = &state.bonus_choice {
                return Command::ChoosePath {
                    index: rng.below(choice.options.len() as u32) as u8,
                };
            }
            let company = state.turns.current().expect("a company is to act");
            let links = buildable(state, company);
            if links == 0 {
                Command::PassBuild
            } else {
                Command::Build {
                    link: LinkId(pick_bit(links, rng)),
                }
            }
        }
        Phase::Delivery => {
            let company = state.turns.current().expect("a company is to act");
            let goods = takeable(state, company);
            if goods == 0 {
                Command::PassDelivery
            } else {
                Command::TakeGoods {
                    city: CityId(pick_bit(goods, rng)),
                }
            }
        }
        Phase::Setup | Phase::Finished => Command::PassPawn,
    }
}

/// What a cube in hand is worth to the sensible bot, in dollars, by round: cubes earn about
/// $10 each in track profit, less as the game runs out; in round 5 they are nearly worthless
/// (nothing is left to spend them on afterwards).
fn cube_value(round: u8) -> i64 {
    match round {
        1 => 8,
        2 => 7,
        3 => 6,
        4 => 5,
        _ => 1,
    }
}

/// What one share is worth at the end of the game, roughly (final dividends).
const SHARE_VALUE: i64 = 25;

/// A greedy build plan for `company` starting from its current network, ignoring the other
/// companies' future moves: returns `(cumulative cost, cumulative profit)` after each step.
fn plan(state: &State, company: Company, budget: u32) -> Vec<(u32, u32)> {
    let mut probe = state.company(company).clone();
    let mut built = state.built();
    let mut spent = 0;
    let mut profit = 0;
    let mut steps = Vec::new();
    while probe.track_left() > 0 {
        let touching = if probe.links == 0 {
            MAP.start_links
        } else {
            MAP.links_touching(probe.cities)
        };
        let left = budget - spent;
        let candidates = touching & !built & MAP.cost_at_most[left.min(6) as usize];
        let mut best: Option<(u8, u32, u32)> = None; // link, gain, cost
        for l in bits(candidates) {
            let cost = MAP.links[usize::from(l)].cost;
            let gain = MAP.value_of(scoring_cities(&probe, LinkId(l)));
            if gain == 0 {
                continue;
            }
            if best.is_none_or(|(_, g, c)| gain * c > g * cost) {
                best = Some((l, gain, cost));
            }
        }
        let Some((l, gain, cost)) = best else { break };
        built |= 1u64 << l;
        probe.links |= 1u64 << l;
        probe.cities |= MAP.links[usize::from(l)].ends_mask();
        spent += cost;
        profit += gain;
        steps.push((spent, profit));
    }
    steps
}

/// Profit a budget buys along a plan.
fn profit_within(steps: &[(u32, u32)], budget: u32) -> u32 {
    steps
        .iter()
        .take_while(|(cost, _)| *cost <= budget)
        .last()
        .map_or(0, |&(_, p)| p)
}

/// What bidding for `company` is worth to `seat`, over bids from `min_bid` to its cubes:
/// `(the bid with the best net value, the highest bid still worth paying, that best net)`;
/// `None` when no bid in range is worth it.
fn worth(state: &State, company: Company, seat: Seat, min_bid: u32) -> Option<(u32, u32, i64)> {
    let cubes = state.players[usize::from(seat)].cubes;
    if min_bid > cubes {
        return None;
    }
    let box_cubes = state.company(company).cubes;
    let steps = plan(state, company, box_cubes + cubes);
    let cv = cube_value(state.round);
    let share = SHARE_VALUE + 5 * i64::from(state.round);
    let mut best: Option<(u32, i64)> = None;
    let mut highest = None;
    for bid in min_bid..=cubes {
        let net = i64::from(profit_within(&steps, box_cubes + bid)) + share - cv * i64::from(bid);
        if net > 0 {
            highest = Some(bid);
            if best.is_none_or(|(_, n)| net > n) {
                best = Some((bid, net));
            }
        }
    }
    let (bid, net) = best?;
    Some((bid, highest?, net))
}

fn sensible(state: &State, seat: Seat, rng: &mut GameRng) -> Command {
    match state.phase {
        Phase::Auction => match &state.auction {
            None => {
                let open = markers_in_boxes(state);
                let best = Company::ALL
                    .into_iter()
                    .filter(|c| open & c.bit() != 0)
                    .filter_map(|c| worth(state, c, seat, 1).map(|(bid, _, net)| (c, bid, net)))
                    .max_by_key(|&(_, _, net)| net);
                match best {
                    Some((company, bid, _)) => Command::OpenAuction { company, bid },
                    None => Command::PassPawn,
                }
            }
            Some(a) => match worth(state, a.company, seat, a.high_bid + 1) {
                Some((_, highest, _)) if highest > a.high_bid => Command::Bid {
                    bid: a.high_bid + 1,
                },
                _ => Command::PassBid,
            },
        },
        Phase::Building => {
            if let Some(choice) = &state.bonus_choice {
                let mine = |c: &Company| state.company(*c).controller == Some(seat);
                let index = (0..choice.options.len())
                    .max_by_key(|&i| {
                        let path = &choice.options[i];
                        let own = path.companies.iter().filter(|c| mine(c)).count();
                        (
                            own,
                            std::cmp::Reverse(path.companies.len()),
                            std::cmp::Reverse(i),
                        )
                    })
                    .unwrap_or(0);
                return Command::ChoosePath { index: index as u8 };
            }
            let company = state.turns.current().expect("a company is to act");
            let links = buildable(state, company);
            if links == 0 {
                return Command::PassBuild;
            }
            Command::Build {
                link: LinkId(best_link(state, company, links, rng)),
            }
        }
        Phase::Delivery => {
            let company = state.turns.current().expect("a company is to act");
            let goods = takeable(state, company);
            if goods == 0 {
                return Command::PassDelivery;
            }
            let held = state.company(company).goods;
            // Others who could take the same cube and have not passed yet.
            let rivals = Company::ALL
                .into_iter()
                .filter(|&c| {
                    c != company
                        && !state.turns.has_passed(c)
                        && state.company(c).delivery_controller.is_some()
                })
                .fold(0u64, |m, c| m | state.company(c).cities);
            let options = bits(goods).map(|c| {
                let colour = MAP.cities[usize::from(c)].colour;
                (CityId(c), colour, rivals & (1u64 << c) != 0)
            });
            let city = best_goods(&held, options).expect("goods is not empty");
            Command::TakeGoods { city }
        }
        Phase::Setup | Phase::Finished => Command::PassPawn,
    }
}

/// The sensible choice of link: profit now, new colours for the goods at the end, the
/// transcontinental bonus, what it opens up next, and its cost.
fn best_link(state: &State, company: Company, links: u64, rng: &mut GameRng) -> u8 {
    let c = state.company(company);
    let built = state.built();
    let sides = state
        .transcontinental
        .is_none()
        .then(|| Sides::new(&MAP, built));
    let colours_held = bits(c.cities).fold(0u8, |m, city| {
        m | 1 << MAP.cities[usize::from(city)].colour.index()
    });
    let late = state.round >= ROUNDS - 1;
    let mut best = (i64::MIN, 0u8);
    for l in bits(links) {
        let link = LinkId(l);
        let data = &MAP.links[link.index()];
        let new = scoring_cities(c, link);
        let mut score = i64::from(MAP.value_of(new)) - 3 * i64::from(data.cost);
        let reached = (data.ends_mask() | c.cities) & !c.cities;
        for city in bits(reached) {
            let colour = MAP.cities[usize::from(city)].colour.index();
            if colours_held & (1 << colour) == 0 {
                score += if late { 25 } else { 12 };
            }
        }
        if sides.as_ref().is_some_and(|s| s.completes(&MAP, link)) {
            score += 50;
        }
        // Lookahead: the best city one more link beyond, at half weight.
        let frontier = data.ends_mask() & !c.cities;
        let beyond = MAP.links_touching(frontier) & !built & !link.bit();
        let ahead = bits(beyond)
            .map(|b| MAP.value_of(MAP.links[usize::from(b)].ends_mask() & !c.cities & !frontier))
            .max()
            .unwrap_or(0);
        score += i64::from(ahead) / 2;
        // A little noise keeps sensible bots from all playing the same game.
        score = score * 4 + i64::from(rng.below(3));
        if score > best.0 {
            best = (score, l);
        }
    }
    best.1
}

/// The standing orders of an experienced player, played by the sensible bot (for `kontor
/// simulate`). Whenever it looks at the game (its turn, or an occasion to answer ahead):
///
/// * in the auction phase, for every company still in its box, a proxy bid up to the highest
///   bid it would still pay (passing once outbid past it), or a pass where no bid is worth
///   it; and "pass the pawn this round" when it would open no auction;
/// * in the goods phase, a delivery order for every company it controls for the delivery.
///
/// These are the sensible bot's own choices, set ahead: its bid limit and its wish to open
/// only change when its cubes do, and its goods rule is the order's rule.
pub fn sensible_orders(state: &State, seat: Seat, orders: &[Order]) -> Vec<Order> {
    let mut next: Vec<Order> = orders.to_vec();
    let mut set = |order: Order| {
        next.retain(|old| !super::orders::replaces(&order, old));
        next.push(order);
    };
    match state.phase {
        Phase::Auction => {
            let round = state.round;
            let open = markers_in_boxes(state);
            let mut opens = false;
            for company in Company::ALL.into_iter().filter(|c| open & c.bit() != 0) {
                match worth(state, company, seat, 1) {
                    Some((_, limit, _)) => {
                        opens = true;
                        set(Order::ProxyBid {
                            round,
                            company,
                            limit,
                            pass_when_outbid: true,
                        });
                    }
                    None => set(Order::PassAuction { round, company }),
                }
            }
            if !opens {
                set(Order::PassPawn { round });
            }
        }
        Phase::Delivery => {
            for company in Company::ALL {
                if state.company(company).delivery_controller == Some(seat) {
                    set(Order::Deliver { company });
                }
            }
        }
        Phase::Setup | Phase::Building | Phase::Finished => {}
    }
    next
}
