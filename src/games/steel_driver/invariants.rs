//! The facts of section 5 of the specification (and a few more the engine relies on),
//! checked on any state. "Money never decreases" compares two states: see
//! [`check_progress`].

use super::map::{MAP, bits};
use super::protocol::Company;
use super::state::{Phase, ROUNDS, SHARES, State, TRACK_PIECES};

/// Checks the invariants of one state; the error says which fact fails.
pub fn check_invariants(state: &State) -> Result<(), String> {
    if state.phase == Phase::Setup {
        return Ok(());
    }
    if state.players.len() != usize::from(state.seats) {
        return Err(format!(
            "{} players for {} seats",
            state.players.len(),
            state.seats
        ));
    }

    // Each link is built by at most one company; every network is connected and, if it
    // has track, contains a start city.
    let mut built = 0u64;
    for company in Company::ALL {
        let c = state.company(company);
        if c.links & built != 0 {
            return Err(format!("{company:?} shares links with another company"));
        }
        built |= c.links;
        if c.links.count_ones() > TRACK_PIECES {
            return Err(format!("{company:?} has more than {TRACK_PIECES} links"));
        }
        if c.cities != MAP.cities_of(c.links) {
            return Err(format!("{company:?}'s cities do not match its links"));
        }
        if c.links != 0 {
            let first = bits(c.cities).next().expect("track has cities");
            if MAP.reach(super::map::CityId(first), c.links) != c.cities {
                return Err(format!("{company:?}'s network is not connected"));
            }
            if c.cities & MAP.start_cities == 0 {
                return Err(format!("{company:?}'s network has no start city"));
            }
        }
    }

    // Cubes are conserved.
    let in_hands: u32 = state.players.iter().map(|p| p.cubes).sum();
    let in_boxes: u32 = state.companies.iter().map(|c| c.cubes).sum();
    if state.cubes_handed_out != in_hands + in_boxes + state.cubes_spent + state.cubes_removed {
        return Err(format!(
            "cubes: {} handed out, but {in_hands} in hands + {in_boxes} in boxes + {} spent + {} removed",
            state.cubes_handed_out, state.cubes_spent, state.cubes_removed
        ));
    }
    let track_cost: u32 = bits(built).map(|l| MAP.links[usize::from(l)].cost).sum();
    if track_cost != state.cubes_spent {
        return Err(format!(
            "{} cubes spent but the track costs {track_cost}",
            state.cubes_spent
        ));
    }
    if matches!(state.phase, Phase::Delivery | Phase::Finished) && in_boxes != 0 {
        return Err("company boxes hold cubes after round 5".into());
    }

    // At most one share of each company per round; shares held match shares sold.
    for company in Company::ALL {
        let c = state.company(company);
        let held: u32 = state
            .players
            .iter()
            .map(|p| u32::from(p.shares[company.index()]))
            .sum();
        if held != u32::from(c.shares_sold) {
            return Err(format!(
                "{company:?}: {} shares sold, {held} held",
                c.shares_sold
            ));
        }
        if c.shares_sold > state.round.min(SHARES) {
            return Err(format!(
                "{company:?}: {} shares sold by round {}",
                c.shares_sold, state.round
            ));
        }
        if let Some(seat) = c.controller
            && (seat >= state.seats
                || state.players[usize::from(seat)].shares[company.index()] == 0)
        {
            return Err(format!(
                "{company:?} is controlled by seat {seat} without a share"
            ));
        }
    }

    // The transcontinental bonus is paid at most once.
    if state.bonuses_paid > 1 || state.transcontinental.is_some() != (state.bonuses_paid == 1) {
        return Err(format!(
            "the transcontinental bonus was paid {} times",
            state.bonuses_paid
        ));
    }

    if let Some(a) = &state.auction {
        if state.phase != Phase::Auction {
            return Err("an auction runs outside the auction phase".into());
        }
        if a.high_bid == 0 || a.high_bid > state.players[usize::from(a.high_bidder)].cubes {
            return Err(format!("the high bid {} is not covered", a.high_bid));
        }
        if a.out & (1 << a.high_bidder) != 0 {
            return Err("the high bidder has passed".into());
        }
        if state.company(a.company).controller.is_some() {
            return Err(format!("{:?} is auctioned but controlled", a.company));
        }
    }

    // Goods: only on cities with track; every placed cube is on the map or in a company.
    let with_track = state.cities_with_track();
    if state.goods & !with_track != 0 {
        return Err("a goods cube lies on a city without track".into());
    }
    if matches!(state.phase, Phase::Delivery | Phase::Finished) {
        let taken: u32 = state
            .companies
            .iter()
            .flat_map(|c| c.goods)
            .map(u32::from)
            .sum();
        if taken + state.goods.count_ones() != with_track.count_ones() {
            return Err(format!(
                "{taken} goods taken + {} on the map for {} cities with track",
                state.goods.count_ones(),
                with_track.count_ones()
            ));
        }
    }

    // The pass order lists each passed company once.
    let turns = &state.turns;
    let listed = turns.pass_order().iter().fold(0u8, |m, c| m | c.bit());
    if listed != turns.passed || listed.count_ones() != u32::from(turns.passes) {
        return Err("the pass order does not match the passed companies".into());
    }

    if (state.phase == Phase::Finished) != state.outcome.is_some() {
        return Err("an outcome exists exactly when the game is finished".into());
    }
    Ok(())
}

/// Facts between a state and the next: money never decreases, the bonus is never taken back,
/// and at most one share of each company is sold per round (a share is sold only with the
/// control marker as it leaves its box, and a marker goes back only at the end of a round).
pub fn check_progress(before: &State, after: &State) -> Result<(), String> {
    if before.phase == Phase::Setup {
        return Ok(());
    }
    for company in Company::ALL {
        let (b, a) = (before.company(company), after.company(company));
        if a.shares_sold > b.shares_sold
            && (a.shares_sold != b.shares_sold + 1
                || b.controller.is_some()
                || a.controller.is_none())
        {
            return Err(format!(
                "{company:?}: a share sold without its control marker leaving the box"
            ));
        }
        let round_ended = before.phase == Phase::Building
            && after.turns.active.is_none()
            && after.round == before.round
            && before.round < ROUNDS;
        if b.controller.is_some() && a.controller.is_none() && !round_ended {
            return Err(format!(
                "{company:?}: the control marker went back before the end of the round"
            ));
        }
    }
    for (seat, (a, b)) in before.players.iter().zip(&after.players).enumerate() {
        if b.money < a.money {
            return Err(format!(
                "seat {seat}'s money fell from {} to {}",
                a.money, b.money
            ));
        }
    }
    if after.bonuses_paid < before.bonuses_paid {
        return Err("the transcontinental bonus was taken back".into());
    }
    Ok(())
}
