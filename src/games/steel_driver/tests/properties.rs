//! Property tests.
//!
//! * Bot games (random and sensible bots mixed): every game ends after round 5 and the goods
//!   phase, the invariants hold after every event, money never decreases, every event
//!   survives a serde round trip, folding the events rebuilds the final state, the final
//!   state survives a serde round trip, and every transcontinental decision agrees with a
//!   brute-force search of all paths. In every `LEGAL_EVERY`-th game, `legal` and
//!   `pass_command` are also compared with `decide` after every event, for every seat.
//!   `GAMES_PER_SEAT_COUNT` games for each of 3, 4, 5 and 6 players (2,000 in all); at seat
//!   `s` of game `g` the bot is sensible when bit `s` of `g` is set, so all-random,
//!   all-sensible and mixed tables all occur.
//! * The two shortcuts of the engine against brute force on random inputs: the goods set
//!   split, and the transcontinental path choice on random track.

use super::super::decide::{SET_VALUES, score_goods};
use super::super::map::{CityId, LinkId, MAP, bits};
use super::super::protocol::TranscontinentalPath;
use super::super::state::{Phase, ROUNDS};
use super::super::transcontinental::{best_paths, joined};
use super::super::*;
use crate::games::simulate::play_game;
use crate::games::testing::bot_mix;
use crate::games::{Actor, Seat};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashMap};

const GAMES_PER_SEAT_COUNT: u64 = 500;
/// Every this many games, `legal` is compared with `decide` after every event.
const LEGAL_EVERY: u64 = 20;

/// Checks one event of a bot game; `previous` is the state before it, `state` after.
fn check_event(previous: &State, state: &State, event: &Event) -> Result<(), String> {
    check_invariants(state)?;
    check_progress(previous, state)?;
    let json = serde_json::to_string(event).map_err(|e| e.to_string())?;
    let back: Event = serde_json::from_str(&json).map_err(|e| e.to_string())?;
    if &back != event {
        return Err(format!("event round trip changed {json}"));
    }
    let tracks = state.companies.each_ref().map(|c| c.links);
    match event {
        Event::TranscontinentalTie { options, .. } => check_bonus_paths(&tracks, options),
        Event::TranscontinentalBonus { path, .. } => match &previous.bonus_choice {
            None => check_bonus_paths(&tracks, std::slice::from_ref(path)),
            Some(choice) if choice.options.contains(path) => Ok(()),
            Some(_) => Err("the bonus path was not among the options".into()),
        },
        _ => Ok(()),
    }
}

/// `legal` and `pass_command` agree with `decide` for every seat: what is offered is
/// accepted, the limits are exact, and what is not offered is refused.
fn check_legal(state: &State) -> Result<(), String> {
    let accepts = |seat: Seat, command: Command| {
        SteelDriver::decide(
            state,
            Actor::Seat(seat),
            &command,
            &mut GameRng::from_u64(0),
        )
        .is_ok()
    };
    let pending = SteelDriver::pending(state);
    for seat in 0..state.seats {
        let legal = SteelDriver::legal(state, seat);
        let pass = SteelDriver::pass_command(state, seat);
        if !pending.contains(&seat) {
            if !matches!(legal, Legal::Wait) || pass.is_some() {
                return Err(format!("seat {seat} is not pending but has {legal:?}"));
            }
            continue;
        }
        if let Some(p) = &pass
            && !accepts(seat, p.clone())
        {
            return Err(format!("pass_command {p:?} is refused"));
        }
        let agrees = match legal {
            Legal::Wait => false,
            Legal::OpenAuction {
                companies,
                min_bid,
                max_bid,
                can_pass,
                ..
            } => {
                Company::ALL.into_iter().all(|company| {
                    let open = |bid| accepts(seat, Command::OpenAuction { company, bid });
                    if companies.contains(&company) {
                        open(min_bid) && open(max_bid) && !open(max_bid + 1)
                    } else {
                        !open(1)
                    }
                }) && can_pass == accepts(seat, Command::PassPawn)
                    && pass == Some(Command::PassPawn)
            }
            Legal::Bid {
                min_bid,
                cubes,
                can_bid,
                can_pass,
                ..
            } => {
                let bid = |bid| accepts(seat, Command::Bid { bid });
                can_bid == bid(min_bid)
                    && !bid(min_bid - 1)
                    && (!can_bid || (bid(cubes) && !bid(cubes + 1)))
                    && can_pass == accepts(seat, Command::PassBid)
            }
            Legal::Build {
                links, can_pass, ..
            } => {
                (0..MAP.links.len() as u8).all(|l| {
                    let link = LinkId(l);
                    links.iter().any(|o| o.link == link) == accepts(seat, Command::Build { link })
                }) && can_pass == accepts(seat, Command::PassBuild)
                    && can_pass == pass.is_some()
            }
            Legal::ChoosePath { options, .. } => (0..=options.len() as u8).all(|index| {
                accepts(seat, Command::ChoosePath { index }) == (usize::from(index) < options.len())
            }),
            Legal::TakeGoods {
                goods, can_pass, ..
            } => {
                (0..MAP.cities.len() as u8).all(|c| {
                    let city = CityId(c);
                    goods.iter().any(|g| g.city == city)
                        == accepts(seat, Command::TakeGoods { city })
                }) && can_pass == accepts(seat, Command::PassDelivery)
                    && can_pass == pass.is_some()
            }
        };
        if !agrees {
            return Err(format!("legal for seat {seat} disagrees with decide"));
        }
    }
    Ok(())
}

