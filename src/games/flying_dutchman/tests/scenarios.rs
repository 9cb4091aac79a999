//! One scenario per rule: given a position, when a command, then these events or this error.

use super::super::*;
use super::support::*;
use crate::games::{Actor, GameRng, Rules, Seat, Viewer};
use Colour::*;

/// Lets these seats pass: four horseshoes each (1, 1, 2, 2 where possible).
fn able_to_pass(state: &mut State, seats: &[Seat]) {
    for &seat in seats {
        let small: Vec<u8> = state.players[usize::from(seat)]
            .horseshoes
            .iter()
            .copied()
            .take(4)
            .collect();
        set_horseshoes(state, seat, &small);
    }
}

/// Puts the game on `landings` ship landings: the round marker and every value marker
/// `landings` chests on from chest 2.
fn after_landings(state: &mut State, landings: u8) {
    let position = state.options.value_track.start() + landings;
    state.round_marker = position;
    state.markers = [position; 6];
    state.ship_landings = landings;
}

/// A bid of the seat's lowest horseshoe.
fn bid_lowest(state: &State, seat: Seat) -> Command {
    bid(&[i32::from(state.players[usize::from(seat)].horseshoes[0])])
}

fn event_of<'a>(events: &'a [Event], tag: &str) -> &'a Event {
    let i = tags(events)
        .iter()
        .position(|t| t == tag)
        .unwrap_or_else(|| panic!("no {tag} in {:?}", tags(events)));
    &events[i]
}

// ---------------------------------------------------------------- actions

#[test]
fn a_pass_with_five_horseshoes_is_refused_and_with_four_allowed() {
    let mut state = new_game(3);
    set_horseshoes(&mut state, 0, &[1, 1, 10, 10, 30]);
    when(&state, 0, Command::Pass).then_refused("too_many_horseshoes_to_pass");
    assert_eq!(FlyingDutchman::pass_command(&state, 0), None);

    set_horseshoes(&mut state, 0, &[1, 1, 10, 30]);
    assert_eq!(FlyingDutchman::pass_command(&state, 0), Some(Command::Pass));
    let events = act(&mut state, 0, Command::Pass);
    assert_eq!(events, [Event::Passed { seat: 0 }]);
    assert_eq!(state.phase, Phase::Action { seat: 1 });
}

#[test]
fn a_bid_with_two_gold_horseshoes_is_refused() {
    let mut state = new_game(3);
    set_horseshoes(&mut state, 0, &[1, 10, 30, 31]);
    when(&state, 0, bid(&[30, 31])).then_refused("two_gold_horseshoes");
    when(&state, 0, bid(&[30, 31, 1])).then_refused("two_gold_horseshoes");
    // One gold and signed silver is fine.
    act(&mut state, 0, bid(&[30, -1, 10]));
    assert_eq!(state.players[0].action, Some(ActionTaken::Bid { size: 3 }));
}

#[test]
fn malformed_bids_are_refused() {
    let mut state = new_game(3);
    set_horseshoes(&mut state, 0, &[1, 10, 30]);
    when(&state, 0, bid(&[])).then_refused("empty_bid");
    when(&state, 0, bid(&[-30])).then_refused("negative_gold");
    when(&state, 0, bid(&[20])).then_refused("unknown_horseshoe");
    when(&state, 0, bid(&[1, 1])).then_refused("unknown_horseshoe");
    when(&state, 0, bid(&[5])).then_refused("unknown_horseshoe");
    when(&state, 0, bid(&[49])).then_refused("unknown_horseshoe");
}

#[test]
fn a_bid_shows_its_size_to_others_and_its_horseshoes_to_the_bidder_only() {
    let mut state = new_game(3);
    set_horseshoes(&mut state, 0, &[1, 10, 30]);
    let events = act(&mut state, 0, bid(&[30, -1]));
    let for_other = FlyingDutchman::redact(&events[0], Viewer::Seat(1)).unwrap();
    assert_eq!(
        for_other,
        Event::BidPlaced {
            seat: 0,
            size: 2,
            horseshoes: None
        }
    );
    assert_eq!(
        FlyingDutchman::redact(&events[0], Viewer::Seat(0)).unwrap(),
        events[0]
    );
    let view = FlyingDutchman::view(&state, Viewer::Seat(1));
    assert_eq!(view.players[0].action, Some(ActionTaken::Bid { size: 2 }));
    assert_eq!(view.players[0].sealed_bid, None);
    assert_eq!(view.players[0].horseshoes, None);
    assert_eq!(view.players[0].horseshoe_count, 1);
    let own = FlyingDutchman::view(&state, Viewer::Seat(0));
    assert_eq!(own.players[0].sealed_bid, Some(horseshoes(&[30, -1])));
    assert_eq!(own.players[0].horseshoes, Some(vec![10]));
}

#[test]
fn the_wrong_seat_and_the_wrong_step_are_refused() {
    let mut state = new_game(4);
    when(&state, 2, Command::UseSmith).then_refused("not_your_turn");
    when(&state, 9, Command::UseSmith).then_refused("unknown_seat");
    when(&state, 0, move_to("BLU_2")).then_refused("wrong_step");
    when(&state, 0, Command::DropOut).then_refused("wrong_step");
    when(&state, 0, Command::ReturnShares { cards: vec![] }).then_refused("wrong_step");
    let mut rng = GameRng::from_u64(1);
    let system = FlyingDutchman::decide(&state, Actor::System, &Command::NoAgreement, &mut rng);
    assert_eq!(system.unwrap_err().code, "not_your_turn");
    assert_eq!(
        FlyingDutchman::decide(&State::default(), Actor::Seat(0), &Command::Pass, &mut rng)
            .unwrap_err()
            .code,
        "game_not_started"
    );
    // A seat that is not pending has nothing to do.
    let legal = FlyingDutchman::legal(&state, 2);
    assert_eq!(legal.decision, Decision::None);
    assert!(legal.commands.is_empty());
    state.players[0].smith_cards = 0;
    when(&state, 0, Command::UseSmith).then_refused("no_smith_card");
    state.players[0].kontor_cards = 0;
    when(&state, 0, Command::UseKontor).then_refused("no_kontor_card");
    let legal = FlyingDutchman::legal(&state, 0);
    assert_eq!(legal.commands, [CommandKind::Bid]);
}

#[test]
fn actions_go_clockwise_from_the_start_player_skipping_the_bankrupt() {
    let mut state = new_game(4);
    state.start_player = 2;
    state.phase = Phase::Action { seat: 2 };
    make_bankrupt(&mut state, 3);
    act(&mut state, 2, Command::UseSmith);
    assert_eq!(FlyingDutchman::pending(&state), [0]);
    act(&mut state, 0, Command::UseSmith);
    assert_eq!(FlyingDutchman::pending(&state), [1]);
    when(&state, 3, Command::UseSmith).then_refused("not_your_turn");
}

// ---------------------------------------------------------------- Kontor exchange

