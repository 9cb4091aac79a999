//! Undo barriers (`undo.rs`, `RULES.md` "Undo barriers"): a property over bot games, and for
//! each barrier kind a position where the undo planner refuses to reach across it.

use super::super::*;
use crate::games::testing::check_undo_barriers;

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
