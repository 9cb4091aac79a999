//! An independent referee over bot games: each event is checked against the rule of the
//! specification that produced it, re-derived from the position before the event without the
//! engine's helpers (auction turn order and the pawn, building legality and profit, automatic
//! and forced passes, dividends, the end of a round, the goods phase and the result).
//! `props` covers `legal` against `decide` and the bonus paths by brute force.

use super::super::decide::buildable;
use super::super::map::MAP;
use super::super::protocol::{Company, Event};
use super::super::state::{Phase, ROUNDS, State, cubes_per_round};
use super::super::*;
use crate::games::Seat;
use crate::games::testing::judge_bot_games;

fn ensure(ok: bool, rule: &str) -> Result<(), String> {
    if ok { Ok(()) } else { Err(rule.to_string()) }
}

/// What the referee remembers of the round so far.
#[derive(Default)]
struct Notes {
    pawn_passes: u8,
    /// Seats still in the running auction.
    in_auction: Vec<bool>,
    /// The seat that acted last in the running auction.
    last_bidder: Seat,
    /// Companies in the order they passed this phase.
    passed: Vec<Company>,
}

fn check(notes: &mut Notes, before: &State, after: &State, event: &Event) -> Result<(), String> {
    let n = before.seats;
    let left = |s: Seat| (s + 1) % n;
    match event {
        Event::RoundStarted { round, cubes } => {
            ensure(
                *cubes == cubes_per_round(n) && *round == before.round + 1,
                "10/8/7/6 cubes each round",
            )?;
            ensure(after.pawn == before.pawn, "the pawn stays where it is")?;
            notes.pawn_passes = 0;
        }
        Event::PawnPassed { seat, to } => {
            ensure(
                *seat == before.pawn && *to == left(*seat) && before.auction.is_none(),
                "the pawn holder passes the pawn to the left",
            )?;
            notes.pawn_passes += 1;
        }
        Event::AuctionOpened { seat, company, bid } => {
            ensure(
                *seat == before.pawn && before.company(*company).controller.is_none(),
                "the pawn holder opens a company whose marker is in its box",
            )?;
            ensure(
                (1..=before.players[usize::from(*seat)].cubes).contains(bid),
                "an opening bid of 1 to the cubes held",
            )?;
            notes.in_auction = vec![true; usize::from(n)];
            notes.last_bidder = *seat;
        }
        Event::BidPlaced { seat, .. } | Event::BidPassed { seat } => {
            let a = before.auction.ok_or("no auction runs")?;
            // Clockwise from the last bidder: the next seat still in, the high bidder skipped.
            let expected = (1..=n)
                .map(|k| (notes.last_bidder + k) % n)
                .find(|&s| notes.in_auction[usize::from(s)] && s != a.high_bidder);
            ensure(expected == Some(*seat), "bidding goes clockwise")?;
            if let Event::BidPlaced { bid, .. } = event {
                ensure(
                    *bid > a.high_bid && *bid <= before.players[usize::from(*seat)].cubes,
                    "a bid is strictly higher and at most the cubes held",
                )?;
            } else {
                notes.in_auction[usize::from(*seat)] = false;
            }
            notes.last_bidder = *seat;
        }
        Event::AuctionWon {
            seat,
            company,
            price,
            pawn_to,
        } => {
            let a = before.auction.ok_or("no auction runs")?;
            let still_in: Vec<Seat> = (0..n)
                .filter(|&s| notes.in_auction[usize::from(s)])
                .collect();
            ensure(
                still_in == [*seat] && *seat == a.high_bidder && *price == a.high_bid,
                "won when all but the high bidder have passed, at the high bid",
            )?;
            ensure(
                *company == a.company && *pawn_to == left(a.opener),
                "the pawn goes to the opener's left",
            )?;
            let (b, w) = (
                &before.players[usize::from(*seat)],
                &after.players[usize::from(*seat)],
            );
            ensure(
                w.cubes + price == b.cubes
                    && after.company(*company).cubes == before.company(*company).cubes + price
                    && w.shares[company.index()] == b.shares[company.index()] + 1
                    && after.company(*company).controller == Some(*seat),
                "the winner pays into the box and takes the marker and one share",
            )?;
            for (i, (pb, pa)) in before.players.iter().zip(&after.players).enumerate() {
                ensure(
                    i == usize::from(*seat) || pb.cubes == pa.cubes,
                    "others pay nothing",
                )?;
            }
            notes.pawn_passes = 0;
        }
        Event::AuctionPhaseEnded { all_sold } => {
            let sold = Company::ALL
                .iter()
                .all(|&c| before.company(c).controller.is_some());
            ensure(
                *all_sold == sold && (sold || notes.pawn_passes == n),
                "the auctions end after a full circle of passes or all six sold",
            )?;
            notes.passed.clear();
        }
        Event::LinkBuilt {
            company,
            link,
            cost,
            new_cities,
            profit,
        } => {
            let c = before.company(*company);
            ensure(
                before.turns.current() == Some(*company) && c.controller.is_some(),
                "the company to act builds, by its controller",
            )?;
            let data = &MAP.links[link.index()];
            ensure(
                before.built() & link.bit() == 0
                    && *cost == data.cost
                    && c.cubes >= *cost
                    && c.links.count_ones() < 17,
                "a free link, paid from the box, with a track piece left",
            )?;
            let ends = data.ends_mask();
            let new = new_cities.iter().fold(0u64, |m, c| m | c.bit());
            if c.links == 0 {
                ensure(
                    ends & MAP.start_cities != 0,
                    "the first link from a start city",
                )?;
                let unscored = ends & !new;
                ensure(
                    unscored.count_ones() == 1
                        && unscored & MAP.start_cities != 0
                        && new & !ends == 0,
                    "every end scores except the start city of the first link",
                )?;
            } else {
                ensure(ends & c.cities != 0, "a link touches the network")?;
                ensure(new == ends & !c.cities, "every newly connected city scores")?;
            }
            ensure(
                *profit == MAP.value_of(new),
                "profit = value of the new cities",
            )?;
            ensure(
                after.company(*company).cubes + cost == c.cubes,
                "the cost goes from the box to the supply",
            )?;
        }
        Event::CompanyPassed {
            company, automatic, ..
        } => {
            ensure(
                before.turns.current() == Some(*company),
                "a company passes on its turn",
            )?;
            let controlled = before.company(*company).controller.is_some();
            ensure(
                *automatic != controlled,
                "only a company nobody controls passes alone",
            )?;
            ensure(
                !controlled || buildable(before, *company) == 0,
                "a company that can build must build",
            )?;
            notes.passed.push(*company);
        }
        Event::DividendsPaid { payments, .. } => {
            for c in Company::ALL {
                let st = before.company(c);
                let paid: Vec<(Seat, u32)> = payments
                    .iter()
                    .filter(|p| p.company == c)
                    .map(|p| (p.seat, p.amount))
                    .collect();
                let expected: Vec<(Seat, u32)> = st
                    .controller
                    .filter(|_| st.profit > 0)
                    .map(|s| (s, st.profit))
                    .into_iter()
                    .collect();
                ensure(
                    paid == expected,
                    "each controller receives the round profit",
                )?;
            }
        }
        Event::RoundEnded { round, order } => {
            ensure(
                *order == notes.passed && order.len() == 6,
                "the pass order is the next company order",
            )?;
            for c in Company::ALL {
                let (b, a) = (before.company(c), after.company(c));
                ensure(a.profit == 0, "profits reset")?;
                let expected = if *round < ROUNDS { None } else { b.controller };
                ensure(
                    a.controller == expected,
                    "markers back, except after round 5",
                )?;
            }
        }
        Event::GoodsPlaced { cities } => {
            ensure(
                before.companies.iter().all(|c| c.cubes == 0),
                "the boxes are emptied first",
            )?;
            let placed = cities.iter().fold(0u64, |m, c| m | c.bit());
            ensure(
                placed == before.cities_with_track(),
                "goods on every city with track",
            )?;
        }
        Event::DeliveryControl { controllers } => {
            for c in Company::ALL {
                let i = c.index();
                let most = before
                    .players
                    .iter()
                    .map(|p| p.shares[i])
                    .max()
                    .unwrap_or(0);
                let expected = (most > 0).then(|| {
                    let from = before.company(c).last_controller.unwrap_or(0);
                    (0..n)
                        .map(|k| (from + k) % n)
                        .find(|&s| before.players[usize::from(s)].shares[i] == most)
                });
                ensure(
                    controllers[i] == expected.flatten(),
                    "most shares; ties clockwise from the last controller",
                )?;
            }
            notes.passed.clear();
        }
        Event::GoodsTaken {
            company,
            city,
            colour,
        } => {
            ensure(
                before.turns.current() == Some(*company)
                    && before.company(*company).delivery_controller.is_some()
                    && before.goods & city.bit() != 0
                    && before.company(*company).cities & city.bit() != 0
                    && *colour == city.city().colour,
                "a company takes one goods cube from its network, in company order",
            )?;
        }
        Event::DeliveryPassed { company, automatic } => {
            ensure(
                before.turns.current() == Some(*company),
                "a company passes on its turn",
            )?;
            let controlled = before.company(*company).delivery_controller.is_some();
            ensure(
                *automatic != controlled
                    && (!controlled || before.goods & before.company(*company).cities == 0),
                "goods are mandatory when possible",
            )?;
        }
        Event::FinalDividendsPaid { payments } => {
            for (seat, p) in before.players.iter().enumerate() {
                for c in Company::ALL {
                    let paid: u32 = payments
                        .iter()
                        .filter(|x| usize::from(x.seat) == seat && x.company == c)
                        .map(|x| x.amount)
                        .sum();
                    ensure(
                        paid == u32::from(p.shares[c.index()]) * before.company(c).final_profit,
                        "final dividends = final profit x shares",
                    )?;
                }
            }
        }
        Event::GameEnded {
            scores,
            goods,
            winners,
            ..
        } => {
            let mut keys = Vec::new();
            for s in 0..n {
                let held: u32 = Company::ALL
                    .iter()
                    .filter(|&&c| after.company(c).delivery_controller == Some(s))
                    .map(|&c| {
                        after
                            .company(c)
                            .goods
                            .iter()
                            .map(|&g| u32::from(g))
                            .sum::<u32>()
                    })
                    .sum();
                let money = after.players[usize::from(s)].money;
                ensure(
                    scores[usize::from(s)] == money && goods[usize::from(s)] == held,
                    "scores and the goods tie-break",
                )?;
                keys.push((money, held));
            }
            let best = keys.iter().max().copied();
            let top: Vec<Seat> = (0..n)
                .filter(|&s| Some(keys[usize::from(s)]) == best)
                .collect();
            ensure(
                *winners == top,
                "most money, then most goods; then a shared win",
            )?;
        }
        _ => {}
    }
    Ok(())
}

#[test]
fn every_event_follows_its_rule_in_bot_games() {
    judge_bot_games::<SteelDriver, Notes>(
        9_000_000,
        150,
        |_| Options::default(),
        |notes, before, after, event| {
            if before.phase == Phase::Setup {
                return Ok(());
            }
            check(notes, before, after, event)
        },
    );
}
