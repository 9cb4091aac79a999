//! An independent referee over bot games: each event is checked against the rule of the
//! specification that produced it, re-derived from the position before the event without the
//! engine's helpers. This asserts what `check_invariants` cannot see in one state, e.g. that
//! money moves only by the rules (section 9): the right dues at a landing, island income of
//! the right value for movers only, agreed payments never more than held.
//! It also checks that `legal` offers exactly what `decide` accepts, argument by argument.

use super::super::*;
use crate::games::testing::{bot_mix, judge_bot_games};
use crate::games::{Actor, GameRng, Rules, Seat};

/// Active seats in table order, starting at `start`.
fn active_from(state: &State, start: Seat) -> Vec<Seat> {
    let n = state.seats();
    (0..n)
        .map(|i| (start + i) % n)
        .filter(|&s| state.players[usize::from(s)].bankrupt_at.is_none())
        .collect()
}

fn signed(h: &BidHorseshoe) -> i32 {
    match h.sign {
        Sign::Plus => i32::from(h.value),
        Sign::Minus => -i32::from(h.value),
    }
}

/// What the referee remembers of the round so far.
#[derive(Default)]
struct Notes {
    previous_start: Option<Seat>,
    round: u32,
    actors: Vec<Seat>,
    bid_this_round: usize,
    extra_round: bool,
    tie: Vec<Seat>,
    movers: Vec<Seat>,
}

fn ensure(ok: bool, rule: &str) -> Result<(), String> {
    if ok { Ok(()) } else { Err(rule.to_string()) }
}