#[test]
fn a_kontor_exchange_draws_two_then_returns_two_to_the_bottom_in_order() {
    let mut state = new_game(3);
    set_shares(&mut state, 0, &[Red, Red, Green]);
    let top: Vec<Colour> = state.share_stack.iter().take(2).copied().collect();
    let events = act(&mut state, 0, Command::UseKontor);
    assert_eq!(
        events,
        [Event::KontorUsed {
            seat: 0,
            drawn: Some(top.clone())
        }]
    );
    assert_eq!(state.players[0].kontor_cards, 2);
    assert_eq!(state.players[0].shares.len(), 5);
    assert_eq!(FlyingDutchman::pending(&state), [0]);
    let legal = FlyingDutchman::legal(&state, 0);
    assert_eq!(legal.decision, Decision::ReturnShares);
    assert_eq!(legal.returnable, [Red, Red, Green, top[0], top[1]]);
    // Others see that two cards were drawn, not which.
    assert_eq!(
        FlyingDutchman::redact(&events[0], Viewer::Seat(1)),
        Some(Event::KontorUsed {
            seat: 0,
            drawn: None
        })
    );
    when(&state, 1, Command::Pass).then_refused("not_your_turn");
    when(&state, 0, Command::Pass).then_refused("wrong_step");
    when(&state, 0, Command::ReturnShares { cards: vec![Red] }).then_refused("must_return_two");
    when(
        &state,
        0,
        Command::ReturnShares {
            cards: vec![Red, Red, Green],
        },
    )
    .then_refused("must_return_two");
    let absent = Colour::ALL
        .into_iter()
        .find(|c| !state.players[0].shares.contains(c))
        .unwrap();
    when(
        &state,
        0,
        Command::ReturnShares {
            cards: vec![absent, Red],
        },
    )
    .then_refused("unknown_share_card");
    let events = act(
        &mut state,
        0,
        Command::ReturnShares {
            cards: vec![Green, Red],
        },
    );
    assert_eq!(
        events,
        [Event::SharesReturned {
            seat: 0,
            cards: Some(vec![Green, Red])
        }]
    );
    let n = state.share_stack.len();
    assert_eq!(state.share_stack[n - 2], Green);
    assert_eq!(
        state.share_stack[n - 1],
        Red,
        "the last listed is the bottom card"
    );
    let mut hand = state.players[0].shares.clone();
    hand.sort();
    let mut expected = vec![Red, top[0], top[1]];
    expected.sort();
    assert_eq!(hand, expected);
    assert_eq!(state.phase, Phase::Action { seat: 1 });
}

// ---------------------------------------------------------------- smith

#[test]
fn the_smith_split_shares_the_pool_evenly_and_leaves_the_remainder() {
    let mut state = new_game(5);
    assert_eq!(state.pool.len(), 5);
    let pool = state.pool.clone();
    able_to_pass(&mut state, &[1, 3, 4]);
    let pool_after_passers = state.pool.clone(); // the helper parked surplus horseshoes here
    act(&mut state, 0, Command::UseSmith);
    act(&mut state, 1, Command::Pass);
    act(&mut state, 2, Command::UseSmith);
    act(&mut state, 3, Command::Pass);
    let hand0 = state.players[0].horseshoes.clone();
    let hand2 = state.players[2].horseshoes.clone();
    let events = act(&mut state, 4, Command::Pass);
    let p = pool_after_passers.len();
    assert!(p > pool.len());
    let each = p / 2;
    assert_eq!(
        events[1],
        Event::SmithSplit {
            seats: vec![0, 2],
            each: each as u8,
            left_in_pool: (p % 2) as u8,
        }
    );
    // From the top (the end) of the shuffled pool, in action order.
    assert_eq!(
        events[2],
        Event::HorseshoesDrawn {
            seat: 0,
            count: each as u8,
            horseshoes: Some(pool_after_passers[p - each..].to_vec()),
        }
    );
    assert_eq!(
        events[3],
        Event::HorseshoesDrawn {
            seat: 2,
            count: each as u8,
            horseshoes: Some(pool_after_passers[p - 2 * each..p - each].to_vec()),
        }
    );
    assert_eq!(state.pool, pool_after_passers[..p % 2]);
    assert_eq!(state.players[0].horseshoes.len(), hand0.len() + each);
    assert_eq!(state.players[2].horseshoes.len(), hand2.len() + each);
    // Others learn how many, not which.
    assert_eq!(
        FlyingDutchman::redact(&events[2], Viewer::Seat(2)),
        Some(Event::HorseshoesDrawn {
            seat: 0,
            count: each as u8,
            horseshoes: None
        })
    );
}

#[test]
fn the_smith_split_with_five_in_the_pool_gives_two_each_and_leaves_one() {
    let mut state = new_game(5);
    // Everybody except the smiths holds exactly 9, so the pool keeps its 5.
    let pool = state.pool.clone();
    state.players[1].horseshoes.truncate(9);
    act(&mut state, 0, Command::UseSmith);
    act(&mut state, 1, Command::UseSmith);
    let cmd = bid_lowest(&state, 2);
    act(&mut state, 2, cmd);
    let cmd = bid_lowest(&state, 3);
    act(&mut state, 3, cmd);
    let cmd = bid_lowest(&state, 4);
    let events = act(&mut state, 4, cmd);
    assert_eq!(
        events[1],
        Event::SmithSplit {
            seats: vec![0, 1],
            each: 2,
            left_in_pool: 1
        }
    );
    assert_eq!(state.players[0].horseshoes.len(), 11);
    assert_eq!(state.players[1].horseshoes.len(), 11);
    assert_eq!(state.pool, [pool[0]]);
}

#[test]
fn the_smith_split_with_fewer_horseshoes_than_smiths_gives_nothing() {
    let mut state = new_game(4);
    // Move three pool horseshoes to seat 3: one stays in the pool.
    let moved: Vec<u8> = state.pool.drain(1..).collect();
    state.players[3].horseshoes.extend(moved);
    state.players[3].horseshoes.sort_unstable();
    let left = state.pool[0];
    act(&mut state, 0, Command::UseSmith);
    act(&mut state, 1, Command::UseSmith);
    act(&mut state, 2, Command::UseSmith);
    let cmd = bid_lowest(&state, 3);
    let events = act(&mut state, 3, cmd);
    assert_eq!(
        events[1],
        Event::SmithSplit {
            seats: vec![0, 1, 2],
            each: 0,
            left_in_pool: 1
        }
    );
    for (i, seat) in [0u8, 1, 2].into_iter().enumerate() {
        assert_eq!(
            events[2 + i],
            Event::HorseshoesDrawn {
                seat,
                count: 0,
                horseshoes: Some(vec![])
            }
        );
    }
    assert_eq!(state.pool, [left]);
}

// ---------------------------------------------------------------- reveal and movers

#[test]
fn bids_are_revealed_in_seat_order_and_the_best_valid_bid_moves_alone() {
    let mut state = new_game(3);
    state.lucky_number = 35;
    set_horseshoes(&mut state, 0, &[30, 10, 1, 2]);
    set_horseshoes(&mut state, 1, &[40, 10, 1]);
    set_horseshoes(&mut state, 2, &[25, 10, 20]);
    act(&mut state, 0, bid(&[30, 2, 1])); // 33
    act(&mut state, 1, bid(&[40, -10, 1])); // 31
    let events = act(&mut state, 2, bid(&[25, 20])); // 45: over the lucky number
    let Event::BidsRevealed {
        extra_round,
        bids,
        result,
        ..
    } = &events[1]
    else {
        panic!("{events:?}")
    };
    assert!(!extra_round);
    let summary: Vec<(Seat, i32, bool)> = bids.iter().map(|b| (b.seat, b.value, b.valid)).collect();
    assert_eq!(summary, [(0, 33, true), (1, 31, true), (2, 45, false)]);
    assert_eq!(*result, RevealResult::SoleMover { seat: 0 });
    assert_eq!(
        state.phase,
        Phase::Move {
            seat: 0,
            reason: MoveReason::SoleBid
        }
    );
    assert_eq!(FlyingDutchman::pass_command(&state, 0), None);
    // The bid horseshoes wait for the clean-up.
    assert_eq!(state.spent.len(), 8);
}

