//! Undo barriers (`undo.rs`, `RULES.md` "Undo barriers"): a property over bot games, and for
//! each barrier kind a position where the undo planner refuses to reach across it.

use super::super::*;
use crate::games::testing::check_undo_barriers;

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
