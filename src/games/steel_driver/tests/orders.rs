//! Forced moves and standing orders (`RULES.md`, "Standing orders and forced moves"):
//! scenarios through the given/when/then harness, and properties over bot games.

use super::super::protocol::TranscontinentalPath;
use super::super::state::Phase;
use super::super::*;
use super::scenarios::{end_of_round_five, red_and_blue};
use super::support::*;
use crate::games::auto::{Cause, OrderBook};
use crate::games::simulate::{Autoplay, play_game_with};
use crate::games::testing::{bot_game_positions, run_auto};
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

// ---------------------------------------------------------------------------------------
// Standing orders.

fn book(state: &State) -> OrderBook<Order> {
    OrderBook::new(state.seats)
}

fn set(book: &mut OrderBook<Order>, state: &State, seat: Seat, order: Order) {
    book.set::<SteelDriver>(state, seat, order)
        .unwrap_or_else(|e| panic!("seat {seat} may not set the order: {e}"));
}

fn proxy(company: Company, limit: u32, pass_when_outbid: bool) -> Order {
    Order::ProxyBid {
        round: 1,
        company,
        limit,
        pass_when_outbid,
    }
}

fn bid(bid: u32) -> Command {
    Command::Bid { bid }
}

/// A 4-player game where seat 0 opened Red with 1 cube; seat 1 is to bid.
fn red_opened() -> State {
    let mut state = new_game(4, 0);
    act(
        &mut state,
        0,
        Command::OpenAuction {
            company: Red,
            bid: 1,
        },
    );
    state
}

#[test]
fn a_proxy_bid_raises_by_the_minimum_while_outbid_and_never_past_its_limit() {
    let mut state = red_opened();
    let mut orders = book(&state);
    set(&mut orders, &state, 1, proxy(Red, 4, false));
    for seat in [2, 3] {
        set(
            &mut orders,
            &state,
            seat,
            Order::PassAuction {
                round: 1,
                company: Red,
            },
        );
    }
    // Seat 1 raises to 2; seats 2 and 3 pass; seat 0 (no order) is asked.
    let run = run_auto::<SteelDriver>(&state, &mut orders);
    assert_eq!(
        run.moves(),
        [(1, bid(2)), (2, Command::PassBid), (3, Command::PassBid)]
    );
    state = run.state;
    assert_eq!(pending(&state), [0]);
    // The limit is secret: others see a bid of 2 as if clicked.
    assert_eq!(
        run.events[0],
        Event::BidPlaced { seat: 1, bid: 2 },
        "the order's move is the seat's own"
    );
    act(&mut state, 0, bid(3));
    let run = run_auto::<SteelDriver>(&state, &mut orders);
    assert_eq!(run.moves(), [(1, bid(4))]);
    state = run.state;
    // Outbid past the limit: the order is dropped, saying why, and seat 1 is asked.
    act(&mut state, 0, bid(5));
    let run = run_auto::<SteelDriver>(&state, &mut orders);
    assert_eq!(run.moves(), []);
    assert_eq!(
        run.dropped(),
        [(
            1,
            Reason::new("outbid")
                .with("company", Red)
                .with("high_bid", 5)
                .with("limit", 4)
                .with("cubes", 8)
        )]
    );
    assert_eq!(orders.of(1), []);
    assert_eq!(pending(&run.state), [1]);
}

#[test]
fn a_proxy_bid_that_passes_when_outbid_ends_the_auction_and_never_bids_past_its_cubes() {
    let mut state = red_opened();
    let mut orders = book(&state);
    // A limit above the cubes held (8) bids at most 8.
    set(&mut orders, &state, 1, proxy(Red, 20, true));
    set(&mut orders, &state, 2, proxy(Red, 3, true));
    set(&mut orders, &state, 3, proxy(Red, 2, true));
    let run = run_auto::<SteelDriver>(&state, &mut orders);
    // 1 bids 2, 2 bids 3, 3 passes (limit 2 reached), then seat 0 is asked.
    assert_eq!(
        run.moves(),
        [(1, bid(2)), (2, bid(3)), (3, Command::PassBid)]
    );
    state = run.state;
    act(&mut state, 0, bid(7));
    let run = run_auto::<SteelDriver>(&state, &mut orders);
    // 1 raises to 8, its last cube. Seats 2 and 0 hold 8 and cannot outbid: their passes
    // are forced (before any order), and 1 wins at 8. The pawn goes to 1, who holds no
    // cubes now: forced again.
    assert_eq!(
        run.moves(),
        [
            (1, bid(8)),
            (2, Command::PassBid),
            (0, Command::PassBid),
            (1, Command::PassPawn)
        ]
    );
    let causes: Vec<bool> = run
        .played
        .iter()
        .map(|m| matches!(m.cause, Cause::Forced(_)))
        .collect();
    assert_eq!(causes, [false, true, true, true]);
    state = run.state;
    assert_eq!(state.company(Red).controller, Some(1));
    assert_eq!(state.players[1].cubes, 0);
    // The won auction's order is done: removed without a word.
    let run = run_auto::<SteelDriver>(&state, &mut orders);
    assert!(run.dropped().is_empty());
    assert_eq!(orders.of(1), []);
}