#[test]
fn a_bid_over_the_lucky_number_is_invalid_even_when_alone() {
    let mut state = new_game(3);
    state.lucky_number = 25;
    set_horseshoes(&mut state, 0, &[30, 1]);
    able_to_pass(&mut state, &[1, 2]);
    act(&mut state, 0, bid(&[30]));
    act(&mut state, 1, Command::Pass);
    let events = act(&mut state, 2, Command::Pass);
    assert_eq!(tags(&events), ["passed", "bids_revealed", "dice_off"]);
    let Event::BidsRevealed { bids, result, .. } = &events[1] else {
        unreachable!()
    };
    assert_eq!(bids.len(), 1);
    assert!(!bids[0].valid);
    assert_eq!(*result, RevealResult::NoValidBid);
    // Every active player rolls.
    let Event::DiceOff {
        seats,
        rolls,
        winner,
    } = &events[2]
    else {
        unreachable!()
    };
    assert_eq!(seats, &[0, 1, 2]);
    assert_eq!(rolls[0].len(), 3);
    assert_eq!(
        state.phase,
        Phase::Move {
            seat: *winner,
            reason: MoveReason::DiceOff
        }
    );
}

#[test]
fn a_negative_bid_is_valid() {
    let mut state = new_game(3);
    state.lucky_number = 21;
    set_horseshoes(&mut state, 0, &[1, 10]);
    able_to_pass(&mut state, &[1, 2]);
    act(&mut state, 0, bid(&[-10, 1]));
    act(&mut state, 1, Command::Pass);
    let events = act(&mut state, 2, Command::Pass);
    assert_eq!(
        event_of(&events, "bids_revealed"),
        &Event::BidsRevealed {
            extra_round: false,
            bids: vec![RevealedBid {
                seat: 0,
                horseshoes: horseshoes(&[-10, 1]),
                value: -9,
                valid: true
            }],
            dropped_out: vec![],
            result: RevealResult::SoleMover { seat: 0 },
        }
    );
}

#[test]
fn a_dice_off_re_rolls_among_the_tied_only() {
    // Find a deterministic seed whose first roll ties.
    for seed in 0..500u64 {
        let mut state = new_game(6);
        able_to_pass(&mut state, &[0, 1, 2, 3, 4, 5]);
        for seat in 0..5 {
            act(&mut state, seat, Command::Pass);
        }
        let events = act_with(&mut state, 5, Command::Pass, seed);
        let Event::DiceOff {
            seats,
            rolls,
            winner,
        } = event_of(&events, "dice_off")
        else {
            unreachable!()
        };
        assert_eq!(seats, &[0, 1, 2, 3, 4, 5]);
        for roll in rolls.iter().flatten() {
            assert!(DIE_A.contains(&roll.die_a) && DIE_B.contains(&roll.die_b));
            assert_eq!(roll.total, roll.die_a + roll.die_b);
        }
        if rolls.len() < 2 {
            continue;
        }
        for pair in rolls.windows(2) {
            let best = pair[0].iter().map(|r| r.total).max().unwrap();
            let tied: Vec<Seat> = pair[0]
                .iter()
                .filter(|r| r.total == best)
                .map(|r| r.seat)
                .collect();
            assert!(tied.len() > 1);
            let again: Vec<Seat> = pair[1].iter().map(|r| r.seat).collect();
            assert_eq!(tied, again, "only the tied roll again");
        }
        let last = rolls.last().unwrap();
        let best = last.iter().map(|r| r.total).max().unwrap();
        let top: Vec<Seat> = last
            .iter()
            .filter(|r| r.total == best)
            .map(|r| r.seat)
            .collect();
        assert_eq!(top, [*winner]);
        return;
    }
    panic!("no seed gave a tied dice-off");
}

// ---------------------------------------------------------------- the move

#[test]
fn the_ghost_ship_never_returns_to_the_previous_space() {
    let mut state = new_game(3);
    ghost_at(&mut state, "BLU_2", Some("HOLLAND"));
    state.phase = Phase::Move {
        seat: 0,
        reason: MoveReason::SoleBid,
    };
    let legal = FlyingDutchman::legal(&state, 0);
    let names: Vec<&str> = legal.destinations.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["ORA_1", "VIO_2", "GRN_2"]);
    when(&state, 0, move_to("HOLLAND")).then_refused("backtrack_not_allowed");
    when(&state, 0, move_to("RED_1")).then_refused("not_adjacent");
    when(&state, 0, move_to("ATLANTIS")).then_refused("unknown_space");
    when(&state, 1, move_to("VIO_2")).then_refused("not_your_turn");
    let events = act(&mut state, 0, move_to("VIO_2"));
    assert_eq!(
        events[0],
        Event::GhostShipMoved {
            from: space("BLU_2"),
            to: space("VIO_2"),
            movers: vec![0],
            reason: MoveReason::SoleBid
        }
    );
    assert_eq!(state.ghost, Some(space("VIO_2")));
    assert_eq!(state.previous, Some(space("BLU_2")));
}

#[test]
fn the_first_move_from_holland_is_unrestricted() {
    let mut state = new_game(3);
    state.phase = Phase::Move {
        seat: 1,
        reason: MoveReason::DiceOff,
    };
    let legal = FlyingDutchman::legal(&state, 1);
    let mut names: Vec<&str> = legal.destinations.iter().map(|s| s.name()).collect();
    names.sort();
    assert_eq!(names, ["BLU_2", "GRN_2", "ORA_1"]);
}

// ---------------------------------------------------------------- landings

#[test]
fn a_ship_landing_makes_holders_pay_and_moves_the_markers() {
    let mut state = new_game(3);
    after_landings(&mut state, 4); // every marker on chest 6
    state.markers[Red.index()] = 3; // red on chest 4
    set_hands(
        &mut state,
        &[
            (0, &[Blue, Green, Yellow]),
            (1, &[Red, Red, Green]),
            (2, &[Blue, Orange, Violet]),
        ],
    );
    ghost_at(&mut state, "ISLAND_C1", Some("VIO_2"));
    state.phase = Phase::Move {
        seat: 0,
        reason: MoveReason::SoleBid,
    };
    let events = act(&mut state, 0, move_to("RED_1"));
    assert_eq!(
        events[1],
        Event::ShipHit {
            space: space("RED_1"),
            colour: Red,
            value: 4,
            payments: vec![ShipPayment {
                seat: 1,
                cards: 2,
                due: 8,
                bankrupt: false
            }],
        }
    );
    assert_eq!(state.players[1].coins, 35 - 8);
    // Red to chest 0, then everything one chest on: red on chest 2, the others on 7.
    let view = FlyingDutchman::view(&state, Viewer::Spectator);
    let values: Vec<u8> = view.markers.iter().map(|m| m.value).collect();
    assert_eq!(values, [7, 7, 7, 7, 2, 7]);
    assert_eq!(view.round_marker, 7);
    assert_eq!(state.ship_landings, 5);
    assert_eq!(tags(&events).last().unwrap(), "round_started");
}

