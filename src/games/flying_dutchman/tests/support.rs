//! Small helpers to build positions and play commands in scenario tests.

use super::super::*;
use crate::games::testing::{Checked, When, given};
use crate::games::{GameRng, Rules, Seat};

impl Checked for FlyingDutchman {
    fn check(state: &State) -> Result<(), String> {
        check_invariants(state)
    }
}

/// A freshly set-up game (default options) with seat 0 as start player, on its first action.
pub fn new_game(seats: u8) -> State {
    new_game_with(Options::default(), seats)
}

pub fn new_game_with(options: Options, seats: u8) -> State {
    let mut rng = GameRng::from_u64(7);
    let events = FlyingDutchman::setup(&options, seats, &mut rng);
    let mut state = FlyingDutchman::fold(&events);
    state.start_player = 0;
    state.phase = Phase::Action { seat: 0 };
    state
}

/// `seat` submits `command` in `state` (the shared given/when/then harness).
pub fn when(state: &State, seat: Seat, command: Command) -> When<FlyingDutchman> {
    given::<FlyingDutchman>(state).when(seat, command)
}

/// Applies `command` by `seat` with a fixed generator; panics if it is refused.
pub fn act(state: &mut State, seat: Seat, command: Command) -> Vec<Event> {
    act_with(state, seat, command, 1)
}

pub fn act_with(state: &mut State, seat: Seat, command: Command, rng_seed: u64) -> Vec<Event> {
    let (next, events) = given::<FlyingDutchman>(state)
        .rng(rng_seed)
        .when(seat, command)
        .then_accepted();
    *state = next;
    events
}

/// A bid from signed faces: `bid(&[35, -1, 2])` = gold 35, minus silver 1, plus silver 2.
pub fn bid(faces: &[i32]) -> Command {
    Command::Bid {
        horseshoes: horseshoes(faces),
    }
}

pub fn horseshoes(faces: &[i32]) -> Vec<BidHorseshoe> {
    faces
        .iter()
        .map(|&f| BidHorseshoe {
            value: f.unsigned_abs() as u8,
            sign: if f < 0 { Sign::Minus } else { Sign::Plus },
        })
        .collect()
}

pub fn space(name: &str) -> SpaceId {
    board()
        .find(name)
        .unwrap_or_else(|| panic!("no space {name}"))
}

pub fn move_to(name: &str) -> Command {
    Command::Move { to: name.into() }
}

pub fn declare(name: &str) -> Command {
    Command::Declare { to: name.into() }
}

/// Puts the ghost ship on `here`, having come from `previous`.
pub fn ghost_at(state: &mut State, here: &str, previous: Option<&str>) {
    state.ghost = Some(space(here));
    state.previous = previous.map(space);
}

/// Gives `seat` exactly these horseshoe faces, swapping them with wherever they are (the
/// pool, the unused pile, other hands) so that all 60 stay accounted for. The pool absorbs a
/// change in hand size.
pub fn set_horseshoes(state: &mut State, seat: Seat, faces: &[u8]) {
    let mut spare = std::mem::take(&mut state.players[usize::from(seat)].horseshoes);
    let mut hand = Vec::new();
    for &face in faces {
        if let Some(i) = spare.iter().position(|&h| h == face) {
            hand.push(spare.remove(i));
            continue;
        }
        let swap = |slot: &mut u8, spare: &mut Vec<u8>| -> bool {
            if let Some(r) = spare.pop() {
                *slot = r;
                true
            } else {
                false
            }
        };
        if let Some(i) = state.pool.iter().position(|&h| h == face) {
            if !swap(&mut state.pool[i], &mut spare) {
                state.pool.remove(i);
            }
        } else if let Some(i) = state.unused.iter().position(|&h| h == face) {
            let replacement = spare.pop().or_else(|| state.pool.pop());
            match replacement {
                Some(r) => state.unused[i] = r,
                None => panic!("no horseshoe left to replace {face} in the unused pile"),
            }
        } else {
            let (other, i) = state
                .players
                .iter()
                .enumerate()
                .filter(|(o, _)| *o != usize::from(seat))
                .find_map(|(o, p)| p.horseshoes.iter().position(|&h| h == face).map(|i| (o, i)))
                .unwrap_or_else(|| panic!("horseshoe {face} is nowhere"));
            let replacement = spare.pop().or_else(|| state.pool.pop());
            let theirs = &mut state.players[other].horseshoes;
            match replacement {
                Some(r) => theirs[i] = r,
                None => {
                    theirs.remove(i);
                }
            }
            theirs.sort_unstable();
        }
        hand.push(face);
    }
    state.pool.extend(spare);
    hand.sort_unstable();
    state.players[usize::from(seat)].horseshoes = hand;
}

/// Gives `seat` exactly these three share cards (see [`set_hands`]).
pub fn set_shares(state: &mut State, seat: Seat, colours: &[Colour]) {
    set_hands(state, &[(seat, colours)]);
}

/// Gives these seats exactly these share cards, all at once. Every other seat gets the first
/// three cards still available; the rest forms the stack. Every colour keeps its N − 1 cards.
pub fn set_hands(state: &mut State, hands: &[(Seat, &[Colour])]) {
    let mut all: Vec<Colour> = state.share_stack.drain(..).collect();
    for p in &mut state.players {
        all.append(&mut p.shares);
    }
    for &(seat, hand) in hands {
        for &c in hand {
            let i = all
                .iter()
                .position(|&x| x == c)
                .unwrap_or_else(|| panic!("no {c:?} card left for seat {seat}"));
            all.remove(i);
        }
        state.players[usize::from(seat)].shares = hand.to_vec();
    }
    for (i, p) in state.players.iter_mut().enumerate() {
        if !hands.iter().any(|&(s, _)| usize::from(s) == i) {
            p.shares = all.drain(..3).collect();
        }
    }
    state.share_stack = all.into_iter().collect();
}

/// Sets a seat's coins, booking the difference with the bank so the ledger stays right.
pub fn set_coins(state: &mut State, seat: Seat, coins: i64) {
    let p = &mut state.players[usize::from(seat)];
    let delta = coins - p.coins;
    if delta > 0 {
        state.taken_from_bank += delta;
    } else {
        state.paid_to_bank -= delta;
    }
    p.coins = coins;
}

/// Makes a seat bankrupt before the position (as if at the first landing).
pub fn make_bankrupt(state: &mut State, seat: Seat) {
    set_coins(state, seat, 0);
    let p = &mut state.players[usize::from(seat)];
    p.bankrupt_at = Some(0);
    p.smith_cards = 0;
    p.kontor_cards = 0;
}

/// The events of one kind (by serde tag).
pub fn tags(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}
