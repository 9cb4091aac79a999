//! Undo barriers (`undo.rs`, `RULES.md` "Undo barriers"): a property over bot games, and for
//! each barrier kind a position where the undo planner refuses to reach across it.

use super::super::*;
use crate::games::testing::{check_barrier_refusals, check_consented_rewinds, check_undo_barriers};

/// Over bot games of every table size: every step that draws records a barrier (only the
/// setup draws), and no event that is not one shows or reveals anything (nothing is hidden).
#[test]
fn every_draw_is_an_undo_barrier_and_nothing_open_reveals() {
    let report =
        check_undo_barriers::<SteelDriver>(23_000, 3, |_| Options::default(), &undo::KINDS);
    assert_eq!(report.games, 4 * 3);
    for kind in undo::KINDS {
        assert!(
            report.kinds.contains_key(kind),
            "no `{kind}` barrier in {report:?}"
        );
    }
    assert!(report.open_events > 1_000, "{report:?}");
    assert_eq!(report.private_open_events, 0, "all information is public");
    // The engine draws only in its setup.
    assert_eq!(report.drawing_commands, 0, "{report:?}");
}

/// For each barrier kind, positions of real games where the pure planner refuses an undo
/// across it, for every seat that moved before it and for the seat whose command it was;
/// an open move is taken back at once; nothing reaches into the start (the first player
/// drawn); nothing is undone after the end (the scoring).
#[test]
fn the_planner_refuses_every_undo_across_a_barrier() {
    let mut refused = std::collections::BTreeMap::new();
    for seats in 3..=6 {
        for (kind, n) in check_barrier_refusals::<SteelDriver>(&Options::default(), seats, 0..2) {
            *refused.entry(kind).or_insert(0) += n;
        }
    }
    // A round ends in the batch of its dividends, so `round` is refused as `payment`; it is
    // there all the same.
    for kind in ["start", undo::PAYMENT, undo::ROUND] {
        assert!(refused.contains_key(kind), "no `{kind}` in {refused:?}");
    }
}

/// Consented rewinds over other seats' moves in real games: the game is exactly as it was
/// at the target, for everyone, and goes on from there to its end.
#[test]
fn a_consented_rewind_restores_the_target_exactly() {
    let mut rewinds = 0;
    for seats in 3..=6 {
        rewinds += check_consented_rewinds::<SteelDriver>(&Options::default(), seats, 0..2, 4);
    }
    assert!(rewinds >= 24, "only {rewinds} rewinds");
}

/// The table in `RULES.md` is the engine's: every event of bot games is a barrier exactly
/// when the table lists it, of the kind it says.
#[test]
fn rules_md_lists_the_barriers_of_the_engine() {
    let seen = crate::games::testing::check_documented_barriers::<SteelDriver>(
        include_str!("../RULES.md"),
        2,
        |_| Options::default(),
    );
    assert!(seen.len() >= 18, "{seen:?}");
}

/// An auction step by step: the bids and passes are open (the last bidder takes a bid back
/// at once; over other seats' moves it needs consent), the auction won is a payment no one
/// may undo across, not even the winner.
#[test]
fn an_auction_won_is_a_barrier_and_its_bids_are_not() {
    use crate::games::Actor;
    use crate::games::testing::UndoLog;
    use crate::service::play::undo::{Plan, Policy, Refusal};
    let mut log = UndoLog::<SteelDriver>::start(&Options::default(), 3, 5);
    let next = |log: &UndoLog<SteelDriver>| SteelDriver::pending(&log.state)[0];
    let opener = next(&log);
    let (opened, _) = log
        .act(
            Actor::Seat(opener),
            &Command::OpenAuction {
                company: Company::Red,
                bid: 1,
            },
        )
        .unwrap();
    let bidder = next(&log);
    let (bid, _) = log
        .act(Actor::Seat(bidder), &Command::Bid { bid: 2 })
        .unwrap();
    assert_eq!(
        log.plan(Policy::Own, bidder, None),
        Ok(Plan::Rewind {
            to_version: bid - 1
        })
    );
    assert_eq!(
        log.plan(Policy::Own, opener, None),
        Err(Refusal::NeedsConsent {
            needs: vec![bidder]
        })
    );
    assert_eq!(
        log.plan(Policy::Consent, opener, None),
        Ok(Plan::Ask {
            to_version: opened - 1,
            needs: vec![bidder],
            bots: vec![]
        })
    );
    let third = next(&log);
    log.act(Actor::Seat(third), &Command::PassBid).unwrap();
    assert_eq!(next(&log), opener);
    let (_, won) = log.act(Actor::Seat(opener), &Command::PassBid).unwrap();
    assert_eq!(log.state.company(Company::Red).controller, Some(bidder));
    let across = Err(Refusal::Barrier {
        barrier_version: won,
        barrier: undo::PAYMENT,
    });
    for seat in [opener, bidder, third] {
        assert_eq!(log.plan(Policy::Consent, seat, None), across);
        assert_eq!(log.plan(Policy::Consent, seat, Some(opened - 1)), across);
    }
}