fn play_many(seats: u8) {
    let options = Options::default();
    let mut transcontinentals = 0;
    let mut ties = 0;
    for game in 0..GAMES_PER_SEAT_COUNT {
        let seed = u64::from(seats) * 1_000_000 + game;
        let bots = bot_mix(game, seats);
        let mut previous = State::default();
        let mut failure: Option<String> = None;
        let played = play_game::<SteelDriver>(&options, &bots, seed, |state, event| {
            if failure.is_none()
                && let Err(e) = check_event(&previous, state, event).and_then(|()| {
                    if game % LEGAL_EVERY == 0 {
                        check_legal(state)
                    } else {
                        Ok(())
                    }
                })
            {
                failure = Some(format!("after {event:?}: {e}"));
            }
            previous.clone_from(state);
        })
        .unwrap_or_else(|e| panic!("seed {seed}, {seats} seats: {e}"));
        if let Some(f) = failure {
            panic!("seed {seed}, {seats} seats: {f}");
        }

        let state = &played.state;
        assert_eq!(state.round, ROUNDS, "seed {seed}");
        assert_eq!(state.phase, Phase::Finished, "seed {seed}");
        assert!(SteelDriver::pending(state).is_empty());
        assert!(
            played
                .events
                .iter()
                .any(|e| matches!(e, Event::RoundEnded { round: 5, .. })),
            "seed {seed}: no end of round 5"
        );
        assert!(matches!(
            played.events.last(),
            Some(Event::GameEnded { .. })
        ));
        assert_eq!(played.outcome.scores.len(), usize::from(seats));
        assert!(!played.outcome.winners.is_empty());

        let replayed = SteelDriver::fold(&played.events);
        assert_eq!(&replayed, state, "seed {seed}: fold differs");

        let json = serde_json::to_string(state).unwrap();
        let back: State = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, state, "seed {seed}: state round trip");

        if state.transcontinental.is_some() {
            transcontinentals += 1;
        }
        if played
            .events
            .iter()
            .any(|e| matches!(e, Event::TranscontinentalTie { .. }))
        {
            ties += 1;
        }
    }
    // The games must exercise the bonus and its tie, or they prove little about them.
    assert!(transcontinentals > 0, "{seats} seats: no bonus paid");
    assert!(ties > 0, "{seats} seats: no tied bonus paths");
}

#[test]
fn bot_games_with_3_players_keep_every_rule() {
    play_many(3);
}

#[test]
fn bot_games_with_4_players_keep_every_rule() {
    play_many(4);
}

#[test]
fn bot_games_with_5_players_keep_every_rule() {
    play_many(5);
}

#[test]
fn bot_games_with_6_players_keep_every_rule() {
    play_many(6);
}

// ---------------------------------------------------------------------------------------
// Brute force.

/// The best total over every way of splitting `goods` into sets of distinct colours.
fn best_split(goods: [u8; 5], memo: &mut HashMap<[u8; 5], u32>) -> u32 {
    if let Some(&v) = memo.get(&goods) {
        return v;
    }
    let mut best = 0;
    for set in 1u8..32 {
        if (0..5).any(|c| set & (1 << c) != 0 && goods[c] == 0) {
            continue;
        }
        let mut rest = goods;
        for (c, g) in rest.iter_mut().enumerate() {
            if set & (1 << c) != 0 {
                *g -= 1;
            }
        }
        let value = SET_VALUES[set.count_ones() as usize] + best_split(rest, memo);
        best = best.max(value);
    }
    memo.insert(goods, best);
    best
}

