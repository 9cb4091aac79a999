//! Forced moves and standing orders (`RULES.md`, "Standing orders and forced moves"):
//! scenarios through the given/when/then harness, and properties over bot games.

use super::super::*;
use super::properties::disguise_state;
use super::scenarios::tie_of_two;
use super::support::*;
use crate::games::auto::OrderBook;
use crate::games::simulate::{Autoplay, play_game_with};
use crate::games::testing::{bot_game_positions, run_auto};
use crate::games::{Forced, OrderMatch, Reason, Rules, Seat, Viewer};
use Colour::*;

fn forced(state: &State, seat: Seat) -> Option<Forced<Command>> {
    FlyingDutchman::forced(state, seat)
}

/// The forced move of `seat`: its command and reason; and `decide` accepts it.
fn assert_forced(state: &State, seat: Seat, command: Command, reason: Reason) {
    let f = forced(state, seat).unwrap_or_else(|| panic!("seat {seat} has a choice"));
    assert_eq!((&f.command, &f.reason), (&command, &reason));
    when(state, seat, command).then_accepted();
}

// ---------------------------------------------------------------- forced moves

#[test]
fn a_player_with_nothing_to_act_with_must_pass() {
    let mut state = new_game(3);
    set_horseshoes(&mut state, 0, &[]);
    state.players[0].smith_cards = 0;
    // A Kontor card is still an action.
    assert_eq!(forced(&state, 0), None);
    state.players[0].kontor_cards = 0;
    assert_forced(
        &state,
        0,
        Command::Pass,
        Reason::new("only_pass")
            .with("kontor_cards", 0)
            .with("share_stack", 3),
    );
    // A single horseshoe is a choice: bid it or pass.
    set_horseshoes(&mut state, 0, &[30]);
    assert_eq!(forced(&state, 0), None);
    // Only the seat to act is ever forced.
    set_horseshoes(&mut state, 1, &[]);
    state.players[1].smith_cards = 0;
    state.players[1].kontor_cards = 0;
    assert_eq!(forced(&state, 1), None);
}

#[test]
fn a_tied_player_without_horseshoes_must_drop_out_of_the_extra_round() {
    let mut state = tie_of_two();
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("GRN_2"));
    act(&mut state, 0, Command::NoAgreement);
    assert_eq!(FlyingDutchman::pending(&state), [0, 1]);
    assert_eq!(forced(&state, 1), None);
    set_horseshoes(&mut state, 1, &[]);
    assert_eq!(forced(&state, 0), None);
    assert_forced(&state, 1, Command::DropOut, Reason::new("no_horseshoes"));
}

#[test]
fn a_kontor_return_is_never_forced_for_it_would_show_the_hand() {
    // Six players: five cards of each colour, so a hand of five reds is possible and
    // leaves one return, but playing it at once would tell everyone the hand.
    let mut state = new_game(6);
    set_hands(
        &mut state,
        &[
            (0, &[Red, Red, Red]),
            (1, &[Blue, Blue, Blue]),
            (2, &[Green, Green, Green]),
            (3, &[Yellow, Yellow, Yellow]),
            (4, &[Orange, Orange, Orange]),
            (5, &[Violet, Violet, Violet]),
        ],
    );
    // The two reds left go on top of the stack.
    state
        .share_stack
        .make_contiguous()
        .sort_by_key(|&c| c != Red);
    act(&mut state, 0, Command::UseKontor);
    assert_eq!(state.players[0].shares, [Red; 5]);
    assert_eq!(forced(&state, 0), None);
}

#[test]
fn the_standard_board_never_leaves_a_single_destination() {
    // Every space has three lines or more, so a move or a declaration is never forced
    // there; the rule (`only_destination`) is for a board with two-line spaces.
    for space in 0..board().len() {
        let here = SpaceId(space as u8);
        assert!(board().adjacent(here).len() >= 3, "{}", here.name());
    }
}

/// Whether `legal` leaves the seat exactly one command (a Kontor return with five cards
/// of one colour counts as a choice: `forced` never plays it).
fn one_choice(legal: &Legal) -> bool {
    match legal.decision {
        Decision::None | Decision::ReturnShares | Decision::Negotiate => false,
        Decision::Action => legal.commands == [CommandKind::Pass],
        Decision::Move | Decision::Declare => legal.destinations.len() == 1,
        Decision::ExtraRound => legal.commands == [CommandKind::DropOut],
        Decision::IslandIncome => legal.income.is_empty(),
    }
}

