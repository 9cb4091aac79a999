//! Scenario tests, one rule each: given a position, when a command, then these events or
//! this error. Positions are reached by playing commands where that is short, and otherwise
//! by writing the position directly (track, cubes) with the conservation counters kept right,
//! so `check_invariants` still holds.

use super::super::decide::{delivery_controllers, score_goods};
use super::super::map::bits;
use super::super::protocol::{CompanyAmount, FinalProfit, Payment, TranscontinentalPath};
use super::super::state::Phase;
use super::super::*;
use super::support::*;
use crate::games::{Actor, GameRng, Seat, Viewer};
use Company::*;

// ---------------------------------------------------------------------------------------
// Setup and the auction phase.

#[test]
fn setup_deals_the_round_one_cubes_by_player_count_and_a_random_pawn_holder() {
    for (seats, cubes) in [(3, 10), (4, 8), (5, 7), (6, 6)] {
        let mut holders = [false; 6];
        for seed in 0..40 {
            let events =
                SteelDriver::setup(&Options::default(), seats, &mut GameRng::from_u64(seed));
            let state = SteelDriver::fold(&events);
            assert!(
                state
                    .players
                    .iter()
                    .all(|p| p.cubes == cubes && p.money == 0)
            );
            assert_eq!(state.phase, Phase::Auction);
            assert_eq!(pending(&state), vec![state.pawn]);
            holders[usize::from(state.pawn)] = true;
        }
        assert!(holders[..usize::from(seats)].iter().all(|&h| h), "{seats}");
    }
}

