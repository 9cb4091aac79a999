//! Positions and commands for the scenario tests, over the shared harness
//! (`crate::games::testing`).

use super::super::state::{Phase, cubes_per_round};
use super::super::*;
use crate::games::Seat;
use crate::games::testing::{Checked, When, given};

impl Checked for SteelDriver {
    fn check(state: &State) -> Result<(), String> {
        check_invariants(state)
    }
}

/// A new game after setup, with `first` holding the pawn, in `round` (normally 1).
pub fn game_in_round(seats: u8, first: Seat, round: u8) -> State {
    SteelDriver::fold(&[
        Event::GameStarted {
            seats,
            options: Options::default(),
            first_player: first,
        },
        Event::RoundStarted {
            round,
            cubes: cubes_per_round(seats),
        },
    ])
}

pub fn new_game(seats: u8, first: Seat) -> State {
    game_in_round(seats, first, 1)
}

/// `seat` submits `command` in `state` (the shared given/when/then harness).
pub fn when(state: &State, seat: Seat, command: Command) -> When<SteelDriver> {
    given::<SteelDriver>(state).rng(0).when(seat, command)
}

/// Plays a command that must be legal; applies and returns its events.
pub fn act(state: &mut State, seat: Seat, command: Command) -> Vec<Event> {
    let (next, events) = when(state, seat, command).then_accepted();
    *state = next;
    events
}

pub fn link(id: &str) -> LinkId {
    MAP.link(id).unwrap_or_else(|| panic!("no link {id}"))
}

pub fn city(id: &str) -> CityId {
    MAP.city(id).unwrap_or_else(|| panic!("no city {id}"))
}

pub fn build(id: &str) -> Command {
    Command::Build { link: link(id) }
}

/// Gives a player extra cubes (as if handed out).
pub fn give_cubes(state: &mut State, seat: Seat, cubes: u32) {
    state.players[usize::from(seat)].cubes += cubes;
    state.cubes_handed_out += cubes;
}

/// Lays track for a company as if it had been built earlier.
pub fn give_track(state: &mut State, company: Company, links: &[&str]) {
    for id in links {
        let l = link(id);
        let cost = MAP.links[l.index()].cost;
        let c = &mut state.companies[company.index()];
        c.links |= l.bit();
        c.cities |= MAP.links[l.index()].ends_mask();
        state.cubes_spent += cost;
        state.cubes_handed_out += cost;
    }
}

/// `seat` wins `company` for `bid` cubes: it gets the pawn, opens, and everyone passes.
pub fn win(state: &mut State, seat: Seat, company: Company, bid: u32) -> Vec<Event> {
    state.pawn = seat;
    state.pawn_passes = 0;
    let mut events = act(state, seat, Command::OpenAuction { company, bid });
    while let Some(a) = state.auction {
        events.extend(act(state, a.to_act, Command::PassBid));
    }
    events
}

/// Everyone passes the pawn until the auction phase of this round ends.
pub fn close_auctions(state: &mut State) -> Vec<Event> {
    let round = state.round;
    let mut events = Vec::new();
    while state.phase == Phase::Auction && state.round == round {
        let seat = state.pawn;
        events.extend(act(state, seat, Command::PassPawn));
    }
    events
}

pub fn pending(state: &State) -> Vec<Seat> {
    SteelDriver::pending(state)
}