#[test]
fn with_a_one_chest_the_hit_colour_restarts_at_one() {
    let options = Options {
        value_track: ValueTrack::WithOne,
        ..Options::default()
    };
    let mut state = new_game_with(options, 3);
    assert_eq!(state.value(Red), 2);
    ghost_at(&mut state, "HOLLAND", None);
    state.phase = Phase::Move {
        seat: 0,
        reason: MoveReason::SoleBid,
    };
    act(&mut state, 0, move_to("GRN_2"));
    assert_eq!(state.value(Green), 1);
    assert_eq!(state.value(Red), 3);
    assert_eq!(state.chest(state.round_marker), 3);
}

#[test]
fn a_payment_that_cannot_be_made_bankrupts_the_player() {
    let mut state = new_game(4);
    after_landings(&mut state, 6); // chest 8
    state.markers[Red.index()] = 5; // red on chest 6
    set_hands(
        &mut state,
        &[
            (1, &[Red, Red, Green]),
            (2, &[Red, Blue, Blue]),
            (0, &[Green, Yellow, Yellow]),
            (3, &[Orange, Orange, Violet]),
        ],
    );
    set_coins(&mut state, 1, 11); // owes 12
    let hand1 = state.players[1].horseshoes.clone();
    ghost_at(&mut state, "ISLAND_C1", Some("VIO_2"));
    state.phase = Phase::Move {
        seat: 0,
        reason: MoveReason::SoleBid,
    };
    let events = act(&mut state, 0, move_to("RED_1"));
    assert_eq!(
        events[1],
        Event::ShipHit {
            space: space("RED_1"),
            colour: Red,
            value: 6,
            payments: vec![
                ShipPayment {
                    seat: 1,
                    cards: 2,
                    due: 12,
                    bankrupt: true
                },
                ShipPayment {
                    seat: 2,
                    cards: 1,
                    due: 6,
                    bankrupt: false
                },
            ],
        }
    );
    assert_eq!(
        events[2],
        Event::Bankrupt {
            seat: 1,
            coins_lost: 11,
            shares: vec![Red, Red, Green],
            horseshoes: hand1.clone(),
        }
    );
    assert_eq!(state.players[1].coins, 0);
    assert_eq!(state.players[2].coins, 35 - 6);
    assert!(!state.players[1].active());
    // Out of play and public: the spectator sees the bankrupt hand.
    let view = FlyingDutchman::view(&state, Viewer::Spectator);
    assert!(view.players[1].bankrupt);
    assert_eq!(view.players[1].shares, Some(vec![Red, Red, Green]));
    assert_eq!(view.players[1].horseshoes, Some(hand1));
    assert_eq!(view.players[1].smith_cards, 0);
    // The next start player skips the bankrupt seat.
    assert_eq!(
        *events.last().unwrap(),
        Event::RoundStarted {
            round: 2,
            start_player: 2,
            die_a: state.dice[0],
            die_b: state.dice[1],
            lucky_number: state.lucky_number,
        }
    );
    when(&state, 1, Command::Pass).then_refused("not_your_turn");
    assert!(FlyingDutchman::legal(&state, 1).commands.is_empty());
}

#[test]
fn the_game_ends_when_one_player_is_left() {
    let mut state = new_game(3);
    make_bankrupt(&mut state, 2);
    set_hands(
        &mut state,
        &[(1, &[Green, Green, Red]), (0, &[Red, Blue, Yellow])],
    );
    set_coins(&mut state, 1, 3);
    ghost_at(&mut state, "HOLLAND", None);
    state.phase = Phase::Move {
        seat: 0,
        reason: MoveReason::SoleBid,
    };
    let events = act(&mut state, 0, move_to("GRN_2"));
    assert_eq!(
        tags(&events),
        ["ghost_ship_moved", "ship_hit", "bankrupt", "game_ended"]
    );
    let outcome = FlyingDutchman::outcome(&state).unwrap();
    assert_eq!(outcome.winners, [0]);
    // Wealth: 35 coins + red 3 + blue 3 + yellow 3 (all advanced one chest).
    assert_eq!(outcome.scores, [Some(44), None, None]);
    // Seat 1 lasted longer than seat 2.
    assert_eq!(outcome.ranks, [1, 2, 3]);
    when(&state, 0, Command::Pass).then_refused("game_over");
    assert!(FlyingDutchman::pending(&state).is_empty());
}

#[test]
fn when_the_last_players_go_bankrupt_together_they_share_the_win() {
    let mut state = new_game(3);
    make_bankrupt(&mut state, 2);
    set_hands(
        &mut state,
        &[(0, &[Green, Red, Red]), (1, &[Green, Blue, Blue])],
    );
    set_coins(&mut state, 0, 1);
    set_coins(&mut state, 1, 0);
    state.phase = Phase::Move {
        seat: 0,
        reason: MoveReason::SoleBid,
    };
    let events = act(&mut state, 0, move_to("GRN_2"));
    assert_eq!(
        tags(&events),
        [
            "ghost_ship_moved",
            "ship_hit",
            "bankrupt",
            "bankrupt",
            "game_ended"
        ]
    );
    assert_eq!(
        state.phase,
        Phase::Finished {
            reason: EndReason::AllBankrupt
        }
    );
    let outcome = FlyingDutchman::outcome(&state).unwrap();
    assert_eq!(outcome.scores, [None, None, None]);
    assert_eq!(outcome.winners, [0, 1]);
    assert_eq!(outcome.ranks, [1, 1, 3]);
}

#[test]
fn island_income_goes_to_the_movers_only() {
    let mut state = new_game(3);
    after_landings(&mut state, 3); // chest 5
    state.markers[Violet.index()] = 2; // violet on chest 3
    set_hands(
        &mut state,
        &[(0, &[Red, Violet, Violet]), (1, &[Red, Green, Green])],
    );
    ghost_at(&mut state, "VIO_2", Some("BLU_2"));
    state.phase = Phase::Move {
        seat: 0,
        reason: MoveReason::SoleBid,
    };
    let events = act(&mut state, 0, move_to("ISLAND_C1"));
    assert_eq!(events.len(), 1, "no markers move on an island");
    assert_eq!(
        state.phase,
        Phase::IslandIncome {
            movers: vec![0],
            decided: vec![false]
        }
    );
    assert_eq!(FlyingDutchman::pending(&state), [0]);
    when(&state, 1, Command::TakeIncome { colour: Red }).then_refused("not_your_turn");
    when(&state, 0, Command::TakeIncome { colour: Blue }).then_refused("unknown_share_card");
    let legal = FlyingDutchman::legal(&state, 0);
    assert_eq!(legal.decision, Decision::IslandIncome);
    assert_eq!(
        legal.income,
        [
            IncomeChoice {
                colour: Red,
                amount: 5
            },
            IncomeChoice {
                colour: Violet,
                amount: 3
            }
        ]
    );
    assert_eq!(
        FlyingDutchman::pass_command(&state, 0),
        Some(Command::DeclineIncome)
    );
    let events = act(&mut state, 0, Command::TakeIncome { colour: Red });
    assert_eq!(
        events[0],
        Event::IncomeTaken {
            seat: 0,
            colour: Red,
            amount: 5
        }
    );
    assert_eq!(state.players[0].coins, 40);
    assert_eq!(state.players[1].coins, 35);
    assert_eq!(state.ship_landings, 3);
    assert_eq!(state.round, 2);
}