/// Every simple path from New York to San Francisco over the companies' `tracks`, as
/// (number of companies, number of links, company set); `None` when there are too many
/// to list.
fn all_paths(tracks: &[u64; 6]) -> Option<Vec<(u32, usize, u8)>> {
    fn walk(
        at: CityId,
        seen: u64,
        links: &mut Vec<LinkId>,
        owner: &[Option<u8>],
        out: &mut Vec<(u32, usize, u8)>,
    ) -> bool {
        if at == MAP.san_francisco {
            let set = links
                .iter()
                .fold(0u8, |m, l| m | 1 << owner[l.index()].unwrap());
            out.push((set.count_ones(), links.len(), set));
            return out.len() < 200_000;
        }
        for &(next, link) in &MAP.adjacency[at.index()] {
            if owner[link.index()].is_some() && seen & next.bit() == 0 {
                links.push(link);
                let go_on = walk(next, seen | next.bit(), links, owner, out);
                links.pop();
                if !go_on {
                    return false;
                }
            }
        }
        true
    }
    let owner: Vec<Option<u8>> = (0..MAP.links.len())
        .map(|l| (0..6u8).find(|&c| tracks[usize::from(c)] & (1u64 << l) != 0))
        .collect();
    let mut out = Vec::new();
    let start = MAP.new_york;
    walk(start, start.bit(), &mut Vec::new(), &owner, &mut out).then_some(out)
}

/// Checks the offered bonus paths against every path: one option per company set tied for
/// fewest companies then fewest links, each a real path over exactly those companies.
fn check_bonus_paths(tracks: &[u64; 6], options: &[TranscontinentalPath]) -> Result<(), String> {
    let Some(paths) = all_paths(tracks) else {
        return Ok(()); // too many paths to check by brute force
    };
    let Some(best) = paths.iter().map(|&(k, n, _)| (k, n)).min() else {
        return if options.is_empty() {
            Ok(())
        } else {
            Err("paths offered where there are none".into())
        };
    };
    let tied: BTreeSet<u8> = paths
        .iter()
        .filter(|&&(k, n, _)| (k, n) == best)
        .map(|&(_, _, set)| set)
        .collect();
    let offered: BTreeSet<u8> = options
        .iter()
        .map(|p| p.companies.iter().fold(0u8, |m, c| m | c.bit()))
        .collect();
    if offered.len() != options.len() || offered != tied {
        return Err(format!("offered {offered:?}, best {best:?} by {tied:?}"));
    }
    for path in options {
        if path.links.len() != best.1 {
            return Err(format!("a path of {} links", path.links.len()));
        }
        let mut at = MAP.new_york;
        let mut used = 0u8;
        for link in &path.links {
            let company = path
                .companies
                .iter()
                .find(|c| tracks[c.index()] & link.bit() != 0)
                .ok_or("a link of the path belongs to none of its companies")?;
            used |= company.bit();
            let [a, b] = MAP.links[link.index()].ends;
            at = match (a == at, b == at) {
                (true, _) => b,
                (_, true) => a,
                _ => return Err("the path is not contiguous".into()),
            };
        }
        if at != MAP.san_francisco || used.count_ones() as usize != path.companies.len() {
            return Err(format!("{path:?} is not a path over its companies"));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn set_k_of_every_colour_held_k_times_is_the_best_split(
        goods in prop::array::uniform5(0u8..5),
    ) {
        let mut memo = HashMap::new();
        prop_assert_eq!(score_goods(&goods).1, best_split(goods, &mut memo));
    }

    #[test]
    fn the_bonus_paths_are_the_best_by_companies_then_links(
        owners in prop::collection::vec(prop::option::weighted(0.75, 0u8..6), MAP.links.len()),
    ) {
        let mut tracks = [0u64; 6];
        for (l, owner) in owners.iter().enumerate() {
            if let Some(company) = owner {
                tracks[usize::from(*company)] |= 1u64 << l;
            }
        }
        let options = best_paths(&MAP, &tracks);
        let all = tracks.iter().fold(0, |m, t| m | t);
        prop_assert_eq!(options.is_empty(), !joined(&MAP, all));
        if let Err(e) = check_bonus_paths(&tracks, &options) {
            return Err(TestCaseError::fail(e));
        }
        // Each path's companies are listed in box order.
        for path in &options {
            let mut sorted = path.companies.clone();
            sorted.sort();
            prop_assert_eq!(&sorted, &path.companies);
            prop_assert!(bits(path.links.iter().fold(0, |m, l| m | l.bit())).count() == path.links.len());
        }
    }
}