fn check(notes: &mut Notes, before: &State, after: &State, event: &Event) -> Result<(), String> {
    let last = before.options.value_track.last();
    let moves_money = matches!(
        event,
        Event::ShipHit { .. }
            | Event::Bankrupt { .. }
            | Event::IncomeTaken { .. }
            | Event::AgreementReached { .. }
    );
    if !moves_money {
        for (b, a) in before.players.iter().zip(&after.players) {
            if a.coins != b.coins {
                return Err("coins changed outside a landing, income or agreement".into());
            }
        }
    }
    match event {
        Event::RoundStarted {
            round,
            start_player,
            die_a,
            die_b,
            lucky_number,
        } => {
            if !DIE_A.contains(die_a) || !DIE_B.contains(die_b) || *lucky_number != die_a + die_b {
                return Err("the lucky number is not A + B".into());
            }
            if let Some(previous) = notes.previous_start {
                let next = active_from(before, (previous + 1) % before.seats())[0];
                if *start_player != next || *round != notes.round + 1 {
                    return Err(format!("start player {start_player}, expected {next}"));
                }
            }
            *notes = Notes {
                previous_start: Some(*start_player),
                round: *round,
                ..Notes::default()
            };
        }
        Event::KontorUsed { seat, drawn } => {
            let top: Vec<Colour> = before.share_stack.iter().take(2).copied().collect();
            if before.players[usize::from(*seat)].kontor_cards == 0 || drawn.as_ref() != Some(&top)
            {
                return Err("a Kontor exchange draws the top two, with a card".into());
            }
            notes.actors.push(*seat);
        }
        Event::SharesReturned { seat, .. } => {
            ensure(
                after.players[usize::from(*seat)].shares.len() == 3
                    && after.share_stack.len() == before.share_stack.len() + 2,
                "a Kontor exchange returns two and keeps three",
            )?;
        }
        Event::SmithUsed { seat } => {
            if before.players[usize::from(*seat)].smith_cards == 0 {
                return Err("smith without a card".into());
            }
            notes.actors.push(*seat);
        }
        Event::Passed { seat } => {
            if before.players[usize::from(*seat)].horseshoes.len() > 4 {
                return Err("a pass with five or more horseshoes".into());
            }
            notes.actors.push(*seat);
        }
        Event::BidPlaced {
            seat,
            size,
            horseshoes,
        } => {
            let bid = horseshoes
                .as_ref()
                .ok_or("a stored bid has its horseshoes")?;
            if bid.is_empty()
                || bid.len() != usize::from(*size)
                || bid.iter().filter(|h| h.value >= 21).count() > 1
            {
                return Err("a bid is one or more horseshoes, at most one gold".into());
            }
            notes.actors.push(*seat);
            notes.bid_this_round += bid.len();
        }
        Event::SmithSplit {
            seats,
            each,
            left_in_pool,
        } => {
            let order = active_from(before, before.start_player);
            if notes.actors != order {
                return Err(format!("acted: {:?}, expected {order:?}", notes.actors));
            }
            let smiths: Vec<Seat> = order
                .into_iter()
                .filter(|&s| before.players[usize::from(s)].action == Some(ActionTaken::Smith))
                .collect();
            let p = before.pool.len();
            if *seats != smiths
                || usize::from(*each) != p / smiths.len()
                || usize::from(*left_in_pool) != p % smiths.len()
            {
                return Err(format!("a split of {p} among {smiths:?}: {each} each"));
            }
        }
        Event::BidsRevealed {
            extra_round,
            bids,
            dropped_out,
            result,
        } => {
            if *extra_round {
                let Phase::ExtraRound { tie, .. } = &before.phase else {
                    return Err("an extra-round reveal outside an extra round".into());
                };
                let mut members: Vec<Seat> = bids.iter().map(|b| b.seat).collect();
                members.extend(dropped_out);
                members.sort_unstable();
                let mut expected = tie.clone();
                expected.sort_unstable();
                if members != expected {
                    return Err("every member of the tie bids or drops out".into());
                }
                notes.bid_this_round += bids.iter().map(|b| b.horseshoes.len()).sum::<usize>();
                notes.tie.clone_from(tie);
            } else {
                let order = active_from(before, before.start_player);
                if notes.actors != order {
                    return Err(format!("acted: {:?}, expected {order:?}", notes.actors));
                }
                let bidders: Vec<Seat> = order
                    .into_iter()
                    .filter(|&s| {
                        matches!(
                            before.players[usize::from(s)].action,
                            Some(ActionTaken::Bid { .. })
                        )
                    })
                    .collect();
                if bids.iter().map(|b| b.seat).collect::<Vec<_>>() != bidders {
                    return Err("every bid is revealed, in order from the start player".into());
                }
            }
            let ln = i32::from(before.lucky_number);
            for b in bids {
                let value: i32 = b.horseshoes.iter().map(signed).sum();
                if value != b.value || b.valid != (value <= ln) {
                    return Err("a bid is valid when its value is at most LN".into());
                }
            }
            let expected = match bids.iter().filter(|b| b.valid).map(|b| b.value).max() {
                None => RevealResult::NoValidBid,
                Some(best) => {
                    let seats: Vec<Seat> = bids
                        .iter()
                        .filter(|b| b.valid && b.value == best)
                        .map(|b| b.seat)
                        .collect();
                    if seats.len() == 1 {
                        RevealResult::SoleMover { seat: seats[0] }
                    } else {
                        RevealResult::Tie { seats }
                    }
                }
            };
            if *result != expected {
                return Err(format!("reveal result {result:?}, expected {expected:?}"));
            }
            notes.extra_round = *extra_round;
        }
        Event::DiceOff {
            seats,
            rolls,
            winner,
        } => {
            let expected = if notes.extra_round {
                let mut tie = notes.tie.clone();
                before.sort_from_start(&mut tie);
                tie
            } else {
                active_from(before, before.start_player)
            };
            if *seats != expected {
                return Err(format!("dice-off among {seats:?}, expected {expected:?}"));
            }
            let mut contenders = seats.clone();
            for roll in rolls {
                if roll.iter().map(|r| r.seat).collect::<Vec<_>>() != contenders {
                    return Err("only the tied roll again".into());
                }
                let best = roll.iter().map(|r| r.total).max().ok_or("an empty roll")?;
                contenders = roll
                    .iter()
                    .filter(|r| r.total == best)
                    .map(|r| r.seat)
                    .collect();
            }
            if contenders != [*winner] {
                return Err("the highest roll moves".into());
            }
        }
        Event::Declared { seat, .. } => {
            let Phase::Declaration { tie, declared } = &before.phase else {
                return Err("a declaration outside the declaration step".into());
            };
            if tie.get(declared.len()) != Some(seat) {
                return Err("declarations go in seat order from the start player".into());
            }
        }
        Event::NegotiationStarted { seats, .. } => notes.tie.clone_from(seats),
        Event::AgreementReached { transfers, .. } => {
            let mut paid = vec![0i64; before.players.len()];
            for t in transfers {
                if t.amount < 1 || !notes.tie.contains(&t.from) || !notes.tie.contains(&t.to) {
                    return Err("payments are between members of the tie".into());
                }
                paid[usize::from(t.from)] += t.amount;
            }
            if paid
                .iter()
                .zip(&before.players)
                .any(|(&p, player)| p > player.coins)
            {
                return Err("an agreement paid more than a member held".into());
            }
        }
        Event::GhostShipMoved {
            from,
            to,
            movers,
            reason,
        } => {
            let here = before.ghost.ok_or("no ghost ship")?;
            if *from != here || !board().adjacent(here).contains(to) || Some(*to) == before.previous
            {
                return Err("one line on, never back".into());
            }
            let expected = match (&before.phase, reason) {
                (Phase::Move { seat, .. }, _) => vec![*seat],
                (Phase::Declaration { tie, .. }, MoveReason::Declaration) => tie.clone(),
                (Phase::Resolving, MoveReason::Agreement) => notes.tie.clone(),
                (phase, _) => return Err(format!("a move from {phase:?}")),
            };
            if *movers != expected {
                return Err(format!("movers {movers:?}, expected {expected:?}"));
            }
            notes.movers.clone_from(movers);
        }
        Event::ShipHit {
            colour,
            value,
            payments,
            ..
        } => {
            if *value != before.value(*colour) {
                return Err("holders pay the colour's current value".into());
            }
            let holders: Vec<Seat> = (0..before.seats())
                .filter(|&s| before.active(s) && before.players[usize::from(s)].count(*colour) > 0)
                .collect();
            if payments.iter().map(|p| p.seat).collect::<Vec<_>>() != holders {
                return Err("every active holder of the colour pays".into());
            }
            for p in payments {
                let player = &before.players[usize::from(p.seat)];
                if usize::from(p.cards) != player.count(*colour)
                    || p.due != i64::from(p.cards) * value
                    || p.bankrupt != (player.coins < p.due)
                {
                    return Err(format!("payment {p:?}"));
                }
            }
            for c in Colour::ALL {
                let expected = if c == *colour {
                    1
                } else {
                    (before.markers[c.index()] + 1).min(last)
                };
                if after.markers[c.index()] != expected {
                    return Err("the colour to 0, then every marker one chest on".into());
                }
            }
            if after.round_marker != (before.round_marker + 1).min(last) {
                return Err("the round marker moves one chest on".into());
            }
        }
        Event::Bankrupt {
            seat, coins_lost, ..
        } => {
            ensure(
                *coins_lost == before.players[usize::from(*seat)].coins
                    && after.players[usize::from(*seat)].coins == 0,
                "a bankrupt player's coins go to the bank",
            )?;
        }
        Event::IncomeTaken {
            seat,
            colour,
            amount,
        } => {
            ensure(
                notes.movers.contains(seat)
                    && *amount == before.value(*colour)
                    && before.players[usize::from(*seat)].count(*colour) > 0,
                "island income: a mover, a held card, its value",
            )?;
        }
        Event::PoolRefilled { added, size, .. } => {
            ensure(
                usize::from(*added) == notes.bid_this_round
                    && usize::from(*size) == before.pool.len() + notes.bid_this_round,
                "every horseshoe bid this round goes into the pool",
            )?;
        }
        Event::GameEnded {
            reason,
            scores,
            winners,
            ..
        } => {
            let ok = match reason {
                EndReason::RoundMarkerAt18 => {
                    after.ship_landings == 16 && after.chest(after.round_marker) == 18
                }
                EndReason::LastPlayerStanding => after.active_count() == 1,
                EndReason::AllBankrupt => after.active_count() == 0,
            };
            if !ok {
                return Err(format!("the game ended ({reason:?}) too early"));
            }
            let wealth: Vec<Option<i64>> = after
                .players
                .iter()
                .map(|p| {
                    p.active()
                        .then(|| p.coins + p.shares.iter().map(|&c| after.value(c)).sum::<i64>())
                })
                .collect();
            if *scores != wealth {
                return Err("wealth = coins + current value of the shares".into());
            }
            if *reason != EndReason::AllBankrupt {
                let best = wealth.iter().flatten().max().copied();
                let top: Vec<Seat> = (0..after.seats())
                    .filter(|&s| wealth[usize::from(s)].is_some() && wealth[usize::from(s)] == best)
                    .collect();
                if *winners != top {
                    return Err("the highest wealth wins; ties share".into());
                }
            }
        }
        _ => {}
    }
    Ok(())
}

