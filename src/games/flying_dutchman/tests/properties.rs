//! Properties over many bot games: they end, the invariants hold after every event, the log
//! folds back to the state, serde is lossless, and no viewer ever learns another's secrets.
//!
//! Numbers (debug build): 2,000 games in the main matrix (seats 3–6 × editions 1992/2016 ×
//! 250 games; the value track alternates; bot mixes rotate: all random, all sensible,
//! alternating, one sensible among random). The secrecy check runs at every event of every
//! 50th game of that matrix (40 games); the legality check drives 120 more games by hand; the
//! command fuzzer tries 300 arbitrary commands at reachable positions.

use super::super::*;
use crate::games::simulate::play_game;
use crate::games::{Actor, BotLevel, GameRng, Rules, Seat, Viewer};
use std::collections::BTreeSet;

const GAMES_PER_CELL: u64 = 250;
const SECRECY_EVERY: u64 = 50;

fn bots_for(seats: u8, seed: u64) -> Vec<BotLevel> {
    (0..seats)
        .map(|i| match seed % 4 {
            0 => BotLevel::Random,
            1 => BotLevel::Sensible,
            2 if (u64::from(i) + seed / 4).is_multiple_of(2) => BotLevel::Sensible,
            2 => BotLevel::Random,
            _ if u64::from(i) == (seed / 4) % u64::from(seats) => BotLevel::Sensible,
            _ => BotLevel::Random,
        })
        .collect()
}

fn options_for(edition: Edition, seed: u64) -> Options {
    Options {
        edition,
        value_track: if seed.is_multiple_of(2) {
            ValueTrack::WithoutOne
        } else {
            ValueTrack::WithOne
        },
        ..Options::default()
    }
}