/// Over bot games of every table size: a move is forced exactly when `legal` leaves one
/// command, `decide` accepts it, and whether it is forced is the same in every position
/// that looks the same to a spectator (only public facts decide it).
#[test]
fn a_move_is_forced_exactly_when_the_rules_leave_one_and_everyone_can_see_it() {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for seats in 3..=6 {
        for game in 0..25 {
            let seed = 37_000 + u64::from(seats) * 100 + game;
            let mut failure = None;
            bot_game_positions::<FlyingDutchman>(&Options::default(), seats, game, seed, |s| {
                let disguised = disguise_state(s, Viewer::Spectator);
                for seat in 0..seats {
                    let f = forced(s, seat);
                    if f.is_some() != one_choice(&FlyingDutchman::legal(s, seat)) {
                        failure.get_or_insert(format!("seat {seat}: forced {f:?}"));
                    }
                    if f != forced(&disguised, seat) {
                        failure.get_or_insert(format!("seat {seat}: forced tells a secret"));
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
    assert!(seen.contains_key("only_pass"), "{seen:?}");
}

#[test]
fn auto_codes_are_unique_and_documented() {
    let codes: Vec<&str> = FlyingDutchman::AUTO_CODES.iter().map(|(c, _)| *c).collect();
    let unique: std::collections::BTreeSet<&str> = codes.iter().copied().collect();
    assert_eq!(unique.len(), codes.len());
    assert!(FlyingDutchman::AUTO_CODES.iter().all(|(c, m)| !m.is_empty()
        && c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_')));
}

// ---------------------------------------------------------------- standing orders

fn book(state: &State) -> OrderBook<Order> {
    OrderBook::new(state.seats())
}

fn set(book: &mut OrderBook<Order>, state: &State, seat: Seat, order: Order) {
    book.set::<FlyingDutchman>(state, seat, order)
        .unwrap_or_else(|e| panic!("seat {seat} may not set the order: {e}"));
}

fn action(state: &State, command: Command) -> Order {
    Order::Action {
        round: state.round,
        action: command,
        max_bids_before: None,
    }
}

#[test]
fn an_action_order_plays_a_sealed_bid_when_its_turn_comes_as_if_clicked() {
    let mut state = new_game(3);
    state.lucky_number = 35;
    set_horseshoes(&mut state, 0, &[30, 10, 1, 2]);
    set_horseshoes(&mut state, 1, &[40, 10, 1]);
    set_horseshoes(&mut state, 2, &[25, 10, 20]);
    let mut orders = book(&state);
    set(&mut orders, &state, 1, action(&state, bid(&[40, -10, 1])));
    set(&mut orders, &state, 2, action(&state, Command::Pass));
    // Nothing plays before seat 1's turn.
    assert!(
        run_auto::<FlyingDutchman>(&state, &mut orders)
            .played
            .is_empty()
    );
    act(&mut state, 0, bid(&[30, 2, 1]));
    let run = run_auto::<FlyingDutchman>(&state, &mut orders);
    assert_eq!(run.moves(), [(1, bid(&[40, -10, 1])), (2, Command::Pass)]);
    // Seat 1's move is exactly its click: the same events, redacted alike for the others.
    let clicked = when(&state, 1, bid(&[40, -10, 1])).then_accepted().1;
    assert_eq!(run.events[..clicked.len()], clicked[..]);
    assert_eq!(
        FlyingDutchman::redact(&run.events[0], Viewer::Seat(0)),
        Some(Event::BidPlaced {
            seat: 1,
            size: 3,
            horseshoes: None
        })
    );
    // The orders are used up; the bids are revealed and seat 0 moves.
    assert!(orders.seats.iter().all(Vec::is_empty));
    assert_eq!(
        run.state.phase,
        Phase::Move {
            seat: 0,
            reason: MoveReason::SoleBid
        }
    );
}

#[test]
fn an_action_order_asks_its_seat_when_more_players_bid_before_it() {
    let mut state = new_game(3);
    let mut orders = book(&state);
    set(
        &mut orders,
        &state,
        1,
        Order::Action {
            round: state.round,
            action: Command::UseSmith,
            max_bids_before: Some(0),
        },
    );
    let low = i32::from(state.players[0].horseshoes[0]);
    act(&mut state, 0, bid(&[low]));
    let run = run_auto::<FlyingDutchman>(&state, &mut orders);
    assert!(run.played.is_empty());
    assert_eq!(
        run.dropped(),
        [(
            1,
            Reason::new("bids_before")
                .with("count", 1)
                .with("max_bids_before", 0)
        )]
    );
    assert_eq!(FlyingDutchman::pending(&run.state), [1]);
}

#[test]
fn a_kontor_order_returns_the_two_least_wanted_cards_least_wanted_first() {
    let mut state = new_game(3);
    set_hands(&mut state, &[(0, &[Red, Green, Blue])]);
    let mut orders = book(&state);
    set(&mut orders, &state, 0, action(&state, Command::UseKontor));
    set(
        &mut orders,
        &state,
        0,
        Order::KontorReturn {
            round: state.round,
            keep: vec![Green, Red, Violet, Yellow, Orange, Blue],
        },
    );
    let drawn: Vec<Colour> = state.share_stack.iter().take(2).copied().collect();
    let run = run_auto::<FlyingDutchman>(&state, &mut orders);
    let mut hand = vec![Red, Green, Blue];
    hand.extend(&drawn);
    let rank = |c: &Colour| {
        [Green, Red, Violet, Yellow, Orange, Blue]
            .iter()
            .position(|k| k == c)
    };
    hand.sort_by_key(|c| std::cmp::Reverse(rank(c)));
    assert_eq!(
        run.moves(),
        [
            (0, Command::UseKontor),
            (
                0,
                Command::ReturnShares {
                    cards: hand[..2].to_vec()
                }
            )
        ]
    );
    assert_eq!(run.state.players[0].shares.len(), 3);
}

#[test]
fn declaration_offer_and_accept_orders_settle_a_tie_with_its_payments() {
    let state = tie_of_two();
    let round = state.round;
    let mut orders = book(&state);
    let to = |s: &str| s.to_string();
    set(
        &mut orders,
        &state,
        0,
        Order::Declare {
            round,
            to: to("BLU_2"),
        },
    );
    set(
        &mut orders,
        &state,
        1,
        Order::Declare {
            round,
            to: to("GRN_2"),
        },
    );
    set(
        &mut orders,
        &state,
        0,
        Order::Offer {
            round,
            to: to("BLU_2"),
            each: 3,
        },
    );
    set(
        &mut orders,
        &state,
        1,
        Order::Accept {
            round,
            to: to("BLU_2"),
            min_payment: 3,
        },
    );
    let run = run_auto::<FlyingDutchman>(&state, &mut orders);
    assert_eq!(
        run.moves(),
        [
            (0, declare("BLU_2")),
            (1, declare("GRN_2")),
            (
                0,
                Command::MakeOffer {
                    to: to("BLU_2"),
                    payments: vec![PaymentTerm { seat: 1, amount: 3 }]
                }
            ),
            (1, Command::AcceptOffer { offer: 1 }),
        ]
    );
    assert!(run.events.contains(&Event::AgreementReached {
        to: space("BLU_2"),
        transfers: vec![Transfer {
            from: 0,
            to: 1,
            amount: 3
        }],
    }));
    assert_eq!(run.state.ghost, Some(space("BLU_2")));
}

#[test]
fn extra_round_orders_are_sealed_choices_revealed_together() {
    let mut state = tie_of_two();
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("GRN_2"));
    let round = state.round;
    let mut orders = book(&state);
    // Seat 1 accepts blue only if paid 10: seat 0 offers 3, so nobody agrees.
    set(
        &mut orders,
        &state,
        1,
        Order::Accept {
            round,
            to: "BLU_2".into(),
            min_payment: 10,
        },
    );
    set(
        &mut orders,
        &state,
        0,
        Order::ExtraRound {
            round,
            choice: ExtraChoice::Bid {
                horseshoes: horseshoes(&[20, 10, 2]),
            },
        },
    );
    set(
        &mut orders,
        &state,
        1,
        Order::ExtraRound {
            round,
            choice: ExtraChoice::DropOut,
        },
    );
    act(
        &mut state,
        0,
        Command::MakeOffer {
            to: "BLU_2".into(),
            payments: vec![PaymentTerm { seat: 1, amount: 3 }],
        },
    );
    assert!(
        run_auto::<FlyingDutchman>(&state, &mut orders)
            .played
            .is_empty()
    );
    act(&mut state, 0, Command::NoAgreement);
    let run = run_auto::<FlyingDutchman>(&state, &mut orders);
    assert_eq!(run.moves(), [(0, bid(&[20, 10, 2])), (1, Command::DropOut)]);
    // Seat 0's choice stayed sealed until the last one was made.
    assert_eq!(
        FlyingDutchman::redact(&run.events[0], Viewer::Seat(1)),
        Some(Event::ExtraChoiceMade {
            seat: 0,
            choice: None
        })
    );
    assert_eq!(
        run.state.phase,
        Phase::Move {
            seat: 0,
            reason: MoveReason::SoleBid
        }
    );
}

#[test]
fn a_move_order_and_an_income_rule_play_the_movers_island() {
    let mut state = new_game(3);
    set_hands(
        &mut state,
        &[(0, &[Red, Violet, Violet]), (1, &[Red, Green, Green])],
    );
    // Three landings: every marker on chest 5, but red, hit since, on chest 2.
    state.round_marker = 4;
    state.markers = [4; 6];
    state.ship_landings = 3;
    state.markers[Red.index()] = 1;
    ghost_at(&mut state, "VIO_2", Some("BLU_2"));
    state.phase = Phase::Move {
        seat: 0,
        reason: MoveReason::SoleBid,
    };
    let mut orders = book(&state);
    set(
        &mut orders,
        &state,
        0,
        Order::Move {
            round: state.round,
            to: "ISLAND_C1".into(),
        },
    );
    set(
        &mut orders,
        &state,
        0,
        Order::Income {
            rule: IncomeRule::Best,
        },
    );
    let run = run_auto::<FlyingDutchman>(&state, &mut orders);
    // Violet (5 ducats) is worth more than red (2).
    assert_eq!(
        run.moves(),
        [
            (0, move_to("ISLAND_C1")),
            (0, Command::TakeIncome { colour: Violet })
        ]
    );
    // The income rule stands for the rest of the game; the move order is used up.
    assert_eq!(
        orders.of(0),
        [Order::Income {
            rule: IncomeRule::Best
        }]
    );
}

#[test]
fn orders_that_could_never_play_are_refused_and_a_new_order_replaces_the_old() {
    let mut state = new_game(3);
    let round = state.round;
    let mut orders = book(&state);
    let refused = |orders: &mut OrderBook<Order>, state: &State, seat: Seat, order: Order| {
        orders
            .set::<FlyingDutchman>(state, seat, order)
            .expect_err("refused")
            .code
    };
    let next_round = Order::Action {
        round: round + 1,
        action: Command::UseSmith,
        max_bids_before: None,
    };
    assert_eq!(refused(&mut orders, &state, 1, next_round), "order_not_now");
    assert_eq!(
        refused(&mut orders, &state, 1, action(&state, move_to("BLU_2"))),
        "invalid_order"
    );
    assert_eq!(
        refused(&mut orders, &state, 1, action(&state, bid(&[48, 47]))),
        "two_gold_horseshoes"
    );
    let kontor = Order::KontorReturn {
        round,
        keep: vec![Red, Red, Blue, Green, Yellow, Violet],
    };
    assert_eq!(refused(&mut orders, &state, 1, kontor), "invalid_order");
    let far = Order::Move {
        round,
        to: "RED_1".into(),
    };
    assert_eq!(refused(&mut orders, &state, 1, far), "not_adjacent");
    let prefer = Order::Income {
        rule: IncomeRule::Prefer { colours: vec![] },
    };
    assert_eq!(refused(&mut orders, &state, 1, prefer), "invalid_order");
    // The last action order for a round replaces the one before.
    set(&mut orders, &state, 1, action(&state, Command::UseSmith));
    set(&mut orders, &state, 1, action(&state, Command::UseKontor));
    assert_eq!(orders.of(1), [action(&state, Command::UseKontor)]);
    // After acting, the round's action can no longer be ordered.
    act(&mut state, 0, Command::UseSmith);
    assert_eq!(
        refused(&mut orders, &state, 0, action(&state, Command::UseSmith)),
        "order_not_now"
    );
}

#[test]
fn orders_use_the_documented_json() {
    let order: Order = serde_json::from_value(serde_json::json!({
        "type": "action",
        "round": 3,
        "action": {"type": "bid", "horseshoes": [{"value": 35}, {"value": 2, "sign": "minus"}]}
    }))
    .unwrap();
    assert_eq!(
        order,
        Order::Action {
            round: 3,
            action: bid(&[35, -2]),
            max_bids_before: None
        }
    );
    assert_eq!(
        serde_json::to_value(Order::Income {
            rule: IncomeRule::Prefer { colours: vec![Red] }
        })
        .unwrap(),
        serde_json::json!({"type": "income", "rule": {"kind": "prefer", "colours": ["red"]}})
    );
}

/// The orders a seat might hold in `state`: the sensible bot's, and one of every kind for
/// this round, aimed at the first destination and the seat's own hand.
fn sample_orders(state: &State, seat: Seat) -> Vec<Order> {
    let mut rng = crate::games::GameRng::from_u64(u64::from(seat));
    let mut orders = FlyingDutchman::bot_orders(state, seat, &[], &mut rng);
    let round = state.round;
    let to = state
        .destinations()
        .next()
        .map_or_else(String::new, |s| s.name().to_string());
    let hand = &state.players[usize::from(seat)].horseshoes;
    let first = hand.first().map(|&h| {
        vec![BidHorseshoe {
            value: h,
            sign: Sign::Plus,
        }]
    });
    orders.extend([
        Order::Action {
            round,
            action: Command::Pass,
            max_bids_before: Some(1),
        },
        Order::Move {
            round,
            to: to.clone(),
        },
        Order::Declare {
            round,
            to: to.clone(),
        },
        Order::Offer {
            round,
            to: to.clone(),
            each: 1,
        },
        Order::Accept {
            round,
            to,
            min_payment: 0,
        },
        Order::ExtraRound {
            round,
            choice: match first {
                Some(horseshoes) => ExtraChoice::Bid { horseshoes },
                None => ExtraChoice::DropOut,
            },
        },
        Order::KontorReturn {
            round,
            keep: Colour::ALL.to_vec(),
        },
        Order::Income {
            rule: IncomeRule::Best,
        },
    ]);
    orders
}

/// Over bot games of every table size: whether an order may be set and what it plays are the
/// same in every position that looks the same to its seat. Each position is compared with
/// one where every secret the seat may not know is changed (other hands, sealed bids and
/// extra-round choices, the share stack, the pool).
#[test]
fn an_order_is_matched_on_what_its_seat_may_see_alone() {
    let mut compared = 0;
    let mut played = 0;
    for seats in 3..=6 {
        for game in 0..6 {
            let seed = 37_500 + u64::from(seats) * 100 + game;
            bot_game_positions::<FlyingDutchman>(&Options::default(), seats, game + 3, seed, |s| {
                for seat in (0..seats).filter(|&seat| s.active(seat)) {
                    let disguised = disguise_state(s, Viewer::Seat(seat));
                    let view = FlyingDutchman::view(s, Viewer::Seat(seat));
                    let other = FlyingDutchman::view(&disguised, Viewer::Seat(seat));
                    for order in sample_orders(s, seat) {
                        let a = FlyingDutchman::match_order(&view, seat, &order);
                        let b = FlyingDutchman::match_order(&other, seat, &order);
                        assert_eq!(a, b, "seed {seed} seat {seat} {order:?}");
                        assert_eq!(
                            FlyingDutchman::check_order(&view, seat, &order).map_err(|e| e.code),
                            FlyingDutchman::check_order(&other, seat, &order).map_err(|e| e.code),
                        );
                        compared += 1;
                        if matches!(a, OrderMatch::Play { .. }) {
                            played += 1;
                        }
                    }
                }
            });
        }
    }
    assert!(compared > 10_000 && played > 500, "{compared} {played}");
}

/// Bot games with forced moves and the experienced players' orders: they keep every rule,
/// fold back to their state, the server never plays a move `decide` refuses, and it plays
/// most moves.
#[test]
fn bot_games_with_standing_orders_keep_every_rule() {
    for seats in 3..=6 {
        for game in 0..10 {
            let seed = 370_000 + u64::from(seats) * 100 + game;
            let bots = crate::games::testing::bot_mix(game + 5, seats);
            let played = play_game_with::<FlyingDutchman>(
                &Options::default(),
                &bots,
                seed,
                Autoplay::Orders,
                |state, event| {
                    check_invariants(state)
                        .unwrap_or_else(|e| panic!("seed {seed}: {e} after {event:?}"));
                },
            )
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert_eq!(FlyingDutchman::fold(&played.events), played.state);
            assert_eq!(played.pace.forced_waits(), 0);
            assert_eq!(played.pace.dropped.get("refused"), None, "seed {seed}");
            assert!(
                played.pace.orders_played > played.pace.by_people,
                "seed {seed}"
            );
        }
    }
}

/// One order of every kind (the match makes a new kind a compile error here).
fn every_order() -> Vec<Order> {
    let state = new_game(3);
    let orders = sample_orders(&state, 1);
    let mut kinds = [false; 8];
    for order in &orders {
        kinds[match order {
            Order::Action { .. } => 0,
            Order::KontorReturn { .. } => 1,
            Order::Move { .. } => 2,
            Order::Declare { .. } => 3,
            Order::Offer { .. } => 4,
            Order::Accept { .. } => 5,
            Order::ExtraRound { .. } => 6,
            Order::Income { .. } => 7,
        }] = true;
    }
    assert!(kinds.iter().all(|&k| k));
    orders
}

/// `RULES.md` names every order kind and every reason code of the engine.
#[test]
fn rules_md_documents_every_order_and_reason() {
    let rules = include_str!("../RULES.md");
    let section = rules
        .split("\n## ")
        .find(|s| s.contains("Standing orders and forced moves\n"))
        .expect("RULES.md has a section on standing orders");
    for order in every_order() {
        let tag = serde_json::to_value(&order).unwrap()["type"].clone();
        let tag = format!("`{}`", tag.as_str().unwrap());
        assert!(section.contains(&tag), "{tag} is not documented");
    }
    let codes = FlyingDutchman::AUTO_CODES
        .iter()
        .chain(crate::games::auto::COMMON_CODES);
    for (code, _) in codes {
        assert!(section.contains(&format!("`{code}`")), "{code}");
    }
}

#[test]
fn a_mover_without_share_cards_would_decline_income_at_once() {
    // Movers always hold cards; were one to hold none, declining would be forced.
    let mut state = new_game(3);
    state.phase = Phase::IslandIncome {
        movers: vec![1],
        decided: vec![false],
    };
    assert_eq!(forced(&state, 1), None);
    state.players[1].shares.clear();
    let f = forced(&state, 1).expect("nothing to show");
    assert_eq!(
        (f.command, f.reason),
        (Command::DeclineIncome, Reason::new("no_shares"))
    );
}

#[test]
fn an_order_whose_move_the_rules_refuse_is_dropped_with_the_refusal() {
    let mut state = tie_of_two();
    let round = state.round;
    let mut orders = book(&state);
    set(
        &mut orders,
        &state,
        0,
        Order::Offer {
            round,
            to: "BLU_2".into(),
            each: 30,
        },
    );
    // Seat 0 has fewer coins by the time the offer would be made.
    set_coins(&mut state, 0, 10);
    act(&mut state, 0, declare("BLU_2"));
    act(&mut state, 1, declare("GRN_2"));
    let run = run_auto::<FlyingDutchman>(&state, &mut orders);
    assert!(run.played.is_empty());
    let (seat, reason) = &run.dropped()[0];
    assert_eq!(*seat, 0);
    assert_eq!(reason.code, "refused");
    assert_eq!(reason.params["rule"], "offer_exceeds_coins");
    assert_eq!(orders.of(0), []);
}

#[test]
fn the_seats_still_to_act_in_a_round_may_answer_it_ahead() {
    let mut state = new_game(3);
    let window = |s: &State, seat| FlyingDutchman::order_window(s, seat);
    let key = format!("round/{}/action", state.round);
    // The start player is asked anyway; the others may answer ahead.
    assert_eq!(window(&state, 0), None);
    assert_eq!(window(&state, 1).as_deref(), Some(key.as_str()));
    assert_eq!(window(&state, 2).as_deref(), Some(key.as_str()));
    act(&mut state, 0, Command::UseSmith);
    act(&mut state, 1, Command::UseSmith);
    assert_eq!(window(&state, 1), None, "seat 1 has acted");
    assert_eq!(window(&state, 2), None, "seat 2 is asked now");
}