#[test]
fn every_event_follows_its_rule_in_bot_games() {
    let options = |game: u64| Options {
        edition: if game % 4 < 2 {
            Edition::E1992
        } else {
            Edition::E2016
        },
        value_track: if game.is_multiple_of(2) {
            ValueTrack::WithoutOne
        } else {
            ValueTrack::WithOne
        },
        ..Options::default()
    };
    judge_bot_games::<FlyingDutchman, Notes>(
        7_000_000,
        150,
        options,
        |notes, before, after, event| {
            if before.round > 0 {
                return check(notes, before, after, event);
            }
            if let Event::RoundStarted {
                start_player,
                round,
                ..
            } = event
            {
                notes.previous_start = Some(*start_player);
                notes.round = *round;
            }
            Ok(())
        },
    );
}

// ---------------------------------------------------------------- legal = decide

fn tag(command: &Command) -> serde_json::Value {
    serde_json::to_value(command).unwrap()["type"].clone()
}

/// Every command of a broad candidate set (every space, offer number, colour, own horseshoe
/// and pair of cards to return): accepted by `decide` exactly when `legal` offers its kind
/// and lists its argument.
fn legal_is_exact(state: &State, seat: Seat) -> Result<(), String> {
    let legal = FlyingDutchman::legal(state, seat);
    let accepts = |c: &Command| {
        FlyingDutchman::decide(state, Actor::Seat(seat), c, &mut GameRng::from_u64(0)).is_ok()
    };
    let offered = |c: &Command| {
        legal
            .commands
            .iter()
            .any(|k| serde_json::to_value(k).unwrap() == tag(c))
    };
    let p = &state.players[usize::from(seat)];
    let mut candidates = vec![
        Command::UseKontor,
        Command::UseSmith,
        Command::Pass,
        Command::NoAgreement,
        Command::DropOut,
        Command::DeclineIncome,
    ];
    for &value in &p.horseshoes {
        candidates.push(Command::Bid {
            horseshoes: vec![BidHorseshoe {
                value,
                sign: Sign::Plus,
            }],
        });
    }
    for space in &board().data().spaces {
        candidates.push(Command::Move {
            to: space.id.clone(),
        });
        candidates.push(Command::Declare {
            to: space.id.clone(),
        });
        candidates.push(Command::MakeOffer {
            to: space.id.clone(),
            payments: vec![],
        });
    }
    for offer in 0..12 {
        candidates.push(Command::AcceptOffer { offer });
        candidates.push(Command::RejectOffer { offer });
        candidates.push(Command::WithdrawOffer { offer });
    }
    for colour in Colour::ALL {
        candidates.push(Command::TakeIncome { colour });
    }
    for (i, &a) in p.shares.iter().enumerate() {
        for (j, &b) in p.shares.iter().enumerate() {
            if i != j {
                candidates.push(Command::ReturnShares { cards: vec![a, b] });
            }
        }
    }
    let full = legal.offers.iter().filter(|o| o.by == seat).count() >= MAX_OFFERS;
    for c in &candidates {
        let listed = match c {
            Command::Move { to } | Command::Declare { to } | Command::MakeOffer { to, .. } => {
                legal.destinations.iter().any(|d| d.name() == to)
            }
            Command::TakeIncome { colour } => legal.income.iter().any(|i| i.colour == *colour),
            Command::AcceptOffer { offer } => legal
                .offers
                .iter()
                .any(|o| o.id == *offer && o.by != seat && !legal.accepted.contains(offer)),
            Command::RejectOffer { offer } => legal
                .offers
                .iter()
                .any(|o| o.id == *offer && o.by != seat && !legal.rejected.contains(offer)),
            Command::WithdrawOffer { offer } => {
                legal.offers.iter().any(|o| o.id == *offer && o.by == seat)
            }
            Command::ReturnShares { cards } => cards.iter().all(|c| legal.returnable.contains(c)),
            _ => true,
        };
        let expected = offered(c) && listed && !(full && matches!(c, Command::MakeOffer { .. }));
        if accepts(c) != expected {
            return Err(format!(
                "{c:?}: decide {}, legal {:?}",
                accepts(c),
                legal.commands
            ));
        }
    }
    for kind in &legal.commands {
        let kind = serde_json::to_value(kind).unwrap();
        if !candidates.iter().any(|c| tag(c) == kind && accepts(c)) {
            return Err(format!("{kind} is offered but never accepted"));
        }
    }
    Ok(())
}