#[test]
fn tied_movers_who_declare_the_same_island_each_may_take_income() {
    let mut state = new_game(3);
    ghost_at(&mut state, "VIO_2", Some("BLU_2"));
    state.phase = Phase::Declaration {
        tie: vec![1, 2],
        declared: vec![],
    };
    assert_eq!(FlyingDutchman::pending(&state), [1]);
    when(&state, 2, declare("ISLAND_C2")).then_refused("not_your_turn");
    act(&mut state, 1, declare("ISLAND_C2"));
    let events = act(&mut state, 2, declare("ISLAND_C2"));
    assert_eq!(
        events[1],
        Event::GhostShipMoved {
            from: space("VIO_2"),
            to: space("ISLAND_C2"),
            movers: vec![1, 2],
            reason: MoveReason::Declaration
        }
    );
    assert_eq!(FlyingDutchman::pending(&state), [1, 2]);
    act(&mut state, 2, Command::DeclineIncome);
    assert_eq!(FlyingDutchman::pending(&state), [1]);
    let colour = state.players[1].shares[0];
    let before = state.players[1].coins;
    let events = act(&mut state, 1, Command::TakeIncome { colour });
    assert_eq!(state.players[1].coins, before + 2);
    assert_eq!(tags(&events).last().unwrap(), "round_started");
    assert_eq!(state.players[0].coins, 35, "seat 0 was not a mover");
}

#[test]
fn the_game_ends_on_the_sixteenth_ship_landing() {
    let mut state = new_game(3);
    after_landings(&mut state, 15); // chest 17
    set_hands(
        &mut state,
        &[
            (0, &[Red, Red, Blue]),
            (1, &[Green, Green, Blue]),
            (2, &[Yellow, Yellow, Orange]),
        ],
    );
    set_coins(&mut state, 1, 50);
    state.spent = Vec::new();
    ghost_at(&mut state, "HOLLAND", None);
    state.phase = Phase::Move {
        seat: 0,
        reason: MoveReason::SoleBid,
    };
    // An island first: the game goes on.
    let mut island = state.clone();
    ghost_at(&mut island, "BLU_2", Some("GRN_2"));
    act(&mut island, 0, move_to("HOLLAND"));
    act(&mut island, 0, Command::DeclineIncome);
    assert!(!island.finished());

    let events = act(&mut state, 0, move_to("ORA_1"));
    assert_eq!(
        tags(&events),
        ["ghost_ship_moved", "ship_hit", "game_ended"]
    );
    assert_eq!(state.ship_landings, 16);
    assert_eq!(state.chest(state.round_marker), 18);
    // Orange: paid 17 and fell to chest 2; all others on 18.
    let outcome = FlyingDutchman::outcome(&state).unwrap();
    assert_eq!(
        outcome.scores,
        [
            Some(35 + 18 * 3),
            Some(50 + 18 * 3),
            Some(35 - 17 + 18 + 18 + 2)
        ]
    );
    assert_eq!(outcome.winners, [1]);
    assert_eq!(outcome.ranks, [2, 1, 3]);
    let Event::GameEnded {
        reason,
        hands,
        scores,
        winners,
    } = events.last().unwrap()
    else {
        unreachable!()
    };
    assert_eq!(*reason, EndReason::RoundMarkerAt18);
    assert_eq!(hands[1], Some(vec![Green, Green, Blue]));
    assert_eq!(*scores, outcome.scores);
    assert_eq!(*winners, outcome.winners);
    // At the end every hand is shown.
    let view = FlyingDutchman::view(&state, Viewer::Seat(0));
    assert_eq!(view.players[2].shares, Some(vec![Yellow, Yellow, Orange]));
    assert_eq!(view.outcome, Some(outcome));
}

#[test]
fn equal_wealth_shares_the_win() {
    let mut state = new_game(4);
    after_landings(&mut state, 15);
    set_hands(
        &mut state,
        &[
            (0, &[Red, Red, Blue]),
            (1, &[Red, Blue, Blue]),
            (2, &[Green, Green, Green]),
            (3, &[Yellow, Yellow, Yellow]),
        ],
    );
    set_coins(&mut state, 0, 20);
    set_coins(&mut state, 1, 20);
    set_coins(&mut state, 2, 10);
    set_coins(&mut state, 3, 40);
    ghost_at(&mut state, "HOLLAND", None);
    state.phase = Phase::Move {
        seat: 0,
        reason: MoveReason::SoleBid,
    };
    act(&mut state, 0, move_to("ORA_1"));
    let outcome = FlyingDutchman::outcome(&state).unwrap();
    // 20 + 3 × 18 for seats 0 and 1; 10 + 54 = 64 for seat 2; 40 − 0 + 54 for seat 3.
    assert_eq!(outcome.scores, [Some(74), Some(74), Some(64), Some(94)]);
    assert_eq!(outcome.winners, [3]);
    set_coins(&mut state, 3, 20);
    let outcome = FlyingDutchman::outcome(&state).unwrap();
    assert_eq!(outcome.winners, [0, 1, 3]);
    assert_eq!(outcome.ranks, [1, 1, 4, 1]);
}

// ---------------------------------------------------------------- ties

/// Seats 0 and 1 tie on 35 (seat 2 passes) with the ghost ship on Holland.
pub(super) fn tie_of_two() -> State {
    let mut state = new_game(3);
    state.lucky_number = 35;
    set_hands(
        &mut state,
        &[
            (0, &[Red, Green, Yellow]),
            (1, &[Red, Green, Yellow]),
            (2, &[Blue, Orange, Violet]),
        ],
    );
    set_horseshoes(&mut state, 0, &[35, 1, 10, 20, 2]);
    set_horseshoes(&mut state, 1, &[25, 10, 1, 1, 40]);
    able_to_pass(&mut state, &[2]);
    act(&mut state, 0, bid(&[35]));
    act(&mut state, 1, bid(&[25, 10]));
    let events = act(&mut state, 2, Command::Pass);
    let Event::BidsRevealed { result, .. } = event_of(&events, "bids_revealed") else {
        unreachable!()
    };
    assert_eq!(*result, RevealResult::Tie { seats: vec![0, 1] });
    state
}