fn tag(event: &Event) -> String {
    serde_json::to_value(event).unwrap()["type"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn bot_games_for_3_players_keep_every_rule() {
    bot_games_keep_every_rule(3);
}

#[test]
fn bot_games_for_4_players_keep_every_rule() {
    bot_games_keep_every_rule(4);
}

#[test]
fn bot_games_for_5_players_keep_every_rule() {
    bot_games_keep_every_rule(5);
}

#[test]
fn bot_games_for_6_players_keep_every_rule() {
    bot_games_keep_every_rule(6);
}

/// 500 games for one table size (both editions), with every check.
fn bot_games_keep_every_rule(seats: u8) {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut games = 0;
    let mut secrecy_games = 0;
    let mut disguises = 0usize;
    {
        for edition in [Edition::E1992, Edition::E2016] {
            for n in 0..GAMES_PER_CELL {
                let seed = u64::from(seats) * 100_000
                    + if edition == Edition::E1992 { 0 } else { 50_000 }
                    + n;
                let options = options_for(edition, seed);
                let bots = bots_for(seats, seed);
                let check_secrecy = n % SECRECY_EVERY == 0;
                let mut failure: Option<String> = None;
                let played = play_game::<FlyingDutchman>(&options, &bots, seed, |state, event| {
                    if failure.is_some() {
                        return;
                    }
                    if let Err(e) = check_invariants(state) {
                        failure = Some(format!("invariant: {e} after {event:?}"));
                        return;
                    }
                    if check_secrecy {
                        match secrets_hidden(
                            state,
                            event,
                            FlyingDutchman::view,
                            FlyingDutchman::redact,
                        ) {
                            Ok(n) => disguises += n,
                            Err(e) => failure = Some(format!("leak: {e} at {event:?}")),
                        }
                    }
                })
                .unwrap_or_else(|e| panic!("seats {seats} seed {seed}: {e}"));
                if let Some(f) = failure {
                    panic!("seats {seats} seed {seed}: {f}");
                }
                games += 1;
                if check_secrecy {
                    secrecy_games += 1;
                }

                // Replaying the log rebuilds the state.
                assert_eq!(
                    FlyingDutchman::fold(&played.events),
                    played.state,
                    "seats {seats} seed {seed}: fold differs"
                );
                // Serde is lossless for every event and the final state.
                for event in &played.events {
                    let json = serde_json::to_string(event).unwrap();
                    let back: Event = serde_json::from_str(&json).unwrap();
                    assert_eq!(&back, event, "{json}");
                    seen.insert(tag(event));
                }
                let json = serde_json::to_string(&played.state).unwrap();
                let back: State = serde_json::from_str(&json).unwrap();
                assert_eq!(back, played.state);
                check_outcome(&played.state, &played.outcome, seats);
                if let Phase::Finished { reason } = played.state.phase {
                    seen.insert(format!("end:{reason:?}"));
                }
                for event in &played.events {
                    match event {
                        Event::BidsRevealed {
                            result,
                            extra_round,
                            ..
                        } => {
                            let kind = serde_json::to_value(result).unwrap()["kind"].clone();
                            seen.insert(format!("reveal:{extra_round}:{kind}"));
                        }
                        Event::GhostShipMoved { reason, .. } => {
                            seen.insert(format!("move:{reason:?}"));
                        }
                        Event::DiceOff { rolls, .. } if rolls.len() > 1 => {
                            seen.insert("dice_off_re_roll".into());
                        }
                        Event::ExtraChoiceMade {
                            choice: Some(ExtraChoice::DropOut),
                            ..
                        } => {
                            seen.insert("extra:drop_out".into());
                        }
                        Event::ExtraChoiceMade {
                            choice: Some(ExtraChoice::Bid { .. }),
                            ..
                        } => {
                            seen.insert("extra:bid".into());
                        }
                        Event::AgreementReached { transfers, .. } if !transfers.is_empty() => {
                            seen.insert("agreement_with_payments".into());
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    assert_eq!(games, 2 * GAMES_PER_CELL);
    assert_eq!(secrecy_games, 2 * GAMES_PER_CELL.div_ceil(SECRECY_EVERY));
    assert!(
        disguises > 2_000,
        "the secrecy check changed too little: {disguises}"
    );
    // The bots reach every corner of the rules.
    let expected = [
        "game_started",
        "dealt",
        "hidden_piles_formed",
        "round_started",
        "kontor_used",
        "shares_returned",
        "smith_used",
        "bid_placed",
        "passed",
        "smith_split",
        "horseshoes_drawn",
        "bids_revealed",
        "dice_off",
        "declared",
        "negotiation_started",
        "offer_made",
        "offer_accepted",
        "offer_rejected",
        "agreement_reached",
        "no_agreement",
        "extra_round_started",
        "extra_choice_made",
        "ghost_ship_moved",
        "ship_hit",
        "bankrupt",
        "income_taken",
        "income_declined",
        "pool_refilled",
        "game_ended",
        "end:RoundMarkerAt18",
        "end:LastPlayerStanding",
        "reveal:false:\"sole_mover\"",
        "reveal:false:\"tie\"",
        "reveal:false:\"no_valid_bid\"",
        "reveal:true:\"sole_mover\"",
        "reveal:true:\"tie\"",
        "reveal:true:\"no_valid_bid\"",
        "move:SoleBid",
        "move:DiceOff",
        "move:Declaration",
        "move:Agreement",
        "dice_off_re_roll",
        "extra:drop_out",
        "extra:bid",
        "agreement_with_payments",
    ];
    let missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|e| !seen.contains(*e))
        .collect();
    assert!(missing.is_empty(), "never seen: {missing:?}");
}

fn check_outcome(state: &State, outcome: &crate::games::Outcome, seats: u8) {
    let n = usize::from(seats);
    assert_eq!(outcome.scores.len(), n);
    assert_eq!(outcome.ranks.len(), n);
    assert!(!outcome.winners.is_empty());
    for &w in &outcome.winners {
        assert_eq!(outcome.ranks[usize::from(w)], 1);
    }
    for (i, p) in state.players.iter().enumerate() {
        assert_eq!(outcome.scores[i].is_some(), p.active());
        if let Some(score) = outcome.scores[i] {
            assert_eq!(score, state.wealth(i as Seat));
        }
    }
    let best = outcome.scores.iter().flatten().max();
    if let Some(best) = best {
        let top: Vec<Seat> = (0..n)
            .filter(|&i| outcome.scores[i] == Some(*best))
            .map(|i| i as Seat)
            .collect();
        assert_eq!(outcome.winners, top);
    }
    match state.phase {
        Phase::Finished {
            reason: EndReason::RoundMarkerAt18,
        } => {
            assert_eq!(state.ship_landings, 16);
            assert_eq!(state.chest(state.round_marker), 18);
        }
        Phase::Finished { .. } => assert!(state.active_count() <= 1),
        _ => panic!("the game did not finish"),
    }
}

// ---------------------------------------------------------------- secrecy

/// A face that is a different, existing horseshoe.
fn other_face(face: u8) -> u8 {
    match face {
        1 => 2,
        2 => 1,
        10 => 20,
        20 => 10,
        g => 69 - g,
    }
}

fn other_colour(c: Colour) -> Colour {
    Colour::ALL[(c.index() + 1) % 6]
}

fn other_bid(bid: &[BidHorseshoe]) -> Vec<BidHorseshoe> {
    bid.iter()
        .map(|h| BidHorseshoe {
            value: other_face(h.value),
            sign: if model_is_gold(other_face(h.value)) {
                Sign::Plus
            } else if h.sign == Sign::Plus {
                Sign::Minus
            } else {
                Sign::Plus
            },
        })
        .collect()
}

fn model_is_gold(face: u8) -> bool {
    face >= 21
}

/// The same position with every secret `viewer` may not know changed: other players' hands,
/// sealed bids and extra-round choices, the share stack, the pool, the unused horseshoes.
/// Public facts (counts, revealed bids, bankrupt hands, hands at the end) stay.
pub(super) fn disguise_state(state: &State, viewer: Viewer) -> State {
    let mut s = state.clone();
    let knows = |seat: usize| viewer == Viewer::Seat(seat as Seat);
    let finished = s.finished();
    for (i, p) in s.players.iter_mut().enumerate() {
        if knows(i) || !p.active() {
            continue;
        }
        if !finished {
            p.shares = p.shares.iter().map(|&c| other_colour(c)).collect();
        }
        p.horseshoes = p.horseshoes.iter().map(|&h| other_face(h)).collect();
        p.horseshoes.sort_unstable();
        if let Some(bid) = &p.bid {
            p.bid = Some(other_bid(bid));
        }
    }
    if let Phase::ExtraRound { tie, choices } = &mut s.phase {
        for (k, &seat) in tie.iter().enumerate() {
            if knows(usize::from(seat)) {
                continue;
            }
            let hand = &mut s.players[usize::from(seat)].horseshoes;
            choices[k] = match choices[k].take() {
                None => None,
                // Bid ↔ drop out, keeping the count behind the screen.
                Some(ExtraChoice::Bid { horseshoes }) => {
                    hand.extend(horseshoes.iter().map(|h| h.value));
                    hand.sort_unstable();
                    Some(ExtraChoice::DropOut)
                }
                Some(ExtraChoice::DropOut) => match hand.pop() {
                    Some(h) => Some(ExtraChoice::Bid {
                        horseshoes: vec![BidHorseshoe {
                            value: h,
                            sign: Sign::Plus,
                        }],
                    }),
                    None => Some(ExtraChoice::DropOut),
                },
            };
        }
    }
    s.pool = s.pool.iter().map(|&h| other_face(h)).collect();
    s.unused = s.unused.iter().map(|&h| other_face(h)).collect();
    s.share_stack = s.share_stack.iter().map(|&c| other_colour(c)).collect();
    s
}

/// The same event with every secret `viewer` may not know changed.
fn disguise_event(event: &Event, viewer: Viewer) -> Event {
    let knows = |seat: &Seat| viewer == Viewer::Seat(*seat);
    let faces = |v: &Option<Vec<u8>>| {
        v.as_ref()
            .map(|v| v.iter().map(|&h| other_face(h)).collect())
    };
    let colours = |v: &Option<Vec<Colour>>| {
        v.as_ref()
            .map(|v| v.iter().map(|&c| other_colour(c)).collect())
    };
    let mut e = event.clone();
    match &mut e {
        Event::Dealt {
            seat,
            shares,
            horseshoes,
            ..
        } if !knows(seat) => {
            *shares = colours(shares);
            *horseshoes = faces(horseshoes);
        }
        Event::HiddenPilesFormed {
            share_stack,
            pool,
            unused,
            ..
        } => {
            *share_stack = colours(share_stack);
            *pool = faces(pool);
            *unused = faces(unused);
        }
        Event::KontorUsed { seat, drawn } if !knows(seat) => *drawn = colours(drawn),
        Event::SharesReturned { seat, cards } if !knows(seat) => *cards = colours(cards),
        Event::BidPlaced {
            seat, horseshoes, ..
        } if !knows(seat) => {
            *horseshoes = horseshoes.as_ref().map(|b| other_bid(b));
        }
        Event::HorseshoesDrawn {
            seat, horseshoes, ..
        } if !knows(seat) => *horseshoes = faces(horseshoes),
        Event::ExtraChoiceMade { seat, choice } if !knows(seat) => {
            *choice = match choice {
                Some(ExtraChoice::DropOut) => Some(ExtraChoice::Bid {
                    horseshoes: vec![BidHorseshoe {
                        value: 1,
                        sign: Sign::Plus,
                    }],
                }),
                Some(ExtraChoice::Bid { .. }) => Some(ExtraChoice::DropOut),
                None => None,
            }
        }
        Event::PoolRefilled { pool, .. } => *pool = faces(pool),
        _ => {}
    }
    e
}

/// Checks that no seat and no spectator can tell the position (and the event) apart from
/// one whose secrets are changed: their views and redacted events must serialise the same.
/// Returns how many disguises actually changed something (so the check is not vacuous).
fn secrets_hidden<V: serde::Serialize>(
    state: &State,
    event: &Event,
    view: impl Fn(&State, Viewer) -> V,
    redact: impl Fn(&Event, Viewer) -> Option<Event>,
) -> Result<usize, String> {
    let mut changed = 0;
    let viewers = (0..state.seats())
        .map(Viewer::Seat)
        .chain([Viewer::Spectator]);
    for viewer in viewers {
        let disguised = disguise_state(state, viewer);
        if disguised != *state {
            changed += 1;
        }
        let seen = serde_json::to_string(&view(state, viewer)).unwrap();
        let seen_disguised = serde_json::to_string(&view(&disguised, viewer)).unwrap();
        if seen != seen_disguised {
            return Err(format!(
                "{viewer:?} can tell secrets apart in the view:\n{seen}\n{seen_disguised}"
            ));
        }
        let other = disguise_event(event, viewer);
        if other != *event {
            changed += 1;
        }
        let a = serde_json::to_string(&redact(event, viewer)).unwrap();
        let b = serde_json::to_string(&redact(&other, viewer)).unwrap();
        if a != b {
            return Err(format!(
                "{viewer:?} can tell secrets apart in the event:\n{a}\n{b}"
            ));
        }
    }
    Ok(changed)
}

/// The secrecy check is able to fail: a view or redaction that shows everything is caught.
#[test]
fn the_secrecy_check_catches_a_leaky_view_and_a_leaky_redaction() {
    let mut rng = GameRng::from_u64(5);
    let events = FlyingDutchman::setup(&Options::default(), 4, &mut rng);
    let state = FlyingDutchman::fold(&events);
    let round_started = events.last().unwrap();
    // The real functions pass.
    assert!(
        secrets_hidden(
            &state,
            round_started,
            FlyingDutchman::view,
            FlyingDutchman::redact
        )
        .is_ok()
    );
    // A view that shows everyone everything fails.
    let leaky_view = |s: &State, _: Viewer| FlyingDutchman::view(s, Viewer::Omniscient);
    assert!(secrets_hidden(&state, round_started, leaky_view, FlyingDutchman::redact).is_err());
    // A view that leaks only the sum of another player's horseshoes fails too.
    let subtle = |s: &State, v: Viewer| {
        let sum: u32 = s.players[0].horseshoes.iter().map(|&h| u32::from(h)).sum();
        (FlyingDutchman::view(s, v), sum)
    };
    assert!(secrets_hidden(&state, round_started, subtle, FlyingDutchman::redact).is_err());
    // A redaction that passes private events through fails.
    let dealt = &events[1];
    let leaky_redact = |e: &Event, _: Viewer| Some(e.clone());
    assert!(secrets_hidden(&state, dealt, FlyingDutchman::view, leaky_redact).is_err());
    assert!(secrets_hidden(&state, dealt, FlyingDutchman::view, FlyingDutchman::redact).is_ok());
}

// ---------------------------------------------------------------- legality

/// Plays bot games by hand and checks at every step that `pending`, `legal`, `pass_command`
/// and `decide` agree: pending seats have choices, the bot's command is among them, the pass
/// (where offered) is accepted, and everybody else is refused with `not_your_turn`.
#[test]
fn legal_pending_and_pass_agree_with_decide() {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for game in 0..120u64 {
        let seats = 3 + (game % 4) as u8;
        let bots = bots_for(seats, game);
        let options = options_for(Edition::E2016, game);
        let mut rng = GameRng::from_u64(game);
        let mut bot_rng = GameRng::from_u64(game + 1_000_000);
        let mut state = FlyingDutchman::fold(&FlyingDutchman::setup(&options, seats, &mut rng));
        for step in 0..5_000 {
            if FlyingDutchman::outcome(&state).is_some() {
                break;
            }
            let pending = FlyingDutchman::pending(&state);
            let timer = FlyingDutchman::timer(&state);
            assert!(!pending.is_empty(), "game {game}: nobody to act");
            for seat in 0..seats {
                let legal = FlyingDutchman::legal(&state, seat);
                let pass = FlyingDutchman::pass_command(&state, seat);
                if pending.contains(&seat) {
                    assert_ne!(legal.decision, Decision::None);
                    assert!(!legal.commands.is_empty());
                    if let Some(pass) = pass {
                        let kind = serde_json::to_value(&pass).unwrap()["type"].clone();
                        assert!(
                            legal
                                .commands
                                .iter()
                                .any(|k| serde_json::to_value(k).unwrap() == kind),
                            "game {game}: pass {pass:?} not in {:?}",
                            legal.commands
                        );
                        let mut r = GameRng::from_u64(step);
                        FlyingDutchman::decide(&state, Actor::Seat(seat), &pass, &mut r)
                            .unwrap_or_else(|e| panic!("game {game}: the pass was refused: {e}"));
                    }
                } else {
                    assert_eq!(legal, Legal::default(), "game {game}");
                    assert_eq!(pass, None);
                    let mut r = GameRng::from_u64(step);
                    let error =
                        FlyingDutchman::decide(&state, Actor::Seat(seat), &Command::Pass, &mut r)
                            .unwrap_err();
                    assert_eq!(error.code, "not_your_turn");
                }
            }
            // The timer exists exactly during a negotiation.
            assert_eq!(
                timer.is_some(),
                matches!(state.phase, Phase::Negotiation { .. })
            );
            // Pick the actor at random among the pending seats (not only the first).
            let seat = pending[bot_rng.index(pending.len())];
            let command =
                FlyingDutchman::bot_command(&state, seat, bots[usize::from(seat)], &mut bot_rng);
            let kind = serde_json::to_value(&command).unwrap()["type"].clone();
            let legal = FlyingDutchman::legal(&state, seat);
            assert!(
                legal
                    .commands
                    .iter()
                    .any(|k| serde_json::to_value(k).unwrap() == kind),
                "game {game}: {command:?} not in {:?}",
                legal.commands
            );
            let mut r = GameRng::from_u64(game * 10_000 + step);
            let events = FlyingDutchman::decide(&state, Actor::Seat(seat), &command, &mut r)
                .unwrap_or_else(|e| panic!("game {game}: {command:?} refused: {e}"));
            for e in &events {
                FlyingDutchman::evolve(&mut state, e);
                seen.insert(tag(e));
            }
            check_invariants(&state).unwrap_or_else(|e| panic!("game {game}: {e}"));
        }
        assert!(state.finished(), "game {game} did not end");
    }
    // Choosing among all pending seats lets makers act on their own offers too.
    for rare in ["offer_withdrawn", "offer_rejected", "agreement_reached"] {
        assert!(seen.contains(rare), "never seen: {rare}");
    }
}

// ---------------------------------------------------------------- fuzzing

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn space_name() -> impl Strategy<Value = String> {
        let names: Vec<String> = board()
            .data()
            .spaces
            .iter()
            .map(|s| s.id.clone())
            .chain(["NOWHERE".to_string()])
            .collect();
        proptest::sample::select(names)
    }

    fn colour() -> impl Strategy<Value = Colour> {
        proptest::sample::select(Colour::ALL.to_vec())
    }

    fn horseshoe() -> impl Strategy<Value = BidHorseshoe> {
        (
            prop_oneof![Just(1u8), Just(2), Just(10), Just(20), 0u8..60],
            any::<bool>(),
        )
            .prop_map(|(value, minus)| BidHorseshoe {
                value,
                sign: if minus { Sign::Minus } else { Sign::Plus },
            })
    }

    fn command() -> impl Strategy<Value = Command> {
        prop_oneof![
            Just(Command::UseKontor),
            proptest::collection::vec(colour(), 0..4)
                .prop_map(|cards| Command::ReturnShares { cards }),
            Just(Command::UseSmith),
            proptest::collection::vec(horseshoe(), 0..5)
                .prop_map(|horseshoes| Command::Bid { horseshoes }),
            Just(Command::Pass),
            space_name().prop_map(|to| Command::Move { to }),
            space_name().prop_map(|to| Command::Declare { to }),
            (
                space_name(),
                proptest::collection::vec((0u8..7, -2i64..50), 0..4)
            )
                .prop_map(|(to, p)| Command::MakeOffer {
                    to,
                    payments: p
                        .into_iter()
                        .map(|(seat, amount)| PaymentTerm { seat, amount })
                        .collect(),
                }),
            (0u32..6).prop_map(|offer| Command::AcceptOffer { offer }),
            (0u32..6).prop_map(|offer| Command::RejectOffer { offer }),
            (0u32..6).prop_map(|offer| Command::WithdrawOffer { offer }),
            Just(Command::NoAgreement),
            Just(Command::DropOut),
            colour().prop_map(|colour| Command::TakeIncome { colour }),
            Just(Command::DeclineIncome),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// Any command by any actor at a reachable position either is refused with a
        /// documented code or is accepted and keeps every invariant.
        #[test]
        fn arbitrary_commands_never_break_the_game(
            seed in 0u64..10_000,
            steps in 0usize..400,
            actor in prop_oneof![(0u8..7).prop_map(Actor::Seat), Just(Actor::System)],
            command in command(),
        ) {
            let seats = 3 + (seed % 4) as u8;
            let bots = bots_for(seats, seed);
            let mut rng = GameRng::from_u64(seed);
            let mut bot_rng = GameRng::from_u64(seed + 1);
            let mut state =
                FlyingDutchman::fold(&FlyingDutchman::setup(&Options::default(), seats, &mut rng));
            for _ in 0..steps {
                let Some(&seat) = FlyingDutchman::pending(&state).first() else { break };
                let c = FlyingDutchman::bot_command(&state, seat, bots[usize::from(seat)], &mut bot_rng);
                for e in FlyingDutchman::decide(&state, Actor::Seat(seat), &c, &mut rng).unwrap() {
                    FlyingDutchman::evolve(&mut state, &e);
                }
            }
            match FlyingDutchman::decide(&state, actor, &command, &mut rng) {
                Ok(events) => {
                    for e in &events {
                        FlyingDutchman::evolve(&mut state, e);
                    }
                    prop_assert!(check_invariants(&state).is_ok(), "{:?}", check_invariants(&state));
                }
                Err(e) => {
                    prop_assert!(
                        FlyingDutchman::ERROR_CODES.iter().any(|(c, _)| *c == e.code),
                        "undocumented code {}", e.code
                    );
                }
            }
        }
    }
}

/// Not a test: prints how the bots fare (`cargo test ... bot_strength -- --ignored --nocapture`).
#[test]
#[ignore]
fn bot_strength() {
    use crate::games::simulate::simulate;
    let mixes = [
        vec![
            BotLevel::Sensible,
            BotLevel::Random,
            BotLevel::Sensible,
            BotLevel::Random,
        ],
        vec![BotLevel::Sensible; 4],
        vec![BotLevel::Random; 4],
    ];
    for bots in mixes {
        let report = simulate::<FlyingDutchman>(&Options::default(), &bots, 300, 1).unwrap();
        println!("{bots:?}\n{report}\n");
    }
}