/// At most this many standing offers per member.
use super::super::state::MAX_STANDING_OFFERS as MAX_OFFERS;

#[test]
fn legal_offers_exactly_what_decide_accepts() {
    for game in 0..24u64 {
        let seats = 3 + (game % 4) as u8;
        let bots = bot_mix(game, seats);
        let mut rng = GameRng::from_u64(game);
        let mut bot_rng = GameRng::from_u64(game + 99);
        let options = Options::default();
        let mut state = FlyingDutchman::fold(&FlyingDutchman::setup(&options, seats, &mut rng));
        for step in 0..5_000u64 {
            if state.finished() {
                break;
            }
            for seat in 0..seats {
                legal_is_exact(&state, seat)
                    .unwrap_or_else(|e| panic!("game {game} step {step} seat {seat}: {e}"));
            }
            let pending = FlyingDutchman::pending(&state);
            let seat = pending[bot_rng.index(pending.len())];
            let command =
                FlyingDutchman::bot_command(&state, seat, bots[usize::from(seat)], &mut bot_rng);
            let mut r = GameRng::from_u64(game * 10_000 + step);
            for e in FlyingDutchman::decide(&state, Actor::Seat(seat), &command, &mut r).unwrap() {
                FlyingDutchman::evolve(&mut state, &e);
            }
        }
        assert!(state.finished(), "game {game} did not end");
    }
}