#[test]
fn a_tie_settled_by_agreement_with_coin_payments() {
    let mut state = tie_of_two();
    assert_eq!(FlyingDutchman::pending(&state), [0]);
    act(&mut state, 0, declare("BLU_2"));
    let events = act(&mut state, 1, declare("GRN_2"));
    assert_eq!(
        events[1],
        Event::NegotiationStarted {
            seats: vec![0, 1],
            deadline_secs: 86_400
        }
    );
    assert_eq!(FlyingDutchman::pending(&state), [0, 1]);
    assert_eq!(
        FlyingDutchman::pass_command(&state, 1),
        Some(Command::NoAgreement)
    );
    // Seat 1 proposes green with 2 for seat 0; seat 0 rejects it.
    act(
        &mut state,
        1,
        Command::MakeOffer {
            to: "GRN_2".into(),
            payments: vec![PaymentTerm { seat: 0, amount: 2 }],
        },
    );
    act(&mut state, 0, Command::RejectOffer { offer: 1 });
    // Seat 0 offers blue and 4 ducats to seat 1.
    when(
        &state,
        0,
        Command::MakeOffer {
            to: "BLU_2".into(),
            payments: vec![PaymentTerm {
                seat: 1,
                amount: 36,
            }],
        },
    )
    .then_refused("offer_exceeds_coins");
    act(
        &mut state,
        0,
        Command::MakeOffer {
            to: "BLU_2".into(),
            payments: vec![PaymentTerm { seat: 1, amount: 4 }],
        },
    );
    let legal = FlyingDutchman::legal(&state, 1);
    assert_eq!(legal.decision, Decision::Negotiate);
    assert_eq!(legal.offers.len(), 2);
    assert_eq!(legal.accepted, [1]);
    assert_eq!(legal.payees, [0]);
    assert!(legal.commands.contains(&CommandKind::AcceptOffer));
    let events = act(&mut state, 1, Command::AcceptOffer { offer: 2 });
    assert_eq!(
        tags(&events)[..4],
        [
            "offer_accepted",
            "agreement_reached",
            "ghost_ship_moved",
            "ship_hit"
        ]
    );
    assert_eq!(
        events[1],
        Event::AgreementReached {
            to: space("BLU_2"),
            transfers: vec![Transfer {
                from: 0,
                to: 1,
                amount: 4
            }],
        }
    );
    assert_eq!(
        events[2],
        Event::GhostShipMoved {
            from: space("HOLLAND"),
            to: space("BLU_2"),
            movers: vec![0, 1],
            reason: MoveReason::Agreement
        }
    );
    assert_eq!(state.players[0].coins, 31);
    assert_eq!(state.players[1].coins, 39);
    assert_eq!(state.players[2].coins, 33, "seat 2 paid for its blue card");
}

#[test]
fn only_the_payments_a_payee_accepted_are_made() {
    let mut state = new_game(3);
    ghost_at(&mut state, "HOLLAND", None);
    state.phase = Phase::Declaration {
        tie: vec![0, 1, 2],
        declared: vec![],
    };
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("GRN_2"));
    act(&mut state, 2, declare("ORA_1"));
    // Seat 0: Orange, paying seat 1 two and seat 2 three.
    act(
        &mut state,
        0,
        Command::MakeOffer {
            to: "ORA_1".into(),
            payments: vec![
                PaymentTerm { seat: 1, amount: 2 },
                PaymentTerm { seat: 2, amount: 3 },
            ],
        },
    );
    // Seat 1 accepts it; seat 2 wants orange anyway and offers it for free instead.
    act(&mut state, 1, Command::AcceptOffer { offer: 1 });
    let events = act(
        &mut state,
        2,
        Command::MakeOffer {
            to: "ORA_1".into(),
            payments: vec![],
        },
    );
    assert_eq!(
        events[1],
        Event::AgreementReached {
            to: space("ORA_1"),
            transfers: vec![Transfer {
                from: 0,
                to: 1,
                amount: 2
            }],
        }
    );
}

#[test]
fn negotiation_commands_are_checked() {
    let mut state = tie_of_two();
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("GRN_2"));
    let offer = |to: &str, payments: Vec<PaymentTerm>| Command::MakeOffer {
        to: to.into(),
        payments,
    };
    let pay = |seat, amount| PaymentTerm { seat, amount };
    when(&state, 0, offer("RED_1", vec![])).then_refused("not_adjacent");
    when(&state, 0, offer("BLU_2", vec![pay(0, 1)])).then_refused("payment_to_self");
    when(&state, 0, offer("BLU_2", vec![pay(2, 1)])).then_refused("payee_not_in_tie");
    when(&state, 0, offer("BLU_2", vec![pay(1, 0)])).then_refused("invalid_amount");
    when(&state, 0, offer("BLU_2", vec![pay(1, 1), pay(1, 2)])).then_refused("duplicate_payee");
    when(&state, 0, Command::AcceptOffer { offer: 1 }).then_refused("unknown_offer");
    act(&mut state, 0, offer("BLU_2", vec![pay(1, 30)]));
    // Promises for one destination add up.
    when(&state, 0, offer("BLU_2", vec![pay(1, 6)])).then_refused("offer_exceeds_coins");
    act(&mut state, 0, offer("ORA_1", vec![pay(1, 35)]));
    when(&state, 0, Command::AcceptOffer { offer: 1 }).then_refused("own_offer");
    when(&state, 1, Command::WithdrawOffer { offer: 1 }).then_refused("not_your_offer");
    act(&mut state, 1, Command::RejectOffer { offer: 1 });
    when(&state, 1, Command::RejectOffer { offer: 1 }).then_refused("already_rejected");
    act(&mut state, 0, Command::WithdrawOffer { offer: 1 });
    when(&state, 1, Command::AcceptOffer { offer: 1 }).then_refused("unknown_offer");
    for _ in 0..4 {
        act(&mut state, 0, offer("GRN_2", vec![]));
    }
    when(&state, 0, offer("GRN_2", vec![])).then_refused("too_many_offers");
    when(&state, 0, Command::Pass).then_refused("wrong_step");
    // Seat 1 has accepted nothing: the negotiation waits for it first.
    assert_eq!(FlyingDutchman::pending(&state), [1, 0]);
}

/// Section 4.2: nobody may promise more than they hold, however large the numbers sent. The
/// promises for one destination must not wrap around when added up.
#[test]
fn huge_promises_cannot_wrap_past_the_coin_check() {
    let mut state = tie_of_two();
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("GRN_2"));
    let offer = |amount| Command::MakeOffer {
        to: "BLU_2".into(),
        payments: vec![PaymentTerm { seat: 1, amount }],
    };
    act(&mut state, 0, offer(1));
    // 1 + i64::MAX wraps to a negative sum in a release build.
    when(&state, 0, offer(i64::MAX)).then_refused("offer_exceeds_coins");
    // In a larger tie, two huge payments in one offer are refused too.
    let mut state = new_game(3);
    state.phase = Phase::Negotiation {
        tie: vec![0, 1, 2],
        declared: vec![space("BLU_2"), space("GRN_2"), space("ORA_1")],
        offers: vec![],
        next_offer: 1,
    };
    let two_huge = Command::MakeOffer {
        to: "BLU_2".into(),
        payments: vec![
            PaymentTerm {
                seat: 1,
                amount: i64::MAX,
            },
            PaymentTerm {
                seat: 2,
                amount: i64::MAX,
            },
        ],
    };
    when(&state, 0, two_huge).then_refused("offer_exceeds_coins");
}