#[test]
fn opening_an_auction_with_zero_cubes_is_refused() {
    let mut state = new_game(4, 0);
    state.cubes_handed_out -= state.players[0].cubes;
    state.players[0].cubes = 0;
    let open = Command::OpenAuction {
        company: Red,
        bid: 1,
    };
    when(&state, 0, open).then_refused("not_enough_cubes");
    // The only thing left to do is to pass the pawn.
    assert_eq!(
        SteelDriver::pass_command(&state, 0),
        Some(Command::PassPawn)
    );
    match SteelDriver::legal(&state, 0) {
        Legal::OpenAuction {
            companies, cubes, ..
        } => {
            assert!(companies.is_empty());
            assert_eq!(cubes, 0);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_opening_bid_must_be_at_least_one_cube_and_at_most_the_cubes_held() {
    let state = new_game(4, 0);
    let open = |bid| Command::OpenAuction { company: Red, bid };
    when(&state, 0, open(0)).then_refused("no_opening_bid");
    when(&state, 0, open(9)).then_refused("not_enough_cubes");
    when(&state, 1, open(1)).then_refused("not_your_turn");
}

#[test]
fn a_bid_not_above_the_current_bid_is_refused() {
    let mut state = new_game(4, 0);
    act(
        &mut state,
        0,
        Command::OpenAuction {
            company: Red,
            bid: 3,
        },
    );
    assert_eq!(pending(&state), vec![1]);
    when(&state, 1, Command::Bid { bid: 3 }).then_refused("bid_too_low");
    when(&state, 1, Command::Bid { bid: 2 }).then_refused("bid_too_low");
    when(&state, 1, Command::Bid { bid: 9 }).then_refused("not_enough_cubes");
    when(&state, 2, Command::Bid { bid: 4 }).then_refused("not_your_turn");
    assert_eq!(
        act(&mut state, 1, Command::Bid { bid: 4 }),
        vec![Event::BidPlaced { seat: 1, bid: 4 }]
    );
}

#[test]
fn bidding_goes_clockwise_from_the_openers_left_and_a_passer_is_out_of_that_auction_only() {
    let mut state = new_game(4, 1);
    act(
        &mut state,
        1,
        Command::OpenAuction {
            company: Red,
            bid: 2,
        },
    );
    assert_eq!(pending(&state), vec![2]);
    act(&mut state, 2, Command::PassBid);
    assert_eq!(pending(&state), vec![3]);
    act(&mut state, 3, Command::Bid { bid: 3 });
    act(&mut state, 0, Command::PassBid);
    act(&mut state, 1, Command::Bid { bid: 4 });
    // Seat 2 passed: it is skipped; seat 3 is next.
    assert_eq!(pending(&state), vec![3]);
    let events = act(&mut state, 3, Command::PassBid);
    assert_eq!(
        events,
        vec![
            Event::BidPassed { seat: 3 },
            Event::AuctionWon {
                seat: 1,
                company: Red,
                price: 4,
                pawn_to: 2,
            },
        ]
    );
    // The winner pays into the box and takes the marker and one share; others pay nothing.
    assert_eq!(state.players[1].cubes, 4);
    assert_eq!(state.players[3].cubes, 8);
    assert_eq!(state.company(Red).cubes, 4);
    assert_eq!(state.company(Red).controller, Some(1));
    assert_eq!(state.players[1].shares[Red.index()], 1);
    // The pawn goes to the opener's left; seat 2, out of the Red auction, may open another.
    assert_eq!(pending(&state), vec![2]);
    when(
        &state,
        2,
        Command::OpenAuction {
            company: Red,
            bid: 1,
        },
    )
    .then_refused("company_not_available");
    act(
        &mut state,
        2,
        Command::OpenAuction {
            company: Blue,
            bid: 1,
        },
    );
    assert_eq!(pending(&state), vec![3]);
}

#[test]
fn the_auction_phase_ends_after_a_full_circle_of_pawn_passes() {
    let mut state = new_game(3, 2);
    win(&mut state, 2, Red, 2);
    assert_eq!(state.pawn, 0);
    assert_eq!(act(&mut state, 0, Command::PassPawn).len(), 1);
    assert_eq!(act(&mut state, 1, Command::PassPawn).len(), 1);
    let events = act(&mut state, 2, Command::PassPawn);
    assert_eq!(events[0], Event::PawnPassed { seat: 2, to: 0 });
    assert_eq!(events[1], Event::AuctionPhaseEnded { all_sold: false });
    assert_eq!(state.phase, Phase::Building);
    // Red (seat 2) is the first company to build.
    assert_eq!(pending(&state), vec![2]);
    // The pawn stays where the circle ended, for the next round.
    assert_eq!(state.pawn, 0);
}

#[test]
fn a_player_may_win_several_companies_and_the_phase_ends_when_all_markers_are_sold() {
    let mut state = new_game(3, 0);
    for (i, company) in Company::ALL.into_iter().enumerate() {
        // Each winner is the pawn holder: the pawn moves on to the opener's left each time.
        let seat = state.pawn;
        assert_eq!(seat, (i % 3) as Seat);
        act(&mut state, seat, Command::OpenAuction { company, bid: 1 });
        act(&mut state, (seat + 1) % 3, Command::PassBid);
        let events = act(&mut state, (seat + 2) % 3, Command::PassBid);
        if company == Brown {
            assert_eq!(
                &events[1..],
                &[
                    Event::AuctionWon {
                        seat,
                        company,
                        price: 1,
                        pawn_to: 0,
                    },
                    Event::AuctionPhaseEnded { all_sold: true },
                ]
            );
        }
    }
    assert_eq!(state.phase, Phase::Building);
    assert_eq!(state.pawn, 0);
    let owned: Vec<Company> = Company::ALL
        .into_iter()
        .filter(|c| state.company(*c).controller == Some(0))
        .collect();
    assert_eq!(owned, vec![Red, Blue]);
    assert_eq!(state.players[0].cubes, 8);
}

#[test]
fn commands_out_of_step_or_turn_are_refused() {
    let mut state = new_game(3, 0);
    when(&state, 0, Command::Bid { bid: 2 }).then_refused("wrong_step");
    when(&state, 0, Command::PassBid).then_refused("wrong_step");
    when(&state, 0, build("SEA-POR")).then_refused("wrong_step");
    when(&state, 0, Command::PassDelivery).then_refused("wrong_step");
    when(&state, 1, Command::PassPawn).then_refused("not_your_turn");
    assert_eq!(
        SteelDriver::decide(
            &state,
            Actor::System,
            &Command::PassPawn,
            &mut GameRng::from_u64(0)
        )
        .unwrap_err()
        .code,
        "not_your_turn"
    );
    act(
        &mut state,
        0,
        Command::OpenAuction {
            company: Red,
            bid: 1,
        },
    );
    when(&state, 1, Command::PassPawn).then_refused("wrong_step");
    when(
        &state,
        1,
        Command::OpenAuction {
            company: Blue,
            bid: 2,
        },
    )
    .then_refused("wrong_step");
}

// ---------------------------------------------------------------------------------------
// The building phase.

/// Round 1, 4 players: seat 0 controls Red, seat 1 Blue, with these boxes; the auctions
/// are over, so Red is to build.
pub(super) fn red_and_blue(red_box: u32, blue_box: u32) -> State {
    let mut state = new_game(4, 0);
    give_cubes(&mut state, 0, red_box);
    give_cubes(&mut state, 1, blue_box);
    win(&mut state, 0, Red, red_box);
    win(&mut state, 1, Blue, blue_box);
    close_auctions(&mut state);
    assert_eq!(state.phase, Phase::Building);
    assert_eq!(pending(&state), vec![0]);
    state
}

#[test]
fn a_link_already_built_by_another_company_is_refused() {
    let mut state = red_and_blue(10, 10);
    give_track(&mut state, Blue, &["SEA-POR"]);
    when(&state, 0, build("SEA-POR")).then_refused("link_taken");
    // Cities are shared: Red may start at Seattle on another link.
    act(&mut state, 0, build("SEA-BOI"));
}

#[test]
fn a_first_link_not_from_a_start_city_is_refused() {
    let state = red_and_blue(10, 10);
    // Portland and Boise are not start cities.
    when(&state, 0, build("POR-BOI")).then_refused("not_from_start_city");
}

#[test]
fn a_link_not_touching_the_network_is_refused() {
    let mut state = red_and_blue(10, 10);
    give_track(&mut state, Red, &["SEA-POR"]);
    // Los Angeles is a start city, but Red already has track elsewhere.
    when(&state, 0, build("LAX-SDG")).then_refused("not_connected");
    // Branches are allowed: both from Seattle and from Portland.
    assert!(when(&state, 0, build("SEA-BOI")).result().is_ok());
    assert!(when(&state, 0, build("POR-SAC")).result().is_ok());
}

#[test]
fn a_link_costing_more_than_the_box_is_refused() {
    let mut state = red_and_blue(4, 10);
    give_track(&mut state, Red, &["SEA-POR"]);
    when(&state, 0, build("SEA-BOI")).then_refused("cost_exceeds_box");
    when(&state, 0, build("POR-SAC")).then_refused("cost_exceeds_box");
}

#[test]
fn a_company_that_can_build_must_build() {
    let mut state = red_and_blue(2, 1);
    when(&state, 0, Command::PassBuild).then_refused("must_build");
    assert_eq!(SteelDriver::pass_command(&state, 0), None);
    // With 2 cubes Red can afford the 2-cost links from start cities only.
    let Legal::Build {
        links, can_pass, ..
    } = SteelDriver::legal(&state, 0)
    else {
        panic!("Red builds");
    };
    assert!(!can_pass);
    assert!(links.iter().all(|o| o.cost == 2));
    assert!(links.iter().any(|o| o.link == link("SEA-POR")));
    act(&mut state, 0, build("SEA-POR"));
    // Blue holds 1 cube: nothing is affordable, so it may (and must) pass.
    assert_eq!(pending(&state), vec![1]);
    assert_eq!(
        SteelDriver::pass_command(&state, 1),
        Some(Command::PassBuild)
    );
    when(&state, 1, build("PHL-NYC")).then_refused("cost_exceeds_box");
    act(&mut state, 1, Command::PassBuild);
}

#[test]
fn a_company_with_all_17_track_pieces_laid_cannot_build() {
    let mut state = red_and_blue(20, 1);
    // 17 connected links from New York, breadth first.
    let mut links = Vec::new();
    let mut reached = city("NYC").bit();
    while links.len() < 17 {
        let next = bits(MAP.links_touching(reached))
            .map(LinkId)
            .find(|l| !links.contains(l))
            .unwrap();
        reached |= MAP.links[next.index()].ends_mask();
        links.push(next);
    }
    let ids: Vec<&str> = links
        .iter()
        .map(|l| MAP.links[l.index()].id.as_str())
        .collect();
    give_track(&mut state, Red, &ids);
    let next = bits(MAP.links_touching(state.company(Red).cities) & !state.built())
        .next()
        .map(LinkId)
        .unwrap();
    when(&state, 0, Command::Build { link: next }).then_refused("no_track_left");
    assert_eq!(
        SteelDriver::pass_command(&state, 0),
        Some(Command::PassBuild)
    );
    act(&mut state, 0, Command::PassBuild);
}

#[test]
fn profit_counts_each_newly_connected_city_but_not_the_first_start_city() {
    let mut state = red_and_blue(20, 20);
    let events = act(&mut state, 0, build("SEA-POR"));
    assert_eq!(
        events[0],
        Event::LinkBuilt {
            company: Red,
            link: link("SEA-POR"),
            cost: 2,
            new_cities: vec![city("POR")],
            profit: 30,
        }
    );
    // Blue's first link joins two start cities: it starts from the lower-valued one
    // (Philadelphia, $50) and scores New York ($60).
    let events = act(&mut state, 1, build("PHL-NYC"));
    assert_eq!(
        events[0],
        Event::LinkBuilt {
            company: Blue,
            link: link("PHL-NYC"),
            cost: 2,
            new_cities: vec![city("NYC")],
            profit: 60,
        }
    );
    act(&mut state, 0, build("POR-SAC"));
    assert_eq!(state.company(Red).profit, 60);
    assert_eq!(state.company(Red).cubes, 13);
}

#[test]
fn a_link_joining_two_cities_already_on_the_network_scores_nothing() {
    let mut state = red_and_blue(20, 1);
    give_track(&mut state, Red, &["NYC-BOS", "BOS-BUF"]);
    let events = act(&mut state, 0, build("NYC-BUF"));
    assert!(matches!(
        &events[0],
        Event::LinkBuilt { new_cities, profit: 0, .. } if new_cities.is_empty()
    ));
}

#[test]
fn companies_without_a_controller_pass_automatically_and_the_pass_order_is_the_next_order() {
    let mut state = red_and_blue(2, 1);
    // Red builds; Yellow and Green, uncontrolled, pass without a turn; Blue is next.
    let events = act(&mut state, 0, build("SEA-POR"));
    assert_eq!(
        &events[1..],
        &[
            Event::CompanyPassed {
                company: Yellow,
                place: 0,
                automatic: true,
            },
            Event::CompanyPassed {
                company: Green,
                place: 1,
                automatic: true,
            },
        ]
    );
    assert_eq!(pending(&state), vec![1]);
    let events = act(&mut state, 1, Command::PassBuild);
    assert_eq!(
        events,
        vec![
            Event::CompanyPassed {
                company: Blue,
                place: 2,
                automatic: false,
            },
            Event::CompanyPassed {
                company: Grey,
                place: 3,
                automatic: true,
            },
            Event::CompanyPassed {
                company: Brown,
                place: 4,
                automatic: true,
            },
        ]
    );
    // Red again: its box is empty now.
    assert_eq!(pending(&state), vec![0]);
    let events = act(&mut state, 0, Command::PassBuild);
    let order = vec![Yellow, Green, Blue, Grey, Brown, Red];
    assert_eq!(
        &events[1..],
        &[
            Event::DividendsPaid {
                round: 1,
                payments: vec![Payment {
                    seat: 0,
                    company: Red,
                    shares: 1,
                    amount: 30,
                }],
            },
            Event::RoundEnded {
                round: 1,
                order: order.clone(),
            },
            Event::RoundStarted { round: 2, cubes: 8 },
        ]
    );
    assert_eq!(state.players[0].money, 30);
    assert_eq!(state.company(Red).profit, 0);
    assert_eq!(state.company(Red).controller, None, "markers go back");
    assert_eq!(state.players[0].shares[Red.index()], 1, "shares stay");
    assert_eq!(state.turns.order.to_vec(), order);

    // Round 2: Red and Yellow are sold; Yellow acts first, Red last.
    give_cubes(&mut state, 2, 10);
    win(&mut state, 2, Yellow, 4);
    win(&mut state, 3, Red, 1);
    close_auctions(&mut state);
    assert_eq!(state.turns.current(), Some(Yellow));
    assert_eq!(pending(&state), vec![2]);
}

#[test]
fn building_is_refused_to_a_seat_whose_company_is_not_acting() {
    let state = red_and_blue(10, 10);
    when(&state, 1, build("PHL-NYC")).then_refused("not_your_turn");
    when(&state, 2, Command::PassBuild).then_refused("not_your_turn");
}

// ---------------------------------------------------------------------------------------
// The transcontinental bonus.

const WEST: [&str; 3] = ["SAC-SFO", "SAC-SLC", "SLC-DEN"];

/// Blue (seat 0, 10 cubes) is to act with track on Omaha–Chicago; Red has track from San
/// Francisco to Denver; the east is given by `east`. Nobody controls the other companies.
fn before_the_connection(east: &[(Company, &[&str])]) -> State {
    let mut state = new_game(4, 0);
    give_cubes(&mut state, 0, 10);
    win(&mut state, 0, Blue, 10);
    close_auctions(&mut state);
    give_track(&mut state, Red, &WEST);
    give_track(&mut state, Blue, &["OMA-CHI"]);
    for (company, links) in east {
        give_track(&mut state, *company, links);
    }
    check_invariants(&state).unwrap();
    assert_eq!(pending(&state), vec![0]);
    state
}

fn amounts(list: &[(Company, u32)]) -> Vec<CompanyAmount> {
    list.iter()
        .map(|&(company, amount)| CompanyAmount { company, amount })
        .collect()
}

fn path(companies: &[Company], links: &[&str]) -> TranscontinentalPath {
    TranscontinentalPath {
        companies: companies.to_vec(),
        links: links.iter().map(|l| link(l)).collect(),
    }
}

#[test]
fn the_transcontinental_bonus_takes_the_path_with_fewest_companies_then_fewest_links() {
    // East: Yellow alone from New York to Chicago in 5 links, or Green + Grey in 4.
    let mut state = before_the_connection(&[
        (
            Yellow,
            &["PHL-NYC", "BAL-PHL", "BAL-PIT", "CIN-PIT", "CHI-CIN"],
        ),
        (Green, &["NYC-BUF", "BUF-CLE"]),
        (Grey, &["CHI-DET", "CLE-DET"]),
    ]);
    let Legal::Build { links, .. } = SteelDriver::legal(&state, 0) else {
        panic!("Blue builds")
    };
    let flagged: Vec<LinkId> = links
        .iter()
        .filter(|o| o.transcontinental)
        .map(|o| o.link)
        .collect();
    assert_eq!(flagged, vec![link("DEN-OMA")]);

    let events = act(&mut state, 0, build("DEN-OMA"));
    let expected = path(
        &[Red, Yellow, Blue],
        &[
            "PHL-NYC", "BAL-PHL", "BAL-PIT", "CIN-PIT", "CHI-CIN", "OMA-CHI", "DEN-OMA", "SLC-DEN",
            "SAC-SLC", "SAC-SFO",
        ],
    );
    assert_eq!(
        events[1],
        Event::TranscontinentalBonus {
            company: Blue,
            path: expected,
            bonuses: amounts(&[(Blue, 50), (Red, 30), (Yellow, 30)]),
        }
    );
    // Denver ($50) plus the bonus; Green and Grey get nothing.
    assert_eq!(state.company(Blue).profit, 100);
    assert_eq!(state.company(Red).profit, 30);
    assert_eq!(state.company(Green).profit, 0);
    assert_eq!(state.company(Grey).profit, 0);
    assert_eq!(state.bonuses_paid, 1);

    // Once per game: a second connection pays nothing.
    let events = act(&mut state, 0, build("DEN-KC"));
    assert_eq!(events.len(), 1);
    assert_eq!(state.bonuses_paid, 1);
}

#[test]
fn tied_transcontinental_paths_are_chosen_by_the_completing_companys_controller() {
    // East: Yellow or Green, each alone from New York to Chicago in 4 links.
    let mut state = before_the_connection(&[
        (Yellow, &["PHL-NYC", "PHL-PIT", "CIN-PIT", "CHI-CIN"]),
        (Green, &["NYC-BUF", "BUF-CLE", "CLE-DET", "CHI-DET"]),
    ]);
    let events = act(&mut state, 0, build("DEN-OMA"));
    let tail = ["OMA-CHI", "DEN-OMA", "SLC-DEN", "SAC-SLC", "SAC-SFO"];
    let via =
        |first: [&'static str; 4]| -> Vec<&'static str> { first.into_iter().chain(tail).collect() };
    let options = vec![
        path(
            &[Red, Yellow, Blue],
            &via(["PHL-NYC", "PHL-PIT", "CIN-PIT", "CHI-CIN"]),
        ),
        path(
            &[Red, Green, Blue],
            &via(["NYC-BUF", "BUF-CLE", "CLE-DET", "CHI-DET"]),
        ),
    ];
    assert_eq!(
        events[1..],
        [Event::TranscontinentalTie {
            company: Blue,
            options: options.clone(),
        }]
    );
    // The decision step: Blue's controller must choose before anything else happens.
    assert_eq!(pending(&state), vec![0]);
    assert!(matches!(
        SteelDriver::legal(&state, 0),
        Legal::ChoosePath { company: Blue, ref options } if options.len() == 2
    ));
    assert_eq!(SteelDriver::pass_command(&state, 0), None);
    when(&state, 0, build("DEN-KC")).then_refused("wrong_step");
    when(&state, 0, Command::PassBuild).then_refused("wrong_step");
    when(&state, 0, Command::ChoosePath { index: 2 }).then_refused("no_such_path");
    when(&state, 1, Command::ChoosePath { index: 1 }).then_refused("not_your_turn");
    let events = act(&mut state, 0, Command::ChoosePath { index: 1 });
    assert_eq!(
        events[0],
        Event::TranscontinentalBonus {
            company: Blue,
            path: options[1].clone(),
            bonuses: amounts(&[(Blue, 50), (Red, 30), (Green, 30)]),
        }
    );
    assert_eq!(state.company(Green).profit, 30);
    assert_eq!(state.company(Yellow).profit, 0);
    // Blue (the only controlled company) builds on.
    assert_eq!(pending(&state), vec![0]);
    assert!(matches!(SteelDriver::legal(&state, 0), Legal::Build { .. }));
}

// ---------------------------------------------------------------------------------------
// After round 5: goods, final profits and the winner.

#[test]
fn final_control_goes_to_most_shares_with_ties_clockwise_from_the_last_controller() {
    let mut state = new_game(4, 0);
    state.players[0].shares[Red.index()] = 1;
    state.players[1].shares[Red.index()] = 2;
    state.players[3].shares[Red.index()] = 2;
    let control = |state: &State, last: Seat| {
        let mut s = state.clone();
        s.companies[Red.index()].last_controller = Some(last);
        delivery_controllers(&s)[Red.index()]
    };
    assert_eq!(control(&state, 2), Some(3), "nearest clockwise from seat 2");
    assert_eq!(control(&state, 0), Some(1), "nearest clockwise from seat 0");
    assert_eq!(control(&state, 1), Some(1), "the last controller first");
    assert_eq!(control(&state, 3), Some(3), "the last controller first");
    // A clear majority wins whoever controlled it last.
    state.players[3].shares[Red.index()] = 3;
    assert_eq!(control(&state, 1), Some(3));
    // No share sold: nobody.
    assert_eq!(delivery_controllers(&state)[Yellow.index()], None);
}

#[test]
fn sets_score_by_their_number_of_colours() {
    // pink, orange, green, white, black
    assert_eq!(score_goods(&[0, 0, 1, 2, 2]), (vec![3, 2], 80));
    assert_eq!(score_goods(&[1, 1, 1, 1, 1]), (vec![5], 150));
    assert_eq!(score_goods(&[1, 1, 1, 1, 0]), (vec![4], 100));
    assert_eq!(score_goods(&[2, 1, 1, 1, 1]), (vec![5, 1], 160));
    assert_eq!(score_goods(&[0, 3, 0, 0, 0]), (vec![1, 1, 1], 30));
    assert_eq!(score_goods(&[0, 0, 0, 0, 0]), (vec![], 0));
}

/// Round 5, 4 players: seat 0 controls Red (San Francisco to Seattle), seat 1 Yellow
/// (San Francisco–Los Angeles), both with 1 cube, unable to build. Returns the events of
/// the end of the building phase.
pub(super) fn end_of_round_five(state: &mut State) -> Vec<Event> {
    *state = game_in_round(4, 0, 5);
    win(state, 0, Red, 1);
    win(state, 1, Yellow, 1);
    close_auctions(state);
    give_track(state, Red, &["SEA-POR", "POR-SAC", "SAC-SFO"]);
    give_track(state, Yellow, &["SFO-LAX"]);
    let mut events = act(state, 0, Command::PassBuild);
    events.extend(act(state, 1, Command::PassBuild));
    events
}

#[test]
fn after_round_five_boxes_empty_goods_appear_and_delivery_control_is_set() {
    let mut state = State::default();
    let events = end_of_round_five(&mut state);
    let tail: Vec<&Event> = events
        .iter()
        .skip_while(|e| !matches!(e, Event::RoundEnded { .. }))
        .collect();
    assert_eq!(
        tail,
        vec![
            &Event::RoundEnded {
                round: 5,
                order: vec![Red, Yellow, Green, Blue, Grey, Brown],
            },
            &Event::BoxesEmptied {
                cubes: amounts(&[(Red, 1), (Yellow, 1)]),
            },
            &Event::GoodsPlaced {
                cities: ["SFO", "SEA", "POR", "SAC", "LAX"].map(city).to_vec(),
            },
            &Event::DeliveryControl {
                controllers: vec![Some(0), Some(1), None, None, None, None],
            },
        ]
    );
    // Control markers stay after round 5; the delivery starts with Red.
    assert_eq!(state.company(Red).controller, Some(0));
    assert_eq!(state.phase, Phase::Delivery);
    assert_eq!(pending(&state), vec![0]);
}

#[test]
fn goods_are_taken_in_company_order_and_then_scored_and_paid_per_share() {
    let mut state = State::default();
    end_of_round_five(&mut state);
    when(&state, 0, Command::PassDelivery).then_refused("must_take_goods");
    when(&state, 0, Command::TakeGoods { city: city("NYC") }).then_refused("city_not_on_network");
    assert_eq!(SteelDriver::pass_command(&state, 0), None);
    let take = |c| Command::TakeGoods { city: city(c) };
    assert_eq!(
        act(&mut state, 0, take("SFO")),
        vec![Event::GoodsTaken {
            company: Red,
            city: city("SFO"),
            colour: Colour::Pink,
        }]
    );
    // First come, first served.
    when(&state, 1, take("SFO")).then_refused("no_goods_there");
    act(&mut state, 1, take("LAX"));
    act(&mut state, 0, take("SEA"));
    // Yellow can take nothing more: it passes for good.
    assert_eq!(
        SteelDriver::pass_command(&state, 1),
        Some(Command::PassDelivery)
    );
    act(&mut state, 1, Command::PassDelivery);
    act(&mut state, 0, take("POR"));
    act(&mut state, 0, take("SAC"));
    let events = act(&mut state, 0, Command::PassDelivery);
    let profits = match &events[1] {
        Event::FinalProfits { profits } => profits,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        profits[..2],
        [
            FinalProfit {
                company: Red,
                goods: [1, 3, 0, 0, 0],
                sets: vec![2, 1, 1],
                profit: 50,
            },
            FinalProfit {
                company: Yellow,
                goods: [0, 1, 0, 0, 0],
                sets: vec![1],
                profit: 10,
            },
        ]
    );
    assert_eq!(
        events[2],
        Event::FinalDividendsPaid {
            payments: vec![
                Payment {
                    seat: 0,
                    company: Red,
                    shares: 1,
                    amount: 50,
                },
                Payment {
                    seat: 1,
                    company: Yellow,
                    shares: 1,
                    amount: 10,
                },
            ],
        }
    );
    assert_eq!(
        events[3],
        Event::GameEnded {
            scores: vec![50, 10, 0, 0],
            goods: vec![4, 1, 0, 0],
            ranks: vec![1, 2, 3, 3],
            winners: vec![0],
        }
    );
    assert_eq!(state.phase, Phase::Finished);
    assert!(pending(&state).is_empty());
    let outcome = SteelDriver::outcome(&state).unwrap();
    assert_eq!(outcome.scores, vec![Some(50), Some(10), Some(0), Some(0)]);
    assert_eq!(outcome.winners, vec![0]);
    when(&state, 0, Command::PassPawn).then_refused("wrong_step"); // nothing after the end
}

/// A goods phase where only Brown (seat `brown`, no network) has still to pass; money,
/// goods and delivery control as given.
fn last_pass(money: [u32; 3], goods: [[u8; 5]; 3], controllers: [Seat; 3]) -> Vec<Event> {
    let mut state = game_in_round(3, 0, 5);
    state.phase = Phase::Delivery;
    for seat in 0..3 {
        state.players[seat].money = money[seat];
        let company = Company::ALL[seat];
        state.companies[seat].goods = goods[seat];
        state.companies[seat].delivery_controller = Some(controllers[seat]);
        state.players[usize::from(controllers[seat])].shares[company.index()] = 1;
    }
    state.companies[Brown.index()].delivery_controller = Some(2);
    state.turns.start();
    for company in [Red, Yellow, Green, Blue, Grey] {
        state.turns.pass(company);
    }
    assert_eq!(pending(&state), vec![2]);
    when(&state, 2, Command::PassDelivery).result().unwrap()
}

fn ended(events: &[Event]) -> (Vec<u32>, Vec<u8>, Vec<Seat>) {
    match events.last() {
        Some(Event::GameEnded {
            scores,
            ranks,
            winners,
            ..
        }) => (scores.clone(), ranks.clone(), winners.clone()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn equal_money_is_broken_by_the_goods_in_the_companies_a_player_controls() {
    // Seat 0: $100 + Red's 1 pink ($10) = 110 with 1 goods cube; seat 1: $80 + Yellow's
    // 2 colours ($30) = 110 with 2 goods cubes; seat 2 far behind.
    let events = last_pass(
        [100, 80, 0],
        [[1, 0, 0, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 0, 0]],
        [0, 1, 2],
    );
    assert_eq!(ended(&events), (vec![110, 110, 0], vec![2, 1, 3], vec![1]));
}

#[test]
fn equal_money_and_goods_is_a_shared_win() {
    let events = last_pass(
        [100, 100, 0],
        [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0, 0]],
        [0, 1, 2],
    );
    assert_eq!(
        ended(&events),
        (vec![110, 110, 0], vec![1, 1, 3], vec![0, 1])
    );
}

#[test]
fn a_company_with_no_shares_sold_takes_no_goods() {
    let mut state = State::default();
    end_of_round_five(&mut state);
    // Green to Brown have no shares: they pass automatically when their turn comes.
    let take = |c| Command::TakeGoods { city: city(c) };
    act(&mut state, 0, take("SFO"));
    // When their turn first comes, after Yellow's.
    let events = act(&mut state, 1, take("LAX"));
    assert_eq!(
        events[1..],
        [Green, Blue, Grey, Brown].map(|company| Event::DeliveryPassed {
            company,
            automatic: true
        })
    );
    assert_eq!(pending(&state), vec![0]);
    assert!(state.company(Green).goods.iter().all(|&g| g == 0));
}

/// Section 5: at most one share of each company is sold per round. `check_progress` (run
/// after every event of the bot games) refuses a second sale in the same round and a control
/// marker that goes back to its box before the round ends.
#[test]
fn a_second_share_sold_in_one_round_breaks_the_progress_check() {
    // Round 2: two shares sold so far would be fine for one state on its own.
    let mut state = game_in_round(3, 0, 2);
    win(&mut state, 0, Red, 1);
    let sold_once = state.clone();
    // The marker cannot go back to its box in the middle of a round...
    let mut back = sold_once.clone();
    back.companies[Red.index()].controller = None;
    assert!(check_invariants(&back).is_ok(), "one state cannot tell");
    assert!(check_progress(&sold_once, &back).is_err());
    // ...and no share is sold while the marker is out of the box.
    let mut again = sold_once.clone();
    again.companies[Red.index()].controller = Some(1);
    again.companies[Red.index()].shares_sold += 1;
    again.players[1].shares[Red.index()] += 1;
    assert!(check_invariants(&again).is_ok(), "one state cannot tell");
    assert!(check_progress(&sold_once, &again).is_err());
    // Two shares in one step.
    let mut two = game_in_round(3, 0, 2);
    let before = two.clone();
    two.companies[Red.index()].controller = Some(0);
    two.companies[Red.index()].shares_sold = 2;
    two.players[0].shares[Red.index()] = 2;
    assert!(check_progress(&before, &two).is_err());
    // The real end of a round returns the markers: fine, event by event.
    close_auctions(&mut state);
    for event in when(&state, 0, Command::PassBuild).result().unwrap() {
        let before = state.clone();
        state.apply(&event);
        check_progress(&before, &state).unwrap_or_else(|e| panic!("{event:?}: {e}"));
    }
    assert!(state.round == 3 && state.company(Red).controller.is_none());
}

// ---------------------------------------------------------------------------------------
// Views, options, the map.

#[test]
fn every_viewer_sees_the_whole_position_and_every_event() {
    let mut state = red_and_blue(4, 4);
    act(&mut state, 0, build("SEA-POR"));
    let views: Vec<String> = [
        Viewer::Seat(0),
        Viewer::Seat(2),
        Viewer::Spectator,
        Viewer::Omniscient,
    ]
    .into_iter()
    .map(|v| serde_json::to_string(&SteelDriver::view(&state, v)).unwrap())
    .collect();
    assert!(views.windows(2).all(|w| w[0] == w[1]));
    let view = SteelDriver::view(&state, Viewer::Spectator);
    assert_eq!(view.map.cities.len(), 38);
    assert_eq!(view.map.links.len(), 61);
    let sea_por = &view.map.links[link("SEA-POR").index()];
    assert_eq!(sea_por.company, Some(Red));
    assert_eq!(
        view.companies[Red.index()].cities,
        vec![city("SEA"), city("POR")]
    );
    assert_eq!(view.companies[Red.index()].profit, 30);
    assert_eq!(view.pending, vec![1]);
    assert_eq!(view.active_company, Some(Blue));
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["map"]["links"][0]["id"], "SEA-POR");
    assert_eq!(json["companies"][0]["company"], "red");

    let event = Event::BidPlaced { seat: 1, bid: 3 };
    for viewer in [Viewer::Seat(0), Viewer::Spectator] {
        assert_eq!(SteelDriver::redact(&event, viewer), Some(event.clone()));
    }
}

#[test]
fn legal_is_empty_for_a_seat_with_nothing_to_do() {
    let state = new_game(4, 2);
    for seat in [0, 1, 3] {
        assert!(matches!(SteelDriver::legal(&state, seat), Legal::Wait));
        assert_eq!(SteelDriver::pass_command(&state, seat), None);
    }
    match SteelDriver::legal(&state, 2) {
        Legal::OpenAuction {
            companies,
            min_bid,
            max_bid,
            can_pass,
            ..
        } => {
            assert_eq!(companies, Company::ALL.to_vec());
            assert_eq!((min_bid, max_bid, can_pass), (1, 8, true));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn commands_and_events_use_the_documented_json() {
    let command: Command = serde_json::from_str(r#"{"type":"build","link":"PHL-NYC"}"#).unwrap();
    assert_eq!(command, build("PHL-NYC"));
    let command: Command =
        serde_json::from_str(r#"{"type":"open_auction","company":"grey","bid":3}"#).unwrap();
    assert_eq!(
        command,
        Command::OpenAuction {
            company: Grey,
            bid: 3
        }
    );
    assert!(serde_json::from_str::<Command>(r#"{"type":"build","link":"NYC-SFO"}"#).is_err());
    let json = serde_json::to_value(Event::GoodsTaken {
        company: Red,
        city: city("NOL"),
        colour: Colour::Pink,
    })
    .unwrap();
    assert_eq!(
        json,
        serde_json::json!({"type": "goods_taken", "company": "red", "city": "NOL", "colour": "pink"})
    );
}

#[test]
fn options_fill_the_defaults_and_reject_unknown_fields_and_seat_counts() {
    use serde_json::json;
    let usa = Options { map: "usa".into() };
    assert_eq!(parse_options(&json!(null), 4), Ok(usa.clone()));
    assert_eq!(parse_options(&json!({}), 3), Ok(usa.clone()));
    assert_eq!(parse_options(&json!({"map": "usa"}), 6), Ok(usa));
    let field = |raw, seats| parse_options(&raw, seats).unwrap_err().field;
    assert_eq!(field(json!({"map": "europe"}), 4), "map");
    assert_eq!(field(json!({"map": 1}), 4), "map");
    assert_eq!(field(json!({"expansion": true}), 4), "expansion");
    assert_eq!(field(json!([1]), 4), "options");
    for seats in [0, 2, 7] {
        let e = parse_options(&json!({}), seats).unwrap_err();
        assert_eq!(e.field, "seats");
        assert_eq!(e.message, "Steel Driver is for 3 to 6 players");
    }
    // Stored options are explicit.
    assert_eq!(
        serde_json::to_value(Options::default()).unwrap(),
        json!({"map": "usa"})
    );
}

#[test]
fn error_codes_are_unique_and_documented() {
    let mut codes: Vec<&str> = ERROR_CODES.iter().map(|(c, _)| *c).collect();
    let n = codes.len();
    codes.sort();
    codes.dedup();
    assert_eq!(codes.len(), n);
    assert!(ERROR_CODES.iter().all(|(c, m)| !m.is_empty()
        && c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_')));
}

mod map_data {
    use super::super::super::map::{Map, MapError};
    use serde_json::{Value, json};

    fn data() -> Value {
        serde_json::from_str(include_str!("../map.json")).unwrap()
    }

    fn parse(value: &Value) -> Result<Map, MapError> {
        Map::parse(&value.to_string())
    }

    fn city_mut<'a>(v: &'a mut Value, id: &str) -> &'a mut Value {
        v["cities"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|c| c["id"] == id)
            .unwrap()
    }

    fn route_mut<'a>(v: &'a mut Value, id: &str) -> &'a mut Value {
        v["routes"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|c| c["id"] == id)
            .unwrap()
    }

    #[test]
    fn the_built_in_map_is_valid() {
        let map = parse(&data()).unwrap();
        assert_eq!(map.cities.len(), 38);
        assert_eq!(map.links.len(), 61);
        assert_eq!(map.start_cities.count_ones(), 10);
        assert_eq!(map.colour_counts, [3, 5, 6, 12, 12]);
        assert_eq!(map.cities[map.new_york.index()].id, "NYC");
        assert_eq!(map.cities[map.san_francisco.index()].id, "SFO");
    }

    #[test]
    fn malformed_json_is_refused() {
        assert!(matches!(Map::parse("{"), Err(MapError::Json(_))));
        assert!(matches!(
            Map::parse(r#"{"cities": []}"#),
            Err(MapError::Json(_))
        ));
    }

    #[test]
    fn a_link_to_an_unknown_city_is_refused() {
        let mut v = data();
        route_mut(&mut v, "SEA-POR")["to"] = json!("XYZ");
        assert_eq!(
            parse(&v).unwrap_err(),
            MapError::UnknownCity {
                link: "SEA-POR".into(),
                city: "XYZ".into()
            }
        );
    }

    #[test]
    fn a_link_cost_outside_2_to_6_is_refused() {
        for cost in [1, 7] {
            let mut v = data();
            route_mut(&mut v, "SEA-BOI")["cost"] = json!(cost);
            assert_eq!(
                parse(&v).unwrap_err(),
                MapError::LinkCost {
                    link: "SEA-BOI".into(),
                    cost
                }
            );
        }
    }

    #[test]
    fn a_city_value_outside_20_to_60_is_refused() {
        for value in [10, 70] {
            let mut v = data();
            city_mut(&mut v, "DEN")["value"] = json!(value);
            assert_eq!(
                parse(&v).unwrap_err(),
                MapError::CityValue {
                    city: "DEN".into(),
                    value
                }
            );
        }
    }

    #[test]
    fn a_map_without_start_cities_is_refused() {
        let mut v = data();
        for c in v["cities"].as_array_mut().unwrap() {
            c["start"] = json!(false);
        }
        assert_eq!(parse(&v).unwrap_err(), MapError::NoStartCity);
    }

    #[test]
    fn new_york_and_san_francisco_must_be_on_the_map() {
        let mut v = data();
        city_mut(&mut v, "NYC")["name"] = json!("Gotham");
        assert_eq!(parse(&v).unwrap_err(), MapError::MissingCity("New York"));
        let mut v = data();
        city_mut(&mut v, "SFO")["name"] = json!("Yerba Buena");
        assert_eq!(
            parse(&v).unwrap_err(),
            MapError::MissingCity("San Francisco")
        );
    }

    #[test]
    fn colour_counts_must_match_the_declaration() {
        let mut v = data();
        city_mut(&mut v, "DEN")["colour"] = json!("black");
        assert_eq!(
            parse(&v).unwrap_err(),
            MapError::ColourCount {
                colour: "black".into(),
                declared: 12,
                found: 13
            }
        );
        let mut v = data();
        city_mut(&mut v, "DEN")["colour"] = json!("purple");
        assert_eq!(
            parse(&v).unwrap_err(),
            MapError::UnknownColour {
                city: "DEN".into(),
                colour: "purple".into()
            }
        );
    }

    #[test]
    fn the_map_must_be_connected() {
        let mut v = data();
        v["routes"]
            .as_array_mut()
            .unwrap()
            .retain(|r| r["from"] != "SDG" && r["to"] != "SDG");
        assert_eq!(parse(&v).unwrap_err(), MapError::Disconnected("SDG".into()));
    }

    #[test]
    fn a_city_listed_twice_is_refused() {
        let mut v = data();
        let copy = v["cities"][3].clone();
        v["cities"].as_array_mut().unwrap().push(copy);
        assert_eq!(
            parse(&v).unwrap_err(),
            MapError::DuplicateCity("SEA".into())
        );
    }

    #[test]
    fn a_link_listed_twice_is_refused() {
        let mut v = data();
        let copy = v["routes"][0].clone();
        v["routes"].as_array_mut().unwrap().push(copy);
        assert_eq!(
            parse(&v).unwrap_err(),
            MapError::DuplicateLink("SEA-POR".into())
        );
    }

    #[test]
    fn a_link_from_a_city_to_itself_is_refused() {
        let mut v = data();
        route_mut(&mut v, "SEA-POR")["to"] = json!("SEA");
        assert_eq!(parse(&v).unwrap_err(), MapError::LinkLoop("SEA-POR".into()));
    }

    #[test]
    fn more_cities_or_links_than_a_bitset_holds_are_refused() {
        let mut v = data();
        let routes = v["routes"].as_array_mut().unwrap();
        for i in 0..10 {
            let mut r = routes[0].clone();
            r["id"] = json!(format!("extra-{i}"));
            routes.push(r);
        }
        assert!(matches!(
            parse(&v),
            Err(MapError::TooLarge { links: 71, .. })
        ));
    }
}

#[test]
fn api_schemas_are_named_for_the_game_and_every_reference_resolves() {
    use std::collections::BTreeMap;
    use utoipa::ToSchema;
    use utoipa::openapi::{RefOr, schema::Schema};
    fn add<T: ToSchema>(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((T::name().into(), T::schema()));
        T::schemas(schemas);
    }
    let mut schemas = Vec::new();
    add::<Options>(&mut schemas);
    add::<Command>(&mut schemas);
    add::<Event>(&mut schemas);
    add::<View>(&mut schemas);
    add::<Legal>(&mut schemas);
    let schemas: BTreeMap<String, RefOr<Schema>> = schemas.into_iter().collect();
    // The shared contract's `Outcome` (and the `u8` it brings along) are the platform's.
    let mut shared = Vec::new();
    add::<crate::games::Outcome>(&mut shared);
    for name in schemas.keys() {
        assert!(
            name.starts_with("SteelDriver") || shared.iter().any(|(n, _)| n == name),
            "schema `{name}` could collide with another game's"
        );
    }
    let json = serde_json::to_string(&schemas).unwrap();
    for reference in json.split("\"$ref\":\"#/components/schemas/").skip(1) {
        let name = &reference[..reference.find('"').unwrap()];
        assert!(schemas.contains_key(name), "unresolved reference to {name}");
    }
}

#[test]
fn a_bot_asked_for_a_seat_that_is_not_to_act_answers_without_panicking() {
    let state = red_and_blue(4, 4);
    for level in [BotLevel::Random, BotLevel::Sensible] {
        for seat in [1, 3, 9] {
            let command = SteelDriver::bot_command(&state, seat, level, &mut GameRng::from_u64(1));
            assert!(when(&state, seat, command).result().is_err());
        }
    }
}
