//! Forced moves and standing orders (`RULES.md`, "Standing orders and forced moves"):
//! scenarios through the given/when/then harness, and properties over bot games.

use super::super::state::Phase;
use super::super::*;
use super::scenarios::{end_of_round_five, red_and_blue};
use super::support::*;
use crate::games::testing::bot_game_positions;
use crate::games::{Forced, Reason, Rules, Seat};
use Company::*;

fn forced(state: &State, seat: Seat) -> Option<Forced<Command>> {
    SteelDriver::forced(state, seat)
}

/// The forced move of `seat`: its command and reason; and `decide` accepts it.
fn assert_forced(state: &State, seat: Seat, command: Command, reason: Reason) {
    let f = forced(state, seat).unwrap_or_else(|| panic!("seat {seat} has a choice"));
    assert_eq!((&f.command, &f.reason), (&command, &reason));
    when(state, seat, command).then_accepted();
}

// ---------------------------------------------------------------------------------------
// Forced moves.

#[test]
fn a_pawn_holder_without_cubes_must_pass_the_pawn() {
    let mut state = new_game(4, 0);
    win(&mut state, 0, Red, 8);
    for seat in 1..4 {
        assert_eq!(forced(&state, seat), None, "seat {seat} holds 8 cubes");
        act(&mut state, seat, Command::PassPawn);
    }
    assert_eq!(state.pawn, 0);
    assert_forced(&state, 0, Command::PassPawn, Reason::new("no_cubes"));
}

#[test]
fn a_bidder_who_cannot_outbid_must_pass_and_is_told_the_high_bid() {
    let mut state = new_game(4, 0);
    act(
        &mut state,
        0,
        Command::OpenAuction {
            company: Red,
            bid: 7,
        },
    );
    // Seat 1 holds 8 cubes: it may bid 8 or pass.
    assert_eq!(forced(&state, 1), None);
    act(&mut state, 1, Command::Bid { bid: 8 });
    // Seat 2 holds 8 cubes too, and 8 is the bid to beat.
    assert_forced(
        &state,
        2,
        Command::PassBid,
        Reason::new("cannot_outbid")
            .with("company", Red)
            .with("high_bid", 8)
            .with("cubes", 8),
    );
    let reason = forced(&state, 2).unwrap().reason;
    assert_eq!(
        serde_json::to_value(&reason).unwrap(),
        serde_json::json!({
            "code": "cannot_outbid",
            "params": {"company": "red", "high_bid": 8, "cubes": 8}
        })
    );
    // Only the seat to act is ever forced.
    assert_eq!(forced(&state, 3), None);
}

#[test]
fn a_company_that_cannot_build_must_pass_and_one_with_one_link_must_build_it() {
    // Red's box holds 5: of the links touching Seattle and Portland, SEA-BOI costs 6 and
    // Blue built POR-SAC, so POR-BOI is the only one.
    let mut state = red_and_blue(5, 1);
    give_track(&mut state, Red, &["SEA-POR"]);
    give_track(&mut state, Blue, &["SAC-SFO", "POR-SAC"]);
    assert_forced(
        &state,
        0,
        build("POR-BOI"),
        Reason::new("only_link")
            .with("company", Red)
            .with("link", link("POR-BOI")),
    );
    act(&mut state, 0, build("POR-BOI"));
    // Blue holds 1 cube: nothing is affordable.
    assert_forced(
        &state,
        1,
        Command::PassBuild,
        Reason::new("cannot_build")
            .with("company", Blue)
            .with("cubes", 1)
            .with("track_left", 15),
    );
    // With two links to choose from, nothing is forced.
    let state = red_and_blue(10, 1);
    assert_eq!(forced(&state, 0), None);
}