#[test]
fn no_agreement_by_the_deadline_starts_an_extra_round() {
    let mut state = tie_of_two();
    assert_eq!(FlyingDutchman::timer(&state), None);
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("GRN_2"));
    let timer = FlyingDutchman::timer(&state).expect("a negotiation deadline");
    assert_eq!(timer.after_secs, 86_400);
    assert_eq!(timer.command, Command::NoAgreement);
    assert_eq!(timer.key, "flying-dutchman/negotiation/1/1");
    let mut rng = GameRng::from_u64(3);
    let events = FlyingDutchman::decide(&state, Actor::System, &timer.command, &mut rng).unwrap();
    assert_eq!(
        events,
        [
            Event::NoAgreement { seat: None },
            Event::ExtraRoundStarted { seats: vec![0, 1] }
        ]
    );
    for e in &events {
        FlyingDutchman::evolve(&mut state, e);
    }
    assert_eq!(
        FlyingDutchman::timer(&state),
        None,
        "the timer is stale now"
    );
    assert_eq!(FlyingDutchman::pending(&state), [0, 1]);
    assert_eq!(
        FlyingDutchman::pass_command(&state, 0),
        Some(Command::DropOut)
    );
}

#[test]
fn a_tie_an_extra_round_a_new_tie_and_a_dice_off() {
    let mut state = new_game(4);
    state.lucky_number = 41;
    set_horseshoes(&mut state, 0, &[41, 40, 1, 10, 2]);
    set_horseshoes(&mut state, 1, &[21, 20, 39, 2, 20]);
    set_horseshoes(&mut state, 2, &[30, 10, 1, 22, 20]);
    able_to_pass(&mut state, &[3]);
    act(&mut state, 0, bid(&[41]));
    act(&mut state, 1, bid(&[21, 20]));
    act(&mut state, 2, bid(&[30, 10, 1]));
    act(&mut state, 3, Command::Pass);
    assert_eq!(
        state.phase,
        Phase::Declaration {
            tie: vec![0, 1, 2],
            declared: vec![]
        }
    );
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("BLU_2"));
    act(&mut state, 2, declare("GRN_2"));
    let events = act(&mut state, 2, Command::NoAgreement);
    assert_eq!(
        events,
        [
            Event::NoAgreement { seat: Some(2) },
            Event::ExtraRoundStarted {
                seats: vec![0, 1, 2]
            }
        ]
    );
    // Extra round: secret and simultaneous.
    assert_eq!(FlyingDutchman::pending(&state), [0, 1, 2]);
    let legal = FlyingDutchman::legal(&state, 1);
    assert_eq!(legal.decision, Decision::ExtraRound);
    assert_eq!(legal.commands, [CommandKind::Bid, CommandKind::DropOut]);
    assert_eq!(legal.lucky_number, Some(41));
    let events = act(&mut state, 2, Command::DropOut);
    assert_eq!(
        FlyingDutchman::redact(&events[0], Viewer::Seat(0)),
        Some(Event::ExtraChoiceMade {
            seat: 2,
            choice: None
        })
    );
    act(&mut state, 1, bid(&[39, 2]));
    // Seat 1's bid is hidden, even its size: the count behind the screen is unchanged.
    let view = FlyingDutchman::view(&state, Viewer::Seat(0));
    assert_eq!(view.players[1].horseshoe_count, 3);
    assert_eq!(view.players[1].extra_choice, None);
    assert_eq!(
        view.step,
        StepView::ExtraRound {
            tie: vec![0, 1, 2],
            chosen: vec![1, 2]
        }
    );
    let events = act(&mut state, 0, bid(&[40, 1]));
    assert_eq!(
        events[1],
        Event::BidsRevealed {
            extra_round: true,
            bids: vec![
                RevealedBid {
                    seat: 0,
                    horseshoes: horseshoes(&[40, 1]),
                    value: 41,
                    valid: true
                },
                RevealedBid {
                    seat: 1,
                    horseshoes: horseshoes(&[39, 2]),
                    value: 41,
                    valid: true
                },
            ],
            dropped_out: vec![2],
            result: RevealResult::Tie { seats: vec![0, 1] },
        }
    );
    // The new tie declares again.
    act(&mut state, 0, declare("ORA_1"));
    act(&mut state, 1, declare("GRN_2"));
    act(&mut state, 0, Command::NoAgreement);
    act(&mut state, 0, Command::DropOut);
    let events = act(&mut state, 1, Command::DropOut);
    assert_eq!(
        tags(&events),
        ["extra_choice_made", "bids_revealed", "dice_off"]
    );
    let Event::DiceOff { seats, winner, .. } = &events[2] else {
        unreachable!()
    };
    assert_eq!(seats, &[0, 1], "only the members of the tie roll");
    assert_eq!(
        state.phase,
        Phase::Move {
            seat: *winner,
            reason: MoveReason::DiceOff
        }
    );
    // Every horseshoe bid this round goes to the pool at the clean-up.
    assert_eq!(state.spent.len(), 1 + 2 + 3 + 2 + 2);
    let pool_before = state.pool.len();
    let to = state.destinations().next().unwrap();
    let events = act(&mut state, *winner, move_to(to.name()));
    if to.name() != "HOLLAND" {
        let Event::PoolRefilled { added, size, .. } = event_of(&events, "pool_refilled") else {
            unreachable!()
        };
        assert_eq!(*added, 10);
        assert_eq!(usize::from(*size), pool_before + 10);
    }
}

#[test]
fn a_lone_survivor_with_an_invalid_bid_loses_to_a_dice_off() {
    let mut state = tie_of_two();
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("GRN_2"));
    act(&mut state, 1, Command::NoAgreement);
    act(&mut state, 0, Command::DropOut);
    let events = act(&mut state, 1, bid(&[40])); // 40 > 35
    let Event::BidsRevealed {
        bids,
        dropped_out,
        result,
        ..
    } = &events[1]
    else {
        unreachable!()
    };
    assert_eq!(dropped_out, &[0]);
    assert!(!bids[0].valid);
    assert_eq!(*result, RevealResult::NoValidBid);
    let Event::DiceOff { seats, .. } = &events[2] else {
        unreachable!()
    };
    assert_eq!(seats, &[0, 1]);
}

#[test]
fn a_lone_survivor_with_a_valid_bid_moves_alone() {
    let mut state = tie_of_two();
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("GRN_2"));
    act(&mut state, 0, Command::NoAgreement);
    act(&mut state, 0, Command::DropOut);
    let events = act(&mut state, 1, bid(&[1]));
    let Event::BidsRevealed { result, .. } = &events[1] else {
        unreachable!()
    };
    assert_eq!(*result, RevealResult::SoleMover { seat: 1 });
    assert_eq!(
        state.phase,
        Phase::Move {
            seat: 1,
            reason: MoveReason::SoleBid
        }
    );
}

// ---------------------------------------------------------------- visibility