#[test]
fn pass_the_pawn_this_round_passes_until_the_round_is_over() {
    let mut state = new_game(4, 0);
    let mut orders = book(&state);
    for seat in 1..4 {
        set(&mut orders, &state, seat, Order::PassPawn { round: 1 });
    }
    act(&mut state, 0, Command::PassPawn);
    let run = run_auto::<SteelDriver>(&state, &mut orders);
    assert_eq!(
        run.moves(),
        [
            (1, Command::PassPawn),
            (2, Command::PassPawn),
            (3, Command::PassPawn)
        ]
    );
    // A full circle of passes ends the auctions; nobody controls a company, so the round
    // ends, round 2 begins, and the round-1 orders are done.
    assert_eq!(run.state.round, 2);
    assert!(orders.seats.iter().all(Vec::is_empty));
    assert!(run.dropped().is_empty());
}

#[test]
fn a_delivery_order_takes_the_goods_that_raise_the_set_score_most() {
    let mut state = State::default();
    end_of_round_five(&mut state);
    let mut orders = book(&state);
    set(&mut orders, &state, 0, Order::Deliver { company: Red });
    let run = run_auto::<SteelDriver>(&state, &mut orders);
    // Red (SEA, POR, SAC, SFO) takes San Francisco first: pink is a new colour like the
    // others, and Yellow (SFO-LAX) could take it too. Yellow's one cube is forced; then Red
    // takes the rest, the first cities on the map first, and both pass when nothing is
    // left.
    let takes: Vec<(Seat, Command)> = run.moves();
    assert_eq!(takes[0], (0, Command::TakeGoods { city: city("SFO") }));
    assert_eq!(takes[1], (1, Command::TakeGoods { city: city("LAX") }));
    assert!(matches!(run.played[1].cause, Cause::Forced(_)));
    assert!(matches!(run.played[0].cause, Cause::Order { .. }));
    assert_eq!(run.state.phase, Phase::Finished);
    assert_eq!(run.state.company(Red).goods.iter().sum::<u8>(), 4);
    // The game is over: the order is done.
    assert_eq!(orders.of(0), []);
}

#[test]
fn orders_that_could_never_play_are_refused_and_a_new_order_replaces_the_old() {
    let mut state = red_opened();
    let mut orders = book(&state);
    let refused = |orders: &mut OrderBook<Order>, state: &State, order: Order| {
        orders
            .set::<SteelDriver>(state, 1, order)
            .expect_err("refused")
            .code
    };
    assert_eq!(
        refused(&mut orders, &state, Order::PassPawn { round: 2 }),
        "order_not_now"
    );
    assert_eq!(
        refused(&mut orders, &state, proxy(Red, 0, false)),
        "invalid_order"
    );
    set(&mut orders, &state, 1, proxy(Red, 4, false));
    set(&mut orders, &state, 1, proxy(Blue, 4, false));
    // A pass for Red answers the same auction as the proxy bid: it replaces it.
    set(
        &mut orders,
        &state,
        1,
        Order::PassAuction {
            round: 1,
            company: Red,
        },
    );
    assert_eq!(
        orders.of(1),
        [
            proxy(Blue, 4, false),
            Order::PassAuction {
                round: 1,
                company: Red
            }
        ]
    );
    // Red sold: no more orders for it.
    while let Some(a) = state.auction {
        act(&mut state, a.to_act, Command::PassBid);
    }
    assert_eq!(
        refused(&mut orders, &state, proxy(Red, 4, false)),
        "company_not_available"
    );
    // The goods phase: delivery orders only for one's own companies.
    end_of_round_five(&mut state);
    assert_eq!(
        refused(&mut orders, &state, Order::Deliver { company: Red }),
        "order_not_now"
    );
    assert_eq!(
        refused(&mut orders, &state, Order::PassPawn { round: 5 }),
        "order_not_now"
    );
}