#[test]
fn a_company_with_one_goods_cube_in_reach_must_take_it_and_with_none_must_pass() {
    let mut state = State::default();
    end_of_round_five(&mut state);
    // Red reaches four cities with goods: a choice.
    assert_eq!(forced(&state, 0), None);
    act(&mut state, 0, Command::TakeGoods { city: city("SFO") });
    // Yellow (SFO-LAX) is left with Los Angeles.
    assert_forced(
        &state,
        1,
        Command::TakeGoods { city: city("LAX") },
        Reason::new("only_goods")
            .with("company", Yellow)
            .with("city", city("LAX")),
    );
    act(&mut state, 1, Command::TakeGoods { city: city("LAX") });
    act(&mut state, 0, Command::TakeGoods { city: city("SEA") });
    assert_forced(
        &state,
        1,
        Command::PassDelivery,
        Reason::new("no_goods").with("company", Yellow),
    );
    act(&mut state, 1, Command::PassDelivery);
    act(&mut state, 0, Command::TakeGoods { city: city("POR") });
    act(&mut state, 0, Command::TakeGoods { city: city("SAC") });
    assert_forced(
        &state,
        0,
        Command::PassDelivery,
        Reason::new("no_goods").with("company", Red),
    );
    act(&mut state, 0, Command::PassDelivery);
    assert_eq!(state.phase, Phase::Finished);
}

/// How many different commands `legal` offers `seat`.
fn choices(state: &State, seat: Seat) -> usize {
    let range = |from: u32, to: u32| (to + 1).saturating_sub(from) as usize;
    match SteelDriver::legal(state, seat) {
        Legal::Wait => 0,
        Legal::OpenAuction {
            companies,
            min_bid,
            max_bid,
            can_pass,
            ..
        } => companies.len() * range(min_bid, max_bid) + usize::from(can_pass),
        Legal::Bid {
            min_bid,
            cubes,
            can_bid,
            can_pass,
            ..
        } => usize::from(can_bid) * range(min_bid, cubes) + usize::from(can_pass),
        Legal::Build {
            links, can_pass, ..
        } => links.len() + usize::from(can_pass),
        Legal::ChoosePath { options, .. } => options.len(),
        Legal::TakeGoods {
            goods, can_pass, ..
        } => goods.len() + usize::from(can_pass),
    }
}

/// Over bot games of every table size: a seat's move is forced exactly when `legal` offers it
/// one command, the forced command is that one (`decide` accepts it), and a seat that is not
/// to act is never forced.
#[test]
fn a_move_is_forced_exactly_when_the_rules_leave_one() {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for seats in 3..=6 {
        for game in 0..25 {
            let seed = 37_000 + u64::from(seats) * 100 + game;
            let mut failure = None;
            bot_game_positions::<SteelDriver>(&Options::default(), seats, game, seed, |s| {
                for seat in 0..seats {
                    let f = forced(s, seat);
                    let n = choices(s, seat);
                    if f.is_some() != (n == 1) {
                        failure.get_or_insert(format!("seat {seat}: {n} choices, forced {f:?}"));
                    }
                    if let Some(f) = f {
                        *seen.entry(f.reason.code.clone()).or_default() += 1;
                        if when(s, seat, f.command.clone()).result().is_err() {
                            failure.get_or_insert(format!("{f:?} is refused"));
                        }
                    }
                }
            });
            assert_eq!(failure, None, "{seats} seats, seed {seed}");
        }
    }
    // Every forced reason occurs, but a single tied path (ties have two or more).
    for code in forced_codes() {
        if code != "only_path" {
            assert!(seen.contains_key(code), "no {code} in the games: {seen:?}");
        }
    }
}

/// The reasons of forced moves among `AUTO_CODES`.
fn forced_codes() -> Vec<&'static str> {
    SteelDriver::AUTO_CODES
        .iter()
        .filter(|(_, meaning)| meaning.starts_with("Forced:"))
        .map(|(code, _)| *code)
        .collect()
}

#[test]
fn auto_codes_are_unique_and_documented() {
    let codes: Vec<&str> = SteelDriver::AUTO_CODES.iter().map(|(c, _)| *c).collect();
    let unique: std::collections::BTreeSet<&str> = codes.iter().copied().collect();
    assert_eq!(unique.len(), codes.len());
    assert!(SteelDriver::AUTO_CODES.iter().all(|(c, m)| !m.is_empty()
        && c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_')));
    assert_eq!(forced_codes().len(), 7);
}
