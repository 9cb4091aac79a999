//! Undo barriers (`undo.rs`, `RULES.md` "Undo barriers"): a property over bot games, and for
//! each barrier kind a position where the undo planner refuses to reach across it.

use super::super::*;
use crate::games::testing::{check_barrier_refusals, check_consented_rewinds, check_undo_barriers};

fn options(game: u64) -> Options {
    Options {
        edition: if game.is_multiple_of(2) {
            Edition::E2016
        } else {
            Edition::E1992
        },
        value_track: if (game / 2).is_multiple_of(2) {
            ValueTrack::WithoutOne
        } else {
            ValueTrack::WithOne
        },
        ..Options::default()
    }
}

/// Over bot games of every table size, both editions and both value tracks: every step that
/// draws records a barrier, and no event that is not one shows or reveals anything hidden.
#[test]
fn every_draw_and_every_reveal_is_an_undo_barrier() {
    let report = check_undo_barriers::<FlyingDutchman>(23_000, 4, options, &undo::KINDS);
    assert_eq!(report.games, 4 * 4);
    for kind in undo::KINDS {
        assert!(
            report.kinds.contains_key(kind),
            "no `{kind}` barrier in {report:?}"
        );
    }
    assert!(report.drawing_commands > 100, "{report:?}");
    assert!(report.open_events > 1_000, "{report:?}");
    // Sealed bids, extra-round choices and returned cards: open, yet private to their actor.
    assert!(report.private_open_events > 100, "{report:?}");
}

/// For each barrier kind, positions of real games where the pure planner refuses an undo
/// across it, for every seat that moved before it and for the seat whose command it was;
/// an open move is taken back at once; nothing reaches into the start (the deal, the
/// shuffles, the first roll); nothing is undone after the end (the scoring).
#[test]
fn the_planner_refuses_every_undo_across_a_barrier() {
    let mut refused = std::collections::BTreeMap::new();
    for seats in 3..=6 {
        let options = options(u64::from(seats));
        for (kind, n) in check_barrier_refusals::<FlyingDutchman>(&options, seats, 0..2) {
            *refused.entry(kind).or_insert(0) += n;
        }
    }
    // The setup's draw, deal and shuffle and its roll are in the start batch (the platform
    // refuses it as `start`); the scoring ends the game (`undo_disabled`).
    for kind in [
        undo::DRAW,
        undo::SHUFFLE,
        undo::ROLL,
        undo::REVEAL,
        undo::PAYMENT,
    ] {
        assert!(refused.contains_key(kind), "no `{kind}` in {refused:?}");
    }
}

/// Consented rewinds over other seats' moves in real games: the game is exactly as it was
/// at the target, for everyone, and goes on from there to its end.
#[test]
fn a_consented_rewind_restores_the_target_exactly() {
    let mut rewinds = 0;
    for seats in 3..=6 {
        rewinds +=
            check_consented_rewinds::<FlyingDutchman>(&options(u64::from(seats)), seats, 0..2, 4);
    }
    assert!(rewinds >= 24, "only {rewinds} rewinds");
}

/// The table in `RULES.md` is the engine's: every event of bot games is a barrier exactly
/// when the table lists it, of the kind it says.
#[test]
fn rules_md_lists_the_barriers_of_the_engine() {
    let seen = crate::games::testing::check_documented_barriers::<FlyingDutchman>(
        include_str!("../RULES.md"),
        6,
        options,
    );
    assert!(seen.len() >= 25, "{seen:?}");
}

/// The example, step by step: once a Kontor draw has shown a player two cards, no
/// one may undo across it, not even that player; the two cards they put back are their own
/// open choice, taken back at once, and the same two drawn cards are in hand again.
#[test]
fn a_kontor_draw_is_a_barrier_and_the_cards_put_back_are_not() {
    use crate::games::Actor;
    use crate::games::testing::UndoLog;
    use crate::service::play::undo::{Plan, Policy, Refusal};
    let mut log = UndoLog::<FlyingDutchman>::start(&Options::default(), 3, 5);
    let first = FlyingDutchman::pending(&log.state)[0];
    let (smith, _) = log.act(Actor::Seat(first), &Command::UseSmith).unwrap();
    assert_eq!(
        log.plan(Policy::Own, first, None),
        Ok(Plan::Rewind {
            to_version: smith - 1
        })
    );
    let second = FlyingDutchman::pending(&log.state)[0];
    let (_, drew) = log.act(Actor::Seat(second), &Command::UseKontor).unwrap();
    let across = Err(Refusal::Barrier {
        barrier_version: drew,
        barrier: undo::DRAW,
    });
    assert_eq!(log.plan(Policy::Consent, first, None), across);
    assert_eq!(log.plan(Policy::Consent, first, Some(smith - 1)), across);
    assert_eq!(log.plan(Policy::Own, second, None), across);
    let hand = log.state.players[usize::from(second)].shares.clone();
    assert_eq!(hand.len(), 5);
    let at_draw = log.state.clone();
    log.act(
        Actor::Seat(second),
        &Command::ReturnShares {
            cards: hand[..2].to_vec(),
        },
    )
    .unwrap();
    assert_eq!(log.undo_with_consent(Policy::Own, second, None), Ok(drew));
    assert_eq!(log.state, at_draw);
    // And the other two cards go back instead.
    log.act(
        Actor::Seat(second),
        &Command::ReturnShares {
            cards: hand[3..].to_vec(),
        },
    )
    .unwrap();
    assert_eq!(log.state.players[usize::from(second)].shares.len(), 3);
}