#[test]
fn orders_use_the_documented_json() {
    let order: Order = serde_json::from_value(serde_json::json!({
        "type": "proxy_bid", "round": 2, "company": "blue", "limit": 9
    }))
    .unwrap();
    assert_eq!(
        order,
        Order::ProxyBid {
            round: 2,
            company: Blue,
            limit: 9,
            pass_when_outbid: false
        }
    );
    assert_eq!(
        serde_json::to_value(Order::PassPawn { round: 3 }).unwrap(),
        serde_json::json!({"type": "pass_pawn", "round": 3})
    );
    assert!(
        serde_json::from_value::<Order>(serde_json::json!({
            "type": "pass_pawn", "round": 3, "rounds": 4
        }))
        .is_err(),
        "unknown members are refused"
    );
}

/// Bot games with forced moves and the experienced players' orders: they keep every rule,
/// fold back to their state, the server never plays a move `decide` refuses, and it plays
/// many.
#[test]
fn bot_games_with_standing_orders_keep_every_rule() {
    for seats in 3..=6 {
        for game in 0..10 {
            let seed = 370_000 + u64::from(seats) * 100 + game;
            let bots = crate::games::testing::bot_mix(game + 5, seats);
            let played = play_game_with::<SteelDriver>(
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
            assert_eq!(SteelDriver::fold(&played.events), played.state);
            assert_eq!(played.pace.forced_waits(), 0);
            assert_eq!(played.pace.dropped.get("refused"), None, "seed {seed}");
            assert!(played.pace.orders_played > 0, "seed {seed}");
        }
    }
}

/// One order of every kind (the match makes a new kind a compile error here).
fn every_order() -> Vec<Order> {
    let orders = vec![
        Order::PassPawn { round: 1 },
        proxy(Red, 3, true),
        Order::PassAuction {
            round: 1,
            company: Red,
        },
        Order::Deliver { company: Red },
    ];
    for order in &orders {
        match order {
            Order::PassPawn { .. }
            | Order::ProxyBid { .. }
            | Order::PassAuction { .. }
            | Order::Deliver { .. } => {}
        }
    }
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
    let codes = SteelDriver::AUTO_CODES
        .iter()
        .chain(crate::games::auto::COMMON_CODES);
    for (code, _) in codes {
        assert!(section.contains(&format!("`{code}`")), "{code}");
    }
}

#[test]
fn a_single_tied_path_would_be_forced() {
    // A tie always offers two paths or more; were one left, it would be chosen at once.
    let mut state = red_and_blue(10, 10);
    give_track(&mut state, Red, &["SEA-POR"]);
    state.bonus_choice = Some(super::super::state::BonusChoice {
        company: Red,
        options: vec![TranscontinentalPath {
            companies: vec![Red],
            links: vec![link("SEA-POR")],
        }],
    });
    let f = forced(&state, 0).expect("one path");
    assert_eq!(f.command, Command::ChoosePath { index: 0 });
    assert_eq!(f.reason, Reason::new("only_path").with("index", 0));
}

#[test]
fn the_others_may_answer_a_rounds_auctions_and_a_running_auction_ahead() {
    let mut state = new_game(4, 0);
    let window = |s: &State, seat| SteelDriver::order_window(s, seat);
    assert_eq!(window(&state, 0), None, "the pawn holder is asked anyway");
    assert_eq!(window(&state, 2).as_deref(), Some("round/1/auctions"));
    act(
        &mut state,
        0,
        Command::OpenAuction {
            company: Red,
            bid: 1,
        },
    );
    assert_eq!(window(&state, 1), None, "seat 1 is to bid");
    assert_eq!(window(&state, 2).as_deref(), Some("round/1/auction/Red"));
    assert_eq!(
        window(&state, 0).as_deref(),
        Some("round/1/auction/Red"),
        "the high bidder may be outbid"
    );
    act(&mut state, 1, Command::PassBid);
    assert_eq!(
        window(&state, 1).as_deref(),
        Some("round/1/auctions"),
        "out"
    );
}