#[test]
fn a_seat_sees_its_own_secrets_a_spectator_none_and_omniscience_all() {
    let state = new_game(3);
    let own = FlyingDutchman::view(&state, Viewer::Seat(1));
    assert_eq!(own.seat, Some(1));
    assert_eq!(own.players[1].shares, Some(state.players[1].shares.clone()));
    assert_eq!(
        own.players[1].horseshoes,
        Some(state.players[1].horseshoes.clone())
    );
    assert_eq!(own.players[0].shares, None);
    assert_eq!(own.players[0].horseshoes, None);
    assert_eq!(own.players[0].share_count, 3);
    assert_eq!(own.players[0].horseshoe_count, 9);
    assert_eq!(own.hidden, None);
    let spectator = FlyingDutchman::view(&state, Viewer::Spectator);
    assert!(spectator.players.iter().all(|p| p.shares.is_none()));
    assert_eq!(spectator.pool_size, 3);
    assert_eq!(spectator.share_stack_size, 3);
    assert_eq!(spectator.unused_horseshoes, 30);
    let all = FlyingDutchman::view(&state, Viewer::Omniscient);
    assert!(all.players.iter().all(|p| p.shares.is_some()));
    let hidden = all.hidden.unwrap();
    assert_eq!(hidden.pool, state.pool);
    assert_eq!(hidden.unused.len(), 30);
    // The board comes with the view.
    let json = serde_json::to_value(&spectator).unwrap();
    assert_eq!(json["board"]["start"], "HOLLAND");
    assert_eq!(json["ghost_ship"], "HOLLAND");
}

#[test]
fn the_setup_deals_privately() {
    let mut rng = GameRng::from_u64(11);
    let events = FlyingDutchman::setup(&Options::default(), 4, &mut rng);
    assert_eq!(
        tags(&events),
        [
            "game_started",
            "dealt",
            "dealt",
            "dealt",
            "dealt",
            "hidden_piles_formed",
            "round_started"
        ]
    );
    let Event::Dealt { shares, .. } = &events[2] else {
        unreachable!()
    };
    assert_eq!(shares.as_ref().unwrap().len(), 3);
    assert_eq!(
        FlyingDutchman::redact(&events[2], Viewer::Seat(1)),
        Some(events[2].clone())
    );
    assert_eq!(
        FlyingDutchman::redact(&events[2], Viewer::Seat(0)),
        Some(Event::Dealt {
            seat: 1,
            share_count: 3,
            horseshoe_count: 9,
            shares: None,
            horseshoes: None
        })
    );
    let piles = FlyingDutchman::redact(&events[5], Viewer::Seat(0)).unwrap();
    assert_eq!(
        serde_json::to_value(&piles).unwrap(),
        serde_json::json!({
            "type": "hidden_piles_formed",
            "share_stack_size": 6,
            "pool_size": 4,
            "unused_size": 20
        })
    );
    let state = FlyingDutchman::fold(&events);
    check_invariants(&state).unwrap();
    assert_eq!(state.players.iter().map(|p| p.coins).sum::<i64>(), 4 * 35);
    let Event::RoundStarted {
        die_a,
        die_b,
        lucky_number,
        ..
    } = events[6]
    else {
        unreachable!()
    };
    assert!(DIE_A.contains(&die_a) && DIE_B.contains(&die_b));
    assert_eq!(lucky_number, die_a + die_b);
    assert!(lucky_number % 2 == 1 && (21..=49).contains(&lucky_number));
}

#[test]
fn the_1992_edition_starts_with_25_ducats() {
    let options = Options {
        edition: Edition::E1992,
        ..Options::default()
    };
    let state = new_game_with(options, 5);
    assert!(state.players.iter().all(|p| p.coins == 25));
    assert_eq!(state.share_stack.len(), 9);
    assert_eq!(state.unused.len(), 10);
}

// ---------------------------------------------------------------- options

#[test]
fn options_fill_every_default() {
    let options = parse_options(&serde_json::json!({}), 4).unwrap();
    assert_eq!(options, Options::default());
    assert_eq!(
        serde_json::to_value(options).unwrap(),
        serde_json::json!({
            "edition": "2016",
            "value_track": "without_one",
            "board": "standard",
            "negotiation_deadline_secs": 86400
        })
    );
    let options = parse_options(&serde_json::Value::Null, 3).unwrap();
    assert_eq!(options, Options::default());
    let options = parse_options(
        &serde_json::json!({
            "edition": "1992",
            "value_track": "with_one",
            "board": "standard",
            "negotiation_deadline_secs": 600
        }),
        6,
    )
    .unwrap();
    assert_eq!(options.edition, Edition::E1992);
    assert_eq!(options.value_track, ValueTrack::WithOne);
    assert_eq!(options.negotiation_deadline_secs, 600);
}

#[test]
fn bad_options_are_refused_with_the_field_named() {
    let field = |raw: serde_json::Value, seats: u8| parse_options(&raw, seats).unwrap_err().field;
    let error = parse_options(&serde_json::json!({}), 2).unwrap_err();
    assert_eq!(error.field, "seats");
    assert_eq!(error.message, "The Flying Dutchman is for 3 to 6 players");
    assert_eq!(field(serde_json::json!({}), 7), "seats");
    assert_eq!(field(serde_json::json!({"colour": "red"}), 4), "colour");
    assert_eq!(field(serde_json::json!({"edition": "2020"}), 4), "edition");
    assert_eq!(field(serde_json::json!({"edition": 1992}), 4), "edition");
    assert_eq!(
        field(serde_json::json!({"value_track": "with_two"}), 4),
        "value_track"
    );
    assert_eq!(field(serde_json::json!({"board": "atlantic"}), 4), "board");
    assert_eq!(
        field(serde_json::json!({"negotiation_deadline_secs": 10}), 4),
        "negotiation_deadline_secs"
    );
    assert_eq!(
        field(
            serde_json::json!({"negotiation_deadline_secs": 2_000_000}),
            4
        ),
        "negotiation_deadline_secs"
    );
    assert_eq!(
        field(serde_json::json!({"negotiation_deadline_secs": "1h"}), 4),
        "negotiation_deadline_secs"
    );
    assert_eq!(field(serde_json::json!([1]), 4), "options");
    // Stored options are read back strictly too.
    assert!(serde_json::from_value::<Options>(serde_json::json!({"x": 1})).is_err());
}

#[test]
fn every_error_code_is_documented_once() {
    let codes: Vec<&str> = FlyingDutchman::ERROR_CODES
        .iter()
        .map(|(c, _)| *c)
        .collect();
    let mut unique = codes.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), codes.len());
    for code in codes {
        assert!(
            code.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
            "{code}"
        );
    }
    assert_eq!(FlyingDutchman::KIND, "flying-dutchman");
    assert_eq!(FlyingDutchman::RULES_VERSION, 1);
    assert_eq!(
        (FlyingDutchman::MIN_SEATS, FlyingDutchman::MAX_SEATS),
        (3, 6)
    );
}

#[test]
fn commands_and_events_use_the_documented_wire_format() {
    let command: Command = serde_json::from_value(serde_json::json!({
        "type": "bid",
        "horseshoes": [{"value": 35}, {"value": 1, "sign": "minus"}]
    }))
    .unwrap();
    assert_eq!(command, bid(&[35, -1]));
    let command: Command =
        serde_json::from_value(serde_json::json!({"type": "move", "to": "BLU_2"})).unwrap();
    assert_eq!(command, move_to("BLU_2"));
    let event = Event::GhostShipMoved {
        from: space("HOLLAND"),
        to: space("BLU_2"),
        movers: vec![0],
        reason: MoveReason::SoleBid,
    };
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        serde_json::json!({
            "type": "ghost_ship_moved",
            "from": "HOLLAND",
            "to": "BLU_2",
            "movers": [0],
            "reason": "sole_bid"
        })
    );
}
